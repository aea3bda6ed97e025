/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * A kick's walk of a thread ring (ring_walk.c): what of its records the
 * only stream of its process, a LOOP one, would overwrite. Written once:
 * the module compiles it (kmod/walk.c), and the benchmark's fake
 * kernel (bench/producer_host.c), so that what the benchmark times is the
 * module's walk. Freestanding C, as lib/ is.
 *
 * Whoever compiles it provides posixtrace_process_event_valid(): may the
 * process @proc (opaque here) record events of type @id? It is called for
 * every record walked, so that a name opened meanwhile counts at once.
 */
#ifndef _POSIXTRACE_RING_WALK_H
#define _POSIXTRACE_RING_WALK_H

#include <linux/posixtrace.h>

#include "freestanding.h"
#include "ring_record.h"

struct posixtrace_process;

bool posixtrace_process_event_valid(struct posixtrace_process *proc, u32 id);

/*
 * What a thread ring's kick needs of a LOOP stream to drop the records it
 * would overwrite (posixtrace_stream_loop_view() in the module). @filter
 * is the stream's own, read by the walk without any lock (test_bit() of
 * whole words): a filter changed meanwhile judges only records made
 * during that change, which either judgement fits.
 */
struct posixtrace_loop_view {
	u64 id;				/* the stream's: never reused */
	u32 changes;			/* its state changes so far */
	size_t capacity;		/* bytes of stream records it holds */
	size_t max_data;		/* data kept per record */
	size_t record_max;		/* the largest user record it stores */
	const unsigned long *filter;	/* event types not recorded */
	bool readers_waiting;		/* someone waits for its records */
};

/* The time a record says it was made, as a drain's merge orders it. */
static inline s64
posixtrace_ring_record_ns(const struct posixtrace_ring_record *h)
{
	return h->ts_sec * POSIXTRACE_RING_NSEC_PER_SEC + h->ts_nsec;
}

/*
 * Was @h made after @before, when a drain or a cut began, so that it waits
 * for the next? (A tie is no order: a coarse clock stamps a thread's
 * record and the drain it asks for alike.) A time ahead of the clock is
 * no thread's honest stamp (a lie, or the clock set back since): such a
 * record waits for nothing, or a thread could hold its records back for
 * as long as it liked. The clock is read into *@clock (0: not yet) once,
 * at the first record after @before: a thread's lies cost it no more.
 */
static inline bool
posixtrace_ring_record_later(const struct posixtrace_ring_record *h,
			     s64 before, s64 *clock)
{
	s64 ns = posixtrace_ring_record_ns(h);

	if (ns <= before)
		return false;
	if (!*clock)
		*clock = ktime_get_real_ns();
	return ns <= *clock;
}

/*
 * A point of a kick's walk: a record, @off bytes past the walk's origin,
 * and what the stream would hold of the records walked before it.
 */
struct posixtrace_ring_mark {
	u32 off;
	u32 bytes;		/* stream bytes of the records it records */
	u32 events;		/* ... and how many */
	u32 records;		/* the ring's records, recorded or not */
	/*
	 * The newest time of the records of the step it ends, since the
	 * mark before (the last, unless the clock was set back); S64_MIN if
	 * none. A step's own, so that a walk that rebases forgets the
	 * times of records taken (posixtrace_ring_walk_mark_ns()).
	 */
	s64 step_ns;
};

#define POSIXTRACE_RING_MARKS	34

/*
 * What the kicks of one ring have walked since the module last took its
 * records (ring_walk.c); only the ring's thread's kicks touch it. A
 * reader's cut has a walk of its own, which only drains of the ring's
 * domain touch. Offsets and counts are from @origin and fit 32 bits: a
 * walk covers at most a lap of at most 64 MiB.
 */
struct posixtrace_ring_walk {
	u64 stream_id;		/* the stream whose view it took */
	u64 origin;		/* where the module had taken records up to */
	u64 walked;		/* the next record to walk */
	u64 next_mark;		/* where the next mark goes, at the latest */
	u32 bytes, events;	/* as a mark's, for everything walked */
	u32 records;
	s64 step_ns;		/* as a mark's, for those since the last */
	u32 changes;		/* the stream's state changes it had seen */
	unsigned int nr_marks;
	struct posixtrace_ring_mark marks[POSIXTRACE_RING_MARKS];
};

/*
 * What a kick or a reader's cut may drop: [origin, @to), @records records,
 * @events of them the stream's, of @bytes stream bytes.
 */
struct posixtrace_ring_drop {
	u64 to;
	u32 bytes, events, records;
	struct timespec64 first;	/* the first of those events */
	s64 last_ns;		/* the newest time of the records, or S64_MIN */
};

/*
 * The time at which a drain's merge puts @h, a ring's next record after
 * what a cut drops of it (@drop). A merge takes each ring's next record,
 * the oldest first, so a record stamped earlier than one before it in its
 * ring (CLOCK_REALTIME set back between the two, or a hostile thread)
 * comes out right after that one: at the newest time of its ring's
 * records up to it (the module stores it no older either:
 * posixtrace_thread_ring_time()). Every record's time counts, the
 * stream's or not: the merge takes them all, though it stores only the
 * stream's.
 */
static inline s64
posixtrace_ring_drop_next_ns(const struct posixtrace_ring_drop *drop,
			     const struct posixtrace_ring_record *h)
{
	s64 ns = posixtrace_ring_record_ns(h);

	return max(ns, drop->last_ns);
}

bool posixtrace_ring_walk_drop(struct posixtrace_ring_walk *walk,
			       const u8 *data, u64 size, u64 consumed,
			       struct posixtrace_process *proc,
			       const struct posixtrace_loop_view *view,
			       struct posixtrace_ring_drop *drop);
bool posixtrace_ring_walk_cut(struct posixtrace_ring_walk *walk,
			      const u8 *data, u64 size, u64 consumed,
			      struct posixtrace_process *proc,
			      const struct posixtrace_loop_view *view,
			      s64 made_before, struct posixtrace_ring_drop *drop);
long posixtrace_ring_walk_cut_peek(const struct posixtrace_ring_walk *walk,
				   const u8 *data, u64 size,
				   struct posixtrace_process *proc,
				   const struct posixtrace_loop_view *view,
				   const struct posixtrace_ring_drop *drop,
				   struct posixtrace_ring_record *h);
u64 posixtrace_ring_walk_cut_stride(const struct posixtrace_ring_walk *walk,
				    const u8 *data, u64 size,
				    struct posixtrace_process *proc,
				    const struct posixtrace_loop_view *view,
				    struct posixtrace_ring_drop *drop,
				    s64 before_ns, u64 over, s64 floor_ns);
bool posixtrace_ring_walk_cut_skip(const struct posixtrace_ring_walk *walk,
				   struct posixtrace_ring_drop *drop,
				   const struct posixtrace_ring_record *h,
				   size_t bytes);
void posixtrace_ring_walk_dropped(struct posixtrace_ring_walk *walk,
				  const struct posixtrace_ring_drop *drop);
bool posixtrace_ring_walk_will_drop(const struct posixtrace_ring_walk *walk,
				    u64 size,
				    const struct posixtrace_loop_view *view);

#endif /* _POSIXTRACE_RING_WALK_H */
