// SPDX-License-Identifier: GPL-2.0
/*
 * producer_host: what posix_trace_event() costs the traced process,
 * natively, on a machine where the module cannot be loaded: the library's
 * own producer path (libposixtrace-k's code, built with its system calls
 * replaced), against a faked kernel side. make bench-host runs it beside ust_cost, LTTng-UST's tracepoint on
 * the same machine, and reads the two against each other.
 *
 *   off        no stream may record the event (its enable bit is clear):
 *              the test the library makes before anything else;
 *   recorded   a stream records it: the library writes it into the
 *              thread's ring; the thread's kicks drop what the stream
 *              would overwrite, as the module's do;
 *   two threads
 *              the same from two threads at once, ns per event of both
 *              together;
 *   read       posix_trace_getnext_event() per event, the reader's side:
 *              the library takes a batch of records per GETNEXT (64 KiB,
 *              910 events of 8 bytes) and reports them one a call.
 *
 * The fake kernel. The library is built from its own sources for this
 * program, with its calls into the module replaced (ulib/sys.h,
 * PTK_SYS_FAKE): its open() of the device, and its ioctl(), mmap(),
 * munmap() and close() of what the device hands out, reach this file's
 * ptk_sys_*(); nothing else of the program or the C
 * library is replaced.
 *
 * - /dev/posixtrace opens as a memfd; VERSION says the library's own ABI;
 *   EVENTID_OPEN hands out identifiers;
 *   the enable page is a page of ours whose bits each row sets or clears.
 * - A ring is mapped as the module maps it: a control page, then the data
 *   area twice in a row, the same pages. The stream the events go to is
 *   what the bench's guest half uses, one LOOP stream of 1 MiB, so the
 *   enable page suggests 1 MiB rings, as the module's does.
 * - RING_DRAIN, the library's kick, runs the module's own walk
 *   (lib/ring_walk.c, compiled in): it walks the records written since
 *   the last kick, leaves a mark every 32nd of the ring, and drops up to
 *   the newest mark after which the stream's bytes of records fill the
 *   stream; if that leaves less than an eighth free, or there was nothing
 *   to drop and the ring will not hold the stream's share, it wakes the
 *   drain, as the module's kick does.
 * - The drain is a thread that does what the module's drain does with
 *   each record (acquire on the commit word, the header copied once and
 *   checked by the module's check, lib/ring_record.h, the record copied
 *   out, as into a stream, and @consumed stored with release), when woken
 *   and every 100 ms (the module's timer); munmap() of a ring drains it a
 *   last time, as a thread's exit does.
 * - A kick and EVENT, the system-call path (a full ring), cost a null
 *   system call each on top of their work, as the real ones cost at
 *   least that; both are counted, and every event is checked to have
 *   arrived, or been dropped and counted.
 * - CREATE gives a stream descriptor of the fake device; its GETNEXT
 *   costs a null system call and does what the module's does with each
 *   record (the header built, the record copied into the bounce buffer),
 *   then copies the batch out, as copy_to_user() does; the reader checks
 *   every event's number.
 *
 * What it cannot see, and says so in its output: the module's side. A
 * real kick or GETNEXT costs its system call's entry and exit with the
 * kernel's mitigations, the module's locks and its copies; a null system
 * call here stands for those. The drain's work per record runs on
 * another CPU and is not timed, as LTTng-UST's consumer daemon is not;
 * the kick's walk is the thread's and is timed (the module's code, built
 * for user space). The guest half (event_cost) times all of it, under
 * emulation.
 * Method: harness.h's.
 */

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/posixtrace.h>
#include <trace.h>

#include "harness.h"
/* The library's calls into the module, which this file defines. */
#define PTK_SYS_FAKE
#include "../ulib/sys.h"
/* The module's check of a record header, and its kick's walk (lib/). */
#include "../lib/ring_walk.h"

#define DEVICE_PATH	"/dev/posixtrace"
#define MAX_RINGS	16
#define SINK_SIZE	(1 << 20)

