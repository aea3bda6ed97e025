// SPDX-License-Identifier: GPL-2.0
/*
 * Who may trace whom.
 *
 * Tracing another process needs the right to ptrace-attach to it. The
 * kernel's ptrace_may_access() is not exported to modules, so this is
 * __ptrace_may_access() for PTRACE_MODE_ATTACH_REALCREDS without the LSM
 * hook (Yama, SELinux...): same real uid and gid as all of the target's
 * ids, or CAP_SYS_PTRACE in its user namespace; and a target that is not
 * dumpable needs CAP_SYS_PTRACE in its mm's user namespace. In tree, this
 * becomes a call to ptrace_may_access().
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "access.h"

static bool posixtrace_creds_match(const struct cred *cred,
				   const struct cred *tcred)
{
	return uid_eq(cred->uid, tcred->euid) &&
	       uid_eq(cred->uid, tcred->suid) &&
	       uid_eq(cred->uid, tcred->uid) &&
	       gid_eq(cred->gid, tcred->egid) &&
	       gid_eq(cred->gid, tcred->sgid) &&
	       gid_eq(cred->gid, tcred->gid);
}

bool posixtrace_may_trace(struct task_struct *task)
{
	const struct cred *tcred;
	struct mm_struct *mm;
	bool allowed;

	if (same_thread_group(task, current))
		return true;

	rcu_read_lock();
	tcred = __task_cred(task);
	allowed = posixtrace_creds_match(current_cred(), tcred) ||
		  ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!allowed)
		return false;

	task_lock(task);
	mm = task->mm;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !ns_capable(mm->user_ns, CAP_SYS_PTRACE))
		allowed = false;
	task_unlock(task);
	return allowed;
}
