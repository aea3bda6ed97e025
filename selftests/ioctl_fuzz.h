/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random ioctls and mmaps on /dev/posixtrace and on a stream, each checked
 * for a sane result: the engine of trc_stress_test's short run and of
 * fuzz_test (make fuzz). One struct fuzz per thread: its own random
 * sequence, argument page, scratch area and stream.
 *
 * Arguments are built for the command they most look like, mostly valid
 * in "sane" calls (so that they get past the first checks) and anything
 * otherwise: sizes, flags, reserved members, pointers (NULL, unmapped,
 * kernel, non-canonical, misaligned, across a guard page), command
 * numbers of the 0xB9 magic and of the other kind of descriptor.
 *
 * A test file includes stress_common.h first.
 */
#ifndef IOCTL_FUZZ_H
#define IOCTL_FUZZ_H

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "stress_common.h"

#define FUZZ_SCRATCH	(128 * 1024)

struct fuzz {
	uint64_t rng;
	/*
	 * Mostly valid arguments this time, each value wrong only now and
	 * then, so that calls get past the first checks.
	 */
	bool sane;
	int dev, sfd;
	/* Other threads and processes fuzz too (streams may run out). */
	bool crowded;
	size_t page;
	unsigned char *arg;		/* a page, then a guard page */
	unsigned char *scratch;		/* FUZZ_SCRATCH, then a guard page */
	unsigned char *reserved;	/* a page no access may touch */
	unsigned char *tmp;		/* where an argument is built */
	int mem_self, mem_init;		/* /proc/{self,1}/mem, or -1 */
	/*
	 * Trace logs: /dev/null, and a memfd sealed against growing, so that
	 * every write past its size fails (and space reservation with it).
	 */
	int log_null, log_sealed;
	/* SIGALRM to this thread alone, to interrupt its blocked calls. */
	timer_t timer;
	bool has_timer;
	unsigned long calls, successes, created, recreated, interrupted;
	unsigned long maps, mapped;
	unsigned long by_errno[160];
};

static inline void fuzz_alarm(int sig)
{
}

/* Commands may block only where the timer will interrupt them. */
static inline void fuzz_timer(unsigned int us)
{
	struct itimerval it = { .it_value = { 0, us }, .it_interval = { 0, us } };

	setitimer(ITIMER_REAL, &it, NULL);
}

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id	_sigev_un._tid
#endif

/*
 * A timer of the calling thread's own (SIGEV_THREAD_ID): with several
 * threads, a process-wide one would be set and cancelled by each.
 */
static inline void fuzz_thread_timer(struct fuzz *f)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGALRM,
	};

	sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	f->has_timer = !timer_create(CLOCK_MONOTONIC, &sev, &f->timer);
}

/*
 * Interrupt this thread's call in us microseconds, and every us after
 * until disarmed (0): a signal that comes before the call blocks (a slow
 * kernel, a preempted thread) must not leave it blocked for good.
 */
static inline void fuzz_arm(struct fuzz *f, unsigned int us)
{
	struct itimerspec its = {
		.it_value = { us / 1000000, (long)(us % 1000000) * 1000 },
		.it_interval = { us / 1000000, (long)(us % 1000000) * 1000 },
	};

	if (f->has_timer)
		timer_settime(f->timer, 0, &its, NULL);
	else
		fuzz_timer(us);
}

/* In sane mode, true most of the time: keep the valid value. */
static inline bool fuzz_keep(struct fuzz *f)
{
	return f->sane && rnd_below(&f->rng, 16);
}

static inline uint64_t fuzz_ptr(struct fuzz *f)
{
	switch (fuzz_keep(f) ? 8 : rnd_below(&f->rng, 12)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)f->reserved + rnd_below(&f->rng, f->page);
	case 2:
		return 0xffff888000000000ULL + rnd_below(&f->rng, 1 << 20);
	case 3:
		return 0xffffffff81000000ULL;
	case 4:
		/* The end of the scratch area, running into its guard. */
		return (uintptr_t)f->scratch + FUZZ_SCRATCH -
		       rnd_below(&f->rng, 64);
	case 5:
		return 0x8000000000000000ULL;
	case 6:
		return UINT64_MAX - rnd_below(&f->rng, 4096);
	case 7:
		return 1 + rnd_below(&f->rng, 4096);
	default:
		/* Valid, often misaligned; the kernel may write there. */
		return (uintptr_t)f->scratch +
		       rnd_below(&f->rng, FUZZ_SCRATCH - 4096);
	}
}

