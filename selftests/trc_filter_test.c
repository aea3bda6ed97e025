// SPDX-License-Identifier: GPL-2.0
/*
 * The Trace Event Filter option (TEF): event type sets
 * (posix_trace_eventset_*), the filter of a stream (posix_trace_get_filter,
 * posix_trace_set_filter), the POSIX_TRACE_FILTER event and the filter
 * START carries, what a filter does to user and system events, to the
 * full policies and to loss accounting, several streams on one process, a
 * filter change racing with producers on another CPU, and the enable page
 * producers read before making a system call.
 *
 * The filter is the set of event types a stream does not record: empty at
 * creation. A filtered event is neither recorded nor lost. In this
 * implementation, START carries the filter in force (208 bytes in the
 * stream), FILTER the old and the new one (352 bytes), STOP its int (72).
 *
 * Processes synchronise through pipes; forked children never use the
 * harness's ASSERTs. No test sleeps to let something happen.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "trc_common.h"

/* Event type identifiers are 0 .. ID_MAX - 1; the system ones 0 .. 7. */
#define ID_MAX		POSIXTRACE_EVENT_ID_MAX
#define NSYSTEM		8

/* ---- helpers ---------------------------------------------------------- */

/* The first id in which a and b differ, or -1. */
static int set_diff(const trace_event_set_t *a, const trace_event_set_t *b)
{
	int a_in, b_in, id;

	for (id = 0; id < ID_MAX; id++) {
		a_in = b_in = -1;
		posix_trace_eventset_ismember(id, a, &a_in);
		posix_trace_eventset_ismember(id, b, &b_in);
		if (!a_in != !b_in)
			return id;
	}
	return -1;
}

#define ASSERT_SET_EQ(expected, seen) do {				\
	int _id = set_diff((expected), (seen));				\
	ASSERT_EQ(-1, _id) {						\
		TH_LOG("sets differ at event type %d", _id);		\
	}								\
	ASSERT_EQ(0, memcmp((expected), (seen), EVENTSET_SIZE));	\
} while (0)

/* *s = the n ids given, built with the eventset functions. */
static void set_of(struct __test_metadata *_metadata, trace_event_set_t *s,
		   const trace_event_id_t *ids, size_t n)
{
	size_t i;

	memset(s, 0xa5, sizeof(*s));
	ASSERT_EQ(0, posix_trace_eventset_empty(s));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, posix_trace_eventset_add(ids[i], s));
}

#define IDS(...)	((const trace_event_id_t[]){ __VA_ARGS__ })
#define NIDS(...)	(sizeof(IDS(__VA_ARGS__)) / sizeof(trace_event_id_t))
#define SET_OF(s, ...) \
	set_of(_metadata, (s), IDS(__VA_ARGS__), NIDS(__VA_ARGS__))
#define SET_EMPTY(s)	set_of(_metadata, (s), NULL, 0)

static bool member(const trace_event_set_t *s, trace_event_id_t id)
{
	int in = 0;

	posix_trace_eventset_ismember(id, s, &in);
	return in;
}

/* The filter of trid must be *expected. */
#define ASSERT_FILTER(trid, expected) do {				\
	trace_event_set_t _got;						\
	memset(&_got, 0x5a, sizeof(_got));				\
	ASSERT_EQ(0, posix_trace_get_filter(trid, &_got));		\
	ASSERT_SET_EQ(expected, &_got);					\
} while (0)

/* The next event must be FILTER, with data the old then the new filter. */
#define ASSERT_NEXT_FILTER(trid, r, old, new) do {			\
	ASSERT_NEXT(trid, r, POSIX_TRACE_FILTER);			\
	ASSERT_EQ(2 * EVENTSET_SIZE, (r)->len);				\
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED,				\
		  (r)->info.posix_truncation_status);			\
	ASSERT_EQ(0, memcmp((old), (r)->data, EVENTSET_SIZE));		\
	ASSERT_EQ(0, memcmp((new), (r)->data + EVENTSET_SIZE,		\
			    EVENTSET_SIZE));				\
} while (0)

/* A user event whose data is the uint32_t n. */
static void emit(trace_event_id_t id, uint32_t n)
{
	posix_trace_event(id, &n, sizeof(n));
}

#define ASSERT_NEXT_USER(trid, r, id, n) do {				\
	uint32_t _n;							\
	ASSERT_NEXT(trid, r, id);					\
	ASSERT_EQ(sizeof(_n), (r)->len);				\
	memcpy(&_n, (r)->data, sizeof(_n));				\
	ASSERT_EQ((uint32_t)(n), _n);					\
} while (0)

/* A user event of 4 bytes of data takes 72 bytes in a stream. */
#define USER_SIZE	(RECORD_SIZE + 8)

/* ---- event type sets (library only: no module needed) --------------- */

TEST(eventset_empty_excludes_every_type)
{
	trace_event_set_t s;
	int id, in;

	ASSERT_EQ(0, posix_trace_eventset_fill(&s, POSIX_TRACE_ALL_EVENTS));
	ASSERT_EQ(0, posix_trace_eventset_empty(&s));
	for (id = 0; id < ID_MAX; id++) {
		in = -1;
		ASSERT_EQ(0, posix_trace_eventset_ismember(id, &s, &in));
		ASSERT_EQ(0, in) {
			TH_LOG("type %d", id);
		}
	}
}

/*
 * fill is one of the two ways to initialise a set ("shall call either
 * posix_trace_eventset_empty() or posix_trace_eventset_fill() ... prior to
 * any other use"): whatever the object held, it holds exactly what.
 */
static void assert_fill(struct __test_metadata *_metadata, int what,
			int members)
{
	static const unsigned char junk[] = { 0x00, 0xff, 0xa5 };
	trace_event_set_t s;
	int id, in;
	size_t j;

	for (j = 0; j < sizeof(junk); j++) {
		memset(&s, junk[j], sizeof(s));
		ASSERT_EQ(0, posix_trace_eventset_fill(&s, what));
		for (id = 0; id < ID_MAX; id++) {
			in = -1;
			ASSERT_EQ(0, posix_trace_eventset_ismember(id, &s, &in));
			ASSERT_EQ(id < members, !!in) {
				TH_LOG("what %d, type %d, junk %#x", what, id,
				       junk[j]);
			}
		}
	}
}

TEST(eventset_fill_all_events_is_every_type)
{
	assert_fill(_metadata, POSIX_TRACE_ALL_EVENTS, ID_MAX);
}

/* Every system event type (0-7) of this implementation. */
TEST(eventset_fill_system_events_is_types_0_to_7)
{
	assert_fill(_metadata, POSIX_TRACE_SYSTEM_EVENTS, NSYSTEM);
}

/* They are all process-independent here. */
TEST(eventset_fill_wopid_events_is_types_0_to_7)
{
	assert_fill(_metadata, POSIX_TRACE_WOPID_EVENTS, NSYSTEM);
}

/* [EINVAL] "The value of one of the arguments is invalid." */
TEST(eventset_fill_unknown_what_is_einval)
{
	static const int bad[] = {
		0, -1, POSIX_TRACE_WOPID_EVENTS - 1, POSIX_TRACE_ALL_EVENTS + 1,
		POSIX_TRACE_SET_EVENTSET, POSIX_TRACE_ADD_EVENTSET, 12345,
	};
	trace_event_set_t s;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(EINVAL, posix_trace_eventset_fill(&s, bad[i])) {
			TH_LOG("what %d", bad[i]);
		}
}

TEST(eventset_add_del_ismember)
{
	static const trace_event_id_t ids[] = {
		POSIX_TRACE_ERROR, POSIX_TRACE_FILTER, 8, 63,
		POSIX_TRACE_UNNAMED_USEREVENT, 65, 127, 128, ID_MAX - 1,
	};
	trace_event_set_t s;
	size_t i, j;
	int in;

	ASSERT_EQ(0, posix_trace_eventset_empty(&s));
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ASSERT_EQ(0, posix_trace_eventset_add(ids[i], &s));
		for (j = 0; j < sizeof(ids) / sizeof(ids[0]); j++) {
			in = -1;
			ASSERT_EQ(0, posix_trace_eventset_ismember(ids[j], &s,
								   &in));
			ASSERT_EQ(j <= i, !!in) {
				TH_LOG("after adding %d: %d", ids[i], ids[j]);
			}
		}
	}
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		ASSERT_EQ(0, posix_trace_eventset_del(ids[i], &s));
		for (j = 0; j < sizeof(ids) / sizeof(ids[0]); j++) {
			in = -1;
			ASSERT_EQ(0, posix_trace_eventset_ismember(ids[j], &s,
								   &in));
			ASSERT_EQ(j > i, !!in) {
				TH_LOG("after deleting %d: %d", ids[i], ids[j]);
			}
		}
	}
	ASSERT_EQ(0, memcmp(&(trace_event_set_t){ 0 }, &s, sizeof(s)));
}

/* "shall not be considered an error" */
TEST(eventset_add_of_member_and_del_of_nonmember_are_not_errors)
{
	trace_event_set_t s, before;

	SET_OF(&s, POSIX_TRACE_START, 100);
	before = s;
	ASSERT_EQ(0, posix_trace_eventset_add(100, &s));
	ASSERT_EQ(0, posix_trace_eventset_add(POSIX_TRACE_START, &s));
	ASSERT_SET_EQ(&before, &s);
	ASSERT_EQ(0, posix_trace_eventset_del(101, &s));
	ASSERT_EQ(0, posix_trace_eventset_del(POSIX_TRACE_STOP, &s));
	ASSERT_SET_EQ(&before, &s);
	/* A set filled with everything, then one more add. */
	ASSERT_EQ(0, posix_trace_eventset_fill(&s, POSIX_TRACE_ALL_EVENTS));
	before = s;
	ASSERT_EQ(0, posix_trace_eventset_add(ID_MAX - 1, &s));
	ASSERT_SET_EQ(&before, &s);
}

