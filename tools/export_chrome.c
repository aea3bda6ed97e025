// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace export --format=chrome: a trace log as the Trace Event Format,
 * the JSON that Perfetto (ui.perfetto.dev), chrome://tracing and Speedscope
 * read ("Trace Event Format", Google, the JSON Object Format).
 *
 * One track per thread, by the pid and tid the log gives (an event without
 * a thread is on its process's main track), named by the command the
 * kernel events saw it run (exec's comm, which a fork passes on), else
 * "pid N" and "tid N". Every event of the log is in the file exactly once,
 * as an "args" object with the members dump --json gives it:
 *  - a system call's entry and exit on one thread make one complete event
 *    ("X") named by the call, args {"begin": entry, "end": exit}, on the
 *    thread's track, where nothing else has a duration: spans on a track
 *    must nest, and the calls of one thread never overlap. One the log
 *    does not close ends at the thread's exit, or where its next call
 *    begins, or at the log's last event, with "unfinished": true and no
 *    "end";
 *  - so do the stream's own: a FLUSH_START and its FLUSH_STOP ("flush"),
 *    a STOP and the next START ("stopped"), an OVERFLOW and its RESUME
 *    ("overflow"), each kind on a track of its own under pid 0
 *    ("flushes", "stopped", "overflows"), since they may overlap each
 *    other and any thread's calls;
 *  - every other event, user events first of all, is an instant event
 *    ("i") on its thread's track, named by its type, args the event;
 *  - events missing from the log (a gap in the sequence numbers) are a
 *    global instant "lost N events" at the event after them, args
 *    {"lost": N}.
 * Times ("ts", "dur") are microseconds, with the nanoseconds as three
 * decimals, from the stream's creation; "otherData" holds the stream's
 * name, its creation time (as text, and as seconds and nanoseconds), the
 * log's path, the events and the events lost. The tracks of pid 0 are the
 * module's own events (a log's flushes): "kernel", "stream".
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "export_chrome.h"
#include "json.h"
#include "kevent.h"
#include "syscall_names.h"
#include "text.h"

/* A span begun and not yet ended: its first event, as dump --json has it. */
struct chrome_open {
	char *begin;		/* the members; NULL: none open */
	struct timespec ts;
	pid_t pid, tid;		/* the track */
	char name[SYSCALL_NAME_SIZE];
	int nr;			/* a system call's number */
	bool compat;
};

struct chrome_thread {
	pid_t pid, tid;
	char *name;		/* the command it ran, if seen */
	struct chrome_open call;
};

/* The tracks of the stream's spans, under pid 0 (the module's). */
enum chrome_stream_track {
	TRACK_FLUSHES = 1,
	TRACK_STOPPED,
	TRACK_OVERFLOWS,
	TRACKS,
};

static const char *const chrome_track_names[TRACKS] = {
	[TRACK_FLUSHES] = "flushes",
	[TRACK_STOPPED] = "stopped",
	[TRACK_OVERFLOWS] = "overflows",
};

struct chrome {
	FILE *out;
	const struct log_reader *lr;
	struct dump_opts opts;
	struct dump_clock clock;
	struct timespec origin, last;
	uint64_t written, events, lost;
	/* The threads seen, and a hash of them by (pid, tid). */
	struct chrome_thread *threads;
	size_t nthreads, cap;
	size_t *slots;		/* index + 1; 0 empty */
	size_t nslots;
	/* The stream's own spans, and whether each track has had one. */
	struct chrome_open flush, stopped, overflow;
	bool track_used[TRACKS];
	int err;
};

static void chrome_time(FILE *out, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	fprintf(out, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000,
		a % 1000);
}

/* @to - @from in ns, within int64_t: a damaged log's times may be anything. */
static int64_t ns_between(const struct timespec *from,
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

static size_t chrome_hash(pid_t pid, pid_t tid, size_t nslots)
{
	uint64_t h = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (nslots - 1);
}

static int chrome_rehash(struct chrome *c, size_t nslots)
{
	size_t *slots = calloc(nslots, sizeof(*slots)), i, s;

	if (!slots)
		return ENOMEM;
	for (i = 0; i < c->nthreads; i++) {
		s = chrome_hash(c->threads[i].pid, c->threads[i].tid, nslots);
		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = i + 1;
	}
	free(c->slots);
	c->slots = slots;
	c->nslots = nslots;
	return 0;
}

/* The thread (pid, tid) if seen, else NULL. */
static struct chrome_thread *chrome_find(const struct chrome *c, pid_t pid,
					 pid_t tid)
{
	struct chrome_thread *t;
	size_t s;

	if (!c->nslots)
		return NULL;
	s = chrome_hash(pid, tid, c->nslots);
	for (; c->slots[s]; s = (s + 1) & (c->nslots - 1)) {
		t = &c->threads[c->slots[s] - 1];
		if (t->pid == pid && t->tid == tid)
			return t;
	}
	return NULL;
}

/* The thread (pid, tid), added if new; NULL only without memory. */
static struct chrome_thread *chrome_thread(struct chrome *c, pid_t pid,
					   pid_t tid)
{
	struct chrome_thread *t = chrome_find(c, pid, tid);
	size_t s;

	if (t)
		return t;
	if (c->nthreads == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;

		t = realloc(c->threads, cap * sizeof(*t));
		if (!t)
			return NULL;
		c->threads = t;
		c->cap = cap;
	}
	if (2 * (c->nthreads + 1) > c->nslots &&
	    chrome_rehash(c, c->nslots ? 2 * c->nslots : 128))
		return NULL;
	t = &c->threads[c->nthreads];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	s = chrome_hash(pid, tid, c->nslots);
	while (c->slots[s])
		s = (s + 1) & (c->nslots - 1);
	c->slots[s] = ++c->nthreads;
	return t;
}

/* The track an event is on: its thread, else its process's main one. */
static pid_t event_tid(const struct log_event *ev)
{
	return ev->has_tid ? ev->tid : ev->info.posix_pid;
}

/* The head of a trace event, up to its time; the caller ends it. */
static void chrome_head(struct chrome *c, const char *ph, const char *name,
			const char *cat, pid_t pid, pid_t tid,
			const struct timespec *ts)
{
	FILE *out = c->out;

	fputs(c->written++ ? ",\n" : "\n", out);
	fprintf(out, "{\"ph\":\"%s\",\"name\":", ph);
	json_string(out, name);
	fprintf(out, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", cat,
		(int)pid, (int)tid);
	chrome_time(out, ns_between(&c->origin, ts));
}

/* An event's members, as dump --json writes them, into a string. */
static char *chrome_members(struct chrome *c, const struct log_event *ev)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		c->err = errno;
		return NULL;
	}
	dump_json_members(f, c->lr, ev, &c->opts, &c->clock);
	if (fclose(f)) {
		c->err = errno;
		free(text);
		return NULL;
	}
	return text;
}

