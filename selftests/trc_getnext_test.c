// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a trace stream (POSIX Trace option, TRC): getnext blocks on an
 * empty stream until a producer records an event or the stream is shut
 * down ([EINVAL]); trygetnext never blocks; timedgetnext times out at an
 * absolute CLOCK_REALTIME time ([ETIMEDOUT]), never when an event is
 * available, and refuses an invalid abstime only when it would wait
 * ([EINVAL]); a signal interrupts a blocked reader ([EINTR]) unless its
 * handler has SA_RESTART. Events are reported oldest first, each once,
 * also to several readers of one trid. A trid shut down under its readers
 * gives them EINVAL, then and ever after, whatever stream takes its place;
 * a child's first read of its parent's trid is EINVAL.
 *
 * A blocked reader is recognised from /proc: its thread sleeps in ioctl(),
 * or in futex() when it waits behind another reader of the same trid. No
 * test sleeps to let something happen.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <posixtrace-k.h>

#include "trc_common.h"

#define NSEC_PER_SEC 1000000000L

static struct timespec realtime_in(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= NSEC_PER_SEC) {
		ts.tv_sec++;
		ts.tv_nsec -= NSEC_PER_SEC;
	} else if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NSEC_PER_SEC;
	}
	return ts;
}

/* timedgetnext into r; returns its error number. */
static int timed_next(trace_id_t trid, struct rec *r,
		      const struct timespec *abstime)
{
	rec_clear(r);
	return posix_trace_timedgetnext_event(trid, &r->info, r->data,
					      sizeof(r->data), &r->len,
					      &r->unavailable, abstime);
}

/* getnext into r; returns its error number. */
static int get_next(trace_id_t trid, struct rec *r)
{
	rec_clear(r);
	return posix_trace_getnext_event(trid, &r->info, r->data,
					 sizeof(r->data), &r->len,
					 &r->unavailable);
}

/* The system call a thread sleeps in, -1 if running or unknown. */
static long thread_syscall(pid_t tid)
{
	char path[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr;
}

/*
 * Wait (up to 10 s, polling each ms) until thread tid sleeps in a system
 * call: ioctl(), the call every read of the stream makes, or with
 * any_wait also futex(), where a second reader of the same trid may wait
 * for the first one. Returns the call, or -1 if the thread never slept
 * so. Without /proc/.../syscall, a sleeping thread is taken as blocked.
 */
static long wait_blocked(pid_t tid, bool any_wait)
{
	char path[64];
	bool have_syscall;
	long nr;
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	have_syscall = access(path, R_OK) == 0;
	for (i = 0; i < 10000; i++) {
		if (thread_state(tid) == 'S') {
			if (!have_syscall)
				return SYS_ioctl;
			nr = thread_syscall(tid);
			if (nr == SYS_ioctl || (any_wait && nr == SYS_futex))
				return nr;
		}
		usleep(1000);
	}
	return -1;
}

static bool wait_blocked_in_ioctl(pid_t tid)
{
	return wait_blocked(tid, false) == SYS_ioctl;
}

enum read_kind { READ_GETNEXT, READ_TIMED };

/* A reader thread: one read of the given kind, its result published. */
struct reader {
	trace_id_t trid;
	enum read_kind kind;
	struct timespec abstime;
	atomic_int tid;
	atomic_bool done;
	int ret;
	struct rec r;
};

/* A read of the given kind into r; returns its error number. */
static int read_next(trace_id_t trid, struct rec *r, enum read_kind kind,
		     const struct timespec *abstime)
{
	if (kind == READ_TIMED)
		return timed_next(trid, r, abstime);
	return get_next(trid, r);
}

static void *reader_thread(void *arg)
{
	struct reader *rd = arg;

	atomic_store(&rd->tid, (int)gettid());
	rd->ret = read_next(rd->trid, &rd->r, rd->kind, &rd->abstime);
	atomic_store(&rd->done, true);
	return NULL;
}

static pid_t reader_tid(struct reader *rd)
{
	int i;

	for (i = 0; i < 10000 && !atomic_load(&rd->tid); i++)
		usleep(1000);
	return atomic_load(&rd->tid);
}

/* Wait up to ms for the reader to return. */
static bool reader_done_within(struct reader *rd, int ms)
{
	int i;

	for (i = 0; i < ms && !atomic_load(&rd->done); i++)
		usleep(1000);
	return atomic_load(&rd->done);
}

/* Start a reader thread of the given kind on trid; wait for its tid. */
static void start_reader(struct __test_metadata *_metadata,
			 struct reader *rd, pthread_t *thr, trace_id_t trid,
			 enum read_kind kind)
{
	memset(rd, 0, sizeof(*rd));
	rd->trid = trid;
	rd->kind = kind;
	rd->abstime = realtime_in(25000);
	ASSERT_EQ(0, pthread_create(thr, NULL, reader_thread, rd));
	ASSERT_NE(0, reader_tid(rd));
}

/* Handle SIGUSR1 with handler, and the given sa_flags. */
static void handle_sigusr1(struct __test_metadata *_metadata,
			   void (*handler)(int), int flags)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = flags };

	ASSERT_EQ(0, sigemptyset(&sa.sa_mask));
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
}

