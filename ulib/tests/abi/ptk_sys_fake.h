/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library's calls into the module (../../sys.h), for abi_test.c. */
#ifndef PTK_SYS_FAKE_H
#define PTK_SYS_FAKE_H

#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

int ptk_sys_open(const char *path, int flags);
int ptk_sys_close(int fd);
int ptk_sys_ioctl(int fd, unsigned long cmd, void *arg);
void *ptk_sys_mmap(size_t len, int prot, int fd, off_t off);
int ptk_sys_munmap(void *addr, size_t len);

#endif /* PTK_SYS_FAKE_H */
