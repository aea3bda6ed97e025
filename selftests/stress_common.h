/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the stress and fuzz tests share: time and deadlines, a seeded
 * random sequence, the raw ABI's create and control calls, and the checks
 * that the module still works afterwards (every {TRACE_SYS_MAX} stream
 * can be created, a normal round trip works).
 *
 * A test file includes trc_common.h first.
 */
#ifndef STRESS_COMMON_H
#define STRESS_COMMON_H

#include <fcntl.h>

#include "trc_common.h"

#define NS_PER_MS	1000000ULL

/* ---- time and randomness -------------------------------------------- */

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t deadline_ms(unsigned int ms)
{
	return now_ns() + ms * NS_PER_MS;
}

static inline bool before(uint64_t deadline)
{
	return now_ns() < deadline;
}

/*
 * For loops of costly iterations: is there time for one more before the
 * deadline, if it takes as long as the last one (*start: when that began;
 * updated to now)?
 */
static inline bool room_for_one_more(uint64_t deadline, uint64_t *start)
{
	uint64_t now = now_ns(), last = *start ? now - *start : 0;

	*start = now;
	return now + last < deadline;
}

/* CLOCK_REALTIME in us microseconds. */
static inline struct timespec realtime_in(unsigned int us)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += us / 1000000;
	ts.tv_nsec += (long)(us % 1000000) * 1000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* splitmix64: small, and the same sequence everywhere for a seed. */
static inline uint64_t rnd_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(rnd_next(s) % n) : 0;
}

/* The test's fixed seed, or TRC_STRESS_SEED; logged either way. */
static inline uint64_t test_seed(struct __test_metadata *_metadata,
				 uint64_t fixed)
{
	const char *env = getenv("TRC_STRESS_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : fixed;

	TH_LOG("seed %#llx (TRC_STRESS_SEED overrides)",
	       (unsigned long long)seed);
	return seed;
}

/* ---- the raw ABI ----------------------------------------------------- */

#define ROUND8(x)	(((x) + 7) & ~(uint64_t)7)

/*
 * A stream on @pid (0: this process) as @a says (its size member set
 * here), with @mem_fd as the proof (-1: none), logged to @log_fd (-1:
 * none): its descriptor, or -errno.
 */
static inline int raw_create_on(int dev, struct posixtrace_attr *a,
				pid_t pid, int mem_fd, int log_fd)
{
	struct posixtrace_create c = {
		.size = sizeof(c),
		.pid = pid,
		.log_fd = log_fd,
		.attr = (uintptr_t)a,
	};
	int fd;

#ifdef POSIXTRACE_CREATE_MEM_FD
	if (mem_fd >= 0) {
		c.flags = POSIXTRACE_CREATE_MEM_FD;
		c.mem_fd = mem_fd;
	}
#endif
	a->size = sizeof(*a);
	fd = ioctl(dev, POSIXTRACE_IOC_CREATE, &c);
	return fd < 0 ? -errno : fd;
}

static inline int raw_create_mem(int dev, pid_t pid, uint64_t stream_size,
				 uint64_t max_data, uint32_t policy,
				 int mem_fd)
{
	struct posixtrace_attr a = {
		.stream_size = stream_size,
		.max_data_size = max_data,
		.stream_full_policy = policy,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};

	return raw_create_on(dev, &a, pid, mem_fd, -1);
}

/*
 * A stream of this process as @a says (its size member set here), logged
 * to @log_fd (-1: none): its descriptor, or -errno.
 */
static inline int raw_create_with(int dev, struct posixtrace_attr *a,
				  int log_fd)
{
	return raw_create_on(dev, a, 0, -1, log_fd);
}

static inline int raw_create(int dev, pid_t pid, uint64_t stream_size,
			     uint64_t max_data, uint32_t policy)
{
	return raw_create_mem(dev, pid, stream_size, max_data, policy, -1);
}

/*
 * A stream on another process, with the proof of the right to trace it
 * where the ABI asks for one: its /proc/<pid>/mem, opened here. The fd,
 * or -errno (of the open, or of the create).
 */
static inline int raw_create_for(int dev, pid_t pid, uint64_t stream_size,
				 uint64_t max_data, uint32_t policy)
{
#ifdef POSIXTRACE_CREATE_MEM_FD
	char path[64];
	int mem, fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	if (mem < 0)
		return -errno;
	fd = raw_create_mem(dev, pid, stream_size, max_data, policy, mem);
	close(mem);
	return fd;
#else
	return raw_create(dev, pid, stream_size, max_data, policy);
#endif
}

static inline int raw_control(int sfd, unsigned long cmd)
{
	return ioctl(sfd, cmd, 0) ? errno : 0;
}

static inline int raw_status(int sfd, struct posixtrace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(sfd, POSIXTRACE_IOC_STATUS, st) ? errno : 0;
}

/*
 * FLUSH a stream with a log and wait (up to 5 s) for it; the status last
 * read in *st. Returns how many times STATUS said EIO on the way (any
 * other flush error fails the test).
 */
static inline int raw_flush_and_wait(struct __test_metadata *_metadata,
				     int sfd, struct posixtrace_status *st)
{
	int i, errors = 0;

	EXPECT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_FLUSH));
	for (i = 0; i < 5000; i++) {
		EXPECT_EQ(0, raw_status(sfd, st));
		if (st->flush_error) {
			EXPECT_EQ(EIO, st->flush_error);
			errors++;
		}
		if (st->flush_status == POSIXTRACE_NOT_FLUSHING)
			break;
		usleep(1000);
	}
	return errors;
}

