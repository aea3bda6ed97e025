// SPDX-License-Identifier: GPL-2.0
/*
 * Trace inheritance (POSIX Trace Inherit option, TRI): with
 * POSIX_TRACE_INHERITED the children a traced process forks, and theirs,
 * are traced by the same stream from their first instruction, with their
 * own pid, and a name has one identifier across the family; with
 * POSIX_TRACE_CLOSE_FOR_CHILD (the default) they are not. Threads, exec,
 * exit, pid reuse, and forks racing with shutdown.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <posixtrace-k.h>

#include "trc_common.h"

/*
 * The image an exec'd child runs (this binary again): it opens
 * "tri.exec", records one event carrying its pid, and exits.
 */
static void __attribute__((constructor)) exec_helper(void)
{
	trace_event_id_t id;
	pid_t pid = getpid();

	if (!getenv("TRI_EXEC_EMIT"))
		return;
	if (posix_trace_eventid_open("tri.exec", &id))
		_exit(1);
	posix_trace_event(id, &pid, sizeof(pid));
	_exit(0);
}

/* A stream on this process, running, with the given inheritance. */
static int create_running(int inheritance, trace_id_t *trid)
{
	trace_attr_t attr;
	int ret;

	ret = posix_trace_attr_init(&attr);
	if (!ret)
		ret = posix_trace_attr_setinherited(&attr, inheritance);
	if (!ret)
		ret = posix_trace_attr_setstreamsize(&attr, 4 << 20);
	if (!ret)
		ret = posix_trace_create(0, &attr, trid);
	if (!ret)
		ret = posix_trace_start(*trid);
	return ret;
}

/* What a level of the fork tree records: its depth and its pid. */
struct level {
	int depth;
	pid_t pid;
};

/*
 * This process, then depth children each forked by the one before: each
 * records "tri.level" and waits for its child. Returns in the top process
 * only; the pids of the tree are stored in pids[0..depth].
 */
static int fork_tree(int depth, pid_t *pids)
{
	struct level lv = { 0, getpid() };
	trace_event_id_t id;
	int p[2], status, i;
	pid_t child;

	if (pipe(p))
		return errno;
	pids[0] = lv.pid;
	for (;;) {
		if (posix_trace_eventid_open("tri.level", &id))
			_exit(2);
		posix_trace_event(id, &lv, sizeof(lv));
		if (lv.depth == depth)
			_exit(0);
		child = fork();
		if (child < 0)
			_exit(3);
		if (child) {
			/* Tell the top process who the child is, and where. */
			struct level who = { lv.depth + 1, child };

			put(p[1], &who, sizeof(who));
			if (waitpid(child, &status, 0) != child ||
			    !WIFEXITED(status) || WEXITSTATUS(status))
				status = 4;
			else
				status = 0;
			if (lv.depth)
				_exit(status);
			break;
		}
		lv.depth++;
		lv.pid = getpid();
	}
	/* The levels write concurrently: each says which it is. */
	for (i = 0; i < depth; i++) {
		if (!get(p[0], &lv, sizeof(lv)) || lv.depth < 1 ||
		    lv.depth > depth)
			return EIO;
		pids[lv.depth] = lv.pid;
	}
	close(p[0]);
	close(p[1]);
	return status ? ECHILD : 0;
}

/* The user events of a stopped stream, in order, until it is empty. */
static int drain_levels(trace_id_t trid, trace_event_id_t want,
			struct level *got, pid_t *pids, int max)
{
	struct rec r;
	int n = 0;

	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id != want)
			continue;
		if (n < max && r.len == sizeof(got[0])) {
			memcpy(&got[n], r.data, sizeof(got[0]));
			pids[n] = r.info.posix_pid;
		}
		n++;
	}
	return n;
}

