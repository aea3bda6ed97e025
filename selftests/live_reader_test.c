// SPDX-License-Identifier: GPL-2.0
/*
 * A live reader (POSIX Trace option, TRC): a thread reading a stream with
 * posix_trace_getnext_event() or posix_trace_timedgetnext_event() while
 * producer threads of the same process record into it, through <trace.h>
 * as an analyzer would. Each case pins exact accounting:
 *
 *  - every event a producer made (each call of posix_trace_event(); it
 *    returns nothing) is read once or counted lost by the module
 *    (POSIXTRACE_IOC_STATUS events_lost): read + lost == emitted, where
 *    a LOOP stream's START, when overwritten, counts among the lost;
 *  - each producer's events are read in the order it made them, none
 *    twice (its counter, in the data, strictly increases);
 *  - the timestamps of everything read never go back (one merged order
 *    across the producers);
 *  - no event of a producer goes missing unmarked: a LOOP stream shows a
 *    loss as POSIX_TRACE_OVERFLOW at once followed by POSIX_TRACE_RESUME,
 *    read between the producer's last event read and its next; an
 *    UNTIL_FULL stream loses only while it is stopped because full, which
 *    shows as a POSIX_TRACE_STOP whose "auto" data is 1, followed by the
 *    restart's POSIX_TRACE_START;
 *  - the system events where POSIX puts them: START first (or, in a LOOP
 *    stream, overwritten), one STOP last after posix_trace_stop(), a LOOP
 *    stream's newest event (the last one made) read; the module's other
 *    counts agree (recorded, read, nothing left in use), and
 *    posix_trace_get_status() says OVERRUN exactly when something was
 *    lost.
 *
 * The cases: one LOOP stream and two producers flat out; the same paced
 * so that the reader keeps up (nothing lost); an UNTIL_FULL stream that
 * fills; a LOOP and an UNTIL_FULL stream at once, each with its reader;
 * producer threads made and exiting in waves while the reader reads.
 *
 * Each event's data is 16 bytes: the producer's index (its own, not its
 * tid, which a later thread may reuse) and its counter, from 0. Threads
 * never use the harness's ASSERTs: they note what they find wrong, and
 * the test checks it once they are joined.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "trc_common.h"

/*
 * Events per producer in the flat-out and paced cases. The whole program
 * must stay well under 20 s in a TCG guest, some ten times slower than
 * the machine.
 */
#define LR_EVENTS		200000
#define LR_PRODUCERS		2
/* Two streams: each event is recorded twice. */
#define LR_TWO_EVENTS		(LR_EVENTS / 2)
#define LR_LOOP_SIZE		(1 << 20)
#define LR_FULL_SIZE		(64 << 10)
#define LR_DATA_LEN		16

/* The paced case: a pause every LR_PACE_EVERY events of a producer... */
#define LR_PACE_EVERY		1000
#define LR_PACE_US		1000
/*
 * ... longer while the reader is more than LR_PACE_WINDOW events behind
 * them all (about a sixth of what a 1 MiB stream holds), up to LR_PACE_MAX_US.
 */
#define LR_PACE_WINDOW		2000
#define LR_PACE_MAX_US		200000

/*
 * A reader that must fall behind (to fill an UNTIL_FULL stream, to have
 * a LOOP stream overwrite while threads come and go) pauses after every
 * LR_LAG_EVERY events it reads.
 */
#define LR_LAG_EVERY		4000
#define LR_LAG_US		20000
#define LR_WAVES_LAG_US		200000

/* Threads made and exiting: waves of threads, each a few thousand events. */
#define LR_WAVES		16
#define LR_WAVE_THREADS		4
#define LR_WAVE_EVENTS		3000
#define LR_MAX_PRODUCERS	(LR_WAVES * LR_WAVE_THREADS)

/* How long a reader may take to finish once the streams are stopped. */
#define LR_HANG_MS		15000
/* A reader's timed waits, while the producers run. */
#define LR_WAIT_MS		20

#define LR_STREAMS_MAX		2

