// SPDX-License-Identifier: GPL-2.0
/*
 * Inheritance (TRI) at fork: a child of a process traced by a stream with
 * inheritance is traced by it from its first instruction, and shares its
 * parent's event names.
 *
 * The fork hook runs in the parent with preemption disabled, where
 * PREEMPT_RT allows neither allocating nor taking a spinlock (both may
 * sleep there). So it takes a ticket from a pool under a raw lock: the
 * ticket holds a blank process entry, which the hook makes the child's
 * and enters in the process table (a raw lock too), so that whoever looks
 * the child up from now on (a stream created for it before it runs) finds
 * the family's names. It notes in the ticket the parent and how many
 * links were made so far (posixtrace_links_seq()), holds the parent's
 * links, and queues the ticket as a task work of the child. The child
 * runs it before its first instruction (task works run on the way back to
 * user mode, before any signal is handled: get_signal() runs them first),
 * with preemption enabled: it joins its names' users and makes its links,
 * sleeping allocations charged to itself, to the streams that traced its
 * parent at the fork and still record (posixtrace_links_inherit()), and
 * gives the ticket back, with a new blank entry. A child killed before it
 * ran is linked too, on its way to do_exit(): its exit is an event.
 *
 * The pool keeps fork_tickets free tickets (64): each child refills
 * it after its ticket, and a worker when a fork finds it below that, so
 * only that many forks under way at once, machine-wide, can find it
 * empty. Such a child is not followed, and every stream that should have
 * followed it records POSIX_TRACE_ERROR with ENOMEM (from a worker), as
 * when an allocation fails: the loss is never silent.
 *
 * Every queued task work holds the module; its function's last call puts
 * it.
 */

#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "hook_work.h"
#include "inherit.h"
#include "links.h"
#include "process.h"

/* A child's claim to its parent's links, as they were at the fork. */
struct posixtrace_fork_ticket {
	struct callback_head work;	/* the child's task work */
	struct list_head node;		/* in the pool, while free */
	struct posixtrace_process *blank;	/* for the child; or NULL */
	struct posixtrace_process *parent;	/* reference, links held */
	struct posixtrace_process *child;	/* reference, or NULL */
	bool entered;			/* @child is the blank the hook entered */
	u64 seq;			/* posixtrace_links_seq() at the fork */
};

/*
 * The free tickets the pool keeps: forks of traced processes in flight at
 * once, machine-wide, beyond which a child escapes (reported). Root may
 * change it; 0 leaves every child to escape once the pool is used up.
 */
static unsigned int fork_tickets = 64;

static void posixtrace_tickets_refill(void);

static int posixtrace_param_set_tickets(const char *val,
					const struct kernel_param *kp)
{
	int ret = param_set_uint_minmax(val, kp, 0, 4096);

	/* Raised: the pool holds as many now, not after the next fork. */
	if (!ret)
		posixtrace_tickets_refill();
	return ret;
}

static const struct kernel_param_ops posixtrace_tickets_ops = {
	.set = posixtrace_param_set_tickets,
	.get = param_get_uint,
};

module_param_cb(fork_tickets, &posixtrace_tickets_ops, &fork_tickets, 0644);
MODULE_PARM_DESC(fork_tickets, "Forks of traced processes in flight at once before a child escapes (0-4096)");

static LIST_HEAD(posixtrace_tickets);
static unsigned int posixtrace_tickets_free;
static DEFINE_RAW_SPINLOCK(posixtrace_tickets_lock);

/* A free ticket, or NULL. Never sleeps, takes a raw lock only. */
static struct posixtrace_fork_ticket *posixtrace_ticket_take(void)
{
	struct posixtrace_fork_ticket *ticket;

	raw_spin_lock(&posixtrace_tickets_lock);
	ticket = list_first_entry_or_null(&posixtrace_tickets,
					  struct posixtrace_fork_ticket, node);
	if (ticket) {
		list_del(&ticket->node);
		WRITE_ONCE(posixtrace_tickets_free, posixtrace_tickets_free - 1);
	}
	raw_spin_unlock(&posixtrace_tickets_lock);
	return ticket;
}

/* Back to the pool, ready (with a blank entry). Takes a raw lock only. */
static void posixtrace_ticket_return(struct posixtrace_fork_ticket *ticket)
{
	raw_spin_lock(&posixtrace_tickets_lock);
	list_add(&ticket->node, &posixtrace_tickets);
	WRITE_ONCE(posixtrace_tickets_free, posixtrace_tickets_free + 1);
	raw_spin_unlock(&posixtrace_tickets_lock);
}

static void posixtrace_ticket_free(struct posixtrace_fork_ticket *ticket)
{
	if (ticket->blank)
		posixtrace_process_put(ticket->blank);
	kfree(ticket);
}

