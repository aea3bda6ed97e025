// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace record -o LOG [options] -- COMMAND [ARGS...]
 * posixtrace record -o LOG [options] -p PID
 *
 * Runs COMMAND (or attaches to PID) with a stream that has a trace log,
 * stops when it exits or on SIGINT/SIGTERM, and summarizes. The kernel
 * writes the log; this process only starts, filters (record_select.c),
 * flushes, watches (record_status.c, record_progress.c), stops and shuts
 * the stream down, then reads the log back (record_summary.c). What was
 * lost comes from the stream's status, read before the shutdown: a log
 * that failed cannot say it itself.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <posixtrace-k.h>

#include "command.h"
#include "kernel_classes.h"
#include "launch.h"
#include "record.h"
#include "record_progress.h"
#include "record_select.h"
#include "record_status.h"
#include "record_summary.h"
#include "text.h"

#define PROG		"posixtrace record"
/* How often the stream's status is read (and the progress line shown). */
#define TICK_NS			250000000L
/* How often, in ticks, the log on disk is brought up to date. */
#define FLUSH_TICKS		4
/* Events were lost in the stream, or missing from the log unasked. */
#define EXIT_EVENTS_LOST	3

struct record_run {
	struct record_opts *opts;	/* --kernel may fall back to none */
	struct record_select *select;	/* opts' own, which it updates */
	int log_fd;
	bool log_on_stdout;
	/* Our command (child 0 with -p); pidfd, the traced process's. */
	struct launch launch;
	trace_id_t trid;
	struct timespec started, stopped;
	bool flush_failed;
	bool trace_error;		/* the log may be incomplete */
	size_t log_size;		/* as the attributes say */
	struct record_status_src status_src;
	/* Latched as tracing goes, final once the stream is stopped. */
	struct record_status status;
	bool error_told;		/* the log's write error was said */
	struct record_progress progress;
};

static const char record_usage[] =
"usage: posixtrace record -o LOG [OPTIONS] [--] COMMAND [ARGS...]\n"
"       posixtrace record -o LOG [OPTIONS] -p PID\n"
"       posixtrace record --loop SIZE --snapshot-on TRIGGERS -o DIR [OPTIONS]\n"
"                         [--] COMMAND [ARGS...] (or -p PID)\n"
"Run COMMAND, or attach to the running process PID, and record the events\n"
"it and the processes it creates (POSIX_TRACE_INHERITED) generate into the\n"
"trace log LOG. Tracing stops when COMMAND or PID exits, or on SIGINT or\n"
"SIGTERM. On standard error: a line saying what is recorded, a progress\n"
"line while tracing (on a terminal only), then a summary: the events, the\n"
"events lost, read from the stream's status, counts per process (named by\n"
"command) and per event type, the process tree with exit statuses, and\n"
"what would keep the events lost.\n"
"The flight recorder (--loop) writes nothing until a trigger fires: it\n"
"then writes what its stream holds, the events since the last snapshot\n"
"(at most SIZE of them), as a log of its own in DIR, and goes on.\n"
"\n"
"  -o, --output LOG         the trace log to write, truncated if it exists;\n"
"                           '-' writes it to standard output (a pipe or a\n"
"                           file, never a terminal; COMMAND's standard output\n"
"                           then goes to standard error)\n"
"  -p, --pid PID            trace PID rather than run a command\n"
"  -e, --event NAME         record only the events of this type (user or\n"
"                           kernel); a shell pattern (*, ?, [...]) selects\n"
"                           every type it matches; repeatable (default:\n"
"                           every type; POSIX's system events are always\n"
"                           recorded)\n"
"  -k, --kernel CLASSES     the kernel's events to record too: proc (fork,\n"
"                           exec, exit), signal (generated, delivered),\n"
"                           syscall (entered, left), sched (off and on a\n"
"                           CPU, woken, moved; these two need\n"
"                           CAP_PERFMON), a comma list of them, all, or\n"
"                           none (default proc,signal)\n"
"      --syscalls LIST      the system calls the syscall class records\n"
"                           (chosen in the kernel): a comma list of names\n"
"                           (openat, read) and strace's classes (%file,\n"
"                           %process, %network, %signal, %memory); adds\n"
"                           syscall to the default classes\n"
"  -s, --stream-size SIZE   the stream's size in memory (default 1M, 4M\n"
"                           with syscall or sched)\n"
"  -m, --max-data-size SIZE the largest event payload kept (default 1024,\n"
"                           or 1301 with proc: a whole exec event)\n"
"      --log-policy POLICY  append (default, no size limit), until-full\n"
"                           (stop logging once LOG reaches --log-size) or\n"
"                           loop (keep the last --log-size of events)\n"
"      --log-size SIZE      the log's size for until-full and loop (default 4M)\n"
"      --name NAME          the trace name (default: COMMAND's basename, or\n"
"                           PID's command name)\n"
"      --no-inherit         trace only COMMAND or PID, not the processes it\n"
"                           creates (POSIX_TRACE_CLOSE_FOR_CHILD)\n"
"      --loop SIZE          the flight recorder: keep the last SIZE of\n"
"                           events in memory (a LOOP stream) and write what\n"
"                           it holds as a log, DIR/snapshot-N.ptlog, each\n"
"                           time a trigger fires; -o names the directory\n"
"      --snapshot-on TRIGGERS  with --loop, a comma list (repeatable) of:\n"
"                           a signal a traced thread takes (SIGSEGV, ABRT,\n"
"                           11), exit-status (a traced process exits\n"
"                           failing or killed by a signal), or the name of\n"
"                           an event type a traced process records\n"
"                           (event:NAME, or NAME)\n"
"  -q, --quiet              the summary's first line and its losses only,\n"
"                           from the module's counts: no counts per process\n"
"                           or type, process tree or system-call statistics,\n"
"                           which read every event of the log back\n"
"  -h, --help               print this help\n"
"SIZE is in bytes, or with a suffix K, M or G (powers of 1024).\n"
"A SIGINT or SIGTERM sent to posixtrace with kill stops tracing and sends\n"
"COMMAND a SIGTERM; Ctrl-C on the terminal reaches COMMAND by itself.\n"
"\n"
"Exit status: COMMAND's (128+N if signal N killed it), 0 with -p; 127\n"
"COMMAND could not be run; 1 a trace error, or the log failed (a write\n"
"error: events were not written); 2 usage; 3 events were lost otherwise\n"
"(the stream was full), not counting what --log-policy until-full or loop\n"
"leaves out by design.\n";

