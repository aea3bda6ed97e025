/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_ACCESS_H
#define _POSIXTRACE_ACCESS_H

#include <linux/sched.h>

struct linux_binprm;

int posixtrace_access_init(void);
int posixtrace_may_trace(struct task_struct *task, int mem_fd);
bool posixtrace_may_keep_tracing(struct task_struct *task,
				 const struct linux_binprm *bprm);

#endif /* _POSIXTRACE_ACCESS_H */
