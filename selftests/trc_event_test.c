// SPDX-License-Identifier: GPL-2.0
/*
 * Trace event types and trace events (POSIX Trace option, TRC):
 * posix_trace_eventid_open, posix_trace_trid_eventid_open,
 * posix_trace_eventid_equal, posix_trace_eventid_get_name, the event type
 * list, and posix_trace_event: what an event carries (identifier, data,
 * pid, thread, program address, CLOCK_REALTIME timestamp), truncation when
 * recorded and when read, and the events that must not be recorded.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <stdlib.h>

#include "trc_common.h"

#define MAX_DATA 64

/* A name of n characters. */
static char *name_of_len(char *buf, size_t n)
{
	memset(buf, 'e', n);
	buf[n] = '\0';
	return buf;
}

/*
 * posix_prog_address is "the process mapped address of the point at which
 * the associated call to the posix_trace_event() function was made": the
 * call below, inside this function.
 */
static __attribute__((noinline, noclone)) void
emit_here(trace_event_id_t id, const void *data, size_t len)
{
	posix_trace_event(id, data, len);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

/* A traced stream (this process), started, its START already read. */
FIXTURE(ev) {
	trace_attr_t attr;
	trace_id_t trid;
	trace_event_id_t id;
	bool created;
};

FIXTURE_SETUP(ev)
{
	struct rec r;

	self->created = false;
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, MAX_DATA));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_eventid_open("ev_fixture", &self->id));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
}

FIXTURE_TEARDOWN(ev)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	posix_trace_attr_destroy(&self->attr);
}

TEST_F(ev, eventid_open_same_name_gives_same_id)
{
	trace_event_id_t a, b;

	ASSERT_EQ(0, posix_trace_eventid_open("same", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("same", &b));
	ASSERT_NE(0, posix_trace_eventid_equal(self->trid, a, b));
	ASSERT_EQ(a, b);
	ASSERT_EQ(0, posix_trace_eventid_open("ev_fixture", &b));
	ASSERT_EQ(self->id, b);
}

TEST_F(ev, eventid_open_distinct_names_give_distinct_ids)
{
	trace_event_id_t a, b;

	ASSERT_EQ(0, posix_trace_eventid_open("first", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("second", &b));
	ASSERT_EQ(0, posix_trace_eventid_equal(self->trid, a, b));
	ASSERT_EQ(0, posix_trace_eventid_equal(self->trid, a, self->id));
	/* User event types are neither system ones nor the unnamed one. */
	ASSERT_EQ(0, posix_trace_eventid_equal(self->trid, a,
					       POSIX_TRACE_UNNAMED_USEREVENT));
	ASSERT_EQ(0, posix_trace_eventid_equal(self->trid, a, POSIX_TRACE_START));
}

TEST_F(ev, eventid_equal_nonzero_for_same_id)
{
	ASSERT_NE(0, posix_trace_eventid_equal(self->trid, self->id, self->id));
	ASSERT_NE(0, posix_trace_eventid_equal(self->trid, POSIX_TRACE_STOP,
					       POSIX_TRACE_STOP));
	ASSERT_EQ(0, posix_trace_eventid_equal(self->trid, POSIX_TRACE_START,
					       POSIX_TRACE_STOP));
}

TEST_F(ev, eventid_open_name_of_event_name_max_chars_is_accepted)
{
	char name[TRACE_EVENT_NAME_MAX + 1], got[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;

	ASSERT_EQ(63, TRACE_EVENT_NAME_MAX);
	ASSERT_EQ(0, posix_trace_eventid_open(name_of_len(name,
						TRACE_EVENT_NAME_MAX), &id));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, got));
	ASSERT_STREQ(name, got);
}

/* eventid_open "shall fail" [ENAMETOOLONG] past {TRACE_EVENT_NAME_MAX}. */
TEST_F(ev, eventid_open_name_longer_than_event_name_max_is_enametoolong)
{
	char name[TRACE_EVENT_NAME_MAX + 2];
	trace_event_id_t id = 12345;

	ASSERT_EQ(ENAMETOOLONG, posix_trace_eventid_open(
		name_of_len(name, TRACE_EVENT_NAME_MAX + 1), &id));
	ASSERT_EQ(12345, id);
}

TEST_F(ev, trid_eventid_open_name_of_event_name_max_chars_is_accepted)
{
	char name[TRACE_EVENT_NAME_MAX + 1], got[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;

	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid,
		name_of_len(name, TRACE_EVENT_NAME_MAX), &id));
	ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, id, got));
	ASSERT_STREQ(name, got);
}