TEST(inherited_stream_traces_a_fork_tree_four_levels_deep)
{
	struct level got[8];
	pid_t pids[4], from[8];
	trace_event_id_t id;
	trace_id_t trid;
	int i;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	ASSERT_EQ(0, fork_tree(3, pids));
	ASSERT_EQ(0, posix_trace_stop(trid));
	/* The name the children opened has the parent's identifier. */
	ASSERT_EQ(0, posix_trace_eventid_open("tri.level", &id));
	ASSERT_EQ(4, drain_levels(trid, id, got, from, 8));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(i, got[i].depth);
		ASSERT_EQ(pids[i], got[i].pid);
		/* Each event carries the pid of the process that made it. */
		ASSERT_EQ(pids[i], from[i]);
	}
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

TEST(close_for_child_stream_traces_the_parent_only)
{
	struct level got[8];
	pid_t pids[4], from[8];
	trace_event_id_t id;
	trace_id_t trid;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, create_running(POSIX_TRACE_CLOSE_FOR_CHILD, &trid));
	ASSERT_EQ(0, fork_tree(3, pids));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_eventid_open("tri.level", &id));
	ASSERT_EQ(1, drain_levels(trid, id, got, from, 8));
	ASSERT_EQ(0, got[0].depth);
	ASSERT_EQ(getpid(), from[0]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* Only the streams that inherit follow the child. */
TEST(child_is_traced_by_inherited_streams_only)
{
	trace_id_t inherit, close_for_child;
	struct level got[8];
	pid_t pids[2], from[8];
	trace_event_id_t id;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &inherit));
	ASSERT_EQ(0, create_running(POSIX_TRACE_CLOSE_FOR_CHILD,
				    &close_for_child));
	ASSERT_EQ(0, fork_tree(1, pids));
	ASSERT_EQ(0, posix_trace_stop(inherit));
	ASSERT_EQ(0, posix_trace_stop(close_for_child));
	ASSERT_EQ(0, posix_trace_eventid_open("tri.level", &id));
	ASSERT_EQ(2, drain_levels(inherit, id, got, from, 8));
	ASSERT_EQ(pids[1], from[1]);
	ASSERT_EQ(1, drain_levels(close_for_child, id, got, from, 8));
	ASSERT_EQ(pids[0], from[0]);
	ASSERT_EQ(0, posix_trace_shutdown(inherit));
	ASSERT_EQ(0, posix_trace_shutdown(close_for_child));
}

/*
 * A name a child opens first gets an identifier no other name of the
 * family has, and the parent gets the same one for it; the stream names it.
 */
TEST(names_opened_in_a_child_are_unique_across_the_family)
{
	trace_event_id_t mine, theirs = 0, again;
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_id_t trid;
	int p[2], status;
	pid_t child;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("tri.parent-first", &mine));
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		trace_event_id_t a, b;

		if (posix_trace_eventid_open("tri.parent-first", &a) ||
		    posix_trace_eventid_open("tri.child-first", &b) || a != mine)
			_exit(1);
		put(p[1], &b, sizeof(b));
		_exit(0);
	}
	ASSERT_TRUE(get(p[0], &theirs, sizeof(theirs)));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_NE(mine, theirs);
	ASSERT_EQ(0, posix_trace_eventid_open("tri.child-first", &again));
	ASSERT_EQ(theirs, again);
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid, theirs, name));
	ASSERT_STREQ("tri.child-first", name);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	close(p[0]);
	close(p[1]);
}

/* A traced child that execs is still traced: the new image's events too. */
TEST(exec_of_an_inherited_child_keeps_it_traced)
{
	char *argv[] = { "tri_inherit_test", NULL };
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	pid_t child, got = 0;
	int status, n = 0;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		setenv("TRI_EXEC_EMIT", "1", 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_eventid_open("tri.exec", &id));
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id != id)
			continue;
		ASSERT_EQ(child, r.info.posix_pid);
		memcpy(&got, r.data, sizeof(got));
		n++;
	}
	ASSERT_EQ(1, n);
	ASSERT_EQ(child, got);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

#define THREADS		3
#define PER_THREAD	50

static trace_event_id_t thread_id;

static void *thread_emit(void *arg)
{
	int i;

	for (i = 0; i < PER_THREAD; i++)
		posix_trace_event(thread_id, &i, sizeof(i));
	return arg;
}

/*
 * Every thread of an inherited child is traced: its events carry the
 * child's pid and the thread's own id, in each thread's order.
 */
