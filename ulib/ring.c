// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The calling thread's ring: where posix_trace_event() records without a
 * system call (the protocol is in <linux/posixtrace.h>).
 *
 * A thread maps its ring at its first event that some stream may record,
 * and unmaps it when it exits (a thread-specific key's destructor): the
 * module takes what it holds at the thread's exit whether or not it is
 * still mapped. Its size is POSIXTRACE_RING_SIZE from the environment (a
 * power of two, in bytes; 0 turns rings off), for good. Otherwise the
 * ring starts at a page and grows, sixteen times larger at a time, up to
 * its target: the size the enable page suggests (while one LOOP stream
 * traces the process: a ring that holds what the stream keeps, so that
 * the module drops the rest in place instead of copying it), else 64 KiB.
 * A thread that records a handful of events so pins a page, and one that
 * records many reaches its target within a few kicks.
 *
 * Growing is a larger mapping at POSIXTRACE_RING_GROW_OFFSET
 * (ptk_ring_grow()): the module moves what the ring holds to the new
 * pages, at the same positions, and the thread writes on where it was;
 * then it unmaps the old pages. A size that the user's RLIMIT_MEMLOCK
 * does not allow is tried smaller; a ring that can grow no more stays
 * the size it has.
 *
 * The data area is mapped once: a record that runs past the end is
 * written in two pieces (ptk_ring_write_split()).
 *
 * After fork() the child has no mapping (the module does not copy it), but
 * the forking thread's ptk_ring says it has: the generation tells. Each
 * process draws a random one (in local.c's page, which reads 0 in every
 * child) when it maps its first ring, and a ring is used only while its
 * generation is the process's.
 *
 * Whatever fails (no WIPEONFORK page, rings off, no
 * memory), the thread makes its events by system call.
 */

#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>

#include "internal.h"
#include "sys.h"

#define PTK_RING_DEFAULT_SIZE	(64 * 1024)
/*
 * How much larger a ring grows at a time: few growths (each a mapping and
 * a copy of the ring) on the way to a large target, 64 KiB then 1 MiB.
 */
#define PTK_RING_GROWTH		16
/* The module's own bound (max_ring_size): a hint above it is not one. */
#define PTK_RING_MAX_SIZE	(64 * 1024 * 1024)

PTK_HIDDEN __thread struct ptk_ring ptk_ring
	__attribute__((tls_model("initial-exec")));

static pthread_key_t ptk_ring_key;
static pthread_once_t ptk_ring_once = PTHREAD_ONCE_INIT;
static bool ptk_ring_key_made;
static size_t ptk_ring_size;
static bool ptk_ring_size_set;	/* by POSIXTRACE_RING_SIZE */

/* The thread exits: its ring goes (the module has taken, or takes, its records). */
static void ptk_ring_thread_exit(void *arg)
{
	struct ptk_ring *r = arg;
	struct ptk_local *local = ptk_local_get();

	if (r->state == PTK_RING_LIVE && local &&
	    r->generation == atomic_load(&local->ring_generation))
		ptk_sys_munmap((void *)r->ctl, r->map_len);
	/* Events made by later destructors go by system call. */
	r->state = PTK_RING_OFF;
}

static void ptk_ring_setup(void)
{
	const char *env = secure_getenv("POSIXTRACE_RING_SIZE");
	size_t page = ptk_page_size();
	char *end;
	unsigned long long size = PTK_RING_DEFAULT_SIZE;

	if (env && *env) {
		size = strtoull(env, &end, 0);
		ptk_ring_size_set = true;
		/* Not a power of two of at least a page: the default. */
		if (*end || (size && (size < page || (size & (size - 1))))) {
			size = PTK_RING_DEFAULT_SIZE;
			ptk_ring_size_set = false;
		}
	}
	ptk_ring_size = size;
	ptk_ring_key_made = !pthread_key_create(&ptk_ring_key,
						ptk_ring_thread_exit);
}

/* This process's generation of rings, drawn once. */
static uint64_t ptk_ring_generation(struct ptk_local *local)
{
	uint64_t gen = atomic_load(&local->ring_generation), fresh = 0;
	struct timespec ts;

	if (gen)
		return gen;
	while (!fresh) {
		if (getrandom(&fresh, sizeof(fresh), GRND_NONBLOCK) ==
		    (ssize_t)sizeof(fresh))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		fresh = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
			(uintptr_t)&fresh;
	}
	if (!atomic_compare_exchange_strong(&local->ring_generation, &gen,
					    fresh))
		return gen;
	return fresh;
}

/* Map a ring of @size data bytes on @fd, at @offset: new, or grown. */
static void *ptk_ring_mmap(int fd, size_t size, off_t offset, size_t *len)
{
	*len = ptk_page_size() + size;
	return ptk_sys_mmap(*len, PROT_READ | PROT_WRITE, fd, offset);
}

/* The size the enable page @ep suggests, if usable; else 0. */
static size_t ptk_ring_hint(const struct posixtrace_enable_page *ep)
{
	size_t hint = ep ? __atomic_load_n(&ep->ring_size, __ATOMIC_RELAXED)
			 : 0;

	if (hint < ptk_page_size() || (hint & (hint - 1)) ||
	    hint > PTK_RING_MAX_SIZE)
		return 0;
	return hint;
}

/* The size a ring may grow to, as @ep says now. */
static uint64_t ptk_ring_target(const struct posixtrace_enable_page *ep)
{
	size_t hint;

	if (ptk_ring_size_set)
		return ptk_ring_size;
	hint = ptk_ring_hint(ep);
	return hint ? hint : ptk_ring_size;
}

/*
 * Map a ring of @size data bytes on @fd and make it @r's, checked: a new
 * one, which the thread writes from position 0, or if @grow, @r's grown
 * (see <linux/posixtrace.h>), which it writes on where it was. Returns
 * false if nothing was mapped: @r is as it was.
 */
static bool ptk_ring_attach(struct ptk_ring *r, int fd, uint64_t size,
			    bool grow)
{
	struct posixtrace_ring_ctl *ctl;
	size_t len;
	void *p;

	p = ptk_ring_mmap(fd, size, grow ? POSIXTRACE_RING_GROW_OFFSET
					 : POSIXTRACE_RING_OFFSET, &len);
	if (p == MAP_FAILED)
		return false;
	ctl = p;
	/* Another ABI's ring (another magic) is not written to. */
	if (ctl->magic != POSIXTRACE_RING_MAGIC || ctl->data_size != size ||
	    ctl->data_offset != ptk_page_size() ||
	    ctl->grown_from != (grow ? r->size : 0)) {
		ptk_sys_munmap(p, len);
		/* The module moved the ring there: the old one is retired. */
		if (grow)
			r->state = PTK_RING_OFF;
		return false;
	}
	if (!grow) {
		r->head = 0;
		r->kicked = 0;
	}
	r->ctl = ctl;
	r->data = (uint8_t *)p + ptk_page_size();
	r->size = size;
	r->map_len = len;
	return true;
}

/*
 * Map a ring for the calling thread (@r is its ptk_ring) on @fd: the size
 * the environment says, else a page, to grow as the thread needs. Returns
 * true if it can record there now; otherwise the thread makes its events
 * by system call from now on.
 */
bool ptk_ring_map(struct ptk_ring *r, int fd,
		  const struct posixtrace_enable_page *ep)
{
	struct ptk_local *local = ptk_local_get();
	uint64_t target;

	/* First: a signal handler's event meanwhile must not come here again. */
	r->state = PTK_RING_OFF;
	pthread_once(&ptk_ring_once, ptk_ring_setup);
	if (!local || !ptk_ring_key_made || !ptk_ring_size)
		return false;
	target = ptk_ring_target(ep);
	if (!ptk_ring_attach(r, fd,
			     ptk_ring_size_set ? target : ptk_page_size(),
			     false))
		return false;
	if (pthread_setspecific(ptk_ring_key, r)) {
		ptk_sys_munmap((void *)r->ctl, r->map_len);
		return false;
	}
	r->target = target;
	r->tid = gettid();
	r->generation = ptk_ring_generation(local);
	r->wake = __atomic_load_n(&ep->wake, __ATOMIC_RELAXED);
	r->state = PTK_RING_LIVE;
	return true;
}

/*
 * Grow the calling thread's ring, short of its target (@ep's, as it says
 * now): PTK_RING_GROWTH times the size, or enough for an event of @len
 * data bytes if that is more, at most the target; smaller, down to twice
 * the size, if the user's RLIMIT_MEMLOCK does not allow that. Only the
 * thread that mapped the ring, between two of its writes, while it is
 * live: a vfork() child, or a CLONE_VM one on the same TLS, writes the
 * ring it found and never maps over it. Meanwhile the ring reads busy, so that
 * a signal handler's event goes by system call (which takes the ring's
 * records first, wherever they are). The larger ring is mapped before the
 * old is unmapped: if it cannot be, the thread keeps the ring it has and
 * grows no more. Returns true if the thread has a larger ring.
 */
bool ptk_ring_grow(struct ptk_ring *r, const struct posixtrace_enable_page *ep,
		   size_t len)
{
	struct posixtrace_ring_ctl *old_ctl = r->ctl;
	uint64_t old = r->size, size, target;
	size_t old_len = r->map_len;
	int fd;

	if (r->state != PTK_RING_LIVE || r->busy || old >= r->target ||
	    gettid() != r->tid || ptk_device_fd(&fd))
		return false;
	target = ptk_ring_target(ep);
	r->target = target;
	for (size = old * PTK_RING_GROWTH; size < target && len > size / 4;)
		size *= PTK_RING_GROWTH;
	if (size > target)
		size = target;
	if (size <= old)
		return false;
	r->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	/* A grown ring that fails its checks leaves the thread none. */
	for (; size > old && r->state == PTK_RING_LIVE; size /= 2) {
		if (ptk_ring_attach(r, fd, size, true)) {
			ptk_sys_munmap(old_ctl, old_len);
			atomic_signal_fence(memory_order_seq_cst);
			r->busy = 0;
			return true;
		}
	}
	/* The limit: what the thread has, for good. */
	r->target = old;
	atomic_signal_fence(memory_order_seq_cst);
	r->busy = 0;
	return false;
}

/*
 * A quarter of the ring written since the kernel was last asked: ask it
 * to take them. It drops at once, in this call, what the process's only
 * stream, a LOOP stream, would only overwrite; otherwise a worker takes
 * them and the call returns at once. A quarter, not a half: the worker
 * may take a while to start, and the thread must not find its ring full
 * meanwhile (it would then pay a system call per event until the worker
 * has run). When the kernel keeps the newest records in place, the ring
 * stays mostly full: the thread then asks each sixteenth. A ring short of
 * its target grows instead (ptk_ring_grow()): room at once, with no drain;
 * unless a reader began to wait (@wake), who wants the records now.
 */
void ptk_ring_kick(struct ptk_ring *r, const struct posixtrace_enable_page *ep,
		   bool wake)
{
	PTK_KEEP_ERRNO;
	int fd;

	if (r->size < r->target && ptk_ring_grow(r, ep, 0) && !wake)
		return;
	r->kicked = r->head;
	if (!ptk_device_fd(&fd))
		ptk_sys_ioctl(fd, POSIXTRACE_IOC_RING_DRAIN, NULL);
}
