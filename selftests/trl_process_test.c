// SPDX-License-Identifier: GPL-2.0
/*
 * Trace logs (POSIX Trace Log option, TRL) across processes, threads and
 * failures: a creator that exits or is killed mid-flush leaves a complete,
 * readable log; flushes race with producing threads without losing or
 * reordering anything; a log on a pipe; a log whose pipe breaks reports
 * the error; and a log written on one kernel reads the same on another.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <posixtrace-k.h>

#include "trl_common.h"

/*
 * A creator that exits without posix_trace_shutdown(): its stream is shut
 * down, and its log flushed and closed, before its parent can reap it.
 */
TEST(creator_exit_completes_the_log_before_it_is_reaped)
{
	struct logbuf lb;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	int fd, status, i = 0;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	fd = tmp_log();
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND, 0, 0) ||
		    posix_trace_eventid_open("trl.exit", &a) ||
		    posix_trace_create_withlog(0, &attr, fd, &trid) ||
		    posix_trace_start(trid))
			_exit(1);
		emit_numbered(a, 0, 10);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_TRUE(log_closed(fd));
	ASSERT_EQ(0, read_log(fd, &lb));
	ASSERT_EQ(14, lb.n);
	ASSERT_EQ(POSIX_TRACE_START, lb.ev[i++].info.posix_event_id);
	for (; i <= 10; i++) {
		ASSERT_STREQ("trl.exit", lb.ev[i].name);
		ASSERT_EQ((uint64_t)i - 1, ev_num(&lb.ev[i]));
		ASSERT_EQ(pid, lb.ev[i].info.posix_pid);
	}
	ASSERT_EQ(POSIX_TRACE_STOP, lb.ev[11].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_FLUSH_START, lb.ev[12].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_FLUSH_STOP, lb.ev[13].info.posix_event_id);
	free_log(&lb);
	close(fd);
}

/*
 * A creator dies while a child it traces keeps its stream's descriptor
 * (forked without the library's atfork handler, which would close it):
 * the stream is shut down at the death, and its log gets what the child
 * made before it (still in the child's ring then, taken later), then the
 * STOP, and nothing the child makes after.
 */
TEST(a_dead_creators_log_has_what_came_before_its_death_and_nothing_after)
{
	int fd, status, i, n = 0, adie[2], go[2];
	trace_event_id_t id;
	trace_attr_t attr;
	struct logbuf lb;
	trace_id_t trid;
	pid_t a, c = 0;
	char b = 0;

	SKIP_WITHOUT_DEVICE();
	fd = tmp_log();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(adie));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
	a = fork();
	ASSERT_LE(0, a);
	if (!a) {
		if (log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND, 0, 0) ||
		    posix_trace_attr_setinherited(&attr,
						  POSIX_TRACE_INHERITED) ||
		    posix_trace_eventid_open("trl.death", &id) ||
		    posix_trace_create_withlog(0, &attr, fd, &trid) ||
		    posix_trace_start(trid))
			_exit(1);
		c = _Fork();
		if (c < 0)
			_exit(2);
		if (!c) {
			emit_numbered(id, 0, 100);
			if (write(adie[1], "d", 1) != 1 ||
			    read(go[0], &b, 1) != 1)
				_exit(3);
			emit_numbered(id, 100, 100);
			_exit(0);
		}
		/* Die with the child's events still in its ring. */
		if (read(adie[0], &b, 1) != 1)
			_exit(4);
		_exit(0);
	}
	ASSERT_EQ(a, waitpid(a, &status, 0));
	ASSERT_EQ(0, status);
	/* A is reaped: its stream is dead; now the child makes more. */
	ASSERT_EQ(1, write(go[1], "g", 1));
	c = wait(&status);
	ASSERT_LT(0, c);
	ASSERT_EQ(0, status);
	ASSERT_TRUE(wait_log_closed(fd));
	ASSERT_EQ(0, read_log(fd, &lb));
	for (i = 0; i < lb.n; i++) {
		if (lb.ev[i].info.posix_event_id == POSIX_TRACE_STOP)
			break;
		if (strcmp(lb.ev[i].name, "trl.death"))
			continue;
		ASSERT_EQ((uint64_t)n, ev_num(&lb.ev[i]));
		ASSERT_EQ(c, lb.ev[i].info.posix_pid);
		n++;
	}
	ASSERT_EQ(100, n);
	ASSERT_LT(i, lb.n);
	for (; i < lb.n; i++)
		ASSERT_STRNE("trl.death", lb.ev[i].name);
	free_log(&lb);
	close(fd);
	close(adie[0]);
	close(adie[1]);
	close(go[0]);
	close(go[1]);
}

