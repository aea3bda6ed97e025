/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strace's classes of system calls (%file, %process, %network, %signal,
 * %memory) as lists of names, native and 32-bit, for --syscalls.
 */
#ifndef POSIXTRACE_TOOL_SYSCALL_GROUPS_H
#define POSIXTRACE_TOOL_SYSCALL_GROUPS_H

#include <stddef.h>

/* The names of group name (len bytes, no "%"), NULL-ended; NULL if none. */
const char *const *syscall_group(const char *name, size_t len);

#endif /* POSIXTRACE_TOOL_SYSCALL_GROUPS_H */
