// SPDX-License-Identifier: GPL-2.0
/*
 * A descriptor of /proc/PID/mem is the module's proof that the caller may
 * trace PID (kmod/access.c), but not all of it: the module repeats
 * ptrace's credential rules itself, so that a descriptor kept across a
 * setuid(), or handed over, gives no more than ptrace would. Root opens
 * the mem file of a root process; with it, root may create a stream for
 * that process, and a child that dropped to nobody keeping it may not
 * ([EPERM]). make mutants' access-creds-not-checked survived without it.
 * And the mem file must be the target's own; and a stream's descriptor
 * is its creator's, not a forked child's.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
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

/*
 * The mem file must be the target's: nobody, who may ptrace another of
 * nobody's processes, still may not use its own /proc/self/mem (or any
 * other process's) as the proof for it. Where Yama or an LSM forbids the
 * attach, opening the target's mem file is what fails: any other mem
 * file would walk around that. make mutants' access-mem-fd-of-any-process
 * survived without it. The target's own mem file, for contrast, is a
 * good proof (unless Yama forbids even its open here: then only the
 * wrong proof is tried).
 */
TEST(a_mem_file_of_another_process_is_no_proof)
{
	int hold[2], ready[2], res[2], got[2] = { -1, -1 };
	pid_t target, tracer;
	char path[64], c;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to make two of nobody's processes");
	ASSERT_EQ(0, pipe(hold));
	ASSERT_EQ(0, pipe(ready));
	/* The process to trace: nobody's, dumpable, waiting for the end. */
	target = fork();
	ASSERT_LE(0, target);
	if (!target) {
		close(hold[1]);
		close(ready[0]);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
		    prctl(PR_SET_DUMPABLE, 1))
			_exit(100);
		if (write(ready[1], "n", 1) != 1)
			_exit(101);
		wait_byte(hold[0]);
		_exit(0);
	}
	close(hold[0]);
	close(ready[1]);
	/* Nobody's now (or gone: then the read fails). */
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	ASSERT_EQ(0, pipe(res));
	tracer = fork();
	ASSERT_LE(0, tracer);
	if (!tracer) {
		int self, mem;

		close(res[0]);
		/* Dumpable, or its own /proc files are root's. */
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
		    prctl(PR_SET_DUMPABLE, 1))
			_exit(100);
		self = open("/proc/self/mem", O_RDONLY);
		if (self < 0)
			_exit(101);
		got[0] = create_with_mem(target, self);
		snprintf(path, sizeof(path), "/proc/%d/mem", target);
		mem = open(path, O_RDONLY);
		got[1] = mem < 0 ? -errno : create_with_mem(target, mem);
		_exit(write(res[1], got, sizeof(got)) == sizeof(got) ? 0 : 102);
	}
	close(res[1]);
	/* The tracer is the only writer: its end is this read's. */
	EXPECT_EQ(sizeof(got), read(res[0], got, sizeof(got)));
	close(res[0]);
	close(hold[1]);
	ASSERT_EQ(tracer, waitpid(tracer, NULL, 0));
	ASSERT_EQ(target, waitpid(target, NULL, 0));
	EXPECT_EQ(EPERM, got[0]);
	if (got[1] != -EACCES && got[1] != -EPERM) {
		EXPECT_EQ(0, got[1]);
	}
}

/*
 * A stream's own descriptor is the creator's alone: POSIX makes the trid
 * invalid in a child, and under the library's check the module refuses
 * a child's ioctl on the inherited descriptor (EINVAL), leaving the
 * stream as it was. make mutants' sf-trid-usable-in-a-child survived
 * without it: the library refuses before any ioctl.
 */
TEST(a_stream_descriptor_is_einval_in_a_forked_child)
{
	int dev, fd, status;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	fd = raw_create(dev, 0, 64 << 10, 64, POSIXTRACE_LOOP);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(ioctl(fd, POSIXTRACE_IOC_START) == -1 && errno == EINVAL ?
		      0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Not started by the child: the creator starts it now. */
	EXPECT_EQ(0, ioctl(fd, POSIXTRACE_IOC_START));
	close(fd);
	close(dev);
}

TEST_HARNESS_MAIN