/* GETNEXT into buf: 0 or the errno; *count records of *bytes. */
static inline int raw_getnext(int sfd, void *buf, uint32_t size,
			      uint32_t flags, const struct timespec *abstime,
			      uint32_t *count, uint32_t *bytes)
{
	struct posixtrace_getnext gn = {
		.size = sizeof(gn),
		.flags = flags,
		.buf = (uintptr_t)buf,
		.buf_size = size,
	};

	*count = 0;
	*bytes = 0;
	if (abstime) {
		gn.timeout_sec = abstime->tv_sec;
		gn.timeout_nsec = (uint32_t)abstime->tv_nsec;
	}
	if (ioctl(sfd, POSIXTRACE_IOC_GETNEXT, &gn))
		return errno;
	*count = gn.count;
	*bytes = gn.bytes;
	return 0;
}

/* ---- streams and their limit ---------------------------------------- */

static inline void make_attr(trace_attr_t *attr, size_t stream_size,
			     size_t max_data, int policy)
{
	posix_trace_attr_init(attr);
	posix_trace_attr_setstreamsize(attr, stream_size);
	posix_trace_attr_setmaxdatasize(attr, max_data);
	posix_trace_attr_setstreamfullpolicy(attr, policy);
}

/* Create all {TRACE_SYS_MAX} streams now, then release them; 0 or error. */
static inline int can_create_all(int max)
{
	trace_id_t *trids = calloc(max, sizeof(*trids));
	trace_attr_t attr;
	int n, ret = 0;

	if (!trids)
		return ENOMEM;
	make_attr(&attr, 4096, 16, POSIX_TRACE_LOOP);
	for (n = 0; n < max; n++) {
		ret = posix_trace_create(0, &attr, &trids[n]);
		if (ret)
			break;
	}
	while (n--)
		posix_trace_shutdown(trids[n]);
	posix_trace_attr_destroy(&attr);
	free(trids);
	return ret;
}

/*
 * A normal create, start, event, read and shutdown: 0, or the number of
 * the step that failed.
 */
static inline int round_trip(void)
{
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	int step = 0;

	if (posix_trace_eventid_open("round_trip", &id))
		return 1;
	if (posix_trace_create(0, NULL, &trid))
		return 2;
	if (posix_trace_start(trid)) {
		step = 3;
	} else {
		posix_trace_event(id, "rt", 2);
		if (try_next(trid, &r) || r.unavailable ||
		    r.info.posix_event_id != POSIX_TRACE_START)
			step = 4;
		else if (try_next(trid, &r) || r.unavailable ||
			 r.info.posix_event_id != id || r.len != 2 ||
			 memcmp(r.data, "rt", 2))
			step = 5;
		else if (try_next(trid, &r) || !r.unavailable)
			step = 6;
	}
	if (posix_trace_shutdown(trid) && !step)
		step = 7;
	return step;
}

#endif /* STRESS_COMMON_H */
