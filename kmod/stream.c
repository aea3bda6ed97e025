// SPDX-License-Identifier: GPL-2.0
/*
 * Trace streams: their lifetime (creation, shutdown, the list of streams),
 * the commands that change them, what the rest of the module may know of
 * them, and the news monitoring is told.
 *
 * Locking and references are documented at struct posixtrace_stream
 * (stream_core.h); recording is stream_record.c's, the log flush.c's.
 */

#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid_namespace.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "access.h"
#include "drain.h"
#include "drain_domain.h"
#include "hook_work.h"
#include "kbuf.h"
#include "kprobes.h"
#include "links.h"
#include "names.h"
#include "process.h"
#include "quota.h"
#include "stream_core.h"
#include "ustruct.h"
#include "user_gfp.h"

/*
 * Limits root may change. Each has a ceiling, so that no setting lets a
 * user's sizes overflow a record's u32 size or reach kvmalloc()'s limit.
 */
static unsigned int max_streams = 64;
static unsigned int max_stream_size = SZ_64M;
static unsigned int max_data_size = SZ_64K;

static int posixtrace_param_set_streams(const char *val,
					const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 4096);
}

static int posixtrace_param_set_stream_size(const char *val,
					    const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, POSIXTRACE_SYSTEM_RECORD_MAX,
				     SZ_1G);
}

static int posixtrace_param_set_data_size(const char *val,
					  const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, SZ_1M);
}

static const struct kernel_param_ops posixtrace_streams_ops = {
	.set = posixtrace_param_set_streams,
	.get = param_get_uint,
};

static const struct kernel_param_ops posixtrace_stream_size_ops = {
	.set = posixtrace_param_set_stream_size,
	.get = param_get_uint,
};

static const struct kernel_param_ops posixtrace_data_size_ops = {
	.set = posixtrace_param_set_data_size,
	.get = param_get_uint,
};

module_param_cb(max_streams, &posixtrace_streams_ops, &max_streams, 0644);
MODULE_PARM_DESC(max_streams, "TRACE_SYS_MAX: trace streams system-wide (1-4096)");
module_param_cb(max_stream_size, &posixtrace_stream_size_ops,
		&max_stream_size, 0644);
MODULE_PARM_DESC(max_stream_size, "Largest stream size in bytes, ENOMEM above (352-1G)");
module_param_cb(max_data_size, &posixtrace_data_size_ops, &max_data_size,
		0644);
MODULE_PARM_DESC(max_data_size, "Largest max data size attribute in bytes (0-1M)");

#define POSIXTRACE_DEFAULT_STREAM_SIZE	SZ_1M
/* Readers copy out at most this much per call, and at least one record. */
#define POSIXTRACE_BOUNCE_SIZE		((size_t)SZ_64K)

/*
 * The streams not shut down: for the exit hook and monitoring. A raw lock,
 * held for list operations and walks that take references: the exit and
 * exec hooks take it with preemption disabled.
 */
static LIST_HEAD(posixtrace_streams);
static DEFINE_RAW_SPINLOCK(posixtrace_streams_lock);
/* Streams not shut down: TRACE_SYS_MAX counts these. */
static atomic_t posixtrace_nr_streams = ATOMIC_INIT(0);
/* The last stream id given out, under the lock: ids grow along the list. */
static u64 posixtrace_stream_last_id;

static void posixtrace_streams_reap(struct work_struct *work);
static DECLARE_WORK(posixtrace_reap_work, posixtrace_streams_reap);

/*
 * Monitoring's watcher (netlink.c), set once at load, before any stream,
 * and the ordered work queue that tells it each stream's news in order.
 */
static const struct posixtrace_stream_watcher *posixtrace_watcher;
static struct workqueue_struct *posixtrace_news_wq;

void posixtrace_streams_watch(const struct posixtrace_stream_watcher *watcher)
{
	posixtrace_watcher = watcher;
}

/**
 * posixtrace_stream_news - tell monitoring of a change of @stream
 * @stream: the stream, its lock held
 * @event: a POSIXTRACE_NL_EV_*
 *
 * Cheap when nobody listens; never sleeps. A queued work holds a reference
 * on the stream and on the module.
 */
void posixtrace_stream_news(struct posixtrace_stream *stream, u32 event)
{
	struct posixtrace_news *q = &stream->news;

	lockdep_assert_held(&stream->lock);
	if (!posixtrace_watcher || !posixtrace_watcher->listening())
		return;
	/*
	 * SHUTDOWN is the last: what a stream killed after its creator's
	 * death still records of before the death is not news.
	 */
	if (stream->shut_down && event != POSIXTRACE_NL_EV_SHUTDOWN)
		return;
	if (q->len == ARRAY_SIZE(q->events)) {
		/* Keep the newest: drop the oldest, and say so later. */
		q->head = (q->head + 1) % ARRAY_SIZE(q->events);
		q->len--;
		q->lost = true;
	}
	q->events[(q->head + q->len) % ARRAY_SIZE(q->events)] = event;
	q->len++;
	if (queue_work(posixtrace_news_wq, &stream->news_work)) {
		posixtrace_stream_get(stream);
		__module_get(THIS_MODULE);
	}
}

static void posixtrace_stream_news_work(struct work_struct *work)
{
	struct posixtrace_stream *stream =
		container_of(work, struct posixtrace_stream, news_work);
	struct posixtrace_news *q = &stream->news;
	u32 events[ARRAY_SIZE(q->events)];
	unsigned int i, n;
	bool lost;

	spin_lock(&stream->lock);
	n = q->len;
	for (i = 0; i < n; i++)
		events[i] = q->events[(q->head + i) % ARRAY_SIZE(q->events)];
	q->head = 0;
	q->len = 0;
	lost = q->lost;
	q->lost = false;
	spin_unlock(&stream->lock);

	if (lost)
		posixtrace_watcher->changed(stream, POSIXTRACE_NL_EV_LOST);
	for (i = 0; i < n; i++)
		posixtrace_watcher->changed(stream, events[i]);
	posixtrace_stream_put(stream);
	/* posixtrace_streams_exit() waits for us to return. */
	module_put(THIS_MODULE);
}

