// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events: what the kernel does to the traced processes (forks,
 * execs, exits, signals; system calls in kevent_syscall.c, scheduling in
 * kevent_sched.c), recorded from
 * the kernel's own tracepoints into the streams that asked for their
 * class at creation (posixtrace_attr.kernel_events), as system event
 * types with formats.
 * A class's probes are on while some stream wants the class (kprobes.c).
 *
 * Probes run with preemption disabled; signal_generate's also with
 * interrupts off under the target's siglock, maybe in an interrupt. So a
 * probe takes raw locks only, allocates nothing and wakes nobody: it
 * writes the event into each stream's kbuf for this CPU (kbuf.c), as a
 * system-call event of a thread without a ring is, and the drains merge
 * it by time with the rings' records; a worker drains soon. An event that
 * finds its kbuf full is counted lost by the stream.
 *
 * Nothing is recorded about a process no stream traces: every probe
 * starts from the process table, whose entries are the traced processes.
 */

#include <linux/binfmts.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/syscalls.h>
#include <trace/events/task.h>

#include "access.h"
#include "format.h"
#include "kbuf.h"
#include "kevent_record.h"
#include "kevent_sched.h"
#include "kevent_syscall.h"
#include "kevent_types.h"
#include "kevents.h"
#include "kprobes.h"
#include "process.h"
#include "stream.h"

/* The data of each type: the fields of its format, packed. */
struct posixtrace_kev_fork {
	s32 pid, tid;
	u64 flags;
	u8 thread;
} __packed;

struct posixtrace_kev_exit {
	s32 status, signal;
	u8 core, process;
} __packed;

struct posixtrace_kev_generate {
	s32 sig, code, sender;
	u8 result, group;
} __packed;

struct posixtrace_kev_deliver {
	s32 sig, code;
	u8 action;
} __packed;

#define POSIXTRACE_EXEC_ARGS	4

/*
 * An exec's data, and room to look for the end of a long argument: per
 * CPU, as the exec probe cannot sleep (nor be preempted, nor run in an
 * interrupt: nothing else on the CPU uses it meanwhile).
 */
struct posixtrace_kev_exec_buf {
	u8 data[sizeof(u32) + 1 +
		(2 + POSIXTRACE_EXEC_ARGS) * POSIXTRACE_EXEC_STR_MAX];
	char scratch[POSIXTRACE_EXEC_STR_MAX];
};

/* A kbuf takes the largest: it drains past half, and holds two. */
static_assert(sizeof(((struct posixtrace_kev_exec_buf *)0)->data) + 64 <=
	      POSIXTRACE_KBUF_SIZE / 2);

static struct posixtrace_kev_exec_buf __percpu *posixtrace_exec_bufs;

static void posixtrace_kev_fork_number(void *data, struct pid_namespace *ns,
				       const void *arg)
{
	struct posixtrace_kev_fork *f = data;
	struct task_struct *child = (struct task_struct *)arg;

	f->pid = task_tgid_nr_ns(child, ns);
	f->tid = task_pid_nr_ns(child, ns);
}

/* In the parent, once the child has its pids, before it first runs. */
static void posixtrace_kev_fork(void *data, struct task_struct *child,
				unsigned long clone_flags)
{
	struct posixtrace_kev_fork f = {
		.thread = !!(clone_flags & CLONE_THREAD),
	};
	struct posixtrace_process *proc;
	struct posixtrace_emit emit;

	rcu_read_lock();
	proc = posixtrace_kev_traced(current, POSIXTRACE_KERNEL_PROC);
	if (!proc)
		goto out;
	/* The kernel keeps the exit signal apart; clone() had it here. */
	f.flags = clone_flags & ~CSIGNAL;
	if (!f.thread)
		f.flags |= child->exit_signal & CSIGNAL;
	posixtrace_kev_emit_init(&emit, current, POSIXTRACE_EVENT_PROC_FORK,
				 &f, sizeof(f));
	posixtrace_kev_record(proc, POSIXTRACE_KERNEL_PROC, &emit, &f,
			      posixtrace_kev_fork_number, child);
out:
	rcu_read_unlock();
}

/*
 * Copy the string at @p (user memory of current, below @end) to @dst,
 * cut at POSIXTRACE_EXEC_STR_MAX bytes with its NUL. Returns where the
 * next string starts, or 0 if it is not known: the string could not be
 * read, or its end was not found within a bounded look. *@cut is set if
 * @dst is not the whole string.
 */
