// SPDX-License-Identifier: GPL-2.0
/*
 * What every probe of a kernel event class does (kevents.c,
 * kevent_syscall.c): find whether a stream tracing the task's process
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

/* @emit for event type @id of @task, @len bytes of @data. */
void posixtrace_kev_emit_init(struct posixtrace_emit *emit,
			      struct task_struct *task, u32 id,
			      const void *data, size_t len)
{
	*emit = (struct posixtrace_emit) {
		.event_id = id,
		.tgid = task_tgid(task),
		.tid = task_pid(task),
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
 * The last process a CPU found no stream recording a class of kernel
 * rates for (@tgid, whose pointer is compared, never followed), and the
 * links' generation read before that lookup.
 */
struct posixtrace_kev_miss {
	const struct pid *tgid;
	unsigned long gen;
	u32 class;
};

static DEFINE_PER_CPU(struct posixtrace_kev_miss, posixtrace_kev_miss);

/**
 * posixtrace_kev_traced_current - posixtrace_kev_traced() for current, at
 *	kernel rates
 * @class: the class of the event
 *
 * For the probes of system calls, which run on every task's: each CPU
 * remembers the last process it found untraced for @class, and until a
 * link is made anywhere (posixtrace_links_generation()), that process's
 * calls cost a compare, not a lookup. Only a miss is remembered: a
 * process traced now may not be later, which the lookup tells. A
 * remembered process whose pid (and its struct pid) went away and came
 * back for another process is told apart too: the new one is traced
 * only by a link made after it was made, which changes the generation.
 * Under RCU, in a system call's probe: process context, preemption off,
 * so the CPU's entry is ours alone. Not for a probe that may run in an
 * interrupt (signal_generate's): one could tear the entry of the task it
 * interrupted.
 *
 * Return: as posixtrace_kev_traced().
 */
struct posixtrace_process *posixtrace_kev_traced_current(u32 class)
{
	struct posixtrace_kev_miss *miss = this_cpu_ptr(&posixtrace_kev_miss);
	unsigned long gen = posixtrace_links_generation();
	struct pid *tgid = task_tgid(current);
	struct posixtrace_process *proc;

	if (miss->tgid == tgid && miss->gen == gen && miss->class == class)
		return NULL;
	proc = posixtrace_kev_traced(current, class);
	if (!proc)
		*miss = (struct posixtrace_kev_miss) {
			.tgid = tgid, .gen = gen, .class = class,
		};
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
		posixtrace_stream_post_kernel(stream, emit);
	}
}
