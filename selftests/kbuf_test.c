// SPDX-License-Identifier: GPL-2.0
/*
 * Events by system call from threads without a ring: the streams' per-CPU
 * buffers (kbufs).
 *
 * The flag that sends an event there is checked (unknown bits are EINVAL)
 * and the event recorded with its thread's ids; threads without rings keep
 * their order and every event is counted; a thread's events by system call
 * come before those of the ring it maps later, and a crowd of threads on
 * one CPU, which fills its buffer, keeps each one's; a stop right after them
 * keeps them, and what follows the stop is not recorded; a waiting reader
 * gets one at once, not at the timer; a producer killed right after them
 * loses none.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "trc_common.h"

#define DRAIN_MS_PARAM	PARAM_DIR "ring_drain_ms"
#define RING_SIZE_PARAM	PARAM_DIR "max_ring_size"
#define THREAD_EVENTS	2000
/* The most data a kbuf takes: a record of 176 bytes, 23 in a buffer. */
#define CROWD_DATA	128

/* POSIXTRACE_IOC_EVENT by hand, with @flags; 0 or an errno. */
static int raw_event(int dev, uint32_t flags, uint32_t id, uint64_t v)
{
	struct posixtrace_event ev = {
		.size = sizeof(ev),
		.flags = flags,
		.event_id = id,
		.data_len = sizeof(v),
		.data = (uintptr_t)&v,
	};

	return ioctl(dev, POSIXTRACE_IOC_EVENT, &ev) ? errno : 0;
}

/*
 * A running stream of this process (and its children, if @inherited),
 * 4 MiB: room for every event here.
 */
static int running_stream(trace_id_t *trid, bool inherited)
{
	trace_attr_t attr;
	int ret = posix_trace_attr_init(&attr);

	if (!ret)
		ret = posix_trace_attr_setstreamsize(&attr, 4 << 20);
	if (!ret)
		ret = posix_trace_attr_setmaxdatasize(&attr, CROWD_DATA);
	if (!ret)
		ret = posix_trace_attr_setinherited(&attr, inherited ?
						    POSIX_TRACE_INHERITED :
						    POSIX_TRACE_CLOSE_FOR_CHILD);
	if (!ret)
		ret = posix_trace_create(0, &attr, trid);
	if (!ret)
		ret = posix_trace_start(*trid);
	posix_trace_attr_destroy(&attr);
	return ret;
}

/*
 * Read the user events of type @id: their numbers (the first uint64_t of
 * their data) into @nums, in order; checks that times never go back.
 * Returns how many, or -1 on a bad record.
 */
static int read_numbers(trace_id_t trid, trace_event_id_t id, uint64_t *nums,
			int max)
{
	struct timespec last = { 0, 0 };
	struct rec r;
	int n = 0;

	while (!try_next(trid, &r) && !r.unavailable) {
		if (ts_cmp(&r.info.posix_timestamp, &last) < 0)
			return -1;
		last = r.info.posix_timestamp;
		if (r.info.posix_event_id != id)
			continue;
		if (r.len < sizeof(uint64_t) || n == max)
			return -1;
		memcpy(&nums[n++], r.data, sizeof(uint64_t));
	}
	return n;
}

TEST(raw_event_flags_other_than_ringless_are_einval)
{
	trace_event_set_t none;
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t v;
	struct rec r;
	int dev;

	SKIP_WITHOUT_DEVICE();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, posix_trace_eventid_open("kbuf.raw", &id));
	ASSERT_EQ(0, running_stream(&trid, false));
	ASSERT_EQ(EINVAL, raw_event(dev, 2, id, 1));
	ASSERT_EQ(EINVAL, raw_event(dev, POSIXTRACE_EVENT_RINGLESS | 2, id, 2));
	ASSERT_EQ(EINVAL, raw_event(dev, 1U << 31, id, 3));
	ASSERT_EQ(0, raw_event(dev, POSIXTRACE_EVENT_RINGLESS, id, 4));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_eventset_empty(&none));
	ASSERT_NEXT_START(trid, &r, &none);
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	memcpy(&v, r.data, sizeof(v));
	ASSERT_EQ(4, v);
	ASSERT_NEXT_STOP(trid, &r, 0);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	close(dev);
}

static void *emit_tagged(void *arg)
{
	trace_event_id_t id = *(trace_event_id_t *)arg;
	uint64_t tag = (uint64_t)syscall(SYS_gettid) << 32;

	for (uint64_t i = 0; i < THREAD_EVENTS; i++) {
		uint64_t v = tag | i;

		posix_trace_event(id, &v, sizeof(v));
	}
	return NULL;
}