/* trid_eventid_open "shall fail" [ENAMETOOLONG] too. */
TEST_F(ev, trid_eventid_open_name_longer_than_event_name_max_is_enametoolong)
{
	char name[TRACE_EVENT_NAME_MAX + 2];
	trace_event_id_t id = 12345;

	ASSERT_EQ(ENAMETOOLONG, posix_trace_trid_eventid_open(self->trid,
		name_of_len(name, TRACE_EVENT_NAME_MAX + 1), &id));
	ASSERT_EQ(12345, id);
}

/* One mapping per traced process: the controller and the process agree. */
TEST_F(ev, trid_eventid_open_and_eventid_open_share_the_mapping)
{
	trace_event_id_t a, b;

	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "ev_fixture", &a));
	ASSERT_EQ(self->id, a);
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "by_ctl", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("by_ctl", &b));
	ASSERT_EQ(a, b);
	ASSERT_NE(self->id, a);
}

TEST_F(ev, eventid_get_name_returns_user_event_name_every_time)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	int i;

	for (i = 0; i < 3; i++) {
		memset(name, 'x', sizeof(name));
		ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, self->id,
							  name));
		ASSERT_STREQ("ev_fixture", name);
	}
}

TEST_F(ev, eventid_get_name_names_system_events)
{
	static const struct {
		trace_event_id_t id;
		const char *name;
	} sys[] = {
		{ POSIX_TRACE_ERROR, "posix_trace_error" },
		{ POSIX_TRACE_START, "posix_trace_start" },
		{ POSIX_TRACE_STOP, "posix_trace_stop" },
		{ POSIX_TRACE_OVERFLOW, "posix_trace_overflow" },
		{ POSIX_TRACE_RESUME, "posix_trace_resume" },
		{ POSIX_TRACE_FLUSH_START, "posix_trace_flush_start" },
		{ POSIX_TRACE_FLUSH_STOP, "posix_trace_flush_stop" },
		{ POSIX_TRACE_FILTER, "posix_trace_filter" },
		{ POSIX_TRACE_UNNAMED_USEREVENT, "posix_trace_unnamed_userevent" },
	};
	char name[TRACE_EVENT_NAME_MAX + 1];
	size_t i;

	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
		EXPECT_EQ(0, posix_trace_eventid_get_name(self->trid, sys[i].id,
							  name));
		EXPECT_STREQ(sys[i].name, name);
	}
}

/* get_name "shall fail" [EINVAL]: the id "was not associated with any name". */
TEST_F(ev, eventid_get_name_of_unknown_id_is_einval)
{
	char name[TRACE_EVENT_NAME_MAX + 1];

	ASSERT_EQ(EINVAL, posix_trace_eventid_get_name(self->trid,
				(trace_event_id_t)0x7fffffff, name));
	ASSERT_EQ(EINVAL, posix_trace_eventid_get_name(self->trid,
				(trace_event_id_t)-1, name));
}

/* The mapping exists before any stream, "for future trace streams". */
TEST(eventid_open_before_any_stream_is_kept_for_later_streams)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id, again;
	trace_id_t trid;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("early", &id));
	posix_trace_event(id, "lost", 4);
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid, id, name));
	ASSERT_STREQ("early", name);
	ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "early", &again));
	ASSERT_EQ(id, again);
	ASSERT_EQ(0, posix_trace_start(trid));
	posix_trace_event(id, "kept", 4);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(4, r.len);
	ASSERT_EQ(0, memcmp("kept", r.data, 4));
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

