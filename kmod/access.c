// SPDX-License-Identifier: GPL-2.0
/*
 * Who may trace whom.
 *
 * Tracing another process needs the right to ptrace-attach to it. The
 * kernel decides that in ptrace_may_access(), LSMs (Yama, SELinux,
 * AppArmor, Landlock) included, but does not export it to modules. It
 * does run it when /proc/<pid>/mem is opened: so the caller opens that file
 * and hands us the descriptor, and we check that it really is the mem file
 * of the target's current image: its file operations are those of
 * /proc/self/mem (sampled at load), and its mm is the target's. The
 * descriptor is the proof, as a pidfd is a reference.
 *
 * On top of that, the module repeats __ptrace_may_access()'s credential and
 * dumpability rules itself, so that a process that gives its mem file away
 * does not give more than ptrace would. If /proc was not there at load,
 * only CAP_SYS_PTRACE lets a process trace another. In tree, all of this
 * becomes a call to ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS).
 */

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "access.h"

static const struct file_operations *posixtrace_proc_mem_fops;

/*
 * Learn what a /proc/<pid>/mem file looks like; at load, in insmod. Without
 * /proc (ENOENT, ENOTDIR) the module loads, stricter; any other failure (no memory)
 * fails the load rather than change who may trace for as long as the
 * module stays.
 */
int posixtrace_access_init(void)
{
	struct file *file = filp_open("/proc/self/mem", O_RDONLY, 0);

	if (IS_ERR(file)) {
		if (PTR_ERR(file) != -ENOENT && PTR_ERR(file) != -ENOTDIR)
			return PTR_ERR(file);
		pr_warn("no /proc: tracing other processes needs CAP_SYS_PTRACE\n");
		return 0;
	}
	posixtrace_proc_mem_fops = file->f_op;
	filp_close(file, NULL);
	return 0;
}

/* Is @fd an open /proc/<pid>/mem of @task's current image? */
static bool posixtrace_mem_fd_proves(int fd, struct task_struct *task)
{
	struct mm_struct *mm;
	struct file *file;
	bool proven;

	if (!posixtrace_proc_mem_fops)
		return false;
	file = fget(fd);
	if (!file)
		return false;
	mm = get_task_mm(task);
	/* proc_mem_open() keeps the mm in private_data. */
	proven = mm && file->f_op == posixtrace_proc_mem_fops &&
		 (file->f_mode & FMODE_READ) && file->private_data == mm;
	if (mm)
		mmput(mm);
	fput(file);
	return proven;
}

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

/* __ptrace_may_access() for ATTACH_REALCREDS, less its LSM hook. */
static bool posixtrace_creds_allow(struct task_struct *task)
{
	const struct cred *tcred;
	struct mm_struct *mm;
	bool allowed;

	task_lock(task);
	rcu_read_lock();
	tcred = __task_cred(task);
	allowed = posixtrace_creds_match(current_cred(), tcred) ||
		  ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	/* Pairs with the barrier in commit_creds(), as in ptrace. */
	smp_rmb();
	mm = task->mm;
	if (allowed && mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !ns_capable(mm->user_ns, CAP_SYS_PTRACE))
		allowed = false;
	/* A leader gone with pthread_exit() has no mm: ptrace also says no. */
	if (allowed && !mm && !capable(CAP_SYS_PTRACE))
		allowed = false;
	task_unlock(task);
	return allowed;
}

/**
 * posixtrace_may_trace - may the caller trace @task?
 * @task: the target's thread-group leader; the caller holds its
 *	  signal->exec_update_lock, so that its image cannot change meanwhile
 * @mem_fd: a descriptor of /proc/<pid>/mem, or -1
 *
 * Return: 0 or -EPERM.
 */
int posixtrace_may_trace(struct task_struct *task, int mem_fd)
{
	if (same_thread_group(task, current))
		return 0;
	if (!posixtrace_proc_mem_fops)
		return capable(CAP_SYS_PTRACE) ? 0 : -EPERM;
	if (mem_fd < 0 || !posixtrace_mem_fd_proves(mem_fd, task))
		return -EPERM;
	return posixtrace_creds_allow(task) ? 0 : -EPERM;
}

/*
 * After @task exec'd @bprm: may streams of other processes keep tracing
 * it? Not across a set-id or otherwise privileged exec, nor into an image
 * that is not dumpable, as ptrace would not let them attach any more.
 * secureexec (AT_SECURE) is the kernel's own word for "this exec gained
 * privilege": set-id and file capabilities (commoncap), and LSM
 * transitions (an SELinux domain change without noatsecure, an AppArmor
 * profile change), which can leave the uids and the dumpable flag as
 * they were.
 */
bool posixtrace_may_keep_tracing(struct task_struct *task,
				 const struct linux_binprm *bprm)
{
	return !bprm->secureexec && task->mm &&
	       get_dumpable(task->mm) == SUID_DUMP_USER;
}
