// SPDX-License-Identifier: GPL-2.0
/*
 * Thread rings: posix_trace_event() without a system call, and the module
 * against a producer that writes what it likes into its ring.
 *
 * Through the library: events go through the ring (it is mapped), keep
 * their order and their pid and thread, survive the thread's exit and the
 * process's SIGKILL, and are counted exactly from several threads; a
 * reader behind a LOOP stream gets what draining everything would have
 * left, of one ring or several, even once CLOCK_REALTIME went back;
 * the library publishes how far it wrote and where each slot's first
 * record starts.
 *
 * Raw (a thread that maps a ring itself and writes records by hand): a
 * valid record is taken, with the ring's pid and thread id whatever it
 * says; a record not yet committed is not; a stale commit of an earlier
 * lap is not; a record across the end of the data area is taken whole; an
 * identifier never opened is ignored; times are kept between the last
 * record's and now; each kind of bad header costs one event, counted lost,
 * and revokes the ring, while another process's ring goes on; a
 * @produced past a record not committed revokes it too (and costs a
 * reader behind nothing of what the stream holds), and one that
 * claims nothing possible is ignored, as are bogus boundaries; records
 * committed before an unmap or a second mapping are taken; a child has no
 * mapping; and each rule of the mapping has its error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "trc_common.h"

#define RING_SIZE	(64 * 1024)
#define RING_PARAM	"/sys/module/posixtrace/parameters/max_ring_size"
#define DRAIN_MS_PARAM	PARAM_DIR "ring_drain_ms"

/*
 * The image a child execs (this binary again, RING_EXEC_EMIT set): it
 * records one event, 100, in a ring of its own, then exits.
 */
static void __attribute__((constructor)) ring_exec_helper(void)
{
	trace_event_id_t id;
	uint64_t k = 100;

	if (!getenv("RING_EXEC_EMIT"))
		return;
	if (posix_trace_eventid_open("ring.exec", &id))
		_exit(2);
	posix_trace_event(id, &k, sizeof(k));
	_exit(ring_mapped(getpid()) ? 0 : 3);
}

static void *ring_address(void)
{
	return ring_mapping(NULL);
}

/* The ring size the enable page suggests now (0: none). */
static uint32_t page_ring_size(void)
{
	const struct posixtrace_enable_page *ep;
	uint32_t size = 0;
	int dev = open(DEVICE, O_RDONLY | O_CLOEXEC);

	if (dev < 0)
		return 0;
	ep = map_page(dev);
	if (ep) {
		size = __atomic_load_n(&ep->ring_size, __ATOMIC_RELAXED);
		munmap((void *)ep, page_size());
	}
	close(dev);
	return size;
}

/* A running stream of this process, 4 MiB, room for every event here. */
static int running_stream(trace_id_t *trid, int inheritance)
{
	trace_attr_t attr;
	int ret = posix_trace_attr_init(&attr);

	if (!ret)
		ret = posix_trace_attr_setstreamsize(&attr, 4 << 20);
	if (!ret)
		ret = posix_trace_attr_setmaxdatasize(&attr, 8192);
	if (!ret)
		ret = posix_trace_attr_setinherited(&attr, inheritance);
	if (!ret)
		ret = posix_trace_create(0, &attr, trid);
	if (!ret)
		ret = posix_trace_start(*trid);
	return ret;
}

/* Read the user events of type id into nums (their uint64_t data). */
static int read_numbers(trace_id_t trid, trace_event_id_t id, uint64_t *nums,
			pid_t *pids, int max, struct timespec *last)
{
	struct rec r;
	int n = 0;

	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id != id)
			continue;
		if (n < max && r.len == sizeof(uint64_t)) {
			memcpy(&nums[n], r.data, sizeof(uint64_t));
			if (pids)
				pids[n] = r.info.posix_pid;
		}
		if (last)
			*last = r.info.posix_timestamp;
		n++;
	}
	return n;
}

/* ---- through the library ---------------------------------------------- */

TEST(events_go_through_the_threads_ring_in_order)
{
	uint64_t i, nums[2000];
	struct timespec before, after, last;
	trace_event_id_t id;
	trace_id_t trid;
	int n;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.order", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	clock_gettime(CLOCK_REALTIME, &before);
	for (i = 0; i < 2000; i++)
		posix_trace_event(id, &i, sizeof(i));
	clock_gettime(CLOCK_REALTIME, &after);
	ASSERT_TRUE(ring_mapped(getpid()));
	ASSERT_EQ(0, posix_trace_stop(trid));
	n = read_numbers(trid, id, nums, NULL, 2000, &last);
	ASSERT_EQ(2000, n);
	for (i = 0; i < 2000; i++)
		ASSERT_EQ(i, nums[i]);
	ASSERT_LE(0, ts_cmp(&last, &before));
	ASSERT_GE(0, ts_cmp(&last, &after));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A thread's ring starts at a page and grows sixteen times larger at a
 * time as the thread records, to the size the enable page suggests (64
 * KiB without one): each growth moves what the ring holds to the larger
 * one. Every event arrives, in order; the thread has one ring mapped.
 */
TEST(a_threads_ring_starts_at_a_page_and_grows_keeping_every_event)
{
	const uint64_t n = 20000;
	const struct posixtrace_ring_ctl *ctl;
	static uint64_t nums[20000];
	trace_event_id_t id;
	trace_id_t trid;
	size_t len, target;
	uint64_t i;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.grow", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	i = 0;
	posix_trace_event(id, &i, sizeof(i));
	ctl = ring_mapping(&len);
	ASSERT_NE(NULL, ctl);
	ASSERT_EQ(page_size(), ctl->data_size);
	ASSERT_EQ(2 * page_size(), len);
	for (i = 1; i < n; i++)
		posix_trace_event(id, &i, sizeof(i));
	target = page_ring_size() ? page_ring_size() : 64 << 10;
	ctl = ring_mapping(&len);
	ASSERT_NE(NULL, ctl);
	ASSERT_EQ(target, ctl->data_size);
	ASSERT_EQ(page_size() + target, len);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(n, read_numbers(trid, id, nums, NULL, n, NULL));
	for (i = 0; i < n; i++)
		ASSERT_EQ(i, nums[i]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * An event whose data a page ring cannot take (more than a quarter of
 * it) grows the ring to one that can, and goes through it, after the
 * events made before it.
 */
TEST(an_event_too_large_for_the_ring_grows_it)
{
	static uint8_t big[3000];
	const struct posixtrace_ring_ctl *ctl;
	trace_event_id_t id;
	trace_id_t trid;
	struct rec r;
	uint64_t v = 7;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.big", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	posix_trace_event(id, &v, sizeof(v));
	ctl = ring_address();
	ASSERT_NE(NULL, ctl);
	ASSERT_EQ(page_size(), ctl->data_size);
	memset(big, 0xb5, sizeof(big));
	posix_trace_event(id, big, sizeof(big));
	ctl = ring_address();
	ASSERT_NE(NULL, ctl);
	ASSERT_EQ(16 * page_size(), ctl->data_size);
	ASSERT_EQ(page_size(), ctl->grown_from);
	/* Both written in the ring, at the positions they had. */
	ASSERT_EQ(sizeof(struct posixtrace_ring_record) + sizeof(v) +
		  ((sizeof(struct posixtrace_ring_record) + sizeof(big) + 7) &
		   ~(size_t)7), ctl->produced);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(sizeof(v), r.len);
	/* Whole in the stream; read into the 512 bytes a struct rec has. */
	ASSERT_NEXT(trid, &r, id);
	ASSERT_EQ(sizeof(r.data), r.len);
	ASSERT_EQ(POSIX_TRACE_TRUNCATED_READ, r.info.posix_truncation_status);
	ASSERT_EQ(0, memcmp(big, r.data, r.len));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * The library maps its rings' data once: a record that runs past the end
 * of the data area goes on at its start, written in two pieces, and the
 * module takes it whole. A one-page ring and events of many lengths cut
 * records at every offset a header or its data can be cut at; each event
 * must come back with its data intact, in order.
 */
/*
 * A reader takes records from the thread's ring between the thread's
 * kicks. The kicks' walk goes on from where the reader stopped, keeping
 * what it counted past there, and what the kicks then drop is exactly
 * what the stream would have overwritten: the reader gets what its
 * library fetched already, then, if more than the stream holds followed,
 * OVERFLOW and RESUME and the newest floor(S / R) events, else every one;
 * every other event is counted lost, none twice.
 */
static void read_while_kicks_drop(struct __test_metadata *_metadata,
				  uint64_t total)
{
	const uint64_t before = 6000;
	struct posixtrace_status st = { .size = sizeof(st) };
	uint64_t n, seen, keep, fetched, from;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	size_t rsize;
	struct rec r;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 1 << 20));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(&attr, sizeof(n),
							  &rsize));
	keep = (1 << 20) / rsize;
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("walked", &id));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(trid, &r);
	/* More than a quarter of a 1 MiB ring: a kick walks them. */
	for (n = 1; n <= before; n++)
		posix_trace_event(id, &n, sizeof(n));
	/* Half read: batches taken from the ring move its consumed. */
	for (n = 1; n <= before / 2; n++)
		ASSERT_NEXT_NUMBERED(trid, &r, id, n);
	/* Kicks walk on from there, and drop what the stream cannot keep. */
	for (n = before + 1; n <= total; n++)
		posix_trace_event(id, &n, sizeof(n));
	/* What the library fetched before, in order; then the gap, if any. */
	for (fetched = before / 2;; fetched++) {
		ASSERT_EQ(0, try_next(trid, &r));
		if (r.unavailable || r.info.posix_event_id != id)
			break;
		memcpy(&seen, r.data, sizeof(seen));
		ASSERT_EQ(fetched + 1, seen);
	}
	if (total - before / 2 <= keep) {
		/* Nothing was more than the stream holds: all of it read. */
		ASSERT_EQ(total, fetched) TH_LOG("event %llu, not %llu, ended",
						(unsigned long long)fetched,
						(unsigned long long)total);
		from = total + 1;
	} else {
		ASSERT_EQ(0, r.unavailable);
		ASSERT_EQ(POSIX_TRACE_OVERFLOW, r.info.posix_event_id);
		ASSERT_NEXT(trid, &r, POSIX_TRACE_RESUME);
		ASSERT_GT(total - keep, fetched);
		from = total - keep + 1;
		for (n = from; n <= total; n++)
			ASSERT_NEXT_NUMBERED(trid, &r, id, n);
	}
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(total + 1, st.events_recorded);
	ASSERT_EQ(from - fetched - 1, st.events_lost);
	ASSERT_EQ(1 + fetched + total + 1 - from, st.events_read);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

TEST(kicks_after_a_reader_took_records_drop_what_loop_would_overwrite)
{
	SKIP_WITHOUT_DEVICE();
	read_while_kicks_drop(_metadata, 46000);
}

/* Less than the stream holds after what was read: the kicks drop none. */
TEST(kicks_after_a_reader_took_records_drop_nothing_the_stream_keeps)
{
	SKIP_WITHOUT_DEVICE();
	read_while_kicks_drop(_metadata, 16000);
}

/* Event @n's data: its number, then up to 300 bytes more. */
static size_t behind_len(uint64_t n)
{
	return sizeof(n) + (n * 29) % 301;
}

/* A 64 KiB LOOP stream of events up to behind_len()'s, started, read. */
static void behind_stream(struct __test_metadata *_metadata,
			  trace_attr_t *attr, trace_id_t *trid,
			  trace_event_id_t *id)
{
	struct rec r;

	ASSERT_EQ(0, posix_trace_attr_init(attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(attr, 64 << 10));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(attr,
						     sizeof(uint64_t) + 301));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, attr, trid));
	ASSERT_EQ(0, posix_trace_eventid_open("behind", id));
	ASSERT_EQ(0, posix_trace_start(*trid));
	ASSERT_NEXT(*trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(*trid, &r);
}

/* Event @n, numbered, of behind_len(@n). */
static void behind_event(trace_event_id_t id, uint64_t n)
{
	uint8_t data[sizeof(n) + 301] = { 0 };

	memcpy(data, &n, sizeof(n));
	posix_trace_event(id, data, behind_len(n));
}

/*
 * What a reader behind gets of events 1 to @total, made in that order:
 * exactly what draining everything would have left, the newest run of
 * events whose stream records fit in the stream's size, after OVERFLOW
 * and RESUME; the rest counted lost. Shuts the stream down.
 */
static void behind_read(struct __test_metadata *_metadata, trace_attr_t *attr,
			trace_id_t trid, trace_event_id_t id, uint64_t total)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	size_t sum = 0, rsize, size;
	uint64_t n, first;
	struct rec r;

	ASSERT_EQ(0, posix_trace_attr_getstreamsize(attr, &size));
	/* The newest whose records fit: what the stream keeps. */
	for (first = total + 1; first > 1; first--) {
		ASSERT_EQ(0, posix_trace_attr_getmaxusereventsize(attr,
						behind_len(first - 1), &rsize));
		if (sum + rsize > size)
			break;
		sum += rsize;
	}
	ASSERT_LT(1, first) TH_LOG("the stream kept everything");
	ASSERT_NEXT(trid, &r, POSIX_TRACE_OVERFLOW);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_RESUME);
	for (n = first; n <= total; n++) {
		ASSERT_NEXT_NUMBERED(trid, &r, id, n);
		ASSERT_EQ(behind_len(n), r.len);
	}
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(total + 1, st.events_recorded);
	ASSERT_EQ(first - 1, st.events_lost);
	ASSERT_EQ(1 + total + 1 - first, st.events_read);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(attr);
}

/*
 * A reader behind a LOOP stream fed by one thread's ring: its turn drops,
 * to the record, what the stream would overwrite, in the ring and in what
 * the stream holds (the kernel's posixtrace_drain_cut()), and takes the
 * rest straight from the ring. With records of many sizes what it reads
 * is still exactly what draining everything would have left
 * (behind_read()). @held events are drained into the stream first (a
 * status drains), then @more are made.
 */
static void read_behind(struct __test_metadata *_metadata, uint64_t held,
			uint64_t more)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	uint64_t n, total = held + more;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;

	behind_stream(_metadata, &attr, &trid, &id);
	for (n = 1; n <= total; n++) {
		behind_event(id, n);
		if (n == held)
			ASSERT_EQ(0, own_stream_status(&st));
	}
	behind_read(_metadata, &attr, trid, id, total);
}

/* The ring alone fits: only the oldest the stream holds are overwritten. */
TEST(a_reader_behind_reads_the_newest_the_stream_holds_and_the_ring)
{
	SKIP_WITHOUT_DEVICE();
	read_behind(_metadata, 180, 180);
}

/* The ring holds more than fits: all the stream holds, and the ring's oldest. */
TEST(a_reader_behind_reads_the_newest_of_a_ring_holding_more)
{
	SKIP_WITHOUT_DEVICE();
	read_behind(_metadata, 180, 700);
}

/* Step CLOCK_REALTIME by @sec seconds; false if this may not set it. */
static bool realtime_step(time_t sec)
{
	struct timespec ts;

	return !clock_gettime(CLOCK_REALTIME, &ts) &&
	       (ts.tv_sec += sec, !clock_settime(CLOCK_REALTIME, &ts));
}

/*
 * CLOCK_REALTIME, which stamps the ring's records, goes back an hour
 * between two runs of events, the second more than the stream holds (in a
 * 1 MiB ring, so that no kick takes records meanwhile). A drain would
 * take the ring in its order, each record no older than the one before
 * (times are kept so), and LOOP would keep the newest run: so does the
 * reader's cut, though every event it keeps says it is older than those
 * it drops.
 */
TEST(a_reader_behind_a_ring_whose_clock_went_back_reads_the_newest)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	const uint64_t held = 180, before = 500, total = 1000;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	bool stepped;
	uint64_t n;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "1048576", 1));
	behind_stream(_metadata, &attr, &trid, &id);
	for (n = 1; n <= before; n++) {
		behind_event(id, n);
		if (n == held)
			ASSERT_EQ(0, own_stream_status(&st));
	}
	if (!realtime_step(-3600))
		SKIP(return, "cannot set CLOCK_REALTIME: %s", strerror(errno));
	/* No assertion until the clock is back: it would leave it behind. */
	for (; n <= total; n++)
		behind_event(id, n);
	stepped = realtime_step(3600);
	ASSERT_TRUE(stepped) TH_LOG("CLOCK_REALTIME is an hour behind");
	behind_read(_metadata, &attr, trid, id, total);
}

