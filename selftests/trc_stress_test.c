// SPDX-License-Identifier: GPL-2.0
/*
 * Stress and robustness (POSIX Trace option, TRC): bounded runs that try to
 * make the module crash, warn, leak, deadlock, or lose or duplicate events,
 * and that pass on a correct module.
 *
 *  - Producer threads and readers on one stream: every event read exactly
 *    once, in order per producer, and what was not read is counted lost
 *    (LOOP through the library; LOOP and UNTIL_FULL through the raw ABI,
 *    where the sequence numbers must show each loss as a gap).
 *  - posix_trace_shutdown() racing blocked readers, producers and the
 *    other controller functions: no hang, every call 0 or [EINVAL].
 *  - Creators exiting or exec'ing while the process they trace emits and
 *    a child holds their streams' descriptors: {TRACE_SYS_MAX} never
 *    exhausted, the holder sees dead streams.
 *  - A traced process exiting while the analyzer reads its events.
 *  - Streams created and shut down under producers: truncation to each
 *    stream's max data size.
 *  - Event names beyond {TRACE_USER_EVENT_MAX} from several threads.
 *  - Random ioctls and mmaps on /dev/posixtrace and on a stream (fixed
 *    seed, in the log; TRC_STRESS_SEED overrides it): only sane errors,
 *    and the device works afterwards.
 *  - Recording switched on and off under producers (start and stop, the
 *    filter), and the first events of a new process's threads: exactly
 *    the events sent while on are recorded, whatever the producers'
 *    shortcut (the enable page) says.
 *  - Timed reads with an absolute time long before the Epoch.
 *
 * Every loop is bounded by a count and by wall-clock time. Threads never
 * use the harness's ASSERTs: they note errors (note_err()) and the test
 * checks them once the threads are joined; forked children report
 * through pipes, shared memory or their exit status.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "trc_common.h"
#include "stress_common.h"
#include "ioctl_fuzz.h"

/* Set in the environment of an exec'd creator: exit at once. */
#define EXIT_AT_START	"TRC_STRESS_EXIT_AT_START"

/* How long anything may take before the test calls it hung. */
#define HANG_MS		5000

/* ---- time, randomness, errors --------------------------------------- */

/* Errors found by threads; the first one is kept for the log. */
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static int err_count;
static char err_first[512];

static void __attribute__((format(printf, 1, 2))) note_err(const char *fmt,
							   ...)
{
	va_list ap;

	pthread_mutex_lock(&err_lock);
	if (!err_count++) {
		va_start(ap, fmt);
		vsnprintf(err_first, sizeof(err_first), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&err_lock);
}

#define ASSERT_NO_ERRORS() \
	ASSERT_EQ(0, err_count) { \
		TH_LOG("%d error(s); the first: %s", err_count, err_first); \
	}

static bool wait_true(atomic_bool *flag, unsigned int ms)
{
	uint64_t end = deadline_ms(ms);

	while (!atomic_load(flag)) {
		if (!before(end))
			return false;
		usleep(500);
	}
	return true;
}

static bool join_within(pthread_t thr, unsigned int ms)
{
	struct timespec ts = realtime_in(ms * 1000);

	return !pthread_timedjoin_np(thr, NULL, &ts);
}

/* ---- event data ------------------------------------------------------ */

/* What producers put first in their events' data; a pattern follows. */
struct payload {
	uint32_t producer;
	uint32_t seq;
};

static unsigned char pattern(uint32_t producer, uint32_t seq, size_t i)
{
	return (unsigned char)(producer * 131 + seq * 7 + i);
}

static void payload_fill(unsigned char *buf, size_t len, uint32_t producer,
			 uint32_t seq)
{
	struct payload p = { producer, seq };
	size_t i;

	memcpy(buf, &p, len < sizeof(p) ? len : sizeof(p));
	for (i = sizeof(p); i < len; i++)
		buf[i] = pattern(producer, seq, i);
}

/* Decode len bytes payload_fill() wrote; false if they are not that. */
static bool payload_check(const unsigned char *buf, size_t len,
			  uint32_t *producer, uint32_t *seq)
{
	struct payload p;
	size_t i;

	if (len < sizeof(p))
		return false;
	memcpy(&p, buf, sizeof(p));
	for (i = sizeof(p); i < len; i++)
		if (buf[i] != pattern(p.producer, p.seq, i))
			return false;
	*producer = p.producer;
	*seq = p.seq;
	return true;
}

/* ---- the raw ABI ----------------------------------------------------- */

/* Where a record's data starts (header_size, where the ABI has it). */
static size_t rec_header(const struct posixtrace_record *rec)
{
	return sizeof(*rec);
}

/*
 * Check a record's layout in a buffer of left bytes: its size covers its
 * header and data, padded to 8 bytes. Returns false if it does not.
 */
static bool rec_sane(const struct posixtrace_record *rec, size_t left)
{
	return rec->size >= sizeof(*rec) && rec->size <= left &&
#ifdef POSIXTRACE_CREATE_MEM_FD
	       rec->header_size == sizeof(*rec) &&
#endif
	       rec->size == rec_header(rec) + ROUND8(rec->data_len);
}

#define FDS_MAX	256

/*
 * posix_trace_create() that also finds the new stream's descriptor, for
 * the raw STATUS counters the library does not report. Only one thread
 * may create streams meanwhile. Returns the error number; *fd is -1 if
 * the descriptor was not found.
 */
static int create_with_fd(const trace_attr_t *attr, trace_id_t *trid, int *fd)
{
	int before_fds[FDS_MAX], after[FDS_MAX], nb, na, i, j, ret;

	*fd = -1;
	nb = stream_fds(before_fds, FDS_MAX);
	ret = posix_trace_create(0, attr, trid);
	if (ret)
		return ret;
	na = stream_fds(after, FDS_MAX);
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && before_fds[j] != after[i]; j++)
			;
		if (j == nb) {
			*fd = after[i];
			break;
		}
	}
	return 0;
}

/* ---- streams and their limit ---------------------------------------- */

/* An exec'd creator (see creator_exit_races_...): exit before main. */
static void __attribute__((constructor)) exit_at_start(void)
{
	if (getenv(EXIT_AT_START))
		_exit(0);
}

/* ---- 1. producers and readers on one LOOP stream (library) ----------- */

#define T1_PRODUCERS	4
#define T1_READERS	2
#define T1_EVENTS	20000		/* per producer, at most */
#define T1_DATA_MAX	40
#define T1_EMIT_MS	500

/* Producers vary their events' size, so records wrap at every offset. */
static size_t t1_len(uint32_t seq)
{
	return 8 + 8 * (seq % 5);
}

struct t1 {
	trace_id_t trid;
	trace_event_id_t id;
	uint64_t end;
	pthread_barrier_t go;
	pthread_t self[T1_PRODUCERS];
	uint32_t emitted[T1_PRODUCERS];
	atomic_bool stop_seen;
	atomic_bool shut;
	atomic_uint user, start, stop, overflow, resume;
	atomic_uchar seen[T1_PRODUCERS][T1_EVENTS];
};

static struct t1 t1;

struct producer_arg {
	void *ctx;
	uint32_t idx;
};

/*
 * A producer's run: up to T1_EVENTS events of id, of varying lengths,
 * until the deadline end. Returns how many it emitted.
 */
static uint32_t produce(trace_event_id_t id, uint64_t end, uint32_t idx)
{
	unsigned char buf[T1_DATA_MAX];
	uint32_t seq;

	for (seq = 0; seq < T1_EVENTS; seq++) {
		if (!(seq & 31) && !before(end))
			break;
		payload_fill(buf, t1_len(seq), idx, seq);
		posix_trace_event(id, buf, t1_len(seq));
	}
	return seq;
}

static void *t1_producer(void *arg)
{
	struct producer_arg *p = arg;
	struct t1 *t = p->ctx;

	t->self[p->idx] = pthread_self();
	pthread_barrier_wait(&t->go);
	t->emitted[p->idx] = produce(t->id, t->end, p->idx);
	return NULL;
}

static void t1_user_event(struct t1 *t, const struct rec *r, int64_t *last)
{
	uint32_t prod, seq;

	if (!payload_check(r->data, r->len, &prod, &seq) ||
	    prod >= T1_PRODUCERS || seq >= T1_EVENTS ||
	    r->len != t1_len(seq)) {
		note_err("user event with bad data (%zu bytes)", r->len);
		return;
	}
	if (r->info.posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED ||
	    r->info.posix_pid != getpid() ||
	    !pthread_equal(r->info.posix_thread_id, t->self[prod]) ||
	    !r->info.posix_prog_address)
		note_err("producer %u event %u: bad truncation %d, pid %d, thread or address",
			 prod, seq, r->info.posix_truncation_status,
			 r->info.posix_pid);
	if ((int64_t)seq <= last[prod])
		note_err("producer %u: event %u read after %lld", prod, seq,
			 (long long)last[prod]);
	last[prod] = seq;
	if (atomic_exchange(&t->seen[prod][seq], 1))
		note_err("producer %u: event %u read twice", prod, seq);
	atomic_fetch_add(&t->user, 1);
}

static void *t1_reader(void *arg)
{
	struct t1 *t = arg;
	int64_t last[T1_PRODUCERS];
	struct rec r;
	int ret, i, auto_stop;

	for (i = 0; i < T1_PRODUCERS; i++)
		last[i] = -1;
	pthread_barrier_wait(&t->go);
	for (;;) {
		rec_clear(&r);
		ret = posix_trace_getnext_event(t->trid, &r.info, r.data,
						sizeof(r.data), &r.len,
						&r.unavailable);
		if (ret) {
			if (ret != EINVAL || !atomic_load(&t->shut))
				note_err("getnext_event: error %d", ret);
			break;
		}
		if (r.unavailable) {
			note_err("getnext_event returned without an event");
			break;
		}
		switch (r.info.posix_event_id) {
		case POSIX_TRACE_START:
			atomic_fetch_add(&t->start, 1);
			break;
		case POSIX_TRACE_STOP:
			auto_stop = -1;
			if (r.len == sizeof(int))
				memcpy(&auto_stop, r.data, sizeof(int));
			if (auto_stop)
				note_err("STOP with %zu bytes, auto %d", r.len,
					 auto_stop);
			atomic_fetch_add(&t->stop, 1);
			atomic_store(&t->stop_seen, true);
			break;
		case POSIX_TRACE_OVERFLOW:
			atomic_fetch_add(&t->overflow, 1);
			break;
		case POSIX_TRACE_RESUME:
			atomic_fetch_add(&t->resume, 1);
			break;
		default:
			if (r.info.posix_event_id != t->id)
				note_err("unexpected event type %d",
					 r.info.posix_event_id);
			else
				t1_user_event(t, &r, last);
		}
	}
	return NULL;
}

/*
 * A small LOOP stream, four producer threads and two reader threads
 * sharing the trid. Every event is read at most once, in order per
 * producer; with the STATUS counters: read + lost == recorded ==
 * emitted + START + STOP.
 */