/* A byte from fd within 10 s; 0 if none came. */
static char get_byte_within(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c = 0;

	if (poll(&pfd, 1, 10000) == 1 && !get(fd, &c, 1))
		c = 0;
	return c;
}

/*
 * A creator whose log is a pipe it holds itself, full, exits: the final
 * flush cannot be written before the pipe's read end goes, which happens
 * after the stream's release in the same exit. The exit waits a bounded
 * time (10 s), then goes on: the process is reaped, not left hanging.
 */
TEST(creator_exit_with_its_own_full_pipe_as_log_does_not_hang)
{
	int status = 0, i;
	pid_t pid, got = 0;

	SKIP_WITHOUT_DEVICE();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		trace_event_id_t a;
		trace_attr_t attr;
		trace_id_t trid;
		char fill[4096] = { 0 };
		int p[2];

		if (pipe(p) ||
		    log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND, 0, 0) ||
		    posix_trace_eventid_open("trl.stuck", &a) ||
		    posix_trace_create_withlog(0, &attr, p[1], &trid) ||
		    posix_trace_start(trid))
			_exit(1);
		/*
		 * Fill the pipe without blocking here, then make it blocking
		 * again: the module's writes will wait for room.
		 */
		if (fcntl(p[1], F_SETFL, O_NONBLOCK))
			_exit(2);
		while (write(p[1], fill, sizeof(fill)) > 0)
			;
		if (fcntl(p[1], F_SETFL, 0))
			_exit(3);
		emit_numbered(a, 0, 100);
		_exit(0);
	}
	for (i = 0; i < 300 && !got; i++) {
		got = waitpid(pid, &status, WNOHANG);
		if (!got)
			usleep(100000);
	}
	if (!got)
		kill(pid, SIGKILL);
	ASSERT_EQ(pid, got);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/* The traced process: numbered events as fast as it can, until killed. */
static void traced_loop(int ready)
{
	trace_event_id_t a;
	uint64_t i;

	if (posix_trace_eventid_open("trl.kill", &a))
		_exit(1);
	put_byte(ready, 'r');
	for (i = 0;; i++)
		posix_trace_event(a, &i, sizeof(i));
}

/* The controller: traces pid into fd, flushing in a loop, until killed. */
static void controller_loop(pid_t pid, int fd, int ready)
{
	trace_attr_t attr;
	trace_id_t trid;

	if (log_attr(&attr, POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND, 8192, 0) ||
	    posix_trace_create_withlog(pid, &attr, fd, &trid) ||
	    posix_trace_start(trid))
		_exit(1);
	put_byte(ready, 'c');
	for (;;)
		posix_trace_flush(trid);
}

/*
 * SIGKILL to the traced process and to its controller while flushes run:
 * the log is closed all the same, and every event in it is whole and in
 * order, lost ones showing only as gaps.
 */
