// SPDX-License-Identifier: GPL-2.0
/*
 * dump_logs DIR: writes into DIR the trace logs dump-test.sh reads, made
 * by the library's own log synthesizer (ulib/tests/log_synth.c), since no
 * log can be recorded without the module. Every log derives from one
 * stream whose events have chosen times, pids, tids and data:
 *
 *	basic.ptlog	whole: two EVENTS blocks, TYPES, END
 *	incomplete.ptlog the same without TYPES and END (writer stopped)
 *	cut.ptlog	cut inside an entry of the second block
 *	damaged.ptlog	an entry of the first block with a bad size
 *	badblock.ptlog	the second block's header with a bad size
 *	slots.ptlog	LOOP layout, cut inside its second slot; its
 *			filter has types the log never names
 *	notalog.txt	text
 *
 * The offsets dump reports for the damaged ones are printed on stdout,
 * one "NAME OFFSET" per line, for the test to check against, and every
 * "boundary OFFSET" between blocks of basic.ptlog.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_synth.h"

#define BASE_SEC	1764122400	/* 2025-11-26T02:00:00Z */
#define BASE_NSEC	123456789

enum {
	ID_STEP = 65,
	ID_BIN,
	ID_DEBUG,
	ID_RECV,
};

static const char *dir;

static void die(const char *what)
{
	fprintf(stderr, "dump_logs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void save(const char *name, const unsigned char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		die(path);
}

/*
 * The last event written gets the time BASE + off_nsec and, for user
 * events, pid and tid: the synthesizer derives them from seq otherwise.
 */
static void stamp(struct synth *s, int64_t off_nsec, int32_t pid, int32_t tid)
{
	const struct synth_event *e = &s->events[s->nevents - 1];
	int64_t ns = BASE_NSEC + off_nsec;

	synth_put64(s, e->pos + 8, (uint64_t)(BASE_SEC + ns / 1000000000));
	synth_put32(s, e->pos + 16, (uint32_t)(ns % 1000000000));
	if (e->id >= POSIXTRACE_EVENT_SYSTEM_MAX) {
		synth_put32(s, e->pos + 24, (uint32_t)pid);
		synth_put32(s, e->pos + 28, (uint32_t)tid);
	}
}

static void user(struct synth *s, uint32_t id, uint64_t seq, const void *data,
		 uint32_t len, int64_t off_nsec, int32_t pid, int32_t tid)
{
	synth_event(s, id, seq, data, len, POSIXTRACE_NOT_TRUNCATED);
	stamp(s, off_nsec, pid, tid);
}

static void set_add(uint64_t *set, uint32_t id)
{
	set[id / 64] |= UINT64_C(1) << (id % 64);
}

/* The offsets the damaged logs are cut or broken at. */
struct marks {
	size_t cut;		/* inside seq 8's entry */
	size_t bad_record;	/* seq 2's entry */
	size_t block1;		/* the second EVENTS block */
	size_t types;		/* TYPES: where an incomplete log ends */
};

/* The first block: START, then events of two processes. */
static void block0(struct synth *s, struct marks *m)
{
	static const char hello[] = "hello \"world\"\n";
	static const char longer[] = "a payload longer than the 32 shown";
	static const unsigned char bin[] = { 0x00, 0x01, 0xfe, 0xff };
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };

	synth_events_begin(s, 0, 0);
	synth_define(s, ID_STEP, "app.step");
	synth_define(s, ID_BIN, "app.bin");
	synth_define(s, ID_DEBUG, "app.debug");
	synth_define(s, ID_RECV, "net.recv");
	set_add(filter, ID_DEBUG);
	synth_start(s, 0, filter);
	stamp(s, 0, 0, 0);
	/* With its NUL: a C string as programs pass it. */
	user(s, ID_STEP, 1, hello, sizeof(hello), 250000, 4242, 4242);
	user(s, ID_BIN, 2, bin, sizeof(bin), 500000000, 4242, 4243);
	m->bad_record = s->events[s->nevents - 1].pos;
	user(s, ID_RECV, 3, NULL, 0, 1000000000, 4242, 4243);
	user(s, ID_STEP, 4, longer, sizeof(longer) - 1, 1500000000, 4300,
	     4301);
	synth_events_end(s);
}

