/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_PROCESS_H
#define _POSIXTRACE_PROCESS_H

#include <linux/bitmap.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/posixtrace.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "names.h"

struct page;
struct posixtrace_drain_domain;

/*
 * A process (thread group) that is traced, or that opened event names: its
 * event names, the streams tracing it, and what its producers read without
 * a lock (the enable page, the largest data size a stream keeps).
 *
 * References: one while it is in the process table (dropped by hooks.c's
 * worker after the process exits or execs a privileged image, once its
 * rings are drained and its links gone), one per stream tracing it
 * (its link) and one by the stream that was created for it, those of
 * inherit.c (a fork ticket's, on the parent and on the child, until the
 * child's task work has run; the escape worker's list), and short-lived
 * ones taken by lookups. Freed after an RCU grace period, since emitters
 * walk @links under rcu_read_lock().
 */
struct posixtrace_process {
	struct hlist_node node;		/* in the process table */
	struct pid *tgid;		/* reference held */
	struct kref ref;
	struct rcu_head rcu;

	/*
	 * @links and @forgotten belong to links.c: the streams tracing the
	 * process (struct posixtrace_link), changed under the links lock and
	 * @lock, read under @lock or RCU; @forgotten (under the links lock)
	 * says the entry left the table: link it no more.
	 */
	spinlock_t lock;
	struct list_head links;
	bool forgotten;
	/*
	 * links.c's: what keeps @links once the entry is forgotten: one for
	 * the table, one for each child still to copy them (inherit.c).
	 */
	atomic_t links_held;
	/*
	 * What the streams tracing it record, as links.c last published it
	 * (posixtrace_process_publish()), under @lock: the event types some
	 * stream may record and the process may make (those of its names,
	 * and the unnamed type), and the largest max_data_size among those
	 * streams, which is what emitters copy (read without the lock).
	 */
	DECLARE_BITMAP(enabled, POSIXTRACE_EVENT_ID_MAX);
	size_t max_data_size;
	u32 ring_size_hint;		/* the enable page's ring_size */
	/*
	 * The enable page the process maps read-only (see the uapi header),
	 * allocated when first mapped; written under @lock. A reference on
	 * @enable_page is held here, and one by each mapping.
	 */
	struct page *enable_page;
	struct posixtrace_enable_page *enable;

	/*
	 * Its table of names, reference held: its family's, until its
	 * credentials move away from those the table was made under, when
	 * it gets one of its own (links.c's posixtrace_links_own_names()).
	 * Changed under @names_mutex, the links lock and @lock; read under
	 * any of them, or with READ_ONCE() (posixtrace_process_names()): a
	 * table it left lives as long as the entry (names.h's @prev).
	 */
	struct posixtrace_names *names;
	/*
	 * On @names->users from just before the entry enters the process
	 * table (a forked child's: before the child first runs) until just
	 * after it left, so that a name opened by any process of the family
	 * is published here too.
	 */
	struct posixtrace_names_user names_user;
	struct mutex names_mutex;	/* joining, leaving, moving: @names */

	/*
	 * The rings of its threads (thread_ring.c owns them): added and
	 * removed under @lock, walked under RCU.
	 */
	struct list_head rings;
	/*
	 * The drain domain of its rings and of the streams tracing it
	 * (drain.c), with a reference; NULL until one is needed. Set
	 * once: by posixtrace_process_domain(), or to its parent's when it
	 * is a child that inherits links (posixtrace_process_fork()).
	 */
	struct posixtrace_drain_domain *domain;

	/*
	 * hooks.c's, once the entry has left the table: what its leaving
	 * leaves to a worker (a drain of its rings, then its links go),
	 * holding the table's reference until it has run.
	 */
	struct work_struct gone_work;
	/*
	 * hooks.c's too: the group has begun to exit, and a worker waits
	 * for its last threads to pass the exit probe before it leaves
	 * the table (once: @exit_queued).
	 */
	struct work_struct exit_work;
	atomic_t exit_queued;

	/*
	 * inherit.c's: the children that found the pool of fork tickets
	 * empty, whose streams a worker tells so (the entry is on its list,
	 * with a reference, meanwhile); the latest posixtrace_links_seq()
	 * among their forks.
	 */
	struct list_head escape_node;
	atomic_t fork_escapes;
	atomic64_t escape_seq;

	/* kevents.c's: the process's exit was recorded (by one thread). */
	atomic_t exit_recorded;
};

struct posixtrace_process *posixtrace_process_lookup(struct pid *tgid);
struct posixtrace_process *posixtrace_process_find(struct pid *tgid);
void posixtrace_process_wake_producers(struct posixtrace_process *proc);
struct posixtrace_process *posixtrace_process_get(struct pid *tgid,
						  bool create);
struct posixtrace_process *posixtrace_process_blank(void);
struct posixtrace_process *
posixtrace_process_fork(struct posixtrace_process *parent, struct pid *tgid,
			struct posixtrace_process *blank);
void posixtrace_process_join_names(struct posixtrace_process *proc);
void posixtrace_process_hold(struct posixtrace_process *proc);
void posixtrace_process_put(struct posixtrace_process *proc);
struct posixtrace_process *posixtrace_process_remove(struct pid *tgid);
void posixtrace_process_removed(struct posixtrace_process *proc);
void posixtrace_process_exit_all(void);

struct posixtrace_names *
posixtrace_process_names(struct posixtrace_process *proc);
void posixtrace_process_set_names(struct posixtrace_process *proc,
				  struct posixtrace_names *names);
bool posixtrace_process_event_valid(struct posixtrace_process *proc, u32 id);
size_t posixtrace_process_data_max(struct posixtrace_process *proc);
void posixtrace_process_publish(struct posixtrace_process *proc,
				const unsigned long *enabled, size_t data_max,
				u32 ring_size);
struct page *posixtrace_process_enable_page(struct posixtrace_process *proc);

#endif /* _POSIXTRACE_PROCESS_H */
