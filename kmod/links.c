// SPDX-License-Identifier: GPL-2.0
/*
 * Which processes a stream traces: the process it was created for and,
 * with the Trace Inherit option (TRI, POSIXTRACE_INHERITED), every process
 * that one forks or spawns, and theirs, while the stream lives.
 *
 * A link joins a stream and a process it traces, and links are what
 * decides, for each process, what its producers may record (the enable
 * bits they read without a lock, and how much data to copy). Emitters walk their
 * process's links under RCU; everything else takes locks:
 *  - posixtrace_links_lock serialises every change to links: a stream's
 *    creation and shutdown, fork, exit and exec. It comes before any
 *    process's or stream's lock, and protects stream->links;
 *  - a change to proc->links is made under proc->lock too, which is what
 *    posixtrace_links_publish() holds while it walks them.
 * Order: posixtrace_links_lock, then proc->lock, then stream->lock.
 *
 * Enable bits are limited to the identifiers the process may record
 * (posixtrace_process_publish()), so they also change when a process of
 * the family opens a new name: posixtrace_links_names_grown() republishes
 * every process using the table, under the table's names->lock and
 * names->users_lock (both before proc->lock, neither taken with the links
 * lock held, nor the links lock under them). Each publication
 * recomputes everything from the streams' state and the table's count
 * under proc->lock, and both are changed before that lock is taken: of
 * a command and a new name that race, the one that publishes last sees
 * both, so a type is enabled if a stream admits it and it is valid.
 *
 * Fork: a child traced with inheritance is traced from its first
 * instruction, and shares its parent's event names (so that a name has
 * one identifier in every process of the stream): the fork hook enters the
 * child's entry and hands it a ticket, with which the child copies its
 * parent's links, as they were at the fork (links are numbered as made),
 * before it first runs (inherit.c, posixtrace_links_inherit()). If that fails, the
 * child is not traced and every stream that should have traced it records
 * POSIX_TRACE_ERROR with the errno as data, so that the loss is not
 * silent. Threads share their process's entry, and so its links.
 *
 * Exit: once the whole thread group is dead, its links go (from a worker,
 * once its threads' rings are drained: hooks.c; or after the last child
 * forked before that has copied them): it stops being traced, and its
 * slot is free. A process that later gets the same pid
 * number has another struct pid, which no link names.
 *
 * Privileged exec: the process's entry is forgotten as at exit, links and
 * names: see posixtrace_process_remove().
 *
 * Credentials that move away from those its table of names was made under
 * (setresuid(), capset()): the process gets a table of its own the next
 * time it uses names (posixtrace_links_own_names()), and the streams that
 * traced it stop, each recording POSIX_TRACE_ERROR with EPERM. A link
 * always joins a stream and a process that use one table (the stream's is
 * fixed when it is made): an identifier names one event type in a stream.
 */

#include <linux/errno.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "drain.h"
#include "links.h"
#include "names.h"
#include "process.h"
#include "ring_mem.h"
#include "stream_core.h"

static DEFINE_SPINLOCK(posixtrace_links_lock);
/*
 * Links are numbered as they are made (under the lock), so that a child
 * copies those its parent had at the fork, and none made after (inherit.c).
 */
static atomic64_t posixtrace_links_made = ATOMIC64_INIT(0);
/*
 * Bumped after each link is made, once it is on its process's list:
 * whoever read it, then found a process traced by no stream, knows that
 * answer holds until it changes (posixtrace_links_generation()).
 */
static atomic_long_t posixtrace_links_gen = ATOMIC_LONG_INIT(0);

/*
 * Recompute what @proc's producers read without the streams' locks: the
 * event types some stream tracing it may record (running, or stopped
 * because full, and not filtering the type out), of those the process may
 * make (posixtrace_process_publish() keeps those), the largest max data
 * size among those streams, and the ring size the threads should map.
 * Bits may be briefly stale while a command runs; they are never clear
 * after a command enabling recording returned, nor once the open of a
 * name returned its identifier.
 */
static void posixtrace_links_publish(struct posixtrace_process *proc)
{
	DECLARE_BITMAP(enabled, POSIXTRACE_EVENT_ID_MAX);
	DECLARE_BITMAP(admitted, POSIXTRACE_EVENT_ID_MAX);
	struct posixtrace_link *link;
	size_t max = 0, loop = 0;
	unsigned int n = 0;

	lockdep_assert_held(&proc->lock);
	bitmap_zero(enabled, POSIXTRACE_EVENT_ID_MAX);
	list_for_each_entry(link, &proc->links, proc_node) {
		max = max_t(size_t, max,
			    posixtrace_stream_data_max(link->stream));
		if (posixtrace_stream_admitted(link->stream, admitted))
			bitmap_or(enabled, enabled, admitted,
				  POSIXTRACE_EVENT_ID_MAX);
		loop = posixtrace_stream_loop_capacity(link->stream);
		n++;
	}
	/* Rings that can hold the share of the only stream, if LOOP. */
	posixtrace_process_publish(proc, enabled, max,
				   posixtrace_thread_ring_size_hint(n == 1 ?
								   loop : 0));
}

