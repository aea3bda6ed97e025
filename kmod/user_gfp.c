// SPDX-License-Identifier: GPL-2.0
/*
 * Memory whose size a user chose: see user_gfp.h.
 */

#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "user_gfp.h"

/*
 * posixtrace_kvmalloc_user(), with __GFP_ZERO if @zero says so. Inline:
 * its allocations end in tail calls, and make fault's map of the call
 * sites (selftests/vm/fault-map.sh) finds a tail call only through the
 * calls of the function that makes it; a helper its callers jump to is
 * called by none.
 */
static __always_inline void *
posixtrace_kvmalloc_user_gfp(size_t size, int node, gfp_t zero)
{
	void *p;

	if (size <= PAGE_SIZE)
		return kmalloc_node(size, POSIXTRACE_GFP_USER_SIZED | zero,
				    node);
	p = kmalloc_node(size, GFP_KERNEL_ACCOUNT | __GFP_NORETRY |
			 __GFP_NOWARN | zero, node);
	if (p)
		return p;
	return __vmalloc(size, POSIXTRACE_GFP_USER_SIZED | zero);
}

/**
 * posixtrace_kvmalloc_user - kvmalloc() for a size a user chose
 * @size: bytes
 * @node: the NUMA node to try first for contiguous pages
 *
 * kvmalloc() with __GFP_RETRY_MAYFAIL insists on physically contiguous
 * pages before it falls back to vmalloc(): for a high order, that is
 * reclaim and compaction over and over, at the expense of everyone's
 * page cache, for memory that need not be contiguous. Without the flag
 * its fallback could call the OOM killer. So: one cheap try at
 * contiguous pages (__GFP_NORETRY, which never calls the OOM killer
 * either), then vmalloc(), which tries hard but fails with ENOMEM rather
 * than kill (POSIXTRACE_GFP_USER_SIZED). Freed with kvfree().
 *
 * Return: the memory, or NULL.
 */
void *posixtrace_kvmalloc_user(size_t size, int node)
{
	return posixtrace_kvmalloc_user_gfp(size, node, 0);
}

/**
 * posixtrace_kvzalloc_user - posixtrace_kvmalloc_user(), zeroed
 * @size: bytes
 * @node: the NUMA node to try first for contiguous pages
 *
 * Return: the memory, zeroed, or NULL.
 */
void *posixtrace_kvzalloc_user(size_t size, int node)
{
	return posixtrace_kvmalloc_user_gfp(size, node, __GFP_ZERO);
}
