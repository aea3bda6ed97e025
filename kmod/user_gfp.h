/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_USER_GFP_H
#define _POSIXTRACE_USER_GFP_H

#include <linux/gfp.h>
#include <linux/types.h>

/*
 * For memory whose size a user chose, kept for as long as what it backs
 * (a stream's buffer, its kbufs and bounce buffer, a log's buffer, a
 * ring's pages, a drain domain's heap):
 *  - charged to the memory cgroup of the task it is allocated for
 *    (__GFP_ACCOUNT), for its whole life;
 *  - refused with ENOMEM when that cgroup is at memory.max or the machine
 *    is short of memory (__GFP_RETRY_MAYFAIL), never by calling the OOM
 *    killer, which would kill the largest process of the cgroup, maybe
 *    not the caller (a tracer's posix_trace_create() in a container would
 *    kill its workload);
 *  - with no warning when it fails (__GFP_NOWARN): any user can make it.
 */
#define POSIXTRACE_GFP_USER_SIZED \
	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* Not kvmalloc(..., POSIXTRACE_GFP_USER_SIZED): user_gfp.c says why. */
void *posixtrace_kvmalloc_user(size_t size, int node);
void *posixtrace_kvzalloc_user(size_t size, int node);

#endif /* _POSIXTRACE_USER_GFP_H */
