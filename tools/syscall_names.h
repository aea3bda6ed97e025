/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System call numbers and return values as people read them: the name of
 * a number in this architecture's native table (the C library's kernel
 * headers), the name of an errno.
 */
#ifndef POSIXTRACE_TOOL_SYSCALL_NAMES_H
#define POSIXTRACE_TOOL_SYSCALL_NAMES_H

#include <stdbool.h>

/*
 * "openat"; "syscall_N" for a number with no name here, or of the 32-bit
 * compat table (compat), whose numbers this version does not name.
 */
#define SYSCALL_NAME_SIZE	32
const char *syscall_name(int nr, bool compat, char buf[SYSCALL_NAME_SIZE]);

/* "ENOENT"; NULL for a number with no name. */
const char *syscall_errno_name(int err);

#endif
