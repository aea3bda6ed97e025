// SPDX-License-Identifier: GPL-2.0
/*
 * Thread rings: where a traced thread records its events without a system
 * call (the protocol is in <linux/posixtrace.h>; the reasons in
 * Documentation/dev-tools/posixtrace-design.rst).
 *
 * A ring is pages this module allocates (ring_mem.c: charged to the
 * thread's memory cgroup and its user's RLIMIT_MEMLOCK for as long as a
 * mapping or the ring has them), mapped into the thread's process
 * (read-write: the thread is the producer) and, for the module, through a
 * vmap of its own: a record is read from pages no one can take away,
 * without a fault or the mm, even after the thread exited or unmapped
 * them. The data pages are mapped twice in a row in the module's view, so
 * that it reads every record whole; in the thread's, once (about half the
 * page tables: the thread writes a record that runs past the end in two
 * pieces) or, as older libraries ask, twice.
 *
 * The module trusts nothing the thread wrote. It reads the commit word
 * with acquire, copies the header once and checks the copy, takes the
 * data length from the copy, and never reads a word of the control page:
 * the position it has taken up to is its own (@consumed), mirrored to the
 * thread. A record that does not check out revokes the ring; one event is
 * counted lost. A drain takes at most one lap of each ring, so a thread
 * that keeps writing cannot keep a drain going.
 *
 * A drain takes every ring of a drain domain at once, merging their
 * records by timestamp: events of different threads and processes reach
 * the streams in the order they were made, whoever drains (a reader, a
 * state change, the worker a thread's exit or kick queues, the timer). A
 * domain holds every ring and kbuf feeding the streams of the processes
 * in it, and nothing else (see struct posixtrace_drain_domain). A record
 * made before one already taken (its thread was preempted between reading
 * the clock and committing) takes that one's time: a stream's times never
 * go back. A drain lets go of its lock after every
 * POSIXTRACE_DRAIN_BUDGET of work, records taken and rings visited, having
 * handed on what it took: to the streams it is as if two drains had run.
 *
 * Each ring belongs to its thread's process entry (@proc->rings, RCU) and
 * to the list of its domain's rings (RCU). It is closed when the thread
 * exits or execs, or maps another ring, or its process leaves the table;
 * the next drain of its domain takes what it holds and retires it (takes
 * it off the lists); it is freed after an RCU grace period.
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/posixtrace.h>
#include <linux/rculist.h>
#include <linux/refcount.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "drain_domain.h"
#include "kbuf.h"
#include "process.h"
#include "ring_kick.h"
#include "ring_mem.h"
#include "stream.h"
#include "thread_ring.h"

/* The largest data area a thread may map; 0: no rings (system calls). */
static unsigned int max_ring_size = SZ_1M;

static int posixtrace_param_set_ring_size(const char *val,
					  const struct kernel_param *kp)
{
	unsigned int size;
	int ret = kstrtouint(val, 0, &size);

	if (ret)
		return ret;
	if (size && (!is_power_of_2(size) || size < PAGE_SIZE ||
		     size > SZ_64M))
		return -EINVAL;
	WRITE_ONCE(max_ring_size, size);
	return 0;
}

static const struct kernel_param_ops posixtrace_ring_size_ops = {
	.set = posixtrace_param_set_ring_size,
	.get = param_get_uint,
};

module_param_cb(max_ring_size, &posixtrace_ring_size_ops, &max_ring_size,
		0644);
MODULE_PARM_DESC(max_ring_size, "Largest thread ring, bytes (a power of two, a page to 64 MiB; 0: no rings)");

/**
 * posixtrace_thread_ring_size_hint - the ring size to suggest to threads
 * @capacity: the bytes of stream records the process's only stream, a LOOP
 *	stream, keeps; 0 if there is no such stream
 *
 * A stream keeps more bytes per record than its ring holds (a 64-byte
 * header against 48), so a ring of max_ring_size can still hold the share
 * of a stream up to an eighth larger (a 1 MiB stream keeps 1 MiB and a STOP
 * record's room). A larger stream gets no hint: rings of the largest size
 * would never hold its share, and would only cost the thread memory.
 *
 * Return: @capacity rounded up to a power of two, within a page and
 * max_ring_size; 0 for no hint.
 */
u32 posixtrace_thread_ring_size_hint(size_t capacity)
{
	unsigned int max = READ_ONCE(max_ring_size);

	if (!capacity || !max || capacity > max + max / 8)
		return 0;
	if (capacity >= max)
		return max;
	return max_t(size_t, PAGE_SIZE, roundup_pow_of_two(capacity));
}

/* How often the records of a quiet thread are taken, at the latest. */
static unsigned int ring_drain_ms = 100;

static int posixtrace_param_set_drain_ms(const char *val,
					 const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 10000);
}

static const struct kernel_param_ops posixtrace_drain_ms_ops = {
	.set = posixtrace_param_set_drain_ms,
	.get = param_get_uint,
};

module_param_cb(ring_drain_ms, &posixtrace_drain_ms_ops, &ring_drain_ms,
		0644);
MODULE_PARM_DESC(ring_drain_ms, "Milliseconds between drains of every thread ring (1-10000)");

struct posixtrace_thread_ring {
	struct posixtrace_drain_src src;	/* first: see _older() */
	struct list_head proc_node;	/* in @proc->rings: RCU */
	struct list_head all_node;	/* in its domain's rings: RCU */
	struct rcu_work free_work;
	struct posixtrace_process *proc;	/* reference held */
	struct task_struct *owner;	/* the thread; reference held */
	/* Its numbers, for its records, after it is reaped too; held. */
	struct pid *tgid, *tid;

	/* Under its domain's drain lock. */
	bool dead;			/* retired: never drained again */
	bool revoked;			/* a bad record: never drained again */
	/*
	 * Not under the lock: closed, its thread writes no more (exit,
	 * exec, another ring, its process left the table). The first
	 * drain of its domain to begin after (@closed_gen) takes what it
	 * holds and retires it (see _close()).
	 */
	bool closed;
	u64 closed_gen;
	u64 consumed;			/* the position taken up to */
	s64 last_ns;			/* the timestamp of the last record */
	/*
	 * A drain's view, set when it visits the ring, kept while it lets
	 * go of the lock: its next record (@next, @src.next_ns), how far
	 * the thread said it had committed then, and where the drain stops
	 * (its lap).
	 */
	u64 pos, published, lap_end;
	const struct posixtrace_ring_record *next;
	struct posixtrace_ring_record next_hdr;

	/* Fixed once mapped. */
	struct posixtrace_ring_ctl *ctl;	/* in @mem's view */
	const u8 *data;			/* in @mem's view, @size bytes twice */
	u64 size;
	/* Its pages: a reference held until it is freed. */
	struct posixtrace_ring_mem *mem;
	/* It uses @mem (counts in the limit) until retired. */
	bool charged;
	/* What the thread's kicks walked (ring_kick.c); made at the first. */
	struct posixtrace_ring_walk *walk;
};

