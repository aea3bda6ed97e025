/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_DRAIN_DOMAIN_H
#define _POSIXTRACE_DRAIN_DOMAIN_H

#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "drain.h"
#include "stream.h"

struct posixtrace_source;
struct posixtrace_process;

/* The records a drain hands on at once (below). */
#define POSIXTRACE_DRAIN_BATCH	32

/*
 * A drain (drain.c) takes a drain domain at once: the rings and kbufs of
 * its domain, merged by time. Records of a ring go to every stream tracing
 * its process, so a domain holds whatever feeds a stream that gets records
 * from one of its sources: a process entry's domain is set once (the first
 * ring, stream or link that needs it; a child that inherits links takes
 * its parent's in the fork hook), a stream's is its target's, and every
 * link joins a stream and a process of one domain (links.c). A drain then
 * never walks a ring of another domain: one user's idle rings cost another
 * user's drains nothing.
 */
struct posixtrace_drain_domain {
	refcount_t ref;
	struct list_head node;		/* on drain_domain.c's list */
	bool exiting;			/* module exit: seen by its walk */
	struct rcu_head rcu;
	/*
	 * One drain at a time. The lists change only under it (and @lock,
	 * for the kicks), so that a drain holding it keeps its place in
	 * them, and its heap's entries, across its holds of @lock.
	 */
	struct mutex mutex;
	/* A drain's hold: at most a budget of records and visits (below). */
	spinlock_t lock;
	/* Its sources (drain.h), listed by their @node: RCU. */
	struct list_head rings;		/* thread rings (thread_ring.c) */
	struct list_head staged;	/* the streams' kbufs (kbuf.c) */
	/* Listed rings and kbufs, and the heap's room; under @mutex. */
	unsigned int nr_sources;
	/*
	 * A drain's min-heap of the sources (rings, kbufs) with a record to
	 * take, by time: room for every one listed. The merge so costs
	 * log(sources) per record, not sources. Swapped under @mutex alone.
	 */
	struct posixtrace_source **heap;
	unsigned int heap_size;
	/* Written under @mutex; read by closes without it. */
	u64 gen;
	/*
	 * A drain is under way: in a hold of @lock, or between two (it holds
	 * @mutex, and may let go of @lock): kicks do not drop
	 * (posixtrace_thread_ring_drop()). Written under @lock; read without
	 * it by posixtrace_drain_busy(), a hint.
	 */
	bool open;
	/*
	 * The sources a reader (or a worker's drop) cut, from its cut to
	 * the end of its turn (posixtrace_drain_cut(), which holds @mutex all
	 * along), linked by their @cut_next; else NULL. Kicks do not drop meanwhile. Written
	 * under @lock; read without it by posixtrace_drain_busy().
	 */
	struct posixtrace_source *cut_list;
	/* The sources a hold took records of, to store their positions. */
	struct posixtrace_source *touched;
	/*
	 * The records a drain has taken and not yet handed on: runs of one
	 * process's records (from rings) go to its streams together, and
	 * runs of one stream's (from its kbufs) to it, each stream's lock
	 * taken once a run, not once a record. Under @lock.
	 */
	struct posixtrace_process *batch_proc;
	struct posixtrace_stream *batch_stream;
	unsigned int batch_len;
	struct posixtrace_emit batch[POSIXTRACE_DRAIN_BATCH];
	/* The kicks' and the exits' drain, and the timer's; a reference each. */
	struct work_struct drain_work;
	struct delayed_work tick_work;
	/* The probes' way to drain_work (posixtrace_drain_deferred()). */
	struct irq_work drain_irq_work;
	unsigned int ticks_skipped;	/* the tick's alone */
};

/* A source's drain callbacks run under its domain's drain lock. */
static inline void
posixtrace_source_assert_held(const struct posixtrace_source *src)
{
	lockdep_assert_held(&src->domain->lock);
}

/*
 * A domain's lifetime (drain_domain.c), a leaf: its owners (process
 * entries, streams, their kbufs) take and drop references without
 * reaching the drain (drain.c, which makes domains and drains them).
 */
void posixtrace_drain_domain_add(struct posixtrace_drain_domain *dom);
void posixtrace_drain_domain_get(struct posixtrace_drain_domain *dom);
void posixtrace_drain_domain_put(struct posixtrace_drain_domain *dom);
struct posixtrace_drain_domain *posixtrace_drain_domain_next_exiting(void);
void posixtrace_drain_domains_exit(void);

#endif /* _POSIXTRACE_DRAIN_DOMAIN_H */