TEST(threads_of_an_inherited_child_are_traced_with_their_ids)
{
	pid_t child, tids[THREADS + 1];
	int status, ntids = 0, i, counts[THREADS + 1] = { 0 };
	trace_id_t trid;
	struct rec r;
	pid_t tid;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("tri.thread", &thread_id));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pthread_t th[THREADS];

		for (i = 0; i < THREADS; i++)
			if (pthread_create(&th[i], NULL, thread_emit, NULL))
				_exit(1);
		for (i = 0; i < THREADS; i++)
			pthread_join(th[i], NULL);
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, posix_trace_stop(trid));
	while (!try_next(trid, &r) && !r.unavailable) {
		int k, v;

		if (r.info.posix_event_id != thread_id)
			continue;
		ASSERT_EQ(child, r.info.posix_pid);
		ASSERT_EQ(0, posixtrace_k_event_tid(trid, &tid));
		ASSERT_NE(child, tid);	/* not the main thread: it only waits */
		for (k = 0; k < ntids && tids[k] != tid; k++)
			;
		if (k == ntids) {
			ASSERT_LT(ntids, THREADS);
			tids[ntids++] = tid;
		}
		memcpy(&v, r.data, sizeof(v));
		ASSERT_EQ(counts[k], v);
		counts[k]++;
	}
	ASSERT_EQ(THREADS, ntids);
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(PER_THREAD, counts[i]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A child that outlives the process that created the stream: the stream
 * is shut down with its creator, the child goes on recording (to no
 * stream) unharmed, and a new stream can trace it.
 */
TEST(child_outlives_the_analyzer_that_traced_it)
{
	struct { char c; pid_t pid; } hello = { 0, 0 };
	int up[2], down[2], stop[2], status, n = 0;
	trace_event_id_t id;
	trace_id_t trid;
	pid_t analyzer;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	/* The orphan comes to us, not to init, so that we can reap it. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	ASSERT_EQ(0, pipe(stop));
	analyzer = fork();
	ASSERT_LE(0, analyzer);
	if (!analyzer) {
		pid_t c;

		/* Hold only what it reads: our death must end its waits. */
		close(up[0]);
		close(down[1]);
		if (create_running(POSIX_TRACE_INHERITED, &trid))
			_exit(1);
		c = fork();
		if (c < 0)
			_exit(2);
		if (!c) {
			struct pollfd pfd = { .fd = stop[0], .events = POLLIN };
			trace_event_id_t e;
			uint64_t i;

			close(stop[1]);
			if (posix_trace_eventid_open("tri.orphan", &e))
				_exit(3);
			hello.c = 'c';
			hello.pid = getpid();
			put(up[1], &hello, sizeof(hello));
			/*
			 * Records until told to stop (or until we are gone),
			 * long after the analyzer.
			 */
			for (i = 0;; i++) {
				posix_trace_event(e, &i, sizeof(i));
				if (!(i % 1000) && poll(&pfd, 1, 0) == 1)
					break;
			}
			_exit(0);
		}
		close(stop[1]);
		wait_byte(down[0]);
		_exit(0);	/* no shutdown: exit does it */
	}
	close(stop[0]);
	ASSERT_TRUE(get(up[0], &hello, sizeof(hello)));
	ASSERT_EQ('c', hello.c);
	put_byte(down[1], 'x');
	ASSERT_EQ(analyzer, waitpid(analyzer, &status, 0));
	ASSERT_EQ(0, status);
	/* The orphan still runs: trace it again, now from here. */
	ASSERT_EQ(0, posix_trace_create(hello.pid, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	usleep(100000);
	put_byte(stop[1], 'y');
	ASSERT_EQ(hello.pid, waitpid(hello.pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "tri.orphan", &id));
	/* It recorded plenty (the stream may well have looped). */
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id != id)
			continue;
		ASSERT_EQ(hello.pid, r.info.posix_pid);
		n++;
	}
	ASSERT_LT(0, n);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A traced child exits; a process that is not of the family gets the same
 * pid number: the stream does not trace it.
 */
TEST(pid_reuse_after_exit_never_joins_the_stream)
{
	int req[2], rep[2], status;
	pid_t helper, traced, reused = 0;
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	FILE *f;

	SKIP_WITHOUT_DEVICE();
	if (access("/proc/sys/kernel/ns_last_pid", W_OK))
		SKIP(return, "cannot choose the next pid");
	ASSERT_EQ(0, pipe(req));
	ASSERT_EQ(0, pipe(rep));
	/* Forked before the stream exists: not of the traced family. */
	helper = fork();
	ASSERT_LE(0, helper);
	if (!helper) {
		pid_t want, z;

		if (!get(req[0], &want, sizeof(want)))
			_exit(1);
		f = fopen("/proc/sys/kernel/ns_last_pid", "w");
		if (!f || fprintf(f, "%d", want - 1) < 0 || fclose(f))
			_exit(2);
		z = fork();
		if (!z) {
			trace_event_id_t e;

			if (!posix_trace_eventid_open("tri.reuse", &e))
				posix_trace_event(e, NULL, 0);
			_exit(0);
		}
		put(rep[1], &z, sizeof(z));
		waitpid(z, NULL, 0);
		_exit(0);
	}
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	traced = fork();
	ASSERT_LE(0, traced);
	if (!traced) {
		trace_event_id_t e;

		if (!posix_trace_eventid_open("tri.reuse", &e))
			posix_trace_event(e, NULL, 0);
		_exit(0);
	}
	ASSERT_EQ(traced, waitpid(traced, &status, 0));
	put(req[1], &traced, sizeof(traced));
	ASSERT_TRUE(get(rep[0], &reused, sizeof(reused)));
	ASSERT_EQ(helper, waitpid(helper, &status, 0));
	ASSERT_EQ(0, status);
	if (reused != traced)
		SKIP(goto out, "pid %d was not reused (got %d)", traced, reused);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_eventid_open("tri.reuse", &id));
	/* One tri.reuse event: the traced child's, none from the newcomer. */
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(traced, r.info.posix_pid);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_STOP);
	ASSERT_EMPTY(trid, &r);