/*
 * A drain lets go of its lock after a budget of work: a record taken costs
 * one, a ring or kbuf visited (its lap set, its first record looked at)
 * POSIXTRACE_DRAIN_VISIT, so that neither what the rings hold nor how many
 * there are keeps preemption off for long. A visit touches a ring's
 * control and data pages, cold in a ring idle since the last drain, where
 * a record follows the last in pages already touched: a visit costs
 * several records' worth (the figures are in the commit that set it).
 */
#define POSIXTRACE_DRAIN_BUDGET	512
#define POSIXTRACE_DRAIN_VISIT	8

static struct workqueue_struct *posixtrace_rings_wq;
static const struct posixtrace_ring_sink *posixtrace_ring_sink;

/*
 * The longest hold of any domain's drain lock since root last wrote 0,
 * in ns: preemption is off for that long (but on PREEMPT_RT). Kept for the
 * tests (ring_scope_test), read by anyone.
 */
static u64 drain_hold_max_ns;

static int posixtrace_param_set_hold(const char *val,
				     const struct kernel_param *kp)
{
	u64 v;
	int ret = kstrtou64(val, 0, &v);

	if (ret)
		return ret;
	if (v)
		return -EINVAL;
	WRITE_ONCE(drain_hold_max_ns, 0);
	return 0;
}

static const struct kernel_param_ops posixtrace_hold_ops = {
	.set = posixtrace_param_set_hold,
	.get = param_get_ullong,
};

module_param_cb(drain_hold_max_ns, &posixtrace_hold_ops, &drain_hold_max_ns,
		0644);
MODULE_PARM_DESC(drain_hold_max_ns, "Longest hold of a drain lock, ns (write 0 to reset)");

/* Count a hold of a drain lock that began at @start (local_clock()). */
static void posixtrace_drain_held(u64 start)
{
	u64 ns = local_clock() - start, max = READ_ONCE(drain_hold_max_ns);

	while (ns > max && !try_cmpxchg64(&drain_hold_max_ns, &max, ns))
		;
}

static void posixtrace_domain_drain_work(struct work_struct *work);
static void posixtrace_domain_tick(struct work_struct *work);

/**
 * posixtrace_drain_domain_new - a new, empty drain domain
 *
 * Charged to the caller's memory cgroup: the process or stream that needs
 * it. Sleeps.
 *
 * Return: the domain, with one reference, or NULL.
 */
static struct posixtrace_drain_domain *posixtrace_drain_domain_new(void)
{
	struct posixtrace_drain_domain *dom;

	dom = kzalloc(sizeof(*dom), GFP_KERNEL_ACCOUNT);
	if (!dom)
		return NULL;
	refcount_set(&dom->ref, 1);
	mutex_init(&dom->mutex);
	spin_lock_init(&dom->lock);
	INIT_LIST_HEAD(&dom->rings);
	INIT_LIST_HEAD(&dom->kbufs);
	INIT_WORK(&dom->drain_work, posixtrace_domain_drain_work);
	INIT_DELAYED_WORK(&dom->tick_work, posixtrace_domain_tick);
	posixtrace_drain_domain_add(dom);
	return dom;
}

/**
 * posixtrace_process_domain - the drain domain of @proc, made if need be
 * @proc: the process
 *
 * Made at the first ring a thread maps, or the first stream created for
 * the process, whichever comes first, and charged to the caller; a child
 * that inherits links has its parent's from the fork. Set once: a domain
 * never changes, so no two ever need merging. Sleeps.
 *
 * Return: the domain (the entry holds the reference), or NULL when out of
 * memory.
 */
struct posixtrace_drain_domain *
posixtrace_process_domain(struct posixtrace_process *proc)
{
	struct posixtrace_drain_domain *dom = READ_ONCE(proc->domain), *old;

	if (dom)
		return dom;
	dom = posixtrace_drain_domain_new();
	if (!dom)
		return NULL;
	/* Full barrier: set before any link or ring that needs it. */
	old = cmpxchg(&proc->domain, NULL, dom);
	if (old) {
		posixtrace_drain_domain_put(dom);
		return old;
	}
	return dom;
}

/* Hand the batch on; under the drain lock. */
static void posixtrace_drain_batch_flush(struct posixtrace_drain_domain *dom)
{
	if (!dom->batch_len)
		return;
	if (dom->batch_stream)
		posixtrace_ring_sink->emit_stream(dom->batch_stream, dom->batch,
						  dom->batch_len);
	else
		posixtrace_ring_sink->emit(dom->batch_proc, dom->batch,
					   dom->batch_len);
	dom->batch_len = 0;
}

/*
 * A place in the batch for a record of @proc's rings, or (@proc NULL) of
 * @stream's kbufs; under the drain lock.
 */
static struct posixtrace_emit *
posixtrace_drain_batch_slot(struct posixtrace_drain_domain *dom,
			    struct posixtrace_process *proc,
			    struct posixtrace_stream *stream)
{
	if (dom->batch_len == POSIXTRACE_DRAIN_BATCH ||
	    (dom->batch_len && (dom->batch_proc != proc ||
				dom->batch_stream != stream)))
		posixtrace_drain_batch_flush(dom);
	dom->batch_proc = proc;
	dom->batch_stream = stream;
	return &dom->batch[dom->batch_len++];
}

/* The domain of @ring: its process's, set before the ring was made. */
static struct posixtrace_drain_domain *
posixtrace_ring_domain(const struct posixtrace_thread_ring *ring)
{
	return ring->proc->domain;
}

/* Revoke the ring over a bad record: one event lost, nothing more taken. */
static void posixtrace_thread_ring_revoke(struct posixtrace_thread_ring *ring)
{
	ring->revoked = true;
	WRITE_ONCE(ring->ctl->state, POSIXTRACE_RING_REVOKED);
	*posixtrace_drain_batch_slot(posixtrace_ring_domain(ring), ring->proc,
				     NULL) =
		(struct posixtrace_emit) {
		.garbage = true,
		.tgid = ring->tgid,
		.tid = ring->tid,
	};
}

/*
 * Find @ring's next committed record within this drain's lap, its header
 * copied and checked; false if there is none (or it revoked the ring).
 * The lap only says where to stop; a record is checked against what the
 * thread may use: up to a ring's size past what was taken (@consumed,
 * which moves only when a hold of the drain lock ends). A drain's lap
 * began before its earlier holds, so a valid record may run past it. A record
 * not committed where the thread had said it had committed one is a bad
 * record: the thread lied, or wrote over its own record.
 */
