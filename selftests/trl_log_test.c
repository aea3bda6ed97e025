// SPDX-License-Identifier: GPL-2.0
/*
 * Trace logs (POSIX Trace Log option, TRL): create_withlog, flush, the
 * stream-full-policy FLUSH, the log-full-policies, shutdown, clear, and
 * every error case, each checked by reading the log back through
 * posix_trace_open().
 *
 * The implementation's choices these tests rely on, from
 * Documentation/userspace-api/posixtrace-guide.rst:
 *  - a flush records FLUSH_START, writes everything up to it, then records
 *    FLUSH_STOP (which the next flush writes); shutdown stops the stream
 *    (STOP, data 0, if it was running), then flushes: a log ends with
 *    STOP, FLUSH_START, FLUSH_STOP;
 *  - an UNTIL_FULL log of size L holds records while they and a STOP fit
 *    in L; it then ends with a STOP whose "auto" data is 2;
 *  - a LOOP log is a ring of slots, each holding at least the largest
 *    record (and the entry naming its type): a slot is 40 bytes of header
 *    and 392 + max(64 + max data size rounded up to 8, 352) bytes of
 *    entries; the log has min(16, L / slot) slots, at least 2.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <posixtrace-k.h>

#include "trl_common.h"

/* A stream on this process with a log in a scratch file. */
FIXTURE(log) {
	trace_attr_t attr;
	trace_id_t trid;
	trace_event_id_t a;
	int fd;
	bool created;
	struct logbuf lb;
};

FIXTURE_SETUP(log)
{
	SKIP_WITHOUT_DEVICE();
	self->fd = tmp_log();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, posix_trace_eventid_open("trl.a", &self->a));
}

FIXTURE_TEARDOWN(log)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	free_log(&self->lb);
	if (self->fd >= 0)
		close(self->fd);
}

static int create_log(FIXTURE_DATA(log) *self)
{
	int ret = posix_trace_create_withlog(0, &self->attr, self->fd,
					     &self->trid);

	self->created = !ret;
	return ret;
}

static int shutdown_log(FIXTURE_DATA(log) *self)
{
	self->created = false;
	return posix_trace_shutdown(self->trid);
}

/*
 * Create the stream with self->attr, record events 0 to n - 1 while it
 * runs, shut it down (which flushes), and read the log into self->lb.
 */
static void record_and_read(struct __test_metadata *_metadata,
			    FIXTURE_DATA(log) *self, uint64_t n)
{
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, n);
	ASSERT_EQ(0, shutdown_log(self));
	ASSERT_EQ(0, read_log(self->fd, &self->lb));
}

/* Event i of the log must be of type id. */
#define ASSERT_EV(lb, i, id) do {					\
	ASSERT_LT((i), (lb)->n);					\
	ASSERT_EQ((id), (lb)->ev[i].info.posix_event_id) {		\
		TH_LOG("event %d is %s", (i), (lb)->ev[i].name);	\
	}								\
} while (0)

/* Events i.. of the log must be user events a numbered first..last. */
#define ASSERT_RUN(lb, i, id, first, last) do {				\
	uint64_t _k;							\
	for (_k = (first); _k <= (last); _k++, (i)++) {			\
		ASSERT_EV(lb, i, id);					\
		ASSERT_EQ(_k, ev_num(&(lb)->ev[i]));			\
	}								\
} while (0)

/* The end a shutdown of a running stream gives a log. */
#define ASSERT_SHUTDOWN_TAIL(lb, i) do {				\
	ASSERT_EV(lb, i, POSIX_TRACE_STOP);				\
	ASSERT_EQ(0, ev_int(&(lb)->ev[i]));				\
	(i)++;								\
	ASSERT_EV(lb, i, POSIX_TRACE_FLUSH_START);			\
	(i)++;								\
	ASSERT_EV(lb, i, POSIX_TRACE_FLUSH_STOP);			\
	(i)++;								\
	ASSERT_EQ((i), (lb)->n);					\
} while (0)

TEST_F(log, append_log_holds_every_event_with_names_and_pid)
{
	int i = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "trl-append"));
	record_and_read(_metadata, self, 10);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_START);
	ASSERT_STREQ("posix_trace_start", self->lb.ev[i].name);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 0, 9);
	ASSERT_STREQ("trl.a", self->lb.ev[1].name);
	ASSERT_EQ(getpid(), self->lb.ev[1].info.posix_pid);
	ASSERT_TRUE(pthread_equal(pthread_self(),
				  self->lb.ev[1].info.posix_thread_id));
	ASSERT_SHUTDOWN_TAIL(&self->lb, i);
	for (i = 1; i < self->lb.n; i++)
		ASSERT_LE(0, ts_cmp(&self->lb.ev[i].info.posix_timestamp,
				    &self->lb.ev[i - 1].info.posix_timestamp));
	ASSERT_EQ(POSIX_TRACE_NOT_FULL, self->lb.status.posix_log_full_status);
	ASSERT_EQ(POSIX_TRACE_NO_OVERRUN,
		  self->lb.status.posix_log_overrun_status);
	ASSERT_EQ(0, self->lb.status.posix_stream_flush_error);
}