FIXTURE(rd) {
	trace_attr_t attr;
	trace_id_t trid;
	trace_event_id_t id;
	bool created;
};

FIXTURE_SETUP(rd)
{
	self->created = false;
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&self->attr, 65536));
	ASSERT_EQ(0, create_stream(&self->attr, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_eventid_open("rd_event", &self->id));
}

FIXTURE_TEARDOWN(rd)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	posix_trace_attr_destroy(&self->attr);
}

/*
 * Start the stream and read its START; then start a reader of the given
 * kind, which must block in the kernel.
 */
static void start_blocked_reader(struct __test_metadata *_metadata,
				 FIXTURE_DATA(rd) *self, struct reader *rd,
				 pthread_t *thr, enum read_kind kind)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	start_reader(_metadata, rd, thr, self->trid, kind);
	ASSERT_TRUE(wait_blocked_in_ioctl(atomic_load(&rd->tid)));
}

/*
 * A batch its reader cannot be given (its buffer faults) is out of the
 * stream already: lost, and counted so, never silently: the module's
 * count, an overrun, and OVERFLOW and RESUME before the next event.
 */
TEST_F(rd, a_read_into_a_bad_buffer_counts_what_it_loses)
{
	struct posixtrace_getnext gn = {
		.size = sizeof(gn), .flags = POSIXTRACE_GETNEXT_NONBLOCK,
		.buf_size = 4096,
	};
	struct posix_trace_status_info st;
	struct posixtrace_status kst;
	struct rec r;
	uint64_t i;
	void *none;
	int fd;

	none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	gn.buf = (uintptr_t)none;
	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 10; i++)
		posix_trace_event(self->id, &i, sizeof(i));
	fd = stream_fd();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, POSIXTRACE_IOC_GETNEXT, &gn));
	EXPECT_EQ(EFAULT, errno);
	/* An overrun (reading the status resets it), then the counts. */
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_stream_overrun_status);
	/* START and the ten: none read, all lost. */
	ASSERT_EQ(0, stream_status(fd, &kst));
	EXPECT_EQ(11, kst.events_lost);
	EXPECT_EQ(0, kst.events_read);
	for (i = 10; i < 15; i++)
		posix_trace_event(self->id, &i, sizeof(i));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_OVERFLOW);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_RESUME);
	ASSERT_NEXT_NUMBERED(self->trid, &r, self->id, 10);
	munmap(none, 4096);
}

TEST_F(rd, trygetnext_on_empty_suspended_stream_sets_unavailable)
{
	struct rec r;

	ASSERT_EQ(0, try_next(self->trid, &r));
	ASSERT_NE(0, r.unavailable);
}

TEST_F(rd, trygetnext_on_empty_running_stream_sets_unavailable)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(0, try_next(self->trid, &r));
	ASSERT_NE(0, r.unavailable);
	/* Again: an empty stream stays a success with nothing reported. */
	ASSERT_EQ(0, try_next(self->trid, &r));
	ASSERT_NE(0, r.unavailable);
}

TEST_F(rd, events_reported_oldest_first_and_only_once)
{
	struct rec r;
	uint32_t i, got;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 50; i++)
		posix_trace_event(self->id, &i, sizeof(i));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	for (i = 0; i < 50; i++) {
		ASSERT_NEXT(self->trid, &r, self->id);
		memcpy(&got, r.data, sizeof(got));
		ASSERT_EQ(i, got);
	}
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * Nothing lost, each event read carries the stream's next number, START's
 * first, whether it was stored in the stream or went from where it was
 * made (the thread's ring, or the stream's buffer for a CPU) straight
 * into the reader's batch.
 */
static void read_numbers_in_a_row(struct __test_metadata *_metadata,
				  FIXTURE_DATA(rd) *self)
{
	uint64_t seq, first;
	struct rec r;
	uint32_t i;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(0, posixtrace_k_event_seq(self->trid, &first));
	for (i = 0; i < 100; i++)
		posix_trace_event(self->id, &i, sizeof(i));
	for (i = 0; i < 100; i++) {
		ASSERT_NEXT(self->trid, &r, self->id);
		ASSERT_EQ(0, posixtrace_k_event_seq(self->trid, &seq));
		ASSERT_EQ(first + 1 + i, seq);
	}
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(rd, events_read_carry_the_streams_numbers_one_after_another)
{
	read_numbers_in_a_row(_metadata, self);
}

/* The same with no ring: every event by system call, into a kbuf. */
TEST_F(rd, events_made_by_system_call_carry_the_streams_numbers_too)
{
	/* Before the first event, which reads it. */
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "0", 1));
	read_numbers_in_a_row(_metadata, self);
}

TEST_F(rd, getnext_timedgetnext_trygetnext_share_one_read_position)
{
	struct timespec abstime = realtime_in(10000);
	struct rec r;
	uint32_t i, got;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 3; i++)
		posix_trace_event(self->id, &i, sizeof(i));
	ASSERT_EQ(0, get_next(self->trid, &r));
	ASSERT_EQ(0, r.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, r.info.posix_event_id);
	ASSERT_EQ(0, timed_next(self->trid, &r, &abstime));
	ASSERT_EQ(0, r.unavailable);
	memcpy(&got, r.data, sizeof(got));
	ASSERT_EQ(0, got);
	ASSERT_EQ(0, try_next(self->trid, &r));
	ASSERT_EQ(0, r.unavailable);
	memcpy(&got, r.data, sizeof(got));
	ASSERT_EQ(1, got);
	ASSERT_EQ(0, get_next(self->trid, &r));
	ASSERT_EQ(0, r.unavailable);
	memcpy(&got, r.data, sizeof(got));
	ASSERT_EQ(2, got);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_F(rd, getnext_with_event_available_returns_it)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, get_next(self->trid, &r));
	ASSERT_EQ(0, r.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, r.info.posix_event_id);
}

