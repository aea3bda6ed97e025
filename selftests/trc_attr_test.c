// SPDX-License-Identifier: GPL-2.0
/*
 * Trace stream attributes objects (POSIX Trace option, TRC): the defaults,
 * every getter and setter, the event size formulas, one negative case per
 * error the standard names, and the attributes of a created stream as
 * posix_trace_get_attr() reports them (the values given at creation, not
 * touched by later changes to the object).
 *
 * The attributes object is pure library state: those tests run without the
 * module. The ones that create a stream skip when /dev/posixtrace is
 * missing.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ioctl.h>

#include "trc_common.h"

#define ROUND8(x)	(((x) + 7) & ~(size_t)7)
/*
 * Stream size limits this implementation chose. The smallest stream holds
 * the largest system event (FILTER, with TEF).
 */
#define STREAM_SIZE_MIN	352
#define STREAM_SIZE_MAX	(64UL << 20)
#define MAX_DATA_MAX	(64UL << 10)

/* An object that was never initialised: no valid attributes object. */
static void attr_garbage(trace_attr_t *attr)
{
	memset(attr, 0, sizeof(*attr));
}

FIXTURE(attr) {
	trace_attr_t attr;
};

FIXTURE_SETUP(attr)
{
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
}

FIXTURE_TEARDOWN(attr)
{
	posix_trace_attr_destroy(&self->attr);
}

TEST_F(attr, default_stream_full_policy_is_loop)
{
	int policy = -1;

	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->attr, &policy));
	ASSERT_EQ(POSIX_TRACE_LOOP, policy);
}

TEST_F(attr, default_inheritance_is_close_for_child)
{
	int inherit = -1;

	ASSERT_EQ(0, posix_trace_attr_getinherited(&self->attr, &inherit));
	ASSERT_EQ(POSIX_TRACE_CLOSE_FOR_CHILD, inherit);
}

TEST_F(attr, default_log_full_policy_is_loop)
{
	int policy = -1;

	ASSERT_EQ(0, posix_trace_attr_getlogfullpolicy(&self->attr, &policy));
	ASSERT_EQ(POSIX_TRACE_LOOP, policy);
}

TEST_F(attr, default_name_is_null_string)
{
	char name[TRACE_NAME_MAX];

	memset(name, 'x', sizeof(name));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->attr, name));
	ASSERT_EQ('\0', name[0]);
}

TEST_F(attr, default_sizes_allow_a_stream)
{
	size_t stream_size = 0, data_size = 0, log_size = 0;

	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->attr, &stream_size));
	ASSERT_LE(STREAM_SIZE_MIN, stream_size);
	ASSERT_GE(STREAM_SIZE_MAX, stream_size);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->attr, &data_size));
	ASSERT_LT(0, data_size);
	ASSERT_GE(MAX_DATA_MAX, data_size);
	ASSERT_EQ(0, posix_trace_attr_getlogsize(&self->attr, &log_size));
	ASSERT_LT(0, log_size);
}

TEST_F(attr, genversion_is_nonempty_and_fits_trace_name_max)
{
	/* The standard's buffer: {TRACE_NAME_MAX} characters; then a canary. */
	char buf[TRACE_NAME_MAX + 16];
	size_t i;

	memset(buf, 0x5a, sizeof(buf));
	ASSERT_EQ(0, posix_trace_attr_getgenversion(&self->attr, buf));
	ASSERT_NE(NULL, memchr(buf, '\0', TRACE_NAME_MAX));
	ASSERT_LT(0, strlen(buf));
	for (i = TRACE_NAME_MAX; i < sizeof(buf); i++)
		ASSERT_EQ(0x5a, buf[i]);
}

TEST_F(attr, clockres_is_that_of_clock_realtime)
{
	struct timespec res = { -1, -1 }, rt;

	ASSERT_EQ(0, clock_getres(CLOCK_REALTIME, &rt));
	ASSERT_EQ(0, posix_trace_attr_getclockres(&self->attr, &res));
	ASSERT_EQ(rt.tv_sec, res.tv_sec);
	ASSERT_EQ(rt.tv_nsec, res.tv_nsec);
}

