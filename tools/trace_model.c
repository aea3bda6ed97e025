// SPDX-License-Identifier: GPL-2.0
/*
 * A trace log as a timeline (trace_model.h), the way Perfetto and
 * chrome://tracing show one:
 *
 * One track per thread, by the pid and tid the log gives (an event without
 * a thread is on its process's main track), named by the command the
 * kernel events saw it run (exec's comm, which a fork passes on). Every
 * event of the log is in exactly one record:
 *  - a system call's entry and exit on one thread make one span named by
 *    the call, on the thread's track, where nothing else has a duration:
 *    spans on a track must nest, and the calls of one thread never
 *    overlap. One the log does not close ends at the thread's exit, or
 *    where its next call begins, or at the log's last event, without an
 *    end event ("unfinished");
 *  - so do the stream's own: a FLUSH_START and its FLUSH_STOP ("flush"),
 *    a STOP and the next START ("stopped"), an OVERFLOW and its RESUME
 *    ("overflow"), each kind on a track of its own under pid 0
 *    ("flushes", "stopped", "overflows"), since they may overlap each
 *    other and any thread's calls;
 *  - every other event, user events first of all, is an instant on its
 *    thread's track, named by its type;
 *  - events missing from the log (a gap in the sequence numbers) are a
 *    MODEL_LOST record at the event after them, before its own.
 * The tracks of pid 0 are the module's own events (a log's flushes):
 * process "kernel", thread "stream".
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "kevent.h"
#include "syscall_names.h"
#include "trace_model.h"

/* A span begun and not yet ended: its first event's members. */
struct model_open {
	char *untimed;		/* NULL: none open */
	struct timespec ts;
	pid_t pid, tid;		/* the track */
	char name[SYSCALL_NAME_SIZE];
	int nr;			/* a system call's number */
	bool compat;
};

struct model_thread {
	pid_t pid, tid;
	char *name;		/* the command it ran, if seen */
	struct model_open call;
};

/* The tracks of the stream's spans, under pid 0 (the module's). */
enum model_stream_track {
	TRACK_FLUSHES = 1,
	TRACK_STOPPED,
	TRACK_OVERFLOWS,
	TRACKS,
};

static const char *const model_track_names[TRACKS] = {
	[TRACK_FLUSHES] = "flushes",
	[TRACK_STOPPED] = "stopped",
	[TRACK_OVERFLOWS] = "overflows",
};

struct model {
	const struct model_sink *sink;
	const struct log_reader *lr;
	struct dump_opts opts;
	struct timespec origin, last;
	uint64_t events, lost;
	/* The threads seen, and a hash of them by (pid, tid). */
	struct model_thread *threads;
	size_t nthreads, cap;
	size_t *slots;		/* index + 1; 0 empty */
	size_t nslots;
	/* The stream's own spans, and whether each track has had one. */
	struct model_open flush, stopped, overflow;
	bool track_used[TRACKS];
	int err;
};

int64_t model_ns_between(const struct timespec *from,
			 const struct timespec *to)
{
	__int128 ns = ((__int128)to->tv_sec - from->tv_sec) * 1000000000 +
		      ((__int128)to->tv_nsec - from->tv_nsec);

	if (ns > INT64_MAX)
		return INT64_MAX;
	if (ns < INT64_MIN + 1)
		return INT64_MIN + 1;
	return (int64_t)ns;
}

static size_t model_hash(pid_t pid, pid_t tid, size_t nslots)
{
	uint64_t h = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (nslots - 1);
}