TEST(killing_traced_process_and_controller_mid_flush_leaves_a_readable_log)
{
	int fd, p[2], round, i;
	pid_t traced, ctl;
	struct logbuf lb;
	uint64_t last;
	char c;

	SKIP_WITHOUT_DEVICE();
	for (round = 0; round < 3; round++) {
		fd = tmp_log();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, pipe(p));
		traced = fork();
		ASSERT_LE(0, traced);
		if (!traced)
			traced_loop(p[1]);
		ASSERT_EQ('r', get_byte_within(p[0]));
		ctl = fork();
		ASSERT_LE(0, ctl);
		if (!ctl)
			controller_loop(traced, fd, p[1]);
		c = get_byte_within(p[0]);
		if (c != 'c') {
			kill(traced, SIGKILL);
			kill(ctl, SIGKILL);
		}
		ASSERT_EQ('c', c);
		usleep(20000 + round * 30000);
		/* The controller first in one round, the traced one first in another. */
		kill(round & 1 ? traced : ctl, SIGKILL);
		kill(round & 1 ? ctl : traced, SIGKILL);
		ASSERT_EQ(ctl, waitpid(ctl, NULL, 0));
		ASSERT_EQ(traced, waitpid(traced, NULL, 0));
		ASSERT_TRUE(wait_log_closed(fd));
		ASSERT_EQ(0, read_log(fd, &lb));
		ASSERT_LT(0, lb.n);
		last = 0;
		for (i = 0; i < lb.n; i++) {
			if (strcmp(lb.ev[i].name, "trl.kill"))
				continue;
			ASSERT_EQ(traced, lb.ev[i].info.posix_pid);
			if (last)
				ASSERT_LT(last, ev_num(&lb.ev[i]) + 1);
			last = ev_num(&lb.ev[i]) + 1;
		}
		free_log(&lb);
		close(p[0]);
		close(p[1]);
		close(fd);
	}
}

#define RACE_THREADS	4
#define RACE_EVENTS	2000

static trace_event_id_t race_id;

static void *race_producer(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg << 32, i;

	for (i = 0; i < RACE_EVENTS; i++) {
		uint64_t v = base | i;

		posix_trace_event(race_id, &v, sizeof(v));
	}
	return NULL;
}

/*
 * Flushes in a loop while four threads produce: the log has every event
 * once, each thread's in its order, and the right thread ids.
 */
TEST(flushes_racing_with_producer_threads_lose_and_reorder_nothing)
{
	pthread_t th[RACE_THREADS];
	uint64_t next[RACE_THREADS] = { 0 };
	struct logbuf lb;
	trace_attr_t attr;
	trace_id_t trid;
	int fd, i, t, flushes = 0;

	SKIP_WITHOUT_DEVICE();
	fd = tmp_log();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_trace_eventid_open("trl.race", &race_id));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      4 << 20, 0));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (t = 0; t < RACE_THREADS; t++)
		ASSERT_EQ(0, pthread_create(&th[t], NULL, race_producer,
					    (void *)(uintptr_t)t));
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, posix_trace_flush(trid));
		usleep(500);
	}
	for (t = 0; t < RACE_THREADS; t++)
		ASSERT_EQ(0, pthread_join(th[t], NULL));
	ASSERT_EQ(0, posix_trace_shutdown(trid));

	ASSERT_EQ(0, read_log(fd, &lb));
	for (i = 0; i < lb.n; i++) {
		uint64_t v;

		if (lb.ev[i].info.posix_event_id == POSIX_TRACE_FLUSH_START)
			flushes++;
		if (lb.ev[i].info.posix_event_id != race_id)
			continue;
		v = ev_num(&lb.ev[i]);
		t = (int)(v >> 32);
		ASSERT_LT(t, RACE_THREADS);
		ASSERT_EQ(next[t], v & 0xffffffff);
		ASSERT_EQ(getpid(), lb.ev[i].info.posix_pid);
		ASSERT_TRUE(pthread_equal(th[t], lb.ev[i].info.posix_thread_id));
		next[t]++;
	}
	for (t = 0; t < RACE_THREADS; t++)
		ASSERT_EQ(RACE_EVENTS, next[t]);
	ASSERT_LT(1, flushes);
	free_log(&lb);
	close(fd);
}

struct copier {
	int in, out;
};

static void *copy_pipe(void *arg)
{
	struct copier *c = arg;
	char buf[4096];
	ssize_t n;

	while ((n = read(c->in, buf, sizeof(buf))) > 0)
		if (!put(c->out, buf, n))
			break;
	return NULL;
}

/*
 * An APPEND log written to a pipe, copied to a file by a reader: the copy
 * is the whole log, and the pipe ends when the module lets go of it.
 */
