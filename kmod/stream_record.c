// SPDX-License-Identifier: GPL-2.0
/*
 * Recording events into a stream, and taking them out.
 *
 * Recording. An emitter (posixtrace_stream_emit()) builds the record header
 * outside the lock, then stores header and data into the buffer under the
 * stream's spinlock. Every event generated while the stream accepts events
 * takes the next sequence number, stored or lost, so that loss shows as a
 * gap as well as in the counters.
 *
 * Full policies. The buffer holds stream_size bytes of records plus room for
 * one STOP: every other record leaves that much free, so that the STOP an
 * UNTIL_FULL stream records when it fills can always be recorded:
 *
 *  - POSIX_TRACE_LOOP: the oldest records are overwritten, each counted
 *    lost, and the overrun status is set. The stream stays running and is
 *    full until a reader frees space. Readers report the gap as
 *    POSIX_TRACE_OVERFLOW (stamped with the first overwritten event's time)
 *    and POSIX_TRACE_RESUME (stamped with the next event's time) just before
 *    the first event after it; they are built by the reader and take no
 *    room in the buffer.
 *  - POSIX_TRACE_UNTIL_FULL: an event that does not fit stops the stream:
 *    it is lost, the stream becomes suspended and full, and a
 *    POSIX_TRACE_STOP with "auto" data 1 is recorded in the kept room.
 *    Events generated while it is stopped so are lost (overrun). Once
 *    readers have emptied it, the stream restarts by itself and records
 *    POSIX_TRACE_START, unless posix_trace_stop() was called meanwhile.
 *
 * Filters (TEF). Event types in a stream's filter are neither recorded nor
 * counted: the check is made under the stream's lock, where the filter is
 * also changed, so a change is atomic for every producer. System events
 * are filtered like the others. START carries the filter in force, FILTER
 * the old and the new one.
 *
 * Taking records out (for readers, stream_read.c, and the flush to the
 * log): LOOP gaps are reported where records leave the buffer.
 */

#include <linux/ktime.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "../lib/ring_walk.h"
#include "compat.h"
#include "drain.h"
#include "kbuf.h"
#include "links.h"
#include "stream_core.h"

/*
 * The room a record of type @id must leave free in the buffer: the STOP an
 * UNTIL_FULL (or FLUSH) stream records when it fills always fits, and
 * with a log so do the markers of the flushes around it: the FLUSH_STOP
 * of one under way (which took only what came before its FLUSH_START,
 * while newer records filled the buffer), and the FLUSH_START and
 * FLUSH_STOP of the next, which empties it. A stopped stream records no
 * STOP any more: the flush markers need not leave room for one then.
 * Every other type leaves the whole reserve.
 */
static size_t posixtrace_stream_keep(const struct posixtrace_stream *stream,
				     u32 id)
{
	size_t flush = stream->log ? POSIXTRACE_FLUSH_RECORD_SIZE : 0;
	size_t stop = posixtrace_stream_running(stream) ?
		      POSIXTRACE_STOP_RECORD_SIZE : 0;

	switch (id) {
	case POSIXTRACE_EVENT_STOP:
		return 0;
	case POSIXTRACE_EVENT_FLUSH_STOP:
		return stop;
	case POSIXTRACE_EVENT_FLUSH_START:
		return stop + flush;
	default:
		return POSIXTRACE_STOP_RECORD_SIZE + 3 * flush;
	}
}

/* The buffer a new stream needs: its size, and the room kept (above). */
size_t posixtrace_stream_ring_size(const struct posixtrace_stream *stream)
{
	return stream->attr.stream_size +
	       posixtrace_stream_keep(stream, POSIXTRACE_EVENT_ERROR);
}

/*
 * Who made the events of a batch, as the stream's pid namespace numbers
 * them: looked up once for a run of events of one thread (a drain hands
 * a ring's records in runs), not once per event.
 */
struct posixtrace_record_ids {
	struct pid *thread;
	pid_t pid, tid;
};

/* @ids: thread @tid of @tgid, as the stream numbers them. */
static void posixtrace_record_ids_of(struct posixtrace_stream *stream,
				     struct pid *tgid, struct pid *tid,
				     struct posixtrace_record_ids *ids)
{
	if (ids->thread != tid) {
		ids->thread = tid;
		ids->pid = pid_nr_ns(tgid, stream->pid_ns);
		ids->tid = pid_nr_ns(tid, stream->pid_ns);
	}
}

/*
 * Fill the fixed part of a record, made by thread @tid of @tgid (both NULL
 * for events of no process). @ids: who the last thread given was (zeroed
 * at first).
 */
static void posixtrace_record_init(struct posixtrace_stream *stream,
				   struct posixtrace_record *rec, u32 id,
				   struct pid *tgid, struct pid *tid,
				   const struct timespec64 *ts, size_t data_len,
				   struct posixtrace_record_ids *ids)
{
	memset(rec, 0, sizeof(*rec));
	rec->size = POSIXTRACE_RECORD_SIZE(data_len);
	rec->header_size = sizeof(*rec);
	rec->event_id = id;
	rec->ts_sec = ts->tv_sec;
	rec->ts_nsec = ts->tv_nsec;
	rec->data_len = data_len;
	if (!tid)
		return;
	posixtrace_record_ids_of(stream, tgid, tid, ids);
	rec->pid = ids->pid;
	rec->tid = ids->tid;
}

/*
 * Write @rec and its data at @dst, whole: the header copied (a constant
 * size, so no call), the padding zeroed by its last word before the data
 * goes over it.
 */
static void posixtrace_record_put(u8 *dst, const struct posixtrace_record *rec,
				  const void *data)
{
	memcpy(dst, rec, sizeof(*rec));
	if (rec->data_len) {
		/* A stream's size need not be a multiple of 8: maybe unaligned. */
		put_unaligned(0ULL, (u64 *)(dst + rec->size - sizeof(u64)));
		memcpy(dst + sizeof(*rec), data, rec->data_len);
	}
}

/*
 * Append @rec and its data, the room made: built in place when it does
 * not wrap, as most records (posixtrace_record_put()).
 */
static void posixtrace_record_append(struct posixtrace_buf *buf,
				     const struct posixtrace_record *rec,
				     const void *data)
{
	u8 *dst = posixtrace_buf_reserve(buf, rec->size);

	if (!dst) {
		posixtrace_buf_write(buf, rec, sizeof(*rec), data,
				     rec->data_len, rec->size);
		return;
	}
	posixtrace_record_put(dst, rec, data);
	posixtrace_buf_commit(buf, rec->size);
}

/*
 * LOOP: events made at @sec, @nsec and later are overwritten: a gap for
 * readers, which begins at the oldest event lost (a thread ring's kick may
 * drop newer events before older ones of another ring are overwritten).
 */
static void posixtrace_stream_gap_mark(struct posixtrace_stream *stream,
				       s64 sec, u32 nsec);

static void posixtrace_stream_gap(struct posixtrace_stream *stream, s64 sec,
				  u32 nsec)
{
	if (stream->full_status != POSIXTRACE_FULL)
		posixtrace_stream_news(stream, POSIXTRACE_NL_EV_FULL);
	stream->full_status = POSIXTRACE_FULL;
	posixtrace_stream_gap_mark(stream, sec, nsec);
}

/*
 * A gap for readers, events made at @sec, @nsec and later lost, whatever
 * lost them; and an overrun.
 */
