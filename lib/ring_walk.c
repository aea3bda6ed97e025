// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
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
 *
 * Compiled into the module (kmod/walk.c includes this file) and into
 * the benchmark's fake kernel (bench/producer_host.c).
 */

#include "ring_walk.h"

/*
 * Records a kick walks at most: what its thread can have written since
 * its last kick, a quarter ring of the smallest records (21,845 in a
 * 4 MiB ring), so that a walk keeps up with its thread; 16,384 at least,
 * and 65,536 at most (a 12 MiB ring's quarter, a millisecond or so
 * natively without a point to reschedule at: in a larger ring, which only
 * an administrator's max_ring_size allows, a thread of small records
 * outruns its kicks' walks, and its records are drained). With rings up to
 * 64 MiB, a walk begun anew could otherwise take a whole lap (1.4 million
 * records) in one call, under rcu_read_lock(). The next kick goes on from
 * there; until the walk has caught up, nothing is dropped past it, and the
 * kick asks for a drain.
 */
static unsigned int posixtrace_ring_walk_budget(u64 size)
{
	return clamp_t(u64, size / 4 / sizeof(struct posixtrace_ring_record),
		       16384, 65536);
}

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
	walk->records = 0;
	walk->step_ns = S64_MIN;
	walk->marks[0] = (struct posixtrace_ring_mark) { .step_ns = S64_MIN };
	walk->nr_marks = 1;
}

/* Why a walk stopped: posixtrace_ring_walk_on(). */
enum posixtrace_ring_walk_end {
	POSIXTRACE_WALK_BUDGET,		/* walked its budget: more to walk */
	POSIXTRACE_WALK_UNCOMMITTED,	/* at the first record not committed */
	POSIXTRACE_WALK_STOPPED,	/* at a bad record, or one too large */
};

/*
 * The header of the record at @pos, read once field by field: 0 if it is
 * not committed, -EINVAL if it does not check out, 1 if it does.
 */
static int posixtrace_ring_walk_header(const u8 *data, u64 size, u64 pos,
				       u64 room,
				       struct posixtrace_ring_record *h)
{
	const struct posixtrace_ring_record *rec =
		(const void *)(data + (pos & (size - 1)));

	/* Pairs with the thread's store-release of the commit word. */
	if (smp_load_acquire(&rec->commit) != ~pos)
		return 0;
	h->size = READ_ONCE(rec->size);
	h->event_id = READ_ONCE(rec->event_id);
	h->data_len = READ_ONCE(rec->data_len);
	h->ts_sec = READ_ONCE(rec->ts_sec);
	h->ts_nsec = READ_ONCE(rec->ts_nsec);
	return posixtrace_ring_record_ok(h, room) ? 1 : -EINVAL;
}

