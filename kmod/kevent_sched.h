/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KEVENT_SCHED_H
#define _POSIXTRACE_KEVENT_SCHED_H

#include <linux/types.h>

struct task_struct;

/* The probes of the sched class, on the scheduler's tracepoints. */
void posixtrace_kev_sched_switch(void *data, bool preempt,
				 struct task_struct *prev,
				 struct task_struct *next,
				 unsigned int prev_state);
void posixtrace_kev_sched_waking(void *data, struct task_struct *p);
void posixtrace_kev_sched_wakeup_new(void *data, struct task_struct *p);
void posixtrace_kev_sched_migrate(void *data, struct task_struct *p,
				  int dest_cpu);

#endif /* _POSIXTRACE_KEVENT_SCHED_H */
