// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace record --loop: the flight recorder. The traced program is
 * this binary again (worker()): it records numbered "fl.work" events,
 * then crashes, records "fl.fail", or exits failing, as its mode says.
 * Each snapshot is read back with posix_trace_open(), as dump reads it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tool_common.h"
#include "trl_common.h"

#define WORK		200
/* More 8-byte events than a 16 KiB stream holds: the oldest go. */
#define MANY		20000

/*
 * FLIGHT_WORKER=crash: WORK events, then SIGSEGV (default action);
 * =fail: WORK events, fl.fail, WORK more, fl.fail, exit 0, pausing
 * between so that each fl.fail has its snapshot before the next; =exit:
 * WORK events, exit 3; =ok: WORK events, exit 0; =many: MANY events,
 * exit 3; =wait: WORK events, then waits for a signal (record's stop).
 */
static void __attribute__((constructor)) worker(void)
{
	const char *mode = getenv("FLIGHT_WORKER");
	trace_event_id_t work, fail;
	uint64_t zero = 0;

	if (!mode)
		return;
	if (posix_trace_eventid_open("fl.work", &work) ||
	    posix_trace_eventid_open("fl.fail", &fail))
		_exit(10);
	if (!strcmp(mode, "many")) {
		emit_numbered(work, 0, MANY);
		_exit(3);
	}
	emit_numbered(work, 0, WORK);
	if (!strcmp(mode, "crash")) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		_exit(12);
	}
	if (!strcmp(mode, "fail")) {
		posix_trace_event(fail, &zero, sizeof(zero));
		usleep(500000);
		emit_numbered(work, WORK, WORK);
		posix_trace_event(fail, &zero, sizeof(zero));
		usleep(500000);
		_exit(0);
	}
	if (!strcmp(mode, "wait"))
		for (;;)
			pause();
	_exit(!strcmp(mode, "exit") ? 3 : 0);
}

/*
 * posixtrace record ARGS -- this binary in @mode, started as @uid (0:
 * as we are); its pid.
 */
static pid_t flight_start(const char *const *args, const char *mode,
			  int errfd, uid_t uid)
{
	const char *argv[16] = { tool(), "record" };
	pid_t pid;
	int i;

	for (i = 0; args[i] && i < 11; i++)
		argv[i + 2] = args[i];
	argv[i + 2] = "--";
	argv[i + 3] = self_exe();
	argv[i + 4] = NULL;
	pid = fork();
	if (!pid) {
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(125);
		setenv("FLIGHT_WORKER", mode, 1);
		dup2(errfd, 2);
		execv(argv[0], (char **)argv);
		_exit(126);
	}
	return pid;
}

/* posixtrace record ARGS -- this binary in @mode; its status. */
static int flight(const char *const *args, const char *mode, int errfd)
{
	pid_t pid = flight_start(args, mode, errfd, 0);
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* A directory of its own; the caller removes it (rm_dir()). */
static void make_tmp_dir(char *dir, size_t size)
{
	snprintf(dir, size, "/tmp/flight.XXXXXX");
	if (!mkdtemp(dir))
		dir[0] = '\0';
}

static int count_snapshots(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((d = readdir(dp)))
		n += !strncmp(d->d_name, "snapshot-", 9);
	closedir(dp);
	return n;
}

static void rm_dir(const char *dir)
{
	char path[4200];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		unlink(path);
	}
	closedir(dp);
	rmdir(dir);
}

/* A case: its snapshot directory, and record's stderr. */
struct flight_case {
	char dir[64];
	char err[4096];
	int errfd;
};

static bool flight_begin(struct flight_case *fc)
{
	make_tmp_dir(fc->dir, sizeof(fc->dir));
	fc->errfd = memfd_create("err", 0);
	return fc->dir[0] && fc->errfd >= 0;
}

/*
 * record --loop @size --snapshot-on @triggers -o the case's directory,
 * the worker in @mode: its status, its stderr in fc->err.
 */
static int flight_run(struct flight_case *fc, const char *size,
		      const char *triggers, const char *mode)
{
	const char *args[] = { "--loop", size, "--snapshot-on", triggers,
			       "-o", fc->dir, NULL };
	int status = flight(args, mode, fc->errfd);

	slurp(fc->errfd, fc->err, sizeof(fc->err));
	return status;
}

