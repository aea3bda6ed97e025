// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event formats (<posixtrace-k.h>, ABI 0.7): a format names the fields an
 * event type's data carries. The kernel keeps it with the name and checks
 * it; a log's formats are checked again here (ptk_format_ok), since a
 * damaged file may say anything, so that the library never hands out a
 * format that is not well formed.
 */

#include <stdint.h>
#include <string.h>

#include <posixtrace-k.h>

#include "internal.h"

static const char *const ptk_format_types[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"f32", "f64", "str", "bytes",
};

static bool ptk_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ptk_ident_char(char c)
{
	return ptk_ident_start(c) || (c >= '0' && c <= '9');
}

/* Is type (len characters) a type of the grammar, and is it "bytes"? */
static bool ptk_format_type(const char *type, size_t len, bool *rest)
{
	size_t i;

	for (i = 0; i < sizeof(ptk_format_types) / sizeof(ptk_format_types[0]);
	     i++) {
		if (strlen(ptk_format_types[i]) == len &&
		    !memcmp(ptk_format_types[i], type, len)) {
			*rest = !strcmp(ptk_format_types[i], "bytes");
			return true;
		}
	}
	return false;
}

/* The grammar of <linux/posixtrace.h>, as the kernel checks it (format.c). */
bool ptk_format_ok(const char *format)
{
	const char *names[POSIXTRACE_FORMAT_FIELDS_MAX];
	size_t lens[POSIXTRACE_FORMAT_FIELDS_MAX];
	const char *p = format, *type;
	unsigned int n = 0, i;
	bool rest = false;
	size_t len;

	if (strlen(format) > POSIXTRACE_FORMAT_MAX)
		return false;
	do {
		if (rest || n == POSIXTRACE_FORMAT_FIELDS_MAX)
			return false;
		for (len = 0; len == 0 ? ptk_ident_start(p[0]) :
						 ptk_ident_char(p[len]);
		     len++)
			;
		if (!len || len > POSIXTRACE_FORMAT_FIELD_NAME_MAX ||
		    p[len] != ':')
			return false;
		for (i = 0; i < n; i++)
			if (lens[i] == len && !memcmp(names[i], p, len))
				return false;
		names[n] = p;
		lens[n++] = len;
		type = p + len + 1;
		p = type + strcspn(type, ",");
		if (!ptk_format_type(type, (size_t)(p - type), &rest))
			return false;
	} while (*p++ == ',');
	return true;
}

/*
 * The format comes into a buffer of ours, so that the caller's is
 * untouched on error. A module older than ABI 0.7 knows no format: it
 * refuses the struct's format members (E2BIG), or answers with a smaller
 * struct; ENOENT then, as for a type without one.
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
		/*
		 * A module older than ABI 0.7 refuses the format members it
		 * does not know with E2BIG: it has no formats.
		 */
		if (err == E2BIG)
			err = ENOENT;
		if (!err && (req.size < POSIXTRACE_EVENTTYPE_SIZE_VER1 ||
			     !req.format_len ||
			     req.format_len > sizeof(buf)))
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
