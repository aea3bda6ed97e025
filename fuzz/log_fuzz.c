// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for the trace log reader (TRL): each input is a log
 * file. It goes into a memfd, posix_trace_open() takes it, and every call
 * a log trid allows runs on it. The sanitizers catch memory errors and
 * undefined behaviour; the checks below catch a reader that contradicts
 * itself (rewind reads other events, a read that never ends, a status
 * that changes when read, a trid that leaks).
 *
 *	make -C fuzz run FUZZ_SECONDS=30
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <posixtrace-k.h>
#include <trace.h>

/* Every identifier the ABI has is below this (<linux/posixtrace.h>). */
#define ID_MAX		1089
/* More events than this in pass one would be a reader going round. */
#define EVENTS_MAX	4096
#define SMALL		7

#define REQUIRE(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "log_fuzz: %s:%d: %s\n", __FILE__,	\
			__LINE__, #cond);				\
		abort();						\
	}								\
} while (0)

struct seen {
	trace_event_id_t id;
	int truncation;
	size_t data_len;
	uint64_t seq;
};

static struct seen seen[EVENTS_MAX];
static unsigned char data[1 << 20];

/* Reads to the end; pass 0 records what it saw, later passes compare. */
static size_t read_pass(trace_id_t trid, size_t num_bytes, int pass,
			size_t input_size)
{
	struct posix_trace_event_info ev;
	struct timespec never = { .tv_sec = 0, .tv_nsec = -1 };
	size_t n = 0, data_len, want;
	uint64_t seq;
	int unavailable, err;

	REQUIRE(posixtrace_k_event_seq(trid, &seq) == EINVAL);
	for (;;) {
		if (pass == 2)
			err = posix_trace_timedgetnext_event(trid, &ev, data,
				num_bytes, &data_len, &unavailable, &never);
		else
			err = posix_trace_getnext_event(trid, &ev, data,
				num_bytes, &data_len, &unavailable);
		REQUIRE(err == 0);
		if (unavailable)
			break;
		/* Each event takes a record header (64 bytes) of the file. */
		REQUIRE(n < EVENTS_MAX && n < input_size / 64);
		REQUIRE(posixtrace_k_event_seq(trid, &seq) == 0);
		if (pass == 0) {
			REQUIRE(data_len <= num_bytes);
			seen[n] = (struct seen){ ev.posix_event_id,
				ev.posix_truncation_status, data_len, seq };
		} else {
			REQUIRE(ev.posix_event_id == seen[n].id);
			REQUIRE(seq == seen[n].seq);
			want = seen[n].data_len < num_bytes ? seen[n].data_len
							    : num_bytes;
			REQUIRE(data_len == want);
			REQUIRE(ev.posix_truncation_status ==
				(want < seen[n].data_len ?
				 POSIX_TRACE_TRUNCATED_READ :
				 seen[n].truncation));
		}
		n++;
	}
	REQUIRE(data_len == 0);
	return n;
}

static void attributes(trace_id_t trid)
{
	char name[TRACE_NAME_MAX + 1];
	struct timespec ts;
	trace_attr_t attr;
	size_t size;
	int v;

	REQUIRE(posix_trace_get_attr(trid, &attr) == 0);
	REQUIRE(posix_trace_attr_getname(&attr, name) == 0);
	REQUIRE(strlen(name) < TRACE_NAME_MAX);
	REQUIRE(posix_trace_attr_getgenversion(&attr, name) == 0);
	REQUIRE(posix_trace_attr_getcreatetime(&attr, &ts) == 0);
	REQUIRE(posix_trace_attr_getclockres(&attr, &ts) == 0);
	REQUIRE(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000L);
	REQUIRE(posix_trace_attr_getstreamsize(&attr, &size) == 0);
	REQUIRE(posix_trace_attr_getmaxdatasize(&attr, &size) == 0);
	REQUIRE(posix_trace_attr_getlogsize(&attr, &size) == 0);
	REQUIRE(posix_trace_attr_getstreamfullpolicy(&attr, &v) == 0);
	REQUIRE(posix_trace_attr_getlogfullpolicy(&attr, &v) == 0);
	REQUIRE(posix_trace_attr_getinherited(&attr, &v) == 0);
	REQUIRE(posix_trace_attr_getmaxusereventsize(&attr, 100, &size) == 0);
	REQUIRE(posix_trace_attr_destroy(&attr) == 0);
}

static bool one_of(int v, int a, int b)
{
	return v == a || v == b;
}

