// SPDX-License-Identifier: GPL-2.0
/*
 * Trace streams: creation, recording, the full policies, and shutdown.
 *
 * Recording. An emitter (posixtrace_stream_emit()) builds the record header
 * outside the lock, then stores header and data into the ring under the
 * stream's spinlock. Every event generated while the stream accepts events
 * takes the next sequence number, stored or lost, so that loss shows as a
 * gap as well as in the counters.
 *
 * Full policies. The ring holds stream_size bytes of records plus room for
 * one STOP: every other record leaves that much free, so that the STOP an
 * UNTIL_FULL stream records when it fills can always be recorded:
 *
 *  - POSIX_TRACE_LOOP: the oldest records are overwritten, each counted
 *    lost, and the overrun status is set. The stream stays running and is
 *    full until a reader frees space. Readers report the gap as
 *    POSIX_TRACE_OVERFLOW (stamped with the first overwritten event's time)
 *    and POSIX_TRACE_RESUME (stamped with the next event's time) just before
 *    the first event after it; they are built by the reader and take no
 *    room in the ring.
 *  - POSIX_TRACE_UNTIL_FULL: an event that does not fit stops the stream:
 *    it is lost, the stream becomes suspended and full, and a
 *    POSIX_TRACE_STOP with "auto" data 1 is recorded in the kept room.
 *    Events generated while it is stopped so are lost (overrun). Once
 *    readers have emptied it, the stream restarts by itself and records
 *    POSIX_TRACE_START, unless posix_trace_stop() was called meanwhile.
 *
 * Filters (TEF). Event types in a stream's filter are neither recorded nor
 * counted: the check is made under the stream's lock, where the filter is
 * also changed, so a change is atomic for every producer. System events
 * are filtered like the others. START carries the filter in force, FILTER
 * the old and the new one.
 */

#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/pid_namespace.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "access.h"
#include "links.h"
#include "process.h"
#include "quota.h"
#include "stream.h"
#include "ustruct.h"

/*
 * Limits root may change. Each has a ceiling, so that no setting lets a
 * user's sizes overflow a record's u32 size or reach kvmalloc()'s limit.
 */
static unsigned int max_streams = 64;
static unsigned int max_stream_size = SZ_64M;
static unsigned int max_data_size = SZ_64K;

static int posixtrace_param_set_streams(const char *val,
					const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 4096);
}

static int posixtrace_param_set_stream_size(const char *val,
					    const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, POSIXTRACE_SYSTEM_RECORD_MAX,
				     SZ_1G);
}

static int posixtrace_param_set_data_size(const char *val,
					  const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, SZ_1M);
}

static const struct kernel_param_ops posixtrace_streams_ops = {
	.set = posixtrace_param_set_streams,
	.get = param_get_uint,
};

static const struct kernel_param_ops posixtrace_stream_size_ops = {
	.set = posixtrace_param_set_stream_size,
	.get = param_get_uint,
};

static const struct kernel_param_ops posixtrace_data_size_ops = {
	.set = posixtrace_param_set_data_size,
	.get = param_get_uint,
};

module_param_cb(max_streams, &posixtrace_streams_ops, &max_streams, 0644);
MODULE_PARM_DESC(max_streams, "TRACE_SYS_MAX: trace streams system-wide (1-4096)");
module_param_cb(max_stream_size, &posixtrace_stream_size_ops,
		&max_stream_size, 0644);
MODULE_PARM_DESC(max_stream_size, "Largest stream size in bytes, ENOMEM above (352-1G)");
module_param_cb(max_data_size, &posixtrace_data_size_ops, &max_data_size,
		0644);
MODULE_PARM_DESC(max_data_size, "Largest max data size attribute in bytes (0-1M)");

#define POSIXTRACE_DEFAULT_STREAM_SIZE	SZ_1M
/* Readers copy out at most this much per call, and at least one record. */
#define POSIXTRACE_BOUNCE_SIZE		((size_t)SZ_64K)

/* The streams: for TRACE_SYS_MAX, the exit hook and, later, monitoring. */
static LIST_HEAD(posixtrace_streams);
static DEFINE_SPINLOCK(posixtrace_streams_lock);
/* Streams not shut down: TRACE_SYS_MAX counts these. */
static atomic_t posixtrace_nr_streams = ATOMIC_INIT(0);
/* The last stream id given out, under the lock: ids grow along the list. */
static u64 posixtrace_stream_last_id;

static void posixtrace_streams_reap(struct work_struct *work);
static DECLARE_WORK(posixtrace_reap_work, posixtrace_streams_reap);

