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
 * that it reads every record whole; in the thread's, once (half the page
 * tables: the thread writes a record that runs past the end in two
 * pieces).
 *
 * The module trusts nothing the thread wrote. It reads the commit word
 * with acquire, copies the header once and checks the copy, takes the
 * data length from the copy, and of the control page reads only how far
 * the thread says it wrote (@produced), a hint bounded by a lap from the
 * position it has taken up to, which is its own (@consumed), mirrored to
 * the thread. A record that does not check out revokes the ring; one event is
 * counted lost.
 *
 * A ring is a source of the drain (drain.c), which merges the records of
 * every ring and kbuf of its process's drain domain by time and hands
 * them to the streams tracing the process. A drain takes at most one lap
 * of each ring, so a thread that keeps writing cannot keep a drain going.
 *
 * Each ring belongs to its thread's process entry (@proc->rings, RCU) and
 * to its domain's list of sources (RCU). It is closed when the thread
 * exits or execs, or maps a new ring, or its process leaves the table;
 * the next drain of its domain takes what it holds and retires it (takes
 * it off the lists); it is freed after an RCU grace period.
 *
 * A thread grows its live ring by mapping a larger one at
 * POSIXTRACE_RING_GROW_OFFSET (posixtrace_thread_ring_grow()): the ring,
 * the same source, moves to the new pages with what it holds, at the
 * same positions. The library starts each thread at a page and grows it
 * as the thread records, so that a thread that records a handful of
 * events pins a page, not the size the stream suggests; a growth costs a
 * copy of the old ring, not a drain.
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/posixtrace.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "../lib/ring_walk.h"
#include "compat.h"
#include "drain.h"
#include "drain_domain.h"
#include "links.h"
#include "process.h"
#include "ring_mem.h"
#include "stream.h"
#include "thread_ring.h"

/*
 * A reader's cut of a ring (posixtrace_thread_ring_cut()): its walk, what
 * it drops, and the record after that (@next_bytes its stream bytes, 0 if
 * the stream does not record it; -ENOENT: none the walk counted; -EINVAL:
 * it no longer checks out).
 */
struct posixtrace_thread_ring_cut {
	struct posixtrace_ring_walk walk;
	struct posixtrace_ring_drop drop;
	struct posixtrace_ring_record next;
	long next_bytes;
	s64 next_ns;		/* where a merge puts @next */
};

struct posixtrace_thread_ring {
	struct posixtrace_source src;	/* on its domain's list of rings */
	struct list_head proc_node;	/* in @proc->rings: RCU */
	struct rcu_work free_work;
	struct posixtrace_process *proc;	/* reference held */
	struct task_struct *owner;	/* the thread; reference held */
	/* Its numbers, for its records, after it is reaped too; held. */
	struct pid *tgid, *tid;

	/* Under its domain's drain lock. */
	bool dead;			/* retired: never drained again */
	bool revoked;			/* a bad record: never drained again */
	/*
	 * Closed, its thread writes no more (exit, exec, another ring, its
	 * process left the table): @src.closed (posixtrace_source_close()).
	 */
	u64 consumed;			/* the position taken up to */
	s64 last_ns;			/* the timestamp of the last record */
	/*
	 * An event type found opened in a record taken, and the process's
	 * table of names then: valid while the process keeps that table
	 * (a table's names only grow; a process that gives up privileges
	 * moves to a table of its own), not looked up again meanwhile.
	 */
	const struct posixtrace_names *type_names;
	u32 type_valid;
	/* A run stopped before a bad record: the next peek revokes. */
	bool bad_next;
	/*
	 * A drain's view, set when it visits the ring, kept while it lets
	 * go of the lock: its next record (@next, @src.next_ns), how far
	 * the thread said it had committed then, where the drain stops (its
	 * lap), and the time from which on records wait for the next drain.
	 */
	u64 pos, published, lap_end;
	s64 made_before;
	s64 clock_ns;	/* posixtrace_ring_record_later()'s, for the visit */
	/* Where a reader's cut walked to (@src.cut): its drains stop there. */
	u64 cut_end;
	const struct posixtrace_ring_record *next;
	struct posixtrace_ring_record next_hdr;

	/*
	 * Set when made, before it is listed, and when it grows, under its
	 * domain's drain mutex: drains and cuts, which hold the mutex, and
	 * the thread's own kicks see them stay put.
	 * posixtrace_thread_ring_bytes() reads @ctl and @size under RCU
	 * alone: @mem is freed a grace period after the ring lets go of it.
	 */
	struct posixtrace_ring_ctl *ctl;	/* in @mem's view */
	const u8 *data;			/* in @mem's view, @size bytes twice */
	u64 size;
	/* Its pages: a reference held until it is freed, or grows. */
	struct posixtrace_ring_mem *mem;
	/* It uses @mem (counts in the limit) until retired. */
	bool charged;
	/* What the thread's kicks walked (lib/ring_walk.c); made at the first. */
	struct posixtrace_ring_walk *walk;
	/*
	 * What cuts walked (a reader's, a worker's): made by the thread's
	 * first kick under a LOOP stream, or a reader's first cut; used
	 * under the drain mutex.
	 */
	struct posixtrace_thread_ring_cut *cut;
};

/* The domain of @ring: its process's, set before the ring was made. */
static struct posixtrace_drain_domain *
posixtrace_ring_domain(const struct posixtrace_thread_ring *ring)
{
	return ring->proc->domain;
}

static struct posixtrace_thread_ring *
posixtrace_src_ring(struct posixtrace_source *src)
{
	return container_of(src, struct posixtrace_thread_ring, src);
}

/* Revoke the ring over a bad record: one event lost, nothing more taken. */
static void posixtrace_thread_ring_revoke(struct posixtrace_thread_ring *ring)
{
	ring->revoked = true;
	WRITE_ONCE(ring->ctl->state, POSIXTRACE_RING_REVOKED);
	*posixtrace_drain_slot(&ring->src) = (struct posixtrace_emit) {
		.garbage = true,
		.tgid = ring->tgid,
		.tid = ring->tid,
	};
}

/* What posixtrace_thread_ring_next() found. */
enum posixtrace_ring_next_found {
	POSIXTRACE_RING_NEXT_NONE,	/* no record within the lap (yet) */
	POSIXTRACE_RING_NEXT_OK,	/* @next, its header in @next_hdr */
	POSIXTRACE_RING_NEXT_BAD,	/* a bad record: the ring is revoked */
};

/*
 * Find @ring's next committed record within this drain's lap, its header
 * copied and checked. The lap only says where to stop; a record is
 * checked against what the thread may use: up to a ring's size past what
 * was taken (@consumed, which moves only when a hold of the drain lock
 * ends). A drain's lap began before its earlier holds, so a valid record
 * may run past it. A record not committed where the thread had said it
 * had committed one is a bad record: the thread lied, or wrote over its
 * own record.
 */