static inline uint32_t fuzz_size(struct fuzz *f, uint32_t ver0, uint32_t known)
{
	switch (fuzz_keep(f) ? 13 : rnd_below(&f->rng, 14)) {
	case 0:
		return 0;
	case 1:
		return ver0 - 1;
	case 2:
		return known + 8;
	case 3:
		return (uint32_t)f->page;
	case 4:
		return (uint32_t)f->page + 1;
	case 5:
		return (uint32_t)f->page + 16;
	case 6:
		return rnd_below(&f->rng, 8);
	case 7:
		return rnd_below(&f->rng, (uint32_t)f->page + 17);
	case 8:
		return ver0;
	default:
		return known;
	}
}

static inline uint32_t fuzz_flags(struct fuzz *f)
{
	switch (fuzz_keep(f) ? 9 : rnd_below(&f->rng, 10)) {
	case 0:
		return 1u << rnd_below(&f->rng, 32);
	case 1:
		return (uint32_t)rnd_next(&f->rng);
	case 2:
		return 1 + rnd_below(&f->rng, 3);
	default:
		return 0;
	}
}

/* Reserved members: mostly 0. */
static inline uint64_t fuzz_res(struct fuzz *f)
{
	return fuzz_keep(f) || rnd_below(&f->rng, 8) ? 0 : rnd_next(&f->rng);
}

/* One of v (the first is valid, for sane mode), or anything. */
static inline uint64_t fuzz_pick(struct fuzz *f, const uint64_t *v, int n)
{
	if (fuzz_keep(f))
		return v[0];
	return rnd_below(&f->rng, 8) ? v[rnd_below(&f->rng, n)] :
				       rnd_next(&f->rng);
}

#define PICK(f, ...) ({							\
	const uint64_t _v[] = { __VA_ARGS__ };				\
	fuzz_pick(f, _v, sizeof(_v) / sizeof(_v[0]));			\
})

/* A NUL-terminated name of 0 to 100 characters somewhere in scratch. */
static inline uint64_t fuzz_name(struct fuzz *f)
{
	static const uint32_t lens[] = { 0, 1, 5, 62, 63, 64, 65, 100 };
	uint32_t len = lens[fuzz_keep(f) ? 2 : rnd_below(&f->rng, 8)], i;
	unsigned char *p = f->scratch + rnd_below(&f->rng, 4096);

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(1 + rnd_below(&f->rng, 255));
	p[len] = '\0';
	return (uintptr_t)p;
}

#ifdef POSIXTRACE_IOC_SET_FILTER
/* An event set in scratch: empty, full, random, or with bits past the end. */
static inline uint64_t fuzz_eventset(struct fuzz *f)
{
	unsigned char *p = f->scratch + rnd_below(&f->rng, 4096);
	struct posixtrace_eventset set;
	int i, kind = rnd_below(&f->rng, 4);

	for (i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++)
		set.bits[i] = kind == 0 ? 0 : kind == 1 ? ~0ULL :
			      rnd_next(&f->rng);
	/* Mostly without the bits that name no type (EINVAL). */
	if (kind != 1 && rnd_below(&f->rng, 4))
		set.bits[POSIXTRACE_EVENTSET_WORDS - 1] &=
			(1ULL << (POSIXTRACE_EVENT_ID_MAX % 64)) - 1;
	memcpy(p, &set, sizeof(set));
	return (uintptr_t)p;
}
#endif

/* Zero then fill the extensible struct's trailing bytes, maybe. */
static inline void fuzz_trailer(struct fuzz *f, unsigned char *s,
				uint32_t usize, size_t known, size_t room)
{
	size_t end = usize < room ? usize : room;

	if (end > known && !rnd_below(&f->rng, 8))
		s[known + rnd_below(&f->rng, end - known)] =
			(unsigned char)(1 + rnd_below(&f->rng, 255));
}