/* Under the links lock: join @stream and @proc with @link. */
static void posixtrace_link_insert(struct posixtrace_link *link,
				   struct posixtrace_stream *stream,
				   struct posixtrace_process *proc)
{
	lockdep_assert_held(&posixtrace_links_lock);
	/*
	 * A link is made when @stream is created for @proc, or when @proc
	 * inherits it at its fork from a parent linked to @stream, whose
	 * domain it took: so a stream's drains take the rings of every
	 * process it traces (drain.c).
	 */
	WARN_ON_ONCE(stream->domain != READ_ONCE(proc->domain));
	kref_get(&proc->ref);
	link->seq = atomic64_inc_return(&posixtrace_links_made);
	link->stream = stream;
	link->proc = proc;
	list_add_tail(&link->stream_node, &stream->links);
	stream->nr_links++;
	spin_lock(&proc->lock);
	list_add_tail_rcu(&link->proc_node, &proc->links);
	posixtrace_links_publish(proc);
	spin_unlock(&proc->lock);
	/* After the link: pairs with posixtrace_links_generation(). */
	atomic_long_inc_return_release(&posixtrace_links_gen);
}

/* Under the links lock: undo posixtrace_link_insert(), free @link. */
static void posixtrace_link_remove(struct posixtrace_link *link)
{
	struct posixtrace_process *proc = link->proc;

	lockdep_assert_held(&posixtrace_links_lock);
	spin_lock(&proc->lock);
	list_del_rcu(&link->proc_node);
	posixtrace_links_publish(proc);
	spin_unlock(&proc->lock);
	list_del(&link->stream_node);
	link->stream->nr_links--;
	/* Emitters may still be walking past it. */
	kfree_rcu(link, rcu);
	posixtrace_process_put(proc);
}

/**
 * posixtrace_link_new - allocate a link, for a stream about to be published
 *
 * Return: the link, or NULL.
 */
struct posixtrace_link *posixtrace_link_new(void)
{
	return kzalloc(sizeof(struct posixtrace_link), GFP_KERNEL_ACCOUNT);
}

/**
 * posixtrace_link_attach - start tracing @proc in @stream
 * @link: from posixtrace_link_new(), consumed
 * @stream: the stream
 * @proc: the process
 */
void posixtrace_link_attach(struct posixtrace_link *link,
			    struct posixtrace_stream *stream,
			    struct posixtrace_process *proc)
{
	spin_lock(&posixtrace_links_lock);
	/*
	 * Forgotten since it was looked up, or moved to another table of
	 * names since the stream took its own: nothing to trace.
	 */
	if (proc->forgotten) {
		kfree(link);
	} else if (stream->names != proc->names) {
		/* Not silently: the stream traces nothing of it. */
		posixtrace_stream_error(stream, EPERM);
		kfree(link);
	} else {
		posixtrace_link_insert(link, stream, proc);
	}
	spin_unlock(&posixtrace_links_lock);
}

/*
 * A reader of @stream is about to wait: the threads of every process it
 * traces kick at their next record (posixtrace_process_wake_producers()).
 */
void posixtrace_links_wake_producers(struct posixtrace_stream *stream)
{
	struct posixtrace_link *link;

	spin_lock(&posixtrace_links_lock);
	list_for_each_entry(link, &stream->links, stream_node)
		posixtrace_process_wake_producers(link->proc);
	spin_unlock(&posixtrace_links_lock);
}

/* The stream is shut down: it traces nothing any more. */
void posixtrace_links_drop_stream(struct posixtrace_stream *stream)
{
	struct posixtrace_link *link, *tmp;

	spin_lock(&posixtrace_links_lock);
	list_for_each_entry_safe(link, tmp, &stream->links, stream_node)
		posixtrace_link_remove(link);
	spin_unlock(&posixtrace_links_lock);
}

/**
 * posixtrace_links_hold - keep @proc's links past its forgetting
 * @proc: a process entry, in the table
 *
 * A child forked but not yet run copies them (inherit.c); its parent may
 * be forgotten first. Never sleeps, takes no lock: the fork hook holds.
 */
