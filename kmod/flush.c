// SPDX-License-Identifier: GPL-2.0
/*
 * Flushing a stream to its trace log (TRL), from a work queue.
 *
 * A flush (posix_trace_flush(), the FLUSH policy, or shutdown) records
 * FLUSH_START, takes every record stored up to and including it out of the
 * ring a batch at a time, writes each batch to the log, and records
 * FLUSH_STOP. Producers go on recording meanwhile, into the space each
 * batch frees; what they record comes after FLUSH_START and waits for the
 * next flush. Records leave the ring before they are written, as a
 * reader's would: if the write fails, they are counted discarded and the
 * error kept for posix_trace_get_status(), and an ERROR event (its data
 * the error number) is recorded.
 *
 * POSIXTRACE_FLUSH: the stream is flushed whenever it is half full, and
 * when it fills (it then stops, as UNTIL_FULL does, until the flush has
 * emptied it).
 *
 * Shutdown: the stream is stopped, then the work flushes everything left,
 * writes the type table and the final status, drops the file and frees
 * the ring. Whoever shuts down waits for that, killably: a log on a pipe
 * nobody reads must not hold a process forever. A queued work holds a
 * reference on the stream and on the module.
 *
 * The work writes the log under @log_lock, and takes the stream's spinlock
 * only to move records and status; posix_trace_get_status() never waits
 * for the file.
 */

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "log.h"
#include "family.h"
#include "proc.h"
#include "stream.h"

static struct workqueue_struct *posixtrace_flush_wq;

static void posixtrace_flush_work(struct work_struct *work);

int posixtrace_flush_init(void)
{
	/* Unbound: a write may sleep long, and must not hold up a CPU's work. */
	posixtrace_flush_wq = alloc_workqueue("posixtrace_flush", WQ_UNBOUND, 0);
	return posixtrace_flush_wq ? 0 : -ENOMEM;
}

/* Module exit: every stream is gone, but final flushes may still run. */
void posixtrace_flush_exit(void)
{
	destroy_workqueue(posixtrace_flush_wq);
}

/*
 * Queue the work, with the references it holds while queued. Under the
 * stream's lock, which the work takes before it can drop them.
 */
static void posixtrace_flush_queue(struct posixtrace_stream *stream)
{
	lockdep_assert_held(&stream->lock);
	if (queue_work(posixtrace_flush_wq, &stream->flush_work)) {
		posixtrace_stream_get(stream);
		__module_get(THIS_MODULE);
	}
}

/**
 * posixtrace_flush_request - posix_trace_flush(): flush soon
 * @stream: a stream with a log, its lock held
 *
 * flush_status is FLUSHING from now until the work has done it.
 */
void posixtrace_flush_request(struct posixtrace_stream *stream)
{
	lockdep_assert_held(&stream->lock);
	if (stream->shut_down || stream->flush_requested)
		return;
	stream->flush_requested = true;
	stream->flushing = true;
	posixtrace_flush_queue(stream);
}

/* POSIXTRACE_FLUSH: after a store, flush if half full or stopped full. */
void posixtrace_flush_maybe(struct posixtrace_stream *stream)
{
	lockdep_assert_held(&stream->lock);
	if (stream->attr.stream_full_policy != POSIXTRACE_FLUSH)
		return;
	if (stream->auto_stopped || stream->ring.used >= stream->ring.size / 2)
		posixtrace_flush_request(stream);
}

/**
 * posixtrace_flush_open - give a new stream its log
 * @stream: the stream, not yet published
 * @fd: the caller's descriptor for the log
 *
 * Return: 0 or the error of posixtrace_log_open().
 */
int posixtrace_flush_open(struct posixtrace_stream *stream, int fd)
{
	struct posixtrace_log *log;
	char *buf, *path;
	int ret;

	log = kzalloc(sizeof(*log), GFP_KERNEL_ACCOUNT);
	if (!log)
		return -ENOMEM;
	/* Freed with the stream, even half set up. */
	stream->log = log;
	mutex_init(&stream->log_lock);
	INIT_WORK(&stream->flush_work, posixtrace_flush_work);
	init_completion(&stream->log_closed);
	ret = posixtrace_log_open(log, fd, &stream->attr);
	if (ret)
		return ret;
	/* For monitoring: where the log went, as it was named then. */
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (buf) {
		path = d_path(&log->file->f_path, buf, PATH_MAX);
		if (!IS_ERR(path))
			stream->log_path = kstrdup(path, GFP_KERNEL_ACCOUNT);
		kfree(buf);
	}
	return 0;
}