struct lr_data {
	uint64_t producer;
	uint64_t n;
};

struct lr_run;

/* One stream, its reader and what the reader found. */
struct lr_stream {
	struct lr_run *run;
	const char *name;
	int policy;
	size_t size;
	unsigned int lag_us;	/* the reader's pauses, to fall behind */
	bool overrun_told;	/* a status asked while lagging said OVERRUN */
	trace_id_t trid;
	int fd;			/* for POSIXTRACE_IOC_STATUS */
	bool created;
	pthread_t reader;
	atomic_bool done;	/* stopped, producers gone: drain it and end */
	bool ended;		/* the reader returned by itself */
	/* The reader's findings. */
	uint64_t read;		/* everything read, markers included */
	uint64_t user, start, stop, auto_stop, overflow, resume;
	atomic_uint_fast64_t user_now;	/* user, for the pacing */
	int prev_id;		/* of the last event read; -1 before */
	int prev_auto;		/* STOP's "auto" if that was a STOP */
	bool stopped;		/* STOP (auto 0) read: nothing may follow */
	uint64_t gaps_marked;	/* RESUMEs (LOOP), automatic STOPs */
	uint64_t marked_at;	/* s->read at the last of them */
	int64_t last[LR_MAX_PRODUCERS];	/* the counter last read, -1 */
	uint64_t mark[LR_MAX_PRODUCERS];	/* gaps_marked then */
	int64_t newest_producer, newest_n;	/* of the last user event */
	struct timespec last_ts;
	int nerr;
	char err[512];
};

/* One producer thread. */
struct lr_producer {
	struct lr_run *run;
	uint32_t idx;
	uint64_t events;	/* to make */
	pthread_t thr;
	_Atomic(pthread_t) self;	/* pthread_self(), before its first event */
	uint64_t emitted;	/* calls of posix_trace_event() made */
};

struct lr_run {
	trace_event_id_t id;
	bool pace;
	atomic_uint_fast64_t emitted_now;	/* by all, at pace points */
	uint32_t nprod;
	struct lr_producer prod[LR_MAX_PRODUCERS];
	int nstreams;
	struct lr_stream streams[LR_STREAMS_MAX];
};

static void __attribute__((format(printf, 2, 3)))
lr_note(struct lr_stream *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->nerr++) {
		va_start(ap, fmt);
		vsnprintf(s->err, sizeof(s->err), fmt, ap);
		va_end(ap);
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool join_within(pthread_t thr, unsigned int ms)
{
	struct timespec ts = realtime_in_ms(ms);

	return !pthread_timedjoin_np(thr, NULL, &ts);
}

/* ---- producers --------------------------------------------------------- */

/* Is any stream's reader more than the window behind the producers? */
static bool lr_reader_behind(struct lr_run *run)
{
	uint64_t made = atomic_load(&run->emitted_now);

	for (int i = 0; i < run->nstreams; i++)
		if (made > atomic_load(&run->streams[i].user_now) +
			   LR_PACE_WINDOW)
			return true;
	return false;
}

static void lr_pace(struct lr_run *run)
{
	unsigned int waited = LR_PACE_US;

	atomic_fetch_add(&run->emitted_now, LR_PACE_EVERY);
	usleep(LR_PACE_US);
	while (waited < LR_PACE_MAX_US && lr_reader_behind(run)) {
		usleep(500);
		waited += 500;
	}
}

static void *lr_producer(void *arg)
{
	struct lr_producer *p = arg;
	struct lr_run *run = p->run;
	struct lr_data d = { .producer = p->idx };
	uint64_t i;

	atomic_store(&p->self, pthread_self());
	for (i = 0; i < p->events; i++) {
		d.n = i;
		posix_trace_event(run->id, &d, sizeof(d));
		if (run->pace && (i + 1) % LR_PACE_EVERY == 0)
			lr_pace(run);
	}
	p->emitted = i;
	return NULL;
}

/*
 * The producers there will be, each to make events events: known before
 * the readers start, which check each event against them.
 */
static void lr_plan(struct lr_run *run, uint32_t nprod, uint64_t events)
{
	run->nprod = nprod;
	for (uint32_t i = 0; i < nprod; i++) {
		run->prod[i].run = run;
		run->prod[i].idx = i;
		run->prod[i].events = events;
	}
}

static int lr_start_producer(struct lr_run *run, uint32_t idx)
{
	struct lr_producer *p = &run->prod[idx];

	return pthread_create(&p->thr, NULL, lr_producer, p);
}

static uint64_t lr_emitted(struct lr_run *run)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < run->nprod; i++)
		sum += run->prod[i].emitted;
	return sum;
}

