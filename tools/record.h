/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace record's options, and what record.c shares with the flight
 * recorder (record_loop.c, record --loop).
 */
#ifndef POSIXTRACE_TOOL_RECORD_H
#define POSIXTRACE_TOOL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <trace.h>

#include "kernel_classes.h"
#include "record_select.h"

/* What makes the flight recorder write a snapshot (--snapshot-on). */
enum record_trigger_kind {
	TRIGGER_SIGNAL,		/* a traced thread takes signal @sig */
	TRIGGER_EVENT,		/* a traced process records event @name */
	TRIGGER_EXIT_STATUS,	/* a traced process exits failing */
};

#define RECORD_TRIGGERS_MAX	16

struct record_trigger {
	enum record_trigger_kind kind;
	int sig;
	char name[TRACE_EVENT_NAME_MAX + 1];
};

struct record_opts {
	const char *output;		/* "-": standard output; a DIR for --loop */
	pid_t pid;			/* attach to it; 0: run argv */
	char **argv;			/* the command, NULL-terminated */
	const char *name;		/* NULL: the command's basename */
	size_t stream_size, max_data_size, log_size;
	bool has_stream_size, has_max_data_size, has_log_size;
	int log_policy;
	bool has_log_policy;
	bool inherit;
	bool quiet;			/* -q: the summary's first line */
	struct record_select select;	/* -e */
	struct kernel_classes kernel;	/* --kernel */
	/* --loop SIZE: the flight recorder, a LOOP stream of SIZE. */
	size_t loop_size;
	bool loop;
	struct record_trigger triggers[RECORD_TRIGGERS_MAX];
	int ntriggers;
};

/* The trace name: COMMAND's basename, or the name the kernel gives PID. */
void record_default_name(const struct record_opts *o, char *name,
			 size_t size);
/* The stream's attributes; NULL, or the option the library refused. */
const char *record_make_attr(const struct record_opts *o, trace_attr_t *attr);
/* "cannot trace ...: why", on stderr, for posix_trace_create*()'s @err. */
void record_trace_error(const struct record_opts *o, int err);

/* record_loop.c: --snapshot-on's argument (a comma list); 0 or EINVAL. */
int record_loop_triggers(struct record_opts *o, const char *text,
			 const char **why);
/* record --loop: runs it all; returns the exit status. */
int record_loop(struct record_opts *o);

#endif /* POSIXTRACE_TOOL_RECORD_H */
