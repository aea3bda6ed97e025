// SPDX-License-Identifier: GPL-2.0
/*
 * The stream-full-policy (POSIX Trace option, TRC), with exact counts.
 *
 * This implementation's accounting: a stream of size S holds S bytes of
 * records (plus a hidden reserve of 72 bytes that only a STOP may use, so
 * that the one saying the stream is full always fits); a user event takes
 * posix_trace_attr_getmaxusereventsize() bytes, R; START takes a record
 * and the filter in force (TEF): 208 bytes. So after START, exactly
 * floor((S - 208) / R) user events fit, and a looping stream keeps the
 * last floor(S / R) once START has been overwritten.
 *
 * POSIX_TRACE_LOOP: the oldest events are overwritten, the stream is
 * RUNNING+FULL and OVERRUN, and the reader gets POSIX_TRACE_OVERFLOW (time
 * of the first event overwritten) then POSIX_TRACE_RESUME (time of the
 * next event) before the first event after the gap.
 *
 * POSIX_TRACE_UNTIL_FULL: the first event that does not fit is lost, the
 * stream stops by itself (SUSPENDED+FULL, OVERRUN) with a POSIX_TRACE_STOP
 * whose "auto" data is 1, and once the reader has read everything it
 * restarts, recording a POSIX_TRACE_START; unless posix_trace_stop() was
 * called meanwhile.
 */
#define _GNU_SOURCE
#include "trc_common.h"

/*
 * The next events must be one run of an UNTIL_FULL stream: START, the user
 * events numbered first to last, then the STOP with the given "auto" data.
 */
#define ASSERT_NEXT_RUN(trid, r, id, first, last, auto_value) do {	\
	uint64_t _i;							\
	ASSERT_NEXT(trid, r, POSIX_TRACE_START);			\
	for (_i = (first); _i <= (last); _i++)				\
		ASSERT_NEXT_NUMBERED(trid, r, id, _i);			\
	ASSERT_NEXT_STOP(trid, r, auto_value);				\
} while (0)

FIXTURE(policy) {
	trace_attr_t attr;
	trace_id_t trid;
	trace_event_id_t id;
	size_t data_len;	/* of each user event */
	size_t rsize;		/* R: its size in the stream */
	size_t ssize;		/* S */
	bool created;
	unsigned char data[128];
};

/*
 * fit user events fit after START, in S = 208 + fit * R + slack bytes. The
 * slack is always less than R, so that one more event never fits:
 * R - short_by bytes, or none when short_by is 0.
 */
FIXTURE_VARIANT(policy) {
	size_t data_len;
	size_t fit;
	size_t short_by;
};

FIXTURE_VARIANT_ADD(policy, data8_fit4_exact) {
	.data_len = 8, .fit = 4, .short_by = 0,
};

FIXTURE_VARIANT_ADD(policy, data16_fit5_slack) {
	.data_len = 16, .fit = 5, .short_by = 8,
};

FIXTURE_VARIANT_ADD(policy, data100_fit3_exact) {
	.data_len = 100, .fit = 3, .short_by = 0,
};

FIXTURE_VARIANT_ADD(policy, data100_fit3_slack) {
	.data_len = 100, .fit = 3, .short_by = 8,
};


FIXTURE_SETUP(policy)
{
	self->created = false;
	SKIP_WITHOUT_DEVICE();
	self->data_len = variant->data_len;
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 128));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->attr,
				self->data_len, &self->rsize));
	ASSERT_LT(RECORD_SIZE, self->rsize);
	self->ssize = START_RECORD_SIZE + variant->fit * self->rsize;
	if (variant->short_by)
		self->ssize += self->rsize - variant->short_by;
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, self->ssize));
	ASSERT_EQ(0, posix_trace_eventid_open("policy_event", &self->id));
}

FIXTURE_TEARDOWN(policy)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	posix_trace_attr_destroy(&self->attr);
}

static void emit(FIXTURE_DATA(policy) *self, uint64_t n)
{
	memset(self->data, (int)(n & 0xff), sizeof(self->data));
	memcpy(self->data, &n, sizeof(n));
	posix_trace_event(self->id, self->data, self->data_len);
}