/*
 * The kernel's reader cuts across this many rings at most
 * (POSIXTRACE_DRAIN_CUT_MAX); with more holding records it drains them
 * all into the stream.
 */
#define DRAIN_CUT_MAX	16
#define TURNS_MAX	(DRAIN_CUT_MAX + 1)

/*
 * Threads take turns, @chunk[who] events at a time, numbering them in the
 * order they are made; each turn is handed over to the next thread by a
 * semaphore, so that every event of one turn is made before every event
 * of the next.
 */
struct behind_turns {
	trace_event_id_t id;
	unsigned int threads;
	uint64_t next, total, chunk[TURNS_MAX];
	/* Before this event CLOCK_REALTIME goes back an hour (0: never). */
	uint64_t step_back;
	bool stepped;
	sem_t go[TURNS_MAX], written, done;
};

struct behind_turn {
	struct behind_turns *bt;
	unsigned int who;
};

/*
 * Thread @who's turns, until @total: the next thread's follow each. Once
 * every event is made, each thread hands over in turn and returns.
 */
static void behind_turns_take(struct behind_turns *bt, unsigned int who)
{
	uint64_t end;
	bool done;

	for (;;) {
		sem_wait(&bt->go[who]);
		end = bt->next + bt->chunk[who];
		while (bt->next < end && bt->next <= bt->total) {
			if (bt->next == bt->step_back)
				bt->stepped = realtime_step(-3600);
			behind_event(bt->id, bt->next++);
		}
		/*
		 * Read in its turn: after the post, the next thread moves
		 * @next, and a thread that saw the end before its turn came
		 * round would return without passing the turn on.
		 */
		done = bt->next > bt->total;
		sem_post(&bt->go[(who + 1) % bt->threads]);
		if (done)
			return;
	}
}

/* Another thread: its turns, then it lives on until the read is done. */
static void *behind_turns_thread(void *arg)
{
	struct behind_turn *turn = arg;

	behind_turns_take(turn->bt, turn->who);
	sem_post(&turn->bt->written);
	sem_wait(&turn->bt->done);
	return NULL;
}

/*
 * @bt's threads take turns of @bt->chunk[who] events into @bt->id's LOOP
 * stream, to @bt->total, after events @bt->next to @held, made by this
 * thread alone, drained into the stream.
 * Returns once every event is made (and CLOCK_REALTIME is back, if it
 * went back), the other threads alive until turns_end(): an exited
 * thread's ring is drained, not cut.
 */
static void turns_write(struct __test_metadata *_metadata,
			struct behind_turns *bt, struct behind_turn *turn,
			pthread_t *thr, uint64_t held)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	unsigned int who;
	bool back;
	uint64_t n;

	ASSERT_GE(TURNS_MAX, bt->threads);
	for (n = bt->next; n <= held; n++)
		behind_event(bt->id, n);
	ASSERT_EQ(0, own_stream_status(&st));
	bt->next = held + 1;
	for (who = 0; who < bt->threads; who++)
		ASSERT_EQ(0, sem_init(&bt->go[who], 0, !who));
	ASSERT_EQ(0, sem_init(&bt->written, 0, 0));
	ASSERT_EQ(0, sem_init(&bt->done, 0, 0));
	for (who = 1; who < bt->threads; who++) {
		turn[who] = (struct behind_turn){ .bt = bt, .who = who };
		ASSERT_EQ(0, pthread_create(&thr[who], NULL,
					    behind_turns_thread, &turn[who]));
	}
	behind_turns_take(bt, 0);
	/* Every thread is done writing. */
	for (who = 1; who < bt->threads; who++)
		sem_wait(&bt->written);
	/* Back before any assertion: a failed one would leave it behind. */
	back = !bt->stepped || realtime_step(3600);
	ASSERT_TRUE(back) TH_LOG("CLOCK_REALTIME is an hour behind");
}

/* The read is done: the other threads of turns_write() return. */
static void turns_end(struct __test_metadata *_metadata,
		      struct behind_turns *bt, pthread_t *thr)
{
	unsigned int who;

	for (who = 1; who < bt->threads; who++)
		sem_post(&bt->done);
	for (who = 1; who < bt->threads; who++)
		ASSERT_EQ(0, pthread_join(thr[who], NULL));
}

/*
 * @threads threads taking turns of @chunk[who] events into a LOOP stream,
 * to @total, after @held events drained into the stream, then a reader:
 * it gets exactly what draining everything would have left
 * (behind_read()).
 */
static void turns_then_read_n(struct __test_metadata *_metadata,
			      uint64_t held, unsigned int threads,
			      const uint64_t *chunk, uint64_t total)
{
	struct behind_turns bt = {
		.threads = threads, .next = 1, .total = total,
	};
	struct behind_turn turn[TURNS_MAX];
	pthread_t thr[TURNS_MAX];
	trace_attr_t attr;
	trace_id_t trid;
	unsigned int who;

	ASSERT_GE(TURNS_MAX, threads);
	for (who = 0; who < threads; who++)
		bt.chunk[who] = chunk[who];
	behind_stream(_metadata, &attr, &trid, &bt.id);
	turns_write(_metadata, &bt, turn, thr, held);
	behind_read(_metadata, &attr, trid, bt.id, total);
	turns_end(_metadata, &bt, thr);
}

/* Two threads taking turns of @chunk0 and @chunk1 events. */
static void turns_then_read(struct __test_metadata *_metadata, uint64_t held,
			    uint64_t chunk0, uint64_t chunk1, uint64_t total)
{
	const uint64_t chunk[] = { chunk0, chunk1 };

	turns_then_read_n(_metadata, held, 2, chunk, total);
}

/*
 * A reader behind a LOOP stream fed by two threads' rings (1 MiB each, so
 * that no kick takes their records meanwhile): its cut drops what each
 * ring's own records would overwrite, then, oldest first across both
 * rings in the order a drain would merge them, every event older than one
 * dropped, and more until what they keep fits.
 */
static void read_behind_two(struct __test_metadata *_metadata, uint64_t held,
			    uint64_t chunk0, uint64_t chunk1, uint64_t total)
{
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "1048576", 1));
	turns_then_read(_metadata, held, chunk0, chunk1, total);
}

/* Turns of ten: the two rings' records interleave all along. */
TEST(a_reader_behind_two_rings_reads_the_newest_of_both)
{
	SKIP_WITHOUT_DEVICE();
	read_behind_two(_metadata, 180, 10, 10, 700);
}

/*
 * One turn each: the first thread's records all come before the
 * second's, and each ring's alone fit; the cut drops the first's oldest.
 */
TEST(a_reader_behind_two_rings_drops_the_older_rings_records_first)
{
	SKIP_WITHOUT_DEVICE();
	read_behind_two(_metadata, 100, 250, 250, 600);
}

/*
 * A thread makes one small event (event 301: 8 bytes), then another makes
 * more than the stream holds. The second ring's own cut may leave room
 * for the first's event, but a drain would have stored it before
 * everything that ring dropped: it is overwritten too. Eight lengths of
 * the second thread's turn, so that the room its cut leaves varies.
 */
TEST(a_reader_behind_two_rings_drops_an_idle_rings_older_event)
{
	uint64_t k;

	SKIP_WITHOUT_DEVICE();
	for (k = 0; k < 8; k++)
		read_behind_two(_metadata, 300, 1, 600 + k, 300 + 1 + 600 + k);
}

/*
 * A reader behind a LOOP stream fed by the rings of one thread more than
 * a reader's cut covers (256 KiB each, so that no kick takes their
 * records meanwhile), each holding records: it drains them all into the
 * stream instead, and gets exactly what a cut would have left.
 */
TEST(a_reader_behind_more_rings_than_a_cut_covers_drains_them_all)
{
	uint64_t chunk[TURNS_MAX];
	unsigned int who;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "262144", 1));
	for (who = 0; who < TURNS_MAX; who++)
		chunk[who] = 3 + who % 5;
	turns_then_read_n(_metadata, 180, TURNS_MAX, chunk, 900);
}

/*
 * Two threads' rings of the stream's size (64 KiB), each written ten
 * times over, the threads taking turns: their kicks drop what each ring's
 * own records would overwrite, and a worker, queued by a kick that found
 * its ring full, drops across both rings what the stream would overwrite
 * rather than drain them into it. The reader then gets exactly what
 * draining everything would have left, in the order the turns were made:
 * a drain or a cut that visits one ring, then the other, takes nothing
 * one thread made after another's record it leaves.
 */
TEST(kicks_and_workers_of_two_rings_drop_what_loop_would_overwrite)
{
	SKIP_WITHOUT_DEVICE();
	turns_then_read(_metadata, 0, 7, 13, 6000);
}

#define STEPPED_EVENTS	1000
#define GOT_GAP		(1ULL << 63)

/*
 * What a reader gets of @trid, all there is, into @got (at most @max):
 * each event of @id's number, the first 8 bytes of its data, or another
 * record's type with GOT_GAP set (OVERFLOW, RESUME). Returns how many.
 */
static size_t read_got(struct __test_metadata *_metadata, trace_id_t trid,
		       trace_event_id_t id, uint64_t *got, size_t max)
{
	size_t n = 0;
	struct rec r;

	while (!try_next(trid, &r) && !r.unavailable) {
		ASSERT_GT(max, n);
		if (r.info.posix_event_id == id) {
			ASSERT_LE(sizeof(*got), r.len);
			memcpy(&got[n++], r.data, sizeof(*got));
		} else {
			got[n++] = GOT_GAP | r.info.posix_event_id;
		}
	}
	return n;
}

/*
 * A run of records read by a reader behind (@drain false), or once a
 * status drained everything (@drain true): what it got into @got (its
 * read_got()), how many, and the events counted lost in *@lost.
 */
typedef size_t (*behind_run)(struct __test_metadata *_metadata, bool drain,
			     uint64_t *got, uint64_t *lost);

/* What a run_alone() child hands back: its run's result. */
struct behind_result {
	size_t n;
	uint64_t lost;
	uint64_t got[];
};

/*
 * @run (@drain as it says) in a child process of its own, into @got, @max
 * records at most: a process of its own has a drain domain of its own,
 * which no worker queued by another run's threads visits while this run's
 * rings are written (a thread's exit queues a drain of its domain:
 * thread_ring.c). Returns how many records, and the events counted lost
 * in *@lost.
 */
static size_t run_alone(struct __test_metadata *_metadata, behind_run run,
			bool drain, uint64_t *got, size_t max, uint64_t *lost)
{
	size_t len = sizeof(struct behind_result) + max * sizeof(*got);
	struct behind_result *res;
	int status;
	size_t n;
	pid_t pid;

	res = shared(len);
	ASSERT_NE(MAP_FAILED, res);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* A failed assertion ends the child too, with KSFT_FAIL. */
		res->n = run(_metadata, drain, res->got, &res->lost);
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	n = res->n;
	ASSERT_GE(max, n);
	memcpy(got, res->got, n * sizeof(*got));
	*lost = res->lost;
	munmap(res, len);
	return n;
}

/*
 * @run drained, into @drained, then behind, into @cut (@max records at
 * most each): the reader's cut must leave exactly what the drain did, the
 * same records in the same order and the same counted lost, some. Each
 * run in a process of its own (run_alone()), the timer slowed meanwhile:
 * a drain while the rings are written would merge from their heads then,
 * and the two runs would part for that. Returns how many records.
 */
static size_t cut_as_drained(struct __test_metadata *_metadata,
			     behind_run run, uint64_t *drained, uint64_t *cut,
			     size_t max)
{
	uint64_t cut_lost, drained_lost;
	size_t n, m, i;
	int drain_ms;
	bool back;

	ASSERT_TRUE(param_read(DRAIN_MS_PARAM, &drain_ms));
	ASSERT_TRUE(param_write(DRAIN_MS_PARAM, 10000));
	m = run_alone(_metadata, run, true, drained, max, &drained_lost);
	n = run_alone(_metadata, run, false, cut, max, &cut_lost);
	back = param_write(DRAIN_MS_PARAM, drain_ms);
	ASSERT_TRUE(back);
	ASSERT_LT(0, drained_lost) TH_LOG("the stream kept everything");
	ASSERT_EQ(m, n);
	for (i = 0; i < n; i++)
		ASSERT_EQ(drained[i], cut[i]) TH_LOG("record %zu", i);
	ASSERT_EQ(drained_lost, cut_lost);
	return m;
}

/*
 * Two threads take turns of 10 and 13 events into a LOOP stream (1 MiB
 * rings: no kick takes their records meanwhile), CLOCK_REALTIME going
 * back an hour before event 500; if @drain, a status then drains
 * everything into the stream. What a reader gets, into @got (read_got(),
 * STEPPED_EVENTS + 2 at most); returns how many, and the events counted
 * lost in *@lost.
 */
static size_t stepped_turns_read(struct __test_metadata *_metadata,
				 bool drain, uint64_t *got, uint64_t *lost)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	struct behind_turns bt = {
		.threads = 2, .chunk = { 10, 13 }, .next = 1,
		.total = STEPPED_EVENTS, .step_back = STEPPED_EVENTS / 2,
	};
	struct behind_turn turn[TURNS_MAX];
	pthread_t thr[TURNS_MAX];
	trace_attr_t attr;
	trace_id_t trid;
	size_t n;

	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "1048576", 1));
	behind_stream(_metadata, &attr, &trid, &bt.id);
	turns_write(_metadata, &bt, turn, thr, 0);
	ASSERT_TRUE(bt.stepped);
	if (drain)
		ASSERT_EQ(0, own_stream_status(&st));
	n = read_got(_metadata, trid, bt.id, got, STEPPED_EVENTS + 2);
	ASSERT_EQ(0, own_stream_status(&st));
	*lost = st.events_lost;
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
	turns_end(_metadata, &bt, thr);
	return n;
}

/*
 * A drain's merge takes each ring's next record, the oldest first: once
 * CLOCK_REALTIME went back, one thread's events made after the step come
 * before the other's made before it, and LOOP keeps the newest of that
 * order, not of the order they were made in. A reader behind the two
 * rings, whose cut finds what LOOP would overwrite without draining, gets
 * exactly what it gets once everything is drained (a status drains): the
 * same records in the same order, the same counted lost (cut_as_drained()).
 */
TEST(a_reader_behind_two_rings_whose_clock_went_back_gets_what_a_drain_leaves)
{
	uint64_t cut[STEPPED_EVENTS + 2], drained[STEPPED_EVENTS + 2];

	SKIP_WITHOUT_DEVICE();
	if (!realtime_step(0))
		SKIP(return, "cannot set CLOCK_REALTIME: %s", strerror(errno));
	cut_as_drained(_metadata, stepped_turns_read, drained, cut,
		       STEPPED_EVENTS + 2);
}

#define CUT_EVENTS	3000

static size_t cut_len(unsigned int i)
{
	return 8 + (i * 29) % 300;
}

static uint8_t cut_byte(unsigned int i, size_t k)
{
	return (uint8_t)(i * 7 + k * 13);
}

TEST(records_cut_at_the_end_of_a_ring_mapped_once_arrive_whole)
{
	size_t len, page = page_size(), k;
	unsigned int i, n = 0;
	trace_event_id_t id;
	uint8_t data[512];
	char size[32];
	trace_id_t trid;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	snprintf(size, sizeof(size), "%zu", page);
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", size, 1));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.cut", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	for (i = 0; i < CUT_EVENTS; i++) {
		for (k = 0; k < cut_len(i); k++)
			data[k] = cut_byte(i, k);
		memcpy(data, &i, sizeof(i));
		posix_trace_event(id, data, cut_len(i));
	}
	/* Mapped once: a page and the data, at the offset for that. */
	ASSERT_NE(NULL, ring_mapping(&len));
	ASSERT_EQ(2 * page, len);
	ASSERT_EQ(0, posix_trace_stop(trid));
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id != id)
			continue;
		memcpy(&i, r.data, sizeof(i));
		ASSERT_EQ(n, i);
		ASSERT_EQ(cut_len(i), r.len);
		for (k = sizeof(i); k < r.len; k++)
			ASSERT_EQ(cut_byte(i, k), ((uint8_t *)r.data)[k])
				TH_LOG("event %u, byte %zu", i, k);
		n++;
	}
	ASSERT_EQ(CUT_EVENTS, n);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * The library says how far it has written (@produced): 500 events of 8
 * bytes are 56-byte records from position 0.
 */