/* Identifiers out of range are invalid arguments; the set is kept. */
TEST(eventset_id_out_of_range_is_einval)
{
	static const trace_event_id_t bad[] = {
		-1, ID_MAX, ID_MAX + 63, 0x7fffffff, (trace_event_id_t)0x80000000,
	};
	trace_event_set_t s, before;
	size_t i;
	int in;

	SET_OF(&s, 1, 70);
	before = s;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(EINVAL, posix_trace_eventset_add(bad[i], &s)) {
			TH_LOG("add %d", bad[i]);
		}
		EXPECT_EQ(EINVAL, posix_trace_eventset_del(bad[i], &s)) {
			TH_LOG("del %d", bad[i]);
		}
		EXPECT_EQ(EINVAL, posix_trace_eventset_ismember(bad[i], &s, &in)) {
			TH_LOG("ismember %d", bad[i]);
		}
	}
	ASSERT_EQ(0, memcmp(&before, &s, sizeof(s)));
}

TEST(eventset_functions_with_null_set_are_einval)
{
	int in;

	EXPECT_EQ(EINVAL, posix_trace_eventset_empty(NULL));
	EXPECT_EQ(EINVAL, posix_trace_eventset_fill(NULL,
						    POSIX_TRACE_ALL_EVENTS));
	EXPECT_EQ(EINVAL, posix_trace_eventset_fill(NULL,
						    POSIX_TRACE_SYSTEM_EVENTS));
	EXPECT_EQ(EINVAL, posix_trace_eventset_add(1, NULL));
	EXPECT_EQ(EINVAL, posix_trace_eventset_del(1, NULL));
	EXPECT_EQ(EINVAL, posix_trace_eventset_ismember(1, NULL, &in));
}

/* Functions return an error number and leave errno alone (<trace.h>). */
TEST(eventset_functions_leave_errno_alone)
{
	trace_event_set_t s;
	int in;

	errno = 4242;
	posix_trace_eventset_empty(&s);
	posix_trace_eventset_fill(&s, 0);
	posix_trace_eventset_add(-1, &s);
	posix_trace_eventset_del(ID_MAX, &s);
	posix_trace_eventset_ismember(ID_MAX, &s, &in);
	ASSERT_EQ(4242, errno);
}

/* ---- a stream's filter ------------------------------------------------ */

FIXTURE(flt) {
	trace_attr_t attr;
	trace_id_t trid;
	trace_event_id_t a, b, c;
	bool created;
};

FIXTURE_SETUP(flt)
{
	self->created = false;
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 16));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_eventid_open("flt_a", &self->a));
	ASSERT_EQ(0, posix_trace_eventid_open("flt_b", &self->b));
	ASSERT_EQ(0, posix_trace_eventid_open("flt_c", &self->c));
}

FIXTURE_TEARDOWN(flt)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	posix_trace_attr_destroy(&self->attr);
}

/* "By default ... all trace events shall be recorded": an empty filter. */
TEST_F(flt, filter_of_new_stream_is_empty)
{
	trace_event_set_t empty;
	struct rec r;

	SET_EMPTY(&empty);
	ASSERT_FILTER(self->trid, &empty);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit(self->a, 1);
	ASSERT_NEXT_START(self->trid, &r, &empty);
	ASSERT_NEXT_USER(self->trid, &r, self->a, 1);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(flt, set_eventset_replaces_the_filter)
{
	trace_event_set_t s1, s2;

	SET_OF(&s1, POSIX_TRACE_ERROR, POSIX_TRACE_STOP, POSIX_TRACE_FILTER,
	       self->a, 500, ID_MAX - 1);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s1,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s1);
	SET_OF(&s2, self->b);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s2,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s2);
	SET_EMPTY(&s2);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s2,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s2);
	ASSERT_EQ(0, posix_trace_eventset_fill(&s1, POSIX_TRACE_ALL_EVENTS));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s1,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(self->trid, &s1);
}

TEST_F(flt, add_eventset_is_the_union)
{
	trace_event_set_t s, want;

	SET_OF(&s, self->a, POSIX_TRACE_START);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	SET_OF(&s, self->b, POSIX_TRACE_START, 1000);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	SET_OF(&want, self->a, self->b, POSIX_TRACE_START, 1000);
	ASSERT_FILTER(self->trid, &want);
	/* Adding the empty set changes nothing. */
	SET_EMPTY(&s);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_FILTER(self->trid, &want);
}

TEST_F(flt, sub_eventset_is_the_difference)
{
	trace_event_set_t s, want;

	SET_OF(&s, self->a, self->b, POSIX_TRACE_OVERFLOW, 900);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	/* Types not in the filter (c, STOP) are not an error to take out. */
	SET_OF(&s, self->b, self->c, POSIX_TRACE_STOP, 900);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	SET_OF(&want, self->a, POSIX_TRACE_OVERFLOW);
	ASSERT_FILTER(self->trid, &want);
	ASSERT_EQ(0, posix_trace_eventset_fill(&s, POSIX_TRACE_ALL_EVENTS));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	SET_EMPTY(&want);
	ASSERT_FILTER(self->trid, &want);
}

/* An unknown "how" is an invalid argument; the filter stays as it was. */
TEST_F(flt, set_filter_unknown_how_is_einval_and_changes_nothing)
{
	static const int bad[] = {
		0, -1, POSIX_TRACE_SET_EVENTSET - 1,
		POSIX_TRACE_SUB_EVENTSET + 1, POSIX_TRACE_ALL_EVENTS, 12345,
	};
	trace_event_set_t s, kept;
	struct rec r;
	size_t i;

	SET_OF(&kept, self->a);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &kept,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT_START(self->trid, &r, &kept);
	SET_OF(&s, self->b);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(EINVAL, posix_trace_set_filter(self->trid, &s,
							 bad[i])) {
			TH_LOG("how %d", bad[i]);
		}
	ASSERT_FILTER(self->trid, &kept);
	/* No FILTER event either. */
	ASSERT_EMPTY(self->trid, &r);
}

/* [EINVAL] trid "does not correspond to an active trace stream". */
TEST_F(flt, get_and_set_filter_of_invalid_trid_are_einval)
{
	trace_event_set_t s;

	SET_OF(&s, self->a);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->created = false;
	ASSERT_EQ(EINVAL, posix_trace_get_filter(self->trid, &s));
	ASSERT_EQ(EINVAL, posix_trace_set_filter(self->trid, &s,
						 POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(EINVAL, posix_trace_set_filter(self->trid, &s,
						 POSIX_TRACE_ADD_EVENTSET));
	/* Never a trid at all. */
	ASSERT_EQ(EINVAL, posix_trace_get_filter(0, &s));
	ASSERT_EQ(EINVAL, posix_trace_set_filter(-1, &s,
						 POSIX_TRACE_SET_EVENTSET));
}

/*
 * The eventset functions act on the application's object, "not on the
 * current trace event filter of any trace stream": the stream keeps a copy.
 */
TEST_F(flt, changing_the_set_after_set_filter_does_not_change_the_filter)
{
	trace_event_set_t s, want;

	SET_OF(&s, self->a);
	want = s;
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_eventset_add(self->b, &s));
	ASSERT_EQ(0, posix_trace_eventset_del(self->a, &s));
	ASSERT_FILTER(self->trid, &want);
	ASSERT_EQ(0, posix_trace_eventset_fill(&s, POSIX_TRACE_ALL_EVENTS));
	ASSERT_FILTER(self->trid, &want);
}

/* Filtered user events are not recorded; the others are, in order. */
TEST_F(flt, filtered_user_events_are_not_recorded)
{
	trace_event_set_t s;
	struct rec r;

	SET_OF(&s, self->a, POSIX_TRACE_UNNAMED_USEREVENT);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit(self->a, 1);
	emit(self->b, 2);
	emit(POSIX_TRACE_UNNAMED_USEREVENT, 3);
	emit(self->c, 4);
	emit(self->a, 5);
	ASSERT_NEXT_START(self->trid, &r, &s);
	ASSERT_NEXT_USER(self->trid, &r, self->b, 2);
	ASSERT_NEXT_USER(self->trid, &r, self->c, 4);
	ASSERT_EMPTY(self->trid, &r);
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
}

/* ---- START and FILTER ------------------------------------------------- */

/* START carries the filter in force when the stream starts. */
TEST_F(flt, start_carries_the_filter_in_force)
{
	trace_event_set_t s1, s2;
	struct timespec before, after;
	struct rec r;

	SET_OF(&s1, self->a, POSIX_TRACE_OVERFLOW);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s1,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &before));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &after));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	/* Changed while suspended: the next START carries the new filter. */
	SET_OF(&s2, self->b);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s2,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));

	ASSERT_NEXT_START(self->trid, &r, &s1);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &before));
	ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &after));
	ASSERT_NEXT_STOP(self->trid, &r, 0);
	SET_OF(&s2, self->a, self->b, POSIX_TRACE_OVERFLOW);
	ASSERT_NEXT_START(self->trid, &r, &s2);
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * "If this function is called while the trace is in progress, a special
 * system trace event, POSIX_TRACE_FILTER, shall be recorded in the trace
 * indicating both the old and the new sets": where the change happens
 * among the events, stamped then, generated by the caller.
 */
TEST_F(flt, set_filter_while_running_records_filter_with_old_and_new)
{
	trace_event_set_t old, s, new;
	struct timespec before, after;
	struct rec r;

	SET_OF(&old, self->c);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &old,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit(self->a, 1);
	SET_OF(&s, self->a, POSIX_TRACE_ERROR);
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &before));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &after));
	emit(self->a, 2);
	emit(self->b, 3);

	ASSERT_NEXT_START(self->trid, &r, &old);
	ASSERT_NEXT_USER(self->trid, &r, self->a, 1);
	SET_OF(&new, self->a, self->c, POSIX_TRACE_ERROR);
	ASSERT_NEXT_FILTER(self->trid, &r, &old, &new);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &before));
	ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &after));
	ASSERT_NEXT_USER(self->trid, &r, self->b, 3);
	ASSERT_EMPTY(self->trid, &r);
}

/* One FILTER per change, each with its own old and new sets. */
TEST_F(flt, each_change_while_running_records_its_filter_event)
{
	trace_event_set_t empty, sa, sab, sb;
	struct rec r;

	SET_EMPTY(&empty);
	SET_OF(&sa, self->a);
	SET_OF(&sab, self->a, self->b);
	SET_OF(&sb, self->b);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sa,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sb,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sa,
					    POSIX_TRACE_SUB_EVENTSET));
	emit(self->a, 1);
	emit(self->b, 2);
	ASSERT_NEXT_START(self->trid, &r, &empty);
	ASSERT_NEXT_FILTER(self->trid, &r, &empty, &sa);
	ASSERT_NEXT_FILTER(self->trid, &r, &sa, &sab);
	ASSERT_NEXT_FILTER(self->trid, &r, &sab, &sb);
	ASSERT_NEXT_USER(self->trid, &r, self->a, 1);
	ASSERT_EMPTY(self->trid, &r);
}