static bool posixtrace_thread_ring_peek(struct posixtrace_thread_ring *ring)
{
	const struct posixtrace_ring_record *rec;
	struct posixtrace_ring_record *h = &ring->next_hdr;

	if (ring->next)
		return true;
	if (ring->dead || ring->revoked || ring->pos >= ring->lap_end)
		return false;
	rec = (const void *)(ring->data + (ring->pos & (ring->size - 1)));
	/* Pairs with the thread's store-release of the commit word. */
	if (smp_load_acquire(&rec->commit) != ~ring->pos) {
		if (ring->pos < ring->published)
			posixtrace_thread_ring_revoke(ring);
		return false;
	}
	/* Once: the thread may be rewriting it under our feet. */
	memcpy(h, rec, sizeof(*h));
	if (!posixtrace_ring_record_ok(h, ring->consumed + ring->size -
					  ring->pos)) {
		posixtrace_thread_ring_revoke(ring);
		return false;
	}
	ring->next = rec;
	ring->src.next_ns = h->ts_sec * NSEC_PER_SEC + h->ts_nsec;
	return true;
}

/*
 * The time @ns a record of @ring says it was made, as the module takes
 * it: kept between the ring's last record's and @now, so that a thread can
 * only misdate its own events. Under the drain lock.
 */
static s64 posixtrace_thread_ring_time(const struct posixtrace_thread_ring *ring,
				       s64 ns, s64 now)
{
	return clamp(ns, ring->last_ns, max(now, ring->last_ns));
}

/*
 * Take @ring's next record into the batch for the streams, at its time as
 * posixtrace_thread_ring_time() keeps it. Its data stays in the ring,
 * which the thread may not reuse before the hold ends.
 */
static void posixtrace_thread_ring_take(struct posixtrace_thread_ring *ring,
					s64 now)
{
	const struct posixtrace_ring_record *h = &ring->next_hdr;
	s64 ns = posixtrace_thread_ring_time(ring, ring->src.next_ns, now);

	ring->pos += h->size;
	ring->last_ns = ns;
	/* An identifier it never opened: ignored, as a system call's. */
	if (posixtrace_process_event_valid(ring->proc, h->event_id))
		*posixtrace_drain_batch_slot(posixtrace_ring_domain(ring),
					     ring->proc, NULL) =
			(struct posixtrace_emit) {
			.event_id = h->event_id,
			.tgid = ring->tgid,
			.tid = ring->tid,
			.prog_address = h->prog_address,
			.thread = h->thread,
			.data = ring->next + 1,
			.data_len = h->data_len,
			.copied = h->data_len,
			.timed = true,
			/* Its own time, unless clamped: no division then. */
			.ts = ns == ring->src.next_ns ?
			      (struct timespec64) { h->ts_sec, h->ts_nsec } :
			      ns_to_timespec64(ns),
		};
	ring->next = NULL;
}

/*
 * Where the thread says it has committed up to (@produced), if that is
 * within what it may have written since the last drain; else what was
 * taken, which claims nothing.
 */
static u64 posixtrace_thread_ring_published(struct posixtrace_thread_ring *ring)
{
	/*
	 * Before the commit words: pairs with the thread's store-release of
	 * @produced, made after its commits.
	 */
	u64 word = smp_load_acquire(&ring->ctl->produced);
	u64 ahead = (POSIXTRACE_RING_PACKED_POS(word) - ring->consumed) &
		    POSIXTRACE_RING_POS_MASK;

	return ahead <= ring->size ? ring->consumed + ahead : ring->consumed;
}

/*
 * Is heap entry @a's next record older than @b's? On a tie, a ring's
 * first (a thread's closed ring before its kbuf records: kbuf.c), and of
 * two kbufs the one stamped first on the monotonic clock.
 */
static bool posixtrace_drain_older(struct posixtrace_drain_src *a,
				   struct posixtrace_drain_src *b)
{
	if (a->next_ns != b->next_ns)
		return a->next_ns < b->next_ns;
	if (a->kbuf != b->kbuf)
		return !a->kbuf;
	return a->kbuf && a->next_mono < b->next_mono;
}

/* Restore the heap property from @i down, in a heap of @n. */
static void posixtrace_drain_sift_down(struct posixtrace_drain_src **heap,
				       unsigned int n, unsigned int i)
{
	struct posixtrace_drain_src *tmp;
	unsigned int least, c;

	for (;;) {
		least = i;
		c = 2 * i + 1;
		if (c < n && posixtrace_drain_older(heap[c], heap[least]))
			least = c;
		if (c + 1 < n && posixtrace_drain_older(heap[c + 1], heap[least]))
			least = c + 1;
		if (least == i)
			return;
		tmp = heap[i];
		heap[i] = heap[least];
		heap[least] = tmp;
		i = least;
	}
}

static struct posixtrace_thread_ring *
posixtrace_src_ring(struct posixtrace_drain_src *src)
{
	return container_of(src, struct posixtrace_thread_ring, src);
}

static struct posixtrace_kbuf *posixtrace_src_kbuf(struct posixtrace_drain_src *src)
{
	return container_of(src, struct posixtrace_kbuf, src);
}

/* Take the next record of heap entry @src into the batch. */
static void posixtrace_drain_take(struct posixtrace_drain_domain *dom,
				  struct posixtrace_drain_src *src, s64 now)
{
	struct posixtrace_kbuf *kb;

	/* Its position is stored when the hold ends. */
	if (!src->touched) {
		src->touched = true;
		src->touched_next = dom->touched;
		dom->touched = src;
	}
	if (!src->kbuf) {
		posixtrace_thread_ring_take(posixtrace_src_ring(src), now);
		return;
	}
	kb = posixtrace_src_kbuf(src);
	posixtrace_kbuf_take(kb, posixtrace_drain_batch_slot(dom, NULL,
							     kb->stream));
}

/* Has heap entry @src another record in this drain? */
static bool posixtrace_drain_peek(struct posixtrace_drain_src *src)
{
	if (src->kbuf)
		return posixtrace_kbuf_peek(posixtrace_src_kbuf(src));
	return posixtrace_thread_ring_peek(posixtrace_src_ring(src));
}

/* Add @src to the heap of @n entries. */
static void posixtrace_drain_push(struct posixtrace_drain_domain *dom,
				  unsigned int *n,
				  struct posixtrace_drain_src *src)
{
	struct posixtrace_drain_src **heap = dom->heap;
	unsigned int i = (*n)++, parent;

	heap[i] = src;
	while (i) {
		parent = (i - 1) / 2;
		if (!posixtrace_drain_older(heap[i], heap[parent]))
			return;
		swap(heap[i], heap[parent]);
		i = parent;
	}
}

/*
 * The end of a hold: the batch handed on, then how far each source was
 * taken stored, so that its writers may reuse the room (not before: the
 * batch points into it).
 */
