// SPDX-License-Identifier: GPL-2.0
/*
 * Our probes on the kernel's tracepoints, by class: registered while some
 * stream wants the class (posixtrace_kevents_get()), so that without such
 * a stream none of ours runs there; a worker unregisters them once the
 * last such stream is freed (a stream may be freed where nothing can
 * sleep), ten seconds later. kevents.c has the probes; this file only knows them as
 * pointers, so that the stream core can take a class without calling up
 * into the hooks.
 */

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/posixtrace.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "debugfs.h"
#include "kprobes.h"

/* What posixtrace_tracepoint() looks for, and finds. */
struct posixtrace_tp_search {
	const char *name;
	struct tracepoint *tp;
};

static void posixtrace_find_tracepoint(struct tracepoint *tp, void *priv)
{
	struct posixtrace_tp_search *search = priv;

	if (!strcmp(tp->name, search->name))
		search->tp = tp;
}

/**
 * posixtrace_tracepoint - a tracepoint of the kernel, by name
 * @name: its name
 *
 * The kernel exports none of those we use to modules.
 *
 * Return: the tracepoint, or NULL.
 */
struct tracepoint *posixtrace_tracepoint(const char *name)
{
	struct posixtrace_tp_search search = { .name = name };

	for_each_kernel_tracepoint(posixtrace_find_tracepoint, &search);
	return search.tp;
}

static struct posixtrace_kprobe *posixtrace_kprobes;
static unsigned int posixtrace_nr_kprobes;

/*
 * Before hooks.c's probes on the same tracepoints: an exiting process
 * leaves the table there, and its exit must be recorded first.
 */
#define POSIXTRACE_KPROBE_PRIO	(TRACEPOINT_DEFAULT_PRIO + 1)

#define POSIXTRACE_KCLASSES	4	/* bits of POSIXTRACE_KERNEL_ALL */
static_assert(BIT(POSIXTRACE_KCLASSES) - 1 == POSIXTRACE_KERNEL_ALL);

/*
 * Whether the classes of POSIXTRACE_KERNEL_PRIVILEGED need CAP_PERFMON (or
 * CAP_SYS_ADMIN), as perf_event_paranoid decides for perf: their probes
 * run on every system call of every task while they are on, so turning
 * them on costs every user of the machine something, whoever is traced
 * (the sched class's, on every context switch and wakeup).
 * Root may let every user who may trace a process turn them on.
 */
static unsigned int kernel_events_paranoid = 1;

static int posixtrace_paranoid_set(const char *val,
				   const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1);
}

static const struct kernel_param_ops posixtrace_paranoid_ops = {
	.set = posixtrace_paranoid_set,
	.get = param_get_uint,
};

module_param_cb(kernel_events_paranoid, &posixtrace_paranoid_ops,
		&kernel_events_paranoid, 0644);
MODULE_PARM_DESC(kernel_events_paranoid,
		 "1: the syscall and sched classes of kernel events need CAP_PERFMON (default); 0: any user who may trace the process");

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
		/* Only a probe that is not there fails: a bug of ours. */
		if (kp->class == BIT(c))
			WARN_ON_ONCE(tracepoint_probe_unregister(kp->tp,
								 kp->probe,
								 NULL));
	}
}

static int posixtrace_kclass_register(unsigned int c)
{
	struct posixtrace_kprobe *kp;
	unsigned int i;
	int ret;

	lockdep_assert_held(&posixtrace_kevents_mutex);
	for (i = 0; i < posixtrace_nr_kprobes; i++) {
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
static void posixtrace_kclasses_off(bool all)
{
	unsigned int c;

	mutex_lock(&posixtrace_kevents_mutex);
	for (c = 0; c < POSIXTRACE_KCLASSES; c++) {
		if (!posixtrace_kclass_on[c] ||
		    (!all && atomic_read(&posixtrace_kclass_users[c])))
			continue;
		posixtrace_kclass_unregister(c, posixtrace_nr_kprobes);
		posixtrace_kclass_on[c] = false;
	}
	mutex_unlock(&posixtrace_kevents_mutex);
}

static void posixtrace_kevents_idle(struct work_struct *work)
{
	posixtrace_kclasses_off(false);
}

/*
 * How long a class stays on after its last stream: registering patches
 * the kernel's text on every CPU (static calls, jump labels), and a user
 * who creates and closes streams in a loop must not make it do so in a
 * loop too. Root may change it (tests want it short).
 */
static unsigned int kernel_probes_linger_ms = 10000;

static DECLARE_DELAYED_WORK(posixtrace_kevents_idle_work,
			    posixtrace_kevents_idle);

/* A new linger applies to a class already waiting for its end. */
static int posixtrace_linger_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret && delayed_work_pending(&posixtrace_kevents_idle_work))
		mod_delayed_work(system_wq, &posixtrace_kevents_idle_work,
				 msecs_to_jiffies(kernel_probes_linger_ms));
	return ret;
}