static int create_with(FIXTURE_DATA(policy) *self, int policy)
{
	int ret;

	ret = posix_trace_attr_setstreamfullpolicy(&self->attr, policy);
	if (ret)
		return ret;
	return create_stream(&self->attr, &self->trid, &self->created);
}

/* Create the stream with the given policy, start it, emit events 1 to n. */
static void start_and_emit(struct __test_metadata *_metadata,
			   FIXTURE_DATA(policy) *self, int policy, size_t n)
{
	size_t i;

	ASSERT_EQ(0, create_with(self, policy));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 1; i <= n; i++)
		emit(self, i);
}

/*
 * n events, more than fit, into a stream of the given policy: get_status
 * says OVERRUN, then NO_OVERRUN once read, the stream staying in state
 * and FULL; one more event, numbered again, is a new loss: OVERRUN again.
 */
static void overrun_reset_by_get_status_set_by_loss(
		struct __test_metadata *_metadata, FIXTURE_DATA(policy) *self,
		int policy, size_t n, int state, uint64_t again)
{
	start_and_emit(_metadata, self, policy, n);
	ASSERT_STATUS(self->trid, state, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_STATUS(self->trid, state, POSIX_TRACE_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self, again);
	ASSERT_STATUS(self->trid, state, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
}

/* ---- POSIX_TRACE_UNTIL_FULL ---------------------------------------- */

TEST_F(policy, until_full_records_exactly_what_fits_then_auto_stops)
{
	size_t fit = variant->fit;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_UNTIL_FULL, fit);
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self, fit + 1);	/* does not fit: lost, stream stops */
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	emit(self, fit + 2);

	/* "a POSIX_TRACE_STOP ... reported after the last recorded event" */
	ASSERT_NEXT_RUN(self->trid, &r, self->id, 1, fit, 1);
}

TEST_F(policy, until_full_overrun_reset_by_get_status_set_by_each_loss)
{
	/* Event 100, generated while the stream is full, is lost again. */
	overrun_reset_by_get_status_set_by_loss(_metadata, self,
			POSIX_TRACE_UNTIL_FULL, variant->fit + 1,
			POSIX_TRACE_SUSPENDED, 100);
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_NO_OVERRUN);
}

/* Once all is read, the stream restarts with a START, then records again. */
TEST_F(policy, until_full_restarts_with_start_once_everything_is_read)
{
	size_t fit = variant->fit;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_UNTIL_FULL, fit + 3);
	ASSERT_NEXT_RUN(self->trid, &r, self->id, 1, fit, 1);
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(self->trid, &r);
	emit(self, 1000);
	ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, 1000);
	ASSERT_EMPTY(self->trid, &r);
}

/* After the restart, the stream holds exactly as much as when created. */
TEST_F(policy, until_full_exact_count_again_after_restart)
{
	size_t fit = variant->fit, i;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_UNTIL_FULL, fit + 1);
	ASSERT_NEXT_RUN(self->trid, &r, self->id, 1, fit, 1);
	/* Restarted; START not read yet: it is in the stream. */
	for (i = 101; i <= 100 + fit + 1; i++)
		emit(self, i);
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT_RUN(self->trid, &r, self->id, 101, 100 + fit, 1);
}

/* "If the trace stream is full, the POSIX_TRACE_START ... shall not be
 * recorded and the status of the trace stream shall not be changed." */
TEST_F(policy, until_full_start_while_full_does_nothing)
{
	size_t fit = variant->fit;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_UNTIL_FULL, fit + 1);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	emit(self, 50);	/* still lost */
	ASSERT_NEXT_RUN(self->trid, &r, self->id, 1, fit, 1);
	/* The one START that follows is the automatic restart's. */
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * A clear empties a stream the kernel stopped because it was full: it was
 * running for its caller, so it runs again, as after the read that would
 * have emptied it (a START first), and records what comes next. It stayed
 * suspended for good before, its events neither recorded nor lost.
 */
