// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace record: runs a command (or attaches to a process), traces it
 * and its descendants into a log, stops when the command exits or on
 * SIGINT, and prints a one-line summary. The command is looked for in
 * $POSIXTRACE_TOOL, then /bin/posixtrace (the test guest puts it there).
 *
 * The traced program is this binary again (see worker()): it records
 * "rec.work" events, forking a child that records its own.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tool_common.h"
#include "trl_common.h"

#define WORK_EVENTS	100
/* More events than a 64 KiB log holds: ~49,000 of them cannot be logged. */
#define MANY_EVENTS	50000
#define TYPE_EVENTS	10

static void emit_types(void)
{
	static const char *const names[] = { "sel.a", "sel.b", "other.c" };
	trace_event_id_t ids[3];
	int i;

	for (i = 0; i < 3; i++)
		if (posix_trace_eventid_open(names[i], &ids[i]))
			_exit(10);
	/* Two of record's status checks: a pattern has classified them. */
	usleep(700000);
	for (i = 0; i < 3; i++)
		emit_numbered(ids[i], 0, TYPE_EVENTS);
	_exit(0);
}

/*
 * MANY_EVENTS at once, which an 8 KiB stream cannot hold until its log's
 * thread takes them: so that it cannot, that thread (ptlog/<record's
 * pid>) and this one share CPU 0, this one at SCHED_FIFO, as root. The
 * log's thread gets only what RT throttling leaves (5 %), whatever the
 * speed of the machine, and of events by system call (rings off). Without
 * the privilege, the burst alone.
 */
static void burst_starving_the_log(trace_event_id_t id)
{
	struct sched_param fifo = { .sched_priority = 1 };
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (!sched_setaffinity(0, sizeof(one), &one) &&
	    pin_log_writer(getppid(), 0))
		sched_setscheduler(0, SCHED_FIFO, &fifo);
	emit_numbered(id, 0, MANY_EVENTS);
}

/*
 * The traced program: TRI_RECORD_WORKER=fork records WORK_EVENTS events
 * and has a child record as many; =loop records until SIGTERM; =many
 * records MANY_EVENTS as fast as it can, pausing a little every 1000 so
 * that the stream itself keeps up (the losses are then the log's); =burst
 * records them without a pause, starving the log's thread; =types opens sel.a, sel.b and other.c,
 * waits for record to see them, and records TYPE_EVENTS of each.
 */
static void __attribute__((constructor)) worker(void)
{
	const char *mode = getenv("TRI_RECORD_WORKER");
	trace_event_id_t id;
	uint64_t i;
	pid_t child;
	int status;

	if (!mode)
		return;
	if (!strcmp(mode, "types"))
		emit_types();
	if (posix_trace_eventid_open("rec.work", &id))
		_exit(10);
	if (!strcmp(mode, "loop")) {
		for (i = 0;; i++) {
			posix_trace_event(id, &i, sizeof(i));
			usleep(1000);
		}
	}
	if (!strcmp(mode, "many")) {
		for (i = 0; i < MANY_EVENTS; i += 1000) {
			emit_numbered(id, i, 1000);
			usleep(2000);
		}
		/* Long enough for record to see the log fail as it runs. */
		usleep(600000);
		_exit(0);
	}
	if (!strcmp(mode, "burst")) {
		burst_starving_the_log(id);
		_exit(0);
	}
	emit_numbered(id, 0, WORK_EVENTS);
	child = fork();
	if (!child) {
		emit_numbered(id, 1000, WORK_EVENTS);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status)
		_exit(11);
	_exit(7);	/* record passes the command's status on */
}

/*
 * Run posixtrace record with argv (after "record"), the worker in the
 * given mode; *pid is the record process. Its stderr goes to errfd.
 */
static pid_t start_record(const char *const *args, const char *mode,
			  int errfd)
{
	const char *argv[16] = { tool(), "record" };
	pid_t pid;
	int i;

	for (i = 0; args[i] && i < 13; i++)
		argv[i + 2] = args[i];
	argv[i + 2] = NULL;
	pid = fork();
	if (!pid) {
		if (mode)
			setenv("TRI_RECORD_WORKER", mode, 1);
		dup2(errfd, 2);
		execv(argv[0], (char **)argv);
		_exit(126);
	}
	return pid;
}

/*
 * record -- COMMAND: the command and its child are traced from their first
 * event; record exits with the command's status and prints its summary.
 */
