// SPDX-License-Identifier: GPL-2.0
/*
 * The drain: records taken from their sources into the streams.
 *
 * A source (drain.h) is where records wait in time order: a thread ring
 * (thread_ring.c), written by its thread, or a stream's buffer for one
 * CPU (kbuf.c), written by system calls and the kernel's probes. A drain
 * takes every source of a drain domain at once, merging their records by
 * timestamp: events of different threads and processes reach the streams
 * in the order they were made, whoever drains (a reader, a state change,
 * the worker a thread's exit or kick queues, the timer). A domain holds
 * every source feeding the streams of the processes in it, and nothing
 * else (drain_domain.h). A record made before one already taken (its
 * thread was preempted between reading the clock and committing) takes
 * that one's time: a stream's times never go back (stream_record.c).
 *
 * A drain takes at most a lap of each source, as the source was when the
 * drain visited it, so that writers that keep writing cannot keep a drain
 * going, and only records made before it began (drain.h: struct
 * posixtrace_drain_began), so that what it takes of one source is never
 * newer than what it leaves in another. It lets go of its lock after
 * every POSIXTRACE_DRAIN_BUDGET of work, records taken and sources
 * visited, having handed on what it took: to the streams it is as if two
 * drains had run.
 *
 * Records of a ring go to every stream tracing the ring's process
 * (posixtrace_links_emit()), those of a kbuf to its stream
 * (posixtrace_stream_emit()), in runs of one destination: each stream's
 * lock is taken once a run, not once a record.
 */

#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "debugfs.h"
#include "drain.h"
#include "drain_domain.h"
#include "links.h"
#include "process.h"
#include "stream.h"
#include "user_gfp.h"

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

/*
 * The longest hold of any domain's drain lock since root last wrote 0,
 * in ns: preemption is off for that long (but on PREEMPT_RT). A statistic
 * for the tests (ring_scope_test), not a setting: in debugfs, as
 * posixtrace/drain_hold_max_ns, root's alone.
 */
static u64 drain_hold_max_ns;

static int posixtrace_hold_get(void *data, u64 *val)
{
	*val = READ_ONCE(drain_hold_max_ns);
	return 0;
}

/* Only 0, which starts the count afresh. */
static int posixtrace_hold_set(void *data, u64 val)
{
	if (val)
		return -EINVAL;
	WRITE_ONCE(drain_hold_max_ns, 0);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(posixtrace_hold_fops, posixtrace_hold_get,
			 posixtrace_hold_set, "%llu\n");

/* Count a hold of a drain lock that began at @start (local_clock()). */
static void posixtrace_drain_held(u64 start)
{
	u64 ns = local_clock() - start, max = READ_ONCE(drain_hold_max_ns);

	while (ns > max && !try_cmpxchg64(&drain_hold_max_ns, &max, ns))
		;
}

/*
 * A drain lets go of its lock after a budget of work: a record taken costs
 * one, a source visited (its lap set, its first record looked at)
 * POSIXTRACE_DRAIN_VISIT, so that neither what the sources hold nor how
 * many there are keeps preemption off for long. A visit touches a ring's
 * control and data pages, cold in a ring idle since the last drain, where
 * a record follows the last in pages already touched: a visit costs
 * several records' worth (the figures are in the commit that set it).
 */
#define POSIXTRACE_DRAIN_BUDGET	512
#define POSIXTRACE_DRAIN_VISIT	8

static_assert(POSIXTRACE_DRAIN_HOLD_RECORDS + 32 * POSIXTRACE_DRAIN_VISIT <=
	      POSIXTRACE_DRAIN_BUDGET);

/*
 * Unbound: a kick's drain may run beside the producer, not after it. The
 * sources' frees (thread_ring.c) run here too.
 */
static struct workqueue_struct *posixtrace_drain_wq;

static void posixtrace_drain_work(struct work_struct *work);
static void posixtrace_drain_tick(struct work_struct *work);
static void posixtrace_drain_irq(struct irq_work *work);

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
	INIT_LIST_HEAD(&dom->staged);
	INIT_WORK(&dom->drain_work, posixtrace_drain_work);
	INIT_DELAYED_WORK(&dom->tick_work, posixtrace_drain_tick);
	/*
	 * Hard: run in hardirq context on PREEMPT_RT too, where a lazy one
	 * waits for its CPU's irq_work thread, which CPU hotplug parks
	 * while the CPU still runs (and records) its last wakeups and
	 * moves. posixtrace_drain_deferred() queues none on a CPU going
	 * away. Its work (queue_work(), the domain's put) takes raw locks.
	 */
	dom->drain_irq_work = IRQ_WORK_INIT_HARD(posixtrace_drain_irq);
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
	lockdep_assert_held(&dom->lock);
	if (!dom->batch_len)
		return;
	if (dom->batch_stream)
		posixtrace_stream_emit(dom->batch_stream, dom->batch,
				       dom->batch_len);
	else
		posixtrace_links_emit(dom->batch_proc, dom->batch,
				      dom->batch_len);
	dom->batch_len = 0;
}

/*
 * The batch made @src's, handed on first if it is full or another
 * destination's: returns how many records of @src it has room for.
 */
static unsigned int posixtrace_drain_room(struct posixtrace_source *src)
{
	struct posixtrace_drain_domain *dom = src->domain;
	struct posixtrace_process *proc = src->to_proc;
	struct posixtrace_stream *stream = src->to_stream;

	lockdep_assert_held(&dom->lock);
	if (dom->batch_len == POSIXTRACE_DRAIN_BATCH ||
	    (dom->batch_len && (dom->batch_proc != proc ||
				dom->batch_stream != stream)))
		posixtrace_drain_batch_flush(dom);
	dom->batch_proc = proc;
	dom->batch_stream = stream;
	return POSIXTRACE_DRAIN_BATCH - dom->batch_len;
}

