// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event formats (<posixtrace-k.h>): a format names the fields an
 * event type's data carries. The kernel keeps it with the name and checks
 * it; a log's formats are checked again here (ptk_format_ok), since a
 * damaged file may say anything, so that the library never hands out a
 * format that is not well formed.
 */

#include <stdint.h>
#include <string.h>

#include <posixtrace-k.h>

#include "../lib/format_grammar.h"
#include "internal.h"

/* The grammar of <linux/posixtrace.h>: the kernel's own parser (lib/). */
bool ptk_format_ok(const char *format)
{
	struct posixtrace_format fmt;

	return posixtrace_format_parse(format, &fmt);
}

/*
 * The format comes into a buffer of ours, so that the caller's is
 * untouched on error.
 */
PTK_EXPORT int posixtrace_k_eventid_get_format(trace_id_t trid,
					       trace_event_id_t event,
					       char *format, size_t size)
{
	PTK_KEEP_ERRNO;
	char buf[POSIXTRACE_FORMAT_MAX + 1] = "";
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	struct posixtrace_eventtype req = {
		.size = sizeof(req),
		.event_id = (__u32)event,
		.name = (uintptr_t)name,
		.format = (uintptr_t)buf,
		.format_size = sizeof(buf),
	};
	struct ptk_ref ref;
	size_t len;
	int err;

	if (!format && size)
		return EINVAL;
	err = ptk_ref_get(trid, &ref);
	if (err)
		return err;
	if (ref.log) {
		err = ptk_log_get_format(ref.log, event, buf);
	} else {
		err = ptk_stream_ioctl(ref.stream, POSIXTRACE_IOC_EVENTID_NAME,
				       &req);
		if (!err && (!req.format_len || req.format_len > sizeof(buf)))
			err = ENOENT;
	}
	ptk_ref_put(&ref);
	if (err)
		return err;
	len = strnlen(buf, POSIXTRACE_FORMAT_MAX);
	if (!len)
		return ENOENT;
	if (len >= size)
		return ERANGE;
	memcpy(format, buf, len);
	format[len] = '\0';
	return 0;
}
