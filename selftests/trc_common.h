/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the trc_*_test.c kselftests (POSIX Trace option, TRC, and Trace
 * Event Filter option, TEF) share: the harness, the skip when the module is
 * not loaded, the sizes events take in a stream, reading the next event of
 * a stream into a struct rec and the assertions built on that, the status
 * check, creating a stream for a fixture's teardown to shut down,
 * the state of a thread as /proc shows it, and pipe I/O between processes.
 *
 * A test file defines _GNU_SOURCE before its first #include.
 */
#ifndef TRC_COMMON_H
#define TRC_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/posixtrace.h>
#include <trace.h>

#include "../kselftest_harness.h"

/*
 * The harness kills a test after 30 s. Ours run under emulation, some on
 * a debug kernel, on a host whose CPUs other guests may share, and some
 * do fixed work (hundreds of thousands of events, hundreds of forks) that
 * such a host stretches several times over: each gets 120 s. A hung one
 * still ends, and the guest's own timeout bounds the run.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 120

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
 * What each event takes in a stream (the module's choice): a record header,
 * then its data padded to 8 bytes. OVERFLOW and RESUME, built by readers,
 * are bare headers. With the Trace Event Filter option, START carries the
 * filter in force (one trace_event_set_t), STOP its int "auto", FILTER the
 * old and the new filter: FILTER is the largest system event.
 */
#define RECORD_SIZE		sizeof(struct posixtrace_record)
#define EVENTSET_SIZE		sizeof(trace_event_set_t)
#define START_RECORD_SIZE	(RECORD_SIZE + EVENTSET_SIZE)
#define STOP_RECORD_SIZE	(RECORD_SIZE + 8)
#define FILTER_RECORD_SIZE	(RECORD_SIZE + 2 * EVENTSET_SIZE)

_Static_assert(sizeof(trace_event_set_t) ==
	       sizeof(struct posixtrace_eventset),
	       "trace_event_set_t is the layout of struct posixtrace_eventset");
_Static_assert(START_RECORD_SIZE == 208 && STOP_RECORD_SIZE == 72 &&
	       FILTER_RECORD_SIZE == 352, "record sizes of the system events");

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
	unsigned char data[512];	/* FILTER's 288 bytes fit */
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

/* @len bytes shared with the children forked after, or MAP_FAILED. */
static inline void *shared(size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

/*
 * A thread that records numbered events until its process is killed:
 * each event's 8 bytes are the thread's index (high half) and the
 * event's number (low half). *done says how many posix_trace_event()
 * calls returned, for a parent that kills it at any point (one more may
 * be under way then). Past @full_speed events it records one a
 * millisecond, so that a stream of known size holds them all.
 */
struct killable_emitter {
	atomic_uint_fast64_t *done;
	trace_event_id_t id;
	uint64_t t, full_speed;
};

static inline void *killable_emit(void *arg)
{
	struct killable_emitter *e = arg;

	for (uint64_t i = 0; ; i++) {
		uint64_t v = e->t << 32 | i;

		if (i >= e->full_speed)
			usleep(1000);
		posix_trace_event(e->id, &v, sizeof(v));
		atomic_store(e->done, i + 1);
	}
	return NULL;
}

/* The most killable_emitter threads a killed_read() tells apart. */
#define KILLED_THREADS_MAX	4

/*
 * What a reader got of a stream, read to its end, that traced a process
 * killed while @threads killable_emitter threads recorded @id: each
 * thread's events, all of them (@user), START and STOP (@sys), and the
 * events of @after_id (one the test makes after the kill: the stream
 * still records). @gap says that one of @id was not a thread's: not 8
 * bytes, or of no thread; or, if @dense, not the thread's next number.
 */
struct killed_read {
	uint64_t per_thread[KILLED_THREADS_MAX], user, sys, after;
	bool gap;
};

static inline void killed_read(trace_id_t trid, trace_event_id_t id,
			       trace_event_id_t after_id, unsigned int threads,
			       bool dense, struct killed_read *got)
{
	struct rec r;
	uint64_t v;

	memset(got, 0, sizeof(*got));
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id == after_id) {
			got->after++;
			continue;
		}
		if (r.info.posix_event_id != id) {
			got->sys += r.info.posix_event_id == POSIX_TRACE_START ||
				    r.info.posix_event_id == POSIX_TRACE_STOP;
			continue;
		}
		memcpy(&v, r.data, sizeof(v));
		if (r.len != sizeof(v) || v >> 32 >= threads ||
		    v >> 32 >= KILLED_THREADS_MAX ||
		    (dense && got->per_thread[v >> 32] != (uint32_t)v)) {
			got->gap = true;
			continue;
		}
		got->per_thread[v >> 32]++;
		got->user++;
	}
}

