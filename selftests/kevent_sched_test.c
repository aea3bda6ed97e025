// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events of the sched class: a traced thread leaving
 * its CPU (state, priority, policy) and running again, woken (by whom),
 * moved to another CPU; only a traced process's threads, a wakeup of
 * another process included; refused to a user without CAP_PERFMON unless
 * root allows every user; the probes on only while a stream wants them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "kevent_common.h"

/* Fields of each type, by their index in its format. */
enum { OUT_STATE, OUT_PRIO, OUT_POLICY, OUT_CPU };
enum { IN_PRIO, IN_CPU };
enum { WAKE_PID, WAKE_TID, WAKE_CPU, WAKE_PRIO, WAKE_NEW };
enum { MIG_FROM, MIG_TO };

#define STATE_SLEEPING	1	/* "S": TASK_INTERRUPTIBLE's report bit */

/* The prio a SCHED_OTHER thread of this nice value reports. */
static int nice_prio(int nice)
{
	return 20 + nice;
}

/* This process's nice value (the suite may run under nice). */
static int own_nice(void)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, 0);
}

/* Whether thread tid of process pid sleeps ("S" in its stat). */
static bool sleeping(pid_t pid, pid_t tid)
{
	char state[256], path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, state, sizeof(state) - 1);
	close(fd);
	state[n > 0 ? n : 0] = '\0';
	return strstr(state, ") S ");
}

/* The index in l of the first user event named name at or after from. */
static int find_mark(const struct kevs *l, const char *name, int from)
{
	int i;

	for (i = from; i < l->n; i++)
		if (!strcmp(l->ev[i].name, name))
			return i;
	return -1;
}

/* The first event of type id of thread tid at or after from, or -1. */
static int find_sched(const struct kevs *l, trace_event_id_t id, pid_t tid,
		      int from, struct kev_val *v)
{
	int i;

	for (i = from; i >= 0 && i < l->n; i++)
		if (l->ev[i].info.posix_event_id == id && l->ev[i].tid == tid &&
		    kev_values(&l->ev[i], v))
			return i;
	return -1;
}

/*
 * The first switch-out of thread tid at or after from that slept (a
 * preemption may come first), or -1.
 */
static int find_sleep(const struct kevs *l, pid_t tid, int from,
		      struct kev_val *v)
{
	int i = find_sched(l, KEV_SCHED_OUT, tid, from, v);

	while (i >= 0 && v->v[OUT_STATE] != STATE_SLEEPING)
		i = find_sched(l, KEV_SCHED_OUT, tid, i + 1, v);
	return i;
}

/* Every sched event of l must be one of process pid's threads. */
static int only_of(const struct kevs *l, pid_t pid)
{
	int i, bad = 0, seen = 0;

	for (i = 0; i < l->n; i++) {
		if (kev_class(l->ev[i].info.posix_event_id) !=
		    POSIXTRACE_K_KERNEL_SCHED ||
		    !kev_kernel(l->ev[i].info.posix_event_id))
			continue;
		seen++;
		if (l->ev[i].info.posix_pid != pid) {
			fprintf(stderr, "# event %d of pid %d\n", i,
				(int)l->ev[i].info.posix_pid);
			bad++;
		}
	}
	return seen ? bad : -1;
}

/* ---- a blocking read woken by another traced thread --------------------- */

struct pipe_pair {
	int fd[2];
	pid_t reader_tid, writer_tid;
	int untraced[2];	/* a pipe an untraced process reads */
	pid_t other;		/* that process */
};

static void *reader(void *arg)
{
	struct pipe_pair *pp = arg;
	char c;

	__atomic_store_n(&pp->reader_tid, gettid(), __ATOMIC_RELEASE);
	kev_mark("kev.reader", 0);
	if (read(pp->fd[0], &c, 1) != 1)
		return (void *)1;
	kev_mark("kev.read", 0);
	return NULL;
}

/*
 * The child: a thread blocks in read() on a pipe; the main thread waits
 * until it sleeps there, marks, writes one byte, and also writes to a
 * pipe an untraced process reads (waking it).
 */