static void flight_end(struct flight_case *fc)
{
	if (fc->errfd >= 0)
		close(fc->errfd);
	rm_dir(fc->dir);
}

/* Snapshot @n of @dir, read. 0 or the error. */
static int read_snapshot(const char *dir, int n, struct logbuf *lb)
{
	char path[4200];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/snapshot-%d.ptlog", dir, n);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	ret = read_log(fd, lb);
	close(fd);
	return ret;
}

static int count_named(const struct logbuf *lb, const char *name)
{
	int i, n = 0;

	for (i = 0; i < lb->n; i++)
		n += !strcmp(lb->ev[i].name, name);
	return n;
}

static int first_named(const struct logbuf *lb, const char *name)
{
	int i;

	for (i = 0; i < lb->n; i++)
		if (!strcmp(lb->ev[i].name, name))
			return i;
	return -1;
}

/*
 * A crash: the snapshot holds the work before it, in order, and the
 * SIGSEGV taken; record exits with the command's status (128 + 11).
 */
TEST(flight_recorder_snapshots_a_crash)
{
	struct flight_case fc;
	struct logbuf lb;
	int i, sig;

	SKIP_WITHOUT_TOOL();
	ASSERT_TRUE(flight_begin(&fc));
	EXPECT_EQ(128 + SIGSEGV, flight_run(&fc, "256K", "SIGSEGV", "crash"));
	EXPECT_NE(NULL, strstr(fc.err, "snapshot 1: ")) TH_LOG("%s", fc.err);
	EXPECT_NE(NULL, strstr(fc.err, "SIGSEGV taken in pid"))
		TH_LOG("%s", fc.err);
	EXPECT_EQ(1, count_snapshots(fc.dir));
	ASSERT_EQ(0, read_snapshot(fc.dir, 1, &lb));
	EXPECT_EQ(WORK, count_named(&lb, "fl.work"));
	for (i = 0, sig = -1; i < lb.n; i++) {
		if (!strcmp(lb.ev[i].name, "fl.work")) {
			EXPECT_EQ(i - first_named(&lb, "fl.work"),
				  (int)ev_num(&lb.ev[i]));
		} else if (!strcmp(lb.ev[i].name,
				   "posixtrace_signal_deliver")) {
			memcpy(&sig, lb.ev[i].data, sizeof(sig));
		}
	}
	EXPECT_EQ(SIGSEGV, sig);
	/* The flush that made it ends it. */
	EXPECT_STREQ("posix_trace_flush_start", lb.ev[lb.n - 1].name);
	free_log(&lb);
	/* A log as any: dump, view and export take it, unwarned. */
	{
		char snap[200], page[200], ctf[200];
		const char *dump[] = { "dump", "--tree", snap, NULL };
		const char *view[] = { "view", "-o", page, snap, NULL };
		const char *export[] = { "export", "-o", ctf, snap, NULL };
		int out = memfd_create("out", 0);

		ASSERT_LE(0, out);
		snprintf(snap, sizeof(snap), "%s/snapshot-1.ptlog", fc.dir);
		snprintf(page, sizeof(page), "%s/crash.html", fc.dir);
		snprintf(ctf, sizeof(ctf), "%s/ctf", fc.dir);
		/*
		 * The tree has the process; its exit only if the exit came
		 * within the snapshot's 20 ms (not on a slow debug kernel).
		 */
		EXPECT_EQ(0, wait_status(run_tool(dump, out, out, 0)));
		slurp(out, fc.err, sizeof(fc.err));
		EXPECT_NE(NULL, strstr(fc.err, "tri_flight_test"))
			TH_LOG("%s", fc.err);
		EXPECT_EQ(0, wait_status(run_tool(view, out, out, 0)));
		EXPECT_EQ(0, wait_status(run_tool(export, out, out, 0)));
		close(out);
		unlink(page);
		rm_dir(ctf);
	}
	flight_end(&fc);
}

/*
 * An event fires a snapshot, and recording goes on: two fl.fail, two
 * snapshots, the second holding the work after the first, none twice.
 */
