// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Pre-recorded streams (TRL): posix_trace_open(), posix_trace_rewind(),
 * posix_trace_close(), and what the other functions taking a trid do when
 * it names a log. No module is needed: a log is a file, read with pread()
 * (log_io.c).
 *
 * posix_trace_open() takes a duplicate of file_desc (close-on-exec): the
 * caller may close its own at once, and posix_trace_close() closes only
 * ours. The descriptor's file offset is never used nor moved. The file
 * must be a regular file open for reading: anything else, like a file
 * that is no log we know, is EINVAL; a descriptor that is not open is
 * EBADF. The file is read as it was at open: a log still being written
 * reads as far as it was.
 *
 * A log trid reports the log's events in order with getnext (which never
 * blocks: at the end it reports *unavailable != 0), and the log's
 * attributes, final status, filter and event types. What only an active
 * stream can do (start, stop, clear, shutdown, flush, set_filter,
 * trid_eventid_open, trygetnext) is EINVAL; so are rewind and close on a
 * stream's trid.
 *
 * Each log has a lock, held across its file reads, which never block for
 * long: the calls here are not cancellation points (cancellation is off
 * while the lock is held), so nothing is left locked by a cancelled
 * thread.
 */

#include <endian.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static void ptk_log_lock(struct ptk_log *l, int *cancel_state)
{
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cancel_state);
	pthread_mutex_lock(&l->lock);
}

static void ptk_log_unlock(struct ptk_log *l, int cancel_state)
{
	pthread_mutex_unlock(&l->lock);
	pthread_setcancelstate(cancel_state, NULL);
}

int ptk_log_fd(const struct ptk_log *l)
{
	return l->fd;
}

void ptk_log_hold(struct ptk_log *l)
{
	atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
}

static void ptk_log_free(struct ptk_log *l)
{
	size_t i;

	close(l->fd);
	pthread_mutex_destroy(&l->lock);
	free(l->blocks);
	free(l->names);
	if (l->formats)
		for (i = 0; i < POSIXTRACE_EVENT_ID_MAX; i++)
			free(l->formats[i]);
	free(l->formats);
	free(l->win);
	free(l);
}

void ptk_log_put(struct ptk_log *l)
{
	if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1)
		ptk_log_free(l);
}

/* Called with l->lock held. */
static void ptk_log_rewind_locked(struct ptk_log *l)
{
	l->block = l->first;
	l->pos = 0;
	l->seq_valid = false;
}

/* Our own descriptor for file_desc's file, if it can be a log. */
static int ptk_log_dup(int file_desc, int *fd, uint64_t *size)
{
	struct stat st;
	int flags, err;

	if (file_desc < 0)
		return EBADF;
	*fd = fcntl(file_desc, F_DUPFD_CLOEXEC, 0);
	if (*fd < 0)
		return errno;	/* EBADF: not open; EMFILE */
	flags = fcntl(*fd, F_GETFL);
	if (flags < 0 || fstat(*fd, &st)) {
		err = errno;
		goto err_close;
	}
	/* Not readable, or no regular file (no pread, no size): no log. */
	err = EINVAL;
	if ((flags & O_ACCMODE) == O_WRONLY)
		goto err_close;
#ifdef O_PATH
	if (flags & O_PATH)
		goto err_close;
#endif
	if (!S_ISREG(st.st_mode) || st.st_size < 0)
		goto err_close;
	*size = (uint64_t)st.st_size;
	return 0;

err_close:
	close(*fd);
	return err;
}

static int ptk_log_new(int file_desc, struct ptk_log **lp)
{
	struct ptk_log *l;
	uint64_t size = 0;
	int fd = -1, err;

	err = ptk_log_dup(file_desc, &fd, &size);
	if (err)
		return err;
	l = calloc(1, sizeof(*l));
	if (!l) {
		close(fd);
		return ENOMEM;
	}
	err = pthread_mutex_init(&l->lock, NULL);
	if (err) {
		free(l);
		close(fd);
		return err;
	}
	l->fd = fd;
	atomic_init(&l->refs, 1);
	l->file_size = size;
	/* POSIX: EINTR when a signal interrupts the opening. */
	l->report_eintr = true;
	err = ptk_log_index(l);
	l->report_eintr = false;
	if (err) {
		ptk_log_free(l);
		return err;
	}
	ptk_log_rewind_locked(l);
	*lp = l;
	return 0;
}

