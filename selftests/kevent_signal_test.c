// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events of the signal class, with the proc class where
 * a signal ends the process: a traced process signals itself (handled,
 * ignored, blocked, pending twice), is signalled by a process the stream
 * does not trace (which shows only as the sender), by a timer (no
 * sender), from another pid namespace (sender 0) and from its own (the
 * sender's pid), is killed, and dies of its own signal with and without a
 * core dump. Each finds exactly the expected events in order with the
 * process's own user events.
 */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "kevent_common.h"

/* Install the empty handler for sig, and block it if asked. */
static bool handle(int sig, bool block)
{
	struct sigaction sa = { .sa_handler = kev_on_signal };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return !sigaction(sig, &sa, NULL) &&
	       !sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* Wait for a signal with every signal unblocked. */
static void suspend(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigsuspend(&none);
}

/* A thread-directed signal to this thread, by system call. */
static int tkill_self(int sig)
{
	return syscall(SYS_tgkill, getpid(), gettid(), sig);
}

static int kill_self_handled(void *arg)
{
	if (!handle(SIGUSR1, false))
		return 1;
	kev_mark("kev.before", 0);
	if (kill(getpid(), SIGUSR1))
		return 2;
	kev_mark("kev.after", 0);
	return 0;
}

TEST(kill_to_itself_handled)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_CHILD_MARKED(POSIXTRACE_K_KERNEL_SIGNAL, kill_self_handled, NULL, 0,
		WANT_GEN(k.pid, SIGUSR1, SI_USER, k.pid,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(k.pid, k.pid, SIGUSR1, SI_USER,
			 POSIXTRACE_SIGACT_HANDLER),
		WANT_USER(k.pid, k.pid, "kev.after"));
}

/*
 * SIGUSR2 ignored (SIG_IGN), sent to the process and to the thread:
 * dropped when generated, never delivered. SIGWINCH, whose default is to
 * be ignored, sent while blocked: queued, then taken with its default
 * action once unblocked.
 */
static int ignored(void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	if (signal(SIGUSR2, SIG_IGN) == SIG_ERR ||
	    signal(SIGWINCH, SIG_DFL) == SIG_ERR ||
	    sigprocmask(SIG_BLOCK, &set, NULL))
		return 1;
	kev_mark("kev.before", 0);
	if (kill(getpid(), SIGUSR2) || tkill_self(SIGUSR2) ||
	    kill(getpid(), SIGWINCH) ||
	    sigprocmask(SIG_UNBLOCK, &set, NULL))
		return 2;
	kev_mark("kev.after", 0);
	return 0;
}

TEST(ignored_signals_are_dropped_or_taken_by_default)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_CHILD_MARKED(POSIXTRACE_K_KERNEL_SIGNAL, ignored, NULL, 0,
		WANT_GEN(k.pid, SIGUSR2, SI_USER, k.pid,
			 POSIXTRACE_SIGNAL_IGNORED, 1),
		WANT_GEN(k.pid, SIGUSR2, SI_TKILL, k.pid,
			 POSIXTRACE_SIGNAL_IGNORED, 0),
		WANT_GEN(k.pid, SIGWINCH, SI_USER, k.pid,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(k.pid, k.pid, SIGWINCH, SI_USER,
			 POSIXTRACE_SIGACT_DEFAULT),
		WANT_USER(k.pid, k.pid, "kev.after"));
}

/*
 * SIGUSR1 blocked, then ignored (SIG_IGN), then sent: a blocked signal is
 * queued even if ignored (its disposition may change before it is
 * unblocked), so it is generated as delivered; unblocked, it is taken
 * with the disposition it has then: ignored.
 */
static int blocked_then_ignored(void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL) ||
	    signal(SIGUSR1, SIG_IGN) == SIG_ERR)
		return 1;
	kev_mark("kev.before", 0);
	if (kill(getpid(), SIGUSR1) || sigprocmask(SIG_UNBLOCK, &set, NULL))
		return 2;
	kev_mark("kev.after", 0);
	return 0;
}

TEST(blocked_ignored_signal_is_taken_as_ignored)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_CHILD_MARKED(POSIXTRACE_K_KERNEL_SIGNAL, blocked_then_ignored,
			    NULL, 0,
		WANT_GEN(k.pid, SIGUSR1, SI_USER, k.pid,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(k.pid, k.pid, SIGUSR1, SI_USER,
			 POSIXTRACE_SIGACT_IGNORE),
		WANT_USER(k.pid, k.pid, "kev.after"));
}