/* Not "while the trace is in progress": no FILTER event. */
TEST_F(flt, set_filter_while_suspended_records_nothing)
{
	trace_event_set_t s, empty;
	struct rec r;

	SET_EMPTY(&empty);
	SET_OF(&s, self->a);
	/* Never started. */
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EMPTY(self->trid, &r);
	/* Stopped. */
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_NEXT_START(self->trid, &r, &s);
	ASSERT_NEXT_STOP(self->trid, &r, 0);
	ASSERT_EMPTY(self->trid, &r);
	ASSERT_FILTER(self->trid, &s);
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
}

/*
 * FILTER is an event type like the others: a new filter holding it is not
 * recorded; a change that takes it out is, with the old set holding it.
 */
TEST_F(flt, filter_event_not_recorded_when_the_new_filter_holds_it)
{
	trace_event_set_t empty, sf, sfa, sa;
	struct rec r;

	SET_EMPTY(&empty);
	SET_OF(&sf, POSIX_TRACE_FILTER);
	SET_OF(&sa, self->a);
	SET_OF(&sfa, POSIX_TRACE_FILTER, self->a);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sf,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sa,
					    POSIX_TRACE_ADD_EVENTSET));
	emit(self->a, 1);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sf,
					    POSIX_TRACE_SUB_EVENTSET));
	ASSERT_NEXT_START(self->trid, &r, &empty);
	ASSERT_NEXT_FILTER(self->trid, &r, &sfa, &sa);
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * System events carry their data whole, whatever max-data-size (which
 * applies to user data): START its 144 bytes and FILTER its 288 on a
 * stream keeping no user data at all.
 */
TEST_F(flt, start_and_filter_data_are_whole_with_maxdatasize_zero)
{
	trace_event_set_t empty, s;
	trace_attr_t attr;
	trace_id_t none;
	struct rec r;

	SET_EMPTY(&empty);
	SET_OF(&s, self->a, ID_MAX - 1);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 0));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 4096));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &none));
	ASSERT_EQ(0, posix_trace_start(none));
	ASSERT_EQ(0, posix_trace_set_filter(none, &s, POSIX_TRACE_SET_EVENTSET));
	emit(self->b, 1);
	ASSERT_EQ(0, posix_trace_stop(none));
	ASSERT_NEXT_START(none, &r, &empty);
	ASSERT_NEXT_FILTER(none, &r, &empty, &s);
	ASSERT_NEXT(none, &r, self->b);
	ASSERT_EQ(0, r.len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_RECORD, r.info.posix_truncation_status);
	ASSERT_NEXT_STOP(none, &r, 0);
	ASSERT_EMPTY(none, &r);
	ASSERT_EQ(0, posix_trace_shutdown(none));
	posix_trace_attr_destroy(&attr);
}

/* posix_trace_clear() drops the events, not the filter. */
TEST_F(flt, clear_keeps_the_filter)
{
	trace_event_set_t s;
	struct rec r;

	SET_OF(&s, self->a, POSIX_TRACE_STOP);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit(self->b, 1);
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_FILTER(self->trid, &s);
	emit(self->a, 2);
	emit(self->b, 3);
	ASSERT_NEXT_USER(self->trid, &r, self->b, 3);
	ASSERT_EMPTY(self->trid, &r);
	/* Suspended, cleared again: kept too. */
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_FILTER(self->trid, &s);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT_START(self->trid, &r, &s);
	ASSERT_EMPTY(self->trid, &r);
}

/* ---- system events are filtered too ------------------------------------ */

/* A filtered START is not recorded; the stream runs all the same. */
TEST_F(flt, filtered_start_is_not_recorded_but_the_stream_runs)
{
	trace_event_set_t s;
	struct rec r;

	SET_OF(&s, POSIX_TRACE_START);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self->a, 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_NEXT_USER(self->trid, &r, self->a, 1);
	ASSERT_NEXT_STOP(self->trid, &r, 0);
	ASSERT_EMPTY(self->trid, &r);
}

/* A filtered STOP is not recorded; the stream is suspended all the same. */
TEST_F(flt, filtered_stop_is_not_recorded_but_the_stream_stops)
{
	trace_event_set_t s;
	struct rec r;

	SET_OF(&s, POSIX_TRACE_STOP);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit(self->a, 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self->a, 2);
	ASSERT_NEXT_START(self->trid, &r, &s);
	ASSERT_NEXT_USER(self->trid, &r, self->a, 1);
	ASSERT_EMPTY(self->trid, &r);
}

/* ---- the full policies ------------------------------------------------- */

/*
 * An UNTIL_FULL stream with room for START and exactly fit events of 72
 * bytes after it: S = 208 + fit * 72.
 */
static void stream_of(struct __test_metadata *_metadata, size_t size,
		      int policy, trace_id_t *trid)
{
	trace_attr_t attr;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 16));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, size));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr, policy));
	ASSERT_EQ(0, posix_trace_create(0, &attr, trid));
	posix_trace_attr_destroy(&attr);
}

#define until_full_of(_metadata, fit, trid)				\
	stream_of(_metadata, START_RECORD_SIZE + (fit) * USER_SIZE,	\
		  POSIX_TRACE_UNTIL_FULL, trid)

/* A looping stream of the same size. */
#define loop_of(_metadata, fit, trid)					\
	stream_of(_metadata, START_RECORD_SIZE + (fit) * USER_SIZE,	\
		  POSIX_TRACE_LOOP, trid)

/*
 * Filtered events take no room: however many, an UNTIL_FULL stream still
 * holds exactly floor((S - 208) / 72) events of 72 bytes after START, and
 * stops at the next one.
 */
TEST_F(flt, until_full_filtered_events_do_not_fill_the_stream)
{
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	until_full_of(_metadata, 4, &trid);
	SET_OF(&s, self->a);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 100; i++)
		emit(self->a, i);
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	for (i = 1; i <= 4; i++) {
		emit(self->b, i);
		emit(self->a, 1000 + i);
	}
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self->b, 5);	/* does not fit: lost, the stream stops */
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT_START(trid, &r, &s);
	for (i = 1; i <= 4; i++)
		ASSERT_NEXT_USER(trid, &r, self->b, i);
	ASSERT_NEXT_STOP(trid, &r, 1);
	/* Read out, it restarted. */
	ASSERT_NEXT_START(trid, &r, &s);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * On a stream stopped because full, events of other types are lost
 * (overrun); filtered ones are not: they were never to be recorded.
 */
TEST_F(flt, until_full_filtered_events_are_not_lost_while_full)
{
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;

	until_full_of(_metadata, 2, &trid);
	ASSERT_EQ(0, posix_trace_start(trid));
	emit(self->b, 1);
	emit(self->b, 2);
	emit(self->b, 3);	/* stops it */
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	/* Not running: no FILTER event, and no room for one anyway. */
	SET_OF(&s, self->a);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	emit(self->a, 4);
	emit(self->a, 5);
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self->b, 6);
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT_USER(trid, &r, self->b, 1);
	ASSERT_NEXT_USER(trid, &r, self->b, 2);
	ASSERT_NEXT_STOP(trid, &r, 1);
	/* Emptied, it restarts: START carries the filter set meanwhile. */
	ASSERT_NEXT_START(trid, &r, &s);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * The automatic STOP is a STOP: filtered, it is not recorded, and the
 * stream stops all the same. Once read out it restarts with a START.
 */
TEST_F(flt, until_full_filtered_auto_stop_is_not_recorded_but_stops)
{
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;

	until_full_of(_metadata, 2, &trid);
	SET_OF(&s, POSIX_TRACE_STOP);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	emit(self->b, 1);
	emit(self->b, 2);
	emit(self->b, 3);	/* lost, and stops the stream */
	emit(self->b, 4);	/* lost */
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT_START(trid, &r, &s);
	ASSERT_NEXT_USER(trid, &r, self->b, 1);
	ASSERT_NEXT_USER(trid, &r, self->b, 2);
	ASSERT_NEXT_START(trid, &r, &s);
	ASSERT_EMPTY(trid, &r);
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self->b, 5);
	ASSERT_NEXT_USER(trid, &r, self->b, 5);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * START filtered: it takes no room, and the automatic restart of the
 * stream once read out is silent too; it runs all the same.
 */