static void posixtrace_stream_gap_mark(struct posixtrace_stream *stream,
				       s64 sec, u32 nsec)
{
	stream->overrun_status = POSIXTRACE_OVERRUN;
	if (stream->gap_pending) {
		if (sec < stream->gap_ts_sec ||
		    (sec == stream->gap_ts_sec && nsec < stream->gap_ts_nsec)) {
			stream->gap_ts_sec = sec;
			stream->gap_ts_nsec = nsec;
		}
		return;
	}
	posixtrace_stream_news(stream, POSIXTRACE_NL_EV_OVERFLOW);
	/* The markers are generated now: filtered as of now. */
	stream->gap_pending = true;
	stream->gap_overflow = !test_bit(POSIXTRACE_EVENT_OVERFLOW,
					 stream->filter);
	stream->gap_resume = !test_bit(POSIXTRACE_EVENT_RESUME, stream->filter);
	stream->gap_ts_sec = sec;
	stream->gap_ts_nsec = nsec;
}

/*
 * LOOP: drop the oldest record to make room, or @all the records, each
 * counted lost; the gap begins at the oldest. The buffer is not empty.
 */
static void posixtrace_stream_overwrite(struct posixtrace_stream *stream,
					bool all)
{
	struct posixtrace_buf *buf = &stream->buf;
	const struct posixtrace_record *oldest;
	struct posixtrace_record copy;
	size_t count = all ? buf->count : 1;

	oldest = posixtrace_buf_oldest(buf, &copy);
	posixtrace_stream_gap(stream, oldest->ts_sec, oldest->ts_nsec);
	posixtrace_buf_drop(buf, all ? buf->used : oldest->size, count);
	stream->events_lost += count;
}

static void posixtrace_stream_lost(struct posixtrace_stream *stream)
{
	stream->seq++;
	stream->events_lost++;
	stream->overrun_status = POSIXTRACE_OVERRUN;
}

static void posixtrace_stream_auto_stop(struct posixtrace_stream *stream,
					const struct timespec64 *ts);

/**
 * posixtrace_stream_count_lost_nowait - count the events lost meanwhile
 * @stream: the stream, its lock held
 *
 * Those whose makers could not take this lock, nor wait for a drain
 * (posixtrace_stream_lose_nowait()): lost as any, a gap in the sequence
 * and an overrun, from the next drain or status on.
 */
void posixtrace_stream_count_lost_nowait(struct posixtrace_stream *stream)
{
	s64 n;

	lockdep_assert_held(&stream->lock);
	if (!atomic64_read(&stream->lost_nowait))
		return;
	n = atomic64_xchg(&stream->lost_nowait, 0);
	stream->seq += n;
	stream->events_lost += n;
	stream->overrun_status = POSIXTRACE_OVERRUN;
}

static size_t posixtrace_reader_gap(struct posixtrace_stream *stream,
				    u8 *dst,
				    const struct posixtrace_record *next);

/*
 * A reader takes the records a drain brings straight into its batch
 * (stream_read.c), while the stream holds none: @rec goes there if it
 * fits, numbered and counted as read, as if it had been stored and taken
 * out at once (with @keep, the room it would leave). Returns false if it
 * does not (it is then stored, after what the batch has, or lost as the
 * policy says). After a LOOP gap (a reader's cut, or a kick that dropped
 * between two of the reader's drains), the gap's OVERFLOW and RESUME go
 * before it, as a take would put them; if they do not fit with it, it is
 * stored, and the reader's next turn takes them.
 */
static bool posixtrace_stream_store_direct(struct posixtrace_stream *stream,
					   struct posixtrace_record *rec,
					   const void *data, size_t keep)
{
	struct posixtrace_direct *direct = stream->direct;
	size_t gap = stream->gap_pending ? 2 * sizeof(*rec) : 0;
	u8 *dst;

	/*
	 * One the stream, empty, could not hold is lost (the reader's bound
	 * keeps such a one from coming here; checked still).
	 */
	if (!direct || stream->buf.count ||
	    rec->size + keep > stream->buf.size ||
	    direct->used + gap + rec->size > direct->room)
		return false;
	rec->seq = stream->seq++;
	stream->last_ts.tv_sec = rec->ts_sec;
	stream->last_ts.tv_nsec = rec->ts_nsec;
	dst = direct->dst + direct->used;
	if (gap) {
		/* OVERFLOW and RESUME, or fewer if filtered. */
		gap = posixtrace_reader_gap(stream, dst, rec);
		direct->used += gap;
		direct->n += gap / sizeof(*rec);
		dst += gap;
	}
	posixtrace_record_put(dst, rec, data);
	direct->used += rec->size;
	direct->n++;
	stream->events_recorded++;
	/* Read as soon as recorded. */
	stream->events_read++;
	return true;
}

/*
 * Store @rec and its data under the stream's lock, applying the full
 * policy. Only a system STOP may use the room kept for it. Returns false if
 * the event was lost.
 */
static bool posixtrace_stream_store(struct posixtrace_stream *stream,
				    struct posixtrace_record *rec,
				    const void *data, bool system)
{
	struct posixtrace_buf *buf = &stream->buf;
	size_t keep = posixtrace_stream_keep(stream, system ? rec->event_id :
					     POSIXTRACE_EVENT_USER_BASE);

	lockdep_assert_held(&stream->lock);
	if (posixtrace_stream_store_direct(stream, rec, data, keep))
		return true;
	if (stream->attr.stream_full_policy == POSIXTRACE_LOOP) {
		/* Even an empty stream could not hold it: only it is lost. */
		if (rec->size + keep > buf->size) {
			posixtrace_stream_lost(stream);
			return false;
		}
		while (posixtrace_buf_free(buf) < rec->size + keep)
			posixtrace_stream_overwrite(stream, false);
	} else if (posixtrace_buf_free(buf) < rec->size + keep) {
		struct timespec64 ts = {
			.tv_sec = rec->ts_sec, .tv_nsec = rec->ts_nsec
		};

		posixtrace_stream_lost(stream);
		/* Full: a FILTER event that cannot be recorded stops it too. */
		if (keep && posixtrace_stream_running(stream))
			posixtrace_stream_auto_stop(stream, &ts);
		if (stream->log)
			posixtrace_flush_maybe(stream);
		return false;
	}
	rec->seq = stream->seq++;
	stream->last_ts.tv_sec = rec->ts_sec;
	stream->last_ts.tv_nsec = rec->ts_nsec;
	posixtrace_record_append(buf, rec, data);
	stream->events_recorded++;
	if (stream->log)
		posixtrace_flush_maybe(stream);
	return true;
}

/*
 * Record a system event generated by the stream itself, unless filtered.
 * Returns false only if it was lost for want of room.
 */
bool posixtrace_stream_store_system(struct posixtrace_stream *stream, u32 id,
				    struct task_struct *task,
				    const struct timespec64 *ts,
				    const void *data, size_t len)
{
	struct posixtrace_record_ids ids = { };
	struct posixtrace_record rec;

	if (test_bit(id, stream->filter))
		return true;
	posixtrace_record_init(stream, &rec, id, task ? task_tgid(task) : NULL,
			       task ? task_pid(task) : NULL, ts, len, &ids);
	return posixtrace_stream_store(stream, &rec, data, true);
}

