/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace dump: what its files share. dump.c reads the log and chooses
 * the events; dump_text.c and dump_json.c print them; dump_sys.c knows
 * what the system events' data mean.
 */
#ifndef POSIXTRACE_TOOL_DUMP_H
#define POSIXTRACE_TOOL_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "logcheck.h"
#include "logread.h"

/* Names of an event set shown in text unless --full-data. */
#define DUMP_SET_SHOWN		8

enum dump_time {
	DUMP_TIME_ABSOLUTE,	/* UTC date and time */
	DUMP_TIME_RELATIVE,	/* since the log's first event */
	DUMP_TIME_DELTA,	/* since the previous event printed */
};

struct dump_opts {
	bool full_data;
	bool hex;		/* every payload in hex, event sets too */
	bool json;
	bool tree;		/* the process tree, not the events */
	bool colour;		/* text: names and gaps in colour */
	enum dump_time time;
};

/* The times an event's is shown against. */
struct dump_clock {
	struct timespec first;	/* the log's first event */
	struct timespec prev;	/* the previous event printed, or first */
};

struct dump_totals {
	uint64_t events;	/* read from the log */
	uint64_t shown;		/* of them, printed */
	uint64_t missing;	/* in the gaps of the whole log */
	uint64_t gaps;
	bool filtered;		/* a filter was given: say how many shown */
	/* The last START or FILTER event's filter, for a log without END. */
	bool have_filter;
	unsigned char filter[sizeof(trace_event_set_t)];
};

/* dump_text.c */
void dump_text_header(const struct log_reader *lr);
void dump_text_origin(const struct timespec *first);
void dump_text_gap(const struct log_event *ev, const struct dump_opts *o);
void dump_text_event(const struct log_reader *lr, const struct log_event *ev,
		     const struct dump_opts *o, const struct dump_clock *c);
void dump_text_footer(const struct log_reader *lr,
		      const struct log_damage *damage,
		      const struct dump_totals *t);

/* dump_json.c */
/*
 * The members of an event's object, comma-separated, without braces:
 * what dump --json writes of it, for another writer's object (the Chrome
 * export's "args").
 */
void dump_json_members(FILE *out, const struct log_reader *lr,
		       const struct log_event *ev, const struct dump_opts *o,
		       const struct dump_clock *c);
/* Its time's members: "ts", "ts_sec", "ts_nsec", "time". */
void dump_json_time(FILE *out, const struct timespec *ts);
/*
 * The members after them (--relative and --delta's excepted), each
 * after ", ": dump_json_members() is the two.
 */
void dump_json_untimed(FILE *out, const struct log_reader *lr,
		       const struct log_event *ev, const struct dump_opts *o);
void dump_json_event(const struct log_reader *lr, const struct log_event *ev,
		     const struct dump_opts *o, const struct dump_clock *c);

/* dump_sys.c: POSIX's system events (identifiers below 64). */
#define DUMP_SET_SIZE	sizeof(trace_event_set_t)

/* "START", "STOP"..., NULL for a user event. */
const char *sys_event_name(trace_event_id_t id);
/* What it says happened, "an event of the system" if not POSIX's. */
const char *sys_event_meaning(trace_event_id_t id);
/* Why STOP's "auto" says the stream stopped, NULL if unknown. */
const char *sys_stop_reason(int v);
/* The int ERROR and STOP carry (the library gives it in host order). */
int sys_data_int(const unsigned char *p);
/* The members of an event set of DUMP_SET_SIZE bytes, in host order. */
unsigned int set_count(const unsigned char *set);
/* The first member at or above from, -1 if none. */
int set_next(const unsigned char *set, int from);

#endif /* POSIXTRACE_TOOL_DUMP_H */