TEST_F(flt, until_full_filtered_start_is_not_recorded_nor_takes_room)
{
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	until_full_of(_metadata, 2, &trid);
	SET_OF(&s, POSIX_TRACE_START);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	/* No START in the stream: 352 / 72 = 4 events fit, not 2. */
	for (i = 1; i <= 4; i++)
		emit(self->b, i);
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self->b, 5);	/* lost, stops it */
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	for (i = 1; i <= 4; i++)
		ASSERT_NEXT_USER(trid, &r, self->b, i);
	ASSERT_NEXT_STOP(trid, &r, 1);
	/* Read out, it restarted, without a START. */
	ASSERT_EMPTY(trid, &r);
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self->b, 6);
	ASSERT_NEXT_USER(trid, &r, self->b, 6);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * UNTIL_FULL records a prefix of what was generated: a FILTER event that
 * does not fit is lost like any other event, and stops the stream ("will
 * run until the trace stream resources are exhausted. Then the trace
 * stream will stop."), so that no later event is recorded after a change
 * the trace cannot show. The filter changes all the same.
 */
TEST_F(flt, until_full_filter_event_that_does_not_fit_stops_the_stream)
{
	trace_event_set_t empty, s;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	SET_EMPTY(&empty);
	/* Room for START and 5 events of 72: after 4, a fifth fits. */
	stream_of(_metadata, START_RECORD_SIZE + 5 * USER_SIZE,
		  POSIX_TRACE_UNTIL_FULL, &trid);
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 1; i <= 4; i++)
		emit(self->b, i);
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	/* FILTER (352 bytes) does not fit. */
	SET_OF(&s, self->a);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_FILTER(trid, &s);
	ASSERT_STATUS(trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	emit(self->c, 5);	/* would fit, but the stream is stopped */
	ASSERT_NEXT_START(trid, &r, &empty);
	for (i = 1; i <= 4; i++)
		ASSERT_NEXT_USER(trid, &r, self->b, i);
	ASSERT_NEXT_STOP(trid, &r, 1);
	ASSERT_NEXT_START(trid, &r, &s);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A looping stream overwrites nothing for filtered events: its status
 * stays NOT_FULL and NO_OVERRUN, and the reader sees no gap.
 */
TEST_F(flt, loop_filtered_events_overwrite_nothing_and_are_not_lost)
{
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	loop_of(_metadata, 4, &trid);
	SET_OF(&s, self->a);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	emit(self->b, 1);
	for (i = 0; i < 200; i++)
		emit(self->a, i);
	emit(self->b, 2);
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_NEXT_START(trid, &r, &s);
	ASSERT_NEXT_USER(trid, &r, self->b, 1);
	ASSERT_NEXT_USER(trid, &r, self->b, 2);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * OVERFLOW and RESUME filtered out: a loss still sets the overrun status,
 * but the reader gets the events kept without the markers. keep =
 * floor(S / 72) = 6 events of 72 in S = 208 + 4 * 72 = 496.
 */
TEST_F(flt, loop_filtered_overflow_and_resume_are_not_reported)
{
	size_t keep = (START_RECORD_SIZE + 4 * USER_SIZE) / USER_SIZE;
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	ASSERT_EQ(6, keep);
	loop_of(_metadata, 4, &trid);
	SET_OF(&s, POSIX_TRACE_OVERFLOW, POSIX_TRACE_RESUME);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 1; i <= keep + 3; i++)
		emit(self->b, i);
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	for (i = 4; i <= keep + 3; i++)
		ASSERT_NEXT_USER(trid, &r, self->b, i);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* Each marker is its own event type: OVERFLOW filtered, RESUME reported. */
TEST_F(flt, loop_filtered_overflow_alone_leaves_resume_reported)
{
	size_t keep = (START_RECORD_SIZE + 4 * USER_SIZE) / USER_SIZE;
	struct timespec resume;
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	loop_of(_metadata, 4, &trid);
	SET_OF(&s, POSIX_TRACE_OVERFLOW);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 1; i <= keep + 3; i++)
		emit(self->b, i);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_RESUME);
	ASSERT_EQ(0, r.len);
	resume = r.info.posix_timestamp;
	ASSERT_NEXT_USER(trid, &r, self->b, 4);
	ASSERT_EQ(0, ts_cmp(&resume, &r.info.posix_timestamp));
	for (i = 5; i <= keep + 3; i++)
		ASSERT_NEXT_USER(trid, &r, self->b, i);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * OVERFLOW and RESUME are events of the time of the gap (the first event
 * overwritten, the next one kept), though the reader builds them: the
 * filter in force then decides, not a later one. Here the overflow
 * happens with them admitted; filtering them afterwards (FILTER too, so
 * that no FILTER event overwrites more) takes nothing recorded away.
 */
TEST_F(flt, loop_overflow_before_markers_are_filtered_is_still_reported)
{
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	loop_of(_metadata, 4, &trid);
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 1; i <= 9; i++)	/* START, 1 to 3 overwritten */
		emit(self->b, i);
	SET_OF(&s, POSIX_TRACE_OVERFLOW, POSIX_TRACE_RESUME,
	       POSIX_TRACE_FILTER);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_OVERFLOW);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_RESUME);
	for (i = 4; i <= 9; i++)
		ASSERT_NEXT_USER(trid, &r, self->b, i);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* The other way round: filtered when the overflow happened, never reported. */
TEST_F(flt, loop_overflow_while_markers_are_filtered_is_never_reported)
{
	trace_event_set_t s;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	loop_of(_metadata, 4, &trid);
	SET_OF(&s, POSIX_TRACE_OVERFLOW, POSIX_TRACE_RESUME,
	       POSIX_TRACE_FILTER);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 1; i <= 9; i++)
		emit(self->b, i);
	SET_OF(&s, POSIX_TRACE_OVERFLOW, POSIX_TRACE_RESUME);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SUB_EVENTSET));
	for (i = 4; i <= 9; i++)
		ASSERT_NEXT_USER(trid, &r, self->b, i);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A FILTER event on a full looping stream overwrites the oldest events
 * like any other: of START and 6 events of 72 bytes in S = 496 (START
 * already overwritten), FILTER (352) keeps the last 2.
 */
TEST_F(flt, loop_filter_event_overwrites_the_oldest_events)
{
	trace_event_set_t empty, s;
	struct timespec before, after;
	trace_id_t trid;
	struct rec r;
	uint32_t i;

	SET_EMPTY(&empty);
	SET_OF(&s, self->a);
	loop_of(_metadata, 4, &trid);
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &before));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &after));
	for (i = 1; i <= 6; i++)
		emit(self->b, i);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &s, POSIX_TRACE_SET_EVENTSET));
	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_OVERFLOW);
	/* The first event overwritten: START. */
	ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &before));
	ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &after));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_RESUME);
	ASSERT_NEXT_USER(trid, &r, self->b, 5);
	ASSERT_NEXT_USER(trid, &r, self->b, 6);
	ASSERT_NEXT_FILTER(trid, &r, &empty, &s);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* ---- several streams on one process ------------------------------------ */

/* An event goes into each running stream whose filter admits it. */
TEST_F(flt, several_streams_each_record_what_their_filter_admits)
{
	trace_event_set_t sa, sb, empty;
	trace_id_t s1, s2, s3;
	struct rec r;

	SET_EMPTY(&empty);
	SET_OF(&sa, self->a);
	SET_OF(&sb, self->b);
	s1 = self->trid;
	ASSERT_EQ(0, posix_trace_create(0, &self->attr, &s2));
	ASSERT_EQ(0, posix_trace_create(0, &self->attr, &s3));
	ASSERT_EQ(0, posix_trace_set_filter(s1, &sa, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_set_filter(s2, &sb, POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(s1));
	ASSERT_EQ(0, posix_trace_start(s2));
	ASSERT_EQ(0, posix_trace_start(s3));
	emit(self->a, 1);
	emit(self->b, 2);
	emit(self->c, 3);
	/* A change in one stream is that stream's alone. */
	ASSERT_EQ(0, posix_trace_set_filter(s3, &sa, POSIX_TRACE_ADD_EVENTSET));
	emit(self->a, 4);
	emit(self->b, 5);

	ASSERT_NEXT_START(s1, &r, &sa);
	ASSERT_NEXT_USER(s1, &r, self->b, 2);
	ASSERT_NEXT_USER(s1, &r, self->c, 3);
	ASSERT_NEXT_USER(s1, &r, self->b, 5);
	ASSERT_EMPTY(s1, &r);

	ASSERT_NEXT_START(s2, &r, &sb);
	ASSERT_NEXT_USER(s2, &r, self->a, 1);
	ASSERT_NEXT_USER(s2, &r, self->c, 3);
	ASSERT_NEXT_USER(s2, &r, self->a, 4);
	ASSERT_EMPTY(s2, &r);

	ASSERT_NEXT_START(s3, &r, &empty);
	ASSERT_NEXT_USER(s3, &r, self->a, 1);
	ASSERT_NEXT_USER(s3, &r, self->b, 2);
	ASSERT_NEXT_USER(s3, &r, self->c, 3);
	ASSERT_NEXT_FILTER(s3, &r, &empty, &sa);
	ASSERT_NEXT_USER(s3, &r, self->b, 5);
	ASSERT_EMPTY(s3, &r);

	ASSERT_FILTER(s1, &sa);
	ASSERT_FILTER(s2, &sb);
	ASSERT_FILTER(s3, &sa);
	ASSERT_EQ(0, posix_trace_shutdown(s2));
	ASSERT_EQ(0, posix_trace_shutdown(s3));
}

/* A stream admitting a type does not make a suspended one record it. */
TEST_F(flt, filter_of_a_running_stream_does_not_wake_a_suspended_one)
{
	trace_event_set_t sa;
	trace_id_t s2;
	struct rec r;

	SET_OF(&sa, self->a);
	ASSERT_EQ(0, posix_trace_create(0, &self->attr, &s2));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sa,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit(self->a, 1);
	emit(self->b, 2);
	ASSERT_EMPTY(s2, &r);
	ASSERT_NEXT_START(self->trid, &r, &sa);
	ASSERT_NEXT_USER(self->trid, &r, self->b, 2);
	ASSERT_EMPTY(self->trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(s2));
}

/* ---- the module's ABI: filters, loss accounting, GETNEXT --------------- */

FIXTURE(raw) {
	int dev;
	int fd;		/* a stream */
	uint32_t a, b;
};

static int raw_create(int dev, uint64_t stream_size, uint32_t policy,
		      uint64_t max_data_size)
{
	struct posixtrace_attr ua = {
		.size = sizeof(ua),
		.stream_size = stream_size,
		.max_data_size = max_data_size,
		.stream_full_policy = policy,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};
	struct posixtrace_create req = {
		.size = sizeof(req), .log_fd = -1, .attr = (uintptr_t)&ua,
	};

	return ioctl(dev, POSIXTRACE_IOC_CREATE, &req);
}

/* 0 or errno. */
static int raw_filter(int fd, unsigned long cmd, uint32_t how,
		      struct posixtrace_eventset *set)
{
	struct posixtrace_filter req = {
		.size = sizeof(req), .how = how, .set = (uintptr_t)set,
	};

	return ioctl(fd, cmd, &req) ? errno : 0;
}

static int raw_status(int fd, struct posixtrace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, POSIXTRACE_IOC_STATUS, st) ? errno : 0;
}

static int raw_event(int dev, uint32_t id, uint32_t n)
{
	struct posixtrace_event ev = {
		.size = sizeof(ev), .event_id = id, .data_len = sizeof(n),
		.data = (uintptr_t)&n,
	};

	return ioctl(dev, POSIXTRACE_IOC_EVENT, &ev) ? errno : 0;
}

static int raw_eventid(int dev, const char *name, uint32_t *id)
{
	struct posixtrace_eventid req = {
		.size = sizeof(req), .name = (uintptr_t)name,
	};

	if (ioctl(dev, POSIXTRACE_IOC_EVENTID_OPEN, &req))
		return errno;
	*id = req.event_id;
	return 0;
}

/* GETNEXT without waiting: 0 or errno; *count records in buf. */
static int raw_getnext(int fd, void *buf, uint32_t size, uint32_t *count)
{
	struct posixtrace_getnext req = {
		.size = sizeof(req), .flags = POSIXTRACE_GETNEXT_NONBLOCK,
		.buf = (uintptr_t)buf, .buf_size = size,
	};

	if (ioctl(fd, POSIXTRACE_IOC_GETNEXT, &req))
		return errno;
	*count = req.count;
	return 0;
}

static void bit_set(struct posixtrace_eventset *s, uint32_t id)
{
	s->bits[id / 64] |= 1ULL << (id % 64);
}

FIXTURE_SETUP(raw)
{
	self->dev = self->fd = -1;
	SKIP_WITHOUT_DEVICE();
	self->dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev);
	self->fd = raw_create(self->dev, 65536, POSIXTRACE_LOOP, 16);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_eventid(self->dev, "raw_a", &self->a));
	ASSERT_EQ(0, raw_eventid(self->dev, "raw_b", &self->b));
}

