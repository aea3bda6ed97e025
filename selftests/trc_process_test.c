// SPDX-License-Identifier: GPL-2.0
/*
 * Trace streams and processes (POSIX Trace option, TRC): an analyzer
 * tracing a forked child; the right to trace another process ([EPERM]),
 * a process that does not exist ([ESRCH]); {TRACE_SYS_MAX} ([EAGAIN]); a
 * trid used in a child ([EINVAL]); and streams shut down when their
 * creator exits or execs, even while another process holds their file
 * descriptors.
 *
 * Processes synchronise through pipes. Forked children never use the
 * harness's ASSERTs: they report results through a pipe or exit status.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "trc_common.h"


/* Small streams, so that {TRACE_SYS_MAX} of them are cheap. */
static void small_attr(trace_attr_t *attr)
{
	posix_trace_attr_init(attr);
	posix_trace_attr_setstreamsize(attr, 4096);
	posix_trace_attr_setmaxdatasize(attr, 16);
}

/* Create n streams tracing pid; 0, or the first error (others kept). */
static int create_n(pid_t pid, trace_id_t *trids, int n, int *created)
{
	trace_attr_t attr;
	int ret = 0;

	small_attr(&attr);
	for (*created = 0; *created < n; (*created)++) {
		ret = posix_trace_create(pid, &attr, &trids[*created]);
		if (ret)
			break;
	}
	posix_trace_attr_destroy(&attr);
	return ret;
}

static void shutdown_all(trace_id_t *trids, int n)
{
	while (n--)
		posix_trace_shutdown(trids[n]);
}

/*
 * The error number of posix_trace_create() for pid, default attributes;
 * a stream it creates all the same is shut down at once.
 */
static int create_error(pid_t pid)
{
	trace_id_t trid;
	int ret;

	ret = posix_trace_create(pid, NULL, &trid);
	if (!ret)
		posix_trace_shutdown(trid);
	return ret;
}

/*
 * A fork that runs no pthread_atfork handlers (_Fork(), POSIX.1-2024):
 * the library cannot forget its streams in such a child, which keeps its
 * copies of their descriptors too.
 */
static pid_t fork_without_atfork(void)
{
	return _Fork();
}

/*
 * The program image a creator execs into (this binary again): it says it
 * runs by writing to TRC_EXEC_READY_FD, waits on TRC_EXEC_WAIT_FD, exits.
 */
static void __attribute__((constructor)) exec_helper(void)
{
	const char *ready = getenv("TRC_EXEC_READY_FD");
	const char *wait = getenv("TRC_EXEC_WAIT_FD");

	if (!ready || !wait)
		return;
	put_byte(atoi(ready), 'e');
	wait_byte(atoi(wait));
	_exit(0);
}

/* ---- an analyzer and a traced child --------------------------------- */

struct child_report {
	pid_t pid;
	pthread_t thread;
	trace_event_id_t id;
	trace_event_id_t id2;
};

struct traced_child {
	pid_t pid;
	int to_child;	/* write end */
	int from_child;	/* read end */
};

typedef void (*child_fn)(int from_parent, int to_parent);