/* SIGUSR1 twice while blocked: queued, merged, then taken once. */
static int pending_twice(void *arg)
{
	if (!handle(SIGUSR1, true))
		return 1;
	kev_mark("kev.before", 0);
	if (kill(getpid(), SIGUSR1) || kill(getpid(), SIGUSR1) ||
	    !handle(SIGUSR1, false))
		return 2;
	kev_mark("kev.after", 0);
	return 0;
}

TEST(blocked_signal_sent_twice_is_merged_and_taken_once)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_CHILD_MARKED(POSIXTRACE_K_KERNEL_SIGNAL, pending_twice, NULL, 0,
		WANT_GEN(k.pid, SIGUSR1, SI_USER, k.pid,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_GEN(k.pid, SIGUSR1, SI_USER, k.pid,
			 POSIXTRACE_SIGNAL_ALREADY_PENDING, 1),
		WANT_DLV(k.pid, k.pid, SIGUSR1, SI_USER,
			 POSIXTRACE_SIGACT_HANDLER),
		WANT_USER(k.pid, k.pid, "kev.after"));
}

/*
 * A child that says it is ready on ready[1], then waits for sig (blocked
 * until then, handled), then says "kev.after".
 */
struct waiter {
	int ready[2];
	int sig;
};

static int wait_for_signal(void *arg)
{
	struct waiter *w = arg;

	if (!handle(w->sig, true))
		return 1;
	kev_mark("kev.before", 0);
	if (!put_byte(w->ready[1], 'r'))
		return 2;
	suspend();
	kev_mark("kev.after", 0);
	return 0;
}

/*
 * The test process, which the stream does not trace, signals the traced
 * child: the generation shows on the child with the test's pid as its
 * sender (same pid namespace); nothing of the test process appears.
 */
TEST(signal_from_an_untraced_process_shows_its_sender)
{
	struct waiter w = { .sig = SIGUSR1 };
	struct kev_child k;
	struct kevs l;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, pipe(w.ready));
	ASSERT_EQ(0, kev_child_start(&k, KEV_PROC_SIGNAL,
				     POSIX_TRACE_CLOSE_FOR_CHILD,
				     wait_for_signal, &w));
	ASSERT_TRUE(kev_child_go(&k));
	wait_byte(w.ready[0]);
	ASSERT_EQ(0, kill(k.pid, SIGUSR1));
	ASSERT_EQ(0, kev_child_end(&k, &l));
	ASSERT_EQ(0, k.status);
	close(w.ready[0]);
	close(w.ready[1]);
	ASSERT_MARKED(k.trid, k.pid, &l,
		WANT_GEN(k.pid, SIGUSR1, SI_USER, getpid(),
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(k.pid, k.pid, SIGUSR1, SI_USER,
			 POSIXTRACE_SIGACT_HANDLER),
		WANT_USER(k.pid, k.pid, "kev.after"),
		WANT_EXIT(k.pid, k.pid, 0, 0, 0, 1));
}

static int arm_timer(void *arg)
{
	struct itimerval it = { .it_value = { 0, 20000 } };

	if (!handle(SIGALRM, true))
		return 1;
	kev_mark("kev.before", 0);
	if (setitimer(ITIMER_REAL, &it, NULL))
		return 2;
	suspend();
	kev_mark("kev.after", 0);
	return 0;
}

/* SIGALRM of an interval timer, sent from interrupt context: sender 0. */
TEST(timer_signal_from_interrupt_context_has_no_sender)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_CHILD_MARKED(POSIXTRACE_K_KERNEL_SIGNAL, arm_timer, NULL, 0,
		WANT_GEN(k.pid, SIGALRM, SI_KERNEL, 0,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(k.pid, k.pid, SIGALRM, SI_KERNEL,
			 POSIXTRACE_SIGACT_HANDLER),
		WANT_USER(k.pid, k.pid, "kev.after"));
}

static int wait_forever(void *arg)
{
	struct waiter *w = arg;

	kev_mark("kev.before", 0);
	if (!put_byte(w->ready[1], 'r'))
		return 2;
	for (;;)
		pause();
}

/*
 * SIGKILL from the test process: generated with its sender, taken with
 * the default action, and the process's exit says it was killed by it.
 */