static int posixtrace_attr_check(struct posixtrace_attr *attr, bool log)
{
	if (attr->flags || attr->__reserved2)
		return -EINVAL;
	if (attr->kernel_events & ~POSIXTRACE_KERNEL_ALL)
		return -EINVAL;
	if (strnlen(attr->name, sizeof(attr->name)) == sizeof(attr->name))
		return -EINVAL;
	/* POSIXTRACE_FLUSH needs a trace log. */
	if (attr->stream_full_policy != POSIXTRACE_LOOP &&
	    attr->stream_full_policy != POSIXTRACE_UNTIL_FULL &&
	    (attr->stream_full_policy != POSIXTRACE_FLUSH || !log))
		return -EINVAL;
	if (attr->log_full_policy != POSIXTRACE_LOOP &&
	    attr->log_full_policy != POSIXTRACE_UNTIL_FULL &&
	    attr->log_full_policy != POSIXTRACE_APPEND)
		return -EINVAL;
	if (attr->inheritance != POSIXTRACE_CLOSE_FOR_CHILD &&
	    attr->inheritance != POSIXTRACE_INHERITED)
		return -EINVAL;
	if (attr->max_data_size > READ_ONCE(max_data_size))
		return -EINVAL;
	if (!attr->stream_size)
		attr->stream_size = POSIXTRACE_DEFAULT_STREAM_SIZE;
	if (attr->stream_size < POSIXTRACE_SYSTEM_RECORD_MAX)
		return -EINVAL;
	if (attr->stream_size > READ_ONCE(max_stream_size))
		return -ENOMEM;
	return 0;
}

/*
 * The thread group to trace (the caller's for pid 0), with a reference on
 * its leader, whose exec_update_lock the caller takes.
 */
static struct task_struct *posixtrace_target(pid_t pid, struct pid **tgid)
{
	struct task_struct *task;

	if (pid < 0)
		return ERR_PTR(-ESRCH);
	*tgid = pid ? find_get_pid(pid) : get_pid(task_tgid(current));
	if (!*tgid)
		return ERR_PTR(-ESRCH);
	/* A thread id that is not a process id finds no task here. */
	task = get_pid_task(*tgid, PIDTYPE_TGID);
	if (!task) {
		put_pid(*tgid);
		return ERR_PTR(-ESRCH);
	}
	return task;
}

static struct posixtrace_stream *posixtrace_stream_alloc(void)
{
	struct posixtrace_stream *stream;

	stream = kzalloc(sizeof(*stream), GFP_KERNEL_ACCOUNT);
	if (!stream)
		return NULL;
	kref_init(&stream->ref);
	mutex_init(&stream->ctl_lock);
	mutex_init(&stream->read_lock);
	spin_lock_init(&stream->lock);
	init_waitqueue_head(&stream->wq);
	INIT_LIST_HEAD(&stream->links);
	INIT_LIST_HEAD(&stream->all_node);
	stream->full_status = POSIXTRACE_NOT_FULL;
	stream->overrun_status = POSIXTRACE_NO_OVERRUN;
	stream->creator = get_pid(task_tgid(current));
	stream->pid_ns = get_pid_ns(task_active_pid_ns(current));
	stream->owner = current_euid();
	INIT_WORK(&stream->news_work, posixtrace_stream_news_work);
	return stream;
}

/*
 * Each kbuf's size. A page, but for the kernel-rate classes (system calls
 * and scheduling, at up to millions a second), which would fill a page
 * between two wakeups of the drain's worker: then as much as a quarter of
 * the stream's size over the CPUs gives each, from a page to
 * POSIXTRACE_KBUF_SIZE_MAX, so that the kbufs of a stream hold at most
 * a quarter of what the stream itself does, but for the floor of a page
 * each (charged, as the stream is, to the creator).
 */
static u32 posixtrace_stream_kbuf_size(const struct posixtrace_stream *stream)
{
	u64 share;

	if (!(stream->attr.kernel_events &
	      (POSIXTRACE_KERNEL_SYSCALL | POSIXTRACE_KERNEL_SCHED)))
		return POSIXTRACE_KBUF_SIZE;
	share = div_u64(stream->buf.size, 4 * num_possible_cpus());
	share = clamp_t(u64, share, POSIXTRACE_KBUF_SIZE,
			POSIXTRACE_KBUF_SIZE_MAX);
	return rounddown_pow_of_two((unsigned long)share);
}

/*
 * The buffer, and the bounce buffer records taken out go through: a batch,
 * at least the largest record with a gap's two before it. A reader may map
 * the buffer (stream_read.c): whole pages then, and zeroed, so that it
 * shows nothing but this stream's records. Both charged to the creator.
 */
static int posixtrace_stream_alloc_storage(struct posixtrace_stream *stream)
{
	size_t batch = max(POSIXTRACE_BOUNCE_SIZE,
			   POSIXTRACE_RECORD_SIZE(stream->attr.max_data_size) +
			   2 * sizeof(struct posixtrace_record));
	gfp_t gfp = POSIXTRACE_GFP_USER_SIZED;
	struct posixtrace_kbufs *kbufs;
	u32 kbuf_size;

	if (posixtrace_buf_alloc(&stream->buf,
				 posixtrace_stream_ring_size(stream)))
		return -ENOMEM;
	kbuf_size = posixtrace_stream_kbuf_size(stream);
	kbufs = posixtrace_kbufs_new(stream, kbuf_size);
	if (!kbufs)
		return -ENOMEM;
	rcu_assign_pointer(stream->kbufs, kbufs);
	stream->kbuf_threshold = min_t(size_t, kbuf_size / 2,
				       stream->buf.size / 4);
	if (!stream->log) {
		batch = PAGE_ALIGN(batch);
		gfp |= __GFP_ZERO;
	}
	/* Page by page, as the buffer (buf.c says why). */
	stream->bounce = __vmalloc(batch, gfp);
	if (!stream->bounce)
		return -ENOMEM;
	stream->bounce_size = batch;
	if (!stream->log)
		stream->map_size = batch;
	return 0;
}

