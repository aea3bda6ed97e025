/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_HOOK_WORK_H
#define _POSIXTRACE_HOOK_WORK_H

#include <linux/module.h>
#include <linux/sched.h>
#include <linux/task_work.h>

#include "compat.h"

/**
 * posixtrace_hook_work_add - run @fn as @task returns to user space
 * @task: a task a hook runs for (the fork's child, the exiting or
 *	  exec'ing thread), with preemption disabled as hooks run
 * @work: where the work is kept until it runs
 * @fn: what runs, with preemption enabled, in @task; its last call must
 *	be module_put(THIS_MODULE)
 *
 * The hooks' way of doing what cannot be done where they run (sleep,
 * take a sleeping lock, wake readers): the work holds the module until it
 * has run, so that @fn's code is there when it does.
 *
 * Return: 0, or -ESRCH if @task is past its task works (exiting, after
 * the point where they run): @fn will not run, and the module is not held.
 */
static inline int posixtrace_hook_work_add(struct task_struct *task,
					   struct callback_head *work,
					   task_work_func_t fn)
{
	__module_get(THIS_MODULE);
	init_task_work(work, fn);
	if (!task_work_add(task, work, POSIXTRACE_TWA_HOOK))
		return 0;
	module_put(THIS_MODULE);
	return -ESRCH;
}

#endif /* _POSIXTRACE_HOOK_WORK_H */