TEST(the_library_publishes_what_it_committed)
{
	const uint64_t rec = sizeof(struct posixtrace_ring_record) + 8, n = 500;
	const struct posixtrace_ring_ctl *ctl;
	trace_event_id_t id;
	trace_id_t trid;
	uint64_t i;

	SKIP_WITHOUT_DEVICE();
	/* One ring throughout: @produced counts from its start. */
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "65536", 1));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.published", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	for (i = 0; i < n; i++)
		posix_trace_event(id, &i, sizeof(i));
	ctl = ring_address();
	ASSERT_NE(NULL, ctl);
	ASSERT_EQ(n * rec, __atomic_load_n(&ctl->produced, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(n, read_numbers(trid, id, NULL, NULL, 0, NULL));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A LOOP stream of 256 KiB and two threads with 1 MiB rings: each kick
 * drops, in the thread's own call, what the stream would only overwrite.
 * What a reader finds after the stop is exactly what storing every event
 * would have left: the newest of each thread, with no hole, after one
 * OVERFLOW and RESUME; and every other event is counted lost.
 *
 * The same from one SCHED_FIFO thread: its kicks drop too, but take the
 * drain lock only if it is free (posixtrace_drain_try_pause()); one that
 * finds it held leaves the drop to a worker, and an event that then finds
 * no room is lost, counted, as rt_producer_test shows. So a realtime
 * thread's events are exactly accounted and in order, with no promise
 * of no hole.
 */
#define DROP_EVENTS	40000

struct numbered_emitter {
	trace_event_id_t id;
	bool fifo;
	int err;
};

static void *emit_numbered(void *arg)
{
	struct numbered_emitter *ne = arg;
	struct sched_param fifo = { .sched_priority = 1 };
	uint64_t i, tag = (uint64_t)syscall(SYS_gettid) << 32;

	if (ne->fifo) {
		ne->err = pthread_setschedparam(pthread_self(), SCHED_FIFO,
						&fifo);
		if (ne->err)
			return NULL;
	}
	for (i = 0; i < DROP_EVENTS; i++) {
		uint64_t v = tag | i;

		posix_trace_event(ne->id, &v, sizeof(v));
	}
	return NULL;
}

static void kicks_drop(struct __test_metadata *_metadata, int threads,
		       bool fifo)
{
	struct numbered_emitter ne = { .fifo = fifo };
	struct posixtrace_status st;
	uint64_t last[2] = { 0, 0 }, tags[2] = { 0, 0 }, user = 0, v;
	int overflows = 0, resumes = 0, other = 0, t;
	pthread_t thr[2];
	trace_attr_t attr;
	trace_id_t trid;
	struct rec r;

	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "1048576", 1));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.drop", &ne.id));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 256 << 10));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (t = 0; t < threads; t++)
		ASSERT_EQ(0, pthread_create(&thr[t], NULL, emit_numbered, &ne));
	for (t = 0; t < threads; t++)
		ASSERT_EQ(0, pthread_join(thr[t], NULL));
	ASSERT_EQ(0, ne.err);
	ASSERT_EQ(0, posix_trace_stop(trid));
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id == POSIX_TRACE_OVERFLOW) {
			ASSERT_EQ(0, user && !fifo);
			overflows++;
		} else if (r.info.posix_event_id == POSIX_TRACE_RESUME) {
			ASSERT_EQ(0, user && !fifo);
			resumes++;
		} else if (r.info.posix_event_id == ne.id) {
			ASSERT_EQ(sizeof(v), r.len);
			memcpy(&v, r.data, sizeof(v));
			for (t = 0; t < 2 && tags[t] && tags[t] != v >> 32; t++)
				;
			ASSERT_GT(threads, t);
			if (!tags[t]) {
				tags[t] = v >> 32;
			} else if (fifo) {
				ASSERT_LT(last[t], v & 0xffffffff);
			} else {
				ASSERT_EQ(last[t] + 1, v & 0xffffffff);
			}
			last[t] = v & 0xffffffff;
			user++;
		} else {
			other++;
		}
	}
	ASSERT_LE(1, overflows);
	if (!fifo) {
		ASSERT_EQ(1, overflows);
		ASSERT_EQ(1, resumes);
		/* Each thread's newest event was kept; the STOP too. */
		for (t = 0; t < threads; t++)
			if (tags[t])
				ASSERT_EQ(DROP_EVENTS - 1, last[t]);
	}
	ASSERT_LE(1000, user);
	ASSERT_EQ(0, own_stream_status(&st));
	if (fifo)
		TH_LOG("%d OVERFLOW, %llu read, %llu lost", overflows,
		       (unsigned long long)user,
		       (unsigned long long)st.events_lost);
	ASSERT_EQ(threads * DROP_EVENTS + 2, st.events_recorded);
	ASSERT_EQ(st.events_recorded, user + other + st.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

TEST(kicks_drop_what_a_loop_stream_would_overwrite_and_count_it)
{
	SKIP_WITHOUT_DEVICE();
	kicks_drop(_metadata, 2, false);
}

TEST(a_fifo_threads_kicks_drop_and_every_event_is_accounted)
{
	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root: SCHED_FIFO");
	kicks_drop(_metadata, 1, true);
}

/*
 * The same with a reader that lags behind: it reads some, then the kicks
 * drop while it sleeps. Every event is read once or counted lost, each
 * thread's in order.
 */
struct lagging_reader {
	trace_id_t trid;
	trace_event_id_t id;
	uint64_t user, tags[2], last[2];
	bool start_read, stop_read;
	int err;
};

static void *read_lagging(void *arg)
{
	struct lagging_reader *lr = arg;
	uint64_t v;
	struct rec r;
	int t;

	while (!lr->stop_read && !lr->err) {
		if (try_next(lr->trid, &r)) {
			lr->err = 1;
		} else if (r.unavailable) {
			usleep(1000);
		} else if (r.info.posix_event_id == POSIX_TRACE_START) {
			lr->start_read = true;
		} else if (r.info.posix_event_id == POSIX_TRACE_STOP) {
			lr->stop_read = true;
		} else if (r.info.posix_event_id == lr->id) {
			memcpy(&v, r.data, sizeof(v));
			for (t = 0; t < 2 && lr->tags[t] &&
			     lr->tags[t] != v >> 32; t++)
				;
			if (t == 2 || r.len != sizeof(v) ||
			    (lr->tags[t] && (v & 0xffffffff) <= lr->last[t])) {
				lr->err = 2;
				break;
			}
			lr->tags[t] = v >> 32;
			lr->last[t] = v & 0xffffffff;
			/* Behind the producers: a pause every 500 events. */
			if (++lr->user % 500 == 0)
				usleep(5000);
		}
	}
	return NULL;
}

TEST(kicks_drop_behind_a_lagging_reader_and_every_event_is_accounted)
{
	struct lagging_reader lr = { 0 };
	struct numbered_emitter ne = { 0 };
	struct posixtrace_status st;
	pthread_t thr[2], rd;
	trace_attr_t attr;
	int t;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "1048576", 1));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.drop", &lr.id));
	ne.id = lr.id;
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 256 << 10));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &lr.trid));
	ASSERT_EQ(0, posix_trace_start(lr.trid));
	ASSERT_EQ(0, pthread_create(&rd, NULL, read_lagging, &lr));
	for (t = 0; t < 2; t++)
		ASSERT_EQ(0, pthread_create(&thr[t], NULL, emit_numbered,
					    &ne));
	for (t = 0; t < 2; t++)
		ASSERT_EQ(0, pthread_join(thr[t], NULL));
	ASSERT_EQ(0, posix_trace_stop(lr.trid));
	ASSERT_EQ(0, pthread_join(rd, NULL));
	ASSERT_EQ(0, lr.err);
	ASSERT_TRUE(lr.stop_read);
	ASSERT_EQ(0, own_stream_status(&st));
	TH_LOG("read %llu, lost %llu", (unsigned long long)lr.user,
	       (unsigned long long)st.events_lost);
	/* START is an event too: read, or overwritten and counted. */
	ASSERT_EQ(2 * DROP_EVENTS + !lr.start_read, lr.user + st.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(lr.trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * The enable page suggests a ring size while one LOOP stream without a
 * log traces the process: 7/8 of its size (what it keeps, in ring
 * records) rounded up to a power of two, at most the module's
 * max_ring_size; the library maps that. Not with a second
 * stream, nor for UNTIL_FULL.
 */
static int hinted_stream(trace_id_t *trid, size_t size, int policy)
{
	trace_attr_t attr;
	int ret = posix_trace_attr_init(&attr);

	if (!ret)
		ret = posix_trace_attr_setstreamsize(&attr, size);
	if (!ret)
		ret = posix_trace_attr_setstreamfullpolicy(&attr, policy);
	if (!ret)
		ret = posix_trace_create(0, &attr, trid);
	if (!ret)
		ret = posix_trace_start(*trid);
	posix_trace_attr_destroy(&attr);
	return ret;
}

/*
 * Record numbered events of type @id, a hundred at a time, until the
 * thread's ring is @size bytes or 100,000 were made: the ring's size.
 */
static uint64_t grow_ring(trace_event_id_t id, uint64_t size)
{
	const struct posixtrace_ring_ctl *ctl = ring_address();
	uint64_t i, j;

	/* Where the ring is mapped changes as it grows: looked up each time. */
	for (i = 0; ctl && ctl->data_size < size && i < 100000; i += 100) {
		for (j = i; j < i + 100; j++)
			posix_trace_event(id, &j, sizeof(j));
		ctl = ring_address();
	}
	return ctl ? ctl->data_size : 0;
}

TEST(one_loop_stream_suggests_rings_that_hold_its_share)
{
	const struct posixtrace_ring_ctl *ctl;
	trace_id_t a, b;
	trace_event_id_t id;
	uint64_t v = 1;
	int max_ring, ret;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.hint", &id));
	ASSERT_EQ(0, hinted_stream(&a, 200 << 10, POSIX_TRACE_LOOP));
	/* 200 KiB and the room kept for STOP: 256 KiB. */
	ASSERT_EQ(256 << 10, page_ring_size());
	/* A page at first; the suggestion once the thread records more. */
	posix_trace_event(id, &v, sizeof(v));
	ctl = ring_address();
	ASSERT_NE(NULL, ctl);
	ASSERT_EQ(page_size(), ctl->data_size);
	ASSERT_EQ(256 << 10, grow_ring(id, 256 << 10));
	/* A second stream: no single share to hold. */
	ASSERT_EQ(0, hinted_stream(&b, 64 << 10, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, page_ring_size());
	ASSERT_EQ(0, posix_trace_shutdown(b));
	ASSERT_EQ(256 << 10, page_ring_size());
	ASSERT_EQ(0, posix_trace_shutdown(a));
	ASSERT_EQ(0, page_ring_size());
	/* 1 MiB: its share, 7/8 of it in ring records, in 1 MiB. */
	ASSERT_EQ(0, hinted_stream(&a, 1 << 20, POSIX_TRACE_LOOP));
	ASSERT_EQ(1 << 20, page_ring_size());
	ASSERT_EQ(0, posix_trace_shutdown(a));
	/* As large as max_ring_size (4 MiB by default): that. */
	ASSERT_TRUE(param_read(RING_PARAM, &max_ring));
	ASSERT_EQ(0, hinted_stream(&a, max_ring, POSIX_TRACE_LOOP));
	ASSERT_EQ((uint32_t)max_ring, page_ring_size());
	ASSERT_EQ(0, posix_trace_shutdown(a));
	/*
	 * Twice that (unless max_stream_size refuses such a stream, ENOMEM):
	 * no ring holds its share; the largest, for fewer kicks.
	 */
	ret = hinted_stream(&a, 2 * (size_t)max_ring, POSIX_TRACE_LOOP);
	if (ret != ENOMEM) {
		ASSERT_EQ(0, ret);
		ASSERT_EQ((uint32_t)max_ring, page_ring_size());
		ASSERT_EQ(0, posix_trace_shutdown(a));
	}
	/* UNTIL_FULL keeps the oldest: nothing to drop, no hint. */
	ASSERT_EQ(0, hinted_stream(&a, 200 << 10, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, page_ring_size());
	ASSERT_EQ(0, posix_trace_shutdown(a));
}

static void *emit_and_exit(void *arg)
{
	trace_event_id_t id = *(trace_event_id_t *)arg;
	uint64_t i;

	for (i = 0; i < 50; i++)
		posix_trace_event(id, &i, sizeof(i));
	return NULL;
}

/* A thread's last events are taken at its exit, even once it is unmapped. */
TEST(a_threads_ring_is_taken_when_it_exits)
{
	trace_event_id_t id;
	uint64_t nums[64];
	trace_id_t trid;
	pthread_t thr;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.exit", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	ASSERT_EQ(0, pthread_create(&thr, NULL, emit_and_exit, &id));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(50, read_numbers(trid, id, nums, NULL, 64, NULL));
	ASSERT_EQ(49, nums[49]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

struct exit_order {
	trace_event_id_t id;
	pthread_barrier_t written;
};

static void *emit_then_exit(void *arg)
{
	struct exit_order *o = arg;
	uint64_t i;

	pthread_barrier_wait(&o->written);
	for (i = 100; i < 120; i++)
		posix_trace_event(o->id, &i, sizeof(i));
	return NULL;
}

/*
 * A thread's exit leaves its records in order with older ones of another
 * thread's ring, still undrained: they come out by time, not exit first.
 */
TEST(a_threads_exit_keeps_the_order_of_older_records)
{
	struct exit_order o;
	uint64_t nums[64], i;
	trace_id_t trid;
	pthread_t thr;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.exit-order", &o.id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	ASSERT_EQ(0, pthread_barrier_init(&o.written, NULL, 2));
	ASSERT_EQ(0, pthread_create(&thr, NULL, emit_then_exit, &o));
	for (i = 0; i < 20; i++)
		posix_trace_event(o.id, &i, sizeof(i));
	pthread_barrier_wait(&o.written);
	ASSERT_EQ(0, pthread_join(thr, NULL));
	for (i = 20; i < 40; i++)
		posix_trace_event(o.id, &i, sizeof(i));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(60, read_numbers(trid, o.id, nums, NULL, 64, NULL));
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(i, nums[i]);
		ASSERT_EQ(100 + i, nums[20 + i]);
		ASSERT_EQ(20 + i, nums[40 + i]);
	}
	pthread_barrier_destroy(&o.written);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A child that records events 0 to @n - 1 of @id in its ring, then ends
 * as @then says (it does not return); -1 if fork() failed.
 */
static pid_t fork_numbered(trace_event_id_t id, uint64_t n,
			   void (*then)(void))
{
	pid_t child = fork();
	uint64_t k;

	if (child)
		return child;
	for (k = 0; k < n; k++)
		posix_trace_event(id, &k, sizeof(k));
	if (!ring_mapped(getpid()))
		_exit(4);
	then();
	_exit(1);
}

/* Exec this binary, which records event 100 and exits (above). */
static void exec_emitting(void)
{
	char *argv[] = { "ring_test", NULL };

	setenv("RING_EXEC_EMIT", "1", 1);
	execv("/proc/self/exe", argv);
	_exit(127);
}

static void killed(void)
{
	raise(SIGKILL);
}

/*
 * Stop, then read back events 0 to @n - 1 of @id, in order, all from
 * @pid, and nothing else of @id; shut the stream down.
 */
static void stop_and_expect_numbers(struct __test_metadata *_metadata,
				    trace_id_t trid, trace_event_id_t id,
				    int n, pid_t pid)
{
	uint64_t nums[400];
	pid_t pids[400];
	int i;

	ASSERT_GE(400, n);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(n, read_numbers(trid, id, nums, pids, 400, NULL));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(i, nums[i]);
		ASSERT_EQ(pid, pids[i]);
	}
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * An exec closes the old image's ring (its mapping went with the old mm)
 * and a worker takes its records later: they still come first, with the
 * process's pid, and the new image's event after them.
 */
TEST(the_old_images_ring_is_taken_after_an_exec)
{
	trace_event_id_t id;
	trace_id_t trid;
	pid_t child;
	int status;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.exec", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_INHERITED));
	child = fork_numbered(id, 100, exec_emitting);
	ASSERT_LE(0, child);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	stop_and_expect_numbers(_metadata, trid, id, 101, child);
}

/* The ring's pages are the kernel's: SIGKILL right after loses nothing. */
TEST(a_killed_process_loses_none_of_its_events)
{
	trace_event_id_t id;
	trace_id_t trid;
	pid_t child;
	int status;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.kill", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_INHERITED));
	child = fork_numbered(id, 300, killed);
	ASSERT_LE(0, child);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	stop_and_expect_numbers(_metadata, trid, id, 300, child);
}

#define COUNT_THREADS	4
#define COUNT_EVENTS	5000

struct counted {
	trace_event_id_t id;
	int thread;
};

static void *emit_counted(void *arg)
{
	struct counted *c = arg;
	uint64_t i;

	for (i = 0; i < COUNT_EVENTS; i++) {
		uint64_t v = (uint64_t)c->thread << 32 | i;

		posix_trace_event(c->id, &v, sizeof(v));
	}
	return NULL;
}

/*
 * Four threads write far past a small LOOP stream while a reader takes
 * events: every event is read or counted lost, and each
 * thread's events come in its order.
 */
TEST(events_from_several_threads_are_read_or_counted_lost)
{
	struct counted c[COUNT_THREADS];
	pthread_t thr[COUNT_THREADS];
	uint64_t next[COUNT_THREADS] = { 0 }, user = 0, sys = 0, v;
	struct posixtrace_status st;
	trace_attr_t attr;
	trace_id_t trid;
	struct rec r;
	bool joined[COUNT_THREADS] = { false };
	int i, running = COUNT_THREADS;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.count", &c[0].id));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 64 * 1024));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < COUNT_THREADS; i++) {
		c[i].id = c[0].id;
		c[i].thread = i;
		ASSERT_EQ(0, pthread_create(&thr[i], NULL, emit_counted, &c[i]));
	}
	while (running) {
		if (try_next(trid, &r) || r.unavailable) {
			/* Each thread is joined once, and never again. */
			for (running = 0, i = 0; i < COUNT_THREADS; i++) {
				if (!joined[i])
					joined[i] = !pthread_tryjoin_np(thr[i],
									NULL);
				running += !joined[i];
			}
			continue;
		}
		if (r.info.posix_event_id != c[0].id) {
			sys += r.info.posix_event_id == POSIX_TRACE_START;
			continue;
		}
		memcpy(&v, r.data, sizeof(v));
		ASSERT_LT(v >> 32, COUNT_THREADS);
		/* In order per thread; a gap is a loss. */
		ASSERT_LE(next[v >> 32], (uint32_t)v);
		next[v >> 32] = (uint32_t)v + 1;
		user++;
	}
	ASSERT_EQ(0, posix_trace_stop(trid));
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id == c[0].id)
			user++;
		else if (r.info.posix_event_id == POSIX_TRACE_START ||
			 r.info.posix_event_id == POSIX_TRACE_STOP)
			sys++;
	}
	ASSERT_EQ(0, own_stream_status(&st));
	TH_LOG("read %llu of %d, lost %llu", (unsigned long long)user,
	       COUNT_THREADS * COUNT_EVENTS,
	       (unsigned long long)st.events_lost);
	/* START, the events, STOP: each read or counted lost. */
	ASSERT_EQ(COUNT_THREADS * COUNT_EVENTS + 2, st.events_recorded);
	ASSERT_EQ(st.events_recorded, user + sys + st.events_lost);
	ASSERT_EQ(user + sys, st.events_read);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * Exact accounting across streams, threads and a SIGKILL: a child with
 * three threads emits into two streams that trace it (inherited): A holds
 * every event, B (64 KiB, LOOP) loses most. It is killed mid-way. A must
 * hold, per thread, every event whose posix_trace_event() returned (and
 * at most one more: the one under way), none missing; B must have read
 * or counted lost exactly what A holds; both still record afterwards.
 */
#define KILL_THREADS	3
#define KILL_EVENTS	100000

struct kill_shm {
	atomic_uint_fast64_t done[KILL_THREADS];
};

TEST(two_streams_account_for_every_event_of_a_killed_threaded_child)
{
	struct posixtrace_status st_a, st_b;
	struct killed_read in_a, in_b;
	trace_event_id_t id, after_id;
	uint64_t total = 0;
	trace_id_t a, b;
	struct kill_shm *shm;
	int fds[2], status;
	pid_t child;

	SKIP_WITHOUT_DEVICE();
	shm = shared(sizeof(*shm));
	ASSERT_NE(MAP_FAILED, shm);
	ASSERT_EQ(0, posix_trace_eventid_open("ring.kill2", &id));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.after", &after_id));
	ASSERT_EQ(0, inherited_pair(64 << 20, 64 << 10, &a, &b));
	ASSERT_EQ(2, stream_fds(fds, 2));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		struct killable_emitter kt[KILL_THREADS];
		pthread_t thr;

		for (int t = 0; t < KILL_THREADS; t++) {
			kt[t] = (struct killable_emitter) {
				.done = &shm->done[t], .id = id, .t = t,
				.full_speed = UINT64_MAX,
			};
			if (pthread_create(&thr, NULL, killable_emit, &kt[t]))
				_exit(1);
		}
		pause();
		_exit(1);
	}
	/* Killed mid-way: once they made some (A holds 900,000). */
	for (int waited = 0; waited < 20000; waited++) {
		uint64_t sum = 0;

		for (int t = 0; t < KILL_THREADS; t++)
			sum += atomic_load(&shm->done[t]);
		if (sum >= KILL_EVENTS)
			break;
		usleep(1000);
	}
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	/* Both streams still record: an event of the parent's, after. */
	posix_trace_event(after_id, NULL, 0);
	ASSERT_EQ(0, posix_trace_stop(a));
	ASSERT_EQ(0, posix_trace_stop(b));
	killed_read(a, id, after_id, KILL_THREADS, true, &in_a);
	killed_read(b, id, after_id, KILL_THREADS, false, &in_b);
	ASSERT_FALSE(in_a.gap);
	ASSERT_FALSE(in_b.gap);
	ASSERT_EQ(1, in_a.after);
	for (int t = 0; t < KILL_THREADS; t++) {
		uint64_t done = atomic_load(&shm->done[t]);

		/* Returned means recorded; one more may have been under way. */
		ASSERT_LE(done, in_a.per_thread[t]);
		ASSERT_GE(done + 1, in_a.per_thread[t]);
		ASSERT_LE(in_b.per_thread[t], in_a.per_thread[t]);
		total += in_a.per_thread[t];
	}
	TH_LOG("emitted %llu; B read %llu", (unsigned long long)total,
	       (unsigned long long)in_b.user);
	/* Each stream's own books: recorded = read + lost, exactly. */
	ASSERT_EQ(0, stream_status(fds[0], &st_a));
	ASSERT_EQ(0, stream_status(fds[1], &st_b));
	ASSERT_EQ(0, st_a.events_lost);
	ASSERT_EQ(total + in_a.sys + 1, st_a.events_recorded);
	ASSERT_EQ(st_a.events_recorded, st_a.events_read);
	/* B: START, the same events as A, the parent's event, STOP. */
	ASSERT_EQ(total + 3, st_b.events_recorded);
	ASSERT_EQ(st_b.events_recorded,
		  in_b.user + in_b.sys + in_b.after + st_b.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(a));
	ASSERT_EQ(0, posix_trace_shutdown(b));
	munmap(shm, sizeof(*shm));
}

/* ---- raw producers ------------------------------------------------------ */

struct raw_ring {
	int dev;
	size_t len;
	void *map;
	volatile struct posixtrace_ring_ctl *ctl;
	uint8_t *data;
	uint64_t head;
};

static int raw_ring_map(struct raw_ring *rr, size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE);

	memset(rr, 0, sizeof(*rr));
	rr->dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (rr->dev < 0)
		return -errno;
	rr->len = page + size;
	rr->map = mmap(NULL, rr->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       rr->dev, POSIXTRACE_RING_OFFSET);
	if (rr->map == MAP_FAILED)
		return -errno;
	rr->ctl = rr->map;
	rr->data = (uint8_t *)rr->map + page;
	return 0;
}

static void raw_ring_unmap(struct raw_ring *rr)
{
	if (rr->map && rr->map != MAP_FAILED)
		munmap(rr->map, rr->len);
	if (rr->dev >= 0)
		close(rr->dev);
}

/*
 * A record at rr->head, not committed: written as the library writes one,
 * its header and data going on at the data area's start past its end
 * (the commit word, first, is never cut). The header is the caller's to
 * change in place before the commit only while it does not wrap.
 */
static struct posixtrace_ring_record *
raw_put(struct raw_ring *rr, uint32_t id, const void *data, uint32_t len,
	const struct timespec *ts)
{
	struct posixtrace_ring_record *rec;
	uint64_t mask = rr->ctl->data_size - 1, off = rr->head & mask, i;
	uint8_t buf[sizeof(*rec) + 4096];
	struct timespec now;

	if (len > sizeof(buf) - sizeof(*rec))
		len = sizeof(buf) - sizeof(*rec);
	rec = (void *)buf;
	if (!ts) {
		clock_gettime(CLOCK_REALTIME, &now);
		ts = &now;
	}
	memset(buf, 0, sizeof(buf));
	rec->size = (sizeof(*rec) + len + 7) & ~7ULL;
	rec->event_id = id;
	rec->ts_sec = ts->tv_sec;
	rec->ts_nsec = ts->tv_nsec;
	rec->data_len = len;
	rec->prog_address = 0x1234;
	rec->thread = 0x5678;
	memcpy(rec + 1, data, len);
	for (i = sizeof(rec->commit); i < rec->size; i++)
		rr->data[(off + i) & mask] = buf[i];
	return (void *)(rr->data + off);
}

static void raw_commit(struct raw_ring *rr, struct posixtrace_ring_record *rec)
{
	uint64_t mask = rr->ctl->data_size - 1;
	uint64_t at = ((uint8_t *)rec - rr->data + sizeof(rec->commit)) & mask;
	/* The size: past the end, it went on at the data area's start. */
	uint32_t size = *(uint32_t *)(rr->data + at);

	__atomic_store_n(&rec->commit, ~rr->head, __ATOMIC_RELEASE);
	rr->head += size;
}

/* Say in @produced what the library would say, or not. */
static void raw_publish(struct raw_ring *rr, uint64_t pos)
{
	__atomic_store_n(&rr->ctl->produced, pos, __ATOMIC_RELEASE);
}

/* What a raw test does, in a thread of its own (its ring is its own). */
struct raw_case {
	void (*fn)(struct raw_case *rc);
	trace_event_id_t id;
	trace_id_t trid;
	int err;		/* the first failed step, 0 if none */
	pid_t tid;
	uint64_t extra;
};

static void *raw_thread(void *arg)
{
	struct raw_case *rc = arg;

	rc->tid = syscall(SYS_gettid);
	rc->fn(rc);
	return NULL;
}

static void run_raw(struct __test_metadata *_metadata, struct raw_case *rc)
{
	pthread_t thr;

	ASSERT_EQ(0, posix_trace_eventid_open("ring.raw", &rc->id));
	ASSERT_EQ(0, running_stream(&rc->trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	ASSERT_EQ(0, pthread_create(&thr, NULL, raw_thread, rc));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, rc->err);
	ASSERT_EQ(0, posix_trace_stop(rc->trid));
}

#define STEP(rc, n, cond) do { if (!(rc)->err && !(cond)) (rc)->err = (n); } while (0)

static void raw_valid(struct raw_case *rc)
{
	struct raw_ring rr;
	uint64_t v = 42;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	STEP(rc, 2, rr.ctl->magic == POSIXTRACE_RING_MAGIC &&
		    rr.ctl->data_size == RING_SIZE &&
		    rr.ctl->state == POSIXTRACE_RING_LIVE &&
		    rr.ctl->data_offset == (uint64_t)sysconf(_SC_PAGESIZE));
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	/* Written whole, not committed: not taken. */
	v = 43;
	raw_put(&rr, rc->id, &v, sizeof(v), NULL);
	STEP(rc, 3, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 4, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	raw_ring_unmap(&rr);
}

TEST(raw_a_committed_record_is_taken_as_the_rings_thread)
{
	struct raw_case rc = { .fn = raw_valid };
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_NEXT(rc.trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(rc.trid, &r, rc.id);
	ASSERT_EQ(8, r.len);
	ASSERT_EQ(42, *(uint64_t *)r.data);
	ASSERT_EQ(getpid(), r.info.posix_pid);
	ASSERT_EQ((pthread_t)0x5678, r.info.posix_thread_id);
	ASSERT_EQ((void *)0x1234, r.info.posix_prog_address);
	/* The uncommitted one never came. */
	ASSERT_NEXT_STOP(rc.trid, &r, 0);
	ASSERT_EMPTY(rc.trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * A ring whose oldest records are of a type its LOOP stream filters out,
 * then more of a type it records than the stream holds, and a reader
 * behind: its cut drops both, and OVERFLOW carries the time of the first
 * event dropped that the stream records (lib/ring_walk.c
 * posixtrace_ring_walk_first_in()), not of the filtered one before it.
 * The library never writes a filtered type, so the records are raw.
 */
#define FIRST_IN_OUT		3
#define FIRST_IN_EVENTS		600
#define FIRST_IN_LEN		200

struct first_in {
	trace_event_id_t in, out;
	struct timespec base;
	sem_t written, done;
	int err;
};

/* Event @i's time: after every filtered one, a microsecond apart. */
static struct timespec first_in_ts(const struct first_in *fi, uint64_t i)
{
	uint64_t ns = fi->base.tv_nsec + 1000 * (i + 1);

	return (struct timespec){ .tv_sec = fi->base.tv_sec + ns / 1000000000,
				  .tv_nsec = ns % 1000000000 };
}

static void *first_in_writer(void *arg)
{
	uint8_t data[FIRST_IN_LEN] = { 0 };
	struct first_in *fi = arg;
	struct timespec ts;
	struct raw_ring rr;
	uint64_t i;

	fi->err = raw_ring_map(&rr, 1 << 20);
	if (!fi->err) {
		for (i = 0; i < FIRST_IN_OUT; i++) {
			ts = fi->base;
			ts.tv_nsec += i;
			raw_commit(&rr, raw_put(&rr, fi->out, &i, sizeof(i),
						&ts));
		}
		for (i = 0; i < FIRST_IN_EVENTS; i++) {
			ts = first_in_ts(fi, i);
			memcpy(data, &i, sizeof(i));
			raw_commit(&rr, raw_put(&rr, fi->in, data,
						sizeof(data), &ts));
		}
		raw_publish(&rr, rr.head);
	}
	sem_post(&fi->written);
	/* Alive until the read is done: an exited thread's ring is drained. */
	sem_wait(&fi->done);
	raw_ring_unmap(&rr);
	return NULL;
}

TEST(a_reader_behind_a_ring_whose_oldest_are_filtered_out_stamps_overflow)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	struct first_in fi = { 0 };
	struct timespec want;
	trace_event_set_t set;
	uint64_t n, first;
	trace_attr_t attr;
	trace_id_t trid;
	pthread_t thr;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 64 << 10));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, FIRST_IN_LEN));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.first_in", &fi.in));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.first_out", &fi.out));
	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(0, posix_trace_eventset_add(fi.out, &set));
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &fi.base));
	ASSERT_EQ(0, sem_init(&fi.written, 0, 0));
	ASSERT_EQ(0, sem_init(&fi.done, 0, 0));
	ASSERT_EQ(0, pthread_create(&thr, NULL, first_in_writer, &fi));
	sem_wait(&fi.written);
	ASSERT_EQ(0, fi.err);
	ASSERT_NEXT(trid, &r, POSIX_TRACE_OVERFLOW);
	want = first_in_ts(&fi, 0);
	EXPECT_EQ(want.tv_sec, r.info.posix_timestamp.tv_sec);
	EXPECT_EQ(want.tv_nsec, r.info.posix_timestamp.tv_nsec)
		TH_LOG("OVERFLOW's time is not the first dropped event's");
	ASSERT_NEXT(trid, &r, POSIX_TRACE_RESUME);
	ASSERT_NEXT(trid, &r, fi.in);
	memcpy(&first, r.data, sizeof(first));
	ASSERT_LT(0, first);
	for (n = first + 1; n < FIRST_IN_EVENTS; n++)
		ASSERT_NEXT_NUMBERED(trid, &r, fi.in, n);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(first, st.events_lost);
	sem_post(&fi.done);
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/* A thread whose ring says (@produced) it holds 512 KiB: none committed. */
struct claiming_ring {
	sem_t written, done;
	int err;
};