static int model_rehash(struct model *m, size_t nslots)
{
	size_t *slots = calloc(nslots, sizeof(*slots)), i, s;

	if (!slots)
		return ENOMEM;
	for (i = 0; i < m->nthreads; i++) {
		s = model_hash(m->threads[i].pid, m->threads[i].tid, nslots);
		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = nslots;
	return 0;
}

/* The thread (pid, tid) if seen, else NULL. */
static struct model_thread *model_find(const struct model *m, pid_t pid,
				       pid_t tid)
{
	struct model_thread *t;
	size_t s;

	if (!m->nslots)
		return NULL;
	s = model_hash(pid, tid, m->nslots);
	for (; m->slots[s]; s = (s + 1) & (m->nslots - 1)) {
		t = &m->threads[m->slots[s] - 1];
		if (t->pid == pid && t->tid == tid)
			return t;
	}
	return NULL;
}

/* The thread (pid, tid), added if new; NULL only without memory. */
static struct model_thread *model_thread(struct model *m, pid_t pid,
					 pid_t tid)
{
	struct model_thread *t = model_find(m, pid, tid);
	size_t s;

	if (t)
		return t;
	if (m->nthreads == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;

		t = realloc(m->threads, cap * sizeof(*t));
		if (!t)
			return NULL;
		m->threads = t;
		m->cap = cap;
	}
	if (2 * (m->nthreads + 1) > m->nslots &&
	    model_rehash(m, m->nslots ? 2 * m->nslots : 128))
		return NULL;
	t = &m->threads[m->nthreads];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	s = model_hash(pid, tid, m->nslots);
	while (m->slots[s])
		s = (s + 1) & (m->nslots - 1);
	m->slots[s] = ++m->nthreads;
	return t;
}

/* The track an event is on: its thread, else its process's main one. */
static pid_t event_tid(const struct log_event *ev)
{
	return ev->has_tid ? ev->tid : ev->info.posix_pid;
}

static void model_instant(struct model *m, const struct log_event *ev,
			  const char *cat)
{
	struct model_record r = {
		.kind = MODEL_EVENT,
		.name = ev->type->name,
		.cat = cat,
		.pid = ev->info.posix_pid,
		.tid = event_tid(ev),
		.ts = model_ns_between(&m->origin, &ev->info.posix_timestamp),
		.ev = ev,
	};

	m->sink->record(m->sink->arg, &r);
}

/* An event's members after its time, as dump --json writes them. */
static char *model_untimed(struct model *m, const struct log_event *ev)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		m->err = errno;
		return NULL;
	}
	dump_json_untimed(f, m->lr, ev, &m->opts);
	if (fclose(f)) {
		m->err = errno;
		free(text);
		return NULL;
	}
	return text;
}

/* End span @o at @end (an event, or NULL: the log's last time). */
static void model_close(struct model *m, struct model_open *o,
			const char *cat, const struct log_event *end)
{
	const struct timespec *to = end ? &end->info.posix_timestamp
					: &m->last;
	int64_t dur = model_ns_between(&o->ts, to);
	struct model_record r = {
		.kind = MODEL_SPAN,
		.name = o->name,
		.cat = cat,
		.pid = o->pid,
		.tid = o->tid,
		.ts = model_ns_between(&m->origin, &o->ts),
		.dur = dur < 0 ? 0 : dur,
		.ev = end,
		.begin_ts = &o->ts,
		.begin_untimed = o->untimed,
	};

	if (!o->untimed)
		return;
	m->sink->record(m->sink->arg, &r);
	free(o->untimed);
	o->untimed = NULL;
}

/* Open span @o at @ev, named @name (a span still open is the caller's). */
static void model_open(struct model *m, struct model_open *o,
		       const struct log_event *ev, const char *name)
{
	free(o->untimed);
	o->untimed = model_untimed(m, ev);
	if (!o->untimed)
		return;
	o->ts = ev->info.posix_timestamp;
	o->pid = ev->info.posix_pid;
	o->tid = event_tid(ev);
	snprintf(o->name, sizeof(o->name), "%s", name);
}

/* A command's name for the thread: the exec's comm, or its parent's. */
static void model_name(struct model *m, struct model_thread *t,
		       const unsigned char *name, size_t len)
{
	char *copy = strndup((const char *)name, len);

	if (!copy) {
		m->err = ENOMEM;
		return;
	}
	free(t->name);
	t->name = copy;
}

