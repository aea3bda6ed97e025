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

static void json_key(const char *key)
{
	printf(", \"%s\": ", key);
}

static void json_time(const struct log_event *ev, const struct dump_opts *o,
		      const struct dump_clock *c)
{
	const struct timespec *ts = &ev->info.posix_timestamp;
	char text[TIME_TEXT_SIZE];

	format_epoch(text, ts);
	printf("\"ts\": \"%s\", \"ts_sec\": %jd, \"ts_nsec\": %ld", text,
	       (intmax_t)ts->tv_sec, ts->tv_nsec);
	format_time(text, ts);
	printf(", \"time\": \"%s\"", text);
	/* Only when asked: they depend on the events chosen. */
	if (o->time == DUMP_TIME_RELATIVE) {
		format_offset(text, ts, &c->first);
		printf(", \"relative\": \"%s\"", text);
	} else if (o->time == DUMP_TIME_DELTA) {
		format_offset(text, ts, &c->prev);
		printf(", \"delta\": \"%s\"", text);
	}
}

static void json_ids(const struct log_event *ev)
{
	const char *sys = sys_event_name(ev->info.posix_event_id);

	json_key("event");
	json_string(stdout, ev->type->name);
	printf(", \"id\": %d", (int)ev->info.posix_event_id);
	json_key("system");
	if (sys)
		json_string(stdout, sys);
	else
		fputs("null", stdout);
	json_key("meaning");
	if (sys)
		json_string(stdout, sys_event_meaning(ev->info.posix_event_id));
	else
		fputs("null", stdout);
	printf(", \"pid\": %d", (int)ev->info.posix_pid);
	if (ev->has_tid)
		printf(", \"tid\": %d", (int)ev->tid);
	else
		fputs(", \"tid\": null", stdout);
	printf(", \"thread\": \"0x%" PRIxMAX "\", \"prog_address\": \"0x%"
	       PRIxMAX "\"", (uintmax_t)(uintptr_t)ev->info.posix_thread_id,
	       (uintmax_t)(uintptr_t)ev->info.posix_prog_address);
	if (ev->has_seq)
		printf(", \"seq\": %" PRIu64, ev->seq);
	else
		fputs(", \"seq\": null", stdout);
	printf(", \"gap\": %" PRIu64, ev->gap);
}

static void json_truncation(const struct log_event *ev)
{
	int t = ev->info.posix_truncation_status;

	printf(", \"truncated\": %s, \"truncation\": ",
	       t == POSIX_TRACE_NOT_TRUNCATED ? "false" : "true");
	switch (t) {
	case POSIX_TRACE_NOT_TRUNCATED:
		fputs("\"no\"", stdout);
		break;
	case POSIX_TRACE_TRUNCATED_RECORD:
		fputs("\"record\"", stdout);
		break;
	case POSIX_TRACE_TRUNCATED_READ:
		fputs("\"read\"", stdout);
		break;
	default:
		printf("%d", t);
		break;
	}
}

/* Every byte read, --full-data or not: scripts want all of it. */
static void json_data(const struct log_event *ev, bool hex)
{
	size_t i;

	printf(", \"data_len\": %zu", ev->data_len);
	if (!hex && data_is_text(ev->data, ev->data_len)) {
		fputs(", \"data_encoding\": \"text\", \"data\": ", stdout);
		json_string_n(stdout, ev->data, ev->data_len);
		return;
	}
	fputs(", \"data_encoding\": \"hex\", \"data\": \"", stdout);
	for (i = 0; i < ev->data_len; i++)
		printf("%02x", ev->data[i]);
	putchar('"');
}

static void json_set(const struct log_reader *lr, const char *key,
		     const unsigned char *set)
{
	char buf[LOG_TYPE_NAME_SIZE];
	const char *sep = "";
	int id;

	json_key(key);
	putchar('[');
	for (id = set_next(set, 0); id >= 0; id = set_next(set, id + 1)) {
		fputs(sep, stdout);
		json_string(stdout, log_type_name(lr, id, buf));
		sep = ", ";
	}
	putchar(']');
}

/* The system events' data decoded, when it has the expected size. */
static void json_decoded(const struct log_reader *lr,
			 const struct log_event *ev)
{
	const size_t set = DUMP_SET_SIZE;
	struct kevent k;
	const char *why;
	int v;

	if (kevent_decode(ev, &k)) {
		kevent_print_json(stdout, &k);
		return;
	}
	switch (ev->info.posix_event_id) {
	case POSIX_TRACE_ERROR:
		if (ev->data_len != 4)
			return;
		v = sys_data_int(ev->data);
		printf(", \"error\": %d", v);
		json_key("error_text");
		json_string(stdout, strerror(v));
		return;
	case POSIX_TRACE_STOP:
		if (ev->data_len != 4)
			return;
		v = sys_data_int(ev->data);
		why = sys_stop_reason(v);
		printf(", \"stop\": %d", v);
		json_key("stop_reason");
		json_string(stdout, why ? why : "unknown reason");
		return;
	case POSIX_TRACE_START:
		if (ev->data_len == set)
			json_set(lr, "filter", ev->data);
		return;
	case POSIX_TRACE_FILTER:
		if (ev->data_len != 2 * set)
			return;
		json_set(lr, "filter_old", ev->data);
		json_set(lr, "filter", ev->data + set);
		return;
	}
}

/*
 * A type with a format: "format" (its text), then "fields", an object of
 * the data decoded by it, or null and "fields_error" saying why the data
 * does not match (or was truncated). "data" stays, for every event.
 */
static void json_fields(const struct log_event *ev)
{
	struct field_value vals[POSIXTRACE_FORMAT_FIELDS_MAX];
	const struct posixtrace_format *fmt = ev->type->format;
	const char *why, *field;
	char text[96];

	if (!fmt)
		return;
	json_key("format");
	json_string(stdout, ev->type->format_text);
	json_key("fields");
	if (ev->info.posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED) {
		fputs("null", stdout);
		json_key("fields_error");
		json_string(stdout, "truncated");
		return;
	}
	if (!fields_decode(fmt, ev->data, ev->data_len, vals, &why, &field)) {
		fputs("null", stdout);
		snprintf(text, sizeof(text), "%s%s%s", why, field ? " " : "",
			 field ? field : "");
		json_key("fields_error");
		json_string(stdout, text);
		return;
	}
	fields_print_json(stdout, vals, fmt->nfields);
}

void dump_json_event(const struct log_reader *lr, const struct log_event *ev,
		     const struct dump_opts *o, const struct dump_clock *c)
{
	putchar('{');
	json_time(ev, o, c);
	json_ids(ev);
	json_truncation(ev);
	json_data(ev, o->hex);
	json_fields(ev);
	json_decoded(lr, ev);
	fputs("}\n", stdout);
}