static int read_woken_by_write(void *arg)
{
	struct pipe_pair *pp = arg;
	pthread_t t;
	pid_t tid;
	void *ret;
	int i;

	pp->writer_tid = gettid();
	if (pipe(pp->fd) || pthread_create(&t, NULL, reader, pp))
		return 1;
	/* Until the reader and the untraced process both sleep in read(). */
	for (i = 0; i < 5000; i++) {
		usleep(1000);
		tid = __atomic_load_n(&pp->reader_tid, __ATOMIC_ACQUIRE);
		if (tid && sleeping(getpid(), tid) &&
		    sleeping(pp->other, pp->other))
			break;
	}
	if (i == 5000)
		return 2;
	kev_mark("kev.before", pp->reader_tid);
	if (write(pp->fd[1], "x", 1) != 1 ||
	    write(pp->untraced[1], "y", 1) != 1)
		return 3;
	if (pthread_join(t, &ret) || ret)
		return 4;
	kev_mark("kev.after", 0);
	return 0;
}

/*
 * A thread blocked in read() leaves its CPU sleeping (S); the write of
 * another thread of the process wakes it, naming that thread; it then
 * runs again, and reads. The untraced process that the child's write
 * woke too appears nowhere: every sched event is the child's.
 */
TEST(a_blocked_read_is_woken_by_the_writing_thread)
{
	struct pipe_pair pp = { 0 };
	struct kev_child k;
	struct kev_val v;
	struct kevs l;
	int before, out, wake, in, read_mark, i;
	pid_t other;
	char c;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, pipe(pp.untraced));
	other = fork();
	ASSERT_LE(0, other);
	if (!other) {
		close(pp.untraced[1]);
		_exit(read(pp.untraced[0], &c, 1) == 1 ? 0 : 1);
	}
	close(pp.untraced[0]);
	pp.other = other;
	ASSERT_EQ(0, kev_child_run(&k, POSIXTRACE_K_KERNEL_SCHED,
				   read_woken_by_write, &pp, &l));
	close(pp.untraced[1]);
	ASSERT_EQ(0, k.status);
	ASSERT_EQ(other, waitpid(other, &before, 0));
	/* The tids were the child's: read them back from its marks. */
	before = find_mark(&l, "kev.before", 0);
	ASSERT_LE(0, before);
	memcpy(&pp.reader_tid, l.ev[before].data, sizeof(pp.reader_tid));
	pp.writer_tid = l.ev[before].tid;
	EXPECT_EQ(k.pid, pp.writer_tid);
	/* Woken after the mark, by the writer, then on a CPU, then read. */
	wake = find_sched(&l, KEV_WAKEUP, pp.reader_tid, before, &v);
	ASSERT_LT(before, wake);
	EXPECT_EQ(k.pid, l.ev[wake].info.posix_pid);
	EXPECT_EQ(k.pid, v.v[WAKE_PID]);
	EXPECT_EQ(pp.writer_tid, v.v[WAKE_TID]);
	EXPECT_EQ(nice_prio(own_nice()), v.v[WAKE_PRIO]);
	EXPECT_EQ(0, v.v[WAKE_NEW]);
	in = find_sched(&l, KEV_SCHED_IN, pp.reader_tid, wake, &v);
	ASSERT_LT(wake, in);
	EXPECT_EQ(nice_prio(own_nice()), v.v[IN_PRIO]);
	/*
	 * The reader had gone to sleep in read(): its last switch-out before
	 * it runs again. Usually before the mark, but /proc says S once the
	 * reader has set its state, before it has left its CPU: a vCPU the
	 * host holds up there switches it out after the wakeup.
	 */
	out = -1;
	for (i = find_sched(&l, KEV_SCHED_OUT, pp.reader_tid, 0, &v);
	     i >= 0 && i < in;
	     i = find_sched(&l, KEV_SCHED_OUT, pp.reader_tid, i + 1, &v))
		out = i;
	ASSERT_LE(0, out);
	ASSERT_TRUE(kev_values(&l.ev[out], &v));
	EXPECT_EQ(STATE_SLEEPING, v.v[OUT_STATE]);
	EXPECT_EQ(nice_prio(own_nice()), v.v[OUT_PRIO]);
	EXPECT_EQ(SCHED_OTHER, v.v[OUT_POLICY]);
	read_mark = find_mark(&l, "kev.read", 0);
	EXPECT_LT(in, read_mark);
	EXPECT_EQ(0, only_of(&l, k.pid));
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

