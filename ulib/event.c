// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The instrumented application's side: name event types and record events.
 * Both act for the calling process through /dev/posixtrace; the kernel
 * knows which streams trace it.
 *
 * posix_trace_event() costs nothing when no stream would record the event
 * (none traces the process, none is running, or each running one filters
 * the type out): the module keeps, for each process, an enable page with
 * one bit per event type that some stream may record (<linux/posixtrace.h>),
 * and the call returns without a system call when the bit is clear. Only
 * types the process may make are ever set (the unnamed one and those it
 * opened): an identifier it never got records nothing, as the kernel
 * would ignore it.
 *
 * The mapping is the process's own: the module does not copy it into a
 * child (VM_DONTCOPY), which must map its own page. So the pointer to it
 * lives in the process-local page (local.c), which reads NULL in every
 * child, even one made by _Fork(). A NULL pointer sends the call down the
 * slow path, which maps the page; posix_trace_eventid_open() maps it too,
 * so that an instrumented program usually has it before its first event.
 *
 * When the module refuses the page for good, the pointer is set to
 * ptk_enable_all, whose bits are all set: every event goes to the kernel,
 * which judges it. Without MADV_WIPEONFORK (no local.c page) the same
 * holds, as no pointer could be trusted after fork().
 *
 * An event some stream may record goes into the thread's ring (ring.c)
 * when it has one: no system call. The system call remains for a thread
 * without a ring, data too large for a quarter of the ring, a full ring
 * (the module then takes the ring's records first, so the thread's events
 * keep their order), and a signal handler's event made while the thread
 * was writing one.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <posixtrace-k.h>

#include "internal.h"
#include "sys.h"

/* What posix_trace_event() may record: the unnamed type and opened ones. */
#define PTK_USER_IDS \
	(POSIXTRACE_EVENT_ID_MAX - POSIXTRACE_EVENT_UNNAMED_USER)

/* <trace.h>'s inline test reads the bits through this: see there. */
PTK_EXPORT const unsigned long long *const *posixtrace_k_enabled;
_Static_assert(POSIXTRACE_K_EVENT_IDS == POSIXTRACE_EVENT_ID_MAX,
	       "<trace.h> tests the bits of every identifier");

static const struct posixtrace_enable_page ptk_enable_all = {
	.magic = POSIXTRACE_ENABLE_MAGIC,
	.enabled = { [0 ... POSIXTRACE_EVENTSET_WORDS - 1] = ~0ULL },
};

static inline bool ptk_enabled(const struct posixtrace_enable_page *ep,
			       uint32_t id)
{
	/* The module writes each word whole, under our feet. */
	uint64_t word = __atomic_load_n(&ep->enabled[id / 64],
					__ATOMIC_RELAXED);

	return (word >> (id % 64)) & 1;
}

/*
 * Maps this process's enable page on fd, once: threads racing here keep
 * the first mapping. Returns the page to test, or NULL if there is none
 * for now (then the caller asks the kernel).
 */
static const struct posixtrace_enable_page *ptk_enable_map(int fd)
{
	struct ptk_local *local = ptk_local_get();
	const struct posixtrace_enable_page *cur, *ep;
	size_t size = ptk_page_size();
	void *p;

	if (!local)
		return NULL;
	cur = atomic_load_explicit(&local->enable, memory_order_acquire);
	if (cur)
		return cur;
	p = ptk_sys_mmap(size, PROT_READ, fd, POSIXTRACE_ENABLE_PAGE_OFFSET);
	if (p == MAP_FAILED) {
		/* Short of memory or map count: try again next time. */
		if (errno == ENOMEM || errno == EAGAIN)
			return NULL;
		/* Refused for good (ENODEV, EINVAL): ask the module always. */
		ep = &ptk_enable_all;
	} else if (((const struct posixtrace_enable_page *)p)->magic !=
		   POSIXTRACE_ENABLE_MAGIC) {
		ptk_sys_munmap(p, size);
		p = MAP_FAILED;
		ep = &ptk_enable_all;
	} else {
		ep = p;
	}
	if (!atomic_compare_exchange_strong_explicit(&local->enable, &cur, ep,
						     memory_order_acq_rel,
						     memory_order_acquire)) {
		if (p != MAP_FAILED)
			ptk_sys_munmap(p, size);
		return cur;	/* the thread that mapped it publishes it */
	}
	/* For <trace.h>: the page is mapped before its bits are seen. */
	__atomic_store_n(&local->enabled, ep->enabled, __ATOMIC_RELEASE);
	__atomic_store_n(&posixtrace_k_enabled,
			 (const unsigned long long *const *)&local->enabled,
			 __ATOMIC_RELEASE);
	return ep;
}