static int posixtrace_attr_check(struct posixtrace_attr *attr, bool log)
{
	if (attr->flags || attr->__reserved || attr->__reserved2)
		return -EINVAL;
	if (strnlen(attr->name, sizeof(attr->name)) == sizeof(attr->name))
		return -EINVAL;
	/* POSIXTRACE_FLUSH needs a trace log. */
	if (attr->stream_full_policy != POSIXTRACE_LOOP &&
	    attr->stream_full_policy != POSIXTRACE_UNTIL_FULL &&
	    (attr->stream_full_policy != POSIXTRACE_FLUSH || !log))
		return -EINVAL;
	if (attr->log_full_policy != POSIXTRACE_LOOP &&
	    attr->log_full_policy != POSIXTRACE_UNTIL_FULL &&
	    attr->log_full_policy != POSIXTRACE_APPEND)
		return -EINVAL;
	if (attr->inheritance != POSIXTRACE_CLOSE_FOR_CHILD &&
	    attr->inheritance != POSIXTRACE_INHERITED)
		return -EINVAL;
	if (attr->max_data_size > READ_ONCE(max_data_size))
		return -EINVAL;
	if (!attr->stream_size)
		attr->stream_size = POSIXTRACE_DEFAULT_STREAM_SIZE;
	if (attr->stream_size < POSIXTRACE_SYSTEM_RECORD_MAX)
		return -EINVAL;
	if (attr->stream_size > READ_ONCE(max_stream_size))
		return -ENOMEM;
	return 0;
}

/*
 * The thread group to trace (the caller's for pid 0), with a reference on
 * its leader, whose exec_update_lock the caller takes.
 */
static struct task_struct *posixtrace_target(pid_t pid, struct pid **tgid)
{
	struct task_struct *task;

	if (pid < 0)
		return ERR_PTR(-ESRCH);
	*tgid = pid ? find_get_pid(pid) : get_pid(task_tgid(current));
	if (!*tgid)
		return ERR_PTR(-ESRCH);
	/* A thread id that is not a process id finds no task here. */
	task = get_pid_task(*tgid, PIDTYPE_TGID);
	if (!task) {
		put_pid(*tgid);
		return ERR_PTR(-ESRCH);
	}
	return task;
}

static struct posixtrace_stream *posixtrace_stream_alloc(void)
{
	struct posixtrace_stream *stream;

	stream = kzalloc(sizeof(*stream), GFP_KERNEL_ACCOUNT);
	if (!stream)
		return NULL;
	kref_init(&stream->ref);
	mutex_init(&stream->ctl_lock);
	mutex_init(&stream->read_lock);
	spin_lock_init(&stream->lock);
	init_waitqueue_head(&stream->wq);
	INIT_LIST_HEAD(&stream->links);
	INIT_LIST_HEAD(&stream->all_node);
	stream->full_status = POSIXTRACE_NOT_FULL;
	stream->overrun_status = POSIXTRACE_NO_OVERRUN;
	stream->creator = get_pid(task_tgid(current));
	stream->pid_ns = get_pid_ns(task_active_pid_ns(current));
	stream->owner = current_euid();
	posixtrace_nl_stream_init(stream);
	return stream;
}

static void posixtrace_stream_free(struct kref *ref)
{
	struct posixtrace_stream *stream =
		container_of(ref, struct posixtrace_stream, ref);

	kvfree(posixtrace_ring_detach(&stream->ring));
	kvfree(stream->bounce);
	posixtrace_flush_free(stream);
	kfree(stream->log_path);
	if (stream->proc)
		posixtrace_process_put(stream->proc);
	put_pid_ns(stream->pid_ns);
	put_pid(stream->creator);
	mutex_destroy(&stream->ctl_lock);
	mutex_destroy(&stream->read_lock);
	/* Emitters may still be walking the process's list past it. */
	kfree_rcu(stream, rcu);
}

void posixtrace_stream_get(struct posixtrace_stream *stream)
{
	kref_get(&stream->ref);
}

void posixtrace_stream_put(struct posixtrace_stream *stream)
{
	kref_put(&stream->ref, posixtrace_stream_free);
}

/*
 * The room a record of type @id must leave free in the ring: the STOP an
 * UNTIL_FULL (or FLUSH) stream records when it fills always fits, and
 * with a log so do the FLUSH_START and FLUSH_STOP of the flush that
 * empties it. A stopped stream records no STOP any more: the flush
 * markers need not leave room for one then. Every other type leaves the
 * whole reserve.
 */
static size_t posixtrace_stream_keep(const struct posixtrace_stream *stream,
				     u32 id)
{
	size_t flush = stream->log ? POSIXTRACE_FLUSH_RECORD_SIZE : 0;
	size_t stop = stream->running ? POSIXTRACE_STOP_RECORD_SIZE : 0;

	switch (id) {
	case POSIXTRACE_EVENT_STOP:
		return 0;
	case POSIXTRACE_EVENT_FLUSH_STOP:
		return stop;
	case POSIXTRACE_EVENT_FLUSH_START:
		return stop + flush;
	default:
		return POSIXTRACE_STOP_RECORD_SIZE + 2 * flush;
	}
}

