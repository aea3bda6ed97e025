// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace dump --json: one JSON object (RFC 8259) per line per event,
 * for jq and scripts. Numbers that a double cannot hold exactly are
 * strings: the timestamp ("ts", nanoseconds need 19 digits) and the
 * 64-bit addresses; "ts_sec" and "ts_nsec" are the same time as two
 * integers that every reader keeps exactly.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dump.h"
#include "json.h"
#include "kevent_text.h"
#include "text.h"

static void json_key(FILE *out, const char *key)
{
	fprintf(out, ", \"%s\": ", key);
}

void dump_json_time(FILE *out, const struct timespec *ts)
{
	char text[TIME_TEXT_SIZE];

	format_epoch(text, ts);
	fprintf(out, "\"ts\": \"%s\", \"ts_sec\": %jd, \"ts_nsec\": %ld",
		text, (intmax_t)ts->tv_sec, ts->tv_nsec);
	format_time(text, ts);
	fprintf(out, ", \"time\": \"%s\"", text);
}

static void json_time(FILE *out, const struct log_event *ev,
		      const struct dump_opts *o, const struct dump_clock *c)
{
	const struct timespec *ts = &ev->info.posix_timestamp;
	char text[TIME_TEXT_SIZE];

	dump_json_time(out, ts);
	/* Only when asked: they depend on the events chosen. */
	if (o->time == DUMP_TIME_RELATIVE) {
		format_offset(text, ts, &c->first);
		fprintf(out, ", \"relative\": \"%s\"", text);
	} else if (o->time == DUMP_TIME_DELTA) {
		format_offset(text, ts, &c->prev);
		fprintf(out, ", \"delta\": \"%s\"", text);
	}
}

static void json_ids(FILE *out, const struct log_event *ev)
{
	const char *sys = sys_event_name(ev->info.posix_event_id);

	json_key(out, "event");
	json_string(out, ev->type->name);
	fprintf(out, ", \"id\": %d", (int)ev->info.posix_event_id);
	json_key(out, "system");
	if (sys)
		json_string(out, sys);
	else
		fputs("null", out);
	json_key(out, "meaning");
	if (sys)
		json_string(out, sys_event_meaning(ev->info.posix_event_id));
	else
		fputs("null", out);
	fprintf(out, ", \"pid\": %d", (int)ev->info.posix_pid);
	if (ev->has_tid)
		fprintf(out, ", \"tid\": %d", (int)ev->tid);
	else
		fputs(", \"tid\": null", out);
	fprintf(out, ", \"thread\": \"0x%" PRIxMAX "\", \"prog_address\": "
		"\"0x%" PRIxMAX "\"",
		(uintmax_t)(uintptr_t)ev->info.posix_thread_id,
		(uintmax_t)(uintptr_t)ev->info.posix_prog_address);
	if (ev->has_seq)
		fprintf(out, ", \"seq\": %" PRIu64, ev->seq);
	else
		fputs(", \"seq\": null", out);
	fprintf(out, ", \"gap\": %" PRIu64, ev->gap);
}

static void json_truncation(FILE *out, const struct log_event *ev)
{
	int t = ev->info.posix_truncation_status;

	fprintf(out, ", \"truncated\": %s, \"truncation\": ",
		t == POSIX_TRACE_NOT_TRUNCATED ? "false" : "true");
	switch (t) {
	case POSIX_TRACE_NOT_TRUNCATED:
		fputs("\"no\"", out);
		break;
	case POSIX_TRACE_TRUNCATED_RECORD:
		fputs("\"record\"", out);
		break;
	case POSIX_TRACE_TRUNCATED_READ:
		fputs("\"read\"", out);
		break;
	default:
		fprintf(out, "%d", t);
		break;
	}
}

/* Every byte read, --full-data or not: scripts want all of it. */
static void json_data(FILE *out, const struct log_event *ev, bool hex)
{
	size_t i;

	fprintf(out, ", \"data_len\": %zu", ev->data_len);
	if (!hex && data_is_text(ev->data, ev->data_len)) {
		fputs(", \"data_encoding\": \"text\", \"data\": ", out);
		json_string_n(out, ev->data, ev->data_len);
		return;
	}
	fputs(", \"data_encoding\": \"hex\", \"data\": \"", out);
	for (i = 0; i < ev->data_len; i++)
		fprintf(out, "%02x", ev->data[i]);
	putc('"', out);
}