static int id_cmp(const void *a, const void *b)
{
	trace_event_id_t x = *(const trace_event_id_t *)a;
	trace_event_id_t y = *(const trace_event_id_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * {TRACE_USER_EVENT_MAX} names per process; past that, eventid_open
 * succeeds and returns POSIX_TRACE_UNNAMED_USEREVENT. (The fixture opened
 * one name already.)
 */
TEST_F(ev, eventid_open_past_user_event_max_returns_unnamed_userevent)
{
	trace_event_id_t *ids, id, again;
	char name[32];
	struct rec r;
	int i;

	ASSERT_EQ(1024, TRACE_USER_EVENT_MAX);
	ids = calloc(TRACE_USER_EVENT_MAX, sizeof(*ids));
	ASSERT_NE(NULL, ids);
	ids[0] = self->id;
	for (i = 1; i < TRACE_USER_EVENT_MAX; i++) {
		snprintf(name, sizeof(name), "name%04d", i);
		ASSERT_EQ(0, posix_trace_eventid_open(name, &ids[i]));
		ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, ids[i]) {
			TH_LOG("unnamed after only %d names", i);
		}
	}
	qsort(ids, TRACE_USER_EVENT_MAX, sizeof(*ids), id_cmp);
	for (i = 1; i < TRACE_USER_EVENT_MAX; i++)
		ASSERT_NE(ids[i - 1], ids[i]);
	for (i = 0; i < TRACE_USER_EVENT_MAX; i++) {
		ASSERT_NE(POSIX_TRACE_START, ids[i]);
		ASSERT_NE(POSIX_TRACE_STOP, ids[i]);
	}

	id = 0;
	ASSERT_EQ(0, posix_trace_eventid_open("one_too_many", &id));
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, id);
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "two_too_many",
						   &id));
	ASSERT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, id);
	/* Names already mapped keep their identifier. */
	ASSERT_EQ(0, posix_trace_eventid_open("name0500", &again));
	ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, again);
	ASSERT_EQ(0, posix_trace_eventid_open("ev_fixture", &again));
	ASSERT_EQ(self->id, again);

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "u", 1);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_UNNAMED_USEREVENT);
	free(ids);
}

/*
 * The module takes the identifiers this process opened, and no more: one
 * past the last is refused (EINVAL) by the device's EVENT, the last is
 * recorded. (The library never sends an identifier it has not opened: a
 * hand-made call, as a hostile producer makes.) make mutants'
 * names-valid-one-past survived without it.
 */
TEST_F(ev, event_id_one_past_the_last_opened_is_einval)
{
	trace_event_id_t last;
	uint64_t v = 7;
	struct posixtrace_event e = {
		.size = sizeof(e),
		.data_len = sizeof(v),
		.data = (uintptr_t)&v,
	};
	int dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	struct rec r;

	ASSERT_LE(0, dev);
	ASSERT_EQ(0, posix_trace_eventid_open("ev_last_opened", &last));
	e.event_id = last + 1;
	EXPECT_EQ(-1, ioctl(dev, POSIXTRACE_IOC_EVENT, &e));
	EXPECT_EQ(EINVAL, errno);
	e.event_id = last;
	EXPECT_EQ(0, ioctl(dev, POSIXTRACE_IOC_EVENT, &e));
	close(dev);
	/* Only the last one's event is there. */
	ASSERT_NEXT(self->trid, &r, last);
	ASSERT_EQ(sizeof(v), r.len);
}

TEST_F(ev, event_records_id_data_pid_thread_and_address)
{
	const char payload[] = "hello, trace";
	uintptr_t addr;
	struct rec r;

	emit_here(self->id, payload, sizeof(payload));
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(sizeof(payload), r.len);
	ASSERT_EQ(0, memcmp(payload, r.data, sizeof(payload)));
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_TRUE(pthread_equal(pthread_self(), r.info.posix_thread_id));
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, r.info.posix_truncation_status);
	addr = (uintptr_t)r.info.posix_prog_address;
	ASSERT_NE(0, addr);
	ASSERT_LE((uintptr_t)emit_here, addr);
	ASSERT_GT((uintptr_t)emit_here + 256, addr);
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * posix_trace_event() is also a macro that tests the enable bits inline
 * (<trace.h>): it records exactly what the function records, for every
 * kind of identifier, and the library has published the bits it tests.
 */
