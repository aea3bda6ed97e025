// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events of the proc class: each test makes the kernel
 * fork, clone a thread, exec or exit a traced process, and finds exactly
 * the expected events, payloads, pids and tids, in time order with the
 * process's own user events before and after.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kevent_common.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif

/*
 * A fork by the traced process, its child not traced: the fork, with the
 * child's ids, between the user events around it; the child's exit shows
 * only as the SIGCHLD its parent ignores, sent by the child.
 */
TEST(fork_is_recorded_with_the_childs_ids)
{
	pid_t me = getpid(), c;
	trace_id_t trid;
	struct kevs l;
	int p[2], status;

	SKIP_WITHOUT_DEVICE();
	ASSERT_NE(SIG_ERR, signal(SIGCHLD, SIG_DFL));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, kev_create(0, KEV_PROC_SIGNAL,
				POSIX_TRACE_CLOSE_FOR_CHILD, &trid));
	kev_mark("kev.before", 1);
	c = fork();
	ASSERT_LE(0, c);
	if (!c) {
		wait_byte(p[0]);
		_exit(3);
	}
	kev_mark("kev.after", 2);
	ASSERT_TRUE(put_byte(p[1], 'x'));
	ASSERT_EQ(c, waitpid(c, &status, 0));
	kev_mark("kev.reaped", 3);
	ASSERT_EQ(0, kevs_stop_read(trid, &l));
	close(p[0]);
	close(p[1]);
	ASSERT_MARKED(trid, me, &l,
		WANT_FORK(me, me, c, c, 0, SIGCHLD),
		WANT_USER(me, me, "kev.after"),
		WANT_GEN(me, SIGCHLD, CLD_EXITED, c,
			 POSIXTRACE_SIGNAL_IGNORED, 1),
		WANT_USER(me, me, "kev.reaped"));
}

/*
 * Wait until thread tid of this process has gone past its exit (and its
 * exit event): its pidfd says so, or, on a kernel without thread pidfds,
 * its /proc entry goes. False if it is still there after 10 s.
 */
static bool thread_gone(pid_t tid)
{
	struct pollfd pfd = { .events = POLLIN };
	char path[64];
	int i;

	pfd.fd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (pfd.fd >= 0) {
		i = poll(&pfd, 1, 10000);
		close(pfd.fd);
		return i == 1;
	}
	if (errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	for (i = 0; i < 10000 && !access(path, F_OK); i++)
		usleep(1000);
	return access(path, F_OK);
}

static void *thread_marks(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid();
	kev_mark("kev.thread", *tid);
	return NULL;
}

/*
 * pthread_create() by the traced process: a fork event of a thread (the
 * new tid, the same pid, CLONE_THREAD), the thread's own event, and its
 * exit as a thread's, not the process's.
 */
TEST(thread_creation_and_exit_are_recorded_with_its_tid)
{
	pid_t me = getpid(), tid = 0;
	trace_id_t trid;
	struct kevs l;
	pthread_t th;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, kev_create(0, POSIXTRACE_K_KERNEL_PROC,
				POSIX_TRACE_CLOSE_FOR_CHILD, &trid));
	kev_mark("kev.before", 1);
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_marks, &tid));
	ASSERT_EQ(0, pthread_join(th, NULL));
	/* The join returns once its tid is cleared, before its exit event. */
	ASSERT_TRUE(thread_gone(tid));
	kev_mark("kev.after", 2);
	ASSERT_EQ(0, kevs_stop_read(trid, &l));
	ASSERT_MARKED(trid, me, &l,
		WANT_FORK(me, me, me, tid, 1, 0),
		WANT_USER(me, tid, "kev.thread"),
		WANT_EXIT(me, tid, 0, 0, 0, 0),
		WANT_USER(me, me, "kev.after"));
}

static int exit_42(void *arg)
{
	kev_mark("kev.before", 1);
	_exit(42);
}

/* A traced process exits with a status: its exit, the process's. */
TEST(exit_with_a_status_is_recorded_as_the_processs)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_CHILD_MARKED(KEV_PROC_SIGNAL, exit_42, NULL,
			    W_EXITCODE(42, 0),
		WANT_EXIT(k.pid, k.pid, 42, 0, 0, 1));
}