/* Fork a child that runs fn with its ends of two pipes, then exits. */
static bool spawn(struct traced_child *c, child_fn fn)
{
	int down[2], up[2];

	if (pipe(down) || pipe(up))
		return false;
	c->pid = fork();
	if (c->pid < 0)
		return false;
	if (c->pid == 0) {
		close(down[1]);
		close(up[0]);
		fn(down[0], up[1]);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	c->to_child = down[1];
	c->from_child = up[0];
	return true;
}

/* Tell the child to finish; its exit status, or -1. */
static int finish(struct traced_child *c)
{
	int status;

	close(c->to_child);
	close(c->from_child);
	if (waitpid(c->pid, &status, 0) != c->pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * In a child: open event type name into rep->id (exit 2 on failure),
 * record three events of it with data 0, 1, 2, and send rep up.
 */
static void emit_three_and_report(const char *name, struct child_report *rep,
				  int to_parent)
{
	uint32_t i;

	if (posix_trace_eventid_open(name, &rep->id))
		_exit(2);
	for (i = 0; i < 3; i++)
		posix_trace_event(rep->id, &i, sizeof(i));
	put(to_parent, rep, sizeof(*rep));
}

/* On 'g': name an event type, record three events, report, wait. */
static void child_emits_three(int from_parent, int to_parent)
{
	struct child_report rep = { .pid = getpid(), .thread = pthread_self() };

	wait_byte(from_parent);
	emit_three_and_report("child_event", &rep, to_parent);
	wait_byte(from_parent);
}

TEST(analyzer_reads_events_of_forked_child)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct child_report rep;
	struct traced_child c;
	trace_event_id_t mine;
	trace_id_t trid;
	struct rec r;
	uint32_t i, got;

	SKIP_WITHOUT_DEVICE();
	ASSERT_TRUE(spawn(&c, child_emits_three));
	ASSERT_EQ(0, posix_trace_create(c.pid, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	/* The analyzer's own events do not go to the child's stream. */
	ASSERT_EQ(0, posix_trace_eventid_open("analyzer_event", &mine));
	posix_trace_event(mine, "own", 3);
	ASSERT_TRUE(put_byte(c.to_child, 'g'));
	ASSERT_TRUE(get(c.from_child, &rep, sizeof(rep)));
	ASSERT_EQ(c.pid, rep.pid);

	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	for (i = 0; i < 3; i++) {
		ASSERT_NEXT(trid, &r, rep.id);
		ASSERT_EQ(c.pid, r.info.posix_pid);
		ASSERT_TRUE(pthread_equal(rep.thread, r.info.posix_thread_id));
		ASSERT_NE(NULL, r.info.posix_prog_address);
		ASSERT_EQ(sizeof(got), r.len);
		memcpy(&got, r.data, sizeof(got));
		ASSERT_EQ(i, got);
	}
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid, rep.id, name));
	ASSERT_STREQ("child_event", name);
	ASSERT_EQ(0, finish(&c));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* On 'g': open "shared" and "c_only", record "shared", report, wait. */
static void child_opens_shared(int from_parent, int to_parent)
{
	struct child_report rep = { .pid = getpid() };

	wait_byte(from_parent);
	if (posix_trace_eventid_open("shared", &rep.id) ||
	    posix_trace_eventid_open("c_only", &rep.id2))
		_exit(2);
	posix_trace_event(rep.id, NULL, 0);
	put(to_parent, &rep, sizeof(rep));
	wait_byte(from_parent);
}

/* trid_eventid_open maps a name for the traced process, not the caller. */
TEST(trid_eventid_open_maps_name_for_traced_child)
{
	struct child_report rep;
	struct traced_child c;
	trace_event_id_t ctl;
	trace_id_t trid;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_TRUE(spawn(&c, child_opens_shared));
	ASSERT_EQ(0, posix_trace_create(c.pid, NULL, &trid));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "shared", &ctl));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_TRUE(put_byte(c.to_child, 'g'));
	ASSERT_TRUE(get(c.from_child, &rep, sizeof(rep)));
	ASSERT_EQ(ctl, rep.id);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(trid, &r, ctl);
	ASSERT_EQ(c.pid, r.info.posix_pid);
	ASSERT_EQ(0, finish(&c));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* The list holds the traced process's user event types, not the caller's. */
TEST(eventtypelist_lists_user_types_of_traced_child_only)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id, mine;
	struct child_report rep;
	struct traced_child c;
	bool shared = false, c_only = false;
	int unavailable, n = 0;
	trace_id_t trid;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("parent_only", &mine));
	ASSERT_TRUE(spawn(&c, child_opens_shared));
	ASSERT_EQ(0, posix_trace_create(c.pid, NULL, &trid));
	ASSERT_TRUE(put_byte(c.to_child, 'g'));
	ASSERT_TRUE(get(c.from_child, &rep, sizeof(rep)));
	for (;;) {
		ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(trid, &id,
								  &unavailable));
		if (unavailable)
			break;
		ASSERT_GT(100, ++n);
		ASSERT_EQ(0, posix_trace_eventid_get_name(trid, id, name));
		ASSERT_STRNE("parent_only", name);
		if (id == rep.id) {
			ASSERT_STREQ("shared", name);
			shared = true;
		}
		if (id == rep.id2) {
			ASSERT_STREQ("c_only", name);
			c_only = true;
		}
	}
	ASSERT_TRUE(shared);
	ASSERT_TRUE(c_only);
	/* 8 system event types, the unnamed one, the child's two. */
	ASSERT_EQ(11, n);
	ASSERT_EQ(0, finish(&c));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* On 'g': record one event; then report. */
static void child_emits_one(int from_parent, int to_parent)
{
	struct child_report rep = { .pid = getpid() };

	if (posix_trace_eventid_open("wake_up", &rep.id))
		_exit(2);
	put(to_parent, &rep, sizeof(rep));
	wait_byte(from_parent);
	posix_trace_event(rep.id, "wake", 4);
	wait_byte(from_parent);
}

struct blocked_read {
	trace_id_t trid;
	pid_t tid;
	int ret;
	struct rec r;
};

static void *blocked_reader(void *arg)
{
	struct blocked_read *b = arg;

	__atomic_store_n(&b->tid, gettid(), __ATOMIC_RELEASE);
	memset(&b->r, 0, sizeof(b->r));
	b->ret = posix_trace_getnext_event(b->trid, &b->r.info, b->r.data,
					   sizeof(b->r.data), &b->r.len,
					   &b->r.unavailable);
	return NULL;
}

/* Whether thread tid of this process sleeps (state S), within 10 s. */
static bool sleeps(pid_t tid)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (thread_state(tid) == 'S')
			return true;
		usleep(1000);
	}
	return false;
}

