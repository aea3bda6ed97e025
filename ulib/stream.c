// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace controller: create a stream, start, stop, clear, shut it down,
 * read its attributes and status. Each stream is a file descriptor from
 * POSIXTRACE_IOC_CREATE; trid.c maps trace_id_t to it.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

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

static void ptk_stream_free(struct ptk_stream *s)
{
	close(s->fd);
	pthread_mutex_destroy(&s->lock);
	free(s->buf);
	free(s);
}

void ptk_stream_put(struct ptk_stream *s)
{
	if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
		ptk_stream_free(s);
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

static int ptk_stream_new(int fd, struct ptk_stream **sp)
{
	struct ptk_stream *s = NULL;
	uint32_t size;
	int err;

	err = ptk_batch_size(fd, &size);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return ENOMEM;
	s->buf = malloc(size);
	if (!s->buf) {
		err = ENOMEM;
		goto err_free_stream;
	}
	err = pthread_mutex_init(&s->lock, NULL);
	if (err)
		goto err_free_buf;
	s->fd = fd;
	s->buf_size = size;
	atomic_init(&s->refs, 1);
	atomic_init(&s->wake_seq, 0);
	*sp = s;
	return 0;

err_free_buf:
	free(s->buf);
err_free_stream:
	free(s);
	return err;
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

PTK_EXPORT int posix_trace_create(pid_t pid, const trace_attr_t *restrict attr,
				  trace_id_t *restrict trid)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_attr ua;
	struct posixtrace_create req = {
		.size = sizeof(req),
		.pid = pid,
		.log_fd = -1,
		.attr = (uintptr_t)&ua,
	};
	struct ptk_stream *s = NULL;
	trace_attr_t defaults;
	int dev, fd, err, proof;

	if (!trid)
		return EINVAL;
	if (!attr) {
		ptk_attr_defaults(&defaults);
		attr = &defaults;
	} else if (!ptk_attr_valid(attr)) {
		return EINVAL;
	}
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
	err = ptk_stream_new(fd, &s);
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
	close(fd);
	return err;
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
	pthread_mutex_lock(&s->lock);
	err = ptk_stream_ioctl(s, POSIXTRACE_IOC_CLEAR, NULL);
	if (!err) {
		s->pos = s->len;
		s->type_cursor = 0;
	}
	pthread_mutex_unlock(&s->lock);
	ptk_stream_put(s);
	return err;
}

/*
 * The kernel frees the stream's storage and wakes its blocked readers with
 * EINVAL; we wake those waiting here for another reader's batch, and make
 * trid invalid. The descriptor is closed by the last reference, at once
 * unless a reader is still on its way out of the kernel.
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
	if (!err) {
		pthread_mutex_lock(&s->lock);
		s->dead = true;
		s->pos = s->len;
		ptk_stream_wake(s);
		pthread_mutex_unlock(&s->lock);
		/* A concurrent shutdown may have unlinked it first. */
		if (ptk_stream_unlink(trid, s))
			ptk_stream_put(s);
	}
	ptk_stream_put(s);
	return err;
}

/* attr need not be initialised: it is filled in whole. */
PTK_EXPORT int posix_trace_get_attr(trace_id_t trid, trace_attr_t *attr)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_attr ua = { .size = sizeof(ua) };
	int err;

	if (!attr)
		return EINVAL;
	err = ptk_trid_ioctl(trid, POSIXTRACE_IOC_GET_ATTR, &ua);
	if (err)
		return err;
	ptk_attr_from_uapi(&ua, attr);
	return 0;
}

/* A status the kernel leaves 0 (no log) reads as its "nothing" value. */
static int ptk_or(__u32 v, int none)
{
	return v ? (int)v : none;
}

PTK_EXPORT int posix_trace_get_status(trace_id_t trid,
	struct posix_trace_status_info *statusinfo)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_status st = { .size = sizeof(st) };
	int err;

	if (!statusinfo)
		return EINVAL;
	/* The kernel reads and resets the overrun and flush error at once. */
	err = ptk_trid_ioctl(trid, POSIXTRACE_IOC_STATUS, &st);
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
