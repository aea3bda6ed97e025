/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What record and trace share to run COMMAND under a stream: the stop
 * signals, and a child held before its exec until its stream runs.
 *
 * SIGINT and SIGTERM stop tracing (launch_stop_signal). Sent to us alone
 * (kill), they are passed on to COMMAND as SIGTERM; a terminal's Ctrl-C
 * reaches COMMAND by itself. They stay blocked except while we wait with
 * run_mask (ppoll, a timed read), so none is missed between two checks.
 *
 * The child waits for "go" (the stream is running on its pid) then
 * execs; an exec error comes back through a close-on-exec pipe, whose
 * closing by a successful exec says "running".
 */
#ifndef POSIXTRACE_TOOL_LAUNCH_H
#define POSIXTRACE_TOOL_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* The exit status of a command that could not be run, as the shell's. */
#define EXIT_CANNOT_RUN	127

/* The signal that asked us to stop; 0 while none did. */
extern volatile sig_atomic_t launch_stop_signal;

struct launch {
	const char *prog;		/* for messages */
	char **argv;			/* the command, NULL-terminated */
	bool stdout_to_stderr;		/* our stdout is not the command's */
	pid_t child;
	int pidfd;
	int go, err_fd;			/* our ends of the two pipes */
	sigset_t saved;			/* the mask we found */
	sigset_t run_mask;		/* the mask to wait with */
};

/* Catches the stop signals. 0, or 1 (said on stderr). */
int launch_signals(struct launch *l);
/* Forks COMMAND, held. 0 (l->child, l->pidfd), or 1 (said). */
int launch_fork(struct launch *l);
/*
 * Lets it exec: 0 once it runs, else the status to exit with (127 if the
 * exec failed, said on stderr; the child is reaped).
 */
int launch_go(struct launch *l);
/* Tracing could not start: the child gives up and is reaped. */
void launch_abort(struct launch *l);
/* Waits for COMMAND; its status as a shell gives it (128+N: signal N). */
int launch_wait(struct launch *l);

/* pidfd_open(2), which older C libraries lack. */
int launch_pidfd_open(pid_t pid);

#endif /* POSIXTRACE_TOOL_LAUNCH_H */