static unsigned long posixtrace_kev_arg(char *dst, char *scratch,
					unsigned long p, unsigned long end,
					bool *cut)
{
	size_t room, len, looked = 0;
	char *src = dst;

	dst[0] = '\0';
	*cut = true;
	while (p < end && looked < 8 * POSIXTRACE_EXEC_STR_MAX) {
		room = min_t(unsigned long, end - p, POSIXTRACE_EXEC_STR_MAX);
		if (copy_from_user_nofault(src, (void __user *)p, room)) {
			/* It may have copied a part: keep none of it. */
			if (src == dst)
				dst[0] = '\0';
			return 0;
		}
		len = strnlen(src, room);
		if (src == dst) {
			/* The first look: what we keep. */
			*cut = len >= POSIXTRACE_EXEC_STR_MAX;
			dst[min_t(size_t, len, POSIXTRACE_EXEC_STR_MAX - 1)] =
				'\0';
			src = scratch;
		}
		if (len < room)
			return p + len + 1;
		p += room;
		looked += room;
	}
	return 0;
}

/* The first POSIXTRACE_EXEC_ARGS arguments of current's new image. */
static void posixtrace_kev_argv(struct posixtrace_kev_exec_buf *buf,
				u8 **pos, unsigned int argc, u8 *cut)
{
	struct mm_struct *mm = current->mm;
	unsigned long p = mm->arg_start, end = mm->arg_end;
	unsigned int i;
	bool arg_cut;
	char *dst;

	for (i = 0; i < POSIXTRACE_EXEC_ARGS; i++) {
		dst = (char *)*pos;
		dst[0] = '\0';
		if (i < argc) {
			if (p)
				p = posixtrace_kev_arg(dst, buf->scratch, p, end,
						       &arg_cut);
			else
				arg_cut = true;
			if (arg_cut)
				*cut |= 2 << i;
		}
		*pos += strlen(dst) + 1;
	}
}

/*
 * In the new image, before it first runs. The arguments are in its stack,
 * which exec has just written (the pages are there): read without
 * faulting, as nothing here may sleep; what cannot be read so is marked
 * cut.
 */
static void posixtrace_kev_exec(void *data, struct task_struct *task,
				pid_t old_pid, struct linux_binprm *bprm)
{
	struct posixtrace_kev_exec_buf *buf;
	struct posixtrace_process *proc;
	struct posixtrace_emit emit;
	u8 *pos, cut = 0;
	u32 argc;

	rcu_read_lock();
	/*
	 * A privileged exec ends the tracing of the process by other streams
	 * (hooks.c, after us), and its own streams die: none may learn what
	 * the new image is, nor read its stack.
	 */
	if (!posixtrace_may_keep_tracing(task, bprm))
		goto out;
	proc = posixtrace_kev_traced(task, POSIXTRACE_KERNEL_PROC);
	if (!proc)
		goto out;
	buf = this_cpu_ptr(posixtrace_exec_bufs);
	argc = max(bprm->argc, 0);
	memcpy(buf->data, &argc, sizeof(argc));
	pos = buf->data + sizeof(argc) + 1;
	if (strscpy((char *)pos, bprm->filename, POSIXTRACE_EXEC_STR_MAX) < 0)
		cut |= 1;
	pos += strlen((char *)pos) + 1;
	/* Our own task: its comm changes only here, in exec. */
	strscpy((char *)pos, task->comm, TASK_COMM_LEN);
	pos += strlen((char *)pos) + 1;
	posixtrace_kev_argv(buf, &pos, argc, &cut);
	buf->data[sizeof(argc)] = cut;
	posixtrace_kev_emit_init(&emit, task, POSIXTRACE_EVENT_PROC_EXEC,
				 buf->data, pos - buf->data);
	posixtrace_kev_record(proc, POSIXTRACE_KERNEL_PROC, &emit, NULL, NULL,
			      NULL);
out:
	rcu_read_unlock();
}

/*
 * In the exiting thread, before hooks.c's probe lets go of its process.
 * The thread's code is set by now. Once every thread of the group has
 * begun to exit (@live is 0), the group's code is the one its parent's
 * wait() gets (a signal's, with the core dump bit; or the last exit()'s):
 * the first thread here to see that reports the process's exit, once.
 * A thread of the group still on its way (tearing down a large mm, say)
 * may come after: the process stays in the table until it has passed
 * (hooks.c, posixtrace_exit_work()).
 */
