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
#include <sys/stat.h>
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

#endif /* _POSIXTRACE_CGROUP_COMMON_H */