PTK_EXPORT int posix_trace_open(int file_desc, trace_id_t *trid)
{
	PTK_KEEP_ERRNO;
	struct ptk_log *l = NULL;
	int err, cancel_state;

	if (!trid)
		return EINVAL;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	err = ptk_log_new(file_desc, &l);
	if (!err) {
		err = ptk_log_add(l, trid);
		if (err)
			ptk_log_put(l);
	}
	pthread_setcancelstate(cancel_state, NULL);
	return err;
}

/* The next event is the oldest again; the type list iterator stays. */
PTK_EXPORT int posix_trace_rewind(trace_id_t trid)
{
	PTK_KEEP_ERRNO;
	struct ptk_log *l = NULL;
	int err, cancel_state;

	err = ptk_log_get(trid, &l);
	if (err)
		return err;
	ptk_log_lock(l, &cancel_state);
	ptk_log_rewind_locked(l);
	ptk_log_unlock(l, cancel_state);
	ptk_log_put(l);
	return 0;
}

/*
 * The trid is invalid at once; the memory and our descriptor go with the
 * last call still using the log.
 */
PTK_EXPORT int posix_trace_close(trace_id_t trid)
{
	PTK_KEEP_ERRNO;
	struct ptk_log *l = NULL;
	int err;

	err = ptk_log_get(trid, &l);
	if (err)
		return err;
	/* A concurrent close may have unlinked it first. */
	if (ptk_log_unlink(trid, l))
		ptk_log_put(l);
	else
		err = EINVAL;
	ptk_log_put(l);
	return err;
}

/*
 * The data of system events is little-endian in a log (START and FILTER
 * carry event sets of 64-bit words, ERROR and STOP an int); callers get it
 * in this machine's order, as from a stream. Only whole words that were
 * copied are turned.
 */
static void ptk_log_system_data_to_host(uint32_t id, unsigned char *data,
					size_t n)
{
	uint64_t w;
	uint32_t v;
	size_t i;

	if (id == POSIXTRACE_EVENT_START || id == POSIXTRACE_EVENT_FILTER) {
		for (i = 0; i + 8 <= n; i += 8) {
			memcpy(&w, data + i, 8);
			w = le64toh(w);
			memcpy(data + i, &w, 8);
		}
	} else if ((id == POSIXTRACE_EVENT_STOP ||
		    id == POSIXTRACE_EVENT_ERROR) && n >= 4) {
		memcpy(&v, data, 4);
		v = le32toh(v);
		memcpy(data, &v, 4);
	}
}

/* Reports the event e, its data read into o->data. */
static int ptk_log_report(struct ptk_log *l, const struct ptk_log_entry *e,
			  const struct ptk_out *o)
{
	size_t n = e->data_len;
	int err;

	if (o->num_bytes < n)
		n = o->num_bytes;
	err = ptk_log_read(l, e->pos + e->header_size, o->data, n);
	if (err)
		return err;
	ptk_log_system_data_to_host(e->event_id, o->data, n);
	o->event->posix_event_id = (trace_event_id_t)e->event_id;
	o->event->posix_pid = e->pid;
	o->event->posix_prog_address = (void *)(uintptr_t)e->prog_address;
	o->event->posix_thread_id = (pthread_t)(uintptr_t)e->thread;
	o->event->posix_timestamp.tv_sec = (time_t)e->ts_sec;
	o->event->posix_timestamp.tv_nsec = (long)e->ts_nsec;
	/* TRUNCATED_READ overrides TRUNCATED_RECORD, as POSIX says. */
	o->event->posix_truncation_status = n < e->data_len ?
		POSIX_TRACE_TRUNCATED_READ : (int)e->truncation;
	*o->data_len = n;
	*o->unavailable = 0;
	return 0;
}

/*
 * getnext on a log: the next entry that is an event (DEFINE entries are
 * not), or *unavailable != 0 at the end; never waits. An entry that is
 * not whole or not well formed ends its block; reading goes on with the
 * next block (the lost events show as a gap in the seq numbers). On an
 * error the position stays where it was.
 */
