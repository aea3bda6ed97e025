// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace dump's text: one line per event. Lines that are not events
 * start with '#': the header (the stream's attributes), the gaps in
 * sequence numbers, and the final status. So "grep -v '^#'" leaves the
 * events, and two dumps diff line by line.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "colour.h"
#include "dump.h"
#include "event_data.h"
#include "kevent_text.h"
#include "text.h"

void dump_text_header(const struct log_reader *lr)
{
	char name[TRACE_NAME_MAX + 1] = "", esc[ESCAPED_SIZE(TRACE_NAME_MAX)];
	char gen[TRACE_NAME_MAX + 1] = "", time_text[TIME_TEXT_SIZE];
	char b1[16], b2[16], b3[16];
	size_t stream_size = 0, max_data = 0, log_size = 0, listed = 0, i;
	int sfp = 0, lfp = 0, inh = 0;
	struct timespec ts;

	posix_trace_attr_getname(&lr->attr, name);
	escape_text(esc, name);
	printf("# trace: %s\n", esc[0] ? esc : "(unnamed)");
	if (!posix_trace_attr_getgenversion(&lr->attr, gen)) {
		escape_text(esc, gen);
		printf("# generation: %s\n", esc);
	}
	if (!posix_trace_attr_getcreatetime(&lr->attr, &ts)) {
		format_time(time_text, &ts);
		printf("# created: %s", time_text);
		if (!posix_trace_attr_getclockres(&lr->attr, &ts) &&
		    !ts.tv_sec)
			printf(" (clock resolution %ld ns)", ts.tv_nsec);
		putchar('\n');
	}
	posix_trace_attr_getstreamfullpolicy(&lr->attr, &sfp);
	posix_trace_attr_getlogfullpolicy(&lr->attr, &lfp);
	posix_trace_attr_getinherited(&lr->attr, &inh);
	printf("# policies: stream-full=%s log-full=%s inheritance=%s\n",
	       policy_text(sfp, b1, sizeof(b1)),
	       policy_text(lfp, b2, sizeof(b2)),
	       policy_text(inh, b3, sizeof(b3)));
	posix_trace_attr_getstreamsize(&lr->attr, &stream_size);
	posix_trace_attr_getmaxdatasize(&lr->attr, &max_data);
	posix_trace_attr_getlogsize(&lr->attr, &log_size);
	printf("# sizes: stream=%zu max-data=%zu log=%zu\n", stream_size,
	       max_data, log_size);
	for (i = 0; i < lr->ntypes; i++)
		listed += lr->types[i].listed;
	printf("# event types: %zu\n", listed);
}

/* Where --relative and --delta count from, before the first event. */
void dump_text_origin(const struct timespec *first)
{
	char time_text[TIME_TEXT_SIZE];

	format_time(time_text, first);
	printf("# time origin: %s (the first event)\n", time_text);
}

void dump_text_gap(const struct log_event *ev, const struct dump_opts *o)
{
	printf("%s# gap: %" PRIu64 " events missing before seq %" PRIu64
	       "%s\n", o->colour ? SGR_RED : "", ev->gap, ev->seq,
	       o->colour ? SGR_RESET : "");
}

/*
 * An event's name: in colour, a user event's bold, a system event's
 * (POSIX's, below the first user identifier) yellow.
 */
static void print_name(const struct log_event *ev, const struct dump_opts *o)
{
	if (!o->colour) {
		printf(" %s", ev->type->name);
		return;
	}
	printf(" %s%s" SGR_RESET,
	       sys_event_name(ev->info.posix_event_id) ? SGR_YELLOW : SGR_BOLD,
	       ev->type->name);
}

static const char *truncation_text(int t, char *buf, size_t size)
{
	switch (t) {
	case POSIX_TRACE_NOT_TRUNCATED:
		return "no";
	case POSIX_TRACE_TRUNCATED_RECORD:
		return "record";
	case POSIX_TRACE_TRUNCATED_READ:
		return "read";
	}
	snprintf(buf, size, "%d", t);
	return buf;
}

static void print_time(const struct log_event *ev, const struct dump_opts *o,
		       const struct dump_clock *c)
{
	char text[TIME_TEXT_SIZE];
	const struct timespec *ts = &ev->info.posix_timestamp;

	switch (o->time) {
	case DUMP_TIME_ABSOLUTE:
		format_time(text, ts);
		break;
	case DUMP_TIME_RELATIVE:
		format_offset(text, ts, &c->first);
		break;
	case DUMP_TIME_DELTA:
		format_offset(text, ts, &c->prev);
		break;
	}
	fputs(text, stdout);
}

/*
 * "{name,name,...}": the event types of a set, by the names this dump
 * gives them; the first DUMP_SET_SHOWN unless --full-data.
 */
static void print_set(const struct log_reader *lr, const unsigned char *set,
		      bool full)
{
	char buf[LOG_TYPE_NAME_SIZE];
	unsigned int shown = 0;
	int id;

	putchar('{');
	for (id = set_next(set, 0); id >= 0; id = set_next(set, id + 1)) {
		if (!full && shown == DUMP_SET_SHOWN) {
			fputs(",...", stdout);
			break;
		}
		printf("%s%s", shown ? "," : "", log_type_name(lr, id, buf));
		shown++;
	}
	putchar('}');
}

/*
 * The data of START (the filter in force) and FILTER (the old filter, the
 * new one) as names: 144 bytes of event set say little in hex. False if
 * ev is neither, or its data is not the size it should be.
 */
static bool print_sets(const struct log_reader *lr, const struct log_event *ev,
		       bool full)
{
	const size_t set = DUMP_SET_SIZE;

	if (ev->info.posix_event_id == POSIX_TRACE_START &&
	    ev->data_len == set) {
		print_set(lr, ev->data, full);
		return true;
	}
	if (ev->info.posix_event_id == POSIX_TRACE_FILTER &&
	    ev->data_len == 2 * set) {
		print_set(lr, ev->data, full);
		fputs("->", stdout);
		print_set(lr, ev->data + set, full);
		return true;
	}
	return false;
}

/*
 * "data=": nothing, an event set, the fields of its format, "quoted
 * text", or hex as before.
 */
static void print_data(const struct log_reader *lr, const struct log_event *ev,
		       const struct dump_opts *o)
{
	char mismatch[96] = "";

	fputs("data=", stdout);
	if (!o->hex && print_sets(lr, ev, o->full_data))
		return;
	if (!o->hex && event_data_fields(stdout, ev, o->full_data, mismatch,
					 sizeof(mismatch)))
		return;
	event_data_bytes(stdout, ev, o->full_data, o->hex);
	fputs(mismatch, stdout);
}

/*
 * What the system events' data means, when it has the expected size; a
 * kernel event's names for its numbers, when it matches its format.
 */
static void print_decoded(const struct log_event *ev)
{
	const size_t set = DUMP_SET_SIZE;
	struct kevent k;
	const char *why;
	int v;

	if (kevent_decode(ev, &k)) {
		kevent_print_decoded(stdout, &k);
		return;
	}
	switch (ev->info.posix_event_id) {
	case POSIX_TRACE_ERROR:
		if (ev->data_len != 4)
			return;
		v = sys_data_int(ev->data);
		printf(" (error: %d, %s)", v, strerror(v));
		return;
	case POSIX_TRACE_STOP:
		if (ev->data_len != 4)
			return;
		v = sys_data_int(ev->data);
		why = sys_stop_reason(v);
		printf(" (stop: %d, %s)", v, why ? why : "unknown reason");
		return;
	case POSIX_TRACE_START:
		if (ev->data_len == set)
			printf(" (filter: %u types)", set_count(ev->data));
		return;
	case POSIX_TRACE_FILTER:
		if (ev->data_len == 2 * set)
			printf(" (filter: %u types -> %u types)",
			       set_count(ev->data), set_count(ev->data + set));
		return;
	}
}

void dump_text_event(const struct log_reader *lr, const struct log_event *ev,
		     const struct dump_opts *o, const struct dump_clock *c)
{
	char tbuf[16];

	print_time(ev, o, c);
	print_name(ev, o);
	printf(" pid=%d", (int)ev->info.posix_pid);
	if (ev->has_tid)
		printf(" tid=%d", (int)ev->tid);
	else
		printf(" tid=?");
	printf(" thread=0x%" PRIxMAX,
	       (uintmax_t)(uintptr_t)ev->info.posix_thread_id);
	if (ev->has_seq)
		printf(" seq=%" PRIu64, ev->seq);
	else
		printf(" seq=?");
	printf(" addr=0x%" PRIxMAX " trunc=%s len=%zu ",
	       (uintmax_t)(uintptr_t)ev->info.posix_prog_address,
	       truncation_text(ev->info.posix_truncation_status, tbuf,
			       sizeof(tbuf)),
	       ev->data_len);
	print_data(lr, ev, o);
	print_decoded(ev);
	putchar('\n');
}

static const char *overrun_text(int v, char *buf, size_t size)
{
	if (v == POSIX_TRACE_OVERRUN)
		return "OVERRUN";
	if (v == POSIX_TRACE_NO_OVERRUN)
		return "NO_OVERRUN";
	snprintf(buf, size, "%d", v);
	return buf;
}

/*
 * The status END recorded. Without END (the writer never finished) the
 * library would make one up from the events; we say it is unknown.
 */
static void print_status(const struct log_reader *lr,
			 const struct log_damage *damage)
{
	struct posix_trace_status_info st;
	char b[7][16];
	int err;

	if (!damage->has_end) {
		printf("# status: unknown: the log has no END block "
		       "(its writer did not finish it)\n");
		return;
	}
	err = posix_trace_get_status(lr->trid, &st);
	if (err) {
		printf("# status: unavailable: %s\n", strerror(err));
		return;
	}
	printf("# status: stream=%s full=%s overrun=%s flush=%s "
	       "flush-error=%d log-overrun=%s log-full=%s\n",
	       policy_text(st.posix_stream_status, b[0], 16),
	       policy_text(st.posix_stream_full_status, b[1], 16),
	       overrun_text(st.posix_stream_overrun_status, b[2], 16),
	       policy_text(st.posix_stream_flush_status, b[3], 16),
	       st.posix_stream_flush_error,
	       overrun_text(st.posix_log_overrun_status, b[5], 16),
	       policy_text(st.posix_log_full_status, b[6], 16));
}

/*
 * The filter in force at the end: END's; without END, the last START or
 * FILTER event's, if the dump read one; else it is not known.
 */
static void print_filter(const struct log_reader *lr,
			 const struct log_damage *damage,
			 const struct dump_totals *t)
{
	trace_event_set_t set;
	const unsigned char *bits;
	char buf[LOG_TYPE_NAME_SIZE];
	unsigned int shown = 0;
	int id;

	if (damage->has_end) {
		if (posix_trace_get_filter(lr->trid, &set))
			return;
		bits = (const unsigned char *)&set;
	} else if (t->have_filter) {
		bits = t->filter;
	} else {
		printf("# filter: unknown\n");
		return;
	}
	printf("# filter: %u types", set_count(bits));
	/* Name the first types; a long list would drown the line. */
	for (id = set_next(bits, 0); id >= 0 && shown < DUMP_SET_SHOWN;
	     id = set_next(bits, id + 1), shown++)
		printf(" %s", log_type_name(lr, id, buf));
	printf(id >= 0 ? " ...\n" : "\n");
}

void dump_text_footer(const struct log_reader *lr,
		      const struct log_damage *damage,
		      const struct dump_totals *t)
{
	print_status(lr, damage);
	print_filter(lr, damage, t);
	printf("# events: %" PRIu64 " read, ", t->events);
	if (t->filtered)
		printf("%" PRIu64 " shown, ", t->shown);
	printf("%" PRIu64 " missing in %" PRIu64 " gaps\n", t->missing,
	       t->gaps);
}