TEST_F(log, log_keeps_the_stream_attributes)
{
	char name[TRACE_NAME_MAX];
	size_t size;
	int policy;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_UNTIL_FULL,
			      POSIX_TRACE_UNTIL_FULL, 8192, 100000));
	ASSERT_EQ(0, posix_trace_attr_setname(&self->attr, "trl-attr"));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 40));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, shutdown_log(self));

	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	ASSERT_EQ(0, posix_trace_attr_getname(&self->lb.attr, name));
	ASSERT_STREQ("trl-attr", name);
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&self->lb.attr,
							  &policy));
	ASSERT_EQ(POSIX_TRACE_UNTIL_FULL, policy);
	ASSERT_EQ(0, posix_trace_attr_getlogfullpolicy(&self->lb.attr, &policy));
	ASSERT_EQ(POSIX_TRACE_UNTIL_FULL, policy);
	ASSERT_EQ(0, posix_trace_attr_getstreamsize(&self->lb.attr, &size));
	ASSERT_EQ(8192, size);
	ASSERT_EQ(0, posix_trace_attr_getlogsize(&self->lb.attr, &size));
	ASSERT_EQ(100000, size);
	ASSERT_EQ(0, posix_trace_attr_getmaxdatasize(&self->lb.attr, &size));
	ASSERT_EQ(40, size);
	/* Never started: the log has only the flush at shutdown. */
	ASSERT_EQ(2, self->lb.n);
	ASSERT_EQ(POSIX_TRACE_FLUSH_START, self->lb.ev[0].info.posix_event_id);
	ASSERT_EQ(POSIX_TRACE_FLUSH_STOP, self->lb.ev[1].info.posix_event_id);
}

TEST_F(log, stream_full_policy_defaults_to_flush_with_a_log)
{
	trace_attr_t got;
	int policy;

	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_attr_init(&got));
	ASSERT_EQ(0, posix_trace_get_attr(self->trid, &got));
	ASSERT_EQ(0, posix_trace_attr_getstreamfullpolicy(&got, &policy));
	ASSERT_EQ(POSIX_TRACE_FLUSH, policy);
	ASSERT_EQ(0, posix_trace_attr_getlogfullpolicy(&got, &policy));
	ASSERT_EQ(POSIX_TRACE_LOOP, policy);
}

TEST_F(log, shutdown_of_a_stopped_stream_records_no_second_stop)
{
	int i = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 3);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	emit_numbered(self->a, 3, 3);
	ASSERT_EQ(0, shutdown_log(self));

	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	ASSERT_EV(&self->lb, i, POSIX_TRACE_START);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 0, 2);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_STOP);
	i++;
	ASSERT_EV(&self->lb, i, POSIX_TRACE_FLUSH_START);
	i++;
	ASSERT_EV(&self->lb, i, POSIX_TRACE_FLUSH_STOP);
	ASSERT_EQ(i + 1, self->lb.n);
}

/*
 * UNTIL_FULL with a log of log_size bytes and 20 events: START, events 0
 * to last, then the STOP (auto 2) that ends a full log; the rest is
 * discarded.
 */
static void until_full_keeps(struct __test_metadata *_metadata,
			     FIXTURE_DATA(log) *self, size_t log_size,
			     uint64_t last)
{
	int i = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP,
			      POSIX_TRACE_UNTIL_FULL, 0, log_size));
	record_and_read(_metadata, self, 20);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_START);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 0, last);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_STOP);
	ASSERT_EQ(2, ev_int(&self->lb.ev[i]));
	ASSERT_EQ(i + 1, self->lb.n);
	ASSERT_EQ(POSIX_TRACE_FULL, self->lb.status.posix_log_full_status);
	ASSERT_EQ(POSIX_TRACE_OVERRUN,
		  self->lb.status.posix_log_overrun_status);
}

/* Flush and wait until the flush is done (5 s at most). */
static int flush_and_wait(trace_id_t trid)
{
	struct posix_trace_status_info info;
	int ret = posix_trace_flush(trid), i;

	for (i = 0; !ret && i < 500; i++) {
		ret = posix_trace_get_status(trid, &info);
		if (ret || info.posix_stream_flush_status ==
			   POSIX_TRACE_NOT_FLUSHING)
			return ret;
		usleep(10000);
	}
	return ret ? ret : ETIMEDOUT;
}

/*
 * STATUS counts what the log did not keep, readable while the
 * log's END block is not written yet, or cannot be: an UNTIL_FULL log
 * that holds ten events, given twenty, discarded the last ten (and the
 * flush's own markers, once full); a log with room discards nothing.
 */
TEST_F(log, status_counts_the_events_the_log_did_not_keep)
{
	struct posixtrace_status st;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP,
			      POSIX_TRACE_UNTIL_FULL, 0, START_RECORD_SIZE +
			      10 * EVENT8_SIZE + STOP_RECORD_SIZE));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, st.log_events_discarded);
	emit_numbered(self->a, 0, 20);
	ASSERT_EQ(0, flush_and_wait(self->trid));
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_LE(10, st.log_events_discarded);
	ASSERT_GE(12, st.log_events_discarded);
	ASSERT_EQ(0, shutdown_log(self));
}