TEST_F(attr, setname_then_getname_returns_the_name)
{
	char name[TRACE_NAME_MAX];

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "my-stream"));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->attr, name));
	ASSERT_STREQ("my-stream", name);
	/* A second setname replaces, never appends. */
	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "b"));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->attr, name));
	ASSERT_STREQ("b", name);
}

TEST_F(attr, setname_empty_string_gives_null_string)
{
	char name[TRACE_NAME_MAX];

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "x"));
	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, ""));
	memset(name, 'x', sizeof(name));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->attr, name));
	ASSERT_STREQ("", name);
}

/*
 * setname has no error: a name longer than {TRACE_NAME_MAX} "may be
 * truncated to one less than the length of {TRACE_NAME_MAX}", and getname
 * writes into a buffer of only {TRACE_NAME_MAX} characters.
 */
TEST_F(attr, setname_truncates_long_name_to_trace_name_max_minus_one)
{
	char longname[200], buf[TRACE_NAME_MAX + 16];
	size_t i;

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, longname));
	memset(buf, 0x5a, sizeof(buf));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->attr, buf));
	ASSERT_EQ(TRACE_NAME_MAX - 1, strlen(buf));
	ASSERT_EQ(0, strncmp(buf, longname, TRACE_NAME_MAX - 1));
	for (i = TRACE_NAME_MAX; i < sizeof(buf); i++)
		ASSERT_EQ(0x5a, buf[i]);
}

TEST_F(attr, setstreamfullpolicy_then_get_returns_each_policy)
{
	int policy;

	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&self->attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->attr, &policy));
	ASSERT_EQ(POSIX_TRACE_UNTIL_FULL, policy);
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&self->attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->attr, &policy));
	ASSERT_EQ(POSIX_TRACE_LOOP, policy);
}

TEST_F(attr, setstreamfullpolicy_unknown_value_is_einval)
{
	int policy;

	ASSERT_EQ(EINVAL, posix_trace_attr_setstreamfullpolicy(&self->attr, 12345));
	ASSERT_EQ(EINVAL, posix_trace_attr_setstreamfullpolicy(&self->attr, -1));
	/* A log-full-policy value is no stream-full-policy. */
	ASSERT_EQ(EINVAL, posix_trace_attr_setstreamfullpolicy(&self->attr,
							       POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->attr, &policy));
	ASSERT_EQ(POSIX_TRACE_LOOP, policy);
}

TEST_F(attr, setinherited_then_get_returns_each_value)
{
	int inherit;

	ASSERT_EQ(0, posix_trace_attr_setinherited(&self->attr,
						   POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, posix_trace_attr_getinherited(&self->attr, &inherit));
	ASSERT_EQ(POSIX_TRACE_INHERITED, inherit);
	ASSERT_EQ(0, posix_trace_attr_setinherited(&self->attr,
						   POSIX_TRACE_CLOSE_FOR_CHILD));
	ASSERT_EQ(0, posix_trace_attr_getinherited(&self->attr, &inherit));
	ASSERT_EQ(POSIX_TRACE_CLOSE_FOR_CHILD, inherit);
}

TEST_F(attr, setinherited_unknown_value_is_einval)
{
	int inherit;

	ASSERT_EQ(EINVAL, posix_trace_attr_setinherited(&self->attr, 12345));
	ASSERT_EQ(0, posix_trace_attr_getinherited(&self->attr, &inherit));
	ASSERT_EQ(POSIX_TRACE_CLOSE_FOR_CHILD, inherit);
}

TEST_F(attr, setlogfullpolicy_then_get_returns_each_policy)
{
	static const int policies[] = {
		POSIX_TRACE_UNTIL_FULL, POSIX_TRACE_APPEND, POSIX_TRACE_LOOP,
	};
	size_t i;
	int policy;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&self->attr,
							       policies[i]));
		ASSERT_EQ(0, posix_trace_attr_getlogfullpolicy(&self->attr,
							       &policy));
		ASSERT_EQ(policies[i], policy);
	}
}

TEST_F(attr, setlogfullpolicy_unknown_value_is_einval)
{
	int policy;

	ASSERT_EQ(EINVAL, posix_trace_attr_setlogfullpolicy(&self->attr, 12345));
	ASSERT_EQ(0, posix_trace_attr_getlogfullpolicy(&self->attr, &policy));
	ASSERT_EQ(POSIX_TRACE_LOOP, policy);
}

