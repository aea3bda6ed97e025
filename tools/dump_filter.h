/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which events posixtrace dump prints: by name (shell patterns), pid, tid
 * and time. Each option may be given more than once: an event is printed
 * if it matches one of the values of every option given.
 */
#ifndef POSIXTRACE_TOOL_DUMP_FILTER_H
#define POSIXTRACE_TOOL_DUMP_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "logread.h"
#include "timearg.h"

struct id_list {
	pid_t *v;
	size_t n;
};

struct dump_filter {
	const char **globs;	/* into argv */
	size_t nglobs;
	struct id_list pids;
	struct id_list tids;
	struct time_arg since, until;
	/* The bounds as points in time, once the origin is known. */
	struct timespec from, to;
};

/*
 * The options' arguments. Each returns 0; EINVAL with *why saying what is
 * wrong with arg (a usage error); or ENOMEM.
 */
int filter_add_glob(struct dump_filter *f, const char *arg, const char **why);
/* "PID" or "PID,PID,...". */
int filter_add_ids(struct id_list *l, const char *arg, const char **why);
/* After every option: NULL, or why they contradict each other. */
const char *filter_check(const struct dump_filter *f);

/* True if any option was given. */
bool filter_active(const struct dump_filter *f);
/* The time relative bounds count from: the log's first event. */
void filter_set_origin(struct dump_filter *f, const struct timespec *first);
/* True if ts is within --since and --until (both included). */
bool filter_in_time(const struct dump_filter *f, const struct timespec *ts);
/* True if the event is to be printed. */
bool filter_match(const struct dump_filter *f, const struct log_event *ev);

void filter_free(struct dump_filter *f);

#endif /* POSIXTRACE_TOOL_DUMP_FILTER_H */
