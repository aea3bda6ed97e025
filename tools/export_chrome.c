// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace export --format=chrome: a trace log as the Trace Event Format,
 * the JSON that Perfetto (ui.perfetto.dev), chrome://tracing and Speedscope
 * read ("Trace Event Format", Google, the JSON Object Format).
 *
 * The timeline is trace_model.c's: its tracks are threads ("M" events
 * name them, and their processes), and every event of the log is in the
 * file exactly once, as an "args" object with the members dump --json
 * gives it:
 *  - a span is a complete event ("X"), args {"begin": its first event,
 *    "end": its last}, or {"begin": ..., "unfinished": true};
 *  - an instant is an "i" event on its thread's track, args the event;
 *  - events missing from the log are a global instant "lost N events",
 *    args {"lost": N}.
 * Times ("ts", "dur") are microseconds, with the nanoseconds as three
 * decimals, from the stream's creation; "otherData" holds the stream's
 * name, its creation time (as text, and as seconds and nanoseconds), the
 * log's path, the events and the events lost.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "dump.h"
#include "export_chrome.h"
#include "json.h"
#include "text.h"
#include "trace_model.h"

struct chrome {
	FILE *out;
	const struct log_reader *lr;
	struct dump_opts opts;
	uint64_t written;
};

static void chrome_time(FILE *out, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	fprintf(out, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000,
		a % 1000);
}

/* The head of a trace event, up to its time; the caller ends it. */
static void chrome_head(struct chrome *c, const char *ph,
			const struct model_record *r)
{
	FILE *out = c->out;

	fputs(c->written++ ? ",\n" : "\n", out);
	fprintf(out, "{\"ph\":\"%s\",\"name\":", ph);
	json_string(out, r->name);
	fprintf(out, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", r->cat,
		(int)r->pid, (int)r->tid);
	chrome_time(out, r->ts);
}

/* An event's members, as dump --json writes them. */
static void chrome_members(struct chrome *c, const struct log_event *ev)
{
	dump_json_time(c->out, &ev->info.posix_timestamp);
	dump_json_untimed(c->out, c->lr, ev, &c->opts);
}

static void chrome_record(void *arg, const struct model_record *r)
{
	struct chrome *c = arg;
	FILE *out = c->out;

	switch (r->kind) {
	case MODEL_EVENT:
		chrome_head(c, "i", r);
		fputs(",\"s\":\"t\",\"args\":{", out);
		chrome_members(c, r->ev);
		fputs("}}", out);
		return;
	case MODEL_SPAN:
		chrome_head(c, "X", r);
		fputs(",\"dur\":", out);
		chrome_time(out, r->dur);
		fputs(",\"args\":{\"begin\":{", out);
		dump_json_time(out, r->begin_ts);
		fputs(r->begin_untimed, out);
		if (r->ev) {
			fputs("},\"end\":{", out);
			chrome_members(c, r->ev);
			fputs("}}}", out);
		} else {
			fputs("},\"unfinished\":true}}", out);
		}
		return;
	case MODEL_LOST:
		chrome_head(c, "i", r);
		fprintf(out, ",\"s\":\"g\",\"cname\":\"terrible\","
			"\"args\":{\"lost\":%" PRIu64 "}}", r->lost);
		return;
	}
}

static void chrome_metadata(struct chrome *c, const char *what, pid_t pid,
			    pid_t tid, const char *name)
{
	fputs(c->written++ ? ",\n" : "\n", c->out);
	fprintf(c->out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
		"\"args\":{\"name\":", what, (int)pid, (int)tid);
	json_string(c->out, name);
	fputs("}}", c->out);
}

static void chrome_track(void *arg, pid_t pid, pid_t tid,
			 const char *thread_name, const char *process_name)
{
	struct chrome *c = arg;

	chrome_metadata(c, "thread_name", pid, tid, thread_name);
	if (process_name)
		chrome_metadata(c, "process_name", pid, pid, process_name);
}

static void chrome_other_data(struct chrome *c, const struct model_totals *t)
{
	char name[TRACE_NAME_MAX + 1] = "", text[TIME_TEXT_SIZE];
	FILE *out = c->out;

	posix_trace_attr_getname(&c->lr->attr, name);
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"stream\":",
	      out);
	json_string(out, name);
	format_time(text, &t->origin);
	fputs(",\"created\":", out);
	json_string(out, text);
	fprintf(out, ",\"created_sec\":%jd,\"created_nsec\":%ld",
		(intmax_t)t->origin.tv_sec, t->origin.tv_nsec);
	fputs(",\"log\":", out);
	json_string(out, c->lr->path);
	fprintf(out, ",\"events\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"generator\":\"posixtrace " POSIXTRACE_VERSION "\"}}\n",
		t->events, t->lost);
}

int export_chrome(struct log_reader *lr, FILE *out, uint64_t *nread,
		  bool *read_error)
{
	struct chrome c = { .out = out, .lr = lr };
	const struct model_sink sink = {
		.record = chrome_record,
		.track = chrome_track,
		.arg = &c,
	};
	struct model_totals totals;
	int err;

	fputs("{\"traceEvents\":[", out);
	err = trace_model_walk(lr, &sink, &totals, nread, read_error);
	if (!err)
		chrome_other_data(&c, &totals);
	return err;
}
