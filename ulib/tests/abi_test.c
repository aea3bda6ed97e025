// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's one version check (version.c), against modules of every
 * ABI it may meet: it opens the device once, asks VERSION, and refuses a
 * module of another major version or an older minor with EPROTO, closing
 * what it opened; posixtrace_k_abi_version() still says what the module
 * speaks. The library's device.c and version.c are built here with their
 * calls into the module replaced (../sys.h, PTK_SYS_FAKE): no module is
 * needed.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/posixtrace.h>
#include <posixtrace-k.h>

#include "../internal.h"
/* Built with PTK_SYS_FAKE (ulib/Makefile), as device.c and version.c. */
#include "../sys.h"

#define FAKE_FD	1000

/* The module the fake device stands for. */
static unsigned int mod_major, mod_minor;
static int mod_has_version;
static int opens, closes;

int ptk_sys_open(const char *path, int flags)
{
	(void)flags;
	if (strcmp(path, PTK_DEVICE_PATH)) {
		errno = ENOENT;
		return -1;
	}
	opens++;
	return FAKE_FD;
}

int ptk_sys_close(int fd)
{
	if (fd == FAKE_FD)
		closes++;
	return 0;
}

int ptk_sys_ioctl(int fd, unsigned long cmd, void *arg)
{
	struct posixtrace_version *ver = arg;

	if (fd != FAKE_FD || cmd != POSIXTRACE_IOC_VERSION ||
	    !mod_has_version) {
		errno = ENOTTY;
		return -1;
	}
	ver->size = sizeof(*ver);
	ver->major = (__u16)mod_major;
	ver->minor = (__u16)mod_minor;
	return 0;
}

void *ptk_sys_mmap(size_t len, int prot, int fd, off_t off)
{
	(void)len, (void)prot, (void)fd, (void)off;
	errno = ENODEV;
	return MAP_FAILED;
}

int ptk_sys_munmap(void *addr, size_t len)
{
	(void)addr, (void)len;
	return 0;
}

static int failures;

/* The library meets a module of @major.@minor: does it take it? */
static void check(unsigned int major, unsigned int minor, int has_version,
		  int want)
{
	unsigned int got_major = 0, got_minor = 0;
	int fd = -1, err, opened = opens, closed = closes;

	mod_major = major;
	mod_minor = minor;
	mod_has_version = has_version;
	err = ptk_device_fd(&fd);
	if (err != want || (!err && fd != FAKE_FD) ||
	    (err && closes - closed != opens - opened)) {
		printf("FAIL: module %u.%u%s: %s, fd %d, %d opened, %d closed\n",
		       major, minor, has_version ? "" : " without VERSION",
		       strerror(err), fd, opens - opened, closes - closed);
		failures++;
	}
	/* What it speaks, whether or not the library can use it. */
	err = posixtrace_k_abi_version(&got_major, &got_minor);
	if (has_version && (err || got_major != major || got_minor != minor)) {
		printf("FAIL: module %u.%u: abi_version %s, %u.%u\n", major,
		       minor, strerror(err), got_major, got_minor);
		failures++;
	}
}

int main(void)
{
	/* Refused: not the device's descriptor kept, so each is asked anew. */
	check(0, 16, 1, EPROTO);	/* the last unreleased ABI */
	check(POSIXTRACE_ABI_MAJOR + 1, 0, 1, EPROTO);
	check(POSIXTRACE_ABI_MAJOR, POSIXTRACE_ABI_MINOR, 0, EPROTO);
	if (POSIXTRACE_ABI_MINOR > 0)
		check(POSIXTRACE_ABI_MAJOR, POSIXTRACE_ABI_MINOR - 1, 1, EPROTO);
	/* A later minor of the same major serves this library too. */
	check(POSIXTRACE_ABI_MAJOR, POSIXTRACE_ABI_MINOR + 3, 1, 0);
	/* Kept once taken: neither opened nor asked again. */
	{
		int fd = -1, opened = opens;

		mod_major = 0;
		if (ptk_device_fd(&fd) || fd != FAKE_FD || opens != opened) {
			printf("FAIL: the descriptor taken was not kept\n");
			failures++;
		}
	}
	if (failures) {
		printf("abi_test: %d failures\n", failures);
		return 1;
	}
	printf("abi_test: the library takes %u.%u and later %u.x modules, "
	       "refuses 0.16, %u.0, older minors and a device without "
	       "VERSION (EPROTO)\n", POSIXTRACE_ABI_MAJOR, POSIXTRACE_ABI_MINOR,
	       POSIXTRACE_ABI_MAJOR, POSIXTRACE_ABI_MAJOR + 1);
	return 0;
}
