// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace trace [OPTIONS] -- COMMAND [ARGS...]
 * posixtrace trace [OPTIONS] -p PID
 * posixtrace trace [OPTIONS] --replay LOG
 *
 * A live view: COMMAND (or PID) and the processes it starts traced by a
 * stream without a log, its events read as they come and printed one a
 * line (event_line.h), user and kernel events in the order they
 * happened, as strace -f prints. Like strace, the lines go to standard
 * error (or -o FILE), so that COMMAND's output stays its own. --replay
 * prints a recorded log's events the same way, on standard output: the
 * host tests check trace's lines with it, without the module.
 */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <posixtrace-k.h>

#include "colour.h"
#include "command.h"
#include "event_line.h"
#include "kernel_classes.h"
#include "launch.h"
#include "logread.h"
#include "record_select.h"
#include "text.h"

#define PROG		"posixtrace trace"
/* How long one read waits before the command's exit is checked. */
#define WAIT_NS		100000000L
/* How often, in waits, new types are filtered for -e patterns. */
#define SELECT_WAITS	3

static const char trace_usage[] =
"usage: posixtrace trace [OPTIONS] [--] COMMAND [ARGS...]\n"
"       posixtrace trace [OPTIONS] -p PID\n"
"       posixtrace trace [OPTIONS] --replay LOG\n"
"Run COMMAND, or attach to the running process PID, and print its events\n"
"and those of the processes it creates as they happen, one line each, as\n"
"strace -f does: the kernel's (fork, exec, exit, signals) and the\n"
"program's own, in order:\n"
"  [pid  1234] 12:00:00.123456 fork -> pid 1235\n"
"  [pid  1235] 12:00:00.124000 exec \"/bin/ls\" [\"ls\", \"-l\"] (comm ls)\n"
"  [pid  1235] 12:00:00.130000 +++ exited with 0 +++\n"
"  [pid  1234] 12:00:00.131000 --- SIGCHLD {code=CLD_EXITED, sender=1235} ---\n"
"  [pid  1234] 12:00:00.140000 app.step {id=3, ms=1.5}\n"
"  # 12:00:00.150000 lost 42 events\n"
"The lines go to standard error, as strace's, unless -o. Tracing stops\n"
"when COMMAND or PID exits, or on SIGINT or SIGTERM.\n"
"\n"
"  -k, --kernel CLASSES     the kernel's events: proc (fork, exec, exit),\n"
"                           signal (generated, delivered), syscall (entered,\n"
"                           left), sched (off and on a CPU, woken, moved;\n"
"                           these two need CAP_PERFMON), a comma list of\n"
"                           them, all, or none (default proc,signal)\n"
"      --syscalls LIST      the system calls the syscall class records, as\n"
"                           record's (openat,read, %file...)\n"
"  -e, --event NAME         show only the events of this type (user or\n"
"                           kernel); a shell pattern selects every type it\n"
"                           matches; repeatable, as record's\n"
"  -o, --output FILE        write the lines to FILE\n"
"  -p, --pid PID            trace PID rather than run a command\n"
"  -s, --stream-size SIZE   the stream's size in memory (default: the\n"
"                           module's, 4M with syscall or sched); events\n"
"                           that do not fit are lost\n"
"      --replay LOG         print the events of the trace log LOG as trace\n"
"                           prints them (on standard output unless -o)\n"
"      --color WHEN         auto (the default: on a terminal, unless\n"
"                           NO_COLOR is set), always or never\n"
"  -h, --help               print this help\n"
"SIZE is in bytes, or with a suffix K, M or G.\n"
"\n"
"Exit status: COMMAND's (128+N if signal N killed it), 0 with -p or\n"
"--replay; 127 COMMAND could not be run; 1 a trace error; 2 usage.\n";

struct trace_opts {
	pid_t pid;
	char **argv;
	const char *output, *replay;
	size_t stream_size;
	bool has_stream_size;
	struct kernel_classes kernel;
	struct record_select select;
	enum colour_when colour;
};

static int misuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int misuse(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vusage_error(trace_usage, fmt, ap);
	va_end(ap);
	return ret;
}

enum { OPT_REPLAY = 256, OPT_COLOUR, OPT_SYSCALLS };

