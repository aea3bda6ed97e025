// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading events: posix_trace_getnext_event() and its try and timed forms.
 *
 * One GETNEXT takes as many whole records as fit into a batch (struct
 * posixtrace_record, then the data, padded to 8 bytes); we report them
 * one per call and go back to the kernel only when the batch is used up.
 * An event in the batch is "immediately available": the timed form never
 * times out while there is one.
 *
 * Several threads may read one trid. The reader that finds the buffer empty
 * becomes the fetcher: it marks the stream fetching, drops the lock and
 * calls the kernel, so that the lock is never held across a wait. The
 * buffer is the fetcher's until it takes the lock back. Meanwhile the other
 * readers wait for it (the try form does not: it reports nothing
 * available, since the stream was empty when the fetcher asked), then look
 * again.
 *
 * Those readers are blocked in getnext just as the fetcher is, so a signal
 * must interrupt them too ([EINTR]). They therefore wait in the futex
 * system call itself, on s->wake_seq, not in a condition variable (which
 * never fails with EINTR): the fetcher bumps the word under the lock when
 * its fetch ends, and wakes them. A waiter reads the word under the lock
 * before dropping it, so a wakeup between the two finds the word changed
 * and is never lost. As for the fetcher in the kernel, a handler with
 * SA_RESTART restarts the wait of getnext, one without makes it fail with
 * EINTR. The timed wait is an absolute CLOCK_REALTIME futex wait, which
 * the kernel does not restart after a handler: timedgetnext behind another
 * reader fails with EINTR after any handler, SA_RESTART or not.
 *
 * What one event costs. Most calls find an event in the batch: they
 * find the stream without the table lock (ptk_stream_lock(), trid.c says
 * why that is safe), take the stream's lock, report the event and unlock.
 * That lock and unlock are the only atomic read-modify-write operations of
 * such a call (the table lock and a reference taken and dropped made them
 * six), and nothing there is a cancellation point, so no cleanup handler
 * (a setjmp) is pushed either, nor is errno saved (only the lock's slow
 * ways make system calls, and they keep it); the way is inlined in each
 * function (ptk_getnext()), the rest is out of line (ptk_getnext_slow()).
 * The record's fields are read where the kernel put them, and a few bytes
 * of data are copied inline. Only a reader that must drop the lock (to
 * fetch, or to wait for a fetcher) takes a reference first and pushes its
 * cleanup handlers: once a batch, not once an event. While the lock is
 * held, s->trid == trid and !s->dead say the stream is trid's and not
 * shut down; a reader holding a reference needs only look at s->dead
 * again after each wait (the object cannot be reused meanwhile).
 *
 * Where the batch is. The first GETNEXT copies its batch to s->buf and
 * says how large the stream's batch buffer in the kernel is; we map that
 * buffer (read-only) and ask for every later batch to be left there
 * (GETNEXT_MAPPED): it stays as it is until our next GETNEXT, which only
 * the fetcher makes once the batch is used up. s->cur is where the
 * current batch is. If the mapping fails we go on with copies.
 *
 * Under QEMU's TCG an atomic costs about as much as any few instructions:
 * what counts is the number of instructions a call, which copying the
 * header out first, or a pthread_mutex_t, would add to. The kernel's
 * GETNEXT is shared by the events of a batch, which it copies out whole,
 * not a record at a time.
 *
 * Trace logs (TRL):
 *  - An active stream with a log (posix_trace_create_withlog()) is not
 *    read here: its events go to the log, which posix_trace_open() reads.
 *    POSIX leaves getnext and trygetnext on such a stream unspecified;
 *    the three functions are EINVAL, as the module's GETNEXT is.
 *  - On a pre-recorded stream (a log trid) getnext reports the log's
 *    events in order (log.c) and never blocks: at the end it succeeds
 *    with *unavailable != 0. timedgetnext, "unspecified" there, does the
 *    same: it neither waits nor times out, and abstime is not looked at.
 *    trygetnext is EINVAL, as POSIX says.
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/futex.h>

#include <posixtrace-k.h>

#include "internal.h"
#include "sys.h"

enum ptk_wait {
	PTK_BLOCK,
	PTK_TRY,
	PTK_TIMED,
};

