/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's calls into the module, in one place: open() of the
 * device, and ioctl(), mmap(), munmap() and close() of the descriptors
 * and mappings it hands out. Nothing else in the library calls them on
 * those. A test build replaces them all: with PTK_SYS_FAKE defined, they
 * are only declared here, and the test program defines the five, as
 * liburing's tests choose its system calls. The benchmark's fake kernel
 * (bench/producer_host.c) builds the library that way, so that it times
 * the library's own code against a kernel side it can see, and so does
 * the version check's test (ulib/tests/abi_test.c).
 */
#ifndef PTK_SYS_H
#define PTK_SYS_H

#ifdef PTK_SYS_FAKE
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

int ptk_sys_open(const char *path, int flags);
int ptk_sys_close(int fd);
int ptk_sys_ioctl(int fd, unsigned long cmd, void *arg);
void *ptk_sys_mmap(size_t len, int prot, int fd, off_t off);
int ptk_sys_munmap(void *addr, size_t len);
#else
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int ptk_sys_open(const char *path, int flags)
{
	return open(path, flags);
}

static inline int ptk_sys_close(int fd)
{
	return close(fd);
}

static inline int ptk_sys_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg);
}

/* A shared mapping of @len bytes of @fd at @off, anywhere. */
static inline void *ptk_sys_mmap(size_t len, int prot, int fd, off_t off)
{
	return mmap(NULL, len, prot, MAP_SHARED, fd, off);
}

static inline int ptk_sys_munmap(void *addr, size_t len)
{
	return munmap(addr, len);
}
#endif /* PTK_SYS_FAKE */

#endif /* PTK_SYS_H */
