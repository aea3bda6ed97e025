// SPDX-License-Identifier: GPL-2.0
/*
 * A stream's per-CPU buffers (kbufs): where an event made by system call
 * by a thread that writes no ring waits, without the stream's lock, until
 * a drain takes it.
 *
 * Such a thread (no ring yet, rings off, a ring that failed or was
 * revoked, a vfork child), and a kernel event's probe, write the record
 * into the stream's buffer of the CPU they run on, with interrupts off
 * (a few hundred bytes copied: never long), stamped there, and go on,
 * without draining the thread rings first; the drains (drain.c) take the
 * buffers as they take the rings, a source each, merged with them by
 * time, and hand the records to the stream, which judges them then, as
 * it judges a ring's: every state change drains first, so a
 * record made before a start, stop, filter change or shutdown returned
 * is judged by the state before it, one made after by the state after.
 *
 * Its thread writes no ring, so its own events all go through kbufs (or,
 * with data too long for one, straight to the stream after a drain; a
 * realtime thread's are lost instead, counted: device.c): a thread's
 * events stay in the order it made them. A thread that maps a
 * ring drains the kbufs first (thread_ring.c); a thread whose ring
 * closes has made its ring's records before its first kbuf record, and a
 * drain reads the kbufs before the rings, so a drain that sees the latter
 * sees the former (the writers' store-release of @head, the drain's
 * load-acquire).
 *
 * A buffer's writers are whoever runs on its CPU, one at a time with
 * interrupts off (kernel events come from interrupts too): no lock, no
 * atomic operation; only the drain, from any CPU, reads it and moves its
 * @tail. A buffer's records never wrap: one that does not fit before the
 * end is preceded by a pad to the end. The stamp is taken with
 * interrupts off and never goes back (a CLOCK_REALTIME step is
 * flattened), so each buffer is in time order, as the merge needs.
 * Across CPUs, a thread that migrates across a backward step of the
 * clock sees its events ordered by their stamps, not as it made them.
 *
 * A drain reads the buffers' heads one after another, while writers go
 * on: a thread could write a record into a buffer whose head the drain
 * has read, move to another CPU and write its next record into one the
 * drain reads next. So each record also carries a CLOCK_MONOTONIC stamp,
 * and a drain takes from the kbufs only what was stamped before it read
 * the clock, before any head (@cut): a record stamped after was written
 * after, and so was anything a thread made after it. What a drain takes
 * from the kbufs is then a cut in time, closed under "made before".
 *
 * Nothing here is the thread's to write: the records are trusted.
 */

#include <linux/gfp.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>

#include "drain_domain.h"
#include "kbuf.h"
#include "stream.h"
#include "user_gfp.h"

/* A record in a kbuf; kernel-made, read back by the drain as it is. */
struct posixtrace_kbuf_record {
	u32 size;		/* header, data, padding to 8 */
	u32 event_id;		/* POSIXTRACE_KBUF_PAD: a pad to the end */
	s32 pid, tid;		/* in the stream's pid namespace */
	u64 prog_address, thread;
	s64 ts_ns;
	u64 mono;		/* CLOCK_MONOTONIC: for the drains' cut */
	u32 data_len;		/* as the producer gave it */
	u32 copied;		/* bytes of data that follow */
};

#define POSIXTRACE_KBUF_PAD	U32_MAX

static_assert(POSIXTRACE_KBUF_SIZE >=
	      8 * (sizeof(struct posixtrace_kbuf_record) +
		   POSIXTRACE_KBUF_DATA_MAX));

static const struct posixtrace_source_ops posixtrace_kbuf_ops;

static struct posixtrace_kbuf *posixtrace_src_kbuf(struct posixtrace_source *src)
{
	return container_of(src, struct posixtrace_kbuf, src);
}

/* Free what posixtrace_kbufs_new() made: never listed, or no longer seen. */
static void posixtrace_kbufs_free(struct posixtrace_kbufs *kbufs)
{
	struct posixtrace_kbuf *kb;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!kbufs->srcs[cpu])
			continue;
		kb = posixtrace_src_kbuf(kbufs->srcs[cpu]);
		kvfree(kb->data);
		kfree(kb);
	}
	posixtrace_drain_domain_put(kbufs->domain);
	kfree(kbufs);
}

static void posixtrace_kbufs_free_rcu(struct rcu_head *rcu)
{
	posixtrace_kbufs_free(container_of(rcu, struct posixtrace_kbufs, rcu));
}

/**
 * posixtrace_kbufs_new - the buffers of a new stream, one per possible CPU
 * @stream: the stream, not yet published
 * @size: the bytes of each: a power of two, POSIXTRACE_KBUF_SIZE to
 *	POSIXTRACE_KBUF_SIZE_MAX
 *
 * Charged to the caller (the creator); listed for the drains
 * (posixtrace_drain_list() of @srcs) once the stream's domain is known.
 *
 * Return: the buffers, or NULL.
 */
