// SPDX-License-Identifier: GPL-2.0
/*
 * Opening an event type's name by ioctl: EVENTID_OPEN on /dev/posixtrace
 * (a program's own names, device.c) and TRID_EVENTID_OPEN on a stream's
 * descriptor (a tracer's, stream_file.c).
 */

#include <linux/posixtrace.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "eventid.h"
#include "format.h"
#include "links.h"
#include "names.h"
#include "ustruct.h"

/*
 * The format at @uformat, checked, into @format (POSIXTRACE_FORMAT_MAX + 1
 * bytes). Return: 0, -EFAULT, -ENAMETOOLONG or -EINVAL.
 */
static int posixtrace_format_from_user(char *format, u64 uformat)
{
	long len;

	len = strncpy_from_user(format, u64_to_user_ptr(uformat),
				POSIXTRACE_FORMAT_MAX + 1);
	if (len < 0)
		return len;
	if (len == POSIXTRACE_FORMAT_MAX + 1)
		return -ENAMETOOLONG;
	return posixtrace_format_check(format);
}

/**
 * posixtrace_ioctl_eventid_open - EVENTID_OPEN and TRID_EVENTID_OPEN
 * @names: the table the name joins
 * @ueid: the user's struct posixtrace_eventid
 * @own: the caller opens a name of its own (EVENTID_OPEN): only then may
 *	it give a format, since only the program that records the events
 *	knows what they carry; a tracer's format is -EINVAL, so that it
 *	cannot make the program's own one fail with -EEXIST
 *
 * Return: 0, or -EINVAL, -EFAULT, -E2BIG (struct), -ENAMETOOLONG past
 * POSIXTRACE_EVENT_NAME_MAX characters, -EINVAL for an empty name, and for
 * a format: -ENAMETOOLONG, -EINVAL if not well formed, -EEXIST if the name
 * has another; -ENOMEM.
 */
long posixtrace_ioctl_eventid_open(struct posixtrace_names *names,
				   struct posixtrace_eventid __user *ueid,
				   bool own)
{
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	struct posixtrace_eventid eid;
	char *format = NULL;
	long len;
	u32 usize;
	int ret;

	ret = posixtrace_struct_from_user(&eid, sizeof(eid), ueid,
					  POSIXTRACE_EVENTID_SIZE_VER0);
	if (ret)
		return ret;
	if (eid.flags || eid.__reserved || (eid.format && !own))
		return -EINVAL;
	len = strncpy_from_user(name, u64_to_user_ptr(eid.name), sizeof(name));
	if (len < 0)
		return len;
	if (len == sizeof(name))
		return -ENAMETOOLONG;
	if (!len)
		return -EINVAL;
	if (eid.format) {
		/* Short-lived, but a caller may make many at once. */
		format = kmalloc(POSIXTRACE_FORMAT_MAX + 1, GFP_KERNEL_ACCOUNT);
		if (!format)
			return -ENOMEM;
		ret = posixtrace_format_from_user(format, eid.format);
		if (ret)
			goto out;
	}
	/* A new name is recordable at once, in every process using it. */
	ret = posixtrace_names_open(names, name, format, &eid.event_id,
				    posixtrace_links_names_grown);
	if (ret)
		goto out;
	usize = eid.size;
	eid.size = sizeof(eid);
	ret = posixtrace_struct_to_user(ueid, usize, &eid, sizeof(eid));
out:
	kfree(format);
	return ret;
}