static void chrome_instant(struct chrome *c, const struct log_event *ev,
			   const char *cat)
{
	chrome_head(c, "i", ev->type->name, cat, ev->info.posix_pid,
		    event_tid(ev), &ev->info.posix_timestamp);
	fputs(",\"s\":\"t\",\"args\":{", c->out);
	dump_json_members(c->out, c->lr, ev, &c->opts, &c->clock);
	fputs("}}", c->out);
}

/* Open span @o at @ev, named @name; one already open ends unfinished. */
static void chrome_open(struct chrome *c, struct chrome_open *o,
			const struct log_event *ev, const char *name);

/* End span @o at @end (an event, or NULL: the log's last time). */
static void chrome_close(struct chrome *c, struct chrome_open *o,
			 const char *cat, const struct log_event *end)
{
	const struct timespec *to = end ? &end->info.posix_timestamp
					: &c->last;
	int64_t dur = ns_between(&o->ts, to);

	if (!o->begin)
		return;
	chrome_head(c, "X", o->name, cat, o->pid, o->tid, &o->ts);
	fputs(",\"dur\":", c->out);
	chrome_time(c->out, dur < 0 ? 0 : dur);
	fputs(",\"args\":{\"begin\":{", c->out);
	fputs(o->begin, c->out);
	if (end) {
		fputs("},\"end\":{", c->out);
		dump_json_members(c->out, c->lr, end, &c->opts, &c->clock);
		fputs("}}}", c->out);
	} else {
		fputs("},\"unfinished\":true}}", c->out);
	}
	free(o->begin);
	o->begin = NULL;
}

static void chrome_open(struct chrome *c, struct chrome_open *o,
			const struct log_event *ev, const char *name)
{
	free(o->begin);
	o->begin = chrome_members(c, ev);
	if (!o->begin)
		return;
	o->ts = ev->info.posix_timestamp;
	o->pid = ev->info.posix_pid;
	o->tid = event_tid(ev);
	snprintf(o->name, sizeof(o->name), "%s", name);
}

/* A command's name for the thread: the exec's comm, or its parent's. */
static void chrome_name(struct chrome *c, struct chrome_thread *t,
			const unsigned char *name, size_t len)
{
	char *copy = strndup((const char *)name, len);

	if (!copy) {
		c->err = ENOMEM;
		return;
	}
	free(t->name);
	t->name = copy;
}