enum { C_GETPPID, C_MARKER, C_OFF, C_ON, C_TWO, C_READ, NR_CASES };

/* ---- the fake kernel ----------------------------------------------------- */

/*
 * The bench's stream, as the module's kick sees it (struct
 * posixtrace_loop_view): a LOOP stream of 1 MiB with a max data size of 8,
 * which keeps 1 MiB and the room for a STOP (72 bytes), and records every
 * type (posixtrace_process_event_valid() below, an empty filter).
 */
#define FAKE_RING_HINT		(1u << 20)
#define FAKE_STOP_SIZE		72

static const unsigned long fake_filter[POSIXTRACE_EVENT_ID_MAX /
				       (8 * sizeof(long))];
static const struct posixtrace_loop_view fake_view = {
	.id = 1,
	.capacity = FAKE_RING_HINT + FAKE_STOP_SIZE,
	.max_data = 8,
	.record_max = FAKE_RING_HINT,
	.filter = fake_filter,
};

/* The module's: may the process record @id? Every type is opened here. */
bool posixtrace_process_event_valid(struct posixtrace_process *proc, u32 id)
{
	(void)proc;
	return id >= POSIXTRACE_EVENT_UNNAMED_USER;
}

struct fake_ring {
	uint8_t *base;		/* the fake's view: control page, data twice */
	size_t len;
	uint8_t *user;		/* the library's: @base, or data once */
	struct posixtrace_ring_ctl *ctl;
	const uint8_t *data;
	uint64_t size;
	uint64_t consumed;	/* under rings_lock; the kick reads it */
	bool revoked;
	pid_t tid;		/* the thread that mapped it */
	/* The kick's walk, the ring's thread's alone. */
	struct posixtrace_ring_walk walk;
};

static int fake_fd = -1;
/* The descriptors open() gave for the device (the library keeps one). */
static bool fake_fds[1024];
static uint8_t *enable_page;
static uint32_t next_id = POSIXTRACE_EVENT_UNNAMED_USER + 1;
static pthread_mutex_t rings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_ring rings[MAX_RINGS];
static uint8_t sink[SINK_SIZE];
static size_t sink_head;
static atomic_uint_fast64_t taken, syscall_events, kicks, bad_records;
static atomic_uint_fast64_t dropped;
static atomic_bool drain_stop;
static pthread_t drain_thr;
/* A kick that needs the drain wakes it; else it runs every 100 ms. */
static pthread_mutex_t drain_wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t drain_wake = PTHREAD_COND_INITIALIZER;
static bool drain_due;
/*
 * The stream's GETNEXT: the next event's number, the bounce buffer, and
 * where the library mapped it (GETNEXT_MAPPED), if it did.
 */
#define READ_BOUNCE_SIZE	(64 * 1024)
static uint64_t read_seq;
static uint8_t read_bounce[READ_BOUNCE_SIZE];
static uint8_t *read_map;

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* One lap of @r at most, as the module's drain; under rings_lock. */
static uint64_t drain_ring(struct fake_ring *r)
{
	struct posixtrace_ring_record h;
	uint64_t pos = r->consumed, end = r->consumed + r->size, n = 0;
	const struct posixtrace_ring_record *rec;

	while (!r->revoked && pos < end) {
		rec = (const void *)(r->data + (pos & (r->size - 1)));
		if (__atomic_load_n(&rec->commit, __ATOMIC_ACQUIRE) != ~pos)
			break;
		memcpy(&h, rec, sizeof(h));
		if (!posixtrace_ring_record_ok(&h, end - pos)) {
			r->revoked = true;
			__atomic_store_n(&r->ctl->state, POSIXTRACE_RING_REVOKED,
					 __ATOMIC_RELAXED);
			bad_records++;
			break;
		}
		/* As into a stream: the header and the data, copied. */
		if (sink_head + h.size > SINK_SIZE)
			sink_head = 0;
		memcpy(sink + sink_head, rec, h.size);
		sink_head += h.size;
		pos += h.size;
		n++;
	}
	if (pos != r->consumed) {
		/* The kick reads it without the lock. */
		__atomic_store_n(&r->consumed, pos, __ATOMIC_RELAXED);
		__atomic_store_n(&r->ctl->consumed, pos, __ATOMIC_RELEASE);
	}
	taken += n;
	return n;
}

