// SPDX-License-Identifier: GPL-2.0
/*
 * ust_cost: what one LTTng-UST tracepoint with 8 bytes of payload costs,
 * as ratios to a null system call and to a write to ftrace's trace_marker
 * measured in the same run: the peer event_cost is read against.
 *
 *   disabled  no session is active: the tracepoint's test of its state,
 *             nothing more (LTTng registers no probe then);
 *   enabled   a running session records it: a normal session, its channel
 *             of 4 sub-buffers of 1 MiB per CPU (per-user buffers, discard
 *             mode), lttng-consumerd writing the trace to -o DIR as it
 *             comes (what posixtrace's (d) and (f) do);
 *   enabled, default channel
 *             the same with the default channel (channel0: 4 x 512 KiB);
 *   snapshot  a snapshot session: its channel (4 x 1 MiB) in overwrite
 *             mode, nothing consumed while timed (what posixtrace's (c),
 *             a LOOP stream nobody reads, does).
 *
 * The session daemon must be running (bench/lttng.sh starts one); ust_cost
 * drives it with the lttng command (in PATH). Each LTTng row has its
 * session, created when the row is first measured and destroyed at the
 * end; around each timed loop the session is started and stopped (the stop
 * waits until the consumer has taken everything), and its trace cleared
 * (lttng clear). A session that has recorded once has its buffers in
 * place: the timed loops measure the steady state, not the first touch of
 * a fresh buffer. The disabled row is timed while every session is stopped.
 *
 * After each timed loop of a normal session: the events it discarded (the
 * session's statistics, lttng list) and the bytes it wrote, which must be
 * at least 8 per event not discarded. At the end, a check that events
 * really arrive: a session like the enabled row's records CHECK_EVENTS
 * events, and babeltrace2 must read them all back with their values.
 *
 * Method: harness.h's, as event_cost's, with N checked by one loop more
 * (-t, 0.3 s; -r, 5 rounds): min/median/max per call, and the medians of
 * the per-round ratios.
 *
 * -L: LTTng's live mode instead (keepup's row (e), issue 28), the peer of
 * keepup's live reader: an lttng-relayd of its own (started here, in the
 * foreground, killed at the end), a live session (--live, a live timer of
 * 100 ms; its channel as the enabled row's: 4 x 1 MiB per CPU, discard
 * mode), and babeltrace2's src.ctf.lttng-live reading it into
 * sink.utils.counter while the tracepoint is hit flat out for -t seconds.
 * Each round runs it twice, with the viewer and without (the same live
 * session, no one reading), for the producer's rate either way. The share
 * is what babeltrace2 counted over what was made; the session's discarded
 * events must make up the rest.
 *
 * A benchmark, not a test: it never fails on speed, nor when LTTng cannot
 * be used (no session daemon...): the rows it could not measure say why.
 * Absolute times under emulation (QEMU TCG) mean little: read the ratios.
 */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "ust_tp.h"

#include "harness.h"

#define CHECK_EVENTS	10000

enum { C_GETPPID, C_MARKER, C_OFF, C_ON, C_ON_DEFAULT, C_SNAPSHOT, NR_CASES };

struct bench_case {
	const char *name;	/* table row */
	const char *summary;	/* summary line, NULL for references */
	int (*setup)(struct bench_case *c);	/* 0, or an error: skipped */
	void (*teardown)(struct bench_case *c);
	void (*loop)(uint64_t n);
	/* LTTng rows: lttng create's options, enable-channel's (NULL: the
	 * default channel), and the session once created. */
	const char *create_opts;
	const char *channel_opts;
	char session[64];
	char dir[512];
	char channel[200];	/* as lttng list describes it */
	bool discard;		/* discard mode: counts discarded events */
	uint64_t discarded_before;	/* the session's count so far */
	uint64_t events, discarded;	/* over the timed loops */
	uint64_t bytes;			/* the traces they wrote */
	uint64_t n;
	double ns[MAX_ROUNDS];	/* per call, per round */
	bool skipped;
	char note[240];
};

