// SPDX-License-Identifier: GPL-2.0
/*
 * How many streams each user holds, against max_streams_per_user: without
 * it one user could take every one of the max_streams (TRACE_SYS_MAX)
 * places and leave none to the others. A stream is counted from its
 * creation until its place is given back (at shutdown, or once its log is
 * closed). Those with CAP_SYS_ADMIN are not limited.
 *
 * Who is "one user": a process in a user namespace an unprivileged user
 * made is charged to the user that owns the namespace (and so on up the
 * namespaces users made), as the kernel charges namespaced resources to
 * the owner's ucounts: otherwise a user with subordinate uids would map
 * several of them in a namespace of its own and take one quota for each.
 * A user and every namespace it owns share one count.
 *
 * The walk stops at a namespace root made (a container's): the uids the
 * administrator gave it are users of their own, each with its quota, as
 * on the host. Charging them all to root would let one container user
 * take the quota of every other, and of root's own processes.
 */

#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/user_namespace.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "quota.h"

static unsigned int max_streams_per_user = 32;

static int posixtrace_param_set_per_user(const char *val,
					 const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 4096);
}

static const struct kernel_param_ops posixtrace_per_user_ops = {
	.set = posixtrace_param_set_per_user,
	.get = param_get_uint,
};

module_param_cb(max_streams_per_user, &posixtrace_per_user_ops,
		&max_streams_per_user, 0644);
MODULE_PARM_DESC(max_streams_per_user, "Streams one user may hold, CAP_SYS_ADMIN exempt (1-4096)");

struct posixtrace_quota {
	struct hlist_node node;
	kuid_t uid;
	unsigned int streams;
};

#define POSIXTRACE_QUOTA_BITS	6
static DEFINE_HASHTABLE(posixtrace_quotas, POSIXTRACE_QUOTA_BITS);
static DEFINE_SPINLOCK(posixtrace_quota_lock);

static struct posixtrace_quota *posixtrace_quota_find(kuid_t uid)
{
	struct posixtrace_quota *q;

	hash_for_each_possible(posixtrace_quotas, q, node, __kuid_val(uid))
		if (uid_eq(q->uid, uid))
			return q;
	return NULL;
}

/**
 * posixtrace_quota_user - the user a creator's streams are charged to
 * @cred: the creator's credentials
 *
 * Return: the euid, or, in a namespace a user other than root made, the
 * owner of the outermost such namespace between @cred's and the first
 * one root made (or the initial one).
 */
kuid_t posixtrace_quota_user(const struct cred *cred)
{
	const struct user_namespace *ns = cred->user_ns;
	kuid_t uid = cred->euid;

	for (; ns != &init_user_ns && !uid_eq(ns->owner, GLOBAL_ROOT_UID);
	     ns = ns->parent)
		uid = ns->owner;
	return uid;
}

/**
 * posixtrace_quota_get - count one more stream for @uid
 * @uid: posixtrace_quota_user() of the creator
 * @exempt: the creator has CAP_SYS_ADMIN: count, but do not limit
 *
 * Return: 0, -EAGAIN at the limit, -ENOMEM.
 */
int posixtrace_quota_get(kuid_t uid, bool exempt)
{
	struct posixtrace_quota *q, *new;
	int ret = 0;

	/* Allocated before the lock, freed if the user has an entry. */
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	spin_lock(&posixtrace_quota_lock);
	q = posixtrace_quota_find(uid);
	if (!q) {
		q = new;
		new = NULL;
		q->uid = uid;
		hash_add(posixtrace_quotas, &q->node, __kuid_val(uid));
	}
	if (!exempt && q->streams >= READ_ONCE(max_streams_per_user))
		ret = -EAGAIN;
	else
		q->streams++;
	if (!q->streams) {
		hash_del(&q->node);
		kfree(q);
	}
	spin_unlock(&posixtrace_quota_lock);
	kfree(new);
	return ret;
}

/* One stream of @uid less. Never sleeps (the exit hook calls it). */
void posixtrace_quota_put(kuid_t uid)
{
	struct posixtrace_quota *q;

	spin_lock(&posixtrace_quota_lock);
	q = posixtrace_quota_find(uid);
	if (!WARN_ON_ONCE(!q || !q->streams) && !--q->streams) {
		hash_del(&q->node);
		kfree(q);
	}
	spin_unlock(&posixtrace_quota_lock);
}

/* Module exit: every stream is gone; so should every entry be. */
void posixtrace_quota_exit(void)
{
	struct posixtrace_quota *q;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(posixtrace_quotas, bkt, tmp, q, node) {
		WARN_ON_ONCE(q->streams);
		hash_del(&q->node);
		kfree(q);
	}
}
