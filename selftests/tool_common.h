/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of the posixtrace command share: finding it (in
 * $POSIXTRACE_TOOL, then /bin/posixtrace, where the test guest puts it),
 * skipping without it, running it, and reading back what it printed to a
 * scratch file.
 */
#ifndef TOOL_COMMON_H
#define TOOL_COMMON_H

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trc_common.h"

static inline const char *tool(void)
{
	const char *t = getenv("POSIXTRACE_TOOL");

	if (t && !access(t, X_OK))
		return t;
	return access("/bin/posixtrace", X_OK) ? NULL : "/bin/posixtrace";
}

#define SKIP_WITHOUT_TOOL() do {					\
	SKIP_WITHOUT_DEVICE();						\
	if (!tool())							\
		SKIP(return, "posixtrace command not found");		\
} while (0)

/* All of fd's contents from the start, as a string. */
static inline void slurp(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

/*
 * Wait until fd's contents, from the start, hold @text: 30 s at most (a
 * debug kernel on a host shared with other guests may take seconds to
 * start a command). The contents are left in @buf. Returns whether they
 * did.
 */
static inline bool said_within(int fd, const char *text, char *buf,
			       size_t size)
{
	int i;

	for (i = 0; i < 300; i++) {
		slurp(fd, buf, size);
		if (strstr(buf, text))
			return true;
		usleep(100000);
	}
	return false;
}

/*
 * Run "posixtrace ARGS..." with stdout to outfd and stderr to errfd, as
 * uid (if not 0). Returns its pid.
 */
static inline pid_t run_tool(const char *const *args, int outfd, int errfd,
			     uid_t uid)
{
	const char *argv[12] = { tool() };
	pid_t pid;
	int i;

	for (i = 0; args[i] && i < 10; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	if (!pid) {
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(125);
		dup2(outfd, 1);
		dup2(errfd, 2);
		execv(argv[0], (char **)argv);
		_exit(126);
	}
	return pid;
}

static inline int wait_status(pid_t pid)
{
	int status = -1;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * This test binary's path, for a test that has the tool run it again as
 * its traced program ("/proc/self/exe" would name the tool in its child).
 */
static inline const char *self_exe(void)
{
	static char path[4096];
	ssize_t n;

	if (!path[0]) {
		n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
	}
	return path;
}

#endif /* TOOL_COMMON_H */
