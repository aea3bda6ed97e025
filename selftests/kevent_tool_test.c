// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace trace and posixtrace record on an uninstrumented shell
 * script (issue 27's first goal): every fork, exec (with its path), exit
 * (with its status) and signal of every process, in order, with the pids
 * the script itself sees as $$ and $!. The command is looked for in
 * $POSIXTRACE_TOOL, then /bin/posixtrace.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_common.h"
#include "trl_common.h"

/*
 * ls, a pipe into cat, a background job, a signal to itself with a
 * handler, then exit 7. It prints its own pid and the job's.
 */
static const char script[] =
	"trap 'echo usr1' USR1\n"
	"ls / >/dev/null\n"
	"echo hello | cat >/dev/null\n"
	"sleep 0.1 &\n"
	"echo \"self=$$ bg=$!\"\n"
	"kill -USR1 $$\n"
	"wait\n"
	"exit 7\n";

#define SCRIPT_PATH	"/tmp/kevent_tool_test.sh"
#define LOG_PATH	"/tmp/kevent_tool_test.ptlog"
#define MAX_PIDS	64

static int write_script(void)
{
	FILE *f = fopen(SCRIPT_PATH, "w");

	if (!f)
		return -1;
	fputs(script, f);
	return fclose(f);
}

/* What trace's lines said, as the checks below need it. */
struct seen {
	int forked[MAX_PIDS];	/* children, in the order of their forks */
	int nforks;
	int exited[MAX_PIDS];	/* processes whose exit was seen */
	int status[MAX_PIDS];
	int nexits;
	bool bg_exec_sleep;	/* the job exec'd sleep */
	bool cat_exec;		/* somebody exec'd cat */
	bool usr1_generated, usr1_delivered;
	bool self_exec_sh;	/* the script's shell exec'd /bin/sh */
	bool in_order;		/* timestamps never went back */
	bool exit_before_fork;	/* a child's line came before its fork's */
};

static int index_of(const int *pids, int n, int pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return i;
	return -1;
}

/*
 * Reads trace's lines: "[pid  N] HH:MM:SS.uuuuuu WHAT". The pids of
 * other lines (the child's own, before its fork line) would mean the
 * order is wrong.
 */
static void parse_lines(char *text, int self, int bg, struct seen *s)
{
	char *line, *save, *what;
	double last = -1, t;
	int pid, h, m, child, status, n;

	memset(s, 0, sizeof(*s));
	s->in_order = true;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "[pid %d] %d:%d:%lf %n", &pid, &h, &m, &t,
			   &n) != 4)
			continue;
		what = line + n;
		t += h * 3600 + m * 60;
		if (t < last)
			s->in_order = false;
		last = t;
		if (pid != self && index_of(s->forked, s->nforks, pid) < 0)
			s->exit_before_fork = true;
		if ((strstr(what, "fork -> pid ") || strstr(what, ") -> pid ")) &&
		    sscanf(strstr(what, "-> pid ") + 7, "%d", &child) == 1 &&
		    s->nforks < MAX_PIDS)
			s->forked[s->nforks++] = child;
		if (sscanf(what, "+++ exited with %d +++", &status) == 1 &&
		    s->nexits < MAX_PIDS) {
			s->exited[s->nexits] = pid;
			s->status[s->nexits++] = status;
		}
		if (!strncmp(what, "exec ", 5)) {
			if (pid == bg && strstr(what, "\"sleep\""))
				s->bg_exec_sleep = true;
			if (strstr(what, "\"cat\""))
				s->cat_exec = true;
			if (pid == self && strstr(what, "\"/bin/sh\""))
				s->self_exec_sh = true;
		}
		if (pid == self && strstr(what, "--- SIGUSR1 {code=SI_USER")) {
			char want[32];

			snprintf(want, sizeof(want), "sender=%d}", self);
			s->usr1_generated = strstr(what, want);
		}
		if (pid == self && strstr(what, "--- SIGUSR1 delivered"))
			s->usr1_delivered = strstr(what, "action=handler");
	}
}

/* The checks of the goal, on the lines of trace or of record's log. */
static void check_seen(struct __test_metadata *_metadata, char *lines,
		       const char *out)
{
	char *copy = strdup(lines);
	struct seen s;
	int self, bg, i, j;

	ASSERT_NE(NULL, copy);
	ASSERT_EQ(2, sscanf(strstr(out, "self=") ?: "", "self=%d bg=%d",
			    &self, &bg)) {
		TH_LOG("script printed: %s", out);
	}
	parse_lines(copy, self, bg, &s);
	free(copy);
	EXPECT_TRUE(s.self_exec_sh);
	/* ls (or its fork), echo and cat, and the job: four at least. */
	EXPECT_LE(4, s.nforks);
	EXPECT_LE(0, index_of(s.forked, s.nforks, bg));
	EXPECT_TRUE(s.bg_exec_sleep);
	EXPECT_TRUE(s.cat_exec);
	EXPECT_TRUE(s.usr1_generated);
	EXPECT_TRUE(s.usr1_delivered);
	EXPECT_TRUE(s.in_order);
	EXPECT_FALSE(s.exit_before_fork);
	/* Every child exits, with 0; the shell last, with 7. */
	for (i = 0; i < s.nforks; i++) {
		j = index_of(s.exited, s.nexits, s.forked[i]);
		EXPECT_LE(0, j) {
			TH_LOG("no exit for pid %d", s.forked[i]);
		}
		if (j >= 0)
			EXPECT_EQ(0, s.status[j]);
	}
	ASSERT_LE(1, s.nexits);
	EXPECT_EQ(self, s.exited[s.nexits - 1]);
	EXPECT_EQ(7, s.status[s.nexits - 1]);
	if (_metadata->exit_code != KSFT_PASS)
		TH_LOG("the lines:\n%s", lines);
}