/*
 * The kbufs go once the stream is shut down and drained (or was never
 * published): what writers add to them later is of no stream.
 */
static void posixtrace_stream_kbufs_retire(struct posixtrace_stream *stream)
{
	struct posixtrace_kbufs *kbufs;

	/* Once: a shutdown and the last reference may race here. */
	kbufs = (struct posixtrace_kbufs __force *)
		xchg((struct posixtrace_kbufs __force **)&stream->kbufs, NULL);
	if (!kbufs)
		return;
	/* No drain takes them any more: their stream is gone. */
	if (kbufs->domain)
		posixtrace_drain_unlist(kbufs->domain, kbufs->srcs, nr_cpu_ids);
	posixtrace_kbufs_free_later(kbufs);
}

static void posixtrace_stream_free(struct kref *ref)
{
	struct posixtrace_stream *stream =
		container_of(ref, struct posixtrace_stream, ref);

	posixtrace_stream_kbufs_retire(stream);
	if (stream->kevents_held)
		posixtrace_kevents_put(stream->attr.kernel_events);
	kvfree(posixtrace_buf_detach(&stream->buf));
	kvfree(stream->bounce);
	posixtrace_flush_free(stream);
	kfree(stream->log_path);
	if (stream->names)
		posixtrace_names_put(stream->names);
	if (stream->proc)
		posixtrace_process_put(stream->proc);
	posixtrace_drain_domain_put(stream->domain);
	put_pid_ns(stream->pid_ns);
	put_pid(stream->creator);
	mutex_destroy(&stream->ctl_lock);
	mutex_destroy(&stream->read_lock);
	/* Emitters may still be walking the process's list past it. */
	kfree_rcu(stream, rcu);
}

void posixtrace_stream_get(struct posixtrace_stream *stream)
{
	kref_get(&stream->ref);
}

void posixtrace_stream_put(struct posixtrace_stream *stream)
{
	kref_put(&stream->ref, posixtrace_stream_free);
}

/*
 * A reference on a stream found under RCU, unless it is being freed (it
 * stays readable until a grace period has passed).
 */
bool posixtrace_stream_tryget(struct posixtrace_stream *stream)
{
	return kref_get_unless_zero(&stream->ref);
}

/*
 * Take one of the TRACE_SYS_MAX slots, and one of @user's (quota.c), or
 * fail with EAGAIN.
 */
static int posixtrace_stream_slot_get(kuid_t user)
{
	int nr = atomic_read(&posixtrace_nr_streams);
	int ret;

	do {
		if (nr >= (int)READ_ONCE(max_streams))
			return -EAGAIN;
	} while (!atomic_try_cmpxchg(&posixtrace_nr_streams, &nr, nr + 1));
	/* Asked quietly: a user under the limit is no security event. */
	ret = posixtrace_quota_get(user,
				   ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN));
	if (ret)
		atomic_dec(&posixtrace_nr_streams);
	return ret;
}

/* Give back what posixtrace_stream_slot_get() took. Never sleeps. */
void posixtrace_stream_slot_put(kuid_t user)
{
	posixtrace_quota_put(user);
	atomic_dec(&posixtrace_nr_streams);
}

/*
 * The stream's drain domain is its target's (made now if the target has
 * none), and its kbufs are listed there. Sleeps. Return: 0 or -ENOMEM.
 */
static int posixtrace_stream_set_domain(struct posixtrace_stream *stream)
{
	struct posixtrace_drain_domain *dom;
	struct posixtrace_kbufs *kbufs;
	int ret;

	dom = posixtrace_process_domain(stream->proc);
	if (!dom)
		return -ENOMEM;
	posixtrace_drain_domain_get(dom);
	stream->domain = dom;
	kbufs = rcu_dereference_protected(stream->kbufs, 1);
	ret = posixtrace_drain_list(dom, kbufs->srcs, nr_cpu_ids);
	if (ret)
		return ret;
	/* The kbufs' own: they leave its lists before they are freed. */
	posixtrace_drain_domain_get(dom);
	kbufs->domain = dom;
	return 0;
}

/* Make the stream visible to emitters and to the stream list. */
static void posixtrace_stream_publish(struct posixtrace_stream *stream,
				      struct posixtrace_link *link)
{
	raw_spin_lock(&posixtrace_streams_lock);
	stream->id = ++posixtrace_stream_last_id;
	list_add_tail(&stream->all_node, &posixtrace_streams);
	raw_spin_unlock(&posixtrace_streams_lock);
	posixtrace_link_attach(link, stream, stream->proc);
	spin_lock(&stream->lock);
	posixtrace_stream_news(stream, POSIXTRACE_NL_EV_CREATED);
	spin_unlock(&stream->lock);
}

/**
 * posixtrace_stream_create - create a suspended trace stream
 * @uattr: its attributes
 * @pid: the process to trace, 0 for the caller
 * @mem_fd: the caller's proof it may trace @pid (see access.c), or -1
 * @log_fd: the caller's descriptor for the trace log, or -1 for none
 * @fops: the file operations of the stream's descriptor (stream_file.c)
 *
 * Return: the stream's new file descriptor (close-on-exec), or -EINVAL,
 * -EFAULT, -E2BIG (attributes), -ESRCH, -EPERM (target), -EAGAIN
 * (TRACE_SYS_MAX), -ENOMEM, or an error of posixtrace_log_open().
 */
