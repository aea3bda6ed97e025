// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events: what the kernel does to the traced processes (forks,
 * execs, exits, signals), recorded from the kernel's own tracepoints into
 * the streams that asked for their class at creation
 * (posixtrace_attr.kernel_events), as system event types with formats.
 *
 * A class's probes are registered while some stream wants the class, so
 * that without such a stream none of ours runs on those tracepoints; a
 * worker unregisters them once the last such stream is freed (a stream
 * may be freed where nothing can sleep).
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
#include <linux/mutex.h>
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
#include <trace/events/task.h>

#include "format.h"
#include "hooks.h"
#include "kevents.h"
#include "links.h"
#include "process.h"
#include "stream.h"

static const char *const posixtrace_kevent_names[] =
	POSIXTRACE_KERNEL_EVENT_NAMES;

static const char *const posixtrace_kevent_formats[] = {
	[POSIXTRACE_EVENT_PROC_FORK] = POSIXTRACE_PROC_FORK_FORMAT,
	[POSIXTRACE_EVENT_PROC_EXEC] = POSIXTRACE_PROC_EXEC_FORMAT,
	[POSIXTRACE_EVENT_PROC_EXIT] = POSIXTRACE_PROC_EXIT_FORMAT,
	[POSIXTRACE_EVENT_SIGNAL_GENERATE] = POSIXTRACE_SIGNAL_GENERATE_FORMAT,
	[POSIXTRACE_EVENT_SIGNAL_DELIVER] = POSIXTRACE_SIGNAL_DELIVER_FORMAT,
};

static const u32 posixtrace_kevent_classes[] = {
	[POSIXTRACE_EVENT_PROC_FORK] = POSIXTRACE_KERNEL_PROC,
	[POSIXTRACE_EVENT_PROC_EXEC] = POSIXTRACE_KERNEL_PROC,
	[POSIXTRACE_EVENT_PROC_EXIT] = POSIXTRACE_KERNEL_PROC,
	[POSIXTRACE_EVENT_SIGNAL_GENERATE] = POSIXTRACE_KERNEL_SIGNAL,
	[POSIXTRACE_EVENT_SIGNAL_DELIVER] = POSIXTRACE_KERNEL_SIGNAL,
};

static_assert(ARRAY_SIZE(posixtrace_kevent_names) ==
	      POSIXTRACE_EVENT_KERNEL_END);
static_assert(POSIXTRACE_EVENT_KERNEL_END <= POSIXTRACE_EVENT_SYSTEM_MAX);

/* @id's name and format if it is a kernel event type of @classes. */
const char *posixtrace_kevent_name(u32 id, u32 classes, const char **format)
{
	if (id < POSIXTRACE_EVENT_KERNEL_FIRST ||
	    id >= POSIXTRACE_EVENT_KERNEL_END ||
	    !(posixtrace_kevent_classes[id] & classes))
		return NULL;
	if (format)
		*format = posixtrace_kevent_formats[id];
	return posixtrace_kevent_names[id];
}

/* The first kernel event type of @classes at or after @from. */
bool posixtrace_kevent_next(u32 classes, u32 from, u32 *id)
{
	u32 i = max_t(u32, from, POSIXTRACE_EVENT_KERNEL_FIRST);

	for (; i < POSIXTRACE_EVENT_KERNEL_END; i++) {
		if (posixtrace_kevent_classes[i] & classes) {
			*id = i;
			return true;
		}
	}
	return false;
}

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

static struct posixtrace_kev_exec_buf __percpu *posixtrace_exec_bufs;

static void posixtrace_kev_emit_init(struct posixtrace_emit *emit,
				     struct task_struct *task, u32 id,
				     const void *data, size_t len)
{
	*emit = (struct posixtrace_emit) {
		.event_id = id,
		.tgid = task_tgid(task),
		.tid = task_pid(task),
		.data = data,
		.data_len = len,
		.copied = len,
	};
}