/* Is the record at @pos committed, and does it check out? */
static bool posixtrace_ring_walk_read(const u8 *data, u64 size, u64 pos,
				      u64 room,
				      struct posixtrace_ring_record *h)
{
	return posixtrace_ring_walk_header(data, size, pos, room, h) > 0;
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
 * @budget (not with a whole budget: a step, a 32nd of the ring, is less),
 * or the records from @consumed
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
	struct posixtrace_ring_mark base, seen = { .step_ns = S64_MIN };
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
			seen.bytes += rec;
			seen.events++;
		}
		seen.records++;
		seen.step_ns = max(seen.step_ns, posixtrace_ring_record_ns(&h));
		pos += h.size;
	}
	if (k < walk->nr_marks)
		base = walk->marks[k];
	else
		base = (struct posixtrace_ring_mark) {
			.bytes = walk->bytes, .events = walk->events,
			.records = walk->records,
		};
	/* Rewritten meanwhile, if they count more than they did. */
	if (pos != end || seen.bytes > base.bytes ||
	    seen.events > base.events || seen.records > base.records)
		return false;
	/* What the walk counted from its origin up to @consumed. */
	base.bytes -= seen.bytes;
	base.events -= seen.events;
	base.records -= seen.records;
	walk->marks[0] = (struct posixtrace_ring_mark) { .step_ns = S64_MIN };
	n = 1;
	for (i = k; i < walk->nr_marks; i++) {
		if (walk->marks[i].off == off)
			continue;	/* the new origin, marks[0] */
		walk->marks[n].off = walk->marks[i].off - off;
		walk->marks[n].bytes = walk->marks[i].bytes - base.bytes;
		walk->marks[n].events = walk->marks[i].events - base.events;
		walk->marks[n].records = walk->marks[i].records -
					 base.records;
		/* The first step kept now begins at @consumed: walked again. */
		walk->marks[n].step_ns = i == k ? seen.step_ns :
						  walk->marks[i].step_ns;
		n++;
	}
	if (k == walk->nr_marks)
		walk->step_ns = seen.step_ns;
	walk->nr_marks = n;
	walk->origin = consumed;
	walk->bytes -= base.bytes;
	walk->events -= base.events;
	walk->records -= base.records;
	/* No mark kept: the next one a step past the origin, not before. */
	walk->next_mark = max(walk->next_mark,
			      consumed + posixtrace_ring_mark_step(size));
	return true;
}

/*
 * Walk the records committed since the walk last went (all of them if
 * another stream came in between; if a reader or a drain took records
 * meanwhile, those from where they stopped to the next mark too),
 * posixtrace_ring_walk_budget() at most, leaving a mark every step, and
 * none made after @made_before (posixtrace_ring_record_later()), as
 * if not yet committed. Returns why it stopped; it went as far as the
 * thread had committed only if at a record not committed.
 */
static enum posixtrace_ring_walk_end
posixtrace_ring_walk_on(struct posixtrace_ring_walk *walk, const u8 *data,
			u64 size, u64 consumed,
			struct posixtrace_process *proc,
			const struct posixtrace_loop_view *view, s64 made_before)
{
	unsigned int budget = posixtrace_ring_walk_budget(size);
	struct posixtrace_ring_record h;
	s64 clock = 0;
	int ok;

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
	for (;; budget--) {
		size_t bytes;

		if (!budget)
			return POSIXTRACE_WALK_BUDGET;
		ok = posixtrace_ring_walk_header(data, size, walk->walked,
						 consumed + size -
						 walk->walked, &h);
		if (!ok || (ok > 0 &&
			    posixtrace_ring_record_later(&h, made_before,
							 &clock)))
			return POSIXTRACE_WALK_UNCOMMITTED;
		if (ok < 0)
			return POSIXTRACE_WALK_STOPPED;
		bytes = posixtrace_ring_walk_bytes(proc, view, &h);
		/*
		 * One the stream cannot hold even empty is lost alone and
		 * overwrites nothing: its bytes fill nothing, and it is
		 * counted lost, not recorded. A drain takes it.
		 */
		if (bytes > view->record_max)
			return POSIXTRACE_WALK_STOPPED;
		if (walk->walked >= walk->next_mark &&
		    walk->nr_marks < POSIXTRACE_RING_MARKS) {
			walk->marks[walk->nr_marks++] =
				(struct posixtrace_ring_mark) {
				.off = walk->walked - walk->origin,
				.bytes = walk->bytes,
				.events = walk->events,
				.records = walk->records,
				.step_ns = walk->step_ns,
			};
			walk->step_ns = S64_MIN;
			walk->next_mark = walk->walked +
					  posixtrace_ring_mark_step(size);
		}
		if (bytes) {
			walk->bytes += bytes;
			walk->events++;
		}
		walk->step_ns = max(walk->step_ns,
				    posixtrace_ring_record_ns(&h));
		walk->records++;
		walk->walked += h.size;
	}
}

/*
 * The time of the first event the stream records in [@from, @to): where a
 * cut's gap begins, if nothing it drops before was the stream's.
 */
