// SPDX-License-Identifier: GPL-2.0
/*
 * A realtime producer and the readers it starves: nothing uncounted.
 *
 * With RT throttling off (sched_rt_runtime_us -1), a SCHED_FIFO thread at
 * the highest priority, pinned to CPU 0, records events flat out while
 * the threads that would take them run on that same CPU: a reader in
 * posix_trace_timedgetnext_event() on a LOOP stream, and the log writer
 * (the module's ptlog kernel thread) of a FLUSH stream with a log. They
 * cannot run until it stops: had recording waited for them for good, the
 * producer would never finish (the test demotes it after a minute and
 * fails), and it must not have waited at all: its voluntary context
 * switches during the loop are none (a realtime thread's event never
 * waits for a drain: drain.h). Afterwards the reader and the log catch
 * up, and every event is accounted for exactly: read + counted lost =
 * emitted in the LOOP stream, logged + counted lost = emitted in the
 * FLUSH stream.
 *
 * The producer's ring is grown to its size before it turns realtime: a
 * ring's growth maps pages and takes the drain mutex, which a realtime
 * thread should do before its deadline loop.
 */

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include <posixtrace-k.h>

#include "trl_common.h"

#define RT_RUNTIME	"/proc/sys/kernel/sched_rt_runtime_us"
#define WARM_EVENTS	20000
#define RT_EVENTS	300000
#define STREAM_SIZE	(1 << 20)

struct rt_run {
	trace_event_id_t id;
	trace_id_t loop, logged;
	atomic_bool reader_stop;
	atomic_int phase;	/* 1 warm, 2 realtime, 3 done */
	long switches;		/* voluntary, during the realtime loop */
	int error;
	uint64_t read;		/* the reader's events of @id */
};

static bool pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !pthread_setaffinity_np(t, sizeof(set), &set);
}

/* The calling thread's voluntary context switches; -1 if unknown. */
static long voluntary_switches(void)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", gettid());
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void *producer(void *arg)
{
	struct sched_param sp = {
		.sched_priority = sched_get_priority_max(SCHED_FIFO),
	};
	struct sched_param other = { .sched_priority = 0 };
	struct rt_run *run = arg;
	long before;

	/* Its ring grows to its size while it is an ordinary thread. */
	emit_numbered(run->id, 0, WARM_EVENTS);
	run->error = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (run->error)
		goto out;
	atomic_store(&run->phase, 2);
	before = voluntary_switches();
	emit_numbered(run->id, WARM_EVENTS, RT_EVENTS);
	run->switches = voluntary_switches() - before;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
out:
	atomic_store(&run->phase, 3);
	return NULL;
}

/* The LOOP stream's reader: every event of @id until told to stop. */
static void *reader(void *arg)
{
	struct posix_trace_event_info info;
	struct rt_run *run = arg;
	struct timespec until;
	uint64_t data;
	size_t len;
	int unavailable, ret;

	for (;;) {
		until = realtime_in_ms(50);
		ret = posix_trace_timedgetnext_event(run->loop, &info, &data,
						     sizeof(data), &len,
						     &unavailable, &until);
		if (ret == ETIMEDOUT && atomic_load(&run->reader_stop))
			break;
		if (ret && ret != ETIMEDOUT)
			break;
		if (!ret && !unavailable && info.posix_event_id == run->id)
			run->read++;
	}
	return NULL;
}

FIXTURE(rt) {
	int runtime;		/* sched_rt_runtime_us before; 0: not read */
	int log_fd;
	struct rt_run run;
};

/* The CPU the producer shares with the threads it starves. */
FIXTURE_VARIANT(rt) {
	int cpu;
};

FIXTURE_VARIANT_ADD(rt, default) {
	.cpu = 0,
};

FIXTURE_SETUP(rt)
{
	self->runtime = 0;
	self->log_fd = -1;
	memset(&self->run, 0, sizeof(self->run));
	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root: SCHED_FIFO and %s", RT_RUNTIME);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs a second CPU for the test itself");
	if (!param_read(RT_RUNTIME, &self->runtime))
		SKIP(return, "no %s", RT_RUNTIME);
	ASSERT_TRUE(param_write(RT_RUNTIME, -1));
}

FIXTURE_TEARDOWN(rt)
{
	if (self->runtime)
		param_write(RT_RUNTIME, self->runtime);
	if (self->log_fd >= 0)
		close(self->log_fd);
}

/*
 * The run: both streams, the reader and the log writer on CPU 0 with the
 * producer; every event accounted for in both. Leaves the producer's
 * voluntary switches during its realtime loop in @run->switches.
 */