TEST(record_traces_a_command_and_its_children)
{
	const char *args[] = { "-o", "/tmp/rec-cmd.ptlog", "--", self_exe(),
			       NULL };
	char err[4096], want[64];
	int errfd, status, i, n[2] = { 0 };
	pid_t pids[2] = { 0 }, rec;
	struct logbuf lb;
	int fd;

	SKIP_WITHOUT_TOOL();
	errfd = tmp_log();
	ASSERT_LE(0, errfd);
	rec = start_record(args, "fork", errfd);
	ASSERT_LT(0, rec);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(7, WEXITSTATUS(status));
	slurp(errfd, err, sizeof(err));
	TH_LOG("record said: %s", err);

	fd = open("/tmp/rec-cmd.ptlog", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_TRUE(log_closed(fd));
	ASSERT_EQ(0, read_log(fd, &lb));
	/* The summary counts every event of the log, system ones too. */
	snprintf(want, sizeof(want), "%d events (2 processes), 0 lost",
		 lb.n);
	ASSERT_NE(NULL, strstr(err, want));
	/* First what is recorded and how to stop; no progress off a tty. */
	ASSERT_EQ(0, strncmp(err, "posixtrace record: recording PID ", 33));
	ASSERT_NE(NULL, strstr(err, " and its children into "
			       "/tmp/rec-cmd.ptlog; "));
	ASSERT_NE(NULL, strstr(err, " to stop\n"));
	ASSERT_EQ(NULL, strchr(err, '\r'));
	/* The counts per process and per type. */
	ASSERT_NE(NULL, strstr(err, "\n  process "));
	snprintf(want, sizeof(want), "\n  %-40s %12d\n", "rec.work",
		 2 * WORK_EVENTS);
	ASSERT_NE(NULL, strstr(err, want));
	for (i = 0; i < lb.n; i++) {
		int k;

		if (strcmp(lb.ev[i].name, "rec.work"))
			continue;
		k = ev_num(&lb.ev[i]) >= 1000;
		if (!pids[k])
			pids[k] = lb.ev[i].info.posix_pid;
		ASSERT_EQ(pids[k], lb.ev[i].info.posix_pid);
		ASSERT_EQ((uint64_t)(k * 1000 + n[k]), ev_num(&lb.ev[i]));
		n[k]++;
	}
	ASSERT_EQ(WORK_EVENTS, n[0]);
	ASSERT_EQ(WORK_EVENTS, n[1]);
	ASSERT_NE(pids[0], pids[1]);
	free_log(&lb);
	close(fd);
	close(errfd);
	unlink("/tmp/rec-cmd.ptlog");
}

/* --no-inherit: the child is not traced. */
TEST(record_no_inherit_traces_the_command_only)
{
	const char *args[] = { "--no-inherit", "-o", "/tmp/rec-ni.ptlog",
			       "--", self_exe(), NULL };
	char err[4096];
	int errfd, status, fd, i, n = 0;
	struct logbuf lb;
	pid_t rec;

	SKIP_WITHOUT_TOOL();
	errfd = tmp_log();
	ASSERT_LE(0, errfd);
	rec = start_record(args, "fork", errfd);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	ASSERT_EQ(7, WEXITSTATUS(status));
	slurp(errfd, err, sizeof(err));
	ASSERT_NE(NULL, strstr(err, " events (1 process), 0 lost")) {
		TH_LOG("record said: %s", err);
	}
	fd = open("/tmp/rec-ni.ptlog", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, read_log(fd, &lb));
	for (i = 0; i < lb.n; i++)
		n += !strcmp(lb.ev[i].name, "rec.work");
	/* The child's events are not there. */
	ASSERT_EQ(WORK_EVENTS, n);
	free_log(&lb);
	close(fd);
	close(errfd);
	unlink("/tmp/rec-ni.ptlog");
}

/*
 * Wait (10 s at most) until @pid, the worker, runs: it opened the trace
 * device, which it does first thing after its exec. record -p proves it
 * may trace the process with its mem file, and a proof made while the
 * exec is still under way is refused (EPERM), as it should be. Under a
 * slow kernel (KMSAN) the exec takes longer than a sleep, and the new
 * image's command line shows before the exec is done.
 */
static bool worker_execd(pid_t pid)
{
	char dir[64], path[320], target[64];
	struct dirent *d;
	ssize_t n;
	DIR *fds;
	int i;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	for (i = 0; i < 1000; i++) {
		fds = opendir(dir);
		while (fds && (d = readdir(fds))) {
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			n = readlink(path, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (!strcmp(target, DEVICE)) {
				closedir(fds);
				return true;
			}
		}
		if (fds)
			closedir(fds);
		usleep(10000);
	}
	return false;
}

/* record -p PID, stopped by SIGINT: the log holds what PID recorded. */
TEST(record_attaches_to_a_pid_and_stops_on_sigint)
{
	const char *args[] = { "-o", "/tmp/rec-pid.ptlog", "-p", NULL, NULL };
	char pidstr[16], err[4096];
	struct logbuf lb;
	int errfd, status, fd, i, n = 0;
	pid_t worker_pid, rec, waited;
	bool ready;

	SKIP_WITHOUT_TOOL();
	worker_pid = fork();
	ASSERT_LE(0, worker_pid);
	if (!worker_pid) {
		setenv("TRI_RECORD_WORKER", "loop", 1);
		execl("/proc/self/exe", "worker", (char *)NULL);
		_exit(126);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", worker_pid);
	args[3] = pidstr;
	errfd = tmp_log();
	ASSERT_LE(0, errfd);
	EXPECT_TRUE(worker_execd(worker_pid));
	usleep(100000);
	rec = start_record(args, NULL, errfd);
	/*
	 * SIGINT once it says it records (it catches SIGINT from then on),
	 * and the worker's events of a while more; the worker goes before
	 * anything is asserted, so that no failure leaves it holding the
	 * module.
	 */
	ready = said_within(errfd, "recording PID", err, sizeof(err));
	usleep(300000);
	kill(rec, SIGINT);
	waited = waitpid(rec, &status, 0);
	kill(worker_pid, SIGTERM);
	waitpid(worker_pid, NULL, 0);
	ASSERT_TRUE(ready) TH_LOG("record said: %s", err);
	ASSERT_EQ(rec, waited);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	slurp(errfd, err, sizeof(err));
	TH_LOG("record said: %s", err);
	ASSERT_NE(NULL, strstr(err, " events (1 process"));

	fd = open("/tmp/rec-pid.ptlog", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_TRUE(log_closed(fd));
	ASSERT_EQ(0, read_log(fd, &lb));
	for (i = 0; i < lb.n; i++)
		if (!strcmp(lb.ev[i].name, "rec.work")) {
			ASSERT_EQ(worker_pid, lb.ev[i].info.posix_pid);
			n++;
		}
	ASSERT_LT(0, n);
	free_log(&lb);
	close(fd);
	close(errfd);
	unlink("/tmp/rec-pid.ptlog");
}

/*
 * A pty for record's standard error, as a terminal would be; -1 if there
 * is none (the guest may lack /dev/pts until it is mounted here).
 */
static int open_pty(int *slave)
{
	int master;

	mkdir("/dev/pts", 0755);
	mount("devpts", "/dev/pts", "devpts", 0, "ptmxmode=0666");
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		return -1;
	*slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (*slave < 0) {
		close(master);
		return -1;
	}
	return master;
}

/* With a terminal on stderr, a line counts the events as they come. */
TEST(record_shows_progress_on_a_terminal)
{
	const char *args[] = { "-o", "/tmp/rec-tty.ptlog", "--", self_exe(),
			       NULL };
	char out[16384];
	int master, slave, status;
	ssize_t n, len = 0;
	pid_t rec;

	SKIP_WITHOUT_TOOL();
	master = open_pty(&slave);
	if (master < 0)
		SKIP(return, "no pseudo-terminal");
	rec = start_record(args, "loop", slave);
	ASSERT_LT(0, rec);
	close(slave);
	/*
	 * SIGINT only once record shows its progress line: it has caught
	 * the signal by then, however slow the machine.
	 */
	out[0] = '\0';
	while (!strstr(out, " of log") && len < (ssize_t)sizeof(out) - 1 &&
	       poll(&(struct pollfd){ .fd = master, .events = POLLIN }, 1,
		    30000) > 0 &&
	       (n = read(master, out + len, sizeof(out) - 1 - len)) > 0) {
		len += n;
		out[len] = '\0';
	}
	kill(rec, SIGINT);
	/* Read until record closes its end, or the buffer is full. */
	while (len < (ssize_t)sizeof(out) - 1 &&
	       (n = read(master, out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	TH_LOG("record said: %s", out);
	/* Rewritten in place: a carriage return, not a new line each. */
	ASSERT_NE(NULL, strstr(out, "\rposixtrace record: "));
	ASSERT_NE(NULL, strstr(out, " events, 0 lost, "));
	ASSERT_NE(NULL, strstr(out, " of log"));
	close(master);
	unlink(args[1]);
}

static long long summary_lost(const char *err);

/* Run record with args on the worker in mode; its stderr in err. */
static int run_record(const char *const *args, const char *mode, char *err,
		      size_t size)
{
	int errfd = tmp_log(), status = -1;
	pid_t rec;

	if (errfd < 0)
		return -1;
	rec = start_record(args, mode, errfd);
	if (rec > 0 && waitpid(rec, &status, 0) == rec)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	slurp(errfd, err, size);
	close(errfd);
	return status;
}

/* How many events of each type the log at path holds. */
static void count_types(const char *path, int *a, int *b, int *c)
{
	struct logbuf lb = { 0 };
	int fd = open(path, O_RDONLY), i;

	*a = *b = *c = -1;
	if (fd < 0 || read_log(fd, &lb))
		return;
	*a = *b = *c = 0;
	for (i = 0; i < lb.n; i++) {
		*a += !strcmp(lb.ev[i].name, "sel.a");
		*b += !strcmp(lb.ev[i].name, "sel.b");
		*c += !strcmp(lb.ev[i].name, "other.c");
	}
	free_log(&lb);
	close(fd);
}

/*
 * -e NAME records that type only, though the program opens it after the
 * start: record opened the name on the stream first.
 */
TEST(record_event_name_selects_one_type)
{
	const char *args[] = { "-e", "sel.a", "-o", "/tmp/rec-e.ptlog", "--",
			       self_exe(), NULL };
	char err[8192];
	int a, b, c;

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, run_record(args, "types", err, sizeof(err))) {
		TH_LOG("record said: %s", err);
	}
	count_types(args[3], &a, &b, &c);
	EXPECT_EQ(TYPE_EVENTS, a);
	EXPECT_EQ(0, b);
	EXPECT_EQ(0, c);
	EXPECT_EQ(NULL, strstr(err, "warning"));
	unlink(args[3]);
}

/*
 * -e PATTERN, twice: every type either matches, those opened after the
 * start included; other types are filtered once record has seen them.
 */
TEST(record_event_patterns_select_the_types_they_match)
{
	const char *args[] = { "-e", "sel.[a]", "--event", "*.b", "-o",
			       "/tmp/rec-eg.ptlog", "--", self_exe(), NULL };
	char err[8192];
	int a, b, c;

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, run_record(args, "types", err, sizeof(err))) {
		TH_LOG("record said: %s", err);
	}
	count_types(args[5], &a, &b, &c);
	EXPECT_EQ(TYPE_EVENTS, a);
	EXPECT_EQ(TYPE_EVENTS, b);
	EXPECT_EQ(0, c);
	unlink(args[5]);
}

/*
 * -e PATTERN with -p: the types the process opened before the start are
 * classified then, and those the pattern does not select filtered.
 */
TEST(record_event_pattern_on_a_running_process)
{
	const char *args[] = { "-e", "sel.*", "-o", "/tmp/rec-ep.ptlog",
			       "-p", NULL, NULL };
	char pidstr[16], err[8192];
	int errfd, status, a, b, c;
	pid_t worker_pid, rec;

	SKIP_WITHOUT_TOOL();
	worker_pid = fork();
	ASSERT_LE(0, worker_pid);
	if (!worker_pid) {
		setenv("TRI_RECORD_WORKER", "types", 1);
		execl("/proc/self/exe", "worker", (char *)NULL);
		_exit(126);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", worker_pid);
	args[5] = pidstr;
	/* It opens its types at once, then waits 0.7 s before using them. */
	EXPECT_TRUE(worker_execd(worker_pid));
	usleep(200000);
	errfd = tmp_log();
	ASSERT_LE(0, errfd);
	rec = start_record(args, NULL, errfd);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	waitpid(worker_pid, NULL, 0);
	slurp(errfd, err, sizeof(err));
	TH_LOG("record said: %s", err);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	count_types(args[3], &a, &b, &c);
	EXPECT_EQ(TYPE_EVENTS, a);
	EXPECT_EQ(TYPE_EVENTS, b);
	EXPECT_EQ(0, c);
	close(errfd);
	unlink(args[3]);
}

/* An -e that matched nothing may be misspelt: record says so. */
TEST(record_event_warns_of_a_name_nothing_matched)
{
	const char *args[] = { "-e", "sel.x*", "-o", "/tmp/rec-ew.ptlog",
			       "--", self_exe(), NULL };
	char err[8192];

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, run_record(args, "types", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "warning: no event recorded matches "
			       "--event 'sel.x*'\n")) {
		TH_LOG("record said: %s", err);
	}
	unlink(args[3]);
}

/* Bad -e values: one line saying why, the hint, exit 2, nothing run. */
TEST(record_event_refuses_bad_names_and_patterns)
{
	static const char *const bad[] = {
		"", "sel.[a", "sel\\", "a%zz", "a%00",
		"a123456789012345678901234567890123456789012345678901234567890123",
	};
	const char *args[] = { "-e", NULL, "-o", "/tmp/rec-eb.ptlog", "--",
			       "/nonexistent", NULL };
	char err[4096], *nl;
	size_t i;

	SKIP_WITHOUT_TOOL();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		args[1] = bad[i];
		EXPECT_EQ(2, run_record(args, NULL, err, sizeof(err)));
		EXPECT_EQ(0, strncmp(err, "posixtrace record: bad --event '",
				     32)) {
			TH_LOG("-e '%s': %s", bad[i], err);
		}
		/* Exactly two lines: the reason, then the hint. */
		nl = strchr(err, '\n');
		EXPECT_NE(NULL, nl);
		if (nl)
			EXPECT_STREQ("Try 'posixtrace record --help'.\n",
				     nl + 1);
		/* Nothing was started, and the log was not created. */
		EXPECT_NE(0, access(args[3], F_OK));
	}
}

/*
 * A stream too small for a burst loses events before they reach the log:
 * exit 3, and the advice to raise --stream-size.
 */
TEST(record_of_a_stream_too_small_exits_3_with_advice)
{
	const char *args[] = { "-s", "8K", "-o", "/tmp/rec-small.ptlog",
			       "--", self_exe(), NULL };
	char err[8192];

	SKIP_WITHOUT_TOOL();
	EXPECT_EQ(3, run_record(args, "burst", err, sizeof(err)));
	TH_LOG("record said: %s", err);
	EXPECT_NE(NULL, strstr(err, " lost in the stream: it was full\n"));
	EXPECT_NE(NULL, strstr(err, "advice: raise --stream-size"));
	unlink(args[3]);
}

/*
 * An until-full log leaves out what comes once it is full, as asked: the
 * events are counted and the advice given, and the status is COMMAND's.
 */
TEST(record_of_a_full_until_full_log_counts_and_advises)
{
	const char *args[] = { "--log-policy", "until-full", "--log-size",
			       "64K", "-o", "/tmp/rec-uf.ptlog", "--",
			       self_exe(), NULL };
	char err[8192];
	long long lost;

	SKIP_WITHOUT_TOOL();
	EXPECT_EQ(0, run_record(args, "many", err, sizeof(err)));
	TH_LOG("record said: %s", err);
	lost = summary_lost(err);
	EXPECT_LT(40000, lost);
	EXPECT_NE(NULL, strstr(err, " events not in the log: the log was "
			       "full\n"));
	EXPECT_NE(NULL, strstr(err, "advice: raise --log-size (now 64.0 "
			       "KiB), or use --log-policy loop"));
	unlink(args[5]);
}

/*
 * -q: the summary's first line, from the module's counts (what the stream
 * stored until tracing stopped, less what the log did not keep): the
 * log's events up to the STOP; no tables.
 */
TEST(record_quiet_counts_the_events_recorded_in_one_line)
{
	const char *args[] = { "-q", "-o", "/tmp/rec-q.ptlog", "--",
			       self_exe(), NULL };
	char err[4096], want[64];
	int fd, stopped;
	struct logbuf lb;

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(7, run_record(args, "fork", err, sizeof(err)));
	TH_LOG("record said: %s", err);
	fd = open("/tmp/rec-q.ptlog", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, read_log(fd, &lb));
	/* The counts are read once tracing stopped: up to the STOP. */
	for (stopped = lb.n; stopped > 0; stopped--)
		if (lb.ev[stopped - 1].info.posix_event_id == POSIX_TRACE_STOP)
			break;
	TH_LOG("%d events in the log, %d up to the last STOP", lb.n, stopped);
	snprintf(want, sizeof(want),
		 "\nposixtrace record: %d events logged, 0 lost, ", stopped);
	ASSERT_NE(NULL, strstr(err, want));
	ASSERT_EQ(NULL, strstr(err, "\n  process "));
	ASSERT_EQ(NULL, strstr(err, "\n  event type "));
	free_log(&lb);
	close(fd);
	unlink("/tmp/rec-q.ptlog");
}

/* -q counts what a full log lost, and advises, as the whole summary does. */
TEST(record_quiet_counts_what_a_full_log_lost)
{
	const char *args[] = { "-q", "--log-policy", "until-full",
			       "--log-size", "64K", "-o", "/tmp/rec-quf.ptlog",
			       "--", self_exe(), NULL };
	char err[8192];

	SKIP_WITHOUT_TOOL();
	EXPECT_EQ(0, run_record(args, "many", err, sizeof(err)));
	TH_LOG("record said: %s", err);
	EXPECT_LT(40000, summary_lost(err));
	EXPECT_NE(NULL, strstr(err, " events not in the log: the log was "
			       "full\n"));
	EXPECT_NE(NULL, strstr(err, "advice: raise --log-size"));
	unlink(args[6]);
}

/* A command that cannot run: 127, and a message. */
TEST(record_of_a_missing_command_exits_127)
{
	const char *args[] = { "-o", "/tmp/rec-none.ptlog", "--",
			       "/nonexistent/command", NULL };
	char err[4096];
	int errfd, status;
	pid_t rec;

	SKIP_WITHOUT_TOOL();
	errfd = tmp_log();
	ASSERT_LE(0, errfd);
	rec = start_record(args, NULL, errfd);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(127, WEXITSTATUS(status));
	slurp(errfd, err, sizeof(err));
	ASSERT_NE(NULL, strstr(err, "cannot run")) {
		TH_LOG("record said: %s", err);
	}
	close(errfd);
	unlink("/tmp/rec-none.ptlog");
}

/* "..., N lost, ..." of the summary line; -1 if there is none. */
static long long summary_lost(const char *err)
{
	const char *p = strstr(err, " lost, ");
	long long n;

	while (p && p > err && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!p || sscanf(p, "%lld", &n) != 1)
		return -1;
	return n;
}

/*
 * A log that fails (a full disk) loses events: record counts them from
 * the stream's status, says why, and exits with 1 whatever the command's
 * status. It used to read the log back alone and say "0 lost", since
 * nothing follows the last event logged to show a gap.
 */
TEST(record_counts_the_events_a_full_disk_lost)
{
	const char *dir = "/tmp/rec-full";
	const char *args[] = { "-o", "/tmp/rec-full/full.ptlog", "--",
			       self_exe(), NULL };
	char err[8192];
	int errfd, status, fd, i, logged = 0;
	struct logbuf lb;
	long long lost;
	pid_t rec;

	SKIP_WITHOUT_TOOL();
	mkdir(dir, 0755);
	if (mount("tmpfs", dir, "tmpfs", 0, "size=64k"))
		SKIP(return, "cannot mount a small tmpfs: %s", strerror(errno));
	errfd = tmp_log();
	ASSERT_LE(0, errfd);
	rec = start_record(args, "many", errfd);
	ASSERT_LT(0, rec);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	slurp(errfd, err, sizeof(err));
	TH_LOG("record said: %s", err);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status));
	/* Said as soon as the stream reported it, then counted. */
	EXPECT_NE(NULL, strstr(err, ": No space left on device: events are "
			       "being lost\n"));
	EXPECT_NE(NULL, strstr(err, " events not written to "
			       "/tmp/rec-full/full.ptlog: No space left on "
			       "device\n"));
	EXPECT_NE(NULL, strstr(err, "advice: make room"));
	/* Every event emitted is in the log or counted lost. */
	fd = open(args[1], O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, read_log(fd, &lb));
	for (i = 0; i < lb.n; i++)
		logged += !strcmp(lb.ev[i].name, "rec.work");
	lost = summary_lost(err);
	EXPECT_LE((long long)(MANY_EVENTS - logged), lost);
	EXPECT_LT(0, lost);
	free_log(&lb);
	close(fd);
	close(errfd);
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

TEST_HARNESS_MAIN
