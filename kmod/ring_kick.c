// SPDX-License-Identifier: GPL-2.0
/*
 * What a thread's kick may drop from its ring without a drain: records its
 * process's only stream, a LOOP one, would store only to overwrite them.
 *
 * A LOOP stream keeps the newest of what it records, at most its ring's
 * size in stream records. If the records a thread made after some record r
 * already fill that, r and everything older, in that ring or any other,
 * can never be read: whoever drains next stores those newer records after
 * them. The kick finds the newest such r among marks it leaves every
 * 32nd of the ring as it walks the records once (the walk resumes
 * where the last kick left it), and the caller drops what lies before it:
 * counted as the stream would have counted it, recorded and lost, in the
 * thread's own system call and on its own CPU, with no record copied.
 * That is what lets two threads record at twice the rate of one (the
 * design page, "Kicks that drop").
 *
 * The walk takes no lock: only the ring's thread kicks it, from its own
 * system call, so no one writes the ring meanwhile but a hostile hand,
 * and a drain or a reader meanwhile only moves the module's @consumed,
 * which the caller compares with the walk's origin, under the drain lock,
 * before it drops. A @consumed moved forward since the last kick, but
 * no further than the walk went, rebases the walk rather than restarting
 * it: what lies past it was walked already.
 *
 * Nothing read here is trusted. Each record is read where the drains read
 * it, field by field: its commit word with acquire, then its size, type,
 * data length and time, checked as a drain checks them. The walk stops at
 * the first record that is not committed or does not check out: the next
 * drain takes or revokes from there. A ring written by another hand
 * meanwhile (a vfork child on its parent's ring) can only misplace its
 * own events: the walk never reads outside the lap.
 */

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "process.h"
#include "ring.h"
#include "ring_kick.h"
#include "stream.h"

/*
 * Records a kick walks at most: with rings up to 64 MiB, a walk begun anew
 * could otherwise take a whole lap (1.4 million records) in one call, under
 * rcu_read_lock(). The next kick goes on from there; until the walk has
 * caught up, nothing is dropped past it, and the kick asks for a drain.
 */
#define POSIXTRACE_RING_WALK_BUDGET	16384

/*
 * A mark every 32nd of the ring: a drop keeps at most that much more than
 * the stream needs. A lap holds 32 of them, and the origin.
 */
static u64 posixtrace_ring_mark_step(u64 size)
{
	return size / 32;
}

static void posixtrace_ring_walk_begin(struct posixtrace_ring_walk *walk,
				       u64 consumed, u64 size,
				       const struct posixtrace_loop_view *view)
{
	walk->stream_id = view->id;
	walk->changes = view->changes;
	walk->origin = consumed;
	walk->walked = consumed;
	walk->next_mark = consumed + posixtrace_ring_mark_step(size);
	walk->bytes = 0;
	walk->events = 0;
	walk->marks[0] = (struct posixtrace_ring_mark) { };
	walk->nr_marks = 1;
}

/* The header of the record at @pos, read once field by field. */
static bool posixtrace_ring_walk_read(const u8 *data, u64 size, u64 pos,
				      u64 room,
				      struct posixtrace_ring_record *h)
{
	const struct posixtrace_ring_record *rec =
		(const void *)(data + (pos & (size - 1)));

	/* Pairs with the thread's store-release of the commit word. */
	if (smp_load_acquire(&rec->commit) != ~pos)
		return false;
	h->size = READ_ONCE(rec->size);
	h->event_id = READ_ONCE(rec->event_id);
	h->data_len = READ_ONCE(rec->data_len);
	h->ts_sec = READ_ONCE(rec->ts_sec);
	h->ts_nsec = READ_ONCE(rec->ts_nsec);
	return posixtrace_ring_record_ok(h, room);
}

/* Does the stream of @view record the event @h, as a drain would judge? */
static bool posixtrace_ring_walk_records(struct posixtrace_process *proc,
					 const struct posixtrace_loop_view *view,
					 const struct posixtrace_ring_record *h)
{
	return posixtrace_process_event_valid(proc, h->event_id) &&
	       !test_bit(h->event_id, view->filter);
}

/*
 * The bytes the stream of @view would store for @h; 0 if it would not
 * record it. More than @view->record_max: one it cannot hold even empty,
 * which is lost alone and overwrites nothing (a drain takes it).
 */
static size_t posixtrace_ring_walk_bytes(struct posixtrace_process *proc,
					 const struct posixtrace_loop_view *view,
					 const struct posixtrace_ring_record *h)
{
	if (!posixtrace_ring_walk_records(proc, view, h))
		return 0;
	return POSIXTRACE_RECORD_SIZE(min_t(size_t, h->data_len,
					    view->max_data));
}

