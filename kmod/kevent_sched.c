// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events of the sched class: a traced thread leaving
 * its CPU and running, woken, moved to another CPU, from the kernel's
 * sched_switch, sched_waking, sched_wakeup_new and sched_migrate_task
 * tracepoints.
 *
 * Those fire for every task of the machine, on every context switch: the
 * class needs CAP_PERFMON (kprobes.c), and a probe's work for a task of a
 * process nobody records it for is a few compares
 * (posixtrace_kev_traced_cached()). They run under the scheduler's
 * locks, interrupts off (but a task waking itself): they post to the
 * streams' kbufs as every kernel event does, which takes raw locks only
 * and asks for a drain through an irq_work (kevent_record.c, stream_record.c).
 * Nothing here may wake a task or queue a work directly: the runqueue
 * it would take may be the one held.
 *
 * Only a traced thread's events are recorded: a wakeup of another
 * process by a traced one is not, and a traced one woken by another
 * names its waker only as the stream's pid namespace sees it.
 */

#include <linux/pid_namespace.h>
#include <linux/posixtrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/smp.h>

#include "kbuf.h"
#include "kevent_record.h"
#include "kevent_sched.h"
#include "stream.h"

/* The data of each type: the fields of its format, packed. */
struct posixtrace_kev_sched_out {
	u32 state;
	s32 prio;
	u32 policy, cpu;
} __packed;

struct posixtrace_kev_sched_in {
	s32 prio;
	u32 cpu;
} __packed;

struct posixtrace_kev_wakeup {
	s32 waker_pid, waker_tid;
	u32 cpu;
	s32 prio;
	u8 new;
} __packed;

struct posixtrace_kev_migrate {
	u32 from, to;
} __packed;

static_assert(POSIXTRACE_SCHED_PREEMPTED == TASK_REPORT_MAX);

/*
 * What @prev leaves its CPU for, as the kernel's own sched_switch event
 * reports it (__trace_sched_switch_state(), which only the file that
 * defines the event sees): preempted, else one TASK_REPORT bit, or 0
 * for runnable.
 */
static u32 posixtrace_kev_switch_state(bool preempt, unsigned int prev_state,
				       const struct task_struct *prev)
{
	unsigned int i;

	if (preempt)
		return TASK_REPORT_MAX;
	i = __task_state_index(prev_state, prev->exit_state);
	return i ? 1U << (i - 1) : 0;
}

/* A task's priority as the events count it (the uapi header). */
static s32 posixtrace_kev_prio(const struct task_struct *p)
{
	return READ_ONCE(p->prio) - MAX_RT_PRIO;
}

/* @task's event @id of @len bytes of @data to the streams of @proc. */
static void posixtrace_kev_sched_record(struct posixtrace_process *proc,
					struct task_struct *task, u32 id,
					void *data, size_t len,
					posixtrace_kev_number_t number,
					const void *arg)
{
	struct posixtrace_emit emit;

	posixtrace_kev_emit_init(&emit, task, id, data, len);
	/*
	 * An exited thread's last switches: its pids are gone (uapi header),
	 * or going while we look (its parent reaping it): read once, above.
	 */
	if (!emit.tgid || !emit.tid)
		return;
	posixtrace_kev_record(proc, POSIXTRACE_KERNEL_SCHED, &emit, data,
			      number, arg);
}

/* In __schedule(), @prev being current, under its runqueue's lock. */
void posixtrace_kev_sched_switch(void *data, bool preempt,
				 struct task_struct *prev,
				 struct task_struct *next,
				 unsigned int prev_state)
{
	struct posixtrace_process *proc;
	unsigned int cpu = smp_processor_id();

	rcu_read_lock();
	proc = posixtrace_kev_traced_cached(prev, POSIXTRACE_KERNEL_SCHED);
	if (proc) {
		struct posixtrace_kev_sched_out out = {
			.state = posixtrace_kev_switch_state(preempt,
							     prev_state, prev),
			.prio = posixtrace_kev_prio(prev),
			.policy = READ_ONCE(prev->policy),
			.cpu = cpu,
		};

		posixtrace_kev_sched_record(proc, prev,
					    POSIXTRACE_EVENT_SCHED_OUT, &out,
					    sizeof(out), NULL, NULL);
	}
	proc = posixtrace_kev_traced_cached(next, POSIXTRACE_KERNEL_SCHED);
	if (proc) {
		struct posixtrace_kev_sched_in in = {
			.prio = posixtrace_kev_prio(next),
			.cpu = cpu,
		};

		posixtrace_kev_sched_record(proc, next,
					    POSIXTRACE_EVENT_SCHED_IN, &in,
					    sizeof(in), NULL, NULL);
	}
	rcu_read_unlock();
}

/* The waker (@arg, or NULL for none) as @ns sees it. */
static void posixtrace_kev_waker_number(void *data, struct pid_namespace *ns,
					const void *arg)
{
	struct posixtrace_kev_wakeup *w = data;
	struct task_struct *waker = (struct task_struct *)arg;

	w->waker_pid = waker ? task_tgid_nr_ns(waker, ns) : 0;
	w->waker_tid = waker ? task_pid_nr_ns(waker, ns) : 0;
}

/*
 * The thread that wakes @p: current, unless this is an interrupt's
 * wakeup, or a kernel thread's (a kworker, a timer's thread), which
 * would name a thread that had no part in it.
 */
static struct task_struct *posixtrace_kev_waker(void)
{
	if (!in_task() || (current->flags & PF_KTHREAD))
		return NULL;
	return current;
}

static void posixtrace_kev_wakeup(struct task_struct *p, u8 new)
{
	struct posixtrace_process *proc;

	rcu_read_lock();
	proc = posixtrace_kev_traced_cached(p, POSIXTRACE_KERNEL_SCHED);
	if (proc) {
		struct posixtrace_kev_wakeup w = {
			.cpu = task_cpu(p),
			.prio = posixtrace_kev_prio(p),
			.new = new,
		};

		posixtrace_kev_sched_record(proc, p,
					    POSIXTRACE_EVENT_SCHED_WAKEUP, &w,
					    sizeof(w),
					    posixtrace_kev_waker_number,
					    posixtrace_kev_waker());
	}
	rcu_read_unlock();
}

/* In try_to_wake_up(), in the waker's context, under @p's pi_lock. */
void posixtrace_kev_sched_waking(void *data, struct task_struct *p)
{
	posixtrace_kev_wakeup(p, 0);
}

/* In wake_up_new_task(), in the parent, under @p's runqueue lock. */
void posixtrace_kev_sched_wakeup_new(void *data, struct task_struct *p)
{
	posixtrace_kev_wakeup(p, 1);
}

/* In set_task_cpu(), before @p moves: task_cpu() is still the old one. */
void posixtrace_kev_sched_migrate(void *data, struct task_struct *p,
				  int dest_cpu)
{
	struct posixtrace_process *proc;

	rcu_read_lock();
	proc = posixtrace_kev_traced_cached(p, POSIXTRACE_KERNEL_SCHED);
	if (proc) {
		struct posixtrace_kev_migrate m = {
			.from = task_cpu(p),
			.to = dest_cpu,
		};

		posixtrace_kev_sched_record(proc, p,
					    POSIXTRACE_EVENT_SCHED_MIGRATE, &m,
					    sizeof(m), NULL, NULL);
	}
	rcu_read_unlock();
}
