// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_cost: what recording system calls and scheduling costs (issue
 * 29's rows).
 *
 * Two workloads, each run under every setup: a system-call-heavy one,
 *
 *   dd if=/dev/zero of=/dev/null bs=1 count=CALLS   (two calls a byte)
 *
 * and a fork-heavy one (a shell loop starting PROCS /bin/true), and true
 * (nothing: the setup's own start and stop, a fixed cost that a longer
 * run pays once, taken out of the "net" ratios), timed from fork to
 * waitpid, with the guest's CPU time over the run from
 * /proc/stat (every CPU's, not idle nor iowait: the tracers' daemons,
 * workers and writers included), and the events each setup kept and lost:
 *
 *   untraced
 *   posixtrace record -q --kernel=proc,signal,syscall -o DIR/TAG.ptlog -- ...
 *   posixtrace record -q --kernel=all -o DIR/TAG.ptlog -- ...
 *   strace -f -o DIR/TAG.txt ...                   (a line an event)
 *   perf trace -o DIR/TAG.txt ...                  (a line an event)
 *   LTTNG record syscall DIR/TAG UID -- syscall_cost as-uid UID ...
 *   LTTNG record all DIR/TAG UID -- syscall_cost as-uid UID ...
 *
 * LTTNG is bench/lttng_kernel.sh: LTTng's kernel tracer, the same events
 * as record's two setups into a session of a session daemon already
 * running (with lttng-modules loaded), for the processes of user UID
 * (AS_UID, 4242), which the workload switches to: record follows a
 * command's children, and LTTng can follow a user. record's events and
 * losses are its summary's first line (-q: the rest of the summary, the
 * tables per process and type and the system-call statistics, decodes
 * every event of the log after the run, which is not tracing's cost;
 * strace -c and perf trace -s are options too); LTTng's, babeltrace2's
 * count (lttng_kernel.sh count); strace's and perf trace's, the lines of
 * their files (perf's "LOST" lines counted apart).
 * A record that lost events (its exit status 3) was measured all the
 * same: its "lost" is the most a round lost, and losses in the untimed
 * first run are said below the tables.
 * Each case runs once untimed first (a case that fails there is reported
 * and left out); ROUNDS rounds then run every case once, in turn. Times
 * are medians over the rounds, ratios medians of per-round ratios to the
 * untraced run of the same workload ("net": both less their true), and
 * "added/strace" is the net time a setup adds to the untraced run, as a
 * fraction of what strace -f adds (the 1/10 goal).
 *
 * -N measures the neighbours instead: an untraced process's getppid()
 * loop (ns a call) and pipe ping-pong with a child (ns a round trip),
 * in blocks without a tracer and beside each tracer recording another
 * process (posixtrace record --kernel=syscall,sched, =syscall and =sched,
 * and perf trace, each of sleep, started and stopped around its block),
 * as ratios to the same round's block without.
 *
 *   syscall_cost [-r ROUNDS] [-c CALLS] [-n PROCS] [-p POSIXTRACE]
 *                [-s STRACE] [-P PERF] [-L LTTNG] -d DIR
 *   syscall_cost -N [-r ROUNDS] [-p POSIXTRACE] [-P PERF] -d DIR
 *
 *   syscall_cost as-uid UID COMMAND...     (COMMAND as UID, for LTTNG)
 *
 * A program given as "-" (LTTNG's default) leaves its cases out. CALLS
 * (100,000) is large enough that a tracer's own start and stop (LTTng's
 * session set-up above all) do not drown its per-event cost, and with
 * PROCS (50) small enough for software emulation, where strace -f of dd
 * is the slowest case by far. A neighbour's block (a million getppid
 * calls, 20,000 round trips) is long enough to stand above the guest's
 * noise.
 */
#include <grp.h>
#include <signal.h>

#include "harness.h"

enum { UNTRACED, PT_SYSCALL, PT_ALL, STRACE, PERF, LTTNG_SYSCALL, LTTNG_ALL,
       NSETUPS };
enum { AS_UID = 4242 };
enum { DD, FORKS, NOP, NWORK };

struct setup {
	const char *name, *tag;
	bool skipped;
	char note[200];
};

