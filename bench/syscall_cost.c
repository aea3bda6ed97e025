// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_cost: what recording system calls and scheduling costs (issue
 * 29's rows).
 *
 * Two workloads, each run under every setup: a system-call-heavy one,
 *
 *   dd if=/dev/zero of=/dev/null bs=1 count=CALLS   (two calls a byte)
 *
 * and a fork-heavy one (a shell loop starting PROCS /bin/true), timed
 * from fork to waitpid, with the guest's CPU time over the run from
 * /proc/stat (every CPU's, not idle nor iowait: the tracers' daemons,
 * workers and writers included), and the events each setup kept and lost:
 *
 *   untraced
 *   posixtrace record --kernel=proc,signal,syscall -o DIR/TAG.ptlog -- ...
 *   posixtrace record --kernel=all -o DIR/TAG.ptlog -- ...
 *   strace -f -o DIR/TAG.txt ...                   (a line an event)
 *   perf trace -o DIR/TAG.txt ...                  (a line an event)
 *
 * record's events and losses are its summary's; strace's and perf
 * trace's, the lines of their files (perf's "LOST" lines counted apart).
 * Each case runs once untimed first (a case that fails there is reported
 * and left out); ROUNDS rounds then run every case once, in turn. Times
 * are medians over the rounds, ratios medians of per-round ratios to the
 * untraced run of the same workload, and "added" is the time a setup adds
 * to the untraced run, as a fraction of what strace -f adds (the issue's
 * 1/10 goal).
 *
 * -N measures the neighbours instead: an untraced process's getppid()
 * loop (ns a call) and pipe ping-pong with a child (ns a round trip),
 * in alternating blocks with and without a stream recording the syscall
 * and sched classes of another process (posixtrace record
 * --kernel=syscall,sched -- sleep, started and stopped around each
 * block), as ratios of the same round's blocks.
 *
 *   syscall_cost [-r ROUNDS] [-c CALLS] [-n PROCS] [-p POSIXTRACE]
 *                [-s STRACE] [-P PERF] -d DIR
 *   syscall_cost -N [-r ROUNDS] [-p POSIXTRACE] -d DIR
 *
 * A program given as "-" leaves its cases out. CALLS (20,000) and PROCS
 * (50) are small for software emulation, where strace -f takes some
 * 30 s for dd's 40,000 calls.
 */
#include <signal.h>

#include "harness.h"

enum { UNTRACED, PT_SYSCALL, PT_ALL, STRACE, PERF, NSETUPS };
enum { DD, FORKS, NWORK };

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
};

static const char *const works[NWORK] = { "dd bs=1", "fork loop" };

struct result {
	double wall[MAX_ROUNDS], cpu[MAX_ROUNDS];
	unsigned long long events, lost;
	bool counted;
};

static struct result results[NWORK][NSETUPS];
static const char *dir, *tool = "posixtrace", *strace_prog = "strace",
		  *perf_prog = "perf";
static long calls = 20000, procs = 50;

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
	snprintf(buf, size, "%s/%s_%s.%s", dir, w == DD ? "dd" : "forks",
		 setups[s].tag, ext);
}

/* The strings of a command line that are not literals. */
struct cmd_strings {
	char file[4096], count[64], loop[256];
};

/* The command of workload w under setup s, into argv. */
static void command(int w, int s, char **argv, struct cmd_strings *cs)
{
	int n = 0;

	snprintf(cs->count, sizeof(cs->count), "count=%ld", calls);
	snprintf(cs->loop, sizeof(cs->loop),
		 "i=0; while [ $i -lt %ld ]; do /bin/true; i=$((i+1)); done",
		 procs);
	path_of(cs->file, sizeof(cs->file), w, s,
		s == PT_SYSCALL || s == PT_ALL ? "ptlog" : "txt");
	switch (s) {
	case PT_SYSCALL:
	case PT_ALL:
		argv[n++] = (char *)tool;
		argv[n++] = "record";
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
	}
	if (w == DD) {
		argv[n++] = "dd";
		argv[n++] = "if=/dev/zero";
		argv[n++] = "of=/dev/null";
		argv[n++] = "bs=1";
		argv[n++] = cs->count;
	} else {
		argv[n++] = "sh";
		argv[n++] = "-c";
		argv[n++] = cs->loop;
	}
	argv[n] = NULL;
}

/* bench_run(), with the guest's busy CPU time over it in *cpu. */
static double run_cmd(char **argv, const char *out, double *cpu, char *note,
		      size_t note_size)
{
	double c0 = cpu_busy(), t = bench_run(argv, out, note, note_size);

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

/* What setup s kept and lost of workload w's last run. */
static void count(int w, int s, const char *out)
{
	struct result *r = &results[w][s];
	char path[4096], line[4096];
	unsigned long long lost;
	FILE *f;

	r->counted = true;
	if (s == PT_SYSCALL || s == PT_ALL) {
		f = fopen(out, "r");
		r->counted = false;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "posixtrace record: %llu events (%*[^)]), %llu lost",
				   &r->events, &r->lost) == 2)
				r->counted = true;
		if (f)
			fclose(f);
		return;
	}
	path_of(path, sizeof(path), w, s, "txt");
	r->events = lines(path, s == PERF ? "LOST" : NULL, &lost);
	r->lost = s == PERF ? lost : 0;
	r->events -= r->lost;
	r->counted = s != UNTRACED;
}

