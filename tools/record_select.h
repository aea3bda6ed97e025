/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace record -e: the event types to record, by name or shell
 * pattern, made into the stream's filter (the set of types NOT recorded).
 *
 * POSIX's system events are always recorded: they say when tracing
 * started and stopped, and where events were lost. The kernel's (ABI
 * 0.12, posixtrace_proc_fork...) are chosen like user types.
 *
 * A traced program names its types when it first opens them, mostly after
 * tracing started, and an identifier is given in the order names are
 * opened: the filter cannot name a type before it exists. So:
 *  - an exact name is opened on the stream before it starts
 *    (posix_trace_trid_eventid_open() names the type for the traced
 *    process, which then gets that identifier when it opens the name):
 *    with exact names only, the filter holds every other identifier, used
 *    or not, and is never changed;
 *  - with a pattern, the filter holds the types known not to match; the
 *    stream's type list is read again at every status check (each quarter
 *    second) and the new types no pattern selects are added. A type opened
 *    after the start is recorded until then: a selected type never misses
 *    an event, and the log may hold the first few of a type not selected.
 */
#ifndef POSIXTRACE_TOOL_RECORD_SELECT_H
#define POSIXTRACE_TOOL_RECORD_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/posixtrace.h>
#include <trace.h>

struct record_select {
	const char **patterns;		/* as given, into argv */
	bool *is_glob;
	size_t n;
	bool any_glob;
	/* Types already classified (globs), by identifier. */
	unsigned char seen[POSIXTRACE_EVENT_ID_MAX];
	bool failed_told;
};

/*
 * Adds an -e argument. Returns 0; EINVAL with *why saying what is wrong
 * (a usage error); or ENOMEM.
 */
int record_select_add(struct record_select *sel, const char *arg,
		      const char **why);
static inline bool record_select_active(const struct record_select *sel)
{
	return sel->n > 0;
}

/*
 * Before the stream starts: opens the exact names on it and sets the
 * filter. Returns 0 or an error number (said on stderr).
 */
int record_select_apply(struct record_select *sel, trace_id_t trid);
/* While it runs (patterns only): filters out the new types not selected. */
void record_select_update(struct record_select *sel, trace_id_t trid);

/* True if name, as dump prints it (escaped), is selected. */
bool record_select_match(const struct record_select *sel, const char *name);
/* Whether the i-th -e given selects name. */
bool record_select_match_one(const struct record_select *sel, size_t i,
			     const char *name);

void record_select_free(struct record_select *sel);

#endif /* POSIXTRACE_TOOL_RECORD_SELECT_H */
