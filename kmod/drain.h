/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_DRAIN_H
#define _POSIXTRACE_DRAIN_H

#include <linux/list.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/types.h>

struct posixtrace_drain_domain;
struct posixtrace_emit;
struct rcu_work;
struct posixtrace_process;
struct posixtrace_source;
struct posixtrace_stream;

/*
 * What a reader's cut left in the sources it cut (posixtrace_drain_cut()):
 * @records, the next they hold, make @bytes of stream records; @dropped:
 * it dropped records; @room: every source it cut has room left for its
 * writers.
 */
struct posixtrace_drain_cut {
	u64 bytes;
	u64 records;
	bool dropped;
	bool room;
};

/*
 * When a drain began, on the clocks its sources' records are stamped on:
 * it takes none made later, which wait for the next drain. It visits the
 * sources one after another while their writers go on: without this, it
 * could take a record written into one source after another source's
 * visit, and not that source's older record, committed after its visit;
 * the next drain would store the older after the newer. So what a drain
 * takes is a cut in time, closed under "made before", across sources as
 * within each.
 */
struct posixtrace_drain_began {
	u64 mono;	/* CLOCK_MONOTONIC: kbufs' records carry it */
	s64 real;	/* CLOCK_REALTIME: rings' threads stamp it */
};

/*
 * What a drain needs of a source of records (drain.c): a thread ring
 * (thread_ring.c) or a stream's buffer for one CPU (kbuf.c). Each source
 * is in time order; a drain merges them. All but @retire are called under
 * the domain's drain lock, with the drain mutex held, and never sleep.
 *
 * @visit:	a drain begins with the source: it sets the lap it takes at
 *		most (what the writers had written then), and forgets any
 *		record peeked before. @began: the drain's clocks, read
 *		before it visited any source: it takes no record made later.
 * @peek:	is there a record to take within the lap? If so, its time is
 *		in the source's @next_ns (and @next_mono). A bad record may
 *		be counted here (into the batch: posixtrace_drain_slot()).
 * @take:	the record peeked, into @emit, for the source's streams;
 *		false if it is for none (an event type its process never
 *		opened). Its data stays where it is until @store. @now: the
 *		drain's CLOCK_REALTIME read for this hold. NULL with
 *		@take_run, which a drain then calls instead.
 * @take_run:	@take of records in a row, the first peeked, into @emits:
 *		up to @max, and none made after @until (the next record of
 *		the heap's other sources: the merge's order holds) but the
 *		first. Returns how many it took (one at least), *@filled
 *		how many emits it filled in. Stops where @peek would find
 *		none, or before a bad record (for @peek to count). NULL:
 *		@take one at a time.
 * @store:	the batch was handed on: writers may reuse what was taken.
 * @lazy:	may the timer leave this source alone for a while (nobody
 *		needs its records soon)? Under the drain mutex only: may
 *		sleep. NULL: never.
 * @bytes:	how many bytes of records it holds now, at most as they are
 *		stored in it (a ring's records are 48 bytes and their data, a
 *		kbuf's 56); a hint, without the drain lock: writers may be at
 *		work.
 * @retire:	a closed source is done with (posixtrace_source_close()):
 *		take it off the lists (posixtrace_drain_unlist()) and free it
 *		after a grace period. Under the drain mutex; may sleep.
 * @loop_stream: the stream that alone keeps the source's records, if it
 *		is a LOOP stream without a log (whose cut may drop them),
 *		referenced; else NULL. Under RCU. NULL: never.
 * @cut:	a reader of @stream is behind it (or a worker drops for it:
 *		posixtrace_drain_drop()), and @srcs, @n of them,
 *		this one first and all of its kind, are the only sources of
 *		its domain with records: drop what the stream would only
 *		overwrite of them, and of what it holds, as LOOP would, mark
 *		each posixtrace_drain_cut_held(), and say in @cut what is
 *		left (posixtrace_drain_cut()). Under the drain mutex, without
 *		the lock; may sleep. NULL: never.
 */
struct posixtrace_source_ops {
	void (*visit)(struct posixtrace_source *src,
		      const struct posixtrace_drain_began *began);
	bool (*peek)(struct posixtrace_source *src);
	bool (*take)(struct posixtrace_source *src, struct posixtrace_emit *emit,
		     s64 now);
	unsigned int (*take_run)(struct posixtrace_source *src,
				 struct posixtrace_emit *emits,
				 unsigned int max, s64 until, s64 now,
				 unsigned int *filled);
	void (*store)(struct posixtrace_source *src);
	bool (*lazy)(struct posixtrace_source *src);
	u64 (*bytes)(struct posixtrace_source *src);
	void (*retire)(struct posixtrace_source *src);
	struct posixtrace_stream *(*loop_stream)(struct posixtrace_source *src);
	bool (*cut)(struct posixtrace_source **srcs, unsigned int n,
		    struct posixtrace_stream *stream,
		    struct posixtrace_drain_cut *cut);
};