TEST_F(ev, the_inline_test_records_what_the_function_records)
{
	/* Recorded, recorded, a system type, past every identifier. */
	const trace_event_id_t ids[] = {
		self->id, POSIX_TRACE_UNNAMED_USEREVENT, POSIX_TRACE_START,
		1089, 5000, -1,
	};
	const unsigned long long *bits;
	struct rec r;
	unsigned int i;
	int k;

	/* The fixture's eventid_open mapped the page: the bits are out. */
	ASSERT_NE(NULL, posixtrace_k_enabled);
	bits = __atomic_load_n(posixtrace_k_enabled, __ATOMIC_ACQUIRE);
	ASSERT_NE(NULL, bits);
	ASSERT_TRUE((bits[self->id / 64] >> (self->id % 64)) & 1);
	ASSERT_FALSE((bits[POSIX_TRACE_START / 64] >> POSIX_TRACE_START) & 1);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		k = 2 * i;
		posix_trace_event(ids[i], &k, sizeof(k));
		k = 2 * i + 1;
		(posix_trace_event)(ids[i], &k, sizeof(k));
	}
	for (i = 0; i < 2; i++) {
		for (k = 2 * i; k < 2 * (int)i + 2; k++) {
			ASSERT_NEXT(self->trid, &r, ids[i]);
			ASSERT_EQ(sizeof(k), r.len);
			ASSERT_EQ(0, memcmp(&k, r.data, sizeof(k)));
		}
	}
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * A child reads its own bits, never its parent's: the word the macro
 * reads is in a page that reads 0 in a child until it maps its own.
 */
TEST_F(ev, a_child_tests_its_own_bits_inline)
{
	int status;
	pid_t child;

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		trace_event_id_t id;

		if (!posixtrace_k_enabled ||
		    __atomic_load_n(posixtrace_k_enabled, __ATOMIC_ACQUIRE))
			_exit(1);
		/* Not traced (the stream is the parent's): goes nowhere. */
		posix_trace_event(self->id, "c", 1);
		if (posix_trace_eventid_open("ev_child", &id) ||
		    !__atomic_load_n(posixtrace_k_enabled, __ATOMIC_ACQUIRE))
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_F(ev, event_timestamps_are_realtime_in_generation_order)
{
	struct timespec before[20], after[20];
	struct rec r;
	uint32_t i, got;

	for (i = 0; i < 20; i++) {
		clock_gettime(CLOCK_REALTIME, &before[i]);
		posix_trace_event(self->id, &i, sizeof(i));
		clock_gettime(CLOCK_REALTIME, &after[i]);
	}
	for (i = 0; i < 20; i++) {
		ASSERT_NEXT(self->trid, &r, self->id);
		memcpy(&got, r.data, sizeof(got));
		ASSERT_EQ(i, got);
		ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &before[i]));
		ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &after[i]));
	}
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(ev, event_with_no_data_has_zero_length)
{
	struct rec r;

	posix_trace_event(self->id, NULL, 0);
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(0, r.len);
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, r.info.posix_truncation_status);
}

TEST_F(ev, event_data_of_maxdatasize_is_not_truncated)
{
	unsigned char data[MAX_DATA];
	struct rec r;
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 1);
	posix_trace_event(self->id, data, sizeof(data));
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(MAX_DATA, r.len);
	ASSERT_EQ(0, memcmp(data, r.data, MAX_DATA));
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, r.info.posix_truncation_status);
}

