/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace log as a timeline: tracks (a process's threads, the stream's
 * own), instants and spans on them. One walk of the log makes it, for two
 * writers: export --format=chrome (the Trace Event Format's JSON) and
 * view (a page that draws it), so that both show the same things.
 */
#ifndef POSIXTRACE_TOOL_TRACE_MODEL_H
#define POSIXTRACE_TOOL_TRACE_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "logread.h"

enum model_kind {
	MODEL_EVENT,	/* an instant: an event of the log */
	MODEL_SPAN,	/* from one event to another, or to the end */
	MODEL_LOST,	/* events missing from the log before this point */
};

/* One thing on the timeline (trace_model.c says which is which). */
struct model_record {
	enum model_kind kind;
	const char *name;
	const char *cat;	/* "user", "kernel", "stream", "syscall", "loss" */
	pid_t pid, tid;		/* the track */
	/* Where it is: ns from the stream's creation, within int64_t. */
	int64_t ts;
	int64_t dur;		/* MODEL_SPAN: >= 0 */
	/* MODEL_EVENT: the event. MODEL_SPAN: the event it ends at, or NULL. */
	const struct log_event *ev;
	/* MODEL_SPAN: the event it began at: its time, its other members. */
	const struct timespec *begin_ts;
	const char *begin_untimed;	/* as dump_json_untimed() wrote them */
	uint64_t lost;		/* MODEL_LOST */
};

struct model_sink {
	void (*record)(void *arg, const struct model_record *r);
	/*
	 * After the records, each track once: its thread's name, and
	 * @process_name when the track is the one that names its process.
	 */
	void (*track)(void *arg, pid_t pid, pid_t tid, const char *thread_name,
		      const char *process_name);
	void *arg;
};

struct model_totals {
	struct timespec origin;	/* the stream's creation */
	uint64_t events, lost;
};

/* ns from @from to @to, within int64_t: a damaged log's may be anything. */
int64_t model_ns_between(const struct timespec *from,
			 const struct timespec *to);

/*
 * Reads every event of @lr into @sink. *@nread counts the events read;
 * *@read_error tells a failure to read the log from any other. Returns 0
 * or an error number; @t is filled either way.
 */
int trace_model_walk(struct log_reader *lr, const struct model_sink *sink,
		     struct model_totals *t, uint64_t *nread,
		     bool *read_error);

#endif /* POSIXTRACE_TOOL_TRACE_MODEL_H */
