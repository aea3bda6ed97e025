// SPDX-License-Identifier: GPL-2.0
/*
 * The process table: traced processes, and those that opened event names.
 *
 * The table maps a thread group's struct pid (never a number: pids are
 * reused) to its struct posixtrace_process. Lookups are RCU; insertions and
 * removals take posixtrace_process_table_lock, a raw lock: the exit and exec
 * hooks run with preemption disabled, where PREEMPT_RT's spinlocks would
 * sleep; it is held for a hash operation and no more. An entry leaves the table when
 * its process exits or execs a privileged image (posixtrace_process_forget()),
 * and lives on while streams still refer to it, so that events already
 * recorded keep their names.
 */

#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "drain_domain.h"
#include "names.h"
#include "process.h"

#define POSIXTRACE_PROC_HASH_BITS 8

static DEFINE_HASHTABLE(posixtrace_process_table, POSIXTRACE_PROC_HASH_BITS);
static DEFINE_RAW_SPINLOCK(posixtrace_process_table_lock);
/* Entries in the table, so that the exit hook can skip the lock. */
static atomic_t posixtrace_nr_procs = ATOMIC_INIT(0);

/*
 * The entry of @tgid, or NULL; under rcu_read_lock() (or the table lock),
 * and valid only until it is released.
 */
struct posixtrace_process *posixtrace_process_lookup(struct pid *tgid)
{
	struct posixtrace_process *proc;

	hash_for_each_possible_rcu(posixtrace_process_table, proc, node,
				   hash_ptr(tgid, POSIXTRACE_PROC_HASH_BITS))
		if (proc->tgid == tgid)
			return proc;
	return NULL;
}

static struct posixtrace_process *
posixtrace_process_insert(struct posixtrace_process *new);

/* An entry of no process yet, with one reference; @gfp: whose it is. */
static struct posixtrace_process *posixtrace_process_new(gfp_t gfp)
{
	struct posixtrace_process *proc;

	proc = kzalloc(sizeof(*proc), gfp);
	if (!proc)
		return NULL;
	kref_init(&proc->ref);
	spin_lock_init(&proc->lock);
	INIT_LIST_HEAD(&proc->links);
	atomic_set(&proc->links_held, 1);
	INIT_LIST_HEAD(&proc->rings);
	INIT_LIST_HEAD(&proc->names_user.node);
	mutex_init(&proc->names_mutex);
	INIT_LIST_HEAD(&proc->escape_node);
	return proc;
}

/**
 * posixtrace_process_blank - an entry for a child to come
 *
 * Made ahead, in process context, for the fork hook, which allocates
 * nothing (posixtrace_process_fork()); put it if unused. The module's (a
 * pool of fork tickets holds it): nobody's memory cgroup.
 *
 * Return: the entry, or NULL.
 */
struct posixtrace_process *posixtrace_process_blank(void)
{
	return posixtrace_process_new(GFP_KERNEL);
}

/*
 * The entry of @tgid, with a new table of names, for it to enter. The
 * table is made under the process's credentials, not its tracer's: they
 * are what a later change is measured against.
 */
static struct posixtrace_process *posixtrace_process_alloc(struct pid *tgid)
{
	struct posixtrace_process *proc;
	struct task_struct *task;
	const struct cred *cred;

	proc = posixtrace_process_new(GFP_KERNEL_ACCOUNT);
	if (!proc)
		return NULL;
	rcu_read_lock();
	task = pid_task(tgid, PIDTYPE_TGID);
	cred = task ? get_task_cred(task) : get_current_cred();
	rcu_read_unlock();
	proc->names = posixtrace_names_new(cred);
	put_cred(cred);
	if (!proc->names) {
		kfree(proc);
		return NULL;
	}
	proc->tgid = get_pid(tgid);
	return proc;
}

static void posixtrace_process_free_rcu(struct rcu_head *rcu)
{
	struct posixtrace_process *proc =
		container_of(rcu, struct posixtrace_process, rcu);

	if (proc->names)	/* else a blank, never used */
		posixtrace_names_put(proc->names);
	if (proc->enable_page)
		put_page(proc->enable_page);
	/* Its rings, which hold the entry, are gone; its streams hold theirs. */
	posixtrace_drain_domain_put(proc->domain);
	put_pid(proc->tgid);
	mutex_destroy(&proc->names_mutex);
	kfree(proc);
}

static void posixtrace_process_release(struct kref *ref)
{
	struct posixtrace_process *proc =
		container_of(ref, struct posixtrace_process, ref);

	/* May run in the exit hook, where nothing may sleep. */
	call_rcu(&proc->rcu, posixtrace_process_free_rcu);
}