/* A usage error of record's: what is wrong, and the hint. */
static int misuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int misuse(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vusage_error(record_usage, fmt, ap);
	va_end(ap);
	return ret;
}

static int parse_log_policy(const char *text, int *policy)
{
	if (!strcmp(text, "append"))
		*policy = POSIX_TRACE_APPEND;
	else if (!strcmp(text, "until-full"))
		*policy = POSIX_TRACE_UNTIL_FULL;
	else if (!strcmp(text, "loop"))
		*policy = POSIX_TRACE_LOOP;
	else
		return EINVAL;
	return 0;
}

static int parse_pid(const char *text, pid_t *pid)
{
	long v;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return EINVAL;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return EINVAL;
	*pid = (pid_t)v;
	return 0;
}

enum {
	OPT_LOG_POLICY = 256,
	OPT_LOG_SIZE,
	OPT_NAME,
	OPT_NO_INHERIT,
	OPT_SYSCALLS,
	OPT_LOOP,
	OPT_SNAPSHOT_ON,
};

static int add_event(struct record_opts *o, const char *arg)
{
	const char *why = NULL;
	int err;

	err = record_select_add(&o->select, arg, &why);
	if (err == EINVAL)
		return misuse("bad --event '%s': %s", arg, why);
	if (err) {
		fprintf(stderr, PROG ": %s\n", strerror(err));
		return 1;
	}
	return 0;
}

