// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events of the syscall class: a traced thread entering
 * and leaving a system call, from the kernel's sys_enter and sys_exit
 * tracepoints.
 *
 * While any probe is on those tracepoints, the kernel sends every system
 * call of every task through its slow entry and exit work: the class
 * needs CAP_PERFMON (kprobes.c), and its probes are on only while a
 * stream records it. A probe's own work for a task of a process nobody
 * records the class for is a few compares with the last such processes
 * its CPU saw, or the process table's lookup
 * (posixtrace_kev_traced_cached()).
 * The probes run with preemption off (up to 6.12 at least): they post to
 * the streams' kbufs as every kernel event does (kevent_record.c), each
 * stream the calls it selects (syscall_select.c), and copy nothing for a
 * call no stream selects.
 */

#include <linux/compat.h>
#include <linux/percpu.h>
#include <linux/posixtrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "kbuf.h"
#include "kevent_record.h"
#include "kevent_syscall.h"
#include "stream.h"

/* The fixed fields of each type, packed as their formats say. */
struct posixtrace_kev_sys_entry {
	s32 nr;
	u8 compat;
	u64 args[6];
	u8 cut;
} __packed;

struct posixtrace_kev_sys_exit {
	s32 nr;
	u8 compat;
	s64 ret;
} __packed;

/*
 * An entry's data: the fixed fields, then two paths and an address. Per
 * CPU: a system call's probe runs with preemption off and never in an
 * interrupt, so nothing else on the CPU uses it meanwhile.
 */
struct posixtrace_kev_sys_buf {
	u8 data[sizeof(struct posixtrace_kev_sys_entry) +
		2 * POSIXTRACE_SYSCALL_PATH_MAX + POSIXTRACE_SYSCALL_ADDR_MAX];
};

/* A kbuf takes the largest: it drains past half, and holds two. */
static_assert(sizeof(struct posixtrace_kev_sys_buf) + 64 <=
	      POSIXTRACE_KBUF_SIZE / 2);

static struct posixtrace_kev_sys_buf __percpu *posixtrace_kev_sys_bufs;

/* Which registers of a call are its paths and address; -1: none. */
struct posixtrace_kev_sys_mem {
	s8 path, path2, addr, addrlen;
};

/*
 * The open, exec, stat, unlink and rename families, connect() and bind(),
 * in the native table (the compat one numbers them otherwise). The calls
 * an architecture does not have (open, stat... on arm64) are left out.
 */
static void posixtrace_kev_sys_mem(long nr, struct posixtrace_kev_sys_mem *m)
{
	*m = (struct posixtrace_kev_sys_mem) { -1, -1, -1, -1 };
	switch (nr) {
#ifdef __NR_open
	case __NR_open:
#endif
#ifdef __NR_creat
	case __NR_creat:
#endif
#ifdef __NR_stat
	case __NR_stat:
#endif
#ifdef __NR_lstat
	case __NR_lstat:
#endif
#ifdef __NR_unlink
	case __NR_unlink:
#endif
	case __NR_execve:
		m->path = 0;
		break;
	case __NR_openat:
	case __NR_openat2:
	case __NR_execveat:
	case __NR_newfstatat:
	case __NR_statx:
	case __NR_unlinkat:
		m->path = 1;
		break;
#ifdef __NR_rename
	case __NR_rename:
		m->path = 0;
		m->path2 = 1;
		break;
#endif
#ifdef __NR_renameat
	case __NR_renameat:
#endif
	case __NR_renameat2:
		m->path = 1;
		m->path2 = 3;
		break;
	case __NR_connect:
	case __NR_bind:
		m->addr = 1;
		m->addrlen = 2;
		break;
	}
}

/*
 * The string at @uaddr into @dst, POSIXTRACE_SYSCALL_PATH_MAX bytes at
 * most with its NUL, without sleeping or faulting a page in (as the
 * unexported strncpy_from_user_nofault() does); "" if it cannot be read
 * so. Sets @bit in *@cut unless @dst is the whole string: a NULL path
 * (statx()'s with AT_EMPTY_PATH) is whole. Returns the bytes it wrote,
 * the NUL included.
 */
static size_t posixtrace_kev_sys_path(char *dst, unsigned long uaddr, u8 *cut,
				      u8 bit)
{
	long n = 0;

	if (!uaddr)
		goto out;
	pagefault_disable();
	n = strncpy_from_user(dst, (const char __user *)uaddr,
			      POSIXTRACE_SYSCALL_PATH_MAX);
	pagefault_enable();
	if (n < 0 || n >= POSIXTRACE_SYSCALL_PATH_MAX) {
		*cut |= bit;
		n = n < 0 ? 0 : POSIXTRACE_SYSCALL_PATH_MAX - 1;
	}
out:
	dst[n] = '\0';
	return n + 1;
}