TEST(flight_recorder_keeps_recording_after_a_snapshot)
{
	struct flight_case fc;
	struct logbuf a, b;
	uint64_t last_a = 0;
	int i;

	SKIP_WITHOUT_TOOL();
	ASSERT_TRUE(flight_begin(&fc));
	EXPECT_EQ(0, flight_run(&fc, "256K", "event:fl.fail", "fail"));
	EXPECT_NE(NULL, strstr(fc.err, "event fl.fail in pid"))
		TH_LOG("%s", fc.err);
	EXPECT_NE(NULL, strstr(fc.err, "2 snapshots in ")) TH_LOG("%s", fc.err);
	ASSERT_EQ(2, count_snapshots(fc.dir));
	ASSERT_EQ(0, read_snapshot(fc.dir, 1, &a));
	ASSERT_EQ(0, read_snapshot(fc.dir, 2, &b));
	EXPECT_EQ(WORK, count_named(&a, "fl.work"));
	EXPECT_EQ(1, count_named(&a, "fl.fail"));
	EXPECT_EQ(WORK, count_named(&b, "fl.work"));
	EXPECT_EQ(1, count_named(&b, "fl.fail"));
	for (i = 0; i < a.n; i++)
		last_a = a.ev[i].seq;
	/* The second starts where the first ended. */
	EXPECT_LT(last_a, b.ev[0].seq);
	EXPECT_EQ(WORK, (int)ev_num(&b.ev[first_named(&b, "fl.work")]));
	free_log(&a);
	free_log(&b);
	flight_end(&fc);
}

/* exit-status: a failing exit makes one, a clean one none. */
TEST(flight_recorder_snapshots_a_failing_exit_only)
{
	struct flight_case fc;
	struct logbuf lb;
	int i, found = 0;

	SKIP_WITHOUT_TOOL();
	ASSERT_TRUE(flight_begin(&fc));
	EXPECT_EQ(0, flight_run(&fc, "256K", "exit-status", "ok"));
	EXPECT_EQ(0, count_snapshots(fc.dir));
	EXPECT_EQ(3, flight_run(&fc, "256K", "exit-status", "exit"));
	EXPECT_NE(NULL, strstr(fc.err, "exited 3")) TH_LOG("%s", fc.err);
	ASSERT_EQ(1, count_snapshots(fc.dir));
	ASSERT_EQ(0, read_snapshot(fc.dir, 1, &lb));
	EXPECT_EQ(WORK, count_named(&lb, "fl.work"));
	/* The exit's status is its data's first int. */
	for (i = 0; i < lb.n; i++) {
		int status = -1;

		if (strcmp(lb.ev[i].name, "posixtrace_proc_exit") ||
		    lb.ev[i].len < sizeof(status))
			continue;
		memcpy(&status, lb.ev[i].data, sizeof(status));
		found |= status == 3;
	}
	EXPECT_EQ(1, found);
	free_log(&lb);
	flight_end(&fc);
}

/*
 * A stream smaller than the program's events keeps the latest, in
 * order, the oldest overwritten and said (OVERFLOW).
 */
TEST(flight_recorder_keeps_the_latest_events)
{
	struct flight_case fc;
	struct logbuf lb;
	int i, n, first;

	SKIP_WITHOUT_TOOL();
	ASSERT_TRUE(flight_begin(&fc));
	EXPECT_EQ(3, flight_run(&fc, "16K", "exit-status", "many"));
	ASSERT_EQ(1, count_snapshots(fc.dir));
	ASSERT_EQ(0, read_snapshot(fc.dir, 1, &lb));
	n = count_named(&lb, "fl.work");
	EXPECT_LT(0, n);
	EXPECT_GT(MANY, n);
	EXPECT_LE(1, count_named(&lb, "posix_trace_overflow"));
	/* The last ones, consecutive up to the last. */
	first = first_named(&lb, "fl.work");
	ASSERT_LE(0, first);
	for (i = first + 1; i < lb.n; i++) {
		if (!strcmp(lb.ev[i].name, "fl.work") &&
		    !strcmp(lb.ev[i - 1].name, "fl.work")) {
			EXPECT_EQ(ev_num(&lb.ev[i - 1]) + 1,
				  ev_num(&lb.ev[i]));
		}
	}
	for (i = lb.n - 1; i >= 0; i--)
		if (!strcmp(lb.ev[i].name, "fl.work"))
			break;
	EXPECT_EQ(MANY - 1, (int)ev_num(&lb.ev[i]));
	free_log(&lb);
	flight_end(&fc);
}