/* A kernel event: paired, named, or an instant. */
static void model_kevent(struct model *m, struct model_thread *t,
			 const struct log_event *ev, const struct kevent *k)
{
	char name[SYSCALL_NAME_SIZE];
	struct model_thread *child;
	const char *parent_name;

	switch (k->kind) {
	case KEVENT_SYSCALL_ENTRY:
		/* One whose exit the log lacks ends where this begins. */
		if (t->call.untimed)
			model_close(m, &t->call, "syscall", NULL);
		model_open(m, &t->call, ev, syscall_name(k->u.sys.nr,
				k->u.sys.compat, name));
		t->call.nr = k->u.sys.nr;
		t->call.compat = k->u.sys.compat;
		return;
	case KEVENT_SYSCALL_EXIT:
		if (t->call.untimed && t->call.nr == k->u.sys.nr &&
		    t->call.compat == k->u.sys.compat) {
			model_close(m, &t->call, "syscall", ev);
			return;
		}
		break;
	case KEVENT_EXIT:
		/* A call it made last (exit_group) never returns. */
		model_close(m, &t->call, "syscall", NULL);
		break;
	case KEVENT_EXEC:
		model_name(m, t, k->u.exec.comm.p, k->u.exec.comm.len);
		break;
	case KEVENT_FORK:
		/* Adding the child may move the table: @t with it. */
		parent_name = t->name;
		child = model_thread(m, k->u.fork.pid, k->u.fork.tid);
		if (!child)
			m->err = ENOMEM;
		else if (parent_name && !child->name)
			model_name(m, child, (const unsigned char *)parent_name,
				   strlen(parent_name));
		break;
	default:
		break;
	}
	model_instant(m, ev, "kernel");
}

/*
 * Open the stream's span @o at @ev, on its kind's track (@track): one
 * already open there ends unfinished.
 */
static void model_open_stream(struct model *m, struct model_open *o,
			      const struct log_event *ev, const char *name,
			      const char *cat, enum model_stream_track track)
{
	model_close(m, o, cat, NULL);
	model_open(m, o, ev, name);
	o->pid = 0;
	o->tid = track;
	m->track_used[track] = true;
}

/* A system event of the stream: its spans, or an instant. */
static void model_sys(struct model *m, const struct log_event *ev)
{
	switch (ev->info.posix_event_id) {
	case POSIX_TRACE_FLUSH_START:
		model_open_stream(m, &m->flush, ev, "flush", "stream",
				  TRACK_FLUSHES);
		return;
	case POSIX_TRACE_FLUSH_STOP:
		if (!m->flush.untimed)
			break;
		model_close(m, &m->flush, "stream", ev);
		return;
	case POSIX_TRACE_STOP:
		model_open_stream(m, &m->stopped, ev, "stopped", "stream",
				  TRACK_STOPPED);
		return;
	case POSIX_TRACE_START:
		if (!m->stopped.untimed)
			break;
		model_close(m, &m->stopped, "stream", ev);
		return;
	case POSIX_TRACE_OVERFLOW:
		model_open_stream(m, &m->overflow, ev, "overflow", "loss",
				  TRACK_OVERFLOWS);
		return;
	case POSIX_TRACE_RESUME:
		if (!m->overflow.untimed)
			break;
		model_close(m, &m->overflow, "loss", ev);
		return;
	}
	model_instant(m, ev, "stream");
}

