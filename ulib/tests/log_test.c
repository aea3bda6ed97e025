// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host test of the trace log reader (TRL) and the library-side checks of
 * posix_trace_create_withlog(): no module needed. Logs come from the
 * synthesizer (log_synth.c); a small model below says what the reader
 * must report for each of them, and for every prefix of them (a log cut
 * short), through the public API only.
 *
 *	log_test			run every test
 *	log_test --corpus DIR		write the fuzz seed corpus into DIR
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <posixtrace-k.h>
#include <trace.h>

#include "log_synth.h"

static const char *test_name = "";
static unsigned long checks;

#define CHECK(cond) do {						\
	checks++;							\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s: %s:%d: %s\n", test_name,	\
			__FILE__, __LINE__, #cond);			\
		exit(1);						\
	}								\
} while (0)

#define CHECK_ERR(expr, want) do {					\
	int got_ = (expr);						\
	checks++;							\
	if (got_ != (want)) {						\
		fprintf(stderr, "FAIL %s: %s:%d: %s = %d (%s), want %d\n", \
			test_name, __FILE__, __LINE__, #expr, got_,	\
			strerror(got_), (want));			\
		exit(1);						\
	}								\
} while (0)

#define SET_WORDS	POSIXTRACE_EVENTSET_WORDS
#define SET_SIZE	(8 * SET_WORDS)

/* A memfd holding the first len bytes of buf. */
static int log_fd(const unsigned char *buf, size_t len)
{
	int fd = memfd_create("log_test", MFD_CLOEXEC);
	size_t done = 0;
	ssize_t n;

	CHECK(fd >= 0);
	while (done < len) {
		n = write(fd, buf + done, len - done);
		CHECK(n > 0);
		done += (size_t)n;
	}
	return fd;
}

/* Opens the first len bytes of the log; our descriptor is closed at once. */
static int open_prefix(const struct synth *s, size_t len, trace_id_t *trid)
{
	int fd = log_fd(s->buf, len), err;

	err = posix_trace_open(fd, trid);
	close(fd);
	return err;
}

/* ---- The model: what the reader must report for a prefix. ---- */

struct expect {
	int events[SYNTH_EVENTS_MAX];	/* reported, in order */
	int nevents;
	int chrono[SYNTH_EVENTS_MAX];	/* every visible one, oldest first */
	int nchrono;
	bool has_types, has_end;
};