static enum posixtrace_ring_next_found
posixtrace_thread_ring_next(struct posixtrace_thread_ring *ring)
{
	struct posixtrace_ring_record *h = &ring->next_hdr;
	const struct posixtrace_ring_record *rec;

	posixtrace_source_assert_held(&ring->src);

	if (ring->next)
		return POSIXTRACE_RING_NEXT_OK;
	if (ring->dead || ring->revoked || ring->pos >= ring->lap_end)
		return POSIXTRACE_RING_NEXT_NONE;
	rec = (const void *)(ring->data + (ring->pos & (ring->size - 1)));
	/* Pairs with the thread's store-release of the commit word. */
	if (smp_load_acquire(&rec->commit) != ~ring->pos)
		return ring->pos < ring->published ? POSIXTRACE_RING_NEXT_BAD :
						     POSIXTRACE_RING_NEXT_NONE;
	/* Once: the thread may be rewriting it under our feet. */
	memcpy(h, rec, sizeof(*h));
	if (!posixtrace_ring_record_ok(h, ring->consumed + ring->size -
					  ring->pos))
		return POSIXTRACE_RING_NEXT_BAD;
	if (posixtrace_ring_record_later(h, ring->made_before,
					 &ring->clock_ns)) {
		/* Neither it nor the thread's next is this drain's. */
		ring->lap_end = ring->pos;
		return POSIXTRACE_RING_NEXT_NONE;
	}
	ring->next = rec;
	ring->src.next_ns = posixtrace_ring_record_ns(h);
	return POSIXTRACE_RING_NEXT_OK;
}

/*
 * Is there a record to take within the lap (posixtrace_thread_ring_next())?
 * A bad record revokes the ring: one event lost, nothing more taken. One
 * a run stopped before is not read again: the thread may have changed it.
 */
static bool posixtrace_thread_ring_peek(struct posixtrace_source *src)
{
	struct posixtrace_thread_ring *ring = posixtrace_src_ring(src);
	enum posixtrace_ring_next_found found;

	found = ring->bad_next ? POSIXTRACE_RING_NEXT_BAD :
				 posixtrace_thread_ring_next(ring);
	ring->bad_next = false;
	if (found == POSIXTRACE_RING_NEXT_BAD)
		posixtrace_thread_ring_revoke(ring);
	return found == POSIXTRACE_RING_NEXT_OK;
}

/*
 * The time @ns a record of @ring says it was made, as the module takes
 * it: kept between the ring's last record's and @now, so that a thread can
 * only misdate its own events. Under the drain lock.
 */
static s64 posixtrace_thread_ring_time(const struct posixtrace_thread_ring *ring,
				       s64 ns, s64 now)
{
	posixtrace_source_assert_held(&ring->src);
	return clamp(ns, ring->last_ns, max(now, ring->last_ns));
}

/*
 * Take @ring's next record, peeked: @emit filled in for the streams, at
 * its time as posixtrace_thread_ring_time() keeps it, if @valid (its
 * event type is one the process opened). Its data stays in the ring,
 * which the thread may not reuse before the hold ends.
 */