/**
 * posixtrace_drain_slot - a place in the batch, for a record of @src
 * @src: the source, visited by a drain of its domain
 *
 * For its take, or for a loss its peek found (a ring's bad record). Under
 * the drain lock.
 *
 * Return: the emit to fill in, for @src's streams.
 */
struct posixtrace_emit *posixtrace_drain_slot(struct posixtrace_source *src)
{
	struct posixtrace_drain_domain *dom = src->domain;

	posixtrace_drain_room(src);
	return &dom->batch[dom->batch_len++];
}

/*
 * Is heap entry @a's next record older than @b's? On a tie, a ring's
 * first (a thread's closed ring before its kbuf records: kbuf.c), and of
 * two kbufs the one stamped first on the monotonic clock.
 */
static bool posixtrace_drain_older(const struct posixtrace_source *a,
				   const struct posixtrace_source *b)
{
	if (a->next_ns != b->next_ns)
		return a->next_ns < b->next_ns;
	if (a->staged != b->staged)
		return !a->staged;
	return a->staged && a->next_mono < b->next_mono;
}

/* Restore the heap property from @i down, in a heap of @n. */
static void posixtrace_drain_sift_down(struct posixtrace_source **heap,
				       unsigned int n, unsigned int i)
{
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
		swap(heap[i], heap[least]);
		i = least;
	}
}

/* Add @src to the heap of @n entries. */
static void posixtrace_drain_push(struct posixtrace_drain_domain *dom,
				  unsigned int *n, struct posixtrace_source *src)
{
	struct posixtrace_source **heap = dom->heap;
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

/* The hold takes records of @src: its position is stored when it ends. */
static void posixtrace_drain_touch(struct posixtrace_drain_domain *dom,
				   struct posixtrace_source *src)
{
	if (!src->touched) {
		src->touched = true;
		src->touched_next = dom->touched;
		dom->touched = src;
	}
}

/* Take the next record of heap entry @src into the batch. */
static void posixtrace_drain_take(struct posixtrace_drain_domain *dom,
				  struct posixtrace_source *src, s64 now)
{
	posixtrace_drain_touch(dom, src);
	/* For none of its streams: the slot goes back. */
	if (!src->ops->take(src, posixtrace_drain_slot(src), now))
		dom->batch_len--;
}

/*
 * The heap's entry after the first: the source whose next record comes
 * after the first's in the merge. The heap holds @n, two at least.
 */
static struct posixtrace_source *
posixtrace_drain_second(struct posixtrace_source **heap, unsigned int n)
{
	if (n == 2 || posixtrace_drain_older(heap[1], heap[2]))
		return heap[1];
	return heap[2];
}

/*
 * Take records of heap entry @src, the first, in a row into the batch:
 * @max at most, no more than the batch has room for, and none made after
 * the next of the other entries (a tie keeps the heap's order: a ring's
 * record before a kbuf's, of two rings either). Returns how many it took.
 */
static unsigned int posixtrace_drain_take_run(struct posixtrace_drain_domain *dom,
					      unsigned int n, unsigned int max,
					      s64 now)
{
	struct posixtrace_source *src = dom->heap[0];
	unsigned int room, taken, filled;
	s64 until = S64_MAX;

	lockdep_assert_held(&dom->lock);
	if (n > 1)
		until = posixtrace_drain_second(dom->heap, n)->next_ns;
	posixtrace_drain_touch(dom, src);
	room = posixtrace_drain_room(src);
	taken = src->ops->take_run(src, &dom->batch[dom->batch_len],
				   min(max, room), until, now, &filled);
	dom->batch_len += filled;
	return taken;
}

/*
 * The end of a hold: the batch handed on, then how far each source was
 * taken stored, so that its writers may reuse the room (not before: the
 * batch points into it).
 */
static void posixtrace_drain_store(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_source *src, *next;

	posixtrace_drain_batch_flush(dom);
	for (src = dom->touched; src; src = next) {
		next = src->touched_next;
		src->touched = false;
		src->ops->store(src);
	}
	dom->touched = NULL;
}

/*
 * Where a drain is in its domain: the next source to visit (the lists
 * change only under the drain mutex, which the drain holds: the kbufs
 * first, then the rings), the heap's entries, and when it began.
 */
struct posixtrace_drain_walk {
	struct list_head *pos, *list;
	unsigned int n;
	struct posixtrace_drain_began began;
	/* Records it may still take (a reader's batch), or U64_MAX. */
	u64 left;
	/* It stopped before the end of its laps, for @left. */
	bool capped;
	/* The records it took. */
	u64 taken;
	/* It visits only the sources a reader cut (their @cut). */
	bool cut_only;
};

/*
 * Visit @src: its lap set, its first record looked at. Two kinds of source
 * are taken whatever their records' times: one closed before the drain
 * began, which its writer is done with and the drain retires (decided
 * here, once: the reap goes by @whole_gen, not by what it reads of
 * @closed later, lest it retire a source whose newer records the visit
 * left), and one a reader's cut holds, whose @cut walk already stopped at
 * its own time.
 */
static void posixtrace_drain_visit(struct posixtrace_drain_domain *dom,
				   struct posixtrace_drain_walk *w,
				   struct posixtrace_source *src)
{
	struct posixtrace_drain_began began = w->began;
	bool whole = src->cut;

	/* Pairs with the store-release of posixtrace_source_close(). */
	if (smp_load_acquire(&src->closed) &&
	    READ_ONCE(src->closed_gen) < dom->gen) {
		src->whole_gen = dom->gen;
		whole = true;
	}
	if (whole)
		began = (struct posixtrace_drain_began) {
			.mono = U64_MAX, .real = S64_MAX,
		};
	src->ops->visit(src, &began);
	/* Listed sources never outnumber the heap. */
	if (w->n < dom->heap_size && src->ops->peek(src))
		posixtrace_drain_push(dom, &w->n, src);
}

/*
 * One hold of the drain lock, at most POSIXTRACE_DRAIN_BUDGET of work:
 * first the visits of every kbuf, then of every ring (each one's lap, and
 * its first record into the heap), then the records of the heap merged by
 * timestamp, each within its source's lap and made before the drain
 * began. The visits all come before any record is taken: a record is
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
	struct posixtrace_source **heap = dom->heap;
	int budget = POSIXTRACE_DRAIN_BUDGET;
	struct posixtrace_source *src;
	unsigned int taken;
	s64 now;

	lockdep_assert_held(&dom->lock);
	while (budget > 0 && w->list) {
		w->pos = w->pos->next;
		if (w->pos == w->list) {
			/* The kbufs done, the rings; the rings done, none. */
			w->list = w->list == &dom->staged ? &dom->rings : NULL;
			w->pos = w->list;
			continue;
		}
		src = list_entry(w->pos, struct posixtrace_source, node);
		if (w->cut_only && !src->cut) {
			budget--;
			continue;
		}
		budget -= POSIXTRACE_DRAIN_VISIT;
		posixtrace_drain_visit(dom, w, src);
	}
	if (w->list) {
		/* A revoked ring's loss may be in the batch. */
		posixtrace_drain_store(dom);
		return false;
	}
	now = ktime_get_real_ns();
	while (w->n && budget > 0) {
		if (!w->left) {
			w->capped = true;
			break;
		}
		if (heap[0]->ops->take_run) {
			taken = posixtrace_drain_take_run(dom, w->n,
							  min_t(u64, budget,
								w->left),
							  now);
			/* It takes its first, peeked record; else stop here. */
			if (WARN_ON_ONCE(!taken)) {
				w->capped = true;
				break;
			}
		} else {
			posixtrace_drain_take(dom, heap[0], now);
			taken = 1;
		}
		budget -= taken;
		w->left -= taken;
		w->taken += taken;
		if (!heap[0]->ops->peek(heap[0]))
			heap[0] = heap[--w->n];
		posixtrace_drain_sift_down(heap, w->n, 0);
	}
	posixtrace_drain_store(dom);
	return !w->n || w->capped;
}