static struct setup setups[NSETUPS] = {
	[UNTRACED] = { "untraced", "untraced" },
	[PT_SYSCALL] = { "record --kernel=proc,signal,syscall", "pt_syscall" },
	[PT_ALL] = { "record --kernel=all", "pt_all" },
	[STRACE] = { "strace -f -o FILE", "strace" },
	[PERF] = { "perf trace -o FILE", "perf" },
	[LTTNG_SYSCALL] = { "lttng kernel: syscalls,proc,signal", "lttng_syscall" },
	[LTTNG_ALL] = { "lttng kernel: and sched", "lttng_all" },
};

static const char *const works[NWORK] = {
	[DD] = "dd bs=1",
	[FORKS] = "fork loop",
	[NOP] = "true",
};
static const char *const work_tags[NWORK] = {
	[DD] = "dd", [FORKS] = "forks", [NOP] = "true",
};

struct result {
	double wall[MAX_ROUNDS], cpu[MAX_ROUNDS];
	unsigned long long events, lost;
	bool counted;
};

static struct result results[NWORK][NSETUPS];
static const char *dir, *tool = "posixtrace", *strace_prog = "strace",
		  *perf_prog = "perf", *lttng_prog = "-", *self;
static long calls = 100000, procs = 50;

/* The guest's busy CPU time, in seconds, from /proc/stat's first line. */
static double cpu_busy(void)
{
	unsigned long long v[10] = { 0 }, busy;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		v[3] = v[4] = 0;
	fclose(f);
	busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	return (double)busy / (double)(hz > 0 ? hz : 100);
}

static void path_of(char *buf, size_t size, int w, int s, const char *ext)
{
	snprintf(buf, size, "%s/%s_%s.%s", dir, work_tags[w],
		 setups[s].tag, ext);
}

static bool is_lttng(int s)
{
	return s == LTTNG_SYSCALL || s == LTTNG_ALL;
}

/* The strings of a command line that are not literals. */
struct cmd_strings {
	char file[4096], count[64], loop[256], uid[16];
};

/* The command of workload w under setup s, into argv. */
static void command(int w, int s, char **argv, struct cmd_strings *cs)
{
	int n = 0;

	snprintf(cs->count, sizeof(cs->count), "count=%ld", calls);
	snprintf(cs->loop, sizeof(cs->loop),
		 "i=0; while [ $i -lt %ld ]; do /bin/true; i=$((i+1)); done",
		 procs);
	snprintf(cs->uid, sizeof(cs->uid), "%d", AS_UID);
	path_of(cs->file, sizeof(cs->file), w, s,
		s == PT_SYSCALL || s == PT_ALL ? "ptlog" :
		is_lttng(s) ? "trace" : "txt");
	switch (s) {
	case PT_SYSCALL:
	case PT_ALL:
		argv[n++] = (char *)tool;
		argv[n++] = "record";
		argv[n++] = "--quiet";
		argv[n++] = s == PT_ALL ? "--kernel=all" :
			    "--kernel=proc,signal,syscall";
		argv[n++] = "-o";
		argv[n++] = cs->file;
		argv[n++] = "--";
		break;
	case STRACE:
		argv[n++] = (char *)strace_prog;
		argv[n++] = "-f";
		argv[n++] = "-o";
		argv[n++] = cs->file;
		break;
	case PERF:
		argv[n++] = (char *)perf_prog;
		argv[n++] = "trace";
		argv[n++] = "-o";
		argv[n++] = cs->file;
		argv[n++] = "--";
		break;
	case LTTNG_SYSCALL:
	case LTTNG_ALL:
		argv[n++] = (char *)lttng_prog;
		argv[n++] = "record";
		argv[n++] = s == LTTNG_ALL ? "all" : "syscall";
		argv[n++] = cs->file;
		argv[n++] = cs->uid;
		argv[n++] = "--";
		argv[n++] = (char *)self;
		argv[n++] = "as-uid";
		argv[n++] = cs->uid;
		break;
	}
	if (w == DD) {
		argv[n++] = "dd";
		argv[n++] = "if=/dev/zero";
		argv[n++] = "of=/dev/null";
		argv[n++] = "bs=1";
		argv[n++] = cs->count;
	} else if (w == FORKS) {
		argv[n++] = "sh";
		argv[n++] = "-c";
		argv[n++] = cs->loop;
	} else {
		argv[n++] = "true";
	}
	argv[n] = NULL;
}

