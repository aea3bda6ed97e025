/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The library's calls into the module (ulib/sys.h), when it is built for
 * the benchmark's fake kernel (PTK_SYS_FAKE): producer_host.c defines
 * them, and passes what is not the fake device's on to the C library.
 */
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