static void posixtrace_drain_store(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_drain_src *src, *next;
	struct posixtrace_thread_ring *ring;

	posixtrace_drain_batch_flush(dom);
	for (src = dom->touched; src; src = next) {
		next = src->touched_next;
		src->touched = false;
		if (src->kbuf) {
			posixtrace_kbuf_store(posixtrace_src_kbuf(src));
			continue;
		}
		ring = posixtrace_src_ring(src);
		/* The kicks read it without the lock (see _drop()). */
		WRITE_ONCE(ring->consumed, ring->pos);
		/* The thread may write over what we took, not before. */
		smp_store_release(&ring->ctl->consumed, ring->pos);
	}
	dom->touched = NULL;
}

/*
 * Where a drain is in its domain: the next kbuf and ring to visit (the
 * lists change only under the drain mutex, which the drain holds), the
 * heap's entries, and the clock it cuts the kbufs at (kbuf.c).
 */
struct posixtrace_drain_walk {
	struct list_head *kb, *ring;
	unsigned int n;
	u64 cut;
};

/* Visit @ring: its lap set, its first record looked at. */
static void posixtrace_drain_visit_ring(struct posixtrace_drain_domain *dom,
					struct posixtrace_drain_walk *w,
					struct posixtrace_thread_ring *ring)
{
	ring->pos = ring->consumed;
	ring->lap_end = ring->consumed + ring->size;
	ring->next = NULL;
	ring->published = posixtrace_thread_ring_published(ring);
	/* Listed kbufs and rings never outnumber the heap. */
	if (w->n < dom->heap_size && posixtrace_thread_ring_peek(ring))
		posixtrace_drain_push(dom, &w->n, &ring->src);
}

/*
 * One hold of the drain lock, at most POSIXTRACE_DRAIN_BUDGET of work:
 * first the visits of every kbuf, then of every ring (each one's lap, and
 * its first record into the heap), then the records of the heap merged by
 * timestamp, each within its source's lap and, for kbufs, stamped before
 * the cut. The visits all come before any record is taken: a record is
 * handed on only once every source's oldest is in the heap. The heap and
 * the places stay valid while the lock is let go: the lists change only
 * under the mutex the drain holds, kicks drop nothing while it is open,
 * and only a drain moves what a source was taken up to. Hands on what it
 * took and stores how far. Returns true when the drain is done.
 *
 * The kbufs are visited first: a thread that wrote a ring's records, then
 * (its ring closed) kbuf records, must not see the latter taken without
 * the former (kbuf.c).
 */
static bool posixtrace_drain_hold(struct posixtrace_drain_domain *dom,
				  struct posixtrace_drain_walk *w)
{
	struct posixtrace_drain_src **heap = dom->heap;
	int budget = POSIXTRACE_DRAIN_BUDGET;
	struct posixtrace_kbuf *kb;
	s64 now;

	for (; budget > 0 && w->kb != &dom->kbufs; w->kb = w->kb->next) {
		kb = list_entry(w->kb, struct posixtrace_kbuf, node);
		budget -= POSIXTRACE_DRAIN_VISIT;
		posixtrace_kbuf_visit(kb, w->cut);
		if (w->n < dom->heap_size && posixtrace_kbuf_peek(kb))
			posixtrace_drain_push(dom, &w->n, &kb->src);
	}
	for (; budget > 0 && w->ring != &dom->rings; w->ring = w->ring->next) {
		budget -= POSIXTRACE_DRAIN_VISIT;
		posixtrace_drain_visit_ring(dom, w,
					    list_entry(w->ring,
						       struct posixtrace_thread_ring,
						       all_node));
	}
	if (w->kb != &dom->kbufs || w->ring != &dom->rings) {
		/* A revoked ring's loss may be in the batch. */
		posixtrace_drain_store(dom);
		return false;
	}
	now = ktime_get_real_ns();
	for (; w->n && budget > 0; budget--) {
		posixtrace_drain_take(dom, heap[0], now);
		if (!posixtrace_drain_peek(heap[0]))
			heap[0] = heap[--w->n];
		posixtrace_drain_sift_down(heap, w->n, 0);
	}
	posixtrace_drain_store(dom);
	return !w->n;
}

static void __posixtrace_thread_ring_retire(struct posixtrace_thread_ring *ring);

/*
 * Retire the rings of @dom closed before its drain @gen began: it took
 * all they hold (at most a lap each). Under the drain mutex.
 */
static void posixtrace_thread_rings_reap(struct posixtrace_drain_domain *dom,
					 u64 gen)
{
	struct posixtrace_thread_ring *ring, *tmp;

	lockdep_assert_held(&dom->mutex);
	list_for_each_entry_safe(ring, tmp, &dom->rings, all_node) {
		/* Pairs with the store-release of _close(). */
		if (smp_load_acquire(&ring->closed) &&
		    READ_ONCE(ring->closed_gen) < gen)
			__posixtrace_thread_ring_retire(ring);
		/* A domain may hold many rings. */
		cond_resched();
	}
}

static bool posixtrace_kbufs_busy(struct posixtrace_drain_domain *dom);

/**
 * posixtrace_thread_rings_drain - take the records of a drain domain
 * @dom: the domain; NULL (a process that never needed one): nothing
 *
 * One lap of each of its rings at most, as the ring was when the drain
 * visited it, merged by timestamp into the streams tracing each ring's
 * process; its streams' kbufs too, merged with the rings. Before anything
 * that judges or reads what threads recorded: a stream's start, stop,
 * filter change, clear, shutdown, status, read or flush (the stream's
 * domain); a system-call event (its process's); the timer, the threads'
 * kicks and exits, and kbufs filling. May sleep: it lets go of the drain
 * lock (and the CPU, if need be) after each POSIXTRACE_DRAIN_BUDGET of
 * records and visits, so that however much the rings hold, and however
 * many there are, preemption is never off for long. Drains of a domain
 * take turns; a kick drops nothing while one is under way (ring_kick.c).
 * Then retires the rings closed before it began.
 */
void posixtrace_thread_rings_drain(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_drain_walk w = { };
	bool done;
	u64 gen, start;

	might_sleep();
	if (!dom ||
	    (list_empty_careful(&dom->rings) && !posixtrace_kbufs_busy(dom)))
		return;
	mutex_lock(&dom->mutex);
	gen = dom->gen + 1;
	WRITE_ONCE(dom->gen, gen);
	/* Before the visits read commit words: pairs with _close()'s. */
	smp_mb();
	/*
	 * Before the first visit reads any kbuf's head: see kbuf.c. (The
	 * clock read is not ordered before those loads; a thread would have
	 * to write twice and change CPU in between within that window.)
	 */
	w.cut = ktime_get_ns();
	w.kb = dom->kbufs.next;
	w.ring = dom->rings.next;
	do {
		/* The streams' emit paths walk links under RCU. */
		rcu_read_lock();
		spin_lock(&dom->lock);
		start = local_clock();
		done = posixtrace_drain_hold(dom, &w);
		dom->open = !done;
		posixtrace_drain_held(start);
		spin_unlock(&dom->lock);
		rcu_read_unlock();
		if (!done)
			cond_resched();
	} while (!done);
	posixtrace_thread_rings_reap(dom, gen);
	/*
	 * Records left in kbufs (stamped after the cut, or written while we
	 * took) keep the timer running: after our @tail stores, the barrier
	 * in posixtrace_kbufs_busy() pairs with the writers' (they read
	 * @tail after their @head), so a record we do not see here was
	 * written by a writer that sees the buffer emptied, and starts the
	 * timer itself. Under the mutex: no other drain moves @tail.
	 */
	if (posixtrace_kbufs_busy(dom))
		posixtrace_thread_rings_poke(dom);
	mutex_unlock(&dom->mutex);
}