/* ---- priority and policy ------------------------------------------------ */

/*
 * A sleep that switches out: a short one may not, when its timer fires
 * before the thread gets to schedule() (a vCPU the host held up), and
 * then only the wakeup is recorded. Three chances.
 */
static void sleep_switched_out(void)
{
	for (int i = 0; i < 3; i++)
		usleep(2000);
}

/* Sleep, renice by 5, sleep again: switch-outs 5 apart. */
static int sleep_renice_sleep(void *arg)
{
	(void)arg;
	kev_mark("kev.before", 0);
	sleep_switched_out();
	if (setpriority(PRIO_PROCESS, 0, own_nice() + 5))
		return 1;
	kev_mark("kev.reniced", 0);
	sleep_switched_out();
	kev_mark("kev.after", 0);
	return 0;
}

/*
 * A priority change shows in the next switch-out and switch-in: nice n
 * is prio 20 + n before, n + 5 is 25 + n after, the policy SCHED_OTHER.
 */
TEST(a_priority_change_shows_in_the_next_switches)
{
	struct kev_child k;
	struct kev_val v;
	struct kevs l;
	int before, reniced, i, nice = own_nice();

	SKIP_WITHOUT_DEVICE();
	if (nice > 14)
		SKIP(return, "nice %d: no room to renice by 5", nice);
	ASSERT_EQ(0, kev_child_run(&k, POSIXTRACE_K_KERNEL_SCHED,
				   sleep_renice_sleep, NULL, &l));
	ASSERT_EQ(0, k.status);
	before = find_mark(&l, "kev.before", 0);
	reniced = find_mark(&l, "kev.reniced", 0);
	ASSERT_LT(before, reniced);
	i = find_sleep(&l, k.pid, before, &v);
	ASSERT_LT(before, i);
	ASSERT_LT(i, reniced);
	EXPECT_EQ(nice_prio(nice), v.v[OUT_PRIO]);
	EXPECT_EQ(SCHED_OTHER, v.v[OUT_POLICY]);
	i = find_sleep(&l, k.pid, reniced, &v);
	ASSERT_LT(reniced, i);
	EXPECT_EQ(nice_prio(nice + 5), v.v[OUT_PRIO]);
	EXPECT_EQ(SCHED_OTHER, v.v[OUT_POLICY]);
	i = find_sched(&l, KEV_SCHED_IN, k.pid, i, &v);
	ASSERT_LT(0, i);
	EXPECT_EQ(nice_prio(nice + 5), v.v[IN_PRIO]);
	EXPECT_EQ(0, only_of(&l, k.pid));
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

/* ---- migration ----------------------------------------------------------- */

/* Run on CPU 0, then only on CPU 1: the kernel moves the thread. */
static int move_to_cpu1(void *arg)
{
	cpu_set_t set;
	int cpu = -1;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || sched_getcpu() != 0)
		return 1;
	kev_mark("kev.before", 0);
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 2;
	cpu = sched_getcpu();
	kev_mark("kev.after", cpu);
	return cpu == 1 ? 0 : 3;
}

/* sched_setaffinity() to another CPU moves the thread: from 0 to 1. */
TEST(an_affinity_change_moves_the_thread)
{
	cpu_set_t allowed;
	struct kev_child k;
	struct kev_val v;
	struct kevs l;
	int before, after, i;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(allowed), &allowed));
	if (!CPU_ISSET(0, &allowed) || !CPU_ISSET(1, &allowed))
		SKIP(return, "CPUs 0 and 1 are not both ours");
	ASSERT_EQ(0, kev_child_run(&k, POSIXTRACE_K_KERNEL_SCHED,
				   move_to_cpu1, NULL, &l));
	ASSERT_EQ(0, k.status);
	before = find_mark(&l, "kev.before", 0);
	after = find_mark(&l, "kev.after", 0);
	ASSERT_LT(before, after);
	i = find_sched(&l, KEV_MIGRATE, k.pid, before, &v);
	ASSERT_LT(before, i);
	ASSERT_LT(i, after);
	EXPECT_EQ(0, v.v[MIG_FROM]);
	EXPECT_EQ(1, v.v[MIG_TO]);
	/* It then runs on CPU 1. */
	i = find_sched(&l, KEV_SCHED_IN, k.pid, i, &v);
	ASSERT_LT(0, i);
	EXPECT_EQ(1, v.v[IN_CPU]);
	EXPECT_EQ(0, only_of(&l, k.pid));
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