static void status_and_filter(trace_id_t trid)
{
	struct posix_trace_status_info st, again;
	trace_event_set_t set;
	int ismember;

	REQUIRE(posix_trace_get_status(trid, &st) == 0);
	REQUIRE(one_of(st.posix_stream_status, POSIX_TRACE_RUNNING,
		       POSIX_TRACE_SUSPENDED));
	REQUIRE(one_of(st.posix_stream_full_status, POSIX_TRACE_FULL,
		       POSIX_TRACE_NOT_FULL));
	REQUIRE(one_of(st.posix_stream_overrun_status, POSIX_TRACE_OVERRUN,
		       POSIX_TRACE_NO_OVERRUN));
	REQUIRE(st.posix_stream_flush_status == POSIX_TRACE_NOT_FLUSHING);
	REQUIRE(st.posix_stream_flush_error >= 0);
	REQUIRE(one_of(st.posix_log_overrun_status, POSIX_TRACE_OVERRUN,
		       POSIX_TRACE_NO_OVERRUN));
	REQUIRE(one_of(st.posix_log_full_status, POSIX_TRACE_FULL,
		       POSIX_TRACE_NOT_FULL));
	REQUIRE(posix_trace_get_status(trid, &again) == 0);
	REQUIRE(!memcmp(&st, &again, sizeof(st)));

	REQUIRE(posix_trace_get_filter(trid, &set) == 0);
	/* Bits past the last identifier never show. */
	REQUIRE(!(set.__bits[ID_MAX / 64] >> (ID_MAX % 64)));
	REQUIRE(posix_trace_eventset_ismember(ID_MAX - 1, &set, &ismember)
		== 0);
}

static void types(trace_id_t trid)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	char format[POSIXTRACE_K_FORMAT_MAX + 1];
	trace_event_id_t id, prev = -1;
	int unavailable, n = 0, i, err;
	static const trace_event_id_t odd[] = {
		-1, ID_MAX, ID_MAX + 1, INT32_MAX, INT32_MIN,
	};

	REQUIRE(posix_trace_eventtypelist_rewind(trid) == 0);
	for (;;) {
		REQUIRE(posix_trace_eventtypelist_getnext_id(trid, &id,
							     &unavailable)
			== 0);
		if (unavailable)
			break;
		REQUIRE(id > prev && id < ID_MAX);
		prev = id;
		REQUIRE(posix_trace_eventid_get_name(trid, id, name) == 0);
		REQUIRE(name[0] && strlen(name) <= TRACE_EVENT_NAME_MAX);
		/* A format, if any, is whole, and refused to a small buffer. */
		err = posixtrace_k_eventid_get_format(trid, id, format,
						      sizeof(format));
		REQUIRE(err == 0 || err == ENOENT);
		if (!err) {
			REQUIRE(format[0] &&
				strlen(format) <= POSIXTRACE_K_FORMAT_MAX);
			REQUIRE(posixtrace_k_eventid_get_format(
					trid, id, format, strlen(format)) ==
				ERANGE);
		}
		REQUIRE(++n <= ID_MAX);
	}
	REQUIRE(n >= 9);
	for (i = 0; i < ID_MAX; i++) {
		err = posix_trace_eventid_get_name(trid, i, name);
		REQUIRE(err == 0 || err == EINVAL);
		REQUIRE(posix_trace_eventid_equal(trid, i, i));
	}
	for (i = 0; i < (int)(sizeof(odd) / sizeof(odd[0])); i++)
		REQUIRE(posix_trace_eventid_get_name(trid, odd[i], name) ==
			EINVAL);
}

static void refusals(trace_id_t trid)
{
	struct posix_trace_event_info ev;
	trace_event_set_t set;
	trace_event_id_t id;
	size_t data_len;
	int unavailable;

	REQUIRE(posix_trace_trygetnext_event(trid, &ev, data, 8, &data_len,
					     &unavailable) == EINVAL);
	REQUIRE(posix_trace_start(trid) == EINVAL);
	REQUIRE(posix_trace_stop(trid) == EINVAL);
	REQUIRE(posix_trace_clear(trid) == EINVAL);
	REQUIRE(posix_trace_flush(trid) == EINVAL);
	REQUIRE(posix_trace_shutdown(trid) == EINVAL);
	REQUIRE(posix_trace_eventset_empty(&set) == 0);
	REQUIRE(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET)
		== EINVAL);
	REQUIRE(posix_trace_trid_eventid_open(trid, "x", &id) == EINVAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
	static int fd = -1;
	trace_id_t trid;
	size_t n;
	int err;

	if (fd < 0) {
		fd = memfd_create("log_fuzz", MFD_CLOEXEC);
		REQUIRE(fd >= 0);
	}
	REQUIRE(ftruncate(fd, 0) == 0);
	REQUIRE(pwrite(fd, input, size, 0) == (ssize_t)size);

	err = posix_trace_open(fd, &trid);
	if (err) {
		/* Not a log: EINVAL, and nothing else. */
		REQUIRE(err == EINVAL);
		return 0;
	}
	n = read_pass(trid, sizeof(data), 0, size);
	attributes(trid);
	status_and_filter(trid);
	types(trid);
	refusals(trid);
	REQUIRE(posix_trace_rewind(trid) == 0);
	REQUIRE(read_pass(trid, SMALL, 1, size) == n);
	REQUIRE(posix_trace_rewind(trid) == 0);
	REQUIRE(read_pass(trid, 0, 2, size) == n);
	REQUIRE(posix_trace_close(trid) == 0);
	REQUIRE(posix_trace_close(trid) == EINVAL);
	return 0;
}