static void report(int rounds)
{
	double ratio[MAX_ROUNDS], base, added_strace, added;
	int w, s, r;

	for (w = 0; w < NWORK; w++) {
		printf("%s (%s):\n", works[w], w == DD ? "two system calls a byte" :
		       "a shell loop of /bin/true");
		printf("  %-38s %9s %7s %9s %7s %12s %9s %9s\n", "setup",
		       "wall s", "ratio", "cpu s", "ratio", "events", "lost",
		       "added/strace");
		added_strace = setups[STRACE].skipped ? 0 :
			       median(results[w][STRACE].wall, rounds) -
			       median(results[w][UNTRACED].wall, rounds);
		for (s = 0; s < NSETUPS; s++) {
			struct result *res = &results[w][s];

			if (setups[s].skipped) {
				printf("  %-38s %s\n", setups[s].name,
				       setups[s].note);
				continue;
			}
			printf("  %-38s %9.3f", setups[s].name,
			       median(res->wall, rounds));
			for (r = 0; r < rounds; r++)
				ratio[r] = res->wall[r] /
					   results[w][UNTRACED].wall[r];
			printf(" %6.2fx", median(ratio, rounds));
			for (r = 0; r < rounds; r++)
				ratio[r] = results[w][UNTRACED].cpu[r] > 0 ?
					   res->cpu[r] /
					   results[w][UNTRACED].cpu[r] : 0;
			printf(" %9.2f %6.2fx", median(res->cpu, rounds),
			       median(ratio, rounds));
			if (res->counted)
				printf(" %12llu %9llu", res->events, res->lost);
			else
				printf(" %12s %9s", "-", "-");
			base = median(results[w][UNTRACED].wall, rounds);
			added = median(res->wall, rounds) - base;
			if (s != UNTRACED && added_strace > 0)
				printf(" %8.3f", added / added_strace);
			putchar('\n');
		}
	}
}

/* ---- the neighbours ------------------------------------------------------ */

static double getppid_ns(void)
{
	uint64_t n = 200000;
	double t0 = now();

	loop_getppid(n);
	return (now() - t0) / (double)n * NSEC_PER_SEC;
}

static double pingpong_ns(void)
{
	int a[2], b[2], n = 5000, i;
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

/* A record of sleep's syscall and sched classes, or -1. */
static pid_t start_stream(void)
{
	char log[4096];
	pid_t pid;

	snprintf(log, sizeof(log), "%s/neighbour.ptlog", dir);
	pid = fork();
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execlp(tool, tool, "record", "--kernel=syscall,sched", "-o", log,
		       "--", "sleep", "1000", (char *)NULL);
		_exit(127);
	}
	/* The probes are on once the stream is: give it the time to be. */
	usleep(500000);
	return pid;
}

static void stop_stream(pid_t pid)
{
	kill(pid, SIGINT);
	waitpid(pid, NULL, 0);
}

static int neighbours(int rounds)
{
	double g[2][MAX_ROUNDS], p[2][MAX_ROUNDS], rg[MAX_ROUNDS],
	       rp[MAX_ROUNDS];
	pid_t rec;
	int r;

	getppid_ns();
	pingpong_ns();
	for (r = 0; r < rounds; r++) {
		g[0][r] = getppid_ns();
		p[0][r] = pingpong_ns();
		rec = start_stream();
		if (rec < 0)
			return 1;
		g[1][r] = getppid_ns();
		p[1][r] = pingpong_ns();
		stop_stream(rec);
		rg[r] = g[1][r] / g[0][r];
		rp[r] = p[1][r] / p[0][r];
	}
	printf("an untraced process, while a stream records syscall and sched of another (sleep):\n");
	printf("  getppid loop:    %8.0f ns a call without, %8.0f with: %.2fx\n",
	       median(g[0], rounds), median(g[1], rounds), median(rg, rounds));
	printf("  pipe ping-pong:  %8.0f ns a round trip without, %8.0f with: %.2fx\n",
	       median(p[0], rounds), median(p[1], rounds), median(rp, rounds));
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-r ROUNDS] [-c CALLS] [-n PROCS] [-p POSIXTRACE] [-s STRACE] [-P PERF] -d DIR\n"
		"       %s -N [-r ROUNDS] [-p POSIXTRACE] -d DIR\n",
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

	while ((c = getopt(argc, argv, "r:c:n:p:s:P:d:N")) != -1) {
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
		return strcmp(tool, "-") ? neighbours(rounds) : 0;
	setups[PT_SYSCALL].skipped = setups[PT_ALL].skipped = !strcmp(tool, "-");
	setups[STRACE].skipped = !strcmp(strace_prog, "-");
	setups[PERF].skipped = !strcmp(perf_prog, "-");
	for (s = 0; s < NSETUPS; s++)
		if (setups[s].skipped)
			snprintf(setups[s].note, sizeof(setups[s].note),
				 "not measured: no program given");
	/* Once untimed: the emulator translates, a failing setup shows. */
	for (s = 0; s < NSETUPS; s++)
		for (w = 0; w < NWORK && !setups[s].skipped; w++) {
			command(w, s, cmd, &cs);
			path_of(out, sizeof(out), w, s, "out");
			if (run_cmd(cmd, out, &cpu, setups[s].note,
				    sizeof(setups[s].note)) < 0)
				setups[s].skipped = true;
		}
	for (r = 0; r < rounds; r++)
		for (c = 0; c < NSETUPS; c++) {
			s = (c + r) % NSETUPS;
			for (w = 0; w < NWORK && !setups[s].skipped; w++) {
				command(w, s, cmd, &cs);
				path_of(out, sizeof(out), w, s, "out");
				sleep(1);
				results[w][s].wall[r] =
					run_cmd(cmd, out, &results[w][s].cpu[r],
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