void posixtrace_process_put(struct posixtrace_process *proc)
{
	kref_put(&proc->ref, posixtrace_process_release);
}

/* True until the last thread of the group has passed do_exit()'s count. */
static bool posixtrace_tgid_alive(struct pid *tgid)
{
	struct task_struct *task;
	bool alive = false;

	rcu_read_lock();
	task = pid_task(tgid, PIDTYPE_TGID);
	if (task && atomic_read(&task->signal->live) > 0)
		alive = true;
	rcu_read_unlock();
	return alive;
}

/**
 * posixtrace_process_get - find, or create, the entry of a thread group
 * @tgid: the thread group's pid
 * @create: create the entry if there is none
 *
 * Return: a new reference, NULL if there is no entry and @create is false,
 * or an ERR_PTR: -ESRCH for a process that is exiting, -ENOMEM.
 */
struct posixtrace_process *posixtrace_process_get(struct pid *tgid,
						  bool create)
{
	struct posixtrace_process *proc, *new;

	rcu_read_lock();
	proc = posixtrace_process_lookup(tgid);
	if (proc && !kref_get_unless_zero(&proc->ref))
		proc = NULL;
	rcu_read_unlock();
	if (proc || !create)
		return proc;

	new = posixtrace_process_alloc(tgid);
	if (!new)
		return ERR_PTR(-ENOMEM);
	return posixtrace_process_insert(new);
}

/*
 * Put @new in the table, unless its process has an entry already (which
 * is returned instead, with a new reference) or is exiting (-ESRCH); if
 * @new is returned, the table holds a reference of its own. Takes a raw
 * lock only: the fork hook calls it.
 */
static struct posixtrace_process *
posixtrace_process_table_add(struct posixtrace_process *new)
{
	struct pid *tgid = new->tgid;
	struct posixtrace_process *proc;

	/*
	 * The exit hook removes entries under the table lock after the last
	 * thread decremented signal->live, so checking liveness under the
	 * same lock means an entry is never added after its process's hook
	 * ran: it could never be removed.
	 */
	raw_spin_lock(&posixtrace_process_table_lock);
	proc = posixtrace_process_lookup(tgid);
	if (proc) {
		kref_get(&proc->ref);
		goto unlock;
	}
	/*
	 * Count the entry before looking at signal->live, and the exit hook
	 * reads the count after decrementing it (a full barrier): one of the
	 * two sees the other, so an entry is never left behind unseen.
	 */
	atomic_inc(&posixtrace_nr_procs);
	smp_mb__after_atomic();	/* pairs with the exit's atomic_dec_and_test() */
	if (!posixtrace_tgid_alive(tgid)) {
		atomic_dec(&posixtrace_nr_procs);
		proc = ERR_PTR(-ESRCH);
	} else {
		kref_get(&new->ref);	/* the table's reference */
		hash_add_rcu(posixtrace_process_table, &new->node,
			     hash_ptr(tgid, POSIXTRACE_PROC_HASH_BITS));
		proc = new;
	}
unlock:
	raw_spin_unlock(&posixtrace_process_table_lock);
	return proc;
}

/*
 * Put @new in the table, unless its process has an entry already (which
 * is returned instead) or is exiting (-ESRCH). Consumes @new's reference;
 * returns a new one.
 */
static struct posixtrace_process *
posixtrace_process_insert(struct posixtrace_process *new)
{
	struct posixtrace_process *proc;

	/*
	 * Publish names to it from now on: once it is in the table, a name
	 * opened by another process of the family must reach it. Harmless
	 * if it never gets in.
	 */
	posixtrace_names_join(new->names, &new->names_user);
	proc = posixtrace_process_table_add(new);
	if (proc != new) {
		posixtrace_names_leave(new->names, &new->names_user);
		posixtrace_process_put(new);
	}
	return proc;
}

/**
 * posixtrace_process_fork - enter a child a traced process forked
 * @parent: the parent's entry
 * @tgid: the child's pid; the child has not run yet
 * @blank: from posixtrace_process_blank(), made the child's entry
 *
 * The child shares the parent's event names (TRI), and its drain domain:
 * the streams it will inherit are in it (links.c), and their drains must
 * take the child's rings with the parent's. The parent has links, so it
 * has a domain. Called from the fork hook: takes a raw lock only, and
 * allocates nothing (a reference on the domain). The child joins the
 * names' users before it first runs (posixtrace_process_join_names()).
 *
 * Return: a new reference on the child's entry: @blank, which the table
 * holds too; or an entry someone made before (the child's pid was
 * visible), @blank then left to the caller to put; or ERR_PTR(-ESRCH).
 */