/* A kernel event: paired, named, or an instant. */
static void chrome_kevent(struct chrome *c, struct chrome_thread *t,
			  const struct log_event *ev, const struct kevent *k)
{
	char name[SYSCALL_NAME_SIZE];
	struct chrome_thread *child;
	const char *parent_name;

	switch (k->kind) {
	case KEVENT_SYSCALL_ENTRY:
		/* One whose exit the log lacks ends where this begins. */
		if (t->call.begin)
			chrome_close(c, &t->call, "syscall", NULL);
		chrome_open(c, &t->call, ev, syscall_name(k->u.sys.nr,
				k->u.sys.compat, name));
		t->call.nr = k->u.sys.nr;
		t->call.compat = k->u.sys.compat;
		return;
	case KEVENT_SYSCALL_EXIT:
		if (t->call.begin && t->call.nr == k->u.sys.nr &&
		    t->call.compat == k->u.sys.compat) {
			chrome_close(c, &t->call, "syscall", ev);
			return;
		}
		break;
	case KEVENT_EXIT:
		/* A call it made last (exit_group) never returns. */
		chrome_close(c, &t->call, "syscall", NULL);
		break;
	case KEVENT_EXEC:
		chrome_name(c, t, k->u.exec.comm.p, k->u.exec.comm.len);
		break;
	case KEVENT_FORK:
		/* Adding the child may move the table: @t with it. */
		parent_name = t->name;
		child = chrome_thread(c, k->u.fork.pid, k->u.fork.tid);
		if (!child)
			c->err = ENOMEM;
		else if (parent_name && !child->name)
			chrome_name(c, child, (const unsigned char *)parent_name,
				    strlen(parent_name));
		break;
	default:
		break;
	}
	chrome_instant(c, ev, "kernel");
}

/*
 * Open the stream's span @o at @ev, on its kind's track (@track): one
 * already open there ends unfinished.
 */
static void chrome_open_stream(struct chrome *c, struct chrome_open *o,
			       const struct log_event *ev, const char *name,
			       const char *cat, enum chrome_stream_track track)
{
	chrome_close(c, o, cat, NULL);
	chrome_open(c, o, ev, name);
	o->pid = 0;
	o->tid = track;
	c->track_used[track] = true;
}

/* A system event of the stream: its spans, or an instant. */
static void chrome_sys(struct chrome *c, const struct log_event *ev)
{
	switch (ev->info.posix_event_id) {
	case POSIX_TRACE_FLUSH_START:
		chrome_open_stream(c, &c->flush, ev, "flush", "stream",
				   TRACK_FLUSHES);
		return;
	case POSIX_TRACE_FLUSH_STOP:
		if (!c->flush.begin)
			break;
		chrome_close(c, &c->flush, "stream", ev);
		return;
	case POSIX_TRACE_STOP:
		chrome_open_stream(c, &c->stopped, ev, "stopped", "stream",
				   TRACK_STOPPED);
		return;
	case POSIX_TRACE_START:
		if (!c->stopped.begin)
			break;
		chrome_close(c, &c->stopped, "stream", ev);
		return;
	case POSIX_TRACE_OVERFLOW:
		chrome_open_stream(c, &c->overflow, ev, "overflow", "loss",
				   TRACK_OVERFLOWS);
		return;
	case POSIX_TRACE_RESUME:
		if (!c->overflow.begin)
			break;
		chrome_close(c, &c->overflow, "loss", ev);
		return;
	}
	chrome_instant(c, ev, "stream");
}

static void chrome_event(struct chrome *c, const struct log_event *ev)
{
	struct chrome_thread *t;
	struct kevent k;
	char name[48];

	c->events++;
	c->last = ev->info.posix_timestamp;
	if (ev->gap) {
		c->lost += ev->gap;
		snprintf(name, sizeof(name), "lost %" PRIu64 " event%s",
			 ev->gap, ev->gap == 1 ? "" : "s");
		chrome_head(c, "i", name, "loss", ev->info.posix_pid,
			    event_tid(ev), &ev->info.posix_timestamp);
		fprintf(c->out, ",\"s\":\"g\",\"cname\":\"terrible\","
			"\"args\":{\"lost\":%" PRIu64 "}}", ev->gap);
	}
	t = chrome_thread(c, ev->info.posix_pid, event_tid(ev));
	if (!t) {
		c->err = ENOMEM;
		return;
	}
	if (kevent_decode(ev, &k))
		chrome_kevent(c, t, ev, &k);
	else if (sys_event_name(ev->info.posix_event_id))
		chrome_sys(c, ev);
	else
		chrome_instant(c, ev, "user");
}