static uint64_t drain_all(void)
{
	uint64_t n = 0;

	pthread_mutex_lock(&rings_lock);
	for (int i = 0; i < MAX_RINGS; i++)
		if (rings[i].base)
			n += drain_ring(&rings[i]);
	pthread_mutex_unlock(&rings_lock);
	return n;
}

/* The drain: when a kick asks, and every 100 ms, as the module's timer. */
static void *drain_main(void *arg)
{
	struct timespec until;

	(void)arg;
	while (!atomic_load(&drain_stop)) {
		until = realtime_in_ms(100);
		pthread_mutex_lock(&drain_wake_lock);
		while (!drain_due && !atomic_load(&drain_stop) &&
		       !pthread_cond_timedwait(&drain_wake, &drain_wake_lock,
					       &until))
			;
		drain_due = false;
		pthread_mutex_unlock(&drain_wake_lock);
		/* Until it finds nothing: a kick may have asked meanwhile. */
		while (drain_all())
			;
	}
	return NULL;
}

static void drain_wake_up(void)
{
	pthread_mutex_lock(&drain_wake_lock);
	drain_due = true;
	pthread_cond_signal(&drain_wake);
	pthread_mutex_unlock(&drain_wake_lock);
}

/*
 * The module's kick on the calling thread's ring @r
 * (posixtrace_thread_ring_drop()): the module's walk, then a drop of what
 * the stream would overwrite. Returns true if the drain is needed.
 */
static bool fake_kick(struct fake_ring *r)
{
	uint64_t consumed = __atomic_load_n(&r->consumed, __ATOMIC_RELAXED);
	struct posixtrace_ring_drop drop;
	bool found, will, room;

	found = posixtrace_ring_walk_drop(&r->walk, r->data, r->size, consumed,
					  NULL, &fake_view, &drop);
	will = posixtrace_ring_walk_will_drop(&r->walk, r->size, &fake_view);
	pthread_mutex_lock(&rings_lock);
	if (found && r->consumed == r->walk.origin) {
		posixtrace_ring_walk_dropped(&r->walk, &drop);
		dropped += drop.events;
		__atomic_store_n(&r->consumed, drop.to, __ATOMIC_RELAXED);
		__atomic_store_n(&r->ctl->consumed, drop.to, __ATOMIC_RELEASE);
		will = true;
	}
	room = r->consumed + r->size - r->walk.walked >= r->size / 8;
	pthread_mutex_unlock(&rings_lock);
	return !(room && will);
}

/* The calling thread's ring, or NULL. */
static struct fake_ring *fake_ring_of_caller(void)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct fake_ring *r = NULL;

	pthread_mutex_lock(&rings_lock);
	for (int i = 0; i < MAX_RINGS && !r; i++)
		if (rings[i].base && rings[i].tid == tid)
			r = &rings[i];
	pthread_mutex_unlock(&rings_lock);
	return r;
}

/*
 * Pages for a ring the library maps with @map_len bytes (a page and a
 * power of two of pages of data, else EINVAL), set up as the module sets
 * a new ring's control page: its data size in *@size, the fake's view in
 * *@base (the control page, then the data twice, *@len bytes), and the
 * library's in *@user (the control page and the data once). Returns
 * false, errno set, if they cannot be had.
 */