/*
 * Retire the sources of @dom that its drain @gen found closed before it
 * began (posixtrace_drain_visit()): it took all they hold (at most a lap
 * each). Under the drain mutex.
 */
static void posixtrace_drain_reap(struct posixtrace_drain_domain *dom, u64 gen)
{
	struct posixtrace_source *src, *tmp;

	lockdep_assert_held(&dom->mutex);
	list_for_each_entry_safe(src, tmp, &dom->rings, node) {
		if (src->whole_gen == gen)
			src->ops->retire(src);
		/* A domain may hold many rings. */
		cond_resched();
	}
}

/**
 * posixtrace_drain_staged_busy - does some kbuf of @dom hold records?
 * @dom: the domain
 *
 * A hint for anyone but the drain that stored the kbufs' positions (see
 * the end of posixtrace_drain()): writers may be at work.
 */
bool posixtrace_drain_staged_busy(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_source *src;
	bool busy = false;

	/*
	 * After a drain stored @tail, before we read @head: pairs with the
	 * barrier of posixtrace_kbuf_post(), which reads @tail after its
	 * @head, so that a record is seen by one of us (the timer runs on).
	 */
	smp_mb();
	rcu_read_lock();
	list_for_each_entry_rcu(src, &dom->staged, node) {
		if (!src->ops->lazy(src)) {
			busy = true;
			break;
		}
	}
	rcu_read_unlock();
	return busy;
}

/**
 * posixtrace_drain_bytes - what the sources of @dom hold, in bytes
 * @dom: the domain, or NULL
 *
 * The sum of their @bytes: each record counted as it is stored in its
 * source, before a drain makes it a stream's record. A hint, under RCU:
 * writers, and drains, may be at work.
 */
u64 posixtrace_drain_bytes(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_source *src;
	u64 bytes = 0;

	if (!dom)
		return 0;
	rcu_read_lock();
	list_for_each_entry_rcu(src, &dom->staged, node)
		bytes += src->ops->bytes(src);
	list_for_each_entry_rcu(src, &dom->rings, node)
		bytes += src->ops->bytes(src);
	rcu_read_unlock();
	return bytes;
}

/*
 * A drain's holds of the lock, from its first visit until it is done, the
 * CPU let go between two. Under the drain mutex.
 */
static void posixtrace_drain_holds(struct posixtrace_drain_domain *dom,
				   struct posixtrace_drain_walk *w)
{
	bool done;
	u64 start;

