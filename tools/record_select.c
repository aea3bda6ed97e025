// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace record -e: the stream's filter from names and patterns (see
 * record_select.h).
 */

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_filter.h"
#include "kevent.h"
#include "record_select.h"
#include "text.h"

#define PROG	"posixtrace record"

/* What fnmatch() gives a meaning to; anything else is an exact name. */
static bool is_pattern(const char *p)
{
	return strpbrk(p, "*?[\\") != NULL;
}

static int hex(char c)
{
	return isdigit((unsigned char)c) ? c - '0' :
	       tolower((unsigned char)c) - 'a' + 10;
}

/*
 * The name an exact -e stands for: it is written as dump prints names,
 * a byte outside printable ASCII (or a space, %, " or \) as %XX.
 */
static int unescape(const char *in, char out[TRACE_EVENT_NAME_MAX + 1],
		    const char **why)
{
	size_t n = 0;
	int c;

	for (; *in; in++) {
		if (n == TRACE_EVENT_NAME_MAX) {
			*why = "longer than 63 bytes: no event type has such "
			       "a name";
			return EINVAL;
		}
		c = (unsigned char)*in;
		if (c == '%') {
			if (!isxdigit((unsigned char)in[1]) ||
			    !isxdigit((unsigned char)in[2])) {
				*why = "'%' not followed by two hexadecimal "
				       "digits (a name's byte as dump writes "
				       "it, %XX)";
				return EINVAL;
			}
			c = hex(in[1]) * 16 + hex(in[2]);
			in += 2;
			if (!c) {
				*why = "%00: an event name holds no NUL";
				return EINVAL;
			}
		}
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return 0;
}

int record_select_add(struct record_select *sel, const char *arg,
		      const char **why)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct dump_filter check = { 0 };
	const char **patterns;
	bool *is_glob, glob;
	int err;

	/* The pattern rules of dump -e: the same pattern, the same events. */
	err = filter_add_glob(&check, arg, why);
	filter_free(&check);
	if (err)
		return err;
	glob = is_pattern(arg);
	if (!glob && (err = unescape(arg, name, why)))
		return err;
	patterns = realloc(sel->patterns, (sel->n + 1) * sizeof(*patterns));
	if (!patterns)
		return ENOMEM;
	sel->patterns = patterns;
	is_glob = realloc(sel->is_glob, (sel->n + 1) * sizeof(*is_glob));
	if (!is_glob)
		return ENOMEM;
	sel->is_glob = is_glob;
	sel->patterns[sel->n] = arg;
	sel->is_glob[sel->n] = glob;
	sel->any_glob |= glob;
	sel->n++;
	return 0;
}

void record_select_free(struct record_select *sel)
{
	free(sel->patterns);
	free(sel->is_glob);
	sel->patterns = NULL;
	sel->is_glob = NULL;
	sel->n = 0;
}

bool record_select_match_one(const struct record_select *sel, size_t i,
			     const char *name)
{
	return !fnmatch(sel->patterns[i], name, 0);
}

bool record_select_match(const struct record_select *sel, const char *name)
{
	size_t i;

	for (i = 0; i < sel->n; i++)
		if (record_select_match_one(sel, i, name))
			return true;
	return false;
}

/*
 * Whether -e chooses for id: user types, and the kernel's.
 * POSIX's own system events are always recorded.
 */
static bool selectable(trace_event_id_t id)
{
	return (id >= POSIX_TRACE_UNNAMED_USER_EVENT &&
		id < POSIXTRACE_EVENT_ID_MAX) || kevent_is_kernel(id);
}

/* Whether name is one of the n names (NULL holes allowed); its index. */
static bool listed_name(const char *const *names, size_t n, const char *name,
			trace_event_id_t *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name)) {
			*id = (trace_event_id_t)i;
			return true;
		}
	return false;
}

/*
 * The identifier of an exact name. System names have theirs already
 * (the kernel events' too): opening one on the stream would make a user
 * type of that name.
 */