struct posixtrace_kbufs *
posixtrace_kbufs_new(struct posixtrace_stream *stream, u32 size)
{
	struct posixtrace_kbufs *kbufs;
	struct posixtrace_kbuf *kb;
	int cpu;

	if (WARN_ON_ONCE(!is_power_of_2(size) || size < POSIXTRACE_KBUF_SIZE ||
			 size > POSIXTRACE_KBUF_SIZE_MAX))
		return NULL;
	kbufs = kzalloc(struct_size(kbufs, srcs, nr_cpu_ids),
			GFP_KERNEL_ACCOUNT);
	if (!kbufs)
		return NULL;
	for_each_possible_cpu(cpu) {
		kb = kzalloc_node(sizeof(*kb), GFP_KERNEL_ACCOUNT,
				  cpu_to_node(cpu));
		if (!kb)
			goto err;
		kbufs->srcs[cpu] = &kb->src;
		/*
		 * The kernel's alone, never mapped: pages need not be
		 * adjacent. Zeroed, so that nothing a drain reads of it is
		 * ever stale kernel memory. And for KMSAN: a post made
		 * where it keeps no books (kmsan_in_runtime(): a nested
		 * hardirq, or an interrupt of its own work) copies its
		 * data but not its shadow, and would leave the bytes it
		 * wrote marked as the allocation's, never written.
		 */
		kb->data = posixtrace_kvzalloc_user(size, cpu_to_node(cpu));
		if (!kb->data)
			goto err;
		kb->size = size;
		kb->src.ops = &posixtrace_kbuf_ops;
		kb->src.staged = true;
		kb->src.to_stream = stream;
	}
	return kbufs;

err:
	posixtrace_kbufs_free(kbufs);
	return NULL;
}

/**
 * posixtrace_kbufs_free_later - a stream's kbufs are done with
 * @kbufs: as made by posixtrace_kbufs_new(), unlisted if they were listed
 *
 * The stream is shut down and drained, or was never published: what they
 * hold now is of no stream (writers under RCU may still add to it). They
 * are freed a grace period later, with their domain's reference.
 */
void posixtrace_kbufs_free_later(struct posixtrace_kbufs *kbufs)
{
	call_rcu(&kbufs->rcu, posixtrace_kbufs_free_rcu);
}

/**
 * posixtrace_kbuf_post - put an event into a kbuf: one made by system
 *	call, or by the kernel (kevents.c, maybe in an interrupt)
 * @kbufs: the stream's buffers
 * @emit: the event, not timed: it is stamped here
 * @pid: its process, as the stream's pid namespace numbers it
 * @tid: its thread, likewise
 * @len: the bytes of its data the stream keeps (at most
 *	POSIXTRACE_KBUF_DATA_MAX by system call, half a kbuf for the kernel)
 * @threshold: the bytes held past which a drain is wanted
 *
 * Into the buffer of the CPU we run on, with interrupts off while we
 * write it. Never sleeps; called under RCU.
 *
 * Return: -ENOSPC if it is full (nothing written), else the
 * POSIXTRACE_KBUF_* flags below.
 */
int posixtrace_kbuf_post(struct posixtrace_kbufs *kbufs,
			 const struct posixtrace_emit *emit, pid_t pid,
			 pid_t tid, size_t len, size_t threshold)
{
	u32 size = ALIGN(sizeof(struct posixtrace_kbuf_record) + len, 8);
	struct posixtrace_kbuf_record *rec;
	u64 start, head, tail, off, pad, mono;
	struct posixtrace_kbuf *kb;
	unsigned long flags;
	int ret = 0;
	s64 ns;

	/*
	 * This CPU's buffer is ours alone until we let interrupts in; no
	 * probe of ours runs in an NMI, which they would not keep out.
	 */
	if (WARN_ON_ONCE(in_nmi()))
		return -ENOSPC;
	local_irq_save(flags);
	kb = posixtrace_src_kbuf(kbufs->srcs[smp_processor_id()]);
	head = kb->head;
	start = head;
	/* Pairs with the drain's store-release: it is done with that room. */
	tail = smp_load_acquire(&kb->tail);
	off = head & (kb->size - 1);
	pad = off + size > kb->size ? kb->size - off : 0;
	if (head + pad + size - tail > kb->size) {
		local_irq_restore(flags);
		return -ENOSPC;
	}
	if (pad) {
		rec = (void *)(kb->data + off);
		rec->size = pad;
		rec->event_id = POSIXTRACE_KBUF_PAD;
		head += pad;
		off = 0;
	}
	/* One clock read: the wall time is the monotonic one, offset. */
	mono = ktime_get_ns();
	ns = max_t(s64, ktime_to_ns(ktime_mono_to_real(ns_to_ktime(mono))),
		   kb->last_ns);
	kb->last_ns = ns;
	rec = (void *)(kb->data + off);
	*rec = (struct posixtrace_kbuf_record) {
		.size = size,
		.event_id = emit->event_id,
		.pid = pid,
		.tid = tid,
		.prog_address = emit->prog_address,
		.thread = emit->thread,
		.ts_ns = ns,
		.mono = mono,
		.data_len = emit->data_len,
		.copied = len,
	};
	memcpy(rec + 1, emit->data, len);
	/* The record whole before the drain sees it: its load-acquire. */
	smp_store_release(&kb->head, head + size);
	/*
	 * Was it empty but for this record? Read after our head, with a full
	 * barrier between, as each drain reads the heads after its @tail
	 * stores (the end of posixtrace_drain()): either we see
	 * the drain took all before ours, and start the timer, or the drain
	 * sees ours and starts it.
	 */
	smp_mb();
	if (READ_ONCE(kb->tail) == start)
		ret |= POSIXTRACE_KBUF_FIRST;
	if (head + size - tail >= threshold)
		ret |= POSIXTRACE_KBUF_DRAIN;
	local_irq_restore(flags);
	return ret;
}