/*
 * Take one of the TRACE_SYS_MAX slots, and one of @user's (quota.c), or
 * fail with EAGAIN.
 */
static int posixtrace_stream_slot_get(kuid_t user)
{
	int nr = atomic_read(&posixtrace_nr_streams);
	int ret;

	do {
		if (nr >= (int)READ_ONCE(max_streams))
			return -EAGAIN;
	} while (!atomic_try_cmpxchg(&posixtrace_nr_streams, &nr, nr + 1));
	/* Asked quietly: a user under the limit is no security event. */
	ret = posixtrace_quota_get(user,
				   ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN));
	if (ret)
		atomic_dec(&posixtrace_nr_streams);
	return ret;
}

/* Give back what posixtrace_stream_slot_get() took. Never sleeps. */
void posixtrace_stream_slot_put(kuid_t user)
{
	posixtrace_quota_put(user);
	atomic_dec(&posixtrace_nr_streams);
}

/* Make the stream visible to emitters and to the stream list. */
static void posixtrace_stream_publish(struct posixtrace_stream *stream,
				      struct posixtrace_link *link)
{
	spin_lock(&posixtrace_streams_lock);
	stream->id = ++posixtrace_stream_last_id;
	list_add_tail(&stream->all_node, &posixtrace_streams);
	spin_unlock(&posixtrace_streams_lock);
	posixtrace_link_attach(link, stream, stream->proc);
	spin_lock(&stream->lock);
	posixtrace_nl_notify(stream, POSIXTRACE_NL_EV_CREATED);
	spin_unlock(&stream->lock);
}

/**
 * posixtrace_stream_create - create a suspended trace stream
 * @uattr: its attributes
 * @pid: the process to trace, 0 for the caller
 * @mem_fd: the caller's proof it may trace @pid (see access.c), or -1
 * @log_fd: the caller's descriptor for the trace log, or -1 for none
 *
 * Return: the stream's new file descriptor (close-on-exec), or -EINVAL,
 * -EFAULT, -E2BIG (attributes), -ESRCH, -EPERM (target), -EAGAIN
 * (TRACE_SYS_MAX), -ENOMEM, or an error of posixtrace_log_open().
 */
int posixtrace_stream_create(const struct posixtrace_attr __user *uattr,
			     pid_t pid, int mem_fd, int log_fd)
{
	struct posixtrace_link *link = NULL;
	kuid_t user = posixtrace_quota_user(current_cred());
	struct posixtrace_stream *stream;
	struct task_struct *task;
	struct timespec64 now;
	struct file *file;
	struct pid *tgid;
	int fd, ret;

	/* The slot first: a refused create allocates nothing. */
	ret = posixtrace_stream_slot_get(user);
	if (ret)
		return ret;
	stream = posixtrace_stream_alloc();
	if (!stream) {
		ret = -ENOMEM;
		goto err_put_slot;
	}
	stream->quota_user = user;
	ret = posixtrace_struct_from_user(&stream->attr, sizeof(stream->attr),
					  uattr, POSIXTRACE_ATTR_SIZE_VER0);
	if (ret)
		goto err_put_stream;
	ret = posixtrace_attr_check(&stream->attr, log_fd >= 0);
	if (ret)
		goto err_put_stream;
	stream->attr.size = sizeof(stream->attr);
	ktime_get_real_ts64(&now);
	stream->attr.create_time_sec = now.tv_sec;
	stream->attr.create_time_nsec = now.tv_nsec;

	/*
	 * Before the target is looked up. The header is written now, with
	 * the caller's rights: ENOSPC and the like fail the create.
	 */
	if (log_fd >= 0) {
		ret = posixtrace_flush_open(stream, log_fd);
		if (ret)
			goto err_put_stream;
	}
	ret = posixtrace_ring_alloc(&stream->ring, stream->attr.stream_size +
				    posixtrace_stream_keep(stream,
							   POSIXTRACE_EVENT_ERROR));
	if (ret)
		goto err_put_stream;
	stream->bounce_size = max(POSIXTRACE_BOUNCE_SIZE,
				  POSIXTRACE_RECORD_SIZE(stream->attr.max_data_size) +
				  2 * sizeof(struct posixtrace_record));
	stream->bounce = kvmalloc(stream->bounce_size,
				  GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!stream->bounce) {
		ret = -ENOMEM;
		goto err_put_stream;
	}
	link = posixtrace_link_new();
	if (!link) {
		ret = -ENOMEM;
		goto err_put_stream;
	}

	task = posixtrace_target(pid, &tgid);
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto err_put_stream;
	}
	/*
	 * As perf_event_open() does: the target cannot exec between the
	 * permission check and the stream being in place, and an exec after
	 * it finds the stream and judges it (see the exec hook).
	 */
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		goto err_put_task;
	ret = posixtrace_may_trace(task, mem_fd);
	if (ret)
		goto err_unlock_exec;
	stream->proc = posixtrace_process_get(tgid, true);
	if (IS_ERR(stream->proc)) {
		ret = PTR_ERR(stream->proc);
		stream->proc = NULL;
		goto err_unlock_exec;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_unlock_exec;
	}
	file = anon_inode_getfile("[posixtrace]", &posixtrace_stream_fops,
				  stream, O_RDWR | O_CLOEXEC);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto err_put_fd;
	}
	/* Nothing fails from here on: the file owns the reference. */
	posixtrace_stream_publish(stream, link);
	if (stream->log)
		posixtrace_flush_start(stream);
	up_read(&task->signal->exec_update_lock);
	put_task_struct(task);
	put_pid(tgid);
	fd_install(fd, file);
	return fd;