/* Each rule of the options, refused before anything runs. */
TEST(flight_recorder_refuses_bad_options)
{
	static const struct {
		const char *args[8];
		const char *msg;
	} bad[] = {
		{ { "--loop", "1M", "-o", "/tmp/x" },
		  "--loop needs --snapshot-on" },
		{ { "--snapshot-on", "SIGSEGV", "-o", "/tmp/x" },
		  "--snapshot-on needs --loop" },
		{ { "--loop", "1M", "--snapshot-on", "SIGNOPE", "-o", "/tmp/x" },
		  "no such signal" },
		{ { "--loop", "1M", "--snapshot-on", ",", "-o", "/tmp/x" },
		  "no trigger" },
		{ { "--loop", "1M", "--snapshot-on", "SEGV", "-o", "-" },
		  "-o DIR" },
		{ { "--loop", "1M", "--snapshot-on", "SEGV", "-s", "1M", "-o",
		    "/tmp/x" }, "no --stream-size" },
		{ { "--loop", "lots", "--snapshot-on", "SEGV", "-o", "/tmp/x" },
		  "bad --loop" },
	};
	char err[4096];
	size_t i;
	int errfd;

	SKIP_WITHOUT_TOOL();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errfd = memfd_create("err", 0);
		ASSERT_LE(0, errfd);
		EXPECT_EQ(2, flight(bad[i].args, "ok", errfd));
		slurp(errfd, err, sizeof(err));
		EXPECT_NE(NULL, strstr(err, bad[i].msg)) TH_LOG("%s", err);
		close(errfd);
	}
}

/* -o naming a file, not a directory: refused, the file left alone. */
TEST(flight_recorder_needs_a_directory)
{
	const char *args[] = { "--loop", "1M", "--snapshot-on", "SEGV", "-o",
			       "/tmp/flight-file", NULL };
	char err[4096];
	struct stat sb;
	int errfd, fd;

	SKIP_WITHOUT_TOOL();
	fd = open("/tmp/flight-file", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(3, write(fd, "abc", 3));
	close(fd);
	errfd = memfd_create("err", 0);
	ASSERT_LE(0, errfd);
	EXPECT_EQ(1, flight(args, "ok", errfd));
	slurp(errfd, err, sizeof(err));
	EXPECT_NE(NULL, strstr(err, "Not a directory")) TH_LOG("%s", err);
	ASSERT_EQ(0, stat("/tmp/flight-file", &sb));
	EXPECT_EQ(3, sb.st_size);
	unlink("/tmp/flight-file");
	close(errfd);
}

/*
 * record's own stop (SIGINT) passes a SIGTERM on to the command, whose
 * exit is then no failure: no snapshot.
 */
TEST(flight_recorder_stop_is_no_failure)
{
	const char *args[] = { "--loop", "256K", "--snapshot-on",
			       "exit-status", "-o", NULL, NULL };
	struct flight_case fc;
	int status;
	pid_t pid;

	SKIP_WITHOUT_TOOL();
	ASSERT_TRUE(flight_begin(&fc));
	args[5] = fc.dir;
	pid = flight_start(args, "wait", fc.errfd, 0);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(said_within(fc.errfd, "to stop", fc.err, sizeof(fc.err)));
	usleep(200000);
	kill(pid, SIGINT);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	slurp(fc.errfd, fc.err, sizeof(fc.err));
	EXPECT_NE(NULL, strstr(fc.err, "0 snapshots in")) TH_LOG("%s", fc.err);
	EXPECT_EQ(0, count_snapshots(fc.dir));
	flight_end(&fc);
}

/* A directory its user cannot write is refused before anything runs. */
TEST(flight_recorder_refuses_a_directory_it_cannot_write)
{
	const char *args[] = { "--loop", "1M", "--snapshot-on", "SEGV", "-o",
			       NULL, NULL };
	struct flight_case fc;
	int status;
	pid_t pid;

	SKIP_WITHOUT_TOOL();
	if (getuid())
		SKIP(return, "needs root, to run record as nobody");
	ASSERT_TRUE(flight_begin(&fc));
	ASSERT_EQ(0, chmod(fc.dir, 0755));
	args[5] = fc.dir;
	pid = flight_start(args, "ok", fc.errfd, 65534);
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	slurp(fc.errfd, fc.err, sizeof(fc.err));
	EXPECT_NE(NULL, strstr(fc.err, "Permission denied")) TH_LOG("%s", fc.err);
	EXPECT_EQ(NULL, strstr(fc.err, "flight recorder on")) TH_LOG("%s", fc.err);
	flight_end(&fc);
}

TEST_HARNESS_MAIN