void posixtrace_stream_store_stop(struct posixtrace_stream *stream,
				  struct task_struct *task,
				  const struct timespec64 *ts, u32 automatic)
{
	posixtrace_stream_store_system(stream, POSIXTRACE_EVENT_STOP, task, ts,
				       &automatic, sizeof(automatic));
}

/* START carries the filter in force (XSH 2.11.2, with TEF). */
static bool posixtrace_stream_store_start(struct posixtrace_stream *stream,
					  struct task_struct *task,
					  const struct timespec64 *ts)
{
	struct posixtrace_eventset set;

	bitmap_to_arr64(set.bits, stream->filter, POSIXTRACE_EVENT_ID_MAX);
	return posixtrace_stream_store_system(stream, POSIXTRACE_EVENT_START,
					      task, ts, &set, sizeof(set));
}

/**
 * posixtrace_stream_set_state - the recording state changes, whole
 * @stream: the stream, its lock held
 * @state: its new state
 *
 * One store (see enum posixtrace_stream_state): a change is made once the
 * new state is known, never through another on the way.
 */
void posixtrace_stream_set_state(struct posixtrace_stream *stream,
				 enum posixtrace_stream_state state)
{
	lockdep_assert_held(&stream->lock);
	WRITE_ONCE(stream->state, state);
}

static void posixtrace_stream_auto_stop(struct posixtrace_stream *stream,
					const struct timespec64 *ts)
{
	posixtrace_stream_set_state(stream, POSIXTRACE_STREAM_FULL);
	stream->full_status = POSIXTRACE_FULL;
	posixtrace_stream_store_stop(stream, NULL, ts, 1);
	posixtrace_stream_news(stream, POSIXTRACE_NL_EV_STOPPED);
	posixtrace_stream_news(stream, POSIXTRACE_NL_EV_FULL);
}

void posixtrace_stream_wake(struct posixtrace_stream *stream)
{
	/* Pairs with the barrier in prepare_to_wait(): see wq_has_sleeper(). */
	if (wq_has_sleeper(&stream->wq))
		wake_up_interruptible(&stream->wq);
}

/**
 * posixtrace_stream_sources_ready - records wait in a source for a reader
 * @stream: a stream whose reader waits (a thread ring's kick saw one)
 *
 * The reader is woken, and takes them from the source itself
 * (stream_read.c), rather than a drain storing them first. Under RCU;
 * never sleeps.
 */
void posixtrace_stream_sources_ready(struct posixtrace_stream *stream)
{
	WRITE_ONCE(stream->sources_news, true);
	posixtrace_stream_wake(stream);
}

/*
 * Stamp and store a user event with @len bytes of its data. The caller holds
 * the stream's lock, so that the order of the records in the stream is the
 * order of their times, across CPUs.
 */
static bool posixtrace_stream_store_user(struct posixtrace_stream *stream,
					 const struct posixtrace_emit *emit,
					 size_t len,
					 struct posixtrace_record_ids *ids)
{
	struct posixtrace_record rec;
	struct timespec64 ts;

	/*
	 * A thread ring's record was made before it was taken, maybe before
	 * what the stream holds last: it keeps the stream's order.
	 */
	if (emit->timed)
		ts = timespec64_compare(&emit->ts, &stream->last_ts) < 0 ?
		     stream->last_ts : emit->ts;
	else
		ktime_get_real_ts64(&ts);
	posixtrace_record_init(stream, &rec, emit->event_id, emit->tgid,
			       emit->tid, &ts, len, ids);
	if (emit->numbered) {
		rec.pid = emit->pid_nr;
		rec.tid = emit->tid_nr;
	}
	rec.prog_address = emit->prog_address;
	rec.thread = emit->thread;
	if (len < emit->data_len)
		rec.truncation = POSIXTRACE_TRUNCATED_RECORD;
	return posixtrace_stream_store(stream, &rec, emit->data, false);
}

/*
 * Killed after its creator's death, @stream still takes what the threads
 * wrote before the death (a drain brings it later): a ring's record made
 * up to then, or a bad record found there. Nothing else.
 */
static bool posixtrace_stream_before_death(struct posixtrace_stream *stream,
					   const struct posixtrace_emit *emit)
{
	if (!stream->doom_ns)
		return false;
	if (emit->garbage)
		return true;
	return emit->timed && timespec64_to_ns(&emit->ts) <= stream->doom_ns;
}

/*
 * The bytes of @emit's data @stream keeps (*@len): truncated to its max
 * data size. False if that is more than the emitter copied: the stream
 * appeared after it looked, and to it the event came before it existed.
 */
static bool posixtrace_stream_data_kept(const struct posixtrace_stream *stream,
					const struct posixtrace_emit *emit,
					size_t *len)
{
	*len = min_t(size_t, emit->data_len, stream->attr.max_data_size);
	return *len <= emit->copied;
}

/*
 * Its creator died (the hook noted when), and the kill is yet to come:
 * what its threads make after the death is not the stream's already.
 */
static bool posixtrace_stream_after_death(struct posixtrace_stream *stream,
					  const struct posixtrace_emit *emit)
{
	s64 died = READ_ONCE(stream->died_ns);

	if (!died || emit->garbage)
		return false;
	return !emit->timed || timespec64_to_ns(&emit->ts) > died;
}

/* One user event for a stream, its lock held; true if readers have news. */
static bool posixtrace_stream_emit_one(struct posixtrace_stream *stream,
				       const struct posixtrace_emit *emit,
				       struct posixtrace_record_ids *ids)
{
	bool stored = false;
	size_t len;

	if (!posixtrace_stream_data_kept(stream, emit, &len))
		return false;
	if (stream->shut_down ? !posixtrace_stream_before_death(stream, emit) :
	    posixtrace_stream_after_death(stream, emit))
		return false;
	if (emit->garbage) {
		/* Whatever it was, a running stream counts it lost. */
		if (posixtrace_stream_running(stream))
			posixtrace_stream_lost(stream);
	} else if (test_bit(emit->event_id, stream->filter)) {
		;	/* filtered out: neither recorded nor lost */
	} else if (posixtrace_stream_running(stream)) {
		stored = posixtrace_stream_store_user(stream, emit, len, ids);
		/* Lost, but it stopped the stream: readers get the STOP. */
		stored |= posixtrace_stream_stopped_full(stream);
	} else if (stream->state == POSIXTRACE_STREAM_FULL) {
		/* Generated while full: lost (after a stop, not generated). */
		posixtrace_stream_lost(stream);
	}
	return stored;
}

/*
 * Can a run of @emits be judged as a whole (posixtrace_stream_emit_direct(),
 * _stored())? The stream is running, and its creator alive: each record is
 * then either filtered out or recorded, as posixtrace_stream_emit_one()
 * would have it.
 */
static bool posixtrace_stream_runs(const struct posixtrace_stream *stream)
{
	return !stream->shut_down && posixtrace_stream_running(stream) &&
	       !READ_ONCE(stream->died_ns);
}

/* What a run does with a record (posixtrace_stream_run_step()). */
enum posixtrace_run_step {
	POSIXTRACE_RUN_STOP,	/* it and the rest go one by one */
	POSIXTRACE_RUN_SKIP,	/* filtered out: neither recorded nor lost */
	POSIXTRACE_RUN_TAKE,	/* recorded, if the run has room for it */
};