/*
 * Two started streams with the default policy that trace this process
 * and, inherited, its children: *a of @a_size bytes, *b of @b_size.
 * Returns 0 or the first call's error number.
 */
static inline int inherited_pair(size_t a_size, size_t b_size,
				 trace_id_t *a, trace_id_t *b)
{
	trace_attr_t attr;
	int ret;

	ret = posix_trace_attr_init(&attr);
	if (!ret)
		ret = posix_trace_attr_setinherited(&attr,
						    POSIX_TRACE_INHERITED);
	if (!ret)
		ret = posix_trace_attr_setstreamsize(&attr, a_size);
	if (!ret)
		ret = posix_trace_create(0, &attr, a);
	if (!ret)
		ret = posix_trace_attr_setstreamsize(&attr, b_size);
	if (!ret)
		ret = posix_trace_create(0, &attr, b);
	if (!ret)
		ret = posix_trace_start(*a);
	if (!ret)
		ret = posix_trace_start(*b);
	return ret;
}

/* The page size, for mappings of the device. */
static inline size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* This process's enable page on dev, read-only as the library maps it. */
static inline const struct posixtrace_enable_page *map_page(int dev)
{
	void *p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, dev,
		       POSIXTRACE_ENABLE_PAGE_OFFSET);

	return p == MAP_FAILED ? NULL : p;
}

/* Is type id enabled in the page, as the library reads it? */
static inline bool enabled(const struct posixtrace_enable_page *ep,
			   uint32_t id)
{
	uint64_t word = __atomic_load_n(&ep->enabled[id / 64],
					__ATOMIC_RELAXED);

	return (word >> (id % 64)) & 1;
}

/* The next event must exist and be of type id. */
#define ASSERT_NEXT(trid, r, id) do {					\
	ASSERT_EQ(0, try_next(trid, r));				\
	ASSERT_EQ(0, (r)->unavailable) {				\
		TH_LOG("expected event %d, stream empty", (int)(id));	\
	}								\
	ASSERT_EQ((id), (r)->info.posix_event_id);			\
} while (0)

/* The next event: a user event of type id whose data starts with n. */
#define ASSERT_NEXT_NUMBERED(trid, r, id, n) do {			\
	uint64_t _n;							\
	ASSERT_NEXT(trid, r, id);					\
	ASSERT_LE(sizeof(_n), (r)->len);				\
	memcpy(&_n, (r)->data, sizeof(_n));				\
	ASSERT_EQ((uint64_t)(n), _n);					\
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

/*
 * The next event must be a POSIX_TRACE_START whose data, the filter in
 * force, is *set (a trace_event_set_t).
 */
#define ASSERT_NEXT_START(trid, r, set) do {				\
	ASSERT_NEXT(trid, r, POSIX_TRACE_START);			\
	ASSERT_EQ(EVENTSET_SIZE, (r)->len);				\
	ASSERT_EQ(POSIX_TRACE_NOT_TRUNCATED,				\
		  (r)->info.posix_truncation_status);			\
	ASSERT_EQ(0, memcmp((set), (r)->data, EVENTSET_SIZE));		\
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

/*
 * Whole-buffer pipe I/O: write all of buf (out; buf is only read then) or
 * read all of it; false on error or end of file.
 */
