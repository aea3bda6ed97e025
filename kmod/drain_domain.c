// SPDX-License-Identifier: GPL-2.0
/*
 * Drain domains' lifetime: references, the list of every domain (for the
 * module's exit), and the free after a grace period. What a domain is,
 * and its drains, are drain.c's; this leaf lets the process table,
 * the streams and their kbufs hold domains without reaching the drain.
 */

#include <linux/mm.h>
#include <linux/slab.h>

#include "drain_domain.h"

static LIST_HEAD(posixtrace_domains);
/*
 * Taken with interrupts off, and raw: the last put may come in an RCU
 * callback, or from a hard irq_work (drain.c), which runs in hardirq
 * context on PREEMPT_RT too. Held for a list operation only.
 */
static DEFINE_RAW_SPINLOCK(posixtrace_domains_lock);

/* A new domain (posixtrace_drain_domain_new()) joins the list. */
void posixtrace_drain_domain_add(struct posixtrace_drain_domain *dom)
{
	raw_spin_lock_irq(&posixtrace_domains_lock);
	list_add(&dom->node, &posixtrace_domains);
	raw_spin_unlock_irq(&posixtrace_domains_lock);
}

/* A reference on @dom, which the caller holds one of. Never sleeps. */
void posixtrace_drain_domain_get(struct posixtrace_drain_domain *dom)
{
	refcount_inc(&dom->ref);
}

static void posixtrace_drain_domain_free(struct rcu_head *rcu)
{
	struct posixtrace_drain_domain *dom =
		container_of(rcu, struct posixtrace_drain_domain, rcu);

	/* Nothing is listed: whatever listed a source held a reference. */
	WARN_ON_ONCE(!list_empty(&dom->rings) || !list_empty(&dom->staged));
	mutex_destroy(&dom->mutex);
	kvfree(dom->heap);
	kfree(dom);
}

/*
 * Drop a reference. The last goes after a grace period (lookups reach a
 * domain through a process entry or a stream under RCU). Never sleeps, and
 * takes a raw lock only: a process entry's RCU callback, a hook, or a hard
 * irq_work may put the last.
 */
void posixtrace_drain_domain_put(struct posixtrace_drain_domain *dom)
{
	unsigned long flags;

	if (!dom || !refcount_dec_and_test(&dom->ref))
		return;
	raw_spin_lock_irqsave(&posixtrace_domains_lock, flags);
	list_del(&dom->node);
	raw_spin_unlock_irqrestore(&posixtrace_domains_lock, flags);
	call_rcu(&dom->rcu, posixtrace_drain_domain_free);
}

/*
 * Module exit: a domain not yet returned by an earlier call, with a
 * reference for the caller, or NULL when none is left.
 */
struct posixtrace_drain_domain *posixtrace_drain_domain_next_exiting(void)
{
	struct posixtrace_drain_domain *dom, *found = NULL;

	raw_spin_lock_irq(&posixtrace_domains_lock);
	list_for_each_entry(dom, &posixtrace_domains, node) {
		if (!dom->exiting && refcount_inc_not_zero(&dom->ref)) {
			dom->exiting = true;
			found = dom;
			break;
		}
	}
	raw_spin_unlock_irq(&posixtrace_domains_lock);
	return found;
}

/* After the last put of any domain: none is left to free. */
void posixtrace_drain_domains_exit(void)
{
	rcu_barrier();
}
