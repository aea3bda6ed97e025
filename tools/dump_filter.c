// SPDX-License-Identifier: GPL-2.0
/* Which events posixtrace dump prints: see dump_filter.h. */

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dump_filter.h"

static bool known_class(const char *name, size_t len)
{
	static const char *const classes[] = {
		"alnum", "alpha", "blank", "cntrl", "digit", "graph",
		"lower", "print", "punct", "space", "upper", "xdigit",
	};
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strlen(classes[i]) == len && !strncmp(classes[i], name, len))
			return true;
	return false;
}

/*
 * The end of the bracket expression starting at p ('['), or NULL with
 * *why set. A ']' first in it is one of its characters.
 */
static const char *bracket_end(const char *p, const char **why)
{
	const char *q = p + 1, *end;

	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')
		q++;
	for (; *q && *q != ']'; q++) {
		if (q[0] != '[' || q[1] != ':')
			continue;
		end = strstr(q + 2, ":]");
		if (!end || !known_class(q + 2, (size_t)(end - q - 2))) {
			*why = "unknown character class in pattern";
			return NULL;
		}
		q = end + 1;
	}
	if (!*q) {
		*why = "'[' without ']' in pattern";
		return NULL;
	}
	return q;
}

/*
 * fnmatch() matches a bad pattern literally rather than say so: a '['
 * left open would then match only itself, silently. We say so.
 */
static const char *glob_error(const char *p)
{
	const char *why = NULL;

	if (!*p)
		return "empty event pattern";
	for (; *p; p++) {
		if (*p == '\\') {
			if (!p[1])
				return "pattern ends with '\\'";
			p++;
		} else if (*p == '[') {
			p = bracket_end(p, &why);
			if (!p)
				return why;
		}
	}
	return NULL;
}

int filter_add_glob(struct dump_filter *f, const char *arg, const char **why)
{
	const char **v;

	*why = glob_error(arg);
	if (*why)
		return EINVAL;
	v = realloc(f->globs, (f->nglobs + 1) * sizeof(*v));
	if (!v)
		return ENOMEM;
	f->globs = v;
	f->globs[f->nglobs++] = arg;
	return 0;
}

/* One decimal id at *p, up to ',' or the end; 0 is the system's. */
static bool parse_id(const char **p, pid_t *id)
{
	long v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return false;
	}
	if (*s && *s != ',')
		return false;
	*id = (pid_t)v;
	*p = s;
	return true;
}

int filter_add_ids(struct id_list *l, const char *arg, const char **why)
{
	const char *p = arg;
	pid_t *v, id;

	for (;;) {
		if (!parse_id(&p, &id)) {
			*why = "not a process or thread id (0 to 2147483647)";
			return EINVAL;
		}
		v = realloc(l->v, (l->n + 1) * sizeof(*v));
		if (!v)
			return ENOMEM;
		l->v = v;
		l->v[l->n++] = id;
		if (!*p)
			return 0;
		p++;	/* ',' */
	}
}

const char *filter_check(const struct dump_filter *f)
{
	/* Bounds of one kind compare now; the others once the log is read. */
	if (f->since.given && f->until.given &&
	    f->since.relative == f->until.relative &&
	    timespec_cmp(&f->since.ts, &f->until.ts) > 0)
		return "--since is after --until";
	return NULL;
}

bool filter_active(const struct dump_filter *f)
{
	return f->nglobs || f->pids.n || f->tids.n || f->since.given ||
	       f->until.given;
}

static struct timespec bound(const struct time_arg *t,
			     const struct timespec *first)
{
	return t->relative ? timespec_add(first, &t->ts) : t->ts;
}

void filter_set_origin(struct dump_filter *f, const struct timespec *first)
{
	if (f->since.given)
		f->from = bound(&f->since, first);
	if (f->until.given)
		f->to = bound(&f->until, first);
}

bool filter_in_time(const struct dump_filter *f, const struct timespec *ts)
{
	if (f->since.given && timespec_cmp(ts, &f->from) < 0)
		return false;
	return !f->until.given || timespec_cmp(ts, &f->to) <= 0;
}

static bool in_list(const struct id_list *l, pid_t id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return true;
	return false;
}

/* Patterns match the name as dump prints it (escape_name()). */
static bool name_matches(const struct dump_filter *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nglobs; i++)
		if (!fnmatch(f->globs[i], name, 0))
			return true;
	return false;
}

bool filter_match(const struct dump_filter *f, const struct log_event *ev)
{
	if (!filter_in_time(f, &ev->info.posix_timestamp))
		return false;
	if (f->nglobs && !name_matches(f, ev->type->name))
		return false;
	if (f->pids.n && !in_list(&f->pids, ev->info.posix_pid))
		return false;
	/* An unknown tid matches no --tid. */
	return !f->tids.n || (ev->has_tid && in_list(&f->tids, ev->tid));
}

void filter_free(struct dump_filter *f)
{
	free(f->globs);
	free(f->pids.v);
	free(f->tids.v);
}