TEST_F(ev, event_data_longer_than_maxdatasize_is_truncated_record)
{
	unsigned char data[MAX_DATA + 37];
	struct rec r;
	size_t i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 3 + 5);
	posix_trace_event(self->id, data, sizeof(data));
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(MAX_DATA, r.len);
	ASSERT_EQ(0, memcmp(data, r.data, MAX_DATA));
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_RECORD, r.info.posix_truncation_status);
}

TEST_F(ev, read_into_smaller_buffer_is_truncated_read)
{
	struct posix_trace_event_info info;
	unsigned char data[32], buf[32];
	size_t i, len = 999;
	int unavailable = -1;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i + 100);
	posix_trace_event(self->id, data, sizeof(data));
	posix_trace_event(self->id, "next", 4);
	memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info, buf, 10,
						  &len, &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(self->id, info.posix_event_id);
	ASSERT_EQ(10, len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ, info.posix_truncation_status);
	ASSERT_EQ(0, memcmp(data, buf, 10));
	for (i = 10; i < sizeof(buf); i++)
		ASSERT_EQ(0xee, buf[i]);
	/* The rest of the event is gone: the next read is the next event. */
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info, buf,
						  sizeof(buf), &len,
						  &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(4, len);
	ASSERT_EQ(0, memcmp("next", buf, 4));
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, info.posix_truncation_status);
}

TEST_F(ev, read_with_zero_num_bytes_is_truncated_read_of_length_zero)
{
	struct posix_trace_event_info info;
	unsigned char buf[8];
	size_t len = 999;
	int unavailable = -1;

	posix_trace_event(self->id, "12345678", 8);
	memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info, buf, 0,
						  &len, &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(0, len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ, info.posix_truncation_status);
	ASSERT_EQ(0xee, buf[0]);
}

TEST_F(ev, read_into_buffer_of_exact_size_is_not_truncated)
{
	struct posix_trace_event_info info;
	unsigned char buf[12];
	size_t len = 999;
	int unavailable = -1;

	posix_trace_event(self->id, "exactly 12 b", 12);
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info, buf, 12,
						  &len, &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(12, len);
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, info.posix_truncation_status);
}

/* TRUNCATED_READ "overrides the POSIX_TRACE_TRUNCATED_RECORD status". */
TEST_F(ev, truncated_read_overrides_truncated_record)
{
	struct posix_trace_event_info info;
	unsigned char data[MAX_DATA + 8], buf[8];
	size_t len = 999;
	int unavailable = -1;

	memset(data, 0x42, sizeof(data));
	posix_trace_event(self->id, data, sizeof(data));
	ASSERT_EQ(0, posix_trace_trygetnext_event(self->trid, &info, buf,
						  sizeof(buf), &len,
						  &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(sizeof(buf), len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ, info.posix_truncation_status);
}

TEST_F(ev, each_stream_truncates_to_its_own_maxdatasize)
{
	unsigned char data[32];
	trace_attr_t attr;
	trace_id_t small;
	struct rec r;

	memset(data, 0x17, sizeof(data));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 8));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &small));
	ASSERT_EQ(0, posix_trace_start(small));
	ASSERT_NEXT(small, &r, POSIX_TRACE_START);
	posix_trace_event(self->id, data, sizeof(data));

	ASSERT_NEXT(small, &r, self->id);
	ASSERT_EQ(8, r.len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_RECORD, r.info.posix_truncation_status);
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(sizeof(data), r.len);
	ASSERT_EQ(0, memcmp(data, r.data, sizeof(data)));
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, r.info.posix_truncation_status);
	ASSERT_EQ(0, posix_trace_shutdown(small));
	posix_trace_attr_destroy(&attr);
}