static uint64_t le64_at(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Appends block b's events that are whole within len. */
static void expect_block(const struct synth *s, int b, size_t len,
			 int *list, int *n)
{
	int i;

	for (i = 0; i < s->nevents; i++)
		if (s->events[i].block == b && s->events[i].end <= len)
			list[(*n)++] = i;
}

/* TYPES and END among the blocks from index from, walked as a reader. */
static void expect_tail(const struct synth *s, int from, size_t len,
			struct expect *x, int *clear_at)
{
	const struct synth_block *b;
	int i;

	for (i = from; i < s->nblocks; i++) {
		b = &s->blocks[i];
		if (s->layout == POSIXTRACE_LOG_SLOTS &&
		    b->type == POSIXTRACE_LOG_BLOCK_EVENTS)
			continue;
		if (b->pos + 16 > len)
			return;
		if (b->type == POSIXTRACE_LOG_BLOCK_EVENTS) {
			if (b->pos + 40 > len)
				return;
			expect_block(s, i, len, x->chrono, &x->nchrono);
		} else if (b->type == POSIXTRACE_LOG_BLOCK_CLEAR) {
			*clear_at = x->nchrono;
		} else if (b->type == POSIXTRACE_LOG_BLOCK_TYPES) {
			x->has_types |= b->pos + b->size <= len;
		} else if (b->type == POSIXTRACE_LOG_BLOCK_END) {
			x->has_end = b->pos + b->size <= len;
			return;
		}
		if (b->pos + b->size > len)
			return;
	}
}

static const struct synth *slot_synth;	/* qsort has no context */

static int slot_cmp(const void *a, const void *b)
{
	const struct synth_block *x = &slot_synth->blocks[*(const int *)a];
	const struct synth_block *y = &slot_synth->blocks[*(const int *)b];

	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	if (x->block_seq != y->block_seq)
		return x->block_seq < y->block_seq ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void expect_for(const struct synth *s, size_t len, struct expect *x)
{
	int clear_at = 0, i, slots[SYNTH_BLOCKS_MAX], nslots = 0;
	uint32_t top = 0;

	memset(x, 0, sizeof(*x));
	if (s->layout == POSIXTRACE_LOG_SEQUENTIAL) {
		expect_tail(s, 0, len, x, &clear_at);
		for (i = clear_at; i < x->nchrono; i++)
			x->events[x->nevents++] = x->chrono[i];
		return;
	}
	for (i = 0; i < s->nblocks; i++) {
		const struct synth_block *b = &s->blocks[i];

		if (b->type == POSIXTRACE_LOG_BLOCK_EVENTS && !b->dead &&
		    b->pos + 40 <= len)
			slots[nslots++] = i;
	}
	slot_synth = s;
	qsort(slots, (size_t)nslots, sizeof(slots[0]), slot_cmp);
	if (nslots)
		top = s->blocks[slots[nslots - 1]].epoch;
	for (i = 0; i < nslots; i++) {
		if (s->blocks[slots[i]].epoch == top)
			expect_block(s, slots[i], len, x->events, &x->nevents);
		expect_block(s, slots[i], len, x->chrono, &x->nchrono);
	}
	if (len > s->region_end)
		expect_tail(s, 0, len, x, &clear_at);
}

/* Without END: the last START/FILTER's filter, the last STOP's auto. */
static void expect_learned(const struct synth *s, const struct expect *x,
			   uint64_t *filter, int *full, int *log_full)
{
	const struct synth_event *e;
	bool stopped = false;
	uint32_t auto_stop = 0;
	int i, w;

	memset(filter, 0, SET_SIZE);
	for (i = 0; i < x->nchrono; i++) {
		e = &s->events[x->chrono[i]];
		if (e->id == POSIXTRACE_EVENT_START) {
			stopped = false;
			for (w = 0; w < SET_WORDS; w++)
				filter[w] = le64_at(s->buf + e->data_pos + 8 * w);
		} else if (e->id == POSIXTRACE_EVENT_FILTER) {
			for (w = 0; w < SET_WORDS; w++)
				filter[w] = le64_at(s->buf + e->data_pos +
						    SET_SIZE + 8 * w);
		} else if (e->id == POSIXTRACE_EVENT_STOP) {
			stopped = true;
			auto_stop = le32_at(s->buf + e->data_pos);
		}
	}
	*full = stopped && auto_stop == 1 ? POSIX_TRACE_FULL
					   : POSIX_TRACE_NOT_FULL;
	*log_full = stopped && auto_stop == 2 ? POSIX_TRACE_FULL
					       : POSIX_TRACE_NOT_FULL;
}

static const char *expected_name(const struct synth *s, uint32_t id)
{
	const char *sys = synth_system_name(id);

	if (sys)
		return sys;
	return id < POSIXTRACE_EVENT_ID_MAX && s->named[id] ? s->names[id]
							    : NULL;
}

/* ---- Checking a log against the model. ---- */

static unsigned char data_buf[256 * 1024];

static void check_event(const struct synth *s, int idx,
			const struct posix_trace_event_info *ev,
			size_t data_len, size_t num_bytes)
{
	const struct synth_event *e = &s->events[idx];
	size_t want = e->data_len < num_bytes ? e->data_len : num_bytes;

	CHECK(ev->posix_event_id == (trace_event_id_t)e->id);
	CHECK(ev->posix_pid == e->pid);
	CHECK((uintptr_t)ev->posix_prog_address == (uintptr_t)e->prog);
	CHECK((uintptr_t)ev->posix_thread_id == (uintptr_t)e->thread);
	CHECK(ev->posix_timestamp.tv_sec == e->ts_sec);
	CHECK(ev->posix_timestamp.tv_nsec == (long)e->ts_nsec);
	CHECK(data_len == want);
	CHECK(!memcmp(data_buf, s->buf + e->data_pos, want));
	if (num_bytes < e->data_len)
		CHECK(ev->posix_truncation_status ==
		      POSIX_TRACE_TRUNCATED_READ);
	else
		CHECK(ev->posix_truncation_status == (int)e->truncation);
}

/* Reads every event, checks them against x; returns how many. */
static int read_all(const struct synth *s, trace_id_t trid,
		    const struct expect *x, size_t num_bytes)
{
	struct posix_trace_event_info ev;
	size_t data_len;
	uint64_t seq;
	int n = 0, unavailable;

	for (;;) {
		CHECK_ERR(posix_trace_getnext_event(trid, &ev, data_buf,
						    num_bytes, &data_len,
						    &unavailable), 0);
		if (unavailable)
			break;
		CHECK(n < x->nevents);
		check_event(s, x->events[n], &ev, data_len, num_bytes);
		CHECK_ERR(posixtrace_k_event_seq(trid, &seq), 0);
		CHECK(seq == s->events[x->events[n]].seq);
		n++;
	}
	CHECK(n == x->nevents);
	CHECK(data_len == 0);
	/* The end stays the end. */
	CHECK_ERR(posix_trace_getnext_event(trid, &ev, data_buf, num_bytes,
					    &data_len, &unavailable), 0);
	CHECK(unavailable);
	return n;
}

static void check_attr(trace_id_t trid)
{
	trace_attr_t attr;
	struct timespec ts;
	char name[TRACE_NAME_MAX + 1];
	unsigned int classes;
	size_t size;
	int policy;

	CHECK_ERR(posix_trace_get_attr(trid, &attr), 0);
	CHECK_ERR(posix_trace_attr_getname(&attr, name), 0);
	CHECK(!strcmp(name, SYNTH_NAME));
	CHECK_ERR(posix_trace_attr_getstreamsize(&attr, &size), 0);
	CHECK(size == SYNTH_STREAM_SIZE);
	CHECK_ERR(posix_trace_attr_getmaxdatasize(&attr, &size), 0);
	CHECK(size == SYNTH_MAX_DATA_SIZE);
	CHECK_ERR(posix_trace_attr_getlogsize(&attr, &size), 0);
	CHECK(size == SYNTH_LOG_SIZE);
	CHECK_ERR(posix_trace_attr_getstreamfullpolicy(&attr, &policy), 0);
	CHECK(policy == POSIX_TRACE_FLUSH);
	CHECK_ERR(posix_trace_attr_getinherited(&attr, &policy), 0);
	CHECK(policy == POSIX_TRACE_CLOSE_FOR_CHILD);
	CHECK_ERR(posix_trace_attr_getcreatetime(&attr, &ts), 0);
	CHECK(ts.tv_sec == SYNTH_CREATE_SEC && ts.tv_nsec == SYNTH_CREATE_NSEC);
	CHECK_ERR(posix_trace_attr_getclockres(&attr, &ts), 0);
	CHECK(ts.tv_sec == 0 && ts.tv_nsec == SYNTH_CLOCK_RES);
	CHECK_ERR(posixtrace_k_attr_getkernelevents(&attr, &classes), 0);
	CHECK(classes == SYNTH_KERNEL_EVENTS);
	/* The setter's rule, on the host: unknown classes are refused. */
	CHECK_ERR(posixtrace_k_attr_setkernelevents(&attr,
						    POSIXTRACE_K_KERNEL_ALL + 1),
		  EINVAL);
	CHECK_ERR(posixtrace_k_attr_getkernelevents(&attr, NULL), EINVAL);
	CHECK_ERR(posix_trace_attr_destroy(&attr), 0);
	CHECK_ERR(posixtrace_k_attr_setkernelevents(&attr,
						    POSIXTRACE_K_KERNEL_PROC),
		  EINVAL);
}

static void check_status(const struct synth *s, trace_id_t trid,
			 const struct expect *x)
{
	struct posix_trace_status_info st, again;
	trace_event_set_t set;
	uint64_t filter[SET_WORDS];
	int full, log_full;

	expect_learned(s, x, filter, &full, &log_full);
	CHECK_ERR(posix_trace_get_status(trid, &st), 0);
	CHECK(st.posix_stream_status == POSIX_TRACE_SUSPENDED);
	CHECK(st.posix_stream_flush_status == POSIX_TRACE_NOT_FLUSHING);
	CHECK_ERR(posix_trace_get_filter(trid, &set), 0);
	if (x->has_end) {
		CHECK(st.posix_stream_full_status == (int)s->end_full);
		CHECK(st.posix_stream_overrun_status == (int)s->end_overrun);
		CHECK(st.posix_stream_flush_error == s->end_flush_error);
		CHECK(st.posix_log_overrun_status == (int)s->end_log_overrun);
		CHECK(st.posix_log_full_status == (int)s->end_log_full);
		CHECK(!memcmp(set.__bits, s->end_filter, SET_SIZE));
	} else {
		CHECK(st.posix_stream_full_status == full);
		CHECK(st.posix_stream_overrun_status == POSIX_TRACE_NO_OVERRUN);
		CHECK(st.posix_stream_flush_error == 0);
		CHECK(st.posix_log_overrun_status == POSIX_TRACE_NO_OVERRUN);
		CHECK(st.posix_log_full_status == log_full);
		CHECK(!memcmp(set.__bits, filter, SET_SIZE));
	}
	/* A pre-recorded stream's status is never reset by reading it. */
	CHECK_ERR(posix_trace_get_status(trid, &again), 0);
	CHECK(!memcmp(&st, &again, sizeof(st)));
}

/* Every reported event has its name; the system types have POSIX's. */
static void check_names(const struct synth *s, trace_id_t trid,
			const struct expect *x)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	int i, unavailable, n = 0;
	uint32_t prev = 0;

	for (i = 0; i < x->nevents; i++) {
		const struct synth_event *e = &s->events[x->events[i]];

		CHECK_ERR(posix_trace_eventid_get_name(trid,
			(trace_event_id_t)e->id, name), 0);
		CHECK(!strcmp(name, expected_name(s, e->id)));
	}
	CHECK_ERR(posix_trace_eventid_get_name(trid, POSIX_TRACE_STOP, name), 0);
	CHECK(!strcmp(name, "posix_trace_stop"));
	CHECK_ERR(posix_trace_eventid_get_name(trid,
		POSIX_TRACE_UNNAMED_USEREVENT, name), 0);
	CHECK(!strcmp(name, "posix_trace_unnamed_userevent"));
	CHECK_ERR(posix_trace_eventid_get_name(trid, 1000, name), EINVAL);
	CHECK_ERR(posix_trace_eventid_get_name(trid, -1, name), EINVAL);
	CHECK_ERR(posix_trace_eventid_get_name(trid, 5000, name), EINVAL);
	CHECK_ERR(posix_trace_eventid_get_name(trid, 30, name), EINVAL);

	/* The type list: ascending, each one named, the system ones in. */
	CHECK_ERR(posix_trace_eventtypelist_rewind(trid), 0);
	for (;;) {
		CHECK_ERR(posix_trace_eventtypelist_getnext_id(trid, &id,
							       &unavailable), 0);
		if (unavailable)
			break;
		CHECK(!n || (uint32_t)id > prev);
		prev = (uint32_t)id;
		CHECK_ERR(posix_trace_eventid_get_name(trid, id, name), 0);
		if (x->has_types)
			CHECK(!strcmp(name, expected_name(s, (uint32_t)id)));
		n++;
	}
	CHECK(n >= 9);
	if (x->has_types) {
		int want = 9;

		for (i = POSIXTRACE_EVENT_USER_BASE;
		     i < POSIXTRACE_EVENT_ID_MAX; i++)
			want += s->named[i];
		CHECK(n == want);
	}
	CHECK_ERR(posix_trace_eventtypelist_getnext_id(trid, &id,
						       &unavailable), 0);
	CHECK(unavailable);
}

/* Everything the reader says about the first len bytes of the log. */
static void check_log(const struct synth *s, size_t len)
{
	struct expect x;
	trace_id_t trid;
	uint64_t seq;

	expect_for(s, len, &x);
	CHECK_ERR(open_prefix(s, len, &trid), 0);
	CHECK_ERR(posixtrace_k_event_seq(trid, &seq), EINVAL);
	read_all(s, trid, &x, sizeof(data_buf));
	check_status(s, trid, &x);
	check_names(s, trid, &x);
	check_attr(trid);
	/* Again from the start, with a small buffer this time. */
	CHECK_ERR(posix_trace_rewind(trid), 0);
	CHECK_ERR(posixtrace_k_event_seq(trid, &seq), EINVAL);
	read_all(s, trid, &x, 3);
	CHECK_ERR(posix_trace_rewind(trid), 0);
	read_all(s, trid, &x, 0);
	CHECK_ERR(posix_trace_close(trid), 0);
}

/* Every prefix: EINVAL before the header is whole, the model's after. */
static void check_every_prefix(const struct synth *s)
{
	trace_id_t trid;
	size_t len;

	for (len = 0; len < s->header_size; len++)
		CHECK_ERR(open_prefix(s, len, &trid), EINVAL);
	for (; len <= s->len; len++)
		check_log(s, len);
}

/* ---- The logs. ---- */

static void filter_of(uint64_t *set, const uint32_t *ids, int n)
{
	int i;

	memset(set, 0, SET_SIZE);
	for (i = 0; i < n; i++)
		set[ids[i] / 64] |= UINT64_C(1) << (ids[i] % 64);
}

/*
 * Sequential: three EVENTS blocks, each defining its types, with a seq
 * gap, a START and a FILTER, a truncated record, a block of an unknown
 * type, then TYPES and END. With clear, a CLEAR block after the first.
 */
static void build_sequential(struct synth *s, bool clear, bool tail)
{
	static const char hello[] = "hello";
	unsigned char big[100];
	uint64_t none[SET_WORDS], beta[SET_WORDS];
	uint32_t beta_id = 66;
	int i;

	for (i = 0; i < (int)sizeof(big); i++)
		big[i] = (unsigned char)(i * 7);
	filter_of(none, NULL, 0);
	filter_of(beta, &beta_id, 1);
	synth_init(s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);

	synth_events_begin(s, 0, 0);
	synth_start(s, 1, none);
	synth_define(s, 65, "alpha");
	synth_event(s, 65, 2, hello, sizeof(hello), POSIX_TRACE_NOT_TRUNCATED);
	synth_define(s, 66, "beta");
	synth_event(s, 66, 3, big, sizeof(big), POSIX_TRACE_NOT_TRUNCATED);
	synth_event(s, POSIXTRACE_EVENT_UNNAMED_USER, 4, NULL, 0,
		    POSIX_TRACE_NOT_TRUNCATED);
	synth_event(s, 65, 5, big, 40, POSIX_TRACE_TRUNCATED_RECORD);
	synth_events_end(s);
	if (clear)
		synth_clear(s);

	synth_events_begin(s, 1, clear);
	synth_define(s, 65, "alpha");
	synth_event(s, 65, 6, hello, 3, POSIX_TRACE_NOT_TRUNCATED);
	synth_filter(s, 7, none, beta);
	/* seq 8 was lost. */
	synth_event(s, 65, 9, big, 17, POSIX_TRACE_NOT_TRUNCATED);
	synth_events_end(s);

	synth_unknown_block(s, 99, 32);

	synth_events_begin(s, 2, clear);
	synth_define(s, 67, "gamma");
	synth_event(s, 67, 10, big, 8, POSIX_TRACE_NOT_TRUNCATED);
	synth_stop(s, 11, 1);
	synth_events_end(s);
	if (tail) {
		synth_types(s);
		synth_end(s, POSIX_TRACE_FULL, POSIX_TRACE_OVERRUN, ENOSPC,
			  POSIX_TRACE_OVERRUN, POSIX_TRACE_NOT_FULL, beta);
	}
}

/* One small EVENTS slot: a DEFINE, then n events of user type id. */
static void fill_slot(struct synth *s, uint32_t slot, uint64_t block_seq,
		      uint32_t epoch, uint32_t id, uint64_t seq, int n)
{
	char name[16];
	unsigned char d[8];
	int i;

	snprintf(name, sizeof(name), "type%u", id);
	synth_slot_begin(s, slot, block_seq, epoch);
	synth_define(s, id, name);
	for (i = 0; i < n; i++) {
		memset(d, (int)(seq + i), sizeof(d));
		synth_event(s, id, seq + (uint64_t)i, d, (uint32_t)(i % 9),
			    POSIX_TRACE_NOT_TRUNCATED);
	}
	synth_events_end(s);
}

#define SLOT_SIZE	512

/*
 * Slot layout, four slots, written six times: the two oldest slots were
 * overwritten (the log came round). The last one is half full.
 */
static void build_slots_wrap(struct synth *s, bool tail)
{
	uint64_t none[SET_WORDS];

	filter_of(none, NULL, 0);
	synth_init(s, POSIXTRACE_LOG_SLOTS, SLOT_SIZE, 4, 0);
	fill_slot(s, 0, 0, 0, 70, 0, 3);
	fill_slot(s, 1, 1, 0, 71, 3, 3);
	fill_slot(s, 2, 2, 0, 72, 6, 3);
	fill_slot(s, 3, 3, 0, 73, 9, 3);
	fill_slot(s, 0, 4, 0, 74, 12, 3);
	synth_slot_begin(s, 1, 5, 0);
	synth_define(s, 75, "type75");
	synth_event(s, 75, 20, "x", 1, POSIX_TRACE_NOT_TRUNCATED);
	synth_stop(s, 21, 2);
	synth_events_end(s);
	if (tail) {
		synth_types(s);
		synth_end(s, POSIX_TRACE_NOT_FULL, POSIX_TRACE_NO_OVERRUN, 0,
			  POSIX_TRACE_OVERRUN, POSIX_TRACE_FULL, none);
	}
}

/*
 * Slot layout across a posix_trace_clear(): epoch 0 filled every slot,
 * epoch 1 rewrote the first two. Only epoch 1 is reported; epoch 0's
 * entries still tell names and the filter.
 */
static void build_slots_epochs(struct synth *s, bool tail)
{
	uint64_t none[SET_WORDS], f[SET_WORDS];
	uint32_t id = 71;

	filter_of(none, NULL, 0);
	filter_of(f, &id, 1);
	synth_init(s, POSIXTRACE_LOG_SLOTS, SLOT_SIZE, 4, 0);
	fill_slot(s, 0, 0, 0, 70, 0, 2);
	fill_slot(s, 1, 1, 0, 71, 2, 2);
	fill_slot(s, 2, 2, 0, 72, 4, 2);
	synth_slot_begin(s, 3, 3, 0);
	synth_start(s, 6, f);
	synth_events_end(s);
	fill_slot(s, 0, 4, 1, 73, 7, 3);
	fill_slot(s, 1, 5, 1, 74, 10, 2);
	if (tail) {
		synth_types(s);
		synth_end(s, POSIX_TRACE_NOT_FULL, POSIX_TRACE_NO_OVERRUN, 0,
			  POSIX_TRACE_NO_OVERRUN, POSIX_TRACE_NOT_FULL, f);
	}
}

/* ---- Tests. ---- */

static void test_sequential(void)
{
	struct synth s;
	struct expect x, prev = { .nevents = 0 };
	size_t len;
	int i;

	test_name = "sequential";
	build_sequential(&s, false, true);
	check_log(&s, s.len);
	expect_for(&s, s.len, &x);
	CHECK(x.nevents == s.nevents && x.has_end && x.has_types);
	/* Without CLEAR, every prefix reports a prefix of the events. */
	for (len = s.header_size; len <= s.len; len++) {
		expect_for(&s, len, &x);
		CHECK(x.nevents >= prev.nevents);
		for (i = 0; i < x.nevents; i++)
			CHECK(x.events[i] == i);
		prev = x;
	}
	check_every_prefix(&s);
	synth_free(&s);
}

static void test_sequential_clear(void)
{
	struct synth s;
	struct expect x;

	test_name = "sequential clear";
	build_sequential(&s, true, true);
	expect_for(&s, s.len, &x);
	CHECK(x.nevents == s.nevents - 5);	/* block 0 was cleared */
	check_every_prefix(&s);
	synth_free(&s);
}

static void test_slots(void)
{
	struct synth s;
	struct expect x;

	test_name = "slots wrapped";
	build_slots_wrap(&s, true);
	expect_for(&s, s.len, &x);
	CHECK(x.nevents == 3 + 3 + 3 + 2);
	CHECK(s.events[x.events[0]].seq == 6);
	check_every_prefix(&s);
	synth_free(&s);

	test_name = "slots two epochs";
	build_slots_epochs(&s, true);
	expect_for(&s, s.len, &x);
	CHECK(x.nevents == 5);
	CHECK(s.events[x.events[0]].seq == 7);
	check_every_prefix(&s);
	synth_free(&s);

	/* Slots past the end of the file were never written. */
	test_name = "slots unwritten";
	synth_init(&s, POSIXTRACE_LOG_SLOTS, SLOT_SIZE, 8, 0);
	fill_slot(&s, 0, 0, 0, 80, 0, 4);
	fill_slot(&s, 1, 1, 0, 81, 4, 4);
	check_log(&s, s.header_size + 2 * SLOT_SIZE);
	check_log(&s, s.header_size + 2 * SLOT_SIZE + 100);
	check_log(&s, s.len);
	synth_free(&s);
}

/* A later minor: a longer header, and a block type we do not know. */
static void test_minor(void)
{
	struct synth s;

	test_name = "later minor";
	synth_init(&s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 16);
	s.buf[10] = 9;	/* version_minor, a __le16 */
	synth_unknown_block(&s, 1000, 64);
	synth_events_begin(&s, 0, 0);
	synth_define(&s, 65, "alpha");
	synth_event(&s, 65, 0, "abc", 3, POSIX_TRACE_NOT_TRUNCATED);
	synth_events_end(&s);
	check_every_prefix(&s);
	synth_free(&s);
}

/* The format trid gives type id: "" for ENOENT, "!" for another error. */
static const char *format_of(trace_id_t trid, uint32_t id, char *buf,
			     size_t size)
{
	int err = posixtrace_k_eventid_get_format(trid, id, buf, size);

	if (err == ENOENT)
		return "";
	return err ? "!" : buf;
}

/*
 * A log of types with formats (minor 1), good and damaged, and events
 * of them; returns where its TYPES block starts.
 */
static size_t build_formats(struct synth *s)
{
	size_t types_pos;

	synth_init(s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	synth_events_begin(s, 0, 0);
	/* A type named before its program gave it a format. */
	synth_define(s, 65, "late");
	synth_define_format(s, 66, "job", "pid:s32,name:str");
	synth_define_format(s, 67, "bad", "1x:u8");
	synth_define_format(s, 68, "long", "a:u8,b:bytes");
	synth_event(s, 66, 0, "abcdefgh", 8, POSIX_TRACE_NOT_TRUNCATED);
	synth_event(s, 68, 1, "abc", 3, POSIX_TRACE_NOT_TRUNCATED);
	synth_events_end(s);
	synth_events_begin(s, 1, 0);
	synth_define_format(s, 65, "late", "n:u64");
	/* A second format for a type: only damage makes one. */
	synth_define_format(s, 66, "job", "pid:u8");
	synth_define_format(s, 67, "bad", "x:u8");
	synth_event(s, 65, 2, "abcdefgh", 8, POSIX_TRACE_NOT_TRUNCATED);
	synth_event(s, 66, 3, "abc", 3, POSIX_TRACE_NOT_TRUNCATED);
	synth_events_end(s);
	types_pos = s->len;
	synth_types(s);
	synth_end(s, POSIXTRACE_NOT_FULL, POSIXTRACE_NO_OVERRUN, 0,
		  POSIXTRACE_NO_OVERRUN, POSIXTRACE_NOT_FULL,
		  (uint64_t[POSIXTRACE_EVENTSET_WORDS]){ 0 });
	return types_pos;
}

/*
 * Event formats (minor 1): read from TYPES, or from the DEFINE entries
 * of a log without it; the first well-formed one a type is given is
 * kept; one that is not well formed (or not terminated) is ignored, and
 * makes TYPES not good, so DEFINE entries are read too.
 */
static void test_formats(void)
{
	char buf[POSIXTRACE_FORMAT_MAX + 1];
	size_t types_pos, define_pos;
	struct synth s;
	trace_id_t trid;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		test_name = pass ? "formats from DEFINE" : "formats from TYPES";
		types_pos = build_formats(&s);
		CHECK_ERR(open_prefix(&s, pass ? types_pos : s.len, &trid), 0);
		CHECK(!strcmp(format_of(trid, 65, buf, sizeof(buf)), "n:u64"));
		CHECK(!strcmp(format_of(trid, 66, buf, sizeof(buf)),
			      "pid:s32,name:str"));
		/* TYPES has the first, damaged, one: DEFINE gives the good. */
		CHECK(!strcmp(format_of(trid, 67, buf, sizeof(buf)), "x:u8"));
		CHECK(!strcmp(format_of(trid, 68, buf, sizeof(buf)),
			      "a:u8,b:bytes"));
		CHECK(!strcmp(format_of(trid, POSIX_TRACE_START, buf,
					sizeof(buf)), ""));
		CHECK_ERR(posixtrace_k_eventid_get_format(trid, 66, buf, 16),
			  ERANGE);
		CHECK_ERR(posixtrace_k_eventid_get_format(trid, 69, buf,
							  sizeof(buf)), EINVAL);
		CHECK_ERR(posix_trace_close(trid), 0);
		synth_free(&s);
	}

	/* A format without its NUL, at the end of a DEFINE's data. */
	test_name = "format unterminated";
	synth_init(&s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	synth_events_begin(&s, 0, 0);
	define_pos = s.wpos;
	synth_define_format(&s, 65, "cut", "a:u8");
	synth_events_end(&s);
	/* data_len one less: the format's NUL is not in the data. */
	synth_put32(&s, define_pos + 48, 4 + 4 + 5 - 1);
	CHECK_ERR(open_prefix(&s, s.len, &trid), 0);
	CHECK(!strcmp(format_of(trid, 65, buf, sizeof(buf)), ""));
	CHECK_ERR(posix_trace_eventid_get_name(trid, 65, buf), 0);
	CHECK(!strcmp(buf, "cut"));
	CHECK_ERR(posix_trace_close(trid), 0);
	synth_free(&s);
}

/* Changes one field of a good log; the reader must refuse it at open. */
static void expect_refused(const char *what, size_t pos, int bits,
			   uint64_t value, bool slots)
{
	struct synth s;
	trace_id_t trid;

	test_name = what;
	if (slots)
		build_slots_wrap(&s, true);
	else
		build_sequential(&s, false, true);
	if (bits == 64)
		synth_put64(&s, pos, value);
	else if (bits == 32)
		synth_put32(&s, pos, (uint32_t)value);
	else
		s.buf[pos] = (unsigned char)value;
	CHECK_ERR(open_prefix(&s, s.len, &trid), EINVAL);
	synth_free(&s);
}

/* Reads a log to its end, checking only that it ends. */
static int count_events(trace_id_t trid)
{
	struct posix_trace_event_info ev;
	size_t data_len;
	int n = 0, unavailable;

	for (;;) {
		CHECK_ERR(posix_trace_getnext_event(trid, &ev, data_buf,
			  sizeof(data_buf), &data_len, &unavailable), 0);
		if (unavailable)
			return n;
		n++;
		CHECK(n < 100000);
	}
}

static void test_header_refused(void)
{
	struct synth s;
	trace_id_t trid;

	expect_refused("bad magic", 1, 8, 'Q', false);
	expect_refused("major 2", 8, 8, 2, false);
	expect_refused("header_size small", 12, 32, 216, false);
	expect_refused("header_size odd", 12, 32, 228, false);
	expect_refused("header_size past the file", 12, 32, 1u << 30, false);
	expect_refused("byte order", 16, 32, 0x04030201, false);
	expect_refused("layout 0", 20, 32, 0, false);
	expect_refused("layout 3", 20, 32, 3, false);
	expect_refused("record header small", 24, 32, 56, false);
	expect_refused("sequential with slots", 28, 32, 512, false);
	expect_refused("sequential with count", 32, 32, 1, false);
	expect_refused("slot size small", 28, 32, 32, true);
	expect_refused("slot size odd", 28, 32, SLOT_SIZE + 4, true);
	expect_refused("no slots", 32, 32, 0, true);

	test_name = "tiny files";
	synth_init(&s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	CHECK_ERR(open_prefix(&s, 0, &trid), EINVAL);
	CHECK_ERR(open_prefix(&s, 1, &trid), EINVAL);
	/* The header alone: a log with nothing in it. */
	check_log(&s, s.len);
	synth_free(&s);
}

/* Damage past the header: a shorter log, never an error or a crash. */
static void expect_shorter(const char *what, struct synth *s, int nevents)
{
	trace_id_t trid;
	char name[TRACE_EVENT_NAME_MAX + 1];
	struct posix_trace_status_info st;
	trace_event_set_t set;
	trace_event_id_t id;
	int unavailable, n = 0;

	test_name = what;
	CHECK_ERR(open_prefix(s, s->len, &trid), 0);
	CHECK(count_events(trid) == nevents);
	CHECK_ERR(posix_trace_get_status(trid, &st), 0);
	CHECK_ERR(posix_trace_get_filter(trid, &set), 0);
	do {
		CHECK_ERR(posix_trace_eventtypelist_getnext_id(trid, &id,
							       &unavailable), 0);
		if (!unavailable)
			CHECK_ERR(posix_trace_eventid_get_name(trid, id, name),
				  0);
		CHECK(++n < 2000);
	} while (!unavailable);
	CHECK_ERR(posix_trace_close(trid), 0);
}

static void test_damage(void)
{
	struct synth s;
	size_t b1;
	int i, b1_events = 0;
	const struct synth_block *blk;

	/* Block 1 of the sequential log: 3 events. */
	build_sequential(&s, false, true);
	blk = &s.blocks[1];
	b1 = blk->pos;
	for (i = 0; i < s.nevents; i++)
		b1_events += s.events[i].block == 1;
	CHECK(b1_events == 3);
	synth_put64(&s, b1 + 8, 8);
	expect_shorter("block size 8 ends the log", &s, 5);
	synth_free(&s);

	build_sequential(&s, false, true);
	synth_put64(&s, s.blocks[1].pos + 8, 12);
	expect_shorter("block size 12 ends the log", &s, 5);
	synth_free(&s);

	build_sequential(&s, false, true);
	synth_put64(&s, s.blocks[0].pos + 8, UINT64_C(1) << 63);
	/* Block 0 runs to the end of the file: its own 5 events. */
	expect_shorter("huge block size", &s, 5);
	synth_free(&s);

	build_sequential(&s, false, true);
	synth_put64(&s, s.blocks[0].pos + 24, UINT64_MAX);
	/* used past the block: the block's entries, then garbage ends it. */
	expect_shorter("huge used", &s, s.nevents);
	synth_free(&s);

	build_sequential(&s, false, true);
	synth_put32(&s, s.events[2].pos, 68);	/* size not a multiple of 8 */
	expect_shorter("record size odd", &s, s.nevents - 5 + 2);
	synth_free(&s);

	build_sequential(&s, false, true);
	synth_put32(&s, s.events[2].pos, 0);
	expect_shorter("record size 0", &s, s.nevents - 5 + 2);
	synth_free(&s);

	build_sequential(&s, false, true);
	synth_put32(&s, s.events[2].pos + 48, 1000);	/* data_len */
	expect_shorter("record data_len", &s, s.nevents - 5 + 2);
	synth_free(&s);

	build_sequential(&s, false, true);
	synth_put32(&s, s.events[2].pos + 52, 32);	/* header_size */
	expect_shorter("record header_size", &s, s.nevents - 5 + 2);
	synth_free(&s);

	build_sequential(&s, false, true);
	synth_put32(&s, s.events[2].pos, 0x7ffffff8);
	expect_shorter("record size huge", &s, s.nevents - 5 + 2);
	synth_free(&s);

	/* A broken TYPES: the DEFINE entries still name the types. */
	build_sequential(&s, false, true);
	for (i = 0; i < s.nblocks; i++)
		if (s.blocks[i].type == POSIXTRACE_LOG_BLOCK_TYPES)
			synth_put32(&s, s.blocks[i].pos + 24 + 16, 12);
	expect_shorter("broken TYPES", &s, s.nevents);
	{
		trace_id_t trid;
		char name[TRACE_EVENT_NAME_MAX + 1];

		CHECK_ERR(open_prefix(&s, s.len, &trid), 0);
		CHECK_ERR(posix_trace_eventid_get_name(trid, 67, name), 0);
		CHECK(!strcmp(name, "gamma"));
		CHECK_ERR(posix_trace_close(trid), 0);
	}
	synth_free(&s);

	/* TYPES names without NUL, an END too short to be one. */
	build_sequential(&s, false, true);
	for (i = 0; i < s.nblocks; i++) {
		blk = &s.blocks[i];
		if (blk->type == POSIXTRACE_LOG_BLOCK_TYPES)
			memset(s.buf + blk->pos + 24, 'z', blk->size - 24);
		if (blk->type == POSIXTRACE_LOG_BLOCK_END)
			synth_put64(&s, blk->pos + 8, 16);
	}
	expect_shorter("garbage TYPES, short END", &s, s.nevents);
	synth_free(&s);

	/* Slots: a huge count, a huge size, a slot of the wrong size. */
	build_slots_wrap(&s, true);
	synth_put32(&s, 32, UINT32_MAX);
	expect_shorter("slot count huge", &s, 11);
	synth_free(&s);

	build_slots_wrap(&s, true);
	synth_put32(&s, 28, 0x7ffffff8);
	expect_shorter("slot size huge", &s, 0);
	synth_free(&s);

	build_slots_wrap(&s, true);
	synth_put64(&s, s.header_size + 2 * SLOT_SIZE + 8, SLOT_SIZE - 8);
	expect_shorter("slot of the wrong size", &s, 11 - 3);
	synth_free(&s);

	build_slots_wrap(&s, true);
	synth_put64(&s, s.header_size + 2 * SLOT_SIZE + 24, SLOT_SIZE - 39);
	expect_shorter("slot used too big", &s, 11 - 3);
	synth_free(&s);
}

/* Data larger than the reader's window; small and zero buffers. */
static void test_big_data(void)
{
	static unsigned char big[200000];
	struct posix_trace_event_info ev;
	struct synth s;
	trace_id_t trid;
	size_t data_len, i;
	int unavailable;

	test_name = "big data";
	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 13 + 1);
	synth_init(&s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	synth_events_begin(&s, 0, 0);
	synth_define(&s, 65, "big");
	synth_event(&s, 65, 0, big, sizeof(big), POSIX_TRACE_NOT_TRUNCATED);
	synth_event(&s, 65, 1, big, 10, POSIX_TRACE_TRUNCATED_RECORD);
	synth_events_end(&s);
	check_log(&s, s.len);

	CHECK_ERR(open_prefix(&s, s.len, &trid), 0);
	CHECK_ERR(posix_trace_getnext_event(trid, &ev, NULL, 0, &data_len,
					    &unavailable), 0);
	CHECK(!unavailable && data_len == 0);
	CHECK(ev.posix_truncation_status == POSIX_TRACE_TRUNCATED_READ);
	CHECK_ERR(posix_trace_getnext_event(trid, &ev, data_buf, 10, &data_len,
					    &unavailable), 0);
	CHECK(!unavailable && data_len == 10);
	/* Enough room: the recorded status, not TRUNCATED_READ. */
	CHECK(ev.posix_truncation_status == POSIX_TRACE_TRUNCATED_RECORD);
	CHECK_ERR(posix_trace_close(trid), 0);
	synth_free(&s);
}

struct reader_arg {
	trace_id_t trid;
	uint64_t seen;		/* bit seq: reported by this thread */
	int n;
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	struct posix_trace_event_info ev;
	unsigned char buf[64];
	size_t len;
	int unavailable;

	for (;;) {
		if (posix_trace_getnext_event(a->trid, &ev, buf, sizeof(buf),
					      &len, &unavailable) ||
		    unavailable)
			return NULL;
		a->n++;
		a->seen |= UINT64_C(1) << (ev.posix_timestamp.tv_sec -
					   SYNTH_CREATE_SEC);
	}
}

/* Readers sharing a trid get every event once. */
static void test_threads(void)
{
	struct reader_arg args[4];
	pthread_t threads[4];
	struct synth s;
	trace_id_t trid;
	uint64_t all = 0;
	int i, n = 0;

	test_name = "threads";
	build_slots_wrap(&s, true);
	CHECK_ERR(open_prefix(&s, s.len, &trid), 0);
	for (i = 0; i < 4; i++) {
		args[i] = (struct reader_arg){ .trid = trid };
		CHECK_ERR(pthread_create(&threads[i], NULL, reader, &args[i]),
			  0);
	}
	for (i = 0; i < 4; i++) {
		CHECK_ERR(pthread_join(threads[i], NULL), 0);
		CHECK(!(all & args[i].seen));
		all |= args[i].seen;
		n += args[i].n;
	}
	CHECK(n == 11);
	CHECK_ERR(posix_trace_close(trid), 0);
	synth_free(&s);
}

/* What a log trid refuses, and what becomes of a closed one. */
static void test_trid_rules(void)
{
	struct posix_trace_event_info ev;
	struct timespec bad = { .tv_sec = 0, .tv_nsec = -5 };
	trace_event_set_t set;
	trace_event_id_t id;
	struct synth s;
	trace_id_t trid, trid2;
	size_t data_len;
	uint64_t seq;
	int unavailable, i;

	test_name = "trid rules";
	build_sequential(&s, false, true);
	CHECK_ERR(open_prefix(&s, s.len, &trid), 0);
	CHECK_ERR(open_prefix(&s, s.len, &trid2), 0);
	CHECK(trid != trid2);
	CHECK_ERR(posix_trace_start(trid), EINVAL);
	CHECK_ERR(posix_trace_stop(trid), EINVAL);
	CHECK_ERR(posix_trace_clear(trid), EINVAL);
	CHECK_ERR(posix_trace_flush(trid), EINVAL);
	CHECK_ERR(posix_trace_eventset_empty(&set), 0);
	CHECK_ERR(posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET),
		  EINVAL);
	CHECK_ERR(posix_trace_trid_eventid_open(trid, "x", &id), EINVAL);
	CHECK_ERR(posix_trace_trygetnext_event(trid, &ev, data_buf, 10,
					       &data_len, &unavailable),
		  EINVAL);
	CHECK_ERR(posix_trace_shutdown(trid), EINVAL);

	/* timedgetnext is getnext: abstime not looked at, no wait. */
	CHECK_ERR(posix_trace_timedgetnext_event(trid, &ev, data_buf, 10,
						 &data_len, &unavailable,
						 &bad), 0);
	CHECK(!unavailable && ev.posix_event_id == POSIX_TRACE_START);
	CHECK_ERR(posix_trace_timedgetnext_event(trid, &ev, data_buf, 10,
						 &data_len, &unavailable,
						 NULL), 0);
	CHECK(!unavailable && ev.posix_event_id == 65);
	CHECK_ERR(posixtrace_k_event_seq(trid, &seq), 0);
	CHECK(seq == 2);
	CHECK_ERR(posixtrace_k_event_seq(trid, NULL), EINVAL);
	/* Each trid reads on its own. */
	CHECK_ERR(posixtrace_k_event_seq(trid2, &seq), EINVAL);
	for (i = 0; i < s.nevents; i++)
		CHECK_ERR(posix_trace_timedgetnext_event(trid, &ev, data_buf,
			  10, &data_len, &unavailable, &bad), 0);
	CHECK(unavailable);

	CHECK_ERR(posix_trace_getnext_event(trid, NULL, data_buf, 10,
					    &data_len, &unavailable), EINVAL);
	CHECK_ERR(posix_trace_getnext_event(trid, &ev, NULL, 10, &data_len,
					    &unavailable), EINVAL);

	errno = 4321;
	CHECK_ERR(posix_trace_close(trid), 0);
	CHECK(errno == 4321);
	CHECK_ERR(posix_trace_close(trid), EINVAL);
	CHECK_ERR(posix_trace_rewind(trid), EINVAL);
	CHECK_ERR(posix_trace_getnext_event(trid, &ev, data_buf, 10,
					    &data_len, &unavailable), EINVAL);
	CHECK_ERR(posix_trace_eventtypelist_rewind(trid), EINVAL);
	CHECK_ERR(posix_trace_get_filter(trid, &set), EINVAL);
	CHECK_ERR(posixtrace_k_event_seq(trid, &seq), EINVAL);
	CHECK_ERR(posix_trace_close(trid2), 0);
	CHECK_ERR(posix_trace_close(0), EINVAL);
	CHECK_ERR(posix_trace_close(-1), EINVAL);
	CHECK_ERR(posix_trace_rewind(12345), EINVAL);

	/* Slots are reused: far more opens than the table has slots. */
	for (i = 0; i < 5000; i++) {
		CHECK_ERR(open_prefix(&s, s.header_size, &trid), 0);
		CHECK_ERR(posix_trace_close(trid), 0);
	}
	synth_free(&s);
}

/* posix_trace_open()'s descriptor rules. */
static void test_open_fds(void)
{
	char path[] = "/tmp/log_testXXXXXX";
	struct synth s;
	trace_id_t trid;
	int fd, wfd, p[2];

	test_name = "open fds";
	build_sequential(&s, false, true);
	CHECK_ERR(posix_trace_open(-1, &trid), EBADF);
	CHECK_ERR(posix_trace_open(1000000, &trid), EBADF);
	fd = log_fd(s.buf, s.len);
	CHECK_ERR(posix_trace_open(fd, NULL), EINVAL);
	/* The descriptor's offset is neither used nor moved. */
	CHECK(lseek(fd, 17, SEEK_SET) == 17);
	CHECK_ERR(posix_trace_open(fd, &trid), 0);
	CHECK(count_events(trid) == s.nevents);
	CHECK(lseek(fd, 0, SEEK_CUR) == 17);
	CHECK_ERR(posix_trace_close(trid), 0);
	/* The library keeps its own duplicate: ours is still open. */
	CHECK(fcntl(fd, F_GETFD) >= 0);
	close(fd);
	CHECK_ERR(posix_trace_open(fd, &trid), EBADF);

	fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, s.buf, s.len) == (ssize_t)s.len);
	wfd = open(path, O_WRONLY);
	CHECK(wfd >= 0);
	CHECK_ERR(posix_trace_open(wfd, &trid), EINVAL);
	close(wfd);
	wfd = open(path, O_PATH);
	CHECK(wfd >= 0);
	CHECK_ERR(posix_trace_open(wfd, &trid), EINVAL);
	close(wfd);
	CHECK_ERR(posix_trace_open(fd, &trid), 0);
	CHECK_ERR(posix_trace_close(trid), 0);
	close(fd);
	unlink(path);

	CHECK(pipe(p) == 0);
	CHECK(write(p[1], s.buf, 4096) == 4096);
	CHECK_ERR(posix_trace_open(p[0], &trid), EINVAL);
	close(p[0]);
	close(p[1]);
	fd = open("/tmp", O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	CHECK_ERR(posix_trace_open(fd, &trid), EINVAL);
	close(fd);
	synth_free(&s);
}

/* create_withlog's checks made before the module is asked. */
static void test_create_withlog(void)
{
	trace_attr_t attr, bad;
	trace_id_t trid;
	int fd, policy;

	test_name = "create_withlog";
	CHECK_ERR(posix_trace_attr_init(&attr), 0);
	CHECK_ERR(posix_trace_attr_getstreamfullpolicy(&attr, &policy), 0);
	CHECK(policy == POSIX_TRACE_LOOP);
	fd = memfd_create("log_test_out", MFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_ERR(posix_trace_create_withlog(0, &attr, fd, NULL), EINVAL);
	memset(&bad, 0, sizeof(bad));
	CHECK_ERR(posix_trace_create_withlog(0, &bad, fd, &trid), EINVAL);
	CHECK_ERR(posix_trace_create_withlog(0, &attr, -1, &trid), EBADF);
	CHECK_ERR(posix_trace_create_withlog(0, NULL, -1, &trid), EBADF);
	CHECK_ERR(posix_trace_create_withlog(0, &attr, 1000000, &trid), EBADF);
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	CHECK(fd >= 0);
	CHECK_ERR(posix_trace_create_withlog(0, &attr, fd, &trid), EBADF);
	close(fd);

	/* FLUSH without a log is invalid (POSIX). */
	CHECK_ERR(posix_trace_attr_setstreamfullpolicy(&attr,
						       POSIX_TRACE_FLUSH), 0);
	CHECK_ERR(posix_trace_create(0, &attr, &trid), EINVAL);
	CHECK_ERR(posix_trace_attr_destroy(&attr), 0);
}

/* ---- The fuzz seed corpus. ---- */

static void write_seed(const char *dir, const char *name,
		       const unsigned char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static int write_corpus(const char *dir)
{
	struct synth s;

	build_sequential(&s, false, true);
	write_seed(dir, "seq-full.ptl", s.buf, s.len);
	write_seed(dir, "seq-cut-types.ptl", s.buf, s.blocks[4].pos + 40);
	write_seed(dir, "seq-cut-event.ptl", s.buf, s.events[6].pos + 30);
	synth_put32(&s, s.events[2].pos, 0);
	write_seed(dir, "seq-bad-record.ptl", s.buf, s.len);
	synth_free(&s);

	build_sequential(&s, true, true);
	write_seed(dir, "seq-clear.ptl", s.buf, s.len);
	synth_free(&s);

	build_sequential(&s, false, false);
	write_seed(dir, "seq-no-end.ptl", s.buf, s.len);
	synth_free(&s);

	build_slots_wrap(&s, true);
	write_seed(dir, "slots-wrap.ptl", s.buf, s.len);
	write_seed(dir, "slots-cut.ptl", s.buf, s.header_size + 2 * SLOT_SIZE
		   + 100);
	synth_free(&s);

	build_slots_epochs(&s, true);
	write_seed(dir, "slots-epochs.ptl", s.buf, s.len);
	synth_free(&s);

	build_formats(&s);
	write_seed(dir, "seq-formats.ptl", s.buf, s.len);
	synth_free(&s);

	synth_init(&s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 16);
	s.buf[10] = 9;
	write_seed(dir, "header-only-minor.ptl", s.buf, s.len);
	synth_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--corpus"))
		return write_corpus(argv[2]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--corpus DIR]\n", argv[0]);
		return 2;
	}
	test_sequential();
	test_sequential_clear();
	test_slots();
	test_minor();
	test_formats();
	test_header_refused();
	test_damage();
	test_big_data();
	test_threads();
	test_trid_rules();
	test_open_fds();
	test_create_withlog();
	printf("log_test: %lu checks passed\n", checks);
	return 0;
}