int ptk_log_getnext(struct ptk_log *l, const struct ptk_out *o)
{
	struct ptk_log_entry e;
	const struct ptk_log_block *b;
	int err, cancel_state;

	ptk_log_lock(l, &cancel_state);
	for (;;) {
		if (l->block >= l->nblocks) {
			*o->data_len = 0;
			*o->unavailable = 1;
			err = 0;
			break;
		}
		b = &l->blocks[l->block];
		if (l->pos < b->start)
			l->pos = b->start;
		err = ptk_log_entry_read(l, l->pos, b->end, &e);
		if (!err && e.event_id != POSIXTRACE_LOG_DEFINE)
			err = ptk_log_report(l, &e, o);
		if (err == PTK_LOG_SHORT) {
			l->block++;
			l->pos = 0;
			continue;
		}
		if (err)
			break;
		l->pos += e.size;
		if (e.event_id != POSIXTRACE_LOG_DEFINE) {
			l->seq = e.seq;
			l->tid = e.tid;
			l->seq_valid = true;
			break;
		}
	}
	ptk_log_unlock(l, cancel_state);
	return err;
}

int ptk_log_event_seq(struct ptk_log *l, uint64_t *seq, pid_t *tid)
{
	int err = EINVAL, cancel_state;

	ptk_log_lock(l, &cancel_state);
	if (l->seq_valid) {
		if (seq)
			*seq = l->seq;
		if (tid)
			*tid = l->tid;
		err = 0;
	}
	ptk_log_unlock(l, cancel_state);
	return err;
}

/* Set at open, never changed: no lock. */
void ptk_log_get_attr(struct ptk_log *l, trace_attr_t *attr)
{
	ptk_attr_from_log(&l->attr, attr);
}

/* v if it is one of a or b, else fallback. */
static int ptk_one_of(uint32_t v, int a, int b, int fallback)
{
	return v == (uint32_t)a || v == (uint32_t)b ? (int)v : fallback;
}

/*
 * The status of the completed stream: END's, whose values are checked.
 * Without END (a log cut short) what the log tells: the stream is
 * suspended, not flushing, with no overrun and no flush error known; it
 * was full if it was last stopped because it filled ("auto" 1), and its
 * log was full if it stopped because the log filled ("auto" 2). Reading
 * resets nothing: POSIX says the status of a pre-recorded stream is not
 * reset.
 */
int ptk_log_get_status(struct ptk_log *l, struct posix_trace_status_info *st)
{
	const struct posixtrace_log_end *end = &l->end;
	int32_t flush_error;
	int err = 0, cancel_state;

	st->posix_stream_flush_status = POSIX_TRACE_NOT_FLUSHING;
	if (l->has_end) {
		st->posix_stream_status =
			ptk_one_of(le32toh(end->stream_status),
				   POSIX_TRACE_RUNNING, POSIX_TRACE_SUSPENDED,
				   POSIX_TRACE_SUSPENDED);
		st->posix_stream_full_status =
			ptk_one_of(le32toh(end->full_status), POSIX_TRACE_FULL,
				   POSIX_TRACE_NOT_FULL, POSIX_TRACE_NOT_FULL);
		st->posix_stream_overrun_status =
			ptk_one_of(le32toh(end->overrun_status),
				   POSIX_TRACE_OVERRUN, POSIX_TRACE_NO_OVERRUN,
				   POSIX_TRACE_NO_OVERRUN);
		flush_error = (int32_t)le32toh(end->flush_error);
		st->posix_stream_flush_error = flush_error > 0 ? flush_error : 0;
		st->posix_log_overrun_status =
			ptk_one_of(le32toh(end->log_overrun_status),
				   POSIX_TRACE_OVERRUN, POSIX_TRACE_NO_OVERRUN,
				   POSIX_TRACE_NO_OVERRUN);
		st->posix_log_full_status =
			ptk_one_of(le32toh(end->log_full_status),
				   POSIX_TRACE_FULL, POSIX_TRACE_NOT_FULL,
				   POSIX_TRACE_NOT_FULL);
		return 0;
	}
	ptk_log_lock(l, &cancel_state);
	err = ptk_log_learn(l);
	if (!err) {
		st->posix_stream_status = POSIX_TRACE_SUSPENDED;
		st->posix_stream_full_status = l->stopped && l->stop_auto == 1 ?
			POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
		st->posix_stream_overrun_status = POSIX_TRACE_NO_OVERRUN;
		st->posix_stream_flush_error = 0;
		st->posix_log_overrun_status = POSIX_TRACE_NO_OVERRUN;
		st->posix_log_full_status = l->stopped && l->stop_auto == 2 ?
			POSIX_TRACE_FULL : POSIX_TRACE_NOT_FULL;
	}
	ptk_log_unlock(l, cancel_state);
	return err;
}