static void posixtrace_thread_ring_take_next(struct posixtrace_thread_ring *ring,
					     struct posixtrace_emit *emit,
					     s64 now, bool valid)
{
	const struct posixtrace_ring_record *h = &ring->next_hdr;
	s64 ns = posixtrace_thread_ring_time(ring, ring->src.next_ns, now);

	ring->pos += h->size;
	ring->last_ns = ns;
	if (valid)
		*emit = (struct posixtrace_emit) {
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
 * Records in a row, the first peeked, into @emits: up to @max, and those
 * made at @until at the latest (the time of the next record of another
 * source, for the drain's merge; drain.h). Each is found and checked as
 * @peek does, without its call; the run stops before a bad record, which
 * the drain's next peek revokes the ring over.
 */
static unsigned int posixtrace_thread_ring_take_run(struct posixtrace_source *src,
						    struct posixtrace_emit *emits,
						    unsigned int max, s64 until,
						    s64 now,
						    unsigned int *filled)
{
	struct posixtrace_thread_ring *ring = posixtrace_src_ring(src);
	enum posixtrace_ring_next_found found;
	struct posixtrace_names *names;
	unsigned int taken = 0, n = 0;
	bool valid;
	u32 id;

	posixtrace_source_assert_held(src);
	while (taken < max) {
		found = posixtrace_thread_ring_next(ring);
		if (found != POSIXTRACE_RING_NEXT_OK) {
			ring->bad_next = found == POSIXTRACE_RING_NEXT_BAD;
			break;
		}
		if (taken && ring->src.next_ns > until)
			break;
		id = ring->next_hdr.event_id;
		names = posixtrace_process_names(ring->proc);
		valid = ring->type_names == names && id == ring->type_valid;
		if (!valid) {
			/* One it never opened: ignored, as a system call's. */
			valid = posixtrace_names_valid(names, id);
			if (valid) {
				ring->type_names = names;
				ring->type_valid = id;
			}
		}
		posixtrace_thread_ring_take_next(ring, &emits[n], now, valid);
		n += valid;
		taken++;
	}
	*filled = n;
	return taken;
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
	u64 ahead = smp_load_acquire(&ring->ctl->produced) - ring->consumed;

	return ahead <= ring->size ? ring->consumed + ahead : ring->consumed;
}

/*
 * A drain begins with the ring: one lap from what was taken, of records
 * made before the drain began (@began; every one, for a ring the drain
 * retires or a reader's cut holds: posixtrace_drain_visit()).
 */
static void posixtrace_thread_ring_visit(struct posixtrace_source *src,
					 const struct posixtrace_drain_began *began)
{
	struct posixtrace_thread_ring *ring = posixtrace_src_ring(src);

	posixtrace_source_assert_held(src);

	ring->made_before = began->real;
	ring->clock_ns = 0;
	ring->pos = ring->consumed;
	ring->lap_end = ring->consumed + ring->size;
	/* A reader's take of what its cut counted, none made since. */
	if (src->cut)
		ring->lap_end = min(ring->lap_end, ring->cut_end);
	ring->next = NULL;
	ring->published = posixtrace_thread_ring_published(ring);
}

/* The hold handed on what it took: the thread may write over it. */
static void posixtrace_thread_ring_store(struct posixtrace_source *src)
{
	struct posixtrace_thread_ring *ring = posixtrace_src_ring(src);

	posixtrace_source_assert_held(src);

	/* The kicks read it without the lock (see _drop()). */
	WRITE_ONCE(ring->consumed, ring->pos);
	/* The thread may write over what we took, not before. */
	smp_store_release(&ring->ctl->consumed, ring->pos);
}

/*
 * What the ring holds, as far as the thread says (@produced, within a
 * lap): a hint, which a thread that lies about it gets wrong for its own
 * records only.
 */
static u64 posixtrace_thread_ring_bytes(struct posixtrace_source *src)
{
	struct posixtrace_thread_ring *ring = posixtrace_src_ring(src);
	u64 consumed = READ_ONCE(ring->consumed), ahead;
	/* A ring growing meanwhile: a size and a control page of either. */
	const struct posixtrace_ring_ctl *ctl = READ_ONCE(ring->ctl);
	u64 size = READ_ONCE(ring->size);

	if (READ_ONCE(ring->dead) || READ_ONCE(ring->revoked))
		return 0;
	/* Pairs with the thread's store-release, after its commits. */
	ahead = smp_load_acquire(&ctl->produced) - consumed;
	/*
	 * Behind what was taken (records taken before they were published):
	 * nothing. A lap or more ahead: full, as an honest thread's ring is
	 * when its own kick moved @consumed after we read it.
	 */
	if ((s64)ahead < 0)
		return 0;
	return min(ahead, size);
}

/*
 * An eighth of @ring free after position @end: what its walk has seen, or
 * what the thread says it wrote.
 */
static bool
posixtrace_thread_ring_room(const struct posixtrace_thread_ring *ring, u64 end)
{
	u64 size = READ_ONCE(ring->size);

	return READ_ONCE(ring->consumed) + size - end >= size / 8;
}

/* An eighth of @ring free, as far as the thread says it wrote: @held. */
static bool
posixtrace_thread_ring_room_held(const struct posixtrace_thread_ring *ring,
				 u64 held)
{
	return posixtrace_thread_ring_room(ring,
					   READ_ONCE(ring->consumed) + held);
}

/*
 * @stream, the only stream of @ring's process, is a FLUSH stream whose
 * log's thread takes the ring's records from the ring itself
 * (posixtrace_flush_takes()), and the ring has room: no drain is needed.
 * The thread is asked for them if @ask. Without room, a drain stores them
 * in the stream, which fills and stops as FLUSH says while the log falls
 * behind. Under RCU.
 */
static bool posixtrace_thread_ring_to_log(struct posixtrace_thread_ring *ring,
					  struct posixtrace_stream *stream,
					  bool ask)
{
	return posixtrace_thread_ring_room_held(ring,
				posixtrace_thread_ring_bytes(&ring->src)) &&
	       posixtrace_flush_takes(stream, ask);
}

/*
 * Is the ring's process traced by one LOOP stream without a log, that
 * nobody waits for? Its kicks then drop what the stream would overwrite,
 * and nobody needs the rest yet: the timer may leave it be. So too with
 * one FLUSH stream whose log's thread takes the records: its kicks ask.
 */
static bool posixtrace_thread_ring_lazy(struct posixtrace_source *src)
{
	struct posixtrace_thread_ring *ring = posixtrace_src_ring(src);
	struct posixtrace_loop_view view;
	struct posixtrace_stream *stream;
	bool lazy = false;

	/* The stream is freed a grace period after it is unlinked. */
	rcu_read_lock();
	stream = posixtrace_links_only_stream(ring->proc);
	if (stream && posixtrace_stream_loop_view(stream, &view))
		lazy = !view.readers_waiting;
	else if (stream)
		lazy = posixtrace_thread_ring_to_log(ring, stream, false);
	rcu_read_unlock();
	return lazy;
}

/* @task's open ring in @proc, or NULL; under rcu_read_lock(). */
static struct posixtrace_thread_ring *
posixtrace_thread_ring_find(struct posixtrace_process *proc,
			    struct task_struct *task)
{
	struct posixtrace_thread_ring *ring;

	list_for_each_entry_rcu(ring, &proc->rings, proc_node)
		if (ring->owner == task && !READ_ONCE(ring->src.closed))
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
	kfree(ring->cut);
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
static void posixtrace_thread_ring_ctl_retire(struct posixtrace_ring_ctl *ctl)
{
	cmpxchg(&ctl->state, POSIXTRACE_RING_LIVE, POSIXTRACE_RING_RETIRED);
}

static void
posixtrace_thread_ring_mark_retired(struct posixtrace_thread_ring *ring)
{
	posixtrace_thread_ring_ctl_retire(READ_ONCE(ring->ctl));
}

/*
 * @ring's thread writes no more: the next drain of its domain to begin
 * takes what it holds and retires it (posixtrace_source_close()).
 * Whoever still writes to it (a writer that is not its thread: a vfork
 * child, a CLONE_VM child on the same TLS) is told to make its events by
 * system call from now on; what such a writer committed before it saw the
 * word is taken. Never sleeps, and takes no lock.
 */
static void posixtrace_thread_ring_close(struct posixtrace_thread_ring *ring)
{
	posixtrace_thread_ring_mark_retired(ring);
	posixtrace_source_close(&ring->src);
}

/*
 * Take @ring off every list and free it once no drain can see it. The
 * pages the thread mapped stay until it unmaps them. Under its domain's
 * drain mutex: a drain keeps its place in the list across its holds.
 */
static void posixtrace_thread_ring_retire(struct posixtrace_source *src)
{
	struct posixtrace_thread_ring *ring = posixtrace_src_ring(src);
	struct posixtrace_drain_domain *dom = posixtrace_ring_domain(ring);

	lockdep_assert_held(&dom->mutex);
	/* No drain is under way: its mutex is ours. */
	posixtrace_drain_pause(dom);
	if (ring->dead) {
		posixtrace_drain_resume(dom);
		return;
	}
	/*
	 * Closed already, but for module exit and a ring never written:
	 * lookups skip it from now on (a dead ring is never reaped).
	 */
	posixtrace_thread_ring_mark_retired(ring);
	WRITE_ONCE(ring->src.closed, true);
	WRITE_ONCE(ring->dead, true);
	posixtrace_drain_resume(dom);
	/*
	 * No drain takes it again: it no longer weighs on them, nor on the
	 * limit unless still mapped.
	 */
	posixtrace_thread_ring_uncharge(ring);

	spin_lock(&ring->proc->lock);
	list_del_rcu(&ring->proc_node);
	spin_unlock(&ring->proc->lock);
	posixtrace_drain_forget(&ring->src);
	posixtrace_source_free_later(&ring->free_work);
}

/*
 * The time of @drop's first event, OVERFLOW's, as a drain would take it
 * (posixtrace_thread_ring_time()). Under the drain lock.
 */
static s64 posixtrace_thread_ring_drop_ns(struct posixtrace_thread_ring *ring,
					  const struct posixtrace_ring_drop *drop)
{
	return posixtrace_thread_ring_time(ring,
					   timespec64_to_ns(&drop->first),
					   ktime_get_real_ns());
}

/*
 * @ring's records before where @drop ends are dropped: the thread may
 * write over them. @walk, if any, goes on from there; a walk not told
 * rebases on the new @consumed when it next walks. Under the drain lock,
 * @ring's @consumed still the walk's origin.
 */
static void posixtrace_thread_ring_skip(struct posixtrace_thread_ring *ring,
					struct posixtrace_ring_walk *walk,
					const struct posixtrace_ring_drop *drop)
{
	posixtrace_source_assert_held(&ring->src);
	if (walk)
		posixtrace_ring_walk_dropped(walk, drop);
	WRITE_ONCE(ring->consumed, drop->to);
	/* The thread may write over them now; we read them no more. */
	smp_store_release(&ring->ctl->consumed, drop->to);
}

/*
 * Drop what @drop says of @ring (its @walk said so), counted in @stream as
 * overwritten (posixtrace_stream_overwritten()): a kick's drop, after
 * which the stream holds nothing older. Under the drain lock, @ring's
 * @consumed still the walk's origin. Returns false if the stream would
 * not count them: nothing is dropped.
 */
static bool
posixtrace_thread_ring_dropped(struct posixtrace_thread_ring *ring,
			       struct posixtrace_ring_walk *walk,
			       struct posixtrace_stream *stream,
			       struct posixtrace_ring_drop *drop)
{
	drop->first = ns_to_timespec64(posixtrace_thread_ring_drop_ns(ring,
								      drop));
	if (!posixtrace_stream_overwritten(stream, drop->events, &drop->first,
					   0))
		return false;
	posixtrace_thread_ring_skip(ring, walk, drop);
	return true;
}

/*
 * Walk @ring for a reader's cut (lib/ring_walk.c), to its first record not
 * committed or made after @made_before, and find what its own records make
 * the cut drop. Returns false if the ring must be drained: the walk
 * stopped at a record a drain must judge, or kicks kept dropping under it.
 */
static bool posixtrace_thread_ring_cut_walk(struct posixtrace_thread_ring *ring,
					    const struct posixtrace_loop_view *view,
					    s64 made_before)
{
	struct posixtrace_thread_ring_cut *c = ring->cut;
	unsigned int tries;
	u64 consumed;

	/*
	 * Only drains, which wait for the mutex, and kicks move @consumed: a
	 * kick that dropped during the walk makes it walk on from there.
	 */
	for (tries = 0; tries < 3; tries++) {
		consumed = READ_ONCE(ring->consumed);
		if (posixtrace_ring_walk_cut(&c->walk, ring->data, ring->size,
					     consumed, ring->proc, view,
					     made_before, &c->drop))
			return true;
		/* A drop let the thread write past the walk's lap. */
		if (READ_ONCE(ring->consumed) == consumed)
			return false;
	}
	return false;
}

/*
 * Make @ring's cut state, charged to the caller (the ring's thread in its
 * kick, or a reader): kicks make it without the drain mutex, readers
 * under it, and the first to install it wins.
 */
static void posixtrace_thread_ring_cut_alloc(struct posixtrace_thread_ring *ring,
					     gfp_t gfp)
{
	struct posixtrace_thread_ring_cut *c;

	if (READ_ONCE(ring->cut))
		return;
	c = kzalloc(sizeof(*c), gfp);
	if (c && cmpxchg(&ring->cut, NULL, c))
		kfree(c);
}

/*
 * The record @ring's cut would drop next: its header, stream bytes and
 * time in a drain's merge.
 */
static void posixtrace_thread_ring_cut_peek(struct posixtrace_thread_ring *ring,
					    const struct posixtrace_loop_view *view)
{
	struct posixtrace_thread_ring_cut *c = ring->cut;

	c->next_bytes = posixtrace_ring_walk_cut_peek(&c->walk, ring->data,
						      ring->size, ring->proc,
						      view, &c->drop, &c->next);
	if (c->next_bytes >= 0)
		c->next_ns = posixtrace_ring_drop_next_ns(&c->drop, &c->next);
}

static struct posixtrace_thread_ring *
posixtrace_thread_ring_cut_ring(struct posixtrace_source **srcs,
				unsigned int i)
{
	return posixtrace_src_ring(srcs[i]);
}

/*
 * Of @n rings' next records to drop, the oldest's ring, as a drain's
 * merge orders them (posixtrace_ring_drop_next_ns(); a tie, the first
 * listed); NULL if none has one. *@before_ns: the time of the other
 * rings' oldest.
 */
static struct posixtrace_thread_ring *
posixtrace_thread_ring_cut_oldest(struct posixtrace_source **srcs,
				  unsigned int n, s64 *before_ns)
{
	struct posixtrace_thread_ring *ring, *oldest = NULL;
	s64 ns, oldest_ns = S64_MAX;
	unsigned int i;

	*before_ns = S64_MAX;
	for (i = 0; i < n; i++) {
		ring = posixtrace_thread_ring_cut_ring(srcs, i);
		if (ring->cut->next_bytes < 0)
			continue;
		ns = ring->cut->next_ns;
		if (!oldest || ns < oldest_ns) {
			*before_ns = oldest_ns;
			oldest = ring;
			oldest_ns = ns;
		} else if (ns < *before_ns) {
			*before_ns = ns;
		}
	}
	return oldest;
}

/*
 * Each of @n rings has dropped what its own records would overwrite
 * (posixtrace_ring_walk_cut()), but LOOP overwrites in the order a drain
 * merges the rings (posixtrace_ring_drop_next_ns(): none of a ring's
 * records comes before one it dropped): whatever comes before a record
 * dropped goes too, and what the rings keep together may still overflow
 * the stream. Drop more, the oldest record of all the rings first, while
 * one is older than the newest record dropped, or what they keep does
 * not fit beside the room the stream keeps (a step of a ring at once
 * where all of it goes: posixtrace_ring_walk_cut_stride()). Returns the
 * stream bytes they keep, or U64_MAX if the records are not what the
 * walks counted (a hostile hand rewrote them): nothing may be dropped.
 */
static u64 posixtrace_thread_ring_cut_merge(struct posixtrace_source **srcs,
					    unsigned int n,
					    const struct posixtrace_loop_view *view)
{
	struct posixtrace_thread_ring_cut *c;
	struct posixtrace_thread_ring *ring;
	s64 floor_ns = S64_MIN, before_ns;
	unsigned int i, steps = 0;
	u64 kept = 0, bytes;

	for (i = 0; i < n; i++) {
		ring = posixtrace_thread_ring_cut_ring(srcs, i);
		c = ring->cut;
		kept += c->walk.bytes - c->drop.bytes;
		floor_ns = max(floor_ns, c->drop.last_ns);
		posixtrace_thread_ring_cut_peek(ring, view);
		if (c->next_bytes == -EINVAL)
			return U64_MAX;
	}
	for (;;) {
		ring = posixtrace_thread_ring_cut_oldest(srcs, n, &before_ns);
		if (!ring)
			return kept > view->record_max ? U64_MAX : kept;
		if (kept <= view->record_max && ring->cut->next_ns >= floor_ns)
			return kept;
		c = ring->cut;
		bytes = posixtrace_ring_walk_cut_stride(&c->walk, ring->data,
							ring->size, ring->proc,
							view, &c->drop,
							before_ns,
							kept > view->record_max ?
							kept - view->record_max :
							0, floor_ns);
		if (!bytes) {
			if (!posixtrace_ring_walk_cut_skip(&c->walk, &c->drop,
							   &c->next,
							   c->next_bytes))
				return U64_MAX;
			bytes = c->next_bytes;
		}
		floor_ns = max(floor_ns, c->drop.last_ns);
		kept -= bytes;
		posixtrace_thread_ring_cut_peek(ring, view);
		if (c->next_bytes == -EINVAL)
			return U64_MAX;
		/* Every record the walks counted at most, once each. */
		if (!(++steps % 1024))
			cond_resched();
	}
}

/*
 * Under the drain lock, once the walks are done: may the rings be cut
 * (none retired, revoked or closed since)? -EAGAIN if a kick dropped
 * from one since its walk began: walk again.
 */
static int posixtrace_thread_ring_cut_still(struct posixtrace_source **srcs,
					    unsigned int n)
{
	struct posixtrace_thread_ring *ring;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		ring = posixtrace_thread_ring_cut_ring(srcs, i);
		if (ring->dead || ring->revoked || READ_ONCE(ring->src.closed))
			return -EINVAL;
		if (ring->consumed != ring->cut->walk.origin)
			ret = -EAGAIN;
	}
	return ret;
}

/*
 * Drop what the cuts of @n rings say, counted in @stream as one gap, the
 * records the rings keep, @kept stream bytes, overwriting the oldest it
 * holds; each ring is held for the reader's take (a worker's takes
 * nothing), up to where its walk ended. Under the drain lock. Returns
 * false if the stream would not count them: nothing is dropped.
 */
static bool posixtrace_thread_ring_cut_drop(struct posixtrace_source **srcs,
					    unsigned int n,
					    struct posixtrace_stream *stream,
					    u64 kept,
					    struct posixtrace_drain_cut *cut)
{
	struct posixtrace_thread_ring_cut *c;
	struct posixtrace_thread_ring *ring;
	struct timespec64 first;
	s64 ns, first_ns = 0;
	u64 events = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		ring = posixtrace_thread_ring_cut_ring(srcs, i);
		c = ring->cut;
		if (!c->drop.events)
			continue;
		ns = posixtrace_thread_ring_drop_ns(ring, &c->drop);
		if (!events || ns < first_ns)
			first_ns = ns;
		events += c->drop.events;
	}
	first = ns_to_timespec64(first_ns);
	if (!posixtrace_stream_overwritten(stream, events, &first, kept))
		return false;
	cut->bytes = kept;
	cut->records = 0;
	cut->dropped = false;
	cut->room = true;
	for (i = 0; i < n; i++) {
		ring = posixtrace_thread_ring_cut_ring(srcs, i);
		c = ring->cut;
		cut->records += c->walk.records - c->drop.records;
		cut->dropped |= c->drop.records > 0;
		/*
		 * The cut's walk rebases at its next walk, walking again the
		 * step this drop ends within: its newest time would be that
		 * of records dropped (posixtrace_ring_walk_dropped()).
		 */
		posixtrace_thread_ring_skip(ring, NULL, &c->drop);
		/* What the thread wrote: its walk stopped at the cut's time. */
		cut->room &= posixtrace_thread_ring_room_held(ring,
				posixtrace_thread_ring_bytes(&ring->src));
		ring->cut_end = c->walk.walked;
		posixtrace_drain_cut_held(&ring->src);
	}
	return true;
}

/*
 * A reader of @stream is behind it (or a worker drops for it), and @srcs,
 * @n rings, are the only sources of their domain with records
 * (posixtrace_drain_cut()): drop, to the record, what the stream would
 * only overwrite of the rings and of what it holds (lib/ring_walk.c), with
 * walks of the cuts' own: the kicks' are the threads', which walk them
 * without a lock. Each ring first drops what its own records would
 * overwrite; then, oldest first across the rings, what they together
 * would. Under the drain mutex, which keeps other drains, and so other
 * cuts, away; the walks may sleep. If another source got records during
 * the walks, nothing is dropped.
 */
static bool posixtrace_thread_ring_cut(struct posixtrace_source **srcs,
				       unsigned int n,
				       struct posixtrace_stream *stream,
				       struct posixtrace_drain_cut *cut)
{
	struct posixtrace_drain_domain *dom = srcs[0]->domain;
	struct posixtrace_thread_ring *ring;
	struct posixtrace_loop_view view;
	unsigned int i, tries;
	s64 made_before;
	int still;
	bool ok;
	u64 kept;

	lockdep_assert_held(&dom->mutex);
	for (i = 0; i < n; i++) {
		ring = posixtrace_thread_ring_cut_ring(srcs, i);
		/*
		 * A worker's allocation would be charged to no one: its
		 * thread's kick made it, else a worker drains.
		 */
		if (!(current->flags & PF_WQ_WORKER))
			posixtrace_thread_ring_cut_alloc(ring,
							 GFP_KERNEL_ACCOUNT);
		if (!READ_ONCE(ring->cut))
			return false;
	}
	rcu_read_lock();
	ok = posixtrace_stream_loop_view(stream, &view);
	for (i = 0; ok && i < n; i++) {
		ring = posixtrace_thread_ring_cut_ring(srcs, i);
		ok = posixtrace_links_only_stream(ring->proc) == stream;
	}
	rcu_read_unlock();
	if (!ok)
		return false;
	for (tries = 0;; tries++) {
		if (tries == 3)
			return false;
		/*
		 * Across rings, what the walks count is a cut in time, as a
		 * drain's take is: a record one thread commits after its
		 * ring's walk is never older than one another ring's walk
		 * counted (struct posixtrace_drain_began). One ring alone
		 * needs none: nothing else had records when the cut began.
		 */
		made_before = n > 1 ? ktime_get_real_ns() : S64_MAX;
		for (i = 0; i < n; i++) {
			ring = posixtrace_thread_ring_cut_ring(srcs, i);
			if (!posixtrace_thread_ring_cut_walk(ring, &view,
							     made_before))
				return false;
		}
		kept = posixtrace_thread_ring_cut_merge(srcs, n, &view);
		if (!posixtrace_drain_pause(dom) ||
		    !posixtrace_drain_cut_alone(dom, srcs, n)) {
			posixtrace_drain_resume(dom);
			return false;
		}
		/* A kick's drop may also be why the merge read other records. */
		still = posixtrace_thread_ring_cut_still(srcs, n);
		if (!still && kept != U64_MAX)
			break;
		posixtrace_drain_resume(dom);
		if (still != -EAGAIN)
			return false;
	}
	ok = posixtrace_thread_ring_cut_drop(srcs, n, stream, kept, cut);
	posixtrace_drain_resume(dom);
	return ok;
}

/*
 * The stream that alone keeps @src's records, referenced, if it is a
 * LOOP stream without a log (posixtrace_drain_drop()). Under RCU.
 */
static struct posixtrace_stream *
posixtrace_thread_ring_loop_stream(struct posixtrace_source *src)
{
	struct posixtrace_thread_ring *ring = posixtrace_src_ring(src);
	struct posixtrace_stream *stream;

	stream = posixtrace_links_only_stream(ring->proc);
	if (!stream || !posixtrace_stream_loop_capacity(stream) ||
	    !posixtrace_stream_tryget(stream))
		return NULL;
	return stream;
}

static const struct posixtrace_source_ops posixtrace_thread_ring_ops = {
	.visit = posixtrace_thread_ring_visit,
	.peek = posixtrace_thread_ring_peek,
	.take_run = posixtrace_thread_ring_take_run,
	.store = posixtrace_thread_ring_store,
	.lazy = posixtrace_thread_ring_lazy,
	.bytes = posixtrace_thread_ring_bytes,
	.retire = posixtrace_thread_ring_retire,
	.loop_stream = posixtrace_thread_ring_loop_stream,
	.cut = posixtrace_thread_ring_cut,
};

/*
 * Drop from @ring what its process's only stream, a LOOP stream, would
 * only overwrite (lib/ring_walk.c), counted as overwritten. Returns true if
 * no drain is needed: an eighth of the ring is free (twice what the
 * thread writes before it kicks again when its ring is that full), and
 * either a reader waits for the records (it is woken, and takes them
 * from the ring), or this kick dropped, or the ring will hold the
 * stream's share, so that later kicks will drop. Otherwise a worker
 * soon drops across the rings, or drains (posixtrace_drain_drop(); a
 * drain also revokes the ring over a bad record the walk stopped at).
 * @wait: set if the thread should rather wait for a reader's turn to
 * end, and kick again.
 *
 * Nothing is dropped while a drain of the domain is under way: it keeps
 * the ring's next record across its holds of the lock, and its caller may
 * change the stream's state once it is done (a stop, a filter): records a
 * drop counts on to overwrite the dropped ones would then never be
 * stored. The kick then queues a drain, which is always safe.
 */
static bool posixtrace_thread_ring_drop(struct posixtrace_thread_ring *ring,
					bool *wait)
{
	struct posixtrace_drain_domain *dom = posixtrace_ring_domain(ring);
	struct posixtrace_ring_walk *walk = ring->walk;
	struct posixtrace_stream *stream;
	struct posixtrace_loop_view view;
	struct posixtrace_ring_drop drop;
	bool found, will, dropped = false, room;
	u64 held;

	stream = posixtrace_links_only_stream(ring->proc);
	if (!stream)
		return false;
	if (!posixtrace_stream_loop_view(stream, &view))
		return posixtrace_thread_ring_to_log(ring, stream, true);
	/*
	 * A reader waits, the ring has room, and what it holds could not
	 * fill the stream even as stream records: no mark can be dropped to
	 * (lib/ring_walk.c), and the reader, woken, takes the records. The walk
	 * waits for a kick that may drop: records a reader takes first are
	 * never walked, a cost per record otherwise. Without room, the kick
	 * goes on below (it may wait for a reader's cut).
	 */
	held = posixtrace_thread_ring_bytes(&ring->src);
	if (view.readers_waiting &&
	    posixtrace_thread_ring_room_held(ring, held) &&
	    posixtrace_stream_bytes_bound(held) < view.capacity) {
		posixtrace_stream_sources_ready(stream);
		return true;
	}
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
	/* For cuts: a worker's own would be charged to no one. */
	posixtrace_thread_ring_cut_alloc(ring, GFP_NOWAIT | __GFP_ACCOUNT |
					       __GFP_NOWARN);
	/*
	 * The walk needs no lock: the ring's thread, the only one to kick it
	 * and the only honest writer, is in this call, and a drain meanwhile
	 * only moves @consumed, which the drop below checks for.
	 */
	found = posixtrace_ring_walk_drop(walk, ring->data, ring->size,
					  READ_ONCE(ring->consumed), ring->proc,
					  &view, &drop);
	will = posixtrace_ring_walk_will_drop(walk, ring->size, &view);
	/*
	 * A drain takes records now (a reader's turn, say): nothing may be
	 * dropped under it, and waiting for its lock would hold the thread up
	 * a hold at a time, the reader's turn after turn. The thread goes on
	 * while its ring has room (the drain makes more); the next kick
	 * looks again. A reader waiting is woken below all the same: the
	 * drain may be another stream's reader's, which stops at its batch.
	 */
	if (posixtrace_drain_busy(dom)) {
		if (READ_ONCE(ring->dead) || READ_ONCE(ring->revoked))
			return false;
		room = posixtrace_thread_ring_room(ring, walk->walked);
		/*
		 * No worker while it takes records and the ring has room. A
		 * reader's cut holds the ring's oldest records where they are
		 * for its turn: without room, the thread waits for the turn
		 * to end and kicks again, rather than have a worker copy into
		 * the stream all the reader's cut spared.
		 */
		*wait = !room && posixtrace_drain_cutting(dom);
		will = true;
		goto done;
	}
	if (!posixtrace_drain_try_pause(dom, !posixtrace_current_realtime()))
		return false;
	if (ring->dead || ring->revoked) {
		posixtrace_drain_resume(dom);
		return false;
	}
	if (found && ring->consumed == walk->origin)
		dropped = posixtrace_thread_ring_dropped(ring, walk, stream,
							 &drop);
	room = posixtrace_thread_ring_room(ring, walk->walked);
	posixtrace_drain_resume(dom);
	will |= dropped;
done:
	/*
	 * A reader waiting gets what the ring holds now, not at the timer:
	 * it takes the records from the ring itself (stream_read.c).
	 */
	if (view.readers_waiting) {
		if (room)
			posixtrace_stream_sources_ready(stream);
		return room;
	}
	return room && will;
}

/**
 * posixtrace_thread_ring_kick - the calling thread's ring is filling
 *
 * What the only stream of its process, a LOOP stream, would overwrite is
 * dropped now, in the thread's own call. Otherwise, or if that leaves the
 * ring short of room, a worker soon drops across the process's rings what
 * the stream would overwrite, or drains them, so that the thread goes on
 * at once (on another CPU, the worker makes room while the thread writes
 * more); but a thread whose ring a reader's cut holds first waits for the
 * reader's turn, a tick at most, and kicks once more. Sleeps, except in a
 * thread at a realtime priority: it never waits for the reader, nor for
 * the drain lock (posixtrace_current_realtime()).
 */
void posixtrace_thread_ring_kick(void)
{
	struct posixtrace_drain_domain *dom;
	struct posixtrace_thread_ring *ring;
	struct posixtrace_process *proc;
	bool room, wait, waited = false;

again:
	dom = NULL;
	room = false;
	wait = false;
	rcu_read_lock();
	proc = posixtrace_process_lookup(task_tgid(current));
	ring = proc ? posixtrace_thread_ring_find(proc, current) : NULL;
	if (ring)
		room = posixtrace_thread_ring_drop(ring, &wait);
	if (proc)
		dom = READ_ONCE(proc->domain);
	if (!room && dom && wait && !waited && !posixtrace_current_realtime()) {
		posixtrace_drain_domain_get(dom);
		rcu_read_unlock();
		waited = true;
		if (posixtrace_drain_cut_wait(dom)) {
			posixtrace_drain_domain_put(dom);
			goto again;
		}
		/* Still held: a worker drains, as without a cut. */
		posixtrace_drain_soon(dom);
		posixtrace_drain_domain_put(dom);
		return;
	}
	if (!room && dom)
		posixtrace_drain_soon(dom);
	rcu_read_unlock();
}

/**
 * posixtrace_thread_ring_open - does the calling thread write a ring?
 * @proc: its process's entry
 *
 * If it does, what the ring holds came before the thread's event by
 * system call, which must wait for a drain to take it first; if not (no
 * ring open, or a revoked one, which is taken nothing more from), the
 * event may go to a kbuf (kbuf.c). Under RCU; never sleeps.
 */
bool posixtrace_thread_ring_open(struct posixtrace_process *proc)
{
	struct posixtrace_thread_ring *ring;

	ring = posixtrace_thread_ring_find(proc, current);
	return ring && !READ_ONCE(ring->revoked);
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
		posixtrace_drain_soon(posixtrace_ring_domain(ring));
	}
	rcu_read_unlock();
}

/**
 * posixtrace_thread_rings_close - @proc left the process table
 * @proc: its entry
 *
 * Its threads have all exited, or it exec'd a privileged image: its rings
 * hold all they ever will. The caller's next posixtrace_drain() of its
 * domain takes what they hold and retires them; until then @proc
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
 * The control page of @mem, a ring of @size data bytes, set up for the
 * thread (@grown_from: the data size of the ring it grew from, or 0).
 */
static struct posixtrace_ring_ctl *
posixtrace_thread_ring_ctl_init(struct posixtrace_ring_mem *mem, u64 size,
				u64 grown_from)
{
	struct posixtrace_ring_ctl *ctl = posixtrace_ring_mem_vaddr(mem);

	ctl->magic = POSIXTRACE_RING_MAGIC;
	ctl->state = POSIXTRACE_RING_LIVE;
	ctl->data_size = size;
	ctl->data_offset = PAGE_SIZE;
	ctl->grown_from = grown_from;
	return ctl;
}

/*
 * Grow @ring, the calling thread's, into @mem, of @size data bytes, more
 * than its own (the caller checked); the ring takes over the caller's reference and use of
 * @mem. Whoever else writes the old pages (a CLONE_VM writer on the same
 * TLS) finds them retired first, and goes by system call, which waits for
 * the mutex. Then the old data area's lap from @consumed (all a drain
 * could take: a record the thread committed but had not yet published
 * too) moves to the same positions in the new one, @consumed and
 * @produced carry over, and the thread, told by @grown_from, writes on
 * at its position. The old pages leave the limit unless still mapped.
 *
 * Under the domain's drain mutex: no drain keeps a view of the ring
 * across it (its @next points into the data), and no cut walks it. The
 * ring's kicks are its thread's, which is in this mmap(). Only
 * posixtrace_thread_ring_bytes() reads it concurrently, under RCU.
 *
 * Returns false if the ring is no longer live (revoked, or closed): @mem
 * stays the caller's.
 */
static bool posixtrace_thread_ring_grow(struct posixtrace_thread_ring *ring,
					struct posixtrace_ring_mem *mem,
					u64 size)
{
	struct posixtrace_ring_ctl *old_ctl = ring->ctl, *ctl;
	struct posixtrace_ring_mem *old_mem = ring->mem;
	u64 old_size = ring->size, done, chunk;
	u8 *data;

	lockdep_assert_held(&posixtrace_ring_domain(ring)->mutex);
	if (ring->dead || ring->revoked || READ_ONCE(ring->src.closed))
		return false;
	posixtrace_thread_ring_ctl_retire(old_ctl);
	ctl = posixtrace_thread_ring_ctl_init(mem, size, old_size);
	data = (u8 *)ctl + PAGE_SIZE;
	/*
	 * Both views hold their data twice in a row: each piece is one
	 * copy. A lap may be max_ring_size / 2: the CPU is let go between.
	 */
	for (done = 0; done < old_size; done += chunk) {
		chunk = min_t(u64, old_size - done, SZ_64K);
		memcpy(data + ((ring->consumed + done) & (size - 1)),
		       ring->data + ((ring->consumed + done) & (old_size - 1)),
		       chunk);
		cond_resched();
	}
	ctl->consumed = ring->consumed;
	ctl->produced = READ_ONCE(old_ctl->produced);
	ring->mem = mem;
	WRITE_ONCE(ring->data, data);
	WRITE_ONCE(ring->size, size);
	/* After what it points to: _bytes() reads it without the mutex. */
	smp_store_release(&ring->ctl, ctl);
	/*
	 * The walks' marks are a step of the old size apart, and count
	 * what they walked there: they walk afresh.
	 */
	if (ring->walk)
		ring->walk->nr_marks = 0;
	if (ring->cut)
		ring->cut->walk.nr_marks = 0;
	/* The ring's use moves to @mem: the caller's. */
	posixtrace_ring_mem_uncharge(old_mem);
	posixtrace_ring_mem_put(old_mem);
	return true;
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
	ring->ctl = posixtrace_thread_ring_ctl_init(mem, size, 0);
	ring->data = (const u8 *)ring->ctl + PAGE_SIZE;
	ring->size = size;
	ring->src.ops = &posixtrace_thread_ring_ops;
	ring->src.to_proc = proc;
	INIT_RCU_WORK(&ring->free_work, posixtrace_thread_ring_free);
	posixtrace_process_hold(proc);
	ring->proc = proc;
	ring->owner = get_task_struct(current);
	ring->tgid = get_task_pid(current, PIDTYPE_TGID);
	ring->tid = get_task_pid(current, PIDTYPE_PID);
	return ring;
}

/*
 * The data size a mapping @vma asks for, if it may be a ring's: a page
 * and a power of two of a page to max_ring_size, shared, not executable.
 * Return: the size, or -EINVAL, -EPERM, -ENODEV (see
 * posixtrace_thread_ring_mmap()).
 */
static s64 posixtrace_thread_ring_vma_size(const struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned int max = posixtrace_ring_size_max();
	u64 size;

	if (!max)
		return -ENODEV;
	size = len > PAGE_SIZE ? len - PAGE_SIZE : 0;
	if (!(vma->vm_flags & VM_SHARED) || size < PAGE_SIZE ||
	    !is_power_of_2(size) || size > max)
		return -EINVAL;
	/* Written by user space, read by the kernel: never executed. */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	return size;
}

/*
 * Grow the calling thread's live ring in @proc, of domain @dom, into
 * @vma, @size data bytes (posixtrace_thread_ring_grow()). The ring is
 * found again under the mutex, which a drain holds to retire a ring: the
 * same ring (only this thread makes its rings), it stays until the
 * mutex goes. Return: as posixtrace_thread_ring_mmap()'s.
 */
static int posixtrace_thread_ring_mmap_grow(struct vm_area_struct *vma,
					    struct posixtrace_process *proc,
					    struct posixtrace_drain_domain *dom,
					    u64 size)
{
	struct posixtrace_thread_ring *ring, *found;
	struct posixtrace_ring_mem *mem;
	unsigned int replaces = 0;
	u64 old_size = 0;
	bool grown;
	int ret;

	rcu_read_lock();
	ring = posixtrace_thread_ring_find(proc, current);
	if (ring && !READ_ONCE(ring->revoked)) {
		old_size = ring->size;
		replaces = posixtrace_ring_mem_user_pages(ring->mem,
							  current_user());
	}
	rcu_read_unlock();
	if (!old_size)
		return -ENOENT;
	if (size <= old_size)
		return -EINVAL;
	mem = posixtrace_ring_mem_new(size, replaces);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	ret = posixtrace_ring_mem_map(mem, vma);
	if (ret)
		goto out_put_mem;
	/* A fatal signal: the mm core unmaps what went in. */
	ret = mutex_lock_killable(&dom->mutex);
	if (ret)
		goto out_unmap;
	rcu_read_lock();
	found = posixtrace_thread_ring_find(proc, current);
	rcu_read_unlock();
	grown = found == ring && posixtrace_thread_ring_grow(ring, mem, size);
	mutex_unlock(&dom->mutex);
	if (grown)
		return 0;
	/* Revoked meanwhile: a drain found a bad record. */
	ret = -ENOENT;
out_unmap:
	posixtrace_ring_mem_unmap(mem, vma);
out_put_mem:
	posixtrace_ring_mem_uncharge(mem);
	posixtrace_ring_mem_put(mem);
	return ret;
}

/**
 * posixtrace_thread_ring_mmap - map a ring for the calling thread
 * @vma: a shared mapping of a page plus the data size, at
 *	 POSIXTRACE_RING_OFFSET (a new ring) or POSIXTRACE_RING_GROW_OFFSET
 *	 (the thread's ring, grown). The module's own mapping has the data
 *	 twice in a row: it reads a record whole wherever the thread's
 *	 mapping cut it.
 * @grow: at POSIXTRACE_RING_GROW_OFFSET
 *
 * A new ring replaces the thread's previous one, if any, which is drained
 * and retired.
 *
 * Return: 0, -EINVAL (a size or mapping that is not a ring's, or one no
 * larger than the ring to grow), -EPERM (executable), -ENODEV (rings are
 * off: max_ring_size is 0), -ENOENT (no live ring to grow), -ENOMEM (no
 * memory, or past the user's RLIMIT_MEMLOCK, or past half of it for a ring
 * over 64 KiB), or an error of vm_insert_pages().
 */
int posixtrace_thread_ring_mmap(struct vm_area_struct *vma, bool grow)
{
	struct posixtrace_source *src;
	struct posixtrace_thread_ring *ring, *old;
	struct posixtrace_drain_domain *dom;
	struct posixtrace_ring_mem *mem;
	struct posixtrace_process *proc;
	s64 size;
	int ret;

	size = posixtrace_thread_ring_vma_size(vma);
	if (size < 0)
		return size;
	proc = posixtrace_process_get(task_tgid(current), true);
	if (IS_ERR(proc))
		return PTR_ERR(proc);
	/* Its rings are drained with the streams tracing it: one domain. */
	dom = posixtrace_process_domain(proc);
	if (!dom) {
		ret = -ENOMEM;
		goto out_put_proc;
	}
	if (grow) {
		ret = posixtrace_thread_ring_mmap_grow(vma, proc, dom, size);
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
	if (old || posixtrace_drain_staged_busy(dom))
		posixtrace_drain(dom);
	mem = posixtrace_ring_mem_new(size, 0);
	if (IS_ERR(mem) && !old && size <= POSIXTRACE_RING_SIZE_DEFAULT) {
		/*
		 * Rings closed by exits and execs count until a drain
		 * retires them (unless still mapped): retire them now, and
		 * try again, before a thread near its limit goes by system
		 * call for good. (Those of its own process's domain:
		 * another's are retired by their own drains.) Not for a
		 * larger ring, which the library maps at once only when
		 * POSIXTRACE_RING_SIZE says so: its own rings start at a
		 * page, and every thread that maps one gets this retry.
		 */
		posixtrace_drain(dom);
		mem = posixtrace_ring_mem_new(size, 0);
	}
	if (IS_ERR(mem)) {
		ret = PTR_ERR(mem);
		goto out_put_proc;
	}
	/*
	 * Mapped before the ring is listed: the mapping's use of the pages
	 * is counted before anything can retire the ring and drop its own.
	 */
	ret = posixtrace_ring_mem_map(mem, vma);
	if (ret)
		goto out_put_mem;
	ring = posixtrace_thread_ring_new(proc, mem, size);
	if (!ring) {
		ret = -ENOMEM;
		goto out_unmap;
	}
	src = &ring->src;
	ret = posixtrace_drain_list(dom, &src, 1);
	if (ret) {
		/* Never listed: no drain can see it. */
		posixtrace_source_free_later(&ring->free_work);
		posixtrace_ring_mem_unmap(mem, vma);
		goto out_put_proc;
	}
	spin_lock(&proc->lock);
	list_add_rcu(&ring->proc_node, &proc->rings);
	spin_unlock(&proc->lock);
	posixtrace_drain_later(dom);
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
