// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Process-local state: one page the kernel zero-fills in every child
 * (MADV_WIPEONFORK, Linux 4.14), so that a child sees each member 0 at its
 * first look, however it was made: fork() or _Fork(), which runs no atfork
 * handler. Reading a member costs one load, where asking getpid() would
 * cost a system call.
 *
 * ptk_local stays NULL if the kernel lacks MADV_WIPEONFORK; each user then
 * has a slower way (see trid.c and event.c).
 */

#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

struct ptk_local *_Atomic ptk_local;
static pthread_once_t ptk_local_once = PTHREAD_ONCE_INIT;

size_t ptk_page_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 0 ? (size_t)page : 4096;
}

static void ptk_local_init(void)
{
	size_t size = ptk_page_size();
	void *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	if (madvise(p, size, MADV_WIPEONFORK)) {
		munmap(p, size);
		return;
	}
	atomic_store_explicit(&ptk_local, p, memory_order_release);
}

/* The page, set up on first use; NULL without MADV_WIPEONFORK. */
struct ptk_local *ptk_local_get(void)
{
	pthread_once(&ptk_local_once, ptk_local_init);
	return atomic_load_explicit(&ptk_local, memory_order_acquire);
}