/*
 * A source of records, as a drain sees it: embedded in the ring or kbuf.
 * A drain's heap orders sources by @next_ns, then rings before kbufs
 * (@staged), then kbufs by @next_mono.
 */
struct posixtrace_source {
	const struct posixtrace_source_ops *ops;
	struct posixtrace_drain_domain *domain;	/* where it is listed */
	struct list_head node;		/* on its domain's list: RCU */
	/*
	 * Where its records go: every stream tracing @to_proc (a ring's),
	 * or @to_stream (a kbuf's). Fixed.
	 */
	struct posixtrace_process *to_proc;
	struct posixtrace_stream *to_stream;
	/*
	 * A staging buffer (a kbuf): records made by system call, visited
	 * before the rings, and the only sources whose records keep the
	 * timer running on their own (see drain.c).
	 */
	bool staged;
	s64 next_ns;		/* its next record's time, while in the heap */
	u64 next_mono;		/* a kbuf's: its CLOCK_MONOTONIC stamp */
	/*
	 * A reader's cut left records in it, and its turn has not ended:
	 * the only sources its drains visit; on its domain's @cut_list. Under
	 * the drain lock.
	 */
	bool cut;
	struct posixtrace_source *cut_next;
	/* A hold of the drain took records of it: on the touched list. */
	bool touched;
	struct posixtrace_source *touched_next;
	/*
	 * Closed (posixtrace_source_close()): the first drain of its domain
	 * to begin after (@closed_gen) takes what it holds, then retires it.
	 */
	bool closed;
	u64 closed_gen;
	/*
	 * The drain whose visit found it closed before it began, and so
	 * took it whole, to retire it. Under the drain mutex.
	 */
	u64 whole_gen;
};

/*
 * Records a drain of a few sources takes in one hold of its lock (the
 * budget is 512, a source's visit costs 8): a reader that drains straight
 * into its batch takes at most that many a drain, so that a kick, which
 * drops nothing while a drain is between two holds, never waits for it
 * longer than a hold (stream_read.c).
 */
#define POSIXTRACE_DRAIN_HOLD_RECORDS	256

/*
 * Does the calling thread run at a realtime priority (SCHED_FIFO, SCHED_RR,
 * SCHED_DEADLINE, or lent one by priority inheritance)? Such a thread
 * never waits for a drain, nor so for the readers and the log's thread
 * whose turns a drain may wait for: where an event of its would, it is
 * lost, counted, and a worker drains (device.c); its kicks leave to a
 * worker what they cannot do at once (thread_ring.c).
 */
static inline bool posixtrace_current_realtime(void)
{
	return current->prio < MAX_RT_PRIO;
}

int posixtrace_drains_init(void);
void posixtrace_drains_exit(void);

struct posixtrace_drain_domain *
posixtrace_process_domain(struct posixtrace_process *proc);

void posixtrace_drain(struct posixtrace_drain_domain *dom);
u64 posixtrace_drain_upto(struct posixtrace_drain_domain *dom, u64 max);
void posixtrace_drain_current(void);
bool posixtrace_drain_busy(struct posixtrace_drain_domain *dom);
bool posixtrace_drain_cutting(struct posixtrace_drain_domain *dom);
bool posixtrace_drain_cut_wait(struct posixtrace_drain_domain *dom);
void posixtrace_drain_soon(struct posixtrace_drain_domain *dom);
void posixtrace_drain_deferred(struct posixtrace_drain_domain *dom);
void posixtrace_drain_later(struct posixtrace_drain_domain *dom);
bool posixtrace_drain_staged_busy(struct posixtrace_drain_domain *dom);
u64 posixtrace_drain_bytes(struct posixtrace_drain_domain *dom);
bool posixtrace_drain_cut(struct posixtrace_drain_domain *dom,
			  struct posixtrace_stream *stream,
			  struct posixtrace_drain_cut *cut);
bool posixtrace_drain_cut_alone(struct posixtrace_drain_domain *dom,
				struct posixtrace_source **srcs,
				unsigned int n);
void posixtrace_drain_cut_held(struct posixtrace_source *src);
u64 posixtrace_drain_cut_take(struct posixtrace_drain_domain *dom, u64 max);
void posixtrace_drain_cut_done(struct posixtrace_drain_domain *dom);

int posixtrace_drain_list(struct posixtrace_drain_domain *dom,
			  struct posixtrace_source **srcs, unsigned int n);
void posixtrace_drain_unlist(struct posixtrace_drain_domain *dom,
			     struct posixtrace_source **srcs, unsigned int n);
void posixtrace_drain_forget(struct posixtrace_source *src);
void posixtrace_source_close(struct posixtrace_source *src);
void posixtrace_source_free_later(struct rcu_work *work);
struct posixtrace_emit *posixtrace_drain_slot(struct posixtrace_source *src);
bool posixtrace_drain_pause(struct posixtrace_drain_domain *dom);
bool posixtrace_drain_try_pause(struct posixtrace_drain_domain *dom,
				bool wait);
void posixtrace_drain_resume(struct posixtrace_drain_domain *dom);

#endif /* _POSIXTRACE_DRAIN_H */