void posixtrace_links_hold(struct posixtrace_process *proc)
{
	atomic_inc(&proc->links_held);
}

/* Drop a hold; the last one (the table's, or a child's) unlinks @proc. */
void posixtrace_links_put(struct posixtrace_process *proc)
{
	struct posixtrace_link *link, *tmp;

	if (!atomic_dec_and_test(&proc->links_held))
		return;
	spin_lock(&posixtrace_links_lock);
	list_for_each_entry_safe(link, tmp, &proc->links, proc_node)
		posixtrace_link_remove(link);
	spin_unlock(&posixtrace_links_lock);
}

/*
 * The entry left the table: no stream traces it any more, nor will, once
 * the children still copying its links are done.
 */
void posixtrace_links_forget(struct posixtrace_process *proc)
{
	spin_lock(&posixtrace_links_lock);
	proc->forgotten = true;
	spin_unlock(&posixtrace_links_lock);
	posixtrace_links_put(proc);
}

/* Is @proc traced by any stream? Under rcu_read_lock(). */
bool posixtrace_links_traced(struct posixtrace_process *proc)
{
	return !list_empty(&proc->links);
}

/* Hand @n events of @proc to every stream tracing it; under RCU. */
void posixtrace_links_emit(struct posixtrace_process *proc,
			   const struct posixtrace_emit *emits, unsigned int n)
{
	struct posixtrace_link *link;

	list_for_each_entry_rcu(link, &proc->links, proc_node)
		posixtrace_stream_emit(link->stream, emits, n);
}

/*
 * Put @emit, made by system call by a thread without a ring, into the
 * kbufs of every stream tracing @proc; under RCU. Returns true if one of
 * them wants a drain now; those whose kbuf was full go to @retry
 * (posixtrace_stream_post()).
 */
bool posixtrace_links_post(struct posixtrace_process *proc,
			   const struct posixtrace_emit *emit,
			   struct posixtrace_post_retry *retry)
{
	struct posixtrace_link *link;
	bool drain = false;

	list_for_each_entry_rcu(link, &proc->links, proc_node)
		drain |= posixtrace_stream_post(link->stream, emit, retry);
	return drain;
}

/*
 * @emit, made by system call, for every stream tracing @proc, without
 * waiting: into their kbufs if @keep (a realtime thread, drain.h, that
 * writes no ring), else lost, counted (a realtime thread's behind its
 * ring, or an event whose data could not be had); under RCU.
 */
void posixtrace_links_nowait(struct posixtrace_process *proc,
			     const struct posixtrace_emit *emit, bool keep)
{
	struct posixtrace_link *link;

	list_for_each_entry_rcu(link, &proc->links, proc_node) {
		if (keep)
			posixtrace_stream_post_nowait(link->stream, emit);
		else
			posixtrace_stream_lose_nowait(link->stream, emit);
	}
}

/**
 * posixtrace_links_only_stream - the stream tracing @proc, if only one does
 * @proc: a traced process
 *
 * Under RCU (a stream is freed after a grace period once unlinked).
 *
 * Return: the stream, or NULL if none or several trace @proc.
 */
struct posixtrace_stream *
posixtrace_links_only_stream(struct posixtrace_process *proc)
{
	struct posixtrace_link *first, *next;

	first = list_first_or_null_rcu(&proc->links, struct posixtrace_link,
				       proc_node);
	if (!first)
		return NULL;
	next = list_next_or_null_rcu(&proc->links, &first->proc_node,
				     struct posixtrace_link, proc_node);
	return next ? NULL : first->stream;
}

/* Recompute the enable bits of every process @stream traces. */
void posixtrace_links_update(struct posixtrace_stream *stream)
{
	struct posixtrace_link *link;

	spin_lock(&posixtrace_links_lock);
	list_for_each_entry(link, &stream->links, stream_node) {
		spin_lock(&link->proc->lock);
		posixtrace_links_publish(link->proc);
		spin_unlock(&link->proc->lock);
	}
	spin_unlock(&posixtrace_links_lock);
}

/**
 * posixtrace_links_names_grown - a table of names got a new name
 * @names: the table, its lock held (posixtrace_names_open()'s @grown)
 *
 * Republishes the enable bits of every process using the table before
 * the name's identifier is handed out, so that any of them may record an
 * event of it at once. The work is one publication per process of the
 * family, for each of at most POSIXTRACE_USER_EVENT_MAX names.
 */
