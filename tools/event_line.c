// SPDX-License-Identifier: GPL-2.0
/* posixtrace trace's lines (see event_line.h). */

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "colour.h"
#include "event_data.h"
#include "event_line.h"
#include "kevent_text.h"

/* "12:00:00.123456": local time, as strace -tt. */
static void print_time(FILE *out, const struct timespec *ts)
{
	time_t sec = ts->tv_sec;
	struct tm tm;

	if (!localtime_r(&sec, &tm)) {
		fprintf(out, "@%jd.%06ld", (intmax_t)sec, ts->tv_nsec / 1000);
		return;
	}
	fprintf(out, "%02d:%02d:%02d.%06ld", tm.tm_hour, tm.tm_min, tm.tm_sec,
		ts->tv_nsec / 1000);
}

/* "# TIME " before a line that is no process's event, in red. */
static void start_note(FILE *out, const struct log_event *ev,
		       const struct event_line_opts *o)
{
	fputs(o->colour ? SGR_RED "# " : "# ", out);
	print_time(out, &ev->info.posix_timestamp);
	putc(' ', out);
}

static void end_line(FILE *out, const struct event_line_opts *o)
{
	fputs(o->colour ? SGR_RESET "\n" : "\n", out);
}

static void print_prefix(FILE *out, const struct log_event *ev)
{
	pid_t pid = ev->info.posix_pid;

	if (ev->has_tid && ev->tid && ev->tid != pid)
		fprintf(out, "[pid %5d/%d] ", (int)pid, (int)ev->tid);
	else
		fprintf(out, "[pid %5d] ", (int)pid);
	print_time(out, &ev->info.posix_timestamp);
	putc(' ', out);
}

/* A kernel event's colour: how a process ended, a signal. */
static const char *kevent_colour(const struct kevent *k)
{
	if (k->kind == KEVENT_EXIT)
		return k->u.exit.signal || k->u.exit.status ? SGR_RED :
							      SGR_GREEN;
	if (k->kind == KEVENT_SIGNAL_GENERATE ||
	    k->kind == KEVENT_SIGNAL_DELIVER)
		return SGR_YELLOW;
	return "";
}

/* Any other event: its name, then its data as dump shows it. */
static void print_other(FILE *out, const struct log_event *ev,
			const struct event_line_opts *o)
{
	char mismatch[96] = "";

	fprintf(out, "%s%s%s", o->colour ? SGR_BOLD : "", ev->type->name,
		o->colour ? SGR_RESET : "");
	if (!ev->data_len && !(ev->type->format))
		return;
	putc(' ', out);
	if (event_data_fields(out, ev, o->full_data, mismatch,
			      sizeof(mismatch)))
		return;
	event_data_bytes(out, ev, o->full_data, false);
	fputs(mismatch, out);
}

/* POSIX's system events: only what says events are missing, or why. */
static void print_system(FILE *out, const struct log_event *ev,
			 const struct event_line_opts *o)
{
	int err;

	switch (ev->info.posix_event_id) {
	case POSIX_TRACE_OVERFLOW:
		/* The gap after it said how many; without one, we cannot. */
		if (ev->gap)
			return;
		start_note(out, ev, o);
		fputs("lost events (how many is not known)", out);
		end_line(out, o);
		return;
	case POSIX_TRACE_ERROR:
		start_note(out, ev, o);
		if (ev->data_len == sizeof(err)) {
			memcpy(&err, ev->data, sizeof(err));
			fprintf(out, "trace error: %s", strerror(err));
		} else {
			fputs("trace error", out);
		}
		end_line(out, o);
		return;
	}
}

void event_line_print(FILE *out, const struct log_event *ev,
		      const struct event_line_opts *o)
{
	trace_event_id_t id = ev->info.posix_event_id;
	struct kevent k;
	const char *colour;

	if (ev->gap) {
		start_note(out, ev, o);
		fprintf(out, "lost %" PRIu64 " event%s",
			ev->gap, ev->gap == 1 ? "" : "s");
		end_line(out, o);
	}
	if (id < POSIX_TRACE_UNNAMED_USER_EVENT && !kevent_is_kernel(id)) {
		print_system(out, ev, o);
		return;
	}
	print_prefix(out, ev);
	if (kevent_decode(ev, &k)) {
		colour = o->colour ? kevent_colour(&k) : "";
		fputs(colour, out);
		kevent_print_line(out, &k);
		fputs(*colour ? SGR_RESET "\n" : "\n", out);
		return;
	}
	print_other(out, ev, o);
	putc('\n', out);
}
