// SPDX-License-Identifier: GPL-2.0
/*
 * Traced processes and their event type identifiers.
 *
 * The table maps a thread group's struct pid (never a number: pids are
 * reused) to its struct posixtrace_proc. Lookups are RCU; insertions and
 * removals take posixtrace_proc_table_lock. An entry leaves the table when
 * its process exits or execs a privileged image (posixtrace_proc_forget()),
 * and lives on while streams still refer to it, so that events already
 * recorded keep their names.
 */

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "family.h"
#include "proc.h"
#include "stream.h"
#include "ustruct.h"

#define POSIXTRACE_PROC_HASH_BITS 8

static DEFINE_HASHTABLE(posixtrace_proc_table, POSIXTRACE_PROC_HASH_BITS);
static DEFINE_SPINLOCK(posixtrace_proc_table_lock);
/* Entries in the table, so that the exit hook can skip the lock. */
static atomic_t posixtrace_nr_procs = ATOMIC_INIT(0);

/* System event names, fixed by POSIX (XSH 2.11, Table 2-6 and 2-7). */
static const char *const posixtrace_system_event_names[] =
	POSIXTRACE_SYSTEM_EVENT_NAMES;

static const char posixtrace_unnamed_event_name[] =
	POSIXTRACE_UNNAMED_USER_NAME;

/*
 * The entry of @tgid, or NULL; under rcu_read_lock() (or the table lock),
 * and valid only until it is released.
 */
struct posixtrace_proc *posixtrace_proc_lookup(struct pid *tgid)
{
	struct posixtrace_proc *proc;

	hash_for_each_possible_rcu(posixtrace_proc_table, proc, node,
				   hash_ptr(tgid, POSIXTRACE_PROC_HASH_BITS))
		if (proc->tgid == tgid)
			return proc;
	return NULL;
}

static void posixtrace_names_free(struct kref *ref)
{
	struct posixtrace_names *names =
		container_of(ref, struct posixtrace_names, ref);
	unsigned int i;

	for (i = 0; i < names->nr; i++)
		kfree(names->names[i]);
	kfree(names->names);
	mutex_destroy(&names->lock);
	kfree(names);
}

/*
 * A process entry; @names shared (a reference taken), or a new table.
 * @gfp: GFP_ATOMIC from the fork hook.
 */
static struct posixtrace_proc *posixtrace_proc_insert(struct posixtrace_proc *new);

static struct posixtrace_proc *posixtrace_proc_alloc(struct pid *tgid,
						     struct posixtrace_names *names,
						     gfp_t gfp)
{
	struct posixtrace_proc *proc;

	proc = kzalloc(sizeof(*proc), gfp | __GFP_ACCOUNT);
	if (!proc)
		return NULL;
	if (names) {
		kref_get(&names->ref);
	} else {
		names = kzalloc(sizeof(*names), gfp | __GFP_ACCOUNT);
		if (!names) {
			kfree(proc);
			return NULL;
		}
		kref_init(&names->ref);
		mutex_init(&names->lock);
	}
	proc->names = names;
	proc->tgid = get_pid(tgid);
	kref_init(&proc->ref);
	spin_lock_init(&proc->lock);
	INIT_LIST_HEAD(&proc->links);
	return proc;
}

static void posixtrace_proc_free_rcu(struct rcu_head *rcu)
{
	struct posixtrace_proc *proc =
		container_of(rcu, struct posixtrace_proc, rcu);

	kref_put(&proc->names->ref, posixtrace_names_free);
	if (proc->enable_page)
		put_page(proc->enable_page);
	put_pid(proc->tgid);
	kfree(proc);
}

static void posixtrace_proc_release(struct kref *ref)
{
	struct posixtrace_proc *proc =
		container_of(ref, struct posixtrace_proc, ref);

	/* May run in the exit hook, where nothing may sleep. */
	call_rcu(&proc->rcu, posixtrace_proc_free_rcu);
}