FIXTURE_TEARDOWN(raw)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0)
		close(self->dev);
}

/*
 * "EINVAL if a bit above POSIXTRACE_EVENT_ID_MAX is set": any bit from
 * POSIXTRACE_EVENT_ID_MAX up, whatever how; the filter is kept.
 */
TEST_F(raw, set_filter_with_bit_past_last_event_type_is_einval)
{
	static const uint32_t hows[] = {
		POSIXTRACE_SET_EVENTSET, POSIXTRACE_ADD_EVENTSET,
		POSIXTRACE_SUB_EVENTSET,
	};
	const uint32_t last = POSIXTRACE_EVENTSET_WORDS * 64 - 1;
	struct posixtrace_eventset s, got, kept = { 0 };
	size_t i;

	bit_set(&kept, self->a);
	ASSERT_EQ(0, raw_filter(self->fd, POSIXTRACE_IOC_SET_FILTER,
				POSIXTRACE_SET_EVENTSET, &kept));
	for (i = 0; i < sizeof(hows) / sizeof(hows[0]); i++) {
		memset(&s, 0, sizeof(s));
		bit_set(&s, self->b);
		bit_set(&s, POSIXTRACE_EVENT_ID_MAX);
		EXPECT_EQ(EINVAL, raw_filter(self->fd, POSIXTRACE_IOC_SET_FILTER,
					     hows[i], &s));
		memset(&s, 0, sizeof(s));
		bit_set(&s, last);
		EXPECT_EQ(EINVAL, raw_filter(self->fd, POSIXTRACE_IOC_SET_FILTER,
					     hows[i], &s));
	}
	/* The last type there is, alone, is fine. */
	memset(&s, 0, sizeof(s));
	bit_set(&s, POSIXTRACE_EVENT_ID_MAX - 1);
	ASSERT_EQ(0, raw_filter(self->fd, POSIXTRACE_IOC_SET_FILTER,
				POSIXTRACE_ADD_EVENTSET, &s));
	bit_set(&kept, POSIXTRACE_EVENT_ID_MAX - 1);
	memset(&got, 0xff, sizeof(got));
	ASSERT_EQ(0, raw_filter(self->fd, POSIXTRACE_IOC_GET_FILTER, 0, &got));
	ASSERT_EQ(0, memcmp(&kept, &got, sizeof(got)));
}

/* The ABI's rules for the filter struct: flags, reserved, how. */
TEST_F(raw, filter_commands_reject_flags_reserved_and_how_of_get)
{
	struct posixtrace_eventset s = { 0 };
	struct posixtrace_filter req = {
		.size = sizeof(req), .how = POSIXTRACE_SET_EVENTSET,
		.set = (uintptr_t)&s,
	};

	req.flags = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_SET_FILTER, &req));
	ASSERT_EQ(EINVAL, errno);
	req.flags = 0;
	req.__reserved = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_SET_FILTER, &req));
	ASSERT_EQ(EINVAL, errno);
	req.__reserved = 0;
	/* "Must be 0 for GET_FILTER." */
	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_GET_FILTER, &req));
	ASSERT_EQ(EINVAL, errno);
	req.how = 0;
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_GET_FILTER, &req));
	req.how = POSIXTRACE_SUB_EVENTSET + 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_SET_FILTER, &req));
	ASSERT_EQ(EINVAL, errno);
}

/*
 * A filtered event is neither recorded nor lost: the counters do not move,
 * and it takes no sequence number (lost events show as gaps).
 */
TEST_F(raw, filtered_events_are_neither_recorded_nor_lost)
{
	struct posixtrace_eventset s = { 0 };
	struct posixtrace_record rec;
	struct posixtrace_status st;
	unsigned char buf[4096];
	uint32_t count = 0, off, i;
	uint64_t seq = 0;

	bit_set(&s, self->a);
	ASSERT_EQ(0, raw_filter(self->fd, POSIXTRACE_IOC_SET_FILTER,
				POSIXTRACE_SET_EVENTSET, &s));
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_START, 0));
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, raw_event(self->dev, self->a, i));
		if (i % 3 == 0)
			ASSERT_EQ(0, raw_event(self->dev, self->b, i));
	}
	ASSERT_EQ(0, raw_status(self->fd, &st));
	ASSERT_EQ(5, st.events_recorded);	/* START, b 0 3 6 9 */
	ASSERT_EQ(0, st.events_lost);
	ASSERT_EQ(0, st.events_read);
	ASSERT_EQ(POSIXTRACE_NO_OVERRUN, st.overrun_status);

	ASSERT_EQ(0, raw_getnext(self->fd, buf, sizeof(buf), &count));
	ASSERT_EQ(5, count);
	for (i = 0, off = 0; i < count; i++, off += rec.size) {
		memcpy(&rec, buf + off, sizeof(rec));
		ASSERT_EQ(i ? self->b : POSIXTRACE_EVENT_START, rec.event_id);
		if (i)
			ASSERT_EQ(seq + 1, rec.seq) {
				TH_LOG("record %u: a gap in the sequence", i);
			}
		seq = rec.seq;
	}
	ASSERT_EQ(0, raw_status(self->fd, &st));
	ASSERT_EQ(5, st.events_recorded);
	ASSERT_EQ(0, st.events_lost);
	ASSERT_EQ(5, st.events_read);
}

/* Nor lost on a stream stopped because full, where others are. */
TEST_F(raw, filtered_events_are_not_lost_on_a_full_stream)
{
	struct posixtrace_eventset s = { 0 };
	struct posixtrace_status st;
	int fd;

	/* Room for START and 2 events of 72 bytes. */
	fd = raw_create(self->dev, START_RECORD_SIZE + 2 * USER_SIZE,
			POSIXTRACE_UNTIL_FULL, 16);
	ASSERT_LE(0, fd);
	bit_set(&s, self->a);
	ASSERT_EQ(0, raw_filter(fd, POSIXTRACE_IOC_SET_FILTER,
				POSIXTRACE_SET_EVENTSET, &s));
	ASSERT_EQ(0, ioctl(fd, POSIXTRACE_IOC_START, 0));
	ASSERT_EQ(0, raw_event(self->dev, self->b, 1));
	ASSERT_EQ(0, raw_event(self->dev, self->a, 2));
	ASSERT_EQ(0, raw_event(self->dev, self->b, 3));
	ASSERT_EQ(0, raw_event(self->dev, self->a, 4));
	ASSERT_EQ(0, raw_status(fd, &st));
	ASSERT_EQ(POSIXTRACE_RUNNING, st.state);
	ASSERT_EQ(3, st.events_recorded);
	ASSERT_EQ(0, st.events_lost);
	ASSERT_EQ(0, raw_event(self->dev, self->b, 5));	/* stops it */
	ASSERT_EQ(0, raw_event(self->dev, self->a, 6));
	ASSERT_EQ(0, raw_event(self->dev, self->b, 7));
	ASSERT_EQ(0, raw_event(self->dev, self->a, 8));
	ASSERT_EQ(0, raw_status(fd, &st));
	ASSERT_EQ(POSIXTRACE_SUSPENDED, st.state);
	ASSERT_EQ(POSIXTRACE_FULL, st.full_status);
	ASSERT_EQ(4, st.events_recorded);	/* START, b 1 3, STOP */
	ASSERT_EQ(2, st.events_lost);		/* b 5 7 */
	close(fd);
}

/*
 * The records of the system events, as the module hands them out: START
 * 208 bytes (the filter), FILTER 352 (old, new), STOP 72 (its int); made
 * by the controller's calls, so its pid, no pthread_t.
 */
TEST_F(raw, system_event_records_sizes_and_data)
{
	struct posixtrace_eventset empty = { 0 }, s = { 0 };
	static const struct {
		uint32_t id, size, data_len;
	} want[] = {
		{ POSIXTRACE_EVENT_START, START_RECORD_SIZE, EVENTSET_SIZE },
		{ POSIXTRACE_EVENT_FILTER, FILTER_RECORD_SIZE,
		  2 * EVENTSET_SIZE },
		{ POSIXTRACE_EVENT_STOP, STOP_RECORD_SIZE, sizeof(int) },
	};
	struct posixtrace_record rec;
	unsigned char buf[4096];
	uint32_t count = 0, off, i;
	int auto_data;

	bit_set(&s, self->b);
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_START, 0));
	ASSERT_EQ(0, raw_filter(self->fd, POSIXTRACE_IOC_SET_FILTER,
				POSIXTRACE_ADD_EVENTSET, &s));
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_STOP, 0));
	ASSERT_EQ(0, raw_getnext(self->fd, buf, sizeof(buf), &count));
	ASSERT_EQ(3, count);
	for (i = 0, off = 0; i < count; i++, off += rec.size) {
		memcpy(&rec, buf + off, sizeof(rec));
		ASSERT_EQ(want[i].id, rec.event_id);
		ASSERT_EQ(want[i].size, rec.size);
		ASSERT_EQ(want[i].data_len, rec.data_len);
		ASSERT_EQ(POSIXTRACE_NOT_TRUNCATED, rec.truncation);
		ASSERT_EQ(getpid(), rec.pid);
		ASSERT_EQ(0, rec.thread);
	}
	off = 0;
	ASSERT_EQ(0, memcmp(&empty, buf + off + sizeof(rec), sizeof(empty)));
	off += START_RECORD_SIZE;
	ASSERT_EQ(0, memcmp(&empty, buf + off + sizeof(rec), sizeof(empty)));
	ASSERT_EQ(0, memcmp(&s, buf + off + sizeof(rec) + sizeof(s),
			    sizeof(s)));
	off += FILTER_RECORD_SIZE;
	memcpy(&auto_data, buf + off + sizeof(rec), sizeof(auto_data));
	ASSERT_EQ(0, auto_data);
}