out:
	posix_trace_shutdown(trid);
}

static volatile bool racing;

static void *fork_loop(void *arg)
{
	trace_event_id_t id = *(trace_event_id_t *)arg;
	pid_t c;

	while (racing) {
		c = fork();
		if (!c) {
			posix_trace_event(id, NULL, 0);
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
	}
	return NULL;
}

/*
 * Forks racing with shutdown, many times over: no child is left linked to
 * a stream that is gone (the debug kernel watches for the rest).
 */
TEST(forks_racing_with_shutdown)
{
	trace_event_id_t id;
	trace_id_t trid;
	pthread_t th;
	int round;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("tri.race", &id));
	for (round = 0; round < 20; round++) {
		ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
		racing = true;
		ASSERT_EQ(0, pthread_create(&th, NULL, fork_loop, &id));
		usleep(2000 + round * 500);
		ASSERT_EQ(0, posix_trace_shutdown(trid));
		racing = false;
		ASSERT_EQ(0, pthread_join(th, NULL));
	}
}

#define STORM_THREADS	8
#define STORM_FORKS	40

/* Forks STORM_FORKS children at once with the others; each records once. */
static void *fork_storm(void *arg)
{
	trace_event_id_t id = *(trace_event_id_t *)arg;
	pid_t kids[STORM_FORKS];
	int i, bad = 0;

	for (i = 0; i < STORM_FORKS; i++) {
		kids[i] = fork();
		if (!kids[i]) {
			posix_trace_event(id, NULL, 0);
			_exit(0);
		}
	}
	for (i = 0; i < STORM_FORKS; i++)
		if (kids[i] < 0 || waitpid(kids[i], NULL, 0) != kids[i])
			bad++;
	return (void *)(long)bad;
}

/*
 * Threads forking all at once: every child is traced from its first
 * instruction, or the stream says it escaped (POSIX_TRACE_ERROR): the
 * children's events and the errors add up to the children, exactly.
 */
