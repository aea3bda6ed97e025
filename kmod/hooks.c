// SPDX-License-Identifier: GPL-2.0
/*
 * The process hooks: following processes through fork, exit and exec, by
 * the scheduler's tracepoints.
 *
 * Neither tracepoint is exported to modules, so they are found by name
 * (for_each_kernel_tracepoint()), as lttng-modules does. Probes run with
 * preemption disabled. The exit and exec probes close the thread's ring,
 * and a process leaving the table closes its rings, without draining:
 * drains in workers take what they hold, in order with every other ring's
 * records (thread_ring.c). A creator's exit or exec shuts its streams down
 * in a task work of the exiting or exec'ing thread, which runs before its
 * parent can reap it or before the new image runs, and leaves what its
 * threads wrote before to a later drain too (stream.c). No probe does work
 * that grows with what the rings hold.
 *
 * PREEMPT_RT: the probes take raw locks only (the process table's, the
 * streams list's, the pool of fork tickets'), queue work and task works,
 * and drop references whose release only queues an RCU callback; what
 * allocates or takes a sleeping lock runs in a task work or a worker.
 */

#include <linux/binfmts.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>

#include "access.h"
#include "compat.h"
#include "hooks.h"
#include "inherit.h"
#include "kprobes.h"
#include "links.h"
#include "process.h"
#include "stream.h"
#include "drain.h"
#include "thread_ring.h"

static struct tracepoint *posixtrace_tp_fork;
static struct tracepoint *posixtrace_tp_exit;
static struct tracepoint *posixtrace_tp_exec;

/* Runs in the parent, before the child first runs (TRI). */
static void posixtrace_on_fork(void *data, struct task_struct *parent,
			       struct task_struct *child)
{
	posixtrace_inherit_fork(parent, child);
}

/* What the hooks leave to a worker: drains, which may take long. */
static struct workqueue_struct *posixtrace_hooks_wq;

/*
 * The rest of posixtrace_forget(), in a worker: its threads' last records
 * go to the streams that traced it, then those streams stop tracing it.
 */
static void posixtrace_forget_work(struct work_struct *work)
{
	struct posixtrace_process *proc =
		container_of(work, struct posixtrace_process, gone_work);

	posixtrace_process_removed(proc);
	/* Takes, and retires, the rings closed below: those of its domain. */
	posixtrace_drain(READ_ONCE(proc->domain));
	posixtrace_links_forget(proc);
	posixtrace_process_put(proc);
}

/*
 * The process exited, or exec'd a privileged image: its entry leaves the
 * table, so that nothing it does from now on reaches the streams tracing
 * it, and they stop tracing it once what its threads wrote before is
 * theirs (a worker: the drain grows with what every ring holds, and the
 * hooks run with preemption disabled).
 */
static void posixtrace_forget(struct pid *tgid)
{
	struct posixtrace_process *proc = posixtrace_process_remove(tgid);

	if (!proc)
		return;
	posixtrace_thread_rings_close(proc);
	INIT_WORK(&proc->gone_work, posixtrace_forget_work);
	queue_work(posixtrace_hooks_wq, &proc->gone_work);
}

/* How long a group's last threads may take to pass their exit probe. */
#define POSIXTRACE_EXIT_WAIT_MS	10000

/*
 * Whether a thread of @tgid's group has yet to reach exit_notify(), which
 * comes after the exit tracepoint: its exit event (kevents.c) must still
 * find the process in the table. A group whose leader is released has no
 * thread left.
 */