TEST_F(attr, setstreamsize_then_get_returns_the_size)
{
	size_t size = 0;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 12345));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->attr, &size));
	ASSERT_EQ(12345, size);
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, STREAM_SIZE_MIN));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->attr, &size));
	ASSERT_EQ(STREAM_SIZE_MIN, size);
}

/*
 * Minimum stream size: 352 bytes, the largest system event. Below: EINVAL,
 * from setstreamsize ("may fail"; this implementation does), which keeps
 * the size it had.
 */
TEST_F(attr, setstreamsize_below_352_is_einval)
{
	size_t size = 0;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 4096));
	ASSERT_EQ(EINVAL, posix_trace_attr_setstreamsize(&self->attr,
							 STREAM_SIZE_MIN - 1));
	ASSERT_EQ(EINVAL, posix_trace_attr_setstreamsize(&self->attr, 72));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->attr, &size));
	ASSERT_EQ(4096, size);
}

TEST_F(attr, setmaxdatasize_then_get_returns_the_size)
{
	size_t size = 1;

	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 0));
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->attr, &size));
	ASSERT_EQ(0, size);
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 777));
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->attr, &size));
	ASSERT_EQ(777, size);
}

TEST_F(attr, setlogsize_then_get_returns_the_size)
{
	size_t size = 0;

	ASSERT_EQ(0, posix_trace_attr_setlogsize(&self->attr, 1 << 20));
	ASSERT_EQ(0, posix_trace_attr_getlogsize(&self->attr, &size));
	ASSERT_EQ(1 << 20, size);
}

/*
 * The largest system event is POSIX_TRACE_FILTER (TEF): a record and two
 * trace_event_set_t, the old and the new filter.
 */
TEST_F(attr, maxsystemeventsize_is_record_plus_two_event_sets)
{
	size_t size = 0;

	ASSERT_EQ(0, posix_trace_attr_getmaxsystemeventsize(&self->attr, &size));
	ASSERT_EQ(RECORD_SIZE + 2 * sizeof(trace_event_set_t), size);
	ASSERT_EQ(352, size);
}

TEST_F(attr, maxusereventsize_is_record_plus_data_rounded_to_8)
{
	static const size_t lens[] = { 0, 1, 7, 8, 9, 16, 100, 1024 };
	size_t i, size;

	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 1024));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size = 0;
		ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->attr,
								  lens[i], &size));
		ASSERT_EQ(RECORD_SIZE + ROUND8(lens[i]), size) {
			TH_LOG("data_len %zu", lens[i]);
		}
	}
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->attr, 0, &size));
	ASSERT_EQ(64, size);
}

/* Longer data is recorded truncated to max-data-size, so costs no more. */
TEST_F(attr, maxusereventsize_counts_data_truncated_to_maxdatasize)
{
	size_t size = 0;

	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 16));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->attr, 1000,
							  &size));
	ASSERT_EQ(RECORD_SIZE + 16, size);
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 0));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->attr, 8, &size));
	ASSERT_EQ(RECORD_SIZE, size);
}

TEST_F(attr, destroy_then_init_gives_defaults_again)
{
	int policy;
	char name[TRACE_NAME_MAX];

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "old"));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&self->attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_attr_destroy(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->attr, &policy));
	ASSERT_EQ(POSIX_TRACE_LOOP, policy);
	ASSERT_EQ(0, posix_trace_attr_getname(&self->attr, name));
	ASSERT_STREQ("", name);
}

TEST_F(attr, two_objects_are_independent)
{
	trace_attr_t other;
	int policy;

	ASSERT_EQ(0, posix_trace_attr_init(&other));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&other,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->attr, &policy));
	ASSERT_EQ(POSIX_TRACE_LOOP, policy);
	ASSERT_EQ(0, posix_trace_attr_destroy(&other));
}

/* "may fail" [EINVAL]: "The value of attr is invalid." */
TEST(destroy_of_uninitialized_object_is_einval)
{
	trace_attr_t attr;

	attr_garbage(&attr);
	ASSERT_EQ(EINVAL, posix_trace_attr_destroy(&attr));
}