/* The second block, after a gap of two events: a new filter, STOP. */
static void block1(struct synth *s, struct marks *m)
{
	static const char tab[] = "x\ty";
	uint64_t old_filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };
	uint64_t new_filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };

	m->block1 = s->len;
	synth_events_begin(s, 1, 0);
	synth_define(s, ID_STEP, "app.step");
	synth_define(s, ID_RECV, "net.recv");
	user(s, ID_STEP, 7, tab, sizeof(tab) - 1, 2250000000, 4300, 4302);
	user(s, ID_RECV, 8, "ok", 2, 3000000000, 4300, 4302);
	m->cut = s->events[s->nevents - 1].pos + 20;
	set_add(old_filter, ID_DEBUG);
	set_add(new_filter, ID_DEBUG);
	set_add(new_filter, ID_RECV);
	synth_filter(s, 9, old_filter, new_filter);
	stamp(s, 3000000001, 0, 0);
	synth_stop(s, 10, 0);
	stamp(s, 10000000000, 0, 0);
	synth_events_end(s);
}

static void sequential(struct synth *s, struct marks *m)
{
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };

	synth_init(s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	block0(s, m);
	block1(s, m);
	m->types = s->len;
	synth_types(s);
	set_add(filter, ID_DEBUG);
	set_add(filter, ID_RECV);
	synth_end(s, POSIXTRACE_NOT_FULL, POSIXTRACE_NO_OVERRUN, 0,
		  POSIXTRACE_NO_OVERRUN, POSIXTRACE_NOT_FULL, filter);
}

/*
 * A LOOP log of three slots, cut inside the second. Its START filters ten
 * types the log never names: more than a line shows.
 */
static void slots(void)
{
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };
	struct synth s;
	uint32_t id;
	size_t cut;

	for (id = 70; id < 80; id++)
		set_add(filter, id);
	synth_init(&s, POSIXTRACE_LOG_SLOTS, 1024, 3, 0);
	synth_slot_begin(&s, 0, 0, 0);
	synth_define(&s, ID_STEP, "app.step");
	synth_start(&s, 0, filter);
	stamp(&s, 0, 0, 0);
	user(&s, ID_STEP, 1, "one", 3, 1000, 4242, 4242);
	synth_events_end(&s);
	synth_slot_begin(&s, 1, 1, 0);
	synth_define(&s, ID_STEP, "app.step");
	user(&s, ID_STEP, 2, "two", 3, 2000, 4242, 4242);
	user(&s, ID_STEP, 3, "three", 5, 3000, 4242, 4242);
	synth_events_end(&s);
	cut = s.events[s.nevents - 1].pos + 8;
	save("slots.ptlog", s.buf, cut);
	printf("slots.cut %zu\n", (size_t)s.header_size + 1024);
	printf("slots.cut_bytes %zu\n", cut - s.events[s.nevents - 1].pos);
	synth_free(&s);
}

int main(int argc, char **argv)
{
	static const char text[] = "not a trace log\n";
	struct synth *s = malloc(sizeof(*s));
	struct marks m;
	unsigned char *copy;
	int i;

	if (argc != 2 || !s) {
		fprintf(stderr, "usage: dump_logs DIR\n");
		return 2;
	}
	dir = argv[1];
	sequential(s, &m);
	save("basic.ptlog", s->buf, s->len);
	/* Where a prefix of it ends cleanly: between blocks. */
	printf("boundary %u\n", s->header_size);
	for (i = 0; i < s->nblocks; i++)
		printf("boundary %zu\n", s->blocks[i].pos + s->blocks[i].size);
	save("incomplete.ptlog", s->buf, m.types);
	save("cut.ptlog", s->buf, m.cut);
	printf("cut %zu\ncut.bytes %zu\n", m.block1, (size_t)20);

	copy = malloc(s->len);
	if (!copy)
		die("malloc");
	/* A size not a multiple of 8 ends the first block there. */
	memcpy(copy, s->buf, s->len);
	copy[m.bad_record] |= 3;
	save("damaged.ptlog", copy, s->len);
	printf("damaged %zu\ndamaged.bytes %zu\n", m.bad_record,
	       m.block1 - m.bad_record);
	/* A block size under 16: the log ends there. */
	memcpy(copy, s->buf, s->len);
	memset(copy + m.block1 + 8, 0, 8);
	save("badblock.ptlog", copy, s->len);
	printf("badblock %zu\nbadblock.bytes %zu\n", m.block1,
	       s->len - m.block1);
	free(copy);
	synth_free(s);
	free(s);

	slots();
	save("notalog.txt", (const unsigned char *)text, sizeof(text) - 1);
	return 0;
}