/* The analyzer blocks in getnext; an event of the traced child wakes it. */
TEST(analyzer_blocked_in_getnext_woken_by_traced_child_event)
{
	struct blocked_read b = { 0 };
	struct child_report rep;
	struct traced_child c;
	pthread_t thr;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_TRUE(spawn(&c, child_emits_one));
	ASSERT_TRUE(get(c.from_child, &rep, sizeof(rep)));
	ASSERT_EQ(0, posix_trace_create(c.pid, NULL, &b.trid));
	ASSERT_EQ(0, posix_trace_start(b.trid));
	ASSERT_NEXT(b.trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(0, pthread_create(&thr, NULL, blocked_reader, &b));
	while (!__atomic_load_n(&b.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	ASSERT_TRUE(sleeps(b.tid));
	ASSERT_TRUE(put_byte(c.to_child, 'g'));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, b.ret);
	ASSERT_EQ(0, b.r.unavailable);
	ASSERT_EQ(rep.id, b.r.info.posix_event_id);
	ASSERT_EQ(c.pid, b.r.info.posix_pid);
	ASSERT_EQ(0, memcmp("wake", b.r.data, 4));
	ASSERT_EQ(0, finish(&c));
	ASSERT_EQ(0, posix_trace_shutdown(b.trid));
}

/* Waits until told to finish. */
static void child_opens_nothing(int from_parent, int to_parent)
{
	wait_byte(from_parent);
}

/* START and STOP in a stream for another process name the controller. */
TEST(start_and_stop_for_traced_child_carry_controller_pid)
{
	struct traced_child c;
	trace_id_t trid;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_TRUE(spawn(&c, child_opens_nothing));
	ASSERT_EQ(0, posix_trace_create(c.pid, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_STOP);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_EQ(0, finish(&c));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* get_name: [EINVAL] for an id "not associated with any name" in the
 * stream: the caller's own event type, which the traced child lacks. */
TEST(eventid_get_name_of_caller_id_unknown_to_traced_child_is_einval)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct traced_child c;
	trace_event_id_t mine;
	trace_id_t trid;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("callers_own", &mine));
	ASSERT_TRUE(spawn(&c, child_opens_nothing));
	ASSERT_EQ(0, posix_trace_create(c.pid, NULL, &trid));
	ASSERT_EQ(EINVAL, posix_trace_eventid_get_name(trid, mine, name));
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid, POSIX_TRACE_START, name));
	ASSERT_EQ(0, finish(&c));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* On 'g': record three events and exit at once. */
static void child_emits_and_exits(int from_parent, int to_parent)
{
	struct child_report rep = { .pid = getpid() };

	wait_byte(from_parent);
	emit_three_and_report("last_words", &rep, to_parent);
}

/* The stream outlives the traced process; its events stay readable. */
TEST(stream_readable_after_traced_child_exits)
{
	struct posix_trace_status_info st;
	struct child_report rep;
	struct traced_child c;
	trace_id_t trid;
	struct rec r;
	int i;

	SKIP_WITHOUT_DEVICE();
	ASSERT_TRUE(spawn(&c, child_emits_and_exits));
	ASSERT_EQ(0, posix_trace_create(c.pid, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_TRUE(put_byte(c.to_child, 'g'));
	ASSERT_TRUE(get(c.from_child, &rep, sizeof(rep)));
	ASSERT_EQ(0, finish(&c));

	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	for (i = 0; i < 3; i++) {
		ASSERT_NEXT(trid, &r, rep.id);
		ASSERT_EQ(c.pid, r.info.posix_pid);
	}
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* Inheritance defaults to POSIX_TRACE_CLOSE_FOR_CHILD: "the child shall
 * not be traced, and tracing of the parent shall continue." */
TEST(forked_child_of_traced_process_is_not_traced)
{
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	pid_t pid;
	int status;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("parent_event", &id));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		trace_event_id_t own;

		posix_trace_event(id, "child", 5);
		if (posix_trace_eventid_open("child_event", &own))
			_exit(2);
		posix_trace_event(own, "child", 5);
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, "child", 5);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EMPTY(trid, &r);
	posix_trace_event(id, "parent", 6);
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* ---- who may be traced ----------------------------------------------- */

/* [ESRCH] "The pid argument does not refer to an existing process." */
TEST(create_for_exited_and_reaped_pid_is_esrch)
{
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	ASSERT_EQ(ESRCH, create_error(pid));
}

/* No process has a negative pid, nor INT_MAX (above pid_max). */
TEST(create_for_negative_or_huge_pid_is_esrch)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(ESRCH, create_error(-1));
	ASSERT_EQ(ESRCH, create_error(0x7fffffff));
}

struct live_thread {
	pid_t tid;
	int fd;		/* read end: the thread exits at end of file */
};

static void *parked_thread(void *arg)
{
	struct live_thread *t = arg;

	__atomic_store_n(&t->tid, gettid(), __ATOMIC_RELEASE);
	wait_byte(t->fd);
	return NULL;
}

/* A thread id that is not a process id names no process to trace. */
TEST(create_for_live_thread_id_is_esrch)
{
	struct live_thread t = { 0 };
	int fds[2], ret, i;
	pthread_t thr;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, pipe(fds));
	t.fd = fds[0];
	ASSERT_EQ(0, pthread_create(&thr, NULL, parked_thread, &t));
	for (i = 0; i < 10000 && !__atomic_load_n(&t.tid, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	ASSERT_NE(0, t.tid);
	ASSERT_NE(getpid(), t.tid);
	ret = create_error(t.tid);
	close(fds[1]);
	ASSERT_EQ(0, pthread_join(thr, NULL));
	close(fds[0]);
	ASSERT_EQ(ESRCH, ret);
}

/* Results of an unprivileged child, sent up a pipe. */
struct unpriv_report {
	int setuid;
	int trace_parent;
	int trace_init;
	int trace_self;
	int trace_own_child;
	int trace_dumpable;	/* raw create with the child's mem fd */
	int trace_undumpable;	/* the same, once it is not dumpable */
};

/*
 * Run fn in a child switched to user and group nobody (65534); fn fills
 * in rep, which comes back up a pipe. The switch itself must work.
 */
static void run_unprivileged(struct __test_metadata *_metadata,
			     void (*fn)(struct unpriv_report *rep),
			     struct unpriv_report *rep)
{
	int fds[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		memset(rep, 0, sizeof(*rep));
		close(fds[0]);
		rep->setuid = setgid(65534) || setuid(65534) ? errno : 0;
		fn(rep);
		put(fds[1], rep, sizeof(*rep));
		_exit(0);
	}
	close(fds[1]);
	ASSERT_TRUE(get(fds[0], rep, sizeof(*rep)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(fds[0]);
	ASSERT_EQ(0, rep->setuid);
}

/* Unprivileged: try to trace the parent (root) and init. */
static void trace_root_processes(struct unpriv_report *rep)
{
	trace_id_t trid;

	rep->trace_parent = posix_trace_create(getppid(), NULL, &trid);
	rep->trace_init = posix_trace_create(1, NULL, &trid);
}

/*
 * [EPERM] "The caller does not have appropriate privilege to trace the
 * process specified by pid": here, a process of another user (root),
 * which the caller could not ptrace-attach to either.
 */
TEST(create_for_root_process_as_unprivileged_user_is_eperm)
{
	struct unpriv_report rep;

	SKIP_WITHOUT_DEVICE();
	if (getuid() != 0)
		SKIP(return, "needs root to switch to an unprivileged user");
	run_unprivileged(_metadata, trace_root_processes, &rep);
	ASSERT_EQ(EPERM, rep.trace_parent);
	ASSERT_EQ(EPERM, rep.trace_init);
}

/* Unprivileged: trace itself, then a child of its own. */
static void trace_own_processes(struct unpriv_report *rep)
{
	int hold[2];
	trace_id_t trid;
	pid_t grandchild;

	/* Changing uid made us non-dumpable; a user's own process is. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	rep->trace_self = posix_trace_create(0, NULL, &trid);
	if (pipe(hold))
		_exit(3);
	grandchild = fork();
	if (grandchild == 0) {
		close(hold[1]);
		wait_byte(hold[0]);
		_exit(0);
	}
	rep->trace_own_child = grandchild < 0 ? errno :
		posix_trace_create(grandchild, NULL, &trid);
	close(hold[1]);
	waitpid(grandchild, NULL, 0);
}

/* The same user may trace itself and its own (dumpable) processes. */
TEST(unprivileged_user_may_trace_self_and_own_process)
{
	struct unpriv_report rep;

	SKIP_WITHOUT_DEVICE();
	if (getuid() != 0)
		SKIP(return, "needs root to switch to an unprivileged user");
	run_unprivileged(_metadata, trace_own_processes, &rep);
	ASSERT_EQ(0, rep.trace_self);
	ASSERT_EQ(0, rep.trace_own_child);
}

/*
 * POSIXTRACE_IOC_CREATE for pid with mem_fd as the proof, default
 * attributes: 0 (the stream closed at once) or the errno.
 */
static int raw_create_with_mem(pid_t pid, int mem_fd)
{
	struct posixtrace_attr ua = {
		.size = sizeof(ua),
		.stream_size = 65536,
		.max_data_size = 16,
		.stream_full_policy = POSIXTRACE_LOOP,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};
	struct posixtrace_create req = {
		.size = sizeof(req), .flags = POSIXTRACE_CREATE_MEM_FD,
		.pid = pid, .log_fd = -1, .attr = (uintptr_t)&ua,
		.mem_fd = mem_fd,
	};
	int dev = open(DEVICE, O_RDWR | O_CLOEXEC), fd, err = 0;

	if (dev < 0)
		return errno;
	fd = ioctl(dev, POSIXTRACE_IOC_CREATE, &req);
	if (fd < 0)
		err = errno;
	else
		close(fd);
	close(dev);
	return err;
}

/* A child that turns not dumpable on its first byte, then waits. */
static void child_turns_undumpable(int from_parent, int to_parent)
{
	wait_byte(from_parent);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	put_byte(to_parent, 'u');
	wait_byte(from_parent);
}

/*
 * Unprivileged: open an own child's /proc/pid/mem (allowed: same user,
 * dumpable) and create with it; then, the child no longer dumpable, the
 * same proof is refused, as ptrace would refuse to attach.
 */
static void trace_own_undumpable(struct unpriv_report *rep)
{
	struct traced_child c;
	char path[32];
	int mem;

	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (!spawn(&c, child_turns_undumpable))
		_exit(3);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)c.pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	rep->trace_dumpable = mem < 0 ? -errno : raw_create_with_mem(c.pid, mem);
	put_byte(c.to_child, 'u');
	wait_byte(c.from_child);
	rep->trace_undumpable = mem < 0 ? -1 : raw_create_with_mem(c.pid, mem);
	finish(&c);
	if (mem >= 0)
		close(mem);
}

/*
 * The module repeats ptrace's dumpability rule (posixtrace.rst,
 * "Permissions and limits"): a proof opened while the child was
 * dumpable is no longer enough once it is not ([EPERM]).
 */
TEST(unprivileged_user_may_not_trace_own_undumpable_process)
{
	struct unpriv_report rep;

	SKIP_WITHOUT_DEVICE();
	if (getuid() != 0)
		SKIP(return, "needs root to switch to an unprivileged user");
	run_unprivileged(_metadata, trace_own_undumpable, &rep);
	ASSERT_EQ(0, rep.trace_dumpable);
	ASSERT_EQ(EPERM, rep.trace_undumpable);
}

/* A child that becomes user and group nobody, says so, then waits. */
static void child_becomes_nobody(int from_parent, int to_parent)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		_exit(2);
	put_byte(to_parent, 'n');
	wait_byte(from_parent);
}

/*
 * Root (CAP_SYS_PTRACE) may trace a process of another user, which
 * changing its uids also made not dumpable: ptrace could attach.
 */
TEST(root_may_trace_a_process_of_another_user)
{
	struct traced_child c;
	trace_id_t trid;
	char b;
	int ret;

	SKIP_WITHOUT_DEVICE();
	if (getuid() != 0)
		SKIP(return, "needs root");
	ASSERT_TRUE(spawn(&c, child_becomes_nobody));
	ASSERT_TRUE(get(c.from_child, &b, 1));
	ret = posix_trace_create(c.pid, NULL, &trid);
	if (!ret)
		posix_trace_shutdown(trid);
	ASSERT_EQ(0, finish(&c));
	ASSERT_EQ(0, ret);
}

/* ---- a trid in a child ---------------------------------------------- */

enum {
	F_START, F_STOP, F_CLEAR, F_GET_ATTR, F_GET_STATUS,
	F_TRID_EVENTID_OPEN, F_EVENTID_GET_NAME, F_TYPELIST_GETNEXT,
	F_TYPELIST_REWIND, F_TRYGETNEXT, F_TIMEDGETNEXT, F_GETNEXT,
	F_GET_FILTER, F_SET_FILTER, F_SHUTDOWN, F_COUNT
};

static const char *const f_names[F_COUNT] = {
	"start", "stop", "clear", "get_attr", "get_status",
	"trid_eventid_open", "eventid_get_name", "eventtypelist_getnext_id",
	"eventtypelist_rewind", "trygetnext_event", "timedgetnext_event",
	"getnext_event", "get_filter", "set_filter", "shutdown",
};

/*
 * Call every function taking a trid; the results go to fd. The stream
 * holds events, so a read that wrongly works does not block.
 */
static void use_trid(trace_id_t trid, int fd)
{
	struct posix_trace_status_info st;
	struct posix_trace_event_info info;
	char name[TRACE_EVENT_NAME_MAX + 1], data[16];
	struct timespec abstime;
	int res[F_COUNT], unavailable;
	trace_event_set_t set;
	trace_event_id_t id;
	trace_attr_t attr;
	size_t len;

	posix_trace_attr_init(&attr);
	posix_trace_eventset_fill(&set, POSIX_TRACE_ALL_EVENTS);
	clock_gettime(CLOCK_REALTIME, &abstime);
	abstime.tv_sec += 1;
	res[F_START] = posix_trace_start(trid);
	res[F_STOP] = posix_trace_stop(trid);
	res[F_CLEAR] = posix_trace_clear(trid);
	res[F_GET_ATTR] = posix_trace_get_attr(trid, &attr);
	res[F_GET_STATUS] = posix_trace_get_status(trid, &st);
	res[F_TRID_EVENTID_OPEN] = posix_trace_trid_eventid_open(trid, "c", &id);
	res[F_EVENTID_GET_NAME] = posix_trace_eventid_get_name(trid,
							POSIX_TRACE_START, name);
	res[F_TYPELIST_GETNEXT] = posix_trace_eventtypelist_getnext_id(trid,
							&id, &unavailable);
	res[F_TYPELIST_REWIND] = posix_trace_eventtypelist_rewind(trid);
	res[F_TRYGETNEXT] = posix_trace_trygetnext_event(trid, &info, data,
					sizeof(data), &len, &unavailable);
	res[F_TIMEDGETNEXT] = posix_trace_timedgetnext_event(trid, &info, data,
					sizeof(data), &len, &unavailable,
					&abstime);
	res[F_GETNEXT] = posix_trace_getnext_event(trid, &info, data,
					sizeof(data), &len, &unavailable);
	/* TEF: the filter of the parent's stream is not the child's either. */
	res[F_GET_FILTER] = posix_trace_get_filter(trid, &set);
	res[F_SET_FILTER] = posix_trace_set_filter(trid, &set,
						   POSIX_TRACE_SET_EVENTSET);
	res[F_SHUTDOWN] = posix_trace_shutdown(trid);
	put(fd, res, sizeof(res));
}

static void check_child_results(struct __test_metadata *_metadata,
				trace_id_t trid, trace_event_id_t id, int fd,
				pid_t pid)
{
	struct posix_trace_status_info st;
	int res[F_COUNT], status, i;
	trace_event_set_t set;
	struct rec r;

	ASSERT_TRUE(get(fd, res, sizeof(res)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	for (i = 0; i < F_COUNT; i++) {
		if (res[i] != EINVAL)
			TH_LOG("posix_trace_%s in the child: %d", f_names[i],
			       res[i]);
		EXPECT_EQ(EINVAL, res[i]);
	}
	/* The child changed nothing: still running, both events unread. */
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	ASSERT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	memset(&set, 0xff, sizeof(set));
	ASSERT_EQ(0, posix_trace_get_filter(trid, &set));
	ASSERT_EQ(0, memcmp(&(trace_event_set_t){ 0 }, &set, sizeof(set)));
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(0, memcmp("one", r.data, 3));
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(0, memcmp("two", r.data, 3));
	ASSERT_EMPTY(trid, &r);
}

/*
 * A running stream with START read and two events unread (which the
 * library may already hold in its own buffer), then a child made by
 * fork_fn calls every function with the trid.
 */
static void trid_in_child(struct __test_metadata *_metadata,
			  pid_t (*fork_fn)(void))
{
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	int fds[2];
	pid_t pid;

	ASSERT_EQ(0, posix_trace_eventid_open("before_fork", &id));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	posix_trace_event(id, "one", 3);
	posix_trace_event(id, "two", 3);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(0, pipe(fds));
	pid = fork_fn();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		use_trid(trid, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	check_child_results(_metadata, trid, id, fds[0], pid);
	close(fds[0]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* "If it is used from another process, that is a child process, ...
 * these functions shall return with the error [EINVAL]." */
TEST(trid_is_einval_in_forked_child)
{
	SKIP_WITHOUT_DEVICE();
	trid_in_child(_metadata, fork);
}

/* The same in a child made without the atfork handlers. */
TEST(trid_is_einval_in_child_forked_without_atfork_handlers)
{
	SKIP_WITHOUT_DEVICE();
	trid_in_child(_metadata, fork_without_atfork);
}

/* {TRACE_USER_EVENT_MAX} is per process: a child using all its names
 * takes none of its parent's. */
TEST(user_event_limit_is_per_process)
{
	trace_event_id_t id;
	int fds[2], res[2];
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char name[32];
		int i;

		res[0] = res[1] = 0;
		for (i = 0; i < TRACE_USER_EVENT_MAX && !res[0]; i++) {
			snprintf(name, sizeof(name), "c%d", i);
			res[0] = posix_trace_eventid_open(name, &id);
		}
		res[1] = posix_trace_eventid_open("past_limit", &id) ?:
			 id == POSIX_TRACE_UNNAMED_USEREVENT ? 0 : -1;
		put(fds[1], res, sizeof(res));
		_exit(0);
	}
	close(fds[1]);
	ASSERT_TRUE(get(fds[0], res, sizeof(res)));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	close(fds[0]);
	ASSERT_EQ(0, res[0]);
	ASSERT_EQ(0, res[1]);
	ASSERT_EQ(0, posix_trace_eventid_open("parent_name", &id));
	ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, id);
}

/* ---- {TRACE_SYS_MAX} ------------------------------------------------ */

/* [EAGAIN] "No more trace streams can be started now. {TRACE_SYS_MAX}
 * has been exceeded." */
TEST(create_beyond_trace_sys_max_is_eagain)
{
	int max = sys_max(), n, ret;
	trace_id_t *trids;
	struct traced_child c;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(64, TRACE_SYS_MAX);
	ASSERT_LE(8, max);
	ASSERT_GE(4096, max);
	trids = calloc(max, sizeof(*trids));
	ASSERT_NE(NULL, trids);
	ret = create_n(0, trids, max, &n);
	ASSERT_EQ(0, ret) {
		TH_LOG("stream %d of %d: error %d", n + 1, max, ret);
		shutdown_all(trids, n);
	}
	ret = create_error(0);
	ASSERT_EQ(EAGAIN, ret) {
		shutdown_all(trids, n);
	}
	/* Also for another process. */
	ASSERT_TRUE(spawn(&c, child_opens_nothing));
	ret = create_error(c.pid);
	finish(&c);
	ASSERT_EQ(EAGAIN, ret) {
		shutdown_all(trids, n);
	}
	/* Shutting one down frees its place. */
	ASSERT_EQ(0, posix_trace_shutdown(trids[--n]));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trids[n]));
	n++;
	ret = create_error(0);
	shutdown_all(trids, n);
	free(trids);
	ASSERT_EQ(EAGAIN, ret);
}

/*
 * A stream is a file descriptor: a creator with every descriptor below
 * its RLIMIT_NOFILE taken gets EMFILE (posix_trace_create(3)), and a
 * failed create holds no {TRACE_SYS_MAX} place: with max_streams at 1
 * (as root), a create still succeeds after the failures once a
 * descriptor is free.
 */
TEST(create_at_the_open_files_limit_is_emfile)
{
	int fds[256], n = 0, i, ret, fd, old_max = -1;
	struct rlimit old, lim;
	trace_id_t trid;

	SKIP_WITHOUT_DEVICE();
	/* The library's device descriptor first, and held from then on. */
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &old));
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	close(fd);
	lim = old;
	lim.rlim_cur = fd + 16;
	ASSERT_GE(old.rlim_cur, lim.rlim_cur);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &lim));
	/* From here on, everything is put back before any assertion. */
	if (!geteuid() && param_read(MAX_STREAMS_PARAM, &old_max) &&
	    !param_write(MAX_STREAMS_PARAM, 1))
		old_max = -1;
	while (n < (int)ARRAY_SIZE(fds) &&
	       (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	EXPECT_EQ(EMFILE, errno);
	/* Each failure would leak the only place, if it leaked one. */
	for (ret = EMFILE, i = 0; i < 3 && ret == EMFILE; i++)
		ret = posix_trace_create(0, NULL, &trid);
	if (!ret)
		posix_trace_shutdown(trid);
	if (n)
		close(fds[--n]);
	i = posix_trace_create(0, NULL, &trid);
	if (!i)
		posix_trace_shutdown(trid);
	while (n)
		close(fds[--n]);
	EXPECT_EQ(0, setrlimit(RLIMIT_NOFILE, &old));
	if (old_max > 0)
		EXPECT_TRUE(param_write(MAX_STREAMS_PARAM, old_max));
	ASSERT_EQ(EMFILE, ret);
	ASSERT_EQ(0, i);
}

/*
 * One user may hold max_streams_per_user streams (root is not limited):
 * beyond, EAGAIN, as for TRACE_SYS_MAX; a shutdown gives the place back.
 */
TEST(streams_beyond_the_per_user_limit_are_eagain)
{
	trace_id_t trids[4];
	int old = 32, status, n;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	if (geteuid() || !param_read(PER_USER_PARAM, &old))
		SKIP(return, "needs root and " PER_USER_PARAM);
	ASSERT_TRUE(param_write(PER_USER_PARAM, 2));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int r[5];

		if (setgid(65534) || setuid(65534))
			_exit(100);
		r[0] = posix_trace_create(0, NULL, &trids[0]);
		r[1] = posix_trace_create(0, NULL, &trids[1]);
		r[2] = posix_trace_create(0, NULL, &trids[2]);
		r[3] = posix_trace_shutdown(trids[1]);
		r[4] = posix_trace_create(0, NULL, &trids[1]);
		_exit(r[0] || r[1] || r[2] != EAGAIN || r[3] || r[4] ? 1 : 0);
	}
	/* Root, meanwhile, is not limited. */
	for (n = 0; n < 3; n++)
		if (posix_trace_create(0, NULL, &trids[n]))
			break;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	shutdown_all(trids, n);
	ASSERT_TRUE(param_write(PER_USER_PARAM, old));
	ASSERT_EQ(3, n);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST(shutdown_releases_trace_sys_max_places)
{
	int max = sys_max(), i, ret;
	trace_id_t trid;

	SKIP_WITHOUT_DEVICE();
	for (i = 0; i < 3 * max; i++) {
		ret = posix_trace_create(0, NULL, &trid);
		ASSERT_EQ(0, ret) {
			TH_LOG("create number %d", i + 1);
		}
		ASSERT_EQ(0, posix_trace_shutdown(trid));
	}
}

/* Create all {TRACE_SYS_MAX} streams now, then release them; 0 or error. */
static int can_create_all(int max)
{
	trace_id_t *trids = calloc(max, sizeof(*trids));
	int n, ret;

	if (!trids)
		return ENOMEM;
	ret = create_n(0, trids, max, &n);
	shutdown_all(trids, n);
	free(trids);
	return ret;
}

/* ---- streams die with their creator --------------------------------- */

/*
 * Process A creates {TRACE_SYS_MAX} streams tracing this process and
 * starts them; this process records events into them; A exits. A's
 * streams are shut down: their places are free, and this process's
 * events work as before.
 */
TEST(streams_shut_down_when_creator_exits)
{
	int max = sys_max(), up[2], down[2], status, ret;
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	pid_t a;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("to_a", &id));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	a = fork();
	ASSERT_LE(0, a);
	if (a == 0) {
		trace_id_t *trids = calloc(max, sizeof(*trids));
		int n, i;

		close(up[0]);
		close(down[1]);
		ret = trids ? create_n(getppid(), trids, max, &n) : ENOMEM;
		for (i = 0; !ret && i < n; i++)
			ret = posix_trace_start(trids[i]);
		put(up[1], &ret, sizeof(ret));
		wait_byte(down[0]);
		_exit(0);	/* no shutdown: exit does it */
	}
	close(up[1]);
	close(down[0]);
	ASSERT_TRUE(get(up[0], &ret, sizeof(ret)));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(EAGAIN, posix_trace_create(0, NULL, &trid));
	posix_trace_event(id, "to a", 4);
	close(down[1]);
	ASSERT_EQ(a, waitpid(a, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	close(up[0]);

	posix_trace_event(id, "nobody", 6);
	ASSERT_EQ(0, can_create_all(max));
	/* And this process is traced normally by a stream of its own. */
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	posix_trace_event(id, "mine", 4);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(0, memcmp("mine", r.data, 4));
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * The same while a child of A still holds the streams' descriptors:
 * POSIX shuts the streams down with their creator, not with the last
 * descriptor.
 */
TEST(streams_shut_down_when_creator_exits_while_child_holds_them)
{
	int max = sys_max(), up[2], hold[2], status, ret;
	pid_t a, holder;

	SKIP_WITHOUT_DEVICE();
	/* The holder outlives A: become its reaper. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(hold));
	a = fork();
	ASSERT_LE(0, a);
	if (a == 0) {
		trace_id_t *trids = calloc(max, sizeof(*trids));
		pid_t h;
		int n;

		close(up[0]);
		close(hold[1]);
		ret = trids ? create_n(0, trids, max, &n) : ENOMEM;
		h = ret ? -1 : fork_without_atfork();
		if (h == 0) {
			wait_byte(hold[0]);
			_exit(0);
		}
		if (h < 0 && !ret)
			ret = errno;
		put(up[1], &ret, sizeof(ret));
		put(up[1], &h, sizeof(h));
		_exit(0);
	}
	close(up[1]);
	close(hold[0]);
	ASSERT_TRUE(get(up[0], &ret, sizeof(ret)));
	ASSERT_TRUE(get(up[0], &holder, sizeof(holder)));
	ASSERT_EQ(a, waitpid(a, &status, 0));
	close(up[0]);
	ASSERT_EQ(0, ret);
	ASSERT_LT(0, holder);
	/* A is gone, the holder is alive: the places must be free. */
	ret = can_create_all(max);
	close(hold[1]);
	ASSERT_EQ(holder, waitpid(holder, &status, 0));
	ASSERT_EQ(0, ret);
}

/* exec into this binary, which then runs exec_helper(). */
static void exec_self(int ready_fd, int wait_fd)
{
	char *argv[] = { "trc_process_test", NULL };
	char num[16];

	snprintf(num, sizeof(num), "%d", ready_fd);
	setenv("TRC_EXEC_READY_FD", num, 1);
	snprintf(num, sizeof(num), "%d", wait_fd);
	setenv("TRC_EXEC_WAIT_FD", num, 1);
	execv("/proc/self/exe", argv);
}

/*
 * "If the process ... invokes a member of the exec family of functions,
 * ... the trace streams that the process had created ... shall be
 * automatically shut down"; with_holder: a child of A keeps the
 * descriptors across the exec.
 */
static void shut_down_at_exec(struct __test_metadata *_metadata,
			      bool with_holder)
{
	int max = sys_max(), up[2], down[2], hold[2], status, ret;
	pid_t a, holder = 0;
	char c = 0;

	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	ASSERT_EQ(0, pipe(hold));
	a = fork();
	ASSERT_LE(0, a);
	if (a == 0) {
		trace_id_t *trids = calloc(max, sizeof(*trids));
		pid_t h = 0;
		int n;

		close(up[0]);
		close(down[1]);
		close(hold[1]);
		ret = trids ? create_n(0, trids, max, &n) : ENOMEM;
		if (!ret && with_holder) {
			h = fork_without_atfork();
			if (h == 0) {
				close(up[1]);
				close(down[0]);
				wait_byte(hold[0]);
				_exit(0);
			}
			if (h < 0)
				ret = errno;
		}
		close(hold[0]);
		put(up[1], &ret, sizeof(ret));
		put(up[1], &h, sizeof(h));
		if (!ret)
			exec_self(up[1], down[0]);
		_exit(3);
	}
	close(up[1]);
	close(down[0]);
	close(hold[0]);
	ASSERT_TRUE(get(up[0], &ret, sizeof(ret)));
	ASSERT_TRUE(get(up[0], &holder, sizeof(holder)));
	ASSERT_EQ(0, ret);
	/* 'e' comes from the new program: the exec is complete. */
	ASSERT_TRUE(get(up[0], &c, 1));
	ASSERT_EQ('e', c);
	ret = can_create_all(max);
	close(down[1]);
	close(hold[1]);
	ASSERT_EQ(a, waitpid(a, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	if (holder > 0)
		ASSERT_EQ(holder, waitpid(holder, &status, 0));
	close(up[0]);
	ASSERT_EQ(0, ret);
}

TEST(streams_shut_down_when_creator_execs)
{
	SKIP_WITHOUT_DEVICE();
	shut_down_at_exec(_metadata, false);
}

TEST(streams_shut_down_when_creator_execs_while_child_holds_them)
{
	SKIP_WITHOUT_DEVICE();
	shut_down_at_exec(_metadata, true);
}

TEST_HARNESS_MAIN
