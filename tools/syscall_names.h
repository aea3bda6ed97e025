/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System call numbers and return values as people read them: the name of
 * a number in this architecture's native table (the C library's kernel
 * headers), the name of an errno.
 */
#ifndef POSIXTRACE_TOOL_SYSCALL_NAMES_H
#define POSIXTRACE_TOOL_SYSCALL_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * "openat"; "syscall_N" for a number with no name here (compat: in the
 * 32-bit compat table, named where this architecture has one).
 */
#define SYSCALL_NAME_SIZE	32
const char *syscall_name(int nr, bool compat, char buf[SYSCALL_NAME_SIZE]);

/* The number of the call named name (len bytes) in a table; -1 if none. */
int syscall_number(const char *name, size_t len, bool compat);

/* "ENOENT"; NULL for a number with no name. */
const char *syscall_errno_name(int err);

#endif
