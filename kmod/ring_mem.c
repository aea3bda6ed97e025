// SPDX-License-Identifier: GPL-2.0
/*
 * A thread ring's memory: its pages, the module's view of them, their
 * mappings into the thread's process, and what they are charged to.
 *
 * The pages count in their user's RLIMIT_MEMLOCK from the mmap() that made
 * them until nothing can use them any more, as perf's mmap rings count in
 * locked_vm from mmap until the last mapping closes: whatever a thread
 * maps, remaps, moves, cuts in pieces, lets a newer ring retire or leaves
 * behind in its process by exiting, it holds at most its limit. They are
 * charged to its memory cgroup too, for their whole life (__GFP_ACCOUNT).
 *
 * Two counts, because the module reads a ring through its own view a
 * little longer than the ring is anyone's:
 *  - @users: the charge. One for the ring until the drain retires it, or
 *    it grows into other pages (thread_ring.c), one per mapping (the
 *    mmap() that made it, and each piece a split or a move makes: vm_ops
 *    open and close). The last one takes the pages out of the limit.
 *  - @refs: the memory. One for the ring until it is freed, a grace period
 *    after its retirement (a drain may still be reading it until then),
 *    or until it grows into other pages, and one per mapping. A grace
 *    period after the last one goes, a worker unmaps the module's view
 *    and frees the pages: a ring's control page is read under RCU alone
 *    (thread_ring.c), and a ring that grew leaves its old one behind.
 * A retired ring's pages are so out of the limit for at most a grace
 * period before they are freed, and only when no mapping has them.
 */

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "ring_mem.h"
#include "user_gfp.h"

struct posixtrace_ring_mem {
	refcount_t refs;		/* the memory: see above */
	atomic_t users;			/* the charge: see above */
	struct rcu_work free_work;	/* queued by the last reference */
	/* Fixed once made. */
	void *vaddr;			/* control page, then the data twice */
	unsigned int nr_pages;		/* control and data: distinct pages */
	/* Whose RLIMIT_MEMLOCK the pages count in, or NULL (CAP_IPC_LOCK). */
	struct user_struct *user;
};

/* The largest data area a thread may map; 0: no rings (system calls). */
static unsigned int max_ring_size = SZ_4M;

static int posixtrace_param_set_ring_size(const char *val,
					  const struct kernel_param *kp)
{
	unsigned int size;
	int ret = kstrtouint(val, 0, &size);

	if (ret)
		return ret;
	if (size && (!is_power_of_2(size) || size < PAGE_SIZE ||
		     size > SZ_64M))
		return -EINVAL;
	WRITE_ONCE(max_ring_size, size);
	return 0;
}

/* The largest data area a thread may map now; 0: none. */
unsigned int posixtrace_ring_size_max(void)
{
	return READ_ONCE(max_ring_size);
}

static const struct kernel_param_ops posixtrace_ring_size_ops = {
	.set = posixtrace_param_set_ring_size,
	.get = param_get_uint,
};

module_param_cb(max_ring_size, &posixtrace_ring_size_ops, &max_ring_size,
		0644);
MODULE_PARM_DESC(max_ring_size, "Largest thread ring, bytes (a power of two, a page to 64 MiB; 0: no rings)");

/**
 * posixtrace_thread_ring_size_hint - the ring size to suggest to threads
 * @capacity: the bytes of stream records the process's only stream, a LOOP
 *	stream, keeps; 0 if there is no such stream
 *
 * A ring record's header is 16 bytes shorter than a stream record's (48
 * against 64), the data the same: the stream's share of records with up to
 * 64 bytes of data takes at most 7/8 of @capacity in a ring (a 1 MiB
 * stream of 8-byte events keeps 14,564 records of 72 bytes: 816 KiB of
 * ring records). A larger share gets the largest ring: it cannot hold the
 * share, so drains copy its records into the stream, but between fewer
 * kicks than a 64 KiB ring's, and without the thread finding its ring
 * full (and making its events by system call) while they do.
 *
 * Return: the share rounded up to a power of two, within a page and
 * max_ring_size; 0 for no hint.
 */