/*
 * posix_trace_eventid_open(), and posixtrace_k_eventid_open_format() with a
 * format.
 */
static int ptk_eventid_open(const char *event_name, const char *format,
			    trace_event_id_t *event_id)
{
	struct posixtrace_eventid req = {
		.size = sizeof(req),
		.name = (uintptr_t)event_name,
		.format = (uintptr_t)format,
	};
	int fd, err;

	if (!event_name || !event_id)
		return EINVAL;
	err = ptk_device_fd(&fd);
	if (err)
		return err;
	/* So that the first event finds the page mapped. */
	(void)ptk_enable_map(fd);
	/*
	 * ENAMETOOLONG past TRACE_EVENT_NAME_MAX comes from the kernel, and
	 * so do a format's errors: it checks the grammar.
	 */
	err = ptk_ioctl(fd, POSIXTRACE_IOC_EVENTID_OPEN, &req);
	if (err)
		return err;
	*event_id = (trace_event_id_t)req.event_id;
	return 0;
}

PTK_EXPORT int posix_trace_eventid_open(const char *restrict event_name,
					trace_event_id_t *restrict event_id)
{
	PTK_KEEP_ERRNO;

	return ptk_eventid_open(event_name, NULL, event_id);
}

PTK_EXPORT int posixtrace_k_eventid_open_format(const char *event_name,
						const char *format,
						trace_event_id_t *event)
{
	PTK_KEEP_ERRNO;

	return ptk_eventid_open(event_name, format, event);
}

/* Copy @n bytes to the data area at @off, on at its start past its end. */
static void ptk_ring_copy(const struct ptk_ring *r, uint64_t off,
			  const void *src, size_t n)
{
	size_t first;

	off &= r->size - 1;
	first = r->size - off;
	if (n <= first) {
		memcpy(r->data + off, src, n);
		return;
	}
	memcpy(r->data + off, src, first);
	memcpy(r->data, (const uint8_t *)src + first, n - first);
}

_Static_assert(offsetof(struct posixtrace_ring_record, commit) == 0,
	       "the commit word comes first: a record's start is never cut");

/*
 * A record that runs past the end of the data area goes on at its start,
 * so the header after the commit word and the data are written in pieces.
 * Every header field is naturally aligned and the area's end is a page's,
 * so no field is cut; the commit word, first, is the caller's to store,
 * last. Rare: at most once a lap.
 */
static __attribute__((noinline, cold)) void
ptk_ring_write_split(const struct ptk_ring *r, uint64_t off,
		     const struct posixtrace_ring_record *hdr,
		     const void *data, size_t len)
{
	ptk_ring_copy(r, off + sizeof(hdr->commit),
		      (const uint8_t *)hdr + sizeof(hdr->commit),
		      sizeof(*hdr) - sizeof(hdr->commit));
	if (len)
		ptk_ring_copy(r, off + sizeof(*hdr), data, len);
}

/*
 * Write the event into the calling thread's ring, if it has a live one of
 * this process, with room. Returns false if the caller must take the
 * system call. Async-signal-safe: a handler that interrupts a write finds
 * the ring busy.
 */