TEST_F(log, status_counts_nothing_discarded_by_a_log_with_room)
{
	struct posixtrace_status st;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP,
			      POSIX_TRACE_APPEND, 0, 0));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 100);
	ASSERT_EQ(0, flush_and_wait(self->trid));
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, st.log_events_discarded);
	ASSERT_EQ(0, shutdown_log(self));
}

/* L = START + 10 events + a STOP: exactly ten events fit. */
TEST_F(log, until_full_log_keeps_what_fits_and_ends_with_stop)
{
	until_full_keeps(_metadata, self, START_RECORD_SIZE +
			 10 * EVENT8_SIZE + STOP_RECORD_SIZE, 9);
}

/* One byte less: nine events fit. */
TEST_F(log, until_full_log_one_byte_short_keeps_one_event_less)
{
	until_full_keeps(_metadata, self, START_RECORD_SIZE +
			 10 * EVENT8_SIZE + STOP_RECORD_SIZE - 1, 8);
}

/* What fits needs no STOP of its own: the log ends as any other. */
TEST_F(log, until_full_log_not_filled_is_not_full)
{
	int i = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP,
			      POSIX_TRACE_UNTIL_FULL, 0, 100000));
	record_and_read(_metadata, self, 20);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_START);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 0, 19);
	ASSERT_SHUTDOWN_TAIL(&self->lb, i);
	ASSERT_EQ(POSIX_TRACE_NOT_FULL, self->lb.status.posix_log_full_status);
	ASSERT_EQ(POSIX_TRACE_NO_OVERRUN,
		  self->lb.status.posix_log_overrun_status);
}

/* A LOOP slot for max data size 64: 40 + 392 + 352 bytes. */
#define LOOP_SLOT_64	(40 + 392 + 352)

/*
 * LOOP with four slots: the log holds the most recent events, a run with
 * no hole that ends with the last one, and has come round (full, overrun).
 */
TEST_F(log, loop_log_keeps_the_most_recent_events)
{
	int i, first;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_LOOP,
			      0, 4 * LOOP_SLOT_64));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 64));
	record_and_read(_metadata, self, 200);
	ASSERT_LT(3, self->lb.n);
	ASSERT_EV(&self->lb, 0, self->a);
	first = (int)ev_num(&self->lb.ev[0]);
	ASSERT_LT(0, first);
	/*
	 * Of the three slots before the newest, the last may be cut short by
	 * the STOP that did not fit; the two before it are full, each with
	 * (488 - 80) / 72 = 5 events after the 80-byte DEFINE of trl.a.
	 */
	ASSERT_LE(2 * 5, 200 - first);
	i = 0;
	ASSERT_RUN(&self->lb, i, self->a, (uint64_t)first, 199);
	ASSERT_SHUTDOWN_TAIL(&self->lb, i);
	ASSERT_EQ(POSIX_TRACE_FULL, self->lb.status.posix_log_full_status);
	ASSERT_EQ(POSIX_TRACE_OVERRUN,
		  self->lb.status.posix_log_overrun_status);
}

/* Until it comes round, a LOOP log holds everything. */
TEST_F(log, loop_log_not_come_round_holds_everything)
{
	int i = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_LOOP,
			      0, 16 * LOOP_SLOT_64));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 64));
	record_and_read(_metadata, self, 30);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_START);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 0, 29);
	ASSERT_SHUTDOWN_TAIL(&self->lb, i);
	ASSERT_EQ(POSIX_TRACE_NOT_FULL, self->lb.status.posix_log_full_status);
}

/*
 * A LOOP log of 16 slots of 96 KiB: each slot is bigger than the 64 KiB
 * the log's thread builds before it writes, so a slot is written in
 * pieces, each after the last. 3,000 events (216 KB with the DEFINEs
 * and START) fill two slots and part of a third without coming round:
 * the log holds every one of them, in order, and is not full.
 */
TEST_F(log, loop_log_slots_bigger_than_a_write_hold_everything_in_order)
{
	int i = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_LOOP,
			      1 << 20, 16 * (96 << 10)));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 64));
	record_and_read(_metadata, self, 3000);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_START);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 0, 2999);
	ASSERT_SHUTDOWN_TAIL(&self->lb, i);
	ASSERT_EQ(POSIX_TRACE_NOT_FULL, self->lb.status.posix_log_full_status);
	ASSERT_EQ(POSIX_TRACE_NO_OVERRUN,
		  self->lb.status.posix_log_overrun_status);
}

TEST_F(log, loop_log_smaller_than_two_slots_is_einval)
{
	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_LOOP,
			      0, 2 * LOOP_SLOT_64 - 1));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 64));
	ASSERT_EQ(EINVAL, create_log(self));
	ASSERT_EQ(0, posix_trace_attr_setlogsize(&self->attr,
						 2 * LOOP_SLOT_64));
	ASSERT_EQ(0, create_log(self));
}

/*
 * posix_trace_flush() writes what was recorded before it, FLUSH_START
 * last; the log can be read while the stream goes on.
 */