/* Sets the option c; returns 0, or the exit status of a usage error. */
static int set_option(struct record_opts *o, int c, const char *arg)
{
	const char *why;

	switch (c) {
	case 'o':
		o->output = arg;
		return 0;
	case 'p':
		return parse_pid(arg, &o->pid) ?
			misuse("bad PID '%s'", arg) : 0;
	case 'e':
		return add_event(o, arg);
	case 's':
		o->has_stream_size = true;
		return parse_size(arg, &o->stream_size) ?
			misuse("bad --stream-size '%s'", arg) : 0;
	case 'm':
		o->has_max_data_size = true;
		return parse_size(arg, &o->max_data_size) ?
			misuse("bad --max-data-size '%s'", arg) : 0;
	case OPT_LOG_SIZE:
		o->has_log_size = true;
		return parse_size(arg, &o->log_size) ?
			misuse("bad --log-size '%s'", arg) : 0;
	case OPT_LOOP:
		o->loop = true;
		return parse_size(arg, &o->loop_size) ?
			misuse("bad --loop '%s'", arg) : 0;
	case OPT_SNAPSHOT_ON:
		return record_loop_triggers(o, arg, &why) ?
			misuse("bad --snapshot-on '%s': %s", arg, why) : 0;
	case OPT_LOG_POLICY:
		o->has_log_policy = true;
		return parse_log_policy(arg, &o->log_policy) ?
			misuse("bad --log-policy '%s' (append, until-full "
			       "or loop)", arg) : 0;
	case OPT_NAME:
		o->name = arg;
		return 0;
	case OPT_NO_INHERIT:
		o->inherit = false;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case OPT_SYSCALLS:
		return syscall_select_parse(&o->kernel.calls, arg, &why) ?
			misuse("bad --syscalls '%s': no system call or class "
			       "'%.*s'", arg, (int)strcspn(why, ","), why) : 0;
	case 'k':
		return kernel_classes_parse(&o->kernel, arg) ?
			misuse("bad --kernel '%s' (proc, signal, syscall, "
			       "sched, a comma list of them, all or none)",
			       arg) : 0;
	}
	/* getopt_long() said what was wrong. */
	return misuse(NULL);
}

/* The combinations getopt cannot refuse. */
static int check_options(const struct record_opts *o)
{
	if (!o->output)
		return misuse("no trace log: -o LOG is required");
	if (o->pid && o->argv[0])
		return misuse("-p PID and a COMMAND: give one");
	if (!o->pid && !o->argv[0])
		return misuse("nothing to trace: give a COMMAND or -p PID");
	if (o->loop != (o->ntriggers > 0))
		return misuse(o->loop ? "--loop needs --snapshot-on: what "
			      "makes a snapshot" : "--snapshot-on needs --loop "
			      "SIZE: the flight recorder");
	if (o->loop && (o->has_log_policy || o->has_log_size ||
			o->has_stream_size))
		return misuse("--loop SIZE is the stream's size, and snapshots "
			      "are whole logs: no --stream-size, --log-policy "
			      "or --log-size");
	if (o->loop && !strcmp(o->output, "-"))
		return misuse("--loop writes its snapshots into a directory: "
			      "-o DIR");
	if (o->has_log_size && o->log_policy == POSIX_TRACE_APPEND)
		return misuse("--log-size needs --log-policy until-full or "
			      "loop (append has no limit)");
	/* A pipe has no offsets: only an appended log can go there. */
	if (!strcmp(o->output, "-") && o->log_policy != POSIX_TRACE_APPEND)
		return misuse("-o - writes an append log only");
	if (!strcmp(o->output, "-") && isatty(STDOUT_FILENO))
		return misuse("-o -: standard output is a terminal, not a "
			      "place for a binary trace log");
	return 0;
}

/* Returns 0, -1 for --help, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "event", required_argument, NULL, 'e' },
		{ "stream-size", required_argument, NULL, 's' },
		{ "max-data-size", required_argument, NULL, 'm' },
		{ "log-policy", required_argument, NULL, OPT_LOG_POLICY },
		{ "log-size", required_argument, NULL, OPT_LOG_SIZE },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "syscalls", required_argument, NULL, OPT_SYSCALLS },
		{ "loop", required_argument, NULL, OPT_LOOP },
		{ "snapshot-on", required_argument, NULL, OPT_SNAPSHOT_ON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	int c, status;

	memset(o, 0, sizeof(*o));
	o->log_policy = POSIX_TRACE_APPEND;
	o->inherit = true;
	kernel_classes_init(&o->kernel);
	/* '+': the first non-option is COMMAND, whose options are its own. */
	while ((c = getopt_long(argc, argv, "+o:p:e:s:m:k:qh", options,
				NULL)) != -1) {
		if (c == 'h') {
			usage_help(record_usage);
			return -1;
		}
		status = set_option(o, c, optarg);
		if (status)
			return status;
	}
	o->argv = argv + optind;
	why = kernel_classes_check(&o->kernel);
	if (why)
		return misuse("%s", why);
	return check_options(o);
}

/* The trace name: COMMAND's basename, or the name the kernel gives PID. */
void record_default_name(const struct record_opts *o, char *name,
			 size_t size)
{
	const char *slash;
	char path[32];
	FILE *f;

	name[0] = '\0';
	if (!o->pid) {
		slash = strrchr(o->argv[0], '/');
		snprintf(name, size, "%s", slash ? slash + 1 : o->argv[0]);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)o->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(name, (int)size, f))
		name[strcspn(name, "\n")] = '\0';
	fclose(f);
}

