// SPDX-License-Identifier: GPL-2.0
/*
 * The trace controller (POSIX Trace option, TRC): posix_trace_create,
 * start, stop, clear, shutdown, get_status, get_attr. The state machine
 * (created suspended, START and STOP events, idempotent start and stop),
 * clear, the overrun status reset by get_status, and [EINVAL] for a trace
 * stream identifier that was shut down, for every function taking one.
 */
#define _GNU_SOURCE
#include "trc_common.h"

FIXTURE(stream) {
	trace_attr_t attr;
	trace_id_t trid;
	trace_event_id_t ev;
	bool created;
};

FIXTURE_SETUP(stream)
{
	self->created = false;
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 16384));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 64));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_eventid_open("stream_test", &self->ev));
}

FIXTURE_TEARDOWN(stream)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	posix_trace_attr_destroy(&self->attr);
}

/* The standard: overrun "is reset to zero after its value is read". */
TEST(no_overrun_constant_is_zero)
{
	ASSERT_EQ(0, POSIX_TRACE_NO_OVERRUN);
}

TEST_F(stream, created_stream_is_suspended_not_full_no_overrun)
{
	struct rec r;

	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, events_before_start_are_not_recorded)
{
	struct rec r;

	posix_trace_event(self->ev, "x", 1);
	ASSERT_EMPTY(self->trid, &r);
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
}

TEST_F(stream, start_records_start_event_and_runs)
{
	struct timespec before, after;
	struct rec r;

	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &before));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &after));
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	/* With TEF, START carries the filter in force: empty by default. */
	ASSERT_NEXT_START(self->trid, &r, &(trace_event_set_t){ 0 });
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, r.info.posix_truncation_status);
	ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &before));
	ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &after));
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, start_on_running_stream_records_nothing_more)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, stop_records_stop_with_zero_data_and_suspends)
{
	struct timespec before, after;
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &before));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &after));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	/* "auto : int", 0 for a call of posix_trace_stop(). */
	ASSERT_NEXT_STOP(self->trid, &r, 0);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &before));
	ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &after));
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, stop_on_created_stream_records_nothing)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, stop_on_stopped_stream_records_nothing_more)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_STOP);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, events_recorded_only_between_start_and_stop)
{
	uint32_t i;
	struct rec r;

	posix_trace_event(self->ev, &(uint32_t){ 1 }, sizeof(uint32_t));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(self->ev, &(uint32_t){ 2 }, sizeof(uint32_t));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	posix_trace_event(self->ev, &(uint32_t){ 3 }, sizeof(uint32_t));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(self->ev, &(uint32_t){ 4 }, sizeof(uint32_t));

	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(self->trid, &r, self->ev);
	memcpy(&i, r.data, sizeof(i));
	ASSERT_EQ(2, i);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_STOP);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(self->trid, &r, self->ev);
	memcpy(&i, r.data, sizeof(i));
	ASSERT_EQ(4, i);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, start_stop_events_have_nondecreasing_timestamps)
{
	struct timespec prev = { 0, 0 };
	struct rec r;
	int i;

	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, posix_trace_start(self->trid));
		ASSERT_EQ(0, posix_trace_stop(self->trid));
	}
	for (i = 0; i < 10; i++) {
		ASSERT_NEXT(self->trid, &r,
			    i % 2 ? POSIX_TRACE_STOP : POSIX_TRACE_START);
		ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &prev));
		prev = r.info.posix_timestamp;
	}
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, clear_drops_events_and_keeps_running)
{
	uint32_t i;
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 10; i++)
		posix_trace_event(self->ev, &i, sizeof(i));
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_EMPTY(self->trid, &r);
	/* Still running: a new event is recorded, with no START before it. */
	i = 42;
	posix_trace_event(self->ev, &i, sizeof(i));
	ASSERT_NEXT(self->trid, &r, self->ev);
	memcpy(&i, r.data, sizeof(i));
	ASSERT_EQ(42, i);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, clear_drops_events_partly_read)
{
	uint32_t i;
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 10; i++)
		posix_trace_event(self->ev, &i, sizeof(i));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(self->trid, &r, self->ev);
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(stream, clear_keeps_suspended_stream_suspended)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(self->ev, "a", 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_EMPTY(self->trid, &r);
	posix_trace_event(self->ev, "b", 1);
	ASSERT_EMPTY(self->trid, &r);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * A looping stream overwriting events is RUNNING, FULL and OVERRUN; clear
 * makes it NOT_FULL and NO_OVERRUN, still running, and the events after it
 * come with no overflow marker (nothing lost since the clear).
 */
TEST_F(stream, clear_resets_full_and_overrun_of_looping_stream)
{
	trace_attr_t attr;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 1024));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 100; i++)
		posix_trace_event(self->ev, &i, sizeof(i));
	ASSERT_EQ(0, posix_trace_clear(trid));
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	i = 1000;
	posix_trace_event(self->ev, &i, sizeof(i));
	ASSERT_NEXT(trid, &r, self->ev);
	memcpy(&i, r.data, sizeof(i));
	ASSERT_EQ(1000, i);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