/* A struct posixtrace_attr somewhere in scratch; its address. */
static inline uint64_t fuzz_attr(struct fuzz *f)
{
	unsigned char *p = f->scratch + rnd_below(&f->rng, 4096);
	struct posixtrace_attr a;
	uint32_t usize = fuzz_size(f, POSIXTRACE_ATTR_SIZE_VER0, sizeof(a));
	size_t i, len;

	memset(p, 0, f->page + 64);
	memset(&a, 0, sizeof(a));
	a.size = usize;
	a.flags = fuzz_flags(f);
	len = fuzz_keep(f) || rnd_below(&f->rng, 8) ? rnd_below(&f->rng, 20) :
						      sizeof(a.name);
	for (i = 0; i < len; i++)
		a.name[i] = (char)('a' + rnd_below(&f->rng, 26));
	/* Never the 64 MiB maximum: the guest's memory is not ours. */
	a.stream_size = PICK(f, 0, 71, 72, 73, 4096, 65536, 1 << 20, 4 << 20,
			     (64 << 20) + 1, UINT64_MAX);
	a.max_data_size = PICK(f, 0, 1, 8, 1024, 65536, 65537, UINT32_MAX,
			       UINT64_MAX);
	a.stream_full_policy = PICK(f, POSIXTRACE_LOOP, POSIXTRACE_LOOP,
				    POSIXTRACE_UNTIL_FULL, POSIXTRACE_FLUSH,
				    0);
	a.log_full_policy = PICK(f, POSIXTRACE_LOOP, POSIXTRACE_UNTIL_FULL,
				 POSIXTRACE_APPEND, 0);
	a.inheritance = PICK(f, POSIXTRACE_CLOSE_FOR_CHILD,
			     POSIXTRACE_CLOSE_FOR_CHILD,
			     POSIXTRACE_INHERITED);
	/* Kernel events under the fuzz too, and an unknown class. */
	a.kernel_events = PICK(f, 0, POSIXTRACE_KERNEL_PROC,
			       POSIXTRACE_KERNEL_SIGNAL, POSIXTRACE_KERNEL_ALL,
			       POSIXTRACE_KERNEL_ALL + 1);
	a.create_time_sec = rnd_next(&f->rng);
	a.create_time_nsec = rnd_next(&f->rng);
	a.__reserved2 = fuzz_res(f);
	if (a.stream_size > (4 << 20) && a.stream_size <= (64 << 20))
		a.stream_size = 4 << 20;
	memcpy(p, &a, sizeof(a));
	fuzz_trailer(f, p, usize, sizeof(a), f->page + 64);
	return (uintptr_t)p;
}

static inline pid_t fuzz_pid(struct fuzz *f)
{
	switch (fuzz_keep(f) ? 9 : rnd_below(&f->rng, 10)) {
	case 0:
		return getpid();
	case 1:
		return 1;
	case 2:
		return getppid();
	case 3:
		return -1;
	case 4:
		return INT_MIN;
	case 5:
		return INT_MAX;
	case 6:
		return (pid_t)(1 + rnd_below(&f->rng, 32768));
	default:
		return 0;
	}
}

/*
 * Build a random argument for cmd in f->tmp (a page, zeroed); returns the
 * struct size the caller should copy, 0 for none.
 */