TEST_F(log, flush_writes_what_came_before_and_log_reads_while_active)
{
	struct posix_trace_status_info st;
	int i = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 5);
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	ASSERT_EQ(0, wait_flushed_seen(self->trid, &st));
	ASSERT_EQ(POSIX_TRACE_NOT_FLUSHING, st.posix_stream_flush_status);
	ASSERT_EQ(0, st.posix_stream_flush_error);

	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	ASSERT_EV(&self->lb, i, POSIX_TRACE_START);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 0, 4);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_FLUSH_START);
	ASSERT_EQ(i + 1, self->lb.n);
	free_log(&self->lb);

	emit_numbered(self->a, 5, 5);
	ASSERT_EQ(0, shutdown_log(self));
	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	i = 7;
	ASSERT_EV(&self->lb, i, POSIX_TRACE_FLUSH_STOP);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 5, 9);
	ASSERT_SHUTDOWN_TAIL(&self->lb, i);
}

/*
 * POSIX_TRACE_FLUSH: a stream of 4 KiB takes 300 events of 72 bytes
 * without loss when each burst fits in half of it, since it is flushed
 * whenever half full.
 */
TEST_F(log, flush_policy_flushes_a_small_stream_without_loss)
{
	struct posix_trace_status_info st;
	int i = 0, flushes = 0;
	uint64_t next = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_FLUSH,
			      POSIX_TRACE_APPEND, 4096, 0));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	for (i = 0; i < 15; i++) {
		emit_numbered(self->a, i * 20, 20);
		ASSERT_EQ(0, wait_flushed_seen(self->trid, &st));
		ASSERT_EQ(POSIX_TRACE_NO_OVERRUN,
			  st.posix_stream_overrun_status);
		ASSERT_EQ(POSIX_TRACE_RUNNING, st.posix_stream_status);
	}
	ASSERT_EQ(0, shutdown_log(self));

	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	for (i = 0; i < self->lb.n; i++) {
		struct logev *e = &self->lb.ev[i];

		if (e->info.posix_event_id == POSIX_TRACE_FLUSH_START)
			flushes++;
		if (e->info.posix_event_id != self->a)
			continue;
		ASSERT_EQ(next, ev_num(e));
		next++;
	}
	ASSERT_EQ(300, next);
	/* 300 * 72 bytes through a stream flushed at about 2 KiB. */
	ASSERT_LE(8, flushes);
}

/*
 * The log's events of type @a are numbered @first to @end - 1: in order,
 * each once, and each one missing lost where the stream's numbering
 * skips at least as many (a loss the stream counted). None numbered
 * below @first. *@logged: how many the log holds.
 */
static void check_numbered(struct __test_metadata *_metadata,
			   const struct logbuf *lb, trace_event_id_t a,
			   uint64_t first, uint64_t end, uint64_t *logged)
{
	uint64_t next = first, skipped = 0, n;
	int i;

	*logged = 0;
	for (i = 0; i < lb->n; i++) {
		const struct logev *e = &lb->ev[i];

		if (i) {
			ASSERT_LT(lb->ev[i - 1].seq, e->seq);
			skipped += e->seq - lb->ev[i - 1].seq - 1;
		}
		if (e->info.posix_event_id != a)
			continue;
		n = ev_num(e);
		ASSERT_LE(next, n) {
			TH_LOG("event %llu after %llu", (unsigned long long)n,
			       (unsigned long long)next - 1);
		}
		ASSERT_LT(n, end);
		ASSERT_LE(n - next, skipped) {
			TH_LOG("%llu events before %llu lost, %llu counted",
			       (unsigned long long)(n - next),
			       (unsigned long long)n,
			       (unsigned long long)skipped);
		}
		skipped = 0;
		next = n + 1;
		(*logged)++;
	}
	ASSERT_LE(end - next, skipped);
}

/*
 * A thread flat out into a FLUSH stream of the default size: its log's
 * thread takes what the thread's ring holds as the ring's kicks ask, or
 * a drain stores it in the stream first when the log falls behind. Each
 * event is in the log once, in order, or counted lost where it went, and
 * in the stream's count of events lost (a number skipped is not enough:
 * a record numbered and then dropped skips one too).
 */
TEST_F(log, flush_policy_log_accounts_for_a_fast_producer)
{
	const uint64_t n = 200000;
	struct posixtrace_status st;
	uint64_t logged;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_FLUSH,
			      POSIX_TRACE_APPEND, 0, 0));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, n);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, st.log_events_discarded);
	ASSERT_EQ(0, shutdown_log(self));
	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	check_numbered(_metadata, &self->lb, self->a, 0, n, &logged);
	ASSERT_LT(0, logged);
	ASSERT_LE(n - logged, st.events_lost);
}

/*
 * A LOOP stream with a log keeps its newest events until a flush writes
 * them: the log gets none before the flush, though the thread's ring was
 * kicked many times meanwhile (only a FLUSH stream's log takes records
 * from the rings as they come), and no more than the stream holds, with
 * what the ring held when the flush came.
 */