static void posixtrace_kev_exit(void *data, struct task_struct *task)
{
	struct signal_struct *sig = task->signal;
	struct posixtrace_process *proc;
	struct posixtrace_kev_exit e;
	struct posixtrace_emit emit;
	int code = task->exit_code;

	rcu_read_lock();
	proc = posixtrace_kev_traced(task, POSIXTRACE_KERNEL_PROC);
	if (!proc)
		goto out;
	e.process = !atomic_read(&sig->live) &&
		    !atomic_xchg(&proc->exit_recorded, 1);
	if (e.process && (READ_ONCE(sig->flags) & SIGNAL_GROUP_EXIT))
		code = READ_ONCE(sig->group_exit_code);
	e.status = code & 0x7f ? -1 : (code >> 8) & 0xff;
	e.signal = code & 0x7f;
	e.core = !!(code & 0x80);
	posixtrace_kev_emit_init(&emit, task, POSIXTRACE_EVENT_PROC_EXIT, &e,
				 sizeof(e));
	posixtrace_kev_record(proc, POSIXTRACE_KERNEL_PROC, &emit, NULL, NULL,
			      NULL);
out:
	rcu_read_unlock();
}

static int posixtrace_kev_si_code(const struct kernel_siginfo *info)
{
	if (info == SEND_SIG_NOINFO)
		return SI_USER;
	if (info == SEND_SIG_PRIV)
		return SI_KERNEL;
	return info->si_code;
}

static void posixtrace_kev_sender_number(void *data, struct pid_namespace *ns,
					 const void *arg)
{
	struct posixtrace_kev_generate *g = data;

	g->sender = arg ? pid_nr_ns((struct pid *)arg, ns) : 0;
}

/*
 * Who sent @info to @target, if the target's pid namespace sees it: the
 * calling process for kill(), tgkill(), sigqueue() and a message queue's
 * notification (a kernel thread is nobody); the child the kernel names
 * for SIGCHLD's CLD_* codes (whoever makes the kernel send it: the child
 * exiting, a ptracer, a reaper). Nobody for the rest: the kernel's own
 * (faults, timers, SIGIO, SI_KERNEL), whatever task it runs in. Under RCU.
 */
static struct pid *posixtrace_kev_sender(struct task_struct *target, int sig,
					 const struct kernel_siginfo *info,
					 int code)
{
	struct pid_namespace *ns = task_active_pid_ns(target);

	if (!ns)
		return NULL;
	switch (code) {
	case SI_USER:
	case SI_TKILL:
	case SI_QUEUE:
	case SI_MESGQ:
		if (!in_task() || (current->flags & PF_KTHREAD) ||
		    !task_pid_nr_ns(current, ns))
			return NULL;
		return task_tgid(current);
	case CLD_EXITED:
	case CLD_KILLED:
	case CLD_DUMPED:
	case CLD_TRAPPED:
	case CLD_STOPPED:
	case CLD_CONTINUED:
		if (sig != SIGCHLD || info == SEND_SIG_NOINFO ||
		    info == SEND_SIG_PRIV)
			return NULL;
		/* The kernel numbered it in the target's namespace. */
		return find_pid_ns(info->si_pid, ns);
	}
	return NULL;
}

static void posixtrace_kev_generate(void *data, int sig,
				    struct kernel_siginfo *info,
				    struct task_struct *task, int group,
				    int result)
{
	struct posixtrace_kev_generate g = {
		.sig = sig,
		.code = posixtrace_kev_si_code(info),
		.result = result,
		.group = !!group,
	};
	struct posixtrace_process *proc;
	struct posixtrace_emit emit;

	rcu_read_lock();
	proc = posixtrace_kev_traced(task, POSIXTRACE_KERNEL_SIGNAL);
	if (!proc)
		goto out;
	posixtrace_kev_emit_init(&emit, task, POSIXTRACE_EVENT_SIGNAL_GENERATE,
				 &g, sizeof(g));
	posixtrace_kev_record(proc, POSIXTRACE_KERNEL_SIGNAL, &emit, &g,
			      posixtrace_kev_sender_number,
			      posixtrace_kev_sender(task, sig, info, g.code));
out:
	rcu_read_unlock();
}

/* In the thread that takes the signal, under its siglock. */
static void posixtrace_kev_deliver(void *data, int sig,
				   struct kernel_siginfo *info,
				   struct k_sigaction *ka)
{
	struct posixtrace_kev_deliver d = {
		.sig = sig,
		.code = posixtrace_kev_si_code(info),
	};
	struct posixtrace_process *proc;
	struct posixtrace_emit emit;

	if (ka->sa.sa_handler == SIG_IGN)
		d.action = POSIXTRACE_SIGACT_IGNORE;
	else if (ka->sa.sa_handler == SIG_DFL)
		d.action = POSIXTRACE_SIGACT_DEFAULT;
	else
		d.action = POSIXTRACE_SIGACT_HANDLER;
	rcu_read_lock();
	proc = posixtrace_kev_traced(current, POSIXTRACE_KERNEL_SIGNAL);
	if (proc) {
		posixtrace_kev_emit_init(&emit, current,
					 POSIXTRACE_EVENT_SIGNAL_DELIVER, &d,
					 sizeof(d));
		posixtrace_kev_record(proc, POSIXTRACE_KERNEL_SIGNAL, &emit,
				      NULL, NULL, NULL);
	}
	rcu_read_unlock();
}

