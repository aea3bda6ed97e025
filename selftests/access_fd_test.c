// SPDX-License-Identifier: GPL-2.0
/*
 * A descriptor of /proc/PID/mem is the module's proof that the caller may
 * trace PID (kmod/access.c), but not all of it: the module repeats
 * ptrace's credential rules itself, so that a descriptor kept across a
 * setuid(), or handed over, gives no more than ptrace would. Root opens
 * the mem file of a root process; with it, root may create a stream for
 * that process, and a child that dropped to nobody keeping it may not
 * ([EPERM]). make mutants' access-creds-not-checked survived without it.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trc_common.h"
#include "stress_common.h"

#define NOBODY	65534

/* Create a stream for @pid with @mem as the proof: 0 or the errno. */
static int create_with_mem(pid_t pid, int mem)
{
	int dev = open(DEVICE, O_RDWR | O_CLOEXEC), fd;

	if (dev < 0)
		return errno;
	fd = raw_create_mem(dev, pid, 64 << 10, 64, POSIXTRACE_LOOP, mem);
	close(dev);
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

TEST(a_mem_file_kept_across_setuid_does_not_let_nobody_trace_root)
{
	int hold[2], mem, as_root, status;
	char path[64];
	pid_t target, child;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to open a root process's mem file");
	ASSERT_EQ(0, pipe(hold));
	/* The process to trace: root, dumpable, waiting for the end. */
	target = fork();
	ASSERT_LE(0, target);
	if (!target) {
		close(hold[1]);
		wait_byte(hold[0]);
		_exit(0);
	}
	close(hold[0]);
	snprintf(path, sizeof(path), "/proc/%d/mem", target);
	mem = open(path, O_RDONLY);
	ASSERT_LE(0, mem);
	/* The descriptor is a good proof: for root, who may ptrace it. */
	as_root = create_with_mem(target, mem);
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		_exit(create_with_mem(target, mem));
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	close(mem);
	close(hold[1]);
	ASSERT_EQ(target, waitpid(target, NULL, 0));
	ASSERT_EQ(0, as_root);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_NE(100, WEXITSTATUS(status));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
