// SPDX-License-Identifier: GPL-2.0
/*
 * What a thread ring's pages count in: its user's RLIMIT_MEMLOCK from the
 * mmap() that made them until no mapping and no ring has them, and its
 * memory cgroup.
 *
 * Each case runs as an ordinary user of its own (the limit is the user's,
 * and a ring retired by the previous case's exit may still be on its way
 * out), under a small RLIMIT_MEMLOCK, and maps one-page rings by hand (a
 * control page and a data page: two pages each) until the module says
 * ENOMEM: exactly the limit's worth, however the rings were left behind
 * (a newer ring of the same thread, an exited thread), moved (mremap()),
 * cut in pieces (munmap() of a part) or covered (MAP_FIXED); and a ring's
 * room comes back when its last piece goes, and not before. Trying four
 * times the limit's worth costs the machine (MemAvailable) the limit at
 * most; and the pages show in the memory cgroup's memory.current.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cgroup_common.h"
#include "trc_common.h"

/* The limit each case runs under, in pages, and a ring's pages. */
#define LIMIT_PAGES	64
#define RING_PAGES	2
#define FILL		(LIMIT_PAGES / RING_PAGES)
/* How many maps a case tries before it calls the limit missing. */
#define TRY_MAX		(4 * FILL)

#define RING_PARAM	"/sys/module/posixtrace/parameters/max_ring_size"

/* Root, to act as users of its own; rings, to have something to map. */
#define NEEDS_ROOT() do {						\
	int _max = 0;							\
	SKIP_WITHOUT_DEVICE();						\
	if (geteuid())							\
		SKIP(return, "needs root to act as another user");	\
	if (!param_read(RING_PARAM, &_max) || !_max)			\
		SKIP(return, "rings are off (max_ring_size=0)");	\
} while (0)

/*
 * Become @uid under a RLIMIT_MEMLOCK of @pages, with no capability (so
 * the limit holds: CAP_IPC_LOCK would lift it).
 */
static bool become_limited_user(uid_t uid, unsigned long pages)
{
	struct rlimit lim = {
		.rlim_cur = pages * page_size(),
		.rlim_max = pages * page_size(),
	};

	return !setrlimit(RLIMIT_MEMLOCK, &lim) && !setgroups(0, NULL) &&
	       !setresgid(uid, uid, uid) && !setresuid(uid, uid, uid) &&
	       !prctl(PR_SET_DUMPABLE, 1);
}

/*
 * Map a ring of @data_pages on @dev at @offset: a new one
 * (POSIXTRACE_RING_OFFSET) or the thread's grown one
 * (POSIXTRACE_RING_GROW_OFFSET); NULL (errno set) if refused.
 */
static void *ring_map_at(int dev, size_t data_pages, off_t offset)
{
	void *p = mmap(NULL, (1 + data_pages) * page_size(),
		       PROT_READ | PROT_WRITE, MAP_SHARED, dev, offset);

	return p == MAP_FAILED ? NULL : p;
}

static void *ring_map(int dev, size_t data_pages)
{
	return ring_map_at(dev, data_pages, POSIXTRACE_RING_OFFSET);
}

/*
 * Map one-page rings on @dev until refused (or @max of them), into
 * @maps; returns how many were mapped, with errno of the refusal.
 */
static int ring_fill(int dev, void **maps, int max)
{
	int n = 0;

	errno = 0;
	while (n < max && (maps[n] = ring_map(dev, 1)))
		n++;
	return n;
}

static void ring_unmap_all(void **maps, int n)
{
	while (n-- > 0)
		munmap(maps[n], RING_PAGES * page_size());
}

/*
 * The device, opened as @uid under a RLIMIT_MEMLOCK of LIMIT_PAGES; -1 if
 * that cannot be.
 */
static int limited_device(uid_t uid)
{
	if (!become_limited_user(uid, LIMIT_PAGES))
		return -1;
	return open(DEVICE, O_RDWR | O_CLOEXEC);
}

/* Root, to become a user of the case's own; the device as that user. */
#define LIMITED_CASE(uid) ({							int _dev;								NEEDS_ROOT();								_dev = limited_device(uid);						ASSERT_LE(0, _dev);							_dev;								})