/*
 * A reader or a drain took records since the last kick: @consumed moved
 * past the walk's origin, but no further than it walked. The records from
 * @consumed on are those the walk counted, so it goes on from there: the
 * marks at or past @consumed are kept, rebased on it, and only the
 * records between @consumed and the first of them are walked again (a
 * mark's step at most, out of @budget). A reader that keeps a ring's
 * records moving would otherwise make every kick walk the whole lap
 * again. Returns false if the walk must begin anew: @consumed is not
 * within what was walked, the records up to that mark could be more than
 * @budget (a step of a ring over 24 MiB), or the records from @consumed
 * do not lead to that mark or count more than they did (a hostile hand
 * rewrote them).
 */
static bool posixtrace_ring_walk_rebase(struct posixtrace_ring_walk *walk,
					const u8 *data, u64 size, u64 consumed,
					struct posixtrace_process *proc,
					const struct posixtrace_loop_view *view,
					unsigned int *budget)
{
	u64 off = consumed - walk->origin, pos = consumed, end;
	struct posixtrace_ring_record h;
	u32 bytes = 0, events = 0, base_bytes, base_events;
	unsigned int i, k, n;
	size_t rec;

	if (consumed < walk->origin || consumed > walk->walked)
		return false;
	for (k = 0; k < walk->nr_marks && walk->marks[k].off < off; k++)
		;
	end = k < walk->nr_marks ? walk->origin + walk->marks[k].off :
				   walk->walked;
	/* Beginning anew walks as much: better with the whole budget. */
	if (end - consumed > (u64)*budget *
			     sizeof(struct posixtrace_ring_record))
		return false;
	/* Each record at least a header: the budget lasts the loop. */
	while (pos < end) {
		if (!posixtrace_ring_walk_read(data, size, pos,
					       consumed + size - pos, &h))
			return false;
		(*budget)--;
		rec = posixtrace_ring_walk_bytes(proc, view, &h);
		/* The walk stops before such a one: not walked. */
		if (rec > view->record_max)
			return false;
		if (rec) {
			bytes += rec;
			events++;
		}
		pos += h.size;
	}
	base_bytes = k < walk->nr_marks ? walk->marks[k].bytes : walk->bytes;
	base_events = k < walk->nr_marks ? walk->marks[k].events :
					   walk->events;
	/* Rewritten meanwhile, if they count more than they did. */
	if (pos != end || bytes > base_bytes || events > base_events)
		return false;
	/* What the walk counted from its origin up to @consumed. */
	base_bytes -= bytes;
	base_events -= events;
	walk->marks[0] = (struct posixtrace_ring_mark) { };
	n = 1;
	for (i = k; i < walk->nr_marks; i++) {
		if (walk->marks[i].off == off)
			continue;	/* the new origin, marks[0] */
		walk->marks[n].off = walk->marks[i].off - off;
		walk->marks[n].bytes = walk->marks[i].bytes - base_bytes;
		walk->marks[n].events = walk->marks[i].events - base_events;
		n++;
	}
	walk->nr_marks = n;
	walk->origin = consumed;
	walk->bytes -= base_bytes;
	walk->events -= base_events;
	/* No mark kept: the next one a step past the origin, not before. */
	walk->next_mark = max(walk->next_mark,
			      consumed + posixtrace_ring_mark_step(size));
	return true;
}

/**
 * posixtrace_ring_walk_drop - how much of a ring a kick may drop
 * @walk: the ring's walk
 * @data: the ring's data area in the module's mapping (twice in a row)
 * @size: its size
 * @consumed: where the module has taken the ring's records up to
 * @proc: the ring's process
 * @view: its only stream, a LOOP stream (posixtrace_stream_loop_view())
 * @drop: filled in with what may be dropped
 *
 * Walks the records committed since the last kick (all of them if another
 * stream came in between; if a reader or a drain took records meanwhile,
 * those from where they stopped to the next mark too),
 * POSIXTRACE_RING_WALK_BUDGET at most, then looks for the newest mark
 * after which what the stream records fills it.
 *
 * Return: true if @drop says something may be dropped.
 */
bool posixtrace_ring_walk_drop(struct posixtrace_ring_walk *walk,
			       const u8 *data, u64 size, u64 consumed,
			       struct posixtrace_process *proc,
			       const struct posixtrace_loop_view *view,
			       struct posixtrace_ring_drop *drop)
{
	unsigned int budget = POSIXTRACE_RING_WALK_BUDGET;
	struct posixtrace_ring_record h;
	unsigned int i;
	u64 first = 0;