struct posixtrace_process *
posixtrace_process_fork(struct posixtrace_process *parent, struct pid *tgid,
			struct posixtrace_process *blank)
{
	struct posixtrace_drain_domain *dom;

	/* A table the parent leaves meanwhile lives as long as it. */
	blank->names = READ_ONCE(parent->names);
	posixtrace_names_get(blank->names);
	blank->tgid = get_pid(tgid);
	/*
	 * The caller saw a link of the parent's: the domain was set before
	 * that link was published (posixtrace_process_domain()'s cmpxchg,
	 * then the link's list_add_rcu()).
	 */
	smp_rmb();
	dom = READ_ONCE(parent->domain);
	if (!WARN_ON_ONCE(!dom)) {
		posixtrace_drain_domain_get(dom);
		blank->domain = dom;
	}
	return posixtrace_process_table_add(blank);
}

/* A forked child's entry joins its names' users (posixtrace_process_fork()). */
void posixtrace_process_join_names(struct posixtrace_process *proc)
{
	mutex_lock(&proc->names_mutex);
	posixtrace_names_join(proc->names, &proc->names_user);
	mutex_unlock(&proc->names_mutex);
}

/**
 * posixtrace_process_find - the entry of a thread group, with a reference
 * @tgid: its pid
 *
 * Never sleeps, takes no lock: for the hooks. Cheap when nothing is
 * traced.
 *
 * Return: the entry, for the caller to put, or NULL.
 */
struct posixtrace_process *posixtrace_process_find(struct pid *tgid)
{
	struct posixtrace_process *proc;

	if (!atomic_read(&posixtrace_nr_procs))
		return NULL;
	rcu_read_lock();
	proc = posixtrace_process_lookup(tgid);
	if (proc && !kref_get_unless_zero(&proc->ref))
		proc = NULL;
	rcu_read_unlock();
	return proc;
}

/**
 * posixtrace_process_remove - take a process's entry out of the table
 * @tgid: its pid; it exited, or exec'd a privileged image
 *
 * The process gets a new entry, with a new table of names, when it next
 * needs one; the old one lives on while streams refer to it (so events
 * already recorded keep their names). Never sleeps, and takes only a raw
 * lock: called from the exit and exec hooks. The caller then calls
 * posixtrace_process_removed(), where it may sleep.
 *
 * Return: the entry, with the table's reference, or NULL if it had none.
 */
struct posixtrace_process *posixtrace_process_remove(struct pid *tgid)
{
	struct posixtrace_process *proc;

	/* Every process exit comes here: be cheap when nothing is traced. */
	if (!atomic_read(&posixtrace_nr_procs))
		return NULL;
	raw_spin_lock(&posixtrace_process_table_lock);
	proc = posixtrace_process_lookup(tgid);
	if (proc) {
		hash_del_rcu(&proc->node);
		atomic_dec(&posixtrace_nr_procs);
	}
	raw_spin_unlock(&posixtrace_process_table_lock);
	return proc;
}

/**
 * posixtrace_process_removed - the rest of posixtrace_process_remove()
 * @proc: the entry it returned
 *
 * The entry leaves its family's list of users of names: no name opened
 * from now on is published to it. Process context; the entry stays the
 * caller's.
 */
void posixtrace_process_removed(struct posixtrace_process *proc)
{
	mutex_lock(&proc->names_mutex);
	posixtrace_names_leave(proc->names, &proc->names_user);
	mutex_unlock(&proc->names_mutex);
}

/*
 * Module exit: no stream is left, drop every entry. The hooks are gone
 * and no file is open: nothing else changes the table, and its lock is
 * taken for each removal alone, so that entries leave their names
 * outside it.
 */
void posixtrace_process_exit_all(void)
{
	struct posixtrace_process *proc;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(posixtrace_process_table, bkt, tmp, proc, node) {
		raw_spin_lock(&posixtrace_process_table_lock);
		hash_del_rcu(&proc->node);
		atomic_dec(&posixtrace_nr_procs);
		raw_spin_unlock(&posixtrace_process_table_lock);
		posixtrace_process_removed(proc);
		posixtrace_process_put(proc);
	}
	rcu_barrier();
}

void posixtrace_process_hold(struct posixtrace_process *proc)
{
	kref_get(&proc->ref);
}