static void *claiming_ring_writer(void *arg)
{
	struct claiming_ring *cr = arg;
	struct raw_ring rr;

	cr->err = raw_ring_map(&rr, 1 << 20);
	if (!cr->err)
		raw_publish(&rr, 512 << 10);
	sem_post(&cr->written);
	/* Alive until the read is done: an exited thread's ring is drained. */
	sem_wait(&cr->done);
	raw_ring_unmap(&rr);
	return NULL;
}

/*
 * A reader behind: the stream holds events, and a ring says it holds more
 * than the stream, but committed none of it. The reader's cut finds no
 * record in the ring, to keep or to drop, and drops nothing: the reader
 * gets every event the stream holds. The next drain revokes the ring over
 * its claim, one event lost, as it would have anyway.
 */
TEST(a_reader_behind_a_ring_claiming_records_it_never_wrote_loses_nothing)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	struct claiming_ring cr = { 0 };
	const uint64_t held = 100;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	pthread_t thr;
	struct rec r;
	uint64_t n;

	SKIP_WITHOUT_DEVICE();
	behind_stream(_metadata, &attr, &trid, &id);
	for (n = 1; n <= held; n++)
		behind_event(id, n);
	/* Drained into the stream: this thread's ring holds nothing. */
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, sem_init(&cr.written, 0, 0));
	ASSERT_EQ(0, sem_init(&cr.done, 0, 0));
	ASSERT_EQ(0, pthread_create(&thr, NULL, claiming_ring_writer, &cr));
	sem_wait(&cr.written);
	ASSERT_EQ(0, cr.err);
	for (n = 1; n <= held; n++)
		ASSERT_NEXT_NUMBERED(trid, &r, id, n);
	ASSERT_EMPTY(trid, &r);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(held + 1, st.events_read);
	ASSERT_EQ(1, st.events_lost);
	sem_post(&cr.done);
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * Two raw rings behind a reader of a LOOP stream that filters one type
 * out. Ring A's first record is of that type and says it was made after
 * everything but ring B's second half; A's events after it say they are
 * older than all of ring B's, and are more than the stream holds. A
 * drain's merge takes A's events only after that first record, and so
 * after ring B's first half: those are what LOOP overwrites first, then
 * A's oldest. The reader's cut weighs every record's time, the stream's
 * or not (posixtrace_ring_drop_next_ns()), also once its walk of A has
 * dropped that record: it gets what it gets once a status drained
 * everything. The two first records are committed at once, and the timer
 * is slowed, so that nothing is taken before.
 */