TEST_F(policy, until_full_clear_while_full_restarts)
{
	size_t fit = variant->fit;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_UNTIL_FULL, fit + 1);
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self, 500);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, 500);
	ASSERT_EMPTY(self->trid, &r);
}

/* Stopped by its caller while full, a cleared stream stays stopped. */
TEST_F(policy, until_full_stop_then_clear_stays_suspended)
{
	size_t fit = variant->fit;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_UNTIL_FULL, fit + 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self, 501);
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * stop on a full stream records no STOP and changes nothing now; but it
 * keeps the stream from restarting once it is read.
 */
TEST_F(policy, until_full_stop_while_full_prevents_restart)
{
	size_t fit = variant->fit;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_UNTIL_FULL, fit + 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT_RUN(self->trid, &r, self->id, 1, fit, 1);
	ASSERT_EMPTY(self->trid, &r);
	{
		struct posix_trace_status_info st;

		ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
		ASSERT_EQ(POSIX_TRACE_SUSPENDED, st.posix_stream_status);
	}
	emit(self, 77);	/* suspended by stop: no effect */
	ASSERT_EMPTY(self->trid, &r);
	/* An explicit start works again. */
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self, 78);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, 78);
	ASSERT_EMPTY(self->trid, &r);
}

/* ---- POSIX_TRACE_LOOP ---------------------------------------------- */

TEST_F(policy, loop_without_loss_reports_every_event_and_no_overflow)
{
	size_t fit = variant->fit, i;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_LOOP, fit);
	{
		struct posix_trace_status_info st;

		ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
		ASSERT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
		ASSERT_EQ(POSIX_TRACE_NO_OVERRUN,
			  st.posix_stream_overrun_status);
	}
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	for (i = 1; i <= fit; i++)
		ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, i);
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * M events into a loop holding K = floor(S / R): START and the first
 * M - K are overwritten. The reader gets OVERFLOW (START's time: the first
 * overwritten), RESUME (the time of the first event kept), then the last K.
 */
TEST_F(policy, loop_keeps_exactly_the_most_recent_events)
{
	size_t keep = self->ssize / self->rsize, m = keep + 6, i;
	struct timespec before, after, resume;
	struct rec r;

	ASSERT_EQ(0, create_with(self, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &before));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &after));
	for (i = 1; i <= m; i++)
		emit(self, i);
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);

	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_OVERFLOW);
	ASSERT_EQ(0, r.len);
	ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &before));
	ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &after));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_RESUME);
	ASSERT_EQ(0, r.len);
	resume = r.info.posix_timestamp;
	ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, m - keep + 1);
	ASSERT_EQ(0, ts_cmp(&resume, &r.info.posix_timestamp));
	/* Space was freed by reading: no longer full. */
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	for (i = m - keep + 2; i <= m; i++)
		ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, i);
	ASSERT_EMPTY(self->trid, &r);
}

/* get_status resets the overrun status; the full status stays. */
TEST_F(policy, loop_get_status_resets_overrun_but_not_full)
{
	overrun_reset_by_get_status_set_by_loss(_metadata, self,
			POSIX_TRACE_LOOP, variant->fit + 4,
			POSIX_TRACE_RUNNING, 99);
}

/* Each gap gets its own OVERFLOW/RESUME pair, right before its events. */
TEST_F(policy, loop_reports_each_gap_with_overflow_and_resume)
{
	size_t keep = self->ssize / self->rsize, i;
	struct timespec before, after, resume;
	struct rec r;

	start_and_emit(_metadata, self, POSIX_TRACE_LOOP, keep + 2);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_OVERFLOW);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_RESUME);
	for (i = 3; i <= keep + 2; i++)
		ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, i);
	ASSERT_EMPTY(self->trid, &r);

	/* Empty again: keep events fit, the next 2 overwrite the first 2. */
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &before));
	emit(self, 101);
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &after));
	for (i = 102; i <= 100 + keep + 2; i++)
		emit(self, i);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_OVERFLOW);
	ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &before));
	ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &after));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_RESUME);
	resume = r.info.posix_timestamp;
	ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, 103);
	ASSERT_EQ(0, ts_cmp(&resume, &r.info.posix_timestamp));
	for (i = 104; i <= 100 + keep + 2; i++)
		ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, i);
	ASSERT_EMPTY(self->trid, &r);
}