/*
 * "a buffer of POSIXTRACE_GETNEXT_MIN_BUF(max data size) bytes always
 * suffices": also for the system events that carry filters, START and
 * FILTER, on a stream whose max data size is 0.
 */
TEST_F(raw, getnext_min_buf_holds_start_and_filter_records)
{
	const uint32_t min_buf = POSIXTRACE_GETNEXT_MIN_BUF(0);
	struct posixtrace_eventset s = { 0 };
	struct posixtrace_record rec;
	unsigned char *buf;
	uint32_t count = 0;
	int fd;

	buf = malloc(min_buf);
	ASSERT_NE(NULL, buf);
	fd = raw_create(self->dev, 4096, POSIXTRACE_LOOP, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, POSIXTRACE_IOC_START, 0)) {
		TH_LOG("START: errno %d", errno);
	}
	bit_set(&s, self->a);
	ASSERT_EQ(0, raw_filter(fd, POSIXTRACE_IOC_SET_FILTER,
				POSIXTRACE_SET_EVENTSET, &s));
	ASSERT_EQ(0, raw_getnext(fd, buf, min_buf, &count)) {
		TH_LOG("START (%zu bytes) in a buffer of %u",
		       START_RECORD_SIZE, min_buf);
	}
	ASSERT_EQ(1, count);
	memcpy(&rec, buf, sizeof(rec));
	ASSERT_EQ(POSIXTRACE_EVENT_START, rec.event_id);
	ASSERT_EQ(START_RECORD_SIZE, rec.size);
	ASSERT_EQ(0, raw_getnext(fd, buf, min_buf, &count)) {
		TH_LOG("FILTER (%zu bytes) in a buffer of %u",
		       FILTER_RECORD_SIZE, min_buf);
	}
	ASSERT_EQ(1, count);
	memcpy(&rec, buf, sizeof(rec));
	ASSERT_EQ(POSIXTRACE_EVENT_FILTER, rec.event_id);
	ASSERT_EQ(FILTER_RECORD_SIZE, rec.size);
	ASSERT_EQ(2 * sizeof(s), rec.data_len);
	close(fd);
	free(buf);
}

/* ---- a filter change racing with producers on another CPU ------------- */

#define RACERS		2	/* producer threads */
#define RACE_BEFORE	400	/* events of b each makes before the change */
#define RACE_AFTER	400	/* and after set_filter() returned */
#define RACE_PAUSE	20000	/* at most, before it: the stream never fills */

/*
 * A producer thread: event n of its a, then event n of its b, for n = 0,
 * 1...; each event's data is { tag, n }. It goes on until told to stop,
 * then makes RACE_AFTER more of each; if it is not told in time, it waits
 * after RACE_PAUSE.
 */
struct racer {
	trace_event_id_t a, b;
	uint32_t tag;
	int cpu;		/* -1: not pinned */
	atomic_uint done_a;	/* events of a generated so far */
	atomic_uint done_b;
	atomic_bool *stop;
};

static void pin(pthread_t thr, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(thr, sizeof(set), &set);
}

static void *race_producer(void *arg)
{
	struct racer *p = arg;
	uint32_t v[2] = { p->tag, 0 }, after = 0;

	pin(pthread_self(), p->cpu);
	for (v[1] = 0; after < RACE_AFTER; v[1]++) {
		if (v[1] == RACE_PAUSE)
			while (!atomic_load(p->stop))
				sched_yield();
		posix_trace_event(p->a, v, sizeof(v));
		atomic_store(&p->done_a, v[1] + 1);
		posix_trace_event(p->b, v, sizeof(v));
		atomic_store(&p->done_b, v[1] + 1);
		if (atomic_load(p->stop))
			after++;
	}
	return NULL;
}

/* Two CPUs this process may run on, or -1 for both if it has only one. */
static void two_cpus(int *mine, int *theirs)
{
	cpu_set_t set;
	int cpu;

	*mine = *theirs = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (*mine < 0) {
			*mine = cpu;
		} else {
			*theirs = cpu;
			return;
		}
	}
	*mine = -1;
}

/* What the reader saw of one producer. */
struct race_seen {
	uint32_t next_a, next_b;	/* the next n expected */
	uint32_t count_a, first_a;
};

/*
 * Producers run on another CPU while this thread changes the filter with
 * how and set {a}: ADD filters a out, SUB (a filtered at start) admits it.
 * b is never filtered. The reader then checks, for each producer:
 *  - b: every event, once, in order: none lost because of the change;
 *  - a, ADD: exactly its events 0 .. k - 1, all before FILTER, among them
 *    every one finished before set_filter() was called, and none started
 *    after it returned;
 *  - a, SUB: exactly its events k .. last, all after FILTER, among them
 *    every one started after set_filter() returned, and none finished
 *    before it was called.
 */
static void race(struct __test_metadata *_metadata, FIXTURE_DATA(flt) *self,
		 int how)
{
	unsigned int before[RACERS], after[RACERS], total[RACERS];
	struct race_seen seen[RACERS] = { 0 }, *sn;
	trace_event_set_t sa, empty, old, new;
	struct racer p[RACERS];
	pthread_t thr[RACERS];
	atomic_bool stop = false;
	bool seen_filter = false;
	trace_attr_t attr;
	trace_id_t trid;
	uint32_t v[2];
	struct rec r;
	int mine, theirs, i;

	SET_OF(&sa, self->a);
	SET_EMPTY(&empty);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	/* Room for RACERS * 2 * (RACE_PAUSE + RACE_AFTER) events of 72. */
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 8 << 20));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 16));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	posix_trace_attr_destroy(&attr);
	old = how == POSIX_TRACE_SUB_EVENTSET ? sa : empty;
	new = how == POSIX_TRACE_SUB_EVENTSET ? empty : sa;
	ASSERT_EQ(0, posix_trace_set_filter(trid, &old,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));

	two_cpus(&mine, &theirs);
	if (theirs < 0)
		TH_LOG("one CPU only: the producers are not on another one");
	pin(pthread_self(), mine);
	for (i = 0; i < RACERS; i++) {
		p[i].a = self->a;
		p[i].b = self->b;
		p[i].tag = i;
		p[i].cpu = theirs;
		p[i].stop = &stop;
		atomic_init(&p[i].done_a, 0);
		atomic_init(&p[i].done_b, 0);
		ASSERT_EQ(0, pthread_create(&thr[i], NULL, race_producer,
					    &p[i]));
	}
	for (i = 0; i < RACERS; i++)
		while (atomic_load(&p[i].done_b) < RACE_BEFORE)
			sched_yield();
	for (i = 0; i < RACERS; i++)
		before[i] = atomic_load(&p[i].done_a);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &sa, how));
	for (i = 0; i < RACERS; i++)
		after[i] = atomic_load(&p[i].done_a);
	atomic_store(&stop, true);
	for (i = 0; i < RACERS; i++) {
		ASSERT_EQ(0, pthread_join(thr[i], NULL));
		total[i] = atomic_load(&p[i].done_a);
		ASSERT_EQ(total[i], atomic_load(&p[i].done_b));
		TH_LOG("producer %d: a %u before set_filter, %u during, %u in all",
		       i, before[i], after[i] - before[i], total[i]);
	}

	ASSERT_STATUS(trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_NEXT_START(trid, &r, &old);
	for (;;) {
		ASSERT_EQ(0, try_next(trid, &r));
		if (r.unavailable)
			break;
		if (r.info.posix_event_id == POSIX_TRACE_FILTER) {
			ASSERT_FALSE(seen_filter);
			ASSERT_EQ(2 * EVENTSET_SIZE, r.len);
			ASSERT_EQ(0, memcmp(&old, r.data, EVENTSET_SIZE));
			ASSERT_EQ(0, memcmp(&new, r.data + EVENTSET_SIZE,
					    EVENTSET_SIZE));
			seen_filter = true;
			continue;
		}
		ASSERT_EQ(sizeof(v), r.len);
		memcpy(v, r.data, sizeof(v));
		ASSERT_GT(RACERS, v[0]);
		sn = &seen[v[0]];
		if (r.info.posix_event_id == self->b) {
			ASSERT_EQ(sn->next_b, v[1]) {
				TH_LOG("producer %u: b %u after %u", v[0], v[1],
				       sn->next_b);
			}
			sn->next_b++;
			continue;
		}
		ASSERT_EQ(self->a, r.info.posix_event_id);
		if (how == POSIX_TRACE_SUB_EVENTSET) {
			ASSERT_TRUE(seen_filter) {
				TH_LOG("producer %u: a %u before FILTER", v[0],
				       v[1]);
			}
			if (!sn->count_a)
				sn->first_a = sn->next_a = v[1];
		} else {
			ASSERT_FALSE(seen_filter) {
				TH_LOG("producer %u: a %u after FILTER", v[0],
				       v[1]);
			}
		}
		ASSERT_EQ(sn->next_a, v[1]) {
			TH_LOG("producer %u: a %u after %u", v[0], v[1],
			       sn->next_a);
		}
		sn->next_a++;
		sn->count_a++;
	}
	ASSERT_TRUE(seen_filter);
	for (i = 0; i < RACERS; i++) {
		sn = &seen[i];
		ASSERT_EQ(total[i], sn->next_b);
		if (how == POSIX_TRACE_SUB_EVENTSET) {
			/* a from the change to its last event. */
			ASSERT_LT(0, sn->count_a);
			ASSERT_EQ(total[i], sn->next_a);
			ASSERT_LE(before[i], sn->first_a);
			ASSERT_GE(after[i] + 1, sn->first_a);
		} else {
			/* a from its first event to the change. */
			ASSERT_LE(before[i], sn->next_a);
			ASSERT_GE(after[i] + 1, sn->next_a);
		}
	}
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

TEST_F(flt, filter_added_while_producers_run_on_another_cpu)
{
	race(_metadata, self, POSIX_TRACE_ADD_EVENTSET);
}

TEST_F(flt, filter_removed_while_producers_run_on_another_cpu)
{
	race(_metadata, self, POSIX_TRACE_SUB_EVENTSET);
}

/* ---- the enable page ---------------------------------------------------- */

/*
 * The first id whose bit differs from what a running stream with filter
 * *set (NULL: none running) makes it in a process whose last opened name
 * is last (POSIX_TRACE_UNNAMED_USEREVENT: none); -1 if none does. Only
 * types the process may record are ever enabled: the unnamed one and its
 * names, numbered from POSIXTRACE_EVENT_USER_BASE in the order opened.
 */
static int page_diff(const struct posixtrace_enable_page *ep,
		     const trace_event_set_t *set, trace_event_id_t last)
{
	bool valid;
	uint32_t id;

	for (id = 0; id < ID_MAX; id++) {
		valid = id == POSIX_TRACE_UNNAMED_USEREVENT ||
			(id >= POSIXTRACE_EVENT_USER_BASE && id <= last);
		if (enabled(ep, id) != (set && !member(set, id) && valid))
			return id;
	}
	return -1;
}

/*
 * Every bit must be clear (set NULL), or say what set does not filter of
 * what the process may record (last: see page_diff()).
 */
#define ASSERT_PAGE(ep, set, last) do {					\
	int _id = page_diff((ep), (set), (last));			\
	ASSERT_EQ(-1, _id) {						\
		TH_LOG("enable bit of type %d is %d", _id,		\
		       enabled((ep), _id));				\
	}								\
} while (0)