/*
 * END's filter; without END, the last one a START or FILTER entry
 * recorded; else none (empty), as at creation.
 */
int ptk_log_get_filter(struct ptk_log *l, trace_event_set_t *set)
{
	int err = 0, cancel_state;

	memset(set, 0, sizeof(*set));
	if (l->has_end) {
		ptk_log_set_from_le((const unsigned char *)l->end.filter,
				    set->__bits);
		return 0;
	}
	ptk_log_lock(l, &cancel_state);
	err = ptk_log_learn(l);
	if (!err && l->has_filter)
		memcpy(set->__bits, l->filter, sizeof(set->__bits));
	ptk_log_unlock(l, cancel_state);
	return err;
}

/*
 * The log's mapping learned, and user type id named in it: 0, EINVAL, or
 * the error of learning it. Called with the log locked.
 */
static int ptk_log_learn_type(struct ptk_log *l, uint32_t id)
{
	int err = ptk_log_learn(l);

	if (!err && !(l->named[id / 64] & (UINT64_C(1) << (id % 64))))
		err = EINVAL;
	return err;
}

int ptk_log_get_name(struct ptk_log *l, trace_event_id_t event,
		     char name[POSIXTRACE_EVENT_NAME_MAX + 1])
{
	uint32_t id = (uint32_t)event;
	const char *sys = ptk_log_system_name(id);
	int err, cancel_state;

	if (sys) {
		strcpy(name, sys);
		return 0;
	}
	if (id >= POSIXTRACE_EVENT_ID_MAX)
		return EINVAL;
	ptk_log_lock(l, &cancel_state);
	err = ptk_log_learn_type(l, id);
	if (!err)
		strcpy(name, l->names[id]);
	ptk_log_unlock(l, cancel_state);
	return err;
}

/* Types without a format, system ones included, are ENOENT. */
int ptk_log_get_format(struct ptk_log *l, trace_event_id_t event,
		       char format[POSIXTRACE_FORMAT_MAX + 1])
{
	uint32_t id = (uint32_t)event;
	int err, cancel_state;

	if (ptk_log_system_name(id))
		return ENOENT;
	if (id >= POSIXTRACE_EVENT_ID_MAX)
		return EINVAL;
	ptk_log_lock(l, &cancel_state);
	err = ptk_log_learn_type(l, id);
	if (!err && !l->formats[id])
		err = ENOENT;
	if (!err)
		strcpy(format, l->formats[id]);
	ptk_log_unlock(l, cancel_state);
	return err;
}

/* The log's types by identifier: the system ones, then those it names. */
int ptk_log_type_next(struct ptk_log *l, trace_event_id_t *event,
		      int *unavailable)
{
	uint32_t id;
	int err, cancel_state;

	ptk_log_lock(l, &cancel_state);
	err = ptk_log_learn(l);
	if (!err) {
		*unavailable = 1;
		for (id = l->type_cursor; id < POSIXTRACE_EVENT_ID_MAX; id++) {
			if (ptk_log_system_name(id) ||
			    (l->named[id / 64] & (UINT64_C(1) << (id % 64)))) {
				*event = (trace_event_id_t)id;
				*unavailable = 0;
				break;
			}
		}
		l->type_cursor = id < POSIXTRACE_EVENT_ID_MAX ? id + 1 : id;
	}
	ptk_log_unlock(l, cancel_state);
	return err;
}

void ptk_log_type_rewind(struct ptk_log *l)
{
	int cancel_state;

	ptk_log_lock(l, &cancel_state);
	l->type_cursor = 0;
	ptk_log_unlock(l, cancel_state);
}
