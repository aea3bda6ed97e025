// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace dump LOG: a trace log as text, one line per event.
 *
 * Lines that are not events start with '#': the header (the stream's
 * attributes), the gaps in sequence numbers, and the final status. So
 * "grep -v '^#'" leaves the events, and two dumps diff line by line.
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "logread.h"
#include "text.h"

/* Payload bytes shown per event unless --full-data. */
#define DATA_SHOWN	32

struct dump_totals {
	uint64_t events;
	uint64_t missing;
	uint64_t gaps;
};

static void print_header(const struct log_reader *lr)
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

static unsigned int set_count(const unsigned char *p)
{
	unsigned int n = 0;
	uint64_t w;
	size_t i;

	/* A word's population is the same in either byte order. */
	for (i = 0; i < sizeof(trace_event_set_t); i += sizeof(w)) {
		memcpy(&w, p + i, sizeof(w));
		n += (unsigned int)__builtin_popcountll(w);
	}
	return n;
}

/* The int a system event carries, in this machine's byte order. */
static int data_int(const unsigned char *p)
{
	int v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * What the system events' data means, when it has the expected size. A
 * log keeps it little-endian (<linux/posixtrace_log.h>), but the library
 * hands it over in this machine's order, as a stream's would be.
 */
static void print_decoded(const struct log_event *ev)
{
	static const char *const stop_why[] = {
		"posix_trace_stop", "stream full", "log full",
	};
	const size_t set = sizeof(trace_event_set_t);
	int v;

	switch (ev->info.posix_event_id) {
	case POSIX_TRACE_ERROR:
		if (ev->data_len != 4)
			return;
		v = data_int(ev->data);
		printf(" (error: %d, %s)", v, strerror(v));
		return;
	case POSIX_TRACE_STOP:
		if (ev->data_len != 4)
			return;
		v = data_int(ev->data);
		printf(" (stop: %d, %s)", v, v >= 0 && v <= 2 ? stop_why[v] :
		       "unknown reason");
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

static void print_event(const struct log_event *ev, bool full_data)
{
	char time_text[TIME_TEXT_SIZE], tbuf[16];
	size_t i, shown;

	if (ev->gap)
		printf("# gap: %" PRIu64 " events missing before seq %" PRIu64
		       "\n", ev->gap, ev->seq);
	format_time(time_text, &ev->info.posix_timestamp);
	printf("%s %s pid=%d", time_text, ev->type->name,
	       (int)ev->info.posix_pid);
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
	printf(" addr=0x%" PRIxMAX " trunc=%s len=%zu data=",
	       (uintmax_t)(uintptr_t)ev->info.posix_prog_address,
	       truncation_text(ev->info.posix_truncation_status, tbuf,
			       sizeof(tbuf)),
	       ev->data_len);
	shown = full_data || ev->data_len <= DATA_SHOWN ? ev->data_len :
		DATA_SHOWN;
	for (i = 0; i < shown; i++)
		printf("%02x", ev->data[i]);
	if (shown < ev->data_len)
		printf("...");
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

static void print_filter(struct log_reader *lr)
{
	trace_event_set_t set;
	unsigned int n, shown = 0;
	size_t i;
	int in;

	if (posix_trace_get_filter(lr->trid, &set))
		return;
	n = set_count((const unsigned char *)&set);
	printf("# filter: %u types", n);
	/* Name the known types; a long list would drown the line. */
	for (i = 0; i < lr->ntypes && shown < 8; i++) {
		if (!posix_trace_eventset_ismember(lr->types[i].id, &set, &in) &&
		    in) {
			printf(" %s", lr->types[i].name);
			shown++;
		}
	}
	printf(n > shown ? " ...\n" : "\n");
}

static void print_footer(struct log_reader *lr, const struct dump_totals *t)
{
	struct posix_trace_status_info st;
	char b[7][16];
	int err;

	err = posix_trace_get_status(lr->trid, &st);
	if (err) {
		printf("# status: unavailable: %s\n", strerror(err));
	} else {
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
	print_filter(lr);
	printf("# events: %" PRIu64 " read, %" PRIu64 " missing in %" PRIu64
	       " gaps\n", t->events, t->missing, t->gaps);
}

static const char dump_usage[] =
"usage: posixtrace dump [--full-data] LOG\n"
"Print the trace log LOG as text, one line per event:\n"
"  TIME NAME pid=PID tid=TID thread=0xTHREAD seq=SEQ addr=0xADDR\n"
"  trunc=no|record|read len=N data=HEX [(decoded system event data)]\n"
"TID is the kernel thread id (gettid()) of the event's thread, 0 for events\n"
"of no thread (most system events).\n"
"TIME is UTC with nanoseconds; names escape bytes outside printable ASCII,\n"
"space, %, \" and \\ as %XX. Other lines start with '#': the stream's\n"
"attributes first, '# gap:' where sequence numbers skip events, the final\n"
"status last.\n"
"\n"
"  -x, --full-data   print every payload byte (default: the first 32, then ...)\n"
"  -h, --help        print this help\n"
"\n"
"Exit status: 0 read to the end, 1 not a trace log or a read error, 2 usage.\n";

int cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{ "full-data", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_totals totals = { 0 };
	struct log_reader lr;
	struct log_event ev;
	bool full_data = false, end = false;
	int c, err;

	while ((c = getopt_long(argc, argv, "xh", options, NULL)) != -1) {
		switch (c) {
		case 'x':
			full_data = true;
			break;
		case 'h':
			return usage_help(dump_usage);
		default:
			return usage_error(dump_usage, NULL);
		}
	}
	if (argc - optind != 1)
		return usage_error(dump_usage, argc == optind ? "no LOG given" :
				   "one LOG at a time");
	if (log_open(&lr, argv[optind], "posixtrace dump"))
		return 1;
	print_header(&lr);
	while (!(err = log_next(&lr, &ev, &end)) && !end) {
		print_event(&ev, full_data);
		totals.events++;
		totals.missing += ev.gap;
		totals.gaps += ev.gap != 0;
	}
	if (err) {
		fflush(stdout);
		fprintf(stderr, "posixtrace dump: %s: reading event %" PRIu64
			": %s\n", lr.path, totals.events + 1, strerror(err));
	} else {
		print_footer(&lr, &totals);
	}
	log_close(&lr);
	if (fflush(stdout) || ferror(stdout)) {
		perror("posixtrace dump: standard output");
		return 1;
	}
	return err ? 1 : 0;
}
