/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_PROC_H
#define _POSIXTRACE_PROC_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/posixtrace.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

/*
 * User event names and their identifiers. A process has its own, unless it
 * was forked by a process traced with inheritance (TRI): the family then
 * shares one table, so that a name has the same identifier in every
 * process a stream traces, as POSIX requires.
 *
 * @lock serialises registration. @nr only grows and is published with
 * release semantics after the name it counts, so that emitters may check
 * an identifier against it without the lock; the array itself moves, and
 * is read under @lock.
 */
struct posixtrace_names {
	struct kref ref;
	struct mutex lock;		/* see above */
	unsigned int nr;
	char **names;
};

/*
 * A process (thread group) that is traced, or that opened event names: its
 * user event names and the streams tracing it.
 *
 * References: one while it is in the process table (dropped when the
 * process exits), one per stream tracing it (its link) and one by the
 * stream that was created for it, and short-lived ones taken by lookups.
 * Freed after an RCU grace period, since emitters walk @links under
 * rcu_read_lock().
 */
struct posixtrace_proc {
	struct hlist_node node;		/* in the process table */
	struct pid *tgid;		/* reference held */
	struct kref ref;
	struct rcu_head rcu;

	/*
	 * @links: the streams tracing the process (struct posixtrace_link,
	 * family.c). Changed under the links lock and @lock; read under
	 * @lock or RCU.
	 */
	spinlock_t lock;
	struct list_head links;
	bool forgotten;			/* under the links lock: link no more */
	/* The largest max_data_size of those streams: what emitters copy. */
	size_t max_data_size;
	/*
	 * The enable page the process maps read-only (see the uapi header),
	 * allocated when first mapped; written under @lock. A reference on
	 * @enable_page is held here, and one by each mapping.
	 */
	struct page *enable_page;
	struct posixtrace_enable_page *enable;

	struct posixtrace_names *names;	/* reference held */
};

struct posixtrace_proc *posixtrace_proc_lookup(struct pid *tgid);
struct posixtrace_proc *posixtrace_proc_get(struct pid *tgid, bool create);
struct posixtrace_proc *posixtrace_proc_fork(struct posixtrace_proc *parent,
					     struct pid *tgid);
void posixtrace_proc_put(struct posixtrace_proc *proc);
void posixtrace_proc_forget(struct pid *tgid);
void posixtrace_proc_exit_all(void);

int posixtrace_proc_eventid_open(struct posixtrace_proc *proc,
				 const char *name, u32 *id);
bool posixtrace_proc_event_valid(struct posixtrace_proc *proc, u32 id);
int posixtrace_event_name(struct posixtrace_proc *proc, u32 id,
			  char name[POSIXTRACE_EVENT_NAME_MAX + 1]);
bool posixtrace_event_next(struct posixtrace_proc *proc, u32 from, u32 *id);
void posixtrace_proc_update(struct posixtrace_proc *proc);
void posixtrace_proc_update_locked(struct posixtrace_proc *proc);
struct page *posixtrace_proc_enable_page(struct posixtrace_proc *proc);
long posixtrace_ioctl_eventid_open(struct posixtrace_proc *proc,
				   struct posixtrace_eventid __user *ueid);

#endif /* _POSIXTRACE_PROC_H */