TEST(concurrent_forks_are_each_followed_or_reported)
{
	int recorded = 0, escaped = 0, other = 0, i;
	pthread_t th[STORM_THREADS];
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	void *bad;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("tri.storm", &id));
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	for (i = 0; i < STORM_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, fork_storm, &id));
	for (i = 0; i < STORM_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(th[i], &bad));
		ASSERT_EQ(NULL, bad);
	}
	ASSERT_EQ(0, posix_trace_stop(trid));
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id == id)
			recorded++;
		else if (r.info.posix_event_id == POSIX_TRACE_ERROR)
			escaped++;
		else if (r.info.posix_event_id != POSIX_TRACE_START &&
			 r.info.posix_event_id != POSIX_TRACE_STOP)
			other++;
	}
	TH_LOG("%d children traced, %d escaped", recorded, escaped);
	EXPECT_EQ(STORM_THREADS * STORM_FORKS, recorded + escaped);
	EXPECT_EQ(0, other);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A parent that forks and exits at once, before its child first runs
 * (the parent runs SCHED_FIFO on one CPU, the child is reset to
 * SCHED_OTHER on it): the child is still traced, as its parent was at the
 * fork, though the parent's entry may be gone before the child runs.
 */
TEST(child_of_a_parent_that_exits_at_once_is_traced)
{
	struct sched_param fifo = { .sched_priority = 10 };
	trace_event_id_t id;
	pid_t parent, child;
	trace_id_t trid;
	int p[2], status, found = 0;
	cpu_set_t one;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("tri.orphan", &id));
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	ASSERT_EQ(0, pipe(p));
	parent = fork();
	ASSERT_LE(0, parent);
	if (!parent) {
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (sched_setaffinity(0, sizeof(one), &one) ||
		    sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK,
				       &fifo))
			_exit(2);
		child = fork();
		if (!child) {
			/* Runs once its parent is dead: says who it is. */
			pid_t me = getpid();

			while (getppid() == parent)
				usleep(1000);
			posix_trace_event(id, &me, sizeof(me));
			put(p[1], &me, sizeof(me));
			_exit(0);
		}
		_exit(child > 0 ? 0 : 3);
	}
	close(p[1]);
	ASSERT_EQ(parent, waitpid(parent, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2)
		SKIP(return, "no SCHED_FIFO here");
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_TRUE(get(p[0], &child, sizeof(child)));
	close(p[0]);
	ASSERT_EQ(0, posix_trace_stop(trid));
	while (!try_next(trid, &r) && !r.unavailable)
		if (r.info.posix_event_id == id &&
		    r.info.posix_pid == child && r.len == sizeof(child) &&
		    !memcmp(r.data, &child, sizeof(child)))
			found++;
	EXPECT_EQ(1, found);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A traced process forks, and creates a stream on its child before the
 * child first runs (the parent SCHED_FIFO on one CPU, the child reset to
 * SCHED_OTHER there): the child keeps its family's names and its
 * inherited stream, and the new stream sees its events too.
 */
TEST(stream_on_a_child_before_it_runs_keeps_its_inheritance)
{
	struct sched_param fifo = { .sched_priority = 10 };
	int status, events = 0, errors = 0;
	trace_event_id_t id;
	trace_id_t trid;
	pid_t parent;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("tri.early", &id));
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	parent = fork();
	ASSERT_LE(0, parent);
	if (!parent) {
		int p[2], seen = 0;
		trace_id_t mine;
		cpu_set_t one;
		pid_t child;
		char c = 1;

		CPU_ZERO(&one);
		CPU_SET(0, &one);
		if (pipe(p) || sched_setaffinity(0, sizeof(one), &one) ||
		    sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK,
				       &fifo))
			_exit(2);
		child = fork();
		if (!child) {
			if (read(p[0], &c, 1) != 1)
				_exit(5);
			posix_trace_event(id, NULL, 0);
			_exit(0);
		}
		if (child < 0 || posix_trace_create(child, NULL, &mine) ||
		    posix_trace_start(mine))
			_exit(3);
		if (write(p[1], &c, 1) != 1 ||
		    waitpid(child, &status, 0) != child || status)
			_exit(4);
		if (posix_trace_stop(mine))
			_exit(6);
		while (!try_next(mine, &r) && !r.unavailable)
			seen += r.info.posix_event_id == id;
		_exit(seen == 1 ? 0 : 7);
	}
	ASSERT_EQ(parent, waitpid(parent, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2)
		SKIP(return, "no SCHED_FIFO here");
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, posix_trace_stop(trid));
	while (!try_next(trid, &r) && !r.unavailable) {
		events += r.info.posix_event_id == id;
		errors += r.info.posix_event_id == POSIX_TRACE_ERROR;
	}
	EXPECT_EQ(1, events);
	EXPECT_EQ(0, errors);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