/*
 * Every getter and setter "may fail" with [EINVAL] for an invalid
 * argument; this implementation recognises an object never initialised.
 * setname has no error in the standard, so it is not listed.
 */
TEST(getters_of_uninitialized_object_are_einval)
{
	trace_attr_t attr;
	struct timespec ts;
	char buf[TRACE_NAME_MAX];
	size_t size;
	int v;

	attr_garbage(&attr);
	EXPECT_EQ(EINVAL, posix_trace_attr_getclockres(&attr, &ts));
	EXPECT_EQ(EINVAL, posix_trace_attr_getcreatetime(&attr, &ts));
	EXPECT_EQ(EINVAL, posix_trace_attr_getgenversion(&attr, buf));
	EXPECT_EQ(EINVAL, posix_trace_attr_getname(&attr, buf));
	EXPECT_EQ(EINVAL, posix_trace_attr_getinherited(&attr, &v));
	EXPECT_EQ(EINVAL, posix_trace_attr_getlogfullpolicy(&attr, &v));
	EXPECT_EQ(EINVAL, posix_trace_attr_getstreamfullpolicy(&attr, &v));
	EXPECT_EQ(EINVAL, posix_trace_attr_getlogsize(&attr, &size));
	EXPECT_EQ(EINVAL, posix_trace_attr_getmaxdatasize(&attr, &size));
	EXPECT_EQ(EINVAL, posix_trace_attr_getmaxsystemeventsize(&attr, &size));
	EXPECT_EQ(EINVAL, posix_trace_attr_getmaxusereventsize(&attr, 8, &size));
	EXPECT_EQ(EINVAL, posix_trace_attr_getstreamsize(&attr, &size));
}

TEST(setters_of_uninitialized_object_are_einval)
{
	trace_attr_t attr;

	attr_garbage(&attr);
	EXPECT_EQ(EINVAL, posix_trace_attr_setinherited(&attr,
						POSIX_TRACE_CLOSE_FOR_CHILD));
	EXPECT_EQ(EINVAL, posix_trace_attr_setlogfullpolicy(&attr,
							    POSIX_TRACE_LOOP));
	EXPECT_EQ(EINVAL, posix_trace_attr_setstreamfullpolicy(&attr,
							       POSIX_TRACE_LOOP));
	EXPECT_EQ(EINVAL, posix_trace_attr_setlogsize(&attr, 1 << 20));
	EXPECT_EQ(EINVAL, posix_trace_attr_setmaxdatasize(&attr, 16));
	EXPECT_EQ(EINVAL, posix_trace_attr_setstreamsize(&attr, 4096));
}

/* The values of a created stream, as posix_trace_get_attr() reports them. */
FIXTURE(stream_attr) {
	trace_attr_t attr;
	trace_attr_t got;
	trace_id_t trid;
	bool created;
};

FIXTURE_SETUP(stream_attr)
{
	self->created = false;
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_init(&self->got));
	SKIP_WITHOUT_DEVICE();
}

FIXTURE_TEARDOWN(stream_attr)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	posix_trace_attr_destroy(&self->got);
	posix_trace_attr_destroy(&self->attr);
}

TEST_F(stream_attr, get_attr_returns_attributes_given_at_create)
{
	char name[TRACE_NAME_MAX];
	size_t size;
	int v;

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "given"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 8192));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 40));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&self->attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));

	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, name));
	ASSERT_STREQ("given", name);
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &size));
	ASSERT_EQ(8192, size);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &size));
	ASSERT_EQ(40, size);
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->got, &v));
	ASSERT_EQ(POSIX_TRACE_UNTIL_FULL, v);
	ASSERT_EQ(0, posix_trace_attr_getinherited(&self->got, &v));
	ASSERT_EQ(POSIX_TRACE_CLOSE_FOR_CHILD, v);
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&self->got, 40, &size));
	ASSERT_EQ(RECORD_SIZE + 40, size);
}