static bool fake_ring_pages(size_t map_len, uint64_t *size, uint8_t **base,
			    size_t *len, uint8_t **user)
{
	size_t page = page_size();
	struct posixtrace_ring_ctl *ctl;
	int mfd;

	*size = map_len > page ? map_len - page : 0;
	if (*size < page || (*size & (*size - 1))) {
		errno = EINVAL;
		return false;
	}
	*len = page + 2 * *size;
	mfd = memfd_create("fake-ring", MFD_CLOEXEC);
	if (mfd < 0)
		return false;
	*base = mmap(NULL, *len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		     0);
	if (ftruncate(mfd, (off_t)map_len) || *base == MAP_FAILED ||
	    mmap(*base, map_len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, mfd, 0) == MAP_FAILED ||
	    mmap(*base + map_len, *size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, mfd, page) == MAP_FAILED) {
		close(mfd);
		errno = ENOMEM;
		return false;
	}
	*user = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	close(mfd);
	if (*user == MAP_FAILED) {
		munmap(*base, *len);
		errno = ENOMEM;
		return false;
	}
	ctl = (void *)*base;
	ctl->magic = POSIXTRACE_RING_MAGIC;
	ctl->state = POSIXTRACE_RING_LIVE;
	ctl->data_size = *size;
	ctl->data_offset = page;
	return true;
}

/* Undo fake_ring_pages(): no ring took them. */
static void *fake_ring_pages_put(uint8_t *base, size_t len, uint8_t *user,
				 uint64_t size, int err)
{
	munmap(user, page_size() + size);
	munmap(base, len);
	errno = err;
	return MAP_FAILED;
}

/*
 * Grow the calling thread's ring into a mapping of @len bytes, as the
 * module does (thread_ring.c's posixtrace_thread_ring_grow()): the old
 * lap copied to the same positions, @consumed and @produced carried over,
 * the old ring retired; or MAP_FAILED.
 */
static void *fake_ring_grow(size_t len)
{
	size_t page = page_size(), blen;
	struct posixtrace_ring_ctl *ctl;
	struct fake_ring *r = NULL;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	uint8_t *base, *user;
	uint64_t size;

	if (!fake_ring_pages(len, &size, &base, &blen, &user))
		return MAP_FAILED;
	pthread_mutex_lock(&rings_lock);
	for (int i = 0; i < MAX_RINGS && !r; i++)
		if (rings[i].base && rings[i].tid == tid && !rings[i].revoked)
			r = &rings[i];
	if (!r || size <= r->size) {
		pthread_mutex_unlock(&rings_lock);
		return fake_ring_pages_put(base, blen, user, size,
					   r ? EINVAL : ENOENT);
	}
	memcpy(base + page + (r->consumed & (size - 1)),
	       r->data + (r->consumed & (r->size - 1)), r->size);
	ctl = (void *)base;
	ctl->grown_from = r->size;
	ctl->consumed = r->consumed;
	ctl->produced = r->ctl->produced;
	r->ctl->state = POSIXTRACE_RING_RETIRED;
	/* The library unmaps its old view; the fake's goes now. */
	munmap(r->base, r->len);
	r->base = base;
	r->len = blen;
	r->user = user;
	r->ctl = (void *)base;
	r->data = base + page;
	r->size = size;
	r->walk.nr_marks = 0;
	pthread_mutex_unlock(&rings_lock);
	return user;
}

/*
 * A ring for the calling thread, as the module maps one; or MAP_FAILED.
 * The fake reads it, as the module does, through a view of its own with
 * the data twice.
 */
static void *fake_ring_map(size_t len)
{
	size_t page = page_size();
	struct fake_ring *r = NULL;
	uint8_t *base, *user;
	uint64_t size;

	if (!fake_ring_pages(len, &size, &base, &len, &user))
		return MAP_FAILED;
	pthread_mutex_lock(&rings_lock);
	for (int i = 0; i < MAX_RINGS && !r; i++)
		if (!rings[i].base)
			r = &rings[i];
	if (r) {
		*r = (struct fake_ring) {
			.base = base, .len = len, .user = user,
			.ctl = (void *)base,
			.data = base + page, .size = size,
			.tid = (pid_t)syscall(SYS_gettid),
		};
	}
	pthread_mutex_unlock(&rings_lock);
	if (!r)
		return fake_ring_pages_put(base, len, user, size, ENOMEM);
	return user;
}