err_put_fd:
	put_unused_fd(fd);
err_unlock_exec:
	up_read(&task->signal->exec_update_lock);
err_put_task:
	put_task_struct(task);
	put_pid(tgid);
err_put_stream:
	kfree(link);
	posixtrace_stream_put(stream);
err_put_slot:
	posixtrace_stream_slot_put(user);
	return ret;
}

/* Fill the fixed part of a record; @task NULL for events of no process. */
static void posixtrace_record_init(struct posixtrace_stream *stream,
				   struct posixtrace_record *rec, u32 id,
				   struct task_struct *task,
				   const struct timespec64 *ts, size_t data_len)
{
	memset(rec, 0, sizeof(*rec));
	rec->size = POSIXTRACE_RECORD_SIZE(data_len);
	rec->header_size = sizeof(*rec);
	rec->event_id = id;
	rec->ts_sec = ts->tv_sec;
	rec->ts_nsec = ts->tv_nsec;
	rec->data_len = data_len;
	if (task) {
		rec->pid = task_tgid_nr_ns(task, stream->pid_ns);
		rec->tid = task_pid_nr_ns(task, stream->pid_ns);
	}
}

/* LOOP: drop the oldest record to make room, keeping the gap's start time. */
static void posixtrace_stream_overwrite_oldest(struct posixtrace_stream *stream)
{
	struct posixtrace_record oldest;

	posixtrace_ring_peek(&stream->ring, &oldest, sizeof(oldest));
	if (stream->full_status != POSIXTRACE_FULL)
		posixtrace_nl_notify(stream, POSIXTRACE_NL_EV_FULL);
	if (!stream->gap_pending) {
		posixtrace_nl_notify(stream, POSIXTRACE_NL_EV_OVERFLOW);
		/* The markers are generated now: filtered as of now. */
		stream->gap_pending = true;
		stream->gap_overflow =
			!test_bit(POSIXTRACE_EVENT_OVERFLOW, stream->filter);
		stream->gap_resume =
			!test_bit(POSIXTRACE_EVENT_RESUME, stream->filter);
		stream->gap_ts_sec = oldest.ts_sec;
		stream->gap_ts_nsec = oldest.ts_nsec;
	}
	posixtrace_ring_drop(&stream->ring, oldest.size);
	stream->events_lost++;
	stream->overrun_status = POSIXTRACE_OVERRUN;
	stream->full_status = POSIXTRACE_FULL;
}

static void posixtrace_stream_lost(struct posixtrace_stream *stream)
{
	stream->seq++;
	stream->events_lost++;
	stream->overrun_status = POSIXTRACE_OVERRUN;
}

static void posixtrace_stream_auto_stop(struct posixtrace_stream *stream,
					const struct timespec64 *ts);

/*
 * Store @rec and its data under the stream's lock, applying the full
 * policy. Only a system STOP may use the room kept for it. Returns false if
 * the event was lost.
 */
static bool posixtrace_stream_store(struct posixtrace_stream *stream,
				    struct posixtrace_record *rec,
				    const void *data, bool system)
{
	struct posixtrace_ring *ring = &stream->ring;
	size_t keep = posixtrace_stream_keep(stream, system ? rec->event_id :
					     POSIXTRACE_EVENT_USER_BASE);

	lockdep_assert_held(&stream->lock);
	if (stream->attr.stream_full_policy == POSIXTRACE_LOOP) {
		/* Even an empty stream could not hold it: only it is lost. */
		if (rec->size + keep > ring->size) {
			posixtrace_stream_lost(stream);
			return false;
		}
		while (posixtrace_ring_free(ring) < rec->size + keep)
			posixtrace_stream_overwrite_oldest(stream);
	} else if (posixtrace_ring_free(ring) < rec->size + keep) {
		struct timespec64 ts = {
			.tv_sec = rec->ts_sec, .tv_nsec = rec->ts_nsec
		};

		posixtrace_stream_lost(stream);
		/* Full: a FILTER event that cannot be recorded stops it too. */
		if (keep && stream->running)
			posixtrace_stream_auto_stop(stream, &ts);
		if (stream->log)
			posixtrace_flush_maybe(stream);
		return false;
	}
	rec->seq = stream->seq++;
	posixtrace_ring_write(ring, rec, sizeof(*rec), data, rec->data_len,
			      rec->size);
	stream->events_recorded++;
	if (stream->log)
		posixtrace_flush_maybe(stream);
	return true;
}

