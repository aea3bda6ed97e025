/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_THREAD_RING_H
#define _POSIXTRACE_THREAD_RING_H

#include <linux/types.h>

struct posixtrace_emit;
struct posixtrace_process;
struct posixtrace_thread_ring;
struct task_struct;
struct vm_area_struct;

struct posixtrace_loop_view;
struct posixtrace_stream;
struct timespec64;

/*
 * Where the records of the rings go: the streams, reached through these so
 * that the rings need not know them (main.c fills it in). All are called
 * under rcu_read_lock() and must not sleep.
 *
 * @emit:	hand @n records, made by @proc's threads, in order, to the
 *		streams tracing @proc (links.c's posixtrace_links_emit());
 *		under the drain's spinlock.
 * @emit_stream: hand @n records of @stream's kbufs, in order, to @stream
 *		(posixtrace_stream_emit()); under the drain's spinlock.
 * @loop_stream: the only stream tracing @proc, if it is a running LOOP
 *		stream without a log, its view filled in; else NULL
 *		(posixtrace_links_loop_stream()).
 * @overwritten: @n of the stream's events dropped, counted as overwritten
 *		(posixtrace_stream_overwritten()); false, counting nothing, if
 *		the stream stopped; under the drain's spinlock.
 */
struct posixtrace_ring_sink {
	void (*emit)(struct posixtrace_process *proc,
		     const struct posixtrace_emit *emits, unsigned int n);
	void (*emit_stream)(struct posixtrace_stream *stream,
			    const struct posixtrace_emit *emits,
			    unsigned int n);
	struct posixtrace_stream *(*loop_stream)(struct posixtrace_process *proc,
						 struct posixtrace_loop_view *view);
	bool (*overwritten)(struct posixtrace_stream *stream, u64 n,
			    const struct timespec64 *first);
};

int posixtrace_thread_rings_init(const struct posixtrace_ring_sink *sink);
void posixtrace_thread_rings_exit(void);

/*
 * A drain domain (drain_domain.h): the rings and kbufs whose records a
 * drain merges, and what that drain needs (its locks, its heap, its
 * batch). Every stream's sources are in one domain: see
 * Documentation/dev-tools/posixtrace-design.rst, "Drain domains".
 */
struct posixtrace_drain_domain;

struct posixtrace_drain_domain *
posixtrace_process_domain(struct posixtrace_process *proc);

int posixtrace_thread_ring_mmap(struct vm_area_struct *vma,
				unsigned int times);
void posixtrace_thread_rings_drain(struct posixtrace_drain_domain *dom);
void posixtrace_thread_rings_drain_current(void);
void posixtrace_thread_ring_kick(void);
u32 posixtrace_thread_ring_size_hint(size_t capacity);
void posixtrace_thread_ring_retire_task(struct task_struct *task);
void posixtrace_thread_rings_close(struct posixtrace_process *proc);
void posixtrace_thread_rings_poke(struct posixtrace_drain_domain *dom);
void posixtrace_thread_rings_drain_soon(struct posixtrace_drain_domain *dom);

struct posixtrace_kbuf;
int posixtrace_drain_list_kbufs(struct posixtrace_drain_domain *dom,
				struct posixtrace_kbuf **kbufs);
void posixtrace_drain_unlist_kbufs(struct posixtrace_drain_domain *dom,
				   struct posixtrace_kbuf **kbufs);

#endif /* _POSIXTRACE_THREAD_RING_H */
