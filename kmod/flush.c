// SPDX-License-Identifier: GPL-2.0
/*
 * Flushing a stream to its trace log (TRL), from a thread of its own.
 *
 * A flush (posix_trace_flush(), the FLUSH policy, or shutdown) records
 * FLUSH_START, takes every record stored up to and including it out of the
 * buffer a batch at a time, writes each batch to the log, and records
 * FLUSH_STOP (a FLUSH stream's flush first writes what it and the rings
 * hold, as its log keeps up: below). Producers go on recording meanwhile,
 * into the space each batch frees; what they record comes after
 * FLUSH_START and waits for the next flush. Records leave the buffer before
 * they are written, as a reader's would: if the write fails, they are
 * counted discarded and the error kept for posix_trace_get_status(), and
 * an ERROR event (its data the error number) is recorded.
 *
 * POSIXTRACE_FLUSH: the stream is flushed whenever it is half full, and
 * when it fills (it then stops, as UNTIL_FULL does, until the flush has
 * emptied it). Its log keeps up rather than wait for that: a kick of a
 * thread ring of the stream's only process asks the thread for the
 * ring's records (posixtrace_flush_takes()) instead of queueing a drain,
 * and the thread takes them from the rings straight into its batch and
 * writes them (posixtrace_flush_direct()), a batch at a time, without
 * FLUSH_START or FLUSH_STOP: a flush when one is due (posix_trace_flush(),
 * half full, shutdown) still records them around what it writes. A
 * record is copied from its ring to the batch and from there to the log's
 * block, never into the stream, while the log keeps up; once it falls
 * behind (a ring without room), a drain stores records in the stream,
 * which fills and stops as FLUSH says, and the thread takes them from
 * there.
 *
 * posix_trace_clear(): the caller only counts it (stream->clears); the
 * thread forgets what the log holds (posixtrace_log_clear()) before it
 * writes any record taken after the clear, as it learns with each batch
 * it takes. So nobody but the thread ever waits for the log's file.
 *
 * Shutdown: the stream is stopped, then the thread flushes everything
 * left, writes the type table and the final status, frees the buffer,
 * closes the file and exits. Whoever shuts down may wait for that (see
 * posixtrace_flush_final()).
 *
 * Why a thread of its own, not a work queue: a log is a file the user
 * chose, and a write to it can wait on the user (a pipe nobody reads, a
 * FUSE server, a stopped reader) for ever. A kernel worker cannot be
 * interrupted; this thread takes SIGKILL. Once the stream is shut down, a
 * watchdog checks that the writes make progress: when none was made for
 * log_stall_timeout seconds, the log is abandoned (the thread is sent
 * SIGKILL, which ends a write waiting on a pipe; nothing more is written;
 * what was not written is counted discarded, and the kernel log says so),
 * so that the stream's memory, its places and the module are always given
 * back in bounded time. The thread holds a reference on the stream and on
 * the module from its start to its exit.
 *
 * The thread alone writes the log and owns struct posixtrace_log; it takes
 * the stream's spinlock only to move records and status, so
 * posix_trace_get_status() never waits for the file.
 *
 * What the thread cannot bound: a write the kernel itself does not let a
 * signal end (a FUSE server that read the request and never answers, a
 * frozen file system). The thread then keeps the stream's memory, its
 * place (counted in its creator's quota) and the module until that write
 * returns; nothing else waits for it: not the creator past its exit, not
 * the reap work, not a kernel thread's fput.
 */

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "drain.h"
#include "links.h"
#include "log.h"
#include "stream_core.h"

/* Seconds a shut-down stream's log may go without progress. */
static unsigned int log_stall_timeout = 10;

static int posixtrace_param_set_stall(const char *val,
				      const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 3600);
}

static const struct kernel_param_ops posixtrace_stall_ops = {
	.set = posixtrace_param_set_stall,
	.get = param_get_uint,
};

module_param_cb(log_stall_timeout, &posixtrace_stall_ops, &log_stall_timeout,
		0644);
MODULE_PARM_DESC(log_stall_timeout, "Seconds without progress after which a shut-down stream's log is abandoned (1-3600)");

static int posixtrace_flush_thread(void *data);
static void posixtrace_flush_stalled(struct timer_list *timer);