/*
 * After use, in process context: back to the pool with a new blank entry
 * if its was taken, or freed if the pool holds twice its minimum.
 */
static void posixtrace_ticket_give(struct posixtrace_fork_ticket *ticket)
{
	/* Named for a child that got another entry: not blank any more. */
	if (ticket->blank && ticket->blank->tgid) {
		posixtrace_process_put(ticket->blank);
		ticket->blank = NULL;
	}
	if (READ_ONCE(posixtrace_tickets_free) >= 2 * READ_ONCE(fork_tickets))
		goto free;
	if (!ticket->blank)
		ticket->blank = posixtrace_process_blank();
	if (!ticket->blank)
		goto free;
	posixtrace_ticket_return(ticket);
	return;
free:
	posixtrace_ticket_free(ticket);
}

/* Fill the pool up to its minimum; may sleep. */
static void posixtrace_tickets_refill(void)
{
	struct posixtrace_fork_ticket *ticket;

	while (READ_ONCE(posixtrace_tickets_free) < READ_ONCE(fork_tickets)) {
		/* The module's, as the pool is: nobody's cgroup. */
		ticket = kzalloc(sizeof(*ticket), GFP_KERNEL);
		if (!ticket)
			return;
		ticket->blank = posixtrace_process_blank();
		if (!ticket->blank) {
			kfree(ticket);
			return;
		}
		posixtrace_ticket_return(ticket);
	}
}

/* What this file queues: reports of escapes, refills of the pool. */
static struct workqueue_struct *posixtrace_inherit_wq;

static void posixtrace_tickets_refill_work(struct work_struct *work)
{
	posixtrace_tickets_refill();
}

static DECLARE_WORK(posixtrace_tickets_work, posixtrace_tickets_refill_work);

/* Entries with escapes to tell, each with a reference (escape_node). */
static LIST_HEAD(posixtrace_escapes);
static DEFINE_RAW_SPINLOCK(posixtrace_escapes_lock);

/* Tell the streams about the children that escaped, process by process. */
static void posixtrace_inherit_escapes(struct work_struct *work)
{
	struct posixtrace_process *proc;
	int escapes;

	for (;;) {
		raw_spin_lock(&posixtrace_escapes_lock);
		proc = list_first_entry_or_null(&posixtrace_escapes,
						struct posixtrace_process,
						escape_node);
		if (proc)
			list_del_init(&proc->escape_node);
		raw_spin_unlock(&posixtrace_escapes_lock);
		if (!proc)
			return;
		/* Off the list first: a later escape lists it again. */
		escapes = atomic_xchg(&proc->fork_escapes, 0);
		if (escapes) {
			posixtrace_links_escaped(proc, escapes,
						 atomic64_read(&proc->escape_seq),
						 ENOMEM);
			/* The holds each escape took. */
			while (escapes--)
				posixtrace_links_put(proc);
		}
		posixtrace_process_put(proc);
	}
}

static DECLARE_WORK(posixtrace_escapes_work, posixtrace_inherit_escapes);

/*
 * From the fork hook: a child of @proc forked at @seq found no ticket.
 * Counted, its parent's links held, and told to the streams by a worker
 * (raw locks and queue_work() only). Not by the forking thread: it may be
 * held before it returns (a ptrace stop, a vfork) while its streams
 * change.
 */
static void posixtrace_inherit_escaped(struct posixtrace_process *proc,
				       u64 seq)
{
	s64 last = atomic64_read(&proc->escape_seq);

	/* The latest fork's: a stream made before any of them is told. */
	while ((u64)last < seq &&
	       !atomic64_try_cmpxchg(&proc->escape_seq, &last, seq))
		;
	posixtrace_links_hold(proc);
	atomic_inc(&proc->fork_escapes);
	raw_spin_lock(&posixtrace_escapes_lock);
	if (list_empty(&proc->escape_node)) {
		posixtrace_process_hold(proc);
		list_add_tail(&proc->escape_node, &posixtrace_escapes);
	}
	raw_spin_unlock(&posixtrace_escapes_lock);
	queue_work(posixtrace_inherit_wq, &posixtrace_escapes_work);
}