static const struct kernel_param_ops posixtrace_linger_ops = {
	.set = posixtrace_linger_set,
	.get = param_get_uint,
};

module_param_cb(kernel_probes_linger_ms, &posixtrace_linger_ops,
		&kernel_probes_linger_ms, 0644);
MODULE_PARM_DESC(kernel_probes_linger_ms,
		 "How long a class of kernel events keeps its probes after its last stream, in ms");

/*
 * The POSIXTRACE_KERNEL_* classes whose probes are registered now: for
 * the tests (kevent_stream_test), not a setting: in debugfs, as
 * posixtrace/kernel_probes.
 */
static int posixtrace_kprobes_show(struct seq_file *m, void *unused)
{
	u32 on = 0;
	unsigned int c;

	mutex_lock(&posixtrace_kevents_mutex);
	for (c = 0; c < POSIXTRACE_KCLASSES; c++)
		if (posixtrace_kclass_on[c])
			on |= BIT(c);
	mutex_unlock(&posixtrace_kevents_mutex);
	seq_printf(m, "%u\n", on);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(posixtrace_kprobes);

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
		mod_delayed_work(system_wq, &posixtrace_kevents_idle_work,
				 msecs_to_jiffies(READ_ONCE(kernel_probes_linger_ms)));
}

/**
 * posixtrace_kevents_get - a stream will record @classes
 * @classes: POSIXTRACE_KERNEL_* bits, checked by the caller
 *
 * Registers their probes if no stream had them on. The caller is the
 * stream's creator, whose capabilities kernel_events_paranoid judges.
 * Sleeps.
 *
 * Return: 0, -EPERM if the caller may not turn a class on, or the error
 * of a registration (nothing taken then).
 */
int posixtrace_kevents_get(u32 classes)
{
	unsigned int c;
	int ret = 0;

	if ((classes & POSIXTRACE_KERNEL_PRIVILEGED) &&
	    READ_ONCE(kernel_events_paranoid) && !perfmon_capable())
		return -EPERM;
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

/**
 * posixtrace_kprobes_init - know the probes of each class
 * @probes: their table, which lives as long as the module
 * @n: its length
 *
 * Return: 0, or -ENOENT if a tracepoint is not there.
 */
int posixtrace_kprobes_init(struct posixtrace_kprobe *probes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		probes[i].tp = posixtrace_tracepoint(probes[i].tp_name);
		if (!probes[i].tp) {
			pr_err("tracepoint %s not found\n", probes[i].tp_name);
			return -ENOENT;
		}
	}
	posixtrace_kprobes = probes;
	posixtrace_nr_kprobes = n;
	debugfs_create_file("kernel_probes", 0400, posixtrace_debugfs, NULL,
			    &posixtrace_kprobes_fops);
	return 0;
}

/* After the last stream: every probe goes, and none runs any more. */
void posixtrace_kprobes_exit(void)
{
	unsigned int c;

	cancel_delayed_work_sync(&posixtrace_kevents_idle_work);
	/* Every stream is gone: a class still wanted is a leak of ours. */
	for (c = 0; c < POSIXTRACE_KCLASSES; c++)
		WARN_ON(atomic_read(&posixtrace_kclass_users[c]));
	posixtrace_kclasses_off(true);
	tracepoint_synchronize_unregister();
}
