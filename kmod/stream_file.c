// SPDX-License-Identifier: GPL-2.0
/*
 * The file operations of a trace stream's descriptor: its ioctls, poll and
 * release. This is the ABI's edge: each ioctl copies its struct in, checks
 * what the ABI says of it, calls the stream's functions (stream.h) and
 * copies the answer out.
 */

#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "eventid.h"
#include "names.h"
#include "stream.h"
#include "stream_file.h"
#include "ustruct.h"

#define POSIXTRACE_GETNEXT_FLAGS \
	(POSIXTRACE_GETNEXT_NONBLOCK | POSIXTRACE_GETNEXT_TIMED)
#define POSIXTRACE_GETNEXT_ALL_FLAGS \
	(POSIXTRACE_GETNEXT_FLAGS | POSIXTRACE_GETNEXT_MAPPED)

static long posixtrace_stream_getnext(struct posixtrace_stream *stream,
				      struct posixtrace_getnext __user *ugn)
{
	struct posixtrace_batch_taken taken = { 0 };
	struct posixtrace_getnext gn;
	u64 map_offset = POSIXTRACE_GETNEXT_IN_BUF;
	size_t bytes = 0;
	u32 usize;
	int n, ret;

	n = posixtrace_struct_from_user(&gn, sizeof(gn), ugn,
					POSIXTRACE_GETNEXT_SIZE_VER0);
	if (n)
		return n;
	/* count and bytes are outputs: a reused struct may carry old ones. */
	if ((gn.flags & ~POSIXTRACE_GETNEXT_ALL_FLAGS) ||
	    (gn.flags & POSIXTRACE_GETNEXT_FLAGS) == POSIXTRACE_GETNEXT_FLAGS ||
	    gn.__reserved || gn.__reserved2)
		return -EINVAL;
	n = posixtrace_stream_read(stream, &gn, &bytes, &map_offset, &taken);
	if (n < 0)
		return n;

	usize = gn.size;
	gn.size = sizeof(gn);
	gn.count = n;
	gn.bytes = bytes;
	gn.map_offset = map_offset;
	gn.map_size = posixtrace_stream_map_size(stream);
	ret = posixtrace_struct_to_user(ugn, usize, &gn, sizeof(gn));
	/* A batch the reader cannot be told of is lost: counted so. */
	if (ret && n > 0)
		posixtrace_stream_lose_taken(stream, &taken);
	return ret;
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
	/* POSIX: reading the status resets the overruns and the error. */
	ret = posixtrace_stream_status(stream, &st, true);
	if (ret)
		return ret;
	return posixtrace_struct_to_user(ust, usize, &st, sizeof(st));
}

static long posixtrace_stream_get_attr(struct posixtrace_stream *stream,
				       struct posixtrace_attr __user *uattr)
{
	const struct posixtrace_attr *sattr = posixtrace_stream_attr(stream);
	struct posixtrace_attr attr;
	int ret;

	ret = posixtrace_struct_from_user(&attr, sizeof(attr), uattr,
					  POSIXTRACE_ATTR_SIZE_VER0);
	if (ret)
		return ret;
	if (attr.flags || attr.__reserved2)
		return -EINVAL;
	return posixtrace_struct_to_user(uattr, attr.size, sattr,
					 sizeof(*sattr));
}

static long posixtrace_stream_eventtype(struct posixtrace_stream *stream,
					unsigned int cmd,
					struct posixtrace_eventtype __user *uet)
{
	struct posixtrace_names *names = posixtrace_stream_names(stream);
	u32 kernel = posixtrace_stream_kernel_events(stream);
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	struct posixtrace_eventtype et;
	char *format = NULL;
	u32 usize;
	long ret;

	ret = posixtrace_stream_names_allowed(stream);
	if (ret)
		return ret;
	ret = posixtrace_struct_from_user(&et, sizeof(et), uet,
					  POSIXTRACE_EVENTTYPE_SIZE_VER0);
	if (ret)
		return ret;
	if (et.flags)
		return -EINVAL;
	et.format_len = 0;
	if (cmd == POSIXTRACE_IOC_ID(POSIXTRACE_IOC_EVENTTYPE_NEXT)) {
		et.found = posixtrace_names_next(names, kernel, et.event_id,
						 &et.event_id);
		if (!et.found)
			goto out;
	}
	format = kmalloc(POSIXTRACE_FORMAT_MAX + 1, GFP_KERNEL);
	if (!format)
		return -ENOMEM;
	ret = posixtrace_names_name(names, kernel, et.event_id, name, format);
	if (ret)
		goto free;
	ret = -EFAULT;
	if (et.name && copy_to_user(u64_to_user_ptr(et.name), name,
				    strlen(name) + 1))
		goto free;
	if (format[0])
		et.format_len = strlen(format) + 1;
	/* A buffer too small gets nothing: format_len says what it needs. */
	if (et.format && et.format_len && et.format_len <= et.format_size &&
	    copy_to_user(u64_to_user_ptr(et.format), format, et.format_len))
		goto free;
	kfree(format);
out:
	usize = et.size;
	et.size = sizeof(et);
	return posixtrace_struct_to_user(uet, usize, &et, sizeof(et));
free:
	kfree(format);
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
		posixtrace_stream_get_filter(stream, set);
		bitmap_to_arr64(uset.bits, set, POSIXTRACE_EVENT_ID_MAX);
		if (copy_to_user(u64_to_user_ptr(filter.set), &uset, sizeof(uset)))
			return -EFAULT;
		return 0;
	}

	if (copy_from_user(&uset, u64_to_user_ptr(filter.set), sizeof(uset)))
		return -EFAULT;
	if (uset.bits[POSIXTRACE_EVENTSET_WORDS - 1] & POSIXTRACE_EVENTSET_TAIL)
		return -EINVAL;
	bitmap_from_arr64(set, uset.bits, POSIXTRACE_EVENT_ID_MAX);
	return posixtrace_stream_set_filter(stream, set, filter.how);
}

