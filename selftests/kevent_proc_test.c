// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events of the proc class (ABI 0.12): each test makes the kernel
 * fork, clone a thread, exec or exit a traced process, and finds exactly
 * the expected events, payloads, pids and tids, in time order with the
 * process's own user events before and after.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>

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
	struct kev_fork f;
	trace_id_t trid;
	struct kevs l;
	int p[2], status, i = 0;

	SKIP_WITHOUT_KEVENTS();
	ASSERT_NE(SIG_ERR, signal(SIGCHLD, SIG_DFL));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, kev_create(0, POSIXTRACE_K_KERNEL_ALL,
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
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, kevs_read(trid, &l));
	kevs_show(&l);
	ASSERT_EQ(7, l.n);
	ASSERT_EQ(POSIX_TRACE_START, l.ev[i++].info.posix_event_id);
	ASSERT_USER(trid, &l.ev[i], me, "kev.before");
	i++;
	ASSERT_FORK(&l.ev[i], me, me, c, c, 0);
	ASSERT_TRUE(kev_decode(&l.ev[i], KEV_FORK, &f));
	i++;
	ASSERT_USER(trid, &l.ev[i], me, "kev.after");
	i++;
	ASSERT_GEN(&l.ev[i], me, SIGCHLD, CLD_EXITED, c,
		   POSIXTRACE_SIGNAL_IGNORED, 1);
	i++;
	ASSERT_USER(trid, &l.ev[i], me, "kev.reaped");
	i++;
	ASSERT_EQ(POSIX_TRACE_STOP, l.ev[i].info.posix_event_id);
	/* fork(): a process of its own, SIGCHLD (the low byte) at its exit. */
	ASSERT_EQ(0, f.flags & (CLONE_VM | CLONE_SIGHAND));
	ASSERT_EQ(SIGCHLD, f.flags & 0xff);
	kevs_free(&l);
	close(p[0]);
	close(p[1]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
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
	int i = 0;

	SKIP_WITHOUT_KEVENTS();
	ASSERT_EQ(0, kev_create(0, POSIXTRACE_K_KERNEL_PROC,
				POSIX_TRACE_CLOSE_FOR_CHILD, &trid));
	kev_mark("kev.before", 1);
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_marks, &tid));
	ASSERT_EQ(0, pthread_join(th, NULL));
	/* The join returns once its tid is cleared, before its exit event. */
	ASSERT_TRUE(thread_gone(tid));
	kev_mark("kev.after", 2);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, kevs_read(trid, &l));
	kevs_show(&l);
	ASSERT_EQ(7, l.n);
	ASSERT_EQ(POSIX_TRACE_START, l.ev[i++].info.posix_event_id);
	ASSERT_USER(trid, &l.ev[i], me, "kev.before");
	i++;
	ASSERT_FORK(&l.ev[i], me, me, me, tid, 1);
	{
		struct kev_fork f;

		ASSERT_TRUE(kev_decode(&l.ev[i], KEV_FORK, &f));
		ASSERT_EQ(CLONE_VM | CLONE_SIGHAND | CLONE_THREAD,
			  f.flags & (CLONE_VM | CLONE_SIGHAND | CLONE_THREAD));
	}
	i++;
	ASSERT_USER(trid, &l.ev[i], me, "kev.thread");
	ASSERT_EQ(tid, l.ev[i].tid);
	i++;
	ASSERT_EXIT(&l.ev[i], me, tid, 0, 0, 0, 0);
	i++;
	ASSERT_USER(trid, &l.ev[i], me, "kev.after");
	ASSERT_EQ(me, l.ev[i].tid);
	i++;
	ASSERT_EQ(POSIX_TRACE_STOP, l.ev[i].info.posix_event_id);
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

static int exit_42(void *arg)
{
	kev_mark("kev.before", 1);
	_exit(42);
}