/* Events read before the gap are not affected; the markers sit at it. */
TEST_F(policy, loop_overflow_marker_follows_events_already_read)
{
	size_t keep = self->ssize / self->rsize, i;
	struct rec r;

	ASSERT_EQ(0, create_with(self, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	emit(self, 1);
	ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, 1);
	ASSERT_EMPTY(self->trid, &r);
	for (i = 2; i <= keep + 2; i++)
		emit(self, i);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_OVERFLOW);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_RESUME);
	for (i = 3; i <= keep + 2; i++)
		ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, i);
	ASSERT_EMPTY(self->trid, &r);
}

/* ---- the smallest stream --------------------------------------------- */

/*
 * 352 bytes, the smallest stream: START (208) fits, an event of 152 does
 * not (144 bytes are left); STOP goes in the reserve.
 */
TEST(until_full_stream_of_352_bytes_holds_start_and_auto_stop)
{
	unsigned char data[88] = { 0 };
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	struct rec r;
	size_t rsize;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 352));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, sizeof(data)));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&attr, sizeof(data),
							  &rsize));
	ASSERT_EQ(152, rsize);
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("tiny", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	posix_trace_event(id, data, sizeof(data));
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT_STOP(trid, &r, 1);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * An UNTIL_FULL stream stopped because full still has room left (the
 * event that did not fit was large): small events made then are lost, and
 * must be counted so before a reader empties the stream and it restarts.
 * A reader that took what the stream held before judging them restarted
 * it first, and recorded them after the restart's START.
 */
TEST(until_full_events_made_while_full_are_lost_though_room_is_left)
{
	unsigned char big[1024] = { 0 };
	struct posixtrace_status st;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	struct rec r;
	uint64_t n;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 4096));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, sizeof(big)));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("small", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	/* 208 + 39 * 72 = 3016 of 4096: 1,080 left, 1,088 for the big one. */
	for (n = 0; n < 39; n++)
		posix_trace_event(id, &n, sizeof(n));
	posix_trace_event(id, big, sizeof(big));
	/* A status drains: full, stopped, the big one lost. */
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	for (n = 100; n < 103; n++)
		posix_trace_event(id, &n, sizeof(n));
	ASSERT_NEXT_START(trid, &r, &(trace_event_set_t){ 0 });
	for (n = 0; n < 39; n++)
		ASSERT_NEXT_NUMBERED(trid, &r, id, n);
	ASSERT_NEXT_STOP(trid, &r, 1);
	/* Emptied: it restarts; the three made while full are not after. */
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(4, st.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * A reader finds an event made after many its stream filters out (another
 * stream records them, so they are written and drained): the drains that
 * take those for it take the next ones too, and a try that comes after
 * the event was made returns it.
 */
TEST(a_reader_finds_an_event_past_many_its_stream_filters_out)
{
	trace_event_id_t skipped, wanted;
	trace_id_t trid, other;
	trace_event_set_t set;
	trace_attr_t attr;
	struct rec r;
	uint64_t n;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &other));
	ASSERT_EQ(0, posix_trace_eventid_open("skipped", &skipped));
	ASSERT_EQ(0, posix_trace_eventid_open("wanted", &wanted));
	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(0, posix_trace_eventset_add(skipped, &set));
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_start(other));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(trid, &r);
	/*
	 * More than a reader's drain takes in one hold of its lock (256),
	 * fewer than a quarter of a 64 KiB ring (no kick drains them).
	 */
	for (n = 0; n < 280; n++)
		posix_trace_event(skipped, &n, sizeof(n));
	posix_trace_event(wanted, &n, sizeof(n));
	ASSERT_NEXT_NUMBERED(trid, &r, wanted, 280);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(other));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * A reader's batch too full for the next record leaves it to the stream;
 * the smaller records after it must not pass it into the batch: events
 * come out in the order they were made. Small and large events alternate,
 * more than a 64 KiB batch holds and less than a quarter of the thread's
 * ring (no kick drains them: the reader takes them from the ring). Small
 * first: the drain hands the stream its records in runs of an even
 * number, and the run after the one with the record that did not fit
 * then begins with a small record, which would fit.
 */