static void posixtrace_ring_walk_first_in(const struct posixtrace_ring_walk *walk,
					  const u8 *data, u64 size,
					  struct posixtrace_process *proc,
					  const struct posixtrace_loop_view *view,
					  u64 from, u64 to,
					  struct timespec64 *first)
{
	struct posixtrace_ring_record h;

	while (from < to &&
	       posixtrace_ring_walk_read(data, size, from, walk->walked - from,
					 &h)) {
		if (posixtrace_ring_walk_records(proc, view, &h)) {
			*first = (struct timespec64) { h.ts_sec, h.ts_nsec };
			return;
		}
		from += h.size;
	}
}

/* @drop's first event's time, OVERFLOW's: the oldest the stream records. */
static void posixtrace_ring_walk_first(const struct posixtrace_ring_walk *walk,
				       const u8 *data, u64 size,
				       struct posixtrace_process *proc,
				       const struct posixtrace_loop_view *view,
				       struct posixtrace_ring_drop *drop)
{
	drop->first = (struct timespec64) { };
	if (drop->events)
		posixtrace_ring_walk_first_in(walk, data, size, proc, view,
					      walk->origin, drop->to,
					      &drop->first);
}

/* One more record, made at @ns, among what @drop drops: the newest time. */
static void posixtrace_ring_drop_newest(struct posixtrace_ring_drop *drop,
					s64 ns)
{
	drop->last_ns = max(drop->last_ns, ns);
}

/*
 * The newest time of the records a walk counted before its mark @i, one
 * of its marks; S64_MIN if none.
 */
static s64 posixtrace_ring_walk_mark_ns(const struct posixtrace_ring_walk *walk,
					unsigned int i)
{
	s64 ns = S64_MIN;
	unsigned int j;

	for (j = 1; j <= i; j++)
		ns = max(ns, walk->marks[j].step_ns);
	return ns;
}

/* The newest mark after which more than @over bytes follow; 0: none. */
static unsigned int
posixtrace_ring_walk_mark_over(const struct posixtrace_ring_walk *walk,
			       size_t over)
{
	unsigned int i;

	for (i = walk->nr_marks; i-- > 1;)
		if (walk->bytes - walk->marks[i].bytes > over)
			break;
	return i;
}

/* Drop up to the mark @i: what the walk counted before it. */
static void posixtrace_ring_walk_drop_to(const struct posixtrace_ring_walk *walk,
					 unsigned int i,
					 struct posixtrace_ring_drop *drop)
{
	drop->to = walk->origin + walk->marks[i].off;
	drop->bytes = walk->marks[i].bytes;
	drop->events = walk->marks[i].events;
	drop->records = walk->marks[i].records;
	drop->last_ns = posixtrace_ring_walk_mark_ns(walk, i);
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
 * Walks on (posixtrace_ring_walk_on()), then looks for the newest mark
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
	unsigned int i;

	/* Whatever stopped it, what it walked is what the drop counts on. */
	posixtrace_ring_walk_on(walk, data, size, consumed, proc, view,
				S64_MAX);
	/* What follows fills the stream: a capacity at least. */
	i = posixtrace_ring_walk_mark_over(walk, view->capacity - 1);
	if (!i)
		return false;
	posixtrace_ring_walk_drop_to(walk, i, drop);
	posixtrace_ring_walk_first(walk, data, size, proc, view, drop);
	return true;
}

/*
 * The walk's counts up to its mark @i, or for all it walked if @i is past
 * the last: what a cut between the mark before and it may count at most.
 */
static struct posixtrace_ring_mark
posixtrace_ring_walk_upto(const struct posixtrace_ring_walk *walk,
			  unsigned int i)
{
	if (i < walk->nr_marks)
		return walk->marks[i];
	return (struct posixtrace_ring_mark) {
		.off = walk->walked - walk->origin, .bytes = walk->bytes,
		.events = walk->events, .records = walk->records,
		.step_ns = walk->step_ns,
	};
}

