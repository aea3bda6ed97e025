// SPDX-License-Identifier: GPL-2.0
/* Running COMMAND under a stream (see launch.h). */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

volatile sig_atomic_t launch_stop_signal;
/* Our command, told to terminate when a signal was sent to us alone. */
static volatile pid_t forward_pid;
/* SIGINT's and SIGTERM's dispositions as we found them, for COMMAND. */
static struct sigaction saved_int, saved_term;

static void on_stop_signal(int sig, siginfo_t *info, void *ucontext)
{
	pid_t pid = forward_pid;

	(void)ucontext;
	launch_stop_signal = sig;
	/*
	 * si_code <= 0: kill() or sigqueue() sent it to us, likely alone,
	 * so the command has not had it; a terminal's (SI_KERNEL) went to
	 * the whole foreground process group, command included. SIGTERM,
	 * not sig: a background job of a script runs with SIGINT ignored,
	 * and "record ... & kill -INT $!" must still end the command.
	 */
	if (pid > 0 && info->si_code <= 0)
		kill(pid, SIGTERM);
}

int launch_signals(struct launch *l)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: wake ppoll */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	/*
	 * Caught even if ignored on entry (a script's background job), as
	 * perf record does: stopping a recording with kill -INT is common.
	 */
	if (sigprocmask(SIG_BLOCK, &block, &l->saved) ||
	    sigaction(SIGINT, &sa, &saved_int) ||
	    sigaction(SIGTERM, &sa, &saved_term)) {
		fprintf(stderr, "%s: signals: %s\n", l->prog, strerror(errno));
		return 1;
	}
	l->run_mask = l->saved;
	sigdelset(&l->run_mask, SIGINT);
	sigdelset(&l->run_mask, SIGTERM);
	return 0;
}

int launch_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The command's side of the fork: wait for "go", then exec. */
static void __attribute__((noreturn))
child_exec(struct launch *l, const int go[2], const int errp[2])
{
	char c;
	int err;
	ssize_t n;

	/* Our copy of the write end would keep "go" from ever seeing EOF. */
	close(go[1]);
	close(errp[0]);

	/* COMMAND gets the signals as we got them: ignored stays ignored. */
	sigaction(SIGINT, &saved_int, NULL);
	sigaction(SIGTERM, &saved_term, NULL);
	sigprocmask(SIG_SETMASK, &l->saved, NULL);
	/* Standard output carries our own: keep the command's text apart. */
	if (l->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(EXIT_CANNOT_RUN);
	do
		n = read(go[0], &c, 1);
	while (n < 0 && errno == EINTR);
	/* No "go": the parent could not trace us and says why. */
	if (n != 1)
		_exit(EXIT_CANNOT_RUN);
	execvp(l->argv[0], l->argv);
	err = errno;
	n = write(errp[1], &err, sizeof(err));
	(void)n;
	_exit(EXIT_CANNOT_RUN);
}

int launch_fork(struct launch *l)
{
	int go[2], errp[2];

	l->go = l->err_fd = l->pidfd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		fprintf(stderr, "%s: pipe: %s\n", l->prog, strerror(errno));
		return 1;
	}
	l->child = fork();
	if (l->child < 0) {
		fprintf(stderr, "%s: fork: %s\n", l->prog, strerror(errno));
		return 1;
	}
	if (l->child == 0)
		child_exec(l, go, errp);
	close(go[0]);
	close(errp[1]);
	l->go = go[1];
	l->err_fd = errp[0];
	forward_pid = l->child;
	l->pidfd = launch_pidfd_open(l->child);
	if (l->pidfd < 0) {
		fprintf(stderr, "%s: pidfd_open: %s\n", l->prog,
			strerror(errno));
		launch_abort(l);
		return 1;
	}
	return 0;
}

/* waitpid() status as a shell reports it. */
static int exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

static int reap(pid_t pid)
{
	int wstatus;

	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR)
			return 1;
	return exit_status(wstatus);
}

static void close_pipes(struct launch *l)
{
	if (l->go >= 0)
		close(l->go);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->go = l->err_fd = -1;
}

void launch_abort(struct launch *l)
{
	/* Closing "go" unwritten tells the child to give up. */
	close_pipes(l);
	reap(l->child);
}

int launch_go(struct launch *l)
{
	int err;
	ssize_t n;

	if (write(l->go, "g", 1) != 1) {
		launch_abort(l);
		return 1;
	}
	close(l->go);
	l->go = -1;
	do
		n = read(l->err_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close_pipes(l);
	if (n != sizeof(err))
		return 0;
	fprintf(stderr, "%s: cannot run %s: %s\n", l->prog, l->argv[0],
		strerror(err));
	reap(l->child);
	return EXIT_CANNOT_RUN;
}

int launch_wait(struct launch *l)
{
	struct pollfd pfd = { .fd = l->pidfd, .events = POLLIN };

	/* Signals sent to us alone meanwhile are passed on. */
	while (ppoll(&pfd, 1, NULL, &l->run_mask) < 0 && errno == EINTR)
		;
	return reap(l->child);
}