TEST(loop_stream_producers_and_two_readers_read_each_event_once)
{
	struct producer_arg pa[T1_PRODUCERS];
	pthread_t prod[T1_PRODUCERS], rd[T1_READERS];
	struct posixtrace_status st;
	struct t1 *t = &t1;
	uint64_t emitted = 0, user, sys;
	trace_attr_t attr;
	bool stopped, joined = true;
	int fd, i, sret = -1;

	SKIP_WITHOUT_DEVICE();
	make_attr(&attr, 4096, T1_DATA_MAX, POSIX_TRACE_LOOP);
	ASSERT_EQ(0, posix_trace_eventid_open("stress_loop", &t->id));
	ASSERT_EQ(0, create_with_fd(&attr, &t->trid, &fd));
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posix_trace_start(t->trid));
	ASSERT_EQ(0, pthread_barrier_init(&t->go, NULL,
					  T1_PRODUCERS + T1_READERS + 1));
	t->end = deadline_ms(T1_EMIT_MS);
	for (i = 0; i < T1_READERS; i++)
		ASSERT_EQ(0, pthread_create(&rd[i], NULL, t1_reader, t));
	for (i = 0; i < T1_PRODUCERS; i++) {
		pa[i] = (struct producer_arg){ t, i };
		ASSERT_EQ(0, pthread_create(&prod[i], NULL, t1_producer,
					    &pa[i]));
	}
	pthread_barrier_wait(&t->go);
	for (i = 0; i < T1_PRODUCERS; i++) {
		ASSERT_EQ(0, pthread_join(prod[i], NULL));
		emitted += t->emitted[i];
	}
	ASSERT_EQ(0, posix_trace_stop(t->trid));
	/* STOP is the last record: once read, the counters are final. */
	stopped = wait_true(&t->stop_seen, HANG_MS);
	if (stopped)
		sret = raw_status(fd, &st);
	atomic_store(&t->shut, true);
	EXPECT_EQ(0, posix_trace_shutdown(t->trid));
	for (i = 0; i < T1_READERS; i++)
		joined &= join_within(rd[i], HANG_MS);
	ASSERT_TRUE(stopped) TH_LOG("STOP not read within %d ms", HANG_MS);
	ASSERT_TRUE(joined) TH_LOG("a reader hung after shutdown");
	ASSERT_NO_ERRORS();
	ASSERT_EQ(0, sret);

	user = atomic_load(&t->user);
	sys = atomic_load(&t->start) + atomic_load(&t->stop);
	TH_LOG("emitted %llu, read %llu, lost %llu, overflows %u",
	       (unsigned long long)emitted, (unsigned long long)user,
	       (unsigned long long)st.events_lost, atomic_load(&t->overflow));
	ASSERT_EQ(1, atomic_load(&t->stop));
	ASSERT_GE(1, atomic_load(&t->start));
	ASSERT_EQ(atomic_load(&t->overflow), atomic_load(&t->resume));
	ASSERT_EQ(emitted + 2, st.events_recorded);
	ASSERT_EQ(st.events_recorded, user + sys + st.events_lost);
	/* Events read: those of the ring, not the OVERFLOW and RESUME. */
	ASSERT_EQ(user + sys, st.events_read);
	if (st.events_lost) {
		ASSERT_LE(1, atomic_load(&t->overflow));
	}
	ASSERT_EQ(0, st.bytes_used);
}

/* ---- 1b, 1c. the same through the raw ABI, with sequence numbers ----- */

#define RAW_BUF		65536
#define RAW_MIN_BUF	POSIXTRACE_GETNEXT_MIN_BUF(T1_DATA_MAX)

enum raw_state { RS_INIT, RS_RUNNING, RS_AUTO_STOPPED, RS_STOPPED };

struct traw {
	int sfd;
	uint32_t policy;
	trace_event_id_t id;
	uint64_t end;
	uint64_t seed;
	pthread_barrier_t go;
	pthread_t self[T1_PRODUCERS];
	pid_t tid[T1_PRODUCERS];
	pid_t main_tid;
	uint32_t emitted[T1_PRODUCERS];
	atomic_bool producers_done;	/* and the stream stopped */
	/* The reader's findings. */
	enum raw_state state;
	uint64_t expect;		/* the next sequence number */
	uint64_t gaps;			/* sequence numbers skipped */
	uint64_t real;			/* records of the ring */
	uint64_t user, start, stop, auto_stops, overflows;
	int64_t last[T1_PRODUCERS];
	int64_t last_ts;
};

static struct traw traw;

static void *traw_producer(void *arg)
{
	struct producer_arg *p = arg;
	struct traw *t = p->ctx;

	t->self[p->idx] = pthread_self();
	t->tid[p->idx] = gettid();
	pthread_barrier_wait(&t->go);
	t->emitted[p->idx] = produce(t->id, t->end, p->idx);
	return NULL;
}

static int64_t rec_ts(const struct posixtrace_record *rec)
{
	return rec->ts_sec * 1000000000LL + rec->ts_nsec;
}

/* One record of the ring (not OVERFLOW or RESUME); false to stop. */
static bool traw_record(struct traw *t, const struct posixtrace_record *rec,
			const unsigned char *data, bool after_gap)
{
	uint32_t prod, seq, auto_stop;
	uint64_t gap = rec->seq - t->expect;
	bool bad;

	if (rec->seq < t->expect) {
		note_err("record seq %llu after %llu",
			 (unsigned long long)rec->seq,
			 (unsigned long long)t->expect);
		return false;
	}
	if (rec_ts(rec) < t->last_ts)
		note_err("record seq %llu: time goes backwards",
			 (unsigned long long)rec->seq);
	t->last_ts = rec_ts(rec);
	t->expect = rec->seq + 1;
	t->real++;
	if (rec->event_id == POSIXTRACE_EVENT_START ||
	    rec->event_id == POSIXTRACE_EVENT_STOP) {
		if (rec->thread || rec->prog_address)
			note_err("system event %u with thread or address",
				 rec->event_id);
	}
	switch (rec->event_id) {
	case POSIXTRACE_EVENT_START:
		/* Ours, or (UNTIL_FULL) the stream's own restart. */
		if (t->state != RS_INIT && t->state != RS_AUTO_STOPPED)
			note_err("START in state %d", t->state);
		bad = t->state == RS_INIT ?
		      rec->pid != getpid() || rec->tid != t->main_tid :
		      rec->pid != 0;
		if (bad)
			note_err("START from pid %d tid %d", rec->pid,
				 rec->tid);
		if (gap && (t->policy == POSIXTRACE_LOOP ? !after_gap :
			    t->state != RS_AUTO_STOPPED))
			note_err("START after %llu unexplained lost events",
				 (unsigned long long)gap);
		t->state = RS_RUNNING;
		t->start++;
		break;
	case POSIXTRACE_EVENT_STOP:
		auto_stop = UINT32_MAX;
		if (rec->data_len == sizeof(auto_stop))
			memcpy(&auto_stop, data, sizeof(auto_stop));
		if (t->state != RS_RUNNING || auto_stop > 1 ||
		    (auto_stop && t->policy != POSIXTRACE_UNTIL_FULL)) {
			note_err("STOP (auto %u) in state %d", auto_stop,
				 t->state);
			return false;
		}
		/* An automatic STOP follows the one event it lost. */
		if (t->policy == POSIXTRACE_UNTIL_FULL ?
		    gap != auto_stop : gap && !after_gap)
			note_err("STOP (auto %u) after %llu lost events",
				 auto_stop, (unsigned long long)gap);
		t->state = auto_stop ? RS_AUTO_STOPPED : RS_STOPPED;
		if (auto_stop)
			t->auto_stops++;
		else
			t->stop++;
		break;
	default:
		if (rec->event_id != (uint32_t)t->id) {
			note_err("unexpected event type %u", rec->event_id);
			return false;
		}
		/* LOOP: START itself may have been overwritten. */
		if (t->state == RS_INIT && after_gap &&
		    t->policy == POSIXTRACE_LOOP)
			t->state = RS_RUNNING;
		if (t->state != RS_RUNNING)
			note_err("user event in state %d", t->state);
		if (gap && !after_gap)
			note_err("user event seq %llu: %llu events lost without OVERFLOW",
				 (unsigned long long)rec->seq,
				 (unsigned long long)gap);
		if (!payload_check(data, rec->data_len, &prod, &seq) ||
		    prod >= T1_PRODUCERS || rec->data_len != t1_len(seq) ||
		    rec->truncation != POSIXTRACE_NOT_TRUNCATED) {
			note_err("user event seq %llu: bad data",
				 (unsigned long long)rec->seq);
			return false;
		}
		if (rec->pid != getpid() || rec->tid != t->tid[prod] ||
		    rec->thread != (uint64_t)t->self[prod] ||
		    !rec->prog_address)
			note_err("producer %u event %u: pid %d tid %d, thread or address wrong",
				 prod, seq, rec->pid, rec->tid);
		if ((int64_t)seq <= t->last[prod])
			note_err("producer %u: event %u after %lld", prod, seq,
				 (long long)t->last[prod]);
		t->last[prod] = seq;
		t->user++;
	}
	if (after_gap || t->policy == POSIXTRACE_UNTIL_FULL)
		t->gaps += gap;
	return true;
}

/*
 * A batch of records from GETNEXT. In a LOOP stream a loss shows as
 * OVERFLOW then RESUME just before the first record after it, in the same
 * batch, all three with that record's sequence number.
 */
static bool traw_batch(struct traw *t, const unsigned char *buf,
		       uint32_t bytes, uint32_t count)
{
	struct posixtrace_record rec, ov = { 0 };
	uint32_t off = 0, n = 0;
	int gap_state = 0;	/* 1: after OVERFLOW, 2: after RESUME */

	while (off < bytes) {
		if (bytes - off < sizeof(rec)) {
			note_err("batch ends in a partial record");
			return false;
		}
		memcpy(&rec, buf + off, sizeof(rec));
		if (!rec_sane(&rec, bytes - off)) {
			note_err("record of size %u, data %u, at %u of %u",
				 rec.size, rec.data_len, off, bytes);
			return false;
		}
		n++;
		if (rec.event_id == POSIXTRACE_EVENT_OVERFLOW) {
			if (gap_state || t->policy != POSIXTRACE_LOOP ||
			    rec.data_len || rec.pid ||
			    rec_ts(&rec) < t->last_ts) {
				note_err("OVERFLOW out of place");
				return false;
			}
			ov = rec;
			gap_state = 1;
		} else if (rec.event_id == POSIXTRACE_EVENT_RESUME) {
			if (gap_state != 1 || rec.seq != ov.seq ||
			    rec_ts(&rec) < rec_ts(&ov) || rec.data_len) {
				note_err("RESUME out of place");
				return false;
			}
			ov = rec;
			gap_state = 2;
		} else {
			if (gap_state == 1 ||
			    (gap_state == 2 && (rec.seq != ov.seq ||
						rec.seq <= t->expect ||
						rec_ts(&rec) != rec_ts(&ov)))) {
				note_err("record seq %llu after OVERFLOW for %llu",
					 (unsigned long long)rec.seq,
					 (unsigned long long)ov.seq);
				return false;
			}
			if (!traw_record(t, &rec, buf + off + rec_header(&rec),
					 gap_state == 2))
				return false;
			if (gap_state == 2)
				t->overflows++;
			gap_state = 0;
		}
		off += rec.size;
	}
	if (gap_state || n != count) {
		note_err("batch of %u records said %u, gap state %d", n, count,
			 gap_state);
		return false;
	}
	return true;
}

