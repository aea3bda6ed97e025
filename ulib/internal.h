/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef _POSIXTRACE_K_INTERNAL_H
#define _POSIXTRACE_K_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/posixtrace.h>
#include <trace.h>

#include "lock.h"

/* Symbols are hidden by default (-fvisibility=hidden); the map decides too. */
#define PTK_EXPORT __attribute__((visibility("default")))
/* -fvisibility does not reach extern declarations: no GOT for these. */
#define PTK_HIDDEN __attribute__((visibility("hidden")))

/*
 * errno is not our channel, and POSIX callers do not expect it to move:
 * every public function starts with PTK_KEEP_ERRNO, which puts errno back
 * on every return path.
 */
static inline void ptk_restore_errno(const int *saved)
{
	errno = *saved;
}

#define PTK_KEEP_ERRNO \
	int ptk_saved_errno_ \
		__attribute__((cleanup(ptk_restore_errno), unused)) = errno

#define PTK_ROUND8(x)	(((x) + 7) & ~(uint64_t)7)

/* The record layout the kernel uses (struct posixtrace_record + data). */
#define PTK_RECORD_SIZE		((uint64_t)sizeof(struct posixtrace_record))
/*
 * System events carry at most this much data: FILTER's old and new
 * filters (TEF). START carries one filter; ERROR and STOP an int.
 */
#define PTK_SYSTEM_DATA_MAX	(2 * sizeof(struct posixtrace_eventset))
#define PTK_SYSTEM_EVENT_SIZE	(PTK_RECORD_SIZE + PTK_SYSTEM_DATA_MAX)
/* A record's size must fit its __u32 size field. */
#define PTK_MAX_DATA_SIZE	(UINT32_MAX - 7 - PTK_RECORD_SIZE)

/*
 * local.c: what belongs to this process, not to its children. The members
 * read 0 in every child until it sets them again.
 */
struct ptk_local {
	uint32_t table_owner;	/* trid.c: this process owns the trid table */
	/* event.c: the enable page as this process mapped it, or NULL. */
	const struct posixtrace_enable_page *_Atomic enable;
	/*
	 * event.c: its bits, once @enable is set, for <trace.h>'s inline
	 * test (posixtrace_k_enabled points here). Plain: read with
	 * __atomic builtins, as <trace.h> reads it.
	 */
	const unsigned long long *enabled;	/* __u64, as the page */
	/* ring.c: a random number for this process's rings, 0 in a child. */
	_Atomic uint64_t ring_generation;
};

/* format.c: is format well formed (as the kernel checks it)? */
bool ptk_format_ok(const char *format);

/* NULL until ptk_local_get(); see there. */
extern PTK_HIDDEN struct ptk_local *_Atomic ptk_local;
struct ptk_local *ptk_local_get(void);
size_t ptk_page_size(void);

/*
 * ring.c: the calling thread's ring (<linux/posixtrace.h>). Only its
 * thread touches it; @busy keeps a signal handler's event out of a record
 * being written.
 */
struct ptk_ring {
	uint8_t *data;			/* the data area */
	struct posixtrace_ring_ctl *ctl;
	uint64_t head;			/* where the next record goes */
	uint64_t size;			/* of the data area */
	uint64_t kicked;		/* head when the kernel was last asked */
	uint64_t generation;		/* ptk_local's when mapped */
	uint64_t wake;			/* the enable page's wake, last seen */
	uint64_t target;		/* the size it may grow to */
	size_t map_len;
	pid_t tid;			/* the thread that mapped it */
	uint8_t state;			/* PTK_RING_* */
	uint8_t busy;
};

#define PTK_RING_NONE	0	/* not mapped yet: try at the next event */
#define PTK_RING_LIVE	1
#define PTK_RING_OFF	2	/* system calls for this thread, for good */

extern PTK_HIDDEN __thread struct ptk_ring ptk_ring
	__attribute__((tls_model("initial-exec")));
bool ptk_ring_map(struct ptk_ring *r, int fd,
		  const struct posixtrace_enable_page *ep);
bool ptk_ring_grow(struct ptk_ring *r, const struct posixtrace_enable_page *ep,
		   size_t len);
void ptk_ring_kick(struct ptk_ring *r, const struct posixtrace_enable_page *ep,
		   bool wake);