static uint64_t loop_n;		/* events the last loop produced */
static bool timing;		/* in the timed rounds, not calibrating */
static const char *out_dir = "/tmp";
static char lttng_out[16384];	/* the last lttng command's output */

/* The loops. */

static void loop_tracepoint(uint64_t n)
{
	loop_n = n;
	for (uint64_t i = 0; i < n; i++)
		lttng_ust_tracepoint(ust_bench, event, i);
}

static int no_setup(struct bench_case *c)
{
	(void)c;
	return 0;
}

static void no_teardown(struct bench_case *c)
{
	(void)c;
}

/* trace_marker: harness.h finds it. */
static int setup_marker(struct bench_case *c)
{
	(void)c;
	return marker_open();
}

/*
 * Run "lttng --no-sessiond ARGS" (never spawn a session daemon of its own:
 * ours is started by the caller) through the shell; its output, stdout and
 * stderr, in lttng_out. 0 if it exited 0.
 */
__attribute__((format(printf, 1, 2)))
static int lttng(const char *fmt, ...)
{
	static const char prefix[] = "lttng --no-sessiond ", suffix[] = " 2>&1";
	char cmd[1024];
	size_t len = 0, got;
	va_list ap;
	FILE *p;
	int n, st;

	lttng_out[0] = '\0';
	strcpy(cmd, prefix);
	va_start(ap, fmt);
	n = vsnprintf(cmd + sizeof(prefix) - 1,
		      sizeof(cmd) - sizeof(prefix) - sizeof(suffix) + 1, fmt,
		      ap);
	va_end(ap);
	if (n < 0 ||
	    (size_t)n >= sizeof(cmd) - sizeof(prefix) - sizeof(suffix) + 1) {
		snprintf(lttng_out, sizeof(lttng_out), "command too long");
		return -1;
	}
	strcat(cmd, suffix);
	fflush(stdout);
	p = popen(cmd, "r");
	if (!p) {
		snprintf(lttng_out, sizeof(lttng_out), "popen: %s",
			 strerror(errno));
		return -1;
	}
	while ((got = fread(lttng_out + len, 1, sizeof(lttng_out) - 1 - len,
			    p)) > 0)
		len += got;
	lttng_out[len] = '\0';
	/* The rest, if it did not fit, is read and dropped. */
	while (fread(cmd, 1, sizeof(cmd), p) > 0)
		;
	st = pclose(p);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The first line of lttng's output that says something: for a note. */
static const char *lttng_said(void)
{
	static char line[160];
	const char *s = lttng_out, *e;

	while (*s == '\n' || *s == ' ')
		s++;
	e = strstr(s, "Error: ");
	if (e)
		s = e;
	e = strchr(s, '\n');
	snprintf(line, sizeof(line), "%.*s",
		 (int)(e ? (size_t)(e - s) : strlen(s)), s);
	return line[0] ? line : "no output";
}

/* The number after "key" in lttng's output, or -1. */
static long long lttng_field(const char *key)
{
	const char *s = strstr(lttng_out, key);

	return s ? strtoll(s + strlen(key), NULL, 10) : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static uint64_t tree_bytes;

static int add_stream_bytes(const char *path, const struct stat *st,
			    int flag, struct FTW *ftw)
{
	/* The data streams: not the metadata, not the index files. */
	if (flag == FTW_F && strcmp(path + ftw->base, "metadata") &&
	    !strstr(path, "/index/"))
		tree_bytes += (uint64_t)st->st_size;
	return 0;
}

/* Bytes of the trace's data streams under dir. */
static uint64_t stream_bytes(const char *dir)
{
	tree_bytes = 0;
	nftw(dir, add_stream_bytes, 16, FTW_PHYS);
	return tree_bytes;
}

static void session_destroy(struct bench_case *c)
{
	if (!c->session[0])
		return;
	lttng("destroy %s", c->session);
	rm_tree(c->dir);
	c->session[0] = '\0';
}

/* The session, its channel and its event rule: ust_bench:* in user space. */
static int session_create(struct bench_case *c)
{
	static int seq;
	const char *what;

	snprintf(c->session, sizeof(c->session), "ust-bench-%d-%d",
		 (int)getpid(), ++seq);
	snprintf(c->dir, sizeof(c->dir), "%s/%s", out_dir, c->session);
	what = "lttng create";
	if (lttng("create %s %s -o '%s'", c->session, c->create_opts,
		  c->dir)) {
		c->session[0] = '\0';
		goto fail;
	}
	what = "lttng enable-channel";
	if (c->channel_opts &&
	    lttng("enable-channel -u -s %s %s bench", c->session,
		  c->channel_opts))
		goto fail;
	what = "lttng enable-event";
	if (lttng("enable-event -u -s %s %s 'ust_bench:*'", c->session,
		  c->channel_opts ? "-c bench" : ""))
		goto fail;
	/* What the channel is, from the daemon. */
	what = "lttng list";
	if (lttng("list %s", c->session))
		goto fail;
	c->discard = strstr(lttng_out, "Event-loss mode:  discard") != NULL;
	snprintf(c->channel, sizeof(c->channel),
		 "%s mode, %lld sub-buffers of %lld bytes per CPU, %s buffers",
		 c->discard ? "discard" : "overwrite",
		 lttng_field("Sub-buffer count:"),
		 lttng_field("Sub-buffer size:"),
		 strstr(lttng_out, "per-user") ? "per-user" :
		 strstr(lttng_out, "per-process") ? "per-process" : "?");
	return 0;
fail:
	snprintf(c->note, sizeof(c->note), "skipped: %s: %s", what,
		 lttng_said());
	session_destroy(c);
	return EIO;
}

static int setup_session(struct bench_case *c)
{
	int err;

	if (!c->session[0]) {
		err = session_create(c);
		if (err)
			return err;
	}
	if (lttng("start %s", c->session)) {
		snprintf(c->note, sizeof(c->note), "skipped: lttng start: %s",
			 lttng_said());
		session_destroy(c);
		return EIO;
	}
	return 0;
}

/*
 * Stop (lttng stop waits until the consumer has taken what the buffers
 * hold), count what the loop lost and wrote, clear the trace.
 */
static void teardown_session(struct bench_case *c)
{
	char msg[200];
	long long d = -1;
	uint64_t lost = 0, bytes = 0;

	if (lttng("stop %s", c->session))
		problem("lttng stop failed: a session may have gone on "
			"recording");
	if (c->discard) {
		if (!lttng("list %s", c->session))
			d = lttng_field("Discarded events:");
		if (d < 0) {
			snprintf(msg, sizeof(msg), "%s: no discarded-event "
				 "count from lttng list", c->name);
			problem(msg);
		} else {
			/* The count is the session's since its start. */
			lost = (uint64_t)d >= c->discarded_before ?
			       (uint64_t)d - c->discarded_before : (uint64_t)d;
			c->discarded_before = (uint64_t)d;
		}
		bytes = stream_bytes(c->dir);
		if (lost <= loop_n && bytes < DATA_LEN * (loop_n - lost)) {
			snprintf(msg, sizeof(msg), "%s: the trace holds %llu "
				 "bytes for %llu events recorded", c->name,
				 (unsigned long long)bytes,
				 (unsigned long long)(loop_n - lost));
			problem(msg);
		}
	}
	if (timing) {
		c->events += loop_n;
		c->discarded += lost;
		c->bytes += bytes;
	}
	if (lttng("clear %s", c->session))
		problem("lttng clear failed: the traces were kept on disk");
}

static struct bench_case cases[NR_CASES] = {
	[C_GETPPID] = {
		.name = "syscall(SYS_getppid)",
		.setup = no_setup, .teardown = no_teardown,
		.loop = loop_getppid,
	},
	[C_MARKER] = {
		.name = "write(trace_marker, 8 B)",
		.summary = "write(2) of 8 bytes to ftrace's trace_marker",
		.setup = setup_marker, .teardown = no_teardown,
		.loop = loop_marker,
	},
	[C_OFF] = {
		.name = "lttng-ust disabled",
		.summary = "lttng-ust tracepoint, no session active",
		.setup = no_setup, .teardown = no_teardown,
		.loop = loop_tracepoint,
	},
	[C_ON] = {
		.name = "lttng-ust enabled",
		.summary = "lttng-ust tracepoint, a session recording (1M x 4)",
		.setup = setup_session, .teardown = teardown_session,
		.loop = loop_tracepoint,
		.create_opts = "",
		.channel_opts = "--subbuf-size 1M --num-subbuf 4",
	},
	[C_ON_DEFAULT] = {
		.name = "lttng-ust enabled, dflt ch",
		.summary = "lttng-ust tracepoint, a session recording "
			   "(default channel)",
		.setup = setup_session, .teardown = teardown_session,
		.loop = loop_tracepoint,
		.create_opts = "",
	},
	[C_SNAPSHOT] = {
		.name = "lttng-ust snapshot",
		.summary = "lttng-ust tracepoint, a snapshot session (1M x 4, "
			   "overwrite)",
		.setup = setup_session, .teardown = teardown_session,
		.loop = loop_tracepoint,
		.create_opts = "--snapshot",
		.channel_opts = "--overwrite --subbuf-size 1M --num-subbuf 4",
	},
};

/* One timed loop of c->n calls, between its setup and teardown. */
static int measure(struct bench_case *c, double *secs)
{
	double t0, t1;
	int err;

	err = c->setup(c);
	if (err)
		return err;
	t0 = now();
	c->loop(c->n);
	t1 = now();
	c->teardown(c);
	*secs = t1 - t0;
	return 0;
}

static int measure_case(void *c, double *secs)
{
	return measure(c, secs);
}

/*
 * N such that a loop takes about target seconds, set again after one
 * loop more: the first loops into a session are slower (its buffers are
 * touched for the first time, the consumer starts).
 */
static int calibrate(struct bench_case *c, double target)
{
	return calibrate_n(measure_case, c, &c->n, target, true, 0);
}

/*
 * Do events arrive? A session like the enabled row's records CHECK_EVENTS
 * events valued 0..CHECK_EVENTS-1; babeltrace2 must read them all back.
 */
static void check_events(void)
{
	struct bench_case c = cases[C_ON];
	unsigned long long v, count = 0, sum = 0, want;
	long long discarded;
	char cmd[700], line[512];
	const char *s;
	FILE *p;
	int st;

	c.session[0] = '\0';
	if (setup_session(&c)) {
		printf("lttng-ust check: not run (%s)\n", c.note);
		return;
	}
	loop_tracepoint(CHECK_EVENTS);
	if (lttng("stop %s", c.session) || lttng("list %s", c.session)) {
		printf("lttng-ust check: not run (lttng stop, list: %s)\n",
		       lttng_said());
		session_destroy(&c);
		return;
	}
	discarded = lttng_field("Discarded events:");
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1", c.dir);
	fflush(stdout);
	p = popen(cmd, "r");
	if (!p) {
		printf("lttng-ust check: not run (popen: %s)\n",
		       strerror(errno));
		session_destroy(&c);
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		if (!strstr(line, "ust_bench:event"))
			continue;
		s = strstr(line, "value = ");
		if (!s || sscanf(s + 8, "%llu", &v) != 1)
			continue;
		count++;
		sum += v;
	}
	st = pclose(p);
	want = (unsigned long long)CHECK_EVENTS * (CHECK_EVENTS - 1) / 2;
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		printf("lttng-ust check: babeltrace2 failed (exit status %d): "
		       "events not checked\n",
		       st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	else
		printf("lttng-ust check: babeltrace2 read back %llu of the "
		       "%d events recorded (%s), %lld discarded\n",
		       count, CHECK_EVENTS,
		       sum == want && count == CHECK_EVENTS ?
		       "values intact" : "NOT all, or not as recorded",
		       discarded);
	session_destroy(&c);
}

/* ---- -L: LTTng live ------------------------------------------------------ */

#define LIVE_PORT	5344	/* lttng-relayd's default live port */
#define LIVE_SESSION	"ust-live"

static pid_t relayd_pid;

/* Does something listen on 127.0.0.1:port? */
static bool port_answers(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return ok;
}

/*
 * An lttng-relayd of our own, in the foreground (its pid is ours to
 * kill), writing under dir. NULL, or why not.
 */
static const char *relayd_start(const char *dir)
{
	static char why[200];
	char out[600], log[600];
	int fd;

	if (port_answers(LIVE_PORT))
		return "something already listens on the live port 5344";
	snprintf(out, sizeof(out), "--output=%s/relay", dir);
	snprintf(log, sizeof(log), "%s/relayd.log", dir);
	fflush(stdout);
	relayd_pid = fork();
	if (relayd_pid < 0)
		return strerror(errno);
	if (!relayd_pid) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp("lttng-relayd", "lttng-relayd", out, (char *)NULL);
		_exit(127);
	}
	/* Under emulation it may take seconds to listen. */
	for (int i = 0; i < 300; i++) {
		if (port_answers(LIVE_PORT))
			return NULL;
		if (waitpid(relayd_pid, NULL, WNOHANG) == relayd_pid) {
			relayd_pid = 0;
			snprintf(why, sizeof(why), "lttng-relayd exited at "
				 "once (see its log)");
			return why;
		}
		usleep(100000);
	}
	return "lttng-relayd did not listen on 127.0.0.1:5344 within 30 s";
}

static void relayd_stop(void)
{
	if (relayd_pid <= 0)
		return;
	kill(relayd_pid, SIGTERM);
	waitpid(relayd_pid, NULL, 0);
	relayd_pid = 0;
}

/* The hit loop, flat out until the clock says end: how many hits. */
static uint64_t hit_until(double end)
{
	uint64_t i = 0;

	do {
		for (int k = 0; k < 64; k++, i++)
			lttng_ust_tracepoint(ust_bench, event, i);
	} while (now() < end);
	return i;
}

struct live_round {
	uint64_t made, seen, discarded;
	bool discarded_known;
	double rate;		/* hits a second */
	double busy;		/* the machine's CPUs, % busy; -1 unknown */
	bool viewed;
};

/*
 * One window: a fresh live session (the viewer ends when it is
 * destroyed: session-not-found-action "end"), babeltrace2 attached to it
 * or not, the producer for window seconds, then stop, the discarded
 * count, destroy, and what babeltrace2 counted. NULL, or why not.
 */
static const char *live_window(const char *host, double window, bool viewer,
			       struct live_round *lr)
{
	static char why[300];
	char cmd[1024], line[256], what[64], said[400], last[200];
	unsigned long long n;
	const char *d;
	FILE *bt = NULL;
	uint64_t busy0 = 0, all0 = 0, busy1 = 0, all1 = 0;
	bool cpu_ok;
	double t0;

	memset(lr, 0, sizeof(*lr));
	lr->viewed = viewer;
	if (lttng("create %s --live=100000", LIVE_SESSION) ||
	    lttng("enable-channel -u -s %s --subbuf-size 1M --num-subbuf 4 "
		  "bench", LIVE_SESSION) ||
	    lttng("enable-event -u -s %s -c bench 'ust_bench:*'",
		  LIVE_SESSION) ||
	    lttng("start %s", LIVE_SESSION)) {
		snprintf(why, sizeof(why), "lttng: %s", lttng_said());
		lttng("destroy %s", LIVE_SESSION);
		return why;
	}
	if (viewer) {
		snprintf(cmd, sizeof(cmd),
			 "babeltrace2 --component=src.ctf.lttng-live "
			 "--params='inputs=[\"net://127.0.0.1/host/%s/%s\"],"
			 "session-not-found-action=\"end\"' "
			 "--component=sink.utils.counter 2>&1", host,
			 LIVE_SESSION);
		fflush(stdout);
		bt = popen(cmd, "r");
		if (!bt) {
			lttng("destroy %s", LIVE_SESSION);
			return "popen babeltrace2 failed";
		}
		/*
		 * The viewer gets what comes after it attached: give it
		 * time to (there is no way to ask the relay daemon).
		 */
		sleep(3);
	}
	cpu_ok = cpu_jiffies(&busy0, &all0);
	t0 = now();
	lr->made = hit_until(t0 + window);
	lr->rate = (double)lr->made / (now() - t0);
	cpu_ok = cpu_jiffies(&busy1, &all1) && cpu_ok;
	lr->busy = cpu_ok && all1 > all0 ?
		   100.0 * (double)(busy1 - busy0) / (double)(all1 - all0) : -1;
	lttng("stop %s", LIVE_SESSION);
	/*
	 * Unsigned, and believed only if it is a count of what was made:
	 * a live session has once said 2^64 - 1 (not known) here.
	 */
	d = lttng("list %s", LIVE_SESSION) ? NULL :
	    strstr(lttng_out, "Discarded events:");
	if (d) {
		lr->discarded = strtoull(d + strlen("Discarded events:"), NULL,
					 10);
		lr->discarded_known = lr->discarded <= lr->made;
	}
	lttng("destroy %s", LIVE_SESSION);
	if (!bt)
		return NULL;
	/*
	 * sink.utils.counter's lines are "N what": "N Event messages". Of
	 * the others the last two are kept: on a failure, babeltrace2's
	 * innermost cause and its message.
	 */
	said[0] = last[0] = '\0';
	while (fgets(line, sizeof(line), bt)) {
		if (sscanf(line, " %llu %63[^\n]", &n, what) == 2) {
			if (!strcasecmp(what, "event messages"))
				lr->seen = n;
		} else if (strspn(line, " \n") < strlen(line)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(said, sizeof(said), "%s /%s", last,
				 line + strspn(line, " "));
			snprintf(last, sizeof(last), "%s",
				 line + strspn(line, " "));
		}
	}
	if (pclose(bt)) {
		snprintf(why, sizeof(why), "babeltrace2's lttng-live source "
			 "failed: %s", said[0] ? said : "(it said nothing)");
		return why;
	}
	return NULL;
}

static int live_main(double window, int rounds)
{
	struct live_round lr[MAX_ROUNDS][2];
	double share[MAX_ROUNDS], with[MAX_ROUNDS], without[MAX_ROUNDS];
	double ratio[MAX_ROUNDS], busy_with[MAX_ROUNDS], busy_wo[MAX_ROUNDS];
	uint64_t made = 0, seen = 0, discarded = 0;
	bool known = true;
	char host[256], dir[512];
	int ok = 0;
	const char *why;

	printf("lttng live: %d rounds, a timed window of %.2f s\n", rounds,
	       window);
	if (lttng("list")) {
		printf("lttng live: not run: no session daemon answers (%s)\n",
		       lttng_said());
		return 0;
	}
	if (gethostname(host, sizeof(host)) || !host[0] ||
	    strpbrk(host, "()/ ")) {
		printf("lttng live: not run: no usable host name for the "
		       "live URL ('%s')\n", host);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/live-%d", out_dir, (int)getpid());
	mkdir(dir, 0755);
	why = relayd_start(dir);
	if (why) {
		printf("lttng live: not run: %s\n", why);
		relayd_stop();
		rm_tree(dir);
		return 0;
	}
	/* A round that failed is said and left out; the others count. */
	for (int i = 0; i < rounds; i++)
		for (int v = 1; v >= 0; v--) {
			why = live_window(host, window, v, &lr[ok][v]);
			if (why) {
				printf("lttng live: round %d: %s\n", i + 1,
				       why);
				break;
			}
			ok += !v;
		}
	relayd_stop();
	rm_tree(dir);
	if (!ok) {
		printf("lttng live: not run: no round succeeded\n");
		return 0;
	}
	rounds = ok;
	for (int i = 0; i < rounds; i++) {
		struct live_round *v = &lr[i][1];

		share[i] = 100.0 * (double)v->seen / (double)v->made;
		with[i] = v->rate;
		without[i] = lr[i][0].rate;
		busy_with[i] = v->busy;
		busy_wo[i] = lr[i][0].busy;
		made += v->made;
		seen += v->seen;
		discarded += v->discarded;
		known &= v->discarded_known;
	}
	for (int i = 0; i < rounds; i++)
		ratio[i] = with[i] / without[i];
	printf("lttng live (1M x 4 per CPU, discard mode, live timer 100 ms), "
	       "babeltrace2 lttng-live into a counter, one producer flat "
	       "out, min/median/max over %d rounds of %.2f s:\n", rounds,
	       window);
	printf("lttng live: share received %.1f/%.1f/%.1f %%; producer "
	       "%.2f/%.2f/%.2f M/s with the viewer, %.2f/%.2f/%.2f M/s "
	       "without: %.2f/%.2f/%.2fx (the share %s); CPU%% "
	       "%.0f/%.0f/%.0f with the viewer, %.0f/%.0f/%.0f without\n",
	       min_of(share, rounds), median(share, rounds),
	       max_of(share, rounds), min_of(with, rounds) / 1e6,
	       median(with, rounds) / 1e6, max_of(with, rounds) / 1e6,
	       min_of(without, rounds) / 1e6, median(without, rounds) / 1e6,
	       max_of(without, rounds) / 1e6, min_of(ratio, rounds),
	       median(ratio, rounds), max_of(ratio, rounds),
	       median(ratio, rounds) >= 0.9 ? "counts" :
	       "does NOT count: the producer slowed below 0.9x",
	       min_of(busy_with, rounds), median(busy_with, rounds),
	       max_of(busy_with, rounds), min_of(busy_wo, rounds),
	       median(busy_wo, rounds), max_of(busy_wo, rounds));
	if (known)
		printf("lttng live: %llu made, %llu received, %llu discarded "
		       "(the session's count): %s\n",
		       (unsigned long long)made, (unsigned long long)seen,
		       (unsigned long long)discarded,
		       seen + discarded == made ? "accounted for" :
		       "NOT accounted for (received + discarded != made)");
	else
		printf("lttng live: %llu made, %llu received; the session's "
		       "discarded count was not known in every round\n",
		       (unsigned long long)made, (unsigned long long)seen);
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-r ROUNDS] [-t SECONDS] [-o DIR] [-L]\n"
		"  -r  rounds, each measuring every case once (5; 1..%d)\n"
		"  -t  target time of one timed loop (0.3 s)\n"
		"  -o  where the sessions write their traces (/tmp)\n"
		"  -L  LTTng live instead: lttng-relayd, babeltrace2's "
		"lttng-live\n"
		"A running lttng-sessiond is needed for the enabled rows "
		"(bench/lttng.sh).\n",
		prog, MAX_ROUNDS);
	exit(2);
}

int main(int argc, char **argv)
{
	struct bench_case *ref = &cases[C_GETPPID], *mk = &cases[C_MARKER];
	double target = 0.3;
	int rounds = 5, opt, err;
	bool lttng_ok, live = false, r_set = false, t_set = false;

	while ((opt = getopt(argc, argv, "r:t:o:L")) != -1) {
		switch (opt) {
		case 'r':
			r_set = true;
			rounds = atoi(optarg);
			if (rounds < 1 || rounds > MAX_ROUNDS)
				usage(argv[0]);
			break;
		case 't':
			t_set = true;
			target = atof(optarg);
			if (!(target > 0))
				usage(argv[0]);
			break;
		case 'o':
			/* It goes to the shell, in single quotes. */
			out_dir = optarg;
			if (strchr(out_dir, '\'') ||
			    strlen(out_dir) > sizeof(cases[0].dir) - 64)
				usage(argv[0]);
			break;
		case 'L':
			live = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	/* Live, keepup's defaults: its rows are read beside these. */
	if (live)
		return live_main(t_set ? target : 0.5, r_set ? rounds : 3);

	printf("ust_cost: %d rounds, each timed loop about %.2f s "
	       "(N calibrated per case)\n", rounds, target);
	lttng_ok = !lttng("list");
	if (!lttng_ok)
		printf("lttng-ust: no session daemon answers (%s): only the "
		       "disabled tracepoint is measured\n", lttng_said());
	for (int k = 0; k < NR_CASES; k++) {
		struct bench_case *c = &cases[k];

		if (c->setup == setup_session && !lttng_ok) {
			c->skipped = true;
			snprintf(c->note, sizeof(c->note),
				 "skipped: no session daemon");
			continue;
		}
		err = calibrate(c, target);
		if (err && k == C_MARKER) {
			c->skipped = true;
			snprintf(c->note, sizeof(c->note),
				 "skipped: no usable trace_marker (%s)",
				 strerror(err));
		} else if (err) {
			/* An LTTng row: its note says why. */
			c->skipped = true;
		}
	}

	timing = true;
	for (int i = 0; i < rounds; i++) {
		for (int k = 0; k < NR_CASES; k++) {
			struct bench_case *c = &cases[k];
			double secs;

			if (c->skipped)
				continue;
			err = measure(c, &secs);
			if (err) {
				c->skipped = true;
				continue;
			}
			c->ns[i] = secs * NSEC_PER_SEC / (double)c->n;
			if (secs < 0.2)
				problem("a timed loop took under 0.2 s: "
					"-t sets the target");
		}
	}
	for (int k = 0; k < NR_CASES; k++)
		session_destroy(&cases[k]);
	if (marker_errors)
		snprintf(mk->note, sizeof(mk->note),
			 "%llu writes failed: the row is not reliable",
			 (unsigned long long)marker_errors);

	print_header();
	for (int k = 0; k < NR_CASES; k++) {
		struct bench_case *c = &cases[k];

		print_row(c->name, c->skipped, c->note, c->n, c->ns, ref->ns,
			  mk->skipped ? NULL : mk->ns, rounds);
	}
	print_legend(rounds);
	printf("\n");

	for (int k = 0; k < NR_CASES; k++) {
		struct bench_case *c = &cases[k];

		if (c->summary)
			print_summary(c->summary, c->skipped, c->note, c->ns,
				      ref->ns, k == C_MARKER || mk->skipped ?
				      NULL : mk->ns, rounds);
	}
	for (int k = 0; k < NR_CASES; k++) {
		struct bench_case *c = &cases[k];

		if (c->setup != setup_session || c->skipped)
			continue;
		printf("%s: %s; ", c->name, c->channel);
		if (c->discard)
			printf("%llu of the %llu events timed discarded; "
			       "%.1f bytes of trace per event kept\n",
			       (unsigned long long)c->discarded,
			       (unsigned long long)c->events,
			       c->events > c->discarded ? (double)c->bytes /
			       (double)(c->events - c->discarded) : 0.0);
		else
			printf("nothing consumed while timed (full, it "
			       "overwrites its oldest sub-buffer)\n");
	}
	if (lttng_ok && !cases[C_ON].skipped)
		check_events();
	print_problems();
	return 0;
}
