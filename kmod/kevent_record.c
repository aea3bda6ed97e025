// SPDX-License-Identifier: GPL-2.0
/*
 * What every probe of a kernel event class does (kevents.c,
 * kevent_syscall.c, kevent_sched.c): find whether a stream tracing the task's process
 * records the class, and post the event to each such stream's kbuf for
 * this CPU. Probes run with preemption off, maybe under the scheduler's
 * or a signal's locks: raw locks only, no allocation, no wakeup.
 */

#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched.h>

#include "kevent_record.h"
#include "links.h"
#include "process.h"
#include "stream.h"
#include "syscall_select.h"

/* @emit for event type @id of @task, @len bytes of @data. */
void posixtrace_kev_emit_init(struct posixtrace_emit *emit,
			      struct task_struct *task, u32 id,
			      const void *data, size_t len)
{
	*emit = (struct posixtrace_emit) {
		.event_id = id,
		/* Once each: a reaper may clear them meanwhile (RCU-freed). */
		.tgid = READ_ONCE(task->signal->pids[PIDTYPE_TGID]),
		.tid = READ_ONCE(task->thread_pid),
		.data = data,
		.data_len = len,
		.copied = len,
	};
}

/*
 * The entry of @task's process, if some stream tracing it records
 * @class; else NULL. Under RCU. Probes look first, so that an event of a
 * process nobody records costs a lookup, nothing more.
 */
struct posixtrace_process *posixtrace_kev_traced(struct task_struct *task,
						 u32 class)
{
	struct posixtrace_process *proc;
	struct posixtrace_link *link;

	proc = posixtrace_process_lookup(task_tgid(task));
	if (!proc)
		return NULL;
	list_for_each_entry_rcu(link, &proc->links, proc_node)
		if (posixtrace_stream_kernel_events(link->stream) & class)
			return proc;
	return NULL;
}

/*
 * A process a CPU found no stream recording a class of kernel rates for
 * (@tgid, whose pointer is compared, never followed), and the links'
 * generation read before that lookup.
 */
struct posixtrace_kev_miss {
	const struct pid *tgid;
	unsigned long gen;
	u32 class;
};

/*
 * The last few such processes of a CPU: a context switch asks about two,
 * and a machine switches among a few busy ones.
 */
#define POSIXTRACE_KEV_MISSES	4

struct posixtrace_kev_misses {
	struct posixtrace_kev_miss e[POSIXTRACE_KEV_MISSES];
	unsigned int next;
};

/*
 * One set for the system calls' probes, which run in process context
 * with preemption off, and one for the scheduler's, which run with
 * interrupts off: neither runs inside a probe using the same set on its
 * CPU, so each CPU's is its probes' alone.
 */
static DEFINE_PER_CPU(struct posixtrace_kev_misses, posixtrace_kev_sys_misses);
static DEFINE_PER_CPU(struct posixtrace_kev_misses,
		      posixtrace_kev_sched_misses);

/**
 * posixtrace_kev_traced_cached - posixtrace_kev_traced(), at kernel rates
 * @task: the task the event is about
 * @class: the class of the event: POSIXTRACE_KERNEL_SYSCALL, from a
 *	system call's probe on current; POSIXTRACE_KERNEL_SCHED, from a
 *	scheduler's probe
 *
 * For the probes that run on every task's system calls, or every context
 * switch: each CPU remembers the last processes it found untraced for
 * @class, and until a link is made anywhere
 * (posixtrace_links_generation()), such a process's events cost a few
 * compares, not a lookup. Only a miss is remembered: a process traced now
 * may not be later, which the lookup tells. A remembered process whose
 * pid (and its struct pid) went away and came back for another process
 * is told apart too: the new one is traced only by a link made after it
 * was made, which changes the generation. Under RCU. A scheduler's probe
 * that runs with interrupts on (a task waking itself) looks up without
 * the CPU's set, which an interrupt's wakeup could tear.
 *
 * Return: as posixtrace_kev_traced().
 */
struct posixtrace_process *posixtrace_kev_traced_cached(struct task_struct *task,
							u32 class)
{
	unsigned long gen = posixtrace_links_generation();
	struct pid *tgid = task_tgid(task);
	struct posixtrace_process *proc;
	struct posixtrace_kev_misses *misses;
	struct posixtrace_kev_miss *miss;
	unsigned int i;

	if (class == POSIXTRACE_KERNEL_SYSCALL)
		misses = this_cpu_ptr(&posixtrace_kev_sys_misses);
	else if (irqs_disabled())
		misses = this_cpu_ptr(&posixtrace_kev_sched_misses);
	else
		return posixtrace_kev_traced(task, class);
	for (i = 0; i < POSIXTRACE_KEV_MISSES; i++) {
		miss = &misses->e[i];
		if (miss->tgid == tgid && miss->gen == gen &&
		    miss->class == class)
			return NULL;
	}
	proc = posixtrace_kev_traced(task, class);
	if (!proc) {
		misses->e[misses->next] = (struct posixtrace_kev_miss) {
			.tgid = tgid, .gen = gen, .class = class,
		};
		misses->next = (misses->next + 1) % POSIXTRACE_KEV_MISSES;
	}
	return proc;
}

/*
 * @emit into every stream tracing @proc that records @class; @number (if
 * any) fills @emit's data for each stream first. Under RCU.
 */
void posixtrace_kev_record(struct posixtrace_process *proc, u32 class,
			   struct posixtrace_emit *emit, void *data,
			   posixtrace_kev_number_t number, const void *arg)
{
	struct posixtrace_link *link;
	struct posixtrace_stream *stream;

	list_for_each_entry_rcu(link, &proc->links, proc_node) {
		stream = link->stream;
		if (!(posixtrace_stream_kernel_events(stream) & class))
			continue;
		if (number)
			number(data, posixtrace_stream_pid_ns(stream), arg);
		posixtrace_stream_post_nowait(stream, emit);
	}
}

/* Does @stream record the syscall class's call @nr of table @compat? */
static bool posixtrace_kev_stream_calls(struct posixtrace_stream *stream,
					long nr, u8 compat)
{
	return (posixtrace_stream_kernel_events(stream) &
		POSIXTRACE_KERNEL_SYSCALL) &&
	       posixtrace_syscall_selected(posixtrace_stream_syscalls(stream),
					   nr, compat);
}

/*
 * Does some stream tracing @proc record call @nr of table @compat? The
 * probe asks before it copies anything. Under RCU.
 */
bool posixtrace_kev_call_wanted(struct posixtrace_process *proc, long nr,
				u8 compat)
{
	struct posixtrace_link *link;

	list_for_each_entry_rcu(link, &proc->links, proc_node)
		if (posixtrace_kev_stream_calls(link->stream, nr, compat))
			return true;
	return false;
}

/*
 * posixtrace_kev_record() for an event of system call @nr of table
 * @compat: to the streams that select it (syscall_select.c). Under RCU.
 */
void posixtrace_kev_record_call(struct posixtrace_process *proc,
				struct posixtrace_emit *emit, long nr,
				u8 compat)
{
	struct posixtrace_link *link;

	list_for_each_entry_rcu(link, &proc->links, proc_node)
		if (posixtrace_kev_stream_calls(link->stream, nr, compat))
			posixtrace_stream_post_nowait(link->stream, emit);
}