	lockdep_assert_held(&dom->mutex);
	/*
	 * Before the first visit reads any kbuf's head or ring's commit
	 * word: see kbuf.c. (The clock reads are not ordered before those
	 * loads; a thread would have to write twice and change CPU, or two
	 * threads to write in turn, within that window.)
	 */
	w->began.mono = ktime_get_ns();
	w->began.real = ktime_get_real_ns();
	w->list = &dom->staged;
	w->pos = w->list;
	do {
		/* The streams' emit paths walk links under RCU. */
		rcu_read_lock();
		spin_lock(&dom->lock);
		/* For posixtrace_drain_busy(), which reads it unlocked. */
		WRITE_ONCE(dom->open, true);
		start = local_clock();
		done = posixtrace_drain_hold(dom, w);
		WRITE_ONCE(dom->open, !done);
		posixtrace_drain_held(start);
		spin_unlock(&dom->lock);
		rcu_read_unlock();
		if (!done)
			cond_resched();
	} while (!done);
}

/*
 * The rings a reader's cut may cover at most: more, and the reader drains
 * everything into the stream, as it always may.
 */
#define POSIXTRACE_DRAIN_CUT_MAX	16

/**
 * posixtrace_drain_cut - a reader behind its LOOP stream drops what the
 *	stream would only overwrite, without draining it
 * @dom: the stream's domain
 * @stream: the stream, its read lock held (or referenced, for a worker's
 *	    drop: posixtrace_drain_drop())
 * @cut: filled in: what the sources cut still hold
 *
 * A reader that falls behind would otherwise drain everything its
 * producers made into the stream, copying every record, to read the
 * oldest the stream keeps and see the rest overwritten: turn after turn,
 * it would copy all its producers make and read a batch of it. When the
 * only sources of the domain with records are rings (no kbuf), a few of
 * them, their @cut drops, to the record, what the stream would overwrite
 * of them (lib/ring_walk.c), oldest first across the rings as a drain would
 * merge them, as kicks do: counted as recorded and lost. The reader then
 * takes what the stream holds, and the rest straight from the rings with
 * posixtrace_drain_cut_take(), @cut's records at most: those the cut
 * counted. Until posixtrace_drain_cut_done(), no other drain runs and
 * kicks drop nothing, so that those records stay where they were, the
 * oldest of their rings.
 *
 * Return: true if @cut was filled in, the mutex kept; false if nothing
 * was cut, and the reader drains everything into the stream.
 */
bool posixtrace_drain_cut(struct posixtrace_drain_domain *dom,
			  struct posixtrace_stream *stream,
			  struct posixtrace_drain_cut *cut)
{
	struct posixtrace_source *srcs[POSIXTRACE_DRAIN_CUT_MAX], *src;
	unsigned int n = 0;

	if (!dom)
		return false;
	mutex_lock(&dom->mutex);
	/* The lists change only under the mutex. */
	list_for_each_entry(src, &dom->rings, node) {
		if (!src->ops->bytes(src))
			continue;
		if (n == ARRAY_SIZE(srcs) || !src->ops->cut ||
		    (n && src->ops->cut != srcs[0]->ops->cut))
			goto out;
		srcs[n++] = src;
	}
	if (n && posixtrace_drain_cut_alone(dom, srcs, n) &&
	    srcs[0]->ops->cut(srcs, n, stream, cut))
		return true;
out:
	mutex_unlock(&dom->mutex);
	return false;
}

/*
 * Is @src one of @srcs, @n of them? A cut covers a few rings: a look at
 * each is cheaper than a mark to undo.
 */
static bool posixtrace_drain_cut_one_of(struct posixtrace_source *src,
					struct posixtrace_source **srcs,
					unsigned int n)
{
	while (n--)
		if (srcs[n] == src)
			return true;
	return false;
}

/**
 * posixtrace_drain_cut_alone - do @srcs alone of their domain hold records?
 * @dom: the domain, its mutex held (the lists stay as they are)
 * @srcs: rings of it
 * @n: how many
 *
 * Asked before a reader's cut, and again once its walks are done, under
 * the drain lock, before it drops (the sources' @cut): a record another
 * source got meanwhile may be older than the last the walks counted, and
 * would be stored among them, beyond what the cut counted.
 */
bool posixtrace_drain_cut_alone(struct posixtrace_drain_domain *dom,
				struct posixtrace_source **srcs,
				unsigned int n)
{
	struct posixtrace_source *other;

	lockdep_assert_held(&dom->mutex);
	/* What the walks read before what the others hold now. */
	smp_mb();
	list_for_each_entry(other, &dom->staged, node)
		if (other->ops->bytes(other))
			return false;
	list_for_each_entry(other, &dom->rings, node)
		if (other->ops->bytes(other) &&
		    !posixtrace_drain_cut_one_of(other, srcs, n))
			return false;
	return true;
}

/**
 * posixtrace_drain_cut_held - a source's @cut dropped: the reader takes
 *	from it, and kicks drop nothing, until its posixtrace_drain_cut_done()
 * @src: the source, its domain's drain lock held
 */
void posixtrace_drain_cut_held(struct posixtrace_source *src)
{
	posixtrace_source_assert_held(src);
	src->cut = true;
	src->cut_next = src->domain->cut_list;
	WRITE_ONCE(src->domain->cut_list, src);
}

/**
 * posixtrace_drain_cut_take - the reader that cut takes what the cut left
 * @dom: the domain, cut (posixtrace_drain_cut())
 * @max: how many records at most
 *
 * A drain of the cut sources alone, the oldest @max of their records
 * merged by time, each source's up to where its cut's walk ended: what
 * the cut counted, if @max is no more than that, since no other drain has
 * run nor any kick dropped. Records made since, there and in the other
 * sources, wait for the next drain, as records committed after a drain's
 * visit do.
 *
 * Return: the records it took.
 */