static inline size_t fuzz_build(struct fuzz *f, unsigned long cmd)
{
	unsigned char *s = f->tmp;
	size_t known = 0;
	uint32_t usize = 0;

	memset(s, 0, f->page);
	switch (cmd) {
	case POSIXTRACE_IOC_VERSION: {
		struct posixtrace_version v = {
			.flags = fuzz_flags(f),
			.major = (uint16_t)rnd_next(&f->rng),
			.minor = (uint16_t)rnd_next(&f->rng),
			.__reserved = fuzz_res(f),
		};

		usize = v.size = fuzz_size(f, POSIXTRACE_VERSION_SIZE_VER0,
					   sizeof(v));
		memcpy(s, &v, known = sizeof(v));
		break;
	}
	case POSIXTRACE_IOC_CREATE: {
		struct posixtrace_create c = {
			.flags = fuzz_flags(f),
			.pid = fuzz_pid(f),
			.log_fd = fuzz_keep(f) || rnd_below(&f->rng, 3) ? -1 :
				  PICK(f, f->log_null, f->log_sealed, f->dev,
				       f->sfd, -2, (int32_t)rnd_next(&f->rng)),
			.attr = fuzz_keep(f) || rnd_below(&f->rng, 3) ?
				fuzz_attr(f) : fuzz_ptr(f),
		};

#ifdef POSIXTRACE_CREATE_MEM_FD
		/* The proof of the right to trace: right, wrong or none. */
		if (!fuzz_keep(f) && rnd_below(&f->rng, 2))
			c.flags |= POSIXTRACE_CREATE_MEM_FD;
		c.mem_fd = PICK(f, -1, f->mem_self, f->mem_init, f->dev,
				f->sfd, 0, 1000, INT32_MAX);
		c.__reserved = fuzz_res(f);
#endif
		usize = c.size = fuzz_size(f, POSIXTRACE_CREATE_SIZE_VER0,
					   sizeof(c));
		memcpy(s, &c, known = sizeof(c));
		break;
	}
	case POSIXTRACE_IOC_EVENTID_OPEN:
	case POSIXTRACE_IOC_TRID_EVENTID_OPEN: {
		struct posixtrace_eventid e = {
			.flags = fuzz_flags(f),
			.name = fuzz_keep(f) || rnd_below(&f->rng, 3) ?
				fuzz_name(f) : fuzz_ptr(f),
			.event_id = (uint32_t)rnd_next(&f->rng),
			.__reserved = fuzz_res(f),
		};

		usize = e.size = fuzz_size(f, POSIXTRACE_EVENTID_SIZE_VER0,
					   sizeof(e));
		memcpy(s, &e, known = sizeof(e));
		break;
	}
	case POSIXTRACE_IOC_EVENT: {
		struct posixtrace_event e = {
			.flags = fuzz_flags(f),
			.event_id = PICK(f, POSIXTRACE_EVENT_UNNAMED_USER,
					 POSIXTRACE_EVENT_USER_BASE,
					 POSIXTRACE_EVENT_USER_BASE + 1,
					 POSIXTRACE_EVENT_USER_BASE + 5,
					 POSIXTRACE_EVENT_ID_MAX - 1,
					 POSIXTRACE_EVENT_ID_MAX,
					 POSIXTRACE_EVENT_START, 0),
			.data_len = PICK(f, 0, 1, 8, 100, 1024, 4096, 65536,
					 65537, UINT32_MAX),
			.data = fuzz_ptr(f),
			.prog_address = rnd_next(&f->rng),
			.thread = rnd_next(&f->rng),
		};

		usize = e.size = fuzz_size(f, POSIXTRACE_EVENT_SIZE_VER0,
					   sizeof(e));
		memcpy(s, &e, known = sizeof(e));
		break;
	}
	case POSIXTRACE_IOC_GET_ATTR: {
		struct posixtrace_attr a;

		memset(&a, 0, sizeof(a));
		a.flags = fuzz_flags(f);
		usize = a.size = fuzz_size(f, POSIXTRACE_ATTR_SIZE_VER0,
					   sizeof(a));
		memcpy(s, &a, known = sizeof(a));
		break;
	}
	case POSIXTRACE_IOC_STATUS: {
		struct posixtrace_status st;

		memset(&st, 0, sizeof(st));
		st.flags = fuzz_flags(f);
		st.__reserved = fuzz_res(f);
		st.state = (uint32_t)fuzz_res(f);
		usize = st.size = fuzz_size(f, POSIXTRACE_STATUS_SIZE_VER0,
					    sizeof(st));
		memcpy(s, &st, known = sizeof(st));
		break;
	}
	case POSIXTRACE_IOC_GETNEXT: {
		struct timespec now;
		struct posixtrace_getnext g;

		clock_gettime(CLOCK_REALTIME, &now);
		memset(&g, 0, sizeof(g));
		g.flags = PICK(f, POSIXTRACE_GETNEXT_NONBLOCK,
			       POSIXTRACE_GETNEXT_NONBLOCK,
			       POSIXTRACE_GETNEXT_NONBLOCK,
			       POSIXTRACE_GETNEXT_TIMED,
			       POSIXTRACE_GETNEXT_TIMED, 0, 3, 4);
		g.timeout_sec = PICK(f, 0, now.tv_sec - 1, now.tv_sec,
				     now.tv_sec + 1, (uint64_t)-1, INT64_MAX,
				     (uint64_t)INT64_MIN);
		g.timeout_nsec = PICK(f, 0, 999999999, 1000000000,
				      UINT32_MAX);
		g.__reserved = fuzz_res(f);
		g.buf = fuzz_ptr(f);
		g.buf_size = PICK(f, 65536, 0, 1, 63, 64, 232, 4096, 1 << 20,
				  UINT32_MAX);
		g.count = fuzz_res(f);
		g.bytes = fuzz_res(f);
		g.__reserved2 = fuzz_res(f);
		usize = g.size = fuzz_size(f, POSIXTRACE_GETNEXT_SIZE_VER0,
					   sizeof(g));
		memcpy(s, &g, known = sizeof(g));
		break;
	}
	case POSIXTRACE_IOC_EVENTID_NAME:
	case POSIXTRACE_IOC_EVENTTYPE_NEXT: {
		struct posixtrace_eventtype e = {
			.flags = fuzz_flags(f),
			.event_id = PICK(f, 0, 1, 7, 8, 63, 64, 65, 66, 300,
					 POSIXTRACE_EVENT_ID_MAX - 1,
					 POSIXTRACE_EVENT_ID_MAX, UINT32_MAX),
			.found = (uint32_t)rnd_next(&f->rng),
			.name = fuzz_ptr(f),
		};

		usize = e.size = fuzz_size(f, POSIXTRACE_EVENTTYPE_SIZE_VER0,
					   sizeof(e));
		memcpy(s, &e, known = sizeof(e));
		break;
	}
#ifdef POSIXTRACE_IOC_SET_FILTER
	case POSIXTRACE_IOC_SET_FILTER:
	case POSIXTRACE_IOC_GET_FILTER: {
		struct posixtrace_filter fl = {
			.flags = fuzz_flags(f),
			.how = PICK(f, POSIXTRACE_SET_EVENTSET,
				    POSIXTRACE_ADD_EVENTSET,
				    POSIXTRACE_SUB_EVENTSET, 0, 17, 21),
			.__reserved = fuzz_res(f),
			.set = fuzz_keep(f) || rnd_below(&f->rng, 3) ?
			       fuzz_eventset(f) : fuzz_ptr(f),
		};

		usize = fl.size = fuzz_size(f, POSIXTRACE_FILTER_SIZE_VER0,
					    sizeof(fl));
		memcpy(s, &fl, known = sizeof(fl));
		break;
	}
#endif
#ifdef POSIXTRACE_IOC_SET_SYSCALLS
	case POSIXTRACE_IOC_SET_SYSCALLS:
	case POSIXTRACE_IOC_GET_SYSCALLS: {
		struct posixtrace_syscalls sc = {
			.flags = fuzz_flags(f),
			.compat = (uint32_t)PICK(f, 0, 1, 2, UINT32_MAX),
			.__reserved = fuzz_res(f),
		};
		int i, kind = rnd_below(&f->rng, 4);

		/* None, every one, a few, or anything (numbers past the end). */
		for (i = 0; i < POSIXTRACE_SYSCALL_WORDS; i++)
			sc.bits[i] = kind == 0 ? 0 : kind == 1 ? ~0ULL :
				     kind == 2 ? 1ULL << rnd_below(&f->rng, 64) :
				     rnd_next(&f->rng);
		usize = sc.size = fuzz_size(f, POSIXTRACE_SYSCALLS_SIZE_VER0,
					    sizeof(sc));
		memcpy(s, &sc, known = sizeof(sc));
		break;
	}
#endif
	default:
		/* Anything: random words. */
		for (known = 0; known < 64; known += 8) {
			uint64_t w = rnd_below(&f->rng, 2) ? fuzz_ptr(f) :
							     rnd_next(&f->rng);

			memcpy(s + known, &w, 8);
		}
		usize = (uint32_t)fuzz_size(f, 8, 64);
		memcpy(s, &usize, sizeof(usize));
		return known;
	}
	fuzz_trailer(f, s, usize, known, f->page);
	return usize > known ? (usize < f->page ? usize : f->page) : known;
}

