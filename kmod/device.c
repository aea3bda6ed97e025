// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/posixtrace: the misc device every ioctl of the ABI goes through.
 *
 * The device is world read-write: any user may trace their own processes,
 * and each command checks its own permissions.
 */

#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/posixtrace.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "device.h"
#include "drain.h"
#include "eventid.h"
#include "kbuf.h"
#include "links.h"
#include "names.h"
#include "process.h"
#include "stream.h"
#include "stream_file.h"
#include "thread_ring.h"
#include "ustruct.h"

static long posixtrace_ioctl_version(struct posixtrace_version __user *uver)
{
	struct posixtrace_version ver;
	u32 usize;
	int ret;

	ret = posixtrace_struct_from_user(&ver, sizeof(ver), uver,
					  POSIXTRACE_VERSION_SIZE_VER0);
	if (ret)
		return ret;
	if (ver.flags || ver.__reserved)
		return -EINVAL;

	usize = ver.size;
	memset(&ver, 0, sizeof(ver));
	ver.size = sizeof(ver);
	ver.major = POSIXTRACE_ABI_MAJOR;
	ver.minor = POSIXTRACE_ABI_MINOR;
	return posixtrace_struct_to_user(uver, usize, &ver, sizeof(ver));
}

static long posixtrace_ioctl_create(struct posixtrace_create __user *ucreate)
{
	struct posixtrace_create create;
	int ret;

	ret = posixtrace_struct_from_user(&create, sizeof(create), ucreate,
					  POSIXTRACE_CREATE_SIZE_VER0);
	if (ret)
		return ret;
	if ((create.flags & ~POSIXTRACE_CREATE_MEM_FD) || create.__reserved)
		return -EINVAL;
	/* -1 is "no log"; any other negative number is no descriptor. */
	if (create.log_fd < -1)
		return -EBADF;
	return posixtrace_stream_create(u64_to_user_ptr(create.attr),
					create.pid,
					create.flags & POSIXTRACE_CREATE_MEM_FD ?
					create.mem_fd : -1, create.log_fd,
					&posixtrace_stream_fops);
}

/* The calling process's entry, made on its first name. */
static long posixtrace_ioctl_eventid_open_self(struct posixtrace_eventid __user *ueid)
{
	struct posixtrace_process *proc;
	long ret;

	proc = posixtrace_process_get(task_tgid(current), true);
	if (IS_ERR(proc))
		return PTR_ERR(proc);
	/* Not into its family's names, if it dropped privileges since. */
	ret = posixtrace_links_own_names(proc, current_cred());
	if (!ret)
		ret = posixtrace_ioctl_eventid_open(posixtrace_process_names(proc),
						    ueid, true);
	posixtrace_process_put(proc);
	return ret;
}

/*
 * Small events are copied through the stack, larger ones through the heap;
 * the small ones of a thread without a ring go through kbufs.
 */
#define POSIXTRACE_EVENT_STACK_DATA	POSIXTRACE_KBUF_DATA_MAX

/*
 * An event by system call of a thread at a realtime priority (drain.h),
 * @n bytes of its data copied (0: the copy faulted): it waits for no
 * drain, and so for no reader and no log's thread. If the thread says it
 * writes no ring (@ringless), or the module has no live ring for it, and
 * the data the streams keep is copied, the event goes to the kbufs, as
 * any ringless thread's; otherwise (its ring was full, or busy with an
 * event the signal handler that made this one interrupted, or the data
 * is long) it would have to wait for a drain to store what came before
 * it, and is lost instead, counted in every stream that would have
 * recorded it, while a worker drains. Under RCU; never sleeps.
 */
static long posixtrace_event_nowait(struct posixtrace_process *proc,
				    const struct posixtrace_emit *emit,
				    size_t n, bool ringless)
{
	struct posixtrace_drain_domain *dom;
	bool keep;

	if (emit->copied && !n)
		return -EFAULT;
	keep = emit->copied <= n &&
	       (ringless || !posixtrace_thread_ring_open(proc));
	posixtrace_links_nowait(proc, emit, keep);
	dom = READ_ONCE(proc->domain);
	if (!keep && dom)
		posixtrace_drain_soon(dom);
	return 0;
}