/* ---- the reader -------------------------------------------------------- */

static void lr_user_event(struct lr_stream *s, const struct rec *r)
{
	struct lr_run *run = s->run;
	struct lr_producer *p;
	struct lr_data d;
	pthread_t self;

	if (r->len != sizeof(d) ||
	    r->info.posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED) {
		lr_note(s, "user event of %zu bytes, truncation %d", r->len,
			r->info.posix_truncation_status);
		return;
	}
	memcpy(&d, r->data, sizeof(d));
	if (d.producer >= run->nprod) {
		lr_note(s, "user event of producer %llu, of %u",
			(unsigned long long)d.producer, run->nprod);
		return;
	}
	p = &run->prod[d.producer];
	self = atomic_load(&p->self);
	if (r->info.posix_pid != getpid() ||
	    !pthread_equal(r->info.posix_thread_id, self))
		lr_note(s, "producer %llu event %llu: pid %d, or another thread's",
			(unsigned long long)d.producer,
			(unsigned long long)d.n, (int)r->info.posix_pid);
	if (d.n >= p->events) {
		lr_note(s, "producer %llu: event %llu of %llu",
			(unsigned long long)d.producer,
			(unsigned long long)d.n,
			(unsigned long long)p->events);
		return;
	}
	if ((int64_t)d.n <= s->last[d.producer]) {
		lr_note(s, "producer %llu: event %llu read after %lld (duplicate or reorder)",
			(unsigned long long)d.producer,
			(unsigned long long)d.n,
			(long long)s->last[d.producer]);
		return;
	}
	if ((int64_t)d.n != s->last[d.producer] + 1 &&
	    s->mark[d.producer] == s->gaps_marked)
		lr_note(s, "producer %llu: events %lld to %llu lost without %s (event %llu read; the last mark, event %llu)",
			(unsigned long long)d.producer,
			(long long)s->last[d.producer] + 1,
			(unsigned long long)d.n - 1,
			s->policy == POSIX_TRACE_LOOP ?
			"OVERFLOW and RESUME" : "an automatic STOP",
			(unsigned long long)s->read,
			(unsigned long long)s->marked_at);
	s->last[d.producer] = (int64_t)d.n;
	s->mark[d.producer] = s->gaps_marked;
	s->newest_producer = (int64_t)d.producer;
	s->newest_n = (int64_t)d.n;
	s->user++;
	atomic_store_explicit(&s->user_now, s->user, memory_order_relaxed);
}