/*
 * Record a system event generated by the stream itself, unless filtered.
 * Returns false only if it was lost for want of room.
 */
bool posixtrace_stream_store_system(struct posixtrace_stream *stream, u32 id,
				    struct task_struct *task,
				    const struct timespec64 *ts,
				    const void *data, size_t len)
{
	struct posixtrace_record rec;

	if (test_bit(id, stream->filter))
		return true;
	posixtrace_record_init(stream, &rec, id, task, ts, len);
	return posixtrace_stream_store(stream, &rec, data, true);
}

static void posixtrace_stream_store_stop(struct posixtrace_stream *stream,
					 struct task_struct *task,
					 const struct timespec64 *ts, u32 automatic)
{
	posixtrace_stream_store_system(stream, POSIXTRACE_EVENT_STOP, task, ts,
				       &automatic, sizeof(automatic));
}

/* START carries the filter in force (XSH 2.11.2, with TEF). */
static bool posixtrace_stream_store_start(struct posixtrace_stream *stream,
					  struct task_struct *task,
					  const struct timespec64 *ts)
{
	struct posixtrace_eventset set;

	bitmap_to_arr64(set.bits, stream->filter, POSIXTRACE_EVENT_ID_MAX);
	return posixtrace_stream_store_system(stream, POSIXTRACE_EVENT_START,
					      task, ts, &set, sizeof(set));
}

static void posixtrace_stream_auto_stop(struct posixtrace_stream *stream,
					const struct timespec64 *ts)
{
	stream->running = false;
	stream->auto_stopped = true;
	stream->restart_pending = true;
	stream->full_status = POSIXTRACE_FULL;
	posixtrace_stream_store_stop(stream, NULL, ts, 1);
	posixtrace_nl_notify(stream, POSIXTRACE_NL_EV_STOPPED);
	posixtrace_nl_notify(stream, POSIXTRACE_NL_EV_FULL);
}

void posixtrace_stream_wake(struct posixtrace_stream *stream)
{
	/* Pairs with the barrier in prepare_to_wait(): see wq_has_sleeper(). */
	if (wq_has_sleeper(&stream->wq))
		wake_up_interruptible(&stream->wq);
}

/*
 * Stamp and store a user event with @len bytes of its data. The caller holds
 * the stream's lock, so that the order of the records in the stream is the
 * order of their times, across CPUs.
 */
static bool posixtrace_stream_store_user(struct posixtrace_stream *stream,
					 const struct posixtrace_emit *emit,
					 size_t len)
{
	struct posixtrace_record rec;
	struct timespec64 ts;

	ktime_get_real_ts64(&ts);
	posixtrace_record_init(stream, &rec, emit->event_id, emit->task, &ts,
			       len);
	rec.prog_address = emit->prog_address;
	rec.thread = emit->thread;
	if (len < emit->data_len)
		rec.truncation = POSIXTRACE_TRUNCATED_RECORD;
	return posixtrace_stream_store(stream, &rec, emit->data, false);
}

/**
 * posixtrace_stream_emit - record a user event into one stream
 * @stream: a stream tracing the calling process
 * @emit: the event, its data already copied in
 *
 * Called under rcu_read_lock(); never sleeps.
 */
void posixtrace_stream_emit(struct posixtrace_stream *stream,
			    const struct posixtrace_emit *emit)
{
	/* The data this stream keeps: truncated to its max data size. */
	size_t len = min_t(size_t, emit->data_len, stream->attr.max_data_size);
	bool stored = false;

	/*
	 * A stream that wants more data than the emitter copied appeared
	 * after it looked: to this stream the event came before it existed.
	 */
	if (len > emit->copied)
		return;

	spin_lock(&stream->lock);
	if (test_bit(emit->event_id, stream->filter)) {
		;	/* filtered out: neither recorded nor lost */
	} else if (stream->running) {
		stored = posixtrace_stream_store_user(stream, emit, len);
		/* Lost, but it stopped the stream: readers get the STOP. */
		stored |= stream->auto_stopped;
	} else if (stream->auto_stopped && stream->restart_pending) {
		/* Generated while full: lost (after a stop, not generated). */
		posixtrace_stream_lost(stream);
	}
	spin_unlock(&stream->lock);
	if (stored)
		posixtrace_stream_wake(stream);
}

/**
 * posixtrace_stream_system_event - start or stop, as the standard says
 * @stream: the stream
 * @id: POSIXTRACE_EVENT_START or POSIXTRACE_EVENT_STOP
 *
 * Starting a running stream or stopping a suspended one records nothing.
 * A stream stopped because it was full (UNTIL_FULL) is left as it is by
 * start; stop only cancels its automatic restart.
 */