void posixtrace_proc_put(struct posixtrace_proc *proc)
{
	kref_put(&proc->ref, posixtrace_proc_release);
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
 * posixtrace_proc_get - find, or create, the entry of a thread group
 * @tgid: the thread group's pid
 * @create: create the entry if there is none
 *
 * Return: a new reference, NULL if there is no entry and @create is false,
 * or an ERR_PTR: -ESRCH for a process that is exiting, -ENOMEM.
 */
struct posixtrace_proc *posixtrace_proc_get(struct pid *tgid, bool create)
{
	struct posixtrace_proc *proc, *new;

	rcu_read_lock();
	proc = posixtrace_proc_lookup(tgid);
	if (proc && !kref_get_unless_zero(&proc->ref))
		proc = NULL;
	rcu_read_unlock();
	if (proc || !create)
		return proc;

	new = posixtrace_proc_alloc(tgid, NULL, GFP_KERNEL);
	if (!new)
		return ERR_PTR(-ENOMEM);
	return posixtrace_proc_insert(new);
}

/*
 * Put @new in the table, unless its process has an entry already (which
 * is returned instead) or is exiting (-ESRCH). Consumes @new's reference;
 * returns a new one.
 */
static struct posixtrace_proc *posixtrace_proc_insert(struct posixtrace_proc *new)
{
	struct pid *tgid = new->tgid;
	struct posixtrace_proc *proc;

	/*
	 * The exit hook removes entries under the table lock after the last
	 * thread decremented signal->live, so checking liveness under the
	 * same lock means an entry is never added after its process's hook
	 * ran: it could never be removed.
	 */
	spin_lock(&posixtrace_proc_table_lock);
	proc = posixtrace_proc_lookup(tgid);
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
		hash_add_rcu(posixtrace_proc_table, &new->node,
			     hash_ptr(tgid, POSIXTRACE_PROC_HASH_BITS));
		proc = new;
		new = NULL;
	}
unlock:
	spin_unlock(&posixtrace_proc_table_lock);
	if (new)
		posixtrace_proc_put(new);
	return proc;
}

/**
 * posixtrace_proc_fork - the entry of a child a traced process forked
 * @parent: the parent's entry
 * @tgid: the child's pid; the child has not run yet
 *
 * The child shares the parent's event names (TRI). Called from the fork
 * hook, where nothing may sleep.
 *
 * Return: a new reference, or an ERR_PTR (-ENOMEM, -ESRCH).
 */
struct posixtrace_proc *posixtrace_proc_fork(struct posixtrace_proc *parent,
					     struct pid *tgid)
{
	struct posixtrace_proc *new;

	new = posixtrace_proc_alloc(tgid, parent->names,
				    GFP_ATOMIC | __GFP_NOWARN);
	if (!new)
		return ERR_PTR(-ENOMEM);
	return posixtrace_proc_insert(new);
}

/**
 * posixtrace_proc_forget - the process exited, or exec'd a privileged image
 * @tgid: its pid
 *
 * Its entry leaves the table and every stream: no stream traces it any
 * more. Streams keep the entry (and so the names of the events they
 * recorded); the process, if it lives on, gets a new entry, with a new
 * table of names, when it next needs one. After a privileged exec that is
 * what keeps the new image's names from its former tracers: they can
 * neither read them nor add to them. Called from the exit and exec hooks,
 * where nothing may sleep.
 */
void posixtrace_proc_forget(struct pid *tgid)
{
	struct posixtrace_proc *proc;

	/* Every process exit comes here: be cheap when nothing is traced. */
	if (!atomic_read(&posixtrace_nr_procs))
		return;
	spin_lock(&posixtrace_proc_table_lock);
	proc = posixtrace_proc_lookup(tgid);
	if (proc) {
		hash_del_rcu(&proc->node);
		atomic_dec(&posixtrace_nr_procs);
	}
	spin_unlock(&posixtrace_proc_table_lock);
	if (proc) {
		/* No stream traces it any more: their slots are free. */
		posixtrace_links_drop_proc(proc);
		posixtrace_proc_put(proc);
	}
}

/* Module exit: no stream is left, drop every entry. */
void posixtrace_proc_exit_all(void)
{
	struct posixtrace_proc *proc;
	struct hlist_node *tmp;
	int bkt;

	spin_lock(&posixtrace_proc_table_lock);
	hash_for_each_safe(posixtrace_proc_table, bkt, tmp, proc, node) {
		hash_del_rcu(&proc->node);
		atomic_dec(&posixtrace_nr_procs);
		posixtrace_proc_put(proc);
	}
	spin_unlock(&posixtrace_proc_table_lock);
	rcu_barrier();
}