/*
 * The address of @len bytes at @uaddr into @dst, as much of it as
 * POSIXTRACE_SYSCALL_ADDR_MAX holds, without sleeping or faulting; none
 * if it cannot be read so. Sets @bit in *@cut unless @dst is all of it.
 * Returns the bytes it wrote.
 */
static size_t posixtrace_kev_sys_addr(u8 *dst, unsigned long uaddr, int len,
				      u8 *cut, u8 bit)
{
	size_t n = len < 0 ? 0 : min_t(size_t, len,
				       POSIXTRACE_SYSCALL_ADDR_MAX);

	if (n < (size_t)max(len, 0))
		*cut |= bit;
	if (n && copy_from_user_nofault(dst, (const void __user *)uaddr, n)) {
		*cut |= bit;
		return 0;
	}
	return n;
}

/* Argument register @i of @args; 0 (no path, no address) for -1. */
static unsigned long posixtrace_kev_sys_arg(const unsigned long *args, int i)
{
	return i >= 0 ? args[i] : 0;
}

/*
 * An entry's data into @buf: the fixed fields of @e, then what @args
 * point at, for a native call that has paths or an address (a call that
 * has none gets a NULL path's "" twice and an address of no bytes).
 * Returns its length.
 */
static size_t posixtrace_kev_sys_fill(u8 *buf,
				      struct posixtrace_kev_sys_entry *e,
				      const unsigned long *args)
{
	struct posixtrace_kev_sys_mem m;
	size_t len = sizeof(*e);

	posixtrace_kev_sys_mem(e->compat ? -1 : e->nr, &m);
	e->cut = 0;
	len += posixtrace_kev_sys_path(buf + len,
				       posixtrace_kev_sys_arg(args, m.path),
				       &e->cut, POSIXTRACE_SYSCALL_CUT_PATH);
	len += posixtrace_kev_sys_path(buf + len,
				       posixtrace_kev_sys_arg(args, m.path2),
				       &e->cut, POSIXTRACE_SYSCALL_CUT_PATH2);
	len += posixtrace_kev_sys_addr(buf + len,
				       posixtrace_kev_sys_arg(args, m.addr),
				       (int)posixtrace_kev_sys_arg(args,
								   m.addrlen),
				       &e->cut, POSIXTRACE_SYSCALL_CUT_ADDR);
	memcpy(buf, e, sizeof(*e));
	return len;
}

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
	size_t len;
	u8 *buf;

	rcu_read_lock();
	proc = posixtrace_kev_traced_cached(current,
					    POSIXTRACE_KERNEL_SYSCALL);
	if (proc) {
		e.nr = id;
		e.compat = posixtrace_kev_sys_compat();
		if (!posixtrace_kev_call_wanted(proc, id, e.compat))
			goto out;
		syscall_get_arguments(current, regs, args);
		for (i = 0; i < ARRAY_SIZE(args); i++)
			e.args[i] = args[i];
		buf = this_cpu_ptr(posixtrace_kev_sys_bufs)->data;
		len = posixtrace_kev_sys_fill(buf, &e, args);
		posixtrace_kev_emit_init(&emit, current,
					 POSIXTRACE_EVENT_SYSCALL_ENTRY, buf,
					 len);
		posixtrace_kev_record_call(proc, &emit, id, e.compat);
	}
out:
	rcu_read_unlock();
}

void posixtrace_kev_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct posixtrace_kev_sys_exit e;
	struct posixtrace_process *proc;
	struct posixtrace_emit emit;

	rcu_read_lock();
	proc = posixtrace_kev_traced_cached(current,
					    POSIXTRACE_KERNEL_SYSCALL);
	if (proc) {
		e.nr = syscall_get_nr(current, regs);
		e.compat = posixtrace_kev_sys_compat();
		e.ret = ret;
		posixtrace_kev_emit_init(&emit, current,
					 POSIXTRACE_EVENT_SYSCALL_EXIT, &e,
					 sizeof(e));
		posixtrace_kev_record_call(proc, &emit, e.nr, e.compat);
	}
	rcu_read_unlock();
}

/* The per-CPU buffers of the entries' data. */
int posixtrace_kev_sys_bufs_init(void)
{
	posixtrace_kev_sys_bufs = alloc_percpu(struct posixtrace_kev_sys_buf);
	return posixtrace_kev_sys_bufs ? 0 : -ENOMEM;
}

/* After the probes are gone (posixtrace_kprobes_exit()). */
void posixtrace_kev_sys_bufs_free(void)
{
	free_percpu(posixtrace_kev_sys_bufs);
}