TEST_F(ev, maxdatasize_zero_keeps_no_data_and_marks_truncated_record)
{
	trace_attr_t attr;
	trace_id_t none;
	struct rec r;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 0));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &none));
	ASSERT_EQ(0, posix_trace_start(none));
	ASSERT_NEXT(none, &r, POSIX_TRACE_START);
	posix_trace_event(self->id, "abc", 3);
	posix_trace_event(self->id, NULL, 0);
	ASSERT_NEXT(none, &r, self->id);
	ASSERT_EQ(0, r.len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_RECORD, r.info.posix_truncation_status);
	ASSERT_NEXT(none, &r, self->id);
	ASSERT_EQ(0, r.len);
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED, r.info.posix_truncation_status);
	ASSERT_EQ(0, posix_trace_shutdown(none));
	posix_trace_attr_destroy(&attr);
}

struct emitter {
	trace_event_id_t id;
	pthread_t self;
};

static void *emit_thread(void *arg)
{
	struct emitter *e = arg;

	e->self = pthread_self();
	posix_trace_event(e->id, "thr", 3);
	return NULL;
}

TEST_F(ev, event_from_other_thread_carries_its_thread_id)
{
	struct emitter e = { .id = self->id };
	pthread_t thr;
	struct rec r;

	ASSERT_EQ(0, pthread_create(&thr, NULL, emit_thread, &e));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_TRUE(pthread_equal(e.self, r.info.posix_thread_id));
	ASSERT_FALSE(pthread_equal(pthread_self(), r.info.posix_thread_id));
}

TEST_F(ev, event_with_never_opened_id_records_nothing)
{
	trace_event_id_t bogus = (trace_event_id_t)0x7fffff00;
	struct rec r;

	posix_trace_event(bogus, "bogus", 5);
	posix_trace_event(-1, "bogus", 5);
	ASSERT_EMPTY(self->trid, &r);
	/* And the process still records its real events. */
	posix_trace_event(self->id, "real", 4);
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EMPTY(self->trid, &r);
}

/* A process cannot forge system events: it never opened those ids. */
TEST_F(ev, event_with_system_event_id_records_nothing)
{
	struct rec r;
	int zero = 0;

	posix_trace_event(POSIX_TRACE_START, NULL, 0);
	posix_trace_event(POSIX_TRACE_STOP, &zero, sizeof(zero));
	posix_trace_event(POSIX_TRACE_OVERFLOW, NULL, 0);
	posix_trace_event(POSIX_TRACE_RESUME, NULL, 0);
	posix_trace_event(POSIX_TRACE_ERROR, &zero, sizeof(zero));
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(ev, unnamed_userevent_can_be_recorded)
{
	struct rec r;

	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "anon", 4);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_UNNAMED_USEREVENT);
	ASSERT_EQ(4, r.len);
	ASSERT_EQ(0, memcmp("anon", r.data, 4));
}

TEST_F(ev, event_is_recorded_in_every_running_stream_of_the_process)
{
	trace_id_t second, stopped;
	struct rec r;

	ASSERT_EQ(0, posix_trace_create(0, &self->attr, &second));
	ASSERT_EQ(0, posix_trace_create(0, &self->attr, &stopped));
	ASSERT_EQ(0, posix_trace_start(second));
	ASSERT_NEXT(second, &r, POSIX_TRACE_START);
	posix_trace_event(self->id, "both", 4);
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(0, memcmp("both", r.data, 4));
	ASSERT_NEXT(second, &r, self->id);
	ASSERT_EQ(0, memcmp("both", r.data, 4));
	ASSERT_EMPTY(stopped, &r);
	ASSERT_EQ(0, posix_trace_shutdown(second));
	ASSERT_EQ(0, posix_trace_shutdown(stopped));
}

/* Read the whole type list; returns the count, or -1 if it never ends. */
static int list_types(trace_id_t trid, trace_event_id_t *ids, int max)
{
	int n = 0, unavailable;
	trace_event_id_t id;

	for (;;) {
		unavailable = -1;
		if (posix_trace_eventtypelist_getnext_id(trid, &id, &unavailable))
			return -1;
		if (unavailable)
			return n;
		if (n == max)
			return -1;
		ids[n++] = id;
	}
}