struct producer {
	trace_id_t trid;
	trace_event_id_t id;
	pid_t reader;
	bool saw_blocked;
	uint32_t value;
	int ret;
};

/* Once the reader sleeps in the kernel, record one event. */
static void *producer_thread(void *arg)
{
	struct producer *p = arg;

	p->saw_blocked = wait_blocked_in_ioctl(p->reader);
	posix_trace_event(p->id, &p->value, sizeof(p->value));
	return NULL;
}

/*
 * Start the stream and read its START; then a read of the given kind (a
 * timed one with 20 s to go) must block until a producer thread records
 * an event with value, and return an event into r.
 */
static void read_woken_by_producer(struct __test_metadata *_metadata,
				   FIXTURE_DATA(rd) *self,
				   enum read_kind kind, uint32_t value,
				   struct rec *r)
{
	struct producer p = { .id = self->id, .reader = gettid(),
			      .value = value };
	struct timespec abstime;
	pthread_t thr;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, r, POSIX_TRACE_START);
	ASSERT_EQ(0, pthread_create(&thr, NULL, producer_thread, &p));
	abstime = realtime_in(20000);
	ASSERT_EQ(0, read_next(self->trid, r, kind, &abstime));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_TRUE(p.saw_blocked);
	ASSERT_EQ(0, r->unavailable);
}

/* getnext "shall block" on an empty active stream; an event wakes it. */
TEST_F(rd, getnext_blocked_reader_woken_by_producer_thread)
{
	struct rec r;
	uint32_t got;

	read_woken_by_producer(_metadata, self, READ_GETNEXT, 0xfeed, &r);
	ASSERT_EQ(self->id, r.info.posix_event_id);
	memcpy(&got, r.data, sizeof(got));
	ASSERT_EQ(0xfeed, got);
}

TEST_F(rd, timedgetnext_blocked_reader_woken_by_producer_before_timeout)
{
	struct rec r;
	uint32_t got;

	read_woken_by_producer(_metadata, self, READ_TIMED, 0xbeef, &r);
	memcpy(&got, r.data, sizeof(got));
	ASSERT_EQ(0xbeef, got);
}

/* Wait (up to 10 s) until thread tid sleeps in poll(). */
static bool wait_blocked_in_poll(pid_t tid)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (thread_state(tid) == 'S' && thread_syscall(tid) == SYS_poll)
			return true;
		usleep(1000);
	}
	return false;
}

/* Once the stream's poller sleeps in poll(), record one event. */
static void *poll_producer_thread(void *arg)
{
	struct producer *p = arg;

	p->saw_blocked = wait_blocked_in_poll(p->reader);
	posix_trace_event(p->id, &p->value, sizeof(p->value));
	return NULL;
}

/* poll() of fd for POLLIN within ms: its revents, or -1 if it failed. */
static int poll_in(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, ms);

	return n < 0 ? -1 : n ? pfd.revents : 0;
}

/*
 * The stream's descriptor "is poll()-able: readable when events are
 * waiting" (posixtrace.rst): not while it is empty, suspended or running,
 * at once with START waiting, not again once that is read, and a poller
 * sleeping on the empty running stream is woken by a producer's event
 * (from its ring at the next drain, or directly without rings).
 */
TEST_F(rd, poll_is_readable_when_an_event_waits_and_not_before)
{
	struct producer p = { .id = self->id, .reader = gettid(),
			      .value = 0xcafe };
	pthread_t thr;
	uint32_t got;
	struct rec r;
	int fd;

	fd = stream_fd();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, poll_in(fd, 0));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(POLLIN, poll_in(fd, 0));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(0, poll_in(fd, 0));
	ASSERT_EQ(0, pthread_create(&thr, NULL, poll_producer_thread, &p));
	EXPECT_EQ(POLLIN, poll_in(fd, 20000));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_TRUE(p.saw_blocked);
	ASSERT_NEXT(self->trid, &r, self->id);
	memcpy(&got, r.data, sizeof(got));
	ASSERT_EQ(0xcafe, got);
	ASSERT_EQ(0, poll_in(fd, 0));
}

/* Once the reader sleeps in the kernel, start the stream. */
static void *start_thread(void *arg)
{
	struct producer *p = arg;

	p->saw_blocked = wait_blocked_in_ioctl(p->reader);
	p->ret = posix_trace_start(p->trid);
	return NULL;
}