static inline bool transfer(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;
	ssize_t n;

	while (len) {
		n = out ? write(fd, p, len) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

static inline bool put(int fd, const void *buf, size_t len)
{
	return transfer(fd, (void *)buf, len, true);
}

static inline bool get(int fd, void *buf, size_t len)
{
	return transfer(fd, buf, len, false);
}

static inline bool put_byte(int fd, char c)
{
	return put(fd, &c, 1);
}

/* Block until a byte or end of file arrives. */
static inline void wait_byte(int fd)
{
	char c;

	(void)get(fd, &c, 1);
}

/* What /proc/self/fd shows for a stream's descriptor. */
#define STREAM_LINK	"anon_inode:[posixtrace]"

/* The stream descriptors this process holds (at most max of them). */
static inline int stream_fds(int *fds, int max)
{
	char path[64], link[64];
	struct dirent *e;
	int n = 0, fd;
	ssize_t len;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		if (!strcmp(link, STREAM_LINK) && n < max)
			fds[n++] = fd;
	}
	closedir(d);
	return n;
}

/* CLOCK_REALTIME @ms milliseconds from now: a timed wait's deadline. */
static inline struct timespec realtime_in_ms(unsigned int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/*
 * Wait for what the module does after a call returns (a worker's drain, a
 * kick's): poll @cond every millisecond until it holds, for up to @ms
 * milliseconds. True if it held.
 */
#define WAIT_UNTIL(cond, ms) ({						\
	int __waited = 0;						\
	bool __held;							\
									\
	while (!(__held = (cond)) && __waited++ < (ms))			\
		usleep(1000);						\
	__held;								\
})

/* This process's descriptor of its (only) trace stream; -1 if none. */
static inline int stream_fd(void)
{
	int fd;

	return stream_fds(&fd, 1) == 1 ? fd : -1;
}

/* The module's STATUS of the stream on descriptor @fd: 0 or -errno. */
static inline int stream_status(int fd, struct posixtrace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, POSIXTRACE_IOC_STATUS, st) ? -errno : 0;
}

/* The module's STATUS of this process's only stream: 0 or -errno. */
static inline int own_stream_status(struct posixtrace_status *st)
{
	return stream_status(stream_fd(), st);
}

/*
 * Is @line of a maps file a thread ring's: the device at a ring's offset,
 * new (POSIXTRACE_RING_OFFSET) or grown (POSIXTRACE_RING_GROW_OFFSET)?
 */
_Static_assert(POSIXTRACE_RING_OFFSET == 0x200000 &&
	       POSIXTRACE_RING_GROW_OFFSET == 0x400000,
	       "ring_maps_line() looks for these offsets");
static inline bool ring_maps_line(const char *line)
{
	return (strstr(line, " 00200000 ") || strstr(line, " 00400000 ")) &&
	       strstr(line, DEVICE);
}

/*
 * Where this process's (only) ring is mapped, or NULL; its length in
 * *@len if not NULL.
 */
static inline void *ring_mapping(size_t *len)
{
	unsigned long long start = 0, end = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return NULL;
	while (!start && fgets(line, sizeof(line), f))
		if (ring_maps_line(line) &&
		    sscanf(line, "%llx-%llx", &start, &end) != 2)
			start = 0;
	fclose(f);
	if (len)
		*len = end - start;
	return (void *)(uintptr_t)start;
}

/*
 * Pin the log's kernel thread of the streams @creator made (ptlog/PID) to
 * @cpu, as root; false if there is none or it cannot be pinned.
 */
static inline bool pin_log_writer(pid_t creator, int cpu)
{
	char path[300], comm[32], want[32];
	struct dirent *e;
	cpu_set_t set;
	bool done = false;
	DIR *d;
	FILE *f;

	snprintf(want, sizeof(want), "ptlog/%d\n", (int)creator);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	d = opendir("/proc");
	if (!d)
		return false;
	while (!done && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			done = !sched_setaffinity(atoi(e->d_name), sizeof(set),
						  &set);
		fclose(f);
	}
	closedir(d);
	return done;
}

/* Is a thread ring of process @pid mapped (the device at its offset)? */
static inline bool ring_mapped(pid_t pid)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = ring_maps_line(line);
	fclose(f);
	return found;
}

#define PARAM_DIR		"/sys/module/posixtrace/parameters/"
#define MAX_STREAMS_PARAM	PARAM_DIR "max_streams"
#define PER_USER_PARAM		PARAM_DIR "max_streams_per_user"
#define STALL_PARAM		PARAM_DIR "log_stall_timeout"

/* The integer in a sysfs file (a module parameter); false if unreadable. */
static inline bool param_read(const char *path, int *value)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%d", value) == 1;
	fclose(f);
	return ok;
}

/* Write a module parameter (root); false if refused. */
static inline bool param_write(const char *path, int value)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fprintf(f, "%d", value) > 0;
	return !fclose(f) && ok;
}

/* {TRACE_SYS_MAX} as the module is configured (max_streams). */
static inline int sys_max(void)
{
	int n;

	return param_read(MAX_STREAMS_PARAM, &n) ? n : TRACE_SYS_MAX;
}

#endif /* TRC_COMMON_H */