/* Is setup s posixtrace record (whose exit status 3 says events were lost)? */
static bool is_record(int s)
{
	return s == PT_SYSCALL || s == PT_ALL;
}

/*
 * bench_run() of setup s, with the guest's busy CPU time over it in *cpu.
 * A record that lost events (exit status 3) was measured all the same:
 * its losses are counted and shown (count()), not a reason to leave the
 * setup out.
 */
static double run_cmd(int s, char **argv, const char *out, double *cpu,
		      char *note, size_t note_size)
{
	double c0 = cpu_busy(),
	       t = bench_run_ok(argv, out, is_record(s) ? 3 : 0, note,
				note_size);

	*cpu = cpu_busy() - c0;
	return t;
}

/* The lines of path (and of them, those containing what). */
static unsigned long long lines(const char *path, const char *what,
				unsigned long long *matching)
{
	unsigned long long n = 0;
	char line[4096];
	FILE *f = fopen(path, "r");

	*matching = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (what && strstr(line, what))
			(*matching)++;
	}
	fclose(f);
	return n;
}

/*
 * The events kept and lost from the line of the file at path that fmt
 * ("... %llu ... %llu ...") reads; false if there is none.
 */
static bool scan_counts(const char *path, const char *fmt,
			struct result *r)
{
	unsigned long long events, lost;
	char line[4096];
	bool found = false;
	FILE *f = fopen(path, "r");