int posixtrace_stream_create(const struct posixtrace_attr __user *uattr,
			     pid_t pid, int mem_fd, int log_fd,
			     const struct file_operations *fops)
{
	struct posixtrace_link *link = NULL;
	kuid_t user = posixtrace_quota_user(current_cred());
	struct posixtrace_stream *stream;
	const struct cred *tcred;
	struct task_struct *task;
	struct timespec64 now;
	struct file *file;
	struct pid *tgid;
	int fd, ret;

	/* The slot first: a refused create allocates nothing. */
	ret = posixtrace_stream_slot_get(user);
	if (ret)
		return ret;
	stream = posixtrace_stream_alloc();
	if (!stream) {
		ret = -ENOMEM;
		goto err_put_slot;
	}
	stream->quota_user = user;
	ret = posixtrace_struct_from_user(&stream->attr, sizeof(stream->attr),
					  uattr, POSIXTRACE_ATTR_SIZE_VER0);
	if (ret)
		goto err_put_stream;
	ret = posixtrace_attr_check(&stream->attr, log_fd >= 0);
	if (ret)
		goto err_put_stream;
	if (stream->attr.kernel_events) {
		ret = posixtrace_kevents_get(stream->attr.kernel_events);
		if (ret)
			goto err_put_stream;
		stream->kevents_held = true;
	}
	stream->attr.size = sizeof(stream->attr);
	ktime_get_real_ts64(&now);
	stream->attr.create_time_sec = now.tv_sec;
	stream->attr.create_time_nsec = now.tv_nsec;

	/*
	 * Before the target is looked up. The header is written now, with
	 * the caller's rights: ENOSPC and the like fail the create.
	 */
	if (log_fd >= 0) {
		ret = posixtrace_flush_open(stream, log_fd);
		if (ret)
			goto err_put_stream;
	}
	ret = posixtrace_stream_alloc_storage(stream);
	if (ret)
		goto err_put_stream;
	link = posixtrace_link_new();
	if (!link) {
		ret = -ENOMEM;
		goto err_put_stream;
	}

	task = posixtrace_target(pid, &tgid);
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto err_put_stream;
	}
	/*
	 * As perf_event_open() does: the target cannot exec between the
	 * permission check and the stream being in place, and an exec after
	 * it finds the stream and judges it (see the exec hook).
	 */
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		goto err_put_task;
	ret = posixtrace_may_trace(task, mem_fd);
	if (ret)
		goto err_unlock_exec;
	stream->proc = posixtrace_process_get(tgid, true);
	if (IS_ERR(stream->proc)) {
		ret = PTR_ERR(stream->proc);
		stream->proc = NULL;
		goto err_unlock_exec;
	}
	/*
	 * The right to trace was judged on the target's credentials now: if
	 * they are not those its family's names were made under (it dropped
	 * privileges), the stream must not name events with them. The caller's
	 * own thread, not its leader, when it traces itself.
	 */
	tcred = same_thread_group(task, current) ? get_current_cred() :
						   get_task_cred(task);
	ret = posixtrace_links_own_names(stream->proc, tcred);
	put_cred(tcred);
	if (ret)
		goto err_unlock_exec;
	stream->names = posixtrace_process_names(stream->proc);
	posixtrace_names_get(stream->names);
	/* Its drains take its target's rings, and its own kbufs. */
	ret = posixtrace_stream_set_domain(stream);
	if (ret)
		goto err_unlock_exec;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_unlock_exec;
	}
	file = anon_inode_getfile("[posixtrace]", fops, stream,
				  O_RDWR | O_CLOEXEC);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto err_put_fd;
	}
	/* Nothing fails from here on: the file owns the reference. */
	posixtrace_stream_publish(stream, link);
	if (stream->log)
		posixtrace_flush_start(stream);
	up_read(&task->signal->exec_update_lock);
	put_task_struct(task);
	put_pid(tgid);
	fd_install(fd, file);
	return fd;

err_put_fd:
	put_unused_fd(fd);
err_unlock_exec:
	up_read(&task->signal->exec_update_lock);
err_put_task:
	put_task_struct(task);
	put_pid(tgid);
err_put_stream:
	kfree(link);
	posixtrace_stream_put(stream);
err_put_slot:
	posixtrace_stream_slot_put(user);
	return ret;
}

/**
 * posixtrace_stream_clear - posix_trace_clear()
 * @stream: the stream; its ctl_lock is held
 *
 * Drops every event, and those already in the log; running or suspended
 * stays so. A stream the kernel stopped because it was full (UNTIL_FULL,
 * or FLUSH while its log took the records) was running for its caller:
 * the clear makes room as a read or the log would, and it runs again,
 * with a START, unless the caller stopped it meanwhile. The log's thread
 * forgets what the log holds before it writes anything recorded after
 * this (posixtrace_flush_clear()): the caller never waits for the log's
 * file.
 */
static void posixtrace_stream_clear(struct posixtrace_stream *stream)
{
	spin_lock(&stream->lock);
	if (!stream->shut_down) {
		/* Counted lost before: their overrun goes with the rest. */
		posixtrace_stream_count_lost_nowait(stream);
		posixtrace_buf_reset(&stream->buf);
		stream->full_status = POSIXTRACE_NOT_FULL;
		stream->overrun_status = POSIXTRACE_NO_OVERRUN;
		stream->gap_pending = false;
		stream->clears++;
		/*
		 * A batch a drain fills for a reader or the log holds what
		 * the stream would have: it goes too.
		 */
		if (stream->direct) {
			stream->direct->used = 0;
			stream->direct->n = 0;
			stream->direct->clears = stream->clears;
		}
		if (stream->log)
			posixtrace_flush_clear(stream);
		/* After the log's clear, so that the START stays in it. */
		posixtrace_stream_drained(stream);
	}
	spin_unlock(&stream->lock);
}

/*
 * A state change begins before its drain and ends once the state is
 * changed: in between, kicks drop nothing of the stream's records
 * (posixtrace_stream_overwritten()). A kick after the drain could
 * otherwise count as overwritten events made during the call that newer
 * records, judged under the new state, never overwrite. The drain lock,
 * which the drain takes and the drop holds, orders the two.
 */
static void posixtrace_stream_change_begin(struct posixtrace_stream *stream)
{
	atomic_inc(&stream->changing);
	atomic_inc(&stream->changes);
}

static void posixtrace_stream_change_end(struct posixtrace_stream *stream)
{
	atomic_inc(&stream->changes);
	atomic_dec(&stream->changing);
}

