// SPDX-License-Identifier: GPL-2.0
/*
 * A memory cgroup at its limit (issue 32): a process in a cgroup with
 * memory.max makes streams, rings, event names and logs until the limit
 * refuses them. A stream past the limit is refused with ENOMEM (its
 * buffer is allocated so: POSIXTRACE_GFP_USER_SIZED), never by the OOM
 * killer; every refusal is a clean error number; what it made is
 * charged to its cgroup (memory.current grows by at least the streams'
 * and rings' sizes); no other cgroup's process
 * is killed for it (a bystander in a cgroup of its own, holding memory,
 * lives on, with no OOM kill in its memory.events); and once the process
 * is gone, so is its charge.
 *
 * Needs root and cgroup2's memory controller; skipped otherwise.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "cgroup_common.h"
#include "trc_common.h"
#include "stress_common.h"

#define CG_LIMITED	CGROUP_ROOT "/posixtrace-memcg"
#define CG_BYSTANDER	CGROUP_ROOT "/posixtrace-bystander"
#define LIMIT		(32LL << 20)
#define STREAM_SIZE	(4 << 20)
#define RING_DATA	(64 << 10)
#define ROUNDS		400

enum { STREAMS, RINGS, NAMES, LOGS, KINDS };
static const char *const kind_names[KINDS] = {
	"streams", "rings", "names", "logs"
};

/* What the limited process did, for the test to judge (MAP_SHARED). */
struct tally {
	unsigned long made[KINDS], refused[KINDS];
	long long before, peak;
	int bad_errno, bad_kind;
};

static struct tally *tally;

static bool refusal_ok(int kind, int e)
{
	switch (kind) {
	case STREAMS:
	case LOGS:
		/* The limit; {TRACE_SYS_MAX} streams; the user's quota. */
		return e == ENOMEM || e == ENOSPC || e == EAGAIN;
	case RINGS:
		/* ENODEV: the rings are off (max_ring_size=0). */
		return e == ENOMEM || e == ENODEV;
	default:
		/* The limit, or {TRACE_USER_EVENT_MAX} names. */
		return e == ENOMEM || e == ENOSPC || e == EAGAIN;
	}
}

/* Read a log pipe and drop what it carries, until the writer is gone. */
static void *log_drain(void *arg)
{
	char buf[4096];
	int fd = (int)(intptr_t)arg;

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return NULL;
}

/*
 * A stream with a log, flushed: its log buffers are charged. The log is a
 * pipe, drained by a thread: a file of the guest's tmpfs would be
 * reserved (fallocate) at creation, and tmpfs charges its pages as the
 * page cache does, with the cgroup's OOM killer behind them rather than
 * an error (security_test checks that log writes are charged to the
 * creator's cgroup).
 */
static int log_stream(int dev)
{
	struct posixtrace_attr a = {
		.stream_size = 64 << 10,
		.max_data_size = 256,
		.stream_full_policy = POSIXTRACE_FLUSH,
		.log_full_policy = POSIXTRACE_APPEND,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};
	pthread_t thr;
	int fd, p[2];

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	if (pthread_create(&thr, NULL, log_drain, (void *)(intptr_t)p[0])) {
		close(p[0]);
		close(p[1]);
		return -EAGAIN;
	}
	pthread_detach(thr);
	fd = raw_create_with(dev, &a, p[1]);
	close(p[1]);
	if (fd >= 0 && !raw_control(fd, POSIXTRACE_IOC_START))
		raw_control(fd, POSIXTRACE_IOC_FLUSH);
	return fd;
}

/* One of each kind per round; -errno of a refusal, or 0. */
static int make_one(int dev, int kind, int round)
{
	void *ring;
	char name[32];
	trace_event_id_t id;
	int fd, ret;

	switch (kind) {
	case STREAMS:
		fd = raw_create(dev, 0, STREAM_SIZE, 64, POSIXTRACE_LOOP);
		if (fd >= 0)
			raw_control(fd, POSIXTRACE_IOC_START);
		return fd < 0 ? fd : 0;
	case RINGS:
		/* Each new ring retires the last, which stays mapped. */
		ring = mmap(NULL, page_size() + RING_DATA,
			    PROT_READ | PROT_WRITE, MAP_SHARED, dev,
			    POSIXTRACE_RING_OFFSET);
		return ring == MAP_FAILED ? -errno : 0;
	case NAMES:
		snprintf(name, sizeof(name), "memcg.%d", round);
		ret = posix_trace_eventid_open(name, &id);
		return -ret;
	default:
		fd = log_stream(dev);
		return fd < 0 ? fd : 0;
	}
}

/* make_one(), tallied; false if refused with an errno it must not be. */
static bool make_tallied(int dev, int kind, int round)
{
	long long now;
	int ret = make_one(dev, kind, round);

	if (ret && (!refusal_ok(kind, -ret) ||
		    (kind == STREAMS && ret != -ENOMEM))) {
		tally->bad_errno = -ret;
		tally->bad_kind = kind;
		return false;
	}
	if (ret)
		tally->refused[kind]++;
	else
		tally->made[kind]++;
	now = read_number(CG_LIMITED "/memory.current");
	if (now > tally->peak)
		tally->peak = now;
	return true;
}