TEST_F(stream, clear_keeps_event_type_mapping)
{
	trace_event_id_t id;
	char name[TRACE_EVENT_NAME_MAX + 1];

	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "kept", &id));
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, name));
	ASSERT_STREQ("kept", name);
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, self->ev, name));
	ASSERT_STREQ("stream_test", name);
}

TEST_F(stream, get_status_resets_overrun_to_no_overrun)
{
	trace_attr_t attr;
	trace_id_t trid;
	uint32_t i;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 1024));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 100; i++)
		posix_trace_event(self->ev, &i, sizeof(i));
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	/* Read and reset: the second call sees no new loss. */
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	/* A new loss sets it again. */
	posix_trace_event(self->ev, &i, sizeof(i));
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

TEST_F(stream, shutdown_returns_zero_and_discards_unread_events)
{
	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(self->ev, "unread", 6);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->created = false;
	/* The process is no longer traced: emitting is harmless. */
	posix_trace_event(self->ev, "after", 5);
}

TEST_F(stream, streams_of_one_process_are_independent)
{
	trace_id_t other;
	struct rec r;

	ASSERT_EQ(0, posix_trace_create(0, &self->attr, &other));
	ASSERT_NE(self->trid, other);
	ASSERT_EQ(0, posix_trace_start(other));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_STATUS(other, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	posix_trace_event(self->ev, "o", 1);
	ASSERT_EMPTY(self->trid, &r);
	ASSERT_NEXT(other, &r, POSIX_TRACE_START);
	ASSERT_NEXT(other, &r, self->ev);
	ASSERT_EQ(0, posix_trace_shutdown(other));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
}

/*
 * Every function taking a trid "shall fail" with [EINVAL] when it does not
 * correspond to an active trace stream. The trid of a stream shut down is
 * such an identifier.
 */
FIXTURE(dead) {
	trace_id_t trid;
};

FIXTURE_SETUP(dead)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_create(0, NULL, &self->trid));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
}

FIXTURE_TEARDOWN(dead)
{
}

TEST_F(dead, start_is_einval)
{
	ASSERT_EQ(EINVAL, posix_trace_start(self->trid));
}

TEST_F(dead, stop_is_einval)
{
	ASSERT_EQ(EINVAL, posix_trace_stop(self->trid));
}

TEST_F(dead, clear_is_einval)
{
	ASSERT_EQ(EINVAL, posix_trace_clear(self->trid));
}

TEST_F(dead, shutdown_twice_is_einval)
{
	ASSERT_EQ(EINVAL, posix_trace_shutdown(self->trid));
}

TEST_F(dead, get_attr_is_einval)
{
	trace_attr_t attr;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(EINVAL, posix_trace_get_attr(self->trid, &attr));
	posix_trace_attr_destroy(&attr);
}

TEST_F(dead, get_status_is_einval)
{
	struct posix_trace_status_info st;

	ASSERT_EQ(EINVAL, posix_trace_get_status(self->trid, &st));
}

TEST_F(dead, trid_eventid_open_is_einval)
{
	trace_event_id_t id;

	ASSERT_EQ(EINVAL, posix_trace_trid_eventid_open(self->trid, "x", &id));
}

TEST_F(dead, eventid_get_name_is_einval)
{
	char name[TRACE_EVENT_NAME_MAX + 1];

	ASSERT_EQ(EINVAL, posix_trace_eventid_get_name(self->trid,
						       POSIX_TRACE_START, name));
}

TEST_F(dead, eventtypelist_getnext_id_is_einval)
{
	trace_event_id_t id;
	int unavailable;

	ASSERT_EQ(EINVAL, posix_trace_eventtypelist_getnext_id(self->trid, &id,
							       &unavailable));
}

TEST_F(dead, eventtypelist_rewind_is_einval)
{
	ASSERT_EQ(EINVAL, posix_trace_eventtypelist_rewind(self->trid));
}

TEST_F(dead, getnext_event_is_einval)
{
	struct posix_trace_event_info info;
	char data[16];
	size_t len;
	int unavailable;

	ASSERT_EQ(EINVAL, posix_trace_getnext_event(self->trid, &info, data,
						    sizeof(data), &len,
						    &unavailable));
}

TEST_F(dead, trygetnext_event_is_einval)
{
	struct posix_trace_event_info info;
	char data[16];
	size_t len;
	int unavailable;

	ASSERT_EQ(EINVAL, posix_trace_trygetnext_event(self->trid, &info, data,
						       sizeof(data), &len,
						       &unavailable));
}

TEST_F(dead, timedgetnext_event_is_einval)
{
	struct posix_trace_event_info info;
	struct timespec abstime;
	char data[16];
	size_t len;
	int unavailable;

	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &abstime));
	abstime.tv_sec += 10;
	ASSERT_EQ(EINVAL, posix_trace_timedgetnext_event(self->trid, &info,
							 data, sizeof(data),
							 &len, &unavailable,
							 &abstime));
}

TEST_HARNESS_MAIN