void posixtrace_stream_system_event(struct posixtrace_stream *stream, u32 id)
{
	struct timespec64 ts;
	bool stored = false;

	spin_lock(&stream->lock);
	ktime_get_real_ts64(&ts);
	if (stream->shut_down) {
		/* Killed by its creator's exit or exec: nothing to do. */
	} else if (stream->auto_stopped) {
		/* Full: nothing recorded now; the restart follows the last call. */
		stream->restart_pending = id == POSIXTRACE_EVENT_START;
	} else if (id == POSIXTRACE_EVENT_START && !stream->running) {
		/*
		 * UNTIL_FULL with not even room for START (an explicit STOP
		 * took the kept room): the stream is full, and POSIX says
		 * START is then not recorded and nothing changes.
		 */
		if (stream->attr.stream_full_policy != POSIXTRACE_LOOP &&
		    !test_bit(id, stream->filter) &&
		    posixtrace_ring_free(&stream->ring) <
		    POSIXTRACE_RECORD_SIZE(sizeof(struct posixtrace_eventset)) +
		    posixtrace_stream_keep(stream, id)) {
			stream->full_status = POSIXTRACE_FULL;
		} else {
			stored = posixtrace_stream_store_start(stream, current, &ts);
			stream->running = stored;
			if (stored)
				posixtrace_nl_notify(stream,
						     POSIXTRACE_NL_EV_STARTED);
		}
	} else if (id == POSIXTRACE_EVENT_STOP && stream->running) {
		posixtrace_stream_store_stop(stream, current, &ts, 0);
		stream->running = false;
		stored = true;
		posixtrace_nl_notify(stream, POSIXTRACE_NL_EV_STOPPED);
	}
	spin_unlock(&stream->lock);
	if (stored)
		posixtrace_stream_wake(stream);
}

/*
 * UNTIL_FULL: once readers emptied a stream that stopped because it was
 * full, restart it. Called under the stream's lock after a read.
 */
void posixtrace_stream_drained(struct posixtrace_stream *stream)
{
	struct timespec64 ts;

	lockdep_assert_held(&stream->lock);
	/* A read freed space: only an automatic stop outlasts it. */
	if (!stream->auto_stopped) {
		stream->full_status = POSIXTRACE_NOT_FULL;
		return;
	}
	if (stream->ring.count)
		return;
	stream->auto_stopped = false;
	stream->full_status = POSIXTRACE_NOT_FULL;
	/* May record no more, unless it restarts: the reader redoes the bits. */
	stream->enable_stale = true;
	if (stream->restart_pending) {
		stream->restart_pending = false;
		ktime_get_real_ts64(&ts);
		stream->running = posixtrace_stream_store_start(stream, NULL,
								&ts);
		if (stream->running)
			posixtrace_nl_notify(stream, POSIXTRACE_NL_EV_STARTED);
	}
}

/**
 * posixtrace_stream_clear - posix_trace_clear()
 * @stream: the stream; its ctl_lock is held
 *
 * Drops every event, and those already in the log; running or suspended
 * stays so.
 *
 * Return: 0, or -EINTR if a fatal signal came while a flush was writing.
 */
int posixtrace_stream_clear(struct posixtrace_stream *stream)
{
	if (stream->log && mutex_lock_killable(&stream->log_lock))
		return -EINTR;
	spin_lock(&stream->lock);
	if (!stream->shut_down) {
		posixtrace_ring_reset(&stream->ring);
		stream->full_status = POSIXTRACE_NOT_FULL;
		stream->overrun_status = POSIXTRACE_NO_OVERRUN;
		stream->gap_pending = false;
		stream->auto_stopped = false;
		stream->restart_pending = false;
	}
	spin_unlock(&stream->lock);
	if (stream->log) {
		posixtrace_flush_clear(stream);
		mutex_unlock(&stream->log_lock);
	}
	return 0;
}

/**
 * posixtrace_stream_set_filter - posix_trace_set_filter()
 * @stream: the stream; its ctl_lock is held
 * @set: the set of event types given
 * @how: POSIXTRACE_SET_EVENTSET, ADD_EVENTSET or SUB_EVENTSET
 *
 * On a running stream, records FILTER with the old and the new filter,
 * unless the new one filters FILTER out.
 *
 * Return: 0, or -EINVAL for an unknown @how.
 */