static void model_event(struct model *m, const struct log_event *ev)
{
	struct model_thread *t;
	struct kevent k;
	char name[48];

	m->events++;
	m->last = ev->info.posix_timestamp;
	if (ev->gap) {
		struct model_record r = {
			.kind = MODEL_LOST,
			.name = name,
			.cat = "loss",
			.pid = ev->info.posix_pid,
			.tid = event_tid(ev),
			.ts = model_ns_between(&m->origin,
					       &ev->info.posix_timestamp),
			.lost = ev->gap,
		};

		m->lost += ev->gap;
		snprintf(name, sizeof(name), "lost %" PRIu64 " event%s",
			 ev->gap, ev->gap == 1 ? "" : "s");
		m->sink->record(m->sink->arg, &r);
	}
	t = model_thread(m, ev->info.posix_pid, event_tid(ev));
	if (!t) {
		m->err = ENOMEM;
		return;
	}
	if (kevent_decode(ev, &k))
		model_kevent(m, t, ev, &k);
	else if (sys_event_name(ev->info.posix_event_id))
		model_sys(m, ev);
	else
		model_instant(m, ev, "user");
}

/* The first thread of @t's process in the table. */
static struct model_thread *model_first_of(const struct model *m,
					   const struct model_thread *t)
{
	size_t i;

	for (i = 0; m->threads[i].pid != t->pid; i++)
		;
	return &m->threads[i];
}

/*
 * The spans left open, then the tracks: each thread's, named, and each
 * process's name with its main thread's track if seen, else its first.
 */
static void model_finish(struct model *m)
{
	const struct model_sink *sink = m->sink;
	struct model_thread *t, *main;
	bool named0 = false, names;
	char text[2][32];
	size_t i;

	for (i = 0; i < m->nthreads; i++) {
		t = &m->threads[i];
		model_close(m, &t->call, "syscall", NULL);
	}
	model_close(m, &m->flush, "stream", NULL);
	model_close(m, &m->stopped, "stream", NULL);
	model_close(m, &m->overflow, "loss", NULL);
	for (i = 0; i < m->nthreads; i++) {
		t = &m->threads[i];
		/* A damaged log's event on a stream track's (0, tid): below. */
		if (!t->pid && t->tid > 0 && t->tid < TRACKS &&
		    m->track_used[t->tid])
			continue;
		main = model_find(m, t->pid, t->pid);
		names = main ? main == t : model_first_of(m, t) == t;
		snprintf(text[0], sizeof(text[0]), "tid %d", (int)t->tid);
		snprintf(text[1], sizeof(text[1]), "pid %d", (int)t->pid);
		/* pid 0: the module's own events (a log's flushes). */
		sink->track(sink->arg, t->pid, t->tid,
			    !t->pid ? "stream" : t->name ? t->name : text[0],
			    !names ? NULL : !t->pid ? "kernel" :
			    t->name ? t->name : text[1]);
		named0 |= names && !t->pid;
	}
	for (i = 1; i < TRACKS; i++) {
		if (!m->track_used[i])
			continue;
		sink->track(sink->arg, 0, (pid_t)i, model_track_names[i],
			    named0 ? NULL : "kernel");
		named0 = true;
	}
}

int trace_model_walk(struct log_reader *lr, const struct model_sink *sink,
		     struct model_totals *totals, uint64_t *nread,
		     bool *read_error)
{
	struct model m = { .sink = sink, .lr = lr };
	struct log_event ev;
	bool end = false;
	size_t i;
	int err = 0;

	posix_trace_attr_getcreatetime(&lr->attr, &m.origin);
	m.last = m.origin;
	while (!m.err) {
		err = log_next_counted(lr, &ev, &end, nread, read_error);
		if (err || end)
			break;
		model_event(&m, &ev);
	}
	if (!err && !m.err)
		model_finish(&m);
	for (i = 0; i < m.nthreads; i++) {
		free(m.threads[i].name);
		free(m.threads[i].call.untimed);
	}
	free(m.flush.untimed);
	free(m.stopped.untimed);
	free(m.overflow.untimed);
	free(m.threads);
	free(m.slots);
	totals->origin = m.origin;
	totals->events = m.events;
	totals->lost = m.lost;
	return err ? err : m.err;
}