/* A new descriptor of the fake device (the device's, or a stream's). */
static int fake_dup(int fd)
{
	int nfd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (nfd >= (int)(sizeof(fake_fds) / sizeof(fake_fds[0]))) {
		close(nfd);
		errno = EMFILE;
		return -1;
	}
	if (nfd >= 0)
		fake_fds[nfd] = true;
	return nfd;
}

int ptk_sys_open(const char *path, int flags)
{
	if (!strcmp(path, DEVICE_PATH)) {
		if (fake_fd < 0)
			fake_fd = memfd_create("fake-posixtrace", MFD_CLOEXEC);
		return fake_dup(fake_fd);
	}
	return open(path, flags);
}

/*
 * GETNEXT of the one stream: as many 8-byte events as fit, numbered on,
 * built into the bounce buffer one by one, after a null system call, as
 * the module's costs at least that; then copied out at once, unless the
 * library asks for them in its mapping of the buffer (GETNEXT_MAPPED).
 */
static int fake_getnext(struct posixtrace_getnext *gn)
{
	struct posixtrace_record rec = {
		.size = sizeof(rec) + 8, .header_size = sizeof(rec),
		.event_id = POSIXTRACE_EVENT_UNNAMED_USER + 1, .data_len = 8,
	};
	bool mapped = gn->flags & POSIXTRACE_GETNEXT_MAPPED;
	uint8_t *bounce = mapped ? read_map : read_bounce;
	size_t room = mapped || gn->buf_size > READ_BOUNCE_SIZE ?
		      READ_BOUNCE_SIZE : gn->buf_size, used = 0;
	uint32_t n = 0;

	if (mapped && !bounce) {
		errno = EINVAL;
		return -1;
	}
	syscall(SYS_getppid);
	while (used + rec.size <= room) {
		uint64_t data = read_seq;

		rec.seq = read_seq++;
		rec.ts_sec = (int64_t)(rec.seq / 1000000);
		rec.ts_nsec = (uint32_t)(rec.seq % 1000000) * 1000;
		memcpy(bounce + used, &rec, sizeof(rec));
		memcpy(bounce + used + sizeof(rec), &data, sizeof(data));
		used += rec.size;
		n++;
	}
	if (!mapped)
		memcpy((void *)(uintptr_t)gn->buf, bounce, used);
	gn->size = sizeof(*gn);
	gn->count = n;
	gn->bytes = (uint32_t)used;
	gn->map_offset = mapped ? 0 : POSIXTRACE_GETNEXT_IN_BUF;
	gn->map_size = READ_BOUNCE_SIZE;
	return 0;
}

/* Is @fd a descriptor of the fake device? */
static bool is_fake(int fd)
{
	return fd >= 0 && fd < (int)(sizeof(fake_fds) / sizeof(fake_fds[0])) &&
	       fake_fds[fd];
}

int ptk_sys_close(int fd)
{
	if (is_fake(fd))
		fake_fds[fd] = false;
	return close(fd);
}

