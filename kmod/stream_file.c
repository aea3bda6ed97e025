// SPDX-License-Identifier: GPL-2.0
/*
 * The file operations of a trace stream's descriptor: its ioctls, reading
 * events, poll and release.
 */

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "links.h"
#include "device.h"
#include "names.h"
#include "process.h"
#include "stream.h"
#include "ustruct.h"

/* Anything a reader can act on: an event, or the end of the stream. */
static bool posixtrace_stream_readable(struct posixtrace_stream *stream)
{
	return READ_ONCE(stream->ring.count) || READ_ONCE(stream->shut_down);
}

/* Wait for posixtrace_stream_readable(), until @expires if given. */
static int posixtrace_stream_wait(struct posixtrace_stream *stream,
				  ktime_t *expires)
{
	DEFINE_WAIT(wait);
	int ret = 0;

	for (;;) {
		prepare_to_wait(&stream->wq, &wait, TASK_INTERRUPTIBLE);
		if (posixtrace_stream_readable(stream))
			break;
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (!expires) {
			schedule();
		} else if (!schedule_hrtimeout_range_clock(expires, 0,
							   HRTIMER_MODE_ABS,
							   CLOCK_REALTIME)) {
			if (!posixtrace_stream_readable(stream))
				ret = -ETIMEDOUT;
			break;
		}
	}
	finish_wait(&stream->wq, &wait);
	return ret;
}

#define POSIXTRACE_GETNEXT_FLAGS \
	(POSIXTRACE_GETNEXT_NONBLOCK | POSIXTRACE_GETNEXT_TIMED)

static long posixtrace_stream_getnext(struct posixtrace_stream *stream,
				      struct posixtrace_getnext __user *ugn)
{
	struct posixtrace_getnext gn;
	ktime_t expires, *timeout = NULL;
	size_t bytes = 0, room;
	bool stale;
	u32 usize;
	int n, ret;

	/* Its events go to the log; the log is what one reads. */
	if (stream->log)
		return -EINVAL;
	ret = posixtrace_struct_from_user(&gn, sizeof(gn), ugn,
					  POSIXTRACE_GETNEXT_SIZE_VER0);
	if (ret)
		return ret;
	/* count and bytes are outputs: a reused struct may carry old ones. */
	if ((gn.flags & ~POSIXTRACE_GETNEXT_FLAGS) ||
	    (gn.flags & POSIXTRACE_GETNEXT_FLAGS) == POSIXTRACE_GETNEXT_FLAGS ||
	    gn.__reserved || gn.__reserved2)
		return -EINVAL;

	room = min_t(size_t, gn.buf_size, stream->bounce_size);
	for (;;) {
		if (mutex_lock_interruptible(&stream->read_lock))
			return -ERESTARTSYS;
		spin_lock(&stream->lock);
		if (stream->shut_down)
			n = -EINVAL;
		else
			n = posixtrace_stream_fill(stream, stream->bounce, room,
						   U64_MAX, &bytes);
		stale = stream->enable_stale;
		stream->enable_stale = false;
		spin_unlock(&stream->lock);
		/* The process's lock comes before the stream's: redo it here. */
		if (stale)
			posixtrace_links_update(stream);
		if (n > 0 && copy_to_user(u64_to_user_ptr(gn.buf),
					  stream->bounce, bytes))
			n = -EFAULT;
		mutex_unlock(&stream->read_lock);
		if (n || (gn.flags & POSIXTRACE_GETNEXT_NONBLOCK))
			break;
		/* The timeout is checked only when the call would wait. */
		if ((gn.flags & POSIXTRACE_GETNEXT_TIMED) && !timeout) {
			if (gn.timeout_nsec >= NSEC_PER_SEC)
				return -EINVAL;
			/* Before the epoch has passed too; ktime_set() would wrap. */
			expires = gn.timeout_sec < 0 ? 0 :
				  ktime_set(gn.timeout_sec, gn.timeout_nsec);
			timeout = &expires;
		}
		ret = posixtrace_stream_wait(stream, timeout);
		if (ret)
			return ret;
	}
	if (n < 0)
		return n;

	usize = gn.size;
	gn.size = sizeof(gn);
	gn.count = n;
	gn.bytes = bytes;
	return posixtrace_struct_to_user(ugn, usize, &gn, sizeof(gn));
}

static long posixtrace_stream_get_status(struct posixtrace_stream *stream,
					 struct posixtrace_status __user *ust)
{
	struct posixtrace_status st;
	u32 usize;
	int ret;