/* device.c */
/* The device, opened once; the module's ABI checked then (version.c). */
#define PTK_DEVICE_PATH "/dev/posixtrace"
int ptk_device_fd(int *fd);
int ptk_device_fd_throttled(int *fd);
int ptk_ioctl(int fd, unsigned long cmd, void *arg);
int ptk_abi_check(int fd);
int ptk_ioctl_once(int fd, unsigned long cmd, void *arg);
int ptk_ioctl_ret(int fd, unsigned long cmd, void *arg, int *ret);

/* abi.c: trace_attr_t <-> struct posixtrace_attr. */
#define PTK_ATTR_MAGIC		0x6b617474u	/* "ttak" */
#define PTK_ATTR_DESTROYED	0xdeadbeefu
/* __flags */
#define PTK_ATTR_HAS_CREATE_TIME	(1u << 0)	/* from get_attr */
#define PTK_ATTR_STREAM_POLICY_SET	(1u << 1)	/* see attr.c */
#define PTK_ATTR_HAS_CLOCK_RES		(1u << 2)	/* from a log's get_attr */

void ptk_attr_defaults(trace_attr_t *attr);
bool ptk_attr_valid(const trace_attr_t *attr);
void ptk_attr_to_uapi(const trace_attr_t *attr, struct posixtrace_attr *u);
void ptk_attr_from_uapi(const struct posixtrace_attr *u, trace_attr_t *attr);
struct posixtrace_log_attr;
void ptk_attr_from_log(const struct posixtrace_log_attr *a,
		       trace_attr_t *attr);

/*
 * A stream as this process sees it: what a trace_id_t stands for.
 *
 * Type-stable: a struct ptk_stream is never freed. Released, it goes to a
 * free list (trid.c) and comes back for a later stream; its lock is
 * initialised once and never destroyed. So a reader that found it through
 * the table without the table lock may always lock it, then check that it
 * still belongs to the trid and is not shut down (@trid, @dead, under the
 * lock): see trid.c's top comment for the argument.
 *
 * Reference counter. We keep one for:
 *  - the table slot, from posix_trace_create() until posix_trace_shutdown()
 *    unlinks it;
 *  - each call in progress on the trid that drops the lock or holds the
 *    stream without it (ptk_stream_get() .. _put(); a getnext that goes to
 *    the kernel or waits). A getnext served from the batch buffer holds
 *    the lock throughout and takes none.
 * The last put closes fd, frees buf and releases the object, so a thread
 * still blocked in the kernel on fd never sees it closed or freed under it.
 */
struct ptk_stream {
	int fd;
	atomic_uint refs;
	/*
	 * Made by posix_trace_create_withlog(): its events go to the log,
	 * and the getnext functions are EINVAL (see getnext.c). Such a
	 * stream has no batch buffer.
	 */
	bool has_log;

	/*
	 * A futex word, bumped under the lock whenever readers waiting for
	 * a fetch should look again: a fetch ended (or was cancelled), or
	 * the stream was shut down. See ptk_stream_wake(), getnext.c.
	 */
	_Atomic uint32_t wake_seq;

	/* trid.c's free list, under its table lock. */
	struct ptk_stream *free_next;

	/*
	 * The lock protects everything below (and fd, has_log, at setup).
	 * lock.h says why it is not a pthread_mutex_t.
	 */
	ptk_lock_t lock;
	/*
	 * The trid this object stands for: set when it is linked (0 before),
	 * changed only when the object is reused for another stream.
	 */
	trace_id_t trid;
	uint32_t waiters;	/* readers waiting on wake_seq */
	bool dead;		/* shut down: every later call is EINVAL */
	/*
	 * A reader is in GETNEXT with the lock dropped. It owns buf (which is
	 * then empty: pos == len) until it takes the lock again.
	 */
	bool fetching;
	unsigned char *buf;	/* records GETNEXT copied out */
	uint32_t buf_size;
	/*
	 * The stream's batch buffer in the kernel, mapped read-only once the
	 * first GETNEXT said its size: GETNEXT then leaves the records there,
	 * as they are until the next GETNEXT. NULL if not (yet) mapped;
	 * map_tried: do not try again. The fetcher's, as buf.
	 */
	const unsigned char *map;
	uint64_t map_size;
	bool map_tried;
	const unsigned char *cur; /* the last GETNEXT's records: buf or map */
	uint32_t pos;		/* next record to report, from cur */
	uint32_t len;		/* bytes of records at cur */
	uint32_t type_cursor;	/* eventtypelist: next id to ask for */
	/* posixtrace_k_event_seq(), _tid(): of the last event reported. */
	bool seq_valid;
	uint64_t seq;
	pid_t tid;
};

