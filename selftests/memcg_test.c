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
 * And a traced process killed by its cgroup's OOM killer while it
 * records loses nothing uncounted; and what falls back to vmalloc() when
 * contiguous pages are short is charged too (the tests after; see there).
 *
 * Needs root and cgroup2's memory controller; skipped otherwise.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "cgroup_common.h"
#include "fault_common.h"
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

/* Every test here: the device, root, and cgroup2's memory controller. */
#define SKIP_WITHOUT_MEMCG()						\
	do {								\
		SKIP_WITHOUT_DEVICE();					\
		if (geteuid())						\
			SKIP(return, "needs root");			\
		if (!memcg_present())					\
			SKIP(return, "no cgroup2 memory controller");	\
	} while (0)

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
	long long charged, after, oom_kills;
	pid_t other, child;
	int status, kind;

	SKIP_WITHOUT_MEMCG();
	tally = shared(sizeof(*tally));
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
	after = memcg_left(CG_LIMITED);
	TH_LOG("memory.current after the process: %lld", after);
	EXPECT_LE(after, charge_caches());
	rmdir(CG_LIMITED);
	rmdir(CG_BYSTANDER);
	munmap(tally, sizeof(*tally));
}

/*
 * A traced process killed by the OOM killer while it records: a child in
 * a cgroup of its own (CG_OOM: memory.max OOM_LIMIT, no swap) records
 * from OOM_THREADS threads into two streams that trace it (inherited)
 * and belong to its parent, outside the cgroup: A holds every event, B
 * (64 KiB, LOOP) loses most. Once the threads have recorded OOM_BEFORE
 * events, its main thread takes memory, a MiB at a time, until the
 * cgroup's OOM killer kills the process, the threads still recording.
 *
 * The kill is a SIGKILL like any other, but comes from inside the page
 * fault of another thread, and the OOM reaper may tear down the
 * process's memory while its rings still hold what the threads
 * recorded: the rings' pages are the module's, not the process's, and
 * the reaper leaves shared mappings alone.
 *
 * Checked: the process died of SIGKILL with an OOM kill in its cgroup's
 * memory.events; A holds, per thread and in order, every event whose
 * posix_trace_event() returned and at most one more (the one under way);
 * B read or counted lost exactly what A holds; each stream's books add
 * up; both streams record and return an event of the parent's after it;
 * and the cgroup's charge, the rings included, goes with the process.
 */
#define CG_OOM		CGROUP_ROOT "/posixtrace-oom"
#define OOM_LIMIT	(16LL << 20)
#define OOM_THREADS	3
#define OOM_BEFORE	50000
#define OOM_CHUNK	(1 << 20)
/*
 * A (64 MiB) holds 932,067 of these events (72 bytes each): the threads
 * record OOM_CAP each at full speed, then one a millisecond, so that A
 * holds them all however long the hog takes to meet the limit.
 */
#define OOM_STREAM	(64 << 20)
#define OOM_CAP		200000

struct oom_shm {
	atomic_uint_fast64_t done[OOM_THREADS];
	atomic_uint_fast64_t at_hog, hogged;
};

static uint64_t oom_done(struct oom_shm *shm)
{
	uint64_t sum = 0;

	for (int t = 0; t < OOM_THREADS; t++)
		sum += atomic_load(&shm->done[t]);
	return sum;
}

