// SPDX-License-Identifier: GPL-2.0
/*
 * A trace log cut under its writer (issue 32): someone who may write the
 * file (its owner, logrotate's copytruncate) truncates it while the stream
 * logs there, to nothing and then to a size in the middle of what was
 * written. The module must notice before it writes again: the log starts
 * again in the emptied file, with its header, so that what is written
 * after the cut reads back as a log; the flush says EIO (STATUS's
 * flush_error) and an ERROR event in the new log says so; the events the
 * cut took away count as not kept by the log (log_events_discarded); the
 * stream goes on recording. Every number the stream gave is in the log,
 * or counted lost in the stream, or counted as not kept by the log,
 * exactly. For every log-full-policy, and for a descriptor opened with
 * O_APPEND. And the same count for a LOOP log that comes round.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "trc_common.h"
#include "trl_common.h"
#include "stress_common.h"

#define EVENTS_PER_ROUND	1000

FIXTURE(cut) {
	int dev, sfd, logfd;
	trace_event_id_t id;
};

FIXTURE_VARIANT(cut) {
	uint32_t log_policy;
	uint64_t log_size;
	bool o_append;
};

FIXTURE_VARIANT_ADD(cut, append) {
	.log_policy = POSIXTRACE_APPEND,
};

FIXTURE_VARIANT_ADD(cut, append_o_append) {
	.log_policy = POSIXTRACE_APPEND,
	.o_append = true,
};

/* Room for everything: the cut, not the size, is what is tested. */
FIXTURE_VARIANT_ADD(cut, until_full) {
	.log_policy = POSIXTRACE_UNTIL_FULL,
	.log_size = 4 << 20,
};

/* Room for everything too: its slots are never reused here. */
FIXTURE_VARIANT_ADD(cut, loop) {
	.log_policy = POSIXTRACE_LOOP,
	.log_size = 4 << 20,
};

FIXTURE_SETUP(cut)
{
	struct posixtrace_attr a = {
		.stream_size = 256 << 10,
		.max_data_size = 64,
		.stream_full_policy = POSIXTRACE_FLUSH,
		.log_full_policy = variant->log_policy,
		.log_size = variant->log_size,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};

	self->sfd = self->dev = -1;
	SKIP_WITHOUT_DEVICE();
	self->logfd = tmp_log();
	ASSERT_LE(0, self->logfd);
	if (variant->o_append)
		ASSERT_EQ(0, fcntl(self->logfd, F_SETFL, O_APPEND));
	ASSERT_EQ(0, posix_trace_eventid_open("trl.cut", &self->id));
	self->dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev);
	self->sfd = raw_create_with(self->dev, &a, self->logfd);
	ASSERT_LE(0, self->sfd) TH_LOG("create: %s", strerror(-self->sfd));
	ASSERT_EQ(0, raw_control(self->sfd, POSIXTRACE_IOC_START));
}

FIXTURE_TEARDOWN(cut)
{
	if (self->sfd >= 0)
		close(self->sfd);
	if (self->dev >= 0)
		close(self->dev);
	close(self->logfd);
}

static off_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : st.st_size;
}