static inline bool ptk_ring_write(struct ptk_local *local,
				  const struct posixtrace_enable_page *ep,
				  uint32_t id, const void *data, size_t len,
				  const void *prog_address)
{
	struct ptk_ring *r = &ptk_ring;
	struct posixtrace_ring_record *rec;
	uint64_t size, consumed, pos, off, wake;
	struct timespec ts;

	if (r->state != PTK_RING_LIVE || r->busy || !local ||
	    r->generation != atomic_load_explicit(&local->ring_generation,
						  memory_order_relaxed) ||
	    len > r->size / 4 || (!data && len))
		return false;
	r->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	size = PTK_ROUND8(sizeof(*rec) + len);
	/* Pairs with the kernel's release once it has taken the records. */
	consumed = __atomic_load_n(&r->ctl->consumed, __ATOMIC_ACQUIRE);
	if (r->head + size - consumed > r->size ||
	    __atomic_load_n(&r->ctl->state, __ATOMIC_RELAXED) !=
	    POSIXTRACE_RING_LIVE) {
		atomic_signal_fence(memory_order_seq_cst);
		r->busy = 0;
		return false;
	}
	pos = r->head;
	off = pos & (r->size - 1);
	rec = (struct posixtrace_ring_record *)(r->data + off);
	clock_gettime(CLOCK_REALTIME, &ts);
	if (__builtin_expect(off + size > r->size, 0)) {
		struct posixtrace_ring_record hdr = {
			.size = (uint32_t)size,
			.event_id = id,
			.ts_sec = ts.tv_sec,
			.ts_nsec = (uint32_t)ts.tv_nsec,
			.data_len = (uint32_t)len,
			.prog_address = (uintptr_t)prog_address,
			.thread = (uintptr_t)pthread_self(),
		};

		ptk_ring_write_split(r, off, &hdr, data, len);
	} else {
		/*
		 * In place, field by field: building the header once for
		 * both paths and copying it in costs a copy of the header
		 * an event more (make bench-host's loop shows it).
		 */
		rec->size = (uint32_t)size;
		rec->event_id = id;
		rec->ts_sec = ts.tv_sec;
		rec->ts_nsec = (uint32_t)ts.tv_nsec;
		rec->data_len = (uint32_t)len;
		rec->prog_address = (uintptr_t)prog_address;
		rec->thread = (uintptr_t)pthread_self();
		if (len)
			memcpy(rec + 1, data, len);
	}
	/*
	 * The next record's commit word may hold old event data, which could
	 * read as ~(its position): make it 0 while that space is free (when
	 * it is not, it holds an unconsumed record's own commit, which never
	 * names this position). Before our commit, so the kernel never sees
	 * ours without it.
	 */
	if (pos + size - consumed + sizeof(uint64_t) <= r->size)
		__atomic_store_n((uint64_t *)(r->data +
					      ((pos + size) & (r->size - 1))),
				 0, __ATOMIC_RELAXED);
	/* With release: the kernel takes the record once it sees this. */
	__atomic_store_n(&rec->commit, ~pos, __ATOMIC_RELEASE);
	r->head = pos + size;
	/* Last, with release: the commit before it. */
	__atomic_store_n(&r->ctl->produced, r->head, __ATOMIC_RELEASE);
	atomic_signal_fence(memory_order_seq_cst);
	r->busy = 0;
	/*
	 * A quarter written since the last kick; or, when less than a quarter
	 * is free (the kernel kept the newest records in place), a sixteenth;
	 * or a reader began to wait since we last looked (the page's wake):
	 * it gets this record now, not at the kernel's timer.
	 */
	wake = __atomic_load_n(&ep->wake, __ATOMIC_RELAXED);
	if (r->head - r->kicked >= r->size / 4 ||
	    (r->head - consumed > r->size - r->size / 4 &&
	     r->head - r->kicked >= r->size / 16) ||
	    __builtin_expect(wake != r->wake, 0)) {
		ptk_ring_kick(r, ep, wake != r->wake);
		r->wake = wake;
	}
	return true;
}

/*
 * posix_trace_event() when the enable page says a stream may record the
 * event, or when there is no page to ask (ep NULL): map it if we can, then
 * the thread's ring if it has none yet, else ask the kernel.
 */
