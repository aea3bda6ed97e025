// SPDX-License-Identifier: GPL-2.0
/*
 * One user's idle rings cost another user nothing (security issue 26,
 * finding 2).
 *
 * An attacker, uid 1000, starts 1000 threads that each map a one-page
 * ring and sleep, in a process traced by a stream of its own. A victim,
 * uid 1001, traces itself: its events by system call, GETNEXT and STATUS
 * must cost at most 3x what they cost before the attacker came (medians,
 * same boot), since a drain walks only the rings of the drain domain it
 * is for (Documentation/dev-tools/posixtrace-design.rst). And the longest
 * hold of a drain domain's spinlock (the module's debugfs
 * posixtrace/drain_hold_max_ns, a
 * stretch with preemption off) under the victim's workload with its one
 * ring busy (drains that take a full budget of records a hold) is at most
 * 2x with the attacker's rings present, its timer drains included: a
 * drain lets go of the lock after a budget of records and ring visits,
 * however many rings its domain holds.
 *
 * The hold is not judged on PREEMPT_RT, where the drain lock sleeps and
 * its holder may be preempted: there is no preemption-off stretch there.
 *
 * Timed assertions under emulation, on a host that runs other guests:
 * medians of many calls, the cheapest of five rounds; the longest hold
 * of each of several rounds, and the least of those (the host's
 * preemption of the guest only lengthens holds); a base measured before
 * the attacker came and after it went, the costlier; and a hold measured
 * against one that takes a full budget of records.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "trc_common.h"

#define ATTACKER_UID	1000
#define VICTIM_UID	1001
#define NR_IDLE_RINGS	1000
#define CALLS		300
/*
 * Rounds of CALLS calls, a tenth of a second apart: the cheapest round's
 * medians count.
 */
#define COST_ROUNDS	5
#define HOLD_PARAM	"/sys/kernel/debug/posixtrace/drain_hold_max_ns"
#define RING_PARAM	"/sys/module/posixtrace/parameters/max_ring_size"
#define VICTIM_RING	(64 * 1024)
/* A record of the victim's ring: its header and 16 bytes, 64 in all. */
#define VICTIM_REC	64
#define BURST		768
#define BURSTS		6
/* Rounds of bursts, each with its own longest hold. */
#define ROUNDS		15