/* ptk_fetch()'s results besides an error number. */
#define PTK_FETCHED	0
#define PTK_NOTHING	(-1)	/* no event: not an error */
#define PTK_AGAIN	(-2)	/* the buffer grew: ask again */

/*
 * Copies @n bytes of an event's data. Most events carry a few bytes (an
 * int, a pointer, a pair): those are copied inline, with overlapping
 * moves of 8 or 4 bytes that never write past @n, not by a call.
 */
static inline __attribute__((always_inline)) void ptk_copy_data(
	unsigned char *dst, const unsigned char *src, size_t n)
{
	if (n > 16) {
		memcpy(dst, src, n);
	} else if (n >= 8) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n >= 4) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			dst[i] = src[i];
	}
}

/*
 * Reports the record at s->pos. Called with s->lock held and pos < len.
 * Inlined: it is most of the work of most calls. The batch is the
 * kernel's, whole records 8-aligned (in our buffer or our mapping of the
 * stream's), and nothing changes it before our next GETNEXT: its fields
 * are read where they are, each once.
 */
static inline __attribute__((always_inline)) int ptk_report(
	struct ptk_stream *s, const struct ptk_out *o)
{
	const struct posixtrace_record *rec;
	uint32_t left = s->len - s->pos, size, data_len;
	struct posix_trace_event_info *ev = o->event;
	size_t n;

	if (left < sizeof(*rec))
		goto corrupt;
	rec = (const void *)(s->cur + s->pos);
	size = rec->size;
	data_len = rec->data_len;
	if (size < sizeof(*rec) || size > left ||
	    data_len > size - sizeof(*rec))
		goto corrupt;

	ev->posix_event_id = (trace_event_id_t)rec->event_id;
	ev->posix_pid = rec->pid;
	ev->posix_prog_address = (void *)(uintptr_t)rec->prog_address;
	ev->posix_thread_id = (pthread_t)(uintptr_t)rec->thread;
	ev->posix_timestamp.tv_sec = (time_t)rec->ts_sec;
	ev->posix_timestamp.tv_nsec = (long)rec->ts_nsec;
	ev->posix_truncation_status = (int)rec->truncation;

	n = data_len;
	if (o->num_bytes < n) {
		/* Overrides POSIX_TRACE_TRUNCATED_RECORD, as POSIX says. */
		ev->posix_truncation_status = POSIX_TRACE_TRUNCATED_READ;
		n = o->num_bytes;
	}
	ptk_copy_data(o->data, (const unsigned char *)(rec + 1), n);
	*o->data_len = n;
	*o->unavailable = 0;
	s->pos += size;
	s->seq = rec->seq;
	s->tid = rec->tid;
	s->seq_valid = true;
	return 0;

corrupt:
	/* Not a record layout we know: drop the batch rather than guess. */
	s->pos = s->len;
	return EIO;
}

/*
 * The buffer, sized for the largest record of the stream, was too small for
 * the oldest record: the module's idea of that size differs from ours. Grow
 * it and retry, within reason.
 */
#define PTK_BATCH_GROW_MAX	(16u * 1024 * 1024)

static int ptk_grow(struct ptk_stream *s)
{
	unsigned char *buf;
	uint32_t size;

	if (s->buf_size >= PTK_BATCH_GROW_MAX)
		return EIO;
	size = 2 * s->buf_size;
	buf = realloc(s->buf, size);
	if (!buf)
		return ENOMEM;
	s->buf = buf;
	s->buf_size = size;
	return PTK_AGAIN;
}

/*
 * Tells the readers waiting for a fetch to look again. Called with s->lock
 * held, by a fetcher done with the kernel and at shutdown.
 */
void ptk_stream_wake(struct ptk_stream *s)
{
	atomic_fetch_add_explicit(&s->wake_seq, 1, memory_order_relaxed);
	if (s->waiters)
		syscall(PTK_SYS_FUTEX, &s->wake_seq, FUTEX_WAKE_PRIVATE,
			INT_MAX, NULL, NULL, 0);
}

/*
 * A fetcher cancelled in the kernel gives the buffer up, and takes the lock
 * back for the caller's handler (ptk_unlock_put()), as a cancelled
 * condition wait would.
 */