	/*
	 * A state change since (a filter, say) judges the records walked
	 * otherwise: counted again, under the state they will be drained in.
	 */
	if (!walk->nr_marks || walk->stream_id != view->id ||
	    walk->changes != view->changes ||
	    (walk->origin != consumed &&
	     !posixtrace_ring_walk_rebase(walk, data, size, consumed, proc,
					  view, &budget)))
		posixtrace_ring_walk_begin(walk, consumed, size, view);
	while (budget-- &&
	       posixtrace_ring_walk_read(data, size, walk->walked,
					 consumed + size - walk->walked, &h)) {
		size_t bytes = posixtrace_ring_walk_bytes(proc, view, &h);

		/*
		 * One the stream cannot hold even empty is lost alone and
		 * overwrites nothing: its bytes fill nothing, and it is
		 * counted lost, not recorded. A drain takes it.
		 */
		if (bytes > view->record_max)
			break;
		if (walk->walked >= walk->next_mark &&
		    walk->nr_marks < POSIXTRACE_RING_MARKS) {
			walk->marks[walk->nr_marks++] =
				(struct posixtrace_ring_mark) {
				.off = walk->walked - walk->origin,
				.bytes = walk->bytes,
				.events = walk->events,
			};
			walk->next_mark = walk->walked +
					  posixtrace_ring_mark_step(size);
		}
		if (bytes) {
			walk->bytes += bytes;
			walk->events++;
		}
		walk->walked += h.size;
	}
	for (i = walk->nr_marks; i-- > 1;)
		if (walk->bytes - walk->marks[i].bytes >= view->capacity)
			break;
	if (!i)
		return false;
	drop->to = walk->origin + walk->marks[i].off;
	drop->events = walk->marks[i].events;
	drop->first = (struct timespec64) { };
	/* The time of the first event dropped: OVERFLOW's. */
	while (drop->events && first < drop->to - walk->origin &&
	       posixtrace_ring_walk_read(data, size, walk->origin + first,
					 size - first, &h)) {
		if (posixtrace_ring_walk_records(proc, view, &h)) {
			drop->first = (struct timespec64) { h.ts_sec,
							    h.ts_nsec };
			break;
		}
		first += h.size;
	}
	return true;
}

/**
 * posixtrace_ring_walk_will_drop - will this ring hold the stream's share?
 * @walk: the ring's walk, after a kick's walk
 * @size: the ring's size
 * @view: the stream's view the walk took
 *
 * If the records walked so far, as many again as fill the ring but for an
 * eighth (the room a kick leaves) and a mark, hold more than the stream
 * keeps, later kicks will drop: nothing need be drained meanwhile. A
 * ring smaller than that never drops, and must be drained as before.
 */
bool posixtrace_ring_walk_will_drop(const struct posixtrace_ring_walk *walk,
				    u64 size,
				    const struct posixtrace_loop_view *view)
{
	u64 walked = walk->walked - walk->origin;
	u64 usable = size - size / 8 - posixtrace_ring_mark_step(size);

	/* Too little walked to tell: an eighth at least. */
	if (walked < size / 8)
		return false;
	return div64_u64((u64)walk->bytes * usable, walked) > view->capacity;
}

/**
 * posixtrace_ring_walk_dropped - the caller dropped what @drop said
 * @walk: the ring's walk
 * @drop: from posixtrace_ring_walk_drop(), dropped under the drain lock
 *
 * The mark @drop ends at becomes the origin, the module's new @consumed.
 */
void posixtrace_ring_walk_dropped(struct posixtrace_ring_walk *walk,
				  const struct posixtrace_ring_drop *drop)
{
	u32 off = drop->to - walk->origin;
	unsigned int i, n = 0;
	u32 bytes = 0, events = 0;

	for (i = 0; i < walk->nr_marks; i++) {
		if (walk->marks[i].off < off)
			continue;
		if (!n) {
			bytes = walk->marks[i].bytes;
			events = walk->marks[i].events;
		}
		walk->marks[n].off = walk->marks[i].off - off;
		walk->marks[n].bytes = walk->marks[i].bytes - bytes;
		walk->marks[n].events = walk->marks[i].events - events;
		n++;
	}
	walk->nr_marks = n;
	walk->origin = drop->to;
	walk->bytes -= bytes;
	walk->events -= events;
}
