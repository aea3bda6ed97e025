/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels posixtrace supports lives here, so
 * that no other file tests a kernel version.
 */
#ifndef _POSIXTRACE_COMPAT_H
#define _POSIXTRACE_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

/* v6.12 moved <asm/unaligned.h> (put_unaligned()) to <linux/unaligned.h>. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif

/* v6.3 made vma->vm_flags read-only behind vm_flags_*(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_mod(struct vm_area_struct *vma,
				vm_flags_t set, vm_flags_t clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#endif

/*
 * Before 6.1.117 ("mm: resolve faulty mmap_region() error path
 * behaviour"), a mapping that failed late was closed before it was
 * unmapped: a stream's batch buffer (stream_read.c) could then be freed
 * while another thread could still read it.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 117)
#error "posixtrace needs Linux 6.1.117 or later"
#endif

/*
 * The hooks queue task works with preemption disabled, where 6.12's
 * task_work_add() may allocate (KASAN's record of the stack) unless given
 * TWAF_NO_ALLOC, which 6.1 lacks.
 */
#include <linux/task_work.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#define POSIXTRACE_TWA_HOOK	TWA_RESUME
#else
#define POSIXTRACE_TWA_HOOK	(TWA_RESUME | TWAF_NO_ALLOC)
#endif

#endif /* _POSIXTRACE_COMPAT_H */