TEST(sigkill_from_another_process_ends_the_traced_one)
{
	struct waiter w = { .sig = SIGKILL };
	struct kev_child k;
	struct kevs l;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, pipe(w.ready));
	ASSERT_EQ(0, kev_child_start(&k, KEV_PROC_SIGNAL,
				     POSIX_TRACE_CLOSE_FOR_CHILD,
				     wait_forever, &w));
	ASSERT_TRUE(kev_child_go(&k));
	wait_byte(w.ready[0]);
	ASSERT_EQ(0, kill(k.pid, SIGKILL));
	ASSERT_EQ(0, kev_child_end(&k, &l));
	ASSERT_TRUE(WIFSIGNALED(k.status));
	ASSERT_EQ(SIGKILL, WTERMSIG(k.status));
	close(w.ready[0]);
	close(w.ready[1]);
	ASSERT_MARKED(k.trid, k.pid, &l,
		WANT_GEN(k.pid, SIGKILL, SI_USER, getpid(),
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(k.pid, k.pid, SIGKILL, SI_USER,
			 POSIXTRACE_SIGACT_DEFAULT),
		WANT_EXIT(k.pid, k.pid, -1, SIGKILL, 0, 1));
}

/* How a process dies of its own SIGQUIT: where, and with what core limit. */
struct quit_case {
	char dir[64];
	rlim_t core;
};

static int die_of_sigquit(void *arg)
{
	struct quit_case *q = arg;
	struct rlimit lim = { q->core, q->core };

	if (setrlimit(RLIMIT_CORE, &lim) || chdir(q->dir) ||
	    signal(SIGQUIT, SIG_DFL) == SIG_ERR)
		return 1;
	kev_mark("kev.before", 0);
	tkill_self(SIGQUIT);
	return 2;
}

/* Remove the scratch directory and whatever core files it holds. */
static void remove_dir(const char *dir)
{
	char path[512];
	struct dirent *d;
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		unlink(path);
	}
	if (dp)
		closedir(dp);
	rmdir(dir);
}

/*
 * The traced child sends itself SIGQUIT (default action: core dump) and
 * dies of it, with RLIMIT_CORE 0 or unlimited: generated, taken with the
 * default action, and the exit says the signal and whether it dumped core
 * as wait() does. Returns whether it dumped core.
 */
static bool quit_case(struct __test_metadata *_metadata, rlim_t core)
{
	struct quit_case q = { .core = core };
	struct kev_child k;
	struct kevs l;

	strcpy(q.dir, "/tmp/kevent-coreXXXXXX");
	ASSERT_NE(NULL, mkdtemp(q.dir));
	ASSERT_EQ(0, kev_child_run(&k, KEV_PROC_SIGNAL, die_of_sigquit,
				   &q, &l));
	remove_dir(q.dir);
	ASSERT_TRUE(WIFSIGNALED(k.status));
	ASSERT_EQ(SIGQUIT, WTERMSIG(k.status));
	ASSERT_MARKED(k.trid, k.pid, &l,
		WANT_GEN(k.pid, SIGQUIT, SI_TKILL, k.pid,
			 POSIXTRACE_SIGNAL_DELIVERED, 0),
		WANT_DLV(k.pid, k.pid, SIGQUIT, SI_TKILL,
			 POSIXTRACE_SIGACT_DEFAULT),
		/* Core dumped or not as wait() says. */
		WANT_EXIT(k.pid, k.pid, -1, SIGQUIT, !!WCOREDUMP(k.status),
			  1));
	return WCOREDUMP(k.status);
}

TEST(death_by_its_own_signal_without_a_core_dump)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_FALSE(quit_case(_metadata, 0));
}

TEST(death_by_its_own_signal_with_a_core_dump)
{
	SKIP_WITHOUT_DEVICE();
	/* The events are checked either way; the core flag only here. */
	if (!quit_case(_metadata, RLIM_INFINITY))
		SKIP(return, "no core dump here (core_pattern, or no ELF core)");
}

/* ---- pid namespaces ----------------------------------------------------- */

/*
 * What the namespace's parent (a child of the test) reports: the pids, in
 * the test's namespace, of T (the traced process, init of a new pid
 * namespace) and S (T's sibling there).
 */
struct ns_pids {
	pid_t t, s;
};

/*
 * T: handles SIGUSR1 and SIGUSR2, says "kev.before", tells the test it is
 * ready, takes both signals, says "kev.after".
 */