/*
 * An event whose data the streams keep whole within @n bytes already
 * copied to @data: recorded under RCU alone, without a reference on the
 * process entry (two atomic operations less per event); into the streams'
 * kbufs if @ringless, and then *@drain says if they want a drain, and
 * @retry holds those whose kbuf was full. A realtime thread's (@nowait),
 * whatever its data, as posixtrace_event_nowait() says. Returns 1 if it
 * was not such an event and the caller must take the long way.
 */
static long posixtrace_event_short(const struct posixtrace_event *ev,
				   struct posixtrace_emit *emit,
				   const void *data, size_t n, bool ringless,
				   bool nowait, bool *drain,
				   struct posixtrace_post_retry *retry)
{
	struct posixtrace_process *proc;
	long ret = 0;

	rcu_read_lock();
	proc = posixtrace_process_lookup(task_tgid(current));
	if (!proc) {
		/* No stream, no name: only the unnamed event is valid. */
		if (ev->event_id != POSIXTRACE_EVENT_UNNAMED_USER)
			ret = -EINVAL;
	} else if (!posixtrace_process_event_valid(proc, ev->event_id)) {
		ret = -EINVAL;
	} else if (posixtrace_links_traced(proc)) {
		emit->copied = min_t(size_t, ev->data_len,
				     posixtrace_process_data_max(proc));
		emit->data = data;
		if (nowait)
			ret = posixtrace_event_nowait(proc, emit, n, ringless);
		else if (emit->copied > n)
			ret = 1;
		else if (ringless)
			*drain = posixtrace_links_post(proc, emit, retry);
		else
			posixtrace_links_emit(proc, emit, 1);
	}
	rcu_read_unlock();
	return ret;
}

static long posixtrace_ioctl_event(struct posixtrace_event __user *uev)
{
	u8 stack_data[POSIXTRACE_EVENT_STACK_DATA];
	struct posixtrace_emit emit = { };
	struct posixtrace_process *proc;
	struct posixtrace_event ev;
	struct posixtrace_post_retry retry = { };
	void *data = stack_data;
	bool ringless, nowait, drain = false;
	size_t n;
	long ret;

	ret = posixtrace_struct_from_user(&ev, sizeof(ev), uev,
					  POSIXTRACE_EVENT_SIZE_VER0);
	if (ret)
		return ret;
	if (ev.flags & ~POSIXTRACE_EVENT_RINGLESS)
		return -EINVAL;
	/*
	 * What the thread wrote in its ring came first. A thread that says
	 * it has none goes through kbufs, which the drains merge with the
	 * rings (kbuf.c): if it lies, only its own events are out of order.
	 * A realtime thread's waits for no drain (posixtrace_event_nowait()).
	 */
	ringless = ev.flags & POSIXTRACE_EVENT_RINGLESS;
	nowait = posixtrace_current_realtime();
	if (!ringless && !nowait)
		posixtrace_drain_current();
	emit.event_id = ev.event_id;
	emit.tgid = task_tgid(current);
	emit.tid = task_pid(current);
	emit.prog_address = ev.prog_address;
	emit.thread = ev.thread;
	emit.data_len = ev.data_len;

	/*
	 * Most events are small: copy first, then record without sleeping.
	 * A fault matters only if a stream wants the data: the long way
	 * finds out.
	 */
	n = min_t(size_t, ev.data_len, sizeof(stack_data));
	if (copy_from_user(stack_data, u64_to_user_ptr(ev.data), n))
		n = 0;
	ret = posixtrace_event_short(&ev, &emit, stack_data, n, ringless,
				     nowait, &drain, &retry);
	if (drain)
		posixtrace_drain_current();
	posixtrace_stream_post_retry(&retry, &emit);
	if (ret <= 0)
		return ret;
	/* Stored at once: what the kbufs hold goes first. */
	if (ringless)
		posixtrace_drain_current();

	/* A stream keeps more than the stack holds: the heap, a reference. */
	proc = posixtrace_process_get(task_tgid(current), false);
	if (!proc)
		return ev.event_id == POSIXTRACE_EVENT_UNNAMED_USER ? 0 : -EINVAL;
	emit.copied = min_t(size_t, ev.data_len,
			    posixtrace_process_data_max(proc));
	ret = 0;
	if (emit.copied > n) {
		data = kvmalloc(emit.copied, GFP_KERNEL | __GFP_NOWARN);
		if (!data)
			ret = -ENOMEM;
		else if (copy_from_user(data, u64_to_user_ptr(ev.data),
					emit.copied))
			ret = -EFAULT;
	}
	emit.data = data;
	rcu_read_lock();
	/*
	 * Made, and no memory for its data: lost, and counted so in every
	 * stream that would have recorded it, never dropped unsaid. Data
	 * the producer's pointer does not give (EFAULT) is a call refused,
	 * as it is at the short way's end (and a realtime thread's).
	 */
	if (ret == -ENOMEM)
		posixtrace_links_nowait(proc, &emit, false);
	else if (!ret)
		posixtrace_links_emit(proc, &emit, 1);
	rcu_read_unlock();
	if (data != stack_data)
		kvfree(data);
	posixtrace_process_put(proc);
	return ret;
}