/* The child's task work: follow it as its parent was followed at the fork. */
static void posixtrace_inherit_child(struct callback_head *work)
{
	struct posixtrace_fork_ticket *ticket =
		container_of(work, struct posixtrace_fork_ticket, work);
	struct posixtrace_process *parent = ticket->parent;
	struct posixtrace_process *child = ticket->child;
	/*
	 * Killed before it ran (maybe of want of memory): it will make no
	 * event of its own, but its exit is one (kevents.c), which the
	 * streams that have its fork must get too: it is linked all the
	 * same. A link it cannot get is reported (ENOMEM), as any.
	 */
	bool dying = fatal_signal_pending(current) ||
		     (current->flags & PF_EXITING);

	if (!child) {
		/* Exiting at the fork already: it makes no event. */
	} else if (child->names != parent->names) {
		/*
		 * Someone made the child an entry of its own between its pid
		 * becoming visible and the fork hook, or a stream made for it
		 * since moved it to a table of its own, or its parent moved
		 * (links.c's posixtrace_links_own_names()): the family's event
		 * ids would misname its events. It escapes the streams. An
		 * entry the hook entered still joins its table's users, so
		 * that the names it opens reach its enable page.
		 */
		if (ticket->entered && !dying)
			posixtrace_process_join_names(child);
		posixtrace_links_escaped(parent, 1, ticket->seq, EEXIST);
	} else {
		/* A dying child opens no names. */
		if (ticket->entered && !dying)
			posixtrace_process_join_names(child);
		posixtrace_links_inherit(parent, child, ticket->seq);
	}
	if (child)
		posixtrace_process_put(child);
	posixtrace_links_put(parent);
	posixtrace_process_put(parent);
	if (dying) {
		/* No allocation for the pool: the child is going. */
		posixtrace_ticket_free(ticket);
	} else {
		posixtrace_ticket_give(ticket);
		/* Each child tops the pool up too. */
		posixtrace_tickets_refill();
	}
	module_put(THIS_MODULE);
}

/**
 * posixtrace_inherit_fork - the fork hook's part: follow the child
 * @parent: the forking task, current
 * @child: the new task, not yet run
 *
 * Runs for every fork on the system, with preemption disabled: cheap
 * unless the parent is traced by a stream with inheritance. Takes raw
 * locks only, and allocates and frees nothing.
 */
void posixtrace_inherit_fork(struct task_struct *parent,
			     struct task_struct *child)
{
	struct posixtrace_fork_ticket *ticket;
	struct posixtrace_process *from, *proc;
	u64 seq;

	/*
	 * A thread is traced as its process is. A kernel thread's task
	 * works would wait for its exit: none is traced.
	 */
	if (!thread_group_leader(child) ||
	    ((parent->flags | child->flags) & PF_KTHREAD))
		return;
	rcu_read_lock();
	from = posixtrace_process_lookup(task_tgid(parent));
	if (from && (!posixtrace_links_inherited(from) ||
		     !kref_get_unless_zero(&from->ref)))
		from = NULL;
	rcu_read_unlock();
	if (!from)
		return;

	/* A module going has no stream left to follow the child. */
	if (!try_module_get(THIS_MODULE))
		goto out;
	seq = posixtrace_links_seq();
	/* The parent is alive, so not forgotten: its links are there. */
	posixtrace_links_hold(from);
	ticket = posixtrace_ticket_take();
	if (!ticket) {
		posixtrace_inherit_escaped(from, seq);
	} else {
		proc = posixtrace_process_fork(from, task_tgid(child),
					       ticket->blank);
		ticket->entered = proc == ticket->blank;
		if (ticket->entered)
			ticket->blank = NULL;
		ticket->child = IS_ERR(proc) ? NULL : proc;
		ticket->parent = from;
		ticket->seq = seq;
		posixtrace_process_hold(from);
		/* Never fails: a child that never ran is before its works. */
		WARN_ON_ONCE(posixtrace_hook_work_add(child, &ticket->work,
						      posixtrace_inherit_child));
	}
	if (READ_ONCE(posixtrace_tickets_free) < READ_ONCE(fork_tickets))
		queue_work(posixtrace_inherit_wq, &posixtrace_tickets_work);
	module_put(THIS_MODULE);
out:
	/* Not the last reference: the table holds one. */
	posixtrace_process_put(from);
}

int posixtrace_inherit_init(void)
{
	posixtrace_inherit_wq = alloc_workqueue("posixtrace_inherit",
						WQ_UNBOUND, 0);
	if (!posixtrace_inherit_wq)
		return -ENOMEM;
	posixtrace_tickets_refill();
	if (posixtrace_tickets_free >= READ_ONCE(fork_tickets))
		return 0;
	posixtrace_inherit_exit();
	return -ENOMEM;
}

/*
 * Module exit, the hooks gone: no task work is pending (each holds the
 * module); the workers finish.
 */
void posixtrace_inherit_exit(void)
{
	struct posixtrace_fork_ticket *ticket, *tmp;

	destroy_workqueue(posixtrace_inherit_wq);
	list_for_each_entry_safe(ticket, tmp, &posixtrace_tickets, node)
		posixtrace_ticket_free(ticket);
	INIT_LIST_HEAD(&posixtrace_tickets);
	posixtrace_tickets_free = 0;
}
