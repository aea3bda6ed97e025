// SPDX-License-Identifier: GPL-2.0
/* System call and scheduling statistics for record's summary (kstats.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kstats.h"
#include "syscall_names.h"

#define NSEC	1000000000ULL

struct kstats *kstats_new(void)
{
	return calloc(1, sizeof(struct kstats));
}

static uint64_t hash_tid(pid_t tid)
{
	return (uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ULL;
}

/* The slot of tid in a table of cap (a power of two) slots. */
static struct kstats_thread *slot(struct kstats_thread *t, size_t cap,
				  pid_t tid)
{
	size_t i = (size_t)(hash_tid(tid) >> 32) & (cap - 1);

	while (t[i].tid && t[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* Keeps the table at most half full: 0 or ENOMEM. */
static int grow(struct kstats *ks)
{
	size_t cap = ks->cap ? 2 * ks->cap : 64, i;
	struct kstats_thread *t;

	if (2 * (ks->nthreads + 1) <= ks->cap)
		return 0;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return ENOMEM;
	for (i = 0; i < ks->cap; i++)
		if (ks->threads[i].tid)
			*slot(t, cap, ks->threads[i].tid) = ks->threads[i];
	free(ks->threads);
	ks->threads = t;
	ks->cap = cap;
	return 0;
}

/* Thread tid of process pid, made if new; NULL without memory. */
static struct kstats_thread *thread(struct kstats *ks, pid_t pid, pid_t tid)
{
	struct kstats_thread *th;

	if (grow(ks))
		return NULL;
	th = slot(ks->threads, ks->cap, tid);
	if (!th->tid) {
		th->tid = tid;
		ks->nthreads++;
	}
	th->pid = pid;
	return th;
}

static struct kstats_call *call(struct kstats *ks, int nr, bool compat)
{
	if (nr < 0 || nr >= POSIXTRACE_SYSCALL_NR_MAX)
		nr = POSIXTRACE_SYSCALL_NR_MAX;
	return &ks->calls[compat][nr];
}

static void count_error(struct kstats_call *c, int err)
{
	int i;

	c->errors++;
	for (i = 0; i < KSTATS_ERRNOS && c->errnos[i]; i++) {
		if (c->errnos[i] == err) {
			c->errno_count[i]++;
			return;
		}
	}
	if (i == KSTATS_ERRNOS) {
		c->errno_other++;
		return;
	}
	c->errnos[i] = err;
	c->errno_count[i] = 1;
}

static void add_call(struct kstats *ks, struct kstats_thread *th,
		     const struct kevent *k, uint64_t ns)
{
	struct kstats_call *c = call(ks, k->u.sys.nr, k->u.sys.compat);
	int err;

	ks->any_call = true;
	if (k->kind == KEVENT_SYSCALL_ENTRY) {
		/* One it never left (exit_group) counted with no time. */
		c->calls++;
		th->in_call = true;
		th->nr = k->u.sys.nr;
		th->compat = k->u.sys.compat;
		th->entry_ns = ns;
		return;
	}
	if (!th->in_call || th->nr != k->u.sys.nr ||
	    th->compat != k->u.sys.compat) {
		/* The stream began inside it. */
		c->calls++;
	} else if (ns >= th->entry_ns) {
		c->ns += ns - th->entry_ns;
		c->timed++;
	}
	th->in_call = false;
	err = kevent_syscall_error(k);
	if (err)
		count_error(c, err);
}

static int add_latency(struct kstats_thread *th, uint64_t lat)
{
	uint64_t *n;

	if (th->nlat == th->cap) {
		n = realloc(th->lat, (th->cap ? 2 * th->cap : 16) * sizeof(*n));
		if (!n)
			return ENOMEM;
		th->lat = n;
		th->cap = th->cap ? 2 * th->cap : 16;
	}
	th->lat[th->nlat++] = lat;
	return 0;
}

int kstats_add(struct kstats *ks, const struct kevent *k, uint64_t ns)
{
	struct kstats_thread *th;

	switch (k->kind) {
	case KEVENT_SYSCALL_ENTRY:
	case KEVENT_SYSCALL_EXIT:
	case KEVENT_SCHED_WAKEUP:
	case KEVENT_SCHED_IN:
		break;
	default:
		return 0;
	}
	th = thread(ks, k->pid, k->tid);
	if (!th)
		return ENOMEM;
	if (k->kind == KEVENT_SYSCALL_ENTRY || k->kind == KEVENT_SYSCALL_EXIT) {
		add_call(ks, th, k, ns);
		return 0;
	}
	ks->any_sched = true;
	if (k->kind == KEVENT_SCHED_WAKEUP) {
		th->woken = true;
		th->woken_ns = ns;
		return 0;
	}
	if (!th->woken || ns < th->woken_ns)
		return 0;
	th->woken = false;
	return add_latency(th, ns - th->woken_ns);
}

/* ---- printing ------------------------------------------------------------ */

struct call_row {
	int nr;
	bool compat;
	const struct kstats_call *c;
};

static int by_time(const void *a, const void *b)
{
	const struct call_row *x = a, *y = b;

	if (x->c->ns != y->c->ns)
		return x->c->ns < y->c->ns ? 1 : -1;
	if (x->c->calls != y->c->calls)
		return x->c->calls < y->c->calls ? 1 : -1;
	return x->nr - y->nr;
}

/* "openat", "compat:open", "unknown" for numbers out of range. */
static const char *row_name(const struct call_row *r, char *buf,
			    size_t size)
{
	char name[SYSCALL_NAME_SIZE];

	if (r->nr == POSIXTRACE_SYSCALL_NR_MAX)
		snprintf(buf, size, "%sunknown", r->compat ? "compat:" : "");
	else
		snprintf(buf, size, "%s%s", r->compat ? "compat:" : "",
			 syscall_name(r->nr, r->compat, name));
	return buf;
}

/* " ENOENT 3, EBADF 1": the errnos of a row, by name. */
static void print_errnos(FILE *out, const struct kstats_call *c)
{
	const char *name;
	int i;

	for (i = 0; i < KSTATS_ERRNOS && c->errnos[i]; i++) {
		name = syscall_errno_name(c->errnos[i]);
		if (name)
			fprintf(out, "%s %s %llu", i ? "," : "", name,
				(unsigned long long)c->errno_count[i]);
		else
			fprintf(out, "%s errno %d %llu", i ? "," : "",
				c->errnos[i],
				(unsigned long long)c->errno_count[i]);
	}
	if (c->errno_other)
		fprintf(out, ", other %llu",
			(unsigned long long)c->errno_other);
}

static void print_calls(FILE *out, const struct kstats *ks, const char *p)
{
	const char *rule = "------ ----------- ----------- --------- --------- ----------------";
	struct call_row *rows;
	uint64_t ns = 0, calls = 0, errors = 0;
	size_t n = 0, i, t, nr;
	char name[SYSCALL_NAME_SIZE + 16];
	const struct kstats_call *c;

	rows = calloc(2 * (POSIXTRACE_SYSCALL_NR_MAX + 1), sizeof(*rows));
	if (!rows)
		return;
	for (t = 0; t < 2; t++)
		for (nr = 0; nr <= POSIXTRACE_SYSCALL_NR_MAX; nr++)
			if (ks->calls[t][nr].calls) {
				rows[n++] = (struct call_row) {
					(int)nr, t, &ks->calls[t][nr] };
				ns += ks->calls[t][nr].ns;
				calls += ks->calls[t][nr].calls;
				errors += ks->calls[t][nr].errors;
			}
	qsort(rows, n, sizeof(*rows), by_time);
	fprintf(out, "%ssystem calls, as strace -c -w counts them\n", p);
	fprintf(out, "%s%% time     seconds  usecs/call     calls    errors syscall\n", p);
	fprintf(out, "%s%s\n", p, rule);
	for (i = 0; i < n; i++) {
		c = rows[i].c;
		fprintf(out, "%s%6.2f %11.6f %11llu %9llu ", p,
			ns ? 100.0 * (double)c->ns / (double)ns : 0.0,
			(double)c->ns / NSEC,
			(unsigned long long)(c->timed ?
					     c->ns / c->timed / 1000 : 0),
			(unsigned long long)c->calls);
		if (c->errors)
			fprintf(out, "%9llu", (unsigned long long)c->errors);
		else
			fprintf(out, "%9s", "");
		fprintf(out, " %s", row_name(&rows[i], name, sizeof(name)));
		print_errnos(out, c);
		putc('\n', out);
	}
	fprintf(out, "%s%s\n", p, rule);
	fprintf(out, "%s100.00 %11.6f %11s %9llu %9llu total\n", p,
		(double)ns / NSEC, "", (unsigned long long)calls,
		(unsigned long long)errors);
	free(rows);
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int by_max(const void *a, const void *b)
{
	const struct kstats_thread *x = *(struct kstats_thread *const *)a;
	const struct kstats_thread *y = *(struct kstats_thread *const *)b;
	uint64_t mx = x->lat[x->nlat - 1], my = y->lat[y->nlat - 1];

	if (mx != my)
		return mx < my ? 1 : -1;
	return x->tid - y->tid;
}

static void print_latency(FILE *out, struct kstats *ks,
			  const struct proctree *tree, const char *p)
{
	struct kstats_thread **rows;
	const struct proc *proc;
	size_t n = 0, i, j;
	uint64_t sum;
	char label[48 + PROC_COMM_SIZE];

	rows = calloc(ks->nthreads + 1, sizeof(*rows));
	if (!rows)
		return;
	for (i = 0; i < ks->cap; i++) {
		if (!ks->threads[i].tid || !ks->threads[i].nlat)
			continue;
		rows[n++] = &ks->threads[i];
		qsort(ks->threads[i].lat, ks->threads[i].nlat,
		      sizeof(uint64_t), by_u64);
	}
	qsort(rows, n, sizeof(*rows), by_max);
	fprintf(out, "%swakeup to running, as perf sched latency counts it\n",
		p);
	fprintf(out, "%s%-32s %9s %11s %11s %11s\n", p, "thread", "wakeups",
		"avg usecs", "p99 usecs", "max usecs");
	for (i = 0; i < n; i++) {
		struct kstats_thread *th = rows[i];

		for (sum = 0, j = 0; j < th->nlat; j++)
			sum += th->lat[j];
		/* The 99th percentile: the least value above 99 % of them. */
		j = (th->nlat * 99 + 99) / 100 - 1;
		proc = proctree_find(tree, th->pid);
		snprintf(label, sizeof(label), "%d/%d%s%s%s", (int)th->pid,
			 (int)th->tid, proc && proc->comm[0] ? " (" : "",
			 proc && proc->comm[0] ? proc->comm : "",
			 proc && proc->comm[0] ? ")" : "");
		fprintf(out, "%s%-32s %9zu %11.1f %11.1f %11.1f\n", p, label,
			th->nlat, (double)sum / th->nlat / 1000,
			(double)th->lat[j] / 1000,
			(double)th->lat[th->nlat - 1] / 1000);
	}
	free(rows);
}

void kstats_print(FILE *out, struct kstats *ks, const struct proctree *tree,
		  const char *prefix)
{
	if (ks->any_call)
		print_calls(out, ks, prefix);
	if (ks->any_sched)
		print_latency(out, ks, tree, prefix);
}

void kstats_free(struct kstats *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->cap; i++)
		free(ks->threads[i].lat);
	free(ks->threads);
	free(ks);
}
