/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_THREAD_RING_H
#define _POSIXTRACE_THREAD_RING_H

#include <linux/types.h>

struct posixtrace_emit;
struct posixtrace_process;
struct posixtrace_thread_ring;
struct task_struct;
struct vm_area_struct;

int posixtrace_thread_ring_mmap(struct vm_area_struct *vma, bool grow);
void posixtrace_thread_ring_kick(void);
bool posixtrace_thread_ring_open(struct posixtrace_process *proc);
void posixtrace_thread_ring_retire_task(struct task_struct *task);
void posixtrace_thread_rings_close(struct posixtrace_process *proc);

#endif /* _POSIXTRACE_THREAD_RING_H */