#define LATE_A		1500
#define LATE_B		600	/* each half */

struct late_writer {
	trace_event_id_t id, late;
	bool ring_b;
	struct timespec base;
	pthread_barrier_t *ready, *done;
	struct posixtrace_ring_record *first;
	volatile struct posixtrace_ring_ctl *ctl;
	uint64_t head;		/* where the records written end */
	int err;
};

/* @base, @ns nanoseconds on. */
static struct timespec ts_after(struct timespec base, long long ns)
{
	ns += base.tv_nsec;
	return (struct timespec){ .tv_sec = base.tv_sec + ns / 1000000000,
				  .tv_nsec = ns % 1000000000 };
}

/*
 * Ring A: the filtered record at 1 ms, then its events 1 to LATE_A at as
 * many nanoseconds. Ring B: events 10001 on, the first half from 2 us to
 * before 1 ms, the second after.
 */
static void *late_writer_thread(void *arg)
{
	struct posixtrace_ring_record *rec;
	struct late_writer *lw = arg;
	int i, n = lw->ring_b ? 2 * LATE_B : LATE_A + 1;
	struct raw_ring rr;
	long long ns;
	uint64_t v;

	lw->err = raw_ring_map(&rr, 1 << 20);
	for (i = 0; !lw->err && i < n; i++) {
		struct timespec ts;

		if (lw->ring_b) {
			v = 10001 + i;
			ns = i < LATE_B ? 2000 + 1000LL * i :
					  1001000 + 1000LL * i;
		} else {
			v = i;
			ns = i ? i : 1000000;
		}
		ts = ts_after(lw->base, ns);
		rec = raw_put(&rr, !lw->ring_b && !i ? lw->late : lw->id, &v,
			      sizeof(v), &ts);
		/* The first stays uncommitted: nothing can be taken yet. */
		if (i)
			raw_commit(&rr, rec);
		else
			lw->first = rec, rr.head += rec->size;
	}
	lw->ctl = rr.ctl;
	lw->head = rr.head;
	pthread_barrier_wait(lw->ready);
	pthread_barrier_wait(lw->done);
	if (!lw->err)
		raw_ring_unmap(&rr);
	return NULL;
}

/*
 * The two rings written, committed at once; if @drain, a status drains
 * them into the stream. What a reader gets, into @got (read_got(), at
 * most LATE_A + 2 * LATE_B + 2); returns how many, and the events counted
 * lost in *@lost.
 */
static size_t late_read(struct __test_metadata *_metadata, bool drain,
			uint64_t *got, uint64_t *lost)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	pthread_barrier_t ready, done;
	struct late_writer lw[2];
	trace_event_id_t id, late;
	trace_event_set_t set;
	struct timespec base;
	trace_attr_t attr;
	pthread_t thr[2];
	trace_id_t trid;
	struct rec r;
	size_t n;
	int t;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 64 << 10));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.late_in", &id));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.late_out", &late));
	ASSERT_EQ(0, posix_trace_eventset_empty(&set));
	ASSERT_EQ(0, posix_trace_eventset_add(late, &set));
	ASSERT_EQ(0, posix_trace_set_filter(trid, &set,
					    POSIX_TRACE_SET_EVENTSET));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(trid, &r);
	/* A second ago: no record says it was made after the reader came. */
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &base));
	base.tv_sec--;
	ASSERT_EQ(0, pthread_barrier_init(&ready, NULL, 3));
	ASSERT_EQ(0, pthread_barrier_init(&done, NULL, 3));
	for (t = 0; t < 2; t++) {
		lw[t] = (struct late_writer) {
			.id = id, .late = late, .ring_b = t, .base = base,
			.ready = &ready, .done = &done,
		};
		ASSERT_EQ(0, pthread_create(&thr[t], NULL, late_writer_thread,
					    &lw[t]));
	}
	pthread_barrier_wait(&ready);
	for (t = 0; t < 2 && !lw[0].err && !lw[1].err; t++)
		__atomic_store_n(&lw[t].first->commit, ~0ULL,
				 __ATOMIC_RELEASE);
	/* Then how far each wrote, as the library says after its commits. */
	for (t = 0; t < 2 && !lw[0].err && !lw[1].err; t++)
		__atomic_store_n(&lw[t].ctl->produced, lw[t].head,
				 __ATOMIC_RELEASE);
	if (drain)
		EXPECT_EQ(0, own_stream_status(&st));
	n = read_got(_metadata, trid, id, got, LATE_A + 2 * LATE_B + 2);
	pthread_barrier_wait(&done);
	for (t = 0; t < 2; t++) {
		ASSERT_EQ(0, pthread_join(thr[t], NULL));
		ASSERT_EQ(0, lw[t].err);
	}
	ASSERT_EQ(0, own_stream_status(&st));
	*lost = st.events_lost;
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
	pthread_barrier_destroy(&ready);
	pthread_barrier_destroy(&done);
	return n;
}

TEST(a_reader_behind_rings_weighs_a_filtered_records_time_as_a_drain_does)
{
	uint64_t cut[LATE_A + 2 * LATE_B + 2];
	uint64_t drained[LATE_A + 2 * LATE_B + 2];
	size_t m;

	SKIP_WITHOUT_DEVICE();
	m = cut_as_drained(_metadata, late_read, drained, cut,
			   LATE_A + 2 * LATE_B + 2);
	/* The drain kept A's newest and B's second half. */
	ASSERT_LT(2, m);
	ASSERT_EQ(LATE_A, drained[m - LATE_B - 1]);
	ASSERT_EQ(10001 + 2 * LATE_B - 1, drained[m - 1]);
}

/*
 * Two threads' rings whose records carry the same times, pair by pair
 * (raw: the library stamps each record itself). The drain merges the
 * rings oldest first; a tie takes either first, and loses neither.
 */
#define TIE_EVENTS	100

struct tie_writer {
	trace_event_id_t id;
	struct timespec base;
	uint32_t who;
	sem_t *written, *done;
	int err;
};

static void *tie_write(void *arg)
{
	struct tie_writer *tw = arg;
	uint32_t data[2] = { tw->who };
	struct timespec ts;
	struct raw_ring rr;
	uint64_t ns;

	tw->err = raw_ring_map(&rr, RING_SIZE);
	for (data[1] = 0; !tw->err && data[1] < TIE_EVENTS; data[1]++) {
		ns = tw->base.tv_nsec + 1000ULL * data[1];
		ts = (struct timespec){ .tv_sec = tw->base.tv_sec + ns / 1000000000,
					.tv_nsec = ns % 1000000000 };
		raw_commit(&rr, raw_put(&rr, tw->id, data, sizeof(data), &ts));
	}
	sem_post(tw->written);
	/* Alive until the read is done: an exited thread's ring goes. */
	sem_wait(tw->done);
	raw_ring_unmap(&rr);
	return NULL;
}

TEST(two_rings_records_of_the_same_time_all_come_in_time_order)
{
	struct tie_writer tw[2];
	uint32_t next[2] = { 0 }, data[2];
	struct timespec last = { 0 }, base;
	sem_t written, done;
	trace_event_id_t id;
	pthread_t thr[2];
	trace_id_t trid;
	struct rec r;
	int i, n = 0;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.tie", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	ASSERT_NEXT(trid, &r, POSIX_TRACE_START);
	ASSERT_EQ(0, sem_init(&written, 0, 0));
	ASSERT_EQ(0, sem_init(&done, 0, 0));
	/* After START; the same times for both threads. */
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &base));
	for (i = 0; i < 2; i++) {
		tw[i] = (struct tie_writer){ .id = id, .base = base, .who = i,
					     .written = &written,
					     .done = &done };
		ASSERT_EQ(0, pthread_create(&thr[i], NULL, tie_write, &tw[i]));
	}
	for (i = 0; i < 2; i++)
		sem_wait(&written);
	while (!try_next(trid, &r) && !r.unavailable) {
		ASSERT_EQ(id, r.info.posix_event_id);
		ASSERT_EQ(sizeof(data), r.len);
		memcpy(data, r.data, sizeof(data));
		ASSERT_GT(2, data[0]);
		/* Each thread's in its order; times never going back. */
		EXPECT_EQ(next[data[0]], data[1]);
		next[data[0]] = data[1] + 1;
		EXPECT_FALSE(r.info.posix_timestamp.tv_sec < last.tv_sec ||
			     (r.info.posix_timestamp.tv_sec == last.tv_sec &&
			      r.info.posix_timestamp.tv_nsec < last.tv_nsec));
		last = r.info.posix_timestamp;
		n++;
	}
	EXPECT_EQ(2 * TIE_EVENTS, n);
	for (i = 0; i < 2; i++) {
		sem_post(&done);
		EXPECT_EQ(0, tw[i].err);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_join(thr[i], NULL));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* Records across the end of the data area; a stale commit of a past lap. */
static void raw_wrap(struct raw_case *rc)
{
	struct posixtrace_ring_record *rec;
	static uint8_t big[4096];
	struct raw_ring rr;
	uint64_t i;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	/* Laps of records of 4 KiB + 48 bytes: some straddle the end. */
	for (i = 0; i < 24; i++) {
		memset(big, (int)i, sizeof(big));
		if (rr.head + sizeof(*rec) + sizeof(big) - rr.ctl->consumed >
		    RING_SIZE) {
			ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0);
			/* The kick's drain makes room: 10 s at most. */
			STEP(rc, 2, WAIT_UNTIL(rr.head + sizeof(*rec) +
					       sizeof(big) -
					       __atomic_load_n(&rr.ctl->consumed,
							       __ATOMIC_ACQUIRE) <=
					       RING_SIZE, 10000));
			if (rc->err) {
				raw_ring_unmap(&rr);
				return;
			}
		}
		raw_commit(&rr, raw_put(&rr, rc->id, big, sizeof(big), NULL));
	}
	/* A record whose commit word names the position one lap back. */
	rec = raw_put(&rr, rc->id, big, 8, NULL);
	__atomic_store_n(&rec->commit, ~(rr.head - RING_SIZE),
			 __ATOMIC_RELEASE);
	rc->extra = rr.head;
	raw_ring_unmap(&rr);
}

TEST(raw_records_across_the_end_are_whole_and_stale_commits_ignored)
{
	struct raw_case rc = { .fn = raw_wrap };
	struct rec r;
	int i, j;

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_NEXT(rc.trid, &r, POSIX_TRACE_START);
	for (i = 0; i < 24; i++) {
		struct posix_trace_event_info info;
		static uint8_t buf[4096];
		size_t len = 0;
		int unavailable = 1;

		ASSERT_EQ(0, posix_trace_trygetnext_event(rc.trid, &info, buf,
							  sizeof(buf), &len,
							  &unavailable));
		ASSERT_EQ(0, unavailable);
		ASSERT_EQ(rc.id, info.posix_event_id);
		ASSERT_EQ(sizeof(buf), len);
		for (j = 0; j < (int)len; j++)
			ASSERT_EQ(i, buf[j]) TH_LOG("record %d byte %d", i, j);
	}
	ASSERT_NEXT_STOP(rc.trid, &r, 0);
	ASSERT_EMPTY(rc.trid, &r);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/* Identifiers never opened, system ones; then a good record. */
static void raw_bad_ids(struct raw_case *rc)
{
	uint32_t bad[] = { 0, POSIX_TRACE_START, POSIX_TRACE_ERROR,
			   (uint32_t)rc->id + 100, 0xffffffff };
	struct raw_ring rr;
	uint64_t v = 7;
	unsigned int i;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	/*
	 * Between two good ones, each bad one twice: a drain takes them in
	 * one run, and must judge each, not the type before it.
	 */
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	for (i = 0; i < 2 * sizeof(bad) / sizeof(bad[0]); i++)
		raw_commit(&rr, raw_put(&rr, bad[i / 2], &v, sizeof(v), NULL));
	v = 8;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	raw_ring_unmap(&rr);
}

TEST(raw_identifiers_never_opened_are_ignored_not_lost)
{
	struct raw_case rc = { .fn = raw_bad_ids };
	struct posixtrace_status st;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_NEXT(rc.trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(rc.trid, &r, rc.id);
	ASSERT_EQ(7, *(uint64_t *)r.data);
	ASSERT_NEXT(rc.trid, &r, rc.id);
	ASSERT_EQ(8, *(uint64_t *)r.data);
	ASSERT_NEXT_STOP(rc.trid, &r, 0);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, st.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * A type taken, then the process gives up its privileges (setresuid(), no
 * exec): it gets a table of names of its own, empty, in which the type is
 * one it never opened. The same type in the same ring after that must not
 * pass for valid with the stream made since, because the first passed.
 */
static void raw_ids_across_tables(struct raw_case *rc)
{
	struct raw_ring rr;
	trace_id_t own;
	uint64_t v = 1;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	STEP(rc, 2, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 3, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	STEP(rc, 4, !setgroups(0, NULL) && !setresgid(1000, 1000, 1000) &&
		    !setresuid(1000, 1000, 1000));
	STEP(rc, 5, !rc->err && !posix_trace_create(0, NULL, &own) &&
		    !posix_trace_start(own));
	if (!rc->err) {
		rc->extra = (uint64_t)own;
		v = 2;
		raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
		STEP(rc, 6, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
		STEP(rc, 7, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	}
	raw_ring_unmap(&rr);
}

TEST(raw_a_type_of_the_table_left_is_ignored_in_the_new_one)
{
	struct raw_case rc = { .fn = raw_ids_across_tables };
	pthread_t thr;
	trace_id_t own;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to give up privileges");
	ASSERT_EQ(0, posix_trace_eventid_open("ring.raw", &rc.id));
	ASSERT_EQ(0, running_stream(&rc.trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	ASSERT_EQ(0, pthread_create(&thr, NULL, raw_thread, &rc));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, rc.err);
	own = (trace_id_t)rc.extra;
	ASSERT_NEXT(own, &r, POSIX_TRACE_START);
	ASSERT_EMPTY(own, &r);
	ASSERT_EQ(0, posix_trace_shutdown(own));
}

/* Times from the future and from before the last record. */
static void raw_times(struct raw_case *rc)
{
	struct timespec future = { .tv_sec = 4000000000LL }, past = { 0 };
	struct raw_ring rr;
	uint64_t v;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	v = 1;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), &future));
	v = 2;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), &past));
	raw_ring_unmap(&rr);
}

TEST(raw_times_stay_between_the_last_record_and_now)
{
	struct raw_case rc = { .fn = raw_times };
	struct timespec start, first;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_NEXT(rc.trid, &r, POSIX_TRACE_START);
	start = r.info.posix_timestamp;
	ASSERT_NEXT(rc.trid, &r, rc.id);
	first = r.info.posix_timestamp;
	ASSERT_LE(0, ts_cmp(&first, &start));
	ASSERT_GT(2000000000LL, first.tv_sec);
	ASSERT_NEXT(rc.trid, &r, rc.id);
	ASSERT_EQ(0, ts_cmp(&r.info.posix_timestamp, &first));
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * A record dated an hour ahead, its ring kept open: a drain takes only
 * what was made before it began, but a stamp ahead of the clock is no
 * thread's honest one, and waits for nothing (nor does what follows it).
 */
static void raw_ahead(struct raw_case *rc)
{
	struct timespec ahead;
	struct raw_ring rr;
	uint64_t v = 7;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	clock_gettime(CLOCK_REALTIME, &ahead);
	ahead.tv_sec += 3600;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), &ahead));
	STEP(rc, 2, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 3, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	raw_ring_unmap(&rr);
}