/**
 * posixtrace_proc_eventid_open - the identifier of a user event name
 * @proc: the traced process
 * @name: a NUL-terminated name of 1 to POSIXTRACE_EVENT_NAME_MAX characters
 * @id: the identifier: the same for the same name, or the unnamed user
 *	event's once the process has POSIXTRACE_USER_EVENT_MAX names
 *
 * Return: 0 or -ENOMEM.
 */
int posixtrace_proc_eventid_open(struct posixtrace_proc *proc,
				 const char *name, u32 *id)
{
	struct posixtrace_names *tab = proc->names;
	unsigned int i, nr;
	char **names;
	int ret = 0;

	mutex_lock(&tab->lock);
	nr = tab->nr;
	for (i = 0; i < nr; i++) {
		if (!strcmp(tab->names[i], name)) {
			*id = POSIXTRACE_EVENT_USER_BASE + i;
			goto out;
		}
	}
	if (nr == POSIXTRACE_USER_EVENT_MAX) {
		*id = POSIXTRACE_EVENT_UNNAMED_USER;
		goto out;
	}
	/* Grow by doubling; the array is only read under the lock. */
	if (!(nr & (nr - 1))) {
		names = krealloc_array(tab->names, nr ? 2 * nr : 8,
				       sizeof(*names), GFP_KERNEL_ACCOUNT);
		if (!names) {
			ret = -ENOMEM;
			goto out;
		}
		tab->names = names;
	}
	tab->names[nr] = kstrdup(name, GFP_KERNEL_ACCOUNT);
	if (!tab->names[nr]) {
		ret = -ENOMEM;
		goto out;
	}
	/* Pairs with smp_load_acquire() in the readers of nr. */
	smp_store_release(&tab->nr, nr + 1);
	*id = POSIXTRACE_EVENT_USER_BASE + nr;
out:
	mutex_unlock(&tab->lock);
	return ret;
}

/* May the process record events of type @id? */
bool posixtrace_proc_event_valid(struct posixtrace_proc *proc, u32 id)
{
	/* Pairs with smp_store_release() in posixtrace_proc_eventid_open(). */
	unsigned int nr = smp_load_acquire(&proc->names->nr);

	if (id == POSIXTRACE_EVENT_UNNAMED_USER)
		return true;
	return id >= POSIXTRACE_EVENT_USER_BASE &&
	       id - POSIXTRACE_EVENT_USER_BASE < nr;
}

/**
 * posixtrace_event_name - the name of an event type of a stream
 * @proc: the traced process (its user event names)
 * @id: the identifier
 * @name: the name, NUL-terminated
 *
 * Return: 0, or -EINVAL for an identifier that names nothing.
 */
int posixtrace_event_name(struct posixtrace_proc *proc, u32 id,
			  char name[POSIXTRACE_EVENT_NAME_MAX + 1])
{
	const char *src = NULL;

	if (id < ARRAY_SIZE(posixtrace_system_event_names))
		src = posixtrace_system_event_names[id];
	else if (id == POSIXTRACE_EVENT_UNNAMED_USER)
		src = posixtrace_unnamed_event_name;
	if (src) {
		strscpy(name, src, POSIXTRACE_EVENT_NAME_MAX + 1);
		return 0;
	}
	if (!posixtrace_proc_event_valid(proc, id))
		return -EINVAL;
	mutex_lock(&proc->names->lock);
	strscpy(name, proc->names->names[id - POSIXTRACE_EVENT_USER_BASE],
		POSIXTRACE_EVENT_NAME_MAX + 1);
	mutex_unlock(&proc->names->lock);
	return 0;
}

/**
 * posixtrace_event_next - iterate over the event types of a stream
 * @proc: the traced process
 * @from: the smallest identifier wanted
 * @id: the first defined identifier >= @from
 *
 * Return: true if there is one.
 */