static bool has_id(const trace_event_id_t *ids, int n, trace_event_id_t id)
{
	int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * The list: the system event types (0..7 in this implementation), the
 * unnamed user event, and the user event types of the traced process.
 */
TEST_F(ev, eventtypelist_lists_system_unnamed_and_user_types)
{
	trace_event_id_t ids[64], alpha, beta;
	trace_event_id_t sys[] = {
		POSIX_TRACE_ERROR, POSIX_TRACE_START, POSIX_TRACE_STOP,
		POSIX_TRACE_OVERFLOW, POSIX_TRACE_RESUME,
		POSIX_TRACE_FLUSH_START, POSIX_TRACE_FLUSH_STOP,
		POSIX_TRACE_FILTER,
	};
	int n, i, missing = -1;

	ASSERT_EQ(0, posix_trace_eventid_open("alpha", &alpha));
	ASSERT_EQ(0, posix_trace_eventid_open("beta", &beta));
	n = list_types(self->trid, ids, 64);
	ASSERT_EQ(12, n);
	for (i = 0; i < (int)(sizeof(sys) / sizeof(sys[0])); i++)
		if (!has_id(ids, n, sys[i]))
			missing = sys[i];
	EXPECT_EQ(-1, missing);
	EXPECT_TRUE(has_id(ids, n, POSIX_TRACE_UNNAMED_USEREVENT));
	EXPECT_TRUE(has_id(ids, n, self->id));
	EXPECT_TRUE(has_id(ids, n, alpha));
	EXPECT_TRUE(has_id(ids, n, beta));
	qsort(ids, n, sizeof(ids[0]), id_cmp);
	for (i = 1; i < n; i++)
		EXPECT_NE(ids[i - 1], ids[i]);
}

TEST_F(ev, every_listed_type_has_its_name)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t ids[64], alpha;
	int n, i, found = 0;

	ASSERT_EQ(0, posix_trace_eventid_open("alpha", &alpha));
	n = list_types(self->trid, ids, 64);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, posix_trace_eventid_get_name(self->trid, ids[i],
							  name));
		ASSERT_LT(0, strlen(name));
		if (ids[i] == alpha) {
			ASSERT_STREQ("alpha", name);
			found++;
		}
		if (ids[i] == POSIX_TRACE_START) {
			ASSERT_STREQ("posix_trace_start", name);
			found++;
		}
	}
	ASSERT_EQ(2, found);
}

TEST_F(ev, eventtypelist_end_leaves_event_untouched_and_stays_at_end)
{
	trace_event_id_t ids[64], id;
	int n, unavailable;

	n = list_types(self->trid, ids, 64);
	ASSERT_LT(0, n);
	id = (trace_event_id_t)0x5eadbeef;
	unavailable = 0;
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid, &id,
							  &unavailable));
	ASSERT_NE(0, unavailable);
	ASSERT_EQ((trace_event_id_t)0x5eadbeef, id);
}

TEST_F(ev, eventtypelist_rewind_restarts_from_first)
{
	trace_event_id_t first[64], again[64], id;
	int n, m, unavailable;

	n = list_types(self->trid, first, 64);
	ASSERT_LT(2, n);
	ASSERT_EQ(0, posix_trace_eventtypelist_rewind(self->trid));
	m = list_types(self->trid, again, 64);
	ASSERT_EQ(n, m);
	ASSERT_EQ(0, memcmp(first, again, n * sizeof(first[0])));
	/* Rewind in the middle of the list, too. */
	ASSERT_EQ(0, posix_trace_eventtypelist_rewind(self->trid));
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid, &id,
							  &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid, &id,
							  &unavailable));
	ASSERT_EQ(0, posix_trace_eventtypelist_rewind(self->trid));
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(self->trid, &id,
							  &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(first[0], id);
}

TEST_F(ev, eventtypelist_includes_names_opened_by_the_controller)
{
	trace_event_id_t ids[64], ctl;
	int n;

	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "from_ctl", &ctl));
	n = list_types(self->trid, ids, 64);
	ASSERT_LT(0, n);
	ASSERT_TRUE(has_id(ids, n, ctl));
}

TEST_HARNESS_MAIN