TEST(threads_without_rings_keep_their_order_and_every_event_counts)
{
	static uint64_t nums[2 * THREAD_EVENTS + 1];
	uint64_t tags[2] = { 0, 0 }, next[2] = { 0, 0 };
	struct posixtrace_status st;
	trace_event_id_t id;
	pthread_t thr[2];
	trace_id_t trid;
	int n, i, t;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "0", 1));
	ASSERT_EQ(0, posix_trace_eventid_open("kbuf.threads", &id));
	ASSERT_EQ(0, running_stream(&trid, false));
	for (t = 0; t < 2; t++)
		ASSERT_EQ(0, pthread_create(&thr[t], NULL, emit_tagged, &id));
	for (t = 0; t < 2; t++)
		ASSERT_EQ(0, pthread_join(thr[t], NULL));
	ASSERT_FALSE(ring_mapped(getpid()));
	ASSERT_EQ(0, posix_trace_stop(trid));
	n = read_numbers(trid, id, nums, 2 * THREAD_EVENTS + 1);
	ASSERT_EQ(2 * THREAD_EVENTS, n);
	for (i = 0; i < n; i++) {
		for (t = 0; t < 2 && tags[t] && tags[t] != nums[i] >> 32; t++)
			;
		ASSERT_GT(2, t);
		tags[t] = nums[i] >> 32;
		ASSERT_EQ(next[t], nums[i] & 0xffffffff);
		next[t]++;
	}
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, st.events_lost);
	/* Each thread's, the START and the STOP. */
	ASSERT_EQ(2 * THREAD_EVENTS + 2, st.events_recorded);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

#define CROWD		64
#define CROWD_EVENTS	300

struct crowd {
	trace_event_id_t id;
	atomic_int ready;
	atomic_int go;
};

/*
 * Half the crowd pinned to CPU 0 (one kbuf for them, filled faster, with
 * the largest records it takes), half free to move between CPUs (their
 * events in several kbufs, merged).
 */
static void *emit_crowded(void *arg)
{
	struct crowd *c = arg;
	uint64_t tag = (uint64_t)syscall(SYS_gettid) << 32;
	cpu_set_t one;

	if (atomic_fetch_add(&c->ready, 1) % 2 == 0) {
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	while (!atomic_load(&c->go))
		sched_yield();
	for (uint64_t i = 0; i < CROWD_EVENTS; i++) {
		uint64_t v[CROWD_DATA / 8] = { tag | i };

		posix_trace_event(c->id, v, sizeof(v));
	}
	return NULL;
}

/*
 * Many writers at once: a thread's events, merged from the buffers of the
 * CPUs it ran on, stay in its order, and none is lost. Writers on one CPU
 * may outrun the drains (each drains after its write, one at a time) and
 * fill a buffer, which must not change that either; how often that
 * happens here is up to the scheduler (preempted in the drain's mutex).
 */
TEST(a_crowd_of_writers_keeps_each_threads_order)
{
	static uint64_t nums[CROWD * CROWD_EVENTS + 1];
	static uint64_t tags[CROWD], next[CROWD];
	struct crowd c = { 0 };
	struct posixtrace_status st;
	pthread_t thr[CROWD];
	trace_id_t trid;
	int n, i, t;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "0", 1));
	ASSERT_EQ(0, posix_trace_eventid_open("kbuf.crowd", &c.id));
	ASSERT_EQ(0, running_stream(&trid, false));
	for (t = 0; t < CROWD; t++)
		ASSERT_EQ(0, pthread_create(&thr[t], NULL, emit_crowded, &c));
	while (atomic_load(&c.ready) < CROWD)
		usleep(1000);
	atomic_store(&c.go, 1);
	for (t = 0; t < CROWD; t++)
		ASSERT_EQ(0, pthread_join(thr[t], NULL));
	ASSERT_EQ(0, posix_trace_stop(trid));
	n = read_numbers(trid, c.id, nums, CROWD * CROWD_EVENTS + 1);
	ASSERT_EQ(CROWD * CROWD_EVENTS, n);
	for (i = 0; i < n; i++) {
		for (t = 0; t < CROWD && tags[t] && tags[t] != nums[i] >> 32;
		     t++)
			;
		ASSERT_GT(CROWD, t);
		tags[t] = nums[i] >> 32;
		ASSERT_EQ(next[t], nums[i] & 0xffffffff);
		next[t]++;
	}
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, st.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