int ptk_sys_ioctl(int fd, unsigned long req, void *arg)
{
	struct posixtrace_eventid *eid;

	if (!is_fake(fd))
		return ioctl(fd, req, arg);
	switch (req) {
	case POSIXTRACE_IOC_VERSION: {
		/* The ABI the library was built for: it checks at open. */
		struct posixtrace_version *ver = arg;

		ver->size = sizeof(*ver);
		ver->major = POSIXTRACE_ABI_MAJOR;
		ver->minor = POSIXTRACE_ABI_MINOR;
		return 0;
	}
	case POSIXTRACE_IOC_EVENTID_OPEN:
		eid = arg;
		eid->event_id = next_id++;
		return 0;
	case POSIXTRACE_IOC_EVENT:
		syscall_events++;
		syscall(SYS_getppid);
		return 0;
	case POSIXTRACE_IOC_RING_DRAIN: {
		struct fake_ring *r = fake_ring_of_caller();

		kicks++;
		syscall(SYS_getppid);
		if (!r || fake_kick(r))
			drain_wake_up();
		return 0;
	}
	case POSIXTRACE_IOC_CREATE:
		/* A descriptor of the fake device stands for the stream. */
		return fake_dup(fd);
	case POSIXTRACE_IOC_GET_ATTR:
		((struct posixtrace_attr *)arg)->max_data_size = 8;
		return 0;
	case POSIXTRACE_IOC_GETNEXT:
		return fake_getnext(arg);
	default:
		errno = ENOTTY;
		return -1;
	}
}

void *ptk_sys_mmap(size_t len, int prot, int fd, off_t off)
{
	struct posixtrace_enable_page *ep;

	if (!is_fake(fd))
		return mmap(NULL, len, prot, MAP_SHARED, fd, off);
	if (off == POSIXTRACE_RING_OFFSET)
		return fake_ring_map(len);
	if (off == POSIXTRACE_RING_GROW_OFFSET)
		return fake_ring_grow(len);
	/* A stream's batch buffer: the fake GETNEXT builds batches there. */
	if (!off && len == READ_BOUNCE_SIZE && !read_map) {
		read_map = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (read_map == MAP_FAILED)
			read_map = NULL;
		return read_map ? (void *)read_map : MAP_FAILED;
	}
	if (off != POSIXTRACE_ENABLE_PAGE_OFFSET || len != page_size()) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (!enable_page) {
		enable_page = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (enable_page == MAP_FAILED) {
			enable_page = NULL;
			return MAP_FAILED;
		}
		ep = (void *)enable_page;
		ep->magic = POSIXTRACE_ENABLE_MAGIC;
		ep->ring_size = FAKE_RING_HINT;
	}
	return enable_page;
}

/* A thread's ring goes: its last records taken first, as at its exit. */
int ptk_sys_munmap(void *addr, size_t len)
{
	if (addr && addr == read_map)
		read_map = NULL;
	pthread_mutex_lock(&rings_lock);
	for (int i = 0; i < MAX_RINGS; i++) {
		if (!rings[i].base || rings[i].user != addr)
			continue;
		drain_ring(&rings[i]);
		munmap(rings[i].base, rings[i].len);
		rings[i].base = NULL;
	}
	pthread_mutex_unlock(&rings_lock);
	return munmap(addr, len);
}

/* Every user event type recordable, or none. */
static void enable_all(bool on)
{
	struct posixtrace_enable_page *ep = (void *)enable_page;

	for (int i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++)
		__atomic_store_n(&ep->enabled[i], on ? ~0ULL : 0,
				 __ATOMIC_RELAXED);
}

/* ---- the cases ----------------------------------------------------------- */

struct bench_case {
	const char *name;
	const char *summary;
	int (*setup)(void);
	void (*teardown)(void);
	void (*loop)(uint64_t n);
	uint64_t n;
	double ns[MAX_ROUNDS];
	bool skipped;
	char note[160];
};

static trace_event_id_t ev_id;
static uint64_t emitted, lost_checks;

static void loop_event(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t data = i;

		posix_trace_event(ev_id, &data, sizeof(data));
	}
}

static void *emit_half(void *arg)
{
	loop_event(*(uint64_t *)arg);
	return NULL;
}

/* Two threads, n / 2 events each; their rings are mapped at their first. */
static void loop_event_two(uint64_t n)
{
	uint64_t half = n / 2;
	pthread_t thr;

	if (pthread_create(&thr, NULL, emit_half, &half)) {
		problem("pthread_create failed: (two threads) is one");
		loop_event(n);
		return;
	}
	loop_event(n - half);
	pthread_join(thr, NULL);
}