/* ---- a new thread -------------------------------------------------------- */

static void *nothing(void *arg)
{
	return arg;
}

static int start_a_thread(void *arg)
{
	pthread_t t;

	(void)arg;
	kev_mark("kev.before", 0);
	if (pthread_create(&t, NULL, nothing, NULL) || pthread_join(t, NULL))
		return 1;
	kev_mark("kev.after", 0);
	return 0;
}

/* A new thread's first wakeup is marked new, its waker the creator. */
TEST(a_new_thread_is_woken_by_its_creator)
{
	struct kev_child k;
	struct kev_val v;
	struct kevs l;
	int before, i;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, kev_child_run(&k, POSIXTRACE_K_KERNEL_SCHED,
				   start_a_thread, NULL, &l));
	ASSERT_EQ(0, k.status);
	before = find_mark(&l, "kev.before", 0);
	ASSERT_LE(0, before);
	for (i = before; i < l.n; i++)
		if (l.ev[i].info.posix_event_id == KEV_WAKEUP &&
		    l.ev[i].tid != k.pid)
			break;
	ASSERT_LT(i, l.n);
	ASSERT_TRUE(kev_values(&l.ev[i], &v));
	EXPECT_EQ(1, v.v[WAKE_NEW]);
	EXPECT_EQ(k.pid, v.v[WAKE_PID]);
	EXPECT_EQ(k.pid, v.v[WAKE_TID]);
	EXPECT_EQ(k.pid, l.ev[i].info.posix_pid);
	EXPECT_EQ(0, only_of(&l, k.pid));
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

/* ---- a log of every class ----------------------------------------------- */

/*
 * A log of every class (a burst: fork, exec, exit, signal; the system
 * calls and switches they make) reads back whole, and goes to the host,
 * which exports it as LTTng's kernel trace and reads it back with
 * babeltrace2 (tools/tests/lttng-export.sh; check.sh says why not
 * bt2-compare.sh too).
 */
TEST(a_log_of_every_class_reads_back_and_is_exported)
{
	struct posix_trace_event_info info;
	unsigned char data[KEV_DATA_MAX];
	unsigned int classes = 0;
	int fd, unavailable;
	trace_attr_t attr;
	trace_id_t trid;
	pid_t child;
	size_t len;

	SKIP_WITHOUT_DEVICE();
	fd = tmp_log();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kev_attr(&attr, POSIXTRACE_K_KERNEL_ALL,
			      POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, "kevent-all"));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr,
						       POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	kev_mark("kev.before", 0);
	ASSERT_EQ(0, kev_burst(&child));
	usleep(2000);
	kev_mark("kev.after", 0);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	/* Read back: each class is there. */
	ASSERT_EQ(0, posix_trace_open(fd, &trid));
	for (;;) {
		ASSERT_EQ(0, posix_trace_getnext_event(trid, &info, data,
						       sizeof(data), &len,
						       &unavailable));
		if (unavailable)
			break;
		if (kev_kernel(info.posix_event_id))
			classes |= kev_class(info.posix_event_id);
	}
	ASSERT_EQ(0, posix_trace_close(trid));
	EXPECT_EQ(POSIXTRACE_K_KERNEL_ALL, classes);
	ASSERT_TRUE(export_log(fd, getenv("POSIXTRACE_LOG_EXPORT"),
			       "kevent-all.lttng.ptlog"));
	close(fd);
}

/* ---- who may, and when the probes are on --------------------------------- */

TEST(the_class_needs_perfmon_unless_root_allows_every_user)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_PARANOID_GUARDS(POSIXTRACE_K_KERNEL_SCHED);
}

/* "No stream wants a class: no probe of ours registered", for sched. */
TEST(sched_probes_are_on_only_while_a_stream_wants_them)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_PROBES_FOLLOW_A_STREAM(POSIXTRACE_K_KERNEL_SCHED);
}

TEST_HARNESS_MAIN