static_assert(POSIXTRACE_SIGNAL_DELIVERED == TRACE_SIGNAL_DELIVERED);
static_assert(POSIXTRACE_SIGNAL_IGNORED == TRACE_SIGNAL_IGNORED);
static_assert(POSIXTRACE_SIGNAL_ALREADY_PENDING ==
	      TRACE_SIGNAL_ALREADY_PENDING);
static_assert(POSIXTRACE_SIGNAL_OVERFLOW_FAIL == TRACE_SIGNAL_OVERFLOW_FAIL);
static_assert(POSIXTRACE_SIGNAL_LOSE_INFO == TRACE_SIGNAL_LOSE_INFO);

static struct posixtrace_kprobe posixtrace_kprobes[] = {
	{ "task_newtask", posixtrace_kev_fork, POSIXTRACE_KERNEL_PROC },
	{ "sched_process_exec", posixtrace_kev_exec, POSIXTRACE_KERNEL_PROC },
	{ "sched_process_exit", posixtrace_kev_exit, POSIXTRACE_KERNEL_PROC },
	{ "signal_generate", posixtrace_kev_generate, POSIXTRACE_KERNEL_SIGNAL },
	{ "signal_deliver", posixtrace_kev_deliver, POSIXTRACE_KERNEL_SIGNAL },
	{ "sys_enter", posixtrace_kev_sys_enter, POSIXTRACE_KERNEL_SYSCALL },
	{ "sys_exit", posixtrace_kev_sys_exit, POSIXTRACE_KERNEL_SYSCALL },
	{ "sched_switch", posixtrace_kev_sched_switch, POSIXTRACE_KERNEL_SCHED },
	{ "sched_waking", posixtrace_kev_sched_waking, POSIXTRACE_KERNEL_SCHED },
	{ "sched_wakeup_new", posixtrace_kev_sched_wakeup_new,
	  POSIXTRACE_KERNEL_SCHED },
	{ "sched_migrate_task", posixtrace_kev_sched_migrate,
	  POSIXTRACE_KERNEL_SCHED },
};

int posixtrace_kevents_init(void)
{
	int ret;
	u32 i;

	/* The probes' prototypes must be the tracepoints': checked here. */
	check_trace_callback_type_task_newtask(posixtrace_kev_fork);
	check_trace_callback_type_sched_process_exec(posixtrace_kev_exec);
	check_trace_callback_type_sched_process_exit(posixtrace_kev_exit);
	check_trace_callback_type_signal_generate(posixtrace_kev_generate);
	check_trace_callback_type_signal_deliver(posixtrace_kev_deliver);
	check_trace_callback_type_sys_enter(posixtrace_kev_sys_enter);
	check_trace_callback_type_sys_exit(posixtrace_kev_sys_exit);
	check_trace_callback_type_sched_switch(posixtrace_kev_sched_switch);
	check_trace_callback_type_sched_waking(posixtrace_kev_sched_waking);
	check_trace_callback_type_sched_wakeup_new(posixtrace_kev_sched_wakeup_new);
	check_trace_callback_type_sched_migrate_task(posixtrace_kev_sched_migrate);

	/* Our own formats pass our own check, or tools could not read them. */
	for (i = POSIXTRACE_EVENT_KERNEL_FIRST; i < POSIXTRACE_EVENT_KERNEL_END;
	     i++)
		if (WARN_ON(posixtrace_format_check(posixtrace_kevent_format(i))))
			return -EINVAL;
	posixtrace_exec_bufs = alloc_percpu(struct posixtrace_kev_exec_buf);
	if (!posixtrace_exec_bufs)
		return -ENOMEM;
	ret = posixtrace_kev_sys_bufs_init();
	if (ret)
		goto err_exec;
	ret = posixtrace_kprobes_init(posixtrace_kprobes,
				      ARRAY_SIZE(posixtrace_kprobes));
	if (ret)
		goto err_sys;
	return 0;

err_sys:
	posixtrace_kev_sys_bufs_free();
err_exec:
	free_percpu(posixtrace_exec_bufs);
	return ret;
}

/* After the last stream: nothing wants a class any more. */
void posixtrace_kevents_exit(void)
{
	/* No probe of ours runs any more, nor uses the buffers, after it. */
	posixtrace_kprobes_exit();
	posixtrace_kev_sys_bufs_free();
	free_percpu(posixtrace_exec_bufs);
}