/* The log's news, under the stream's lock: its status and errors. */
static void posixtrace_flush_account(struct posixtrace_stream *stream)
{
	struct posixtrace_log *log = stream->log;
	int error = log->error;

	lockdep_assert_held(&stream->lock);
	stream->log_full = log->full;
	stream->log_overrun |= log->overrun;
	log->overrun = false;
	if (!error)
		return;
	log->error = 0;
	/* POSIX keeps the first error until it is read. */
	if (!stream->flush_error)
		stream->flush_error = error;
	posixtrace_stream_store_error(stream, error);
}

/*
 * Take the records numbered below @limit out of the ring and write them,
 * a batch at a time. The ring's bounce buffer is the readers'; a stream
 * with a log has no readers, so it is the flush's.
 */
static void posixtrace_flush_records(struct posixtrace_stream *stream,
				     u64 limit)
{
	size_t bytes;
	bool stale;
	int n;

	do {
		spin_lock(&stream->lock);
		n = posixtrace_stream_fill(stream, stream->bounce,
					   stream->bounce_size, limit, &bytes);
		stale = stream->enable_stale;
		stream->enable_stale = false;
		spin_unlock(&stream->lock);
		/* Restarted or not, after a drain: redo the enable bits. */
		if (stale)
			posixtrace_links_update(stream);
		if (n > 0)
			posixtrace_log_write(stream->log, stream->proc,
					     stream->bounce, bytes);
		spin_lock(&stream->lock);
		posixtrace_flush_account(stream);
		spin_unlock(&stream->lock);
	} while (n > 0);
}

/* Record FLUSH_START or FLUSH_STOP; returns the number the next one gets. */
static u64 posixtrace_flush_mark(struct posixtrace_stream *stream, u32 id)
{
	struct timespec64 ts;
	u64 seq;

	spin_lock(&stream->lock);
	ktime_get_real_ts64(&ts);
	posixtrace_stream_store_system(stream, id, NULL, &ts, NULL, 0);
	seq = stream->seq;
	spin_unlock(&stream->lock);
	return seq;
}

/* The END block: the stream's status as it was shut down. */
static void posixtrace_flush_close(struct posixtrace_stream *stream)
{
	u64 filter[POSIXTRACE_EVENTSET_WORDS];
	struct posixtrace_log_end *end;
	struct timespec64 ts;
	void *ring, *bounce;
	int i;

	end = kzalloc(sizeof(*end), GFP_KERNEL);
	spin_lock(&stream->lock);
	posixtrace_flush_account(stream);
	if (end) {
		end->stream_status = cpu_to_le32(POSIXTRACE_SUSPENDED);
		end->full_status = cpu_to_le32(stream->full_status);
		end->overrun_status = cpu_to_le32(stream->overrun_status);
		end->flush_error = cpu_to_le32(stream->flush_error);
		end->log_overrun_status =
			cpu_to_le32(stream->log_overrun ? POSIXTRACE_OVERRUN :
				    POSIXTRACE_NO_OVERRUN);
		end->log_full_status =
			cpu_to_le32(stream->log_full ? POSIXTRACE_FULL :
				    POSIXTRACE_NOT_FULL);
		end->events_recorded = cpu_to_le64(stream->events_recorded);
		end->events_lost = cpu_to_le64(stream->events_lost);
		bitmap_to_arr64(filter, stream->filter, POSIXTRACE_EVENT_ID_MAX);
	}
	ring = posixtrace_ring_detach(&stream->ring);
	spin_unlock(&stream->lock);
	kvfree(ring);

	if (end) {
		for (i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++)
			end->filter[i] = cpu_to_le64(filter[i]);
		end->events_flushed = cpu_to_le64(stream->log->events_flushed);
		end->events_discarded =
			cpu_to_le64(stream->log->events_discarded);
		ktime_get_real_ts64(&ts);
		end->end_time_sec = cpu_to_le64(ts.tv_sec);
		end->end_time_nsec = cpu_to_le32(ts.tv_nsec);
		posixtrace_log_close(stream->log, stream->proc, end);
		kfree(end);
	}
	posixtrace_log_release(stream->log);

	mutex_lock(&stream->read_lock);
	bounce = stream->bounce;
	stream->bounce = NULL;
	mutex_unlock(&stream->read_lock);
	kvfree(bounce);
}