/* The child: join CG_OOM, record from threads, then take its memory. */
static int oom_victim(struct oom_shm *shm, trace_event_id_t id)
{
	struct killable_emitter ot[OOM_THREADS];
	char pid[32];
	pthread_t thr;
	uint64_t end;

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (!write_string(CG_OOM "/cgroup.procs", pid))
		return 100;
	for (int t = 0; t < OOM_THREADS; t++) {
		ot[t] = (struct killable_emitter) {
			.done = &shm->done[t], .id = id, .t = t,
			.full_speed = OOM_CAP,
		};
		if (pthread_create(&thr, NULL, killable_emit, &ot[t]))
			return 1;
	}
	end = deadline_ms(20000);
	while (oom_done(shm) < OOM_BEFORE)
		if (!before(end))
			return 2;
		else
			usleep(1000);
	atomic_store(&shm->at_hog, oom_done(shm));
	for (;;) {
		char *p = mmap(NULL, OOM_CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 3;
		memset(p, 1, OOM_CHUNK);
		atomic_fetch_add(&shm->hogged, OOM_CHUNK);
	}
}

TEST(a_traced_process_killed_by_the_oom_killer_loses_nothing_uncounted)
{
	struct posixtrace_status st_a, st_b;
	struct killed_read in_a, in_b;
	trace_event_id_t id, after_id;
	long long oom_kills, left;
	uint64_t total = 0;
	struct oom_shm *shm;
	trace_id_t a, b;
	int fds[2], status;
	char max[32];
	pid_t child;

	SKIP_WITHOUT_MEMCG();
	shm = shared(sizeof(*shm));
	ASSERT_NE(MAP_FAILED, shm);
	ASSERT_TRUE(memcg_make(CG_OOM));
	snprintf(max, sizeof(max), "%lld", OOM_LIMIT);
	ASSERT_TRUE(write_string(CG_OOM "/memory.max", max));
	/* No swap to push the hog's pages to (if the guest has any). */
	write_string(CG_OOM "/memory.swap.max", "0");
	ASSERT_EQ(0, posix_trace_eventid_open("memcg.oom", &id));
	ASSERT_EQ(0, posix_trace_eventid_open("memcg.after", &after_id));
	ASSERT_EQ(0, inherited_pair(OOM_STREAM, 64 << 10, &a, &b));
	ASSERT_EQ(2, stream_fds(fds, 2));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(oom_victim(shm, id));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	oom_kills = memory_event(CG_OOM, "oom_kill");
	TH_LOG("recorded %llu before the hog, %llu at its kill; it took %llu MiB; OOM kills: %lld",
	       (unsigned long long)atomic_load(&shm->at_hog),
	       (unsigned long long)oom_done(shm),
	       (unsigned long long)atomic_load(&shm->hogged) >> 20,
	       oom_kills);
	ASSERT_TRUE(WIFSIGNALED(status))
		TH_LOG("the child exited, status %d", WEXITSTATUS(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
	ASSERT_LT(0, oom_kills);

	/* Both streams still record: an event of the parent's, after. */
	posix_trace_event(after_id, NULL, 0);
	ASSERT_EQ(0, posix_trace_stop(a));
	ASSERT_EQ(0, posix_trace_stop(b));
	killed_read(a, id, after_id, OOM_THREADS, true, &in_a);
	killed_read(b, id, after_id, OOM_THREADS, false, &in_b);
	EXPECT_FALSE(in_a.gap);
	EXPECT_FALSE(in_b.gap);
	EXPECT_EQ(1, in_a.after);
	for (int t = 0; t < OOM_THREADS; t++) {
		uint64_t done = atomic_load(&shm->done[t]);

		/* Returned means recorded; one more may have been under way. */
		EXPECT_LE(done, in_a.per_thread[t]);
		EXPECT_GE(done + 1, in_a.per_thread[t]);
		EXPECT_LE(in_b.per_thread[t], in_a.per_thread[t]);
		total += in_a.per_thread[t];
	}
	TH_LOG("A read %llu of the child's, B %llu",
	       (unsigned long long)total, (unsigned long long)in_b.user);

	/* Each stream's books: recorded = read + lost, exactly. */
	ASSERT_EQ(0, stream_status(fds[0], &st_a));
	ASSERT_EQ(0, stream_status(fds[1], &st_b));
	EXPECT_EQ(0, st_a.events_lost);
	EXPECT_EQ(total + in_a.sys + 1, st_a.events_recorded);
	EXPECT_EQ(st_a.events_recorded, st_a.events_read);
	/* B: START, what A holds, the parent's event, STOP. */
	EXPECT_EQ(total + 3, st_b.events_recorded);
	EXPECT_EQ(st_b.events_recorded,
		  in_b.user + in_b.sys + in_b.after + st_b.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(a));
	ASSERT_EQ(0, posix_trace_shutdown(b));

	/* The process gone and its rings drained, so is their charge. */
	left = memcg_left(CG_OOM);
	TH_LOG("memory.current after the process: %lld", left);
	EXPECT_LE(left, charge_caches());
	rmdir(CG_OOM);
	munmap(shm, sizeof(*shm));
}

/*
 * What the module allocates of a size a user chose, past a page, it
 * tries once as contiguous pages and then takes from vmalloc()
 * (posixtrace_kvmalloc_user()): a stream's per-CPU buffers, a log's
 * buffer, a drain's heap. On a machine with free contiguous memory,
 * as a fresh guest has, the first try always succeeds, and no other test
 * sees the fallback. Here fail_page_alloc (the debug kernel's fault
 * injection, confined to the module's text and to this child) refuses
 * every allocation of VMALLOC_ORDER or more, so that a stream with
 * system call events, whose per-CPU buffers are 1 MiB each, gets them
 * from vmalloc(): the stream must work, and memory.current of its
 * creator's cgroup grow by its buffer and every per-CPU one.
 */
#define CG_VMALLOC	CGROUP_ROOT "/posixtrace-vmalloc"
#define VMALLOC_ORDER	"8"		/* 1 MiB, of 4 KiB pages */
#define VMALLOC_KBUF	(1 << 20)
/*
 * A stream's per-CPU buffers share a quarter of its size, up to 1 MiB
 * each: this size gives each its 1 MiB.
 */
#define VMALLOC_STREAM(ncpu)	(4LL * (ncpu) * VMALLOC_KBUF)

/* What the child saw, for the test to judge (MAP_SHARED). */
struct vmalloc_seen {
	long long before, after;
	long times_before, times_after;
	int created, started, err;
};

static long fail_page_alloc_times(void)
{
	char text[32] = "";

	if (!read_str("/sys/kernel/debug/fail_page_alloc/times", text,
		      sizeof(text)))
		return -1;
	return atol(text);
}

/* fail_page_alloc as this test needs it, or (@on false) off again. */
static bool fail_big_pages(bool on)
{
	unsigned long start, end;

	if (!on)
		return fault_set(FAIL_PAGE_ALLOC, "probability", "0") &&
		       fault_set(FAIL_PAGE_ALLOC, "task-filter", "N") &&
		       fault_set(FAIL_PAGE_ALLOC, "min-order", "0");
	return module_text(&start, &end) && faults_within(start, end) &&
	       fault_set(FAIL_PAGE_ALLOC, "times", "1000000") &&
	       fault_set(FAIL_PAGE_ALLOC, "interval", "1") &&
	       fault_set(FAIL_PAGE_ALLOC, "verbose", "0") &&
	       fault_set(FAIL_PAGE_ALLOC, "ignore-gfp-wait", "N") &&
	       fault_set(FAIL_PAGE_ALLOC, "ignore-gfp-highmem", "N") &&
	       fault_set(FAIL_PAGE_ALLOC, "min-order", VMALLOC_ORDER) &&
	       fault_set(FAIL_PAGE_ALLOC, "task-filter", "Y") &&
	       fault_set(FAIL_PAGE_ALLOC, "probability", "100");
}

/* The child, in CG_VMALLOC, its big pages refused: one stream. */
static int vmalloc_stream(struct vmalloc_seen *seen, int ncpu)
{
	struct posixtrace_attr a = {
		.stream_size = VMALLOC_STREAM(ncpu),
		.max_data_size = 64,
		.stream_full_policy = POSIXTRACE_LOOP,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
		.kernel_events = POSIXTRACE_KERNEL_SYSCALL,
	};
	char pid[32];
	int dev, fd;

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (!write_string(CG_VMALLOC "/cgroup.procs", pid))
		return 100;
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return 2;
	if (!write_string("/proc/self/make-it-fail", "1"))
		return 3;
	seen->times_before = fail_page_alloc_times();
	seen->before = read_number(CG_VMALLOC "/memory.current");
	fd = raw_create_with(dev, &a, -1);
	seen->after = read_number(CG_VMALLOC "/memory.current");
	seen->times_after = fail_page_alloc_times();
	write_string("/proc/self/make-it-fail", "0");
	if (fd < 0) {
		seen->err = -fd;
		return 4;
	}
	seen->created = 1;
	seen->started = !raw_control(fd, POSIXTRACE_IOC_START) &&
			!raw_control(fd, POSIXTRACE_IOC_STOP);
	close(fd);
	close(dev);
	return 0;
}

TEST(a_user_sized_buffer_from_vmalloc_is_charged_too)
{
	struct vmalloc_seen *seen;
	long long need, left;
	int ncpu = sysconf(_SC_NPROCESSORS_CONF), status;
	pid_t child;

	SKIP_WITHOUT_MEMCG();
	if (!fault_injection_here())
		SKIP(return, "no fault injection (the debug kernel has it)");
	seen = shared(sizeof(*seen));
	ASSERT_NE(MAP_FAILED, seen);
	ASSERT_TRUE(memcg_make(CG_VMALLOC));
	ASSERT_TRUE(fail_big_pages(true));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(vmalloc_stream(seen, ncpu));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(fail_big_pages(false));
	TH_LOG("memory.current %lld before the stream, %lld after; big pages refused: %ld; %d CPUs",
	       seen->before, seen->after,
	       seen->times_before - seen->times_after, ncpu);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("creation failed with errno %d", seen->err);
	EXPECT_TRUE(seen->started);
	/* The per-CPU buffers' first try, at least, was refused. */
	EXPECT_LT(seen->times_after, seen->times_before);
	/* The buffer and every per-CPU one, from vmalloc(): all charged. */
	need = VMALLOC_STREAM(ncpu) + (long long)ncpu * VMALLOC_KBUF;
	EXPECT_LE(need - charge_caches(), seen->after - seen->before);
	left = memcg_left(CG_VMALLOC);
	EXPECT_LE(left, charge_caches());
	rmdir(CG_VMALLOC);
	munmap(seen, sizeof(*seen));
}

TEST_HARNESS_MAIN