/**
 * posixtrace_thread_rings_drain_current - drain the caller's process's domain
 *
 * Before a system-call event: what the thread's ring, and its process's
 * other rings, hold came first. Sleeps.
 */
void posixtrace_thread_rings_drain_current(void)
{
	struct posixtrace_drain_domain *dom = NULL;
	struct posixtrace_process *proc;

	rcu_read_lock();
	proc = posixtrace_process_lookup(task_tgid(current));
	if (proc)
		dom = READ_ONCE(proc->domain);
	/* The entry's reference is dropped a grace period after it went. */
	if (dom)
		posixtrace_drain_domain_get(dom);
	rcu_read_unlock();
	if (!dom)
		return;
	posixtrace_thread_rings_drain(dom);
	posixtrace_drain_domain_put(dom);
}

/* @task's open ring in @proc, or NULL; under rcu_read_lock(). */
static struct posixtrace_thread_ring *
posixtrace_thread_ring_find(struct posixtrace_process *proc,
			    struct task_struct *task)
{
	struct posixtrace_thread_ring *ring;

	list_for_each_entry_rcu(ring, &proc->rings, proc_node)
		if (ring->owner == task && !READ_ONCE(ring->closed))
			return ring;
	return NULL;
}

/*
 * The ring no longer uses its pages: they leave the user's RLIMIT_MEMLOCK
 * count unless a mapping still has them (ring_mem.c). Never sleeps.
 */
static void posixtrace_thread_ring_uncharge(struct posixtrace_thread_ring *ring)
{
	if (!ring->charged)
		return;
	ring->charged = false;
	posixtrace_ring_mem_uncharge(ring->mem);
}

static void posixtrace_thread_ring_free(struct work_struct *work)
{
	struct posixtrace_thread_ring *ring =
		container_of(to_rcu_work(work), struct posixtrace_thread_ring,
			     free_work);

	kfree(ring->walk);
	/* A ring never listed: never retired. */
	posixtrace_thread_ring_uncharge(ring);
	/* Freed here if no mapping has them any more. */
	posixtrace_ring_mem_put(ring->mem);
	posixtrace_process_put(ring->proc);
	put_pid(ring->tid);
	put_pid(ring->tgid);
	put_task_struct(ring->owner);
	kfree(ring);
}

/*
 * Say @ring is retired, if it was live: a revoked ring says so. The word
 * is the thread's to read (and to scribble on: then it only fools itself).
 */
static void
posixtrace_thread_ring_mark_retired(struct posixtrace_thread_ring *ring)
{
	cmpxchg(&ring->ctl->state, POSIXTRACE_RING_LIVE,
		POSIXTRACE_RING_RETIRED);
}

/*
 * @ring's thread writes no more: the next drain of its domain to begin
 * takes what it holds, in order with every other ring's records, and
 * retires it (posixtrace_thread_rings_reap()). Whoever still writes to it
 * (a writer that is not its thread: a vfork child, a CLONE_VM child on the
 * same TLS) is told to make its events by system call from now on; what
 * such a writer committed before it saw the word is taken. Never sleeps,
 * and takes no lock: the hooks close rings, and leave the drain to a
 * worker; a drain's hold of the drain lock, though bounded, is not for a
 * hook to wait for.
 *
 * Why the generation read here is enough: it is the store-buffering
 * pattern, with a full barrier on each side. Here, the records (written
 * before: by this thread, or by threads whose exits came before), then
 * the barrier, then the generation read; in a drain, its generation
 * stored, then the barrier, then its visits read the commit words. A
 * drain whose generation this read did not see therefore sees every
 * record committed before the close, within the lap its visit set. Two
 * closes of one ring may race (a thread's, its process's): the generation
 * stored is one of theirs, and each covers what it must, the records
 * committed before it.
 */
static void posixtrace_thread_ring_close(struct posixtrace_thread_ring *ring)
{
	posixtrace_thread_ring_mark_retired(ring);
	/* Pairs with the barrier in posixtrace_thread_rings_drain(). */
	smp_mb();
	WRITE_ONCE(ring->closed_gen, READ_ONCE(posixtrace_ring_domain(ring)->gen));
	/* The reap reads @closed_gen after @closed, with acquire. */
	smp_store_release(&ring->closed, true);
}

/*
 * Take @ring off every list and free it once no drain can see it. The
 * pages the thread mapped stay until it unmaps them. Under its domain's
 * drain mutex: a drain keeps its place in the list across its holds.
 */
static void __posixtrace_thread_ring_retire(struct posixtrace_thread_ring *ring)
{
	struct posixtrace_drain_domain *dom = posixtrace_ring_domain(ring);

	lockdep_assert_held(&dom->mutex);
	spin_lock(&dom->lock);
	if (ring->dead) {
		spin_unlock(&dom->lock);
		return;
	}
	/*
	 * Closed already, but for module exit and a ring never written:
	 * lookups skip it from now on (a dead ring is never reaped).
	 */
	posixtrace_thread_ring_mark_retired(ring);
	WRITE_ONCE(ring->closed, true);
	WRITE_ONCE(ring->dead, true);
	spin_unlock(&dom->lock);
	/*
	 * No drain takes it again: it no longer weighs on them, nor on the
	 * limit unless still mapped.
	 */
	posixtrace_thread_ring_uncharge(ring);

	spin_lock(&ring->proc->lock);
	list_del_rcu(&ring->proc_node);
	spin_unlock(&ring->proc->lock);
	list_del_rcu(&ring->all_node);
	dom->nr_sources--;
	queue_rcu_work(posixtrace_rings_wq, &ring->free_work);
}

/* The kicks' and exits' drain of a domain, with the reference queued. */
static void posixtrace_domain_drain_work(struct work_struct *work)
{
	struct posixtrace_drain_domain *dom =
		container_of(work, struct posixtrace_drain_domain, drain_work);

	posixtrace_thread_rings_drain(dom);
	posixtrace_drain_domain_put(dom);
}

/*
 * A worker drains @dom soon. Never sleeps, takes raw locks only (any
 * context); the caller holds a reference, or is under RCU with the entry
 * or stream that holds one.
 */
void posixtrace_thread_rings_drain_soon(struct posixtrace_drain_domain *dom)
{
	posixtrace_drain_domain_get(dom);
	if (!queue_work(posixtrace_rings_wq, &dom->drain_work))
		posixtrace_drain_domain_put(dom);
}

