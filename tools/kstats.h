/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What record's summary says of the kernel-rate classes, as the tools
 * people know say it: per system call, as strace -c (calls, errors by
 * errno name, the time inside, from each thread's entry to its exit), and
 * per thread, as perf sched latency (how long from a wakeup to running:
 * the count, mean, 99th percentile and maximum).
 *
 * A call's time is its thread's, wall clock: it includes the time the
 * thread waited inside (a read that blocks), as strace -c -w counts it.
 * A call with no exit (exit_group, an execve that succeeded) or no entry
 * (the stream began inside it) counts as a call with no time.
 */
#ifndef POSIXTRACE_TOOL_KSTATS_H
#define POSIXTRACE_TOOL_KSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/posixtrace.h>

#include "kevent.h"
#include "proctree.h"

/* The errno names a call's row keeps apart; the rest are "other". */
#define KSTATS_ERRNOS	6

struct kstats_call {
	uint64_t calls, errors, ns, timed;
	int errnos[KSTATS_ERRNOS];
	uint64_t errno_count[KSTATS_ERRNOS];
	uint64_t errno_other;
};

struct kstats_thread {
	pid_t pid, tid;			/* tid 0: a free slot */
	/* The call it is in, from its entry. */
	bool in_call;
	int nr;
	bool compat;
	uint64_t entry_ns;
	/* Its last wakeup not yet followed by a run. */
	bool woken;
	uint64_t woken_ns;
	uint64_t *lat;			/* wakeup-to-run latencies, ns */
	size_t nlat, cap;
};

struct kstats {
	/* Per table (native, compat) and number; the last: out of range. */
	struct kstats_call calls[2][POSIXTRACE_SYSCALL_NR_MAX + 1];
	bool any_call, any_sched;
	struct kstats_thread *threads;	/* open addressing by tid */
	size_t nthreads, cap;
};

/* A new, empty set; NULL without memory. */
struct kstats *kstats_new(void);
/* Counts what k says, at time ns; 0 or ENOMEM. */
int kstats_add(struct kstats *ks, const struct kevent *k, uint64_t ns);
/*
 * The two tables on out, each line starting with prefix, if the trace
 * had the events; threads named by their process's command from tree.
 */
void kstats_print(FILE *out, struct kstats *ks, const struct proctree *tree,
		  const char *prefix);
void kstats_free(struct kstats *ks);

#endif /* POSIXTRACE_TOOL_KSTATS_H */