/*
 * The enable page of the calling process, read-only, and not inherited by
 * a child: a child is another process, with its own page. Or a ring for
 * the calling thread, new or grown (thread_ring.c).
 */
static int posixtrace_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct posixtrace_process *proc;
	struct page *page;
	int ret;

	if (vma->vm_pgoff == POSIXTRACE_RING_OFFSET >> PAGE_SHIFT)
		return posixtrace_thread_ring_mmap(vma, false);
	if (vma->vm_pgoff == POSIXTRACE_RING_GROW_OFFSET >> PAGE_SHIFT)
		return posixtrace_thread_ring_mmap(vma, true);
	if (vma->vm_pgoff != POSIXTRACE_ENABLE_PAGE_OFFSET ||
	    vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EACCES;
	proc = posixtrace_process_get(task_tgid(current), true);
	if (IS_ERR(proc))
		return PTR_ERR(proc);
	/*
	 * Its bits show how many names its table has, and which of them the
	 * streams record: not its privileged family's, if it dropped
	 * privileges since.
	 */
	ret = posixtrace_links_own_names(proc, current_cred());
	if (ret) {
		posixtrace_process_put(proc);
		return ret;
	}
	page = posixtrace_process_enable_page(proc);
	if (page) {
		vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
			     VM_MAYWRITE);
		ret = vm_insert_page(vma, vma->vm_start, page);
	} else {
		ret = -ENOMEM;
	}
	posixtrace_process_put(proc);
	return ret;
}

static long posixtrace_dev_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (POSIXTRACE_IOC_ID(cmd)) {
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_VERSION):
		return posixtrace_ioctl_version(uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_CREATE):
		return posixtrace_ioctl_create(uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_EVENTID_OPEN):
		return posixtrace_ioctl_eventid_open_self(uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_EVENT):
		return posixtrace_ioctl_event(uarg);
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_RING_DRAIN):
		if (arg)
			return -EINVAL;
		posixtrace_thread_ring_kick();
		return 0;
	}
	return -ENOTTY;
}

static const struct file_operations posixtrace_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= posixtrace_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= posixtrace_dev_mmap,
};

static struct miscdevice posixtrace_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= POSIXTRACE_DEVICE_NAME,
	.fops	= &posixtrace_dev_fops,
	.mode	= 0666,
};

int posixtrace_device_init(void)
{
	return misc_register(&posixtrace_miscdev);
}

void posixtrace_device_exit(void)
{
	misc_deregister(&posixtrace_miscdev);
}