static const unsigned long dev_cmds[] = {
	POSIXTRACE_IOC_VERSION, POSIXTRACE_IOC_CREATE,
	POSIXTRACE_IOC_EVENTID_OPEN, POSIXTRACE_IOC_EVENT,
	POSIXTRACE_IOC_RING_DRAIN,
};

static const unsigned long stream_cmds[] = {
	POSIXTRACE_IOC_START, POSIXTRACE_IOC_STOP, POSIXTRACE_IOC_CLEAR,
	POSIXTRACE_IOC_SHUTDOWN, POSIXTRACE_IOC_GET_ATTR,
	POSIXTRACE_IOC_STATUS, POSIXTRACE_IOC_GETNEXT,
	POSIXTRACE_IOC_GETNEXT, POSIXTRACE_IOC_GETNEXT,
	POSIXTRACE_IOC_TRID_EVENTID_OPEN, POSIXTRACE_IOC_EVENTID_NAME,
	POSIXTRACE_IOC_EVENTTYPE_NEXT,
#ifdef POSIXTRACE_IOC_SET_FILTER
	POSIXTRACE_IOC_SET_FILTER, POSIXTRACE_IOC_GET_FILTER,
#endif
#ifdef POSIXTRACE_IOC_FLUSH
	POSIXTRACE_IOC_FLUSH,
#endif
#ifdef POSIXTRACE_IOC_SET_SYSCALLS
	POSIXTRACE_IOC_SET_SYSCALLS, POSIXTRACE_IOC_GET_SYSCALLS,
#endif
};