/* Returns 0, or the option whose value the library refused. */
const char *record_make_attr(const struct record_opts *o, trace_attr_t *attr)
{
	char name[TRACE_NAME_MAX + 1];

	if (posix_trace_attr_init(attr))
		return "attributes";
	if (!o->name)
		record_default_name(o, name, sizeof(name));
	if (posix_trace_attr_setname(attr, o->name ? o->name : name))
		return "--name";
	/*
	 * Set, not left to the default, so that a dump says it. The flight
	 * recorder's stream loops in memory; its log (a pipe) gets only what
	 * a snapshot flushes.
	 */
	if (posix_trace_attr_setstreamfullpolicy(attr, o->loop ?
			POSIX_TRACE_LOOP : POSIX_TRACE_FLUSH))
		return "stream policy";
	if (posix_trace_attr_setlogfullpolicy(attr, o->log_policy))
		return "--log-policy";
	if (posix_trace_attr_setinherited(attr, o->inherit ?
			POSIX_TRACE_INHERITED : POSIX_TRACE_CLOSE_FOR_CHILD))
		return "inheritance";
	if (o->has_stream_size &&
	    posix_trace_attr_setstreamsize(attr, o->stream_size))
		return "--stream-size";
	if (o->loop && posix_trace_attr_setstreamsize(attr, o->loop_size))
		return "--loop";
	if (o->has_max_data_size &&
	    posix_trace_attr_setmaxdatasize(attr, o->max_data_size))
		return "--max-data-size";
	if (o->has_log_size && posix_trace_attr_setlogsize(attr, o->log_size))
		return "--log-size";
	if (kernel_classes_apply(&o->kernel, attr, o->has_max_data_size,
				 o->has_stream_size || o->loop))
		return "--kernel";
	return NULL;
}