/*
 * @emit in a run of @stream's (@keep: the room a user record leaves): a
 * thread ring's record that the stream, empty, could hold takes *@size
 * bytes, its data kept *@len. A bad record, a kbuf's, one the emitter did
 * not copy enough of, or one lost alone go one by one.
 */
static enum posixtrace_run_step
posixtrace_stream_run_step(const struct posixtrace_stream *stream,
			   const struct posixtrace_emit *emit, size_t keep,
			   size_t *len, size_t *size)
{
	if (emit->garbage || !emit->timed || emit->numbered ||
	    !posixtrace_stream_data_kept(stream, emit, len))
		return POSIXTRACE_RUN_STOP;
	if (test_bit(emit->event_id, stream->filter))
		return POSIXTRACE_RUN_SKIP;
	*size = POSIXTRACE_RECORD_SIZE(*len);
	return *size + keep > stream->buf.size ? POSIXTRACE_RUN_STOP :
						  POSIXTRACE_RUN_TAKE;
}

/*
 * The record @stream makes of @emit in a run, numbered: as
 * posixtrace_stream_store_user() and _store() would make it, at a time no
 * older than the stream's last.
 */
static void posixtrace_stream_run_record(struct posixtrace_stream *stream,
					 const struct posixtrace_emit *emit,
					 size_t len,
					 struct posixtrace_record_ids *ids,
					 struct posixtrace_record *rec)
{
	struct timespec64 ts;

	ts = timespec64_compare(&emit->ts, &stream->last_ts) < 0 ?
	     stream->last_ts : emit->ts;
	posixtrace_record_ids_of(stream, emit->tgid, emit->tid, ids);
	*rec = (struct posixtrace_record) {
		.size = POSIXTRACE_RECORD_SIZE(len),
		.header_size = sizeof(*rec),
		.event_id = emit->event_id,
		.ts_sec = ts.tv_sec,
		.ts_nsec = ts.tv_nsec,
		.data_len = len,
		.pid = ids->pid,
		.tid = ids->tid,
		.prog_address = emit->prog_address,
		.thread = emit->thread,
		.truncation = len < emit->data_len ?
			      POSIXTRACE_TRUNCATED_RECORD : 0,
		.seq = stream->seq++,
	};
	stream->last_ts = ts;
	stream->events_recorded++;
}

/*
 * The run of @emits a reader's batch takes as it comes (stream_read.c),
 * each what posixtrace_stream_emit_one() would make of it there, in one
 * loop: while the batch takes records (posixtrace_stream_store_direct()
 * would), the stream holds none and has no gap to report, and each is a
 * thread ring's record that fits. Returns how many of @emits it dealt
 * with (read, or filtered out): the rest go one by one.
 */
static unsigned int posixtrace_stream_emit_direct(struct posixtrace_stream *stream,
						  const struct posixtrace_emit *emits,
						  unsigned int n,
						  struct posixtrace_record_ids *ids)
{
	struct posixtrace_direct *direct = stream->direct;
	const struct posixtrace_emit *emit;
	enum posixtrace_run_step step;
	struct posixtrace_record rec;
	size_t keep, len, size;
	unsigned int i;

	lockdep_assert_held(&stream->lock);
	if (!direct || stream->buf.count || stream->gap_pending ||
	    !posixtrace_stream_runs(stream))
		return 0;
	keep = posixtrace_stream_keep(stream, POSIXTRACE_EVENT_USER_BASE);
	for (i = 0; i < n; i++) {
		emit = &emits[i];
		step = posixtrace_stream_run_step(stream, emit, keep, &len,
						  &size);
		if (step == POSIXTRACE_RUN_SKIP)
			continue;
		if (step == POSIXTRACE_RUN_STOP ||
		    direct->used + size > direct->room)
			break;
		posixtrace_stream_run_record(stream, emit, len, ids, &rec);
		posixtrace_record_put(direct->dst + direct->used, &rec,
				      emit->data);
		direct->used += size;
		direct->n++;
		/* Read as soon as recorded. */
		stream->events_read++;
	}
	return i;
}

/*
 * The run of @emits stored in the stream's buffer, as
 * posixtrace_stream_emit_one() would store each, in one loop: while no
 * reader takes them as they come, each is a thread ring's record that
 * fits, and, but with LOOP (which overwrites the oldest), there is room
 * for it. Returns how many of @emits it dealt with (stored, or filtered
 * out): the rest go one by one; *@stored if it stored one.
 */
static unsigned int posixtrace_stream_emit_stored(struct posixtrace_stream *stream,
						  const struct posixtrace_emit *emits,
						  unsigned int n,
						  struct posixtrace_record_ids *ids,
						  bool *stored)
{
	struct posixtrace_buf *buf = &stream->buf;
	const struct posixtrace_emit *emit;
	enum posixtrace_run_step step;
	struct posixtrace_record rec;
	size_t keep, len, size;
	unsigned int i;
	bool loop;

	lockdep_assert_held(&stream->lock);
	if (stream->direct || !posixtrace_stream_runs(stream))
		return 0;
	keep = posixtrace_stream_keep(stream, POSIXTRACE_EVENT_USER_BASE);
	loop = stream->attr.stream_full_policy == POSIXTRACE_LOOP;
	for (i = 0; i < n; i++) {
		emit = &emits[i];
		step = posixtrace_stream_run_step(stream, emit, keep, &len,
						  &size);
		if (step == POSIXTRACE_RUN_SKIP)
			continue;
		/* Full, but with LOOP: one by one (a stop, a flush). */
		if (step == POSIXTRACE_RUN_STOP ||
		    (!loop && posixtrace_buf_free(buf) < size + keep))
			break;
		while (posixtrace_buf_free(buf) < size + keep)
			posixtrace_stream_overwrite(stream, false);
		posixtrace_stream_run_record(stream, emit, len, ids, &rec);
		posixtrace_record_append(buf, &rec, emit->data);
		*stored = true;
	}
	if (*stored && stream->log)
		posixtrace_flush_maybe(stream);
	return i;
}

/**
 * posixtrace_stream_emit - record user events into one stream
 * @stream: a stream tracing the process that made them
 * @emits: the events, in the order they were made, their data copied in
 * @n: how many
 *
 * One lock for them all: a drain hands a ring's records in runs. Called
 * under rcu_read_lock(); never sleeps.
 */
void posixtrace_stream_emit(struct posixtrace_stream *stream,
			    const struct posixtrace_emit *emits,
			    unsigned int n)
{
	struct posixtrace_record_ids ids = { };
	bool stored = false;
	unsigned int i, run;

	spin_lock(&stream->lock);
	posixtrace_stream_count_lost_nowait(stream);
	for (i = 0; i < n; i++) {
		/*
		 * Runs where they may be, the record that ends one alone. A
		 * reader's run is read as it comes: no one to wake for it.
		 */
		run = posixtrace_stream_emit_direct(stream, emits + i, n - i,
						    &ids);
		if (!run)
			run = posixtrace_stream_emit_stored(stream, emits + i,
							    n - i, &ids,
							    &stored);
		i += run;
		if (i < n)
			stored |= posixtrace_stream_emit_one(stream, &emits[i],
							     &ids);
	}
	spin_unlock(&stream->lock);
	if (stored)
		posixtrace_stream_wake(stream);
}

/*
 * Put @emit into @stream's kbuf for this CPU: -ENOSPC if it is full, 1 if
 * the caller should drain now (the buffer holds more than its threshold,
 * or a reader waits), else 0. Under RCU.
 */