/*
 * The process's table of event names: valid as long as the entry lives,
 * even once the entry moved to another (names.h's @prev).
 */
struct posixtrace_names *
posixtrace_process_names(struct posixtrace_process *proc)
{
	return READ_ONCE(proc->names);
}

/**
 * posixtrace_process_set_names - the entry moves to a table of its own
 * @proc: the entry, its names_mutex held
 * @names: the new table, whose reference the entry takes over
 *
 * The old table's reference goes to @names->prev, so that the old table
 * lives as long as the entry. The caller holds the links lock, and
 * republishes the enable bits.
 */
void posixtrace_process_set_names(struct posixtrace_process *proc,
				  struct posixtrace_names *names)
{
	lockdep_assert_held(&proc->names_mutex);
	spin_lock(&proc->lock);
	names->prev = proc->names;
	WRITE_ONCE(proc->names, names);
	spin_unlock(&proc->lock);
}

/* May the process record events of type @id? Never sleeps. */
bool posixtrace_process_event_valid(struct posixtrace_process *proc, u32 id)
{
	return posixtrace_names_valid(posixtrace_process_names(proc), id);
}

/* The data an emitter copies for the streams tracing the process. */
size_t posixtrace_process_data_max(struct posixtrace_process *proc)
{
	return READ_ONCE(proc->max_data_size);
}

/* Copy @proc->enabled to the enable page, if it has one; under @proc->lock. */
static void posixtrace_process_write_page(struct posixtrace_process *proc)
{
	u64 words[POSIXTRACE_EVENTSET_WORDS];
	int i;

	lockdep_assert_held(&proc->lock);
	if (!proc->enable)
		return;
	bitmap_to_arr64(words, proc->enabled, POSIXTRACE_EVENT_ID_MAX);
	/* One whole word at a time: producers read them without a lock. */
	for (i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++)
		WRITE_ONCE(proc->enable->enabled[i], words[i]);
	WRITE_ONCE(proc->enable->ring_size, proc->ring_size_hint);
}

/**
 * posixtrace_process_publish - what the process's producers read
 * @proc: the process, its lock held
 * @enabled: the event types some stream tracing it may record now
 * @data_max: the largest max data size of those streams
 * @ring_size: the data size its next thread rings should have, or 0
 *	(posixtrace_thread_ring_size_hint(), ring_mem.c)
 *
 * links.c computes them whenever a stream starts or stops tracing the
 * process or changes what it records, and when its table of names grows.
 * Only the types the process may make stay enabled
 * (posixtrace_process_event_valid()): a producer then never records an
 * event the module would ignore, so what its thread rings hold is exactly
 * what some stream admits.
 */
void posixtrace_process_publish(struct posixtrace_process *proc,
				const unsigned long *enabled, size_t data_max,
				u32 ring_size)
{
	lockdep_assert_held(&proc->lock);
	proc->ring_size_hint = ring_size;
	bitmap_copy(proc->enabled, enabled, POSIXTRACE_EVENT_ID_MAX);
	posixtrace_names_mask(proc->names, proc->enabled);
	WRITE_ONCE(proc->max_data_size, data_max);
	posixtrace_process_write_page(proc);
}

/**
 * posixtrace_process_wake_producers - a reader of a stream tracing @proc waits
 * @proc: the process
 *
 * Its threads kick at their next record (the enable page's @wake), once
 * each, so that a reader does not wait for the timer. Never sleeps.
 */
void posixtrace_process_wake_producers(struct posixtrace_process *proc)
{
	spin_lock(&proc->lock);
	if (proc->enable)
		WRITE_ONCE(proc->enable->wake, proc->enable->wake + 1);
	spin_unlock(&proc->lock);
}

/**
 * posixtrace_process_enable_page - the process's enable page, made if need be
 * @proc: the process
 *
 * Return: the page (the caller takes its own reference to map it), or NULL
 * when out of memory.
 */
struct page *posixtrace_process_enable_page(struct posixtrace_process *proc)
{
	struct page *page;

	if (READ_ONCE(proc->enable_page))
		return proc->enable_page;
	page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!page)
		return NULL;
	((struct posixtrace_enable_page *)page_address(page))->magic =
		POSIXTRACE_ENABLE_MAGIC;

	spin_lock(&proc->lock);
	if (proc->enable_page) {
		put_page(page);		/* another thread won */
	} else {
		proc->enable_page = page;
		proc->enable = page_address(page);
		posixtrace_process_write_page(proc);
	}
	spin_unlock(&proc->lock);
	return proc->enable_page;
}