/*
 * One thread maps ring after ring without unmapping: each new ring
 * retires the last, which stays mapped, and so charged.
 */
TEST(rings_retired_by_newer_ones_count_while_mapped)
{
	int dev = LIMITED_CASE(2101), n;
	void *maps[TRY_MAX];

	n = ring_fill(dev, maps, TRY_MAX);
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(FILL, n);
	/* Their room comes back with their mappings, all of it. */
	ring_unmap_all(maps, n);
	n = ring_fill(dev, maps, TRY_MAX);
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(FILL, n);
	ring_unmap_all(maps, n);
}

struct thread_map {
	int dev;
	void *map;
	int err;
};

static void *thread_map_and_exit(void *arg)
{
	struct thread_map *tm = arg;

	tm->map = ring_map(tm->dev, 1);
	tm->err = tm->map ? 0 : errno;
	return NULL;
}

/*
 * Threads that map a ring each and exit without unmapping it leave their
 * rings in the process: retired, and charged while mapped.
 */
TEST(rings_left_by_exited_threads_count_while_mapped)
{
	struct thread_map tm = { .dev = LIMITED_CASE(2102) };
	void *maps[TRY_MAX];
	pthread_t t;
	int n = 0;

	do {
		ASSERT_EQ(0, pthread_create(&t, NULL, thread_map_and_exit,
					    &tm));
		ASSERT_EQ(0, pthread_join(t, NULL));
		if (tm.map)
			maps[n++] = tm.map;
	} while (tm.map && n < TRY_MAX);
	ASSERT_EQ(ENOMEM, tm.err);
	ASSERT_EQ(FILL, n);
	ring_unmap_all(maps, n);
	ASSERT_NE(NULL, maps[0] = ring_map(tm.dev, 1));
	ring_unmap_all(maps, 1);
}

/* A ring moved elsewhere is the same ring: charged until unmapped there. */
TEST(a_moved_ring_counts_until_unmapped_where_it_went)
{
	size_t len = RING_PAGES * page_size();
	int dev = LIMITED_CASE(2103), n;
	void *maps[TRY_MAX], *to, *moved;

	n = ring_fill(dev, maps, TRY_MAX);
	ASSERT_EQ(FILL, n);
	to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, to);
	moved = mremap(maps[0], len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		       to);
	ASSERT_EQ(to, moved);
	/* Still charged: no room for another. */
	ASSERT_EQ(NULL, ring_map(dev, 1));
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, munmap(moved, len));
	maps[0] = ring_map(dev, 1);
	ASSERT_NE(NULL, maps[0]);
	ring_unmap_all(maps, n);
}

/*
 * A ring of four data pages (5 pages) cut in three pieces counts until
 * the last piece goes.
 */
TEST(a_ring_cut_in_pieces_counts_until_its_last_piece_goes)
{
	int dev = LIMITED_CASE(2104), n;
	size_t page = page_size();
	void *maps[TRY_MAX];
	uint8_t *big;

	big = ring_map(dev, 4);
	ASSERT_NE(NULL, big);
	/* 5 pages, then rings of 2 up to 63 of the 64: 29. */
	n = ring_fill(dev, maps, TRY_MAX);
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ((LIMIT_PAGES - 5) / RING_PAGES, n);
	ASSERT_EQ(0, munmap(big + 2 * page, page));
	ASSERT_EQ(NULL, ring_map(dev, 1));
	ASSERT_EQ(0, munmap(big, 2 * page));
	ASSERT_EQ(NULL, ring_map(dev, 1));
	ASSERT_EQ(ENOMEM, errno);
	/* The last piece: its 5 pages come back, room for 3 more rings. */
	ASSERT_EQ(0, munmap(big + 3 * page, 2 * page));
	ASSERT_EQ(3, ring_fill(dev, maps + n, TRY_MAX - n));
	ASSERT_EQ(ENOMEM, errno);
	ring_unmap_all(maps, n + 3);
}