static void rt_scenario(struct __test_metadata *_metadata,
			FIXTURE_DATA(rt) *self, int cpu)
{
	struct rt_run *run = &self->run;
	struct posixtrace_status loop_st, log_st;
	const uint64_t emitted = WARM_EVENTS + RT_EVENTS;
	trace_attr_t attr;
	pthread_t prod, rd;
	struct logbuf lb;
	uint64_t logged = 0;
	int fds[2] = { -1, -1 }, log_stream, i;

	/* Main on another CPU: it watches, and rescues a stuck producer. */
	ASSERT_TRUE(pin(pthread_self(), !cpu));
	ASSERT_EQ(0, posix_trace_eventid_open("rt.event", &run->id));
	self->log_fd = tmp_log();
	ASSERT_LE(0, self->log_fd);
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND,
			      STREAM_SIZE, 0));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, self->log_fd,
						&run->logged));
	ASSERT_EQ(1, stream_fds(fds, 1));
	log_stream = fds[0];
	ASSERT_TRUE(pin_log_writer(getpid(), cpu));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_LOOP, 0, STREAM_SIZE, 0));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &run->loop));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_start(run->logged));
	ASSERT_EQ(0, posix_trace_start(run->loop));

	ASSERT_EQ(0, pthread_create(&rd, NULL, reader, run));
	ASSERT_TRUE(pin(rd, cpu));
	atomic_store(&run->phase, 1);
	ASSERT_EQ(0, pthread_create(&prod, NULL, producer, run));
	ASSERT_TRUE(pin(prod, cpu));
	/* A minute for 300,000 events; one that waited for good is let go. */
	if (!WAIT_UNTIL(atomic_load(&run->phase) == 3, 60000)) {
		struct sched_param other = { .sched_priority = 0 };

		pthread_setschedparam(prod, SCHED_OTHER, &other);
		ASSERT_TRUE(WAIT_UNTIL(atomic_load(&run->phase) == 3, 60000));
		ASSERT_TRUE(false) {
			TH_LOG("the realtime producer did not finish in a minute");
		}
	}
	ASSERT_EQ(0, pthread_join(prod, NULL));
	ASSERT_EQ(0, run->error);

	/* The reader and the log catch up, now that the CPU is theirs. */
	ASSERT_EQ(0, posix_trace_stop(run->loop));
	ASSERT_EQ(0, posix_trace_stop(run->logged));
	atomic_store(&run->reader_stop, true);
	ASSERT_EQ(0, pthread_join(rd, NULL));
	ASSERT_EQ(2, stream_fds(fds, 2));
	ASSERT_EQ(0, stream_status(fds[0] == log_stream ? fds[1] : fds[0],
				   &loop_st));
	EXPECT_EQ(emitted, run->read + loop_st.events_lost) {
		TH_LOG("LOOP: %llu read, %llu lost, %llu emitted",
		       (unsigned long long)run->read,
		       (unsigned long long)loop_st.events_lost,
		       (unsigned long long)emitted);
	}
	ASSERT_EQ(0, posix_trace_flush(run->logged));
	ASSERT_EQ(0, wait_flushed(run->logged));
	ASSERT_EQ(0, stream_status(log_stream, &log_st));
	ASSERT_EQ(0, posix_trace_shutdown(run->logged));
	ASSERT_EQ(0, posix_trace_shutdown(run->loop));
	ASSERT_EQ(0, read_log(self->log_fd, &lb));
	for (i = 0; i < lb.n; i++)
		if (lb.ev[i].info.posix_event_id == run->id)
			logged++;
	free_log(&lb);
	EXPECT_EQ(0, log_st.log_events_discarded);
	EXPECT_EQ(emitted, logged + log_st.events_lost) {
		TH_LOG("FLUSH: %llu logged, %llu lost, %llu emitted",
		       (unsigned long long)logged,
		       (unsigned long long)log_st.events_lost,
		       (unsigned long long)emitted);
	}
}

/*
 * Starved of their CPU, the reader and the log lose nothing uncounted,
 * and the producer never waited for them, nor for anything else: a full
 * ring's event is lost, counted, rather than wait for a drain, and a kick
 * never waits for a reader's turn or the drain lock.
 */
TEST_F_TIMEOUT(rt, every_event_of_a_fifo_producer_is_counted, 300)
{
	rt_scenario(_metadata, self, variant->cpu);
	EXPECT_EQ(0, self->run.switches) {
		TH_LOG("the realtime producer slept %ld times in %d events",
		       self->run.switches, RT_EVENTS);
	}
}

/*
 * A realtime thread's event by system call checks what any event does:
 * a name of the process, data it can read. Raw, so that the library's
 * own checks come second. Needs no throttling change: it records a few.
 */
