/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the trl_*_test.c kselftests (POSIX Trace Log option, TRL) share on
 * top of trc_common.h: scratch log files, stream attributes for a log,
 * waiting for a flush, and reading a whole log back through the library
 * (posix_trace_open() and friends) into an array of events.
 */
#ifndef TRL_COMMON_H
#define TRL_COMMON_H

#include <endian.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <linux/posixtrace_log.h>
#include <posixtrace-k.h>

#include "trc_common.h"

/* A user event of 8 bytes of data (its number) takes 72 bytes. */
#define EVENT8_SIZE	(RECORD_SIZE + 8)
/* FLUSH_START and FLUSH_STOP carry no data. */
#define FLUSH_RECORD_SIZE	RECORD_SIZE

/* An empty scratch file for a log, already unlinked; -1 on error. */
static inline int tmp_log(void)
{
	char path[] = "/tmp/trl-logXXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Attributes for a log: the given policies and sizes (0: the default). */
static inline int log_attr(trace_attr_t *attr, int stream_policy,
			   int log_policy, size_t stream_size, size_t log_size)
{
	int ret = posix_trace_attr_init(attr);

	if (!ret && stream_policy)
		ret = posix_trace_attr_setstreamfullpolicy(attr, stream_policy);
	if (!ret && log_policy)
		ret = posix_trace_attr_setlogfullpolicy(attr, log_policy);
	if (!ret && stream_size)
		ret = posix_trace_attr_setstreamsize(attr, stream_size);
	if (!ret && log_size)
		ret = posix_trace_attr_setlogsize(attr, log_size);
	return ret;
}

/*
 * Wait (up to 10 s) until no flush is queued or running. Reading the
 * status resets the overrun statuses and the flush error: if seen is not
 * NULL, it gets the last status read, with those members as they were
 * first reported (an overrun or an error seen on the way is kept).
 */
static inline int wait_flushed_seen(trace_id_t trid,
				    struct posix_trace_status_info *seen)
{
	struct posix_trace_status_info st, acc;
	int i, ret;

	memset(&acc, 0, sizeof(acc));
	for (i = 0; i < 10000; i++) {
		ret = posix_trace_get_status(trid, &st);
		if (ret)
			return ret;
		if (!acc.posix_stream_flush_error)
			acc.posix_stream_flush_error =
				st.posix_stream_flush_error;
		if (st.posix_stream_overrun_status == POSIX_TRACE_OVERRUN)
			acc.posix_stream_overrun_status = POSIX_TRACE_OVERRUN;
		if (st.posix_log_overrun_status == POSIX_TRACE_OVERRUN)
			acc.posix_log_overrun_status = POSIX_TRACE_OVERRUN;
		if (st.posix_stream_flush_status == POSIX_TRACE_NOT_FLUSHING) {
			if (seen) {
				acc.posix_stream_status = st.posix_stream_status;
				acc.posix_stream_full_status =
					st.posix_stream_full_status;
				acc.posix_stream_flush_status =
					st.posix_stream_flush_status;
				acc.posix_log_full_status =
					st.posix_log_full_status;
				*seen = acc;
			}
			return 0;
		}
		usleep(1000);
	}
	return ETIMEDOUT;
}

static inline int wait_flushed(trace_id_t trid)
{
	return wait_flushed_seen(trid, NULL);
}

/* Emit n user events of type id, numbered first, first + 1, ... */
static inline void emit_numbered(trace_event_id_t id, uint64_t first,
				 uint64_t n)
{
	uint64_t i;

	for (i = first; i < first + n; i++)
		posix_trace_event(id, &i, sizeof(i));
}

/* An event of a log as the library reported it, with its type's name. */
struct logev {
	struct posix_trace_event_info info;
	char name[TRACE_EVENT_NAME_MAX + 1];
	size_t len;
	unsigned char data[512];
	uint64_t seq;		/* the stream's number of it */
};

/* What a whole log holds. */
struct logbuf {
	struct logev *ev;
	int n;
	struct posix_trace_status_info status;
	trace_attr_t attr;
};

/*
 * Read every event of the log in fd (through posix_trace_open()), with
 * its status and attributes. Returns the library's error number.
 */
static inline int read_log(int fd, struct logbuf *lb)
{
	trace_id_t trid;
	struct logev *e;
	int cap = 0, ret, unavailable;

	memset(lb, 0, sizeof(*lb));
	ret = posix_trace_open(fd, &trid);
	if (ret)
		return ret;
	ret = posix_trace_attr_init(&lb->attr);
	if (!ret)
		ret = posix_trace_get_attr(trid, &lb->attr);
	if (!ret)
		ret = posix_trace_get_status(trid, &lb->status);
	while (!ret) {
		if (lb->n == cap) {
			cap = cap ? 2 * cap : 64;
			e = realloc(lb->ev, cap * sizeof(*e));
			if (!e) {
				ret = ENOMEM;
				break;
			}
			lb->ev = e;
		}
		e = &lb->ev[lb->n];
		memset(e, 0, sizeof(*e));
		ret = posix_trace_getnext_event(trid, &e->info, e->data,
						sizeof(e->data), &e->len,
						&unavailable);
		if (ret || unavailable)
			break;
		ret = posix_trace_eventid_get_name(trid, e->info.posix_event_id,
						   e->name);
		if (!ret)
			ret = posixtrace_k_event_seq(trid, &e->seq);
		lb->n++;
	}
	if (posix_trace_close(trid) && !ret)
		ret = EINVAL;
	return ret;
}

static inline void free_log(struct logbuf *lb)
{
	free(lb->ev);
	lb->ev = NULL;
	lb->n = 0;
}

/* The number a user event of emit_numbered() carries. */
static inline uint64_t ev_num(const struct logev *e)
{
	uint64_t n = UINT64_MAX;

	if (e->len == sizeof(n))
		memcpy(&n, e->data, sizeof(n));
	return n;
}

/* The int data of STOP ("auto") or ERROR; -1 if there is none. */
static inline int ev_int(const struct logev *e)
{
	int v = -1;

	if (e->len == sizeof(v))
		memcpy(&v, e->data, sizeof(v));
	return v;
}

/*
 * Whether the log in fd ends with its END block: the writer has closed it.
 * Reads the file's last bytes, as a reader of the format would.
 */
static inline bool log_closed(int fd)
{
	struct posixtrace_log_end end;
	struct stat st;

	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(end))
		return false;
	if (pread(fd, &end, sizeof(end), st.st_size - sizeof(end)) !=
	    sizeof(end))
		return false;
	return le32toh(end.block.type) == POSIXTRACE_LOG_BLOCK_END &&
	       le64toh(end.block.size) == sizeof(end);
}

/* Wait (up to 10 s) for log_closed(). */
static inline bool wait_log_closed(int fd)
{
	return WAIT_UNTIL(log_closed(fd), 10000);
}

/*
 * Copy the log in fd to dir/name, if dir is set: the host then reads it
 * (the golden log across kernels; babeltrace2 on an export of it).
 */
static inline bool export_log(int fd, const char *dir, const char *name)
{
	char path[256], buf[4096];
	off_t off = 0;
	ssize_t n;
	int out;

	if (!dir)
		return true;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return false;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		if (!put(out, buf, n))
			break;
		off += n;
	}
	close(out);
	return n == 0;
}

#endif /* TRL_COMMON_H */