u64 posixtrace_drain_cut_take(struct posixtrace_drain_domain *dom, u64 max)
{
	struct posixtrace_drain_walk w = { .left = max, .cut_only = true };

	lockdep_assert_held(&dom->mutex);
	posixtrace_drain_holds(dom, &w);
	return w.taken;
}

/**
 * posixtrace_drain_cut_done - the reader that cut took its records
 * @dom: the domain posixtrace_drain_cut() cut
 */
void posixtrace_drain_cut_done(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_source *src;

	lockdep_assert_held(&dom->mutex);
	spin_lock(&dom->lock);
	for (src = dom->cut_list; src; src = src->cut_next)
		src->cut = false;
	WRITE_ONCE(dom->cut_list, NULL);
	spin_unlock(&dom->lock);
	/* Stored before the waiters are looked for. */
	smp_mb();
	wake_up_var(&dom->cut_list);
	mutex_unlock(&dom->mutex);
}

/**
 * posixtrace_drain - take the records of a drain domain
 * @dom: the domain; NULL (a process that never needed one): nothing
 *
 * One lap of each of its sources at most, as the source was when the
 * drain visited it, merged by timestamp into the streams. Before anything
 * that judges or reads what threads recorded: a stream's start, stop,
 * filter change, clear, shutdown, status, read or flush (the stream's
 * domain); a system-call event (its process's); the timer, the threads'
 * kicks and exits, and kbufs filling. May sleep: it lets go of the drain
 * lock (and the CPU, if need be) after each POSIXTRACE_DRAIN_BUDGET of
 * records and visits, so that however much the sources hold, and however
 * many there are, preemption is never off for long. Drains of a domain
 * take turns; a kick drops nothing while one is under way (lib/ring_walk.c).
 * Then retires the sources closed before it began.
 */
void posixtrace_drain(struct posixtrace_drain_domain *dom)
{
	posixtrace_drain_upto(dom, U64_MAX);
}

/**
 * posixtrace_drain_upto - take at most @max records of a drain domain
 * @dom: the domain, or NULL (nothing)
 * @max: how many records at most: the oldest of the merge
 *
 * posixtrace_drain(), stopped once it took @max records (a reader that
 * takes them straight into its batch, stream_read.c): what is left in the
 * sources stays there, in order, for the next drain. Sleeps.
 *
 * Return: the records it took (whichever streams they were for): fewer
 * than @max if it took everything it would have without @max.
 */
u64 posixtrace_drain_upto(struct posixtrace_drain_domain *dom, u64 max)
{
	struct posixtrace_drain_walk w = { .left = max };
	u64 gen;

	might_sleep();
	if (!dom ||
	    (list_empty_careful(&dom->rings) &&
	     !posixtrace_drain_staged_busy(dom)))
		return 0;
	mutex_lock(&dom->mutex);
	gen = dom->gen + 1;
	WRITE_ONCE(dom->gen, gen);
	/* Before the visits read commit words: pairs with the closes'. */
	smp_mb();
	posixtrace_drain_holds(dom, &w);
	/* Stopped early, closed sources may still hold records. */
	if (!w.capped)
		posixtrace_drain_reap(dom, gen);
	/*
	 * Records left in kbufs (stamped after the cut, or written while we
	 * took) keep the timer running: after our @tail stores, the barrier
	 * in posixtrace_drain_staged_busy() pairs with the writers' (they
	 * read @tail after their @head), so a record we do not see here was
	 * written by a writer that sees the buffer emptied, and starts the
	 * timer itself. Under the mutex: no other drain moves @tail.
	 */
	if (posixtrace_drain_staged_busy(dom))
		posixtrace_drain_later(dom);
	mutex_unlock(&dom->mutex);
	return w.taken;
}

/**
 * posixtrace_drain_current - drain the caller's process's domain
 *
 * Before a system-call event: what the thread's ring, and its process's
 * other rings, hold came first. Sleeps.
 */
void posixtrace_drain_current(void)
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
	posixtrace_drain(dom);
	posixtrace_drain_domain_put(dom);
}

/**
 * posixtrace_drain_pause - keep @dom's drains from taking records
 * @dom: the domain
 *
 * For a kick that drops records in place (thread_ring.c): no hold of a
 * drain runs until posixtrace_drain_resume(). Never sleeps.
 *
 * Return: false if a drain is under way, between two of its holds: it
 * keeps sources' next records across them, and its caller may change a
 * stream's state once it is done, so nothing may be dropped; or if a
 * reader cut (posixtrace_drain_cut()) and has not yet taken its records.
 */
bool posixtrace_drain_pause(struct posixtrace_drain_domain *dom)
	__acquires(&dom->lock)
{
	spin_lock(&dom->lock);
	return !dom->open && !dom->cut_list;
}

/**
 * posixtrace_drain_try_pause - posixtrace_drain_pause(), waiting only if told
 * @dom: the domain
 * @wait: wait for the drain lock if someone holds it
 *
 * For a kick. A realtime thread's kick does not wait even for a hold:
 * under PREEMPT_RT the lock sleeps (the holder, lent the thread's
 * priority, would run meanwhile); the thread has a worker drain
 * instead. Never sleeps.
 *
 * Return: true, with the lock held, if drains are paused; false, without
 * it, if a drain or a reader's cut is under way, or, unless @wait, if
 * someone holds the lock.
 */