/* A suspended stream is still active: getnext blocks on it too. */
TEST_F(rd, getnext_blocks_on_suspended_stream_until_start_records)
{
	struct producer p = { .trid = self->trid, .reader = gettid(),
			      .ret = -1 };
	pthread_t thr;
	struct rec r;

	ASSERT_EQ(0, pthread_create(&thr, NULL, start_thread, &p));
	ASSERT_EQ(0, get_next(self->trid, &r));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_TRUE(p.saw_blocked);
	ASSERT_EQ(0, p.ret);
	ASSERT_EQ(0, r.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, r.info.posix_event_id);
}

/*
 * "Any thread blocked on one of the trace_getnext_event() functions ...
 * before this call is unblocked with the error [EINVAL]."
 */
static void shutdown_wakes(struct __test_metadata *_metadata,
			   FIXTURE_DATA(rd) *self, enum read_kind kind)
{
	struct reader rd;
	pthread_t thr;

	start_blocked_reader(_metadata, self, &rd, &thr, kind);
	ASSERT_FALSE(atomic_load(&rd.done));
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->created = false;
	ASSERT_TRUE(reader_done_within(&rd, 10000)) {
		TH_LOG("reader still blocked after shutdown");
	}
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(EINVAL, rd.ret);
}

TEST_F(rd, shutdown_wakes_blocked_getnext_with_einval)
{
	shutdown_wakes(_metadata, self, READ_GETNEXT);
}

TEST_F(rd, shutdown_wakes_blocked_timedgetnext_with_einval)
{
	shutdown_wakes(_metadata, self, READ_TIMED);
}

static void on_sigusr1(int sig)
{
}

/*
 * getnext and timedgetnext "shall fail" [EINTR] when "interrupted by a
 * signal". The handler has no SA_RESTART. A signal that lands before the
 * reader sleeps is repeated every 20 ms until the reader returns; if it
 * never returns, an event releases it and the test fails.
 */
static void signal_interrupts(struct __test_metadata *_metadata,
			      FIXTURE_DATA(rd) *self, enum read_kind kind)
{
	struct reader rd;
	struct rec r;
	pthread_t thr;
	int i;

	handle_sigusr1(_metadata, on_sigusr1, 0);
	start_blocked_reader(_metadata, self, &rd, &thr, kind);
	for (i = 0; i < 100 && !atomic_load(&rd.done); i++) {
		ASSERT_EQ(0, pthread_kill(thr, SIGUSR1));
		reader_done_within(&rd, 20);
	}
	if (!atomic_load(&rd.done))
		posix_trace_event(self->id, "release", 7);
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(EINTR, rd.ret);
	/* Interrupted, "the call had no effect": the stream is intact. */
	posix_trace_event(self->id, "after", 5);
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(0, memcmp("after", r.data, 5));
}

TEST_F(rd, getnext_interrupted_by_signal_is_eintr)
{
	signal_interrupts(_metadata, self, READ_GETNEXT);
}

TEST_F(rd, timedgetnext_interrupted_by_signal_is_eintr)
{
	signal_interrupts(_metadata, self, READ_TIMED);
}

/*
 * On the empty stream, timedgetnext must fail with err: given first, then
 * second, while the stream is suspended; given first again once it runs
 * (its START read).
 */
static void timed_reads_of_empty_stream_fail(struct __test_metadata *_metadata,
					     FIXTURE_DATA(rd) *self, int err,
					     const struct timespec *first,
					     const struct timespec *second)
{
	struct rec r;

	ASSERT_EQ(err, timed_next(self->trid, &r, first));
	ASSERT_EQ(err, timed_next(self->trid, &r, second));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(err, timed_next(self->trid, &r, first));
}

/* "or if the absolute time specified by abstime has already passed". */
TEST_F(rd, timedgetnext_past_abstime_on_empty_stream_is_etimedout)
{
	struct timespec abstime = realtime_in(-1000);
	struct timespec epoch = { 0, 0 };

	timed_reads_of_empty_stream_fail(_metadata, self, ETIMEDOUT,
					 &abstime, &epoch);
}

/* The timeout expires when CLOCK_REALTIME "equals or exceeds abstime". */
TEST_F(rd, timedgetnext_times_out_at_abstime)
{
	struct timespec abstime, now;
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	abstime = realtime_in(50);
	ASSERT_EQ(ETIMEDOUT, timed_next(self->trid, &r, &abstime));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &now));
	ASSERT_LE(0, ts_cmp(&now, &abstime));
}

/*
 * Start the stream, record one event, then read START and that event with
 * timedgetnext, given abstime first and then second: both are available,
 * so each read must return it at once.
 */
static void timed_reads_of_available_events(struct __test_metadata *_metadata,
					    FIXTURE_DATA(rd) *self,
					    const struct timespec *first,
					    const struct timespec *second)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(self->id, "x", 1);
	ASSERT_EQ(0, timed_next(self->trid, &r, first));
	ASSERT_EQ(0, r.unavailable);
	ASSERT_EQ(POSIX_TRACE_START, r.info.posix_event_id);
	ASSERT_EQ(0, timed_next(self->trid, &r, second));
	ASSERT_EQ(0, r.unavailable);
	ASSERT_EQ(self->id, r.info.posix_event_id);
}

/* "Under no circumstance shall the function fail with a timeout if ..." */
TEST_F(rd, timedgetnext_with_event_available_does_not_time_out)
{
	struct timespec abstime = realtime_in(-1000);
	struct timespec epoch = { 0, 0 };

	timed_reads_of_available_events(_metadata, self, &abstime, &epoch);
}