static void chrome_metadata(struct chrome *c, const char *what, pid_t pid,
			    pid_t tid, const char *name, const char *fallback,
			    int number)
{
	char text[32];

	fputs(c->written++ ? ",\n" : "\n", c->out);
	fprintf(c->out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
		"\"args\":{\"name\":", what, (int)pid, (int)tid);
	if (!name) {
		snprintf(text, sizeof(text), "%s %d", fallback, number);
		name = text;
	}
	json_string(c->out, name);
	fputs("}}", c->out);
}

/* The first thread of @t's process in the table. */
static struct chrome_thread *chrome_first_of(const struct chrome *c,
					     const struct chrome_thread *t)
{
	size_t i;

	for (i = 0; c->threads[i].pid != t->pid; i++)
		;
	return &c->threads[i];
}

/*
 * The spans left open, then the tracks' names: each thread's, and each
 * process's, its main thread's if seen, else its first thread's.
 */
static void chrome_finish(struct chrome *c)
{
	struct chrome_thread *t, *main;
	bool named0 = false;
	size_t i;

	for (i = 0; i < c->nthreads; i++) {
		t = &c->threads[i];
		chrome_close(c, &t->call, "syscall", NULL);
	}
	chrome_close(c, &c->flush, "stream", NULL);
	chrome_close(c, &c->stopped, "stream", NULL);
	chrome_close(c, &c->overflow, "loss", NULL);
	for (i = 0; i < c->nthreads; i++) {
		t = &c->threads[i];
		/* pid 0: the module's own events (a log's flushes). */
		chrome_metadata(c, "thread_name", t->pid, t->tid,
				t->pid ? t->name : "stream", "tid", t->tid);
		main = chrome_find(c, t->pid, t->pid);
		if (main ? main != t : chrome_first_of(c, t) != t)
			continue;
		chrome_metadata(c, "process_name", t->pid, t->pid,
				t->pid ? t->name : "kernel", "pid", t->pid);
		named0 |= !t->pid;
	}
	for (i = 1; i < TRACKS; i++) {
		if (!c->track_used[i])
			continue;
		chrome_metadata(c, "thread_name", 0, (pid_t)i,
				chrome_track_names[i], NULL, 0);
		if (!named0)
			chrome_metadata(c, "process_name", 0, 0, "kernel",
					NULL, 0);
		named0 = true;
	}
}

static void chrome_other_data(struct chrome *c)
{
	char name[TRACE_NAME_MAX + 1] = "", text[TIME_TEXT_SIZE];
	FILE *out = c->out;

	posix_trace_attr_getname(&c->lr->attr, name);
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"stream\":",
	      out);
	json_string(out, name);
	format_time(text, &c->origin);
	fputs(",\"created\":", out);
	json_string(out, text);
	fprintf(out, ",\"created_sec\":%jd,\"created_nsec\":%ld",
		(intmax_t)c->origin.tv_sec, c->origin.tv_nsec);
	fputs(",\"log\":", out);
	json_string(out, c->lr->path);
	fprintf(out, ",\"events\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"generator\":\"posixtrace " POSIXTRACE_VERSION "\"}}\n",
		c->events, c->lost);
}

int export_chrome(struct log_reader *lr, FILE *out, uint64_t *nread,
		  bool *read_error)
{
	struct chrome c = { .out = out, .lr = lr };
	struct log_event ev;
	bool end = false;
	size_t i;
	int err = 0;

	posix_trace_attr_getcreatetime(&lr->attr, &c.origin);
	c.last = c.origin;
	fputs("{\"traceEvents\":[", out);
	while (!c.err) {
		err = log_next_counted(lr, &ev, &end, nread, read_error);
		if (err || end)
			break;
		chrome_event(&c, &ev);
	}
	if (!err && !c.err) {
		chrome_finish(&c);
		chrome_other_data(&c);
	}
	for (i = 0; i < c.nthreads; i++) {
		free(c.threads[i].name);
		free(c.threads[i].call.begin);
	}
	free(c.flush.begin);
	free(c.stopped.begin);
	free(c.overflow.begin);
	free(c.threads);
	free(c.slots);
	if (!err)
		err = c.err;
	/* What is still buffered fails here, on a full disk or /dev/full. */
	if (fflush(out) && !err)
		err = errno;
	if (!err && ferror(out))
		err = EIO;
	return err;
}