/* ---- exec with long arguments ------------------------------------------- */

#define EXEC_AFTER_ENV	"KEVENT_EXEC_AFTER"
#define LINK_NAME_LEN	80
#define DIR_NAME_LEN	200

/*
 * The image the traced child execs (this binary again, through a long
 * symbolic link): one event carrying its argc, then exit 0.
 */
static void __attribute__((constructor)) exec_after(int argc, char **argv,
						    char **envp)
{
	if (!getenv(EXEC_AFTER_ENV))
		return;
	kev_mark("kev.after", argc);
	_exit(0);
}

struct exec_case {
	char dir[PATH_MAX];	/* the scratch directory, to remove */
	char sub[PATH_MAX];	/* the long directory in it */
	char path[PATH_MAX];	/* the link to exec, > 255 bytes */
	char *argv[7];
	char a0[301], a2[256], a3[257];
};

static int exec_long(void *arg)
{
	struct exec_case *x = arg;

	kev_mark("kev.before", 6);
	setenv(EXEC_AFTER_ENV, "1", 1);
	execv(x->path, x->argv);
	return 1;
}

/* A string of n copies of c. */
static void fill(char *s, char c, size_t n)
{
	memset(s, c, n);
	s[n] = '\0';
}

/*
 * execve() with a path of more than 255 bytes and six arguments, two of
 * them longer than 255 bytes and one of exactly 255: argc 6, the path and
 * those two cut at 255 bytes and marked cut, the 255-byte one whole, the
 * new comm the link's name cut at 15 characters.
 */
TEST(exec_with_long_arguments_cuts_and_marks_them)
{
	static struct exec_case x;
	char self[PATH_MAX], link[LINK_NAME_LEN + 1];
	char path[KEV_STR_MAX], a0[KEV_STR_MAX], a3[KEV_STR_MAX];
	struct kev_child k;
	struct kevs l;
	ssize_t n;

	SKIP_WITHOUT_DEVICE();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_LT(0, n);
	self[n] = '\0';
	strcpy(x.dir, "/tmp/kevent-execXXXXXX");
	ASSERT_NE(NULL, mkdtemp(x.dir));
	snprintf(x.sub, sizeof(x.sub), "%s/", x.dir);
	fill(x.sub + strlen(x.sub), 'd', DIR_NAME_LEN);
	ASSERT_EQ(0, mkdir(x.sub, 0755));
	strcpy(link, "kexec_");
	fill(link + 6, 'l', LINK_NAME_LEN - 6);
	snprintf(x.path, sizeof(x.path), "%s/%s", x.sub, link);
	ASSERT_LT(255, strlen(x.path));
	ASSERT_EQ(0, symlink(self, x.path));
	fill(x.a0, 'a', 300);
	fill(x.a2, 'c', 255);
	fill(x.a3, 'e', 256);
	x.argv[0] = x.a0;
	x.argv[1] = "short";
	x.argv[2] = x.a2;
	x.argv[3] = x.a3;
	x.argv[4] = "x";
	x.argv[5] = "y";
	x.argv[6] = NULL;

	ASSERT_EQ(0, kev_child_run(&k, POSIXTRACE_K_KERNEL_PROC, exec_long,
				   &x, &l));
	unlink(x.path);
	rmdir(x.sub);
	rmdir(x.dir);
	ASSERT_EQ(0, k.status);
	/* What each string is cut to: 255 bytes. */
	snprintf(path, sizeof(path), "%.255s", x.path);
	snprintf(a0, sizeof(a0), "%.255s", x.a0);
	snprintf(a3, sizeof(a3), "%.255s", x.a3);
	ASSERT_MARKED(k.trid, k.pid, &l,
		/* Bit 0: the path cut; bit 1 + i: argv[i]. */
		WANT_EXEC(k.pid, 6, 1 << 0 | 1 << 1 | 1 << 4, path,
			  "kexec_lllllllll", a0, "short", x.a2, a3),
		WANT_USER(k.pid, k.pid, "kev.after"),
		WANT_EXIT(k.pid, k.pid, 0, 0, 0, 1));
}

