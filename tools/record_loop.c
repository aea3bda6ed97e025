// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace record --loop SIZE --snapshot-on TRIGGERS -o DIR -- COMMAND:
 * the flight recorder. The traced processes record into a LOOP stream of
 * SIZE bytes, which nothing reads: it holds the latest events, the older
 * ones overwritten (and counted, with OVERFLOW and RESUME events). When a
 * trigger fires, what the stream holds is written as a log of its own,
 * DIR/snapshot-N.ptlog, which dump, view and export read; recording goes
 * on, and the next snapshot holds the events after this one.
 *
 * Everything is POSIX's own machinery. The stream has a log, on a pipe of
 * ours, with the APPEND policy: a LOOP stream writes its log only when
 * flushed (posix_trace_flush(), or its shutdown), so nothing is written
 * until a snapshot. A snapshot is a flush: the module writes every record
 * up to and including the flush's FLUSH_START, and takes them out of the
 * stream (the next snapshot starts after them). A thread of ours reads
 * the pipe as the module writes it (a flush must never wait for us), and
 * cuts it into the log's blocks; the block that holds a FLUSH_START ends
 * a snapshot, which is the log's header and the blocks since the last
 * one. Every EVENTS block names the types it uses, so such a file is a
 * whole log, but for the type table and final status that only a
 * shutdown writes (readers do without, as for a log whose writer died).
 *
 * The triggers come from a second stream on the same processes, small,
 * filtered to the events that fire them (a signal taken, a process's
 * exit, a user event by name), which we read as they come.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/posixtrace.h>
#include <linux/posixtrace_log.h>
#include <posixtrace-k.h>

#include "command.h"
#include "kevent.h"
#include "launch.h"
#include "record.h"

#define PROG			"posixtrace record"
#define TRIGGER_STREAM_SIZE	(64 * 1024)
/* How often the trigger stream is read: a snapshot's delay, at most. */
#define POLL_NS			20000000L
/* How often, in polls, -e's patterns meet the types named since. */
#define SELECT_TICKS		12
/*
 * A snapshot's flush that writes nothing in this long has failed (a stop
 * signal waits as long: it is blocked meanwhile).
 */
#define SNAPSHOT_TIMEOUT_S	30
/* The largest block the pipe may carry: a damaged log stops the cutting. */
#define BLOCK_MAX		((uint64_t)1 << 30)

/* The log the module writes into our pipe, cut into snapshots. */
struct cutter {
	int fd;				/* the pipe's read end */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned char *header;		/* the log's header, once read */
	size_t header_size;
	/* The bytes after the header, from the first not yet taken. */
	unsigned char *buf;
	size_t len, cap;
	size_t parsed;			/* the whole blocks among them */
	size_t cut;			/* the end of the last FLUSH_START block */
	uint64_t cut_events;		/* the event records before cut */
	uint64_t parsed_events;		/* and before parsed */
	uint64_t cuts;			/* FLUSH_START blocks seen */
	bool eof;
	int err;			/* reading, or a damaged log */
};

struct loop_run {
	struct record_opts *opts;
	struct launch launch;
	trace_id_t trid, trig;
	bool have_trid, have_trig;
	trace_event_id_t event_ids[RECORD_TRIGGERS_MAX];
	struct cutter cut;
	bool cutter_started;
	uint64_t flushes;		/* asked for: each makes one cut */
	int snapshots;
	int next_number;
	bool failed;
};

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const unsigned char *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* The header, once whole: taken out of buf. Called locked. */
static void cutter_header(struct cutter *c)
{
	const size_t min = sizeof(struct posixtrace_log_header);
	size_t size;

	if (c->len < min)
		return;
	size = get_le32(c->buf + offsetof(struct posixtrace_log_header,
					  header_size));
	if (memcmp(c->buf, POSIXTRACE_LOG_MAGIC, POSIXTRACE_LOG_MAGIC_LEN) ||
	    size < min || size > 65536 || size % 8) {
		c->err = EPROTO;
		return;
	}
	if (c->len < size)
		return;
	c->header = malloc(size);
	if (!c->header) {
		c->err = ENOMEM;
		return;
	}
	memcpy(c->header, c->buf, size);
	c->header_size = size;
	memmove(c->buf, c->buf + size, c->len - size);
	c->len -= size;
}

