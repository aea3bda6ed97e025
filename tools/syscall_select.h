/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --syscalls=LIST of record and trace: the system calls the syscall class
 * records (ABI 0.14), chosen in the kernel before anything is written.
 * LIST is a comma list of call names (as <sys/syscall.h> names them:
 * "openat", "newfstatat") and strace's classes ("%file", "%process",
 * "%network", "%signal", "%memory"). Each name selects its call in the
 * native table and, where this architecture has one, the 32-bit compat
 * table (where the name exists there).
 */
#ifndef POSIXTRACE_TOOL_SYSCALL_SELECT_H
#define POSIXTRACE_TOOL_SYSCALL_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include <posixtrace-k.h>

struct syscall_select {
	bool given;			/* --syscalls was */
	uint64_t bits[2][POSIXTRACE_K_SYSCALL_WORDS];	/* native, compat */
};

/*
 * Adds LIST to sel: 0, or -1 with *bad pointing at the name (up to its
 * comma) that is no call of the native table and no class.
 */
int syscall_select_parse(struct syscall_select *sel, const char *list,
			 const char **bad);
/* Applies sel (if given) to the stream trid: 0 or the library's error. */
int syscall_select_apply(const struct syscall_select *sel, trace_id_t trid);

#endif /* POSIXTRACE_TOOL_SYSCALL_SELECT_H */
