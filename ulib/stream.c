// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace controller: create a stream (with a log or not), start, stop,
 * clear, flush, shut it down, read its attributes and status. Each stream
 * is a file descriptor from POSIXTRACE_IOC_CREATE; trid.c maps trace_id_t
 * to it. get_attr and get_status take the trid of a log too (log.c).
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "sys.h"

/* Readers drain the stream in batches of at least this many bytes. */
#define PTK_BATCH_MIN	(64 * 1024)

/*
 * EBADF or ENOTTY from a stream command means the descriptor is no stream
 * (it cannot be ours), which POSIX calls an invalid trid.
 */
static int ptk_stream_err(int err)
{
	return err == EBADF || err == ENOTTY ? EINVAL : err;
}

/* A stream command on s. */
int ptk_stream_ioctl(struct ptk_stream *s, unsigned long cmd, void *arg)
{
	return ptk_stream_err(ptk_ioctl(s->fd, cmd, arg));
}

static int ptk_trid_do(trace_id_t trid, unsigned long cmd, void *arg,
		       bool restart)
{
	struct ptk_stream *s = NULL;
	int err;

	err = ptk_stream_get(trid, &s);
	if (err)
		return err;
	err = restart ? ptk_ioctl(s->fd, cmd, arg)
		      : ptk_ioctl_once(s->fd, cmd, arg);
	ptk_stream_put(s);
	return ptk_stream_err(err);
}

/* A stream command on trid's stream. */
int ptk_trid_ioctl(trace_id_t trid, unsigned long cmd, void *arg)
{
	return ptk_trid_do(trid, cmd, arg, true);
}

/* The same, returning EINTR rather than restarting after a signal. */
int ptk_trid_ioctl_once(trace_id_t trid, unsigned long cmd, void *arg)
{
	return ptk_trid_do(trid, cmd, arg, false);
}