/* "The validity of the abstime argument need not be checked if ..." */
TEST_F(rd, timedgetnext_with_event_available_ignores_invalid_abstime)
{
	struct timespec bad = { .tv_sec = 0, .tv_nsec = NSEC_PER_SEC };
	struct timespec neg = { .tv_sec = 0, .tv_nsec = -1 };

	timed_reads_of_available_events(_metadata, self, &bad, &neg);
}

/* [EINVAL]: nothing available "and the timeout argument is invalid". */
TEST_F(rd, timedgetnext_invalid_abstime_on_empty_stream_is_einval)
{
	struct timespec bad = realtime_in(10000);
	struct timespec neg = realtime_in(10000);

	bad.tv_nsec = NSEC_PER_SEC;
	neg.tv_nsec = -1;
	timed_reads_of_empty_stream_fail(_metadata, self, EINVAL, &bad, &neg);
}

/* ---- several readers on one trid ------------------------------------- */

TEST_F(rd, shutdown_wakes_every_blocked_reader_with_einval)
{
	struct reader rd[3];
	pthread_t thr[3];
	struct rec r;
	int i;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	for (i = 0; i < 3; i++) {
		start_reader(_metadata, &rd[i], &thr[i], self->trid,
			     i == 1 ? READ_TIMED : READ_GETNEXT);
		ASSERT_NE(-1, wait_blocked(atomic_load(&rd[i].tid), true));
	}
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	self->created = false;
	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(reader_done_within(&rd[i], 10000)) {
			TH_LOG("reader %d still blocked after shutdown", i);
		}
		ASSERT_EQ(0, pthread_join(thr[i], NULL));
		EXPECT_EQ(EINVAL, rd[i].ret) {
			TH_LOG("reader %d", i);
		}
	}
}

TEST_F(rd, two_blocked_readers_each_get_one_of_two_events)
{
	struct reader rd[2];
	pthread_t thr[2];
	struct rec r;
	uint32_t a, b;
	int i;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	for (i = 0; i < 2; i++) {
		start_reader(_metadata, &rd[i], &thr[i], self->trid,
			     READ_GETNEXT);
		ASSERT_NE(-1, wait_blocked(atomic_load(&rd[i].tid), true));
	}
	a = 1;
	posix_trace_event(self->id, &a, sizeof(a));
	a = 2;
	posix_trace_event(self->id, &a, sizeof(a));
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(reader_done_within(&rd[i], 10000)) {
			TH_LOG("reader %d still blocked with an event unread", i);
			posix_trace_shutdown(self->trid);
			self->created = false;
		}
		ASSERT_EQ(0, pthread_join(thr[i], NULL));
		ASSERT_EQ(0, rd[i].ret);
		ASSERT_EQ(0, rd[i].r.unavailable);
	}
	memcpy(&a, rd[0].r.data, sizeof(a));
	memcpy(&b, rd[1].r.data, sizeof(b));
	ASSERT_EQ(3, a + b);
	ASSERT_NE(a, b);
	ASSERT_EMPTY(self->trid, &r);
}

/*
 * A reader waiting while another reader of the same trid waits in the
 * kernel is blocked in getnext just the same: a signal interrupts it
 * ([EINTR], "shall fail").
 */
TEST_F(rd, second_blocked_reader_interrupted_by_signal_is_eintr)
{
	struct reader rd[2];
	pthread_t thr[2];
	struct rec r;
	long nr[2];
	int i, victim;

	handle_sigusr1(_metadata, on_sigusr1, 0);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	for (i = 0; i < 2; i++) {
		start_reader(_metadata, &rd[i], &thr[i], self->trid,
			     READ_GETNEXT);
		nr[i] = wait_blocked(atomic_load(&rd[i].tid), true);
		ASSERT_NE(-1, nr[i]);
	}
	/* The one not in the kernel's wait, if one is not. */
	victim = nr[0] == SYS_futex ? 0 : 1;
	for (i = 0; i < 100 && !atomic_load(&rd[victim].done); i++) {
		ASSERT_EQ(0, pthread_kill(thr[victim], SIGUSR1));
		reader_done_within(&rd[victim], 20);
	}
	/* Release whoever is still blocked. */
	posix_trace_event(self->id, "x", 1);
	posix_trace_event(self->id, "y", 1);
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(reader_done_within(&rd[i], 10000)) {
			posix_trace_shutdown(self->trid);
			self->created = false;
		}
		ASSERT_EQ(0, pthread_join(thr[i], NULL));
	}
	ASSERT_EQ(EINTR, rd[victim].ret) {
		TH_LOG("reader blocked in %s", nr[victim] == SYS_futex ?
		       "futex" : "ioctl");
	}
	ASSERT_EQ(0, rd[!victim].ret);
}

static atomic_int handled;

static void count_signal(int sig)
{
	atomic_fetch_add(&handled, 1);
}

/*
 * SA_RESTART: "if a function specified as interruptible is interrupted by
 * this signal, the function shall restart and shall not fail with [EINTR]".
 */