FIXTURE(page) {
	int dev;
	const struct posixtrace_enable_page *ep;
	trace_id_t trid;
	trace_event_id_t a, b;
	trace_event_set_t empty;
	bool created;
};

FIXTURE_SETUP(page)
{
	self->created = false;
	self->dev = -1;
	self->ep = NULL;
	SKIP_WITHOUT_DEVICE();
	self->dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev);
	self->ep = map_page(self->dev);
	ASSERT_NE(NULL, self->ep);
	ASSERT_EQ(POSIXTRACE_ENABLE_MAGIC, self->ep->magic);
	ASSERT_EQ(0, posix_trace_eventid_open("page_a", &self->a));
	ASSERT_EQ(0, posix_trace_eventid_open("page_b", &self->b));
	SET_EMPTY(&self->empty);
}

FIXTURE_TEARDOWN(page)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	if (self->ep)
		munmap((void *)self->ep, page_size());
	if (self->dev >= 0)
		close(self->dev);
}

TEST_F(page, untraced_process_has_every_bit_clear)
{
	ASSERT_PAGE(self->ep, NULL, self->b);
	/* A suspended stream records nothing either. */
	ASSERT_EQ(0, create_stream(NULL, &self->trid, &self->created));
	ASSERT_PAGE(self->ep, NULL, self->b);
}

/* Set when posix_trace_start() returns, clear when posix_trace_stop() does. */
TEST_F(page, bits_follow_start_and_stop)
{
	ASSERT_EQ(0, create_stream(NULL, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_PAGE(self->ep, &self->empty, self->b);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_PAGE(self->ep, NULL, self->b);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_PAGE(self->ep, &self->empty, self->b);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->created = false;
	ASSERT_PAGE(self->ep, NULL, self->b);
}

/* A page mapped while a stream runs shows it at once. */
TEST_F(page, page_mapped_later_shows_the_current_state)
{
	const struct posixtrace_enable_page *again;
	trace_event_set_t s;

	SET_OF(&s, self->a);
	ASSERT_EQ(0, create_stream(NULL, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	again = map_page(self->dev);
	ASSERT_NE(NULL, again);
	ASSERT_EQ(POSIXTRACE_ENABLE_MAGIC, again->magic);
	ASSERT_PAGE(again, &s, self->b);
	ASSERT_PAGE(self->ep, &s, self->b);
	munmap((void *)again, page_size());
}

/* Filtered types are clear when set_filter() returns; the others set. */
TEST_F(page, filtered_types_are_clear_while_running)
{
	trace_event_set_t s, all;

	ASSERT_EQ(0, create_stream(NULL, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	SET_OF(&s, self->a, POSIX_TRACE_UNNAMED_USEREVENT);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_ADD_EVENTSET));
	ASSERT_PAGE(self->ep, &s, self->b);
	ASSERT_EQ(0, posix_trace_eventset_del(POSIX_TRACE_UNNAMED_USEREVENT,
					      &s));
	ASSERT_EQ(0, posix_trace_eventset_empty(&all));
	ASSERT_EQ(0, posix_trace_eventset_add(POSIX_TRACE_UNNAMED_USEREVENT,
					      &all));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &all,
					    POSIX_TRACE_SUB_EVENTSET));
	ASSERT_PAGE(self->ep, &s, self->b);
	/* Everything filtered: nothing enabled, though running. */
	ASSERT_EQ(0, posix_trace_eventset_fill(&all, POSIX_TRACE_ALL_EVENTS));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &all,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_PAGE(self->ep, NULL, self->b);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &self->empty,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_PAGE(self->ep, &self->empty, self->b);
}

/* A filter changed while suspended enables nothing. */
TEST_F(page, filter_change_of_suspended_stream_enables_nothing)
{
	trace_event_set_t s;

	SET_OF(&s, self->a);
	ASSERT_EQ(0, create_stream(NULL, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_PAGE(self->ep, NULL, self->b);
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SUB_EVENTSET));
	ASSERT_PAGE(self->ep, NULL, self->b);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &self->empty,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_PAGE(self->ep, NULL, self->b);
}

/* Several streams: a type is enabled if some running stream admits it. */
TEST_F(page, bits_are_the_union_over_running_streams)
{
	trace_event_set_t sa, sb, sab;
	trace_id_t s2, s3;

	SET_OF(&sa, self->a);
	SET_OF(&sb, self->b);
	SET_OF(&sab, self->a, self->b);
	ASSERT_EQ(0, create_stream(NULL, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &s2));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &s3));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &sa,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_set_filter(s2, &sb, POSIX_TRACE_SET_EVENTSET));
	/* s3 admits everything, but stays suspended. */
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_PAGE(self->ep, &sa, self->b);
	ASSERT_EQ(0, posix_trace_start(s2));
	ASSERT_PAGE(self->ep, &self->empty, self->b);	/* a by s2, b by trid */
	ASSERT_EQ(0, posix_trace_set_filter(s2, &sa, POSIX_TRACE_ADD_EVENTSET));
	ASSERT_PAGE(self->ep, &sa, self->b);		/* nobody admits a */
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_PAGE(self->ep, &sab, self->b);		/* s2 alone */
	ASSERT_EQ(0, posix_trace_start(s3));
	ASSERT_PAGE(self->ep, &self->empty, self->b);
	ASSERT_EQ(0, posix_trace_shutdown(s3));
	ASSERT_PAGE(self->ep, &sab, self->b);
	ASSERT_EQ(0, posix_trace_shutdown(s2));
	ASSERT_PAGE(self->ep, NULL, self->b);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_PAGE(self->ep, &sa, self->b);
}

/*
 * An UNTIL_FULL stream with room for START and 2 user events (USER_SIZE),
 * started, and 3 events of a emitted: the third is lost and stops it.
 */
static void fill_until_full(struct __test_metadata *_metadata,
			    FIXTURE_DATA(page) *self)
{
	trace_attr_t attr;
	uint32_t n;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 16));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr,
				START_RECORD_SIZE + 2 * USER_SIZE));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, create_stream(&attr, &self->trid, &self->created));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (n = 0; n < 3; n++)
		emit(self->a, n);
}

/*
 * A stream stopped because full (UNTIL_FULL) may still "record" (its
 * events count as lost): bits stay set. Read out, it restarts: still set.
 */
TEST_F(page, stream_stopped_because_full_keeps_bits_set)
{
	struct rec r;

	fill_until_full(_metadata, self);
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_PAGE(self->ep, &self->empty, self->b);
	/* The library skips nothing: the loss is seen. */
	emit(self->a, 3);
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_FULL,
		      POSIX_TRACE_OVERRUN);
	while (!try_next(self->trid, &r) && !r.unavailable)
		;
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_PAGE(self->ep, &self->empty, self->b);
}

/*
 * Stopped because full, then posix_trace_stop(): once read out, it does
 * not restart. No stream may record any more: every bit clear.
 */
TEST_F(page, full_stream_stopped_then_read_out_clears_bits)
{
	struct rec r;

	fill_until_full(_metadata, self);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	while (!try_next(self->trid, &r) && !r.unavailable)
		;
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_OVERRUN);
	ASSERT_PAGE(self->ep, NULL, self->b);
}

/*
 * A stream of another process tracing this one: its bits are this
 * process's. When that controller exits, its streams are shut down
 * before it can be reaped: every bit clear once waitpid() returns.
 */
TEST_F(page, stream_of_a_controller_that_exits_leaves_bits_clear)
{
	int down[2], up[2], status, ret = -1;
	trace_event_set_t sb;
	pid_t pid;

	SET_OF(&sb, self->b);
	ASSERT_EQ(0, pipe(down));
	ASSERT_EQ(0, pipe(up));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		trace_id_t trid;

		close(down[1]);
		close(up[0]);
		ret = posix_trace_create(getppid(), NULL, &trid);
		if (!ret)
			ret = posix_trace_set_filter(trid, &sb,
						     POSIX_TRACE_SET_EVENTSET);
		if (!ret)
			ret = posix_trace_start(trid);
		put(up[1], &ret, sizeof(ret));
		wait_byte(down[0]);
		_exit(0);	/* no shutdown: the exit does it */
	}
	close(down[0]);
	close(up[1]);
	ASSERT_TRUE(get(up[0], &ret, sizeof(ret)));
	ASSERT_EQ(0, ret);
	ASSERT_PAGE(self->ep, &sb, self->b);
	close(down[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(up[0]);
	ASSERT_PAGE(self->ep, NULL, self->b);
}

/* Read-only: no writable mapping, shared or private, and no mprotect. */
TEST_F(page, page_cannot_be_mapped_or_made_writable)
{
	const size_t psz = page_size();
	void *p;

	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, self->dev,
		 POSIXTRACE_ENABLE_PAGE_OFFSET);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_TRUE(errno == EACCES || errno == EPERM) {
		TH_LOG("PROT_WRITE, MAP_SHARED: errno %d", errno);
	}
	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->dev,
		 POSIXTRACE_ENABLE_PAGE_OFFSET);
	if (p != MAP_FAILED)
		munmap(p, psz);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_TRUE(errno == EACCES || errno == EPERM) {
		TH_LOG("PROT_WRITE, MAP_PRIVATE: errno %d", errno);
	}
	ASSERT_EQ(-1, mprotect((void *)self->ep, psz, PROT_READ | PROT_WRITE));
	ASSERT_TRUE(errno == EACCES || errno == EPERM) {
		TH_LOG("mprotect: errno %d", errno);
	}
	ASSERT_EQ(POSIXTRACE_ENABLE_MAGIC, self->ep->magic);
}