/**
 * posixtrace_stream_set_filter - posix_trace_set_filter()
 * @stream: the stream
 * @set: the set of event types given
 * @how: POSIXTRACE_SET_EVENTSET, ADD_EVENTSET or SUB_EVENTSET
 *
 * On a running stream, records FILTER with the old and the new filter,
 * unless the new one filters FILTER out. Producers see the change before
 * the call returns.
 *
 * Return: 0, -EINVAL (an unknown @how, the stream shut down), or
 * -ERESTARTSYS if a signal came first: the filter is then as it was.
 */
int posixtrace_stream_set_filter(struct posixtrace_stream *stream,
				 const unsigned long *set, u32 how)
{
	struct posixtrace_eventset data[2];
	struct timespec64 ts;
	bool stored = false;

	if (how != POSIXTRACE_SET_EVENTSET && how != POSIXTRACE_ADD_EVENTSET &&
	    how != POSIXTRACE_SUB_EVENTSET)
		return -EINVAL;
	if (mutex_lock_interruptible(&stream->ctl_lock))
		return -ERESTARTSYS;
	/* Events made before the call are judged by the old filter. */
	posixtrace_stream_change_begin(stream);
	posixtrace_drain(stream->domain);
	spin_lock(&stream->lock);
	if (stream->shut_down) {
		spin_unlock(&stream->lock);
		posixtrace_stream_change_end(stream);
		mutex_unlock(&stream->ctl_lock);
		return -EINVAL;
	}
	bitmap_to_arr64(data[0].bits, stream->filter, POSIXTRACE_EVENT_ID_MAX);
	if (how == POSIXTRACE_SET_EVENTSET)
		bitmap_copy(stream->filter, set, POSIXTRACE_EVENT_ID_MAX);
	else if (how == POSIXTRACE_ADD_EVENTSET)
		bitmap_or(stream->filter, stream->filter, set,
			  POSIXTRACE_EVENT_ID_MAX);
	else
		bitmap_andnot(stream->filter, stream->filter, set,
			      POSIXTRACE_EVENT_ID_MAX);
	if (posixtrace_stream_running(stream)) {
		bitmap_to_arr64(data[1].bits, stream->filter,
				POSIXTRACE_EVENT_ID_MAX);
		ktime_get_real_ts64(&ts);
		stored = posixtrace_stream_store_system(stream,
							POSIXTRACE_EVENT_FILTER,
							current, &ts, data,
							sizeof(data));
		/* Or it did not fit and stopped the stream: wake for the STOP. */
		stored |= posixtrace_stream_stopped_full(stream);
	}
	spin_unlock(&stream->lock);
	posixtrace_stream_change_end(stream);
	if (stored)
		posixtrace_stream_wake(stream);
	/* Before returning: producers must see the new filter at once. */
	posixtrace_links_update(stream);
	mutex_unlock(&stream->ctl_lock);
	return 0;
}

/* posix_trace_get_filter(): the event types the stream does not record. */
void posixtrace_stream_get_filter(struct posixtrace_stream *stream,
				  unsigned long *set)
{
	spin_lock(&stream->lock);
	bitmap_copy(set, stream->filter, POSIXTRACE_EVENT_ID_MAX);
	spin_unlock(&stream->lock);
}

/*
 * Recording ends, its lock held: as if by posix_trace_stop() at @ts, the
 * log shows where tracing ended.
 */
static void posixtrace_stream_end(struct posixtrace_stream *stream,
				  const struct timespec64 *ts)
{
	if (stream->log && posixtrace_stream_running(stream))
		posixtrace_stream_store_stop(stream, NULL, ts, 0);
	posixtrace_stream_set_state(stream, POSIXTRACE_STREAM_STOPPED);
}

/*
 * The second half of a kill after a creator's death: what its threads
 * wrote before the death is drained (by the caller) and stored by now;
 * recording ends at the death, and the stream leaves its processes.
 */
static void posixtrace_stream_kill_finish(struct posixtrace_stream *stream)
{
	struct timespec64 ts;
	bool finish;

	spin_lock(&stream->lock);
	finish = stream->doom_ns;
	if (finish) {
		/* Not before what the log already holds (a flush's markers). */
		ts = ns_to_timespec64(stream->doom_ns);
		if (timespec64_compare(&ts, &stream->last_ts) < 0)
			ts = stream->last_ts;
		posixtrace_stream_end(stream, &ts);
		stream->doom_ns = 0;
	}
	spin_unlock(&stream->lock);
	if (finish) {
		posixtrace_links_drop_stream(stream);
		wake_up_all(&stream->wq);
	}
}

/*
 * The part of shutdown that must happen at once: the stream stops
 * recording, leaves its processes, wakes its readers (EINVAL) and gives
 * back its TRACE_SYS_MAX slot. Every path that reads or commands checks
 * shut_down under the stream's lock, and so does every path that records,
 * but for the exception below.
 *
 * After a creator's exit or exec (!@drain) nothing is drained: the exit
 * would wait for a drain that grows with what every ring holds.
 * The stream is shut down for everyone at once, but keeps its links and
 * notes the time of the death (@doom_ns, from @died_ns): records of thread rings stamped
 * up to then still go in, judged by the state the stream had, when a
 * shutdown (the reap work's, or the last close's) drains and finishes the
 * kill (posixtrace_stream_kill_finish()); system-call events and records
 * stamped after are ignored. A thread that stamps a record it writes
 * after the death with an earlier time (the module keeps each record's
 * time between its ring's last and now) only misdates its own event.
 */