void posixtrace_links_names_grown(struct posixtrace_names *names)
{
	struct posixtrace_process *proc;

	lockdep_assert_held(&names->lock);
	spin_lock(&names->users_lock);
	list_for_each_entry(proc, &names->users, names_user.node) {
		spin_lock(&proc->lock);
		posixtrace_links_publish(proc);
		spin_unlock(&proc->lock);
	}
	spin_unlock(&names->users_lock);
}

/**
 * posixtrace_links_pids - the first processes a stream traces
 * @stream: the stream
 * @pids: where to store a reference on the pid of each
 * @max: how many @pids has room for
 * @count: how many processes the stream traces in all
 *
 * Return: how many were stored. The caller puts the references.
 */
unsigned int posixtrace_links_pids(struct posixtrace_stream *stream,
				   struct pid **pids, unsigned int max,
				   unsigned int *count)
{
	struct posixtrace_link *link;
	unsigned int n = 0;

	spin_lock(&posixtrace_links_lock);
	list_for_each_entry(link, &stream->links, stream_node) {
		if (n == max)
			break;
		pids[n++] = get_pid(link->proc->tgid);
	}
	*count = stream->nr_links;
	spin_unlock(&posixtrace_links_lock);
	return n;
}

/**
 * posixtrace_links_seq - how many links were made so far
 *
 * A child forked now inherits the links of its parent numbered up to this.
 * Never sleeps, takes no lock.
 */
u64 posixtrace_links_seq(void)
{
	return atomic64_read(&posixtrace_links_made);
}

/**
 * posixtrace_links_generation - changes whenever a link is made
 *
 * Read before looking a process's links up: if it still reads the same
 * afterwards, no link was made since, and a process found traced by no
 * stream then is traced by none now (links only go away meanwhile).
 * Never sleeps, takes no lock.
 *
 * Return: the generation.
 */
unsigned long posixtrace_links_generation(void)
{
	/*
	 * Before the lookup that follows: pairs with the link's insert.
	 * A long: a fork-heavy inheriting workload makes a link a fork,
	 * and a 32-bit count could come round to an old value in hours.
	 */
	return atomic_long_read_acquire(&posixtrace_links_gen);
}

/* Does @link's stream trace the children of its process too? */
static bool posixtrace_link_inherits(const struct posixtrace_link *link)
{
	/* Shut down, or its creator died: it follows no one now. */
	return link->stream->attr.inheritance == POSIXTRACE_INHERITED &&
	       !READ_ONCE(link->stream->shut_down) &&
	       !READ_ONCE(link->stream->died_ns);
}

/**
 * posixtrace_links_inherited - is @proc traced by a stream with inheritance?
 * @proc: a process entry
 *
 * Under rcu_read_lock(). Never sleeps, takes no lock: the fork hook asks.
 */
bool posixtrace_links_inherited(struct posixtrace_process *proc)
{
	struct posixtrace_link *link;

	list_for_each_entry_rcu(link, &proc->links, proc_node)
		if (posixtrace_link_inherits(link))
			return true;
	return false;
}

/* Does @link trace the children @proc forked at @seq? */
static bool posixtrace_link_inherited_at(const struct posixtrace_link *link,
					 u64 seq)
{
	return link->seq <= seq && posixtrace_link_inherits(link);
}

/**
 * posixtrace_links_own_names - no family's names for a process that
 *	dropped privileges
 * @proc: its entry
 * @cred: its credentials now (current_cred(), or its leader's when another
 *	process makes a stream for it)
 *
 * A module is not told when a process changes its credentials, so this is
 * asked by whatever is about to use @proc's table on its behalf: the open
 * of a name of its own, the mapping of its enable page, a stream made for
 * it. If @cred no longer match those the table was made under
 * (posixtrace_names_cred_ok()), the entry gets a new, empty table, made
 * under @cred, and the streams that traced it stop: each names events with
 * the table the entry left (a stream's table is fixed), which the
 * process's next names would contradict, and each records
 * POSIX_TRACE_ERROR with EPERM, so that the loss is not silent. Its
 * descendants forked from then on share the new table. Its enable page,
 * its rings and its pid stay: a stream made for it now traces it with the
 * new table. Cheap when nothing changed: a pointer compared. Sleeps.
 *
 * Return: 0, -ENOMEM, or -ESRCH if the entry has left the process table.
 */