static void posixtrace_flush_work(struct work_struct *work)
{
	struct posixtrace_stream *stream =
		container_of(work, struct posixtrace_stream, flush_work);
	bool final;
	u64 limit;

	mutex_lock(&stream->log_lock);
	for (;;) {
		spin_lock(&stream->lock);
		final = stream->log_final;
		if (!stream->flush_requested && !final) {
			stream->flushing = false;
			spin_unlock(&stream->lock);
			break;
		}
		stream->flush_requested = false;
		stream->flushing = true;
		spin_unlock(&stream->lock);
		/* A log closed by an earlier run of the work has no file. */
		if (!stream->log->file)
			break;

		limit = posixtrace_flush_mark(stream, POSIXTRACE_EVENT_FLUSH_START);
		posixtrace_flush_records(stream, limit);
		limit = posixtrace_flush_mark(stream, POSIXTRACE_EVENT_FLUSH_STOP);
		if (final) {
			/* Stopped for good: what is left ends with FLUSH_STOP. */
			posixtrace_flush_records(stream, limit);
			posixtrace_flush_close(stream);
			spin_lock(&stream->lock);
			stream->flushing = false;
			spin_unlock(&stream->lock);
			/*
			 * Its memory is freed: the slot may serve another,
			 * by the time whoever waits for the close returns.
			 */
			posixtrace_stream_slot_put(stream->owner);
			complete_all(&stream->log_closed);
			break;
		}
		/* After SHUTDOWN, which is the last notification, no more. */
		spin_lock(&stream->lock);
		if (!stream->shut_down)
			posixtrace_nl_notify(stream,
					     POSIXTRACE_NL_EV_FLUSH_DONE);
		spin_unlock(&stream->lock);
		cond_resched();
	}
	mutex_unlock(&stream->log_lock);
	posixtrace_stream_put(stream);
	/* destroy_workqueue() in module exit waits for us to return. */
	module_put(THIS_MODULE);
}

/**
 * posixtrace_flush_clear - posix_trace_clear() for the log
 * @stream: the stream; its log_lock is held, its ring just emptied
 *
 * The caller took log_lock before emptying the ring, so that no flush can
 * carry anything recorded before the clear into the log after it.
 */
void posixtrace_flush_clear(struct posixtrace_stream *stream)
{
	lockdep_assert_held(&stream->log_lock);
	if (stream->log->file)
		posixtrace_log_clear(stream->log);
	spin_lock(&stream->lock);
	posixtrace_flush_account(stream);
	spin_unlock(&stream->lock);
}

/*
 * How long an exiting creator waits for its log. A fatal signal cannot cut
 * that wait short (do_exit() has consumed it, and takes no more), and the
 * log may be a pipe the same process would have drained: bounded, then.
 */
#define POSIXTRACE_FLUSH_EXIT_WAIT	(10 * HZ)

/**
 * posixtrace_flush_final - flush everything and close the log
 * @stream: a stream with a log, already stopped for good (shut_down)
 * @wait: wait until the log is closed: killably, or for at most
 *	  POSIXTRACE_FLUSH_EXIT_WAIT in a task that is exiting
 *
 * Safe to call more than once: the work runs once.
 */
void posixtrace_flush_final(struct posixtrace_stream *stream, bool wait)
{
	spin_lock(&stream->lock);
	if (!stream->log_final) {
		stream->log_final = true;
		stream->flushing = true;
		posixtrace_flush_queue(stream);
	}
	spin_unlock(&stream->lock);
	if (!wait)
		return;
	if (current->flags & PF_EXITING)
		wait_for_completion_timeout(&stream->log_closed,
					    POSIXTRACE_FLUSH_EXIT_WAIT);
	else
		wait_for_completion_killable(&stream->log_closed);
}

/* The stream is being freed: whatever of the log is left. */
void posixtrace_flush_free(struct posixtrace_stream *stream)
{
	if (!stream->log)
		return;
	posixtrace_log_release(stream->log);
	kfree(stream->log);
	mutex_destroy(&stream->log_lock);
}