TEST_F(stream_attr, get_attr_unaffected_by_later_attr_changes)
{
	char name[TRACE_NAME_MAX];
	size_t size;
	int v;

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "before"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 4096));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 24));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));

	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "after"));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 200));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&self->attr,
							  POSIX_TRACE_UNTIL_FULL));
	/* Not even destroying the object affects the stream. */
	ASSERT_EQ(0, posix_trace_attr_destroy(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));

	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, name));
	ASSERT_STREQ("before", name);
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &size));
	ASSERT_EQ(4096, size);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &size));
	ASSERT_EQ(24, size);
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->got, &v));
	ASSERT_EQ(POSIX_TRACE_LOOP, v);
}

/* Changing the object get_attr filled does not change the stream either. */
TEST_F(stream_attr, changing_get_attr_result_does_not_change_stream)
{
	trace_attr_t again;
	size_t size;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 4096));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->got, 9999));
	ASSERT_EQ(0, posix_trace_attr_init(&again));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &again));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&again, &size));
	ASSERT_EQ(4096, size);
	ASSERT_EQ(0, posix_trace_attr_destroy(&again));
}

TEST_F(stream_attr, create_with_null_attr_uses_defaults)
{
	size_t def_stream, def_data, size;
	char name[TRACE_NAME_MAX];
	int v;

	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->attr, &def_stream));
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->attr, &def_data));
	ASSERT_EQ(0, create_stream(NULL, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &size));
	ASSERT_EQ(def_stream, size);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &size));
	ASSERT_EQ(def_data, size);
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->got, &v));
	ASSERT_EQ(POSIX_TRACE_LOOP, v);
	ASSERT_EQ(0, posix_trace_attr_getinherited(&self->got, &v));
	ASSERT_EQ(POSIX_TRACE_CLOSE_FOR_CHILD, v);
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, name));
	ASSERT_STREQ("", name);
}

/* creation-time is CLOCK_REALTIME at posix_trace_create(). */
TEST_F(stream_attr, createtime_is_clock_realtime_at_create)
{
	struct timespec before, after, created;

	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &before));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &after));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getcreatetime(&self->got, &created));
	ASSERT_LE(0, ts_cmp(&created, &before));
	ASSERT_GE(0, ts_cmp(&created, &after));
}

TEST_F(stream_attr, genversion_and_clockres_of_stream_match_fresh_object)
{
	char fresh[TRACE_NAME_MAX], got[TRACE_NAME_MAX];
	struct timespec res1, res2;

	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getgenversion(&self->attr, fresh));
	ASSERT_EQ(0, posix_trace_attr_getgenversion(&self->got, got));
	ASSERT_STREQ(fresh, got);
	ASSERT_EQ(0, posix_trace_attr_getclockres(&self->attr, &res1));
	ASSERT_EQ(0, posix_trace_attr_getclockres(&self->got, &res2));
	ASSERT_EQ(res1.tv_sec, res2.tv_sec);
	ASSERT_EQ(res1.tv_nsec, res2.tv_nsec);
}

TEST_F(stream_attr, name_of_trace_name_max_minus_one_chars_survives_create)
{
	char name[TRACE_NAME_MAX], got[TRACE_NAME_MAX];

	memset(name, 'q', TRACE_NAME_MAX - 1);
	name[TRACE_NAME_MAX - 1] = '\0';
	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, name));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->got, got));
	ASSERT_STREQ(name, got);
}

/* The module refuses a stream below 352 bytes from any caller. */
TEST_F(stream_attr, create_with_stream_size_below_352_is_einval)
{
	struct posixtrace_attr ua = {
		.size = sizeof(ua),
		.stream_size = STREAM_SIZE_MIN - 1,
		.max_data_size = 16,
		.stream_full_policy = POSIXTRACE_LOOP,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};
	struct posixtrace_create req = {
		.size = sizeof(req), .log_fd = -1, .attr = (uintptr_t)&ua,
	};
	int dev, fd;

	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(-1, ioctl(dev, POSIXTRACE_IOC_CREATE, &req));
	ASSERT_EQ(EINVAL, errno);
	ua.stream_size = STREAM_SIZE_MIN;
	fd = ioctl(dev, POSIXTRACE_IOC_CREATE, &req);
	ASSERT_LE(0, fd);
	close(fd);
	close(dev);
}

