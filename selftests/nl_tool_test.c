// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace list and posixtrace monitor, the commands on top of the
 * netlink family: what they print for streams made here. The command is
 * looked for in $POSIXTRACE_TOOL, then /bin/posixtrace (the test guest
 * puts it there).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>

#include "tool_common.h"
#include "trl_common.h"

static int create_named(const char *name, trace_id_t *trid)
{
	trace_attr_t attr;
	int ret = posix_trace_attr_init(&attr);

	if (!ret)
		ret = posix_trace_attr_setname(&attr, name);
	if (!ret)
		ret = posix_trace_create(0, &attr, trid);
	return ret;
}

TEST(list_json_shows_a_stream_with_its_creator)
{
	const char *args[] = { "list", "--json", NULL };
	char out[65536], want[96];
	int outfd, errfd;
	trace_id_t trid;

	SKIP_WITHOUT_TOOL();
	outfd = tmp_log();
	errfd = tmp_log();
	ASSERT_LE(0, outfd);
	ASSERT_LE(0, errfd);
	ASSERT_EQ(0, create_named("nltool-list", &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, wait_status(run_tool(args, outfd, errfd, 0)));
	slurp(outfd, out, sizeof(out));
	TH_LOG("%s", out);
	ASSERT_NE(NULL, strstr(out, "\"name\": \"nltool-list\""));
	snprintf(want, sizeof(want), "\"creator_pid\": %d", getpid());
	ASSERT_NE(NULL, strstr(out, want));
	ASSERT_NE(NULL, strstr(out, "\"state\": \"RUNNING\""));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	close(outfd);
	close(errfd);
}

/*
 * Colour only when asked, or on a terminal (never here: the output is a
 * file), and never with NO_COLOR: the table is the same text either way.
 */
TEST(list_colours_only_when_asked)
{
	const char *always[] = { "list", "--color", "always", NULL };
	const char *never[] = { "list", "--color=never", NULL };
	const char *plain[] = { "list", NULL };
	int fd[3], errfd, i;
	char out[3][65536];
	trace_id_t trid;

	SKIP_WITHOUT_TOOL();
	errfd = tmp_log();
	ASSERT_LE(0, errfd);
	for (i = 0; i < 3; i++) {
		fd[i] = tmp_log();
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, create_named("nltool-colour", &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, wait_status(run_tool(always, fd[0], errfd, 0)));
	ASSERT_EQ(0, wait_status(run_tool(never, fd[1], errfd, 0)));
	ASSERT_EQ(0, wait_status(run_tool(plain, fd[2], errfd, 0)));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	for (i = 0; i < 3; i++) {
		slurp(fd[i], out[i], sizeof(out[i]));
		close(fd[i]);
	}
	close(errfd);
	ASSERT_NE(NULL, strstr(out[0], "\033[1mID\033[0m")) {
		TH_LOG("%s", out[0]);
	}
	ASSERT_NE(NULL, strstr(out[0], "\033[32mRUNNING\033[0m"));
	for (i = 1; i < 3; i++) {
		ASSERT_EQ(NULL, strchr(out[i], '\033'));
		ASSERT_NE(NULL, strstr(out[i], "nltool-colour"));
	}
}

TEST(list_of_an_unknown_id_fails)
{
	const char *args[] = { "list", "-i", "999999999", NULL };
	char err[4096];
	int outfd, errfd;

	SKIP_WITHOUT_TOOL();
	outfd = tmp_log();
	errfd = tmp_log();
	ASSERT_EQ(1, wait_status(run_tool(args, outfd, errfd, 0)));
	slurp(errfd, err, sizeof(err));
	ASSERT_NE(NULL, strstr(err, "no such stream"));
	close(outfd);
	close(errfd);
}

/* The life of a stream, as monitor prints it, in order. */
TEST(monitor_prints_a_stream_life_in_order)
{
	static const char *const seq[] = {
		"\"event\": \"created\"", "\"event\": \"started\"",
		"\"event\": \"stopped\"", "\"event\": \"shutdown\"",
	};
	const char *args[] = { "monitor", "--json", NULL };
	char out[65536], *line, *p;
	int outfd, errfd, i, k;
	trace_id_t trid;
	pid_t mon;

	SKIP_WITHOUT_TOOL();
	outfd = tmp_log();
	errfd = tmp_log();
	mon = run_tool(args, outfd, errfd, 0);
	ASSERT_LT(0, mon);
	/*
	 * Events before monitor joins the group are not seen: make probe
	 * streams until it prints one (up to 20 s on a slow machine).
	 */
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, create_named("nltool-probe", &trid));
		ASSERT_EQ(0, posix_trace_shutdown(trid));
		usleep(100000);
		slurp(outfd, out, sizeof(out));
		if (strstr(out, "nltool-probe"))
			break;
	}
	ASSERT_NE(NULL, strstr(out, "nltool-probe"));
	i = 0;
	ASSERT_EQ(0, create_named("nltool-mon", &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	/* Until the last one is printed (or 20 s have passed). */
	for (k = 0; k < 200; k++) {
		slurp(outfd, out, sizeof(out));
		if (strstr(out, "\"name\": \"nltool-mon\"") &&
		    strstr(strstr(out, "\"name\": \"nltool-mon\""),
			   "\"event\": \"shutdown\""))
			break;
		usleep(100000);
	}
	ASSERT_EQ(0, kill(mon, SIGINT));
	ASSERT_EQ(0, wait_status(mon));
	slurp(outfd, out, sizeof(out));
	TH_LOG("%s", out);
	for (line = strtok_r(out, "\n", &p); line;
	     line = strtok_r(NULL, "\n", &p)) {
		if (!strstr(line, "\"name\": \"nltool-mon\""))
			continue;
		ASSERT_LT(i, 4);
		ASSERT_NE(NULL, strstr(line, seq[i]));
		i++;
	}
	ASSERT_EQ(4, i);
	close(outfd);
	close(errfd);
}

TEST(monitor_as_an_unprivileged_user_explains_why_not)
{
	const char *args[] = { "monitor", NULL };
	char err[4096];
	int outfd, errfd;

	SKIP_WITHOUT_TOOL();
	outfd = tmp_log();
	errfd = tmp_log();
	ASSERT_EQ(1, wait_status(run_tool(args, outfd, errfd, 65534)));
	slurp(errfd, err, sizeof(err));
	ASSERT_NE(NULL, strstr(err, "CAP_SYS_ADMIN")) {
		TH_LOG("monitor said: %s", err);
	}
	close(outfd);
	close(errfd);
}

/* libnl's own tool (libnl-utils) lists the family. */
TEST(genl_ctrl_list_shows_the_family)
{
	const char *argv[] = { "/bin/genl-ctrl-list", NULL };
	char out[65536];
	int outfd;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	if (access(argv[0], X_OK))
		SKIP(return, "genl-ctrl-list not found");
	outfd = tmp_log();
	ASSERT_LE(0, outfd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(outfd, 1);
		execv(argv[0], (char **)argv);
		_exit(126);
	}
	ASSERT_EQ(0, wait_status(pid));
	slurp(outfd, out, sizeof(out));
	ASSERT_NE(NULL, strstr(out, " posixtrace version 1")) {
		TH_LOG("genl-ctrl-list said: %s", out);
	}
	close(outfd);
}

TEST_HARNESS_MAIN