/**
 * posixtrace_ring_walk_cut - what a reader behind its stream may drop
 * @walk: the reader's walk of the ring, not the kicks'
 * @data: the ring's data area in the module's mapping (twice in a row)
 * @size: its size
 * @consumed: where the module has taken the ring's records up to
 * @proc: the ring's process
 * @view: its only stream, a LOOP stream (posixtrace_stream_loop_view())
 * @made_before: when the cut began, if it cuts other rings too (S64_MAX
 *		 if not): records made since are left out, as a drain's are
 *		 (struct posixtrace_drain_began)
 * @drop: filled in with what may be dropped, maybe nothing
 *
 * Walks on (posixtrace_ring_walk_on()) to the first record not committed
 * or made after @made_before, a budget at a time, then finds, record by
 * record from the newest mark before it, the oldest record from which on
 * what the stream records of the ring fits in it beside the room it keeps
 * (@view->record_max): LOOP would overwrite everything before it, in the
 * stream too, and nothing after it. Unlike a kick's, to the record, and
 * only from a walk of all the ring holds: the reader then takes what is
 * left straight from the ring (stream_read.c), and a record the walk had
 * not counted could have overwritten it. May sleep.
 *
 * Return: false if nothing may be dropped: the walk stopped at a record
 * that does not check out or that the stream could not hold even empty
 * (a drain must take it), or the records are not what the walk counted (a
 * hostile hand rewrote them).
 */
bool posixtrace_ring_walk_cut(struct posixtrace_ring_walk *walk,
			      const u8 *data, u64 size, u64 consumed,
			      struct posixtrace_process *proc,
			      const struct posixtrace_loop_view *view,
			      s64 made_before, struct posixtrace_ring_drop *drop)
{
	enum posixtrace_ring_walk_end end;
	struct posixtrace_ring_mark next;
	struct posixtrace_ring_record h;
	unsigned int i;
	size_t rec;
	u64 pos;

	/* At most a lap: the walk never reads past @consumed + @size. */
	while ((end = posixtrace_ring_walk_on(walk, data, size, consumed, proc,
					      view, made_before)) ==
	       POSIXTRACE_WALK_BUDGET)
		cond_resched();
	if (end != POSIXTRACE_WALK_UNCOMMITTED)
		return false;
	/* At worst mark 0, the origin, which counts nothing. */
	i = posixtrace_ring_walk_mark_over(walk, view->record_max);
	posixtrace_ring_walk_drop_to(walk, i, drop);
	/* What follows the next mark fits: the cut is before it. */
	next = posixtrace_ring_walk_upto(walk, i + 1);
	pos = drop->to;
	while (walk->bytes - drop->bytes > view->record_max) {
		if (pos >= walk->origin + next.off ||
		    !posixtrace_ring_walk_read(data, size, pos,
					       walk->origin + next.off - pos,
					       &h))
			return false;
		rec = posixtrace_ring_walk_bytes(proc, view, &h);
		if (rec) {
			drop->bytes += rec;
			drop->events++;
		}
		posixtrace_ring_drop_newest(drop, posixtrace_ring_record_ns(&h));
		drop->records++;
		pos += h.size;
	}
	/* Rewritten since the walk, if they count more than it did. */
	if (drop->bytes > next.bytes || drop->events > next.events ||
	    drop->records > next.records)
		return false;
	drop->to = pos;
	posixtrace_ring_walk_first(walk, data, size, proc, view, drop);
	return true;
}

/* The first mark past @pos; @walk->nr_marks if none. */
static unsigned int
posixtrace_ring_walk_mark_after(const struct posixtrace_ring_walk *walk,
				u64 pos)
{
	unsigned int k = 1;

	while (k < walk->nr_marks && walk->origin + walk->marks[k].off <= pos)
		k++;
	return k;
}