TEST(a_record_too_big_for_the_batch_is_not_passed_by_smaller_ones)
{
	static unsigned char big[6000];
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t n;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, sizeof(big)));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 1024 * 1024));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("alternating", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(trid, &r);
	for (n = 0; n < 64; n++) {
		memcpy(big, &n, sizeof(n));
		posix_trace_event(id, big, n % 2 ? sizeof(big) : sizeof(n));
	}
	for (n = 0; n < 64; n++)
		ASSERT_NEXT_NUMBERED(trid, &r, id, n);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/* 352 bytes looping with 352-byte events: each one replaces the last. */
TEST(loop_stream_of_352_bytes_keeps_the_last_event)
{
	unsigned char data[288] = { 0 };
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	struct rec r;
	uint64_t n;
	size_t rsize;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 352));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, sizeof(data)));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&attr, sizeof(data),
							  &rsize));
	ASSERT_EQ(352, rsize);
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("tiny", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (n = 1; n <= 3; n++) {
		memcpy(data, &n, sizeof(n));
		posix_trace_event(id, data, sizeof(data));
	}
	ASSERT_NEXT(trid, &r, POSIX_TRACE_OVERFLOW);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_RESUME);
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(sizeof(data), r.len);
	memcpy(&n, r.data, sizeof(n));
	ASSERT_EQ(3, n);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/* Data beyond max-data-size is recorded truncated and costs no more. */
TEST(until_full_counts_truncated_events_at_truncated_size)
{
	unsigned char big[1000];
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	struct rec r;
	size_t rsize, fit = 6, i;

	SKIP_WITHOUT_DEVICE();
	memset(big, 0xab, sizeof(big));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 16));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&attr, sizeof(big),
							  &rsize));
	ASSERT_EQ(RECORD_SIZE + 16, rsize);
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr,
				START_RECORD_SIZE + fit * rsize));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("big", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < fit + 1; i++)
		posix_trace_event(id, big, sizeof(big));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	for (i = 0; i < fit; i++) {
		ASSERT_NEXT(trid, &r, id);
		ASSERT_EQ(16, r.len);
		ASSERT_EQ(POSIX_TRACE_TRUNCATED_RECORD,
			  r.info.posix_truncation_status);
	}
	ASSERT_NEXT(trid, &r, POSIX_TRACE_STOP);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/* An UNTIL_FULL stream of stream_size bytes for user events of data_len. */
static void until_full_stream(struct __test_metadata *_metadata,
			      size_t stream_size, size_t max_data,
			      trace_id_t *trid, trace_event_id_t *id)
{
	trace_attr_t attr;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, max_data));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, stream_size));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_create(0, &attr, trid));
	ASSERT_EQ(0, posix_trace_eventid_open("until_full", id));
	posix_trace_attr_destroy(&attr);
}

/*
 * "The ring holds exactly stream_size bytes of records", whatever the
 * size: S = 208 + 4 * 72 + 71 holds START and 4 events of 72 bytes, not 5;
 * and get_attr reports S.
 */