static long posixtrace_stream_syscalls_ioctl(struct posixtrace_stream *stream,
					     unsigned int cmd,
					     struct posixtrace_syscalls __user *ureq)
{
	bool set = cmd == POSIXTRACE_IOC_ID(POSIXTRACE_IOC_SET_SYSCALLS);
	struct posixtrace_syscalls req;
	u32 usize;
	long ret;

	ret = posixtrace_struct_from_user(&req, sizeof(req), ureq,
					  POSIXTRACE_SYSCALLS_SIZE_VER0);
	if (ret)
		return ret;
	ret = posixtrace_stream_select_syscalls(stream, &req, set);
	if (ret || set)
		return ret;
	usize = req.size;
	/* The conventions: the size the module knows, on output. */
	req.size = sizeof(req);
	return posixtrace_struct_to_user(ureq, usize, &req, sizeof(req));
}

/* The commands without an argument. */
static long posixtrace_stream_command(struct posixtrace_stream *stream,
				      unsigned int cmd)
{
	switch (cmd) {
	case POSIXTRACE_IOC_START:
		return posixtrace_stream_control(stream, POSIXTRACE_STREAM_START);
	case POSIXTRACE_IOC_STOP:
		return posixtrace_stream_control(stream, POSIXTRACE_STREAM_STOP);
	case POSIXTRACE_IOC_CLEAR:
		return posixtrace_stream_control(stream, POSIXTRACE_STREAM_CLEAR);
	case POSIXTRACE_IOC_SHUTDOWN:
		/* POSIX: not before the log is flushed and closed. */
		return posixtrace_stream_control(stream,
						 POSIXTRACE_STREAM_SHUTDOWN);
	}
	return posixtrace_flush(stream);
}

static long posixtrace_stream_ioctl(struct file *file, unsigned int cmd,
				    unsigned long arg)
{
	struct posixtrace_stream *stream = file->private_data;
	struct posixtrace_names *names = posixtrace_stream_names(stream);
	void __user *uarg = (void __user *)arg;
	long ret;

	if (_IOC_TYPE(cmd) != POSIXTRACE_IOC_MAGIC)
		return -ENOTTY;
	/* POSIX: a trid is valid only in the process that created it. */
	if (!posixtrace_stream_usable(stream))
		return -EINVAL;

	switch (cmd) {
	case POSIXTRACE_IOC_START:
	case POSIXTRACE_IOC_STOP:
	case POSIXTRACE_IOC_CLEAR:
	case POSIXTRACE_IOC_SHUTDOWN:
	case POSIXTRACE_IOC_FLUSH:
		return arg ? -EINVAL : posixtrace_stream_command(stream, cmd);
	}

	switch (POSIXTRACE_IOC_ID(cmd)) {
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_GETNEXT):
		return posixtrace_stream_getnext(stream, uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_STATUS):
		return posixtrace_stream_get_status(stream, uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_GET_ATTR):
		return posixtrace_stream_get_attr(stream, uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_TRID_EVENTID_OPEN):
		ret = posixtrace_stream_names_allowed(stream);
		if (ret)
			return ret;
		return posixtrace_ioctl_eventid_open(names, uarg, false);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_EVENTID_NAME):
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_EVENTTYPE_NEXT):
		return posixtrace_stream_eventtype(stream, POSIXTRACE_IOC_ID(cmd),
						   uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_SET_FILTER):
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_GET_FILTER):
		return posixtrace_stream_filter(stream, POSIXTRACE_IOC_ID(cmd),
						uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_SET_SYSCALLS):
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_GET_SYSCALLS):
		return posixtrace_stream_syscalls_ioctl(stream,
							POSIXTRACE_IOC_ID(cmd),
							uarg);
	}
	return -ENOTTY;
}

static __poll_t posixtrace_stream_file_poll(struct file *file,
					    poll_table *wait)
{
	return posixtrace_stream_poll(file->private_data, file, wait);
}

/* The stream's batch buffer, read-only: see struct posixtrace_getnext. */
static int posixtrace_stream_file_mmap(struct file *file,
				       struct vm_area_struct *vma)
{
	struct posixtrace_stream *stream = file->private_data;

	/* POSIX: a trid is valid only in the process that created it. */
	if (!posixtrace_stream_usable(stream))
		return -EINVAL;
	return posixtrace_stream_mmap(stream, vma);
}

static int posixtrace_stream_file_release(struct inode *inode,
					  struct file *file)
{
	posixtrace_stream_release(file->private_data);
	return 0;
}

const struct file_operations posixtrace_stream_fops = {
	.owner		= THIS_MODULE,
	.release	= posixtrace_stream_file_release,
	.unlocked_ioctl	= posixtrace_stream_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.poll		= posixtrace_stream_file_poll,
	.mmap		= posixtrace_stream_file_mmap,
	.llseek		= noop_llseek,
};