static void json_set(FILE *out, const struct log_reader *lr,
		     const char *key, const unsigned char *set)
{
	char buf[LOG_TYPE_NAME_SIZE];
	const char *sep = "";
	int id;

	json_key(out, key);
	putc('[', out);
	for (id = set_next(set, 0); id >= 0; id = set_next(set, id + 1)) {
		fputs(sep, out);
		json_string(out, log_type_name(lr, id, buf));
		sep = ", ";
	}
	putc(']', out);
}

/* The system events' data decoded, when it has the expected size. */
static void json_decoded(FILE *out, const struct log_reader *lr,
			 const struct log_event *ev)
{
	const size_t set = DUMP_SET_SIZE;
	struct kevent k;
	const char *why;
	int v;

	if (kevent_decode(ev, &k)) {
		kevent_print_json(out, &k);
		return;
	}
	switch (ev->info.posix_event_id) {
	case POSIX_TRACE_ERROR:
		if (ev->data_len != 4)
			return;
		v = sys_data_int(ev->data);
		fprintf(out, ", \"error\": %d", v);
		json_key(out, "error_text");
		json_string(out, strerror(v));
		return;
	case POSIX_TRACE_STOP:
		if (ev->data_len != 4)
			return;
		v = sys_data_int(ev->data);
		why = sys_stop_reason(v);
		fprintf(out, ", \"stop\": %d", v);
		json_key(out, "stop_reason");
		json_string(out, why ? why : "unknown reason");
		return;
	case POSIX_TRACE_START:
		if (ev->data_len == set)
			json_set(out, lr, "filter", ev->data);
		return;
	case POSIX_TRACE_FILTER:
		if (ev->data_len != 2 * set)
			return;
		json_set(out, lr, "filter_old", ev->data);
		json_set(out, lr, "filter", ev->data + set);
		return;
	}
}

/*
 * A type with a format: "format" (its text), then "fields", an object of
 * the data decoded by it, or null and "fields_error" saying why the data
 * does not match (or was truncated). "data" stays, for every event.
 */
static void json_fields(FILE *out, const struct log_event *ev)
{
	struct field_value vals[POSIXTRACE_FORMAT_FIELDS_MAX];
	const struct posixtrace_format *fmt = ev->type->format;
	const char *why, *field;
	char text[96];

	if (!fmt)
		return;
	json_key(out, "format");
	json_string(out, ev->type->format_text);
	json_key(out, "fields");
	if (ev->info.posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED) {
		fputs("null", out);
		json_key(out, "fields_error");
		json_string(out, "truncated");
		return;
	}
	if (!fields_decode(fmt, ev->data, ev->data_len, vals, &why, &field)) {
		fputs("null", out);
		snprintf(text, sizeof(text), "%s%s%s", why, field ? " " : "",
			 field ? field : "");
		json_key(out, "fields_error");
		json_string(out, text);
		return;
	}
	fields_print_json(out, vals, fmt->nfields);
}

void dump_json_members(FILE *out, const struct log_reader *lr,
		       const struct log_event *ev, const struct dump_opts *o,
		       const struct dump_clock *c)
{
	json_time(out, ev, o, c);
	dump_json_untimed(out, lr, ev, o);
}

void dump_json_untimed(FILE *out, const struct log_reader *lr,
		       const struct log_event *ev, const struct dump_opts *o)
{
	json_ids(out, ev);
	json_truncation(out, ev);
	json_data(out, ev, o->hex);
	json_fields(out, ev);
	json_decoded(out, lr, ev);
}

void dump_json_event(const struct log_reader *lr, const struct log_event *ev,
		     const struct dump_opts *o, const struct dump_clock *c)
{
	putchar('{');
	dump_json_members(stdout, lr, ev, o, c);
	fputs("}\n", stdout);
}