bool posixtrace_drain_try_pause(struct posixtrace_drain_domain *dom,
				bool wait)
{
	if (wait)
		spin_lock(&dom->lock);
	else if (!spin_trylock(&dom->lock))
		return false;
	if (!dom->open && !dom->cut_list) {
		/*
		 * Sparse cannot follow a lock kept on one return only: to it,
		 * as with posixtrace_drain_pause() and _resume(), whose
		 * declarations say nothing, the caller holds no lock.
		 */
		__release(&dom->lock);
		return true;
	}
	spin_unlock(&dom->lock);
	return false;
}

/**
 * posixtrace_drain_busy - is a drain of @dom taking records now?
 * @dom: the domain
 *
 * A hint, without the drain lock, for a kick: true if a drain is in a
 * hold of the lock or between two of its holds, or a reader cut and has
 * not yet taken its records, when posixtrace_drain_pause() would wait
 * for the lock or refuse.
 */
bool posixtrace_drain_busy(struct posixtrace_drain_domain *dom)
{
	return READ_ONCE(dom->open) || READ_ONCE(dom->cut_list);
}

/**
 * posixtrace_drain_cutting - does a reader of @dom hold records by a cut?
 * @dom: the domain
 *
 * A hint, without the lock: a reader between posixtrace_drain_cut() and
 * posixtrace_drain_cut_done().
 */
bool posixtrace_drain_cutting(struct posixtrace_drain_domain *dom)
{
	return READ_ONCE(dom->cut_list);
}

/**
 * posixtrace_drain_cut_wait - wait for the readers' turns that cut to end
 * @dom: a domain the caller holds a reference on
 *
 * For a kick whose ring a reader's cut holds (thread_ring.c): a tick at
 * most, so that a thread of a higher priority than the reader is not held
 * up for long by it (a mutex would lend it none outside PREEMPT_RT).
 * Sleeps.
 *
 * Return: false if the turns had not ended by then.
 */
bool posixtrace_drain_cut_wait(struct posixtrace_drain_domain *dom)
{
	return wait_var_event_timeout(&dom->cut_list,
				      !READ_ONCE(dom->cut_list), 1);
}

/* Let @dom's drains go on after posixtrace_drain_pause(). */
void posixtrace_drain_resume(struct posixtrace_drain_domain *dom)
	__releases(&dom->lock)
{
	spin_unlock(&dom->lock);
}

/**
 * posixtrace_source_close - @src's writer writes no more
 * @src: a listed source
 *
 * The next drain of its domain to begin takes what it holds, in order
 * with every other source's records, and retires it (@ops->retire). Never
 * sleeps, and takes no lock: the hooks close rings, and leave the drain to
 * a worker; a drain's hold of the drain lock, though bounded, is not for a
 * hook to wait for.
 *
 * Why the generation read here is enough: it is the store-buffering
 * pattern, with a full barrier on each side. Here, the records (written
 * before: by this thread, or by threads whose exits came before), then
 * the barrier, then the generation read; in a drain, its generation
 * stored, then the barrier, then its visits read the commit words. A
 * drain whose generation this read did not see therefore sees every
 * record committed before the close, within the lap its visit set. Two
 * closes of one source may race (a thread's, its process's): the
 * generation stored is one of theirs, and each covers what it must, the
 * records committed before it.
 */
void posixtrace_source_close(struct posixtrace_source *src)
{
	/* Pairs with the barrier in posixtrace_drain(). */
	smp_mb();
	WRITE_ONCE(src->closed_gen, READ_ONCE(src->domain->gen));
	/* The reap reads @closed_gen after @closed, with acquire. */
	smp_store_release(&src->closed, true);
}

/*
 * Is a source of @dom closed? Its records are taken, and it is retired,
 * by the next drain. Under the drain mutex.
 */
static bool posixtrace_drain_any_closed(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_source *src;

	lockdep_assert_held(&dom->mutex);
	list_for_each_entry(src, &dom->rings, node) {
		if (READ_ONCE(src->closed))
			return true;
		/* A domain may hold many rings. */
		cond_resched();
	}
	return false;
}

/*
 * A worker's drain for a kick whose ring is full, when the domain's
 * records are kept by one LOOP stream without a log: drop what the stream
 * would only overwrite, across the rings, as a reader behind it cuts
 * (posixtrace_drain_cut()), and take nothing. A drain would copy every
 * record the rings hold into the stream, most of them to be overwritten
 * there before anyone reads them; the rest stay in the rings, where a
 * reader takes them. Returns true if no drain is needed: the cut dropped
 * records (else the stream keeps all the rings hold, and a drain stores
 * them), every ring cut has room, and none is closed (a drain retires
 * it).
 */
static bool posixtrace_drain_drop(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_stream *stream = NULL;
	struct posixtrace_drain_cut cut = { };
	struct posixtrace_source *src;
	bool done = false;

	/*
	 * Whoever holds a stream holds the module (see the news work): its
	 * last put frees what module exit tears down before our queue.
	 */
	if (!try_module_get(THIS_MODULE))
		return false;
	rcu_read_lock();
	list_for_each_entry_rcu(src, &dom->rings, node) {
		/* A thread's exit queued us: its drain retires the ring. */
		if (READ_ONCE(src->closed))
			break;
		if (src->ops->bytes(src)) {
			if (src->ops->loop_stream)
				stream = src->ops->loop_stream(src);
			break;
		}
	}
	rcu_read_unlock();
	if (!stream) {
		module_put(THIS_MODULE);
		return false;
	}
	if (posixtrace_drain_cut(dom, stream, &cut)) {
		done = cut.dropped && cut.room &&
		       !posixtrace_drain_any_closed(dom);
		posixtrace_drain_cut_done(dom);
	}
	/*
	 * A reader waiting gets the records now, as a drain storing them
	 * would have woken it: a kick that found its ring full left it be.
	 */
	if (done)
		posixtrace_stream_sources_ready(stream);
	/* The mutex let go: the last reference may unlist its kbufs. */
	posixtrace_stream_put(stream);
	/* Module exit waits for this work to return (its cancel). */
	module_put(THIS_MODULE);
	return done;
}