/**
 * posixtrace_ring_walk_cut_peek - the record a cut of several rings would
 *	drop next from this one
 * @walk: the reader's walk of the ring, after posixtrace_ring_walk_cut()
 * @data: the ring's data area in the module's mapping (twice in a row)
 * @size: its size
 * @proc: the ring's process
 * @view: the view the walk took
 * @drop: what the cut drops so far, @drop->to the record looked at
 * @h: filled in with its header
 *
 * A reader behind several rings drops, after what each ring's own records
 * make it drop (posixtrace_ring_walk_cut()), the oldest of all of them, a
 * record (or a step: posixtrace_ring_walk_cut_stride()) at a time, while
 * one is older than a record dropped or what they keep does not fit
 * (thread_ring.c).
 *
 * Return: the stream bytes of the record, 0 if the stream would not
 * record it; -ENOENT if the walk counted no record there (the cut drops
 * all it walked); -EINVAL if the record no longer checks out (a hostile
 * hand rewrote it).
 */
long posixtrace_ring_walk_cut_peek(const struct posixtrace_ring_walk *walk,
				   const u8 *data, u64 size,
				   struct posixtrace_process *proc,
				   const struct posixtrace_loop_view *view,
				   const struct posixtrace_ring_drop *drop,
				   struct posixtrace_ring_record *h)
{
	size_t rec;

	if (drop->to >= walk->walked)
		return -ENOENT;
	if (!posixtrace_ring_walk_read(data, size, drop->to,
				       walk->walked - drop->to, h))
		return -EINVAL;
	rec = posixtrace_ring_walk_bytes(proc, view, h);
	/* The walk stopped before such a one: it is not what it walked. */
	if (rec > view->record_max)
		return -EINVAL;
	return rec;
}

/**
 * posixtrace_ring_walk_cut_stride - drop up to the ring's next mark at once
 * @walk: the reader's walk of the ring, after posixtrace_ring_walk_cut()
 * @data: the ring's data area in the module's mapping (twice in a row)
 * @size: its size
 * @proc: the ring's process
 * @view: the view the walk took
 * @drop: what the cut drops so far
 * @before_ns: the time of the other rings' oldest next record
 * @over: the stream bytes the rings keep beyond what fits, 0 if it fits
 * @floor_ns: the time of the newest record the cut drops so far
 *
 * The record-by-record merge (thread_ring.c) would drop every record of
 * this ring up to its next mark if the merge puts them all
 * (posixtrace_ring_drop_next_ns(): at the newest time of the records up
 * to each) before @floor_ns (whatever comes before a record dropped goes
 * too), or before @before_ns (each of them then comes before any other
 * ring's next record) and they make less than @over (what is kept after
 * them still does not fit). A step is a 32nd of the ring: where one
 * ring's records run ahead of the others', a cut goes a mark at a time
 * rather than a record; where the rings' records interleave finely, it
 * still goes record by record (a cut time found from the marks first
 * would not).
 *
 * Return: the stream bytes dropped; 0 if it dropped nothing. A step
 * without an event of the stream is never dropped here (0 could not say
 * so): the merge goes through it record by record.
 */
u64 posixtrace_ring_walk_cut_stride(const struct posixtrace_ring_walk *walk,
				    const u8 *data, u64 size,
				    struct posixtrace_process *proc,
				    const struct posixtrace_loop_view *view,
				    struct posixtrace_ring_drop *drop,
				    s64 before_ns, u64 over, s64 floor_ns)
{
	unsigned int k = posixtrace_ring_walk_mark_after(walk, drop->to);
	const struct posixtrace_ring_mark *m;
	u64 pos, bytes;
	s64 ns;

	if (k >= walk->nr_marks)
		return 0;
	m = &walk->marks[k];
	pos = walk->origin + m->off;
	/* The mark counts at least what the cut dropped before it. */
	if (m->bytes <= drop->bytes || m->events < drop->events ||
	    m->records < drop->records)
		return 0;
	bytes = m->bytes - drop->bytes;
	/* Where the merge puts the records before the mark, at the latest. */
	ns = posixtrace_ring_walk_mark_ns(walk, k);
	if (ns >= floor_ns && (bytes >= over || ns >= before_ns))
		return 0;
	if (!drop->events)
		posixtrace_ring_walk_first_in(walk, data, size, proc, view,
					      drop->to, pos, &drop->first);
	posixtrace_ring_drop_newest(drop, ns);
	drop->to = pos;
	drop->bytes = m->bytes;
	drop->events = m->events;
	drop->records = m->records;
	return bytes;
}