static int open_log(struct record_run *run)
{
	const char *path = run->opts->output;

	if (!strcmp(path, "-")) {
		run->log_fd = STDOUT_FILENO;
		run->log_on_stdout = true;
		run->launch.stdout_to_stderr = true;
		return 0;
	}
	/* Truncated like strace -o: a log starts at offset 0 of its file. */
	run->log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0644);
	if (run->log_fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* The module holds its own reference on the log file once it has it. */
static void close_log(struct record_run *run)
{
	if (run->log_fd >= 0 && !run->log_on_stdout)
		close(run->log_fd);
	run->log_fd = -1;
}

void record_trace_error(const struct record_opts *o, int err)
{
	char who[32];

	if (o->pid)
		snprintf(who, sizeof(who), "PID %d", (int)o->pid);
	fprintf(stderr, PROG ": cannot trace %s: %s%s", o->pid ? who :
		o->argv[0], strerror(err), kernel_classes_why(&o->kernel, err));
	/* EINVAL is the module refusing the attributes: say which may be. */
	if (err == EINVAL && o->inherit)
		fprintf(stderr, " (a module without trace inheritance refuses "
			"it: try --no-inherit)");
	else if (err == EINVAL)
		fprintf(stderr, " (check the sizes and the log policy)");
	else if (err == ENOMEM && o->has_stream_size)
		fprintf(stderr, " (is --stream-size above the module's "
			"max_stream_size?)");
	fputc('\n', stderr);
}

/*
 * What is recorded where, and how to stop it: a person who started record
 * in a terminal sees at once that it works, and what Ctrl-C will do.
 */
static void announce(const struct record_run *run, pid_t pid)
{
	const struct record_opts *o = run->opts;
	char name[TRACE_NAME_MAX + 1];

	record_default_name(o, name, sizeof(name));
	fprintf(stderr, PROG ": recording PID %d (%s)%s into %s; ", (int)pid,
		name, !o->inherit ? "" : o->pid ?
		" and the processes it starts" : " and its children",
		run->log_on_stdout ? "standard output" : o->output);
	/* No terminal: Ctrl-C is no way to stop it. */
	if (isatty(STDIN_FILENO))
		fprintf(stderr, "Ctrl-C to stop\n");
	else
		fprintf(stderr, "kill -INT %d to stop\n", (int)getpid());
}

/* Creates and starts the stream on pid; the log then belongs to it. */
static int start_trace(struct record_run *run, pid_t pid)
{
	trace_attr_t attr;
	const char *bad;
	int err;

	bad = record_make_attr(run->opts, &attr);
	if (bad) {
		/* cmd_record() checked them before anything ran. */
		fprintf(stderr, PROG ": %s: %s\n", bad, strerror(EINVAL));
		return 1;
	}
	err = posix_trace_create_withlog(pid, &attr, run->log_fd, &run->trid);
	posix_trace_attr_getlogsize(&attr, &run->log_size);
	posix_trace_attr_destroy(&attr);
	close_log(run);
	/* Set while suspended: the START event carries the filter. */
	if (!err && record_select_apply(run->select, run->trid)) {
		posix_trace_shutdown(run->trid);
		return 1;
	}
	if (!err) {
		err = kernel_classes_select(&run->opts->kernel, run->trid);
		if (err)
			posix_trace_shutdown(run->trid);
	}
	if (!err) {
		err = posix_trace_start(run->trid);
		if (err)
			posix_trace_shutdown(run->trid);
	}
	if (err) {
		record_trace_error(run->opts, err);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &run->started);
	record_status_open(&run->status_src, run->trid);
	record_progress_init(&run->progress);
	announce(run, pid);
	return 0;
}

/* Forks COMMAND, held until its stream runs. Returns 0 or exit status. */
static int run_command(struct record_run *run)
{
	int status;

	if (launch_fork(&run->launch))
		return 1;
	status = start_trace(run, run->launch.child);
	if (status) {
		launch_abort(&run->launch);
		return status;
	}
	status = launch_go(&run->launch);
	if (status) {
		record_status_close(&run->status_src);
		posix_trace_shutdown(run->trid);
	}
	return status;
}

/* Before LOG is truncated: a mistyped PID must not cost the old log. */
static int open_pidfd(struct record_run *run)
{
	run->launch.pidfd = launch_pidfd_open(run->opts->pid);
	if (run->launch.pidfd < 0) {
		record_trace_error(run->opts, errno);
		return 1;
	}
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Keeps the log on disk fresh: the kernel only flushes a half-full stream. */
static void flush(struct record_run *run)
{
	int err;

	if (run->flush_failed)
		return;
	err = posix_trace_flush(run->trid);
	if (err) {
		fprintf(stderr, PROG ": flushing the log: %s\n",
			strerror(err));
		run->flush_failed = true;
	}
}

/* The log's size now, -1 if it is not a file we can see. */
static long long log_bytes(const struct record_run *run)
{
	struct stat sb;
	int err;

	err = run->log_on_stdout ? fstat(STDOUT_FILENO, &sb) :
				   stat(run->opts->output, &sb);
	if (err || !S_ISREG(sb.st_mode))
		return -1;
	return sb.st_size;
}

static double since_start(const struct record_run *run)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - run->started.tv_sec) +
	       (double)(now.tv_nsec - run->started.tv_nsec) / 1e9;
}

/*
 * Reads the stream's status, says at once when the log starts failing
 * (events are being lost: the user may want to stop now), and shows the
 * progress line.
 */
static void check_status(struct record_run *run)
{
	record_status_read(&run->status_src, &run->status);
	if (run->status.flush_error && !run->error_told) {
		record_progress_clear(&run->progress);
		fprintf(stderr, PROG ": writing %s: %s: events are being "
			"lost\n", run->log_on_stdout ? "standard output" :
			run->opts->output, strerror(run->status.flush_error));
		run->error_told = true;
	}
	record_progress_show(&run->progress, &run->status, log_bytes(run),
			     since_start(run));
}

/* One tick: the status every time, a flush every FLUSH_TICKS. */
static void tick(struct record_run *run, unsigned int n)
{
	record_select_update(run->select, run->trid);
	if (n % FLUSH_TICKS == 0)
		flush(run);
	check_status(run);
}

/*
 * Until the traced process exits or a signal asks us to stop, reading the
 * status every TICK_NS. Returns 0, or 1 on a wait error.
 */