/*
 * Numbers the pids in an event's data for one stream's pid namespace,
 * before the event goes to that stream.
 */
typedef void (*posixtrace_kev_number_t)(void *data, struct pid_namespace *ns,
					const void *arg);

/*
 * @emit, about @task, into every stream tracing @task's process that
 * records @class; @number (if any) fills @emit's data for each stream.
 */
static void posixtrace_kev_record(struct task_struct *task, u32 class,
				  struct posixtrace_emit *emit, void *data,
				  posixtrace_kev_number_t number,
				  const void *arg)
{
	struct posixtrace_process *proc;
	struct posixtrace_link *link;
	struct posixtrace_stream *stream;

	rcu_read_lock();
	proc = posixtrace_process_lookup(task_tgid(task));
	if (!proc)
		goto out;
	list_for_each_entry_rcu(link, &proc->links, proc_node) {
		stream = link->stream;
		if (!(posixtrace_stream_kernel_events(stream) & class))
			continue;
		if (number)
			number(data, posixtrace_stream_pid_ns(stream), arg);
		posixtrace_stream_post_kernel(stream, emit);
	}
out:
	rcu_read_unlock();
}

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
		.flags = clone_flags,
		.thread = !!(clone_flags & CLONE_THREAD),
	};
	struct posixtrace_emit emit;

	posixtrace_kev_emit_init(&emit, current, POSIXTRACE_EVENT_PROC_FORK,
				 &f, sizeof(f));
	posixtrace_kev_record(current, POSIXTRACE_KERNEL_PROC, &emit, &f,
			      posixtrace_kev_fork_number, child);
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
		if (copy_from_user_nofault(src, (void __user *)p, room))
			return 0;
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
	struct posixtrace_emit emit;
	u8 *pos, cut = 0;
	u32 argc;

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
	posixtrace_kev_record(task, POSIXTRACE_KERNEL_PROC, &emit, NULL, NULL,
			      NULL);
}

/* In the exiting thread, before hooks.c's probe lets go of its process. */
static void posixtrace_kev_exit(void *data, struct task_struct *task)
{
	/* Set before the tracepoint; the group's code in a group exit. */
	int code = task->exit_code;
	struct posixtrace_kev_exit e = {
		.status = code & 0x7f ? -1 : (code >> 8) & 0xff,
		.signal = code & 0x7f,
		.core = !!(code & 0x80),
		.process = !atomic_read(&task->signal->live),
	};
	struct posixtrace_emit emit;

	posixtrace_kev_emit_init(&emit, task, POSIXTRACE_EVENT_PROC_EXIT, &e,
				 sizeof(e));
	posixtrace_kev_record(task, POSIXTRACE_KERNEL_PROC, &emit, NULL, NULL,
			      NULL);
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

	g->sender = arg ? task_tgid_nr_ns((struct task_struct *)arg, ns) : 0;
}

/*
 * The process that sends a signal to @target: current, when a process
 * sends it (not from an interrupt, not the kernel's own, not a timer's),
 * and the target's pid namespace sees it; else NULL.
 */
static struct task_struct *posixtrace_kev_sender(struct task_struct *target,
						 int code)
{
	struct pid_namespace *ns;

	if (!in_task() || code == SI_KERNEL || code == SI_TIMER)
		return NULL;
	ns = task_active_pid_ns(target);
	if (!ns || !task_pid_nr_ns(current, ns))
		return NULL;
	return current;
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
	struct posixtrace_emit emit;

	posixtrace_kev_emit_init(&emit, task, POSIXTRACE_EVENT_SIGNAL_GENERATE,
				 &g, sizeof(g));
	posixtrace_kev_record(task, POSIXTRACE_KERNEL_SIGNAL, &emit, &g,
			      posixtrace_kev_sender_number,
			      posixtrace_kev_sender(task, g.code));
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
	struct posixtrace_emit emit;

	if (ka->sa.sa_handler == SIG_IGN)
		d.action = POSIXTRACE_SIGACT_IGNORE;
	else if (ka->sa.sa_handler == SIG_DFL)
		d.action = POSIXTRACE_SIGACT_DEFAULT;
	else
		d.action = POSIXTRACE_SIGACT_HANDLER;
	posixtrace_kev_emit_init(&emit, current, POSIXTRACE_EVENT_SIGNAL_DELIVER,
				 &d, sizeof(d));
	posixtrace_kev_record(current, POSIXTRACE_KERNEL_SIGNAL, &emit, NULL,
			      NULL, NULL);
}