static int ns_target(int ready, int go)
{
	int taken = 0;
	sigset_t none, set;

	sigemptyset(&none);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	if (!handle(SIGUSR1, true) || !handle(SIGUSR2, true))
		return 1;
	wait_byte(go);
	kev_mark("kev.before", 0);
	if (!put_byte(ready, 'r'))
		return 2;
	/* Both are pending by then: the test sends them before its byte. */
	wait_byte(go);
	while (taken < 2) {
		sigset_t pending;

		sigsuspend(&none);
		sigpending(&pending);
		taken = !sigismember(&pending, SIGUSR1) +
			!sigismember(&pending, SIGUSR2);
	}
	kev_mark("kev.after", 0);
	return 0;
}

/*
 * A traced process T, init of a pid namespace the test cannot be seen
 * in: SIGUSR1 from the test shows sender 0; SIGUSR2 from S, a process of
 * T's namespace, shows S's pid as the stream (the test's namespace)
 * numbers it.
 */
TEST(sender_outside_the_targets_pid_namespace_is_zero)
{
	int up[2], go[2], sgo[2], status;
	struct ns_pids pids;
	trace_id_t trid;
	struct kevs l;
	pid_t ns;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root for a pid namespace");
	/* If T dies, writing to it must fail, not kill the test. */
	ASSERT_NE(SIG_ERR, signal(SIGPIPE, SIG_IGN));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(sgo));
	ns = fork();
	ASSERT_LE(0, ns);
	if (!ns) {
		if (unshare(CLONE_NEWPID))
			_exit(99);
		pids.t = fork();
		if (!pids.t)
			_exit(ns_target(up[1], go[0]));
		pids.s = fork();
		if (!pids.s) {
			/* T is pid 1 here. */
			wait_byte(sgo[0]);
			if (kill(1, SIGUSR2))
				_exit(1);
			_exit(put_byte(up[1], 's') ? 0 : 1);
		}
		if (pids.t < 0 || pids.s < 0 ||
		    !put(up[1], &pids, sizeof(pids)))
			_exit(2);
		/* T or S gone, the test's reads see the end of file. */
		close(up[1]);
		close(go[0]);
		close(sgo[0]);
		/*
		 * S first: T, the namespace's init, waits in its exit for
		 * every other process of the namespace to be reaped.
		 */
		if (waitpid(pids.s, &status, 0) != pids.s || status)
			_exit(4);
		if (waitpid(pids.t, &status, 0) != pids.t)
			_exit(3);
		if (status)
			_exit(WIFEXITED(status) ? 10 + WEXITSTATUS(status) :
						  50 + WTERMSIG(status));
		_exit(0);
	}
	close(up[1]);
	close(go[0]);
	close(sgo[0]);
	if (!get(up[0], &pids, sizeof(pids))) {
		ASSERT_EQ(ns, waitpid(ns, &status, 0));
		if (WIFEXITED(status) && WEXITSTATUS(status) == 99)
			SKIP(return, "no pid namespaces");
		ASSERT_TRUE(false);
	}
	ASSERT_EQ(0, kev_create(pids.t, POSIXTRACE_K_KERNEL_SIGNAL,
				POSIX_TRACE_CLOSE_FOR_CHILD, &trid));
	ASSERT_TRUE(put_byte(go[1], 'g'));
	wait_byte(up[0]);
	ASSERT_EQ(0, kill(pids.t, SIGUSR1));
	ASSERT_TRUE(put_byte(sgo[1], 's'));
	/* S says when it has sent it. */
	wait_byte(up[0]);
	ASSERT_TRUE(put_byte(go[1], 'g'));
	ASSERT_EQ(ns, waitpid(ns, &status, 0));
	/* 10 + T's exit status, 50 + the signal that killed it. */
	ASSERT_EQ(0, status) TH_LOG("namespace: %d", WEXITSTATUS(status));
	ASSERT_EQ(0, kevs_stop_read(trid, &l));
	/* Both taken after both were sent, in the kernel's order. */
	ASSERT_MARKED(trid, pids.t, &l,
		WANT_GEN(pids.t, SIGUSR1, SI_USER, 0,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_GEN(pids.t, SIGUSR2, SI_USER, pids.s,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(pids.t, pids.t, SIGUSR1, SI_USER,
			 POSIXTRACE_SIGACT_HANDLER),
		WANT_DLV(pids.t, pids.t, SIGUSR2, SI_USER,
			 POSIXTRACE_SIGACT_HANDLER),
		WANT_USER(pids.t, pids.t, "kev.after"));
}

TEST_HARNESS_MAIN