#define N_DEV_CMDS	(sizeof(dev_cmds) / sizeof(dev_cmds[0]))
#define N_STREAM_CMDS	(sizeof(stream_cmds) / sizeof(stream_cmds[0]))

static inline bool fuzz_errno_ok(int e, bool may_block)
{
	switch (e) {
	case EINVAL: case EFAULT: case E2BIG: case ENOTTY: case ENAMETOOLONG:
	case ENOSPC: case ESRCH: case EPERM: case EAGAIN: case ENOMEM:
	case EBADF: case EFBIG:
		return true;
	case EINTR: case ETIMEDOUT:
		return may_block;
	}
	return false;
}

static inline unsigned long fuzz_cmd(struct fuzz *f, bool on_stream)
{
	uint32_t dir, nr, size;

	switch (f->sane ? 11 : rnd_below(&f->rng, 12)) {
	case 0:
	case 1:
		/* The magic, anything else. */
		dir = rnd_below(&f->rng, 4);
		nr = rnd_below(&f->rng, 4) ? rnd_below(&f->rng, 0x20) :
					     rnd_below(&f->rng, 256);
		size = rnd_below(&f->rng, 2) ? rnd_below(&f->rng, 256) :
					       rnd_below(&f->rng, 1 << 14);
		return _IOC(dir, POSIXTRACE_IOC_MAGIC, nr, size);
	case 2:
		/* A known command, another size in the number. */
		return ((on_stream ?
			 stream_cmds[rnd_below(&f->rng, N_STREAM_CMDS)] :
			 dev_cmds[rnd_below(&f->rng, N_DEV_CMDS)]) &
			~(unsigned long)IOCSIZE_MASK) |
		       ((unsigned long)rnd_below(&f->rng, 1 << 14) <<
			_IOC_SIZESHIFT);
	case 3:
		/* A command of the other kind of descriptor. */
		return on_stream ? dev_cmds[rnd_below(&f->rng, N_DEV_CMDS)] :
			stream_cmds[rnd_below(&f->rng, N_STREAM_CMDS)];
	default:
		return on_stream ?
			stream_cmds[rnd_below(&f->rng, N_STREAM_CMDS)] :
			dev_cmds[rnd_below(&f->rng, N_DEV_CMDS)];
	}
}

#define IOC_ID(cmd)	((cmd) & ~(unsigned long)IOCSIZE_MASK)

/* The known command cmd dispatches to (the size is not matched), or cmd. */
static inline unsigned long fuzz_known(unsigned long cmd)
{
	size_t i;

	for (i = 0; i < N_DEV_CMDS; i++)
		if (IOC_ID(cmd) == IOC_ID(dev_cmds[i]))
			return dev_cmds[i];
	for (i = 0; i < N_STREAM_CMDS; i++)
		if (IOC_ID(cmd) == IOC_ID(stream_cmds[i]))
			return stream_cmds[i];
	return cmd;
}