/* One event read: is it where it may be? */
static void lr_event(struct lr_stream *s, const struct rec *r)
{
	int id = r->info.posix_event_id, prev = s->prev_id, auto_stop = -1;
	bool loop = s->policy == POSIX_TRACE_LOOP;
	const struct timespec *ts = &r->info.posix_timestamp;

	if (s->read && ts_cmp(ts, &s->last_ts) < 0)
		lr_note(s, "event %llu (type %d) at %lld.%09ld, after one at %lld.%09ld",
			(unsigned long long)s->read, id, (long long)ts->tv_sec,
			ts->tv_nsec, (long long)s->last_ts.tv_sec,
			s->last_ts.tv_nsec);
	s->last_ts = *ts;
	s->read++;
	s->prev_id = id;
	if (s->stopped)
		lr_note(s, "event type %d after the STOP", id);
	if (prev == POSIX_TRACE_OVERFLOW && id != POSIX_TRACE_RESUME)
		lr_note(s, "OVERFLOW followed by event type %d, not RESUME",
			id);
	/*
	 * The first event: START, or (LOOP) the OVERFLOW of its loss. After
	 * an automatic STOP, only the restart's START.
	 */
	if (prev == -1 && id != POSIX_TRACE_START &&
	    (!loop || id != POSIX_TRACE_OVERFLOW))
		lr_note(s, "first event of type %d", id);
	if (prev == POSIX_TRACE_STOP && s->prev_auto == 1 &&
	    id != POSIX_TRACE_START)
		lr_note(s, "event type %d after an automatic STOP", id);

	if (id == s->run->id) {
		lr_user_event(s, r);
	} else if (id == POSIX_TRACE_START) {
		if (prev != -1 &&
		    (loop || prev != POSIX_TRACE_STOP || s->prev_auto != 1))
			lr_note(s, "START after event type %d", prev);
		s->start++;
	} else if (id == POSIX_TRACE_STOP) {
		if (r->len == sizeof(int))
			memcpy(&auto_stop, r->data, sizeof(int));
		if (auto_stop == 1 && !loop) {
			s->auto_stop++;
			s->gaps_marked++;
			s->marked_at = s->read;
		} else if (auto_stop == 0) {
			s->stop++;
			s->stopped = true;
		} else {
			lr_note(s, "STOP of %zu bytes, auto %d", r->len,
				auto_stop);
		}
	} else if (id == POSIX_TRACE_OVERFLOW && loop) {
		s->overflow++;
	} else if (id == POSIX_TRACE_RESUME && loop) {
		if (prev != POSIX_TRACE_OVERFLOW)
			lr_note(s, "RESUME after event type %d", prev);
		s->resume++;
		s->gaps_marked++;
		s->marked_at = s->read;
	} else {
		lr_note(s, "unexpected event type %d", id);
	}
	s->prev_auto = auto_stop;
}

/*
 * The reader falls behind on purpose. An UNTIL_FULL stream's reader waits
 * until the stream says it is full, however slow the producers are (on a
 * debug kernel without rings no fixed pause is sure to let it fill), then
 * lets it stay full a while; a LOOP stream's pauses.
 */
static void lr_lag(struct lr_stream *s)
{
	struct posix_trace_status_info st;

	if (s->policy == POSIX_TRACE_UNTIL_FULL) {
		while (!atomic_load(&s->done)) {
			if (posix_trace_get_status(s->trid, &st)) {
				lr_note(s, "status while lagging failed");
				return;
			}
			/* Told once, then reset: lr_check() counts it. */
			if (st.posix_stream_overrun_status == POSIX_TRACE_OVERRUN)
				s->overrun_told = true;
			if (st.posix_stream_full_status == POSIX_TRACE_FULL)
				break;
			usleep(1000);
		}
	}
	if (!atomic_load(&s->done))
		usleep(s->lag_us);
}

/*
 * Read while the producers run: blocking reads for a LOOP stream (its
 * STOP is sure to come), timed ones for UNTIL_FULL (which may stay
 * stopped and empty). Once the stream is stopped (done), or its STOP
 * read, read what is left without waiting, until it is empty.
 */
static void *lr_reader(void *arg)
{
	struct lr_stream *s = arg;
	struct timespec soon;
	struct rec r;
	bool drain;
	int ret;

	for (;;) {
		drain = s->stopped || atomic_load(&s->done);
		rec_clear(&r);
		if (drain) {
			ret = try_next(s->trid, &r);
		} else if (s->policy == POSIX_TRACE_LOOP) {
			ret = posix_trace_getnext_event(s->trid, &r.info,
					r.data, sizeof(r.data), &r.len,
					&r.unavailable);
		} else {
			soon = realtime_in_ms(LR_WAIT_MS);
			ret = posix_trace_timedgetnext_event(s->trid, &r.info,
					r.data, sizeof(r.data), &r.len,
					&r.unavailable, &soon);
			if (ret == ETIMEDOUT)
				continue;
		}
		if (ret) {
			lr_note(s, "reading: error %d", ret);
			break;
		}
		if (r.unavailable) {
			if (!drain)
				lr_note(s, "a waiting read returned no event");
			else
				s->ended = true;
			break;
		}
		lr_event(s, &r);
		if (s->lag_us && r.info.posix_event_id == s->run->id &&
		    s->user % LR_LAG_EVERY == 0)
			lr_lag(s);
	}
	return NULL;
}