TEST_F(rd, getnext_restarts_after_sa_restart_signal)
{
	struct reader rd;
	pthread_t thr;
	struct rec r;
	int i;

	handle_sigusr1(_metadata, count_signal, SA_RESTART);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	start_reader(_metadata, &rd, &thr, self->trid, READ_GETNEXT);
	for (i = 1; i <= 3; i++) {
		ASSERT_TRUE(wait_blocked_in_ioctl(atomic_load(&rd.tid)));
		ASSERT_EQ(0, pthread_kill(thr, SIGUSR1));
		/* Handled, then back to waiting (or, wrongly, returned). */
		while (atomic_load(&handled) < i)
			usleep(1000);
		if (reader_done_within(&rd, 50))
			break;
	}
	posix_trace_event(self->id, "after", 5);
	ASSERT_TRUE(reader_done_within(&rd, 10000));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, rd.ret);
	ASSERT_EQ(0, rd.r.unavailable);
	ASSERT_EQ(self->id, rd.r.info.posix_event_id);
}

/* A timed reader behind a blocked one still times out at its abstime. */
TEST_F(rd, timed_reader_times_out_while_another_reader_blocks)
{
	struct timespec abstime, now;
	struct reader rd;
	pthread_t thr;
	struct rec r;

	start_blocked_reader(_metadata, self, &rd, &thr, READ_GETNEXT);
	abstime = realtime_in(50);
	ASSERT_EQ(ETIMEDOUT, timed_next(self->trid, &r, &abstime));
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &now));
	ASSERT_LE(0, ts_cmp(&now, &abstime));
	posix_trace_event(self->id, "x", 1);
	ASSERT_TRUE(reader_done_within(&rd, 10000));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, rd.ret);
}

#define MANY		3000
#define PRODUCERS	2
#define READERS		3

struct many {
	trace_id_t trid;
	trace_event_id_t id;
	atomic_int producers_left;
	atomic_int seen[MANY];
	atomic_int others;	/* events not produced here */
};

struct many_producer {
	struct many *m;
	int first;
};

static void *many_producer(void *arg)
{
	struct many_producer *p = arg;
	uint32_t n;

	for (n = p->first; n < (uint32_t)MANY; n += PRODUCERS)
		posix_trace_event(p->m->id, &n, sizeof(n));
	atomic_fetch_sub(&p->m->producers_left, 1);
	return NULL;
}

/* Read until the producers are done and nothing is left. */
static void *many_reader(void *arg)
{
	struct many *m = arg;
	struct rec r;
	uint32_t n;
	bool done;

	for (;;) {
		done = !atomic_load(&m->producers_left);
		if (try_next(m->trid, &r))
			break;
		if (r.unavailable) {
			if (done)
				break;
			continue;
		}
		memcpy(&n, r.data, sizeof(n));
		if (r.info.posix_event_id == m->id && r.len == sizeof(n) &&
		    n < MANY)
			atomic_fetch_add(&m->seen[n], 1);
		else
			atomic_fetch_add(&m->others, 1);
	}
	return NULL;
}

/* "Once reported, a trace event cannot be reported again." Nor lost. */
TEST_F(rd, concurrent_readers_report_each_event_exactly_once)
{
	static struct many m;
	struct many_producer p[PRODUCERS];
	pthread_t prod[PRODUCERS], rdr[READERS];
	trace_attr_t attr;
	struct rec r;
	int i;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 1 << 20));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &m.trid));
	posix_trace_attr_destroy(&attr);
	m.id = self->id;
	atomic_store(&m.producers_left, PRODUCERS);
	ASSERT_EQ(0, posix_trace_start(m.trid));
	ASSERT_NEXT(m.trid, &r, POSIX_TRACE_START);
	for (i = 0; i < READERS; i++)
		ASSERT_EQ(0, pthread_create(&rdr[i], NULL, many_reader, &m));
	for (i = 0; i < PRODUCERS; i++) {
		p[i] = (struct many_producer){ .m = &m, .first = i };
		ASSERT_EQ(0, pthread_create(&prod[i], NULL, many_producer,
					    &p[i]));
	}
	for (i = 0; i < PRODUCERS; i++)
		ASSERT_EQ(0, pthread_join(prod[i], NULL));
	for (i = 0; i < READERS; i++)
		ASSERT_EQ(0, pthread_join(rdr[i], NULL));
	/* A reader may give up while another still holds events: drain. */
	many_reader(&m);
	ASSERT_EQ(0, atomic_load(&m.others));
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(1, atomic_load(&m.seen[i])) {
			TH_LOG("event %d reported %d times", i,
			       atomic_load(&m.seen[i]));
		}
	ASSERT_EQ(0, posix_trace_shutdown(m.trid));
}

#define THREADS		4
#define PER_THREAD	100
#define ROUNDS		10

struct ordered {
	trace_event_id_t id;
	uint32_t thread;
	pthread_barrier_t *go;
};

static void *ordered_thread(void *arg)
{
	struct ordered *o = arg;
	uint32_t v[2] = { o->thread, 0 };

	pthread_barrier_wait(o->go);
	for (v[1] = 0; v[1] < PER_THREAD; v[1]++)
		posix_trace_event(o->id, v, sizeof(v));
	return NULL;
}

/*
 * Events of concurrent threads are reported in generation order: the
 * timestamps never go back, and each thread's own events keep their order.
 * Threads start together (a barrier), ROUNDS times, to make them collide.
 */
