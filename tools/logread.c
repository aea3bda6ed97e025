// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logread.h"
#include "text.h"

/*
 * A log names the data size its writer kept, but a corrupt one could claim
 * anything: past this we read what fits and report the rest truncated.
 */
#define DATA_BUF_MAX	(16u << 20)

static int type_cmp(const void *key, const void *elem)
{
	trace_event_id_t id = *(const trace_event_id_t *)key;
	const struct log_type *t = elem;

	return id < t->id ? -1 : id > t->id;
}

/*
 * The type's format, if the log gives one and it parses: the library
 * checked it, but a format is only ever used as this parser reads it.
 * Without one (or without memory for it) the type shows as bytes.
 */
static void type_format(struct log_reader *lr, struct log_type *t)
{
	char text[POSIXTRACE_K_FORMAT_MAX + 1];
	struct posixtrace_format *fmt;

	if (posixtrace_k_eventid_get_format(lr->trid, t->id, text,
					    sizeof(text)))
		return;
	fmt = malloc(sizeof(*fmt));
	if (!fmt)
		return;
	t->format_text = strdup(text);
	if (!t->format_text || !posixtrace_format_parse(text, fmt)) {
		free(t->format_text);
		t->format_text = NULL;
		free(fmt);
		return;
	}
	t->format = fmt;
}

/* The type of identifier id, added (with its name) if not known yet. */
static struct log_type *type_get(struct log_reader *lr, trace_event_id_t id)
{
	char name[TRACE_EVENT_NAME_MAX + 1], fallback[24];
	struct log_type *t;
	size_t i;

	t = lr->ntypes ? bsearch(&id, lr->types, lr->ntypes, sizeof(*t),
				 type_cmp) : NULL;
	if (t)
		return t;
	t = realloc(lr->types, (lr->ntypes + 1) * sizeof(*t));
	if (!t)
		return NULL;
	lr->types = t;
	for (i = lr->ntypes; i > 0 && lr->types[i - 1].id > id; i--)
		lr->types[i] = lr->types[i - 1];
	t = &lr->types[i];
	lr->ntypes++;
	memset(t, 0, sizeof(*t));
	t->id = id;
	/*
	 * A damaged log may lack the definition of a type its events use:
	 * the identifier is then all we know, and we call the type ?ID.
	 */
	if (posix_trace_eventid_get_name(lr->trid, id, name)) {
		snprintf(fallback, sizeof(fallback), "?%d", (int)id);
		t->name = strdup(fallback);
	} else {
		t->name = malloc(ESCAPED_SIZE(strlen(name)));
		if (t->name)
			escape_name(t->name, name);
	}
	if (t->name)
		type_format(lr, t);
	if (!t->name) {
		memmove(t, t + 1, (lr->ntypes - i - 1) * sizeof(*t));
		lr->ntypes--;
		return NULL;
	}
	return t;
}

const char *log_type_name(const struct log_reader *lr, trace_event_id_t id,
			  char buf[LOG_TYPE_NAME_SIZE])
{
	const struct log_type *t;

	t = lr->ntypes ? bsearch(&id, lr->types, lr->ntypes, sizeof(*t),
				 type_cmp) : NULL;
	if (t)
		return t->name;
	snprintf(buf, LOG_TYPE_NAME_SIZE, "?%d", (int)id);
	return buf;
}

static int read_types(struct log_reader *lr)
{
	struct log_type *t;
	trace_event_id_t id;
	int unavailable, err;

	err = posix_trace_eventtypelist_rewind(lr->trid);
	while (!err) {
		err = posix_trace_eventtypelist_getnext_id(lr->trid, &id,
							   &unavailable);
		if (err || unavailable)
			break;
		t = type_get(lr, id);
		if (!t)
			return ENOMEM;
		t->listed = true;
	}
	return err;
}

/*
 * What every reader needs before its first event: the attributes, the
 * types known so far, a buffer for the largest payload. On failure says
 * why and closes lr.
 */
static int prepare(struct log_reader *lr, const char *prog)
{
	size_t max_data = 0;
	const char *what;
	int err;

	what = "attributes";
	err = posix_trace_get_attr(lr->trid, &lr->attr);
	if (!err)
		err = posix_trace_attr_getmaxdatasize(&lr->attr, &max_data);
	if (!err) {
		what = "event types";
		err = read_types(lr);
	}
	if (!err) {
		/* System events carry up to two event sets (FILTER). */
		if (max_data < 2 * sizeof(trace_event_set_t))
			max_data = 2 * sizeof(trace_event_set_t);
		lr->buf_size = max_data < DATA_BUF_MAX ? max_data : DATA_BUF_MAX;
		lr->buf = malloc(lr->buf_size);
		if (!lr->buf) {
			what = "buffer";
			err = ENOMEM;
		}
	}
	if (err) {
		fprintf(stderr, "%s: %s: reading the %s: %s\n", prog, lr->path,
			what, strerror(err));
		log_close(lr);
	}
	return err;
}