	ret = posixtrace_struct_from_user(&st, sizeof(st), ust,
					  POSIXTRACE_STATUS_SIZE_VER0);
	if (ret)
		return ret;
	if (st.flags || st.__reserved)
		return -EINVAL;
	usize = st.size;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);

	spin_lock(&stream->lock);
	if (stream->shut_down) {
		spin_unlock(&stream->lock);
		return -EINVAL;
	}
	st.state = stream->running ? POSIXTRACE_RUNNING : POSIXTRACE_SUSPENDED;
	st.full_status = stream->full_status;
	st.overrun_status = stream->overrun_status;
	st.flush_status = stream->flushing ? POSIXTRACE_FLUSHING :
					     POSIXTRACE_NOT_FLUSHING;
	st.flush_error = stream->flush_error;
	st.log_overrun_status = stream->log_overrun ? POSIXTRACE_OVERRUN :
						      POSIXTRACE_NO_OVERRUN;
	st.log_full_status = stream->log_full ? POSIXTRACE_FULL :
						POSIXTRACE_NOT_FULL;
	st.events_recorded = stream->events_recorded;
	st.events_lost = stream->events_lost;
	st.events_read = stream->events_read;
	st.bytes_used = stream->ring.used;
	st.bytes_total = stream->attr.stream_size;
	/* POSIX: reading these resets them. */
	stream->overrun_status = POSIXTRACE_NO_OVERRUN;
	stream->flush_error = 0;
	stream->log_overrun = false;
	spin_unlock(&stream->lock);

	return posixtrace_struct_to_user(ust, usize, &st, sizeof(st));
}

static long posixtrace_stream_get_attr(struct posixtrace_stream *stream,
				       struct posixtrace_attr __user *uattr)
{
	struct posixtrace_attr attr;
	int ret;

	ret = posixtrace_struct_from_user(&attr, sizeof(attr), uattr,
					  POSIXTRACE_ATTR_SIZE_VER0);
	if (ret)
		return ret;
	if (attr.flags || attr.__reserved || attr.__reserved2)
		return -EINVAL;
	return posixtrace_struct_to_user(uattr, attr.size, &stream->attr,
					 sizeof(stream->attr));
}

static long posixtrace_stream_eventtype(struct posixtrace_stream *stream,
					unsigned int cmd,
					struct posixtrace_eventtype __user *uet)
{
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	struct posixtrace_eventtype et;
	u32 usize;
	int ret;

	ret = posixtrace_struct_from_user(&et, sizeof(et), uet,
					  POSIXTRACE_EVENTTYPE_SIZE_VER0);
	if (ret)
		return ret;
	if (et.flags)
		return -EINVAL;
	if (cmd == POSIXTRACE_IOC_ID(POSIXTRACE_IOC_EVENTTYPE_NEXT)) {
		et.found = posixtrace_names_next(posixtrace_process_names(stream->proc),
						 et.event_id,
						 &et.event_id);
		if (!et.found)
			goto out;
	}
	ret = posixtrace_names_name(posixtrace_process_names(stream->proc), et.event_id, name);
	if (ret)
		return ret;
	if (et.name && copy_to_user(u64_to_user_ptr(et.name), name,
				    strlen(name) + 1))
		return -EFAULT;
out:
	usize = et.size;
	et.size = sizeof(et);
	return posixtrace_struct_to_user(uet, usize, &et, sizeof(et));
}

/* Start, stop, clear and shutdown, serialised with each other. */
static long posixtrace_stream_control(struct posixtrace_stream *stream,
				      unsigned int cmd)
{
	long ret = 0;

	if (cmd == POSIXTRACE_IOC_SHUTDOWN) {
		/* POSIX: not before the log is flushed and closed. */
		posixtrace_stream_shutdown(stream, true);
		return 0;
	}
	if (mutex_lock_interruptible(&stream->ctl_lock))
		return -ERESTARTSYS;
	if (stream->shut_down)
		ret = -EINVAL;
	else if (cmd == POSIXTRACE_IOC_START)
		posixtrace_stream_system_event(stream, POSIXTRACE_EVENT_START);
	else if (cmd == POSIXTRACE_IOC_STOP)
		posixtrace_stream_system_event(stream, POSIXTRACE_EVENT_STOP);
	else
		ret = posixtrace_stream_clear(stream);
	/* Before returning: a producer must see recording enabled at once. */
	if (!ret)
		posixtrace_links_update(stream);
	mutex_unlock(&stream->ctl_lock);
	return ret;
}