TEST(raw_a_record_dated_ahead_of_the_clock_is_not_held_back)
{
	struct raw_case rc = { .fn = raw_ahead };
	struct timespec now;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	clock_gettime(CLOCK_REALTIME, &now);
	ASSERT_NEXT(rc.trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(rc.trid, &r, rc.id);
	ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &now));
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/* Each kind of bad header: one event lost, the ring revoked. */
static const struct {
	const char *what;
	uint32_t size;		/* 0: the right one */
	uint32_t data_len;	/* ~0: the right one */
	uint32_t ts_nsec;
} bad_headers[] = {
	{ "size below the header", 16, ~0u, 0 },
	{ "size not a multiple of 8", 60, ~0u, 0 },
	{ "size past a lap", RING_SIZE + 8, ~0u, 0 },
	{ "data past the record", 0, 4096, 0 },
	{ "nanoseconds past a second", 0, ~0u, 1000000000 },
};

/*
 * Commit @rec, a bad header at @rr's head, and kick: the ring is revoked
 * (steps @step and @step + 1).
 */
static void raw_commit_bad(struct raw_case *rc, struct raw_ring *rr,
			   struct posixtrace_ring_record *rec, int step)
{
	__atomic_store_n(&rec->commit, ~rr->head, __ATOMIC_RELEASE);
	rr->head += 64;
	STEP(rc, step, !ioctl(rr->dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, step + 1,
	     WAIT_UNTIL(rr->ctl->state == POSIXTRACE_RING_REVOKED, 10000));
}

static void raw_bad_header(struct raw_case *rc)
{
	struct posixtrace_ring_record *rec;
	struct raw_ring rr;
	uint64_t v = 9;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	rec = raw_put(&rr, rc->id, &v, sizeof(v), NULL);
	if (bad_headers[rc->extra].size)
		rec->size = bad_headers[rc->extra].size;
	if (bad_headers[rc->extra].data_len != ~0u)
		rec->data_len = bad_headers[rc->extra].data_len;
	if (bad_headers[rc->extra].ts_nsec)
		rec->ts_nsec = bad_headers[rc->extra].ts_nsec;
	raw_commit_bad(rc, &rr, rec, 2);
	/* Nothing more is taken from it. */
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	raw_ring_unmap(&rr);
}

TEST(raw_each_bad_header_costs_one_event_and_revokes_the_ring)
{
	struct posixtrace_status st;
	unsigned int i;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	for (i = 0; i < sizeof(bad_headers) / sizeof(bad_headers[0]); i++) {
		struct raw_case rc = { .fn = raw_bad_header, .extra = i };

		TH_LOG("%s", bad_headers[i].what);
		run_raw(_metadata, &rc);
		ASSERT_NEXT(rc.trid, &r, POSIX_TRACE_START);
		ASSERT_NEXT(rc.trid, &r, rc.id);
		ASSERT_NEXT_STOP(rc.trid, &r, 0);
		ASSERT_EMPTY(rc.trid, &r);
		ASSERT_EQ(0, own_stream_status(&st));
		ASSERT_EQ(1, st.events_lost) TH_LOG("%s", bad_headers[i].what);
		ASSERT_EQ(POSIX_TRACE_OVERRUN, st.overrun_status);
		ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
	}
}

/*
 * A realtime thread never waits for a drain (kmod/drain.h). Its event by
 * system call while its ring is open would wait for one to store the
 * ring's records first: it is lost, counted, instead. Once the ring is
 * revoked, nothing more is taken from it, and the event goes to a kbuf.
 * Raw, without POSIXTRACE_EVENT_RINGLESS, as a full ring's event goes.
 */
static void raw_fifo_events(struct raw_case *rc)
{
	struct sched_param fifo = { .sched_priority = 1 };
	struct sched_param other = { .sched_priority = 0 };
	struct posixtrace_event ev = { .size = sizeof(ev) };
	struct posixtrace_ring_record *rec;
	struct raw_ring rr;
	uint64_t v = 9;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	ev.event_id = rc->id;
	ev.data = (uintptr_t)&v;
	ev.data_len = sizeof(v);
	v = 10;
	STEP(rc, 2, !pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo));
	STEP(rc, 3, !ioctl(rr.dev, POSIXTRACE_IOC_EVENT, &ev));
	STEP(rc, 4, !pthread_setschedparam(pthread_self(), SCHED_OTHER,
					  &other));
	/* A header below the minimum revokes the ring. */
	rec = raw_put(&rr, rc->id, &v, sizeof(v), NULL);
	rec->size = 16;
	raw_commit_bad(rc, &rr, rec, 5);
	v = 11;
	STEP(rc, 7, !pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo));
	STEP(rc, 8, !ioctl(rr.dev, POSIXTRACE_IOC_EVENT, &ev));
	STEP(rc, 9, !pthread_setschedparam(pthread_self(), SCHED_OTHER,
					  &other));
	raw_ring_unmap(&rr);
}