int posixtrace_links_own_names(struct posixtrace_process *proc,
			       const struct cred *cred)
{
	struct posixtrace_names *old, *names;
	struct posixtrace_link *link, *tmp;
	int ret = 0;

	if (posixtrace_names_cred_ok(posixtrace_process_names(proc), cred))
		return 0;
	names = posixtrace_names_new(cred);
	if (!names)
		return -ENOMEM;
	/*
	 * What its threads recorded so far goes to the streams that traced
	 * it, judged by the table it was recorded with, before they stop:
	 * the links are dropped below without a drain of their own. (What
	 * another of its threads records meanwhile, with the family's ids,
	 * is its own to misname: it could record any id of its table.)
	 */
	posixtrace_drain(READ_ONCE(proc->domain));
	mutex_lock(&proc->names_mutex);
	old = proc->names;
	/* Another thread moved it first. */
	if (posixtrace_names_cred_ok(old, cred))
		goto out_put;
	if (!posixtrace_names_move(old, names, &proc->names_user)) {
		ret = -ESRCH;
		goto out_put;
	}
	spin_lock(&posixtrace_links_lock);
	posixtrace_process_set_names(proc, names);
	list_for_each_entry_safe(link, tmp, &proc->links, proc_node) {
		posixtrace_stream_error(link->stream, EPERM);
		posixtrace_link_remove(link);
	}
	/* No names any more: none of the family's is recordable here. */
	spin_lock(&proc->lock);
	posixtrace_links_publish(proc);
	spin_unlock(&proc->lock);
	spin_unlock(&posixtrace_links_lock);
	mutex_unlock(&proc->names_mutex);
	return 0;

out_put:
	mutex_unlock(&proc->names_mutex);
	posixtrace_names_put(names);
	return ret;
}

/**
 * posixtrace_links_escaped - children of @proc could not be followed
 * @proc: the parent's entry; its links held
 * @nr: how many
 * @seq: posixtrace_links_seq() at (the last of) their forks
 * @err: why (an errno)
 *
 * Every stream that traced @proc and its children then, and still
 * records, records POSIX_TRACE_ERROR with @err as data, @nr times, so that
 * the loss is not silent.
 */
void posixtrace_links_escaped(struct posixtrace_process *proc,
			      unsigned int nr, u64 seq, int err)
{
	struct posixtrace_link *link;
	unsigned int i;

	spin_lock(&posixtrace_links_lock);
	list_for_each_entry(link, &proc->links, proc_node) {
		if (!posixtrace_link_inherited_at(link, seq))
			continue;
		for (i = 0; i < nr; i++)
			posixtrace_stream_error(link->stream, err);
	}
	spin_unlock(&posixtrace_links_lock);
}

/**
 * posixtrace_links_inherit - trace a child as its parent was at the fork
 * @from: the parent's entry; its links held (posixtrace_links_hold())
 * @proc: the child's entry (posixtrace_process_fork())
 * @seq: posixtrace_links_seq() at the fork
 *
 * Called by the child, before its first instruction (inherit.c): it gets
 * a link to every stream with inheritance that traced @from at the fork
 * and still records. Those it cannot get for want of memory record
 * POSIX_TRACE_ERROR with ENOMEM as data: the child escapes them, and says
 * so. A child whose entry left the table already (it is exiting) gets
 * none.
 */
void posixtrace_links_inherit(struct posixtrace_process *from,
			      struct posixtrace_process *proc, u64 seq)
{
	struct posixtrace_link *link, *new, *tmp;
	unsigned int n, made;
	LIST_HEAD(spare);

	/* Links only go from @from (and no more come at or below @seq). */
	spin_lock(&posixtrace_links_lock);
	n = 0;
	list_for_each_entry(link, &from->links, proc_node)
		n += posixtrace_link_inherited_at(link, seq);
	spin_unlock(&posixtrace_links_lock);
	for (made = 0; made < n; made++) {
		new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			break;
		list_add(&new->proc_node, &spare);
	}

	spin_lock(&posixtrace_links_lock);
	list_for_each_entry(link, &from->links, proc_node) {
		if (proc->forgotten)
			break;
		if (!posixtrace_link_inherited_at(link, seq))
			continue;
		/* @from moved to names of its own after the fork. */
		if (link->stream->names != proc->names) {
			posixtrace_stream_error(link->stream, EPERM);
			continue;
		}
		new = list_first_entry_or_null(&spare, struct posixtrace_link,
					       proc_node);
		if (!new) {
			posixtrace_stream_error(link->stream, ENOMEM);
			continue;
		}
		list_del(&new->proc_node);
		posixtrace_link_insert(new, link->stream, proc);
	}
	/* Published even without links: names may have come since. */
	spin_lock(&proc->lock);
	posixtrace_links_publish(proc);
	spin_unlock(&proc->lock);
	spin_unlock(&posixtrace_links_lock);
	list_for_each_entry_safe(new, tmp, &spare, proc_node)
		kfree(new);
}