/*
 * Runs "posixtrace ARGS...", its standard output and error read back
 * into @out and @err (either may be NULL: not kept). Returns its exit
 * status (wait_status()), or -1 if it could not run.
 */
static int tool_output(const char *const *args, char *out, size_t out_size,
		       char *err, size_t err_size)
{
	int outfd = tmp_log(), errfd = tmp_log(), status = -1;

	if (outfd >= 0 && errfd >= 0) {
		status = wait_status(run_tool(args, outfd, errfd, 0));
		if (out)
			slurp(outfd, out, out_size);
		if (err)
			slurp(errfd, err, err_size);
	}
	if (outfd >= 0)
		close(outfd);
	if (errfd >= 0)
		close(errfd);
	return status;
}

TEST(trace_shows_every_process_of_a_script)
{
	const char *args[] = { "trace", "--color=never", "--", "/bin/sh",
			       SCRIPT_PATH, NULL };
	static char lines[65536], out[4096];

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, write_script());
	/* trace's exit status is the command's; its lines go to stderr. */
	ASSERT_EQ(7, tool_output(args, out, sizeof(out), lines,
				 sizeof(lines)));
	check_seen(_metadata, lines, out);
	unlink(SCRIPT_PATH);
}

TEST(record_keeps_every_process_of_a_script)
{
	const char *rec[] = { "record", "-o", LOG_PATH, "--", "/bin/sh",
			      SCRIPT_PATH, NULL };
	const char *replay[] = { "trace", "--replay", LOG_PATH, NULL };
	const char *tree[] = { "dump", "--tree", LOG_PATH, NULL };
	static char lines[65536], out[4096], err[8192], treeout[4096];

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, write_script());
	ASSERT_EQ(7, tool_output(rec, out, sizeof(out), err, sizeof(err)));
	/* The summary's tree names the shell with its status. */
	EXPECT_NE(NULL, strstr(err, "sh (exited 7)")) {
		TH_LOG("%s", err);
	}
	EXPECT_NE(NULL, strstr(err, "posixtrace_proc_exec"));
	ASSERT_EQ(0, tool_output(replay, lines, sizeof(lines), NULL, 0));
	ASSERT_EQ(0, tool_output(tree, treeout, sizeof(treeout), NULL, 0));
	EXPECT_NE(NULL, strstr(treeout, "sh (exited 7)")) {
		TH_LOG("%s", treeout);
	}
	check_seen(_metadata, lines, out);
	unlink(LOG_PATH);
	unlink(SCRIPT_PATH);
}

TEST(record_kernel_none_records_no_kernel_event)
{
	const char *rec[] = { "record", "--kernel=none", "-o", LOG_PATH,
			      "--", "/bin/sh", SCRIPT_PATH, NULL };
	static char err[8192];

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, write_script());
	ASSERT_EQ(7, tool_output(rec, NULL, 0, err, sizeof(err)));
	EXPECT_EQ(NULL, strstr(err, "posixtrace_proc")) {
		TH_LOG("%s", err);
	}
	EXPECT_EQ(NULL, strstr(err, "posixtrace_signal"));
	unlink(LOG_PATH);
	unlink(SCRIPT_PATH);
}

/*
 * trace --kernel=syscall shows the script's system calls as strace
 * would: the exec of the shell, with its path (the first event, into
 * empty buffers), and the shell's exit with the script's status. (What
 * comes between, a shell starting, may overflow the kernel's per-CPU
 * buffers under emulation; those losses are counted and shown.)
 */
TEST(trace_kernel_syscall_shows_calls_with_their_paths)
{
	const char *args[] = { "trace", "--color=never", "--kernel=syscall",
			       "--", "/bin/sh", SCRIPT_PATH, NULL };
	static char lines[1 << 20];
	char want[128];

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, write_script());
	ASSERT_EQ(7, tool_output(args, NULL, 0, lines, sizeof(lines)));
	snprintf(want, sizeof(want), " path \"%s\"", "/bin/sh");
	EXPECT_NE(NULL, strstr(lines, want)) {
		TH_LOG("no line with%s in:\n%.4000s", want, lines);
	}
	EXPECT_NE(NULL, strstr(lines, "exit_group(0x7"));
	unlink(SCRIPT_PATH);
}