/*
 * Why posix_trace_open() refused @fd, in words: what kind of file it is
 * when that is the reason (a log is read by its offsets, so it must be a
 * file or a block device), else the library's @err.
 */
static const char *why_not_a_log(int fd, int err)
{
	static char why[128];
	struct stat st;

	if (!fstat(fd, &st)) {
		if (S_ISDIR(st.st_mode))
			return "is a directory, not a trace log";
		if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
			return "a pipe or a socket: a trace log is read by offset; save it to a file first";
		if (S_ISCHR(st.st_mode))
			return "a character device, not a trace log";
	}
	snprintf(why, sizeof(why), "not a readable trace log: %s",
		 strerror(err));
	return why;
}

int log_open(struct log_reader *lr, const char *path, const char *prog)
{
	int fd, err;

	memset(lr, 0, sizeof(*lr));
	lr->path = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(err));
		return err;
	}
	/* The library reads its own duplicate of the descriptor. */
	err = posix_trace_open(fd, &lr->trid);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			why_not_a_log(fd, err));
		close(fd);
		return err;
	}
	lr->open = true;
	lr->fd = fd;
	return prepare(lr, prog);
}

int log_attach(struct log_reader *lr, trace_id_t trid, const char *name,
	       const char *prog)
{
	memset(lr, 0, sizeof(*lr));
	lr->path = name;
	lr->trid = trid;
	lr->live = true;
	lr->fd = -1;
	return prepare(lr, prog);
}

/* The event the library just reported, with what it does not say. */
static int complete(struct log_reader *lr, struct log_event *ev)
{
	ev->data = lr->buf;
	ev->type = type_get(lr, ev->info.posix_event_id);
	if (!ev->type)
		return ENOMEM;
	ev->has_seq = !posixtrace_k_event_seq(lr->trid, &ev->seq);
	if (ev->has_seq) {
		/*
		 * A stream numbers its events from 0: a log whose first
		 * event is numbered n lost the n before it (overwritten,
		 * or cleared, which POSIX calls lost too).
		 */
		if (!lr->have_prev_seq)
			ev->gap = ev->seq;
		else if (ev->seq > lr->prev_seq &&
			 ev->seq - lr->prev_seq > 1)
			ev->gap = ev->seq - lr->prev_seq - 1;
		lr->have_prev_seq = true;
		lr->prev_seq = ev->seq;
	}
	ev->has_tid = !posixtrace_k_event_tid(lr->trid, &ev->tid);
	return 0;
}

int log_next(struct log_reader *lr, struct log_event *ev, bool *end)
{
	int unavailable, err;

	memset(ev, 0, sizeof(*ev));
	err = posix_trace_getnext_event(lr->trid, &ev->info, lr->buf,
					lr->buf_size, &ev->data_len,
					&unavailable);
	if (err)
		return err;
	*end = unavailable;
	return unavailable ? 0 : complete(lr, ev);
}

int log_next_counted(struct log_reader *lr, struct log_event *ev, bool *end,
		     uint64_t *nread, bool *read_error)
{
	int err = log_next(lr, ev, end);

	if (err)
		*read_error = true;
	else if (!*end)
		++*nread;
	return err;
}

int log_next_live(struct log_reader *lr, struct log_event *ev,
		  const struct timespec *abstime, bool *got)
{
	int unavailable = 1, err;

	memset(ev, 0, sizeof(*ev));
	*got = false;
	err = posix_trace_timedgetnext_event(lr->trid, &ev->info, lr->buf,
					     lr->buf_size, &ev->data_len,
					     &unavailable, abstime);
	if (err == ETIMEDOUT || err == EINTR)
		return 0;
	if (err || unavailable)
		return err;
	*got = true;
	return complete(lr, ev);
}

void log_close(struct log_reader *lr)
{
	size_t i;

	if (!lr->open && !lr->live)
		return;
	/* A live stream is its creator's to shut down. */
	if (lr->open) {
		posix_trace_close(lr->trid);
		close(lr->fd);
	}
	lr->open = lr->live = false;
	for (i = 0; i < lr->ntypes; i++) {
		free(lr->types[i].name);
		free(lr->types[i].format_text);
		free(lr->types[i].format);
	}
	free(lr->types);
	free(lr->buf);
	lr->types = NULL;
	lr->buf = NULL;
	lr->ntypes = 0;
}
