// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events of the syscall class (ABI 0.13): a traced thread entering
 * and leaving a system call, from the kernel's sys_enter and sys_exit
 * tracepoints.
 *
 * While any probe is on those tracepoints, the kernel sends every system
 * call of every task through its slow entry and exit work: the class
 * needs CAP_PERFMON (kprobes.c), and its probes are on only while a
 * stream records it. A probe's own work for a task of a process nobody
 * records the class for is a compare with the last such process its CPU
 * saw, or the process table's lookup (posixtrace_kev_traced_current()).
 * The probes run with preemption off (up to 6.12 at least): they post to
 * the streams' kbufs as every kernel event does (kevent_record.c).
 */

#include <linux/compat.h>
#include <linux/posixtrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <asm/syscall.h>

#include "kevent_record.h"
#include "kevent_syscall.h"
#include "stream.h"

/* The data of each type: the fields of its format, packed. */
struct posixtrace_kev_sys_entry {
	s32 nr;
	u8 compat;
	u64 args[6];
} __packed;

struct posixtrace_kev_sys_exit {
	s32 nr;
	u8 compat;
	s64 ret;
} __packed;

/*
 * In the 32-bit compat ABI's table, not the native one? On x86-64 the
 * thread's own flag says so, not the call's number as
 * in_compat_syscall() reads it: that takes x32's calls (the native
 * table's, their number with __X32_SYSCALL_BIT), and a call a ptracer
 * cancelled (-1, all bits set), for compat ones.
 */
static u8 posixtrace_kev_sys_compat(void)
{
#ifdef CONFIG_X86_64
	return in_ia32_syscall();
#else
	return in_compat_syscall();
#endif
}

void posixtrace_kev_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct posixtrace_kev_sys_entry e;
	unsigned long args[6];
	struct posixtrace_process *proc;
	struct posixtrace_emit emit;
	unsigned int i;

	rcu_read_lock();
	proc = posixtrace_kev_traced_current(POSIXTRACE_KERNEL_SYSCALL);
	if (proc) {
		syscall_get_arguments(current, regs, args);
		e.nr = id;
		e.compat = posixtrace_kev_sys_compat();
		for (i = 0; i < ARRAY_SIZE(args); i++)
			e.args[i] = args[i];
		posixtrace_kev_emit_init(&emit, current,
					 POSIXTRACE_EVENT_SYSCALL_ENTRY, &e,
					 sizeof(e));
		posixtrace_kev_record(proc, POSIXTRACE_KERNEL_SYSCALL, &emit,
				      NULL, NULL, NULL);
	}
	rcu_read_unlock();
}

void posixtrace_kev_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct posixtrace_kev_sys_exit e;
	struct posixtrace_process *proc;
	struct posixtrace_emit emit;

	rcu_read_lock();
	proc = posixtrace_kev_traced_current(POSIXTRACE_KERNEL_SYSCALL);
	if (proc) {
		e.nr = syscall_get_nr(current, regs);
		e.compat = posixtrace_kev_sys_compat();
		e.ret = ret;
		posixtrace_kev_emit_init(&emit, current,
					 POSIXTRACE_EVENT_SYSCALL_EXIT, &e,
					 sizeof(e));
		posixtrace_kev_record(proc, POSIXTRACE_KERNEL_SYSCALL, &emit,
				      NULL, NULL, NULL);
	}
	rcu_read_unlock();
}
