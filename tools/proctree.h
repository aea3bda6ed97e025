/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes of a trace, as its kernel events tell them: who forked
 * whom (posixtrace_proc_fork), the command each runs (the comm of its
 * last posixtrace_proc_exec, else its parent's when it forked), and how
 * it ended (posixtrace_proc_exit of its last thread). dump --tree prints
 * it, record's summary names processes by it. A process seen only in
 * other events (a log without kernel events) is a root with no name.
 */
#ifndef POSIXTRACE_TOOL_PROCTREE_H
#define POSIXTRACE_TOOL_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "kevent.h"

/* A comm is 15 bytes; escaped (\xNN) it takes at most four times that. */
#define PROC_COMM_SIZE	64

struct proc {
	pid_t pid, ppid;		/* ppid 0: a root, its parent unseen */
	char comm[PROC_COMM_SIZE];	/* "" when not known */
	bool exited;
	int status, signal;
	bool core;
	unsigned int threads;		/* created besides the first */
};

struct proctree {
	struct proc *procs;		/* in the order first seen */
	size_t n;
	bool kernel_events;		/* any fork, exec or exit */
};

/* Adds what ev says; 0, or ENOMEM. */
int proctree_add(struct proctree *t, const struct log_event *ev);
/* The process pid, or NULL if the trace never showed it. */
const struct proc *proctree_find(const struct proctree *t, pid_t pid);

/*
 * Like pstree -A, one process a line, each line starting with prefix:
 *	1000 sh (exited 3)
 *	|-- 1001 ls (exited 0)
 *	`-- 1004 sh (killed by SIGSEGV (core dumped))
 * A process with no exit event is "(no exit seen)".
 */
void proctree_print(FILE *out, const struct proctree *t, const char *prefix);
void proctree_free(struct proctree *t);

#endif /* POSIXTRACE_TOOL_PROCTREE_H */