/* The stream read, created once (the fake never frees it). */
static trace_id_t read_trid;
static uint64_t read_bad;

/* Read n events, checking that each is the next one. */
static void loop_read(uint64_t n)
{
	struct posix_trace_event_info info;
	uint64_t data, expect = read_seq;
	size_t len;
	int unavailable;

	/* What the last batch left is read first: its numbers come before. */
	if (posix_trace_trygetnext_event(read_trid, &info, &data,
					 sizeof(data), &len, &unavailable) ||
	    unavailable) {
		read_bad++;
		return;
	}
	expect = data + 1;
	for (uint64_t i = 1; i < n; i++) {
		if (posix_trace_getnext_event(read_trid, &info, &data,
					      sizeof(data), &len,
					      &unavailable) ||
		    unavailable || len != sizeof(data) || data != expect)
			read_bad++;
		expect = data + 1;
	}
}

static int no_setup(void)
{
	return 0;
}

static void no_teardown(void)
{
}

static int setup_marker(void)
{
	return marker_open();
}

static int setup_off(void)
{
	enable_all(false);
	return 0;
}

static uint64_t before;

static int setup_on(void)
{
	enable_all(true);
	before = atomic_load(&taken) + atomic_load(&syscall_events) +
		 atomic_load(&dropped);
	return 0;
}

/* Every event arrived, by the ring or the system call, or was dropped. */
static void teardown_on(void)
{
	uint64_t after;

	enable_all(false);
	drain_all();
	after = atomic_load(&taken) + atomic_load(&syscall_events) +
		atomic_load(&dropped);
	if (after - before != emitted)
		lost_checks++;
}

static struct bench_case cases[NR_CASES] = {
	[C_GETPPID] = {
		.name = "syscall(SYS_getppid)",
		.setup = no_setup, .teardown = no_teardown,
		.loop = loop_getppid,
	},
	[C_MARKER] = {
		.name = "write(trace_marker, 8 B)",
		.summary = "write(2) of 8 bytes to ftrace's trace_marker",
		.setup = setup_marker, .teardown = no_teardown,
		.loop = loop_marker,
	},
	[C_OFF] = {
		.name = "posix_trace_event off",
		.summary = "posix_trace_event, no stream may record it",
		.setup = setup_off, .teardown = no_teardown,
		.loop = loop_event,
	},
	[C_ON] = {
		.name = "posix_trace_event recorded",
		.summary = "posix_trace_event, recorded (producer path)",
		.setup = setup_on, .teardown = teardown_on,
		.loop = loop_event,
	},
	[C_TWO] = {
		.name = "posix_trace_event 2 thr",
		.summary = "posix_trace_event, recorded from two threads",
		.setup = setup_on, .teardown = teardown_on,
		.loop = loop_event_two,
	},
	[C_READ] = {
		.name = "getnext_event, per event",
		.summary = "posix_trace_getnext_event, per event read",
		.setup = no_setup, .teardown = no_teardown,
		.loop = loop_read,
	},
};

static int measure(struct bench_case *c, double *secs)
{
	double t0, t1;
	int err;

	err = c->setup();
	if (err)
		return err;
	emitted = c->n;
	t0 = now();
	c->loop(c->n);
	t1 = now();
	c->teardown();
	*secs = t1 - t0;
	return 0;
}

static int measure_case(void *c, double *secs)
{
	return measure(c, secs);
}