/* ---- a run: streams, readers, producers ---------------------------------- */

static void lr_stream_init(struct lr_run *run, int i, const char *name,
			   int policy, size_t size, unsigned int lag_us)
{
	struct lr_stream *s = &run->streams[i];

	s->run = run;
	s->name = name;
	s->policy = policy;
	s->size = size;
	s->lag_us = lag_us;
	s->fd = -1;
	s->prev_id = -1;
	s->prev_auto = -1;
	s->newest_producer = -1;
	for (int p = 0; p < LR_MAX_PRODUCERS; p++)
		s->last[p] = -1;
	run->nstreams = i + 1;
}

/* This process's stream descriptor that none of the others' is. */
static int lr_new_fd(struct lr_run *run, int made)
{
	int fds[LR_STREAMS_MAX + 1], n = stream_fds(fds, LR_STREAMS_MAX + 1);

	if (n != made + 1)
		return -1;
	for (int i = 0; i < n; i++) {
		bool known = false;

		for (int j = 0; j < made; j++)
			known |= run->streams[j].fd == fds[i];
		if (!known)
			return fds[i];
	}
	return -1;
}

/* Create and start each stream, then start its reader. */
static void lr_setup(struct __test_metadata *_metadata, struct lr_run *run,
		     const char *event_name)
{
	trace_attr_t attr;
	int i;

	ASSERT_EQ(0, posix_trace_eventid_open(event_name, &run->id));
	for (i = 0; i < run->nstreams; i++) {
		struct lr_stream *s = &run->streams[i];

		ASSERT_EQ(0, posix_trace_attr_init(&attr));
		ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr,
							     LR_DATA_LEN));
		ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, s->size));
		ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
								  s->policy));
		ASSERT_EQ(0, create_stream(&attr, &s->trid, &s->created));
		posix_trace_attr_destroy(&attr);
		s->fd = lr_new_fd(run, i);
		ASSERT_LE(0, s->fd);
	}
	for (i = 0; i < run->nstreams; i++)
		ASSERT_EQ(0, posix_trace_start(run->streams[i].trid));
	for (i = 0; i < run->nstreams; i++) {
		struct lr_stream *s = &run->streams[i];

		ASSERT_EQ(0, pthread_create(&s->reader, NULL, lr_reader, s));
	}
}

/*
 * The producers are done: stop each stream, let its reader drain it and
 * end. A reader still waiting after LR_HANG_MS is woken by the stream's
 * shutdown ([EINVAL]), and the run fails.
 */
static void lr_finish(struct __test_metadata *_metadata, struct lr_run *run)
{
	bool joined[LR_STREAMS_MAX];
	int i, stop_err[LR_STREAMS_MAX];

	for (i = 0; i < run->nstreams; i++)
		stop_err[i] = posix_trace_stop(run->streams[i].trid);
	for (i = 0; i < run->nstreams; i++)
		atomic_store(&run->streams[i].done, true);
	for (i = 0; i < run->nstreams; i++) {
		struct lr_stream *s = &run->streams[i];

		joined[i] = join_within(s->reader, LR_HANG_MS);
		if (!joined[i]) {
			posix_trace_shutdown(s->trid);
			s->created = false;
			join_within(s->reader, LR_HANG_MS);
		}
	}
	for (i = 0; i < run->nstreams; i++) {
		ASSERT_EQ(0, stop_err[i]);
		ASSERT_TRUE(joined[i]) {
			TH_LOG("%s: the reader did not end within %d ms",
			       run->streams[i].name, LR_HANG_MS);
		}
	}
}

