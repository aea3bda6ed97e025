// SPDX-License-Identifier: GPL-2.0
/* The processes of a trace (see proctree.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proctree.h"

static struct proc *find(const struct proctree *t, pid_t pid)
{
	size_t i;

	/* The latest first: a pid reused is the newest process. */
	for (i = t->n; i-- > 0;)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

const struct proc *proctree_find(const struct proctree *t, pid_t pid)
{
	return find(t, pid);
}

static struct proc *add(struct proctree *t, pid_t pid, pid_t ppid)
{
	struct proc *p = realloc(t->procs, (t->n + 1) * sizeof(*p));

	if (!p)
		return NULL;
	t->procs = p;
	p = &t->procs[t->n++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	return p;
}

static struct proc *get(struct proctree *t, pid_t pid)
{
	struct proc *p = find(t, pid);

	return p ? p : add(t, pid, 0);
}

/* The comm, printable: a byte that is not as \xNN. */
static void set_comm(struct proc *p, const struct kevent_str *comm)
{
	size_t i, n = 0;

	for (i = 0; i < comm->len && n + 5 <= sizeof(p->comm); i++)
		if (comm->p[i] > ' ' && comm->p[i] < 0x7f &&
		    comm->p[i] != '\\')
			p->comm[n++] = (char)comm->p[i];
		else
			n += (size_t)snprintf(p->comm + n, 5, "\\x%02x",
					      comm->p[i]);
	p->comm[n] = '\0';
}

static int add_fork(struct proctree *t, const struct kevent *k)
{
	struct proc *parent = get(t, k->pid), *child;
	char comm[PROC_COMM_SIZE];

	if (!parent)
		return ENOMEM;
	if (k->u.fork.thread) {
		parent->threads++;
		return 0;
	}
	/* add() may move parent: keep what the child inherits first. */
	memcpy(comm, parent->comm, sizeof(comm));
	child = add(t, k->u.fork.pid, k->pid);
	if (!child)
		return ENOMEM;
	memcpy(child->comm, comm, sizeof(comm));
	return 0;
}

int proctree_add(struct proctree *t, const struct log_event *ev)
{
	struct kevent k;
	struct proc *p;

	if (!kevent_decode(ev, &k)) {
		/*
		 * A process's own events make it one of the tree. POSIX's
		 * system events do not: START and STOP carry the pid of
		 * whoever started or stopped the stream, a tracer perhaps.
		 */
		if (ev->info.posix_event_id < POSIX_TRACE_UNNAMED_USER_EVENT)
			return 0;
		if (ev->info.posix_pid > 0 && !get(t, ev->info.posix_pid))
			return ENOMEM;
		return 0;
	}
	if (k.kind == KEVENT_FORK) {
		t->kernel_events = true;
		return add_fork(t, &k);
	}
	p = get(t, k.pid);
	if (!p)
		return ENOMEM;
	if (k.kind == KEVENT_EXEC) {
		t->kernel_events = true;
		set_comm(p, &k.u.exec.comm);
	} else if (k.kind == KEVENT_EXIT && k.u.exit.process) {
		t->kernel_events = true;
		p->exited = true;
		p->status = k.u.exit.status;
		p->signal = k.u.exit.signal;
		p->core = k.u.exit.core;
	}
	return 0;
}

static void print_proc(FILE *out, const struct proc *p)
{
	char text[EXIT_TEXT_SIZE];

	fprintf(out, "%d", (int)p->pid);
	if (p->comm[0])
		fprintf(out, " %s", p->comm);
	if (p->threads)
		fprintf(out, " [+%u thread%s]", p->threads,
			p->threads == 1 ? "" : "s");
	fprintf(out, " (%s)\n", p->exited ?
		kevent_exit_text(p->status, p->signal, p->core, text) :
		"no exit seen");
}

/*
 * Whether q is a child of p: forked by p's pid after p appeared, and
 * before another process took that pid.
 */
static bool is_child(const struct proctree *t, size_t p, size_t q)
{
	size_t r;

	if (q <= p || t->procs[q].ppid != t->procs[p].pid)
		return false;
	for (r = p + 1; r < q; r++)
		if (t->procs[r].pid == t->procs[p].pid)
			return false;
	return true;
}

static size_t last_child(const struct proctree *t, size_t p)
{
	size_t q, last = p;

	for (q = p + 1; q < t->n; q++)
		if (is_child(t, p, q))
			last = q;
	return last;
}

/* pad: what goes before every line of p's subtree ("|   ", "    "...). */
static void print_subtree(FILE *out, const struct proctree *t, size_t p,
			  char *pad, size_t depth)
{
	size_t q, last = last_child(t, p), len = strlen(pad);

	print_proc(out, &t->procs[p]);
	/* Deep trees stop growing their margin: the lines stay readable. */
	for (q = p + 1; q < t->n && last > p; q++) {
		if (!is_child(t, p, q))
			continue;
		fprintf(out, "%s%s", pad, q == last ? "`-- " : "|-- ");
		if (depth < 64)
			strcat(pad, q == last ? "    " : "|   ");
		print_subtree(out, t, q, pad, depth + 1);
		pad[len] = '\0';
	}
}

void proctree_print(FILE *out, const struct proctree *t, const char *prefix)
{
	char pad[64 * 4 + 256];
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->procs[i].ppid)
			continue;
		snprintf(pad, 256, "%s", prefix);
		fputs(prefix, out);
		print_subtree(out, t, i, pad, 0);
	}
}

void proctree_free(struct proctree *t)
{
	free(t->procs);
	t->procs = NULL;
	t->n = 0;
}