TEST(append_log_on_a_pipe_is_written_in_order)
{
	struct copier c;
	struct logbuf lb;
	uint64_t next = 0;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	pthread_t th;
	int p[2], i;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, pipe(p));
	c.in = p[0];
	c.out = tmp_log();
	ASSERT_LE(0, c.out);
	ASSERT_EQ(0, pthread_create(&th, NULL, copy_pipe, &c));
	ASSERT_EQ(0, posix_trace_eventid_open("trl.pipe", &a));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND,
			      4096, 0));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, p[1], &trid));
	/* The module holds its own reference: ours can go. */
	close(p[1]);
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 10; i++) {
		emit_numbered(a, i * 20, 20);
		ASSERT_EQ(0, wait_flushed(trid));
	}
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_EQ(0, pthread_join(th, NULL));
	close(p[0]);

	ASSERT_TRUE(log_closed(c.out));
	ASSERT_EQ(0, read_log(c.out, &lb));
	for (i = 0; i < lb.n; i++) {
		if (lb.ev[i].info.posix_event_id != a)
			continue;
		ASSERT_EQ(next, ev_num(&lb.ev[i]));
		next++;
	}
	ASSERT_EQ(200, next);
	free_log(&lb);
	close(c.out);
}

/*
 * The reader of a log's pipe goes away: the flush fails with EPIPE, which
 * get_status reports once; an ERROR event records it; nothing crashes,
 * and shutdown still returns.
 */
TEST(broken_pipe_log_reports_epipe_once)
{
	struct posix_trace_status_info st;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	int p[2];

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, posix_trace_eventid_open("trl.epipe", &a));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, p[1], &trid));
	close(p[0]);
	ASSERT_EQ(0, posix_trace_start(trid));
	emit_numbered(a, 0, 5);
	ASSERT_EQ(0, posix_trace_flush(trid));
	ASSERT_EQ(0, wait_flushed_seen(trid, &st));
	ASSERT_EQ(EPIPE, st.posix_stream_flush_error);
	ASSERT_EQ(POSIX_TRACE_OVERRUN, st.posix_log_overrun_status);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	ASSERT_EQ(0, st.posix_stream_flush_error);
	ASSERT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_log_overrun_status);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	close(p[1]);
}

/*
 * The golden log: a fixed sequence any reader must read back exactly. One
 * guest writes it to $POSIXTRACE_LOG_EXPORT; the next guest (another
 * kernel) reads the ones in $POSIXTRACE_LOG_IMPORT, and the build host
 * exports them as CTF for babeltrace2.
 */
#define GOLDEN_EVENTS	64

static void golden_produce(trace_event_id_t g[2])
{
	unsigned char data[100];
	int i;

	for (i = 0; i < GOLDEN_EVENTS; i++) {
		memset(data, i, sizeof(data));
		/* Lengths 0 to 99; max data size 48 truncates the long ones. */
		posix_trace_event(g[i & 1], data, (i * 37) % 100);
	}
}

static void golden_check(struct __test_metadata *_metadata,
			 const struct logbuf *lb)
{
	char name[TRACE_NAME_MAX];
	int i, k = 0;

	ASSERT_EQ(0, posix_trace_attr_getname(&lb->attr, name));
	ASSERT_STREQ("golden", name);
	ASSERT_EQ(POSIX_TRACE_START, lb->ev[k++].info.posix_event_id);
	for (i = 0; i < GOLDEN_EVENTS; i++, k++) {
		const struct logev *e = &lb->ev[k];
		size_t want = (i * 37) % 100;

		ASSERT_LT(k, lb->n);
		ASSERT_STREQ(i & 1 ? "golden.odd" : "golden.even", e->name);
		ASSERT_EQ(want > 48 ? 48 : want, e->len);
		ASSERT_EQ(want > 48 ? POSIX_TRACE_TRUNCATED_RECORD :
			  POSIX_TRACE_NOT_TRUNCATED,
			  e->info.posix_truncation_status);
		if (e->len)
			ASSERT_EQ(i, e->data[e->len - 1]);
	}
	ASSERT_EQ(POSIX_TRACE_STOP, lb->ev[k++].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_FLUSH_START, lb->ev[k++].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_FLUSH_STOP, lb->ev[k++].info.posix_event_id);
	ASSERT_EQ(k, lb->n);
}