/*
 * Drop from @ring what its process's only stream, a LOOP stream, would
 * only overwrite (ring_kick.c), counted as overwritten. Returns true if
 * no drain is needed: an eighth of the ring is free (twice what the
 * thread writes before it kicks again when its ring is that full), and
 * either this kick dropped, or nobody waits for the records and the ring
 * will hold the stream's share, so that later kicks will drop. Otherwise
 * the kick is what it always was, a drain soon (which also revokes the
 * ring over a bad record the walk stopped at).
 *
 * Nothing is dropped while a drain of the domain is under way: it keeps
 * the ring's next record across its holds of the lock, and its caller may
 * change the stream's state once it is done (a stop, a filter): records a
 * drop counts on to overwrite the dropped ones would then never be
 * stored. The kick then queues a drain, which is always safe.
 */
static bool posixtrace_thread_ring_drop(struct posixtrace_thread_ring *ring)
{
	struct posixtrace_drain_domain *dom = posixtrace_ring_domain(ring);
	struct posixtrace_ring_walk *walk = ring->walk;
	struct posixtrace_stream *stream;
	struct posixtrace_loop_view view;
	struct posixtrace_ring_drop drop;
	bool found, will, dropped = false, room;
	s64 ns;

	stream = posixtrace_ring_sink->loop_stream(ring->proc, &view);
	if (!stream)
		return false;
	if (!walk) {
		/*
		 * Under RCU: no sleeping. Without it, the worker drains. Only
		 * the ring's thread kicks it: no one else sets it.
		 */
		walk = kzalloc(sizeof(*walk), GFP_NOWAIT | __GFP_ACCOUNT |
					      __GFP_NOWARN);
		if (!walk)
			return false;
		ring->walk = walk;
	}
	/*
	 * The walk needs no lock: the ring's thread, the only one to kick it
	 * and the only honest writer, is in this call, and a drain meanwhile
	 * only moves @consumed, which the drop below checks for.
	 */
	found = posixtrace_ring_walk_drop(walk, ring->data, ring->size,
					  READ_ONCE(ring->consumed), ring->proc,
					  &view, &drop);
	will = posixtrace_ring_walk_will_drop(walk, ring->size, &view);
	spin_lock(&dom->lock);
	if (ring->dead || ring->revoked || dom->open) {
		spin_unlock(&dom->lock);
		return false;
	}
	if (found && ring->consumed == walk->origin) {
		/* OVERFLOW's time: the first one's, as a drain would take it. */
		ns = posixtrace_thread_ring_time(ring,
						 timespec64_to_ns(&drop.first),
						 ktime_get_real_ns());
		drop.first = ns_to_timespec64(ns);
		dropped = posixtrace_ring_sink->overwritten(stream, drop.events,
							    &drop.first);
	}
	if (dropped) {
		posixtrace_ring_walk_dropped(walk, &drop);
		WRITE_ONCE(ring->consumed, drop.to);
		/* The thread may write over them now; we read them no more. */
		smp_store_release(&ring->ctl->consumed, drop.to);
	}
	/* A reader waiting gets what the ring holds now, not at the timer. */
	room = !view.readers_waiting &&
	       ring->consumed + ring->size - walk->walked >= ring->size / 8 &&
	       (dropped || will);
	spin_unlock(&dom->lock);
	return room;
}

/**
 * posixtrace_thread_ring_kick - the calling thread's ring is filling
 *
 * What the only stream of its process, a LOOP stream, would overwrite is
 * dropped now, in the thread's own call. Otherwise, or if that leaves the
 * ring short of room, a worker drains the process's domain soon, so that
 * the thread goes on at once (on another CPU, the worker takes the
 * records while the thread writes more).
 */
void posixtrace_thread_ring_kick(void)
{
	struct posixtrace_drain_domain *dom = NULL;
	struct posixtrace_thread_ring *ring;
	struct posixtrace_process *proc;
	bool room = false;

	rcu_read_lock();
	proc = posixtrace_process_lookup(task_tgid(current));
	ring = proc ? posixtrace_thread_ring_find(proc, current) : NULL;
	if (ring)
		room = posixtrace_thread_ring_drop(ring);
	if (proc)
		dom = READ_ONCE(proc->domain);
	if (!room && dom)
		posixtrace_thread_rings_drain_soon(dom);
	rcu_read_unlock();
}

/**
 * posixtrace_thread_ring_retire_task - @task exits or execs: close its ring
 * @task: the thread, current
 *
 * Its records are the kernel's: a thread killed right after writing one
 * loses none. A worker's drain of its domain takes them soon, and retires
 * the ring; any drain of the domain before (a command, a read, a
 * system-call event) takes them too. Called from the exit and exec hooks:
 * never sleeps, and does no work that grows with what the rings hold.
 */
void posixtrace_thread_ring_retire_task(struct task_struct *task)
{
	struct posixtrace_process *proc;
	struct posixtrace_thread_ring *ring;

	rcu_read_lock();
	proc = posixtrace_process_lookup(task_tgid(task));
	ring = proc ? posixtrace_thread_ring_find(proc, task) : NULL;
	if (ring) {
		posixtrace_thread_ring_close(ring);
		posixtrace_thread_rings_drain_soon(posixtrace_ring_domain(ring));
	}
	rcu_read_unlock();
}

/**
 * posixtrace_thread_rings_close - @proc left the process table
 * @proc: its entry
 *
 * Its threads have all exited, or it exec'd a privileged image: its rings
 * hold all they ever will. The caller's next posixtrace_thread_rings_drain()
 * of its domain takes what they hold and retires them; until then @proc
 * must keep the streams it had (its links), so that their records reach
 * those. Never sleeps.
 */
void posixtrace_thread_rings_close(struct posixtrace_process *proc)
{
	struct posixtrace_thread_ring *ring;

	rcu_read_lock();
	list_for_each_entry_rcu(ring, &proc->rings, proc_node)
		posixtrace_thread_ring_close(ring);
	rcu_read_unlock();
}

/*
 * Ticks the timer may skip in a row while every ring of a domain is lazy
 * (below): a drain would only store records their stream may overwrite
 * before anyone reads them (a read, a status or a monitoring query drains
 * first), taking a CPU from the threads that record. Once a second still:
 * a bound on what the rings hold undrained, as before.
 */
#define POSIXTRACE_TICKS_SKIPPED_MAX	9

/*
 * Is every ring of @dom one whose process's only stream is a LOOP stream
 * without a log, and nobody waits for that stream's records? Kicks then
 * drop what the stream would overwrite, and nobody needs the rest yet.
 * Under the drain mutex, which keeps the list as it is, so that the walk
 * may leave RCU (and the CPU) between two rings: a domain may hold many.
 */