static void lr_teardown(struct lr_run *run)
{
	for (int i = 0; i < run->nstreams; i++)
		if (run->streams[i].created)
			posix_trace_shutdown(run->streams[i].trid);
}

/*
 * A stream's books, once its reader has ended: what the reader found,
 * then the module's counts against what the producers made. Returns
 * (through *lost) the events the module counts lost.
 */
static void lr_check(struct __test_metadata *_metadata, struct lr_run *run,
		     struct lr_stream *s, uint64_t *lost)
{
	uint64_t emitted = lr_emitted(run), sys;
	struct posix_trace_status_info pst;
	struct posixtrace_status st;

	/* POSIX's overrun status first: STATUS below resets it. */
	memset(&pst, 0xff, sizeof(pst));
	ASSERT_EQ(0, posix_trace_get_status(s->trid, &pst));
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	ASSERT_EQ(0, ioctl(s->fd, POSIXTRACE_IOC_STATUS, &st));
	*lost = st.events_lost;
	TH_LOG("%s: emitted %llu, read %llu, lost %llu; START %llu, STOP %llu, automatic STOP %llu, OVERFLOW %llu",
	       s->name, (unsigned long long)emitted,
	       (unsigned long long)s->user,
	       (unsigned long long)st.events_lost,
	       (unsigned long long)s->start, (unsigned long long)s->stop,
	       (unsigned long long)s->auto_stop,
	       (unsigned long long)s->overflow);
	ASSERT_EQ(0, s->nerr) {
		TH_LOG("%s: %d error(s) reading; the first: %s", s->name,
		       s->nerr, s->err);
	}
	ASSERT_TRUE(s->ended) TH_LOG("%s: the reader did not end", s->name);
	sys = s->start + s->stop + s->auto_stop;
	if (s->policy == POSIX_TRACE_LOOP) {
		/* START is an event too: read, or overwritten and lost. */
		ASSERT_GE(1, s->start);
		ASSERT_EQ(emitted + !s->start, s->user + st.events_lost) {
			TH_LOG("%s: read + lost != emitted%s", s->name,
			       s->start ? "" : " + the START overwritten");
		}
		ASSERT_EQ(1, s->stop);
		ASSERT_EQ(0, s->auto_stop);
		ASSERT_EQ(s->overflow, s->resume);
		/* A loss is marked, and a mark stands for a loss. */
		ASSERT_EQ(!!st.events_lost, !!s->overflow);
		/* LOOP keeps the newest: the last event made was read. */
		ASSERT_LE(0, s->newest_producer);
		ASSERT_EQ((int64_t)run->prod[s->newest_producer].events - 1,
			  s->newest_n);
		ASSERT_EQ(emitted + 2, st.events_recorded);
	} else {
		/* Lost only while stopped because full; the rest read. */
		ASSERT_EQ(emitted, s->user + st.events_lost) {
			TH_LOG("%s: read + lost != emitted", s->name);
		}
		ASSERT_EQ(0, s->overflow);
		ASSERT_LE(1, s->start);
		ASSERT_GE(1, s->stop);
		/*
		 * Each restart follows an automatic STOP; the stream ends
		 * stopped by posix_trace_stop() (STOP) or still stopped
		 * because full (no STOP).
		 */
		ASSERT_EQ(s->auto_stop + s->stop, s->start);
		ASSERT_EQ(!!st.events_lost, !!s->auto_stop);
		ASSERT_EQ(s->user + sys, st.events_recorded);
	}
	/* What was recorded was read, or (LOOP) overwritten. */
	ASSERT_EQ(s->user + sys, st.events_read);
	if (s->policy == POSIX_TRACE_LOOP) {
		ASSERT_EQ(st.events_recorded, st.events_read + st.events_lost);
	}
	ASSERT_EQ(0, st.bytes_used);
	ASSERT_EQ(POSIX_TRACE_SUSPENDED, pst.posix_stream_status);
	/*
	 * Overrun: some event was lost. A status asked while lagging may
	 * have been told it (and reset it) already.
	 */
	if (!st.events_lost) {
		ASSERT_EQ(POSIX_TRACE_NO_OVERRUN,
			  pst.posix_stream_overrun_status);
		ASSERT_FALSE(s->overrun_told);
	} else if (!s->overrun_told) {
		ASSERT_EQ(POSIX_TRACE_OVERRUN, pst.posix_stream_overrun_status);
	}
}