/* A mapping put over a ring's (MAP_FIXED) unmaps it: its room comes back. */
TEST(a_mapping_over_a_ring_gives_its_room_back)
{
	size_t len = RING_PAGES * page_size();
	int dev = LIMITED_CASE(2105), n;
	void *maps[TRY_MAX];

	n = ring_fill(dev, maps, TRY_MAX);
	ASSERT_EQ(FILL, n);
	ASSERT_EQ(maps[0], mmap(maps[0], len, PROT_READ,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				      -1, 0));
	ASSERT_EQ(0, munmap(maps[0], len));
	maps[0] = ring_map(dev, 1);
	ASSERT_NE(NULL, maps[0]);
	ASSERT_EQ(NULL, ring_map(dev, 1));
	ASSERT_EQ(ENOMEM, errno);
	ring_unmap_all(maps, n);
}

/* ---- what the machine sees ---------------------------------------------- */

/* A line of /proc/meminfo, in KiB; -1 if missing. */
static long long meminfo_kib(const char *key)
{
	char name[64];
	long long kib, found = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld kB ", name, &kib) == 2)
		if (!strncmp(name, key, strlen(key)) &&
		    name[strlen(key)] == ':')
			found = kib;
	fclose(f);
	return found;
}

#define CGROUP_TEST	CGROUP_ROOT "/posixtrace-rings"
#define CGROUP_PAST	CGROUP_ROOT "/posixtrace-rings-past"

/*
 * 64 KiB rings (17 pages) under an 8 MiB limit, remapped without
 * unmapping, four times the limit's worth tried: the module takes what
 * the limit allows and no more, and what it refused costs the machine
 * nothing. Counted in a memory cgroup of the case's own (memory.current:
 * the ring pages, the module's structures and the mappings are all
 * charged there), not in MemAvailable, which pages on the per-CPU free
 * lists keep out of NR_FREE_PAGES, so that it moves by megabytes with
 * nothing mapped in between. Its figures are shown.
 */
static int rings_past_the_limit(void)
{
	const int limit_pages = 2048, per_ring = 17, tries = 4 * 2048 / 17;
	long long before, at_limit, after, avail[3];
	int dev, err, n = 0, extra = 0, i;
	void **maps;

	maps = calloc(tries, sizeof(*maps));
	if (!maps || !become_limited_user(2106, limit_pages))
		return 1;
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return 2;
	before = read_number(CGROUP_PAST "/memory.current");
	avail[0] = meminfo_kib("MemAvailable");
	while (n < tries && (maps[n] = ring_map(dev, 16)))
		n++;
	err = errno;
	at_limit = read_number(CGROUP_PAST "/memory.current");
	avail[1] = meminfo_kib("MemAvailable");
	/* The rest of the tries, past the limit. */
	for (i = n + 1; i < tries; i++)
		if ((maps[n + extra] = ring_map(dev, 16)))
			extra++;
	after = read_number(CGROUP_PAST "/memory.current");
	avail[2] = meminfo_kib("MemAvailable");
	printf("# %d rings: memory.current %lld KiB more (MemAvailable %lld "
	       "less); %d more: %lld KiB more (%lld less)\n", n,
	       (at_limit - before) / 1024, avail[0] - avail[1], extra,
	       (after - at_limit) / 1024, avail[1] - avail[2]);
	if (err != ENOMEM || n != limit_pages / per_ring || extra)
		return 3;
	/* The rings' pages were charged: the count is the right one. */
	if (before < 0 || at_limit - before <
			  (long long)n * 16 * (long long)page_size() -
			  charge_caches())
		return 4;
	if (after - at_limit > charge_caches())
		return 5;
	return 0;
}

TEST(rings_past_the_limit_cost_the_machine_nothing)
{
	NEEDS_ROOT();
	if (!memcg_present())
		SKIP(return, "no cgroup2 memory controller");
	/* 1: not set up; 2: no device; 3: the limit; 4, 5: the charges. */
	ASSERT_EQ(0, in_memcg(CGROUP_PAST, NULL, rings_past_the_limit));
}


/*
 * In a memory cgroup of its own with memory.max set, a user maps 32 rings
 * of 64 KiB (2 MiB of data): memory.current grows by at least that, less
 * what the charge caches held.
 */