TEST_F(stream_attr, create_with_stream_size_352_succeeds)
{
	size_t size;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, STREAM_SIZE_MIN));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->got, &size));
	ASSERT_EQ(STREAM_SIZE_MIN, size);
}

/* [ENOMEM]: not enough memory for the stream "with the specified parameters". */
TEST_F(stream_attr, create_with_stream_size_above_64mib_is_enomem)
{
	int ret;

	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr,
						    STREAM_SIZE_MAX + 1));
	ret = create_stream(&self->attr, &self->trid, &self->created);
	ASSERT_EQ(ENOMEM, ret);
}

TEST_F(stream_attr, create_with_stream_size_64mib_succeeds)
{
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, STREAM_SIZE_MAX));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
}

/* [EINVAL]: "One or more of the trace parameters ... is invalid." */
TEST_F(stream_attr, create_with_maxdatasize_above_64kib_is_einval)
{
	int ret;

	ret = posix_trace_attr_setmaxdatasize(&self->attr, MAX_DATA_MAX + 1);
	if (ret == EINVAL)
		return;	/* refused when set: "may fail" */
	ASSERT_EQ(0, ret);
	ret = create_stream(&self->attr, &self->trid, &self->created);
	ASSERT_EQ(EINVAL, ret);
}

TEST_F(stream_attr, create_with_maxdatasize_64kib_succeeds)
{
	size_t size;

	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, MAX_DATA_MAX));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &self->got));
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->got, &size));
	ASSERT_EQ(MAX_DATA_MAX, size);
}

/* FLUSH is for a stream with a log: "invalid" for one without. */
TEST_F(stream_attr, create_with_flush_policy_is_einval)
{
	int ret;

	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&self->attr,
							  POSIX_TRACE_FLUSH));
	ret = create_stream(&self->attr, &self->trid, &self->created);
	ASSERT_EQ(EINVAL, ret);
}

/* Inheritance (TRI) is the stream's: get_attr gives it back. */
TEST_F(stream_attr, create_with_inherited_keeps_it)
{
	trace_attr_t got;
	int inherit = -1;

	ASSERT_EQ(0, posix_trace_attr_setinherited(&self->attr,
						   POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_attr_init(&got));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &got));
	ASSERT_EQ(0, posix_trace_attr_getinherited(&got, &inherit));
	ASSERT_EQ(POSIX_TRACE_INHERITED, inherit);
}

TEST_F(stream_attr, create_with_uninitialized_attr_is_einval)
{
	trace_attr_t garbage;
	int ret;

	attr_garbage(&garbage);
	ret = create_stream(&garbage, &self->trid, &self->created);
	ASSERT_EQ(EINVAL, ret);
}

/* ---- the module's limits, max_stream_size and max_data_size ----------- */

#define STREAM_SIZE_PARAM	PARAM_DIR "max_stream_size"
#define DATA_SIZE_PARAM		PARAM_DIR "max_data_size"
/* Their ranges (modinfo posixtrace): 352 to 1 GiB, 0 to 1 MiB. */
#define STREAM_SIZE_PARAM_MAX	(1 << 30)
#define DATA_SIZE_PARAM_MAX	(1 << 20)

/* Write text to a module parameter: 0, or the errno of the write. */
static int param_set(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* As param_set(), a number. */
static int param_set_n(const char *path, long long n)
{
	char text[32];

	snprintf(text, sizeof(text), "%lld", n);
	return param_set(path, text);
}

/* The parameters as they were, put back by the teardown, as root. */
FIXTURE(limits) {
	int stream_size, data_size;
	trace_attr_t attr;
	trace_id_t trid;
	bool created;
};

FIXTURE_SETUP(limits)
{
	self->created = false;
	self->stream_size = self->data_size = -1;
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to set the module's parameters");
	ASSERT_TRUE(param_read(STREAM_SIZE_PARAM, &self->stream_size));
	ASSERT_TRUE(param_read(DATA_SIZE_PARAM, &self->data_size));
}

FIXTURE_TEARDOWN(limits)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	if (self->stream_size > 0)
		EXPECT_TRUE(param_write(STREAM_SIZE_PARAM, self->stream_size));
	if (self->data_size >= 0)
		EXPECT_TRUE(param_write(DATA_SIZE_PARAM, self->data_size));
	posix_trace_attr_destroy(&self->attr);
}