TEST(a_threads_events_by_system_call_come_before_its_rings)
{
	uint64_t nums[201];
	trace_event_id_t id;
	int dev, n, i, max_ring;
	trace_id_t trid;

	SKIP_WITHOUT_DEVICE();
	ASSERT_TRUE(param_read(RING_SIZE_PARAM, &max_ring));
	if (!max_ring)
		SKIP(return, "rings are off (max_ring_size 0)");
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, posix_trace_eventid_open("kbuf.then.ring", &id));
	ASSERT_EQ(0, running_stream(&trid, false));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, raw_event(dev, POSIXTRACE_EVENT_RINGLESS, id, i));
	for (uint64_t k = 100; k < 200; k++)
		posix_trace_event(id, &k, sizeof(k));
	ASSERT_TRUE(ring_mapped(getpid()));
	ASSERT_EQ(0, posix_trace_stop(trid));
	n = read_numbers(trid, id, nums, 201);
	ASSERT_EQ(200, n);
	for (i = 0; i < n; i++)
		ASSERT_EQ(i, nums[i]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	close(dev);
}

TEST(a_stop_keeps_what_came_before_it_and_nothing_after)
{
	trace_event_set_t none;
	uint64_t nums[201];
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	int n, i;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "0", 1));
	ASSERT_EQ(0, posix_trace_eventid_open("kbuf.stop", &id));
	ASSERT_EQ(0, running_stream(&trid, false));
	ASSERT_EQ(0, posix_trace_eventset_empty(&none));
	ASSERT_NEXT_START(trid, &r, &none);
	for (uint64_t k = 0; k < 100; k++)
		posix_trace_event(id, &k, sizeof(k));
	ASSERT_EQ(0, posix_trace_stop(trid));
	for (uint64_t k = 100; k < 200; k++)
		posix_trace_event(id, &k, sizeof(k));
	ASSERT_FALSE(ring_mapped(getpid()));
	for (i = 0; i < 100; i++) {
		ASSERT_NEXT(trid, &r, id);
		memcpy(&nums[i], r.data, sizeof(nums[i]));
		ASSERT_EQ(i, nums[i]);
	}
	ASSERT_NEXT_STOP(trid, &r, 0);
	n = read_numbers(trid, id, nums, 201);
	ASSERT_EQ(0, n);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

struct waiting_reader {
	trace_id_t trid;
	trace_event_id_t id;
	atomic_int got;
	atomic_int err;
};

static void *read_one(void *arg)
{
	struct waiting_reader *wr = arg;
	struct posix_trace_event_info info;
	struct timespec deadline;
	char data[64];
	size_t len;
	int unavailable, err;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 8;
	do {
		err = posix_trace_timedgetnext_event(wr->trid, &info, data,
						     sizeof(data), &len,
						     &unavailable, &deadline);
	} while (!err && !unavailable && info.posix_event_id != wr->id);
	atomic_store(&wr->err, err ? err : unavailable ? -1 : 0);
	atomic_store(&wr->got, 1);
	return NULL;
}

TEST(a_waiting_reader_gets_an_event_by_system_call_at_once)
{
	struct waiting_reader wr = { 0 };
	struct timespec t0, t1;
	int drain_ms, ms;
	uint64_t k = 7;
	pthread_t rd;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "0", 1));
	ASSERT_EQ(0, posix_trace_eventid_open("kbuf.wait", &wr.id));
	ASSERT_TRUE(param_read(DRAIN_MS_PARAM, &drain_ms));
	ASSERT_TRUE(param_write(DRAIN_MS_PARAM, 10000));
	ASSERT_EQ(0, running_stream(&wr.trid, false));
	ASSERT_EQ(0, pthread_create(&rd, NULL, read_one, &wr));
	/* The START read, the reader waits for the next. */
	usleep(300000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	posix_trace_event(wr.id, &k, sizeof(k));
	for (ms = 0; ms < 8000 && !atomic_load(&wr.got); ms++)
		usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_TRUE(param_write(DRAIN_MS_PARAM, drain_ms));
	ASSERT_EQ(0, pthread_join(rd, NULL));
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	TH_LOG("the reader had the event after %d ms", ms);
	ASSERT_EQ(0, atomic_load(&wr.err));
	/* Not the timer's 10 s: the event's own call drained. */
	ASSERT_GT(5000, ms);
	ASSERT_EQ(0, posix_trace_shutdown(wr.trid));
}

TEST(a_producer_killed_right_after_its_events_loses_none)
{
	uint64_t nums[501];
	trace_event_id_t id;
	trace_id_t trid;
	int pipefd[2], status;
	pid_t child;
	char c;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("kbuf.killed", &id));
	ASSERT_EQ(0, running_stream(&trid, true));
	ASSERT_EQ(0, pipe(pipefd));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		setenv("POSIXTRACE_RING_SIZE", "0", 1);
		for (uint64_t k = 0; k < 500; k++)
			posix_trace_event(id, &k, sizeof(k));
		if (ring_mapped(getpid()) || write(pipefd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(500, read_numbers(trid, id, nums, 501));
	for (int i = 0; i < 500; i++)
		ASSERT_EQ(i, nums[i]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	close(pipefd[0]);
}

TEST_HARNESS_MAIN