TEST_F(rd, concurrent_producers_are_reported_in_generation_order)
{
	struct ordered o[THREADS];
	pthread_t thr[THREADS];
	uint32_t next[THREADS], v[2];
	pthread_barrier_t go;
	struct timespec prev = { 0, 0 };
	trace_id_t trid = self->trid;
	struct rec r;
	int i, round;

	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	for (round = 0; round < ROUNDS; round++) {
		ASSERT_EQ(0, pthread_barrier_init(&go, NULL, THREADS));
		for (i = 0; i < THREADS; i++) {
			o[i] = (struct ordered){ .id = self->id, .thread = i,
						 .go = &go };
			ASSERT_EQ(0, pthread_create(&thr[i], NULL,
						    ordered_thread, &o[i]));
		}
		for (i = 0; i < THREADS; i++)
			ASSERT_EQ(0, pthread_join(thr[i], NULL));
		pthread_barrier_destroy(&go);

		memset(next, 0, sizeof(next));
		for (i = 0; i < THREADS * PER_THREAD; i++) {
			ASSERT_NEXT(trid, &r, self->id);
			ASSERT_EQ(sizeof(v), r.len);
			memcpy(v, r.data, sizeof(v));
			ASSERT_GT(THREADS, v[0]);
			ASSERT_EQ(next[v[0]], v[1]);
			next[v[0]]++;
			ASSERT_LE(0, ts_cmp(&r.info.posix_timestamp, &prev)) {
				TH_LOG("round %d, event %d reported %ld ns before its predecessor",
				       round, i,
				       (long)((prev.tv_sec -
					       r.info.posix_timestamp.tv_sec) *
					      NSEC_PER_SEC + prev.tv_nsec -
					      r.info.posix_timestamp.tv_nsec));
			}
			prev = r.info.posix_timestamp;
		}
		ASSERT_EMPTY(trid, &r);
	}
}

/* ---- a trid shut down under its readers, its slot reused ------------- */

#define CHURN_ROUNDS	40
#define CHURN_EVENTS	2000	/* three batches of the library's 64 KiB */
#define CHURN_READERS	3

/*
 * Round r: a stream is created (in the slot the last one left, most
 * likely with the same memory in the library), records CHURN_EVENTS events
 * carrying r, and is shut down while readers of every kind read it.
 */
struct churn {
	trace_event_id_t id;
	trace_id_t trids[CHURN_ROUNDS];
	atomic_int published;			/* rounds in trids[] */
	atomic_int shut;	/* rounds whose posix_trace_shutdown() returned */
	atomic_int read[CHURN_ROUNDS];		/* events of each read */
	atomic_int wrong;	/* read on round r's trid, not round r's */
	atomic_int errors;	/* a read that failed, not with EINVAL */
	atomic_int revived;	/* a trid that read after its EINVAL */
};

struct churn_reader {
	struct churn *c;
	int kind;		/* 0 getnext, 1 trygetnext, 2 timedgetnext */
};

static int churn_read(trace_id_t trid, int kind, struct rec *r)
{
	struct timespec abstime;

	if (kind == 0)
		return get_next(trid, r);
	if (kind == 1)
		return try_next(trid, r);
	abstime = realtime_in(60000);
	return timed_next(trid, r, &abstime);
}

/*
 * Reads each round's trid until EINVAL, then checks it stays so once
 * posix_trace_shutdown() has returned (a reader's EINVAL may come from
 * the kernel while the shutdown is still on its way out).
 */
static void *churn_reader(void *arg)
{
	struct churn_reader *cr = arg;
	struct churn *c = cr->c;
	trace_id_t trid;
	struct rec r;
	uint64_t seq;
	uint32_t v;
	int round, err;

	for (round = 0; round < CHURN_ROUNDS; round++) {
		while (atomic_load(&c->published) <= round)
			sched_yield();
		trid = c->trids[round];
		while (!(err = churn_read(trid, cr->kind, &r))) {
			if (r.unavailable) {
				sched_yield();
				continue;
			}
			/* The readers' way in, as getnext: 0, or gone. */
			err = posixtrace_k_event_seq(trid, &seq);
			if (err && err != EINVAL)
				atomic_fetch_add(&c->errors, 1);
			if (r.info.posix_event_id == POSIX_TRACE_START)
				continue;
			memcpy(&v, r.data, sizeof(v));
			if (r.info.posix_event_id != c->id ||
			    r.len != sizeof(v) || v != (uint32_t)round)
				atomic_fetch_add(&c->wrong, 1);
			else
				atomic_fetch_add(&c->read[round], 1);
		}
		if (err != EINVAL)
			atomic_fetch_add(&c->errors, 1);
		while (atomic_load(&c->shut) <= round)
			sched_yield();
		if (try_next(trid, &r) != EINVAL ||
		    posixtrace_k_event_seq(trid, &seq) != EINVAL)
			atomic_fetch_add(&c->revived, 1);
	}
	return NULL;
}

/*
 * Shutdown concurrent with readers in every state (taking events from the
 * library's buffer, fetching, waiting for a fetcher, blocked in the
 * kernel), and the next stream in the same slot: no reader sees an event
 * of another stream on its trid, nor crashes, nor hangs; each gets EINVAL,
 * and so does every later call with the dead trid.
 */