static void *traw_reader(void *arg)
{
	static const uint32_t sizes[] = { RAW_MIN_BUF, 512, 4096, RAW_BUF };
	struct traw *t = arg;
	unsigned char *buf = malloc(RAW_BUF);
	uint64_t rng = t->seed, hang = 0;
	uint32_t size, flags, count, bytes;
	struct timespec abstime;
	bool done = false;
	int ret;

	if (!buf) {
		note_err("no memory");
		return NULL;
	}
	pthread_barrier_wait(&t->go);
	/* After an explicit STOP nothing more is recorded. */
	while (t->state != RS_STOPPED) {
		/* The stream is stopped: drain it without waiting. */
		if (!done && atomic_load(&t->producers_done)) {
			done = true;
			hang = deadline_ms(HANG_MS);
		}
		if (hang && !before(hang)) {
			note_err("stream not drained within %d ms", HANG_MS);
			break;
		}
		size = sizes[rnd_below(&rng, 4)];
		/*
		 * Blocking reads only where a STOP is sure to come (LOOP);
		 * UNTIL_FULL may stay stopped and empty.
		 */
		flags = rnd_below(&rng, 3);
		if (flags == 0 && (done || t->policy != POSIXTRACE_LOOP))
			flags = POSIXTRACE_GETNEXT_NONBLOCK;
		abstime = realtime_in(10000);
		ret = raw_getnext(t->sfd, buf, size, flags, &abstime, &count,
				  &bytes);
		if (ret == ETIMEDOUT && flags == POSIXTRACE_GETNEXT_TIMED)
			continue;
		if (ret == ENOSPC && size < RAW_MIN_BUF)
			continue;
		if (ret) {
			note_err("GETNEXT flags %u size %u: error %d", flags,
				 size, ret);
			break;
		}
		if (!count) {
			if (flags != POSIXTRACE_GETNEXT_NONBLOCK) {
				note_err("GETNEXT flags %u returned nothing",
					 flags);
				break;
			}
			/* Drained; UNTIL_FULL may end stopped when full. */
			if (done && t->policy == POSIXTRACE_UNTIL_FULL)
				break;
			sched_yield();
			continue;
		}
		if (!traw_batch(t, buf, bytes, count))
			break;
		/* UNTIL_FULL: fall behind now and then, to fill it. */
		if (t->policy == POSIXTRACE_UNTIL_FULL && !done &&
		    !rnd_below(&rng, 4))
			usleep(200 + rnd_below(&rng, 1500));
	}
	free(buf);
	return NULL;
}

/* Four producers, one raw reader, a 4 KiB stream of the given policy. */
static void raw_stream_run(struct __test_metadata *_metadata, uint32_t policy,
			   uint64_t seed)
{
	struct producer_arg pa[T1_PRODUCERS];
	pthread_t prod[T1_PRODUCERS], rd;
	struct posixtrace_status st;
	struct traw *t = &traw;
	uint64_t emitted = 0, trailing;
	bool joined;
	int dev, i;

	t->seed = seed;
	t->policy = policy;
	t->main_tid = gettid();
	t->last_ts = INT64_MIN;
	for (i = 0; i < T1_PRODUCERS; i++)
		t->last[i] = -1;
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, posix_trace_eventid_open("stress_raw", &t->id));
	t->sfd = raw_create(dev, 0, 4096, T1_DATA_MAX, policy);
	ASSERT_LE(0, t->sfd);
	ASSERT_EQ(0, raw_control(t->sfd, POSIXTRACE_IOC_START));
	ASSERT_EQ(0, pthread_barrier_init(&t->go, NULL, T1_PRODUCERS + 2));
	t->end = deadline_ms(T1_EMIT_MS);
	ASSERT_EQ(0, pthread_create(&rd, NULL, traw_reader, t));
	for (i = 0; i < T1_PRODUCERS; i++) {
		pa[i] = (struct producer_arg){ t, i };
		ASSERT_EQ(0, pthread_create(&prod[i], NULL, traw_producer,
					    &pa[i]));
	}
	pthread_barrier_wait(&t->go);
	for (i = 0; i < T1_PRODUCERS; i++) {
		ASSERT_EQ(0, pthread_join(prod[i], NULL));
		emitted += t->emitted[i];
	}
	ASSERT_EQ(0, raw_control(t->sfd, POSIXTRACE_IOC_STOP));
	atomic_store(&t->producers_done, true);
	joined = join_within(rd, HANG_MS);
	if (!joined) {
		/* Wake the reader (EINVAL) before failing. */
		raw_control(t->sfd, POSIXTRACE_IOC_SHUTDOWN);
		join_within(rd, HANG_MS);
	}
	ASSERT_TRUE(joined) TH_LOG("the reader hung");
	ASSERT_NO_ERRORS();
	ASSERT_EQ(0, raw_status(t->sfd, &st));
	TH_LOG("emitted %llu, read %llu, lost %llu, gaps %llu, overflows %llu, auto stops %llu",
	       (unsigned long long)emitted, (unsigned long long)t->user,
	       (unsigned long long)st.events_lost,
	       (unsigned long long)t->gaps,
	       (unsigned long long)t->overflows,
	       (unsigned long long)t->auto_stops);
	ASSERT_EQ(0, st.bytes_used);
	ASSERT_EQ(POSIXTRACE_SUSPENDED, st.state);
	if (policy == POSIXTRACE_LOOP) {
		/* Every sequence number was stored; what is missing was lost. */
		ASSERT_EQ(RS_STOPPED, t->state);
		ASSERT_EQ(t->expect, st.events_recorded);
		ASSERT_EQ(st.events_lost, t->gaps);
		ASSERT_EQ(st.events_recorded, t->real + st.events_lost);
		ASSERT_EQ(st.events_read, t->real);
		ASSERT_EQ(emitted + 2, st.events_recorded);
		ASSERT_EQ(emitted + 2, t->user + t->start + t->stop +
				       st.events_lost);
	} else {
		/*
		 * Lost events take sequence numbers too; those after the
		 * last record are lost while it stayed stopped when full.
		 */
		ASSERT_LE(t->expect, st.events_recorded + st.events_lost);
		trailing = st.events_recorded + st.events_lost - t->expect;
		if (t->state == RS_STOPPED) {
			ASSERT_EQ(0, trailing);
		} else {
			ASSERT_EQ(RS_AUTO_STOPPED, t->state);
		}
		ASSERT_EQ(st.events_lost, t->gaps + trailing);
		ASSERT_EQ(st.events_recorded, t->real);
		ASSERT_EQ(st.events_read, t->real);
		ASSERT_EQ(0, t->overflows);
		ASSERT_EQ(emitted, t->user + st.events_lost);
		ASSERT_LE(t->start, t->auto_stops + 1);
	}
	ASSERT_EQ(0, raw_control(t->sfd, POSIXTRACE_IOC_SHUTDOWN));
	close(t->sfd);
	close(dev);
}

/*
 * A LOOP stream read through the raw ABI with buffers from the smallest
 * GETNEXT always fills to 64 KiB: sequence numbers skip exactly where
 * OVERFLOW and RESUME say, and the gaps add up to events_lost.
 */
TEST(loop_stream_raw_reader_sees_every_loss_as_a_gap)
{
	uint64_t seed;

	SKIP_WITHOUT_DEVICE();
	seed = test_seed(_metadata, 0x100b5eedULL);
	raw_stream_run(_metadata, POSIXTRACE_LOOP, seed);
}

/*
 * An UNTIL_FULL stream the reader falls behind: it stops when full (STOP,
 * "auto" 1, just after the event that did not fit), restarts by itself
 * once emptied (START), and every event is read or counted lost.
 */
TEST(until_full_stream_stops_and_restarts_counting_every_loss)
{
	uint64_t seed;

	SKIP_WITHOUT_DEVICE();
	seed = test_seed(_metadata, 0x0f011f00ULL);
	raw_stream_run(_metadata, POSIXTRACE_UNTIL_FULL, seed);
}

/* ---- 2. shutdown racing everything else ------------------------------ */

#define T2_ITERATIONS	60
#define T2_MS		1000
#define T2_PRODUCERS	2

enum { RB_BLOCK, RB_TIMED, RB_TRY, RB_CTL, RB_CTL2, RB_SHUT, RB_NR };

static const char *const rb_names[RB_NR] = {
	"getnext", "timedgetnext", "trygetnext", "controller", "controller",
	"second shutdown",
};

struct t2 {
	trace_id_t trid;
	trace_event_id_t id;
	uint64_t seed;
	unsigned int shut_delay_us;
	atomic_int ready;
	atomic_bool go;
	atomic_bool producers_stop;
	int shut_ret;
};

struct t2_racer {
	struct t2 *t;
	int kind;
	int iteration;
};

/* One call of a controller function; its result. */
static int t2_control(trace_id_t trid, uint64_t *rng)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct posix_trace_status_info st;
	trace_event_id_t id;
	trace_attr_t attr;
	int unavailable;

	switch (rnd_below(rng, 9)) {
	case 0:
		return posix_trace_start(trid);
	case 1:
		return posix_trace_stop(trid);
	case 2:
		return posix_trace_clear(trid);
	case 3:
		return posix_trace_get_status(trid, &st);
	case 4:
		return posix_trace_get_attr(trid, &attr);
	case 5:
		return posix_trace_trid_eventid_open(trid, "raced", &id);
	case 6:
		return posix_trace_eventid_get_name(trid, POSIX_TRACE_START,
						    name);
	case 7:
		return posix_trace_eventtypelist_getnext_id(trid, &id,
							    &unavailable);
	default:
		return posix_trace_eventtypelist_rewind(trid);
	}
}

static void *t2_racer(void *arg)
{
	struct t2_racer *r = arg;
	struct t2 *t = r->t;
	uint64_t rng = t->seed ^ ((uint64_t)r->kind << 32);
	uint64_t hang = deadline_ms(HANG_MS);
	struct timespec abstime;
	struct rec rec;
	bool ok = false;
	int ret = 0;

	atomic_fetch_add(&t->ready, 1);
	while (!atomic_load(&t->go))
		sched_yield();
	for (;;) {
		rec_clear(&rec);
		switch (r->kind) {
		case RB_BLOCK:
			ret = posix_trace_getnext_event(t->trid, &rec.info,
							rec.data,
							sizeof(rec.data),
							&rec.len,
							&rec.unavailable);
			ok = !ret || ret == EINVAL;
			break;
		case RB_TIMED:
			abstime = realtime_in(1000);
			ret = posix_trace_timedgetnext_event(t->trid,
							     &rec.info,
							     rec.data,
							     sizeof(rec.data),
							     &rec.len,
							     &rec.unavailable,
							     &abstime);
			ok = !ret || ret == EINVAL || ret == ETIMEDOUT;
			break;
		case RB_TRY:
			ret = try_next(t->trid, &rec);
			ok = !ret || ret == EINVAL;
			break;
		case RB_CTL:
		case RB_CTL2:
			ret = t2_control(t->trid, &rng);
			ok = !ret || ret == EINVAL;
			break;
		case RB_SHUT:
			usleep(t->shut_delay_us);
			ret = posix_trace_shutdown(t->trid);
			t->shut_ret = ret;
			ok = !ret || ret == EINVAL;
			break;
		}
		if (!ok) {
			note_err("iteration %d, %s: error %d", r->iteration,
				 rb_names[r->kind], ret);
			break;
		}
		if (ret == EINVAL || r->kind == RB_SHUT)
			break;
		if (!before(hang)) {
			note_err("iteration %d, %s: trid still valid after %d ms",
				 r->iteration, rb_names[r->kind], HANG_MS);
			break;
		}
	}
	return NULL;
}

static void *t2_producer(void *arg)
{
	struct t2 *t = arg;
	unsigned char buf[64];
	uint32_t seq;

	for (seq = 0; !atomic_load(&t->producers_stop); seq++) {
		payload_fill(buf, 8 + seq % 57, 0, seq);
		posix_trace_event(seq & 1 ? t->id :
				  POSIX_TRACE_UNNAMED_USEREVENT,
				  buf, 8 + seq % 57);
	}
	return NULL;
}