/*
 * trace --syscalls=%process records the process class's calls only: the
 * shell's exec, kill and exit_group, none of its opens and maps (left
 * out in the kernel, before anything was written).
 */
TEST(trace_syscalls_records_only_the_calls_chosen)
{
	const char *args[] = { "trace", "--color=never",
			       "--syscalls=%process", "--", "/bin/sh",
			       SCRIPT_PATH, NULL };
	static char lines[1 << 20];

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, write_script());
	ASSERT_EQ(7, tool_output(args, NULL, 0, lines, sizeof(lines)));
	EXPECT_NE(NULL, strstr(lines, "exit_group(0x7")) {
		TH_LOG("%.4000s", lines);
	}
	EXPECT_NE(NULL, strstr(lines, "execve("));
	EXPECT_EQ(NULL, strstr(lines, "openat("));
	EXPECT_EQ(NULL, strstr(lines, "mmap("));
	EXPECT_NE(NULL, strstr(lines, "kill(")) {
		TH_LOG("%.4000s", lines);
	}
	unlink(SCRIPT_PATH);
}

/*
 * record's summary with the syscall and sched classes: a table of system
 * calls as strace -c prints it, cat's failed open among them with its
 * errno's name, and each thread's wakeup-to-run latency.
 */
TEST(record_summarizes_calls_and_wakeup_latency)
{
	const char *rec[] = { "record", "--kernel=proc,syscall,sched", "-o",
			      LOG_PATH, "--", "/bin/sh", "-c",
			      "cat /nonexistent/kev 2>/dev/null; sleep 0.05; "
			      "exit 7", NULL };
	static char err[1 << 16];
	const char *row;
	int rows;

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(7, tool_output(rec, NULL, 0, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_NE(NULL, strstr(err, "% time     seconds  usecs/call     calls    errors syscall")) {
		TH_LOG("%s", err);
	}
	row = strstr(err, " openat ENOENT ");
	EXPECT_NE(NULL, row) {
		TH_LOG("%s", err);
	}
	EXPECT_NE(NULL, strstr(err, " exit_group"));
	EXPECT_NE(NULL, strstr(err, " total\n"));
	row = strstr(err, "wakeup to running, as perf sched latency");
	ASSERT_NE(NULL, row);
	/* The shell woke from its wait4, the sleep from its nanosleep. */
	row = strchr(strchr(row, '\n') + 1, '\n');
	for (rows = 0; row && row[1] == ' ' && row[2] == ' ' &&
	     row[3] >= '1' && row[3] <= '9'; rows++)
		row = strchr(row + 1, '\n');
	EXPECT_LE(2, rows) {
		TH_LOG("%s", err);
	}
	unlink(LOG_PATH);
}

/* Whether "posixtrace list" shows a stream that traces @pid. */
static bool listed(pid_t pid)
{
	const char *args[] = { "list", "--json", NULL };
	char out[16384], want[32];

	if (tool_output(args, out, sizeof(out), NULL, 0))
		return false;
	snprintf(want, sizeof(want), "%d", pid);
	return strstr(out, want);
}

TEST(trace_attaches_to_a_running_process)
{
	static char lines[16384];
	char pidarg[16];
	const char *args[] = { "trace", "--color=never", "-p", pidarg, NULL };
	int go[2], errfd, outfd, i;
	pid_t child, tracer;

	SKIP_WITHOUT_TOOL();
	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		dup2(go[0], 0);
		close(go[1]);
		execl("/bin/sh", "sh", "-c",
		      "read x; trap '' USR2; kill -USR2 $$; /bin/true; exit 3",
		      (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	snprintf(pidarg, sizeof(pidarg), "%d", child);
	outfd = tmp_log();
	errfd = tmp_log();
	ASSERT_LE(0, outfd);
	ASSERT_LE(0, errfd);
	tracer = run_tool(args, outfd, errfd, 0);
	/* Its stream in place, the shell goes on. */
	for (i = 0; i < 500 && !listed(child); i++)
		usleep(10000);
	ASSERT_TRUE(listed(child));
	ASSERT_EQ(2, write(go[1], "x\n", 2));
	close(go[1]);
	ASSERT_EQ(child, waitpid(child, NULL, 0));
	/* trace -p ends when the process does, with status 0. */
	ASSERT_EQ(0, wait_status(tracer));
	slurp(errfd, lines, sizeof(lines));
	close(outfd);
	close(errfd);
	EXPECT_NE(NULL, strstr(lines, "--- SIGUSR2 {code=SI_USER")) {
		TH_LOG("%s", lines);
	}
	EXPECT_NE(NULL, strstr(lines, "exec \"/bin/true\""));
	EXPECT_NE(NULL, strstr(lines, "+++ exited with 3 +++"));
}

TEST_HARNESS_MAIN
