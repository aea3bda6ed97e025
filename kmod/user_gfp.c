// SPDX-License-Identifier: GPL-2.0
/*
 * Memory whose size a user chose: see user_gfp.h.
 */

#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "user_gfp.h"

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
	void *p;

	if (size <= PAGE_SIZE)
		return kmalloc_node(size, POSIXTRACE_GFP_USER_SIZED, node);
	p = kmalloc_node(size, GFP_KERNEL_ACCOUNT | __GFP_NORETRY |
			 __GFP_NOWARN, node);
	if (p)
		return p;
	return __vmalloc(size, POSIXTRACE_GFP_USER_SIZED);
}