static void ptk_fetch_cancelled(void *arg)
{
	struct ptk_stream *s = arg;

	ptk_lock(&s->lock);
	s->fetching = false;
	ptk_stream_wake(s);
}

/* The same for a reader cancelled while waiting for a fetcher. */
static void ptk_wait_cancelled(void *arg)
{
	struct ptk_stream *s = arg;

	ptk_lock(&s->lock);
	s->waiters--;
}

/*
 * Waits, with s->lock dropped, until the fetcher in progress is done, the
 * stream is shut down, a signal arrives or abstime (if not NULL) passes.
 * Returns 0 (look again), EINTR, ETIMEDOUT or EINVAL (abstime).
 */
static int ptk_wait(struct ptk_stream *s, const struct timespec *abstime)
{
	uint32_t seq;
	long ret;
	int err, cancel_type;

	if (abstime) {
		/* The kernel refuses what is not a valid time: check first. */
		if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L)
			return EINVAL;
		if (abstime->tv_sec < 0)
			return ETIMEDOUT;	/* before 1970: passed */
	}
	seq = atomic_load_explicit(&s->wake_seq, memory_order_relaxed);
	s->waiters++;
	ptk_unlock(&s->lock);
	/*
	 * A cancellation point, like the condition wait it replaces: a raw
	 * system call is one only with asynchronous cancellation, which is
	 * on for the system call alone (the lock is not held meanwhile).
	 */
	pthread_cleanup_push(ptk_wait_cancelled, s);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &cancel_type);
	if (abstime)
		ret = syscall(PTK_SYS_FUTEX, &s->wake_seq,
			      FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME,
			      seq, abstime, NULL, FUTEX_BITSET_MATCH_ANY);
	else
		ret = syscall(PTK_SYS_FUTEX, &s->wake_seq, FUTEX_WAIT_PRIVATE,
			      seq, NULL, NULL, 0);
	err = ret < 0 ? errno : 0;
	pthread_setcanceltype(cancel_type, NULL);
	pthread_cleanup_pop(0);
	ptk_lock(&s->lock);
	s->waiters--;
	/* Woken, or the word moved before we slept: look again. */
	return err == EAGAIN ? 0 : err;
}

/*
 * Maps the stream's batch buffer, once GETNEXT said its size: later
 * batches are read there, not copied to us. Called by the fetcher, with
 * the lock dropped (the mapping is the fetcher's, as the buffer). Failing,
 * we go on with copies.
 */
static void ptk_map(struct ptk_stream *s, const struct posixtrace_getnext *req)
{
	void *map;

	if (s->map_tried || !req->map_size || req->map_size > UINT32_MAX)
		return;
	s->map_tried = true;
	map = ptk_sys_mmap(req->map_size, PROT_READ, s->fd, 0);
	if (map == MAP_FAILED)
		return;
	s->map = map;
	s->map_size = req->map_size;
}

/* Where the batch GETNEXT returned is: NULL if nowhere we can read. */
static const unsigned char *ptk_batch(const struct ptk_stream *s,
				      const struct posixtrace_getnext *req)
{
	if (req->map_offset == POSIXTRACE_GETNEXT_IN_BUF)
		return req->bytes <= s->buf_size ? s->buf : NULL;
	if (!s->map || req->map_offset > s->map_size ||
	    req->bytes > s->map_size - req->map_offset)
		return NULL;
	return s->map + req->map_offset;
}

/*
 * Refills the empty buffer from the kernel. Called with s->lock held and
 * no fetch in progress; drops the lock for the ioctl.
 */