TEST_F(cut, a_log_cut_under_its_writer_starts_again_and_counts_what_went)
{
	uint64_t in_log = 0, errors_logged = 0, next = 0, last_seq = 0, v;
	uint64_t recorded, stream_lost, discarded, first_kept = UINT64_MAX;
	struct posixtrace_status st;
	int flush_errors = 0, i;
	struct logbuf lb;
	off_t before;

	/* Written, then cut to nothing. */
	emit_numbered(self->id, 0, EVENTS_PER_ROUND);
	EXPECT_EQ(0, raw_flush_and_wait(_metadata, self->sfd, &st));
	before = file_size(self->logfd);
	ASSERT_LT(4096, before);
	ASSERT_EQ(0, ftruncate(self->logfd, 0));

	/* Written after the cut; then cut in the middle of that. */
	emit_numbered(self->id, EVENTS_PER_ROUND, EVENTS_PER_ROUND);
	flush_errors += raw_flush_and_wait(_metadata, self->sfd, &st);
	EXPECT_LT(0, file_size(self->logfd));
	EXPECT_EQ(POSIXTRACE_RUNNING, st.state);
	ASSERT_EQ(0, ftruncate(self->logfd, file_size(self->logfd) / 2));

	emit_numbered(self->id, 2 * EVENTS_PER_ROUND, EVENTS_PER_ROUND);
	flush_errors += raw_flush_and_wait(_metadata, self->sfd, &st);
	EXPECT_EQ(POSIXTRACE_RUNNING, st.state);
	ASSERT_EQ(0, raw_control(self->sfd, POSIXTRACE_IOC_STOP));
	flush_errors += raw_flush_and_wait(_metadata, self->sfd, &st);
	recorded = st.events_recorded;
	stream_lost = st.events_lost;
	discarded = st.log_events_discarded;
	ASSERT_EQ(0, raw_control(self->sfd, POSIXTRACE_IOC_SHUTDOWN));
	close(self->sfd);
	self->sfd = -1;
	ASSERT_TRUE(wait_log_closed(self->logfd));

	/* Both cuts were seen, and said. */
	EXPECT_LE(1, flush_errors);
	EXPECT_LE(2 * EVENTS_PER_ROUND, discarded);

	/* What is there reads as a log, its events in order. */
	ASSERT_EQ(0, read_log(self->logfd, &lb));
	for (i = 0; i < lb.n; i++) {
		last_seq = lb.ev[i].seq;
		in_log++;
		if (lb.ev[i].info.posix_event_id == POSIX_TRACE_ERROR) {
			EXPECT_EQ(EIO, ev_int(&lb.ev[i]));
			errors_logged++;
		}
		if (strcmp(lb.ev[i].name, "trl.cut"))
			continue;
		v = ev_num(&lb.ev[i]);
		EXPECT_LE(next, v);
		if (first_kept == UINT64_MAX)
			first_kept = v;
		next = v + 1;
	}
	free_log(&lb);
	TH_LOG("cut at %lld bytes and at half; the log holds %llu events (%llu ERROR), numbers %llu..%llu; the stream recorded %llu, lost %llu, the log did not keep %llu",
	       (long long)before, (unsigned long long)in_log,
	       (unsigned long long)errors_logged,
	       (unsigned long long)first_kept, (unsigned long long)next - 1,
	       (unsigned long long)recorded, (unsigned long long)stream_lost,
	       (unsigned long long)discarded);
	EXPECT_LE(1, errors_logged);
	/* The last round came after the last cut: all of it is there. */
	EXPECT_EQ(2 * EVENTS_PER_ROUND, first_kept);
	EXPECT_EQ(3 * EVENTS_PER_ROUND, next);
	EXPECT_EQ(last_seq + 1, in_log + stream_lost + discarded);
}

/*
 * Not a cut, but the same count: a LOOP log that comes round writes over
 * its oldest slots, and the events they held count as not kept by the
 * log (log_events_discarded), so that every number the stream gave is
 * still in the log, counted lost, or counted discarded, exactly. make
 * mutants' log-slot-overwrite-not-counted survived without it (the cut
 * test's LOOP log has room for everything).
 */
#define LOOP_ROUNDS	6

TEST(a_loop_log_that_comes_round_counts_what_it_wrote_over)
{
	struct posixtrace_attr a = {
		.stream_size = 256 << 10,
		.max_data_size = 64,
		.stream_full_policy = POSIXTRACE_FLUSH,
		.log_full_policy = POSIXTRACE_LOOP,
		.log_size = 256 << 10,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};
	uint64_t in_log = 0, last_seq = 0, discarded, lost;
	struct posixtrace_status st;
	trace_event_id_t id;
	int dev, sfd, logfd, r, i;
	struct logbuf lb;

	SKIP_WITHOUT_DEVICE();
	logfd = tmp_log();
	ASSERT_LE(0, logfd);
	ASSERT_EQ(0, posix_trace_eventid_open("trl.loop", &id));
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	sfd = raw_create_with(dev, &a, logfd);
	ASSERT_LE(0, sfd) TH_LOG("create: %s", strerror(-sfd));
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_START));
	/* Some six times what the log holds, a flush after each round. */
	for (r = 0; r < LOOP_ROUNDS; r++) {
		emit_numbered(id, r * EVENTS_PER_ROUND, EVENTS_PER_ROUND);
		EXPECT_EQ(0, raw_flush_and_wait(_metadata, sfd, &st));
	}
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_STOP));
	EXPECT_EQ(0, raw_flush_and_wait(_metadata, sfd, &st));
	lost = st.events_lost;
	discarded = st.log_events_discarded;
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN));
	close(sfd);
	close(dev);
	ASSERT_TRUE(wait_log_closed(logfd));
	ASSERT_EQ(0, read_log(logfd, &lb));
	for (i = 0; i < lb.n; i++) {
		last_seq = lb.ev[i].seq;
		in_log++;
	}
	free_log(&lb);
	close(logfd);
	TH_LOG("the log holds %llu events; the stream lost %llu, the log wrote over %llu; last seq %llu",
	       (unsigned long long)in_log, (unsigned long long)lost,
	       (unsigned long long)discarded, (unsigned long long)last_seq);
	/* It came round. */
	EXPECT_LT(0, discarded);
	EXPECT_EQ(last_seq + 1, in_log + lost + discarded);
}

TEST_HARNESS_MAIN
