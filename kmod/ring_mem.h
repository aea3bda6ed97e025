/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_RING_MEM_H
#define _POSIXTRACE_RING_MEM_H

#include <linux/types.h>

struct posixtrace_ring_mem;
struct user_struct;
struct vm_area_struct;

/*
 * The ring size the library maps when nothing suggests another, or when
 * what was suggested is refused: rings up to it may use all of a user's
 * RLIMIT_MEMLOCK, larger ones half of it and a page (ring_mem.c).
 */
#define POSIXTRACE_RING_SIZE_DEFAULT	(64 * 1024)

unsigned int posixtrace_ring_size_max(void);
u32 posixtrace_thread_ring_size_hint(size_t capacity);

int posixtrace_ring_mem_init(void);
void posixtrace_ring_mem_exit(void);

struct posixtrace_ring_mem *posixtrace_ring_mem_new(u64 size,
						    unsigned int replaces);
void *posixtrace_ring_mem_vaddr(const struct posixtrace_ring_mem *mem);
unsigned int posixtrace_ring_mem_user_pages(const struct posixtrace_ring_mem *mem,
					    const struct user_struct *user);
int posixtrace_ring_mem_map(struct posixtrace_ring_mem *mem,
			    struct vm_area_struct *vma);
void posixtrace_ring_mem_unmap(struct posixtrace_ring_mem *mem,
			       struct vm_area_struct *vma);
void posixtrace_ring_mem_uncharge(struct posixtrace_ring_mem *mem);
void posixtrace_ring_mem_put(struct posixtrace_ring_mem *mem);

#endif /* _POSIXTRACE_RING_MEM_H */