TEST_F(log, loop_stream_with_a_log_writes_only_what_it_kept)
{
	const uint64_t n = 4000;
	uint64_t logged = 0, next = 0;
	int i;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP,
			      POSIX_TRACE_APPEND, 4096, 0));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, n);
	usleep(100 * 1000);
	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	for (i = 0; i < self->lb.n; i++)
		ASSERT_NE(self->a, self->lb.ev[i].info.posix_event_id);
	free_log(&self->lb);

	/* Some left in the ring, which the flush's drain overwrites with. */
	emit_numbered(self->a, n, 100);
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	ASSERT_EQ(0, wait_flushed(self->trid));
	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	/* The newest, one after another. */
	for (i = 0; i < self->lb.n; i++) {
		if (self->lb.ev[i].info.posix_event_id != self->a)
			continue;
		if (logged)
			ASSERT_EQ(next, ev_num(&self->lb.ev[i]));
		next = ev_num(&self->lb.ev[i]) + 1;
		logged++;
	}
	ASSERT_LT(0, logged);
	ASSERT_GE(4096 / EVENT8_SIZE, logged);
	ASSERT_EQ(n + 100, next);
}

/* A thread writing numbered events until told to stop. */
struct numbered_producer {
	trace_event_id_t a;
	pthread_t thread;
	uint64_t emitted;	/* atomic: how many so far */
	bool stop;		/* atomic */
};

static void *numbered_producer_run(void *arg)
{
	struct numbered_producer *p = arg;
	uint64_t i;

	for (i = 0; !__atomic_load_n(&p->stop, __ATOMIC_RELAXED); i++) {
		posix_trace_event(p->a, &i, sizeof(i));
		__atomic_store_n(&p->emitted, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void wait_emitted(struct numbered_producer *p, uint64_t n)
{
	while (__atomic_load_n(&p->emitted, __ATOMIC_ACQUIRE) < n)
		sched_yield();
}

/*
 * posix_trace_clear() while a thread writes flat out, its ring's kicks
 * asking the log's thread to take what it holds: what was taken before
 * the clear, written or not, leaves the log; everything begun after the
 * clear returned is there, or counted lost. Rounds, for the clear to find
 * the log's thread at different points of a batch.
 */
TEST_F(log, clear_while_the_log_takes_from_the_rings)
{
	struct numbered_producer p = { .a = self->a };
	uint64_t after, logged, first;
	int round, i;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_FLUSH,
			      POSIX_TRACE_APPEND, 0, 0));
	for (round = 0; round < 4; round++) {
		if (round) {
			close(self->fd);
			self->fd = tmp_log();
			ASSERT_LE(0, self->fd);
			free_log(&self->lb);
		}
		ASSERT_EQ(0, create_log(self));
		ASSERT_EQ(0, posix_trace_start(self->trid));
		p.emitted = 0;
		p.stop = false;
		ASSERT_EQ(0, pthread_create(&p.thread, NULL,
					    numbered_producer_run, &p));
		wait_emitted(&p, 30000);
		ASSERT_EQ(0, posix_trace_clear(self->trid));
		after = __atomic_load_n(&p.emitted, __ATOMIC_ACQUIRE);
		wait_emitted(&p, after + 10000);
		__atomic_store_n(&p.stop, true, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(p.thread, NULL));
		ASSERT_EQ(0, shutdown_log(self));
		ASSERT_EQ(0, read_log(self->fd, &self->lb));
		for (i = 0; i < self->lb.n; i++)
			if (self->lb.ev[i].info.posix_event_id == self->a)
				break;
		ASSERT_LT(i, self->lb.n);
		/*
		 * Event @after may have been written before the clear was
		 * done; the next was begun after it. The stream was emptied:
		 * nothing is lost right after the clear.
		 */
		first = ev_num(&self->lb.ev[i]);
		ASSERT_LE(first, after + 1);
		check_numbered(_metadata, &self->lb, self->a, first, p.emitted,
			       &logged);
	}
}

/* posix_trace_clear() forgets what the log held, as well as the stream. */
static void clear_forgets(struct __test_metadata *_metadata,
			  FIXTURE_DATA(log) *self, int log_policy)
{
	int i = 0;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, log_policy, 0,
			      16 * LOOP_SLOT_64));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 64));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 5);
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	ASSERT_EQ(0, wait_flushed(self->trid));
	emit_numbered(self->a, 5, 2);
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	emit_numbered(self->a, 7, 3);
	ASSERT_EQ(0, shutdown_log(self));

	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	ASSERT_RUN(&self->lb, i, self->a, 7, 9);
	ASSERT_SHUTDOWN_TAIL(&self->lb, i);
}

TEST_F(log, clear_forgets_logged_events_append)
{
	clear_forgets(_metadata, self, POSIX_TRACE_APPEND);
}

TEST_F(log, clear_forgets_logged_events_until_full)
{
	clear_forgets(_metadata, self, POSIX_TRACE_UNTIL_FULL);
}

TEST_F(log, clear_forgets_logged_events_loop)
{
	clear_forgets(_metadata, self, POSIX_TRACE_LOOP);
}

