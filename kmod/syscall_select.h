/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_SYSCALL_SELECT_H
#define _POSIXTRACE_SYSCALL_SELECT_H

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/posixtrace.h>
#include <linux/types.h>

/*
 * The system calls a stream records, per table (native, compat): set by
 * its creator (SET_SYSCALLS, syscall_select.c), read by the syscall
 * class's probes without a lock. A table whose bit of @some is clear
 * records every call.
 */
struct posixtrace_syscall_sel {
	u32 some;
	DECLARE_BITMAP(bits[2], POSIXTRACE_SYSCALL_NR_MAX);
};

/*
 * Does @sel take call @nr of table @compat? Under RCU, in a probe: the
 * acquire pairs with the release that publishes a table's bits.
 */
static inline bool posixtrace_syscall_selected(const struct posixtrace_syscall_sel *sel,
					       long nr, u8 compat)
{
	/* Pairs with the store-release of posixtrace_syscall_sel_set(). */
	if (!(smp_load_acquire(&sel->some) & BIT(compat)))
		return true;
	return nr >= 0 && nr < POSIXTRACE_SYSCALL_NR_MAX &&
	       test_bit(nr, sel->bits[compat]);
}

int posixtrace_syscall_sel_set(struct posixtrace_syscall_sel *sel,
			       const struct posixtrace_syscalls *req);
void posixtrace_syscall_sel_get(const struct posixtrace_syscall_sel *sel,
				struct posixtrace_syscalls *req);

#endif /* _POSIXTRACE_SYSCALL_SELECT_H */