/*
 * The event records of an EVENTS block, as far as its "used" says;
 * *flush_start if one is a FLUSH_START.
 */
static int cutter_events(const unsigned char *b, uint64_t size,
			 uint64_t *events, bool *flush_start)
{
	const size_t head = sizeof(struct posixtrace_log_events);
	uint64_t used, end, at = head;
	uint32_t n, id;

	if (size < head)
		return EPROTO;
	used = get_le64(b + offsetof(struct posixtrace_log_events, used));
	if (used > size - head)
		return EPROTO;
	end = head + used;
	while (at < end) {
		if (end - at < 8)
			return EPROTO;
		n = get_le32(b + at);
		id = get_le32(b + at + 4);
		if (n < 8 || n % 8 || n > end - at)
			return EPROTO;
		if (id != POSIXTRACE_LOG_DEFINE)
			(*events)++;
		if (id == POSIXTRACE_EVENT_FLUSH_START)
			*flush_start = true;
		at += n;
	}
	return 0;
}

/* The whole blocks read: each FLUSH_START block moves the cut. Locked. */
static void cutter_parse(struct cutter *c)
{
	uint64_t type, size;
	bool flush_start;
	int err;

	if (!c->header)
		cutter_header(c);
	while (c->header && !c->err && c->parsed + 16 <= c->len) {
		type = get_le32(c->buf + c->parsed);
		size = get_le64(c->buf + c->parsed + 8);
		if (size < 16 || size % 8 || size > BLOCK_MAX) {
			c->err = EPROTO;
			break;
		}
		if (size > c->len - c->parsed)
			break;
		flush_start = false;
		if (type == POSIXTRACE_LOG_BLOCK_EVENTS) {
			err = cutter_events(c->buf + c->parsed, size,
					    &c->parsed_events, &flush_start);
			if (err) {
				c->err = err;
				break;
			}
		}
		c->parsed += size;
		if (flush_start) {
			c->cut = c->parsed;
			c->cut_events = c->parsed_events;
			c->cuts++;
		}
	}
	pthread_cond_broadcast(&c->cond);
}