static int posixtrace_stream_post_kbuf(struct posixtrace_stream *stream,
				       const struct posixtrace_emit *emit)
{
	struct posixtrace_kbufs *kbufs = rcu_dereference(stream->kbufs);
	size_t len;
	int ret;

	/* A stream shut down has no kbufs, nor takes anything. */
	if (!posixtrace_stream_data_kept(stream, emit, &len) || !kbufs)
		return 0;
	ret = posixtrace_kbuf_post(kbufs, emit,
				   pid_nr_ns(emit->tgid, stream->pid_ns),
				   pid_nr_ns(emit->tid, stream->pid_ns), len,
				   stream->kbuf_threshold);
	if (ret < 0)
		return ret;
	if (ret & POSIXTRACE_KBUF_FIRST)
		posixtrace_drain_later(stream->domain);
	/* Pairs with the barrier in prepare_to_wait(): see wq_has_sleeper(). */
	return (ret & POSIXTRACE_KBUF_DRAIN) || wq_has_sleeper(&stream->wq);
}

/**
 * posixtrace_stream_post - an event made by system call, into a kbuf
 * @stream: a stream tracing the process that made it
 * @emit: the event, made by current, which writes no thread ring; its
 *	data copied in (at most POSIXTRACE_KBUF_DATA_MAX bytes)
 * @retry: where a stream whose buffer was full is kept, with a reference,
 *	for posixtrace_stream_post_retry()
 *
 * Into the stream's buffer for this CPU, without the stream's lock; a
 * drain judges it, as it judges a ring's records (kbuf.c). A buffer full
 * (writers on this CPU outran the drains) sends the event to @retry: the
 * caller drains, then posts it again, so that it comes after the older
 * records of the buffers. Only if @retry is full too, or the stream is
 * going, is it stored at once, ahead of them (they then take its time).
 * Called under rcu_read_lock(); never sleeps.
 *
 * Return: true if the caller should drain now.
 */
bool posixtrace_stream_post(struct posixtrace_stream *stream,
			    const struct posixtrace_emit *emit,
			    struct posixtrace_post_retry *retry)
{
	int ret = posixtrace_stream_post_kbuf(stream, emit);

	if (ret != -ENOSPC)
		return ret;
	if (retry->n < ARRAY_SIZE(retry->streams) &&
	    kref_get_unless_zero(&stream->ref)) {
		retry->streams[retry->n++] = stream;
		return true;
	}
	posixtrace_stream_emit(stream, emit, 1);
	return false;
}

/**
 * posixtrace_stream_lose_nowait - an event lost, without the stream's lock
 * @stream: a stream tracing the process the event is about
 * @emit: the event
 *
 * Lost as the drain would count it (posixtrace_stream_emit_one()): not if
 * the stream keeps more of its data than was copied (it came after), is
 * shut down or its creator died (the event is not the stream's), or
 * filters it out; else by a running stream, and by one stopped because
 * full until it restarts. Each word is read once, whole (the state is
 * one): a state the stream was in. Takes no lock. Under RCU.
 */
void posixtrace_stream_lose_nowait(struct posixtrace_stream *stream,
				   const struct posixtrace_emit *emit)
{
	size_t len;

	if (!posixtrace_stream_data_kept(stream, emit, &len) ||
	    READ_ONCE(stream->shut_down) ||
	    posixtrace_stream_after_death(stream, emit) ||
	    test_bit(emit->event_id, stream->filter))
		return;
	if (posixtrace_stream_counts_lost(READ_ONCE(stream->state)))
		atomic64_inc(&stream->lost_nowait);
}

/**
 * posixtrace_stream_post_nowait - an event whose maker cannot wait
 * @stream: a stream tracing the process the event is about (that records
 *	its class, for a kernel event)
 * @emit: the event, with all its data (at most POSIXTRACE_KBUF_DATA_MAX
 *	bytes)
 *
 * A kernel event, from a tracepoint's probe, which may run in an
 * interrupt, with preemption off, under the scheduler's or a signal's
 * locks; or an event by system call of a realtime thread that writes no
 * ring (device.c). Into the stream's kbuf for this CPU, as
 * posixtrace_stream_post(), but a full kbuf loses the event, counted,
 * rather than wait for a drain. Takes raw locks only, and leaves waking
 * readers to the worker it asks to drain, through an irq_work
 * (posixtrace_drain_deferred()). Under RCU.
 */
void posixtrace_stream_post_nowait(struct posixtrace_stream *stream,
				   const struct posixtrace_emit *emit)
{
	int ret;

	/* Filtered out: not recorded, whatever the drain would find. */
	if (test_bit(emit->event_id, stream->filter))
		return;
	ret = posixtrace_stream_post_kbuf(stream, emit);
	if (ret == -ENOSPC)
		posixtrace_stream_lose_nowait(stream, emit);
	/* Full, past the threshold, or a reader waits: a worker drains. */
	if (ret)
		posixtrace_drain_deferred(stream->domain);
}

/* Tries of a full kbuf, a drain before each, before storing at once. */
#define POSIXTRACE_POST_TRIES	3

/**
 * posixtrace_stream_post_retry - post again what found its kbuf full
 * @retry: filled by posixtrace_stream_post(); emptied, references dropped
 * @emit: the same event
 *
 * After the caller's drain. Sleeps: drains again if a buffer is still
 * full (other writers filled it meanwhile); after POSIXTRACE_POST_TRIES,
 * stores at once.
 */
void posixtrace_stream_post_retry(struct posixtrace_post_retry *retry,
				  const struct posixtrace_emit *emit)
{
	struct posixtrace_stream *stream;
	unsigned int i, tries;
	int ret;

	for (i = 0; i < retry->n; i++) {
		stream = retry->streams[i];
		for (tries = 1;; tries++) {
			rcu_read_lock();
			ret = posixtrace_stream_post_kbuf(stream, emit);
			if (ret == -ENOSPC && tries == POSIXTRACE_POST_TRIES) {
				posixtrace_stream_emit(stream, emit, 1);
				ret = 0;
			}
			rcu_read_unlock();
			if (ret)
				posixtrace_drain(stream->domain);
			if (ret != -ENOSPC)
				break;
		}
		posixtrace_stream_put(stream);
	}
	retry->n = 0;
}

/*
 * The bytes of stream records a LOOP stream without a log keeps, else 0:
 * what its threads' rings should hold for kicks to drop (the ring size
 * hint of the enable page). A FLUSH stream's log's thread takes records
 * from the rings (posixtrace_flush_takes()): its threads keep the default
 * ring (the design page says why). Fixed at creation: no lock.
 */
size_t posixtrace_stream_loop_capacity(const struct posixtrace_stream *stream)
{
	if (stream->attr.stream_full_policy != POSIXTRACE_LOOP || stream->log)
		return 0;
	return stream->buf.size;
}

/**
 * posixtrace_stream_loop_view - what a thread ring's kick needs to drop
 * records this stream would only overwrite
 * @stream: the only stream tracing the ring's process
 * @view: filled in if the stream is one whose records can be dropped
 *
 * A running LOOP stream without a log (whose flush would want every
 * record) keeps the newest of what it records: at most its ring's size of
 * stream records. Under the drain lock, which state changes take (in their
 * drain) before they change what this returns.
 *
 * Return: true if @view was filled in.
 */