u32 posixtrace_thread_ring_size_hint(size_t capacity)
{
	unsigned int max = READ_ONCE(max_ring_size);
	size_t share = capacity - capacity / 8;

	if (!capacity || !max)
		return 0;
	if (share > max)
		return max;
	return max_t(size_t, PAGE_SIZE, roundup_pow_of_two(share));
}

/*
 * The pages count in the caller's RLIMIT_MEMLOCK, as io_uring's registered
 * buffers do: they are pinned kernel memory, and a drain's work is bounded
 * by what all rings hold. A ring larger than the default (the enable
 * page's hint, or POSIXTRACE_RING_SIZE) may not take the user past half
 * the limit with its data (its control page counts beyond the half, so
 * that with the default 8 MiB a 4 MiB ring, the largest max_ring_size
 * allows by default, can be had): the first threads of a process under a
 * 1 MiB LOOP stream would otherwise leave no room for any ring of the
 * next ones, which would then make every event by system call. Refused a
 * growth, the library tries a smaller one, or keeps the ring it has.
 * @replaces: the pages of the thread's ring that this one is to replace
 * (it grows), charged to the same user, which the half is taken without:
 * a ring grows to the size it could have had at first. The whole limit
 * counts them, since both rings are pinned until the thread unmaps the
 * old one. Sets @mem->user: NULL without a limit (CAP_IPC_LOCK).
 * Return: 0 or -ENOMEM.
 */
static int posixtrace_ring_mem_charge(struct posixtrace_ring_mem *mem,
				      u64 size, unsigned int replaces)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT, cur;
	unsigned long half = limit / 2 + 1;
	struct user_struct *user;

	if (capable(CAP_IPC_LOCK))
		return 0;
	user = get_uid(current_user());
	cur = atomic_long_read(&user->locked_vm);
	do {
		/* Half the limit for the data, and the control page. */
		if (cur + mem->nr_pages > limit ||
		    (size > POSIXTRACE_RING_SIZE_DEFAULT &&
		     cur - min_t(unsigned long, cur, replaces) +
		     mem->nr_pages > half)) {
			free_uid(user);
			return -ENOMEM;
		}
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur,
					  cur + mem->nr_pages));
	mem->user = user;
	return 0;
}

static void posixtrace_ring_mem_uncharge_user(struct posixtrace_ring_mem *mem)
{
	if (!mem->user)
		return;
	atomic_long_sub(mem->nr_pages, &mem->user->locked_vm);
	free_uid(mem->user);
	mem->user = NULL;
}

/* Page @i: 0 the control page, then the data pages. */
static struct page *posixtrace_ring_mem_page(const struct posixtrace_ring_mem *mem,
					     unsigned int i)
{
	return vmalloc_to_page((const u8 *)mem->vaddr + i * PAGE_SIZE);
}

/* Where the last reference's free runs: see posixtrace_ring_mem_put(). */
static struct workqueue_struct *posixtrace_ring_mem_wq;

/*
 * Nothing uses the pages any more: no mapping, no ring. The pages are
 * found through the module's view, so they are gathered before it goes,
 * into an array of our own: not through a field of the pages (page->lru),
 * which a page pinned by get_user_pages() beyond its mapping still
 * carries. Waits for memory rather than leak the pages: in a worker, not
 * under the mmap lock of the mapping that went last.
 */
static void posixtrace_ring_mem_free(struct work_struct *work)
{
	struct posixtrace_ring_mem *mem =
		container_of(to_rcu_work(work), struct posixtrace_ring_mem,
			     free_work);
	struct page **pages;
	unsigned int i;

	while (!(pages = kvmalloc_array(mem->nr_pages, sizeof(*pages),
					GFP_KERNEL | __GFP_NOWARN)))
		msleep(20);
	for (i = 0; i < mem->nr_pages; i++)
		pages[i] = posixtrace_ring_mem_page(mem, i);
	vunmap(mem->vaddr);
	for (i = 0; i < mem->nr_pages; i++)
		put_page(pages[i]);
	kvfree(pages);
	kfree(mem);
}