/*
 * A drain visits @kb: it takes from what was taken to what the writers
 * had written then, as a ring's lap: writers that keep writing cannot
 * keep a drain going. Records stamped at or after @began->mono, the
 * drain's clock read before it read any head, are left to a later drain
 * (see the top of the file). The drain may let go of its lock before it
 * is done with @kb: what it keeps here stays valid, since nothing but a
 * drain of its domain (under the domain's mutex) moves @tail.
 */
static void posixtrace_kbuf_visit(struct posixtrace_source *src,
				  const struct posixtrace_drain_began *began)
{
	struct posixtrace_kbuf *kb = posixtrace_src_kbuf(src);

	posixtrace_source_assert_held(src);

	kb->pos = kb->tail;
	kb->cut = began->mono;
	/* Pairs with the writers' store-release: what is below is whole. */
	kb->lap_end = smp_load_acquire(&kb->head);
}

/* Is there a record to take in this drain? Its times then in @src. */
static bool posixtrace_kbuf_peek(struct posixtrace_source *src)
{
	struct posixtrace_kbuf *kb = posixtrace_src_kbuf(src);
	const struct posixtrace_kbuf_record *rec;

	posixtrace_source_assert_held(src);

	while (kb->pos < kb->lap_end) {
		rec = (const void *)(kb->data +
				     (kb->pos & (kb->size - 1)));
		if (rec->event_id != POSIXTRACE_KBUF_PAD) {
			/* Stamps only grow in a buffer: the rest waits too. */
			if (rec->mono >= kb->cut) {
				kb->lap_end = kb->pos;
				return false;
			}
			kb->src.next_ns = rec->ts_ns;
			kb->src.next_mono = rec->mono;
			return true;
		}
		kb->pos += rec->size;
	}
	return false;
}

/*
 * Take the record peeked into @emit, for the stream. Its data stays in
 * the buffer, which writers may not reuse before posixtrace_kbuf_store().
 * Its time is the one stamped when it was posted, not @now.
 */
static bool posixtrace_kbuf_take(struct posixtrace_source *src,
				 struct posixtrace_emit *emit, s64 now)
{
	struct posixtrace_kbuf *kb = posixtrace_src_kbuf(src);
	const struct posixtrace_kbuf_record *rec =
		(const void *)(kb->data + (kb->pos & (kb->size - 1)));

	posixtrace_source_assert_held(src);
	*emit = (struct posixtrace_emit) {
		.event_id = rec->event_id,
		.numbered = true,
		.pid_nr = rec->pid,
		.tid_nr = rec->tid,
		.prog_address = rec->prog_address,
		.thread = rec->thread,
		.data = rec + 1,
		.data_len = rec->data_len,
		.copied = rec->copied,
		.timed = true,
		.ts = ns_to_timespec64(rec->ts_ns),
	};
	kb->pos += rec->size;
	return true;
}

/* The drain handed what it took on: writers may reuse their room. */
static void posixtrace_kbuf_store(struct posixtrace_source *src)
{
	struct posixtrace_kbuf *kb = posixtrace_src_kbuf(src);

	posixtrace_source_assert_held(src);

	if (kb->pos != kb->tail)
		/* Pairs with the writers' load-acquire: we read what we took. */
		smp_store_release(&kb->tail, kb->pos);
}

/*
 * Does the buffer hold nothing (the timer may leave it be)? A hint:
 * writers may be at work.
 */
static bool posixtrace_kbuf_empty(struct posixtrace_source *src)
{
	struct posixtrace_kbuf *kb = posixtrace_src_kbuf(src);

	return READ_ONCE(kb->head) == READ_ONCE(kb->tail);
}

/* What the buffer holds, pads included; a hint. */
static u64 posixtrace_kbuf_bytes(struct posixtrace_source *src)
{
	struct posixtrace_kbuf *kb = posixtrace_src_kbuf(src);

	return READ_ONCE(kb->head) - READ_ONCE(kb->tail);
}

/*
 * A kbuf is never closed: its stream unlists it when shut down (stream.c),
 * so no @retire.
 */
static const struct posixtrace_source_ops posixtrace_kbuf_ops = {
	.visit = posixtrace_kbuf_visit,
	.peek = posixtrace_kbuf_peek,
	.take = posixtrace_kbuf_take,
	.store = posixtrace_kbuf_store,
	.lazy = posixtrace_kbuf_empty,
	.bytes = posixtrace_kbuf_bytes,
};
