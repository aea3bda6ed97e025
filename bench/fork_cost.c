// SPDX-License-Identifier: GPL-2.0
/*
 * fork_cost: what recording a fork-heavy command costs it (issue 27's goal
 * row). The workload is a shell loop starting PROCS short processes,
 *
 *   sh -c 'i=0; while [ $i -lt PROCS ]; do /bin/true; i=$((i+1)); done'
 *
 * timed from fork to waitpid, as it is run four ways:
 *
 *   untraced
 *   posixtrace record --kernel=proc,signal -o DIR/proc_signal.ptlog -- sh -c ...
 *   posixtrace record --kernel=none -o DIR/none.ptlog -- sh -c ...
 *   strace -f -e trace=process,signal -o DIR/strace.txt sh -c ...
 *
 * --kernel=none records the same processes (inheritance) without kernel
 * events: it separates what following the processes costs from what the
 * kernel events themselves cost. Each case runs once untimed first (the
 * emulator translates its code; a case that fails there, a tool without
 * --kernel for one, is reported and left out), then ROUNDS rounds run
 * every case once each, in turn, round r starting at case r, a second's
 * pause before each. A case's time is the median over the
 * rounds; ratios are medians of the per-round ratios. The last round's
 * logs stay in DIR, each case's output in DIR/TAG.out (untraced,
 * proc_signal, none, strace; record's summary is there), for the caller to
 * check that they hold what they should (bench/guest.sh counts the exec
 * and exit events).
 *
 *   fork_cost [-r ROUNDS] [-n PROCS] [-p POSIXTRACE] [-s STRACE] -d DIR
 *
 * POSIXTRACE and STRACE are the programs (found in PATH by default); "-"
 * leaves that tool's cases out.
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "harness.h"

enum { UNTRACED, PROC_SIGNAL, NONE, STRACE, NCASES };

struct fcase {
	const char *name;	/* as printed */
	const char *tag;	/* its output goes to DIR/TAG.out */
	const char *file;	/* its log in DIR, or NULL */
	char *argv[16];
	bool skipped;
	char note[200];
	double s[MAX_ROUNDS];	/* seconds, per round */
};

static struct fcase cases[NCASES] = {
	[UNTRACED] = { .name = "untraced", .tag = "untraced" },
	[PROC_SIGNAL] = { .name = "record --kernel=proc,signal",
			  .tag = "proc_signal", .file = "proc_signal.ptlog" },
	[NONE] = { .name = "record --kernel=none", .tag = "none",
		   .file = "none.ptlog" },
	[STRACE] = { .name = "strace -f -e trace=process,signal",
		     .tag = "strace", .file = "strace.txt" },
};

static const char *dir;

static char *out_path(const struct fcase *c)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s.out", dir, c->tag);
	return path;
}

