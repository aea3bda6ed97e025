/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory cgroup, for the tests that check what the module charges to
 * it: cgroup2 at CGROUP_ROOT, mounted if need be.
 */
#ifndef _POSIXTRACE_CGROUP_COMMON_H
#define _POSIXTRACE_CGROUP_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CGROUP_ROOT	"/sys/fs/cgroup"

static inline bool write_string(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	return !close(fd) && ok;
}

/* cgroup2's memory controller, mounted if need be; false if none. */
static inline bool memcg_present(void)
{
	char controllers[256] = "";
	ssize_t n;
	int fd;

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK)) {
		mkdir(CGROUP_ROOT, 0755);
		mount("cgroup2", CGROUP_ROOT, "cgroup2", 0, NULL);
	}
	fd = open(CGROUP_ROOT "/cgroup.controllers", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, controllers, sizeof(controllers) - 1);
	if (fd >= 0)
		close(fd);
	return n > 0 && strstr(controllers, "memory");
}

/* The cgroup @dir (under CGROUP_ROOT), the memory controller on for it. */
static inline bool memcg_make(const char *dir)
{
	return write_string(CGROUP_ROOT "/cgroup.subtree_control", "+memory") &&
	       (!mkdir(dir, 0755) || errno == EEXIST);
}

static inline long long read_number(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * Run @fn in a child of its own, in the memory cgroup @dir (made here,
 * with @max as its memory.max if given, and removed after). Returns what
 * it returned, 100 if the child could not join the cgroup, -1 if it could
 * not be run or was killed.
 */
static inline int in_memcg(const char *dir, const char *max,
			   int (*fn)(void))
{
	char procs[128], pid[32];
	int status = -1;
	pid_t child;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (!memcg_make(dir))
		return -1;
	if (max) {
		char path[128];

		snprintf(path, sizeof(path), "%s/memory.max", dir);
		if (!write_string(path, max))
			return -1;
	}
	child = fork();
	if (!child) {
		int ret = 100;

		snprintf(pid, sizeof(pid), "%d", getpid());
		if (write_string(procs, pid))
			ret = fn();
		/* What it printed, before _exit() leaves stdio unflushed. */
		fflush(stdout);
		_exit(ret);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		status = -1;
	rmdir(dir);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * What memory.current may be off by either way: each CPU's charge cache
 * (memcg_stock) holds up to MEMCG_CHARGE_BATCH (64) pages charged in
 * advance, so a charge that the cache covers does not move the counter
 * and one that refills it moves it by a whole batch. A count taken
 * before and after is right to within that: a ring that was not charged
 * at all is still far below it.
 */
static inline long long charge_caches(void)
{
	return 64LL * sysconf(_SC_PAGESIZE) * sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * memory.current of the cgroup @dir once its processes are gone: what
 * they were charged is uncharged as their files, mappings and the
 * module's objects are freed, some of it by workers, so wait (10 s at
 * most) for it to fall within the charge caches. Returns the last read.
 */
static inline long long memcg_left(const char *dir)
{
	char path[128];
	long long left = -1;

	snprintf(path, sizeof(path), "%s/memory.current", dir);
	for (int tries = 0; tries < 100; tries++) {
		left = read_number(path);
		if (left <= charge_caches())
			break;
		usleep(100000);
	}
	return left;
}

#endif /* _POSIXTRACE_CGROUP_COMMON_H */