/*
 * The kicks' and exits' drain of a domain, with the reference queued: a
 * drop across the rings for a LOOP stream, where that is enough.
 */
static void posixtrace_drain_work(struct work_struct *work)
{
	struct posixtrace_drain_domain *dom =
		container_of(work, struct posixtrace_drain_domain, drain_work);

	if (!posixtrace_drain_drop(dom))
		posixtrace_drain(dom);
	posixtrace_drain_domain_put(dom);
}

/**
 * posixtrace_drain_soon - a worker drains @dom soon
 * @dom: a domain the caller holds a reference on, or reaches under RCU
 *	through an entry or stream that holds one
 *
 * Never sleeps, takes raw locks only (any context).
 */
void posixtrace_drain_soon(struct posixtrace_drain_domain *dom)
{
	posixtrace_drain_domain_get(dom);
	if (!queue_work(posixtrace_drain_wq, &dom->drain_work))
		posixtrace_drain_domain_put(dom);
}

/* posixtrace_drain_deferred()'s, with the reference it queued. */
static void posixtrace_drain_irq(struct irq_work *work)
{
	struct posixtrace_drain_domain *dom =
		container_of(work, struct posixtrace_drain_domain,
			     drain_irq_work);

	posixtrace_drain_soon(dom);
	posixtrace_drain_domain_put(dom);
}

/**
 * posixtrace_drain_deferred - posixtrace_drain_soon(), from a probe
 * @dom: as for posixtrace_drain_soon()
 *
 * A probe may hold the scheduler's locks (sched_switch, a wakeup), where
 * queue_work() could wake a worker on a runqueue held: an irq_work on
 * this CPU queues the drain once they are let go, as the scheduler's own
 * callers of work do. With preemption off (in a tracepoint's probe), and
 * @dom reached through a stream's kbufs under RCU, which hold a reference
 * until a grace period after their stream lets them go.
 */
void posixtrace_drain_deferred(struct posixtrace_drain_domain *dom)
{
	unsigned long flags;

	/*
	 * The reference is taken only for a work queued, and before it can
	 * run: on this CPU, once interrupts are on again. Not on a CPU
	 * going offline: its interrupts may be off for good (x86 stops its
	 * local APIC first), and a work left pending there would stop every
	 * later one of the domain, and the module's exit, which waits for
	 * it. The timer, or a drain from another CPU, takes the records.
	 */
	local_irq_save(flags);
	if (cpu_online(smp_processor_id()) &&
	    irq_work_queue(&dom->drain_irq_work))
		posixtrace_drain_domain_get(dom);
	local_irq_restore(flags);
}

/*
 * Ticks the timer may skip in a row while every ring of a domain is lazy
 * (below): a drain would only store records their stream may overwrite
 * before anyone reads them (a read, a status or a monitoring query drains
 * first), taking a CPU from the threads that record. Once a second still:
 * a bound on what the rings hold undrained.
 */
#define POSIXTRACE_TICKS_SKIPPED_MAX	9

/*
 * Is every source of @dom lazy (drain.h)? Under the drain mutex, which
 * keeps the list as it is, so that the walk may leave RCU (and the CPU)
 * between two rings: a domain may hold many.
 */
static bool posixtrace_drain_lazy(struct posixtrace_drain_domain *dom)
{
	struct posixtrace_source *src;
	bool lazy = true;

	/* A kbuf's records are those of threads without a ring: no kicks. */
	if (posixtrace_drain_staged_busy(dom))
		return false;
	mutex_lock(&dom->mutex);
	list_for_each_entry(src, &dom->rings, node) {
		if (!src->ops->lazy || !src->ops->lazy(src)) {
			lazy = false;
			break;
		}
		cond_resched();
	}
	mutex_unlock(&dom->mutex);
	return lazy;
}

/*
 * Every ring_drain_ms while @dom has rings, or records in kbufs (each
 * drain that leaves some starts the timer again): a quiet thread's events
 * arrive; every tenth only while all its rings are lazy. Each domain has
 * its own timer: it walks only its own sources.
 */
static void posixtrace_drain_tick(struct work_struct *work)
{
	struct posixtrace_drain_domain *dom =
		container_of(to_delayed_work(work), struct posixtrace_drain_domain,
			     tick_work);

	if (dom->ticks_skipped < POSIXTRACE_TICKS_SKIPPED_MAX &&
	    posixtrace_drain_lazy(dom)) {
		dom->ticks_skipped++;
	} else {
		dom->ticks_skipped = 0;
		posixtrace_drain(dom);
	}
	if (!list_empty(&dom->rings))
		posixtrace_drain_later(dom);
	posixtrace_drain_domain_put(dom);
}

/**
 * posixtrace_drain_later - start @dom's timer, if it is not running
 * @dom: a domain the caller holds a reference on, or reaches under RCU
 *	through an entry or stream that holds one
 *
 * When a kbuf got its first record, a ring was mapped, or a drain left
 * records: they reach their streams within ring_drain_ms, as a quiet
 * thread's ring records do. Never sleeps.
 */