TEST(golden_log_reads_back_exactly_and_is_exported)
{
	const char *dir = getenv("POSIXTRACE_LOG_EXPORT");
	trace_event_id_t g[2];
	struct logbuf lb;
	trace_attr_t attr;
	trace_id_t trid;
	int fd;

	SKIP_WITHOUT_DEVICE();
	fd = tmp_log();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_trace_eventid_open("golden.even", &g[0]));
	ASSERT_EQ(0, posix_trace_eventid_open("golden.odd", &g[1]));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, "golden"));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 48));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	golden_produce(g);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_EQ(0, read_log(fd, &lb));
	golden_check(_metadata, &lb);
	free_log(&lb);

	ASSERT_TRUE(export_log(fd, dir, "golden.ptlog"));
	close(fd);
}

/*
 * A LOOP stream of 4096 bytes overwritten before its flush: the log shows
 * the gap as OVERFLOW and RESUME before the 56 events that survived, and
 * as a jump in sequence numbers (the host checks babeltrace2 reports the
 * 145 events lost: START and events 0 to 143).
 */
TEST(overwritten_events_show_in_the_log_as_overflow_and_a_gap)
{
	struct logbuf lb;
	trace_event_id_t a;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t seq;
	int fd, i = 0, k;

	SKIP_WITHOUT_DEVICE();
	fd = tmp_log();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_trace_eventid_open("lossy.a", &a));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      4096, 0));
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, "lossy"));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	emit_numbered(a, 0, 200);
	ASSERT_EQ(0, posix_trace_shutdown(trid));

	ASSERT_EQ(0, read_log(fd, &lb));
	ASSERT_EQ(POSIX_TRACE_OVERFLOW, lb.ev[i++].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_RESUME, lb.ev[i++].info.posix_event_id);
	for (k = 4096 / EVENT8_SIZE; k > 0; k--, i++) {
		ASSERT_EQ(a, lb.ev[i].info.posix_event_id);
		ASSERT_EQ((uint64_t)(200 - k), ev_num(&lb.ev[i]));
	}
	ASSERT_EQ(POSIX_TRACE_STOP, lb.ev[i++].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_FLUSH_START, lb.ev[i++].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_FLUSH_STOP, lb.ev[i++].info.posix_event_id);
	ASSERT_EQ(i, lb.n);
	ASSERT_EQ(POSIX_TRACE_OVERRUN, lb.status.posix_stream_overrun_status);
	free_log(&lb);

	/* The first event after the gap is number 145 in the stream. */
	ASSERT_EQ(0, posix_trace_open(fd, &trid));
	for (k = 0; k < 3; k++) {
		struct rec r;

		ASSERT_EQ(0, posix_trace_getnext_event(trid, &r.info, r.data,
						       sizeof(r.data), &r.len,
						       &r.unavailable));
	}
	ASSERT_EQ(0, posixtrace_k_event_seq(trid, &seq));
	ASSERT_EQ(145, seq);
	ASSERT_EQ(0, posix_trace_close(trid));
	ASSERT_TRUE(export_log(fd, getenv("POSIXTRACE_LOG_EXPORT"),
			       "lossy.ptlog"));
	close(fd);
}

/* Logs written by another kernel's module read back the same here. */
TEST(golden_logs_of_other_kernels_read_back_exactly)
{
	const char *dir = getenv("POSIXTRACE_LOG_IMPORT");
	struct dirent *d;
	struct logbuf lb;
	char path[512];
	int fd, n = 0;
	DIR *dp;

	if (!dir || !(dp = opendir(dir)))
		SKIP(return, "no logs of another kernel to read");
	while ((d = readdir(dp))) {
		/* Only golden logs have contents known here. */
		if (strncmp(d->d_name, "golden", 6) ||
		    !strstr(d->d_name, ".ptlog"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		fd = open(path, O_RDONLY);
		ASSERT_LE(0, fd);
		TH_LOG("reading %s", path);
		ASSERT_EQ(0, read_log(fd, &lb));
		golden_check(_metadata, &lb);
		free_log(&lb);
		close(fd);
		n++;
	}
	closedir(dp);
	if (!n)
		SKIP(return, "no logs of another kernel to read");
}

TEST_HARNESS_MAIN
