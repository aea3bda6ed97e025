/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KEVENT_SYSCALL_H
#define _POSIXTRACE_KEVENT_SYSCALL_H

struct pt_regs;

/* The probes of the syscall class, on sys_enter and sys_exit. */
void posixtrace_kev_sys_enter(void *data, struct pt_regs *regs, long id);
void posixtrace_kev_sys_exit(void *data, struct pt_regs *regs, long ret);
int posixtrace_kev_sys_bufs_init(void);
void posixtrace_kev_sys_bufs_free(void);

#endif /* _POSIXTRACE_KEVENT_SYSCALL_H */