static __attribute__((noinline)) void
ptk_event_slow(const struct posixtrace_enable_page *ep, uint32_t id,
	       const void *data_ptr, size_t data_len, const void *prog_address)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_event req = {
		.size = sizeof(req),
		.event_id = id,
		/* Longer data is truncated to max-data-size anyway. */
		.data_len = data_len > UINT32_MAX ? UINT32_MAX
						  : (__u32)data_len,
		.data = (uintptr_t)data_ptr,
		.prog_address = (uintptr_t)prog_address,
		.thread = (uintptr_t)pthread_self(),
	};
	int fd;

	struct ptk_local *local;

	if (ptk_device_fd_throttled(&fd))
		return;
	if (!ep) {
		ep = ptk_enable_map(fd);
		if (ep && !ptk_enabled(ep, id))
			return;
	}
	local = atomic_load_explicit(&ptk_local, memory_order_acquire);
	/* The forking thread's ring, seen from the child: not ours. */
	if (ptk_ring.state == PTK_RING_LIVE && local &&
	    ptk_ring.generation != atomic_load(&local->ring_generation))
		ptk_ring.state = PTK_RING_NONE;
	/* With the enable page only: without it, no ring could be trusted. */
	if (ptk_ring.state == PTK_RING_NONE && ep && ep != &ptk_enable_all &&
	    !ptk_ring.busy && ptk_ring_map(&ptk_ring, fd, ep) &&
	    ptk_ring_write(local, ep, id, data_ptr, data_len, prog_address))
		return;
	/* Full, or the event too large for it: a larger ring, if it may. */
	if (ptk_ring.state == PTK_RING_LIVE && ep && ep != &ptk_enable_all &&
	    ptk_ring_grow(&ptk_ring, ep, data_len) &&
	    ptk_ring_write(local, ep, id, data_ptr, data_len, prog_address))
		return;
	/*
	 * A thread that writes no ring says so: the module may keep the
	 * event per CPU, without the stream's lock, and need not take every
	 * ring's records first.
	 */
	if (ptk_ring.state != PTK_RING_LIVE)
		req.flags = POSIXTRACE_EVENT_RINGLESS;
	(void)ptk_ioctl(fd, POSIXTRACE_IOC_EVENT, &req);
}

/*
 * A stream may record the event (or there is no enable page to ask):
 * into the thread's ring, else by system call. Out of line, so that
 * posix_trace_event() saves no register and builds no frame on the way
 * out when no stream records the event: it reaches here by a tail call.
 */
static __attribute__((noinline)) void
ptk_event_record(struct ptk_local *local,
		 const struct posixtrace_enable_page *ep, uint32_t id,
		 const void *data_ptr, size_t data_len,
		 const void *prog_address)
{
	if (ep && ptk_ring_write(local, ep, id, data_ptr, data_len,
				 prog_address))
		return;
	ptk_event_slow(ep, id, data_ptr, data_len, prog_address);
}

/*
 * POSIX gives posix_trace_event() no way to fail: without the module, a
 * stream, or a valid event_id, it has no effect. Safe from any thread.
 * The fast path touches no errno and takes no lock: a range check, two
 * loads to find the page, one to read the bit, and no frame; then, to
 * record, a write into the thread's ring. noinline keeps
 * __builtin_return_address(0) the caller's address.
 */
PTK_EXPORT __attribute__((noinline)) void
(posix_trace_event)(trace_event_id_t event_id, const void *restrict data_ptr,
		    size_t data_len)
{
	uint32_t id = (uint32_t)event_id;
	const struct posixtrace_enable_page *ep;
	struct ptk_local *local;

	/* System types, negative or unknown ids: the kernel would refuse. */
	if (id - POSIXTRACE_EVENT_UNNAMED_USER >= PTK_USER_IDS)
		return;
	local = atomic_load_explicit(&ptk_local, memory_order_acquire);
	ep = local ? atomic_load_explicit(&local->enable,
					  memory_order_acquire) : NULL;
	if (ep && !ptk_enabled(ep, id))
		return;
	ptk_event_record(local, ep, id, data_ptr, data_len,
			 __builtin_return_address(0));
}