void posixtrace_drain_later(struct posixtrace_drain_domain *dom)
{
	posixtrace_drain_domain_get(dom);
	if (!queue_delayed_work(posixtrace_drain_wq, &dom->tick_work,
				msecs_to_jiffies(READ_ONCE(ring_drain_ms))))
		posixtrace_drain_domain_put(dom);
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
	struct posixtrace_source **heap;
	unsigned int size;

	lockdep_assert_held(&dom->mutex);
	if (dom->nr_sources + n > dom->heap_size) {
		size = max_t(unsigned int, max(16U, 2 * dom->heap_size),
			     roundup_pow_of_two(dom->nr_sources + n));
		heap = posixtrace_kvmalloc_user(array_size(size, sizeof(*heap)),
						NUMA_NO_NODE);
		if (!heap)
			return -ENOMEM;
		kvfree(dom->heap);
		dom->heap = heap;
		dom->heap_size = size;
	}
	dom->nr_sources += n;
	return 0;
}

/**
 * posixtrace_drain_list - drain sources from now on
 * @dom: their domain
 * @srcs: the sources, their @ops and @staged set; NULL entries are none
 *	(a stream's kbufs of CPUs that cannot be)
 * @n: how many entries
 *
 * The heap is grown first to hold them. Sleeps. Return: 0 or -ENOMEM,
 * with none listed.
 */
int posixtrace_drain_list(struct posixtrace_drain_domain *dom,
			  struct posixtrace_source **srcs, unsigned int n)
{
	unsigned int i, nr = 0;
	int ret;

	for (i = 0; i < n; i++)
		nr += !!srcs[i];
	mutex_lock(&dom->mutex);
	ret = posixtrace_drain_reserve(dom, nr);
	for (i = 0; !ret && i < n; i++) {
		if (!srcs[i])
			continue;
		srcs[i]->domain = dom;
		list_add_rcu(&srcs[i]->node,
			     srcs[i]->staged ? &dom->staged : &dom->rings);
	}
	mutex_unlock(&dom->mutex);
	return ret;
}

/**
 * posixtrace_drain_forget - take @src off its domain's lists
 * @src: a listed source
 *
 * What it holds is not taken. It may be freed after a grace period. Under
 * the drain mutex: not while a drain of the domain is under way, which
 * may hold it in its heap, and its room in the heap may be another's once
 * given back.
 */
void posixtrace_drain_forget(struct posixtrace_source *src)
{
	struct posixtrace_drain_domain *dom = src->domain;

	lockdep_assert_held(&dom->mutex);
	list_del_rcu(&src->node);
	dom->nr_sources--;
}

/**
 * posixtrace_drain_unlist - sources are drained no more
 * @dom: where posixtrace_drain_list() listed them
 * @srcs: as listed, NULL entries too
 * @n: how many entries
 *
 * posixtrace_drain_forget() for each, under the drain mutex. Sleeps.
 */
void posixtrace_drain_unlist(struct posixtrace_drain_domain *dom,
			     struct posixtrace_source **srcs, unsigned int n)
{
	unsigned int i;

	mutex_lock(&dom->mutex);
	for (i = 0; i < n; i++)
		if (srcs[i])
			posixtrace_drain_forget(srcs[i]);
	mutex_unlock(&dom->mutex);
}

/**
 * posixtrace_source_free_later - run @work a grace period from now
 * @work: a retired source's free, off every list (posixtrace_drain_forget())
 *
 * On the drains' queue, which module exit flushes after the last grace
 * period. Never sleeps.
 */
void posixtrace_source_free_later(struct rcu_work *work)
{
	queue_rcu_work(posixtrace_drain_wq, work);
}

/**
 * posixtrace_drains_init - before the device and the hooks
 *
 * Return: 0 or -ENOMEM.
 */
int posixtrace_drains_init(void)
{
	posixtrace_drain_wq = alloc_workqueue("posixtrace_rings", WQ_UNBOUND,
					      0);
	if (!posixtrace_drain_wq)
		return -ENOMEM;
	/* Without debugfs, or if it fails, the statistic is not shown. */
	debugfs_create_file_unsafe("drain_hold_max_ns", 0600,
				   posixtrace_debugfs, NULL,
				   &posixtrace_hold_fops);
	return 0;
}

/*
 * Module exit: no thread can map a ring now, the hooks are gone and no
 * stream is left. Each domain's work is cancelled and its sources
 * retired; the domains go with the process entries that hold them
 * (posixtrace_drain_domains_exit()).
 */
void posixtrace_drains_exit(void)
{
	struct posixtrace_drain_domain *dom;
	struct posixtrace_source *src, *tmp;

	while ((dom = posixtrace_drain_domain_next_exiting())) {
		/* The probes are gone: an irq_work queued runs its last. */
		irq_work_sync(&dom->drain_irq_work);
		/* First: their drains retire sources too (reaps). */
		if (cancel_delayed_work_sync(&dom->tick_work))
			posixtrace_drain_domain_put(dom);
		if (cancel_work_sync(&dom->drain_work))
			posixtrace_drain_domain_put(dom);
		mutex_lock(&dom->mutex);
		list_for_each_entry_safe(src, tmp, &dom->rings, node)
			src->ops->retire(src);
		mutex_unlock(&dom->mutex);
		posixtrace_drain_domain_put(dom);
	}
	/* The frees wait for a grace period, then run on our queue. */
	rcu_barrier();
	destroy_workqueue(posixtrace_drain_wq);
}