TEST(fifo_event_by_system_call_checks_its_input)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct sched_param other = { .sched_priority = 0 };
	struct posixtrace_event req = { .size = sizeof(req) };
	struct posixtrace_status before, st;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t data = 42;
	int dev, fds[1] = { -1 };

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root: SCHED_FIFO");
	ASSERT_EQ(0, posix_trace_eventid_open("rt.checked", &id));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_LOOP, 0, STREAM_SIZE, 0));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(1, stream_fds(fds, 1));
	ASSERT_EQ(0, stream_status(fds[0], &before));
	dev = open("/dev/posixtrace", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));

	/* A name the process never opened. */
	req.event_id = id + 1000;
	EXPECT_EQ(-1, ioctl(dev, POSIXTRACE_IOC_EVENT, &req));
	EXPECT_EQ(EINVAL, errno);
	/* Data it cannot read. */
	req.event_id = id;
	req.data = 8;
	req.data_len = sizeof(data);
	EXPECT_EQ(-1, ioctl(dev, POSIXTRACE_IOC_EVENT, &req));
	EXPECT_EQ(EFAULT, errno);
	/* A flag that does not exist. */
	req.data = (uintptr_t)&data;
	req.flags = ~POSIXTRACE_EVENT_RINGLESS;
	EXPECT_EQ(-1, ioctl(dev, POSIXTRACE_IOC_EVENT, &req));
	EXPECT_EQ(EINVAL, errno);
	/* And one that is right: recorded (ringless: into a kbuf). */
	req.flags = POSIXTRACE_EVENT_RINGLESS;
	EXPECT_EQ(0, ioctl(dev, POSIXTRACE_IOC_EVENT, &req));

	ASSERT_EQ(0, pthread_setschedparam(pthread_self(), SCHED_OTHER,
					   &other));
	close(dev);
	/* A status drains first: the kbuf's event is in. */
	ASSERT_EQ(0, stream_status(fds[0], &st));
	EXPECT_EQ(before.events_recorded + 1, st.events_recorded);
	EXPECT_EQ(0, st.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* @id by system call from this thread at SCHED_FIFO, without a flag. */
static int fifo_event(int dev, trace_event_id_t id)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct sched_param other = { .sched_priority = 0 };
	uint64_t data = id;
	struct posixtrace_event req = {
		.size = sizeof(req),
		.event_id = id,
		.data = (uintptr_t)&data,
		.data_len = sizeof(data),
	};
	int ret;

	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		return -1;
	ret = ioctl(dev, POSIXTRACE_IOC_EVENT, &req) ? -errno : 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
	return ret;
}

/*
 * A realtime thread's event that would wait for a drain (its ring is
 * open: it came after what the ring holds) is lost, counted as the
 * stream would judge it stored: not when filtered out, nor while the
 * stream is stopped; and a clear takes its overrun with the rest. With
 * rings off, the same events go to the kbufs and are recorded.
 */
TEST(fifo_events_behind_a_ring_are_lost_as_the_stream_judges)
{
	struct posixtrace_status s0, s1, s2;
	trace_event_id_t a, b;
	trace_event_set_t set;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t v = 1;
	int dev, fds[1] = { -1 };
	bool ring;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root: SCHED_FIFO");
	ASSERT_EQ(0, posix_trace_eventid_open("rt.kept", &a));
	ASSERT_EQ(0, posix_trace_eventid_open("rt.filtered", &b));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_LOOP, 0, STREAM_SIZE, 0));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_start(trid));
	posix_trace_eventset_empty(&set);
	posix_trace_eventset_add(b, &set);
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set,
					    POSIX_TRACE_SET_EVENTSET));
	/* The library maps this thread's ring at its first event. */
	posix_trace_event(a, &v, sizeof(v));
	ring = ring_mapped(getpid());
	dev = open("/dev/posixtrace", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(1, stream_fds(fds, 1));
	ASSERT_EQ(0, stream_status(fds[0], &s0));

	ASSERT_EQ(0, fifo_event(dev, a));
	ASSERT_EQ(0, fifo_event(dev, b));
	if (ring) {
		/* Lost before the clear: its overrun goes with it. */
		ASSERT_EQ(0, posix_trace_clear(trid));
		ASSERT_EQ(0, stream_status(fds[0], &s1));
		EXPECT_EQ(s0.events_lost + 1, s1.events_lost);
		EXPECT_EQ(POSIX_TRACE_NO_OVERRUN, s1.overrun_status);
		ASSERT_EQ(0, fifo_event(dev, a));
		ASSERT_EQ(0, stream_status(fds[0], &s2));
		EXPECT_EQ(s1.events_lost + 1, s2.events_lost);
		EXPECT_EQ(s1.events_recorded, s2.events_recorded);
		EXPECT_EQ(POSIX_TRACE_OVERRUN, s2.overrun_status);
	} else {
		ASSERT_EQ(0, stream_status(fds[0], &s1));
		TH_LOG("no thread ring: the events go to the kbufs");
		EXPECT_EQ(s0.events_lost, s1.events_lost);
		EXPECT_EQ(s0.events_recorded + 1, s1.events_recorded);
	}

	/* Made while stopped: not generated, not lost. */
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, stream_status(fds[0], &s1));
	ASSERT_EQ(0, fifo_event(dev, a));
	ASSERT_EQ(0, stream_status(fds[0], &s2));
	EXPECT_EQ(s1.events_lost, s2.events_lost);
	EXPECT_EQ(s1.events_recorded, s2.events_recorded);
	close(dev);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

TEST_HARNESS_MAIN
