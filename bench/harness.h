/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks share: the clock, the references (a null system call
 * and an 8-byte write to ftrace's trace_marker), calibration, and the
 * statistics over rounds. One copy, so that every program times the same
 * way and their ratios can be read side by side.
 *
 * Method. Each measurement times a loop of N calls with
 * clock_gettime(CLOCK_MONOTONIC). N is calibrated once per case so that a
 * loop takes about the target time; R rounds then measure every case once
 * each, in turn, so that a drift of the machine (or of the emulator)
 * touches all cases alike. A case's ns/call is the median over the rounds
 * (min and max shown beside it); its ratio to a reference is the median of
 * the per-round ratios.
 */
#ifndef POSIXTRACE_BENCH_HARNESS_H
#define POSIXTRACE_BENCH_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_SEC	1000000000.0
#define MAX_ROUNDS	99
#define DATA_LEN	8

static char bench_problems[8][200];
static int bench_nr_problems;

/* Something that makes a number mean less than it says: printed at the end. */
static inline void problem(const char *msg)
{
	for (int i = 0; i < bench_nr_problems; i++)
		if (!strcmp(bench_problems[i], msg))
			return;
	if (bench_nr_problems <
	    (int)(sizeof(bench_problems) / sizeof(bench_problems[0])))
		snprintf(bench_problems[bench_nr_problems++],
			 sizeof(bench_problems[0]), "%s", msg);
}

static inline void print_problems(void)
{
	for (int i = 0; i < bench_nr_problems; i++)
		printf("warning: %s\n", bench_problems[i]);
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / NSEC_PER_SEC;
}

/* CLOCK_REALTIME @ms milliseconds from now: a timed wait's deadline. */
static inline struct timespec realtime_in_ms(unsigned int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* ---- running a command -------------------------------------------------- */

/*
 * Runs argv with its standard output and error in the file out, from fork
 * to waitpid: its wall time in seconds; -1 (note says why, with its
 * output's first line) if it could not run or did not exit 0 or ok_status
 * (a status that still measured: record's 3, events lost, say).
 */
static inline double bench_run_ok(char *const *argv, const char *out,
				  int ok_status, char *note, size_t note_size)
{
	char line[120] = "";
	double t0, t1;
	int status;
	FILE *f;
	pid_t pid;

	t0 = now();
	pid = fork();
	if (pid < 0) {
		snprintf(note, note_size, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(note, note_size, "waitpid: %s",
				 strerror(errno));
			return -1;
		}
	t1 = now();
	if (WIFEXITED(status) &&
	    (!WEXITSTATUS(status) || WEXITSTATUS(status) == ok_status))
		return t1 - t0;
	f = fopen(out, "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
		line[strcspn(line, "\n")] = 0;
	}
	snprintf(note, note_size, "not measured: %s %d%s%s",
		 WIFEXITED(status) ? "exit status" : "killed by signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		 line[0] ? ": " : "", line);
	return -1;
}

/* bench_run_ok() where only 0 is a success. */
static inline double bench_run(char *const *argv, const char *out, char *note,
			       size_t note_size)
{
	return bench_run_ok(argv, out, 0, note, note_size);
}

/* ---- the references ----------------------------------------------------- */

static int marker_fd = -1;
static uint64_t marker_errors;
static const char *marker_path;

static inline void loop_getppid(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static inline void loop_marker(uint64_t n)
{
	static const char buf[DATA_LEN] = "pt-bench";

	for (uint64_t i = 0; i < n; i++)
		if (write(marker_fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			marker_errors++;
}

/* trace_marker: find it, mounting tracefs if need be. 0 or an errno. */
static inline int marker_open(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/trace_marker",
		"/sys/kernel/debug/tracing/trace_marker",
	};
	static const char buf[DATA_LEN] = "pt-bench";
	int err = ENOENT;

	if (marker_fd >= 0)
		return 0;
	for (int pass = 0; pass < 2 && marker_fd < 0; pass++) {
		if (pass == 1 &&
		    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
			break;
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			marker_fd = open(paths[i], O_WRONLY | O_CLOEXEC);
			if (marker_fd >= 0) {
				marker_path = paths[i];
				break;
			}
			if (errno != ENOENT)
				err = errno;
		}
	}
	if (marker_fd < 0)
		return err;
	/* Off (tracing_on 0) it fails at once, and would measure nothing. */
	if (write(marker_fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		err = errno ? errno : EIO;
		close(marker_fd);
		marker_fd = -1;
		return err;
	}
	return 0;
}

/* ---- calibration and statistics ----------------------------------------- */

/*
 * N (*n) such that one loop, as measure(c, &secs) times it, takes about
 * target seconds, and at most max_n (0: no limit; a case that reads back
 * what a stream holds cannot do more). With again, one loop more of that
 * N and N set from it: the first loops of some cases are slower (buffers
 * touched for the first time), and N set from them alone would make the
 * timed loops short.
 */
static inline int calibrate_n(int (*measure)(void *c, double *secs), void *c,
			      uint64_t *n, double target, bool again,
			      uint64_t max_n)
{
	double secs = 0;
	int err;

	*n = 1000;
	for (;;) {
		err = measure(c, &secs);
		if (err)
			return err;
		if (secs >= target / 2 || (max_n && *n >= max_n))
			break;
		/*
		 * Towards the target, by at most 16 and at least 2: never
		 * far past it (a case that fills a stream first must not
		 * be asked for more than it holds).
		 */
		*n *= secs > 0 && target / secs < 16 ?
		      (target / secs < 2 ? 2 : (uint64_t)(target / secs)) : 16;
		if (max_n && *n > max_n)
			*n = max_n;
	}
	*n = (uint64_t)((double)*n * target / secs) + 1;
	if (max_n && *n > max_n)
		*n = max_n;
	if (!again)
		return 0;
	err = measure(c, &secs);
	if (err)
		return err;
	*n = (uint64_t)((double)*n * target / secs) + 1;
	if (max_n && *n > max_n)
		*n = max_n;
	return 0;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static inline double min_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static inline double max_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/* Median over the rounds of a / b, round by round. */
static inline double ratio_of(const double *a, const double *b, int rounds)
{
	double r[MAX_ROUNDS];

	for (int i = 0; i < rounds; i++)
		r[i] = a[i] / b[i];
	return median(r, rounds);
}

/* The table's header and one row (ns: per call, per round), or why not. */
static inline void print_header(void)
{
	printf("\n%-26s %10s %9s %9s %9s %10s %10s\n", "case", "N", "min ns",
	       "median ns", "max ns", "x getppid", "x marker");
}

/*
 * With BENCH_TABLE set (bench/run.sh sets it), each row is also printed
 * as a line of tab-separated fields, "@row", the program, the case, N,
 * min, median and max ns, x getppid, that run.sh keeps in its results
 * table and does not show.
 */
static inline void print_table_row(const char *name, uint64_t n,
				   const double *ns, const double *ref,
				   int rounds)
{
	if (!getenv("BENCH_TABLE"))
		return;
	printf("@row\t%s\t%s\t%llu\t%.1f\t%.1f\t%.1f\t%.3f\n",
	       program_invocation_short_name, name, (unsigned long long)n,
	       min_of(ns, rounds), median(ns, rounds), max_of(ns, rounds),
	       ratio_of(ns, ref, rounds));
}

static inline void print_row(const char *name, bool skipped,
			     const char *note, uint64_t n, const double *ns,
			     const double *ref, const double *mk, int rounds)
{
	if (skipped) {
		printf("%-26s %s\n", name, note);
		return;
	}
	printf("%-26s %10llu %9.1f %9.1f %9.1f %10.3f", name,
	       (unsigned long long)n, min_of(ns, rounds), median(ns, rounds),
	       max_of(ns, rounds), ratio_of(ns, ref, rounds));
	if (mk)
		printf(" %10.3f\n", ratio_of(ns, mk, rounds));
	else
		printf(" %10s\n", "-");
	print_table_row(name, n, ns, ref, rounds);
}

static inline void print_legend(int rounds)
{
	printf("\nmin/median/max ns: per call, over %d rounds; x getppid, "
	       "x marker: median of the per-round ratios.\n"
	       "Under emulation (QEMU TCG) absolute times mean little: read "
	       "the ratios there.\n", rounds);
	if (marker_path)
		printf("trace_marker: %s\n", marker_path);
}

/*
 * A row's summary line: its ratios (mk NULL: no trace_marker, or the row
 * is trace_marker's own, whose note if any follows), or why it is missing.
 */
static inline void print_summary(const char *summary, bool skipped,
				 const char *note, const double *ns,
				 const double *ref, const double *mk,
				 int rounds)
{
	if (skipped) {
		printf("%s: %s\n", summary, note);
		return;
	}
	printf("%s: %.3fx getppid", summary, ratio_of(ns, ref, rounds));
	if (mk)
		printf(", %.3fx trace_marker", ratio_of(ns, mk, rounds));
	else if (note[0])
		printf(" (%s)", note);
	printf("\n");
}

/* -r and -t. */
static inline void usage_rt(const char *prog, const char *more)
{
	fprintf(stderr,
		"usage: %s [-r ROUNDS] [-t SECONDS]%s\n"
		"  -r  rounds, each measuring every case once (5; 1..%d)\n"
		"  -t  target time of one timed loop (0.3 s)\n",
		prog, more, MAX_ROUNDS);
	exit(2);
}

/* This process's descriptor of its (only) stream: for the module's counts. */
static inline int stream_fd(void)
{
	char path[300], target[64];
	struct dirent *d;
	int fd = -1;
	ssize_t n;
	DIR *dir = opendir("/proc/self/fd");

	while (dir && fd < 0 && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, "anon_inode:[posixtrace]"))
			fd = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return fd;
}

/* Busy and all jiffies of all CPUs, from /proc/stat's first line. */
static inline bool cpu_jiffies(uint64_t *busy, uint64_t *all)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return false;
	/* user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return false;
	*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	*all = *busy + v[3] + v[4];
	return true;
}

#endif /* POSIXTRACE_BENCH_HARNESS_H */