/* The producers planned, all at once, flat out or paced; until done. */
static void lr_produce(struct __test_metadata *_metadata, struct lr_run *run)
{
	uint32_t i, made;
	int err = 0;

	for (made = 0; made < run->nprod; made++) {
		err = lr_start_producer(run, made);
		if (err)
			break;
	}
	for (i = 0; i < made; i++)
		pthread_join(run->prod[i].thr, NULL);
	ASSERT_EQ(0, err);
}

static uint64_t lr_t0;

static void lr_timer_start(void)
{
	lr_t0 = now_ms();
}

static void lr_timer_log(struct __test_metadata *_metadata, const char *what)
{
	TH_LOG("%s: %llu ms", what, (unsigned long long)(now_ms() - lr_t0));
}

/* ---- the cases ----------------------------------------------------------- */

static struct lr_run lr_run;

/*
 * One LOOP stream of 1 MiB, two producers flat out, one reader along:
 * every event read once and in order, or counted lost and marked.
 */
TEST(loop_two_producers_flat_out_every_event_read_or_counted_lost)
{
	struct lr_run *run = &lr_run;
	uint64_t lost;

	SKIP_WITHOUT_DEVICE();
	lr_timer_start();
	lr_stream_init(run, 0, "LOOP", POSIX_TRACE_LOOP, LR_LOOP_SIZE, 0);
	lr_plan(run, LR_PRODUCERS, LR_EVENTS);
	lr_setup(_metadata, run, "live.flat");
	lr_produce(_metadata, run);
	lr_timer_log(_metadata, "produced");
	lr_finish(_metadata, run);
	lr_check(_metadata, run, &run->streams[0], &lost);
	lr_timer_log(_metadata, "done");
	lr_teardown(run);
}

/*
 * The same, the producers pausing every LR_PACE_EVERY events (longer
 * while the reader is behind): the reader keeps up, nothing is lost.
 */
TEST(loop_two_paced_producers_reader_keeps_up_nothing_lost)
{
	struct lr_run *run = &lr_run;
	struct lr_stream *s = &run->streams[0];
	uint64_t lost;

	SKIP_WITHOUT_DEVICE();
	lr_timer_start();
	run->pace = true;
	lr_stream_init(run, 0, "LOOP", POSIX_TRACE_LOOP, LR_LOOP_SIZE, 0);
	lr_plan(run, LR_PRODUCERS, LR_EVENTS);
	lr_setup(_metadata, run, "live.paced");
	lr_produce(_metadata, run);
	lr_timer_log(_metadata, "produced");
	lr_finish(_metadata, run);
	lr_check(_metadata, run, s, &lost);
	ASSERT_EQ(0, lost);
	ASSERT_EQ(lr_emitted(run), s->user);
	ASSERT_EQ(1, s->start);
	ASSERT_EQ(0, s->overflow);
	for (uint32_t i = 0; i < run->nprod; i++) {
		ASSERT_EQ((int64_t)LR_EVENTS - 1, s->last[i]);
	}
	lr_timer_log(_metadata, "done");
	lr_teardown(run);
}

/*
 * An UNTIL_FULL stream of 64 KiB that the reader lets fill now and then:
 * it stops when full (STOP, auto 1), restarts once emptied (START), and
 * every event is read or counted lost while it was stopped.
 */