/*
 * Wake the thread: a flush is due. Under the stream's lock, which the
 * thread takes to read what is due.
 */
static void posixtrace_flush_queue(struct posixtrace_stream *stream)
{
	lockdep_assert_held(&stream->lock);
	wake_up(&stream->flush_wq);
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

/**
 * posixtrace_flush_takes - does the log's thread take what a thread ring
 *	holds for @stream from the ring itself?
 * @stream: the only stream tracing the ring's process
 * @ask: if so, ask for the records now (the ring's kick: it is filling)
 *
 * Yes for a running FLUSH stream with a log: the thread takes the records
 * straight from the rings, a batch at a time, and writes them
 * (posixtrace_flush_direct()), so a drain need not copy them into the
 * stream first, nor the timer's drain for a while. Asked while it
 * writes, it takes more once done. Under RCU; never sleeps.
 *
 * Return: true if the thread takes them.
 */
bool posixtrace_flush_takes(struct posixtrace_stream *stream, bool ask)
{
	bool takes;

	/* Fixed at creation: no lock. */
	if (!stream->log ||
	    stream->attr.stream_full_policy != POSIXTRACE_FLUSH)
		return false;
	spin_lock(&stream->lock);
	takes = posixtrace_stream_running(stream) && !stream->shut_down;
	if (takes && ask && !stream->take_requested) {
		stream->take_requested = true;
		posixtrace_flush_queue(stream);
	}
	spin_unlock(&stream->lock);
	return takes;
}

/**
 * posixtrace_flush - posix_trace_flush(): queue a flush and return
 * @stream: the stream
 *
 * The status says FLUSHING until it is done.
 *
 * Return: 0, or -EINVAL for a stream without a log, or shut down.
 */
int posixtrace_flush(struct posixtrace_stream *stream)
{
	int ret = 0;

	if (!stream->log)
		return -EINVAL;
	spin_lock(&stream->lock);
	if (stream->shut_down)
		ret = -EINVAL;
	else
		posixtrace_flush_request(stream);
	spin_unlock(&stream->lock);
	return ret;
}

/* POSIXTRACE_FLUSH: after a store, flush if half full or stopped full. */
void posixtrace_flush_maybe(struct posixtrace_stream *stream)
{
	lockdep_assert_held(&stream->lock);
	if (stream->attr.stream_full_policy != POSIXTRACE_FLUSH)
		return;
	if (posixtrace_stream_stopped_full(stream) ||
	    stream->buf.used >= stream->buf.size / 2)
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
	init_waitqueue_head(&stream->flush_wq);
	init_completion(&stream->log_closed);
	timer_setup(&stream->stall_timer, posixtrace_flush_stalled, 0);
	ret = posixtrace_log_open(log, fd, &stream->attr);
	if (ret)
		return ret;
	/*
	 * Started once the stream is published: posixtrace_flush_start().
	 * Named for the creator, within a task's 15 characters.
	 */
	stream->flusher = kthread_create(posixtrace_flush_thread, stream,
					 "ptlog/%d", task_tgid_nr(current));
	if (IS_ERR(stream->flusher)) {
		ret = PTR_ERR(stream->flusher);
		stream->flusher = NULL;
		return ret;
	}
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
	/* Not before the log has caught up with a clear, which emptied it. */
	if (stream->log_clears == stream->clears)
		stream->log_full = log->full;
	stream->log_overrun |= log->overrun;
	log->overrun = false;
	/* The log's thread alone writes it: mirrored here, read by STATUS. */
	stream->log_discarded = log->events_discarded;
	if (!error)
		return;
	log->error = 0;
	/* POSIX keeps the first error until it is read. */
	if (!stream->flush_error)
		stream->flush_error = error;
	posixtrace_stream_store_error(stream, error);
}

/*
 * posix_trace_clear() was called @clears times when the next records were
 * taken: if the log has not had them all, it forgets its events now,
 * before those records (taken after the clear) go in.
 */
static void posixtrace_flush_catch_up(struct posixtrace_stream *stream,
				      u32 clears)
{
	if (clears == stream->log_clears)
		return;
	posixtrace_log_clear(stream->log);
	spin_lock(&stream->lock);
	stream->log_clears = clears;
	posixtrace_flush_account(stream);
	spin_unlock(&stream->lock);
}

/*
 * Write the batch of @bytes in the bounce buffer, taken after the
 * stream's @clears-th clear, and mirror the log's news in the stream.
 */
static void posixtrace_flush_write(struct posixtrace_stream *stream,
				   size_t bytes, u32 clears)
{
	posixtrace_flush_catch_up(stream, clears);
	if (bytes)
		posixtrace_log_write(stream->log,
				     posixtrace_stream_names(stream),
				     stream->bounce, bytes);
	spin_lock(&stream->lock);
	posixtrace_flush_account(stream);
	spin_unlock(&stream->lock);
}

/*
 * Take the records numbered below @limit out of the buffer and write them,
 * a batch at a time; returns their bytes. The stream's bounce buffer is the
 * readers'; a stream with a log has no readers, so it is the flush's.
 */
static size_t posixtrace_flush_records(struct posixtrace_stream *stream,
				       u64 limit)
{
	size_t bytes, written = 0;
	u32 clears;
	int n;

	do {
		n = posixtrace_stream_take(stream, stream->bounce,
					   stream->bounce_size, limit, &bytes,
					   false, &clears);
		if (n <= 0)
			bytes = 0;
		posixtrace_flush_write(stream, bytes, clears);
		written += bytes;
	} while (n > 0);
	return written;
}

/*
 * A FLUSH stream's log: write what the stream holds, then what its
 * sources (the threads' rings) hold, straight into the batch and to the
 * log, as a reader takes them (posixtrace_stream_take_direct()), a batch
 * at a time: records only the log wants are not copied into the stream
 * and out again. Records a drain stored meanwhile (a kick that found its
 * ring full, say) are taken on the way. At most about a stream's worth,
 * so that a producer faster than the log does not keep the thread from a
 * flush asked for. The log's records are in the order the stream's would
 * have been: this only saves copies. Not for the other policies: their
 * flush drains first, for LOOP to overwrite and UNTIL_FULL to stop as a
 * drain of everything made before the flush says.
 */
static void posixtrace_flush_direct(struct posixtrace_stream *stream)
{
	size_t room = min_t(size_t, stream->bounce_size,
			    stream->attr.stream_size);
	struct posixtrace_direct direct;
	size_t written = 0, stored;
	bool stopped;
	u64 limit;

	while (written < stream->attr.stream_size) {
		spin_lock(&stream->lock);
		stopped = posixtrace_stream_stopped_full(stream);
		limit = stream->seq;
		spin_unlock(&stream->lock);
		/*
		 * Stopped because full: emptied, it would restart before a
		 * drain judged lost what was made meanwhile. The flush its
		 * fill asked for drains first.
		 */
		if (stopped)
			break;
		stored = posixtrace_flush_records(stream, limit);
		written += stored;
		direct = (struct posixtrace_direct) {
			.dst = stream->bounce,
			.room = room,
			.pieces = true,
		};
		if (!posixtrace_stream_take_direct(stream, &direct, NULL)) {
			/* Stored meanwhile: taken next time round. */
			if (stored && READ_ONCE(stream->buf.count))
				continue;
			break;
		}
		if (!direct.n)
			break;
		posixtrace_flush_write(stream, direct.used, direct.clears);
		written += direct.used;
	}
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

/*
 * The END block: the stream's status as it was shut down. Returns true if
 * the whole log was written.
 */
static bool posixtrace_flush_close(struct posixtrace_stream *stream)
{
	DECLARE_BITMAP(filter, POSIXTRACE_EVENT_ID_MAX);
	struct posixtrace_log *log = stream->log;
	struct posixtrace_status st;
	void *mem, *bounce;
	bool written;

	spin_lock(&stream->lock);
	posixtrace_flush_account(stream);
	/*
	 * ERROR records the last writes' failures stored after FLUSH_STOP:
	 * too late for the log, counted in it as discarded.
	 */
	if (stream->buf.count) {
		log->events_discarded += stream->buf.count;
		stream->log_discarded = log->events_discarded;
		stream->log_overrun = true;
	}
	__posixtrace_stream_status(stream, &st);
	bitmap_copy(filter, stream->filter, POSIXTRACE_EVENT_ID_MAX);
	mem = posixtrace_buf_detach(&stream->buf);
	spin_unlock(&stream->lock);
	kvfree(mem);

	written = posixtrace_log_close(log, posixtrace_stream_names(stream),
				       &st, filter);

	/* A stream with a log has no readers: read_lock is free. */
	mutex_lock(&stream->read_lock);
	bounce = stream->bounce;
	stream->bounce = NULL;
	mutex_unlock(&stream->read_lock);
	kvfree(bounce);
	return written;
}

/*
 * The thread's RLIMIT_FSIZE is the creator's, read again before every
 * flush (the creator may change it), so that file systems apply it to our
 * writes exactly as to the creator's own. The thread is a process of its
 * own: the limit is nobody else's.
 */
static void posixtrace_flush_take_fsize_limit(struct posixtrace_stream *stream)
{
	struct posixtrace_log *log = stream->log;
	struct task_struct *creator;

	rcu_read_lock();
	creator = pid_task(stream->creator, PIDTYPE_TGID);
	if (creator)
		log->fsize_limit = task_rlimit(creator, RLIMIT_FSIZE);
	rcu_read_unlock();
	task_lock(current->group_leader);
	current->signal->rlim[RLIMIT_FSIZE].rlim_cur = log->fsize_limit;
	task_unlock(current->group_leader);
}

/*
 * The log is written (or given up): close the file, give the stream's
 * place back and wake whoever waits in posixtrace_flush_final(). Outside
 * the creator's memory cgroup, whose reference goes with the log.
 */
static void posixtrace_flush_finish(struct posixtrace_stream *stream,
				    bool written)
{
	struct posixtrace_log *log = stream->log;

	/* A slow close (a lingering socket) is still the watchdog's. */
	posixtrace_log_release(log, true);
	del_timer_sync(&stream->stall_timer);
	if (READ_ONCE(log->abandoned) && !written)
		pr_warn_ratelimited("stream %llu (creator %d): log abandoned after %us without progress, %llu events not written\n",
				    stream->id, pid_nr(stream->creator),
				    READ_ONCE(log_stall_timeout),
				    log->events_discarded);
	spin_lock(&stream->lock);
	stream->flushing = false;
	spin_unlock(&stream->lock);
	/* Its memory is freed: the slot may serve another. */
	posixtrace_stream_slot_put(stream->quota_user);
	complete_all(&stream->log_closed);
}

/*
 * One round of the thread: a flush (FLUSH_START, the records, FLUSH_STOP),
 * the final one (which then closes the log: returns true, and whether the
 * whole log was written in @written), or only a clear to catch up with
 * and the records a ring's kick asked to be taken (posixtrace_flush_takes()),
 * written as a flush writes them, without marks of their own: the log
 * keeps up, and a flush, when one is due, finds little left to write.
 */
static bool posixtrace_flush_round(struct posixtrace_stream *stream,
				   bool *written)
{
	bool final, flush, take;
	u32 clears;
	u64 limit;

	spin_lock(&stream->lock);
	final = stream->log_final;
	flush = final || stream->flush_requested;
	stream->flush_requested = false;
	stream->flushing |= flush;
	take = stream->take_requested;
	stream->take_requested = false;
	clears = stream->clears;
	spin_unlock(&stream->lock);

	/* Only the watchdog's SIGKILL may cut a write short. */
	if (!READ_ONCE(stream->log->abandoned))
		flush_signals(current);
	posixtrace_flush_take_fsize_limit(stream);
	if (!flush) {
		/* Before the records: they may come after the clear. */
		posixtrace_flush_catch_up(stream, clears);
		if (take)
			posixtrace_flush_direct(stream);
		return false;
	}
	if (stream->attr.stream_full_policy == POSIXTRACE_FLUSH)
		posixtrace_flush_direct(stream);
	/* Everything the threads made before the flush was asked for. */
	posixtrace_drain(stream->domain);
	limit = posixtrace_flush_mark(stream, POSIXTRACE_EVENT_FLUSH_START);
	posixtrace_flush_records(stream, limit);
	limit = posixtrace_flush_mark(stream, POSIXTRACE_EVENT_FLUSH_STOP);
	if (final) {
		/* What is left ends with FLUSH_STOP, then the END block. */
		posixtrace_flush_records(stream, limit);
		*written = posixtrace_flush_close(stream);
		return true;
	}
	spin_lock(&stream->lock);
	/* After SHUTDOWN, which is the last notification, no more. */
	if (!stream->shut_down)
		posixtrace_stream_news(stream, POSIXTRACE_NL_EV_FLUSH_DONE);
	/* FLUSHING until no flush is due any more. */
	if (!stream->flush_requested && !stream->log_final)
		stream->flushing = false;
	spin_unlock(&stream->lock);
	return false;
}

static bool posixtrace_flush_due(struct posixtrace_stream *stream)
{
	return READ_ONCE(stream->flush_requested) ||
	       READ_ONCE(stream->take_requested) ||
	       READ_ONCE(stream->log_final) ||
	       READ_ONCE(stream->clears) != stream->log_clears;
}

static int posixtrace_flush_thread(void *data)
{
	struct posixtrace_stream *stream = data;
	struct mem_cgroup *old_memcg;
	bool closed = false, written = false;

	/*
	 * The watchdog's way to end a write stuck on a pipe or the like; a
	 * signal from user space (even root's kill) is not let in.
	 */
	allow_kernel_signal(SIGKILL);
	while (!closed) {
		/* Idle, not interruptible: a stray signal must not spin us. */
		wait_event_idle(stream->flush_wq, posixtrace_flush_due(stream));
		/* Page cache and buffers the writes allocate: the creator's. */
		old_memcg = set_active_memcg(stream->log->memcg);
		closed = posixtrace_flush_round(stream, &written);
		set_active_memcg(old_memcg);
		cond_resched();
	}
	posixtrace_flush_finish(stream, written);
	posixtrace_stream_put(stream);
	/* Drops the module in core code, which outlives our text. */
	module_put_and_kthread_exit(0);
}

/*
 * The watchdog of a shut-down stream's log: if the thread made no progress
 * since the last tick, give up on the log and end the write it waits in.
 */
static void posixtrace_flush_stalled(struct timer_list *timer)
{
	struct posixtrace_stream *stream =
		from_timer(stream, timer, stall_timer);
	u64 progress = READ_ONCE(stream->log->progress);

	if (progress != stream->stall_progress) {
		stream->stall_progress = progress;
		mod_timer(timer, jiffies + READ_ONCE(log_stall_timeout) * HZ);
		return;
	}
	/* Read by the thread once its write returns. */
	WRITE_ONCE(stream->log->abandoned, true);
	send_sig(SIGKILL, stream->flusher, 1);
}

/**
 * posixtrace_flush_start - start the log's thread
 * @stream: a stream with a log, just published
 *
 * Nothing fails from here on: the thread now owns the rest of the log's
 * life, with a reference on the stream and on the module.
 */
void posixtrace_flush_start(struct posixtrace_stream *stream)
{
	posixtrace_stream_get(stream);
	__module_get(THIS_MODULE);
	stream->flusher_started = true;
	wake_up_process(stream->flusher);
}

/**
 * posixtrace_flush_clear - posix_trace_clear() for the log
 * @stream: the stream, its lock held, its ring just emptied and its
 *	    clears counted
 *
 * The thread forgets the log's events before it writes anything recorded
 * from now on (posixtrace_flush_catch_up()); the status says at once that
 * the log is not full.
 */
void posixtrace_flush_clear(struct posixtrace_stream *stream)
{
	lockdep_assert_held(&stream->lock);
	stream->log_full = false;
	posixtrace_flush_queue(stream);
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
 * Arms the watchdog: from now on the log is abandoned if it makes no
 * progress for log_stall_timeout seconds, so that even an unkillable
 * wait here would end. Safe to call more than once.
 */
void posixtrace_flush_final(struct posixtrace_stream *stream, bool wait)
{
	spin_lock(&stream->lock);
	if (!stream->log_final) {
		stream->log_final = true;
		stream->flushing = true;
		stream->stall_progress = READ_ONCE(stream->log->progress);
		mod_timer(&stream->stall_timer,
			  jiffies + READ_ONCE(log_stall_timeout) * HZ);
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
	/* Created but never started: it ends without running. */
	if (stream->flusher && !stream->flusher_started)
		kthread_stop(stream->flusher);
	posixtrace_log_release(stream->log, false);
	kfree(stream->log);
}