/**
 * posixtrace_ring_mem_new - pages for a ring of @size data bytes
 * @size: a power of two, at least a page
 * @replaces: pages of the thread's ring that this one grows from, or 0
 *
 * Charged to the calling thread: its user's RLIMIT_MEMLOCK (see
 * posixtrace_ring_mem_charge()) and its memory cgroup. The control page
 * and the data are zeroed, and mapped in the module's view as the control
 * page and then the data twice in a row, so that a record that runs past
 * the end reads whole. The caller holds the first reference and use
 * (the ring's).
 *
 * Return: the memory, or ERR_PTR(-ENOMEM): no memory, or past the limit.
 */
struct posixtrace_ring_mem *posixtrace_ring_mem_new(u64 size,
						    unsigned int replaces)
{
	unsigned int data_pages = size >> PAGE_SHIFT, i;
	struct posixtrace_ring_mem *mem;
	struct page **map;
	int ret;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL_ACCOUNT);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	mem->nr_pages = 1 + data_pages;
	ret = posixtrace_ring_mem_charge(mem, size, replaces);
	if (ret)
		goto err_free;
	ret = -ENOMEM;
	map = kvcalloc(1 + 2 * data_pages, sizeof(*map),
		       GFP_KERNEL | __GFP_NOWARN);
	if (!map)
		goto err_uncharge;
	/* Charged to the thread's memory cgroup: we run as the thread. */
	for (i = 0; i < mem->nr_pages; i++) {
		map[i] = alloc_page(POSIXTRACE_GFP_USER_SIZED | __GFP_ZERO);
		if (!map[i])
			goto err_free_pages;
	}
	for (i = 0; i < data_pages; i++)
		map[1 + data_pages + i] = map[1 + i];
	mem->vaddr = vmap(map, 1 + 2 * data_pages, VM_MAP, PAGE_KERNEL);
	if (!mem->vaddr)
		goto err_free_pages;
	kvfree(map);
	refcount_set(&mem->refs, 1);
	atomic_set(&mem->users, 1);
	INIT_RCU_WORK(&mem->free_work, posixtrace_ring_mem_free);
	return mem;

err_free_pages:
	for (i = 0; i < mem->nr_pages && map[i]; i++)
		__free_page(map[i]);
	kvfree(map);
err_uncharge:
	posixtrace_ring_mem_uncharge_user(mem);
err_free:
	kfree(mem);
	return ERR_PTR(ret);
}

/* The module's view: the control page, then the data twice. */
void *posixtrace_ring_mem_vaddr(const struct posixtrace_ring_mem *mem)
{
	return mem->vaddr;
}

/* One more mapping (a piece of a split, a move, a fork's copy). */
static void posixtrace_ring_mem_get(struct posixtrace_ring_mem *mem)
{
	refcount_inc(&mem->refs);
	atomic_inc(&mem->users);
}

/**
 * posixtrace_ring_mem_uncharge - the ring is retired, or grew: its use goes
 * @mem: the ring's memory
 *
 * Never sleeps: the pages leave the limit if no mapping has them. The
 * ring still holds its reference (posixtrace_ring_mem_put()).
 */
void posixtrace_ring_mem_uncharge(struct posixtrace_ring_mem *mem)
{
	if (atomic_dec_and_test(&mem->users))
		posixtrace_ring_mem_uncharge_user(mem);
}

/**
 * posixtrace_ring_mem_put - the ring, or a mapping, is done with @mem
 * @mem: the ring's memory
 *
 * The last reference has a worker free it, a grace period later (a
 * mapping's close runs under the mmap lock, the free may wait for memory,
 * and a reader under RCU may still see the ring's old pages). Never
 * sleeps.
 */
void posixtrace_ring_mem_put(struct posixtrace_ring_mem *mem)
{
	if (refcount_dec_and_test(&mem->refs))
		queue_rcu_work(posixtrace_ring_mem_wq, &mem->free_work);
}

/**
 * posixtrace_ring_mem_user_pages - the pages of @mem that @user is charged
 * @mem: a ring's memory
 * @user: the user a ring that replaces it would be charged to
 *
 * A hint for posixtrace_ring_mem_new()'s @replaces, under RCU or with the
 * ring held: all of @mem's pages if they count in @user's limit, else 0
 * (they count in another's, or in none: CAP_IPC_LOCK, or uncharged).
 */
