/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace trace's lines: one per event, as strace -f prints them, the
 * same whether the events come live from a stream or from a log (trace
 * --replay), so that a host test can check them against a log:
 *
 *	[pid  1234] 12:00:00.123456 fork -> pid 1235
 *	[pid  1235] 12:00:00.124000 exec "/bin/ls" ["ls", "-l"] (comm ls)
 *	[pid  1240/1241] 12:00:00.125000 app.step {id=3, ms=1.5}
 *	# 12:00:00.200000 lost 42 events
 *
 * The prefix is the process id, "/TID" added for a thread other than
 * its first; the time is local, to the microsecond. Kernel events read
 * as kevent_text.h says; other events are their name and their data as
 * dump shows it (fields, "text" or hex). Lines that are no process's
 * event start with '#': losses, and errors of the trace system. POSIX's
 * other system events (start, stop, flush, filter) are not shown.
 */
#ifndef POSIXTRACE_TOOL_EVENT_LINE_H
#define POSIXTRACE_TOOL_EVENT_LINE_H

#include <stdbool.h>
#include <stdio.h>

#include "logread.h"

struct event_line_opts {
	bool colour;
	bool full_data;		/* every payload byte (else the first 32) */
};

/* The lines of ev (none, one, or a loss then the event). */
void event_line_print(FILE *out, const struct log_event *ev,
		      const struct event_line_opts *o);

#endif /* POSIXTRACE_TOOL_EVENT_LINE_H */