TEST(until_full_fills_stops_restarts_every_event_read_or_counted_lost)
{
	struct lr_run *run = &lr_run;
	struct lr_stream *s = &run->streams[0];
	uint64_t lost;

	SKIP_WITHOUT_DEVICE();
	lr_timer_start();
	lr_stream_init(run, 0, "UNTIL_FULL", POSIX_TRACE_UNTIL_FULL,
		       LR_FULL_SIZE, LR_LAG_US);
	lr_plan(run, LR_PRODUCERS, LR_EVENTS);
	lr_setup(_metadata, run, "live.full");
	lr_produce(_metadata, run);
	lr_timer_log(_metadata, "produced");
	lr_finish(_metadata, run);
	lr_check(_metadata, run, s, &lost);
	/* The case is about filling: it did, and restarted. */
	ASSERT_LE(1, s->auto_stop);
	ASSERT_LT(0, lost);
	lr_timer_log(_metadata, "done");
	lr_teardown(run);
}

/*
 * A LOOP and an UNTIL_FULL stream trace the process at once, each with
 * its own reader: each stream's books are exact on their own.
 */
TEST(loop_and_until_full_streams_at_once_each_accounted_on_its_own)
{
	struct lr_run *run = &lr_run;
	uint64_t lost_loop, lost_full;

	SKIP_WITHOUT_DEVICE();
	lr_timer_start();
	lr_stream_init(run, 0, "LOOP", POSIX_TRACE_LOOP, LR_LOOP_SIZE, 0);
	lr_stream_init(run, 1, "UNTIL_FULL", POSIX_TRACE_UNTIL_FULL,
		       LR_FULL_SIZE, LR_LAG_US);
	lr_plan(run, LR_PRODUCERS, LR_TWO_EVENTS);
	lr_setup(_metadata, run, "live.two");
	lr_produce(_metadata, run);
	lr_timer_log(_metadata, "produced");
	lr_finish(_metadata, run);
	lr_check(_metadata, run, &run->streams[0], &lost_loop);
	lr_check(_metadata, run, &run->streams[1], &lost_full);
	ASSERT_LE(1, run->streams[1].auto_stop);
	lr_timer_log(_metadata, "done");
	lr_teardown(run);
}

/*
 * Producer threads made and exiting while the reader reads: waves of
 * LR_WAVE_THREADS threads, each wave started while the one before still
 * runs, each thread LR_WAVE_EVENTS events then gone. The reader falls
 * behind now and then, so that the stream overwrites records of threads
 * that have exited. Every event of every thread read in its order or
 * counted lost.
 */
TEST(threads_made_and_exiting_while_reading_every_event_accounted)
{
	struct lr_run *run = &lr_run;
	struct lr_stream *s = &run->streams[0];
	uint32_t w, t, made = 0, joined = 0;
	uint64_t lost;
	int err = 0;

	SKIP_WITHOUT_DEVICE();
	lr_timer_start();
	lr_stream_init(run, 0, "LOOP", POSIX_TRACE_LOOP, LR_LOOP_SIZE,
		       LR_WAVES_LAG_US);
	lr_plan(run, LR_MAX_PRODUCERS, LR_WAVE_EVENTS);
	lr_setup(_metadata, run, "live.waves");
	for (w = 0; w < LR_WAVES && !err; w++) {
		for (t = 0; t < LR_WAVE_THREADS && !err; t++) {
			err = lr_start_producer(run, made);
			if (!err)
				made++;
		}
		/* The wave before ends while this one runs. */
		for (; joined + LR_WAVE_THREADS < made; joined++)
			pthread_join(run->prod[joined].thr, NULL);
	}
	for (; joined < made; joined++)
		pthread_join(run->prod[joined].thr, NULL);
	ASSERT_EQ(0, err);
	lr_timer_log(_metadata, "produced");
	lr_finish(_metadata, run);
	lr_check(_metadata, run, s, &lost);
	ASSERT_EQ((uint64_t)LR_MAX_PRODUCERS * LR_WAVE_EVENTS,
		  lr_emitted(run));
	/* The reader fell behind: losses were counted, across threads gone. */
	ASSERT_LT(0, lost);
	lr_timer_log(_metadata, "done");
	lr_teardown(run);
}

TEST_HARNESS_MAIN
