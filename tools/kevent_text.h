/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel events as people read them, in the three places they are
 * printed (see kevent.h for the names of their numbers):
 *
 *  - trace's lines, as strace -f writes the same things:
 *	fork -> pid 1235		vfork -> pid 1235
 *	clone(CLONE_VM|...|SIGCHLD) -> pid 1235	(other flags)
 *	clone(CLONE_VM|...|CLONE_THREAD|...) -> tid 1236	(a thread)
 *	exec "/bin/ls" ["ls", "-l"] (comm ls)
 *	+++ exited with 0 +++		+++ killed by SIGSEGV (core dumped) +++
 *	+++ thread exited with 0 +++	(a thread that is not the last)
 *	--- SIGCHLD {code=CLD_EXITED, sender=1235} ---	(generated)
 *	--- SIGUSR1 delivered {code=SI_USER, action=handler} ---
 *	lseek(0x3, 0x3039, 0, 0x7ffc..., 0, 0)	(a system call entered:
 *						the six registers)
 *	lseek = 12345			close = -1 EBADF (Bad file descriptor)
 *    A string the kernel cut is followed by "...", an argv of more than
 *    four arguments by ", ...".
 *  - dump's text, after the fields, in parentheses as for POSIX's system
 *    events: "(process 1235, flags SIGCHLD)", "(process exited 0)",
 *    "(SIGUSR1, SI_USER, from pid 1234, to the process, queued)"...
 *  - dump's JSON: members beside "fields", which keep the raw numbers:
 *    "sig_name", "code_name", "result_name", "action_name", "flags_names",
 *    "signal_name", "exit", "argv", "syscall_name", "errno_name" (what
 *    the event has of them).
 */
#ifndef POSIXTRACE_TOOL_KEVENT_TEXT_H
#define POSIXTRACE_TOOL_KEVENT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "kevent.h"

void kevent_print_line(FILE *out, const struct kevent *k);
void kevent_print_decoded(FILE *out, const struct kevent *k);
void kevent_print_json(FILE *out, const struct kevent *k);

#endif /* POSIXTRACE_TOOL_KEVENT_TEXT_H */