/* Create a stream of stream size and max data size: its error number. */
static int create_sized(FIXTURE_DATA(limits) *self, size_t stream,
			size_t data)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	self->created = false;
	if (posix_trace_attr_setstreamsize(&self->attr, stream) ||
	    posix_trace_attr_setmaxdatasize(&self->attr, data))
		return -1;
	return create_stream(&self->attr, &self->trid, &self->created);
}

/*
 * max_stream_size takes 352 to 1 GiB (EINVAL outside, the value kept) and
 * is the largest stream a create makes: ENOMEM above it.
 */
TEST_F(limits, max_stream_size_is_set_in_its_range_and_bounds_streams)
{
	int v;

	ASSERT_EQ(0, param_set_n(STREAM_SIZE_PARAM, 65536));
	ASSERT_TRUE(param_read(STREAM_SIZE_PARAM, &v));
	ASSERT_EQ(65536, v);
	ASSERT_EQ(ENOMEM, create_sized(self, 65536 + 8, 16));
	ASSERT_EQ(0, create_sized(self, 65536, 16));

	ASSERT_EQ(EINVAL, param_set_n(STREAM_SIZE_PARAM, STREAM_SIZE_MIN - 1));
	ASSERT_EQ(EINVAL, param_set_n(STREAM_SIZE_PARAM,
				      STREAM_SIZE_PARAM_MAX + 1LL));
	ASSERT_EQ(EINVAL, param_set_n(STREAM_SIZE_PARAM, -1));
	ASSERT_EQ(EINVAL, param_set(STREAM_SIZE_PARAM, "lots"));
	ASSERT_TRUE(param_read(STREAM_SIZE_PARAM, &v));
	ASSERT_EQ(65536, v);

	ASSERT_EQ(0, param_set_n(STREAM_SIZE_PARAM, STREAM_SIZE_MIN));
	ASSERT_EQ(ENOMEM, create_sized(self, STREAM_SIZE_MIN + 8, 16));
	ASSERT_EQ(0, create_sized(self, STREAM_SIZE_MIN, 16));
	ASSERT_EQ(0, param_set_n(STREAM_SIZE_PARAM, STREAM_SIZE_PARAM_MAX));
	ASSERT_TRUE(param_read(STREAM_SIZE_PARAM, &v));
	ASSERT_EQ(STREAM_SIZE_PARAM_MAX, v);
}

/*
 * max_data_size takes 0 to 1 MiB (EINVAL outside, the value kept) and is
 * the largest max data size a create takes: EINVAL above it.
 */
TEST_F(limits, max_data_size_is_set_in_its_range_and_bounds_streams)
{
	int v;

	ASSERT_EQ(0, param_set_n(DATA_SIZE_PARAM, 100));
	ASSERT_TRUE(param_read(DATA_SIZE_PARAM, &v));
	ASSERT_EQ(100, v);
	ASSERT_EQ(EINVAL, create_sized(self, 65536, 101));
	ASSERT_EQ(0, create_sized(self, 65536, 100));

	ASSERT_EQ(EINVAL, param_set_n(DATA_SIZE_PARAM, DATA_SIZE_PARAM_MAX + 1));
	ASSERT_EQ(EINVAL, param_set_n(DATA_SIZE_PARAM, -1));
	ASSERT_EQ(EINVAL, param_set(DATA_SIZE_PARAM, "some"));
	ASSERT_TRUE(param_read(DATA_SIZE_PARAM, &v));
	ASSERT_EQ(100, v);

	ASSERT_EQ(0, param_set_n(DATA_SIZE_PARAM, 0));
	ASSERT_EQ(EINVAL, create_sized(self, 65536, 1));
	ASSERT_EQ(0, create_sized(self, 65536, 0));
	ASSERT_EQ(0, param_set_n(DATA_SIZE_PARAM, DATA_SIZE_PARAM_MAX));
	ASSERT_EQ(0, create_sized(self, 65536, DATA_SIZE_PARAM_MAX));
}

TEST_HARNESS_MAIN