int main(int argc, char **argv)
{
	struct bench_case *ref = &cases[C_GETPPID], *mk = &cases[C_MARKER];
	double target = 0.3;
	int rounds = 5, opt, err;
	uint64_t events;

	while ((opt = getopt(argc, argv, "r:t:")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atoi(optarg);
			if (rounds < 1 || rounds > MAX_ROUNDS)
				usage_rt(argv[0], "");
			break;
		case 't':
			target = atof(optarg);
			if (!(target > 0))
				usage_rt(argv[0], "");
			break;
		default:
			usage_rt(argv[0], "");
		}
	}
	err = posix_trace_eventid_open("bench.event", &ev_id);
	if (err || !enable_page) {
		fprintf(stderr, "producer_host: the fake kernel was not used "
			"(eventid_open: %s)\n", strerror(err));
		return 1;
	}
	err = posix_trace_create(0, NULL, &read_trid);
	if (err) {
		fprintf(stderr, "producer_host: no fake stream to read (%s)\n",
			strerror(err));
		return 1;
	}
	if (pthread_create(&drain_thr, NULL, drain_main, NULL)) {
		fprintf(stderr, "producer_host: no drain thread\n");
		return 1;
	}

	printf("producer_host: libposixtrace-k's producer path against a "
	       "faked kernel side, natively;\n%d rounds, each timed loop "
	       "about %.2f s (N calibrated per case)\n", rounds, target);
	for (int k = 0; k < NR_CASES; k++) {
		struct bench_case *c = &cases[k];

		err = calibrate_n(measure_case, c, &c->n, target, false, 0);
		if (err) {
			c->skipped = true;
			snprintf(c->note, sizeof(c->note),
				 "skipped: no usable trace_marker (%s)",
				 strerror(err));
		}
	}
	atomic_store(&syscall_events, 0);
	atomic_store(&kicks, 0);
	atomic_store(&dropped, 0);
	events = atomic_load(&taken);
	for (int i = 0; i < rounds; i++) {
		for (int k = 0; k < NR_CASES; k++) {
			struct bench_case *c = &cases[k];
			double secs;

			if (c->skipped)
				continue;
			if (measure(c, &secs)) {
				c->skipped = true;
				continue;
			}
			c->ns[i] = secs * NSEC_PER_SEC / (double)c->n;
			if (secs < 0.2)
				problem("a timed loop took under 0.2 s: "
					"-t sets the target");
		}
	}
	events = atomic_load(&taken) - events;
	atomic_store(&drain_stop, true);
	drain_wake_up();
	pthread_join(drain_thr, NULL);

	print_header();
	for (int k = 0; k < NR_CASES; k++) {
		struct bench_case *c = &cases[k];

		print_row(c->name, c->skipped, c->note, c->n, c->ns, ref->ns,
			  mk->skipped ? NULL : mk->ns, rounds);
	}
	print_legend(rounds);
	printf("\n");
	for (int k = 0; k < NR_CASES; k++) {
		struct bench_case *c = &cases[k];

		if (c->summary)
			print_summary(c->summary, c->skipped, c->note, c->ns,
				      ref->ns, k == C_MARKER || mk->skipped ?
				      NULL : mk->ns, rounds);
	}
	printf("two threads: %.2fx the throughput of one\n",
	       ratio_of(cases[C_ON].ns, cases[C_TWO].ns, rounds));
	printf("timed rounds: %llu events taken from the rings, %llu "
	       "dropped by kicks (the stream would overwrite them), %llu by "
	       "the system call (a full ring), %llu kicks, %llu bad records; "
	       "%s\n",
	       (unsigned long long)events,
	       (unsigned long long)atomic_load(&dropped),
	       (unsigned long long)atomic_load(&syscall_events),
	       (unsigned long long)atomic_load(&kicks),
	       (unsigned long long)atomic_load(&bad_records),
	       lost_checks ? "SOME EVENTS NEVER ARRIVED" :
	       "every event arrived");
	printf("read: %s\n", read_bad ? "SOME EVENTS READ OUT OF ORDER" :
	       "every event read in order");
	printf("not seen here: the module's side. A kick and a GETNEXT cost "
	       "a null system call here, plus the module's walk (built for "
	       "user space) and the fake's copies; the module's entry, locks "
	       "and copies, and the drain on another CPU, are in "
	       "event_cost's rows (guest).\n");
	print_problems();
	return lost_checks || read_bad ? 1 : 0;
}