bool posixtrace_stream_loop_view(struct posixtrace_stream *stream,
				 struct posixtrace_loop_view *view)
{
	bool ok;

	spin_lock(&stream->lock);
	ok = posixtrace_stream_running(stream) && !stream->shut_down &&
	     !stream->log &&
	     stream->attr.stream_full_policy == POSIXTRACE_LOOP;
	if (ok) {
		view->id = stream->id;
		view->changes = atomic_read(&stream->changes);
		view->capacity = stream->buf.size;
		view->max_data = stream->attr.max_data_size;
		/* Larger, it is lost alone, even in an empty stream. */
		view->record_max = stream->buf.size -
			posixtrace_stream_keep(stream,
					       POSIXTRACE_EVENT_USER_BASE);
		view->filter = stream->filter;
		/*
		 * A hint, without the barrier a wakeup needs: a reader that
		 * goes to sleep just after this is woken by the next kick
		 * (which then sees it) or the timer's drain.
		 */
		view->readers_waiting = waitqueue_active(&stream->wq) ||
					atomic_read(&stream->readers_waking);
	}
	spin_unlock(&stream->lock);
	return ok;
}

/**
 * posixtrace_stream_overwritten - @n events recorded and overwritten at once
 * @stream: a stream posixtrace_stream_loop_view() accepted
 * @n: how many, none of them stored: each would have been overwritten by
 *     newer records of the same thread before anyone could read it
 * @first: the time of the first
 * @kept: the bytes of stream records that the records after them will
 *	  store (a reader's cut counts them; a kick need not: with @n, the
 *	  stream holds nothing more)
 *
 * Counted as storing them and overwriting them would: each recorded, lost,
 * and numbered (a gap in the sequence), OVERFLOW before the next read.
 * The newer records the kick counted on fill what the stream keeps: once
 * stored they would overwrite all it holds now, so that goes too, now,
 * into the same gap. Else a reader whose take came between its drain and
 * the next would get those older records after a gap that began later
 * (RESUME older than OVERFLOW, and the gap's numbers out of place). So
 * does, oldest first, what the stream holds that @kept leaves no room for.
 *
 * Return: false, counting nothing, if the stream stopped since the view
 * was taken, or a change of its state is under way: the records must then
 * be drained (its state changed while they were being made; the drain
 * judges them).
 */
bool posixtrace_stream_overwritten(struct posixtrace_stream *stream, u64 n,
				   const struct timespec64 *first, u64 kept)
{
	struct posixtrace_buf *buf = &stream->buf;
	size_t keep = posixtrace_stream_keep(stream,
					     POSIXTRACE_EVENT_USER_BASE);
	bool running;

	spin_lock(&stream->lock);
	/*
	 * A change under way has drained and judges nothing more: the newer
	 * records that would overwrite these may never be stored.
	 */
	running = posixtrace_stream_running(stream) && !stream->shut_down &&
		  !atomic_read(&stream->changing);
	if (running && n && stream->buf.count)
		posixtrace_stream_overwrite(stream, true);
	if (running && n) {
		/* Stored, it would have been stamped no older than the last. */
		if (timespec64_compare(first, &stream->last_ts) < 0)
			first = &stream->last_ts;
		posixtrace_stream_gap(stream, first->tv_sec, first->tv_nsec);
		/*
		 * ... and what is stored after it no older than it: a record
		 * of another ring drained later keeps the gap's RESUME from
		 * going before its OVERFLOW.
		 */
		stream->last_ts = *first;
		stream->seq += n;
		stream->events_recorded += n;
		stream->events_lost += n;
	}
	/* As storing @kept would, record by record. */
	while (running && buf->count && buf->used + kept + keep > buf->size)
		posixtrace_stream_overwrite(stream, false);
	spin_unlock(&stream->lock);
	return running;
}

/*
 * posix_trace_start() (@id POSIXTRACE_EVENT_START) or posix_trace_stop()
 * (POSIXTRACE_EVENT_STOP), as the standard says. Starting a running stream
 * or stopping a suspended one records nothing. A stream stopped because it
 * was full (UNTIL_FULL) is left as it is by start; stop only cancels its
 * automatic restart.
 */
static void posixtrace_stream_start_stop(struct posixtrace_stream *stream,
					 u32 id)
{
	struct timespec64 ts;
	bool stored = false;

	spin_lock(&stream->lock);
	ktime_get_real_ts64(&ts);
	if (stream->shut_down) {
		/* Killed by its creator's exit or exec: nothing to do. */
	} else if (posixtrace_stream_stopped_full(stream)) {
		/* Full: nothing recorded now; the restart follows the last call. */
		posixtrace_stream_set_state(stream,
					    id == POSIXTRACE_EVENT_START ?
					    POSIXTRACE_STREAM_FULL :
					    POSIXTRACE_STREAM_FULL_STOPPED);
	} else if (id == POSIXTRACE_EVENT_START &&
		   !posixtrace_stream_running(stream)) {
		/*
		 * UNTIL_FULL with not even room for START (an explicit STOP
		 * took the kept room): the stream is full, and POSIX says
		 * START is then not recorded and nothing changes.
		 */
		if (stream->attr.stream_full_policy != POSIXTRACE_LOOP &&
		    !test_bit(id, stream->filter) &&
		    posixtrace_buf_free(&stream->buf) <
		    POSIXTRACE_RECORD_SIZE(sizeof(struct posixtrace_eventset)) +
		    posixtrace_stream_keep(stream, id)) {
			stream->full_status = POSIXTRACE_FULL;
		} else if (posixtrace_stream_store_start(stream, current, &ts)) {
			posixtrace_stream_set_state(stream, POSIXTRACE_STREAM_RUNNING);
			stored = true;
			posixtrace_stream_news(stream, POSIXTRACE_NL_EV_STARTED);
		}
	} else if (id == POSIXTRACE_EVENT_STOP &&
		   posixtrace_stream_running(stream)) {
		posixtrace_stream_store_stop(stream, current, &ts, 0);
		posixtrace_stream_set_state(stream, POSIXTRACE_STREAM_STOPPED);
		stored = true;
		posixtrace_stream_news(stream, POSIXTRACE_NL_EV_STOPPED);
	}
	spin_unlock(&stream->lock);
	if (stored)
		posixtrace_stream_wake(stream);
}

/* posix_trace_start(): see posixtrace_stream_start_stop(). */
void posixtrace_stream_start(struct posixtrace_stream *stream)
{
	posixtrace_stream_start_stop(stream, POSIXTRACE_EVENT_START);
}

/* posix_trace_stop(): see posixtrace_stream_start_stop(). */
void posixtrace_stream_stop(struct posixtrace_stream *stream)
{
	posixtrace_stream_start_stop(stream, POSIXTRACE_EVENT_STOP);
}

/*
 * UNTIL_FULL and FLUSH: once readers, the log or a clear emptied a stream
 * that stopped because it was full, restart it. Under the stream's lock.
 */