#define HUGE_ARG_LEN	3000	/* more than 8 * POSIXTRACE_EXEC_STR_MAX */

static int exec_huge(void *arg)
{
	static char huge[HUGE_ARG_LEN + 1];
	char *argv[] = { "zero", huge, "after", "x", NULL };

	fill(huge, 'h', HUGE_ARG_LEN);
	kev_mark("kev.before", 4);
	setenv(EXEC_AFTER_ENV, "1", 1);
	execv("/proc/self/exe", argv);
	return 1;
}

/*
 * An argument of 3,000 bytes, then two more: it is cut at 255 bytes and
 * marked; the module looks only so far (8 * 256 bytes) for where it
 * ends, so the arguments after it are not found ("could not be read",
 * the header's words): empty and marked cut, never another's bytes.
 */
TEST(exec_argument_too_long_to_find_its_end_marks_the_rest_cut)
{
	char cut[KEV_STR_MAX];

	SKIP_WITHOUT_DEVICE();
	memset(cut, 'h', KEV_STR_MAX - 1);
	cut[KEV_STR_MAX - 1] = '\0';
	ASSERT_CHILD_MARKED(POSIXTRACE_K_KERNEL_PROC, exec_huge, NULL, 0,
		WANT_EXEC(k.pid, 4, 1 << 2 | 1 << 3 | 1 << 4,
			  "/proc/self/exe", "exe", "zero", cut, "", ""),
		WANT_USER(k.pid, k.pid, "kev.after"),
		WANT_EXIT(k.pid, k.pid, 0, 0, 0, 1));
}

static int exec_short(void *arg)
{
	char *argv[] = { "one", "two", NULL };

	kev_mark("kev.before", 2);
	setenv(EXEC_AFTER_ENV, "1", 1);
	execv("/proc/self/exe", argv);
	return 1;
}

/* Fewer than four arguments: the others are empty, nothing is cut. */
TEST(exec_with_two_arguments_leaves_the_others_empty)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_CHILD_MARKED(POSIXTRACE_K_KERNEL_PROC, exec_short, NULL, 0,
		WANT_EXEC(k.pid, 2, 0, "/proc/self/exe", "exe", "one",
			  "two", "", ""),
		WANT_USER(k.pid, k.pid, "kev.after"),
		WANT_EXIT(k.pid, k.pid, 0, 0, 0, 1));
}

/*
 * A group whose threads exit at once (SIGKILL, exit_group()) while one
 * of them tears down a large mm: every thread counts itself out of the
 * group early in do_exit(), and the last one to reach its exit probe may
 * come long after the first that saw the group dead. Each thread's exit
 * must be recorded, or counted lost. The module once took the process
 * out of its table at that first probe: 1 to 4 rounds in 20 lost an EXIT,
 * uncounted (stress_test found it).
 */
#define GROUP_THREADS	4
#define GROUP_ROUNDS	8
#define GROUP_MEM	(32 << 20)

static volatile unsigned long group_spin;

static void *group_busy(void *arg)
{
	int fd = *(int *)arg;

	if (write(fd, "t", 1) != 1)
		_exit(2);
	for (;;)
		group_spin++;
	return NULL;
}

static void __attribute__((noreturn)) group_child(int ready, int go,
						  bool killed)
{
	char *mem = malloc(GROUP_MEM);
	pthread_t t;
	char c;
	int i;

	/* An mm worth tearing down: the last thread out does it. */
	for (i = 0; mem && i < GROUP_MEM; i += 4096)
		mem[i] = 1;
	for (i = 1; i < GROUP_THREADS; i++)
		if (pthread_create(&t, NULL, group_busy, &ready))
			_exit(2);
	if (write(ready, "m", 1) != 1)
		_exit(2);
	if (killed)
		for (;;)
			group_spin++;
	if (read(go, &c, 1) != 1)
		_exit(2);
	exit(0);	/* exit_group() from the main thread */
}