/* A traced process exits with a status: its exit, the process's. */
TEST(exit_with_a_status_is_recorded_as_the_processs)
{
	struct kev_child k;
	struct kevs l;
	int i = 0;

	SKIP_WITHOUT_KEVENTS();
	ASSERT_EQ(0, kev_child_start(&k, POSIXTRACE_K_KERNEL_ALL,
				     POSIX_TRACE_CLOSE_FOR_CHILD, exit_42,
				     NULL));
	ASSERT_TRUE(kev_child_go(&k));
	ASSERT_EQ(0, kev_child_end(&k, &l));
	ASSERT_TRUE(WIFEXITED(k.status));
	ASSERT_EQ(42, WEXITSTATUS(k.status));
	ASSERT_EQ(4, l.n);
	ASSERT_EQ(POSIX_TRACE_START, l.ev[i++].info.posix_event_id);
	ASSERT_USER(k.trid, &l.ev[i], k.pid, "kev.before");
	i++;
	ASSERT_EXIT(&l.ev[i], k.pid, k.pid, 42, 0, 0, 1);
	i++;
	ASSERT_EQ(POSIX_TRACE_STOP, l.ev[i].info.posix_event_id);
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

/* ---- exec with long arguments ------------------------------------------ */

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

	kev_mark("kev.before", 0);
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
	char self[PATH_MAX], want[KEV_STR_MAX], link[LINK_NAME_LEN + 1];
	struct kev_exec e;
	struct kev_child k;
	struct kevs l;
	ssize_t n;
	int i = 0;

	SKIP_WITHOUT_KEVENTS();
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

	ASSERT_EQ(0, kev_child_start(&k, POSIXTRACE_K_KERNEL_PROC,
				     POSIX_TRACE_CLOSE_FOR_CHILD, exec_long,
				     &x));
	ASSERT_TRUE(kev_child_go(&k));
	ASSERT_EQ(0, kev_child_end(&k, &l));
	unlink(x.path);
	rmdir(x.sub);
	rmdir(x.dir);
	ASSERT_EQ(0, k.status);
	ASSERT_EQ(6, l.n);
	ASSERT_EQ(POSIX_TRACE_START, l.ev[i++].info.posix_event_id);
	ASSERT_USER(k.trid, &l.ev[i], k.pid, "kev.before");
	i++;
	ASSERT_KEV(&l.ev[i], KEV_EXEC, k.pid, k.pid);
	ASSERT_TRUE(kev_decode(&l.ev[i], KEV_EXEC, &e));
	ASSERT_EQ(6, e.argc);
	/* Bit 0: the path; bit 1 + i: argv[i]. */
	ASSERT_EQ(1 << 0 | 1 << 1 | 1 << 4, e.cut);
	memcpy(want, x.path, 255);
	want[255] = '\0';
	ASSERT_STREQ(want, e.path);
	ASSERT_STREQ("kexec_lllllllll", e.comm);
	ASSERT_EQ(255, strlen(e.argv[0]));
	ASSERT_EQ(0, strncmp(x.a0, e.argv[0], 255));
	ASSERT_STREQ("short", e.argv[1]);
	ASSERT_STREQ(x.a2, e.argv[2]);
	ASSERT_EQ(255, strlen(e.argv[3]));
	ASSERT_EQ(0, strncmp(x.a3, e.argv[3], 255));
	i++;
	ASSERT_USER(k.trid, &l.ev[i], k.pid, "kev.after");
	ASSERT_EQ(sizeof(int), l.ev[i].len);
	ASSERT_EQ(6, *(int *)l.ev[i].data);
	i++;
	ASSERT_EXIT(&l.ev[i], k.pid, k.pid, 0, 0, 0, 1);
	i++;
	ASSERT_EQ(POSIX_TRACE_STOP, l.ev[i].info.posix_event_id);
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

static int exec_short(void *arg)
{
	char *argv[] = { "one", "two", NULL };

	setenv(EXEC_AFTER_ENV, "1", 1);
	execv("/proc/self/exe", argv);
	return 1;
}

/* Fewer than four arguments: the others are empty, nothing is cut. */
TEST(exec_with_two_arguments_leaves_the_others_empty)
{
	struct kev_exec e;
	struct kev_child k;
	struct kevs l;

	SKIP_WITHOUT_KEVENTS();
	ASSERT_EQ(0, kev_child_start(&k, POSIXTRACE_K_KERNEL_PROC,
				     POSIX_TRACE_CLOSE_FOR_CHILD, exec_short,
				     NULL));
	ASSERT_TRUE(kev_child_go(&k));
	ASSERT_EQ(0, kev_child_end(&k, &l));
	ASSERT_EQ(0, k.status);
	ASSERT_EQ(5, l.n);
	ASSERT_KEV(&l.ev[1], KEV_EXEC, k.pid, k.pid);
	ASSERT_TRUE(kev_decode(&l.ev[1], KEV_EXEC, &e));
	ASSERT_EQ(2, e.argc);
	ASSERT_EQ(0, e.cut);
	ASSERT_STREQ("/proc/self/exe", e.path);
	ASSERT_STREQ("exe", e.comm);
	ASSERT_STREQ("one", e.argv[0]);
	ASSERT_STREQ("two", e.argv[1]);
	ASSERT_STREQ("", e.argv[2]);
	ASSERT_STREQ("", e.argv[3]);
	ASSERT_USER(k.trid, &l.ev[2], k.pid, "kev.after");
	ASSERT_EXIT(&l.ev[3], k.pid, k.pid, 0, 0, 0, 1);
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

TEST_HARNESS_MAIN