/*
 * Over and over: a stream, readers blocked in getnext, timedgetnext and
 * trygetnext, two threads calling every controller function, producers,
 * and two shutdowns at random moments. Every call returns 0 or [EINVAL]
 * ([ETIMEDOUT] for the timed read), and every thread sees [EINVAL] once
 * the stream is shut down: nothing hangs. Then {TRACE_SYS_MAX} streams
 * can still be created.
 */
TEST(shutdown_races_blocked_readers_controllers_and_producers)
{
	struct t2_racer racers[RB_NR];
	pthread_t thr[RB_NR], prod[T2_PRODUCERS];
	static struct t2 t;
	uint64_t rng, end;
	trace_attr_t attr;
	int it, i, main_ret;
	bool hung = false;

	SKIP_WITHOUT_DEVICE();
	rng = test_seed(_metadata, 0x5407d0e1ULL);
	ASSERT_EQ(0, posix_trace_eventid_open("stress_shutdown", &t.id));
	for (i = 0; i < T2_PRODUCERS; i++)
		ASSERT_EQ(0, pthread_create(&prod[i], NULL, t2_producer, &t));
	end = deadline_ms(T2_MS);
	for (it = 0; it < T2_ITERATIONS && before(end) && !hung; it++) {
		make_attr(&attr, 1024 << rnd_below(&rng, 7),
			  8 << rnd_below(&rng, 5),
			  rnd_below(&rng, 2) ? POSIX_TRACE_LOOP :
					       POSIX_TRACE_UNTIL_FULL);
		ASSERT_EQ(0, posix_trace_create(0, &attr, &t.trid));
		if (rnd_below(&rng, 4))
			ASSERT_EQ(0, posix_trace_start(t.trid));
		t.seed = rnd_next(&rng);
		t.shut_delay_us = rnd_below(&rng, 2000);
		atomic_store(&t.ready, 0);
		atomic_store(&t.go, false);
		t.shut_ret = -1;
		for (i = 0; i < RB_NR; i++) {
			racers[i] = (struct t2_racer){ &t, i, it };
			ASSERT_EQ(0, pthread_create(&thr[i], NULL, t2_racer,
						    &racers[i]));
		}
		while (atomic_load(&t.ready) < RB_NR)
			sched_yield();
		atomic_store(&t.go, true);
		usleep(rnd_below(&rng, 2000));
		main_ret = posix_trace_shutdown(t.trid);
		if (main_ret && main_ret != EINVAL)
			note_err("iteration %d: shutdown: error %d", it,
				 main_ret);
		for (i = 0; i < RB_NR; i++) {
			if (!join_within(thr[i], HANG_MS)) {
				note_err("iteration %d: %s hung", it,
					 rb_names[i]);
				hung = true;
			}
		}
		if (!hung && main_ret && t.shut_ret)
			note_err("iteration %d: neither shutdown worked (%d, %d)",
				 it, main_ret, t.shut_ret);
		posix_trace_attr_destroy(&attr);
	}
	atomic_store(&t.producers_stop, true);
	for (i = 0; i < T2_PRODUCERS; i++)
		ASSERT_TRUE(join_within(prod[i], HANG_MS));
	TH_LOG("%d iterations", it);
	ASSERT_NO_ERRORS();
	ASSERT_EQ(0, can_create_all(sys_max()));
	ASSERT_EQ(0, round_trip());
}

/* ---- 3. creators exiting under their streams ------------------------ */

#define T3_ITERATIONS	16
#define T3_MS		1200

struct t3_shm {
	atomic_int stop;	/* C and H: finish */
	atomic_int a_gone;	/* H: A has been reaped */
	atomic_int h_checked;	/* H: done checking */
	atomic_int h_bad;	/* H: what was wrong, a bit mask */
	atomic_uint c_events;
};

/* What A reports to the test. */
struct t3_report {
	int ret;	/* 0, or an error number of A's */
	int step;	/* where it failed */
	pid_t c, h;
};

/*
 * C: the process A traces; emits until told to stop. The deadline only
 * keeps an orphan from emitting for ever: a debug kernel on a loaded
 * machine has taken over 10 s for an iteration.
 */
static void __attribute__((noreturn)) t3_traced(struct t3_shm *shm)
{
	uint64_t end = deadline_ms(60000);
	trace_event_id_t id;
	uint32_t i;

	if (posix_trace_eventid_open("traced", &id))
		_exit(2);
	for (i = 0; ; i++) {
		if (!(i & 31) && (atomic_load(&shm->stop) || !before(end)))
			break;
		posix_trace_event(id, &i, sizeof(i));
		atomic_fetch_add(&shm->c_events, 1);
	}
	_exit(atomic_load(&shm->stop) ? 0 : 3);
}

/*
 * H: holds copies of A's stream descriptors. Until A is gone every stream
 * command on them is [EINVAL] (H did not create them); once A is gone,
 * poll says they are dead. Async-signal-safe calls only. Its minute is
 * a bound for a test that died, not a timing check: A's exit and the
 * test's creating every stream there is room for took 10 s and more
 * under KMSAN.
 */
static void __attribute__((noreturn)) t3_holder(struct t3_shm *shm,
						const int *fds, int n)
{
	uint64_t end = deadline_ms(60000);
	struct posixtrace_getnext gn;
	struct posixtrace_status st;
	struct pollfd pfd;
	int i, bad = 0;

	while (!atomic_load(&shm->a_gone) && before(end)) {
		for (i = 0; i < n; i++) {
			memset(&st, 0, sizeof(st));
			st.size = sizeof(st);
			memset(&gn, 0, sizeof(gn));
			gn.size = sizeof(gn);
			gn.flags = POSIXTRACE_GETNEXT_NONBLOCK;
			if (ioctl(fds[i], POSIXTRACE_IOC_STATUS, &st) != -1 ||
			    errno != EINVAL ||
			    ioctl(fds[i], POSIXTRACE_IOC_GETNEXT, &gn) != -1 ||
			    errno != EINVAL ||
			    ioctl(fds[i], POSIXTRACE_IOC_START, 0) != -1 ||
			    errno != EINVAL)
				bad |= 1;
		}
		usleep(200);
	}
	if (!atomic_load(&shm->a_gone))
		bad |= 2;
	for (i = 0; i < n; i++) {
		pfd.fd = fds[i];
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, 0) != 1 ||
		    (pfd.revents & (POLLHUP | POLLERR)) != (POLLHUP | POLLERR))
			bad |= 4;
		if (ioctl(fds[i], POSIXTRACE_IOC_SHUTDOWN, 0) != -1 ||
		    errno != EINVAL)
			bad |= 8;
	}
	atomic_store(&shm->h_bad, bad);
	atomic_store(&shm->h_checked, 1);
	for (i = n - 1; i >= 0; i--)
		close(fds[i]);
	while (!atomic_load(&shm->stop) && before(end))
		usleep(500);
	_exit(bad ? 1 : 0);
}

struct t3_thread {
	trace_id_t trid;
	trace_event_id_t id;
};

static void *t3_a_reader(void *arg)
{
	struct t3_thread *a = arg;
	struct rec r;

	/* Until A dies (the stream is never shut down before). */
	while (!posix_trace_getnext_event(a->trid, &r.info, r.data,
					  sizeof(r.data), &r.len,
					  &r.unavailable))
		;
	return NULL;
}

static void *t3_a_emitter(void *arg)
{
	struct t3_thread *a = arg;
	uint32_t i;

	for (i = 0; ; i++)
		posix_trace_event(a->id, &i, sizeof(i));
	return NULL;
}

/*
 * A: creates streams on C (through the raw ABI, with the proof of its
 * right to trace C) and on itself (through the library), starts them,
 * forks H, dies in the middle.
 */
static void __attribute__((noreturn)) t3_creator(struct t3_shm *shm,
						 int up, int n,
						 uint64_t seed)
{
	struct t3_report rep = { 0 };
	trace_id_t trids[64];
	int fds[FDS_MAX], dups[FDS_MAX], nfds, i, dev, fd, ntrids = 0;
	struct t3_thread th;
	trace_attr_t attr;
	pthread_t thr;
	char *argv[] = { "trc_stress_test", NULL };

	rep.c = fork();
	if (rep.c == 0)
		t3_traced(shm);
	if (rep.c < 0) {
		rep.ret = errno;
		goto report;
	}
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		rep.ret = errno;
		goto report;
	}
	/* Half on C, half on itself; both policies; all started. */
	for (i = 0; i < n; i++) {
		int policy = i & 2 ? POSIX_TRACE_UNTIL_FULL : POSIX_TRACE_LOOP;

		if (!(i & 1)) {
			fd = raw_create_for(dev, rep.c, 4096, 16, policy);
			rep.ret = fd < 0 ? -fd :
				  raw_control(fd, POSIXTRACE_IOC_START);
		} else {
			make_attr(&attr, 4096, 16, policy);
			rep.ret = posix_trace_create(0, &attr,
						     &trids[ntrids]);
			posix_trace_attr_destroy(&attr);
			if (!rep.ret)
				rep.ret = posix_trace_start(trids[ntrids++]);
		}
		if (rep.ret) {
			rep.step = 100 + i;
			goto report;
		}
	}
	rep.ret = posix_trace_eventid_open("creator", &th.id);
	th.trid = trids[0];
	if (!rep.ret && ntrids)
		rep.ret = pthread_create(&thr, NULL, t3_a_reader, &th);
	if (!rep.ret)
		rep.ret = pthread_create(&thr, NULL, t3_a_emitter, &th);
	if (rep.ret) {
		rep.step = 1;
		goto report;
	}
	/* Copies the library does not know of, so that fork keeps them. */
	nfds = stream_fds(fds, FDS_MAX);
	if (nfds != n) {
		rep.ret = EBADF;
		rep.step = 2;
		goto report;
	}
	for (i = 0; i < nfds; i++)
		dups[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 0);
	rep.h = fork();
	if (rep.h == 0)
		t3_holder(shm, dups, nfds);
	if (rep.h < 0) {
		rep.ret = errno;
		rep.step = 3;
	}
report:
	if (write(up, &rep, sizeof(rep)) != sizeof(rep) || rep.ret)
		_exit(1);
	usleep(rnd_below(&seed, 3000));
	if (rnd_below(&seed, 3) == 0) {
		/* exec shuts the streams down too; the new image exits. */
		setenv(EXIT_AT_START, "1", 1);
		execv("/proc/self/exe", argv);
		_exit(4);
	}
	_exit(0);
}

static bool t3_wait_flag(atomic_int *flag, unsigned int ms)
{
	uint64_t end = deadline_ms(ms);

	while (!atomic_load(flag)) {
		if (!before(end))
			return false;
		usleep(200);
	}
	return true;
}

/*
 * Over and over, process A: forks C, creates {TRACE_SYS_MAX} streams (on
 * C and on itself) and starts them, reads and emits from two threads,
 * forks H holding copies of the streams' descriptors, then exits or execs
 * at a random moment while C emits. Once A is reaped all
 * {TRACE_SYS_MAX} places must be free again, though H still holds the
 * descriptors; H must find the streams dead (poll: POLLHUP | POLLERR).
 */