static bool posixtrace_rings_lazy(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_thread_ring *ring;
	struct posixtrace_loop_view view;
	struct posixtrace_stream *stream;
	bool lazy = true;

	/* A kbuf's records are those of threads without a ring: no kicks. */
	if (posixtrace_kbufs_busy(dom))
		return false;
	mutex_lock(&dom->mutex);
	list_for_each_entry(ring, &dom->rings, all_node) {
		/* The stream is freed a grace period after it is unlinked. */
		rcu_read_lock();
		stream = posixtrace_ring_sink->loop_stream(ring->proc, &view);
		rcu_read_unlock();
		if (!stream || view.readers_waiting) {
			lazy = false;
			break;
		}
		cond_resched();
	}
	mutex_unlock(&dom->mutex);
	return lazy;
}

/* Does some kbuf of @dom hold records? */
static bool posixtrace_kbufs_busy(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_kbuf *kb;
	bool busy = false;

	/*
	 * After a drain stored @tail, before we read @head: pairs with the
	 * barrier of posixtrace_kbuf_post(), which reads @tail after its
	 * @head, so that a record is seen by one of us (the timer runs on).
	 * Only the drain that stored @tail may rely on that (see the end of
	 * posixtrace_thread_rings_drain()); for anyone else, a hint.
	 */
	smp_mb();
	rcu_read_lock();
	list_for_each_entry_rcu(kb, &dom->kbufs, node) {
		if (!posixtrace_kbuf_empty(kb)) {
			busy = true;
			break;
		}
	}
	rcu_read_unlock();
	return busy;
}

/*
 * Every ring_drain_ms while @dom has rings, or records in kbufs (each
 * drain that leaves some starts the timer again): a quiet thread's events
 * arrive; every tenth only while all its rings are lazy. Each domain has
 * its own timer: it walks only its own rings.
 */
static void posixtrace_domain_tick(struct work_struct *work)
{
	struct posixtrace_drain_domain *dom =
		container_of(to_delayed_work(work), struct posixtrace_drain_domain,
			     tick_work);

	if (dom->ticks_skipped < POSIXTRACE_TICKS_SKIPPED_MAX &&
	    posixtrace_rings_lazy(dom)) {
		dom->ticks_skipped++;
	} else {
		dom->ticks_skipped = 0;
		posixtrace_thread_rings_drain(dom);
	}
	if (!list_empty(&dom->rings))
		posixtrace_thread_rings_poke(dom);
	posixtrace_drain_domain_put(dom);
}

/**
 * posixtrace_thread_rings_poke - start @dom's timer, if it is not running
 * @dom: a domain the caller holds a reference on, or reaches under RCU
 *	through an entry or stream that holds one
 *
 * When a kbuf got its first record, a ring was mapped, or a drain left
 * records: they reach their streams within ring_drain_ms, as a quiet
 * thread's ring records do. Never sleeps.
 */
void posixtrace_thread_rings_poke(struct posixtrace_drain_domain *dom)
{
	posixtrace_drain_domain_get(dom);
	if (!queue_delayed_work(posixtrace_rings_wq, &dom->tick_work,
				msecs_to_jiffies(READ_ONCE(ring_drain_ms))))
		posixtrace_drain_domain_put(dom);
}

/*
 * A ring for current in @mem's pages of @size data bytes, not yet on any
 * list; it takes over the caller's reference and use of @mem.
 */
static struct posixtrace_thread_ring *
posixtrace_thread_ring_new(struct posixtrace_process *proc,
			   struct posixtrace_ring_mem *mem, u64 size)
{
	struct posixtrace_thread_ring *ring;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return NULL;
	ring->mem = mem;
	ring->charged = true;
	ring->ctl = posixtrace_ring_mem_vaddr(mem);
	ring->data = (const u8 *)ring->ctl + PAGE_SIZE;
	ring->size = size;
	ring->ctl->magic = POSIXTRACE_RING_MAGIC;
	ring->ctl->state = POSIXTRACE_RING_LIVE;
	ring->ctl->data_size = size;
	ring->ctl->data_offset = PAGE_SIZE;
	ring->ctl->slot_shift = ilog2(size / POSIXTRACE_RING_SLOTS);
	INIT_RCU_WORK(&ring->free_work, posixtrace_thread_ring_free);
	posixtrace_process_hold(proc);
	ring->proc = proc;
	ring->owner = get_task_struct(current);
	ring->tgid = get_task_pid(current, PIDTYPE_TGID);
	ring->tid = get_task_pid(current, PIDTYPE_PID);
	return ring;
}

/*
 * Room in @dom's heap for @n more sources, grown first if need be, and
 * counted: the caller then lists them. Under the domain's drain mutex,
 * so no drain uses the heap meanwhile; charged to the caller (whoever
 * maps the ring or creates the stream). Sleeps. Return: 0 or -ENOMEM.
 */
static int posixtrace_drain_reserve(struct posixtrace_drain_domain *dom,
				    unsigned int n)
{
	struct posixtrace_drain_src **heap;
	unsigned int size;

	lockdep_assert_held(&dom->mutex);
	if (dom->nr_sources + n > dom->heap_size) {
		size = max_t(unsigned int, max(16U, 2 * dom->heap_size),
			     roundup_pow_of_two(dom->nr_sources + n));
		heap = kvmalloc_array(size, sizeof(*heap), GFP_KERNEL_ACCOUNT);
		if (!heap)
			return -ENOMEM;
		kvfree(dom->heap);
		dom->heap = heap;
		dom->heap_size = size;
	}
	dom->nr_sources += n;
	return 0;
}

/*
 * Put @ring on its domain's list of rings, the heap grown first to hold
 * it. Sleeps. Return: 0 or -ENOMEM.
 */
static int posixtrace_thread_ring_list(struct posixtrace_thread_ring *ring)
{
	struct posixtrace_drain_domain *dom = posixtrace_ring_domain(ring);
	int ret;

	mutex_lock(&dom->mutex);
	ret = posixtrace_drain_reserve(dom, 1);
	if (!ret)
		list_add_rcu(&ring->all_node, &dom->rings);
	mutex_unlock(&dom->mutex);
	return ret;
}

/**
 * posixtrace_drain_list_kbufs - drain a new stream's kbufs from now on
 * @dom: the stream's domain
 * @kbufs: one per possible CPU (kbuf.c)
 *
 * Sleeps. Return: 0 or -ENOMEM.
 */
int posixtrace_drain_list_kbufs(struct posixtrace_drain_domain *dom,
				struct posixtrace_kbuf **kbufs)
{
	int cpu, ret;

	mutex_lock(&dom->mutex);
	ret = posixtrace_drain_reserve(dom, num_possible_cpus());
	if (!ret)
		for_each_possible_cpu(cpu)
			list_add_rcu(&kbufs[cpu]->node, &dom->kbufs);
	mutex_unlock(&dom->mutex);
	return ret;
}