/* What the victim measured: medians, ns. */
struct costs {
	uint64_t event, getnext, status;
	int err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* A running stream tracing the caller, by the raw ABI; its fd. */
static int raw_stream(int dev, uint32_t policy)
{
	struct posixtrace_attr a = {
		.size = sizeof(a),
		.stream_size = 1 << 20,
		.max_data_size = 64,
		.stream_full_policy = policy,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};
	struct posixtrace_create c = {
		.size = sizeof(c),
		.log_fd = -1,
		.attr = (uintptr_t)&a,
	};
	int fd = ioctl(dev, POSIXTRACE_IOC_CREATE, &c);

	if (fd < 0)
		return -1;
	if (ioctl(fd, POSIXTRACE_IOC_START, 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int become(uid_t uid, rlim_t memlock)
{
	struct rlimit lim = { memlock, memlock };

	if (setrlimit(RLIMIT_MEMLOCK, &lim) || setgroups(0, NULL) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	return 0;
}

/* ---- the attacker --------------------------------------------------- */

static atomic_int rings_mapped, rings_failed;
static int attacker_dev;

static void *idle_ring_thread(void *arg)
{
	size_t page = page_size();
	void *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED,
		       attacker_dev, POSIXTRACE_RING_OFFSET);

	if (p == MAP_FAILED)
		atomic_fetch_add(&rings_failed, 1);
	else
		atomic_fetch_add(&rings_mapped, 1);
	for (;;)
		pause();
	return NULL;
}

/* Never returns: writes 'r' (ready) or 'f' (failed) to @out, then sleeps. */
static void attacker(int out)
{
	pthread_attr_t attr;
	pthread_t thr;
	char c = 'f';
	int i, stream;

	/* Its rings: 1000 of 2 pages, within 8 MiB; room to spare. */
	if (become(ATTACKER_UID, 16 << 20))
		goto fail;
	attacker_dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (attacker_dev < 0)
		goto fail;
	/*
	 * The hard case: a stream of its own traces the rings' process. Not
	 * a LOOP stream, whose rings the timer drains only once a second.
	 */
	stream = raw_stream(attacker_dev, POSIXTRACE_UNTIL_FULL);
	if (stream < 0)
		goto fail;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < NR_IDLE_RINGS; i++)
		if (pthread_create(&thr, &attr, idle_ring_thread, NULL))
			goto fail;
	while (atomic_load(&rings_mapped) + atomic_load(&rings_failed) <
	       NR_IDLE_RINGS)
		usleep(10000);
	if (!atomic_load(&rings_failed))
		c = 'r';
fail:
	if (write(out, &c, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* ---- the victim ----------------------------------------------------- */

static int victim_dev, victim_stream;

static int victim_measure(struct costs *c)
{
	static uint64_t ev[CALLS], gn[CALLS], st[CALLS];
	static uint8_t buf[4096];
	struct posixtrace_event e = {
		.size = sizeof(e),
		.event_id = POSIXTRACE_EVENT_UNNAMED_USER,
		.data_len = 8,
	};
	struct posixtrace_getnext g = {
		.size = sizeof(g),
		.flags = POSIXTRACE_GETNEXT_NONBLOCK,
		.buf = (uintptr_t)buf,
		.buf_size = sizeof(buf),
	};
	struct posixtrace_status s = { .size = sizeof(s) };
	uint64_t v = 0, t0, t1, t2, t3;
	int i;

	e.data = (uintptr_t)&v;
	for (i = 0; i < CALLS; i++) {
		v = i;
		t0 = now_ns();
		if (ioctl(victim_dev, POSIXTRACE_IOC_EVENT, &e))
			return 1;
		t1 = now_ns();
		if (ioctl(victim_stream, POSIXTRACE_IOC_GETNEXT, &g))
			return 2;
		t2 = now_ns();
		s.size = sizeof(s);
		if (ioctl(victim_stream, POSIXTRACE_IOC_STATUS, &s))
			return 3;
		t3 = now_ns();
		ev[i] = t1 - t0;
		gn[i] = t2 - t1;
		st[i] = t3 - t2;
	}
	c->event = median(ev, CALLS);
	c->getnext = median(gn, CALLS);
	c->status = median(st, CALLS);
	return 0;
}

/*
 * Bursts of records in a ring of the victim's thread, each taken by a
 * STATUS: holds of a full budget of records.
 */
static int victim_ring_bursts(void)
{
	size_t page = page_size();
	volatile struct posixtrace_ring_ctl *ctl;
	struct posixtrace_status s;
	struct posixtrace_ring_record *rec;
	uint64_t head = 0, deadline;
	uint8_t *data;
	int b, i;
	void *p;

	p = mmap(NULL, page + VICTIM_RING, PROT_READ | PROT_WRITE, MAP_SHARED,
		 victim_dev, POSIXTRACE_RING_OFFSET);
	if (p == MAP_FAILED)
		return 10;
	ctl = p;
	data = (uint8_t *)p + page;
	for (b = 0; b < BURSTS; b++) {
		for (i = 0; i < BURST; i++) {
			struct timespec ts;

			rec = (void *)(data + (head & (VICTIM_RING - 1)));
			clock_gettime(CLOCK_REALTIME, &ts);
			rec->size = VICTIM_REC;
			rec->event_id = POSIXTRACE_EVENT_UNNAMED_USER;
			rec->ts_sec = ts.tv_sec;
			rec->ts_nsec = ts.tv_nsec;
			rec->data_len = VICTIM_REC - sizeof(*rec);
			rec->prog_address = 0;
			rec->thread = 0;
			__atomic_store_n(&rec->commit, ~head, __ATOMIC_RELEASE);
			head += VICTIM_REC;
		}
		__atomic_store_n(&ctl->produced, head, __ATOMIC_RELEASE);
		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		if (ioctl(victim_stream, POSIXTRACE_IOC_STATUS, &s))
			return 11;
		/* Taken by now; a revoked ring would say so. */
		deadline = now_ns() + 5000000000ULL;
		while (__atomic_load_n(&ctl->consumed, __ATOMIC_ACQUIRE) != head)
			if (ctl->state != POSIXTRACE_RING_LIVE ||
			    now_ns() > deadline)
				return 12;
		/* Never full: each burst's records go into room. */
		if (ioctl(victim_stream, POSIXTRACE_IOC_CLEAR, 0))
			return 13;
	}
	munmap(p, page + VICTIM_RING);
	return 0;
}

static void *victim_ring_thread(void *arg)
{
	*(int *)arg = victim_ring_bursts();
	return NULL;
}

/* Commands on @in: 'm' measure, 'h' ring bursts; answers on @out. */
static void victim(int in, int out)
{
	struct costs c;
	pthread_t thr;
	char cmd;
	int err;

	if (become(VICTIM_UID, 1 << 20))
		_exit(1);
	victim_dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	victim_stream = victim_dev < 0 ? -1 :
			raw_stream(victim_dev, POSIXTRACE_LOOP);
	if (victim_stream < 0)
		_exit(2);
	while (read(in, &cmd, 1) == 1) {
		memset(&c, 0, sizeof(c));
		if (cmd == 'm') {
			c.err = victim_measure(&c);
		} else if (pthread_create(&thr, NULL, victim_ring_thread,
					  &err)) {
			c.err = 20;
		} else {
			pthread_join(thr, NULL);
			c.err = err;
		}
		if (write(out, &c, sizeof(c)) != sizeof(c))
			_exit(3);
	}
	_exit(0);
}

/* ---- the test ------------------------------------------------------- */

static int param_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static int param_reset(const char *path)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/* Is this a PREEMPT_RT kernel? Its version string says so. */
static bool preempt_rt(void)
{
	struct utsname u;

	return !access("/sys/kernel/realtime", F_OK) ||
	       (!uname(&u) && strstr(u.version, "PREEMPT_RT"));
}

struct victim_pipe {
	pid_t pid;
	int cmd, ans;
};

static int ask(struct victim_pipe *vp, char cmd, struct costs *c)
{
	if (write(vp->cmd, &cmd, 1) != 1 ||
	    read(vp->ans, c, sizeof(*c)) != sizeof(*c))
		return -1;
	return c->err;
}

/*
 * The longest hold of a drain lock while the victim's ring bursts run,
 * round by round, and the least of the rounds' longest. A round's longest
 * may be a hold the host stretched (it runs other guests, and takes the
 * guest's CPU for a time slice of its own, some 4 ms, while the guest's
 * clock goes on): that only ever lengthens a round's longest. Whatever
 * makes every hold of some kind long shows in every round: the
 * attacker's timer drains come in each (every ring_drain_ms), and so do
 * the victim's full holds of 512 records.
 */
static int hold_under_bursts(struct victim_pipe *vp, const char *when,
			     uint64_t *hold)
{
	uint64_t rounds[ROUNDS];
	char line[ROUNDS * 12 + 1];
	struct costs c;
	int i, n = 0;

	for (i = 0; i < ROUNDS; i++) {
		if (param_reset(HOLD_PARAM))
			return -1;
		if (ask(vp, 'h', &c))
			return -2;
		/* Timer drains too: the attacker's come every ring_drain_ms. */
		usleep(200000);
		if (param_u64(HOLD_PARAM, &rounds[i]))
			return -3;
		n += snprintf(line + n, sizeof(line) - n, " %llu",
			      (unsigned long long)rounds[i] / 1000);
	}
	ksft_print_msg("longest hold of each round %s, us:%s\n", when, line);
	qsort(rounds, ROUNDS, sizeof(*rounds), cmp_u64);
	*hold = rounds[0];
	return 0;
}

/* The victim's medians: of each kind, the cheapest round's. */
static int measure(struct victim_pipe *vp, struct costs *best)
{
	struct costs c;
	int i;

	for (i = 0; i < COST_ROUNDS; i++) {
		if (i)
			usleep(100000);
		if (ask(vp, 'm', &c))
			return -1;
		if (!i || c.event < best->event)
			best->event = c.event;
		if (!i || c.getnext < best->getnext)
			best->getnext = c.getnext;
		if (!i || c.status < best->status)
			best->status = c.status;
	}
	return 0;
}

/* The base: the costlier of before and after. */
#define BASE(a, b) ((a) > (b) ? (a) : (b))

TEST(idle_rings_of_another_user_cost_the_victim_nothing)
{
	struct costs before, during, after, c;
	uint64_t hold_before = 0, hold_during = 0, hold_after = 0;
	uint64_t max_ring = 0;
	struct victim_pipe vp;
	int to_victim[2], from_victim[2], ready[2];
	bool holds = !access(HOLD_PARAM, R_OK);
	pid_t att;
	char r;
	int status;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root, to become users 1000 and 1001");
	if (param_u64(RING_PARAM, &max_ring) || !max_ring)
		SKIP(return, "rings are off (max_ring_size=0)");
	ASSERT_EQ(0, pipe(to_victim));
	ASSERT_EQ(0, pipe(from_victim));
	ASSERT_EQ(0, pipe(ready));
	vp.pid = fork();
	ASSERT_LE(0, vp.pid);
	if (!vp.pid) {
		close(to_victim[1]);
		close(from_victim[0]);
		victim(to_victim[0], from_victim[1]);
	}
	close(to_victim[0]);
	close(from_victim[1]);
	vp.cmd = to_victim[1];
	vp.ans = from_victim[0];

	/*
	 * Before: warm up once (the emulator translates code the first time
	 * it runs: a first hold is slow for that alone), then measure.
	 */
	ASSERT_EQ(0, ask(&vp, 'm', &c));
	ASSERT_EQ(0, ask(&vp, 'h', &c));
	ASSERT_EQ(0, measure(&vp, &before));
	if (holds)
		ASSERT_EQ(0, hold_under_bursts(&vp, "before", &hold_before));

	att = fork();
	ASSERT_LE(0, att);
	if (!att) {
		close(ready[0]);
		attacker(ready[1]);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &r, 1));
	ASSERT_EQ('r', r);
	/* Its rings listed, its timer drains running. */
	usleep(300000);

	ASSERT_EQ(0, measure(&vp, &during));
	if (holds)
		ASSERT_EQ(0, hold_under_bursts(&vp, "with 1000 rings",
					       &hold_during));

	kill(att, SIGKILL);
	ASSERT_EQ(att, waitpid(att, &status, 0));
	/* Its rings drained and retired by its domain's workers. */
	usleep(500000);
	/*
	 * And after: the host's load may have changed meanwhile (it runs
	 * other guests); the costlier of before and after is the base.
	 */
	ASSERT_EQ(0, measure(&vp, &after));
	if (holds)
		ASSERT_EQ(0, hold_under_bursts(&vp, "after", &hold_after));
	close(vp.cmd);
	ASSERT_EQ(vp.pid, waitpid(vp.pid, &status, 0));

	ksft_print_msg("medians, ns (before, with 1000 rings, after): event %llu %llu %llu, getnext %llu %llu %llu, status %llu %llu %llu\n",
		       (unsigned long long)before.event,
		       (unsigned long long)during.event,
		       (unsigned long long)after.event,
		       (unsigned long long)before.getnext,
		       (unsigned long long)during.getnext,
		       (unsigned long long)after.getnext,
		       (unsigned long long)before.status,
		       (unsigned long long)during.status,
		       (unsigned long long)after.status);
	if (holds)
		ksft_print_msg("longest drain lock hold, least of %d rounds, ns (before, with 1000 rings, after): %llu %llu %llu\n",
			       ROUNDS, (unsigned long long)hold_before,
			       (unsigned long long)hold_during,
			       (unsigned long long)hold_after);
	EXPECT_LE(during.event, 3 * BASE(before.event, after.event));
	EXPECT_LE(during.getnext, 3 * BASE(before.getnext, after.getnext));
	EXPECT_LE(during.status, 3 * BASE(before.status, after.status));
	ASSERT_TRUE(holds) {
		TH_LOG("no %s: the module counts no hold", HOLD_PARAM);
	}
	/*
	 * On PREEMPT_RT the drain lock sleeps and its holder may be
	 * preempted (by the interrupt threads, say): no preemption-off
	 * stretch to bound, and a hold's length is the scheduler's. Shown,
	 * not judged.
	 */
	if (preempt_rt()) {
		ksft_print_msg("PREEMPT_RT: the holds are shown, not judged\n");
		return;
	}
	EXPECT_LT(0, hold_before);
	EXPECT_LE(hold_during, 2 * BASE(hold_before, hold_after));
}

TEST_HARNESS_MAIN
