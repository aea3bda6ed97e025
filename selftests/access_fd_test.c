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
 * is its creator's, not a forked child's. And a mem file still proves its
 * process while its last thread is in do_exit() before exit_mm(), but a
 * process whose exit has begun is not traced any more ([ESRCH]).
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
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

/*
 * A process whose last thread has begun do_exit() (signal->live is 0) but
 * still has its mm, so that its mem file is still proof: the window in
 * which posixtrace_process_table_add() must say [ESRCH], or the process
 * table keeps an entry that its exit hook, if it already ran, never
 * removes. The last thread is held there by a process sharing its mm
 * (CLONE_VM) that keeps mprotect()ing 512 MiB of zero-page mappings (in
 * small pages: a huge zero page would make each call one PMD's work), so
 * that the exit waits for the mmap lock (acct_collect(), exit_mm()) after
 * decrementing signal->live, long enough to be seen. make mutants'
 * process-added-after-its-exit survived without it.
 */
#define EXIT_WINDOW_MAP		(512UL << 20)
#define EXIT_WINDOW_TRIES	20
#define PF_EXITING_FLAG		0x4UL	/* include/linux/sched.h PF_EXITING */

static int exit_window_lock_holder(void *map)
{
	for (;;) {
		mprotect(map, EXIT_WINDOW_MAP, PROT_NONE);
		mprotect(map, EXIT_WINDOW_MAP, PROT_READ);
	}
	return 0;
}

/* The target: a sharer of its mm holding its lock, then exit when told. */
static void exit_window_target(int info, int go)
{
	size_t stack_size = 64 << 10;
	char *stack = malloc(stack_size);
	void *map;
	pid_t holder;

	map = mmap(NULL, EXIT_WINDOW_MAP, PROT_READ,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!stack || map == MAP_FAILED)
		_exit(100);
	/* EINVAL without transparent huge pages (PREEMPT_RT): none to avoid. */
	if (madvise(map, EXIT_WINDOW_MAP, MADV_NOHUGEPAGE) && errno != EINVAL)
		_exit(101);
	if (madvise(map, EXIT_WINDOW_MAP, MADV_POPULATE_READ))
		_exit(102);
	/* The parent's child, for it to kill and reap. */
	holder = clone(exit_window_lock_holder, stack + stack_size,
		       CLONE_VM | CLONE_PARENT | SIGCHLD, map);
	if (holder < 0 || write(info, &holder, sizeof(holder)) !=
			  sizeof(holder))
		_exit(103);
	wait_byte(go);
	_exit(0);
}

/*
 * Where is the process of @stat_fd (its /proc/PID/stat)? 1: blocked (D)
 * in its exit; -1: its exit is done (a zombie, or gone); 0: elsewhere.
 */
static int exit_window_poll(int stat_fd)
{
	char buf[512], *p, state;
	unsigned long flags;
	ssize_t len;

	len = pread(stat_fd, buf, sizeof(buf) - 1, 0);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	p = strrchr(buf, ')');
	/* state ppid pgrp session tty_nr tpgid flags */
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state,
			 &flags) != 2)
		return -1;
	if (state == 'Z' || state == 'X')
		return -1;
	return state == 'D' && (flags & PF_EXITING_FLAG);
}

TEST(a_process_whose_exit_has_begun_is_esrch_though_its_mem_file_proves_it)
{
	int try, caught = 0, esrch = 0, made = 0, dev, fd, mem, stat_fd;
	int where, info[2], go[2];
	char path[64];
	pid_t target, holder;
	uint64_t end;

	SKIP_WITHOUT_DEVICE();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	for (try = 0; try < EXIT_WINDOW_TRIES && !esrch; try++) {
		ASSERT_EQ(0, pipe(info));
		ASSERT_EQ(0, pipe(go));
		target = fork();
		ASSERT_LE(0, target);
		if (!target) {
			close(info[0]);
			close(go[1]);
			exit_window_target(info[1], go[0]);
		}
		close(info[1]);
		close(go[0]);
		ASSERT_EQ(sizeof(holder),
			  read(info[0], &holder, sizeof(holder)));
		close(info[0]);
		snprintf(path, sizeof(path), "/proc/%d/mem", target);
		mem = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, mem);
		snprintf(path, sizeof(path), "/proc/%d/stat", target);
		stat_fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, stat_fd);
		ASSERT_EQ(1, write(go[1], "g", 1));
		close(go[1]);
		fd = -EAGAIN;
		end = deadline_ms(1000);
		while (before(end) && (where = exit_window_poll(stat_fd)) >= 0) {
			if (where) {
				caught++;
				fd = raw_create_mem(dev, target, 64 << 10, 64,
						    POSIXTRACE_LOOP, mem);
				break;
			}
		}
		/* [EPERM]: too late, past exit_mm(), the mem file is no proof. */
		if (fd >= 0) {
			made++;
			close(fd);
		} else if (fd == -ESRCH) {
			esrch++;
		}
		close(stat_fd);
		close(mem);
		kill(holder, SIGKILL);
		ASSERT_EQ(holder, waitpid(holder, NULL, 0));
		ASSERT_EQ(target, waitpid(target, NULL, 0));
	}
	close(dev);
	TH_LOG("%d tries, %d caught in the exit: %d [ESRCH], %d streams",
	       try, caught, esrch, made);
	EXPECT_EQ(0, made);
	EXPECT_LT(0, esrch);
}

TEST_HARNESS_MAIN