/* posix_trace_flush(): queue a flush and return; STATUS tells the end. */
static long posixtrace_stream_flush(struct posixtrace_stream *stream)
{
	long ret = 0;

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

/* Bits of the last word of an event set that name no event type. */
#define POSIXTRACE_EVENTSET_TAIL \
	(POSIXTRACE_EVENT_ID_MAX % 64 ? \
	 ~0ULL << (POSIXTRACE_EVENT_ID_MAX % 64) : 0)

static long posixtrace_stream_filter(struct posixtrace_stream *stream,
				     unsigned int cmd,
				     struct posixtrace_filter __user *ufilter)
{
	DECLARE_BITMAP(set, POSIXTRACE_EVENT_ID_MAX);
	struct posixtrace_eventset uset;
	struct posixtrace_filter filter;
	long ret;

	ret = posixtrace_struct_from_user(&filter, sizeof(filter), ufilter,
					  POSIXTRACE_FILTER_SIZE_VER0);
	if (ret)
		return ret;
	if (filter.flags || filter.__reserved)
		return -EINVAL;

	if (cmd == POSIXTRACE_IOC_ID(POSIXTRACE_IOC_GET_FILTER)) {
		if (filter.how)
			return -EINVAL;
		spin_lock(&stream->lock);
		bitmap_to_arr64(uset.bits, stream->filter,
				POSIXTRACE_EVENT_ID_MAX);
		spin_unlock(&stream->lock);
		if (copy_to_user(u64_to_user_ptr(filter.set), &uset, sizeof(uset)))
			return -EFAULT;
		return 0;
	}

	if (copy_from_user(&uset, u64_to_user_ptr(filter.set), sizeof(uset)))
		return -EFAULT;
	if (uset.bits[POSIXTRACE_EVENTSET_WORDS - 1] & POSIXTRACE_EVENTSET_TAIL)
		return -EINVAL;
	bitmap_from_arr64(set, uset.bits, POSIXTRACE_EVENT_ID_MAX);

	/* Interrupted, the filter is left as it was (POSIX). */
	if (mutex_lock_interruptible(&stream->ctl_lock))
		return -ERESTARTSYS;
	if (stream->shut_down)
		ret = -EINVAL;
	else
		ret = posixtrace_stream_set_filter(stream, set, filter.how);
	if (!ret)
		posixtrace_links_update(stream);
	mutex_unlock(&stream->ctl_lock);
	return ret;
}

static long posixtrace_stream_ioctl(struct file *file, unsigned int cmd,
				    unsigned long arg)
{
	struct posixtrace_stream *stream = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (_IOC_TYPE(cmd) != POSIXTRACE_IOC_MAGIC)
		return -ENOTTY;
	/* POSIX: a trid is valid only in the process that created it. */
	if (task_tgid(current) != stream->creator)
		return -EINVAL;
	if (READ_ONCE(stream->shut_down))
		return -EINVAL;

	switch (cmd) {
	case POSIXTRACE_IOC_START:
	case POSIXTRACE_IOC_STOP:
	case POSIXTRACE_IOC_CLEAR:
	case POSIXTRACE_IOC_SHUTDOWN:
		return arg ? -EINVAL : posixtrace_stream_control(stream, cmd);
	case POSIXTRACE_IOC_FLUSH:
		return arg ? -EINVAL : posixtrace_stream_flush(stream);
	}

	switch (POSIXTRACE_IOC_ID(cmd)) {
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_GETNEXT):
		return posixtrace_stream_getnext(stream, uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_STATUS):
		return posixtrace_stream_get_status(stream, uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_GET_ATTR):
		return posixtrace_stream_get_attr(stream, uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_TRID_EVENTID_OPEN):
		return posixtrace_ioctl_eventid_open(
			posixtrace_process_names(stream->proc), uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_EVENTID_NAME):
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_EVENTTYPE_NEXT):
		return posixtrace_stream_eventtype(stream, POSIXTRACE_IOC_ID(cmd),
						   uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_SET_FILTER):
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_GET_FILTER):
		return posixtrace_stream_filter(stream, POSIXTRACE_IOC_ID(cmd),
						uarg);
	}
	return -ENOTTY;
}

static __poll_t posixtrace_stream_poll(struct file *file, poll_table *wait)
{
	struct posixtrace_stream *stream = file->private_data;

	poll_wait(file, &stream->wq, wait);
	if (READ_ONCE(stream->shut_down))
		return EPOLLHUP | EPOLLERR;
	return READ_ONCE(stream->ring.count) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int posixtrace_stream_release(struct inode *inode, struct file *file)
{
	struct posixtrace_stream *stream = file->private_data;

	/*
	 * The creator's close, or its exit (before its parent can reap it),
	 * waits for the log, as posix_trace_shutdown() does. The last fput
	 * of anyone else does not: a kernel thread's deferred fput (after
	 * io_uring or aio held the file) would otherwise hold up every
	 * deferred close on the machine, and a process the descriptor was
	 * passed to has no business waiting for another's log.
	 */
	posixtrace_stream_shutdown(stream,
				   task_tgid(current) == stream->creator);
	posixtrace_stream_put(stream);
	return 0;
}

const struct file_operations posixtrace_stream_fops = {
	.owner		= THIS_MODULE,
	.release	= posixtrace_stream_release,
	.unlocked_ioctl	= posixtrace_stream_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.poll		= posixtrace_stream_poll,
	.llseek		= noop_llseek,
};