static int ptk_fetch(struct ptk_stream *s, enum ptk_wait how,
		     const struct timespec *abstime)
{
	struct posixtrace_getnext req = {
		.size = sizeof(req),
		.buf = (uintptr_t)s->buf,
		.buf_size = s->buf_size,
	};
	int err;

	const unsigned char *batch;

	if (how == PTK_TRY) {
		req.flags = POSIXTRACE_GETNEXT_NONBLOCK;
	} else if (how == PTK_TIMED) {
		req.flags = POSIXTRACE_GETNEXT_TIMED;
		req.timeout_sec = abstime->tv_sec;
		/*
		 * Out of range stays out of range in __u32, so that the
		 * kernel says EINVAL if, and only if, it would wait.
		 */
		req.timeout_nsec = abstime->tv_nsec >= 0 &&
				   abstime->tv_nsec < 1000000000L ?
				   (__u32)abstime->tv_nsec : UINT32_MAX;
	}

	if (s->map)
		req.flags |= POSIXTRACE_GETNEXT_MAPPED;
	s->fetching = true;
	ptk_unlock(&s->lock);
	/* ioctl() may be a cancellation point: see ptk_fetch_cancelled(). */
	pthread_cleanup_push(ptk_fetch_cancelled, s);
	/* POSIX wants EINTR back from the blocking forms; try never blocks. */
	if (how == PTK_TRY)
		err = ptk_ioctl(s->fd, POSIXTRACE_IOC_GETNEXT, &req);
	else
		err = ptk_ioctl_once(s->fd, POSIXTRACE_IOC_GETNEXT, &req);
	pthread_cleanup_pop(0);
	if (!err)
		ptk_map(s, &req);
	ptk_lock(&s->lock);
	s->fetching = false;
	ptk_stream_wake(s);

	if (err == ENOSPC)
		return ptk_grow(s);
	if (err == EBADF || err == ENOTTY)
		return EINVAL;
	if (err)
		return err;
	if (!req.count)
		return PTK_NOTHING;
	batch = ptk_batch(s, &req);
	if (!batch)
		return EIO;
	s->cur = batch;
	s->pos = 0;
	s->len = req.bytes;
	return PTK_FETCHED;
}

/*
 * Called with s->lock held and a reference to s, which therefore stays
 * trid's (trid.c) while the lock is dropped: only dead can change.
 */
static int ptk_next(struct ptk_stream *s, const struct ptk_out *o,
		    enum ptk_wait how, const struct timespec *abstime)
{
	bool timed_out = false;
	int err;

	/* Its events go to its log: see the top of the file. */
	if (s->has_log)
		return EINVAL;
	for (;;) {
		if (s->dead)
			return EINVAL;
		if (s->pos < s->len)
			return ptk_report(s, o);
		if (!s->fetching) {
			err = ptk_fetch(s, how, abstime);
			if (err == PTK_NOTHING)
				break;
			if (err > 0)
				return err;
			/* Fetched or grew: look again (another may be dead). */
			continue;
		}
		/* Another reader is in the kernel and owns the buffer. */
		if (how == PTK_TRY)
			break;
		if (timed_out)
			return ETIMEDOUT;
		err = ptk_wait(s, how == PTK_TIMED ? abstime : NULL);
		if (err == ETIMEDOUT)
			timed_out = true;	/* one more look first */
		else if (err)
			return err;		/* EINTR; EINVAL: abstime */
	}
	/* Nothing available (try, or a suspended stream): not an error. */
	*o->data_len = 0;
	*o->unavailable = 1;
	return 0;
}

static void ptk_unlock_put(void *arg)
{
	struct ptk_stream *s = arg;

	ptk_unlock(&s->lock);
	ptk_stream_put(s);
}

/*
 * Everything but an event served from the buffer by ptk_getnext(). s: the
 * stream ptk_stream_lock() found, locked, without a reference; or NULL,
 * and the table decides (a log, a child's first call, EINVAL, or a stream
 * after all).
 */
static __attribute__((noinline)) int ptk_getnext_slow(
	trace_id_t trid, struct ptk_stream *s, const struct ptk_out *o,
	enum ptk_wait how, const struct timespec *abstime)
{
	PTK_KEEP_ERRNO;
	struct ptk_log *l = NULL;
	int err;

	if (s) {
		/*
		 * ptk_next() may drop the lock: a reference keeps fd and buf
		 * (the table's is there: ptk_stream_lock() found s live).
		 */
		ptk_stream_hold(s);
	} else {
		/* trygetnext is for active streams only (POSIX). */
		err = how == PTK_TRY ? ptk_stream_get(trid, &s)
				     : ptk_trid_get(trid, &s, &l);
		if (err)
			return err;
		if (l) {
			err = ptk_log_getnext(l, o);
			ptk_log_put(l);
			return err;
		}
		ptk_lock(&s->lock);
	}
	if (how == PTK_TIMED && !abstime) {
		ptk_unlock_put(s);
		return EINVAL;
	}
	/* The waits are cancellation points: leave nothing held. */
	pthread_cleanup_push(ptk_unlock_put, s);
	err = ptk_next(s, o, how, abstime);
	pthread_cleanup_pop(1);
	return err;
}