static void posixtrace_stream_kill(struct posixtrace_stream *stream,
				   bool drain)
{
	struct timespec64 ts;
	bool keep_slot;

	/*
	 * Its creator is dead (a close in its exit may come here before the
	 * task work does): recording ends at the death, not now.
	 */
	if (drain && READ_ONCE(stream->died_ns))
		posixtrace_stream_kill(stream, false);
	/* What the threads made before goes in first. */
	if (drain) {
		posixtrace_stream_change_begin(stream);
		posixtrace_drain(stream->domain);
	}
	spin_lock(&stream->lock);
	if (stream->shut_down) {
		bool doomed = stream->doom_ns;

		spin_unlock(&stream->lock);
		if (drain) {
			/*
			 * Our drain may have begun before the death: one
			 * that begins after it takes all that came before.
			 */
			if (doomed)
				posixtrace_drain(stream->domain);
			posixtrace_stream_change_end(stream);
			posixtrace_stream_kill_finish(stream);
		}
		return;
	}
	ktime_get_real_ts64(&ts);
	if (drain)
		posixtrace_stream_end(stream, &ts);
	else
		stream->doom_ns = READ_ONCE(stream->died_ns) ?:
				  timespec64_to_ns(&ts);
	WRITE_ONCE(stream->shut_down, true);
	/*
	 * A batch buffer mapped, or being mapped, still holds its pages:
	 * the last mapping to go gives the slot back (stream_read.c), so
	 * that memory kept past shutdown counts against the limit. (A
	 * mapping holds the file too; a descriptor alone holds no slot.)
	 */
	keep_slot = !stream->log && (stream->mappers || stream->vmas);
	stream->slot_held = keep_slot;
	posixtrace_stream_news(stream, POSIXTRACE_NL_EV_SHUTDOWN);
	spin_unlock(&stream->lock);
	if (drain) {
		posixtrace_stream_change_end(stream);
		posixtrace_links_drop_stream(stream);
	}
	wake_up_all(&stream->wq);
	/*
	 * A stream with a log keeps its TRACE_SYS_MAX slot until the log is
	 * closed: a final flush stuck on a pipe still holds its memory. One
	 * mapped keeps it until it is unmapped (above).
	 */
	if (!stream->log && !keep_slot)
		posixtrace_stream_slot_put(stream->quota_user);
}

/**
 * posixtrace_stream_shutdown - stop for good and free the event storage
 * @stream: the stream
 * @wait: with a log, wait (killably) until it is flushed and closed
 *
 * Readers blocked on it return EINVAL; every later command is EINVAL. The
 * stream itself is freed when its file goes. Idempotent.
 *
 * Takes no lock a caller could hold while it waits on user space: not
 * ctl_lock (a clear or a filter change may be waiting for memory or a
 * signal), nor read_lock (a reader copying out may be waiting on a page
 * fault a user controls; the bounce buffer is then freed by that reader,
 * when it is done: posixtrace_stream_bounce_unused()). The reap work and
 * a kernel thread's last fput come here, and must never be held up by a
 * user.
 */
static void posixtrace_stream_shutdown(struct posixtrace_stream *stream,
				       bool wait)
{
	void *mem, *bounce = NULL;

	posixtrace_stream_kill(stream, true);
	posixtrace_stream_kbufs_retire(stream);
	raw_spin_lock(&posixtrace_streams_lock);
	list_del_init(&stream->all_node);
	raw_spin_unlock(&posixtrace_streams_lock);
	if (stream->log) {
		/* The log's thread frees the storage once it has written it. */
		posixtrace_flush_final(stream, wait);
		return;
	}
	/* Emitters and readers see shut_down under the lock: none uses it. */
	spin_lock(&stream->lock);
	mem = posixtrace_buf_detach(&stream->buf);
	bounce = posixtrace_stream_bounce_unused(stream);
	spin_unlock(&stream->lock);
	kvfree(mem);
	kvfree(bounce);
}

/**
 * posixtrace_stream_bounce_unused - the bounce buffer, if it may go now
 * @stream: the stream, its lock held
 *
 * A stream shut down frees its bounce buffer once no reader copies out of
 * it, no mmap() is mapping it and no mapping has it (stream_read.c): here,
 * at shutdown, or when the last of them is done. The log's thread frees a
 * log's buffer (flush.c).
 *
 * Return: the buffer, for the caller to free outside the lock, or NULL.
 */
void *posixtrace_stream_bounce_unused(struct posixtrace_stream *stream)
{
	void *bounce = NULL;

	lockdep_assert_held(&stream->lock);
	if (stream->shut_down && !stream->log && !stream->reading &&
	    !stream->mappers && !stream->vmas) {
		bounce = stream->bounce;
		stream->bounce = NULL;
	}
	return bounce;
}

/**
 * posixtrace_stream_control - start, stop, clear or shut down a stream
 * @stream: the stream
 * @cmd: which
 *
 * Serialised with each other. Producers see recording enabled before the
 * call returns. Shutdown, as POSIX says, returns once the log is flushed
 * and closed (a fatal signal cuts that wait short).
 *
 * Return: 0, -EINVAL for a stream shut down, or -ERESTARTSYS if a signal
 * came first.
 */
int posixtrace_stream_control(struct posixtrace_stream *stream,
			      enum posixtrace_stream_cmd cmd)
{
	int ret = 0;

	if (cmd == POSIXTRACE_STREAM_SHUTDOWN) {
		posixtrace_stream_shutdown(stream, true);
		return 0;
	}
	if (mutex_lock_interruptible(&stream->ctl_lock))
		return -ERESTARTSYS;
	/* Judged by the state before the call: what the threads made. */
	posixtrace_stream_change_begin(stream);
	posixtrace_drain(stream->domain);
	if (stream->shut_down)
		ret = -EINVAL;
	else if (cmd == POSIXTRACE_STREAM_START)
		posixtrace_stream_start(stream);
	else if (cmd == POSIXTRACE_STREAM_STOP)
		posixtrace_stream_stop(stream);
	else
		posixtrace_stream_clear(stream);
	posixtrace_stream_change_end(stream);
	/* Before returning: a producer must see recording enabled at once. */
	if (!ret)
		posixtrace_links_update(stream);
	mutex_unlock(&stream->ctl_lock);
	return ret;
}