void ptk_stream_hold(struct ptk_stream *s)
{
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

/*
 * The last put: what the stream holds goes, and the object goes back to
 * the free list, never to free() (see trid.c: a reader may be about to
 * lock it, and will find it dead). It is dead already, or was never
 * linked (trid 0): posix_trace_shutdown() marks it before the table's put.
 */
static void ptk_stream_release(struct ptk_stream *s)
{
	const unsigned char *map;
	unsigned char *buf;
	uint64_t map_size;
	int fd;

	ptk_lock(&s->lock);
	buf = s->buf;
	map = s->map;
	map_size = s->map_size;
	fd = s->fd;
	s->buf = NULL;
	s->buf_size = 0;
	s->map = NULL;
	s->map_size = 0;
	s->cur = NULL;
	s->fd = -1;
	ptk_unlock(&s->lock);
	free(buf);
	if (map)
		ptk_sys_munmap((void *)map, map_size);
	ptk_sys_close(fd);
	ptk_stream_retire(s);
}

void ptk_stream_put(struct ptk_stream *s)
{
	if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
		ptk_stream_release(s);
}

/*
 * The batch buffer: at least PTK_BATCH_MIN, and at least one record of the
 * largest size the stream can hold (a user event of max-data-size, or a
 * system event), so that GETNEXT never says ENOSPC. After a loss the module
 * puts POSIX_TRACE_OVERFLOW and POSIX_TRACE_RESUME (bare records) in front
 * of the next record, in the same call: room for them too. max-data-size
 * as the module took it, not as we asked.
 */
static int ptk_batch_size(int fd, uint32_t *size)
{
	struct posixtrace_attr ua = { .size = sizeof(ua) };
	uint64_t need;
	int err;

	err = ptk_ioctl(fd, POSIXTRACE_IOC_GET_ATTR, &ua);
	if (err)
		return err;
	if (ua.max_data_size > PTK_MAX_DATA_SIZE)
		return EINVAL;
	need = PTK_RECORD_SIZE + PTK_ROUND8(ua.max_data_size);
	if (need < PTK_SYSTEM_EVENT_SIZE)
		need = PTK_SYSTEM_EVENT_SIZE;
	need += 2 * PTK_RECORD_SIZE;
	if (need > UINT32_MAX)
		return EINVAL;
	*size = need > PTK_BATCH_MIN ? (uint32_t)need : PTK_BATCH_MIN;
	return 0;
}

/* A stream object: a released one again, or a new one. */
static struct ptk_stream *ptk_stream_alloc(void)
{
	struct ptk_stream *s = ptk_stream_reuse();

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	/* Initialised once: the object is never freed (trid.c). */
	atomic_init(&s->lock, 0);
	atomic_init(&s->refs, 0);
	atomic_init(&s->wake_seq, 0);
	return s;
}

/* A stream with a log is never read with getnext: no batch buffer. */
static int ptk_stream_new(int fd, bool has_log, struct ptk_stream **sp)
{
	struct ptk_stream *s;
	unsigned char *buf = NULL;
	uint32_t size = 0;
	int err;

	if (!has_log) {
		err = ptk_batch_size(fd, &size);
		if (err)
			return err;
		buf = malloc(size);
		if (!buf)
			return ENOMEM;
	}
	s = ptk_stream_alloc();
	if (!s) {
		free(buf);
		return ENOMEM;
	}
	/*
	 * A reused object may be locked by a reader that found it under its
	 * old trid: every member it can read is set under the lock.
	 */
	ptk_lock(&s->lock);
	s->fd = fd;
	s->has_log = has_log;
	s->trid = 0;
	s->dead = false;
	s->waiters = 0;
	s->fetching = false;
	s->buf = buf;
	s->buf_size = size;
	s->map = NULL;
	s->map_size = 0;
	s->map_tried = false;
	s->cur = buf;
	s->pos = 0;
	s->len = 0;
	s->type_cursor = 0;
	s->seq_valid = false;
	s->seq = 0;
	s->tid = 0;
	ptk_unlock(&s->lock);
	atomic_store_explicit(&s->refs, 1, memory_order_relaxed);
	*sp = s;
	return 0;
}

/*
 * Tracing another process needs the right to ptrace-attach to it, which
 * the kernel checks when /proc/<pid>/mem is opened (LSMs included): the
 * module takes the open descriptor as the proof. Returns the descriptor,
 * -1 for ourselves, or -2 and an error number.
 */
static int ptk_open_proof(pid_t pid, int *err)
{
	char path[32];
	int fd;

	if (pid == 0 || pid == getpid())
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/* No such process, or no right to trace it; else let the module say. */
	if (errno == ENOENT)
		*err = ESRCH;
	else if (errno == EACCES || errno == EPERM)
		*err = EPERM;
	else
		return -1;
	return -2;
}

/*
 * Creates the stream for attr (valid, its policies resolved), with the log
 * log_fd (-1: none).
 */
static int ptk_create(pid_t pid, const trace_attr_t *attr, int log_fd,
		      trace_id_t *trid)
{
	struct posixtrace_attr ua;
	struct posixtrace_create req = {
		.size = sizeof(req),
		.pid = pid,
		.log_fd = log_fd,
		.attr = (uintptr_t)&ua,
	};
	struct ptk_stream *s = NULL;
	int dev, fd, err, proof;

	ptk_attr_to_uapi(attr, &ua);
	err = ptk_device_fd(&dev);
	if (err)
		return err;
	if (pid < 0)
		return ESRCH;
	proof = ptk_open_proof(pid, &err);
	if (proof == -2)
		return err;
	if (proof >= 0) {
		req.flags |= POSIXTRACE_CREATE_MEM_FD;
		req.mem_fd = proof;
	}
	err = ptk_ioctl_ret(dev, POSIXTRACE_IOC_CREATE, &req, &fd);
	if (proof >= 0)
		close(proof);
	if (err)
		return err;
	err = ptk_stream_new(fd, log_fd >= 0, &s);
	if (err)
		goto err_close;
	err = ptk_stream_add(s, trid);
	if (err)
		goto err_free_stream;
	return 0;

err_free_stream:
	/* The last reference: this closes fd, which frees the stream. */
	ptk_stream_put(s);
	return err;
err_close:
	ptk_sys_close(fd);
	return err;
}

/*
 * POSIX: "Defining [the FLUSH] policy for an active trace stream without
 * log shall be invalid": EINVAL, before asking the module.
 */
PTK_EXPORT int posix_trace_create(pid_t pid, const trace_attr_t *restrict attr,
				  trace_id_t *restrict trid)
{
	PTK_KEEP_ERRNO;
	trace_attr_t defaults;

	if (!trid)
		return EINVAL;
	if (!attr) {
		ptk_attr_defaults(&defaults);
		attr = &defaults;
	} else if (!ptk_attr_valid(attr)) {
		return EINVAL;
	}
	if (attr->__stream_full_policy == POSIX_TRACE_FLUSH)
		return EINVAL;
	return ptk_create(pid, attr, -1, trid);
}

/*
 * The same with a trace log (TRL): the module writes the stream's events
 * to file_desc (<linux/posixtrace_log.h>). POSIX: EBADF unless file_desc
 * is open for writing, which we check first; whether the file's type
 * suits the log-full-policy (EINVAL), and the errors of writing the log
 * header (ENOSPC, EFBIG, EIO), are the module's to say. The module takes
 * its own reference: the caller may close file_desc after the call, and
 * should not write to it while the stream exists.
 *
 * The stream-full-policy defaults to FLUSH with a log (POSIX): with attr
 * NULL, or an attr whose policy was never set (attr.c).
 */
PTK_EXPORT int posix_trace_create_withlog(pid_t pid,
					  const trace_attr_t *restrict attr,
					  int file_desc,
					  trace_id_t *restrict trid)
{
	PTK_KEEP_ERRNO;
	trace_attr_t resolved;
	int flags;

	if (!trid)
		return EINVAL;
	if (!attr)
		ptk_attr_defaults(&resolved);
	else if (ptk_attr_valid(attr))
		resolved = *attr;
	else
		return EINVAL;
	if (!(resolved.__flags & PTK_ATTR_STREAM_POLICY_SET))
		resolved.__stream_full_policy = POSIX_TRACE_FLUSH;
	if (file_desc < 0)
		return EBADF;
	flags = fcntl(file_desc, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
		return EBADF;
	return ptk_create(pid, &resolved, file_desc, trid);
}

PTK_EXPORT int posix_trace_start(trace_id_t trid)
{
	PTK_KEEP_ERRNO;

	return ptk_trid_ioctl(trid, POSIXTRACE_IOC_START, NULL);
}

PTK_EXPORT int posix_trace_stop(trace_id_t trid)
{
	PTK_KEEP_ERRNO;

	return ptk_trid_ioctl(trid, POSIXTRACE_IOC_STOP, NULL);
}

/*
 * Events already fetched into the batch buffer were recorded before the
 * call, so they are lost too; and, as after create, the event type list
 * iterator starts again. The lock is held across the ioctl so that no
 * reader serves an event of the old contents after the kernel cleared.
 */
PTK_EXPORT int posix_trace_clear(trace_id_t trid)
{
	PTK_KEEP_ERRNO;
	struct ptk_stream *s = NULL;
	int err;

	err = ptk_stream_get(trid, &s);
	if (err)
		return err;
	ptk_lock(&s->lock);
	err = ptk_stream_ioctl(s, POSIXTRACE_IOC_CLEAR, NULL);
	if (!err) {
		s->pos = s->len;
		s->type_cursor = 0;
	}
	ptk_unlock(&s->lock);
	ptk_stream_put(s);
	return err;
}

/*
 * posix_trace_flush() (TRL): the module queues the flush and returns;
 * posix_trace_get_status() says when it is done (flush status) and how it
 * went (flush error). EINVAL for a stream without a log, as POSIX says.
 */
PTK_EXPORT int posix_trace_flush(trace_id_t trid)
{
	PTK_KEEP_ERRNO;
	struct ptk_stream *s = NULL;
	int err;

	err = ptk_stream_get(trid, &s);
	if (err)
		return err;
	err = s->has_log ? ptk_stream_ioctl(s, POSIXTRACE_IOC_FLUSH, NULL)
			 : EINVAL;
	ptk_stream_put(s);
	return err;
}

/*
 * Whether SHUTDOWN's answer err means the stream is gone. With a log, the
 * module shuts the stream down even when the last flush fails, and says
 * how it failed (ENOSPC, EFBIG, EIO...): POSIX frees the stream's
 * resources regardless. EINVAL is a stream already shut down.
 */
static bool ptk_shut_down(const struct ptk_stream *s, int err)
{
	return !err || (s->has_log && err != EINVAL);
}

/*
 * The kernel frees the stream's storage and wakes its blocked readers with
 * EINVAL; we wake those waiting here for another reader's batch, and make
 * trid invalid. The descriptor is closed by the last reference, at once
 * unless a reader is still on its way out of the kernel. With a log, the
 * module flushes what is left and closes the log first.
 */
PTK_EXPORT int posix_trace_shutdown(trace_id_t trid)
{
	PTK_KEEP_ERRNO;
	struct ptk_stream *s = NULL;
	int err;

	err = ptk_stream_get(trid, &s);
	if (err)
		return err;
	err = ptk_stream_ioctl(s, POSIXTRACE_IOC_SHUTDOWN, NULL);
	if (ptk_shut_down(s, err)) {
		ptk_lock(&s->lock);
		/* trid.c: no reader finds s from here on. */
		s->dead = true;
		s->pos = s->len;
		ptk_stream_wake(s);
		ptk_unlock(&s->lock);
		/* A concurrent shutdown may have unlinked it first. */
		if (ptk_stream_unlink(trid, s))
			ptk_stream_put(s);
	}
	ptk_stream_put(s);
	return err;
}

/*
 * attr need not be initialised: it is filled in whole. For a log, from
 * the attributes it recorded (log.c).
 */
PTK_EXPORT int posix_trace_get_attr(trace_id_t trid, trace_attr_t *attr)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_attr ua = { .size = sizeof(ua) };
	struct ptk_ref ref;
	int err;

	if (!attr)
		return EINVAL;
	err = ptk_ref_get(trid, &ref);
	if (err)
		return err;
	if (ref.log) {
		ptk_log_get_attr(ref.log, attr);
	} else {
		err = ptk_stream_ioctl(ref.stream, POSIXTRACE_IOC_GET_ATTR, &ua);
		if (!err)
			ptk_attr_from_uapi(&ua, attr);
	}
	ptk_ref_put(&ref);
	return err;
}

/* A status the kernel leaves 0 (no log) reads as its "nothing" value. */
static int ptk_or(__u32 v, int none)
{
	return v ? (int)v : none;
}

/*
 * A stream's status is the module's snapshot; the TRL members are its
 * log's (NOT_FLUSHING, 0, NO_OVERRUN, NOT_FULL without one). A log's is
 * the status its stream ended with (log.c), never reset by reading.
 */
PTK_EXPORT int posix_trace_get_status(trace_id_t trid,
	struct posix_trace_status_info *statusinfo)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_status st = { .size = sizeof(st) };
	struct ptk_ref ref;
	int err;

	if (!statusinfo)
		return EINVAL;
	err = ptk_ref_get(trid, &ref);
	if (err)
		return err;
	if (ref.log) {
		err = ptk_log_get_status(ref.log, statusinfo);
		ptk_ref_put(&ref);
		return err;
	}
	/*
	 * The kernel reads and resets the overrun statuses and the flush
	 * error at once.
	 */
	err = ptk_stream_ioctl(ref.stream, POSIXTRACE_IOC_STATUS, &st);
	ptk_ref_put(&ref);
	if (err)
		return err;
	statusinfo->posix_stream_status = (int)st.state;
	statusinfo->posix_stream_full_status = (int)st.full_status;
	statusinfo->posix_stream_overrun_status = (int)st.overrun_status;
	statusinfo->posix_stream_flush_status =
		ptk_or(st.flush_status, POSIX_TRACE_NOT_FLUSHING);
	statusinfo->posix_stream_flush_error = st.flush_error;
	statusinfo->posix_log_overrun_status = (int)st.log_overrun_status;
	statusinfo->posix_log_full_status =
		ptk_or(st.log_full_status, POSIX_TRACE_NOT_FULL);
	return 0;
}