/*
 * A pre-recorded stream: a trace log opened by posix_trace_open(). Its
 * members are log.h's business; the same reference counting as a stream,
 * but freed by the last put (logs are only ever found under the table
 * lock).
 */
struct ptk_log;

/*
 * trid.c: a trid names a slot holding either a stream or a log. The _get
 * functions take a reference, or return EINVAL when trid names nothing of
 * the kind asked for. They take the table lock: for the control functions.
 */
int ptk_stream_add(struct ptk_stream *s, trace_id_t *trid);
int ptk_log_add(struct ptk_log *l, trace_id_t *trid);
int ptk_stream_get(trace_id_t trid, struct ptk_stream **s);
int ptk_log_get(trace_id_t trid, struct ptk_log **l);
/* Either kind: exactly one of *s and *l is set on success. */
int ptk_trid_get(trace_id_t trid, struct ptk_stream **s, struct ptk_log **l);
/*
 * The readers' way, without the table lock and without a reference: the
 * active stream trid names, with its lock held (s->trid == trid, not
 * s->dead). NULL
 * says only "not found this way" (a log, a stale or made-up trid, the
 * first call of a child): ask ptk_trid_get() then.
 */
struct ptk_stream *ptk_stream_lock(trace_id_t trid);
/* The free list: a released stream, its lock initialised; or NULL. */
struct ptk_stream *ptk_stream_reuse(void);
void ptk_stream_retire(struct ptk_stream *s);

/* What a trid names, held: an active stream or a log; the other is NULL. */
struct ptk_ref {
	struct ptk_stream *stream;
	struct ptk_log *log;
};

int ptk_ref_get(trace_id_t trid, struct ptk_ref *ref);
void ptk_ref_put(struct ptk_ref *ref);
void ptk_stream_hold(struct ptk_stream *s);
void ptk_stream_put(struct ptk_stream *s);
bool ptk_stream_unlink(trace_id_t trid, struct ptk_stream *s);
bool ptk_log_unlink(trace_id_t trid, struct ptk_log *l);

/* Where one getnext call reports its event (getnext.c, log.c). */
struct ptk_out {
	struct posix_trace_event_info *event;
	void *data;
	size_t num_bytes;
	size_t *data_len;
	int *unavailable;
};

/* getnext.c */
void ptk_stream_wake(struct ptk_stream *s);

/*
 * log.c: what the functions taking a trid do when it names a log. Each
 * takes the log's lock itself.
 */
void ptk_log_hold(struct ptk_log *l);
void ptk_log_put(struct ptk_log *l);
int ptk_log_fd(const struct ptk_log *l);
int ptk_log_getnext(struct ptk_log *l, const struct ptk_out *o);
int ptk_log_event_seq(struct ptk_log *l, uint64_t *seq, pid_t *tid);
void ptk_log_get_attr(struct ptk_log *l, trace_attr_t *attr);
int ptk_log_get_status(struct ptk_log *l,
		       struct posix_trace_status_info *statusinfo);
int ptk_log_get_filter(struct ptk_log *l, trace_event_set_t *set);
int ptk_log_get_name(struct ptk_log *l, trace_event_id_t event,
		     char name[POSIXTRACE_EVENT_NAME_MAX + 1]);
int ptk_log_get_format(struct ptk_log *l, trace_event_id_t event,
		       char format[POSIXTRACE_FORMAT_MAX + 1]);
int ptk_log_type_next(struct ptk_log *l, trace_event_id_t *event,
		      int *unavailable);
void ptk_log_type_rewind(struct ptk_log *l);

/* stream.c */
int ptk_stream_ioctl(struct ptk_stream *s, unsigned long cmd, void *arg);
int ptk_trid_ioctl(trace_id_t trid, unsigned long cmd, void *arg);
int ptk_trid_ioctl_once(trace_id_t trid, unsigned long cmd, void *arg);

#endif /* _POSIXTRACE_K_INTERNAL_H */