/* Not even through /proc/self/mem, which may write past PROT_READ. */
TEST_F(page, page_cannot_be_written_through_proc_self_mem)
{
	uint32_t junk = 0xdeadbeef;
	ssize_t n;
	int mem;

	mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (mem < 0)
		SKIP(return, "no /proc/self/mem");
	n = pwrite(mem, &junk, sizeof(junk), (off_t)(uintptr_t)self->ep);
	close(mem);
	ASSERT_EQ(-1, n);
	ASSERT_EQ(POSIXTRACE_ENABLE_MAGIC, self->ep->magic);
}

/* One page at offset 0: any other offset or size is EINVAL. */
TEST_F(page, wrong_offset_or_size_is_einval)
{
	const size_t psz = page_size();
	void *p;

	p = mmap(NULL, psz, PROT_READ, MAP_SHARED, self->dev, psz);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, psz, PROT_READ, MAP_SHARED, self->dev, 16 * psz);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, 2 * psz, PROT_READ, MAP_SHARED, self->dev, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
}

/* ---- the enable page after fork ---------------------------------------- */

/* What a forked child reports about enable pages. */
struct child_page {
	int parent_mapping_seen;	/* in /proc/self/maps */
	int map_errno;			/* mapping its own page */
	trace_event_id_t last;		/* the one name it opened */
	uint32_t magic;
	uint64_t enabled[POSIXTRACE_EVENTSET_WORDS];
};

/* Whether an area of this process's starts at addr (/proc/self/maps). */
static int mapped_at(const void *addr)
{
	unsigned long start;
	char line[512];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-", &start) == 1 &&
		    start == (unsigned long)(uintptr_t)addr)
			found = 1;
	fclose(f);
	return found;
}

static void snapshot(struct child_page *rep,
		     const struct posixtrace_enable_page *ep)
{
	int i;

	rep->magic = ep->magic;
	for (i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++)
		rep->enabled[i] = __atomic_load_n(&ep->enabled[i],
						  __ATOMIC_RELAXED);
}

/*
 * The child: report whether it has the parent's mapping, then map its own
 * page, open a name (so that a type of its own may be enabled: the page
 * only enables what the process may record), and report its page on each
 * byte from the parent until end of file.
 */
static void page_child(const void *parent_page, int from_parent,
		       int to_parent)
{
	const struct posixtrace_enable_page *ep;
	struct child_page rep = { 0 };
	int dev;

	rep.parent_mapping_seen = mapped_at(parent_page);
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ep = dev < 0 ? NULL : map_page(dev);
	if (!ep) {
		rep.map_errno = errno;
		put(to_parent, &rep, sizeof(rep));
		_exit(1);
	}
	rep.map_errno = posix_trace_eventid_open("child_a", &rep.last);
	if (rep.map_errno) {
		put(to_parent, &rep, sizeof(rep));
		_exit(1);
	}
	do {
		snapshot(&rep, ep);
		if (!put(to_parent, &rep, sizeof(rep)))
			_exit(1);
	} while (get(from_parent, &(char){ 0 }, 1));
	_exit(0);
}

#define ASSERT_WORDS(words, set, last) do {				\
	struct posixtrace_enable_page _p = {				\
		.magic = POSIXTRACE_ENABLE_MAGIC };			\
	memcpy(_p.enabled, (words), sizeof(_p.enabled));		\
	ASSERT_PAGE(&_p, (set), (last));				\
} while (0)

/*
 * The page is the process's: a forked child does not inherit the mapping
 * (VM_DONTCOPY), and the page it maps itself shows its own state, which
 * streams tracing the parent do not change, nor the child's the parent's.
 * The parent opens no name: only its unnamed type may be enabled.
 */
TEST(enable_page_is_per_process_and_not_inherited)
{
	const struct posixtrace_enable_page *ep;
	trace_event_set_t empty, s;
	struct child_page rep;
	trace_id_t mine, childs;
	int dev, down[2], up[2], status;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	SET_EMPTY(&empty);
	SET_OF(&s, POSIX_TRACE_UNNAMED_USEREVENT);
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ep = map_page(dev);
	ASSERT_NE(NULL, ep);
	ASSERT_EQ(1, mapped_at(ep));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &mine));
	ASSERT_EQ(0, posix_trace_start(mine));
	ASSERT_PAGE(ep, &empty, POSIX_TRACE_UNNAMED_USEREVENT);

	ASSERT_EQ(0, pipe(down));
	ASSERT_EQ(0, pipe(up));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		page_child(ep, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);

	/* The child, untraced, with the parent's stream running. */
	ASSERT_TRUE(get(up[0], &rep, sizeof(rep)));
	ASSERT_EQ(0, rep.parent_mapping_seen);
	ASSERT_EQ(0, rep.map_errno);
	ASSERT_LE(POSIXTRACE_EVENT_USER_BASE, rep.last);
	ASSERT_EQ(POSIXTRACE_ENABLE_MAGIC, rep.magic);
	ASSERT_WORDS(rep.enabled, NULL, rep.last);

	/* The child traced, filtering its unnamed events. */
	ASSERT_EQ(0, posix_trace_create(pid, NULL, &childs));
	ASSERT_EQ(0, posix_trace_set_filter(childs, &s,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(childs));
	ASSERT_TRUE(put_byte(down[1], 'g'));
	ASSERT_TRUE(get(up[0], &rep, sizeof(rep)));
	ASSERT_WORDS(rep.enabled, &s, rep.last);
	ASSERT_PAGE(ep, &empty, POSIX_TRACE_UNNAMED_USEREVENT);

	/* The parent's stream stopped: the child's page does not change. */
	ASSERT_EQ(0, posix_trace_stop(mine));
	ASSERT_PAGE(ep, NULL, POSIX_TRACE_UNNAMED_USEREVENT);
	ASSERT_TRUE(put_byte(down[1], 'g'));
	ASSERT_TRUE(get(up[0], &rep, sizeof(rep)));
	ASSERT_WORDS(rep.enabled, &s, rep.last);

	/* The child's stream stopped: its page clears. */
	ASSERT_EQ(0, posix_trace_stop(childs));
	ASSERT_TRUE(put_byte(down[1], 'g'));
	ASSERT_TRUE(get(up[0], &rep, sizeof(rep)));
	ASSERT_WORDS(rep.enabled, NULL, rep.last);

	close(down[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(up[0]);
	ASSERT_EQ(0, posix_trace_shutdown(childs));
	ASSERT_EQ(0, posix_trace_shutdown(mine));
	munmap((void *)ep, page_size());
	close(dev);
}

/*
 * The child: an unnamed event before it is traced (the library maps its
 * page and finds the bit clear), then on each byte from the parent one
 * more, numbered; it reports after each.
 */
static void emitting_child(int from_parent, int to_parent)
{
	uint32_t n = 0;

	do {
		emit(POSIX_TRACE_UNNAMED_USEREVENT, n++);
		if (!put_byte(to_parent, 'e'))
			_exit(1);
	} while (get(from_parent, &(char){ 0 }, 1));
	_exit(0);
}

/*
 * posix_trace_event() in a child, made with fork() or with _Fork() (no
 * atfork handler runs): the library must not use the parent's page, which
 * the child does not have, and must see the child's own state.
 */
static void child_events(struct __test_metadata *_metadata,
			 pid_t (*fork_fn)(void))
{
	int down[2], up[2], status;
	trace_event_id_t id;
	trace_id_t mine, childs;
	struct rec r;
	pid_t pid;

	/* The parent's library has its page mapped, its bits set. */
	ASSERT_EQ(0, posix_trace_eventid_open("parent", &id));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &mine));
	ASSERT_EQ(0, posix_trace_start(mine));
	emit(id, 0);
	ASSERT_EQ(0, pipe(down));
	ASSERT_EQ(0, pipe(up));
	pid = fork_fn();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		emitting_child(down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	wait_byte(up[0]);			/* event 0: untraced */
	ASSERT_EQ(0, posix_trace_create(pid, NULL, &childs));
	ASSERT_EQ(0, posix_trace_start(childs));
	ASSERT_TRUE(put_byte(down[1], 'g'));
	wait_byte(up[0]);			/* event 1: recorded */
	ASSERT_EQ(0, posix_trace_stop(childs));
	ASSERT_TRUE(put_byte(down[1], 'g'));
	wait_byte(up[0]);			/* event 2: suspended */
	close(down[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) {
		TH_LOG("child killed by signal %d", WTERMSIG(status));
	}
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(up[0]);

	ASSERT_NEXT(childs, &r, POSIX_TRACE_START);
	ASSERT_NEXT_USER(childs, &r, POSIX_TRACE_UNNAMED_USEREVENT, 1);
	ASSERT_EQ(pid, r.info.posix_pid);
	ASSERT_NEXT_STOP(childs, &r, 0);
	ASSERT_EMPTY(childs, &r);
	/* The parent's stream has none of the child's events. */
	ASSERT_NEXT(mine, &r, POSIX_TRACE_START);
	ASSERT_NEXT_USER(mine, &r, id, 0);
	ASSERT_EMPTY(mine, &r);
	ASSERT_EQ(0, posix_trace_shutdown(childs));
	ASSERT_EQ(0, posix_trace_shutdown(mine));
}

TEST(events_of_forked_child_follow_its_own_page)
{
	SKIP_WITHOUT_DEVICE();
	child_events(_metadata, fork);
}

static pid_t fork_without_atfork(void)
{
	return _Fork();
}

TEST(events_of_child_forked_without_atfork_handlers_follow_its_own_page)
{
	SKIP_WITHOUT_DEVICE();
	child_events(_metadata, fork_without_atfork);
}

TEST_HARNESS_MAIN
