// SPDX-License-Identifier: GPL-2.0
/* An event's payload as text (see event_data.h). */

#include <stdint.h>

#include "event_data.h"
#include "text.h"

bool event_data_fields(FILE *out, const struct log_event *ev, bool full,
		       char *mismatch, size_t size)
{
	struct field_value vals[POSIXTRACE_FORMAT_FIELDS_MAX];
	const struct posixtrace_format *fmt =
		ev->type ? ev->type->format : NULL;
	const char *why, *field;

	if (!fmt)
		return false;
	if (ev->info.posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED) {
		snprintf(mismatch, size, " (truncated: not decoded by its "
			 "format)");
		return false;
	}
	if (!fields_decode(fmt, ev->data, ev->data_len, vals, &why, &field)) {
		snprintf(mismatch, size, " (does not match its format: %s%s%s)",
			 why, field ? " " : "", field ? field : "");
		return false;
	}
	fields_print_text(out, vals, fmt->nfields,
			  full ? SIZE_MAX : EVENT_DATA_SHOWN);
	return true;
}

void event_data_bytes(FILE *out, const struct log_event *ev, bool full,
		      bool hex)
{
	size_t i, shown;

	shown = full || ev->data_len <= EVENT_DATA_SHOWN ?
		ev->data_len : EVENT_DATA_SHOWN;
	if (!hex && ev->data_len && data_is_text(ev->data, ev->data_len)) {
		print_quoted(out, ev->data, shown);
	} else {
		for (i = 0; i < shown; i++)
			fprintf(out, "%02x", ev->data[i]);
	}
	if (shown < ev->data_len)
		fputs("...", out);
}