/**
 * posixtrace_stream_release - the stream's descriptor is closed for good
 * @stream: the stream; the descriptor's reference is dropped
 *
 * The creator's close, or its exit (before its parent can reap it), waits
 * for the log, as posix_trace_shutdown() does. The last fput of anyone
 * else does not: a kernel thread's deferred fput (after io_uring or aio
 * held the file) would otherwise hold up every deferred close on the
 * machine, and a process the descriptor was passed to has no business
 * waiting for another's log.
 */
void posixtrace_stream_release(struct posixtrace_stream *stream)
{
	posixtrace_stream_shutdown(stream,
				   task_tgid(current) == stream->creator);
	posixtrace_stream_put(stream);
}

/*
 * May the caller use the stream? POSIX: a trid is valid only in the
 * process that created it, and until it is shut down.
 */
bool posixtrace_stream_usable(struct posixtrace_stream *stream)
{
	return task_tgid(current) == stream->creator &&
	       !READ_ONCE(stream->shut_down);
}

/* Its attributes, as created; they never change. */
const struct posixtrace_attr *
posixtrace_stream_attr(struct posixtrace_stream *stream)
{
	return &stream->attr;
}

/* The table that names its event types; fixed at its creation. */
struct posixtrace_names *
posixtrace_stream_names(struct posixtrace_stream *stream)
{
	return stream->names;
}

/**
 * posixtrace_stream_names_allowed - may the caller use @stream's names?
 * @stream: the stream
 *
 * Not if it is the process the stream was made for and its credentials
 * moved away from those of the table since (it made the stream, then
 * dropped privileges): the table goes on growing with its privileged
 * family's names. Anyone else was judged when the stream was made, as a
 * tracer of a process with the table's credentials.
 *
 * Return: 0 or -EPERM.
 */
int posixtrace_stream_names_allowed(struct posixtrace_stream *stream)
{
	if (stream->proc->tgid != task_tgid(current) ||
	    posixtrace_names_cred_ok(stream->names, current_cred()))
		return 0;
	return -EPERM;
}

/* For monitoring: never reused. */
u64 posixtrace_stream_id(struct posixtrace_stream *stream)
{
	return stream->id;
}

/* The kernel events it records: fixed at creation. */
u32 posixtrace_stream_kernel_events(const struct posixtrace_stream *stream)
{
	return stream->attr.kernel_events;
}

/* The system calls it records: read by the probes under RCU. */
const struct posixtrace_syscall_sel *
posixtrace_stream_syscalls(const struct posixtrace_stream *stream)
{
	return &stream->syscalls;
}

/**
 * posixtrace_stream_select_syscalls - SET_SYSCALLS, GET_SYSCALLS
 * @stream: the stream
 * @req: what the caller gave, its size checked; filled for a get
 * @set: set the selection, else get it
 *
 * Return: 0, -EINVAL (the stream does not record the syscall class, a
 * field unknown), or -ERESTARTSYS if a signal came first.
 */
int posixtrace_stream_select_syscalls(struct posixtrace_stream *stream,
				      struct posixtrace_syscalls *req,
				      bool set)
{
	int ret = 0;

	if (!(stream->attr.kernel_events & POSIXTRACE_KERNEL_SYSCALL))
		return -EINVAL;
	if (!set) {
		/* @flags is GET's output: a struct a GET filled may come back. */
		if (req->compat > 1 || req->__reserved)
			return -EINVAL;
		posixtrace_syscall_sel_get(&stream->syscalls, req);
		return 0;
	}
	if (mutex_lock_interruptible(&stream->ctl_lock))
		return -ERESTARTSYS;
	ret = posixtrace_syscall_sel_set(&stream->syscalls, req);
	mutex_unlock(&stream->ctl_lock);
	return ret;
}

/* Where the pids it reports are numbered: fixed at creation. */
struct pid_namespace *
posixtrace_stream_pid_ns(const struct posixtrace_stream *stream)
{
	return stream->pid_ns;
}

struct pid *posixtrace_stream_creator(struct posixtrace_stream *stream)
{
	return stream->creator;
}

/* The creator's euid: whom monitoring shows the stream to. */
kuid_t posixtrace_stream_owner(struct posixtrace_stream *stream)
{
	return stream->owner;
}

/* The log's path as it was at creation, or NULL. */
const char *posixtrace_stream_log_path(struct posixtrace_stream *stream)
{
	return stream->log_path;
}

/*
 * The status of @stream, under its lock: see posixtrace_stream_status().
 * The END block of a log reads it so too (flush.c).
 */
void __posixtrace_stream_status(struct posixtrace_stream *stream,
				struct posixtrace_status *st)
{
	lockdep_assert_held(&stream->lock);
	posixtrace_stream_count_lost_nowait(stream);
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (stream->shut_down)
		st->state = POSIXTRACE_NL_SHUT_DOWN;
	else
		st->state = posixtrace_stream_running(stream) ?
			    POSIXTRACE_RUNNING : POSIXTRACE_SUSPENDED;
	st->full_status = stream->full_status;
	st->overrun_status = stream->overrun_status;
	st->flush_status = stream->flushing ? POSIXTRACE_FLUSHING :
					      POSIXTRACE_NOT_FLUSHING;
	st->flush_error = stream->flush_error;
	st->log_overrun_status = stream->log_overrun ? POSIXTRACE_OVERRUN :
						       POSIXTRACE_NO_OVERRUN;
	st->log_full_status = stream->log_full ? POSIXTRACE_FULL :
						 POSIXTRACE_NOT_FULL;
	st->events_recorded = stream->events_recorded;
	st->events_lost = stream->events_lost;
	st->events_read = stream->events_read;
	st->bytes_used = stream->buf.used;
	st->bytes_total = stream->attr.stream_size;
	st->log_events_discarded = stream->log_discarded;
}

/**
 * posixtrace_stream_status - the status of a stream, read at once
 * @stream: the stream
 * @st: filled in; its state is POSIXTRACE_NL_SHUT_DOWN once shut down
 * @reset: posix_trace_get_status(): reset what POSIX resets when read
 *	   (the overrun statuses and the flush error)
 *
 * Return: 0, or -EINVAL to reset a stream shut down.
 */
