/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_THREAD_RING_H
#define _POSIXTRACE_THREAD_RING_H

#include <linux/types.h>

struct posixtrace_emit;
struct posixtrace_process;
struct posixtrace_thread_ring;
struct task_struct;
struct vm_area_struct;

/*
 * What a drain does with the records it takes: hand @n of them, made by
 * @proc's threads, in order, to the streams tracing @proc (links.c's
 * posixtrace_links_emit()). Called under rcu_read_lock() and the drain's
 * spinlock; must not sleep.
 */
typedef void (*posixtrace_ring_emit_t)(struct posixtrace_process *proc,
				       const struct posixtrace_emit *emits,
				       unsigned int n);

int posixtrace_thread_rings_init(posixtrace_ring_emit_t emit);
void posixtrace_thread_rings_exit(void);

int posixtrace_thread_ring_mmap(struct vm_area_struct *vma);
void posixtrace_thread_rings_drain(void);
void posixtrace_thread_rings_drain_atomic(void);
void posixtrace_thread_rings_kick(void);
void posixtrace_thread_ring_retire_task(struct task_struct *task);
void posixtrace_thread_rings_retire(struct posixtrace_process *proc);

#endif /* _POSIXTRACE_THREAD_RING_H */