unsigned int posixtrace_ring_mem_user_pages(const struct posixtrace_ring_mem *mem,
					    const struct user_struct *user)
{
	return READ_ONCE(mem->user) == user ? mem->nr_pages : 0;
}

/* Before any ring is made. Return: 0 or -ENOMEM. */
int posixtrace_ring_mem_init(void)
{
	posixtrace_ring_mem_wq = alloc_workqueue("posixtrace_ring_mem",
						 WQ_UNBOUND, 0);
	return posixtrace_ring_mem_wq ? 0 : -ENOMEM;
}

/*
 * Module exit, after the rings' exit: no mapping is left (each held the
 * module through its file), and the rings' frees have queued theirs, a
 * grace period away.
 */
void posixtrace_ring_mem_exit(void)
{
	rcu_barrier();
	destroy_workqueue(posixtrace_ring_mem_wq);
}

static void posixtrace_ring_mem_vm_open(struct vm_area_struct *vma)
{
	posixtrace_ring_mem_get(vma->vm_private_data);
}

/*
 * The page tables' own references keep the pages while the mapping has
 * them, whenever the mm core closes it (6.1's unmap_region() of a failed
 * mmap_region() closes before it unmaps).
 */
static void posixtrace_ring_mem_vm_close(struct vm_area_struct *vma)
{
	struct posixtrace_ring_mem *mem = vma->vm_private_data;

	posixtrace_ring_mem_uncharge(mem);
	posixtrace_ring_mem_put(mem);
}

/*
 * No fault handler: every page is in from the start, and a page zapped
 * (MADV_DONTNEED) is gone from that mapping for good (SIGBUS).
 */
static const struct vm_operations_struct posixtrace_ring_mem_vm_ops = {
	.open	= posixtrace_ring_mem_vm_open,
	.close	= posixtrace_ring_mem_vm_close,
};

/**
 * posixtrace_ring_mem_map - put the pages into the thread's mapping
 * @mem: the ring's memory
 * @vma: a shared mapping of the control page and the data, once
 *
 * The mapping holds a reference and a use from now until its close (and
 * so does every piece of it a split or a move makes). Not for a child
 * (it maps its own; a copy MADV_DOFORK makes anyway holds its own), not
 * in a core dump, never executable.
 *
 * Return: 0, -ENOMEM, or an error of vm_insert_pages(); on an error the
 * mapping holds nothing (the mm core unmaps what went in).
 */
int posixtrace_ring_mem_map(struct posixtrace_ring_mem *mem,
			    struct vm_area_struct *vma)
{
	unsigned long num = mem->nr_pages, i;
	struct page **map;
	int ret;

	map = kvcalloc(num, sizeof(*map), GFP_KERNEL | __GFP_NOWARN);
	if (!map)
		return -ENOMEM;
	for (i = 0; i < num; i++)
		map[i] = posixtrace_ring_mem_page(mem, i);
	vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
		     VM_MAYEXEC);
	ret = vm_insert_pages(vma, vma->vm_start, map, &num);
	kvfree(map);
	if (ret)
		return ret;
	posixtrace_ring_mem_get(mem);
	vma->vm_private_data = mem;
	vma->vm_ops = &posixtrace_ring_mem_vm_ops;
	return 0;
}

/**
 * posixtrace_ring_mem_unmap - undo posixtrace_ring_mem_map()
 * @mem: the ring's memory
 * @vma: the mapping it succeeded on, whose mmap() then fails
 *
 * The mm core unmaps what went in, and does not close a mapping whose
 * mmap() failed: its reference and use go here.
 */
void posixtrace_ring_mem_unmap(struct posixtrace_ring_mem *mem,
			       struct vm_area_struct *vma)
{
	vma->vm_ops = NULL;
	vma->vm_private_data = NULL;
	posixtrace_ring_mem_uncharge(mem);
	posixtrace_ring_mem_put(mem);
}