int posixtrace_stream_status(struct posixtrace_stream *stream,
			     struct posixtrace_status *st, bool reset)
{
	int ret = 0;

	/* Full or not, counted or not: with what the threads made so far. */
	posixtrace_drain(stream->domain);
	spin_lock(&stream->lock);
	__posixtrace_stream_status(stream, st);
	if (reset && stream->shut_down) {
		ret = -EINVAL;
	} else if (reset) {
		stream->overrun_status = POSIXTRACE_NO_OVERRUN;
		stream->flush_error = 0;
		stream->log_overrun = false;
	}
	spin_unlock(&stream->lock);
	return ret;
}

/*
 * The first stream not shut down whose id is above @after, with a
 * reference, or NULL. Ids grow in the order of the list.
 */
struct posixtrace_stream *posixtrace_stream_next(u64 after)
{
	struct posixtrace_stream *stream, *found = NULL;

	raw_spin_lock(&posixtrace_streams_lock);
	list_for_each_entry(stream, &posixtrace_streams, all_node) {
		if (stream->id > after && kref_get_unless_zero(&stream->ref)) {
			found = stream;
			break;
		}
	}
	raw_spin_unlock(&posixtrace_streams_lock);
	return found;
}

/* The stream @id, not shut down, with a reference, or NULL. */
struct posixtrace_stream *posixtrace_stream_find(u64 id)
{
	struct posixtrace_stream *stream = id ? posixtrace_stream_next(id - 1) :
						NULL;

	if (stream && stream->id != id) {
		posixtrace_stream_put(stream);
		stream = NULL;
	}
	return stream;
}

/*
 * Shut down the streams whose creator exited or exec'd (process context):
 * they were killed after the death (posixtrace_stream_creator_died()); this
 * drains what came before the death and finishes them, unless a last close
 * did it first.
 */
static void posixtrace_streams_reap(struct work_struct *work)
{
	struct posixtrace_stream *stream, *found;

	do {
		found = NULL;
		raw_spin_lock(&posixtrace_streams_lock);
		list_for_each_entry(stream, &posixtrace_streams, all_node) {
			if (READ_ONCE(stream->creator_gone) &&
			    kref_get_unless_zero(&stream->ref)) {
				found = stream;
				break;
			}
		}
		raw_spin_unlock(&posixtrace_streams_lock);
		if (found) {
			/* One log stuck on a pipe must not hold up the others. */
			posixtrace_stream_shutdown(found, false);
			posixtrace_stream_put(found);
		}
	} while (found);
}

/*
 * @cb's stream lost its creator: shut it down (without a drain: see
 * posixtrace_stream_kill()), and leave the rest to the reap work. A task
 * work of the creator's last thread, queued by its exit or exec hook: it
 * runs before the parent can see the exit (do_exit() runs task works before
 * exit_notify()), or before the new image's first instruction, and with
 * preemption enabled, so that it may take the stream's lock (a sleeping
 * lock on PREEMPT_RT), wake readers and put the stream.
 */
static void posixtrace_stream_creator_died(struct callback_head *cb)
{
	struct posixtrace_stream *stream =
		container_of(cb, struct posixtrace_stream, creator_cb);

	posixtrace_stream_kill(stream, false);
	WRITE_ONCE(stream->creator_gone, true);
	schedule_work(&posixtrace_reap_work);
	posixtrace_stream_put(stream);
	/*
	 * Last: the module stays while such a work is pending. What runs
	 * after this call is the return to task_work_run().
	 */
	module_put(THIS_MODULE);
}

/**
 * posixtrace_streams_creator_gone - a thread group exited or exec'd
 * @task: its last thread (exit), or the thread that exec'd; current
 *
 * POSIX shuts its streams down as if by posix_trace_shutdown(), even if a
 * child inherited their descriptors. Called from the exit and exec hooks,
 * which run with preemption disabled: each stream notes the time of the
 * death, from which it records nothing more, and is queued as a task work
 * of @task, which shuts it down before the parent can reap the process or
 * the new image runs (posixtrace_stream_creator_died()). Taking what the
 * threads wrote before the death (a drain), the STOP of a log and freeing
 * their storage are the reap work's (posixtrace_stream_kill()).
 */
void posixtrace_streams_creator_gone(struct task_struct *task)
{
	struct pid *tgid = task_tgid(task);
	struct posixtrace_stream *stream;
	bool orphans = false;
	s64 now;

	/* Every process exit comes here: be cheap when nothing is traced. */
	if (!atomic_read(&posixtrace_nr_streams))
		return;
	now = ktime_get_real_ns();
	raw_spin_lock(&posixtrace_streams_lock);
	list_for_each_entry(stream, &posixtrace_streams, all_node) {
		if (stream->creator != tgid || stream->died_ns)
			continue;
		WRITE_ONCE(stream->died_ns, now);
		/*
		 * Listed, so its file is open: the file holds the module
		 * and a reference, and neither taken here is the last.
		 */
		posixtrace_stream_get(stream);
		if (!posixtrace_hook_work_add(task, &stream->creator_cb,
					      posixtrace_stream_creator_died))
			continue;
		/*
		 * Past its task works (the hooks come before): the reap
		 * work's shutdown does it all, soon.
		 */
		WRITE_ONCE(stream->creator_gone, true);
		posixtrace_stream_put(stream);
		orphans = true;
	}
	raw_spin_unlock(&posixtrace_streams_lock);
	if (orphans)
		schedule_work(&posixtrace_reap_work);
}

int posixtrace_streams_init(void)
{
	posixtrace_news_wq = alloc_ordered_workqueue("posixtrace_news", 0);
	return posixtrace_news_wq ? 0 : -ENOMEM;
}

/* Module exit: the hooks are gone; let a pending reap and news finish. */
void posixtrace_streams_exit(void)
{
	flush_work(&posixtrace_reap_work);
	/* Last: the reap may have had news. */
	destroy_workqueue(posixtrace_news_wq);
}