void posixtrace_stream_drained(struct posixtrace_stream *stream)
{
	bool restarted = false;
	struct timespec64 ts;

	lockdep_assert_held(&stream->lock);
	/* A read freed space: only an automatic stop outlasts it. */
	if (!posixtrace_stream_stopped_full(stream)) {
		stream->full_status = POSIXTRACE_NOT_FULL;
		return;
	}
	if (stream->buf.count)
		return;
	/*
	 * Killed after its creator's death, its last records still coming
	 * (the log's thread takes them): it stays as it was at the death.
	 */
	if (stream->shut_down)
		return;
	stream->full_status = POSIXTRACE_NOT_FULL;
	/* May record no more, unless it restarts: the reader redoes the bits. */
	stream->enable_stale = true;
	/*
	 * START is stored while the state says RESTARTING: an event lost
	 * meanwhile counts, as it does before and after the restart.
	 */
	if (stream->state == POSIXTRACE_STREAM_FULL) {
		posixtrace_stream_set_state(stream,
					    POSIXTRACE_STREAM_RESTARTING);
		ktime_get_real_ts64(&ts);
		restarted = posixtrace_stream_store_start(stream, NULL, &ts);
	}
	posixtrace_stream_set_state(stream, restarted ?
				    POSIXTRACE_STREAM_RUNNING :
				    POSIXTRACE_STREAM_STOPPED);
	if (restarted)
		posixtrace_stream_news(stream, POSIXTRACE_NL_EV_STARTED);
}

/* Record POSIX_TRACE_ERROR with @error as data; the lock is held. */
bool posixtrace_stream_store_error(struct posixtrace_stream *stream, int error)
{
	struct timespec64 ts;

	lockdep_assert_held(&stream->lock);
	ktime_get_real_ts64(&ts);
	return posixtrace_stream_store_system(stream, POSIXTRACE_EVENT_ERROR,
					      NULL, &ts, &error, sizeof(error));
}

/**
 * posixtrace_stream_error - record POSIX_TRACE_ERROR with @error as data
 * @stream: the stream
 * @error: a positive error number
 *
 * For what goes wrong away from any caller (a fork that could not be
 * followed): never sleeps, and wakes the readers.
 */
void posixtrace_stream_error(struct posixtrace_stream *stream, int error)
{
	bool stored;

	spin_lock(&stream->lock);
	stored = !stream->shut_down &&
		 posixtrace_stream_store_error(stream, error);
	spin_unlock(&stream->lock);
	if (stored)
		posixtrace_stream_wake(stream);
}

/*
 * A system event built by the reader (OVERFLOW, RESUME): it takes no buffer
 * space. Returns the bytes written at @dst.
 */
static size_t posixtrace_reader_system_event(void *dst, u32 id, s64 sec,
					     u32 nsec, u64 seq)
{
	struct posixtrace_record rec = {
		.size = sizeof(rec), .header_size = sizeof(rec), .event_id = id,
		.ts_sec = sec, .ts_nsec = nsec, .seq = seq,
	};

	memcpy(dst, &rec, sizeof(rec));
	return sizeof(rec);
}

/*
 * Report a LOOP gap before @next, the first event after it: OVERFLOW with
 * the time of the first event lost, RESUME with @next's time.
 */
static size_t posixtrace_reader_gap(struct posixtrace_stream *stream,
				    u8 *dst, const struct posixtrace_record *next)
{
	size_t len = 0;

	if (stream->gap_overflow)
		len += posixtrace_reader_system_event(dst,
						      POSIXTRACE_EVENT_OVERFLOW,
						      stream->gap_ts_sec,
						      stream->gap_ts_nsec,
						      next->seq);
	if (stream->gap_resume)
		len += posixtrace_reader_system_event(dst + len,
						      POSIXTRACE_EVENT_RESUME,
						      next->ts_sec,
						      next->ts_nsec, next->seq);
	stream->gap_pending = false;
	return len;
}

/**
 * posixtrace_stream_fill - take the oldest records out of a stream
 * @stream: the stream, its lock held
 * @dst: where to put them
 * @room: bytes at @dst
 * @seq_limit: take only records numbered below this
 * @bytes: the bytes stored at @dst
 *
 * Moves as many whole records as fit, oldest first, after the OVERFLOW
 * and RESUME of a LOOP gap before the first (only the oldest can follow
 * one). Their headers are looked at one by one, to find how many fit;
 * the records are copied in one go. Frees their space, and may so restart
 * a stream that stopped because it was full.
 *
 * Return: how many records were stored, or -ENOSPC if the oldest one does
 * not fit in @room at all.
 */
static int posixtrace_stream_fill(struct posixtrace_stream *stream, u8 *dst,
				  size_t room, u64 seq_limit, size_t *bytes)
{
	struct posixtrace_buf *buf = &stream->buf;
	const struct posixtrace_record *next;
	struct posixtrace_record copy;
	size_t used = 0, run = 0, taken, off;
	int n = 0;

	lockdep_assert_held(&stream->lock);
	if (!buf->count)
		goto out;
	next = posixtrace_buf_oldest(buf, &copy);
	if (next->seq >= seq_limit)
		goto out;
	if (stream->gap_pending) {
		/* The gap's records and the one after them come together. */
		if (2 * sizeof(*next) + next->size > room)
			return -ENOSPC;
		used = posixtrace_reader_gap(stream, dst, next);
		n = used / sizeof(*next);
	}
	for (off = buf->tail, taken = 0; taken < buf->count; taken++) {
		next = posixtrace_buf_header(buf, off, &copy);
		if (next->seq >= seq_limit || used + run + next->size > room)
			break;
		run += next->size;
		off = posixtrace_buf_advance(buf, off, next->size);
	}
	if (!taken)
		return -ENOSPC;
	posixtrace_buf_take(buf, dst + used, run, taken);
	used += run;
	n += taken;
	/* Events read: what was recorded, not what the reader made. */
	stream->events_read += taken;
	posixtrace_stream_drained(stream);
out:
	*bytes = used;
	return n;
}

/**
 * posixtrace_stream_take - take the oldest records out of a stream
 * @stream: the stream, no lock held
 * @dst: where to put them
 * @room: bytes at @dst
 * @seq_limit: take only records numbered below this
 * @bytes: the bytes stored at @dst
 * @reader: for a reader: nothing from a stream shut down
 * @clears: if not NULL, where to store how many times the stream had been
 *	    cleared when the records were taken (the log needs to know
 *	    which side of a posix_trace_clear() they come from)
 *
 * posixtrace_stream_fill(), then, if the space it freed changed what the
 * stream records (an automatic stop ended), the producers' enable bits
 * are redone: outside the stream's lock, which the processes' come before.
 *
 * Return: how many records were stored, -ENOSPC if the oldest one does not
 * fit in @room, -EINVAL for a reader of a stream shut down.
 */
int posixtrace_stream_take(struct posixtrace_stream *stream, u8 *dst,
			   size_t room, u64 seq_limit, size_t *bytes,
			   bool reader, u32 *clears)
{
	bool stale;
	int n;

	spin_lock(&stream->lock);
	if (reader && stream->shut_down)
		n = -EINVAL;
	else
		n = posixtrace_stream_fill(stream, dst, room, seq_limit, bytes);
	if (clears)
		*clears = stream->clears;
	stale = stream->enable_stale;
	stream->enable_stale = false;
	spin_unlock(&stream->lock);
	if (stale)
		posixtrace_links_update(stream);
	return n;
}

/**
 * posixtrace_batch_events - what a reader's batch holds of the stream's
 * @batch: the records taken for a reader, in the readers' format
 * @bytes: their bytes
 * @taken: filled in: how many are events (the OVERFLOW and RESUME a
 *	   batch holds are the reader's own, not events) and the first's time
 */