/* After a clear, a full UNTIL_FULL log has all its room again. */
TEST_F(log, clear_makes_a_full_until_full_log_not_full)
{
	struct posix_trace_status_info st;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP,
			      POSIX_TRACE_UNTIL_FULL, 0, 1000));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 50);
	ASSERT_EQ(0, posix_trace_flush(self->trid));
	ASSERT_EQ(0, wait_flushed_seen(self->trid, &st));
	ASSERT_EQ(POSIX_TRACE_FULL, st.posix_log_full_status);
	ASSERT_EQ(POSIX_TRACE_OVERRUN, st.posix_log_overrun_status);
	/* Read and reset. */
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	ASSERT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_log_overrun_status);
	ASSERT_EQ(POSIX_TRACE_FULL, st.posix_log_full_status);
	ASSERT_EQ(0, posix_trace_clear(self->trid));
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	ASSERT_EQ(POSIX_TRACE_NOT_FULL, st.posix_log_full_status);
}

/* The type list, names and filter of a log are the stream's. */
TEST_F(log, log_trid_answers_types_names_and_filter)
{
	trace_event_set_t set, got;
	trace_event_id_t b, id;
	char name[TRACE_EVENT_NAME_MAX + 1];
	bool seen_a = false, seen_b = false, seen_stop = false;
	int unavailable, ismember, i;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_eventid_open("trl.b", &b));
	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(0, posix_trace_eventset_add(b, &set));
	ASSERT_EQ(0, posix_trace_set_filter(self->trid, &set,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 1);
	emit_numbered(b, 0, 1);
	ASSERT_EQ(0, shutdown_log(self));

	ASSERT_EQ(0, posix_trace_open(self->fd, &trid));
	for (i = 0; i < 2000; i++) {
		ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(trid, &id,
								  &unavailable));
		if (unavailable)
			break;
		ASSERT_EQ(0, posix_trace_eventid_get_name(trid, id, name));
		seen_a |= id == self->a && !strcmp(name, "trl.a");
		seen_b |= id == b && !strcmp(name, "trl.b");
		seen_stop |= id == POSIX_TRACE_STOP &&
			     !strcmp(name, "posix_trace_stop");
	}
	ASSERT_TRUE(seen_a);
	ASSERT_TRUE(seen_b);
	ASSERT_TRUE(seen_stop);
	ASSERT_EQ(0, posix_trace_eventtypelist_rewind(trid));
	ASSERT_EQ(0, posix_trace_eventtypelist_getnext_id(trid, &id,
							  &unavailable));
	ASSERT_EQ(0, unavailable);
	ASSERT_EQ(0, posix_trace_get_filter(trid, &got));
	ASSERT_EQ(0, posix_trace_eventset_ismember(b, &got, &ismember));
	ASSERT_NE(0, ismember);
	ASSERT_EQ(0, posix_trace_eventset_ismember(self->a, &got, &ismember));
	ASSERT_EQ(0, ismember);
	ASSERT_NE(0, posix_trace_eventid_equal(trid, self->a, self->a));
	ASSERT_EQ(0, posix_trace_eventid_equal(trid, self->a, b));
	ASSERT_EQ(EINVAL, posix_trace_eventid_get_name(trid, b + 100, name));
	ASSERT_EQ(0, posix_trace_close(trid));
}

/* rewind starts the log over; the status of a log is not reset by reads. */
TEST_F(log, rewind_reads_the_log_again_and_status_stays)
{
	struct posix_trace_event_info info;
	struct posix_trace_status_info st;
	unsigned char data[64];
	int unavailable, n1 = 0, n2 = 0;
	size_t len;
	trace_id_t trid;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP,
			      POSIX_TRACE_UNTIL_FULL, 0, 1000));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 50);
	ASSERT_EQ(0, shutdown_log(self));

	ASSERT_EQ(0, posix_trace_open(self->fd, &trid));
	while (!posix_trace_getnext_event(trid, &info, data, sizeof(data),
					  &len, &unavailable) && !unavailable)
		n1++;
	ASSERT_EQ(0, posix_trace_getnext_event(trid, &info, data, sizeof(data),
					       &len, &unavailable));
	ASSERT_NE(0, unavailable);
	ASSERT_EQ(0, posix_trace_rewind(trid));
	while (!posix_trace_getnext_event(trid, &info, data, sizeof(data),
					  &len, &unavailable) && !unavailable)
		n2++;
	ASSERT_EQ(n1, n2);
	ASSERT_EQ(12, n1);	/* START, 10 events, STOP */
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	ASSERT_EQ(POSIX_TRACE_OVERRUN, st.posix_log_overrun_status);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	ASSERT_EQ(POSIX_TRACE_OVERRUN, st.posix_log_overrun_status);
	ASSERT_EQ(0, posix_trace_close(trid));
}