static bool posixtrace_group_exiting(struct pid *tgid)
{
	struct task_struct *leader, *t;
	bool exiting = false;

	rcu_read_lock();
	leader = pid_task(tgid, PIDTYPE_TGID);
	if (leader) {
		for_each_thread(leader, t) {
			if (!READ_ONCE(t->exit_state)) {
				exiting = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return exiting;
}

/*
 * Every thread of the group has begun to exit, but some may reach their
 * exit probe after the one that saw it (every thread counts itself out of
 * signal->live early in do_exit(); the one that tears down a large mm
 * comes much later): the entry leaves the table once none is left to
 * come, or after POSIXTRACE_EXIT_WAIT_MS (a thread stuck in its exit):
 * a thread finding no process would drop its exit event, uncounted.
 */
static void posixtrace_exit_work(struct work_struct *work)
{
	struct posixtrace_process *proc =
		container_of(work, struct posixtrace_process, exit_work);
	unsigned long deadline = jiffies +
				 msecs_to_jiffies(POSIXTRACE_EXIT_WAIT_MS);

	while (posixtrace_group_exiting(proc->tgid) &&
	       time_before(jiffies, deadline))
		schedule_timeout_uninterruptible(1);
	posixtrace_forget(proc->tgid);
	posixtrace_process_put(proc);
}

/*
 * Runs for every exiting thread: its ring is closed, and its records go
 * to the streams soon (they are the kernel's pages: a thread killed right
 * after writing loses none). The rest once the thread group is dead.
 */
static void posixtrace_on_exit(void *data, struct task_struct *task)
{
	struct posixtrace_process *proc;

	posixtrace_thread_ring_retire_task(task);
	if (atomic_read(&task->signal->live))
		return;
	proc = posixtrace_process_find(task_tgid(task));
	if (proc && !atomic_xchg(&proc->exit_queued, 1)) {
		INIT_WORK(&proc->exit_work, posixtrace_exit_work);
		queue_work(posixtrace_hooks_wq, &proc->exit_work);
	} else if (proc) {
		posixtrace_process_put(proc);
	}
	posixtrace_streams_creator_gone(task);
}

/*
 * Runs in the new image, before it first runs. Its own streams die
 * (POSIX); after a privileged exec, other streams stop tracing it and its
 * names start afresh, in an entry no earlier stream can reach.
 */
static void posixtrace_on_exec(void *data, struct task_struct *task,
			       pid_t old_pid, struct linux_binprm *bprm)
{
	/* The old image's ring went with its mm; its records did not. */
	posixtrace_thread_ring_retire_task(task);
	posixtrace_streams_creator_gone(task);
	if (!posixtrace_may_keep_tracing(task, bprm))
		posixtrace_forget(task_tgid(task));
}

int posixtrace_hooks_init(void)
{
	int ret;

	/* The probes' prototypes must be the tracepoints': checked here. */
	check_trace_callback_type_sched_process_fork(posixtrace_on_fork);
	check_trace_callback_type_sched_process_exit(posixtrace_on_exit);
	check_trace_callback_type_sched_process_exec(posixtrace_on_exec);

	posixtrace_tp_fork = posixtrace_tracepoint("sched_process_fork");
	posixtrace_tp_exit = posixtrace_tracepoint("sched_process_exit");
	posixtrace_tp_exec = posixtrace_tracepoint("sched_process_exec");
	if (!posixtrace_tp_fork || !posixtrace_tp_exit || !posixtrace_tp_exec) {
		pr_err("scheduler tracepoints not found\n");
		return -ENOENT;
	}
	ret = posixtrace_inherit_init();
	if (ret)
		return ret;
	posixtrace_hooks_wq = alloc_workqueue("posixtrace_hooks", WQ_UNBOUND,
					      0);
	if (!posixtrace_hooks_wq) {
		ret = -ENOMEM;
		goto err_inherit_exit;
	}
	ret = tracepoint_probe_register(posixtrace_tp_exit,
					(void *)posixtrace_on_exit, NULL);
	if (ret)
		goto err_destroy_wq;
	ret = tracepoint_probe_register(posixtrace_tp_exec,
					(void *)posixtrace_on_exec, NULL);
	if (ret)
		goto err_unregister_exit;
	/* Last: a child it links is then sure to be followed to its exit. */
	ret = tracepoint_probe_register(posixtrace_tp_fork,
					(void *)posixtrace_on_fork, NULL);
	if (ret)
		goto err_unregister_exec;
	return 0;

err_unregister_exec:
	tracepoint_probe_unregister(posixtrace_tp_exec,
				    (void *)posixtrace_on_exec, NULL);
err_unregister_exit:
	tracepoint_probe_unregister(posixtrace_tp_exit,
				    (void *)posixtrace_on_exit, NULL);
	tracepoint_synchronize_unregister();
err_destroy_wq:
	destroy_workqueue(posixtrace_hooks_wq);
err_inherit_exit:
	posixtrace_inherit_exit();
	return ret;
}

void posixtrace_hooks_exit(void)
{
	tracepoint_probe_unregister(posixtrace_tp_fork,
				    (void *)posixtrace_on_fork, NULL);
	tracepoint_probe_unregister(posixtrace_tp_exec,
				    (void *)posixtrace_on_exec, NULL);
	tracepoint_probe_unregister(posixtrace_tp_exit,
				    (void *)posixtrace_on_exit, NULL);
	tracepoint_synchronize_unregister();
	/* What they left to do: the rings are still there to drain. */
	destroy_workqueue(posixtrace_hooks_wq);
	posixtrace_inherit_exit();
}