/**
 * posixtrace_drain_unlist_kbufs - a stream's kbufs are drained no more
 * @dom: where posixtrace_drain_list_kbufs() listed them
 * @kbufs: as listed
 *
 * What they hold is not taken: the stream is gone. They may be freed
 * after a grace period. Sleeps: not while a drain of the domain is under
 * way, which may hold them in its heap, and their room in the heap may be
 * another's once given back.
 */
void posixtrace_drain_unlist_kbufs(struct posixtrace_drain_domain *dom,
				   struct posixtrace_kbuf **kbufs)
{
	int cpu;

	mutex_lock(&dom->mutex);
	for_each_possible_cpu(cpu)
		list_del_rcu(&kbufs[cpu]->node);
	dom->nr_sources -= num_possible_cpus();
	mutex_unlock(&dom->mutex);
}

/**
 * posixtrace_thread_ring_mmap - map a new ring for the calling thread
 * @vma: a shared mapping of a page plus @times the data size, at
 *	 POSIXTRACE_RING_OFFSET (twice) or POSIXTRACE_RING_ONCE_OFFSET (once)
 * @times: how many times the data is mapped in a row: 2 or 1. The
 *	 module's own mapping has it twice either way: it reads a record
 *	 whole wherever the thread's mapping cut it.
 *
 * The thread's previous ring, if any, is drained and retired.
 *
 * Return: 0, -EINVAL (a size or mapping that is not a ring's), -EPERM
 * (executable), -ENODEV (rings are off: max_ring_size is 0), -ENOMEM (no
 * memory, or past the user's RLIMIT_MEMLOCK, or past half of it for a ring
 * over 64 KiB), or an error of vm_insert_pages().
 */
int posixtrace_thread_ring_mmap(struct vm_area_struct *vma,
				unsigned int times)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned int max = READ_ONCE(max_ring_size);
	struct posixtrace_thread_ring *ring, *old;
	struct posixtrace_drain_domain *dom;
	struct posixtrace_ring_mem *mem;
	struct posixtrace_process *proc;
	u64 size;
	int ret;

	if (!max)
		return -ENODEV;
	size = len > PAGE_SIZE ? (len - PAGE_SIZE) / times : 0;
	if (!(vma->vm_flags & VM_SHARED) || size < PAGE_SIZE ||
	    !is_power_of_2(size) || len != PAGE_SIZE + times * size)
		return -EINVAL;
	if (size > max)
		return -EINVAL;
	/* Written by user space, read by the kernel: never executed. */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	proc = posixtrace_process_get(task_tgid(current), true);
	if (IS_ERR(proc))
		return PTR_ERR(proc);
	/* Its rings are drained with the streams tracing it: one domain. */
	dom = posixtrace_process_domain(proc);
	if (!dom) {
		ret = -ENOMEM;
		goto out_put_proc;
	}
	/*
	 * One ring per thread: the old one goes first, its records taken,
	 * and its pages no longer count in the limit. A drain that may
	 * sleep (any user may map rings in a loop) retires it.
	 */
	rcu_read_lock();
	old = posixtrace_thread_ring_find(proc, current);
	if (old)
		posixtrace_thread_ring_close(old);
	rcu_read_unlock();
	/*
	 * A thread without a ring made its events by system call, maybe
	 * into kbufs: those come before any its ring will hold.
	 */
	if (old || posixtrace_kbufs_busy(dom))
		posixtrace_thread_rings_drain(dom);
	mem = posixtrace_ring_mem_new(size);
	if (IS_ERR(mem) && !old) {
		/*
		 * Rings closed by exits and execs count until a drain
		 * retires them (unless still mapped): retire them now, and
		 * try again, before a thread near its limit goes by system
		 * call for good. (Those of its own process's domain:
		 * another's are retired by their own drains.)
		 */
		posixtrace_thread_rings_drain(dom);
		mem = posixtrace_ring_mem_new(size);
	}
	if (IS_ERR(mem)) {
		ret = PTR_ERR(mem);
		goto out_put_proc;
	}
	/*
	 * Mapped before the ring is listed: the mapping's use of the pages
	 * is counted before anything can retire the ring and drop its own.
	 */
	ret = posixtrace_ring_mem_map(mem, vma, times);
	if (ret)
		goto out_put_mem;
	ring = posixtrace_thread_ring_new(proc, mem, size);
	if (!ring) {
		ret = -ENOMEM;
		goto out_unmap;
	}
	ret = posixtrace_thread_ring_list(ring);
	if (ret) {
		/* Never listed: no drain can see it. */
		queue_rcu_work(posixtrace_rings_wq, &ring->free_work);
		posixtrace_ring_mem_unmap(mem, vma);
		goto out_put_proc;
	}
	spin_lock(&proc->lock);
	list_add_rcu(&ring->proc_node, &proc->rings);
	spin_unlock(&proc->lock);
	posixtrace_thread_rings_poke(dom);
	posixtrace_process_put(proc);
	return 0;

out_unmap:
	posixtrace_ring_mem_unmap(mem, vma);
out_put_mem:
	posixtrace_ring_mem_uncharge(mem);
	posixtrace_ring_mem_put(mem);
out_put_proc:
	posixtrace_process_put(proc);
	return ret;
}

/**
 * posixtrace_thread_rings_init - before the device and the hooks
 * @sink: where the rings' records go
 *
 * Return: 0 or -ENOMEM.
 */
int posixtrace_thread_rings_init(const struct posixtrace_ring_sink *sink)
{
	posixtrace_ring_sink = sink;
	/* Unbound: a kick's drain may run beside the producer, not after it. */
	posixtrace_rings_wq = alloc_workqueue("posixtrace_rings", WQ_UNBOUND,
					      0);
	return posixtrace_rings_wq ? 0 : -ENOMEM;
}

/*
 * Module exit: no thread can map a ring now, the hooks are gone and no
 * stream is left. Each domain's work is cancelled and its rings retired;
 * the domains go with the process entries that hold them
 * (posixtrace_drain_domains_exit()).
 */
void posixtrace_thread_rings_exit(void)
{
	struct posixtrace_drain_domain *dom;
	struct posixtrace_thread_ring *ring, *tmp;

	while ((dom = posixtrace_drain_domain_next_exiting())) {
		/* First: their drains retire rings too (reaps). */
		if (cancel_delayed_work_sync(&dom->tick_work))
			posixtrace_drain_domain_put(dom);
		if (cancel_work_sync(&dom->drain_work))
			posixtrace_drain_domain_put(dom);
		mutex_lock(&dom->mutex);
		list_for_each_entry_safe(ring, tmp, &dom->rings, all_node)
			__posixtrace_thread_ring_retire(ring);
		mutex_unlock(&dom->mutex);
		posixtrace_drain_domain_put(dom);
	}
	/* The frees wait for a grace period, then run on our queue. */
	rcu_barrier();
	destroy_workqueue(posixtrace_rings_wq);
}
