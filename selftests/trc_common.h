/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the trc_*_test.c kselftests (POSIX Trace option, TRC) share: the
 * harness, the skip when the module is not loaded, reading the next event
 * of a stream into a struct rec and the assertions built on that, the
 * status check, creating a stream for a fixture's teardown to shut down,
 * and the state of a thread as /proc shows it.
 *
 * A test file defines _GNU_SOURCE before its first #include.
 */
#ifndef TRC_COMMON_H
#define TRC_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/posixtrace.h>
#include <trace.h>

#include "../kselftest_harness.h"

/*
 * The code TEST_F() expands to (kselftest_harness.h, 6.12) keeps a local
 * across setjmp(); GCC warns about it when it inlines a test body there.
 */
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

#define DEVICE "/dev/posixtrace"

/* Skip the test (or the fixture's tests) when the module is not loaded. */
#define SKIP_WITHOUT_DEVICE() do {					\
	if (access(DEVICE, F_OK))					\
		SKIP(return, DEVICE " missing: is posixtrace.ko loaded?"); \
} while (0)

/*
 * The record header every event takes in a stream (the module's choice):
 * all that START and the other system events without data take.
 */
#define RECORD_SIZE	sizeof(struct posixtrace_record)

/* Negative, 0 or positive as timestamp a is before, at or after b. */
static inline int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	if (a->tv_nsec != b->tv_nsec)
		return a->tv_nsec < b->tv_nsec ? -1 : 1;
	return 0;
}

/* One read of a stream: the event, its data and what the read reported. */
struct rec {
	struct posix_trace_event_info info;
	size_t len;
	int unavailable;
	unsigned char data[256];
};

/*
 * Make r ready for a read: zeroed, with unavailable -1 so that a read that
 * does not set it is seen.
 */
static inline void rec_clear(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->unavailable = -1;
}

/* trygetnext into r; returns its error number. */
static inline int try_next(trace_id_t trid, struct rec *r)
{
	rec_clear(r);
	return posix_trace_trygetnext_event(trid, &r->info, r->data,
					    sizeof(r->data), &r->len,
					    &r->unavailable);
}

/* The next event must exist and be of type id. */
#define ASSERT_NEXT(trid, r, id) do {					\
	ASSERT_EQ(0, try_next(trid, r));				\
	ASSERT_EQ(0, (r)->unavailable) {				\
		TH_LOG("expected event %d, stream empty", (int)(id));	\
	}								\
	ASSERT_EQ((id), (r)->info.posix_event_id);			\
} while (0)

/* The stream must have nothing more to report. */
#define ASSERT_EMPTY(trid, r) do {					\
	ASSERT_EQ(0, try_next(trid, r));				\
	ASSERT_NE(0, (r)->unavailable) {				\
		TH_LOG("unexpected event %d",				\
		       (int)(r)->info.posix_event_id);			\
	}								\
} while (0)

/* The next event must be a POSIX_TRACE_STOP whose "auto" data is given. */
#define ASSERT_NEXT_STOP(trid, r, auto_value) do {			\
	int _auto = -1;							\
	ASSERT_NEXT(trid, r, POSIX_TRACE_STOP);				\
	ASSERT_EQ(sizeof(int), (r)->len);				\
	memcpy(&_auto, (r)->data, sizeof(_auto));			\
	ASSERT_EQ((auto_value), _auto);					\
} while (0)

/* get_status must succeed and report these three statuses. */
#define ASSERT_STATUS(trid, state, full, overrun) do {			\
	struct posix_trace_status_info _st;				\
	memset(&_st, 0xff, sizeof(_st));				\
	ASSERT_EQ(0, posix_trace_get_status(trid, &_st));		\
	ASSERT_EQ((state), _st.posix_stream_status);			\
	ASSERT_EQ((full), _st.posix_stream_full_status);		\
	ASSERT_EQ((overrun), _st.posix_stream_overrun_status);		\
} while (0)

/*
 * posix_trace_create() of a stream tracing this process; *created says
 * whether the fixture's teardown has a stream to shut down. Returns the
 * error number.
 */
static inline int create_stream(const trace_attr_t *attr, trace_id_t *trid,
				bool *created)
{
	int ret = posix_trace_create(0, attr, trid);

	*created = !ret;
	return ret;
}

/* The state letter of a thread of this process, from /proc; 0 if unknown. */
static inline char thread_state(pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

#endif /* TRC_COMMON_H */