/* A reader's buffer too small: TRUNCATED_READ, as for a stream. */
TEST_F(log, short_read_buffer_truncates_log_event)
{
	struct posix_trace_event_info info;
	unsigned char data[4];
	int unavailable;
	uint64_t seq;
	size_t len;
	pid_t tid;
	trace_id_t trid;

	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0x0102030405060708ULL, 1);
	ASSERT_EQ(0, shutdown_log(self));

	ASSERT_EQ(0, posix_trace_open(self->fd, &trid));
	ASSERT_EQ(0, posix_trace_getnext_event(trid, &info, data, sizeof(data),
					       &len, &unavailable));
	ASSERT_EQ(POSIX_TRACE_START, info.posix_event_id);
	ASSERT_EQ(0, posix_trace_getnext_event(trid, &info, data, sizeof(data),
					       &len, &unavailable));
	ASSERT_EQ(self->a, info.posix_event_id);
	ASSERT_EQ(4, len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ, info.posix_truncation_status);
	ASSERT_EQ(0x08, data[0]);
	/* The extensions: its number in the stream and its kernel thread. */
	ASSERT_EQ(0, posixtrace_k_event_seq(trid, &seq));
	ASSERT_EQ(1, seq);
	ASSERT_EQ(0, posixtrace_k_event_tid(trid, &tid));
	ASSERT_EQ(gettid(), tid);
	ASSERT_EQ(0, posix_trace_rewind(trid));
	ASSERT_EQ(EINVAL, posixtrace_k_event_seq(trid, &seq));
	ASSERT_EQ(0, posix_trace_close(trid));
}

/* Data over the max data size is kept truncated, and says so. */
TEST_F(log, truncated_record_is_logged_as_such)
{
	unsigned char big[100];
	int i = 0;

	memset(big, 0xab, sizeof(big));
	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&self->attr, 10));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	posix_trace_event(self->a, big, sizeof(big));
	ASSERT_EQ(0, shutdown_log(self));

	ASSERT_EQ(0, read_log(self->fd, &self->lb));
	i = 1;
	ASSERT_EV(&self->lb, i, self->a);
	ASSERT_EQ(10, self->lb.ev[i].len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_RECORD,
		  self->lb.ev[i].info.posix_truncation_status);
	ASSERT_EQ(0, memcmp(big, self->lb.ev[i].data, 10));
}

/* Errors, one per rule. */

TEST_F(log, create_withlog_negative_fd_is_ebadf)
{
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(EBADF, posix_trace_create_withlog(0, &self->attr, -1,
						    &self->trid));
}

TEST_F(log, create_withlog_closed_fd_is_ebadf)
{
	int fd = tmp_log();

	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(EBADF, posix_trace_create_withlog(0, &self->attr, fd,
						    &self->trid));
}

TEST_F(log, create_withlog_read_only_fd_is_ebadf)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", self->fd);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(EBADF, posix_trace_create_withlog(0, &self->attr, fd,
						    &self->trid));
	close(fd);
}

TEST_F(log, loop_log_on_a_pipe_is_einval)
{
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, log_attr(&self->attr, 0, POSIX_TRACE_LOOP, 0, 0));
	ASSERT_EQ(EINVAL, posix_trace_create_withlog(0, &self->attr, p[1],
						     &self->trid));
	close(p[0]);
	close(p[1]);
}

TEST_F(log, loop_log_on_an_append_only_descriptor_is_einval)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", self->fd);
	fd = open(path, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, log_attr(&self->attr, 0, POSIX_TRACE_LOOP, 0, 0));
	ASSERT_EQ(EINVAL, posix_trace_create_withlog(0, &self->attr, fd,
						     &self->trid));
	/* The sequential policies write in order: append is fine. */
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&self->attr,
						       POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &self->attr, fd,
						&self->trid));
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	close(fd);
}

TEST_F(log, log_on_a_file_the_kernel_cannot_write_is_einval)
{
	int fd = eventfd(0, 0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, log_attr(&self->attr, 0, POSIX_TRACE_APPEND, 0, 0));
	ASSERT_EQ(EINVAL, posix_trace_create_withlog(0, &self->attr, fd,
						     &self->trid));
	close(fd);
}

TEST_F(log, flush_of_a_stream_without_log_is_einval)
{
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, posix_trace_create(0, &self->attr, &self->trid));
	self->created = true;
	ASSERT_EQ(EINVAL, posix_trace_flush(self->trid));
}

TEST_F(log, flush_after_shutdown_is_einval)
{
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, shutdown_log(self));
	ASSERT_EQ(EINVAL, posix_trace_flush(self->trid));
}

TEST_F(log, reading_an_active_stream_with_log_is_einval)
{
	struct posix_trace_event_info info;
	struct timespec ts = { 0, 0 };
	unsigned char data[8];
	int unavailable;
	size_t len;

	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 1);
	ASSERT_EQ(EINVAL, posix_trace_trygetnext_event(self->trid, &info, data,
						       sizeof(data), &len,
						       &unavailable));
	ASSERT_EQ(EINVAL, posix_trace_getnext_event(self->trid, &info, data,
						    sizeof(data), &len,
						    &unavailable));
	ASSERT_EQ(EINVAL, posix_trace_timedgetnext_event(self->trid, &info,
							 data, sizeof(data),
							 &len, &unavailable,
							 &ts));
}