static int rings_in_memcg(void)
{
	const int nr = 32, data_pages = 16;
	long long before, after;
	void *maps[32];
	int dev, i;

	if (!become_limited_user(2107, 4096))
		return 1;
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return 2;
	before = read_number(CGROUP_TEST "/memory.current");
	for (i = 0; i < nr; i++)
		if (!(maps[i] = ring_map(dev, data_pages)))
			return 3;
	after = read_number(CGROUP_TEST "/memory.current");
	printf("# memory.current: %lld -> %lld\n", before, after);
	if (before < 0 || after - before < (long long)nr * data_pages *
					   (long long)page_size() - charge_caches())
		return 4;
	return 0;
}

TEST(ring_pages_are_charged_to_the_memory_cgroup)
{
	NEEDS_ROOT();
	if (!memcg_present())
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_EQ(0, in_memcg(CGROUP_TEST, "268435456", rings_in_memcg));
}

static void *ring_grow(int dev, size_t data_pages)
{
	return ring_map_at(dev, data_pages, POSIXTRACE_RING_GROW_OFFSET);
}

/*
 * A ring that grew counts in the limit with its old pages while the old
 * mapping stays (both are pinned), and alone once the thread unmaps it:
 * the ring's own use of the old pages goes at the growth. Its half of
 * the limit (a ring over 64 KiB) is counted without the old pages.
 */
TEST(a_grown_ring_and_its_old_pages_count_until_the_old_are_unmapped)
{
	int dev = LIMITED_CASE(2109), n;
	void *old, *grown, *maps[TRY_MAX];

	old = ring_map(dev, 1);
	ASSERT_NE(NULL, old);
	/* 2 + 65 pages: past the limit's 64 while the old stays. */
	ASSERT_EQ(NULL, ring_grow(dev, 64));
	ASSERT_EQ(ENOMEM, errno);
	/* 33 pages, the half's 33 without the old ring's 2. */
	grown = ring_grow(dev, 32);
	ASSERT_NE(NULL, grown);
	/*
	 * 2 + 33 = 35 of 64: room for 14 more rings of 2 pages, not 15
	 * (each new ring retires the last, which counts while mapped).
	 */
	n = ring_fill(dev, maps, TRY_MAX);
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(14, n);
	ring_unmap_all(maps, n);
	ASSERT_EQ(0, munmap(old, RING_PAGES * page_size()));
	/* 33 of 64: 15. */
	n = ring_fill(dev, maps, TRY_MAX);
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(15, n);
	ring_unmap_all(maps, n);
	ASSERT_EQ(0, munmap(grown, 33 * page_size()));
	n = ring_fill(dev, maps, TRY_MAX);
	ASSERT_EQ(FILL, n);
	ring_unmap_all(maps, n);
}

/*
 * A user whose RLIMIT_MEMLOCK is 8 pages records through the library: the
 * thread's ring starts at a page (2 with its control page) and grows to 4
 * (5), no further: 16 and 8 would pass the limit beside the ring they
 * grow from, mapped until they are. Its events all arrive, in order.
 */
TEST(a_ring_grows_only_as_far_as_the_limit_allows)
{
	const uint64_t n = 3000;
	const struct posixtrace_ring_ctl *ctl;
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t i, v, got = 0;
	struct rec r;
	size_t len;

	NEEDS_ROOT();
	ASSERT_TRUE(become_limited_user(2108, 8));
	ASSERT_EQ(0, posix_trace_eventid_open("limit.grow", &id));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < n; i++)
		posix_trace_event(id, &i, sizeof(i));
	ctl = ring_mapping(&len);
	ASSERT_NE(NULL, ctl);
	ASSERT_EQ(4 * page_size(), ctl->data_size);
	ASSERT_EQ(5 * page_size(), len);
	ASSERT_EQ(0, posix_trace_stop(trid));
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id != id)
			continue;
		ASSERT_EQ(sizeof(v), r.len);
		memcpy(&v, r.data, sizeof(v));
		ASSERT_EQ(got, v);
		got++;
	}
	ASSERT_EQ(n, got);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

TEST_HARNESS_MAIN