/*
 * Inlined in each of the three functions, so that the way of most calls
 * (see the top of the file) is short: find the stream locked, report the
 * event at pos, unlock. No cancellation point, no reference; s is live
 * (ptk_stream_lock()), and a stream with a log has nothing in its buffer.
 */
static inline __attribute__((always_inline)) int ptk_getnext(
	trace_id_t trid, const struct ptk_out *o, enum ptk_wait how,
	const struct timespec *abstime)
{
	struct ptk_stream *s;
	int err;

	if (!o->event || !o->data_len || !o->unavailable ||
	    (!o->data && o->num_bytes))
		return EINVAL;
	s = ptk_stream_lock(trid);
	if (s && s->pos < s->len && (how != PTK_TIMED || abstime)) {
		err = ptk_report(s, o);
		ptk_unlock(&s->lock);
		return err;
	}
	return ptk_getnext_slow(trid, s, o, how, abstime);
}

PTK_EXPORT int posix_trace_getnext_event(
	trace_id_t trid, struct posix_trace_event_info *restrict event,
	void *restrict data, size_t num_bytes, size_t *restrict data_len,
	int *restrict unavailable)
{
	struct ptk_out o = { event, data, num_bytes, data_len, unavailable };

	return ptk_getnext(trid, &o, PTK_BLOCK, NULL);
}

PTK_EXPORT int posix_trace_trygetnext_event(
	trace_id_t trid, struct posix_trace_event_info *restrict event,
	void *restrict data, size_t num_bytes, size_t *restrict data_len,
	int *restrict unavailable)
{
	struct ptk_out o = { event, data, num_bytes, data_len, unavailable };

	return ptk_getnext(trid, &o, PTK_TRY, NULL);
}

PTK_EXPORT int posix_trace_timedgetnext_event(
	trace_id_t trid, struct posix_trace_event_info *restrict event,
	void *restrict data, size_t num_bytes, size_t *restrict data_len,
	int *restrict unavailable, const struct timespec *restrict abstime)
{
	struct ptk_out o = { event, data, num_bytes, data_len, unavailable };

	return ptk_getnext(trid, &o, PTK_TIMED, abstime);
}

/* Called with s->lock held; drops it. */
static int ptk_stream_ids(struct ptk_stream *s, uint64_t *seq, pid_t *tid)
{
	int err = s->seq_valid ? 0 : EINVAL;

	if (!err && seq)
		*seq = s->seq;
	if (!err && tid)
		*tid = s->tid;
	ptk_unlock(&s->lock);
	return err;
}

/*
 * What the record of the last event getnext reported on trid says. Read
 * after each event: the readers' way in first, as getnext.
 */
static int ptk_event_ids(trace_id_t trid, uint64_t *seq, pid_t *tid)
{
	struct ptk_stream *s;
	struct ptk_ref ref;
	int err;

	s = ptk_stream_lock(trid);
	if (s)
		return ptk_stream_ids(s, seq, tid);
	err = ptk_ref_get(trid, &ref);
	if (err)
		return err;
	if (ref.log) {
		err = ptk_log_event_seq(ref.log, seq, tid);
	} else {
		ptk_lock(&ref.stream->lock);
		err = ptk_stream_ids(ref.stream, seq, tid);
	}
	ptk_ref_put(&ref);
	return err;
}

/* See <posixtrace-k.h>. */
PTK_EXPORT int posixtrace_k_event_seq(trace_id_t trid, uint64_t *seq)
{
	PTK_KEEP_ERRNO;

	return seq ? ptk_event_ids(trid, seq, NULL) : EINVAL;
}

/* See <posixtrace-k.h>. */
PTK_EXPORT int posixtrace_k_event_tid(trace_id_t trid, pid_t *tid)
{
	PTK_KEEP_ERRNO;

	return tid ? ptk_event_ids(trid, NULL, tid) : EINVAL;
}