static_assert(POSIXTRACE_SIGNAL_DELIVERED == TRACE_SIGNAL_DELIVERED);
static_assert(POSIXTRACE_SIGNAL_IGNORED == TRACE_SIGNAL_IGNORED);
static_assert(POSIXTRACE_SIGNAL_ALREADY_PENDING ==
	      TRACE_SIGNAL_ALREADY_PENDING);
static_assert(POSIXTRACE_SIGNAL_OVERFLOW_FAIL == TRACE_SIGNAL_OVERFLOW_FAIL);
static_assert(POSIXTRACE_SIGNAL_LOSE_INFO == TRACE_SIGNAL_LOSE_INFO);

/* A probe of a class, on its tracepoint. */
struct posixtrace_kprobe {
	const char *tp_name;
	void *probe;
	u32 class;
	struct tracepoint *tp;
};

static struct posixtrace_kprobe posixtrace_kprobes[] = {
	{ "task_newtask", posixtrace_kev_fork, POSIXTRACE_KERNEL_PROC },
	{ "sched_process_exec", posixtrace_kev_exec, POSIXTRACE_KERNEL_PROC },
	{ "sched_process_exit", posixtrace_kev_exit, POSIXTRACE_KERNEL_PROC },
	{ "signal_generate", posixtrace_kev_generate, POSIXTRACE_KERNEL_SIGNAL },
	{ "signal_deliver", posixtrace_kev_deliver, POSIXTRACE_KERNEL_SIGNAL },
};

/*
 * Before hooks.c's probes on the same tracepoints: an exiting process
 * leaves the table there, and its exit must be recorded first.
 */
#define POSIXTRACE_KPROBE_PRIO	(TRACEPOINT_DEFAULT_PRIO + 1)

#define POSIXTRACE_KCLASSES	2	/* bits of POSIXTRACE_KERNEL_ALL */

/*
 * Streams wanting each class, and whether its probes are registered
 * (under the mutex, as the registrations are).
 */
static atomic_t posixtrace_kclass_users[POSIXTRACE_KCLASSES];
static bool posixtrace_kclass_on[POSIXTRACE_KCLASSES];
static DEFINE_MUTEX(posixtrace_kevents_mutex);

static void posixtrace_kclass_unregister(unsigned int c, unsigned int end)
{
	struct posixtrace_kprobe *kp;
	unsigned int i;

	for (i = 0; i < end; i++) {
		kp = &posixtrace_kprobes[i];
		if (kp->class == BIT(c))
			tracepoint_probe_unregister(kp->tp, kp->probe, NULL);
	}
}

static int posixtrace_kclass_register(unsigned int c)
{
	struct posixtrace_kprobe *kp;
	unsigned int i;
	int ret;

	lockdep_assert_held(&posixtrace_kevents_mutex);
	for (i = 0; i < ARRAY_SIZE(posixtrace_kprobes); i++) {
		kp = &posixtrace_kprobes[i];
		if (kp->class != BIT(c))
			continue;
		ret = tracepoint_probe_register_prio(kp->tp, kp->probe, NULL,
						     POSIXTRACE_KPROBE_PRIO);
		if (ret) {
			posixtrace_kclass_unregister(c, i);
			return ret;
		}
	}
	posixtrace_kclass_on[c] = true;
	return 0;
}