static int exact_id(trace_id_t trid, const char *pattern,
		    trace_event_id_t *id)
{
	static const char *const system_names[] =
		POSIXTRACE_SYSTEM_EVENT_NAMES;
	static const char *const kernel_names[] =
		POSIXTRACE_KERNEL_EVENT_NAMES;
	char name[TRACE_EVENT_NAME_MAX + 1];
	const char *why;

	if (unescape(pattern, name, &why))
		return EINVAL;	/* record_select_add() said it was good */
	if (listed_name(system_names,
			sizeof(system_names) / sizeof(system_names[0]), name,
			id) ||
	    listed_name(kernel_names,
			sizeof(kernel_names) / sizeof(kernel_names[0]), name,
			id))
		return 0;
	if (!strcmp(name, POSIXTRACE_UNNAMED_USER_NAME)) {
		*id = POSIX_TRACE_UNNAMED_USER_EVENT;
		return 0;
	}
	return posix_trace_trid_eventid_open(trid, name, id);
}

/*
 * Every identifier -e chooses for, named yet or not: what exact names
 * leave out.
 */
static void fill_selectable(trace_event_set_t *set)
{
	trace_event_id_t id;

	posix_trace_eventset_fill(set, POSIX_TRACE_ALL_EVENTS);
	for (id = 0; id < POSIX_TRACE_UNNAMED_USER_EVENT; id++)
		if (!selectable(id))
			posix_trace_eventset_del(id, set);
}

/* Adds id to set unless selected; returns 1 if it was added. */
static int classify(struct record_select *sel, trace_id_t trid,
		    trace_event_id_t id, trace_event_set_t *set)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	char escaped[ESCAPED_SIZE(TRACE_EVENT_NAME_MAX)];

	if (!selectable(id) || sel->seen[id])
		return 0;
	if (posix_trace_eventid_get_name(trid, id, name))
		return 0;	/* not named yet: next time */
	sel->seen[id] = 1;
	escape_name(escaped, name);
	if (record_select_match(sel, escaped))
		return 0;
	posix_trace_eventset_add(id, set);
	return 1;
}

/* The stream's types not classified yet, those not selected into set. */
static int classify_new(struct record_select *sel, trace_id_t trid,
			trace_event_set_t *set)
{
	trace_event_id_t id;
	int unavailable = 0, added = 0;

	added += classify(sel, trid, POSIX_TRACE_UNNAMED_USER_EVENT, set);
	if (posix_trace_eventtypelist_rewind(trid))
		return added;
	while (!posix_trace_eventtypelist_getnext_id(trid, &id,
						     &unavailable) &&
	       !unavailable)
		added += classify(sel, trid, id, set);
	return added;
}

int record_select_apply(struct record_select *sel, trace_id_t trid)
{
	trace_event_set_t filter;
	trace_event_id_t id;
	size_t i;
	int err;

	if (!sel->n)
		return 0;
	posix_trace_eventset_empty(&filter);
	if (!sel->any_glob)
		fill_selectable(&filter);
	for (i = 0; i < sel->n; i++) {
		if (sel->is_glob[i])
			continue;
		err = exact_id(trid, sel->patterns[i], &id);
		if (err) {
			fprintf(stderr, PROG ": -e %s: %s\n",
				sel->patterns[i], strerror(err));
			return err;
		}
		posix_trace_eventset_del(id, &filter);
		if (id < POSIXTRACE_EVENT_ID_MAX)
			sel->seen[id] = 1;
	}
	if (sel->any_glob)
		classify_new(sel, trid, &filter);
	err = posix_trace_set_filter(trid, &filter, POSIX_TRACE_SET_EVENTSET);
	if (err)
		fprintf(stderr, PROG ": setting the filter: %s\n",
			strerror(err));
	return err;
}

void record_select_update(struct record_select *sel, trace_id_t trid)
{
	trace_event_set_t add;
	int err;

	if (!sel->any_glob)
		return;
	posix_trace_eventset_empty(&add);
	if (!classify_new(sel, trid, &add))
		return;
	err = posix_trace_set_filter(trid, &add, POSIX_TRACE_ADD_EVENTSET);
	if (err && !sel->failed_told) {
		fprintf(stderr, PROG ": updating the filter: %s: events of "
			"types not selected are recorded\n", strerror(err));
		sel->failed_told = true;
	}
}