TEST_F(rd, stale_trids_never_read_the_stream_that_reuses_their_slot)
{
	static struct churn c;
	struct churn_reader cr[CHURN_READERS];
	pthread_t thr[CHURN_READERS];
	trace_id_t last;
	trace_attr_t attr;
	struct rec r;
	uint64_t seq;
	uint32_t v;
	int i, round;

	c.id = self->id;
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 1 << 20));
	for (i = 0; i < CHURN_READERS; i++) {
		cr[i] = (struct churn_reader){ .c = &c, .kind = i % 3 };
		ASSERT_EQ(0, pthread_create(&thr[i], NULL, churn_reader,
					    &cr[i]));
	}
	for (round = 0; round < CHURN_ROUNDS; round++) {
		ASSERT_EQ(0, posix_trace_create(0, &attr, &c.trids[round]));
		ASSERT_EQ(0, posix_trace_start(c.trids[round]));
		for (v = 0; v < CHURN_EVENTS; v++) {
			uint32_t data = round;

			posix_trace_event(c.id, &data, sizeof(data));
		}
		atomic_store(&c.published, round + 1);
		/* Shut down mid-read: once a third is read (or 2 s). */
		for (i = 0; i < 20000 &&
		     atomic_load(&c.read[round]) < CHURN_EVENTS / 3; i++)
			usleep(100);
		ASSERT_EQ(0, posix_trace_shutdown(c.trids[round]));
		atomic_store(&c.shut, round + 1);
	}
	for (i = 0; i < CHURN_READERS; i++)
		ASSERT_EQ(0, pthread_join(thr[i], NULL));
	EXPECT_EQ(0, atomic_load(&c.wrong));
	EXPECT_EQ(0, atomic_load(&c.errors));
	EXPECT_EQ(0, atomic_load(&c.revived));
	for (round = 0; round < CHURN_ROUNDS; round++)
		ASSERT_GE(CHURN_EVENTS, atomic_load(&c.read[round]));

	/* One more stream in the slot: the old trids still find nothing. */
	ASSERT_EQ(0, posix_trace_create(0, &attr, &last));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_start(last));
	ASSERT_NEXT(last, &r, POSIX_TRACE_START);
	for (round = 0; round < CHURN_ROUNDS; round++) {
		struct timespec abstime = realtime_in(1000);

		ASSERT_NE(last, c.trids[round]);
		EXPECT_EQ(EINVAL, get_next(c.trids[round], &r));
		EXPECT_EQ(EINVAL, try_next(c.trids[round], &r));
		EXPECT_EQ(EINVAL, timed_next(c.trids[round], &r, &abstime));
		EXPECT_EQ(EINVAL, posixtrace_k_event_seq(c.trids[round],
							 &seq));
	}
	ASSERT_EQ(0, posixtrace_k_event_seq(last, &seq));
	ASSERT_EQ(0, posix_trace_shutdown(last));
}

/* ---- a child's first read ------------------------------------------ */

enum { FIRST_GETNEXT, FIRST_TRYGETNEXT, FIRST_TIMED, FIRST_EVENT_SEQ,
       FIRST_COUNT };

static int first_call(trace_id_t trid, int which)
{
	struct timespec abstime = realtime_in(1000);
	struct rec r;
	uint64_t seq;

	switch (which) {
	case FIRST_GETNEXT:
		return get_next(trid, &r);
	case FIRST_TRYGETNEXT:
		return try_next(trid, &r);
	case FIRST_TIMED:
		return timed_next(trid, &r, &abstime);
	default:
		return posixtrace_k_event_seq(trid, &seq);
	}
}

/*
 * "If it is used from another process, that is a child process, ...
 * [EINVAL]": also when the read is the child's first use of the trid and
 * the events wait in the library's buffer, which the child inherited;
 * with fork() and with _Fork(), which runs no atfork handler.
 */
TEST_F(rd, first_read_in_child_is_einval_with_events_in_the_buffer)
{
	pid_t (*const forks[2])(void) = { fork, _Fork };
	int f, which, status;
	struct rec r;
	uint64_t seq;
	pid_t pid;

	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(self->id, "one", 3);
	posix_trace_event(self->id, "two", 3);
	/* START's fetch brings the two events into the library's buffer. */
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(0, posixtrace_k_event_seq(self->trid, &seq));
	for (f = 0; f < 2; f++) {
		for (which = 0; which < FIRST_COUNT; which++) {
			pid = forks[f]();
			ASSERT_LE(0, pid);
			if (pid == 0)
				_exit(first_call(self->trid, which));
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
			ASSERT_TRUE(WIFEXITED(status));
			EXPECT_EQ(EINVAL, WEXITSTATUS(status)) {
				TH_LOG("%s, first call %d",
				       f ? "_Fork" : "fork", which);
			}
		}
	}
	/* The parent's buffer is as it was. */
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(0, memcmp("one", r.data, 3));
	ASSERT_NEXT(self->trid, &r, self->id);
	ASSERT_EQ(0, memcmp("two", r.data, 3));
	ASSERT_EMPTY(self->trid, &r);
}

TEST_HARNESS_MAIN