#define TICKETS_PARAM	PARAM_DIR "fork_tickets"
#define TICKETLESS	200

/*
 * With no fork tickets kept (fork_tickets 0), children forked once the
 * pool is used up are not followed, and each is reported: the stream
 * records POSIX_TRACE_ERROR with ENOMEM for it, so that the children's
 * events and the errors add up to the children, exactly. A stream of the
 * parent that does not trace its children (CLOSE_FOR_CHILD) lost none of
 * theirs: it records no ERROR.
 */
TEST(children_without_a_ticket_are_reported_as_escapes)
{
	int saved, recorded = 0, escaped = 0, other = 0, i, tries;
	trace_event_id_t id;
	trace_id_t trid, own;
	struct rec r;
	int err;
	pid_t c;

	SKIP_WITHOUT_DEVICE();
	if (!param_read(TICKETS_PARAM, &saved))
		SKIP(return, "no fork_tickets parameter");
	ASSERT_EQ(0, posix_trace_eventid_open("tri.ticketless", &id));
	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &trid));
	ASSERT_EQ(0, create_running(POSIX_TRACE_CLOSE_FOR_CHILD, &own));
	ASSERT_TRUE(param_write(TICKETS_PARAM, 0));
	for (i = 0; i < TICKETLESS; i++) {
		c = fork();
		if (!c) {
			posix_trace_event(id, NULL, 0);
			_exit(0);
		}
		if (c < 0 || waitpid(c, NULL, 0) != c)
			break;
	}
	EXPECT_TRUE(param_write(TICKETS_PARAM, saved));
	ASSERT_EQ(TICKETLESS, i);
	/* A worker reports the escapes: read until all are in, or 5 s. */
	for (tries = 0; tries < 500 && recorded + escaped < TICKETLESS;
	     tries++) {
		while (!try_next(trid, &r) && !r.unavailable) {
			if (r.info.posix_event_id == id) {
				recorded++;
			} else if (r.info.posix_event_id == POSIX_TRACE_ERROR) {
				memcpy(&err, r.data, sizeof(err));
				EXPECT_EQ(ENOMEM, err);
				escaped++;
			} else if (r.info.posix_event_id != POSIX_TRACE_START) {
				other++;
			}
		}
		usleep(10000);
	}
	TH_LOG("%d children traced, %d escaped", recorded, escaped);
	EXPECT_EQ(TICKETLESS, recorded + escaped);
	/* The pool keeps at most 2 x 64 free: the rest escaped. */
	EXPECT_LE(TICKETLESS - 2 * saved, escaped);
	EXPECT_EQ(0, other);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	/* The parent's own stream: its START, and nothing of the children. */
	ASSERT_EQ(0, posix_trace_stop(own));
	ASSERT_NEXT(own, &r, POSIX_TRACE_START);
	ASSERT_NEXT(own, &r, POSIX_TRACE_STOP);
	ASSERT_EMPTY(own, &r);
	ASSERT_EQ(0, posix_trace_shutdown(own));
}

TEST(inheritance_defaults_to_close_for_child)
{
	trace_attr_t attr;
	int inherit = -1;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_getinherited(&attr, &inherit));
	ASSERT_EQ(POSIX_TRACE_CLOSE_FOR_CHILD, inherit);
	ASSERT_EQ(EINVAL, posix_trace_attr_setinherited(&attr, 12345));
}

TEST_HARNESS_MAIN