static int trace_loop(struct record_run *run)
{
	struct pollfd pfd = { .fd = run->launch.pidfd, .events = POLLIN };
	int64_t next = now_ns() + TICK_NS, left;
	struct timespec timeout;
	unsigned int ticks = 0;
	int n;

	while (!launch_stop_signal) {
		left = next - now_ns();
		if (left <= 0) {
			tick(run, ++ticks);
			next += TICK_NS;
			continue;
		}
		timeout.tv_sec = left / 1000000000;
		timeout.tv_nsec = left % 1000000000;
		n = ppoll(&pfd, 1, &timeout, &run->launch.run_mask);
		if (n > 0)
			return 0;	/* exited */
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}

/*
 * Stops tracing; the log is complete when shutdown returns. The stream's
 * status is read in between, once nothing more is recorded: after the
 * shutdown there is no stream to ask, and the log's own final status may
 * be the very thing a failing log could not write.
 */
static void stop_trace(struct record_run *run)
{
	int err;

	clock_gettime(CLOCK_MONOTONIC, &run->stopped);
	record_progress_clear(&run->progress);
	/* Stopped, the counts are final: nothing is recorded after them. */
	err = posix_trace_stop(run->trid);
	if (err)
		fprintf(stderr, PROG ": stopping the stream: %s\n",
			strerror(err));
	record_status_read(&run->status_src, &run->status);
	record_status_close(&run->status_src);
	err = posix_trace_shutdown(run->trid);
	if (err) {
		fprintf(stderr, PROG ": finishing the log: %s\n",
			strerror(err));
		run->trace_error = true;
	}
}

static double elapsed(const struct record_run *run)
{
	return (double)(run->stopped.tv_sec - run->started.tv_sec) +
	       (double)(run->stopped.tv_nsec - run->started.tv_nsec) / 1e9;
}

/*
 * A log on a pipe cannot be read back; one on a file through standard
 * output can, by the name the kernel gives our descriptor.
 */
static const char *readable_path(const struct record_run *run)
{
	struct stat sb;

	if (!run->log_on_stdout)
		return run->opts->output;
	if (fstat(STDOUT_FILENO, &sb) == 0 && S_ISREG(sb.st_mode))
		return "/proc/self/fd/1";
	return NULL;
}

/*
 * The summary on stderr. Returns the exit status it calls for: 1 if the
 * log failed or could not be read, EXIT_EVENTS_LOST if events were lost
 * otherwise than by the log policy chosen, else 0.
 */
static int print_summary(struct record_run *run)
{
	struct record_summary_in in = {
		.read_path = readable_path(run),
		.shown = run->log_on_stdout ? "standard output" :
			 run->opts->output,
		.seconds = elapsed(run),
		.log_policy = run->opts->log_policy,
		.log_size = run->log_size,
		.status = &run->status,
		.select = run->select,
		.brief = run->opts->quiet,
	};
	struct record_summary s;
	int bad;

	bad = record_summarize(&in, &s);
	record_summary_print(&in, &s);
	if (s.status.flush_error)
		bad = 1;
	else if (!bad && record_summary_unexpected_loss(&s))
		bad = EXIT_EVENTS_LOST;
	record_summary_free(&s);
	return bad;
}

/* Everything after the options: trace, stop, summarize. */
static int record(struct record_opts *o)
{
	struct record_run run = {
		.opts = o, .select = &o->select, .log_fd = -1,
		.launch = { .prog = PROG, .argv = o->argv, .pidfd = -1 },
	};
	unsigned int major, minor;
	int status, summary, err;

	/* Before LOG is truncated or COMMAND started: is there a module? */
	err = posixtrace_k_abi_version(&major, &minor);
	if (err) {
		fprintf(stderr, PROG ": /dev/posixtrace: %s%s\n", strerror(err),
			err == ENOENT ? " (is posixtrace.ko loaded?)" : "");
		return 1;
	}
	if ((o->pid && open_pidfd(&run)) || open_log(&run) ||
	    launch_signals(&run.launch))
		return 1;
	status = o->pid ? start_trace(&run, o->pid) : run_command(&run);
	if (status) {
		close_log(&run);
		return status;
	}
	if (trace_loop(&run))
		run.trace_error = true;
	stop_trace(&run);
	status = o->pid ? 0 : launch_wait(&run.launch);
	summary = print_summary(&run);
	close(run.launch.pidfd);
	/* A failed log first, lost events next: both outrank COMMAND's. */
	if (run.trace_error || summary == 1)
		return 1;
	return summary ? summary : status;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts opts;
	trace_attr_t attr;
	const char *bad;
	int status;

	status = parse_args(argc, argv, &opts);
	if (!status) {
		/* The library checks sizes too: refuse them before COMMAND. */
		bad = record_make_attr(&opts, &attr);
		if (bad)
			status = misuse("%s: value not accepted (too small or "
					"too large)", bad);
		else
			posix_trace_attr_destroy(&attr);
	}
	if (!status)
		status = opts.loop ? record_loop(&opts) : record(&opts);
	record_select_free(&opts.select);
	return status < 0 ? 0 : status;
}