/**
 * posixtrace_ring_walk_cut_skip - drop the record peeked too
 * @walk: the reader's walk of the ring
 * @drop: what the cut drops so far
 * @h: the record's header, from posixtrace_ring_walk_cut_peek()
 * @bytes: its stream bytes, from there
 *
 * Return: false if the cut now counts more than the walk did up to its
 * next mark: the records were rewritten since it walked them, and nothing
 * may be dropped.
 */
bool posixtrace_ring_walk_cut_skip(const struct posixtrace_ring_walk *walk,
				   struct posixtrace_ring_drop *drop,
				   const struct posixtrace_ring_record *h,
				   size_t bytes)
{
	struct posixtrace_ring_mark next;

	next = posixtrace_ring_walk_upto(walk,
					 posixtrace_ring_walk_mark_after(walk,
									 drop->to));
	if (bytes) {
		/* OVERFLOW's time: the oldest the stream records. */
		if (!drop->events)
			drop->first = (struct timespec64) { h->ts_sec,
							    h->ts_nsec };
		drop->bytes += bytes;
		drop->events++;
	}
	posixtrace_ring_drop_newest(drop, posixtrace_ring_record_ns(h));
	drop->records++;
	drop->to += h->size;
	return drop->to <= walk->origin + next.off &&
	       drop->bytes <= next.bytes && drop->events <= next.events &&
	       drop->records <= next.records;
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
 * ring smaller than that never drops: a drain takes its records.
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
 * @drop: from posixtrace_ring_walk_drop() or posixtrace_ring_walk_cut(),
 *	  dropped under the drain lock
 *
 * Where @drop ends becomes the origin, the module's new @consumed; the
 * marks past it stay, counted from there. A step the drop ends within
 * keeps, as its newest time, that of the records it dropped too: a kick's
 * walk, which weighs no times, is told so; a reader's cut's is not, and
 * rebases instead (posixtrace_ring_walk_rebase() walks that step again).
 */
void posixtrace_ring_walk_dropped(struct posixtrace_ring_walk *walk,
				  const struct posixtrace_ring_drop *drop)
{
	u32 off = drop->to - walk->origin;
	unsigned int i, n = 1;

	for (i = 1; i < walk->nr_marks; i++) {
		if (walk->marks[i].off <= off)
			continue;
		/* Counted more than the marks after it (rewritten): anew. */
		if (walk->marks[i].bytes < drop->bytes ||
		    walk->marks[i].events < drop->events ||
		    walk->marks[i].records < drop->records) {
			walk->nr_marks = 0;
			return;
		}
		walk->marks[n].off = walk->marks[i].off - off;
		walk->marks[n].bytes = walk->marks[i].bytes - drop->bytes;
		walk->marks[n].events = walk->marks[i].events - drop->events;
		walk->marks[n].records = walk->marks[i].records -
					 drop->records;
		walk->marks[n].step_ns = walk->marks[i].step_ns;
		n++;
	}
	walk->marks[0] = (struct posixtrace_ring_mark) { .step_ns = S64_MIN };
	walk->nr_marks = n;
	walk->origin = drop->to;
	walk->bytes -= drop->bytes;
	walk->events -= drop->events;
	walk->records -= drop->records;
}