static int set_option(struct trace_opts *o, int c, const char *arg)
{
	const char *why = NULL;
	char *end;
	long v;
	int err;

	switch (c) {
	case OPT_SYSCALLS:
		return syscall_select_parse(&o->kernel.calls, arg, &why) ?
			misuse("bad --syscalls '%s': no system call or class "
			       "'%.*s'", arg, (int)strcspn(why, ","), why) : 0;
	case 'k':
		return kernel_classes_parse(&o->kernel, arg) ?
			misuse("bad --kernel '%s' (proc, signal, syscall, "
			       "sched, a comma list of them, all or none)",
			       arg) : 0;
	case 'e':
		err = record_select_add(&o->select, arg, &why);
		if (err == EINVAL)
			return misuse("bad --event '%s': %s", arg, why);
		if (err)
			fprintf(stderr, PROG ": %s\n", strerror(err));
		return err ? 1 : 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'p':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || v <= 0 || v > INT32_MAX)
			return misuse("bad PID '%s'", arg);
		o->pid = (pid_t)v;
		return 0;
	case 's':
		o->has_stream_size = true;
		return parse_size(arg, &o->stream_size) ?
			misuse("bad --stream-size '%s'", arg) : 0;
	case OPT_REPLAY:
		o->replay = arg;
		return 0;
	case OPT_COLOUR:
		return colour_parse(arg, &o->colour) ?
			misuse("bad --color '%s': auto, always or never", arg) :
			0;
	}
	return misuse(NULL);
}

/* 0, -1 for --help, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct trace_opts *o)
{
	static const struct option options[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "syscalls", required_argument, NULL, OPT_SYSCALLS },
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "stream-size", required_argument, NULL, 's' },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "color", required_argument, NULL, OPT_COLOUR },
		{ "colour", required_argument, NULL, OPT_COLOUR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	int c, status, sources;

	kernel_classes_init(&o->kernel);
	/* '+': the first non-option is COMMAND, whose options are its own. */
	while ((c = getopt_long(argc, argv, "+k:e:o:p:s:h", options,
				NULL)) != -1) {
		if (c == 'h') {
			usage_help(trace_usage);
			return -1;
		}
		status = set_option(o, c, optarg);
		if (status)
			return status;
	}
	o->argv = argv + optind;
	sources = !!o->pid + !!o->argv[0] + !!o->replay;
	if (sources > 1)
		return misuse("give one of COMMAND, -p PID and --replay LOG");
	if (!sources)
		return misuse("nothing to trace: give a COMMAND or -p PID");
	if (o->replay && (o->select.n || o->kernel.explicit ||
			  o->kernel.calls.given || o->has_stream_size))
		return misuse("--replay prints the log as it is: -e, --kernel, "
			      "--syscalls and -s are for a live trace "
			      "(posixtrace dump -e chooses events of a log)");
	why = kernel_classes_check(&o->kernel);
	return why ? misuse("%s", why) : 0;
}

/* The log's events as trace prints them. */
static int replay(const struct trace_opts *o, FILE *out,
		  const struct event_line_opts *lo)
{
	struct log_reader lr;
	struct log_event ev;
	bool end = false;
	int err;

	if (log_open(&lr, o->replay, PROG))
		return 1;
	while (!(err = log_next(&lr, &ev, &end)) && !end)
		event_line_print(out, &ev, lo);
	if (err)
		fprintf(stderr, PROG ": %s: %s\n", o->replay, strerror(err));
	log_close(&lr);
	return err ? 1 : 0;
}

/* The stream's attributes; NULL, or the option the library refused. */
static const char *make_attr(const struct trace_opts *o, trace_attr_t *attr)
{
	if (posix_trace_attr_init(attr))
		return "attributes";
	posix_trace_attr_setname(attr, "posixtrace-trace");
	if (posix_trace_attr_setinherited(attr, POSIX_TRACE_INHERITED))
		return "inheritance";
	if (o->has_stream_size &&
	    posix_trace_attr_setstreamsize(attr, o->stream_size))
		return "--stream-size";
	if (kernel_classes_apply(&o->kernel, attr, false, o->has_stream_size))
		return "--kernel";
	return NULL;
}

/* Creates and starts the stream on pid: 0, or 1 (said on stderr). */
static int start_stream(struct trace_opts *o, pid_t pid, trace_id_t *trid)
{
	trace_attr_t attr;
	const char *bad = make_attr(o, &attr);
	int err;

	if (bad) {
		fprintf(stderr, PROG ": %s: %s\n", bad, strerror(EINVAL));
		return 1;
	}
	err = posix_trace_create(pid, &attr, trid);
	posix_trace_attr_destroy(&attr);
	if (err) {
		fprintf(stderr, PROG ": cannot trace PID %d: %s%s\n", (int)pid,
			strerror(err), kernel_classes_why(&o->kernel, err));
		return 1;
	}
	/* Set while suspended, as record does. */
	if (record_select_apply(&o->select, *trid) ||
	    (err = kernel_classes_select(&o->kernel, *trid)) ||
	    (err = posix_trace_start(*trid))) {
		if (err)
			fprintf(stderr, PROG ": starting: %s\n", strerror(err));
		posix_trace_shutdown(*trid);
		return 1;
	}
	return 0;
}