	/* A line that matches only in part must not clobber the counts. */
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &events, &lost) == 2) {
			r->events = events;
			r->lost = lost;
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

#define RECORD_COUNTS	"posixtrace record: %llu events logged, %llu lost"

/*
 * What setup s kept and lost of workload w's run just made: record's, the
 * most any round lost; the others', the last round's.
 */
static void count(int w, int s, const char *out)
{
	struct result *r = &results[w][s];
	char path[4096], counts[4096], note[200];
	char *argv[] = { (char *)lttng_prog, "count", path, NULL };
	unsigned long long lost;

	if (is_lttng(s)) {
		/* babeltrace2 under emulation is slow: the first round's. */
		if (r->counted)
			return;
		path_of(path, sizeof(path), w, s, "trace");
		path_of(counts, sizeof(counts), w, s, "count");
		r->counted = bench_run(argv, counts, note, sizeof(note)) >= 0 &&
			     scan_counts(counts,
					 "lttng: %llu events, %llu discarded",
					 r);
		return;
	}
	if (is_record(s)) {
		struct result run = { 0 };

		/* The most a round lost, and that round's events. */
		if (scan_counts(out, RECORD_COUNTS, &run) &&
		    (!r->counted || run.lost >= r->lost)) {
			r->events = run.events;
			r->lost = run.lost;
			r->counted = true;
		}
		return;
	}
	path_of(path, sizeof(path), w, s, "txt");
	r->events = lines(path, s == PERF ? "LOST" : NULL, &lost);
	r->lost = s == PERF ? lost : 0;
	r->events -= r->lost;
	r->counted = s != UNTRACED;
}

/*
 * Losses in the untimed first run are said, apart from the table's
 * rounds: under emulation that run is also the one that translates the
 * code for the first time.
 */
static void warmup_losses(int w, int s, const char *out)
{
	struct result run = { 0 };
	char msg[200];

	if (!scan_counts(out, RECORD_COUNTS, &run) || !run.lost)
		return;
	snprintf(msg, sizeof(msg),
		 "%s lost %llu of %llu events in the untimed first run of %s",
		 setups[s].name, run.lost, run.events + run.lost,
		 works[w]);
	problem(msg);
}

/*
 * Workload w's time under setup s in round r, less the same setup's time
 * for true in that round: what the workload's calls and processes cost,
 * without the tracer's start and stop, which a longer run pays once.
 */
static double net(int w, int s, int r)
{
	return results[w][s].wall[r] - results[NOP][s].wall[r];
}

/* The median over the rounds of net time added by setup s to w. */
static double net_added(int w, int s, int rounds)
{
	double added[MAX_ROUNDS];
	int r;

	for (r = 0; r < rounds; r++)
		added[r] = net(w, s, r) - net(w, UNTRACED, r);
	return median(added, rounds);
}

/* The net time record adds (setup pt) against the time LTTng adds (lt). */
static void lttng_compare(int w, int pt, int lt, int rounds)
{
	double added_lt;

	if (setups[pt].skipped || setups[lt].skipped)
		return;
	added_lt = net_added(w, lt, rounds);
	if (added_lt > 0)
		printf("  net time added, %s against %s: %.2fx\n",
		       setups[pt].name, setups[lt].name,
		       net_added(w, pt, rounds) / added_lt);
}

static void report_setup(int w, int s, int rounds, double added_strace)
{
	struct result *res = &results[w][s], *base = &results[w][UNTRACED];
	double ratio[MAX_ROUNDS];
	int r;

	printf("  %-36s %8.3f", setups[s].name, median(res->wall, rounds));
	for (r = 0; r < rounds; r++)
		ratio[r] = res->wall[r] / base->wall[r];
	printf(" %6.2fx", median(ratio, rounds));
	for (r = 0; r < rounds; r++)
		ratio[r] = net(w, UNTRACED, r) > 0 ?
			   net(w, s, r) / net(w, UNTRACED, r) : 0;
	printf(" %6.2fx", median(ratio, rounds));
	for (r = 0; r < rounds; r++)
		ratio[r] = base->cpu[r] > 0 ? res->cpu[r] / base->cpu[r] : 0;
	printf(" %7.2f %6.2fx", median(res->cpu, rounds),
	       median(ratio, rounds));
	if (res->counted)
		printf(" %9llu %7llu", res->events, res->lost);
	else
		printf(" %9s %7s", "-", "-");
	if (s != UNTRACED && added_strace > 0)
		printf(" %8.3f", net_added(w, s, rounds) / added_strace);
	putchar('\n');
}

static void report(int rounds)
{
	double added_strace;
	int w, s;

	printf("true (each setup's start and stop, taken out of the net ratios):\n");
	for (s = 0; s < NSETUPS; s++)
		if (!setups[s].skipped)
			printf("  %-36s %8.3f s\n", setups[s].name,
			       median(results[NOP][s].wall, rounds));
	for (w = 0; w < NOP; w++) {
		printf("%s (%s):\n", works[w], w == DD ? "two system calls a byte" :
		       "a shell loop of /bin/true");
		printf("  %-36s %8s %7s %7s %7s %7s %9s %7s %8s\n", "setup",
		       "wall s", "ratio", "net", "cpu s", "ratio", "events",
		       "lost", "added/strace");
		added_strace = setups[STRACE].skipped ? 0 :
			       net_added(w, STRACE, rounds);
		for (s = 0; s < NSETUPS; s++) {
			if (setups[s].skipped)
				printf("  %-36s %s\n", setups[s].name,
				       setups[s].note);
			else
				report_setup(w, s, rounds, added_strace);
		}
		lttng_compare(w, PT_SYSCALL, LTTNG_SYSCALL, rounds);
		lttng_compare(w, PT_ALL, LTTNG_ALL, rounds);
	}
}

/* ---- the neighbours ------------------------------------------------------ */

static double getppid_ns(void)
{
	uint64_t n = 1000000;
	double t0 = now();

	loop_getppid(n);
	return (now() - t0) / (double)n * NSEC_PER_SEC;
}

static double pingpong_ns(void)
{
	int a[2], b[2], n = 20000, i;
	char c = 0;
	double t0, t;
	pid_t pid;

	if (pipe(a) || pipe(b))
		return -1;
	pid = fork();
	if (!pid) {
		for (i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = now();
	for (i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
	t = (now() - t0) / n * NSEC_PER_SEC;
	waitpid(pid, NULL, 0);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return t;
}

/*
 * posixtrace's probes stay registered for kernel_probes_linger_ms after
 * the last stream that wanted them goes, and while they are, every
 * task's system calls take the kernel's slow path: an untraced run
 * right after a record would be slowed by the record before it. So every
 * timed run waits until none is registered (30 s at most, else said);
 * syscall_guest.sh sets the linger to 0, so that this is at once and
 * each record setup pays for registering its own probes, as LTTng's
 * sessions do.
 */
#define KERNEL_PROBES "/sys/module/posixtrace/parameters/kernel_probes"

static void wait_probes_gone(void)
{
	unsigned int on = 0;
	int i, got;
	FILE *f;

	for (i = 0; i < 300; i++) {
		f = fopen(KERNEL_PROBES, "r");
		if (!f)
			return;
		got = fscanf(f, "%u", &on);
		fclose(f);
		if (got != 1 || !on)
			return;
		usleep(100000);
	}
	problem("posixtrace's probes stayed registered 30 s after a record: "
		"some runs were measured with them on");
}

/*
 * The tracers the neighbours run beside, each recording another process
 * (sleep): record with both classes, then each alone (sched's probes run
 * on context switches, syscall's on every task's system calls: the
 * kernel's syscall tracepoints put every task on the slow path of system
 * call entry and exit while any probe is registered), and perf trace of
 * that process, which pays the same slow path. And record with its
 * default classes (proc and signal, whose probes are on forks, execs,
 * exits and signals only), a control: the tool beside the neighbour, its
 * stream and log, and no probe on a system call or a context switch
 * (under emulation, another CPU's activity alone shows).
 */
enum { NB_DEFAULT, NB_ALL, NB_SYSCALL, NB_SCHED, NB_PERF, NNEIGHBOURS };
static const char *const nb_names[NNEIGHBOURS] = {
	[NB_DEFAULT] = "record (proc,signal: control)",
	[NB_ALL] = "record --kernel=syscall,sched",
	[NB_SYSCALL] = "record --kernel=syscall",
	[NB_SCHED] = "record --kernel=sched",
	[NB_PERF] = "perf trace",
};

/* Tracer t recording sleep, or -1. */
static pid_t start_tracer(int t)
{
	char log[4096];
	pid_t pid;

	snprintf(log, sizeof(log), "%s/neighbour.%s", dir,
		 t == NB_PERF ? "txt" : "ptlog");
	pid = fork();
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		/* A group of its own, as a shell's job: see stop_tracer(). */
		setpgid(0, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (t == NB_PERF)
			execlp(perf_prog, perf_prog, "trace", "-o", log, "--",
			       "sleep", "1000", (char *)NULL);
		else if (t == NB_DEFAULT)
			execlp(tool, tool, "record", "-o", log, "--", "sleep",
			       "1000", (char *)NULL);
		else
			execlp(tool, tool, "record",
			       t == NB_ALL ? "--kernel=syscall,sched" :
			       t == NB_SYSCALL ? "--kernel=syscall" :
			       "--kernel=sched", "-o", log, "--", "sleep",
			       "1000", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);	/* whichever of us runs first */
	/* The probes are on once the tracer is: give it the time to be. */
	usleep(500000);
	return pid;
}

/*
 * Ctrl-C, as a terminal sends it: to the tracer and the sleep it runs,
 * which would otherwise outlive it.
 */
static void stop_tracer(pid_t pid)
{
	kill(-pid, SIGINT);
	waitpid(pid, NULL, 0);
}

static int neighbours(int rounds)
{
	double g0[MAX_ROUNDS], p0[MAX_ROUNDS], g[NNEIGHBOURS][MAX_ROUNDS],
	       p[NNEIGHBOURS][MAX_ROUNDS], rg[MAX_ROUNDS], rp[MAX_ROUNDS];
	bool skip[NNEIGHBOURS] = { false };
	pid_t pid;
	int r, t;

	skip[NB_DEFAULT] = skip[NB_ALL] = skip[NB_SYSCALL] = skip[NB_SCHED] =
		!strcmp(tool, "-");
	skip[NB_PERF] = !strcmp(perf_prog, "-");
	getppid_ns();
	pingpong_ns();
	for (r = 0; r < rounds; r++) {
		wait_probes_gone();
		g0[r] = getppid_ns();
		p0[r] = pingpong_ns();
		for (t = 0; t < NNEIGHBOURS; t++) {
			if (skip[t])
				continue;
			wait_probes_gone();
			fprintf(stderr, "neighbours: round %d beside %s\n",
				r + 1, nb_names[t]);
			pid = start_tracer(t);
			if (pid < 0)
				return 1;
			g[t][r] = getppid_ns();
			p[t][r] = pingpong_ns();
			stop_tracer(pid);
		}
	}
	printf("an untraced process, while a tracer records another (sleep):\n");
	printf("  %-32s %12s %7s %14s %7s\n", "beside", "getppid ns",
	       "ratio", "ping-pong ns", "ratio");
	printf("  %-32s %12.0f %6.2fx %14.0f %6.2fx\n", "nothing",
	       median(g0, rounds), 1.0, median(p0, rounds), 1.0);
	for (t = 0; t < NNEIGHBOURS; t++) {
		if (skip[t])
			continue;
		for (r = 0; r < rounds; r++) {
			rg[r] = g[t][r] / g0[r];
			rp[r] = p[t][r] / p0[r];
		}
		printf("  %-32s %12.0f %6.2fx %14.0f %6.2fx\n", nb_names[t],
		       median(g[t], rounds), median(rg, rounds),
		       median(p[t], rounds), median(rp, rounds));
	}
	print_problems();
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-r ROUNDS] [-c CALLS] [-n PROCS] [-p POSIXTRACE] [-s STRACE] [-P PERF] [-L LTTNG] -d DIR\n"
		"       %s -N [-r ROUNDS] [-p POSIXTRACE] [-P PERF] -d DIR\n",
		prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	char *cmd[32], out[4096];
	struct cmd_strings cs;
	bool neigh = false;
	int rounds = 3, c, w, s, r;
	double cpu;

	if (argc > 3 && !strcmp(argv[1], "as-uid")) {
		uid_t uid = (uid_t)atol(argv[2]);

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
			perror("as-uid");
			return 126;
		}
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	self = realpath("/proc/self/exe", NULL);
	if (!self)
		self = argv[0];
	while ((c = getopt(argc, argv, "r:c:n:p:s:P:L:d:N")) != -1) {
		switch (c) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'c':
			calls = atol(optarg);
			break;
		case 'n':
			procs = atol(optarg);
			break;
		case 'p':
			tool = optarg;
			break;
		case 's':
			strace_prog = optarg;
			break;
		case 'P':
			perf_prog = optarg;
			break;
		case 'L':
			lttng_prog = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'N':
			neigh = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!dir || rounds < 1 || rounds > MAX_ROUNDS || calls < 1 || procs < 1)
		usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (neigh)
		return neighbours(rounds);
	setups[PT_SYSCALL].skipped = setups[PT_ALL].skipped = !strcmp(tool, "-");
	setups[STRACE].skipped = !strcmp(strace_prog, "-");
	setups[PERF].skipped = !strcmp(perf_prog, "-");
	setups[LTTNG_SYSCALL].skipped = setups[LTTNG_ALL].skipped =
		!strcmp(lttng_prog, "-");
	for (s = 0; s < NSETUPS; s++)
		if (setups[s].skipped)
			snprintf(setups[s].note, sizeof(setups[s].note),
				 "not measured: no program given");
	/* Once untimed: the emulator translates, a failing setup shows. */
	for (s = 0; s < NSETUPS; s++)
		for (w = 0; w < NWORK && !setups[s].skipped; w++) {
			command(w, s, cmd, &cs);
			path_of(out, sizeof(out), w, s, "out");
			wait_probes_gone();
			if (run_cmd(s, cmd, out, &cpu, setups[s].note,
				    sizeof(setups[s].note)) < 0)
				setups[s].skipped = true;
			else if (is_record(s))
				warmup_losses(w, s, out);
		}
	for (r = 0; r < rounds; r++)
		for (c = 0; c < NSETUPS; c++) {
			s = (c + r) % NSETUPS;
			for (w = 0; w < NWORK && !setups[s].skipped; w++) {
				command(w, s, cmd, &cs);
				path_of(out, sizeof(out), w, s, "out");
				sleep(1);
				wait_probes_gone();
				results[w][s].wall[r] =
					run_cmd(s, cmd, out,
						&results[w][s].cpu[r],
						setups[s].note,
						sizeof(setups[s].note));
				if (results[w][s].wall[r] < 0) {
					setups[s].skipped = true;
					continue;
				}
				count(w, s, out);
			}
		}
	if (setups[UNTRACED].skipped) {
		printf("the untraced runs failed: %s\n", setups[UNTRACED].note);
		return 1;
	}
	report(rounds);
	print_problems();
	return 0;
}