bool posixtrace_event_next(struct posixtrace_proc *proc, u32 from, u32 *id)
{
	/* Pairs with smp_store_release() in posixtrace_proc_eventid_open(). */
	u32 end = POSIXTRACE_EVENT_USER_BASE + smp_load_acquire(&proc->names->nr);

	if (from < ARRAY_SIZE(posixtrace_system_event_names)) {
		*id = from;
		return true;
	}
	if (from <= POSIXTRACE_EVENT_UNNAMED_USER) {
		*id = POSIXTRACE_EVENT_UNNAMED_USER;
		return true;
	}
	if (from < end) {
		*id = from;
		return true;
	}
	return false;
}

/*
 * Recompute what emitters read without the streams' locks: the largest max
 * data size of the streams tracing @proc, and the enable bits of its page.
 * An id is enabled while a stream that may record (running, or stopped
 * because full) does not filter it out. Bits may be briefly stale while a
 * command runs; they are never clear after a command enabling recording
 * returned.
 */
void posixtrace_proc_update(struct posixtrace_proc *proc)
{
	u64 words[POSIXTRACE_EVENTSET_WORDS];
	DECLARE_BITMAP(enabled, POSIXTRACE_EVENT_ID_MAX);
	DECLARE_BITMAP(admitted, POSIXTRACE_EVENT_ID_MAX);
	struct posixtrace_stream *stream;
	struct posixtrace_link *link;
	size_t max = 0;
	int i;

	lockdep_assert_held(&proc->lock);
	bitmap_zero(enabled, POSIXTRACE_EVENT_ID_MAX);
	list_for_each_entry(link, &proc->links, proc_node) {
		stream = link->stream;
		max = max_t(size_t, max, stream->attr.max_data_size);
		spin_lock(&stream->lock);
		if (posixtrace_stream_may_record(stream)) {
			bitmap_complement(admitted, stream->filter,
					  POSIXTRACE_EVENT_ID_MAX);
			bitmap_or(enabled, enabled, admitted,
				  POSIXTRACE_EVENT_ID_MAX);
		}
		spin_unlock(&stream->lock);
	}
	WRITE_ONCE(proc->max_data_size, max);
	if (!proc->enable)
		return;
	bitmap_to_arr64(words, enabled, POSIXTRACE_EVENT_ID_MAX);
	for (i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++)
		WRITE_ONCE(proc->enable->enabled[i], words[i]);
}

/* posixtrace_proc_update(), taking the process's lock. */
void posixtrace_proc_update_locked(struct posixtrace_proc *proc)
{
	spin_lock(&proc->lock);
	posixtrace_proc_update(proc);
	spin_unlock(&proc->lock);
}

/**
 * posixtrace_proc_enable_page - the process's enable page, made if need be
 * @proc: the process
 *
 * Return: the page (the caller takes its own reference to map it), or NULL
 * when out of memory.
 */
struct page *posixtrace_proc_enable_page(struct posixtrace_proc *proc)
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
		posixtrace_proc_update(proc);
	}
	spin_unlock(&proc->lock);
	return proc->enable_page;
}

/**
 * posixtrace_ioctl_eventid_open - EVENTID_OPEN and TRID_EVENTID_OPEN
 * @proc: the process whose names the name joins
 * @ueid: the user's struct posixtrace_eventid
 *
 * Return: 0, or -EINVAL, -EFAULT, -E2BIG (struct), -ENAMETOOLONG past
 * POSIXTRACE_EVENT_NAME_MAX characters, -EINVAL for an empty name, -ENOMEM.
 */
long posixtrace_ioctl_eventid_open(struct posixtrace_proc *proc,
				   struct posixtrace_eventid __user *ueid)
{
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	struct posixtrace_eventid eid;
	long len;
	u32 usize;
	int ret;

	ret = posixtrace_struct_from_user(&eid, sizeof(eid), ueid,
					  POSIXTRACE_EVENTID_SIZE_VER0);
	if (ret)
		return ret;
	if (eid.flags || eid.__reserved)
		return -EINVAL;
	len = strncpy_from_user(name, u64_to_user_ptr(eid.name), sizeof(name));
	if (len < 0)
		return len;
	if (len == sizeof(name))
		return -ENAMETOOLONG;
	if (!len)
		return -EINVAL;
	ret = posixtrace_proc_eventid_open(proc, name, &eid.event_id);
	if (ret)
		return ret;
	usize = eid.size;
	eid.size = sizeof(eid);
	return posixtrace_struct_to_user(ueid, usize, &eid, sizeof(eid));
}