/* One random ioctl; false if its result was not a sane one. */
static inline bool fuzz_one(struct fuzz *f, int fd, bool on_stream,
			    char *why, size_t whylen)
{
	unsigned long cmd, id;
	size_t off;
	uint64_t arg;
	bool may_block;
	int ret, e;

	f->sane = rnd_below(&f->rng, 2);
	cmd = fuzz_cmd(f, on_stream);
	id = IOC_ID(cmd);
	/* Built for the command it most looks like. */
	if (cmd == POSIXTRACE_IOC_START || cmd == POSIXTRACE_IOC_STOP ||
	    cmd == POSIXTRACE_IOC_CLEAR || cmd == POSIXTRACE_IOC_SHUTDOWN ||
	    cmd == POSIXTRACE_IOC_FLUSH || cmd == POSIXTRACE_IOC_RING_DRAIN) {
		/* SHUTDOWN works only with 0: keep the stream alive longer. */
		arg = rnd_below(&f->rng, cmd == POSIXTRACE_IOC_SHUTDOWN ?
				20 : 2) ? fuzz_ptr(f) : 0;
	} else {
		fuzz_build(f, fuzz_known(cmd));
		switch (fuzz_keep(f) ? 9 : rnd_below(&f->rng, 10)) {
		case 0:
			off = f->page - 1 - rnd_below(&f->rng, 64);
			break;
		case 1:
			off = 1 + rnd_below(&f->rng, 15);
			break;
		default:
			off = 0;
		}
		memcpy(f->arg + off, f->tmp, f->page - off);
		arg = fuzz_keep(f) || rnd_below(&f->rng, 12) ?
		      (uintptr_t)(f->arg + off) : fuzz_ptr(f);
	}
	may_block = on_stream && id == IOC_ID(POSIXTRACE_IOC_GETNEXT);
	if (may_block)
		fuzz_arm(f, 3000);
	ret = ioctl(fd, cmd, (unsigned long)arg);
	e = errno;
	if (may_block)
		fuzz_arm(f, 0);
	f->calls++;
	if (ret < 0) {
		if (e == EINTR)
			f->interrupted++;
		if (e >= 0 && e < 160)
			f->by_errno[e]++;
		if (!fuzz_errno_ok(e, may_block)) {
			snprintf(why, whylen, "cmd %#lx on %s, arg %#llx: errno %d",
				 cmd, on_stream ? "a stream" : DEVICE,
				 (unsigned long long)arg, e);
			return false;
		}
		return true;
	}
	f->successes++;
	/*
	 * A stream made: on the device, or on what a sibling thread made a
	 * descriptor of the device while this one took it for its stream.
	 */
	if (id == IOC_ID(POSIXTRACE_IOC_CREATE) && ret > 0 &&
	    (!on_stream || f->crowded)) {
		f->created++;
		close(ret);
		return true;
	}
	if (ret) {
		snprintf(why, whylen, "cmd %#lx on %s returned %d", cmd,
			 on_stream ? "a stream" : DEVICE, ret);
		return false;
	}
	if (on_stream && cmd == POSIXTRACE_IOC_SHUTDOWN) {
		close(f->sfd);
		f->sfd = raw_create(f->dev, 0, 65536, 1024, POSIXTRACE_LOOP);
		/*
		 * Among other fuzzing threads and processes, the streams may
		 * all be taken, and a sibling may replace the new descriptor
		 * before it starts: a descriptor of the device stands in.
		 */
		if (f->crowded && (f->sfd == -ENOSPC || f->sfd == -ENOMEM ||
				   f->sfd == -EAGAIN)) {
			f->sfd = dup(f->dev);
			return true;
		}
		if (f->sfd < 0 || (raw_control(f->sfd, POSIXTRACE_IOC_START) &&
				   !f->crowded)) {
			snprintf(why, whylen, "no new stream: %d", f->sfd);
			return false;
		}
		f->recreated++;
	}
	return true;
}

#ifdef POSIXTRACE_ENABLE_MAGIC
/*
 * A random mmap() of /dev/posixtrace: only one read-only page at offset 0
 * (the enable page) may map, never writable; anything else fails cleanly.
 */