TEST(creator_exit_races_traced_child_and_descriptor_holder)
{
	int max = sys_max(), n, up[2], status, it, ret;
	struct t3_report rep;
	struct t3_shm *shm;
	uint64_t rng, end, start = 0;
	pid_t a;

	SKIP_WITHOUT_DEVICE();
	rng = test_seed(_metadata, 0xc4ea7041ULL);
	n = max < 64 ? max : 64;
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
	shm = shared(sizeof(*shm));
	ASSERT_NE(MAP_FAILED, shm);
	end = deadline_ms(T3_MS);
	for (it = 0; it < T3_ITERATIONS && room_for_one_more(end, &start);
	     it++) {
		memset(shm, 0, sizeof(*shm));
		ASSERT_EQ(0, pipe(up));
		a = fork();
		ASSERT_LE(0, a);
		if (a == 0) {
			close(up[0]);
			t3_creator(shm, up[1], n, rnd_next(&rng));
		}
		close(up[1]);
		memset(&rep, 0, sizeof(rep));
		ret = read(up[0], &rep, sizeof(rep));
		close(up[0]);
		ASSERT_EQ(a, waitpid(a, &status, 0));
		ASSERT_EQ(sizeof(rep), ret);
		ASSERT_EQ(0, rep.ret) TH_LOG("iteration %d: A failed at step %d",
					     it, rep.step);
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
		/* A is reaped: its streams are shut down, H or not. */
		ret = can_create_all(max);
		atomic_store(&shm->a_gone, 1);
		EXPECT_EQ(0, ret) TH_LOG("iteration %d: create after A exited: %d",
					 it, ret);
		EXPECT_TRUE(t3_wait_flag(&shm->h_checked, HANG_MS));
		atomic_store(&shm->stop, 1);
		/* C and H are ours now (subreaper). */
		ASSERT_EQ(rep.c, waitpid(rep.c, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("iteration %d: C status %#x", it, status);
		ASSERT_EQ(rep.h, waitpid(rep.h, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("iteration %d: H status %#x, found %#x", it,
			       status, atomic_load(&shm->h_bad));
		if (_metadata->exit_code)
			break;
	}
	TH_LOG("%d iterations of %d streams", it, n);
	ASSERT_EQ(0, can_create_all(max));
	ASSERT_EQ(0, round_trip());
}

/* ---- 4. a traced process exiting while the analyzer reads ----------- */

#define T4_ITERATIONS	6
#define T4_MS		900
#define T4_T1_MAX	20000

struct t4_shm {
	atomic_uint count[2];	/* events each thread of C has recorded */
};

struct t4 {
	int sfd;
	trace_event_id_t id;
	pid_t child;
	uint64_t expect;	/* the next sequence number */
	uint32_t next[2];	/* what the analyzer read, per thread */
	bool stopped;
};

static struct t4_shm *t4_shm;

static void *t4_child_thread(void *arg)
{
	trace_event_id_t id = *(trace_event_id_t *)arg;
	uint32_t ev[2] = { 1, 0 };

	for (ev[1] = 0; ev[1] < T4_T1_MAX; ev[1]++) {
		posix_trace_event(id, ev, sizeof(ev));
		atomic_store(&t4_shm->count[1], ev[1] + 1);
	}
	pause();
	return NULL;
}

/* C: name an event type, wait, emit from two threads, exit mid-way. */
static void __attribute__((noreturn)) t4_child(int in, int out,
					       uint32_t threshold)
{
	uint32_t ev[2] = { 0, 0 };
	trace_event_id_t id;
	pthread_t thr;
	char c;

	if (posix_trace_eventid_open("exiting", &id) ||
	    write(out, &id, sizeof(id)) != sizeof(id) ||
	    read(in, &c, 1) != 1 ||
	    pthread_create(&thr, NULL, t4_child_thread, &id))
		_exit(2);
	for (ev[1] = 0; ev[1] < threshold; ev[1]++) {
		posix_trace_event(id, ev, sizeof(ev));
		atomic_store(&t4_shm->count[0], ev[1] + 1);
	}
	_exit(0);	/* with the other thread still emitting */
}

/* One record of C's stream; false to stop reading. */
static bool t4_record(struct t4 *t, const struct posixtrace_record *rec,
		      const unsigned char *data)
{
	uint32_t ev[2];

	if (rec->seq != t->expect) {
		note_err("seq %llu, expected %llu: events lost",
			 (unsigned long long)rec->seq,
			 (unsigned long long)t->expect);
		return false;
	}
	t->expect++;
	if (rec->event_id == POSIXTRACE_EVENT_START && rec->seq == 0)
		return true;
	if (rec->event_id == POSIXTRACE_EVENT_STOP && rec->seq) {
		t->stopped = true;
		return false;
	}
	if (rec->event_id != (uint32_t)t->id || rec->data_len != sizeof(ev) ||
	    rec->pid != t->child || !rec->tid) {
		note_err("unexpected event %u (%u bytes, pid %d)",
			 rec->event_id, rec->data_len, rec->pid);
		return false;
	}
	memcpy(ev, data, sizeof(ev));
	if (ev[0] > 1 || ev[1] != t->next[ev[0]]) {
		note_err("thread %u: event %u, expected %u", ev[0], ev[1],
			 ev[0] > 1 ? 0 : t->next[ev[0]]);
		return false;
	}
	t->next[ev[0]]++;
	return true;
}

/* Blocking raw reads until STOP. */
static void *t4_analyzer(void *arg)
{
	struct t4 *t = arg;
	unsigned char *buf = malloc(RAW_BUF);
	struct posixtrace_record rec;
	uint32_t count, bytes, off;
	int ret;

	if (!buf) {
		note_err("no memory");
		return NULL;
	}
	for (;;) {
		ret = raw_getnext(t->sfd, buf, RAW_BUF, 0, NULL, &count,
				  &bytes);
		if (ret || !count) {
			note_err("GETNEXT: error %d, %u records", ret, count);
			break;
		}
		for (off = 0; off < bytes; off += rec.size) {
			memcpy(&rec, buf + off, sizeof(rec));
			if (bytes - off < sizeof(rec) ||
			    !rec_sane(&rec, bytes - off)) {
				note_err("bad record at %u of %u", off, bytes);
				goto out;
			}
			if (!t4_record(t, &rec, buf + off + rec_header(&rec)))
				goto out;
		}
	}
out:
	free(buf);
	return NULL;
}

/* May the zombie pid be traced? It must not: [ESRCH] or [EPERM]. */
static int t4_zombie_create(int dev, pid_t pid, bool proof)
{
	int fd = proof ? raw_create_for(dev, pid, 4096, 8, POSIXTRACE_LOOP) :
			 raw_create(dev, pid, 4096, 8, POSIXTRACE_LOOP);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return -fd;
}

/*
 * A child emits from two threads; one calls _exit() after a random number
 * of events while the other is still emitting, and the analyzer reads all
 * along. Sequence numbers run without a gap; each thread's events are read
 * in order with none missing: all it recorded, plus at most the one in
 * progress at the exit. The exited child cannot be traced any more (while
 * a zombie: [ESRCH], or [EPERM]); its stream still names its event types.
 */
TEST(traced_child_exits_while_analyzer_reads)
{
	struct posixtrace_eventtype et = { .size = sizeof(et) };
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct posixtrace_status st;
	static struct t4 t;
	int in[2], out[2], it, i, dev, ret;
	uint32_t threshold, count;
	siginfo_t si;
	uint64_t rng, end, start = 0;
	pthread_t thr;
	bool joined;

	SKIP_WITHOUT_DEVICE();
	rng = test_seed(_metadata, 0x0e417ed0ULL);
	t4_shm = shared(sizeof(*t4_shm));
	ASSERT_NE(MAP_FAILED, t4_shm);
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	end = deadline_ms(T4_MS);
	for (it = 0; it < T4_ITERATIONS && room_for_one_more(end, &start);
	     it++) {
		memset(t4_shm, 0, sizeof(*t4_shm));
		memset(&t, 0, sizeof(t));
		threshold = 20 + rnd_below(&rng, 1500);
		ASSERT_EQ(0, pipe(in));
		ASSERT_EQ(0, pipe(out));
		t.child = fork();
		ASSERT_LE(0, t.child);
		if (t.child == 0) {
			close(in[1]);
			close(out[0]);
			t4_child(in[0], out[1], threshold);
		}
		close(in[0]);
		close(out[1]);
		ASSERT_EQ(sizeof(t.id), read(out[0], &t.id, sizeof(t.id)));
		/* Room for every event: none may be lost. */
		t.sfd = raw_create_for(dev, t.child, 2 << 20, 8,
				       POSIXTRACE_UNTIL_FULL);
		ASSERT_LE(0, t.sfd) TH_LOG("create for the child: %d", t.sfd);
		ASSERT_EQ(0, raw_control(t.sfd, POSIXTRACE_IOC_START));
		ASSERT_EQ(0, pthread_create(&thr, NULL, t4_analyzer, &t));
		ASSERT_EQ(1, write(in[1], "g", 1));
		/* Exited, not reaped yet. */
		ASSERT_EQ(0, waitid(P_PID, t.child, &si, WEXITED | WNOWAIT));
		ASSERT_EQ(CLD_EXITED, si.si_code);
		ASSERT_EQ(0, si.si_status);
		ret = t4_zombie_create(dev, t.child, false);
		EXPECT_TRUE(ret == ESRCH || ret == EPERM) TH_LOG("%d", ret);
		ret = t4_zombie_create(dev, t.child, true);
		EXPECT_TRUE(ret == ESRCH || ret == EPERM || ret == EACCES ||
			    ret == ENOENT)
			TH_LOG("with /proc/pid/mem: %d", ret);
		ASSERT_EQ(t.child, waitpid(t.child, NULL, 0));
		close(in[1]);
		close(out[0]);
		ASSERT_EQ(0, raw_control(t.sfd, POSIXTRACE_IOC_STOP));
		joined = join_within(thr, HANG_MS);
		if (!joined) {
			raw_control(t.sfd, POSIXTRACE_IOC_SHUTDOWN);
			join_within(thr, HANG_MS);
		}
		ASSERT_TRUE(joined) TH_LOG("the analyzer hung");
		ASSERT_NO_ERRORS();
		ASSERT_TRUE(t.stopped);
		for (i = 0; i < 2; i++) {
			count = atomic_load(&t4_shm->count[i]);
			ASSERT_LE(count, t.next[i]) TH_LOG("thread %d", i);
			ASSERT_GE(count + 1, t.next[i]) TH_LOG("thread %d", i);
		}
		ASSERT_EQ(threshold, t.next[0]);
		ASSERT_EQ(0, raw_status(t.sfd, &st));
		ASSERT_EQ(POSIXTRACE_SUSPENDED, st.state);
		ASSERT_EQ(0, st.events_lost);
		ASSERT_EQ(t.expect, st.events_recorded);
		ASSERT_EQ(t.expect, st.events_read);
		et.event_id = t.id;
		et.name = (uintptr_t)name;
		ASSERT_EQ(0, ioctl(t.sfd, POSIXTRACE_IOC_EVENTID_NAME, &et));
		ASSERT_STREQ("exiting", name);
		ASSERT_EQ(0, raw_control(t.sfd, POSIXTRACE_IOC_SHUTDOWN));
		close(t.sfd);
	}
	close(dev);
	TH_LOG("%d iterations", it);
}

/* ---- 5. stream churn under producers: truncation ------------------- */

#define T7_PRODUCERS	3
#define T7_MS		1000
#define T7_ITERATIONS	600
#define T7_BUF		4096

static const size_t t7_lens[] = { 8, 13, 100, 256, 700, 2000 };
#define T7_NLENS	(sizeof(t7_lens) / sizeof(t7_lens[0]))

struct t7 {
	trace_event_id_t id;
	atomic_bool stop;
	uint32_t emitted[T7_PRODUCERS];
};

static void *t7_producer(void *arg)
{
	static __thread unsigned char buf[2048];
	struct producer_arg *p = arg;
	struct t7 *t = p->ctx;
	uint32_t seq;

	for (seq = 0; !atomic_load(&t->stop); seq++) {
		payload_fill(buf, t7_lens[seq % T7_NLENS], p->idx, seq);
		posix_trace_event(t->id, buf, t7_lens[seq % T7_NLENS]);
	}
	t->emitted[p->idx] = seq;
	return NULL;
}

/*
 * Reads up to n events of a stream whose max data size is max, through a
 * buffer of num_bytes: each event's data is what its producer gave, cut
 * to max (TRUNCATED_RECORD) and then to num_bytes (TRUNCATED_READ), and
 * in order per producer. Returns the number of events read.
 */
static int t7_read(struct t7 *t, trace_id_t trid, size_t max,
		   size_t num_bytes, int n, const char *what)
{
	static unsigned char data[T7_BUF];
	struct posix_trace_event_info info;
	int64_t last[T7_PRODUCERS];
	size_t len, want, expect;
	uint32_t prod, seq;
	int unavailable, ret, i, trunc;

	for (i = 0; i < T7_PRODUCERS; i++)
		last[i] = -1;
	for (i = 0; i < n; i++) {
		ret = posix_trace_trygetnext_event(trid, &info, data,
						   num_bytes, &len,
						   &unavailable);
		if (ret) {
			note_err("%s: trygetnext: error %d", what, ret);
			break;
		}
		if (unavailable)
			break;
		if (info.posix_event_id != t->id)
			continue;
		memcpy(&prod, data, sizeof(prod));
		memcpy(&seq, data + 4, sizeof(seq));
		if (len < 8 || prod >= T7_PRODUCERS) {
			note_err("%s: event of %zu bytes", what, len);
			continue;
		}
		want = t7_lens[seq % T7_NLENS];
		expect = want < max ? want : max;
		trunc = expect < want ? POSIX_TRACE_TRUNCATED_RECORD :
					POSIX_TRACE_NOT_TRUNCATED;
		if (num_bytes < expect) {
			expect = num_bytes;
			trunc = POSIX_TRACE_TRUNCATED_READ;
		}
		if (len != expect || info.posix_truncation_status != trunc ||
		    !payload_check(data, len, &prod, &seq))
			note_err("%s (max %zu, buffer %zu): producer %u event %u of %zu bytes read as %zu, truncation %d",
				 what, max, num_bytes, prod, seq, want, len,
				 info.posix_truncation_status);
		if ((int64_t)seq <= last[prod])
			note_err("%s: producer %u: event %u after %lld", what,
				 prod, seq, (long long)last[prod]);
		last[prod] = seq;
	}
	return i;
}

/*
 * Producers emit events of 8 to 2000 bytes while streams with max data
 * sizes from 8 to 4096 are created, started, read, stopped, cleared and
 * shut down under them, and one stream lives throughout: each stream
 * keeps each event cut to its own max data size, no less, no more.
 */
TEST(streams_created_and_shut_down_under_producers_truncate_exactly)
{
	static const size_t maxes[] = { 8, 24, 100, 256, 1000, 4096 };
	struct producer_arg pa[T7_PRODUCERS];
	pthread_t prod[T7_PRODUCERS];
	static struct t7 t;
	trace_id_t keep, trid;
	trace_attr_t attr;
	uint64_t rng, end;
	size_t max, nb;
	int it, i, reads = 0;

	SKIP_WITHOUT_DEVICE();
	rng = test_seed(_metadata, 0x7c407c00ULL);
	ASSERT_EQ(0, posix_trace_eventid_open("churn", &t.id));
	make_attr(&attr, 4096, 16, POSIX_TRACE_LOOP);
	ASSERT_EQ(0, posix_trace_create(0, &attr, &keep));
	ASSERT_EQ(0, posix_trace_start(keep));
	for (i = 0; i < T7_PRODUCERS; i++) {
		pa[i] = (struct producer_arg){ &t, i };
		ASSERT_EQ(0, pthread_create(&prod[i], NULL, t7_producer,
					    &pa[i]));
	}
	end = deadline_ms(T7_MS);
	for (it = 0; it < T7_ITERATIONS && before(end); it++) {
		max = maxes[rnd_below(&rng, 6)];
		make_attr(&attr, rnd_below(&rng, 2) ? 8192 : 65536, max,
			  rnd_below(&rng, 2) ? POSIX_TRACE_LOOP :
					       POSIX_TRACE_UNTIL_FULL);
		ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
		posix_trace_attr_destroy(&attr);
		ASSERT_EQ(0, posix_trace_start(trid));
		nb = rnd_below(&rng, 4) ? T7_BUF : 8 + rnd_below(&rng, 300);
		reads += t7_read(&t, trid, max, nb, rnd_below(&rng, 40), "churn");
		switch (rnd_below(&rng, 4)) {
		case 0:
			ASSERT_EQ(0, posix_trace_stop(trid));
			break;
		case 1:
			ASSERT_EQ(0, posix_trace_clear(trid));
			break;
		}
		if (rnd_below(&rng, 2))
			reads += t7_read(&t, trid, max, nb, 20, "churn");
		ASSERT_EQ(0, posix_trace_shutdown(trid));
		if (!(it & 15))
			reads += t7_read(&t, keep, 16, T7_BUF, 100, "kept");
	}
	atomic_store(&t.stop, true);
	for (i = 0; i < T7_PRODUCERS; i++)
		ASSERT_TRUE(join_within(prod[i], HANG_MS));
	reads += t7_read(&t, keep, 16, T7_BUF, 1000, "kept");
	ASSERT_EQ(0, posix_trace_shutdown(keep));
	TH_LOG("%d streams, %d events read, %u + %u + %u emitted", it, reads,
	       t.emitted[0], t.emitted[1], t.emitted[2]);
	ASSERT_NO_ERRORS();
}

/* ---- 6. event names from several threads ---------------------------- */

#define T6_THREADS	4
#define T6_NAMES	1100

static const uint32_t t6_steps[T6_THREADS] = { 1, 7, 13, 17 };

struct t6 {
	trace_id_t trid;
	atomic_bool done;
	atomic_int finished;
	trace_event_id_t ids[T6_THREADS][T6_NAMES];
	unsigned long listed, checked;
};

/* Name i: digits first, so that names differ early; some are 63 long. */
static void t6_name(char *buf, uint32_t i)
{
	int len = snprintf(buf, TRACE_EVENT_NAME_MAX + 1, "%04u_stress", i);

	if (i % 97 == 0) {
		memset(buf + len, 'x', TRACE_EVENT_NAME_MAX - len);
		buf[TRACE_EVENT_NAME_MAX] = '\0';
	}
}

static bool t6_valid_id(trace_event_id_t id)
{
	return id == POSIX_TRACE_UNNAMED_USEREVENT ||
	       (id >= POSIXTRACE_EVENT_USER_BASE &&
		id < POSIXTRACE_EVENT_ID_MAX);
}

struct t6_arg {
	struct t6 *t;
	int idx;
};

static void *t6_opener(void *arg)
{
	struct t6_arg *a = arg;
	struct t6 *t = a->t;
	char name[TRACE_EVENT_NAME_MAX + 2];
	trace_event_id_t id;
	uint32_t i, n;
	int ret;

	for (i = 0; i < T6_NAMES; i++) {
		n = (i * t6_steps[a->idx] + a->idx * 101) % T6_NAMES;
		t6_name(name, n);
		ret = posix_trace_eventid_open(name, &id);
		if (ret || !t6_valid_id(id)) {
			note_err("thread %d: name %u: error %d, id %d",
				 a->idx, n, ret, id);
			break;
		}
		t->ids[a->idx][n] = id;
		/* The event carries its name's number. */
		if (!(i & 7))
			posix_trace_event(id, &n, sizeof(n));
		if (i == T6_NAMES / 2) {
			memset(name, 'y', TRACE_EVENT_NAME_MAX + 1);
			name[TRACE_EVENT_NAME_MAX + 1] = '\0';
			ret = posix_trace_eventid_open(name, &id);
			if (ret != ENAMETOOLONG)
				note_err("64 characters: %d", ret);
			ret = posix_trace_eventid_open("", &id);
			if (ret != EINVAL)
				note_err("empty name: %d", ret);
		}
	}
	atomic_fetch_add(&t->finished, 1);
	return NULL;
}

/* The name of id must be name n, or a system or the unnamed event's. */
static void t6_check_name(struct t6 *t, trace_event_id_t id, int n)
{
	char name[TRACE_EVENT_NAME_MAX + 1], want[TRACE_EVENT_NAME_MAX + 1];
	int ret;

	ret = posix_trace_eventid_get_name(t->trid, id, name);
	if (ret) {
		note_err("get_name(%d): error %d", id, ret);
		return;
	}
	if (id < POSIXTRACE_EVENT_USER_BASE)
		return;
	if (n < 0) {
		if (strlen(name) < 5 || strspn(name, "0123456789") != 4)
			note_err("id %d named \"%s\"", id, name);
		return;
	}
	t6_name(want, n);
	if (strcmp(name, want))
		note_err("event %d of name %d: named \"%s\"", id, n, name);
}

/* Lists the event types and reads the events while names are opened. */
static void *t6_observer(void *arg)
{
	struct t6 *t = arg;
	trace_event_id_t id;
	struct rec r;
	int unavailable, ret, n;
	uint32_t num;

	while (!atomic_load(&t->done)) {
		ret = posix_trace_eventtypelist_rewind(t->trid);
		for (n = 0; !ret && n < POSIXTRACE_EVENT_ID_MAX + 1; n++) {
			ret = posix_trace_eventtypelist_getnext_id(t->trid, &id,
								   &unavailable);
			if (ret || unavailable)
				break;
			t6_check_name(t, id, -1);
			t->listed++;
		}
		if (ret)
			note_err("event type list: error %d", ret);
		while (!(ret = try_next(t->trid, &r)) && !r.unavailable) {
			if (r.info.posix_event_id < POSIXTRACE_EVENT_USER_BASE)
				continue;
			if (r.len != sizeof(num)) {
				note_err("event of %zu bytes", r.len);
				continue;
			}
			memcpy(&num, r.data, sizeof(num));
			t6_check_name(t, r.info.posix_event_id, (int)num);
			t->checked++;
		}
		if (ret)
			note_err("trygetnext: error %d", ret);
	}
	return NULL;
}

/*
 * Four threads open the same 1100 names, each in its own order, while
 * another lists the event types and reads the events they record (each
 * carrying its name's number). The same name gets the same identifier in
 * every thread; exactly {TRACE_USER_EVENT_MAX} names get identifiers of
 * their own, the rest the unnamed event's; every identifier has the name
 * it was opened with.
 */
TEST(event_names_beyond_the_limit_from_several_threads)
{
	struct t6_arg args[T6_THREADS];
	pthread_t thr[T6_THREADS], obs;
	static bool used[POSIXTRACE_EVENT_ID_MAX];
	static struct t6 t;
	char name[TRACE_EVENT_NAME_MAX + 1], want[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id, ctl;
	trace_attr_t attr;
	int i, n, own = 0;

	SKIP_WITHOUT_DEVICE();
	make_attr(&attr, 256 * 1024, 8, POSIX_TRACE_LOOP);
	ASSERT_EQ(0, posix_trace_create(0, &attr, &t.trid));
	ASSERT_EQ(0, posix_trace_start(t.trid));
	ASSERT_EQ(0, pthread_create(&obs, NULL, t6_observer, &t));
	for (i = 0; i < T6_THREADS; i++) {
		args[i] = (struct t6_arg){ &t, i };
		ASSERT_EQ(0, pthread_create(&thr[i], NULL, t6_opener,
					    &args[i]));
	}
	for (i = 0; i < T6_THREADS; i++)
		ASSERT_TRUE(join_within(thr[i], 4 * HANG_MS));
	atomic_store(&t.done, true);
	ASSERT_TRUE(join_within(obs, HANG_MS));
	ASSERT_NO_ERRORS();
	TH_LOG("%lu types listed, %lu events checked", t.listed, t.checked);
	for (n = 0; n < T6_NAMES; n++) {
		id = t.ids[0][n];
		for (i = 1; i < T6_THREADS; i++)
			ASSERT_EQ(id, t.ids[i][n]) TH_LOG("name %d", n);
		if (id == POSIX_TRACE_UNNAMED_USEREVENT)
			continue;
		ASSERT_FALSE(used[id]) TH_LOG("id %d twice", id);
		used[id] = true;
		own++;
		t6_name(want, n);
		ASSERT_EQ(0, posix_trace_eventid_get_name(t.trid, id, name));
		ASSERT_STREQ(want, name);
		/* The controller's view of the same process agrees. */
		if (!(n % 50)) {
			ASSERT_EQ(0, posix_trace_trid_eventid_open(t.trid, want,
								   &ctl));
			ASSERT_EQ(id, ctl);
		}
	}
	ASSERT_EQ(TRACE_USER_EVENT_MAX, own);
	ASSERT_EQ(0, posix_trace_shutdown(t.trid));
}

/* ---- 7. random ioctls ----------------------------------------------- */

#define FUZZ_ITERATIONS	40000
#define FUZZ_MS		1100

/*
 * Random ioctls on /dev/posixtrace and on a running stream: random sizes
 * (0 to PAGE_SIZE + 16), flags, reserved members, pointers (NULL,
 * unmapped, kernel, non-canonical, misaligned, across a guard page) and
 * command numbers of the 0xB9 magic. Each must fail with a sane error or
 * succeed. A child (not the creator) gets [EINVAL] for every command on
 * the stream. Afterwards the device works, and no stream a lucky CREATE
 * made holds a place of {TRACE_SYS_MAX}.
 */
TEST(random_ioctls_fail_cleanly_and_leave_the_device_working)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };
	struct posixtrace_status st;
	char why[256] = "";
	struct fuzz f;
	uint64_t end;
	int i, status, bad = 0;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, fuzz_catch_alarm());
	ASSERT_EQ(0, fuzz_setup(&f, test_seed(_metadata, 0xb9f022edULL)));

	end = deadline_ms(FUZZ_MS);
	for (i = 0; i < FUZZ_ITERATIONS && before(end); i++) {
		bool on_stream = rnd_below(&f.rng, 2);

#ifdef POSIXTRACE_ENABLE_MAGIC
		if (!rnd_below(&f.rng, 50)) {
			if (!fuzz_mmap(&f, why, sizeof(why)))
				break;
			continue;
		}
#endif
		if (!fuzz_one(&f, on_stream ? f.sfd : f.dev, on_stream, why,
			      sizeof(why)))
			break;
	}
	TH_LOG("%lu calls, %lu succeeded (%lu streams created, %lu shutdowns), %lu interrupted; %lu of %lu mmaps worked",
	       f.calls, f.successes, f.created, f.recreated, f.interrupted,
	       f.mapped, f.maps);
	TH_LOG("EINVAL %lu, EFAULT %lu, E2BIG %lu, ENOTTY %lu, ENAMETOOLONG %lu, ENOSPC %lu, ESRCH %lu, EPERM %lu, EAGAIN %lu, ENOMEM %lu, ETIMEDOUT %lu",
	       f.by_errno[EINVAL], f.by_errno[EFAULT], f.by_errno[E2BIG],
	       f.by_errno[ENOTTY], f.by_errno[ENAMETOOLONG],
	       f.by_errno[ENOSPC], f.by_errno[ESRCH], f.by_errno[EPERM],
	       f.by_errno[EAGAIN], f.by_errno[ENOMEM], f.by_errno[ETIMEDOUT]);
	ASSERT_STREQ("", why);

	/* Not the creator: every stream command is EINVAL. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		f.rng ^= 0xc41d;
		for (i = 0; i < 500; i++) {
			unsigned long cmd = fuzz_cmd(&f, true);

			fuzz_build(&f, fuzz_known(cmd));
			memcpy(f.arg, f.tmp, f.page);
			errno = 0;
			if (ioctl(f.sfd, cmd, f.arg) != -1 || errno != EINVAL)
				bad++;
		}
		_exit(bad > 100 ? 100 : bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("%d commands not EINVAL",
						 WEXITSTATUS(status));

	/* Still working. */
	ASSERT_EQ(0, ioctl(f.dev, POSIXTRACE_IOC_VERSION, &ver));
	ASSERT_EQ(POSIXTRACE_ABI_MAJOR, ver.major);
	ASSERT_EQ(POSIXTRACE_ABI_MINOR, ver.minor);
	/* Fuzzed STOPs may have suspended it: it must still answer. */
	ASSERT_EQ(0, raw_status(f.sfd, &st));
	ASSERT_EQ(0, raw_control(f.sfd, POSIXTRACE_IOC_SHUTDOWN));
	close(f.sfd);
	f.sfd = -1;
	ASSERT_EQ(0, round_trip());
	ASSERT_EQ(0, can_create_all(sys_max()));
	fuzz_teardown(&f);
}

/* ---- 9. recording switched on and off under producers --------------- */

#define T9_PRODUCERS	3
#define T9_EVENTS	60000		/* per producer, at most */
#define T9_MS		700

/*
 * The controller's epoch, modulo 4: 0, recording of the producers' type
 * is off (and was off when the epoch was set); 1, about to switch it on;
 * 2, on (since before the epoch was set); 3, about to switch it off.
 */
enum { T9_OFF, T9_ENABLING, T9_ON, T9_DISABLING };

struct t9_event {
	uint32_t producer;
	uint32_t seq;
	uint32_t epoch;
};

struct t9 {
	trace_id_t trid;
	trace_event_id_t id;
	atomic_uint epoch;
	/* The epoch each producer saw before its last completed call. */
	atomic_uint seen[T9_PRODUCERS];
	atomic_bool producers_stop, done;
	uint32_t emitted[T9_PRODUCERS];
	unsigned char phase[T9_PRODUCERS][T9_EVENTS];	/* epoch % 4 */
	unsigned char got[T9_PRODUCERS][T9_EVENTS];	/* read */
	unsigned long toggles, filtered, read;
};

static void *t9_producer(void *arg)
{
	struct producer_arg *p = arg;
	struct t9 *t = p->ctx;
	struct t9_event ev = { .producer = p->idx };

	for (ev.seq = 0; ev.seq < T9_EVENTS &&
	     !atomic_load(&t->producers_stop); ev.seq++) {
		ev.epoch = atomic_load_explicit(&t->epoch,
						memory_order_acquire);
		posix_trace_event(t->id, &ev, sizeof(ev));
		t->phase[p->idx][ev.seq] = ev.epoch % 4;
		atomic_store_explicit(&t->seen[p->idx], ev.epoch,
				      memory_order_release);
		/* Off, the call may cost nothing: do not race ahead. */
		if (ev.epoch % 4 != T9_ON)
			sched_yield();
	}
	t->emitted[p->idx] = ev.seq;
	atomic_store(&t->seen[p->idx], UINT_MAX);
	return NULL;
}

static void *t9_reader(void *arg)
{
	struct t9 *t = arg;
	struct timespec abstime;
	struct t9_event ev;
	struct rec r;
	int ret;

	for (;;) {
		rec_clear(&r);
		abstime = realtime_in(20000);
		ret = posix_trace_timedgetnext_event(t->trid, &r.info, r.data,
						     sizeof(r.data), &r.len,
						     &r.unavailable, &abstime);
		if (ret == ETIMEDOUT) {
			if (atomic_load(&t->done))
				break;
			continue;
		}
		if (ret || r.unavailable) {
			note_err("timedgetnext: error %d", ret);
			break;
		}
		if (r.info.posix_event_id != t->id)
			continue;
		memcpy(&ev, r.data, sizeof(ev));
		if (r.len != sizeof(ev) || ev.producer >= T9_PRODUCERS ||
		    ev.seq >= T9_EVENTS) {
			note_err("bad event of %zu bytes", r.len);
			continue;
		}
		if (t->got[ev.producer][ev.seq]++)
			note_err("producer %u: event %u read twice",
				 ev.producer, ev.seq);
		t->read++;
	}
	return NULL;
}

/*
 * Set the epoch to e, then wait until every producer has completed the
 * calls it began before: those that saw an older epoch.
 */
static bool t9_advance(struct t9 *t, unsigned int e)
{
	uint64_t hang = deadline_ms(HANG_MS);
	unsigned int seen;
	int i;

	atomic_store_explicit(&t->epoch, e, memory_order_release);
	for (i = 0; i < T9_PRODUCERS; i++) {
		for (;;) {
			seen = atomic_load_explicit(&t->seen[i],
						    memory_order_acquire);
			if (seen == UINT_MAX || seen >= e)
				break;
			if (!before(hang))
				return false;
			sched_yield();
		}
	}
	return true;
}

#ifdef POSIXTRACE_IOC_SET_FILTER
static int t9_filter(struct t9 *t, int how)
{
	trace_event_set_t set;

	posix_trace_eventset_empty(&set);
	posix_trace_eventset_add(t->id, &set);
	return posix_trace_set_filter(t->trid, &set, how);
}
#endif

/* Switch recording of the type on or off, by start and stop or filter. */
static int t9_switch(struct t9 *t, bool on, bool by_filter)
{
#ifdef POSIXTRACE_IOC_SET_FILTER
	if (by_filter)
		return t9_filter(t, on ? POSIX_TRACE_SUB_EVENTSET :
					 POSIX_TRACE_ADD_EVENTSET);
#endif
	return on ? posix_trace_start(t->trid) : posix_trace_stop(t->trid);
}

/*
 * While off, change the way it is off: from stopped to running with the
 * type filtered out, or back; each step keeps it off.
 */
static int t9_change_mode(struct t9 *t, bool to_filter)
{
	int ret = 0;

#ifdef POSIXTRACE_IOC_SET_FILTER
	if (to_filter) {
		ret = t9_filter(t, POSIX_TRACE_ADD_EVENTSET);
		if (!ret)
			ret = posix_trace_start(t->trid);
	} else {
		ret = posix_trace_stop(t->trid);
		if (!ret)
			ret = t9_filter(t, POSIX_TRACE_SUB_EVENTSET);
	}
#endif
	return ret;
}

/*
 * Producers emit while recording of their event type is switched on and
 * off over and over: by start and stop, and (TEF) by adding the type to
 * the stream's filter and taking it out again, with the stream running.
 * An event sent while on, whose call ended before the switch off began,
 * must be recorded; one sent while off, whose call ended before the
 * switch on began, must not be. Neither the module nor the producers'
 * shortcut (the enable page) may get that wrong.
 */
TEST(recording_switched_on_and_off_under_producers_is_exact)
{
	struct producer_arg pa[T9_PRODUCERS];
	pthread_t prod[T9_PRODUCERS], rd;
	struct posix_trace_status_info st;
	static struct t9 t;
	unsigned long missing = 0, extra = 0, on = 0, off = 0;
	bool by_filter = false, use_filter;
	unsigned int e = 0;
	trace_attr_t attr;
	uint64_t rng, end;
	int i, n;

	SKIP_WITHOUT_DEVICE();
	rng = test_seed(_metadata, 0x70661e00ULL);
	ASSERT_EQ(0, posix_trace_eventid_open("toggled", &t.id));
	/*
	 * Large enough never to fill, however slow the reader (a loaded
	 * machine once filled 8 MiB): nothing may be lost. Every event the
	 * producers can make, plus 4 MiB for the STARTs, STOPs and FILTERs
	 * of some 700 toggles.
	 */
	make_attr(&attr, T9_PRODUCERS * T9_EVENTS *
		  (RECORD_SIZE + ((sizeof(struct t9_event) + 7) & ~7UL)) +
		  (4 << 20), sizeof(struct t9_event), POSIX_TRACE_UNTIL_FULL);
	ASSERT_EQ(0, posix_trace_create(0, &attr, &t.trid));
	ASSERT_EQ(0, pthread_create(&rd, NULL, t9_reader, &t));
	for (i = 0; i < T9_PRODUCERS; i++) {
		pa[i] = (struct producer_arg){ &t, i };
		ASSERT_EQ(0, pthread_create(&prod[i], NULL, t9_producer,
					    &pa[i]));
	}
	/* Off: stopped and not filtered, or (TEF) running and filtered. */
	end = deadline_ms(T9_MS);
	while (before(end)) {
#ifdef POSIXTRACE_IOC_SET_FILTER
		use_filter = rnd_below(&rng, 2);
#else
		use_filter = false;
#endif
		if (use_filter != by_filter)
			ASSERT_EQ(0, t9_change_mode(&t, use_filter));
		by_filter = use_filter;
		ASSERT_TRUE(t9_advance(&t, e + T9_ENABLING));
		ASSERT_EQ(0, t9_switch(&t, true, by_filter));
		atomic_store_explicit(&t.epoch, e + T9_ON,
				      memory_order_release);
		usleep(rnd_below(&rng, 1500));
		ASSERT_TRUE(t9_advance(&t, e + T9_DISABLING));
		ASSERT_EQ(0, t9_switch(&t, false, by_filter));
		e += 4;
		atomic_store_explicit(&t.epoch, e + T9_OFF,
				      memory_order_release);
		t.toggles++;
		t.filtered += by_filter;
		usleep(rnd_below(&rng, 500));
	}
	atomic_store(&t.producers_stop, true);
	for (i = 0; i < T9_PRODUCERS; i++)
		ASSERT_TRUE(join_within(prod[i], HANG_MS));
	if (by_filter)
		ASSERT_EQ(0, posix_trace_stop(t.trid));
	atomic_store(&t.done, true);
	ASSERT_TRUE(join_within(rd, HANG_MS));
	ASSERT_NO_ERRORS();
	ASSERT_EQ(0, posix_trace_get_status(t.trid, &st));
	ASSERT_EQ(POSIX_TRACE_NO_OVERRUN, st.posix_stream_overrun_status);
	for (i = 0; i < T9_PRODUCERS; i++) {
		for (n = 0; n < (int)t.emitted[i]; n++) {
			if (t.phase[i][n] == T9_ON) {
				on++;
				if (!t.got[i][n] && !missing++)
					TH_LOG("producer %d: event %d, sent while on, not recorded",
					       i, n);
			} else if (t.phase[i][n] == T9_OFF) {
				off++;
				if (t.got[i][n] && !extra++)
					TH_LOG("producer %d: event %d, sent while off, recorded",
					       i, n);
			}
		}
	}
	TH_LOG("%lu switches (%lu by filter), %lu events sent while on, %lu while off, %lu read",
	       t.toggles, t.filtered, on, off, t.read);
	ASSERT_EQ(0, missing);
	ASSERT_EQ(0, extra);
	ASSERT_EQ(0, posix_trace_shutdown(t.trid));
}

#define T10_THREADS	8
#define T10_STREAMS	32
#define T10_MS		500
#define T10_ITERATIONS	40

static pthread_barrier_t t10_go;

static void *t10_first_event(void *arg)
{
	uint32_t idx = (uint32_t)(uintptr_t)arg;

	pthread_barrier_wait(&t10_go);
	posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &idx, sizeof(idx));
	return NULL;
}

/*
 * In a new process: one or many running streams, then threads' first
 * events. The number of events the first stream misses; 100 and up:
 * setup failed.
 */
static int t10_child(int nstreams)
{
	pthread_t thr[T10_THREADS];
	trace_id_t trids[T10_STREAMS];
	unsigned int seen = 0, idx;
	trace_attr_t attr;
	struct rec r;
	int i, n = 0;

	make_attr(&attr, 4096, 8, POSIX_TRACE_LOOP);
	for (i = 0; i < nstreams; i++)
		if (posix_trace_create(0, &attr, &trids[i]) ||
		    posix_trace_start(trids[i]))
			return 100;
	if (pthread_barrier_init(&t10_go, NULL, T10_THREADS))
		return 101;
	for (i = 0; i < T10_THREADS; i++)
		if (pthread_create(&thr[i], NULL, t10_first_event,
				   (void *)(uintptr_t)i))
			return 102;
	for (i = 0; i < T10_THREADS; i++)
		pthread_join(thr[i], NULL);
	while (!try_next(trids[0], &r) && !r.unavailable) {
		if (r.info.posix_event_id != POSIX_TRACE_UNNAMED_USEREVENT)
			continue;
		memcpy(&idx, r.data, sizeof(idx));
		if (r.len == sizeof(idx) && idx < T10_THREADS)
			seen |= 1u << idx;
		n++;
	}
	for (i = 0; i < nstreams; i++)
		posix_trace_shutdown(trids[i]);
	if (n != T10_THREADS || seen != (1u << T10_THREADS) - 1)
		return T10_THREADS - __builtin_popcount(seen);
	return 0;
}

/*
 * In a new process with running streams, threads send their first events
 * at once, each mapping the process's enable page on its way (the library
 * keeps one mapping, the module makes the page for the first): every
 * event is recorded.
 */
TEST(first_events_of_a_new_process_race_to_map_the_enable_page)
{
	int it, status, fails = 0, nstreams;
	uint64_t end;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	nstreams = sys_max() - 1;
	if (nstreams > T10_STREAMS)
		nstreams = T10_STREAMS;
	end = deadline_ms(T10_MS);
	for (it = 0; it < T10_ITERATIONS && before(end); it++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(t10_child(it & 1 ? nstreams : 1));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		if (WEXITSTATUS(status) >= 100) {
			ASSERT_EQ(0, WEXITSTATUS(status));
		}
		if (WEXITSTATUS(status) && !fails++)
			TH_LOG("iteration %d: %d of %d first events not recorded",
			       it, WEXITSTATUS(status), T10_THREADS);
	}
	TH_LOG("%d processes, %d missed events", it, fails);
	ASSERT_EQ(0, fails);
}

/* ---- 8. timed reads long before the Epoch --------------------------- */

struct t8 {
	trace_id_t trid;
	atomic_bool returned;
	atomic_bool rescued;
};

/* Unblock the reader if it did not time out, by shutting down. */
static void *t8_watchdog(void *arg)
{
	struct t8 *t = arg;

	if (!wait_true(&t->returned, 1000)) {
		atomic_store(&t->rescued, true);
		posix_trace_shutdown(t->trid);
	}
	return NULL;
}

static const int64_t t8_secs[] = {
	-1, -1000000000LL, -9223372036LL, -9223372037LL, -10000000000LL,
	-(1LL << 40), INT64_MIN,
};

#define T8_N	(sizeof(t8_secs) / sizeof(t8_secs[0]))

/*
 * A timed read of an empty stream with an absolute time that has long
 * passed (tv_sec negative: before 1970, down to centuries before) must
 * report the timeout at once, not wait: through the raw ABI ([ETIMEDOUT],
 * or [EINVAL] for a time it refuses) and through
 * posix_trace_timedgetnext_event() ([ETIMEDOUT]).
 */
TEST(timed_read_with_abstime_long_before_the_epoch_times_out)
{
	struct sigaction sa = { .sa_handler = fuzz_alarm };
	static unsigned char buf[4096];
	struct posix_trace_event_info info;
	struct timespec abstime;
	static struct t8 t;
	char data[8];
	pthread_t thr;
	size_t len, i;
	int unavailable, ret, dev, sfd;
	uint32_t count, bytes;

	SKIP_WITHOUT_DEVICE();
	/* No SA_RESTART: the timer interrupts a read that waits. */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	sfd = raw_create(dev, 0, 4096, 8, POSIXTRACE_LOOP);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_START));
	ASSERT_EQ(0, raw_getnext(sfd, buf, sizeof(buf),
				 POSIXTRACE_GETNEXT_NONBLOCK, NULL, &count,
				 &bytes));
	ASSERT_EQ(1, count);	/* START: now empty */
	for (i = 0; i < T8_N; i++) {
		abstime.tv_sec = (time_t)t8_secs[i];
		abstime.tv_nsec = 0;
		fuzz_timer(300000);
		ret = raw_getnext(sfd, buf, sizeof(buf),
				  POSIXTRACE_GETNEXT_TIMED, &abstime, &count,
				  &bytes);
		fuzz_timer(0);
		EXPECT_TRUE(ret == ETIMEDOUT || ret == EINVAL)
			TH_LOG("raw TIMED read, timeout_sec %lld: error %d%s",
			       (long long)t8_secs[i], ret,
			       ret == EINTR ? " (still waiting after 300 ms)" :
					      "");
	}
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN));
	close(sfd);
	close(dev);

	for (i = 0; i < T8_N; i++) {
		ASSERT_EQ(0, posix_trace_create(0, NULL, &t.trid));
		ASSERT_EQ(0, posix_trace_start(t.trid));
		ASSERT_EQ(0, posix_trace_trygetnext_event(t.trid, &info, data,
							  sizeof(data), &len,
							  &unavailable));
		ASSERT_EQ(0, unavailable);	/* START: now empty */
		atomic_store(&t.returned, false);
		atomic_store(&t.rescued, false);
		ASSERT_EQ(0, pthread_create(&thr, NULL, t8_watchdog, &t));
		abstime.tv_sec = (time_t)t8_secs[i];
		abstime.tv_nsec = 0;
		ret = posix_trace_timedgetnext_event(t.trid, &info, data,
						     sizeof(data), &len,
						     &unavailable, &abstime);
		atomic_store(&t.returned, true);
		ASSERT_TRUE(join_within(thr, HANG_MS));
		if (!atomic_load(&t.rescued)) {
			ASSERT_EQ(0, posix_trace_shutdown(t.trid));
		}
		ASSERT_FALSE(atomic_load(&t.rescued))
			TH_LOG("abstime %lld s: still waiting after 1 s (then error %d)",
			       (long long)t8_secs[i], ret);
		ASSERT_EQ(ETIMEDOUT, ret)
			TH_LOG("abstime %lld s", (long long)t8_secs[i]);
	}
}

TEST_HARNESS_MAIN