void posixtrace_batch_events(const void *batch, size_t bytes,
			     struct posixtrace_batch_taken *taken)
{
	const struct posixtrace_record *rec;
	size_t off;

	taken->events = 0;
	for (off = 0; off + sizeof(*rec) <= bytes; off += rec->size) {
		rec = batch + off;
		if (rec->size < sizeof(*rec))
			break;
		if (rec->event_id == POSIXTRACE_EVENT_OVERFLOW ||
		    rec->event_id == POSIXTRACE_EVENT_RESUME)
			continue;
		if (!taken->events++) {
			taken->ts_sec = rec->ts_sec;
			taken->ts_nsec = rec->ts_nsec;
		}
	}
}

/**
 * posixtrace_stream_lose_taken - a batch its reader could not be given
 * @stream: the stream, no lock held
 * @taken: what the batch held (posixtrace_batch_events())
 *
 * Copying it out, or telling the reader of it, faulted (the reader's
 * memory, or memory to fault it in): its records are out of the stream,
 * so they are lost, and counted so: lost rather than read, an overrun,
 * and for a LOOP stream's readers an OVERFLOW and a RESUME where they
 * were.
 */
void posixtrace_stream_lose_taken(struct posixtrace_stream *stream,
				  const struct posixtrace_batch_taken *taken)
{
	if (!taken->events)
		return;
	spin_lock(&stream->lock);
	stream->events_read -= taken->events;
	stream->events_lost += taken->events;
	if (stream->attr.stream_full_policy == POSIXTRACE_LOOP)
		posixtrace_stream_gap_mark(stream, taken->ts_sec,
					   taken->ts_nsec);
	else
		stream->overrun_status = POSIXTRACE_OVERRUN;
	spin_unlock(&stream->lock);
}

/**
 * posixtrace_stream_bytes_bound - what records of @source_bytes in their
 *	sources make at most as stream records
 * @source_bytes: as posixtrace_drain_bytes() counts them
 *
 * A stream record takes at most 4/3 of what the record took in its source
 * (a 64-byte header against a ring's 48 or a kbuf's 56, the same data or
 * less).
 */
u64 posixtrace_stream_bytes_bound(u64 source_bytes)
{
	return div_u64(source_bytes * 4, 3);
}

/*
 * Would a drain that stores @bytes of stream records store them all, none
 * of them overwritten or lost for room? Under the stream's lock.
 */
static bool posixtrace_stream_would_hold(const struct posixtrace_stream *stream,
					 u64 bytes)
{
	const struct posixtrace_buf *buf = &stream->buf;
	u64 keep = posixtrace_stream_keep(stream, POSIXTRACE_EVENT_USER_BASE);

	return bytes + keep <= posixtrace_buf_free(buf);
}

/**
 * posixtrace_stream_direct_fits - would the stream hold what the sources do?
 * @stream: the stream
 * @source_bytes: what its sources hold (posixtrace_drain_bytes())
 *
 * A drain of it all would store it all, beside what the stream holds,
 * none of it overwritten (LOOP) or lost for room, and the stream is not
 * stopped because full (taking what it holds would restart it before
 * what was made meanwhile is judged lost): a reader may then take what
 * the stream holds before draining (stream_read.c).
 */
bool posixtrace_stream_direct_fits(struct posixtrace_stream *stream,
				   u64 source_bytes)
{
	u64 bytes = posixtrace_stream_bytes_bound(source_bytes);
	bool fits;

	spin_lock(&stream->lock);
	/*
	 * Stopped because full, it restarts once emptied: what was made
	 * meanwhile must be judged (lost) first, by a drain.
	 */
	fits = !stream->shut_down && !posixtrace_stream_stopped_full(stream) &&
	       posixtrace_stream_would_hold(stream, bytes);
	spin_unlock(&stream->lock);
	return fits;
}

/**
 * posixtrace_stream_direct_begin - a reader takes records straight from a
 *	drain into its batch
 * @stream: the stream, its read lock held
 * @direct: the batch, empty
 * @bytes: what a drain of everything its sources hold would store, at most
 *	   (posixtrace_stream_bytes_bound() of posixtrace_drain_bytes(), or
 *	   what a cut counted: posixtrace_drain_cut())
 *
 * Only while the stream holds no record (what it holds came before what
 * the sources hold), is neither shut down nor stopped because full (what
 * was made since must be judged first), and when a drain of everything
 * the sources hold would store it all: what the reader then gets is what
 * the stream would have held, in the same order, with the same numbers;
 * only the copy into the stream and out of it is saved. Otherwise the
 * reader drains into the stream, where LOOP overwrites what it must, and
 * takes from there. Until posixtrace_stream_direct_end(), every record
 * stored goes into @direct while it fits.
 *
 * The log's thread of a FLUSH stream (@direct->pieces) needs only room
 * for a batch: a FLUSH stream is emptied into its log as it fills, and
 * what the thread takes, oldest first, is what drains of a batch's worth
 * at a time, each flushed before the next, would have stored.
 *
 * Return: true if the reader's drain goes into @direct.
 */
bool posixtrace_stream_direct_begin(struct posixtrace_stream *stream,
				    struct posixtrace_direct *direct,
				    u64 bytes)
{
	bool ok;

	if (direct->pieces)
		bytes = min_t(u64, bytes, direct->room);
	spin_lock(&stream->lock);
	ok = !stream->buf.count && !stream->shut_down &&
	     !posixtrace_stream_stopped_full(stream) &&
	     posixtrace_stream_would_hold(stream, bytes);
	if (ok) {
		direct->clears = stream->clears;
		stream->direct = direct;
	}
	spin_unlock(&stream->lock);
	return ok;
}

/**
 * posixtrace_stream_direct_end - the reader's drain is done
 * @stream: the stream, its read lock held
 * @direct: as given to posixtrace_stream_direct_begin()
 *
 * What it holds was read: the stream is not full any more, as when a
 * reader takes records out (posixtrace_stream_take()).
 */
void posixtrace_stream_direct_end(struct posixtrace_stream *stream,
				  struct posixtrace_direct *direct)
{
	bool stale;

	spin_lock(&stream->lock);
	stream->direct = NULL;
	if (direct->n)
		posixtrace_stream_drained(stream);
	stale = stream->enable_stale;
	stream->enable_stale = false;
	spin_unlock(&stream->lock);
	if (stale)
		posixtrace_links_update(stream);
}

/**
 * posixtrace_stream_admitted - what the stream records now
 * @stream: the stream
 * @admitted: set to the event types it does not filter out
 *
 * For the producers' enable bits (links.c).
 *
 * Return: false if it records nothing now (suspended, or shut down).
 */
bool posixtrace_stream_admitted(struct posixtrace_stream *stream,
				unsigned long *admitted)
{
	bool records;

	spin_lock(&stream->lock);
	/*
	 * Events sent to a stream stopped because full count as lost. One
	 * killed after its creator's death takes only what came before.
	 */
	records = !stream->shut_down &&
		  stream->state != POSIXTRACE_STREAM_STOPPED;
	if (records)
		bitmap_complement(admitted, stream->filter,
				  POSIXTRACE_EVENT_ID_MAX);
	spin_unlock(&stream->lock);
	return records;
}

/* The most data of an event the stream keeps (its max data size). */
size_t posixtrace_stream_data_max(struct posixtrace_stream *stream)
{
	return stream->attr.max_data_size;
}