/* Runs the case once: its time in seconds, or -1 (note says why). */
static double run(struct fcase *c)
{
	return bench_run(c->argv, out_path(c), c->note, sizeof(c->note));
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-r ROUNDS] [-n PROCS] [-p POSIXTRACE] [-s STRACE] -d DIR\n"
		"  -r  rounds, each running every case once (5; 1..%d)\n"
		"  -n  processes the shell loop starts (500)\n"
		"  -p  the posixtrace tool (posixtrace; - for none)\n"
		"  -s  strace (strace; - for none)\n"
		"  -d  where the logs and the cases' output go\n",
		prog, MAX_ROUNDS);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *tool = "posixtrace", *strace = "strace";
	static char script[200], logs[NCASES][4096];
	int rounds = 5, procs = 500, opt, i, r;
	double x[MAX_ROUNDS], add[MAX_ROUNDS];

	while ((opt = getopt(argc, argv, "r:n:p:s:d:t:")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 'n': procs = atoi(optarg); break;
		case 'p': tool = optarg; break;
		case 's': strace = optarg; break;
		case 'd': dir = optarg; break;
		case 't': break;	/* event_cost's, passed alike: unused */
		default: usage(argv[0]);
		}
	}
	if (!dir || rounds < 1 || rounds > MAX_ROUNDS || procs < 1)
		usage(argv[0]);
	snprintf(script, sizeof(script),
		 "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done",
		 procs);
	for (i = 0; i < NCASES; i++)
		if (cases[i].file)
			snprintf(logs[i], sizeof(logs[i]), "%s/%s", dir,
				 cases[i].file);

	{
		char **a;

		a = cases[UNTRACED].argv;
		a[0] = "sh", a[1] = "-c", a[2] = script;
		a = cases[PROC_SIGNAL].argv;
		a[0] = (char *)tool, a[1] = "record",
		a[2] = "--kernel=proc,signal", a[3] = "-o",
		a[4] = logs[PROC_SIGNAL], a[5] = "--", a[6] = "sh",
		a[7] = "-c", a[8] = script;
		a = cases[NONE].argv;
		a[0] = (char *)tool, a[1] = "record", a[2] = "--kernel=none",
		a[3] = "-o", a[4] = logs[NONE], a[5] = "--", a[6] = "sh",
		a[7] = "-c", a[8] = script;
		a = cases[STRACE].argv;
		a[0] = (char *)strace, a[1] = "-f",
		a[2] = "-e", a[3] = "trace=process,signal", a[4] = "-o",
		a[5] = logs[STRACE], a[6] = "sh", a[7] = "-c", a[8] = script;
	}
	if (!strcmp(tool, "-")) {
		cases[PROC_SIGNAL].skipped = cases[NONE].skipped = true;
		snprintf(cases[PROC_SIGNAL].note, sizeof(cases[0].note),
			 "not measured: no posixtrace tool");
		snprintf(cases[NONE].note, sizeof(cases[0].note),
			 "not measured: no posixtrace tool");
	}
	if (!strcmp(strace, "-")) {
		cases[STRACE].skipped = true;
		snprintf(cases[STRACE].note, sizeof(cases[0].note),
			 "not measured: no strace");
	}

	/* Untimed: the emulator's translations, and whether a case runs. */
	for (i = 0; i < NCASES; i++)
		if (!cases[i].skipped && run(&cases[i]) < 0)
			cases[i].skipped = true;
	if (cases[UNTRACED].skipped) {
		printf("fork-heavy row: the untraced loop failed (%s)\n",
		       cases[UNTRACED].note);
		return 1;
	}
	for (r = 0; r < rounds; r++)
		for (int k = 0; k < NCASES; k++) {
			/* Round r starts at case r: none always follows another. */
			struct fcase *c = &cases[(r + k) % NCASES];

			if (c->skipped)
				continue;
			/* What the last run left the kernel to do (its 500
			 * processes' freeing, the log's writeback) is not
			 * the next one's. */
			sleep(1);
			c->s[r] = run(c);
			if (c->s[r] < 0) {
				c->skipped = true;
				problem("a case failed in a timed round: left out");
			}
		}

	printf("fork-heavy: sh -c '%s', %d rounds\n\n", script, rounds);
	printf("%-36s %9s %9s %9s %11s\n", "case", "min s", "median s",
	       "max s", "x untraced");
	for (i = 0; i < NCASES; i++) {
		struct fcase *c = &cases[i];

		if (c->skipped) {
			printf("%-36s %s\n", c->name, c->note);
			continue;
		}
		printf("%-36s %9.3f %9.3f %9.3f %11.3f\n", c->name,
		       min_of(c->s, rounds), median(c->s, rounds),
		       max_of(c->s, rounds),
		       ratio_of(c->s, cases[UNTRACED].s, rounds));
	}
	printf("\nper round (s):\n");
	for (i = 0; i < NCASES; i++) {
		if (cases[i].skipped)
			continue;
		printf("  %-34s", cases[i].name);
		for (r = 0; r < rounds; r++)
			printf(" %.3f", cases[i].s[r]);
		printf("\n");
	}
	printf("\nmin/median/max s: the whole loop, over %d rounds; x untraced:"
	       " median of the per-round ratios.\n"
	       "Under emulation (QEMU TCG) absolute times mean little: read "
	       "the ratios there.\n", rounds);
	print_problems();
	printf("\n");

	/* The summary lines and the goals (issue 27). */
	for (i = PROC_SIGNAL; i <= NONE; i++) {
		struct fcase *c = &cases[i];

		if (c->skipped) {
			printf("fork-heavy, %s: %s\n", c->name, c->note);
			if (i == PROC_SIGNAL)
				printf("goal (issue 27): record --kernel="
				       "proc,signal at most 1.3x untraced, and "
				       "1/5 of what strace adds: not measured\n");
			continue;
		}
		for (r = 0; r < rounds; r++)
			x[r] = c->s[r] / cases[UNTRACED].s[r];
		printf("fork-heavy, %s: %.3fx untraced", c->name,
		       median(x, rounds));
		if (!cases[STRACE].skipped) {
			for (r = 0; r < rounds; r++)
				add[r] = (c->s[r] - cases[UNTRACED].s[r]) /
					 (cases[STRACE].s[r] -
					  cases[UNTRACED].s[r]);
			printf(", adds %.3f of what strace adds",
			       median(add, rounds));
		}
		printf("\n");
		if (i != PROC_SIGNAL)
			continue;
		printf("goal (issue 27): record --kernel=proc,signal at most "
		       "1.3x untraced: %s\n",
		       median(x, rounds) <= 1.3 ? "met" : "NOT met");
		if (cases[STRACE].skipped)
			printf("goal (issue 27): its added time at most 1/5 of "
			       "strace's: not measured (no strace)\n");
		else
			printf("goal (issue 27): its added time at most 1/5 of "
			       "strace's: %s\n",
			       median(add, rounds) <= 0.2 ? "met" : "NOT met");
	}
	if (!cases[STRACE].skipped)
		printf("fork-heavy, strace -f: %.3fx untraced\n",
		       ratio_of(cases[STRACE].s, cases[UNTRACED].s, rounds));
	else
		printf("fork-heavy, strace -f: %s\n", cases[STRACE].note);
	return 0;
}