int posixtrace_stream_set_filter(struct posixtrace_stream *stream,
				 const unsigned long *set, u32 how)
{
	struct posixtrace_eventset data[2];
	struct timespec64 ts;
	bool stored = false;

	lockdep_assert_held(&stream->ctl_lock);
	if (how != POSIXTRACE_SET_EVENTSET && how != POSIXTRACE_ADD_EVENTSET &&
	    how != POSIXTRACE_SUB_EVENTSET)
		return -EINVAL;

	spin_lock(&stream->lock);
	bitmap_to_arr64(data[0].bits, stream->filter, POSIXTRACE_EVENT_ID_MAX);
	if (how == POSIXTRACE_SET_EVENTSET)
		bitmap_copy(stream->filter, set, POSIXTRACE_EVENT_ID_MAX);
	else if (how == POSIXTRACE_ADD_EVENTSET)
		bitmap_or(stream->filter, stream->filter, set,
			  POSIXTRACE_EVENT_ID_MAX);
	else
		bitmap_andnot(stream->filter, stream->filter, set,
			      POSIXTRACE_EVENT_ID_MAX);
	if (stream->running) {
		bitmap_to_arr64(data[1].bits, stream->filter,
				POSIXTRACE_EVENT_ID_MAX);
		ktime_get_real_ts64(&ts);
		stored = posixtrace_stream_store_system(stream,
							POSIXTRACE_EVENT_FILTER,
							current, &ts, data,
							sizeof(data));
		/* Or it did not fit and stopped the stream: wake for the STOP. */
		stored |= stream->auto_stopped;
	}
	spin_unlock(&stream->lock);
	if (stored)
		posixtrace_stream_wake(stream);
	return 0;
}

/**
 * posixtrace_stream_admitted - what the stream records now
 * @stream: the stream
 * @admitted: set to the event types it does not filter out
 *
 * For the producers' enable bits (links.c).
 *
 * Return: false if it records nothing now (suspended, or shut down).
 */
bool posixtrace_stream_admitted(struct posixtrace_stream *stream,
				unsigned long *admitted)
{
	bool records;

	spin_lock(&stream->lock);
	/* Events sent to a stream stopped because full count as lost. */
	records = stream->running || stream->auto_stopped;
	if (records)
		bitmap_complement(admitted, stream->filter,
				  POSIXTRACE_EVENT_ID_MAX);
	spin_unlock(&stream->lock);
	return records;
}

/* The most data of an event the stream keeps (its max data size). */
size_t posixtrace_stream_data_max(struct posixtrace_stream *stream)
{
	return stream->attr.max_data_size;
}

/*
 * The part of shutdown that must happen at once, and can happen anywhere,
 * even in the exit hook: the stream stops recording, leaves its process,
 * wakes its readers (EINVAL) and gives back its TRACE_SYS_MAX slot. Every
 * path that records or reads checks shut_down under the stream's lock.
 */
static void posixtrace_stream_kill(struct posixtrace_stream *stream)
{
	struct timespec64 ts;

	spin_lock(&stream->lock);
	if (stream->shut_down) {
		spin_unlock(&stream->lock);
		return;
	}
	/* As if by posix_trace_stop(): the log shows where tracing ended. */
	if (stream->log && stream->running) {
		ktime_get_real_ts64(&ts);
		posixtrace_stream_store_stop(stream, NULL, &ts, 0);
	}
	stream->shut_down = true;
	stream->running = false;
	stream->auto_stopped = false;
	posixtrace_nl_notify(stream, POSIXTRACE_NL_EV_SHUTDOWN);
	spin_unlock(&stream->lock);

	posixtrace_links_drop_stream(stream);
	wake_up_all(&stream->wq);
	/*
	 * A stream with a log keeps its TRACE_SYS_MAX slot until the log is
	 * closed: a final flush stuck on a pipe still holds its memory.
	 */
	if (!stream->log)
		posixtrace_stream_slot_put(stream->quota_user);
}

/**
 * posixtrace_stream_shutdown - stop for good and free the event storage
 * @stream: the stream
 * @wait: with a log, wait (killably) until it is flushed and closed
 *
 * Readers blocked on it return EINVAL; every later command is EINVAL. The
 * stream itself is freed when its file goes. Idempotent.
 */
void posixtrace_stream_shutdown(struct posixtrace_stream *stream, bool wait)
{
	void *buf, *bounce;

	mutex_lock(&stream->ctl_lock);
	posixtrace_stream_kill(stream);
	spin_lock(&posixtrace_streams_lock);
	list_del_init(&stream->all_node);
	spin_unlock(&posixtrace_streams_lock);
	if (stream->log) {
		/* The flush work frees the storage once it has written it. */
		mutex_unlock(&stream->ctl_lock);
		posixtrace_flush_final(stream, wait);
		return;
	}
	spin_lock(&stream->lock);
	buf = posixtrace_ring_detach(&stream->ring);
	spin_unlock(&stream->lock);
	/* Readers check shut_down before using it, under read_lock. */
	mutex_lock(&stream->read_lock);
	bounce = stream->bounce;
	stream->bounce = NULL;
	mutex_unlock(&stream->read_lock);
	mutex_unlock(&stream->ctl_lock);

	/* Emitters take the lock and see shut_down: none reaches @buf now. */
	kvfree(buf);
	kvfree(bounce);
}