/* Whether the traced process exited; lets a stop signal in meanwhile. */
static bool exited(const struct launch *l)
{
	struct pollfd pfd = { .fd = l->pidfd, .events = POLLIN };
	struct timespec zero = { 0, 0 };

	return ppoll(&pfd, 1, &zero, &l->run_mask) > 0;
}

static void deadline(struct timespec *ts, long ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += ns;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/*
 * The events until the process exits or a signal stops us, then those
 * still in the stream. Returns 0, or 1 on a read error.
 */
static int show_events(struct trace_opts *o, struct log_reader *lr,
		       const struct launch *l, FILE *out,
		       const struct event_line_opts *lo)
{
	struct log_event ev;
	struct timespec until;
	unsigned int waits = 0;
	bool got, done = false;
	int err;

	do {
		done = launch_stop_signal || exited(l);
		/* Once done, what is left is read without waiting. */
		deadline(&until, done ? 0 : WAIT_NS);
		while (!(err = log_next_live(lr, &ev, &until, &got)) && got)
			event_line_print(out, &ev, lo);
		if (err) {
			fprintf(stderr, PROG ": reading events: %s\n",
				strerror(err));
			return 1;
		}
		if (++waits % SELECT_WAITS == 0)
			record_select_update(&o->select, lr->trid);
	} while (!done);
	return 0;
}

static int trace_live(struct trace_opts *o, FILE *out,
		      const struct event_line_opts *lo)
{
	struct launch l = { .prog = PROG, .argv = o->argv, .pidfd = -1 };
	struct log_reader lr;
	trace_id_t trid;
	unsigned int major, minor;
	int status = 0, bad;
	bool attached;

	/* Before COMMAND is started: is there a module? */
	bad = posixtrace_k_abi_version(&major, &minor);
	if (bad) {
		fprintf(stderr, PROG ": /dev/posixtrace: %s%s\n", strerror(bad),
			bad == ENOENT ? " (is posixtrace.ko loaded?)" : "");
		return 1;
	}
	if (launch_signals(&l))
		return 1;
	if (o->pid) {
		l.pidfd = launch_pidfd_open(o->pid);
		if (l.pidfd < 0) {
			fprintf(stderr, PROG ": PID %d: %s\n", (int)o->pid,
				strerror(errno));
			return 1;
		}
	} else if (launch_fork(&l)) {
		return 1;
	}
	if (start_stream(o, o->pid ? o->pid : l.child, &trid)) {
		if (!o->pid)
			launch_abort(&l);
		close(l.pidfd);
		return 1;
	}
	attached = !log_attach(&lr, trid, "the stream", PROG);
	bad = !attached;
	if (!o->pid && bad)
		launch_abort(&l);
	else if (!o->pid)
		status = launch_go(&l);
	if (!bad && !status)
		bad = show_events(o, &lr, &l, out, lo);
	if (attached)
		log_close(&lr);
	posix_trace_shutdown(trid);
	if (!o->pid && !status)
		status = launch_wait(&l);
	close(l.pidfd);
	return bad ? 1 : status;
}

int cmd_trace(int argc, char **argv)
{
	struct trace_opts o = { 0 };
	struct event_line_opts lo = { 0 };
	FILE *out;
	int status;

	status = parse_args(argc, argv, &o);
	if (status) {
		record_select_free(&o.select);
		return status < 0 ? 0 : status;
	}
	out = o.replay ? stdout : stderr;
	if (o.output) {
		out = fopen(o.output, "we");
		if (!out) {
			fprintf(stderr, PROG ": %s: %s\n", o.output,
				strerror(errno));
			record_select_free(&o.select);
			return 1;
		}
	}
	/* A live view: each line as soon as it is known. */
	setvbuf(out, NULL, _IOLBF, 0);
	lo.colour = colour_on(o.colour, fileno(out));
	status = o.replay ? replay(&o, out, &lo) : trace_live(&o, out, &lo);
	if ((fflush(out) || ferror(out)) && !status) {
		fprintf(stderr, PROG ": writing the lines: %s\n",
			strerror(errno));
		status = 1;
	}
	if (o.output)
		fclose(out);
	record_select_free(&o.select);
	return status;
}