TEST(raw_a_fifo_threads_event_behind_its_open_ring_is_lost_counted)
{
	struct raw_case rc = { .fn = raw_fifo_events };
	struct posixtrace_status st;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root: SCHED_FIFO");
	run_raw(_metadata, &rc);
	ASSERT_NEXT(rc.trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(rc.trid, &r, rc.id);
	ASSERT_EQ(9, *(uint64_t *)r.data);
	/* 10 was lost behind the ring, the bad header too; 11 kept. */
	ASSERT_NEXT(rc.trid, &r, rc.id);
	ASSERT_EQ(11, *(uint64_t *)r.data);
	ASSERT_NEXT_STOP(rc.trid, &r, 0);
	ASSERT_EMPTY(rc.trid, &r);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(2, st.events_lost);
	ASSERT_EQ(POSIX_TRACE_OVERRUN, st.overrun_status);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * The thread says (@produced) it committed a record it did not: a lie, or
 * it wrote over its own record. That costs one event and revokes the
 * ring, as a bad header does; what it committed before is taken.
 */
static void raw_lying_produced(struct raw_case *rc)
{
	struct posixtrace_ring_record *rec;
	struct raw_ring rr;
	uint64_t v = 5, taken;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	taken = rr.head;
	rec = raw_put(&rr, rc->id, &v, sizeof(v), NULL);
	raw_publish(&rr, rr.head + rec->size);
	STEP(rc, 2, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 3, WAIT_UNTIL(rr.ctl->state == POSIXTRACE_RING_REVOKED &&
			       rr.ctl->consumed == taken, 10000));
	STEP(rc, 4, rr.ctl->state == POSIXTRACE_RING_REVOKED);
	raw_ring_unmap(&rr);
}

TEST(raw_produced_past_an_uncommitted_record_revokes_the_ring)
{
	struct raw_case rc = { .fn = raw_lying_produced };
	struct posixtrace_status st;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_NEXT(rc.trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT(rc.trid, &r, rc.id);
	ASSERT_NEXT_STOP(rc.trid, &r, 0);
	ASSERT_EMPTY(rc.trid, &r);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(1, st.events_lost);
	ASSERT_EQ(POSIX_TRACE_OVERRUN, st.overrun_status);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * What @produced may say that claims nothing: past a lap, behind what the
 * module took, all ones. The module takes the committed records as ever:
 * none lost, the ring live.
 */
static const char *const bogus_produced[] = {
	"past a lap", "behind what was taken", "all ones",
};

static void raw_bogus_produced(struct raw_case *rc)
{
	struct raw_ring rr;
	uint64_t v = 1, word;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	raw_publish(&rr, rr.head);
	STEP(rc, 2, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 3, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	for (v = 2; v <= 3; v++)
		raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	switch (rc->extra) {
	case 0:
		word = rr.head + 2 * RING_SIZE;
		break;
	case 1:
		word = rr.ctl->consumed - 8;
		break;
	default:
		word = ~0ULL;
		break;
	}
	raw_publish(&rr, word);
	STEP(rc, 4, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 5, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	STEP(rc, 6, rr.ctl->state == POSIXTRACE_RING_LIVE);
	raw_ring_unmap(&rr);
}

TEST(raw_produced_that_claims_nothing_is_ignored)
{
	struct posixtrace_status st;
	uint64_t nums[4];
	unsigned int i;

	SKIP_WITHOUT_DEVICE();
	for (i = 0; i < sizeof(bogus_produced) / sizeof(bogus_produced[0]);
	     i++) {
		struct raw_case rc = { .fn = raw_bogus_produced, .extra = i };

		TH_LOG("%s", bogus_produced[i]);
		run_raw(_metadata, &rc);
		ASSERT_EQ(3, read_numbers(rc.trid, rc.id, nums, NULL, 4, NULL));
		ASSERT_EQ(1, nums[0]);
		ASSERT_EQ(3, nums[2]);
		ASSERT_EQ(0, own_stream_status(&st));
		ASSERT_EQ(0, st.events_lost);
		ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
	}
}

/* Garbage in one process's ring; another's events go on. */
TEST(raw_garbage_in_one_ring_leaves_another_process_untouched)
{
	struct raw_case rc = { .fn = raw_bad_header, .extra = 0 };
	trace_event_id_t id;
	uint64_t nums[200];
	trace_id_t trid;
	pid_t child;
	int status, p[2];
	char c;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.other", &id));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		uint64_t k;

		for (k = 0; k < 100; k++)
			posix_trace_event(id, &k, sizeof(k));
		/* Wait while the parent's ring goes bad. */
		if (read(p[0], &c, 1) != 1)
			_exit(2);
		for (k = 100; k < 200; k++)
			posix_trace_event(id, &k, sizeof(k));
		_exit(0);
	}
	close(p[0]);
	run_raw(_metadata, &rc);
	ASSERT_EQ(1, write(p[1], "g", 1));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(200, read_numbers(trid, id, nums, NULL, 200, NULL));
	ASSERT_EQ(199, nums[199]);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/* Committed, then unmapped; committed, then a second ring mapped. */
static void raw_unmap_and_remap(struct raw_case *rc)
{
	struct raw_ring rr, again;
	uint64_t v = 1;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	munmap(rr.map, rr.len);
	rr.map = NULL;
	STEP(rc, 2, !raw_ring_map(&again, 2 * RING_SIZE));
	if (rc->err)
		return;
	v = 2;
	raw_commit(&again, raw_put(&again, rc->id, &v, sizeof(v), NULL));
	raw_ring_unmap(&again);
	raw_ring_unmap(&rr);
}

TEST(raw_records_outlive_an_unmap_and_a_second_ring)
{
	struct raw_case rc = { .fn = raw_unmap_and_remap };
	uint64_t nums[4];

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_EQ(2, read_numbers(rc.trid, rc.id, nums, NULL, 4, NULL));
	ASSERT_EQ(1, nums[0]);
	ASSERT_EQ(2, nums[1]);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * A second ring retires the first: its state says so (a writer that is not
 * its thread would go by system call), what it held is taken, and nothing
 * written there afterwards is.
 */
static void raw_retired_visibly(struct raw_case *rc)
{
	struct raw_ring first, second;
	uint64_t v = 1;

	STEP(rc, 1, !raw_ring_map(&first, RING_SIZE));
	if (rc->err)
		return;
	raw_commit(&first, raw_put(&first, rc->id, &v, sizeof(v), NULL));
	STEP(rc, 2, !raw_ring_map(&second, RING_SIZE));
	if (rc->err)
		return;
	STEP(rc, 3, first.ctl->state == POSIXTRACE_RING_RETIRED);
	STEP(rc, 4, first.ctl->consumed == first.head);
	STEP(rc, 5, second.ctl->state == POSIXTRACE_RING_LIVE);
	v = 2;
	raw_commit(&first, raw_put(&first, rc->id, &v, sizeof(v), NULL));
	v = 3;
	raw_commit(&second, raw_put(&second, rc->id, &v, sizeof(v), NULL));
	STEP(rc, 6, !ioctl(second.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	raw_ring_unmap(&second);
	raw_ring_unmap(&first);
}

TEST(raw_a_retired_ring_says_so_and_is_never_taken_again)
{
	struct raw_case rc = { .fn = raw_retired_visibly };
	uint64_t nums[4];

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_EQ(2, read_numbers(rc.trid, rc.id, nums, NULL, 4, NULL));
	ASSERT_EQ(1, nums[0]);
	ASSERT_EQ(3, nums[1]);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * Grow the calling thread's ring, @rr, to @size data bytes: 0, with the
 * old mapping in @old (its device not its own), or -errno.
 */
static int raw_ring_grow(struct raw_ring *rr, struct raw_ring *old,
			 size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *p;

	p = mmap(NULL, page + size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 rr->dev, POSIXTRACE_RING_GROW_OFFSET);
	if (p == MAP_FAILED)
		return -errno;
	*old = *rr;
	old->dev = -1;
	rr->len = page + size;
	rr->map = p;
	rr->ctl = p;
	rr->data = (uint8_t *)p + page;
	return 0;
}

/* Commit records numbered @from to @to - 1 into @rr; publish if @publish. */
static void raw_numbers(struct raw_ring *rr, trace_event_id_t id,
			uint64_t from, uint64_t to, bool publish)
{
	uint64_t v;

	for (v = from; v < to; v++)
		raw_commit(rr, raw_put(rr, id, &v, sizeof(v), NULL));
	if (publish)
		raw_publish(rr, rr->head);
}

/*
 * A page ring, taken from once, then filled past its end (the last
 * record committed, not published), grows to four pages: the new ring
 * goes on from the old one's positions, holding the same bytes there, and
 * the old one is retired. Records written on in the new ring, across its
 * own end, are all taken in order; one written in the old ring after the
 * growth is not.
 */
static void raw_grow_keeps_positions(struct raw_case *rc)
{
	uint64_t page = sysconf(_SC_PAGESIZE), pos, published;
	struct raw_ring rr, old;
	uint64_t v = 999;

	STEP(rc, 1, !raw_ring_map(&rr, page));
	if (rc->err)
		return;
	raw_numbers(&rr, rc->id, 1, 41, true);
	STEP(rc, 2, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 3, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	/* 40 + 50 records of 56 bytes: past the page's end. */
	raw_numbers(&rr, rc->id, 41, 90, true);
	published = rr.head;
	raw_numbers(&rr, rc->id, 90, 91, false);
	STEP(rc, 4, rr.head > page && rr.head - rr.ctl->consumed <= page);
	STEP(rc, 5, !raw_ring_grow(&rr, &old, 4 * page));
	if (rc->err)
		return;
	STEP(rc, 6, rr.ctl->magic == POSIXTRACE_RING_MAGIC &&
		    rr.ctl->state == POSIXTRACE_RING_LIVE &&
		    rr.ctl->data_size == 4 * page &&
		    rr.ctl->data_offset == page && rr.ctl->grown_from == page);
	STEP(rc, 7, rr.ctl->consumed == old.ctl->consumed &&
		    rr.ctl->produced == published);
	STEP(rc, 8, old.ctl->state == POSIXTRACE_RING_RETIRED);
	for (pos = rr.ctl->consumed; pos < rr.head; pos++)
		STEP(rc, 9, rr.data[pos & (4 * page - 1)] ==
			    old.data[pos & (page - 1)]);
	/* 100 more; then, taken, 200 more across the new ring's end. */
	raw_numbers(&rr, rc->id, 91, 191, true);
	raw_commit(&old, raw_put(&old, rc->id, &v, sizeof(v), NULL));
	STEP(rc, 10, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 11, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	raw_numbers(&rr, rc->id, 191, 391, true);
	STEP(rc, 12, rr.head > 4 * page);
	STEP(rc, 13, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 14, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	STEP(rc, 15, rr.ctl->state == POSIXTRACE_RING_LIVE);
	raw_ring_unmap(&old);
	raw_ring_unmap(&rr);
}

TEST(raw_a_grown_ring_goes_on_from_the_old_ones_positions)
{
	struct raw_case rc = { .fn = raw_grow_keeps_positions };
	static uint64_t nums[400];
	struct posixtrace_status st;
	uint64_t i;

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_EQ(390, read_numbers(rc.trid, rc.id, nums, NULL, 400, NULL));
	for (i = 0; i < 390; i++)
		ASSERT_EQ(i + 1, nums[i]);
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, st.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * Each rule of growing has its error: no ring to grow (ENOENT), a size no
 * larger (EINVAL), a revoked ring (ENOENT); a refused growth leaves the
 * ring as it was.
 */
static void raw_grow_errors(struct raw_case *rc)
{
	uint64_t page = sysconf(_SC_PAGESIZE);
	struct posixtrace_ring_record *rec;
	struct raw_ring rr, old;
	uint64_t v = 1;

	rr.dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	STEP(rc, 1, rr.dev >= 0);
	if (rc->err)
		return;
	STEP(rc, 2, raw_ring_grow(&rr, &old, 2 * page) == -ENOENT);
	close(rr.dev);
	STEP(rc, 3, !raw_ring_map(&rr, 2 * page));
	if (rc->err)
		return;
	STEP(rc, 4, raw_ring_grow(&rr, &old, 2 * page) == -EINVAL);
	STEP(rc, 5, raw_ring_grow(&rr, &old, page) == -EINVAL);
	raw_numbers(&rr, rc->id, 1, 2, true);
	STEP(rc, 6, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 7, WAIT_UNTIL(rr.ctl->consumed == rr.head, 10000));
	STEP(rc, 8, rr.ctl->state == POSIXTRACE_RING_LIVE);
	/* A header the module refuses: the ring is revoked. */
	rec = raw_put(&rr, rc->id, &v, sizeof(v), NULL);
	rec->size = 8;
	__atomic_store_n(&rec->commit, ~rr.head, __ATOMIC_RELEASE);
	STEP(rc, 9, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	STEP(rc, 10, WAIT_UNTIL(rr.ctl->state == POSIXTRACE_RING_REVOKED,
				10000));
	STEP(rc, 11, raw_ring_grow(&rr, &old, 4 * page) == -ENOENT);
	raw_ring_unmap(&rr);
}

TEST(raw_each_rule_of_growing_a_ring_has_its_error)
{
	struct raw_case rc = { .fn = raw_grow_errors };
	struct posixtrace_status st;
	uint64_t nums[4];

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_EQ(1, read_numbers(rc.trid, rc.id, nums, NULL, 4, NULL));
	ASSERT_EQ(1, nums[0]);
	/* The refused record. */
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(1, st.events_lost);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/*
 * Two threads each fill a 1 MiB ring, their times interleaved, and commit
 * all but their first record; the test commits the two first records at
 * once, and a stop takes them all: one drain of tens of passes, letting go
 * of its lock between them. The reader must see the two threads' events
 * alternate, none missing. The timer is slowed meanwhile: a drain between
 * the two first commits would take one ring before the other.
 */
#define LONG_RECORDS	15000

struct long_drain {
	trace_event_id_t id;
	int which;
	struct timespec base;
	pthread_barrier_t *ready, *done;
	struct posixtrace_ring_record *first;
	int err;
};

static void *long_drain_thread(void *arg)
{
	struct posixtrace_ring_record *rec;
	struct long_drain *ld = arg;
	struct raw_ring rr;
	int i;

	ld->err = raw_ring_map(&rr, 1 << 20);
	for (i = 0; !ld->err && i < LONG_RECORDS; i++) {
		uint64_t v = (uint64_t)ld->which << 32 | (uint64_t)i;
		long long ns = ld->base.tv_nsec + 20LL * i + 10 * ld->which;
		struct timespec ts = {
			.tv_sec = ld->base.tv_sec + ns / 1000000000,
			.tv_nsec = ns % 1000000000,
		};

		rec = raw_put(&rr, ld->id, &v, sizeof(v), &ts);
		/* The first stays uncommitted: nothing can be taken yet. */
		if (i)
			raw_commit(&rr, rec);
		else
			ld->first = rec, rr.head += rec->size;
	}
	pthread_barrier_wait(ld->ready);
	pthread_barrier_wait(ld->done);
	if (!ld->err)
		raw_ring_unmap(&rr);
	return NULL;
}

TEST(a_long_drain_lets_go_of_its_lock_and_keeps_the_order)
{
	pthread_barrier_t ready, done;
	struct long_drain ld[2];
	struct timespec base;
	int n = 0, drain_ms;
	pthread_t thr[2];
	trace_id_t trid;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_TRUE(param_read(DRAIN_MS_PARAM, &drain_ms));
	ASSERT_TRUE(param_write(DRAIN_MS_PARAM, 10000));
	/* A tick already due fires now, and comes back in 10 s. */
	usleep(300000);
	ASSERT_EQ(0, pthread_barrier_init(&ready, NULL, 3));
	ASSERT_EQ(0, pthread_barrier_init(&done, NULL, 3));
	ASSERT_EQ(0, running_stream(&trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	/* After START: the records need not take its time. */
	clock_gettime(CLOCK_REALTIME, &base);
	for (int t = 0; t < 2; t++) {
		ld[t] = (struct long_drain) {
			.which = t, .base = base, .ready = &ready, .done = &done,
		};
		ASSERT_EQ(0, posix_trace_eventid_open("ring.long", &ld[t].id));
		ASSERT_EQ(0, pthread_create(&thr[t], NULL, long_drain_thread,
					    &ld[t]));
	}
	pthread_barrier_wait(&ready);
	for (int t = 0; t < 2 && !ld[0].err && !ld[1].err; t++)
		__atomic_store_n(&ld[t].first->commit, ~0ULL,
				 __ATOMIC_RELEASE);
	EXPECT_EQ(0, posix_trace_stop(trid));
	pthread_barrier_wait(&done);
	for (int t = 0; t < 2; t++) {
		ASSERT_EQ(0, pthread_join(thr[t], NULL));
		ASSERT_EQ(0, ld[t].err);
	}
	EXPECT_TRUE(param_write(DRAIN_MS_PARAM, drain_ms));
	while (!try_next(trid, &r) && !r.unavailable) {
		uint64_t v;

		if (r.info.posix_event_id != ld[0].id)
			continue;
		ASSERT_EQ(sizeof(v), r.len);
		memcpy(&v, r.data, sizeof(v));
		ASSERT_EQ((uint64_t)(n % 2) << 32 | (uint64_t)(n / 2), v)
			TH_LOG("event %d out of order", n);
		n++;
	}
	ASSERT_EQ(2 * LONG_RECORDS, n);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	pthread_barrier_destroy(&ready);
	pthread_barrier_destroy(&done);
}

/* A child does not inherit the mapping: it could not write the ring. */
static void raw_fork(struct raw_case *rc)
{
	struct raw_ring rr;
	int status;
	pid_t child;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	STEP(rc, 2, ring_mapped(getpid()));
	child = fork();
	if (!child)
		_exit(ring_mapped(getpid()) ? 1 : 0);
	STEP(rc, 3, child > 0 && waitpid(child, &status, 0) == child &&
		    WIFEXITED(status) && !WEXITSTATUS(status));
	raw_ring_unmap(&rr);
}

TEST(raw_a_child_does_not_inherit_the_mapping)
{
	struct raw_case rc = { .fn = raw_fork };

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/* A mapping a ring's rules refuse, and the error it must get. */
struct bad_map {
	size_t len;
	int prot, flags;
	int err;
};

/* Try each of @bad at @offset on @dev: step 10 + i if it went otherwise. */
static void raw_try_bad_maps(struct raw_case *rc, int dev, off_t offset,
			     const struct bad_map *bad, unsigned int n)
{
	unsigned int i;
	void *p;

	for (i = 0; i < n; i++) {
		p = mmap(NULL, bad[i].len, bad[i].prot, bad[i].flags, dev,
			 offset);
		STEP(rc, 10 + i, p == MAP_FAILED && errno == bad[i].err);
		if (p != MAP_FAILED)
			munmap(p, bad[i].len);
	}
}

/*
 * One negative case per rule of the mapping: a page plus a power of two
 * within max_ring_size, shared, never executable (at the mapping or
 * after), at the ring's offset (the retired twice-mapped one is refused),
 * and none while rings are off.
 */
static void raw_bad_maps(struct raw_case *rc)
{
	size_t page = sysconf(_SC_PAGESIZE);
	int dev = open(DEVICE, O_RDWR | O_CLOEXEC), old = 0;
	const struct bad_map bad[] = {
		{ page + RING_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		  EINVAL },
		{ page + 3 * page, PROT_READ | PROT_WRITE, MAP_SHARED, EINVAL },
		{ page, PROT_READ | PROT_WRITE, MAP_SHARED, EINVAL },
		{ page + (128 << 20), PROT_READ | PROT_WRITE, MAP_SHARED,
		  EINVAL },
		{ page + RING_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		  MAP_SHARED, EPERM },
	};
	const struct posixtrace_ring_ctl *ctl;
	void *p;

	STEP(rc, 1, dev >= 0);
	raw_try_bad_maps(rc, dev, POSIXTRACE_RING_OFFSET, bad,
			 sizeof(bad) / sizeof(bad[0]));
	p = mmap(NULL, page + 2 * RING_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED, dev, 0x100000);
	STEP(rc, 19, p == MAP_FAILED && errno == EINVAL);
	p = mmap(NULL, page + RING_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev, POSIXTRACE_RING_OFFSET);
	STEP(rc, 20, p != MAP_FAILED);
	if (p != MAP_FAILED) {
		ctl = p;
		STEP(rc, 21, ctl->magic == POSIXTRACE_RING_MAGIC &&
			     ctl->data_size == RING_SIZE &&
			     ctl->data_offset == page);
		STEP(rc, 22, mprotect(p, page, PROT_READ | PROT_EXEC) &&
			     errno == EACCES);
		munmap(p, page + RING_SIZE);
	}
	/* Rings off: ENODEV. */
	if (param_read(RING_PARAM, &old) && param_write(RING_PARAM, 0)) {
		p = mmap(NULL, page + RING_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, dev, POSIXTRACE_RING_OFFSET);
		STEP(rc, 30, p == MAP_FAILED && errno == ENODEV);
		STEP(rc, 31, param_write(RING_PARAM, old));
		STEP(rc, 32, !param_write(RING_PARAM, 3 * 4096));
	}
	close(dev);
}

TEST(raw_each_rule_of_the_mapping_has_its_error)
{
	struct raw_case rc = { .fn = raw_bad_maps };

	SKIP_WITHOUT_DEVICE();
	run_raw(_metadata, &rc);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
}

/* A ring of @size bytes to map, and what mapping it must give. */
struct ring_try {
	size_t size;
	int err;
};

/*
 * As user 1000 with an RLIMIT_MEMLOCK of @limit bytes, map rings of the
 * sizes of @tries in turn, each replacing the last (a thread's second
 * ring retires its first, giving its pages back): each must give its
 * error (0: mapped). A ring that must map is tried for up to 5 s: the
 * rings of the test before, that user's too, are given back only at their
 * domain's next drain, a timer tick after their process exited. Needs
 * root, to become that user.
 */
static void memlock_tries(struct __test_metadata *_metadata, rlim_t limit,
			  const struct ring_try *tries, int n)
{
	struct rlimit lim = { limit, limit };
	int status, i, err, left;
	struct raw_ring rr;
	pid_t child;

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		if (setrlimit(RLIMIT_MEMLOCK, &lim) || setgroups(0, NULL) ||
		    setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(1);
		for (i = 0; i < n; i++) {
			for (left = 500;; left--) {
				err = raw_ring_map(&rr, tries[i].size);
				if (err != -ENOMEM || tries[i].err || !left)
					break;
				raw_ring_unmap(&rr);
				usleep(10000);
			}
			if (err != tries[i].err)
				_exit(2 + i);
			raw_ring_unmap(&rr);
		}
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	/* 1: not the user; 2 + i: tries[i] went otherwise. */
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * A ring's pages count in its user's RLIMIT_MEMLOCK: an ordinary user
 * with a limit of 64 KiB maps a ring of 32 KiB (plus its page), not one
 * of 64 KiB, and gets the first back when it is gone.
 */
TEST(raw_rings_count_in_the_users_memlock_limit)
{
	static const struct ring_try tries[] = {
		{ 2 * 32 * 1024, -ENOMEM },
		{ 32 * 1024, 0 },
		/* A second ring of the thread replaces the first. */
		{ 32 * 1024, 0 },
	};

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to act as another user");
	memlock_tries(_metadata, 64 * 1024, tries, 3);
}

/*
 * A ring larger than the library's default (64 KiB) may take its user to
 * half the limit only, so that default rings remain for later threads.
 */
TEST(raw_rings_over_the_default_size_take_half_the_memlock_limit)
{
	static const struct ring_try tries[] = {
		/* 1028 KiB: within the limit, past its half. */
		{ 1024 * 1024, -ENOMEM },
		/* 516 KiB: within the half. */
		{ 512 * 1024, 0 },
		/* The default size may use the whole limit, as before. */
		{ 64 * 1024, 0 },
	};

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to act as another user");
	memlock_tries(_metadata, 1536 * 1024, tries, 3);
}

/*
 * The half is the data's: the control page counts beyond it, so that a
 * user at Debian's default 8 MiB may map a 4 MiB ring. A 1 MiB ring (257
 * pages) fits a limit of 2 MiB, not one a page less.
 */
TEST(raw_rings_data_may_take_exactly_half_the_memlock_limit)
{
	static const struct ring_try at_half[] = { { 1024 * 1024, 0 } };
	static const struct ring_try past_half[] = {
		{ 1024 * 1024, -ENOMEM },
	};

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to act as another user");
	memlock_tries(_metadata, 2048 * 1024, at_half, 1);
	memlock_tries(_metadata, 2048 * 1024 - page_size(), past_half, 1);
}

/* ---- kicks that drop: what they must not drop --------------------------- */

/*
 * A LOOP stream of 4 KiB with a max data size of 8 KiB: an event with 5000
 * bytes of data cannot be stored even in the empty stream, so it is lost
 * alone and overwrites nothing. A kick must not count its bytes as filling
 * the stream and drop the 40 small events before it, which the stream
 * keeps.
 */
TEST(kicks_do_not_drop_for_events_the_stream_cannot_hold)
{
	static char big[5000];
	struct posixtrace_status st;
	uint64_t i, nums[64];
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	int n;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "65536", 1));
	ASSERT_EQ(0, posix_trace_eventid_open("ring.toobig", &id));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 4096));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 8192));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	for (i = 0; i < 40; i++)
		posix_trace_event(id, &i, sizeof(i));
	/* The third takes the ring past a quarter: the kick. */
	for (i = 0; i < 3; i++)
		posix_trace_event(id, big, sizeof(big));
	ASSERT_TRUE(ring_mapped(getpid()));
	ASSERT_EQ(0, posix_trace_stop(trid));
	n = read_numbers(trid, id, nums, NULL, 64, NULL);
	ASSERT_EQ(40, n);
	for (i = 0; i < 40; i++)
		ASSERT_EQ(i, nums[i]);
	ASSERT_EQ(0, own_stream_status(&st));
	/* START, 40 events, STOP recorded; the three large ones lost. */
	ASSERT_EQ(3, st.events_lost);
	ASSERT_EQ(42, st.events_recorded);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * A drain keeps a record's time between its ring's last and now; the
 * OVERFLOW a kick's drop reports takes the time of the first event dropped,
 * which must be kept so too: a thread cannot date it in the future, even
 * when the records the drop counted on never reach the stream.
 */
static void raw_drop_future(struct raw_case *rc)
{
	struct timespec future = { .tv_sec = 4000000000LL };
	struct raw_ring rr;
	uint64_t v;

	STEP(rc, 1, !raw_ring_map(&rr, RING_SIZE));
	if (rc->err)
		return;
	v = 0;
	raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), &future));
	/* 800 more, 56 bytes each: far more than the 4 KiB stream keeps. */
	for (v = 1; v <= 800; v++)
		raw_commit(&rr, raw_put(&rr, rc->id, &v, sizeof(v), NULL));
	STEP(rc, 2, !ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	/* It dropped (the kick moved consumed itself). */
	rc->extra = rr.ctl->consumed;
	/*
	 * The records it dropped for are then never stored: the first turns
	 * bad (the ring is revoked there), so none overwrites an older one,
	 * whose time would be the gap's.
	 */
	if (rc->extra)
		((struct posixtrace_ring_record *)
		 (rr.data + (rc->extra & (RING_SIZE - 1))))->size = 12;
	raw_ring_unmap(&rr);
}

TEST(raw_a_dropped_events_overflow_is_not_dated_in_the_future)
{
	struct raw_case rc = { .fn = raw_drop_future };
	struct timespec now;
	trace_attr_t attr;
	pthread_t thr;
	struct rec r;
	int overflows = 0;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.raw", &rc.id));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 4096));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &rc.trid));
	ASSERT_EQ(0, posix_trace_start(rc.trid));
	ASSERT_EQ(0, pthread_create(&thr, NULL, raw_thread, &rc));
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, rc.err);
	TH_LOG("consumed after the kick: %llu", (unsigned long long)rc.extra);
	ASSERT_EQ(0, posix_trace_stop(rc.trid));
	clock_gettime(CLOCK_REALTIME, &now);
	while (!try_next(rc.trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id != POSIX_TRACE_OVERFLOW)
			continue;
		overflows++;
		ASSERT_GE(0, ts_cmp(&r.info.posix_timestamp, &now))
			TH_LOG("OVERFLOW at %lld s",
			       (long long)r.info.posix_timestamp.tv_sec);
	}
	ASSERT_EQ(1, overflows);
	ASSERT_EQ(0, posix_trace_shutdown(rc.trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * A sleeping drain takes, of each ring, the lap it had when it began. Here
 * that drain is posix_trace_stop()'s: its first pass takes thread A's 400
 * oldest records, its next ones thread B's 16,000 (all older than A's
 * others). Meanwhile A writes into the room freed and kicks: the records
 * it now has past that room fill the 8 KiB LOOP stream, but the stop's
 * drain will not take them (made after it began, they are judged by the
 * stopped stream). A's records made before the stop are the newest the
 * running stream saw: it must keep them, not count them lost.
 */
#define LAP_B_RECORDS	16000
#define LAP_A_EARLY	400

struct lap_case {
	trace_event_id_t id;
	struct timespec base;
	uint64_t a_late, a_after, a_consumed;
	atomic_int ready, done;
	int err;
};

static struct timespec ts_plus(struct timespec base, long long ns)
{
	ns += base.tv_nsec;
	base.tv_sec += ns / 1000000000;
	base.tv_nsec = ns % 1000000000;
	return base;
}

static void *lap_b(void *arg)
{
	struct lap_case *lc = arg;
	struct raw_ring rr;
	uint64_t j, v;

	if (raw_ring_map(&rr, 1 << 20)) {
		lc->err = 1;
	} else {
		for (j = 0; j < LAP_B_RECORDS; j++) {
			struct timespec ts = ts_plus(lc->base, 1000 + j);

			v = 2ULL << 32 | j;
			raw_commit(&rr, raw_put(&rr, lc->id, &v, sizeof(v), &ts));
		}
	}
	atomic_fetch_add(&lc->ready, 1);
	/* Alive, so that no exit drains the ring before the stop. */
	while (!atomic_load(&lc->done))
		usleep(1000);
	raw_ring_unmap(&rr);
	return NULL;
}

static void *lap_a(void *arg)
{
	const uint64_t rec = sizeof(struct posixtrace_ring_record) + 8;
	struct lap_case *lc = arg;
	struct raw_ring rr;
	uint64_t i, v, consumed;
	struct timespec t0, t1;
	unsigned int spins = 0;

	if (raw_ring_map(&rr, RING_SIZE)) {
		lc->err = 2;
		atomic_fetch_add(&lc->ready, 1);
		return NULL;
	}
	for (i = 0; i < LAP_A_EARLY; i++) {
		struct timespec ts = ts_plus(lc->base, i);

		v = 0ULL << 32 | i;
		raw_commit(&rr, raw_put(&rr, lc->id, &v, sizeof(v), &ts));
	}
	/* The rest of the ring: made now, after all of B's. */
	for (i = 0; rr.head + rec <= RING_SIZE; i++) {
		v = 1ULL << 32 | i;
		raw_commit(&rr, raw_put(&rr, lc->id, &v, sizeof(v), NULL));
	}
	lc->a_late = i;
	atomic_fetch_add(&lc->ready, 1);
	/* The stop's first pass took the early ones: write in their room. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(consumed = __atomic_load_n(&rr.ctl->consumed,
					    __ATOMIC_ACQUIRE))) {
		if (++spins % 4096)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 5)
			break;
	}
	lc->a_consumed = consumed;
	for (i = 0; consumed && rr.head + rec - consumed <= RING_SIZE; i++) {
		v = 3ULL << 32 | i;
		raw_commit(&rr, raw_put(&rr, lc->id, &v, sizeof(v), NULL));
	}
	lc->a_after = i;
	if (ioctl(rr.dev, POSIXTRACE_IOC_RING_DRAIN, 0))
		lc->err = 3;
	while (!atomic_load(&lc->done))
		usleep(1000);
	raw_ring_unmap(&rr);
	return NULL;
}

TEST(a_kick_during_a_stops_drain_keeps_what_the_stop_must_keep)
{
	struct lap_case lc = { 0 };
	uint64_t v, idx, prev = 0, top = 0, late_n = 0, after_n = 0;
	struct posixtrace_status st;
	trace_attr_t attr;
	pthread_t a, b;
	trace_id_t trid;
	int drain_ms;
	struct rec r;

	SKIP_WITHOUT_DEVICE();
	ASSERT_TRUE(param_read(DRAIN_MS_PARAM, &drain_ms));
	ASSERT_TRUE(param_write(DRAIN_MS_PARAM, 10000));
	/* A tick already due fires now, and comes back in 10 s. */
	usleep(300000);
	ASSERT_EQ(0, posix_trace_eventid_open("ring.lap", &lc.id));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 8192));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	clock_gettime(CLOCK_REALTIME, &lc.base);
	lc.base.tv_sec -= 100;
	ASSERT_EQ(0, pthread_create(&b, NULL, lap_b, &lc));
	ASSERT_EQ(0, pthread_create(&a, NULL, lap_a, &lc));
	ASSERT_TRUE(WAIT_UNTIL(atomic_load(&lc.ready) >= 2, 30000));
	EXPECT_EQ(0, posix_trace_stop(trid));
	atomic_store(&lc.done, 1);
	ASSERT_EQ(0, pthread_join(a, NULL));
	ASSERT_EQ(0, pthread_join(b, NULL));
	EXPECT_TRUE(param_write(DRAIN_MS_PARAM, drain_ms));
	ASSERT_EQ(0, lc.err);
	TH_LOG("A: %llu late, %llu after; consumed %llu when A wrote again",
	       (unsigned long long)lc.a_late, (unsigned long long)lc.a_after,
	       (unsigned long long)lc.a_consumed);
	/*
	 * A's late records, then those it made while the stop ran (some
	 * may be recorded: made during the call), are one sequence: what
	 * is read of it has no hole and reaches its newest made before the
	 * stop, or past it.
	 */
	while (!try_next(trid, &r) && !r.unavailable) {
		if (r.info.posix_event_id != lc.id)
			continue;
		memcpy(&v, r.data, sizeof(v));
		if (v >> 32 == 1) {
			idx = 1 + (v & 0xffffffff);
			late_n++;
		} else if (v >> 32 == 3) {
			idx = 1 + lc.a_late + (v & 0xffffffff);
			after_n++;
		} else {
			continue;
		}
		if (prev)
			ASSERT_EQ(prev + 1, idx);
		prev = idx;
		top = idx;
	}
	TH_LOG("read %llu of A's late records, %llu made after; the newest %llu",
	       (unsigned long long)late_n, (unsigned long long)after_n,
	       (unsigned long long)top);
	ASSERT_EQ(0, own_stream_status(&st));
	TH_LOG("recorded %llu lost %llu", (unsigned long long)st.events_recorded,
	       (unsigned long long)st.events_lost);
	ASSERT_LE(lc.a_late, top);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * A reader blocked on a LOOP stream is woken when the thread's kicks find
 * records for it, even kicks that drop: it does not wait for the timer.
 * The writer makes a burst (the reader keeps up or not), waits until the
 * reader has taken all it could and blocks, then writes two quarters of
 * its ring more: a kick in between must wake the reader, even one that
 * drops (the first after the reader began to wait, for the enable page's
 * wake, or the one at the quarter).
 */
#define KICK_EVENTS	((1 << 20) / 4 / 56)	/* a quarter of the ring */

struct blocked_reader {
	trace_id_t trid;
	trace_event_id_t id;
	atomic_ullong last;
	atomic_int stop, err, reads;
};

static void *read_blocking(void *arg)
{
	struct blocked_reader *br = arg;
	struct posix_trace_event_info info;
	uint64_t v;
	size_t len;
	int unavailable;

	while (!atomic_load(&br->stop)) {
		int err = posix_trace_getnext_event(br->trid, &info, &v,
						    sizeof(v), &len,
						    &unavailable);

		if (err) {
			atomic_store(&br->err, err);
			break;
		}
		atomic_fetch_add(&br->reads, 1);
		if (info.posix_event_id == br->id && len == sizeof(v))
			atomic_store(&br->last, v + 1);
		if (info.posix_event_id == POSIX_TRACE_STOP)
			break;
	}
	return NULL;
}

static atomic_int burst_go, burst_done, burst_exit;

static void *emit_burst(void *arg)
{
	trace_event_id_t id = *(trace_event_id_t *)arg;
	uint64_t i;

	for (i = 0; i < DROP_EVENTS; i++)
		posix_trace_event(id, &i, sizeof(i));
	atomic_store(&burst_done, 1);
	while (!atomic_load(&burst_go))
		usleep(1000);
	for (; i < DROP_EVENTS + 2 * KICK_EVENTS; i++)
		posix_trace_event(id, &i, sizeof(i));
	atomic_store(&burst_done, 2);
	/* Alive: an exit would drain the ring. */
	while (!atomic_load(&burst_exit))
		usleep(1000);
	return NULL;
}

/* Wait until the reader's reads stop for 300 ms (it blocked); its reads. */
static int reader_settled(struct blocked_reader *br)
{
	int reads = -1, still = 0;

	for (int ms = 0; ms < 5000 && still < 300; ms += 10) {
		int now = atomic_load(&br->reads);

		still = now == reads ? still + 10 : 0;
		reads = now;
		usleep(10000);
	}
	return reads;
}

TEST(a_blocked_reader_gets_the_newest_events_without_the_timer)
{
	struct blocked_reader br = { 0 };
	unsigned long long settled;
	pthread_t rd, wr;
	trace_attr_t attr;
	int drain_ms, ms;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, setenv("POSIXTRACE_RING_SIZE", "1048576", 1));
	ASSERT_TRUE(param_read(DRAIN_MS_PARAM, &drain_ms));
	ASSERT_TRUE(param_write(DRAIN_MS_PARAM, 10000));
	usleep(300000);
	ASSERT_EQ(0, posix_trace_eventid_open("ring.blocked", &br.id));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 256 << 10));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &br.trid));
	ASSERT_EQ(0, posix_trace_start(br.trid));
	ASSERT_EQ(0, pthread_create(&rd, NULL, read_blocking, &br));
	usleep(100000);
	ASSERT_EQ(0, pthread_create(&wr, NULL, emit_burst, &br.id));
	ASSERT_TRUE(WAIT_UNTIL(atomic_load(&burst_done), 30000));
	reader_settled(&br);
	settled = atomic_load(&br.last);
	atomic_store(&burst_go, 1);
	ASSERT_TRUE(WAIT_UNTIL(atomic_load(&burst_done) == 2, 30000));
	for (ms = 0; ms < 3000 && atomic_load(&br.last) <= DROP_EVENTS;
	     ms += 10)
		usleep(10000);
	TH_LOG("the reader had the event %llu of %d after the burst, %llu of %d %d ms after the second (%d reads, error %d)",
	       settled, DROP_EVENTS, (unsigned long long)atomic_load(&br.last),
	       DROP_EVENTS + 2 * KICK_EVENTS, ms, atomic_load(&br.reads),
	       atomic_load(&br.err));
	atomic_store(&br.stop, 1);
	atomic_store(&burst_exit, 1);
	ASSERT_EQ(0, posix_trace_stop(br.trid));
	ASSERT_EQ(0, pthread_join(wr, NULL));
	ASSERT_EQ(0, pthread_join(rd, NULL));
	EXPECT_TRUE(param_write(DRAIN_MS_PARAM, drain_ms));
	ASSERT_GT(3000, ms);
	ASSERT_EQ(0, posix_trace_shutdown(br.trid));
	posix_trace_attr_destroy(&attr);
}

/*
 * A reader blocks on an empty stream; then a thread that has its ring
 * writes one event, far from any kick of its own. The reader's wait told
 * the thread, after a millisecond (the enable page's wake): it kicks at
 * that record, and the reader gets it at once, not at the timer (10 s
 * here).
 */
static void *emit_one_event_late(void *arg)
{
	trace_event_id_t id = *(trace_event_id_t *)arg;
	uint64_t v = 0;

	/* The ring is mapped before the reader first waits. */
	posix_trace_event(id, &v, sizeof(v));
	atomic_store(&burst_done, 1);
	while (!atomic_load(&burst_go))
		usleep(1000);
	v = 1;
	posix_trace_event(id, &v, sizeof(v));
	/* Alive: an exit would drain the ring. */
	while (!atomic_load(&burst_exit))
		usleep(1000);
	return NULL;
}

TEST(a_waiting_reader_gets_a_quiet_threads_event_without_the_timer)
{
	struct blocked_reader br = { 0 };
	unsigned long long first;
	pthread_t rd, wr;
	int drain_ms, ms;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("ring.quiet", &br.id));
	ASSERT_TRUE(param_read(DRAIN_MS_PARAM, &drain_ms));
	ASSERT_TRUE(param_write(DRAIN_MS_PARAM, 10000));
	usleep(300000);
	ASSERT_EQ(0, running_stream(&br.trid, POSIX_TRACE_CLOSE_FOR_CHILD));
	ASSERT_EQ(0, pthread_create(&wr, NULL, emit_one_event_late, &br.id));
	ASSERT_TRUE(WAIT_UNTIL(atomic_load(&burst_done), 30000));
	ASSERT_EQ(0, pthread_create(&rd, NULL, read_blocking, &br));
	/* The first event: read (a read drains), then the reader blocks. */
	for (ms = 0; ms < 5000 && atomic_load(&br.last) < 1; ms += 10)
		usleep(10000);
	first = atomic_load(&br.last);
	reader_settled(&br);
	atomic_store(&burst_go, 1);
	for (ms = 0; ms < 5000 && atomic_load(&br.last) < 2; ms += 10)
		usleep(10000);
	TH_LOG("the reader had the quiet thread's event after %d ms", ms);
	atomic_store(&br.stop, 1);
	atomic_store(&burst_exit, 1);
	/* The timer as it was before anything can fail. */
	EXPECT_TRUE(param_write(DRAIN_MS_PARAM, drain_ms));
	ASSERT_EQ(0, posix_trace_stop(br.trid));
	ASSERT_EQ(0, pthread_join(wr, NULL));
	ASSERT_EQ(0, pthread_join(rd, NULL));
	ASSERT_EQ(1, first);
	ASSERT_EQ(0, atomic_load(&br.err));
	ASSERT_GT(5000, ms);
	ASSERT_EQ(0, posix_trace_shutdown(br.trid));
}

TEST_HARNESS_MAIN
