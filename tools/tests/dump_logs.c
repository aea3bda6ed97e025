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
 *	typed.ptlog	types with event formats: events that match,
 *			events that do not, a damaged format
 *	typed-incomplete.ptlog the same without TYPES and END: the formats
 *			come from DEFINE entries
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

/* Little-endian, packed: the layout a format describes. */
static size_t put_le(unsigned char *p, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	return bytes;
}

static size_t put_f64(unsigned char *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	return put_le(p, v, 8);
}

static size_t put_f32(unsigned char *p, float f)
{
	uint32_t v;

	memcpy(&v, &f, sizeof(v));
	return put_le(p, v, 4);
}

enum {
	ID_JOB = 65,	/* pid:s32,ms:f64,name:str */
	ID_ALL,		/* every type */
	ID_DAMAGED,	/* a format that is not well formed */
	ID_ESC,		/* s:str,rest:bytes */
};

#define ALL_FORMAT \
	"a:u8,b:u16,c:u32,d:u64,e:s8,f:s16,g:s32,h:s64,i:f32,j:f64,k:bytes"

/*
 * typed.ptlog: a job that matches its format, then one too short, one
 * whose str has no NUL, one with bytes left over, one truncated; every
 * type at its limits; a damaged format (shown as bytes); a string that
 * needs escapes, and bytes.
 */
static void typed(void)
{
	unsigned char d[128];
	struct synth s;
	size_t n, types;
	uint64_t seq = 0;

	synth_init(&s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	synth_events_begin(&s, 0, 0);
	synth_define_format(&s, ID_JOB, "app.job", "pid:s32,ms:f64,name:str");
	synth_define_format(&s, ID_ALL, "app.all", ALL_FORMAT);
	synth_define_format(&s, ID_DAMAGED, "app.damaged", "9lives:u8");
	synth_define_format(&s, ID_ESC, "app.esc", "s:str,rest:bytes");

	n = put_le(d, 4242, 4);
	n += put_f64(d + n, 12.5);
	memcpy(d + n, "resize", 7);
	n += 7;
	user(&s, ID_JOB, seq++, d, (uint32_t)n, 1000, 4242, 4242);
	/* Too short: ms is cut. */
	user(&s, ID_JOB, seq++, d, 7, 2000, 4242, 4242);
	/* name without its NUL. */
	user(&s, ID_JOB, seq++, d, (uint32_t)n - 1, 3000, 4242, 4242);
	/* A byte after the last field. */
	d[n] = 0x2a;
	user(&s, ID_JOB, seq++, d, (uint32_t)n + 1, 4000, 4242, 4242);
	synth_event(&s, ID_JOB, seq++, d, 10, POSIXTRACE_TRUNCATED_RECORD);
	stamp(&s, 5000, 4242, 4242);

	n = put_le(d, 255, 1);
	n += put_le(d + n, 65535, 2);
	n += put_le(d + n, 4294967295u, 4);
	n += put_le(d + n, UINT64_MAX, 8);
	n += put_le(d + n, (uint8_t)-128, 1);
	n += put_le(d + n, (uint16_t)-2, 2);
	n += put_le(d + n, (uint32_t)INT32_MIN, 4);
	n += put_le(d + n, (uint64_t)INT64_MIN, 8);
	n += put_f32(d + n, 0.1f);
	n += put_f64(d + n, 1234.56789012345);
	d[n++] = 0xde;
	d[n++] = 0xad;
	user(&s, ID_ALL, seq++, d, (uint32_t)n, 6000, 4242, 4243);

	user(&s, ID_DAMAGED, seq++, "\x07", 1, 7000, 4242, 4243);

	memcpy(d, "say \"hi\"\n\x01\xff", 11);
	d[11] = 0;
	n = 12;
	user(&s, ID_ESC, seq++, d, (uint32_t)n, 8000, 4242, 4243);
	synth_events_end(&s);
	types = s.len;
	synth_types(&s);
	synth_end(&s, POSIXTRACE_NOT_FULL, POSIXTRACE_NO_OVERRUN, 0,
		  POSIXTRACE_NO_OVERRUN, POSIXTRACE_NOT_FULL,
		  (uint64_t[POSIXTRACE_EVENTSET_WORDS]){ 0 });
	save("typed.ptlog", s.buf, s.len);
	save("typed-incomplete.ptlog", s.buf, types);
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
	typed();
	save("notalog.txt", (const unsigned char *)text, sizeof(text) - 1);
	return 0;
}