static inline bool fuzz_mmap(struct fuzz *f, char *why, size_t whylen)
{
	static const int prots[] = {
		PROT_READ, PROT_READ, PROT_WRITE, PROT_READ | PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_NONE,
	};
	size_t len = PICK(f, f->page, f->page, 1, 2 * f->page, f->page - 1,
			  16 * f->page);
	off_t off = PICK(f, 0, 0, f->page, 2 * f->page, 1 << 20);
	int prot = prots[rnd_below(&f->rng, 6)];
	int flags = rnd_below(&f->rng, 4) ? MAP_SHARED : MAP_PRIVATE;
	const struct posixtrace_enable_page *ep;
	void *p;
	int e;

	if (len > 16 * f->page)
		len = f->page;
	if (off > (1 << 20))
		off = 0;
	f->maps++;
	p = mmap(NULL, len, prot, flags, f->dev, off);
	if (p == MAP_FAILED) {
		e = errno;
		if (e == EINVAL || e == EACCES || e == ENOMEM || e == EPERM ||
		    e == ENODEV)
			return true;
		snprintf(why, whylen, "mmap(%zu, prot %#x, flags %#x, off %lld): errno %d",
			 len, prot, flags, (long long)off, e);
		return false;
	}
	f->mapped++;
	ep = p;
	if (off || (prot & PROT_WRITE) || len > f->page ||
	    ((prot & PROT_READ) && ep->magic != POSIXTRACE_ENABLE_MAGIC)) {
		snprintf(why, whylen, "mmap(%zu, prot %#x, flags %#x, off %lld) worked",
			 len, prot, flags, (long long)off);
		munmap(p, len);
		return false;
	}
	/* Never writable, not even later. */
	if (!mprotect(p, len, PROT_READ | PROT_WRITE)) {
		snprintf(why, whylen, "the enable page became writable");
		munmap(p, len);
		return false;
	}
	munmap(p, len);
	return true;
}
#endif

static inline unsigned char *map_guarded(size_t size, size_t page)
{
	unsigned char *p = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + size, page, PROT_NONE))
		return NULL;
	return p;
}

/* No SA_RESTART: the timer interrupts a blocked GETNEXT. */
static inline int fuzz_catch_alarm(void)
{
	struct sigaction sa = { .sa_handler = fuzz_alarm };

	return sigaction(SIGALRM, &sa, NULL);
}

/*
 * Set up f for fuzz_one(): its argument page, scratch area and reserved
 * page, the descriptors arguments name, /dev/posixtrace and a running
 * stream of this process. 0, or the errno of the step that failed.
 */
static inline int fuzz_setup(struct fuzz *f, uint64_t seed)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->dev = f->sfd = f->mem_self = f->mem_init = -1;
	f->log_null = f->log_sealed = -1;
	f->rng = seed;
	f->page = (size_t)sysconf(_SC_PAGESIZE);
	fuzz_thread_timer(f);
	f->arg = map_guarded(f->page, f->page);
	f->scratch = map_guarded(FUZZ_SCRATCH, f->page);
	f->reserved = mmap(NULL, f->page, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f->tmp = malloc(f->page);
	if (!f->arg || !f->scratch || f->reserved == MAP_FAILED || !f->tmp)
		return ENOMEM;
	for (i = 0; i < FUZZ_SCRATCH; i++)
		f->scratch[i] = (unsigned char)rnd_next(&f->rng);
	f->dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (f->dev < 0)
		return errno;
	f->mem_self = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	f->mem_init = open("/proc/1/mem", O_RDONLY | O_CLOEXEC);
	f->log_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	f->log_sealed = memfd_create("fuzz-log",
				     MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (f->log_sealed >= 0)
		fcntl(f->log_sealed, F_ADD_SEALS, F_SEAL_GROW);
	f->sfd = raw_create(f->dev, 0, 65536, 1024, POSIXTRACE_LOOP);
	if (f->sfd < 0)
		return -f->sfd;
	return raw_control(f->sfd, POSIXTRACE_IOC_START);
}

static inline void fuzz_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* Undo fuzz_setup() (the stream is shut down if it is still ours). */
static inline void fuzz_teardown(struct fuzz *f)
{
	if (f->sfd >= 0)
		raw_control(f->sfd, POSIXTRACE_IOC_SHUTDOWN);
	fuzz_close(f->sfd);
	fuzz_close(f->dev);
	fuzz_close(f->mem_self);
	fuzz_close(f->mem_init);
	fuzz_close(f->log_null);
	fuzz_close(f->log_sealed);
	if (f->arg)
		munmap(f->arg, 2 * f->page);
	if (f->scratch)
		munmap(f->scratch, FUZZ_SCRATCH + f->page);
	if (f->reserved && f->reserved != MAP_FAILED)
		munmap(f->reserved, f->page);
	free(f->tmp);
	if (f->has_timer)
		timer_delete(f->timer);
}

#endif /* IOCTL_FUZZ_H */
