// SPDX-License-Identifier: GPL-2.0
/*
 * Which system calls a stream records (SET_SYSCALLS, GET_SYSCALLS): a
 * bitmap per table, which the syscall class's probes test before they
 * copy anything (kevent_syscall.c). The stream's creator sets it, the
 * caller serializing its sets; the probes read it as it changes, each
 * call seeing its own bit either before or after.
 */

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "syscall_select.h"

/**
 * posixtrace_syscall_sel_set - select the calls of one table
 * @sel: the stream's selection; sets serialized by the caller
 * @req: what SET_SYSCALLS was given, its size checked
 *
 * Return: 0, or -EINVAL for a flag, table or reserved field unknown, or
 * bits with POSIXTRACE_SYSCALLS_ALL.
 */
int posixtrace_syscall_sel_set(struct posixtrace_syscall_sel *sel,
			       const struct posixtrace_syscalls *req)
{
	unsigned long *bits;
	unsigned int i;

	if ((req->flags & ~POSIXTRACE_SYSCALLS_ALL) || req->compat > 1 ||
	    req->__reserved)
		return -EINVAL;
	if (req->flags & POSIXTRACE_SYSCALLS_ALL) {
		for (i = 0; i < POSIXTRACE_SYSCALL_WORDS; i++)
			if (req->bits[i])
				return -EINVAL;
		WRITE_ONCE(sel->some, sel->some & ~BIT(req->compat));
		return 0;
	}
	/*
	 * Word by word, each whole: a probe reading one sees it before or
	 * after. Then the table is published: a probe that sees it selective
	 * sees these bits (the release, its acquire).
	 */
	bits = sel->bits[req->compat];
	for (i = 0; i < POSIXTRACE_SYSCALL_NR_MAX; i += BITS_PER_LONG)
		WRITE_ONCE(bits[i / BITS_PER_LONG],
			   (unsigned long)(req->bits[i / 64] >>
					   (i % 64)));
	/* Pairs with posixtrace_syscall_selected()'s load-acquire. */
	smp_store_release(&sel->some, sel->some | BIT(req->compat));
	return 0;
}

/* What @sel selects of table @req->compat, checked by the caller. */
void posixtrace_syscall_sel_get(const struct posixtrace_syscall_sel *sel,
				struct posixtrace_syscalls *req)
{
	const unsigned long *bits = sel->bits[req->compat];
	unsigned int i;

	memset(req->bits, 0, sizeof(req->bits));
	/* Pairs with the set's store-release: its bits, whole, or none. */
	if (!(smp_load_acquire(&sel->some) & BIT(req->compat))) {
		req->flags = POSIXTRACE_SYSCALLS_ALL;
		return;
	}
	req->flags = 0;
	for (i = 0; i < POSIXTRACE_SYSCALL_NR_MAX; i += BITS_PER_LONG)
		req->bits[i / 64] |= (u64)READ_ONCE(bits[i / BITS_PER_LONG])
				     << (i % 64);
}