/*
 * In the limited cgroup. First streams alone, until one is refused: a
 * stream's buffer (4 MiB) is nearly all of what a stream charges, so the
 * limit meets it there, and it must be refused with ENOMEM, not by the
 * OOM killer. Then rings, names and logs in turn until each is refused;
 * there the limit may meet one of the small structures any system call
 * charges (a file, a VMA, a stream's own), and the cgroup's OOM killer
 * may act, as for any process at its memory.max.
 */
static int fill_the_cgroup(void)
{
	int dev, round, kind;
	bool all_refused;

	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return 2;
	tally->before = read_number(CG_LIMITED "/memory.current");
	for (round = 0; round < ROUNDS && !tally->refused[STREAMS]; round++)
		if (!make_tallied(dev, STREAMS, round))
			return 3;
	for (round = 0; round < ROUNDS; round++) {
		all_refused = true;
		for (kind = RINGS; kind < KINDS; kind++) {
			if (tally->refused[kind])
				continue;
			all_refused = false;
			if (!make_tallied(dev, kind, round))
				return 3;
		}
		if (all_refused)
			break;
	}
	return 0;
}

static long long memory_event(const char *dir, const char *key)
{
	char path[128], line[128];
	long long v = -1;
	size_t len = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.events", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			v = atoll(line + len + 1);
	fclose(f);
	return v;
}

/* A process of another cgroup holding 16 MiB: it must live on. */
static pid_t bystander(void)
{
	char pid[32];
	pid_t child = fork();

	if (child == 0) {
		size_t len = 16 << 20;
		char *p;

		snprintf(pid, sizeof(pid), "%d", getpid());
		if (!write_string(CG_BYSTANDER "/cgroup.procs", pid))
			_exit(1);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(2);
		memset(p, 1, len);
		for (;;)
			pause();
	}
	return child;
}

TEST(a_cgroup_at_its_limit_is_refused_cleanly_and_costs_no_other)
{
	char max[32], pid[32];
	long long charged, after = -1, oom_kills;
	uint64_t end;
	pid_t other, child;
	int status, kind;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root");
	if (!memcg_present())
		SKIP(return, "no cgroup2 memory controller");
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, tally);
	ASSERT_TRUE(memcg_make(CG_LIMITED));
	ASSERT_TRUE(memcg_make(CG_BYSTANDER));
	snprintf(max, sizeof(max), "%lld", LIMIT);
	ASSERT_TRUE(write_string(CG_LIMITED "/memory.max", max));
	other = bystander();
	ASSERT_LT(0, other);

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		snprintf(pid, sizeof(pid), "%d", getpid());
		_exit(write_string(CG_LIMITED "/cgroup.procs", pid) ?
		      fill_the_cgroup() : 100);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	oom_kills = memory_event(CG_LIMITED, "oom_kill");
	for (kind = 0; kind < KINDS; kind++)
		TH_LOG("%s: %lu made, refused after that: %s",
		       kind_names[kind], tally->made[kind],
		       tally->refused[kind] ? "yes" : "no");
	TH_LOG("memory.current %lld before, %lld at most (memory.max %lld); OOM kills in the cgroup: %lld",
	       tally->before, tally->peak, LIMIT, oom_kills);
	/* A stream past the limit: refused (ENOMEM), the process alive. */
	EXPECT_NE(0, tally->refused[STREAMS]);
	/* The rest: refused cleanly, or killed by its own cgroup. */
	if (WIFSIGNALED(status)) {
		EXPECT_EQ(SIGKILL, WTERMSIG(status));
		EXPECT_LT(0, oom_kills);
	} else {
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("%s refused with errno %d",
			       kind_names[tally->bad_kind], tally->bad_errno);
	}
	/* What it made was charged here, not to the machine. */
	charged = (long long)tally->made[STREAMS] * STREAM_SIZE +
		  (long long)tally->made[RINGS] * RING_DATA;
	EXPECT_LE(charged - charge_caches(), tally->peak - tally->before);

	/* The bystander lives, and its cgroup saw no OOM kill. */
	EXPECT_EQ(0, waitpid(other, &status, WNOHANG));
	EXPECT_EQ(0, memory_event(CG_BYSTANDER, "oom_kill"));
	kill(other, SIGKILL);
	waitpid(other, &status, 0);

	/* Its streams, rings and logs gone with it, so is their charge. */
	end = deadline_ms(10000);
	while (before(end)) {
		after = read_number(CG_LIMITED "/memory.current");
		if (after <= charge_caches())
			break;
		usleep(100000);
	}
	TH_LOG("memory.current after the process: %lld", after);
	EXPECT_LE(after, charge_caches());
	rmdir(CG_LIMITED);
	rmdir(CG_BYSTANDER);
	munmap(tally, sizeof(*tally));
}

TEST_HARNESS_MAIN