/* Record POSIX_TRACE_ERROR with @error as data; the lock is held. */
bool posixtrace_stream_store_error(struct posixtrace_stream *stream, int error)
{
	struct timespec64 ts;

	lockdep_assert_held(&stream->lock);
	ktime_get_real_ts64(&ts);
	return posixtrace_stream_store_system(stream, POSIXTRACE_EVENT_ERROR,
					      NULL, &ts, &error, sizeof(error));
}

/**
 * posixtrace_stream_error - record POSIX_TRACE_ERROR with @error as data
 * @stream: the stream
 * @error: a positive error number
 *
 * For what goes wrong away from any caller (a fork that could not be
 * followed): never sleeps, and wakes the readers.
 */
void posixtrace_stream_error(struct posixtrace_stream *stream, int error)
{
	bool stored;

	spin_lock(&stream->lock);
	stored = !stream->shut_down &&
		 posixtrace_stream_store_error(stream, error);
	spin_unlock(&stream->lock);
	if (stored)
		posixtrace_stream_wake(stream);
}

/* What monitoring reports of @stream (netlink.c). */
void posixtrace_stream_snapshot(struct posixtrace_stream *stream,
				struct posixtrace_stream_snapshot *snap)
{
	spin_lock(&stream->lock);
	if (stream->shut_down)
		snap->state = POSIXTRACE_NL_SHUT_DOWN;
	else
		snap->state = stream->running ? POSIXTRACE_RUNNING :
						POSIXTRACE_SUSPENDED;
	snap->full_status = stream->full_status;
	snap->overrun_status = stream->overrun_status;
	snap->bytes_used = stream->ring.used;
	snap->events_recorded = stream->events_recorded;
	snap->events_lost = stream->events_lost;
	spin_unlock(&stream->lock);
}

/*
 * The first stream not shut down whose id is above @after, with a
 * reference, or NULL. Ids grow in the order of the list.
 */
struct posixtrace_stream *posixtrace_stream_next(u64 after)
{
	struct posixtrace_stream *stream, *found = NULL;

	spin_lock(&posixtrace_streams_lock);
	list_for_each_entry(stream, &posixtrace_streams, all_node) {
		if (stream->id > after && kref_get_unless_zero(&stream->ref)) {
			found = stream;
			break;
		}
	}
	spin_unlock(&posixtrace_streams_lock);
	return found;
}

/* The stream @id, not shut down, with a reference, or NULL. */
struct posixtrace_stream *posixtrace_stream_find(u64 id)
{
	struct posixtrace_stream *stream = id ? posixtrace_stream_next(id - 1) :
						NULL;

	if (stream && stream->id != id) {
		posixtrace_stream_put(stream);
		stream = NULL;
	}
	return stream;
}

/* Shut down the streams whose creator exited or exec'd (process context). */
static void posixtrace_streams_reap(struct work_struct *work)
{
	struct posixtrace_stream *stream, *found;

	do {
		found = NULL;
		spin_lock(&posixtrace_streams_lock);
		list_for_each_entry(stream, &posixtrace_streams, all_node) {
			if (READ_ONCE(stream->creator_gone) &&
			    kref_get_unless_zero(&stream->ref)) {
				found = stream;
				break;
			}
		}
		spin_unlock(&posixtrace_streams_lock);
		if (found) {
			/* One log stuck on a pipe must not hold up the others. */
			posixtrace_stream_shutdown(found, false);
			posixtrace_stream_put(found);
		}
	} while (found);
}

/**
 * posixtrace_streams_creator_gone - a thread group exited or exec'd
 * @tgid: its pid
 *
 * POSIX shuts its streams down as if by posix_trace_shutdown(), even if a
 * child inherited their descriptors. Called from the exit and exec hooks,
 * where nothing may sleep: the streams are killed here, before the parent
 * can reap the process, and only freeing their storage is deferred.
 */
void posixtrace_streams_creator_gone(struct pid *tgid)
{
	struct posixtrace_stream *stream;
	bool found = false;

	/* Every process exit comes here: be cheap when nothing is traced. */
	if (!atomic_read(&posixtrace_nr_streams))
		return;
	spin_lock(&posixtrace_streams_lock);
	list_for_each_entry(stream, &posixtrace_streams, all_node) {
		if (stream->creator == tgid && !stream->creator_gone) {
			/* Shut down before waitpid() can see the exit. */
			posixtrace_stream_kill(stream);
			WRITE_ONCE(stream->creator_gone, true);
			found = true;
		}
	}
	spin_unlock(&posixtrace_streams_lock);
	if (found)
		schedule_work(&posixtrace_reap_work);
}

/* Module exit: the hooks are gone; let a pending reap finish. */
void posixtrace_streams_exit(void)
{
	flush_work(&posixtrace_reap_work);
}