/* Unregister what no stream wants any more. */
static void posixtrace_kevents_idle(struct work_struct *work)
{
	unsigned int c;

	mutex_lock(&posixtrace_kevents_mutex);
	for (c = 0; c < POSIXTRACE_KCLASSES; c++) {
		if (!posixtrace_kclass_on[c] ||
		    atomic_read(&posixtrace_kclass_users[c]))
			continue;
		posixtrace_kclass_unregister(c, ARRAY_SIZE(posixtrace_kprobes));
		posixtrace_kclass_on[c] = false;
	}
	mutex_unlock(&posixtrace_kevents_mutex);
}

static DECLARE_WORK(posixtrace_kevents_idle_work, posixtrace_kevents_idle);

/**
 * posixtrace_kevents_put - a stream that recorded @classes is gone
 * @classes: what posixtrace_kevents_get() took
 *
 * Any context: the probes go in a worker.
 */
void posixtrace_kevents_put(u32 classes)
{
	bool idle = false;
	unsigned int c;

	for (c = 0; c < POSIXTRACE_KCLASSES; c++)
		if (classes & BIT(c))
			idle |= atomic_dec_and_test(&posixtrace_kclass_users[c]);
	if (idle)
		schedule_work(&posixtrace_kevents_idle_work);
}

/**
 * posixtrace_kevents_get - a stream will record @classes
 * @classes: POSIXTRACE_KERNEL_* bits, checked by the caller
 *
 * Registers their probes if no stream had them on. Sleeps.
 *
 * Return: 0, or the error of a registration (nothing taken then).
 */
int posixtrace_kevents_get(u32 classes)
{
	unsigned int c;
	int ret = 0;

	mutex_lock(&posixtrace_kevents_mutex);
	for (c = 0; c < POSIXTRACE_KCLASSES; c++) {
		if (!(classes & BIT(c)))
			continue;
		if (!posixtrace_kclass_on[c])
			ret = posixtrace_kclass_register(c);
		if (ret)
			break;
		atomic_inc(&posixtrace_kclass_users[c]);
	}
	mutex_unlock(&posixtrace_kevents_mutex);
	if (ret)
		posixtrace_kevents_put(classes & (BIT(c) - 1));
	return ret;
}

int posixtrace_kevents_init(void)
{
	struct posixtrace_kprobe *kp;
	unsigned int i;

	/* The probes' prototypes must be the tracepoints': checked here. */
	check_trace_callback_type_task_newtask(posixtrace_kev_fork);
	check_trace_callback_type_sched_process_exec(posixtrace_kev_exec);
	check_trace_callback_type_sched_process_exit(posixtrace_kev_exit);
	check_trace_callback_type_signal_generate(posixtrace_kev_generate);
	check_trace_callback_type_signal_deliver(posixtrace_kev_deliver);

	for (i = 0; i < ARRAY_SIZE(posixtrace_kprobes); i++) {
		kp = &posixtrace_kprobes[i];
		kp->tp = posixtrace_tracepoint(kp->tp_name);
		if (!kp->tp) {
			pr_err("tracepoint %s not found\n", kp->tp_name);
			return -ENOENT;
		}
	}
	/* Our own formats pass our own check, or tools could not read them. */
	for (i = POSIXTRACE_EVENT_KERNEL_FIRST; i < POSIXTRACE_EVENT_KERNEL_END;
	     i++)
		if (WARN_ON(posixtrace_format_check(posixtrace_kevent_formats[i])))
			return -EINVAL;
	posixtrace_exec_bufs = alloc_percpu(struct posixtrace_kev_exec_buf);
	if (!posixtrace_exec_bufs)
		return -ENOMEM;
	return 0;
}

/* After the last stream: nothing wants a class any more. */
void posixtrace_kevents_exit(void)
{
	flush_work(&posixtrace_kevents_idle_work);
	posixtrace_kevents_idle(NULL);
	/* No probe of ours runs any more, nor uses the buffers. */
	tracepoint_synchronize_unregister();
	free_percpu(posixtrace_exec_bufs);
}