/* Reads the pipe until the module closes it: a flush never waits for us. */
static void *cutter_main(void *arg)
{
	struct cutter *c = arg;
	unsigned char chunk[65536], *grown;
	ssize_t n;

	for (;;) {
		n = read(c->fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		pthread_mutex_lock(&c->lock);
		if (n <= 0) {
			if (n < 0 && !c->err)
				c->err = errno;
			c->eof = true;
			pthread_cond_broadcast(&c->cond);
			pthread_mutex_unlock(&c->lock);
			return NULL;
		}
		/* After an error the bytes are read and dropped. */
		if (!c->err && c->len + (size_t)n > c->cap) {
			size_t cap = c->cap ? c->cap : 1 << 20;

			while (cap < c->len + (size_t)n)
				cap *= 2;
			grown = realloc(c->buf, cap);
			if (grown) {
				c->buf = grown;
				c->cap = cap;
			} else {
				c->err = ENOMEM;
				pthread_cond_broadcast(&c->cond);
			}
		}
		if (!c->err) {
			memcpy(c->buf + c->len, chunk, (size_t)n);
			c->len += (size_t)n;
			cutter_parse(c);
		}
		pthread_mutex_unlock(&c->lock);
	}
}

static int cutter_start(struct cutter *c, int fd)
{
	pthread_condattr_t attr;
	int err;

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	pthread_mutex_init(&c->lock, NULL);
	/* A snapshot's timeout, whatever the wall clock does. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&c->thread, NULL, cutter_main, c);
	if (err) {
		pthread_mutex_destroy(&c->lock);
		pthread_cond_destroy(&c->cond);
	}
	return err;
}

static void cutter_stop(struct cutter *c)
{
	pthread_join(c->thread, NULL);
	close(c->fd);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c->header);
	free(c->buf);
}

/*
 * A snapshot file in DIR: snapshot-N.ptlog, the first N free from ours.
 * -1 and errno on failure.
 */
static int snapshot_open(struct loop_run *run, char *path, size_t size)
{
	int fd, n;

	for (;;) {
		n = snprintf(path, size, "%s/snapshot-%d.ptlog",
			     run->opts->output, ++run->next_number);
		if (n < 0 || (size_t)n >= size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The header and the blocks before the cut, as a file of their own. */
static int snapshot_file(struct loop_run *run, char *path, size_t size)
{
	struct cutter *c = &run->cut;
	int fd, err;

	fd = snapshot_open(run, path, size);
	if (fd < 0)
		return errno;
	err = write_all(fd, c->header, c->header_size);
	if (!err)
		err = write_all(fd, c->buf, c->cut);
	if (close(fd) && !err)
		err = errno;
	/* No half snapshot: it is kept for the next one instead. */
	if (err)
		unlink(path);
	return err;
}

/*
 * Waits until every flush asked for has made its cut, then writes the
 * header and the blocks up to the last cut as a snapshot, and forgets
 * them; if it cannot, they stay, for the next snapshot to hold. The lock
 * is held while the file is written: the pipe (1 MiB) and the stream
 * keep what comes meanwhile. 0, or an error (said).
 */
static int snapshot_write(struct loop_run *run, const char *reason)
{
	struct cutter *c = &run->cut;
	struct timespec until;
	char path[4096];
	uint64_t events;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += SNAPSHOT_TIMEOUT_S;
	pthread_mutex_lock(&c->lock);
	while (c->cuts < run->flushes && !c->eof && !c->err && !err)
		err = pthread_cond_timedwait(&c->cond, &c->lock, &until);
	if (c->cuts < run->flushes || !c->cut) {
		err = c->err ? c->err : err == ETIMEDOUT ? ETIMEDOUT : EPIPE;
		pthread_mutex_unlock(&c->lock);
		fprintf(stderr, PROG ": snapshot (%s): the stream's flush "
			"wrote no whole log: %s\n", reason, strerror(err));
		return err;
	}
	err = snapshot_file(run, path, sizeof(path));
	events = c->cut_events;
	if (!err) {
		memmove(c->buf, c->buf + c->cut, c->len - c->cut);
		c->len -= c->cut;
		c->parsed -= c->cut;
		c->parsed_events -= c->cut_events;
		c->cut = 0;
		c->cut_events = 0;
	}
	pthread_mutex_unlock(&c->lock);
	if (err) {
		fprintf(stderr, PROG ": snapshot (%s): %s: %s (its events go "
			"into the next snapshot)\n", reason,
			err == ENAMETOOLONG ? run->opts->output : path,
			strerror(err));
		return err;
	}
	run->snapshots++;
	fprintf(stderr, PROG ": snapshot %d: %s, %" PRIu64 " events (%s)\n",
		run->snapshots, path, events, reason);
	return 0;
}

/*
 * A snapshot now: the stream flushed into the pipe, then cut. Each flush
 * makes one cut, late or not: a snapshot waits for its own flush's.
 */
static void snapshot(struct loop_run *run, const char *reason)
{
	int err;

	err = posix_trace_flush(run->trid);
	if (err) {
		fprintf(stderr, PROG ": snapshot (%s): flushing the stream: "
			"%s\n", reason, strerror(err));
		run->failed = true;
		return;
	}
	run->flushes++;
	if (snapshot_write(run, reason))
		run->failed = true;
}

/* The signal a name (SIGSEGV, SEGV) or a number gives; 0 if none. */
static int parse_signal(const char *text)
{
	char buf[SIGNAL_NAME_SIZE], *end;
	const char *name;
	long n;
	int sig;

	if (text[0] >= '0' && text[0] <= '9') {
		n = strtol(text, &end, 10);
		return !*end && n > 0 && n < 65 ? (int)n : 0;
	}
	for (sig = 1; sig < 65; sig++) {
		name = kevent_signal_name(sig, buf);
		if (!strcmp(text, name) ||
		    (!strncmp(name, "SIG", 3) && !strcmp(text, name + 3)))
			return sig;
	}
	return 0;
}

static int add_trigger(struct record_opts *o, const char *text,
		       const char **why)
{
	struct record_trigger *t;
	const char *name;

	if (o->ntriggers == RECORD_TRIGGERS_MAX) {
		*why = "too many triggers";
		return EINVAL;
	}
	t = &o->triggers[o->ntriggers];
	memset(t, 0, sizeof(*t));
	if (!strcmp(text, "exit-status")) {
		t->kind = TRIGGER_EXIT_STATUS;
	} else if (!strncmp(text, "SIG", 3) ||
		   (text[0] >= '0' && text[0] <= '9')) {
		t->kind = TRIGGER_SIGNAL;
		t->sig = parse_signal(text);
		if (!t->sig) {
			*why = "no such signal";
			return EINVAL;
		}
	} else {
		name = strncmp(text, "event:", 6) ? text : text + 6;
		if (!name[0] || strlen(name) > TRACE_EVENT_NAME_MAX) {
			*why = "an event name has 1 to 63 bytes";
			return EINVAL;
		}
		/* A signal's short name (ABRT) is a signal, not a type. */
		t->sig = name == text ? parse_signal(name) : 0;
		t->kind = t->sig ? TRIGGER_SIGNAL : TRIGGER_EVENT;
		snprintf(t->name, sizeof(t->name), "%s", name);
	}
	o->ntriggers++;
	return 0;
}

int record_loop_triggers(struct record_opts *o, const char *text,
			 const char **why)
{
	char *copy = strdup(text), *item, *save = NULL;
	int err = 0;

	if (!copy) {
		*why = strerror(ENOMEM);
		return EINVAL;
	}
	for (item = strtok_r(copy, ",", &save); item && !err;
	     item = strtok_r(NULL, ",", &save))
		err = add_trigger(o, item, why);
	if (!err && !o->ntriggers) {
		*why = "no trigger";
		err = EINVAL;
	}
	free(copy);
	return err;
}

/* The kernel classes the triggers need from the trigger stream. */
static unsigned int trigger_classes(const struct record_opts *o)
{
	unsigned int classes = 0;
	int i;

	for (i = 0; i < o->ntriggers; i++) {
		if (o->triggers[i].kind == TRIGGER_SIGNAL)
			classes |= POSIXTRACE_K_KERNEL_SIGNAL;
		else if (o->triggers[i].kind == TRIGGER_EXIT_STATUS)
			classes |= POSIXTRACE_K_KERNEL_PROC;
	}
	return classes;
}

/* The trigger stream: the triggers' events only, on @pid, created. */
static int trigger_stream(struct loop_run *run, pid_t pid)
{
	const struct record_opts *o = run->opts;
	struct kernel_classes kc;
	char name[TRACE_NAME_MAX + 1], full[TRACE_NAME_MAX + 1];
	trace_event_set_t set;
	trace_attr_t attr;
	int err, i;

	kernel_classes_init(&kc);
	kc.classes = trigger_classes(o);
	kc.explicit = true;
	record_default_name(o, name, sizeof(name));
	/* A name keeps 62 bytes: the suffix is kept. */
	snprintf(full, sizeof(full), "%.*s.triggers", TRACE_NAME_MAX - 1 - 9,
		 o->name ? o->name : name);
	err = posix_trace_attr_init(&attr);
	if (err)
		return err;
	err = posix_trace_attr_setname(&attr, full);
	if (!err)
		err = posix_trace_attr_setstreamfullpolicy(&attr,
							   POSIX_TRACE_LOOP);
	if (!err)
		err = posix_trace_attr_setinherited(&attr, o->inherit ?
			POSIX_TRACE_INHERITED : POSIX_TRACE_CLOSE_FOR_CHILD);
	if (!err)
		err = posix_trace_attr_setstreamsize(&attr,
						     TRIGGER_STREAM_SIZE);
	if (!err && kernel_classes_apply(&kc, &attr, false, true))
		err = EINVAL;
	if (!err)
		err = posix_trace_create(pid, &attr, &run->trig);
	posix_trace_attr_destroy(&attr);
	if (err)
		return err;
	run->have_trig = true;
	/* Everything filtered out but what fires a trigger. */
	posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS);
	for (i = 0; i < o->ntriggers && !err; i++) {
		switch (o->triggers[i].kind) {
		case TRIGGER_SIGNAL:
			posix_trace_eventset_del(POSIXTRACE_EVENT_SIGNAL_DELIVER,
						 &set);
			break;
		case TRIGGER_EXIT_STATUS:
			posix_trace_eventset_del(POSIXTRACE_EVENT_PROC_EXIT,
						 &set);
			break;
		case TRIGGER_EVENT:
			err = posix_trace_trid_eventid_open(run->trig,
				o->triggers[i].name, &run->event_ids[i]);
			if (!err)
				posix_trace_eventset_del(run->event_ids[i],
							 &set);
			break;
		}
	}
	if (!err)
		err = posix_trace_set_filter(run->trig, &set,
					     POSIX_TRACE_SET_EVENTSET);
	return err;
}

/* The main stream, whose log is the pipe @log_fd; then both started. */
static int start_streams(struct loop_run *run, pid_t pid, int log_fd)
{
	const struct record_opts *o = run->opts;
	trace_attr_t attr;
	int err;

	if (record_make_attr(o, &attr))
		return EINVAL;	/* cmd_record() checked them already */
	err = posix_trace_create_withlog(pid, &attr, log_fd, &run->trid);
	posix_trace_attr_destroy(&attr);
	if (err)
		return err;
	run->have_trid = true;
	if (record_select_apply(&run->opts->select, run->trid))
		return EINVAL;
	err = kernel_classes_select(&run->opts->kernel, run->trid);
	if (!err)
		err = trigger_stream(run, pid);
	if (!err)
		err = posix_trace_start(run->trig);
	if (!err)
		err = posix_trace_start(run->trid);
	return err;
}

/* What fires a trigger in @ev (the trigger stream's); NULL: nothing. */
static const char *fired(struct loop_run *run,
			 const struct posix_trace_event_info *ev,
			 const unsigned char *data, size_t len, char *why,
			 size_t size)
{
	const struct record_opts *o = run->opts;
	char sig[SIGNAL_NAME_SIZE];
	int i, status, signal;

	for (i = 0; i < o->ntriggers; i++) {
		const struct record_trigger *t = &o->triggers[i];

		switch (t->kind) {
		case TRIGGER_SIGNAL:
			if (ev->posix_event_id != POSIXTRACE_EVENT_SIGNAL_DELIVER ||
			    len < 4 || (int)get_le32(data) != t->sig)
				break;
			snprintf(why, size, "%s taken in pid %d",
				 kevent_signal_name(t->sig, sig),
				 (int)ev->posix_pid);
			return why;
		case TRIGGER_EXIT_STATUS:
			if (ev->posix_event_id != POSIXTRACE_EVENT_PROC_EXIT ||
			    len < 10 || !data[9])
				break;
			status = (int)get_le32(data);
			signal = (int)get_le32(data + 4);
			/* Our stop, passed on to COMMAND: no failure. */
			if (launch_stop_signal &&
			    (signal == SIGTERM || signal == SIGINT))
				break;
			if (signal)
				snprintf(why, size, "pid %d killed by %s",
					 (int)ev->posix_pid,
					 kevent_signal_name(signal, sig));
			else if (status)
				snprintf(why, size, "pid %d exited %d",
					 (int)ev->posix_pid, status);
			else
				break;
			return why;
		case TRIGGER_EVENT:
			if (ev->posix_event_id != run->event_ids[i])
				break;
			snprintf(why, size, "event %s in pid %d", t->name,
				 (int)ev->posix_pid);
			return why;
		}
	}
	return NULL;
}

/* Reads what the trigger stream holds; one snapshot for all it fires. */
static void check_triggers(struct loop_run *run)
{
	struct posix_trace_event_info ev;
	unsigned char data[64];
	/* The first reason, and room for "FIRST, and N more" after it. */
	char why[160], first[160] = "", all[200];
	int unavailable, n = 0;
	size_t len;

	for (;;) {
		if (posix_trace_trygetnext_event(run->trig, &ev, data,
						 sizeof(data), &len,
						 &unavailable) || unavailable)
			break;
		if (!fired(run, &ev, data, len, why, sizeof(why)))
			continue;
		if (!n++)
			memcpy(first, why, sizeof(first));
	}
	if (!n)
		return;
	if (n > 1)
		snprintf(all, sizeof(all), "%s, and %d more", first, n - 1);
	snapshot(run, n > 1 ? all : first);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Until the traced process exits or we are asked to stop. */
static void loop_wait(struct loop_run *run)
{
	struct pollfd pfd = { .fd = run->launch.pidfd, .events = POLLIN };
	struct timespec timeout = { 0, POLL_NS };
	int n;

	unsigned int ticks = 0;

	while (!launch_stop_signal) {
		check_triggers(run);
		/* -e patterns: the types named since, as record does. */
		if (++ticks % SELECT_TICKS == 0)
			record_select_update(&run->opts->select, run->trid);
		n = ppoll(&pfd, 1, &timeout, &run->launch.run_mask);
		if (n > 0)
			break;
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			run->failed = true;
			break;
		}
	}
	/* What the exit itself fired (the traced process's last events). */
	for (int64_t end = now_ns() + 2 * POLL_NS; now_ns() < end;) {
		check_triggers(run);
		nanosleep(&timeout, NULL);
	}
}

/* Stops and shuts both streams down: the final flush goes nowhere. */
static void stop_streams(struct loop_run *run)
{
	if (run->have_trig)
		posix_trace_shutdown(run->trig);
	if (run->have_trid) {
		posix_trace_stop(run->trid);
		posix_trace_shutdown(run->trid);
	}
	run->have_trig = run->have_trid = false;
}

/* DIR, made if missing. 0, or 1 (said). */
static int make_dir(const char *dir)
{
	struct stat sb;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, PROG ": %s: %s\n", dir, strerror(ENOTDIR));
		return 1;
	}
	/* Before anything runs: a snapshot must have somewhere to go. */
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}

static void announce(const struct loop_run *run, pid_t pid)
{
	const struct record_opts *o = run->opts;
	char name[TRACE_NAME_MAX + 1];

	record_default_name(o, name, sizeof(name));
	fprintf(stderr, PROG ": flight recorder on PID %d (%s)%s, the last "
		"%zu bytes of events in memory; snapshots into %s/; ",
		(int)pid, name, !o->inherit ? "" : " and its children",
		o->loop_size, o->output);
	if (isatty(STDIN_FILENO))
		fprintf(stderr, "Ctrl-C to stop\n");
	else
		fprintf(stderr, "kill -INT %d to stop\n", (int)getpid());
}

/* The streams on the held child (or PID), then the child let go. */
static int start(struct loop_run *run, int log_fd)
{
	const struct record_opts *o = run->opts;
	pid_t pid = o->pid;
	int err, status;

	if (!o->pid) {
		if (launch_fork(&run->launch))
			return 1;
		pid = run->launch.child;
	}
	err = start_streams(run, pid, log_fd);
	if (err) {
		record_trace_error(o, err);
		stop_streams(run);
		if (!o->pid)
			launch_abort(&run->launch);
		return 1;
	}
	announce(run, pid);
	if (o->pid)
		return 0;
	status = launch_go(&run->launch);
	if (status)
		stop_streams(run);
	return status;
}

int record_loop(struct record_opts *o)
{
	struct loop_run run = {
		.opts = o,
		.launch = { .prog = PROG, .argv = o->argv, .pidfd = -1 },
	};
	unsigned int major, minor;
	int pipefd[2], status = 0, err;

	err = posixtrace_k_abi_version(&major, &minor);
	if (err) {
		fprintf(stderr, PROG ": /dev/posixtrace: %s%s\n", strerror(err),
			err == ENOENT ? " (is posixtrace.ko loaded?)" : "");
		return 1;
	}
	if (o->pid) {
		run.launch.pidfd = launch_pidfd_open(o->pid);
		if (run.launch.pidfd < 0) {
			record_trace_error(o, errno);
			return 1;
		}
	}
	if (make_dir(o->output) || launch_signals(&run.launch))
		return 1;
	if (pipe2(pipefd, O_CLOEXEC)) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return 1;
	}
	/* Room for a flush's batches while our thread catches up. */
	fcntl(pipefd[1], F_SETPIPE_SZ, 1 << 20);
	err = cutter_start(&run.cut, pipefd[0]);
	if (err) {
		fprintf(stderr, PROG ": %s\n", strerror(err));
		close(pipefd[0]);
		close(pipefd[1]);
		return 1;
	}
	status = start(&run, pipefd[1]);
	/* The module holds its own reference on the log's pipe. */
	close(pipefd[1]);
	if (!status) {
		loop_wait(&run);
		stop_streams(&run);
		status = o->pid ? 0 : launch_wait(&run.launch);
	}
	cutter_stop(&run.cut);
	if (run.launch.pidfd >= 0)
		close(run.launch.pidfd);
	fprintf(stderr, PROG ": %d snapshot%s in %s\n", run.snapshots,
		run.snapshots == 1 ? "" : "s", o->output);
	return run.failed && !status ? 1 : status;
}