TEST(every_thread_of_a_group_exiting_at_once_has_its_exit)
{
	struct posix_trace_status_info st;
	int round, ready[2], go[2], i, exits, status;
	trace_id_t trid;
	struct kevs l;
	pid_t pid;
	char c;

	SKIP_WITHOUT_DEVICE();
	for (round = 0; round < 2 * GROUP_ROUNDS; round++) {
		bool killed = round % 2;

		ASSERT_EQ(0, pipe(ready));
		ASSERT_EQ(0, pipe(go));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			group_child(ready[1], go[0], killed);
		for (i = 0; i < GROUP_THREADS; i++)
			ASSERT_EQ(1, read(ready[0], &c, 1));
		ASSERT_EQ(0, kev_create(pid, POSIXTRACE_KERNEL_PROC,
					POSIX_TRACE_CLOSE_FOR_CHILD, &trid));
		if (killed) {
			ASSERT_EQ(0, kill(pid, SIGKILL));
		} else {
			ASSERT_EQ(1, write(go[1], "g", 1));
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ(0, posix_trace_stop(trid));
		ASSERT_EQ(0, kevs_read(trid, &l));
		for (exits = i = 0; i < l.n; i++)
			exits += l.ev[i].info.posix_event_id == KEV_EXIT;
		ASSERT_EQ(0, posix_trace_get_status(trid, &st));
		/* Nothing else is made here: a loss would be of an EXIT. */
		EXPECT_EQ(GROUP_THREADS, exits)
			TH_LOG("%s, round %d: %d EXIT events of %d threads",
			       killed ? "SIGKILL" : "exit_group()", round,
			       exits, GROUP_THREADS);
		EXPECT_EQ(POSIX_TRACE_NO_OVERRUN,
			  st.posix_stream_overrun_status);
		kevs_free(&l);
		ASSERT_EQ(0, posix_trace_shutdown(trid));
		close(ready[0]);
		close(ready[1]);
		close(go[0]);
		close(go[1]);
	}
}

/* ---- a child killed before it ran --------------------------------------- */

/*
 * In the traced child: fork a grandchild that cannot run before it is
 * killed (both SCHED_FIFO on one CPU, at one priority: the new task waits
 * behind its parent), kill it, reap it. Its pid goes down @arg's pipe.
 * Returns 0, the step that failed, or 10 if it ran after all (its exit
 * status tells).
 */
static int fork_and_kill_before_it_runs(void *arg)
{
	struct sched_param fifo = { .sched_priority = 1 };
	int fd = *(int *)arg, status;
	cpu_set_t one;
	pid_t c;

	kev_mark("kev.before", 1);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return 1;
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		return 2;
	c = fork();
	if (c < 0)
		return 3;
	if (!c)
		_exit(7);
	if (kill(c, SIGKILL))
		return 4;
	if (write(fd, &c, sizeof(c)) != sizeof(c))
		return 5;
	if (waitpid(c, &status, 0) != c)
		return 6;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 10;
}

/*
 * A child killed before its first instruction still exits: the streams
 * that recorded its fork (inheritance) record its exit too. The module
 * once made such a child no links, and its EXIT was never recorded nor
 * counted (stress_test found it).
 */
TEST(a_child_killed_before_it_ran_has_its_exit)
{
	struct kev_child k;
	struct kevs l;
	int p[2];
	pid_t c;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root: SCHED_FIFO");
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, kev_child_start(&k, POSIXTRACE_KERNEL_PROC,
				     POSIX_TRACE_INHERITED,
				     fork_and_kill_before_it_runs, &p[1]));
	ASSERT_TRUE(kev_child_go(&k));
	ASSERT_EQ(0, kev_child_end(&k, &l));
	close(p[1]);
	ASSERT_EQ(sizeof(c), read(p[0], &c, sizeof(c)));
	close(p[0]);
	ASSERT_EQ(0, k.status);
	ASSERT_MARKED(k.trid, k.pid, &l,
		WANT_FORK(k.pid, k.pid, c, c, 0, SIGCHLD),
		WANT_EXIT(c, c, -1, SIGKILL, 0, 1),
		WANT_EXIT(k.pid, k.pid, 0, 0, 0, 1));
}

TEST_HARNESS_MAIN