TEST_F(log, controller_calls_on_a_log_trid_are_einval)
{
	trace_event_set_t set;
	trace_event_id_t id;
	struct posix_trace_event_info info;
	unsigned char data[8];
	int unavailable;
	size_t len;
	trace_id_t trid;

	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(0, shutdown_log(self));
	ASSERT_EQ(0, posix_trace_open(self->fd, &trid));
	ASSERT_EQ(EINVAL, posix_trace_start(trid));
	ASSERT_EQ(EINVAL, posix_trace_stop(trid));
	ASSERT_EQ(EINVAL, posix_trace_clear(trid));
	ASSERT_EQ(EINVAL, posix_trace_flush(trid));
	ASSERT_EQ(EINVAL, posix_trace_shutdown(trid));
	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(EINVAL, posix_trace_set_filter(trid, &set,
						 POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(EINVAL, posix_trace_trid_eventid_open(trid, "x", &id));
	ASSERT_EQ(EINVAL, posix_trace_trygetnext_event(trid, &info, data,
						       sizeof(data), &len,
						       &unavailable));
	ASSERT_EQ(0, posix_trace_close(trid));
	ASSERT_EQ(EINVAL, posix_trace_close(trid));
	ASSERT_EQ(EINVAL, posix_trace_rewind(trid));
}

TEST_F(log, analyzer_calls_on_a_stream_trid_are_einval)
{
	ASSERT_EQ(0, posix_trace_attr_init(&self->attr));
	ASSERT_EQ(0, create_log(self));
	ASSERT_EQ(EINVAL, posix_trace_rewind(self->trid));
	ASSERT_EQ(EINVAL, posix_trace_close(self->trid));
}

/*
 * A sequential log may be a socket, say to a collector. A socket refuses
 * a write at a position (ESPIPE): each block must go where the stream
 * is. What the other end receives, copied to a file, reads back whole.
 */
TEST_F(log, append_log_on_a_socket_reads_back_whole)
{
	char buf[4096];
	int sv[2], copy, i = 0;
	ssize_t n;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	ASSERT_EQ(0, log_attr(&self->attr, POSIX_TRACE_LOOP,
			      POSIX_TRACE_APPEND, 0, 0));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &self->attr, sv[0],
						&self->trid));
	close(sv[0]);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	emit_numbered(self->a, 0, 200);
	ASSERT_EQ(0, posix_trace_shutdown(self->trid));
	/* The log's thread closed its end: the copy ends. */
	copy = tmp_log();
	ASSERT_LE(0, copy);
	while ((n = read(sv[1], buf, sizeof(buf))) > 0)
		ASSERT_EQ(n, write(copy, buf, n));
	ASSERT_EQ(0, n);
	close(sv[1]);
	ASSERT_EQ(0, read_log(copy, &self->lb));
	close(copy);
	ASSERT_EV(&self->lb, i, POSIX_TRACE_START);
	i++;
	ASSERT_RUN(&self->lb, i, self->a, 0, 199);
	ASSERT_SHUTDOWN_TAIL(&self->lb, i);
	ASSERT_EQ(0, self->lb.status.posix_stream_flush_error);
}

TEST_F(log, open_of_a_file_that_is_no_log_is_einval)
{
	static const char junk[4096] = "this is not a trace log";
	trace_id_t trid;
	int p[2];

	ASSERT_EQ(EINVAL, posix_trace_open(self->fd, &trid));	/* empty */
	ASSERT_EQ((ssize_t)sizeof(junk), write(self->fd, junk, sizeof(junk)));
	ASSERT_EQ(EINVAL, posix_trace_open(self->fd, &trid));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(EINVAL, posix_trace_open(p[0], &trid));
	close(p[0]);
	close(p[1]);
}

TEST(raw_create_with_log_fd_below_minus_one_is_ebadf)
{
	struct posixtrace_attr ua = { .size = sizeof(ua) };
	struct posixtrace_create req = {
		.size = sizeof(req), .log_fd = -2, .attr = (uintptr_t)&ua,
	};
	int dev;

	SKIP_WITHOUT_DEVICE();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ua.stream_full_policy = POSIXTRACE_LOOP;
	ua.log_full_policy = POSIXTRACE_APPEND;
	ua.inheritance = POSIXTRACE_CLOSE_FOR_CHILD;
	ASSERT_EQ(-1, ioctl(dev, POSIXTRACE_IOC_CREATE, &req));
	ASSERT_EQ(EBADF, errno);
	close(dev);
}

TEST(raw_flush_with_an_argument_is_einval)
{
	struct posixtrace_attr ua = { .size = sizeof(ua) };
	struct posixtrace_create req = {
		.size = sizeof(req), .attr = (uintptr_t)&ua,
	};
	int dev, sfd, log = tmp_log();

	SKIP_WITHOUT_DEVICE();
	ASSERT_LE(0, log);
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	req.log_fd = log;
	ua.stream_full_policy = POSIXTRACE_FLUSH;
	ua.log_full_policy = POSIXTRACE_APPEND;
	ua.inheritance = POSIXTRACE_CLOSE_FOR_CHILD;
	sfd = ioctl(dev, POSIXTRACE_IOC_CREATE, &req);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(-1, ioctl(sfd, POSIXTRACE_IOC_FLUSH, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_FLUSH, 0));
	/* FLUSH without a log is invalid. */
	req.log_fd = -1;
	ASSERT_EQ(-1, ioctl(dev, POSIXTRACE_IOC_CREATE, &req));
	ASSERT_EQ(EINVAL, errno);
	close(sfd);
	close(dev);
	close(log);
}

TEST_HARNESS_MAIN