TEST(until_full_exact_count_with_stream_size_not_multiple_of_8)
{
	size_t rsize, size = 0, s = START_RECORD_SIZE + 4 * 72 + 71;
	trace_event_id_t id;
	trace_attr_t got;
	trace_id_t trid;
	struct rec r;
	uint64_t n;

	SKIP_WITHOUT_DEVICE();
	until_full_stream(_metadata, s, 8, &trid, &id);
	ASSERT_EQ(0, posix_trace_attr_init(&got));
	ASSERT_EQ(0, posix_trace_get_attr(trid, &got));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&got, 8, &rsize));
	ASSERT_EQ(72, rsize);
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&got, &size));
	EXPECT_EQ(s, size);
	posix_trace_attr_destroy(&got);

	ASSERT_EQ(0, posix_trace_start(trid));
	for (n = 1; n <= 5; n++)
		posix_trace_event(id, &n, sizeof(n));
	ASSERT_NEXT_RUN(trid, &r, id, 1, 4, 1);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * Stopped by posix_trace_stop() with its space used up exactly (START and
 * 4 events fill it, STOP takes the system events' reserve), then started:
 * start may leave the stream alone only "if the trace stream is full",
 * which get_status must then say; otherwise the stream runs.
 */
TEST(until_full_start_after_stop_on_exactly_full_stream_runs_or_reports_full)
{
	struct posix_trace_status_info st;
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	uint64_t n;

	SKIP_WITHOUT_DEVICE();
	until_full_stream(_metadata, START_RECORD_SIZE + 4 * 72, 8, &trid, &id);
	ASSERT_EQ(0, posix_trace_start(trid));
	for (n = 1; n <= 4; n++)
		posix_trace_event(id, &n, sizeof(n));
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	if (st.posix_stream_status != POSIX_TRACE_RUNNING)
		ASSERT_EQ(POSIX_TRACE_FULL, st.posix_stream_full_status) {
			TH_LOG("start returned 0; stream suspended, not full");
		}
	ASSERT_NEXT_RUN(trid, &r, id, 1, 4, 0);
	/* Read out: now start must work, whatever happened before. */
	while (!try_next(trid, &r) && !r.unavailable)
		;
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	ASSERT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A stream that stops when full records a prefix of what was generated:
 * the first event that does not fit (here: one larger than the whole
 * stream) is lost and stops the stream, so that no later event is
 * recorded after a silent gap.
 */
TEST(until_full_event_larger_than_stream_is_lost_and_stops_it)
{
	static unsigned char big[4096];
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	uint64_t n;

	SKIP_WITHOUT_DEVICE();
	until_full_stream(_metadata, 1024, sizeof(big), &trid, &id);
	ASSERT_EQ(0, posix_trace_start(trid));
	n = 1;
	posix_trace_event(id, &n, sizeof(n));
	posix_trace_event(id, big, sizeof(big));	/* never fits */
	n = 3;
	posix_trace_event(id, &n, sizeof(n));
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT_RUN(trid, &r, id, 1, 1, 1);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* The largest events (64 KiB of data) survive an overflow whole. */
TEST(loop_overflow_with_64kib_events_reports_them_whole)
{
	static unsigned char data[64 << 10];
	static unsigned char buf[64 << 10];
	struct posix_trace_event_info info;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	size_t rsize, len, i;
	uint32_t n;
	int unavailable;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, sizeof(data)));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&attr, sizeof(data),
							  &rsize));
	ASSERT_EQ(RECORD_SIZE + sizeof(data), rsize);
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 2 * rsize));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("huge", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (n = 1; n <= 5; n++) {
		memset(data, (int)n, sizeof(data));
		memcpy(data, &n, sizeof(n));
		posix_trace_event(id, data, sizeof(data));
	}
	ASSERT_EQ(0, posix_trace_trygetnext_event(trid, &info, buf, sizeof(buf),
						  &len, &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(POSIX_TRACE_OVERFLOW, info.posix_event_id);
	ASSERT_EQ(0, posix_trace_trygetnext_event(trid, &info, buf, sizeof(buf),
						  &len, &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(POSIX_TRACE_RESUME, info.posix_event_id);
	/* Two fit: the last two. */
	for (n = 4; n <= 5; n++) {
		ASSERT_EQ(0, posix_trace_trygetnext_event(trid, &info, buf,
					sizeof(buf), &len, &unavailable));
		ASSERT_EQ(0, unavailable);
		ASSERT_EQ(id, info.posix_event_id);
		ASSERT_EQ(sizeof(buf), len);
		ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED,
			  info.posix_truncation_status);
		ASSERT_EQ(0, memcmp(&n, buf, sizeof(n)));
		for (i = sizeof(n); i < sizeof(buf); i += 4099)
			ASSERT_EQ((unsigned char)n, buf[i]);
	}
	ASSERT_EQ(0, posix_trace_trygetnext_event(trid, &info, buf, sizeof(buf),
						  &len, &unavailable));
	ASSERT_NE(0, unavailable);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

TEST_HARNESS_MAIN
