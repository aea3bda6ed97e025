/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_INHERIT_H
#define _POSIXTRACE_INHERIT_H

struct task_struct;

void posixtrace_inherit_fork(struct task_struct *parent,
			     struct task_struct *child);
int posixtrace_inherit_init(void);
void posixtrace_inherit_exit(void);

#endif /* _POSIXTRACE_INHERIT_H */
