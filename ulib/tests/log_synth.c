// SPDX-License-Identifier: LGPL-2.1-or-later
/* The trace log synthesizer: see log_synth.h. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_synth.h"

#define SYNTH_ROUND8(x)	(((x) + 7) & ~(size_t)7)

static void synth_die(const char *what)
{
	fprintf(stderr, "log_synth: %s\n", what);
	abort();
}

/* Makes [0, end) exist, new bytes zero. */
static void synth_reserve(struct synth *s, size_t end)
{
	size_t cap = s->cap ? s->cap : 4096;

	if (end <= s->len)
		return;
	while (cap < end)
		cap *= 2;
	if (cap != s->cap) {
		s->buf = realloc(s->buf, cap);
		if (!s->buf)
			synth_die("out of memory");
		s->cap = cap;
	}
	memset(s->buf + s->len, 0, end - s->len);
	s->len = end;
}

static void synth_put(struct synth *s, size_t pos, const void *p, size_t n)
{
	synth_reserve(s, pos + n);
	memcpy(s->buf + pos, p, n);
}

static void synth_put16(struct synth *s, size_t pos, uint16_t v)
{
	unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	synth_put(s, pos, b, sizeof(b));
}

void synth_put32(struct synth *s, size_t pos, uint32_t v)
{
	unsigned char b[4];
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	synth_put(s, pos, b, sizeof(b));
}

void synth_put64(struct synth *s, size_t pos, uint64_t v)
{
	synth_put32(s, pos, (uint32_t)v);
	synth_put32(s, pos + 4, (uint32_t)(v >> 32));
}

static const char *const synth_system_names[] = {
	"posix_trace_error", "posix_trace_start", "posix_trace_stop",
	"posix_trace_overflow", "posix_trace_resume",
	"posix_trace_flush_start", "posix_trace_flush_stop",
	"posix_trace_filter",
};

const char *synth_system_name(uint32_t id)
{
	if (id < sizeof(synth_system_names) / sizeof(synth_system_names[0]))
		return synth_system_names[id];
	if (id == POSIXTRACE_EVENT_UNNAMED_USER)
		return "posix_trace_unnamed_userevent";
	return NULL;
}

void synth_init(struct synth *s, uint32_t layout, uint32_t slot_size,
		uint32_t slot_count, uint32_t header_extra)
{
	size_t a = offsetof(struct posixtrace_log_header, attr);

	memset(s, 0, sizeof(*s));
	s->open = -1;
	s->layout = layout;
	s->slot_size = slot_size;
	s->slot_count = slot_count;
	s->header_size = sizeof(struct posixtrace_log_header) + header_extra;

	synth_put(s, 0, POSIXTRACE_LOG_MAGIC, POSIXTRACE_LOG_MAGIC_LEN);
	synth_put16(s, 8, POSIXTRACE_LOG_VERSION_MAJOR);
	synth_put16(s, 10, POSIXTRACE_LOG_VERSION_MINOR);
	synth_put32(s, 12, s->header_size);
	synth_put32(s, 16, POSIXTRACE_LOG_BYTE_ORDER);
	synth_put32(s, 20, layout);
	synth_put32(s, 24, sizeof(struct posixtrace_log_record));
	synth_put32(s, 28, slot_size);
	synth_put32(s, 32, slot_count);
	synth_put(s, offsetof(struct posixtrace_log_header, genversion),
		  "posixtrace-k synth", sizeof("posixtrace-k synth"));
	synth_put(s, a, SYNTH_NAME, sizeof(SYNTH_NAME));
	synth_put64(s, a + 64, SYNTH_STREAM_SIZE);
	synth_put64(s, a + 72, SYNTH_MAX_DATA_SIZE);
	synth_put64(s, a + 80, SYNTH_LOG_SIZE);
	synth_put32(s, a + 88, POSIXTRACE_FLUSH);
	synth_put32(s, a + 92, layout == POSIXTRACE_LOG_SLOTS ?
		    POSIXTRACE_LOOP : POSIXTRACE_UNTIL_FULL);
	synth_put32(s, a + 96, POSIXTRACE_CLOSE_FOR_CHILD);
	synth_put32(s, a + 100, SYNTH_CLOCK_RES);
	synth_put64(s, a + 104, SYNTH_CREATE_SEC);
	synth_put32(s, a + 112, SYNTH_CREATE_NSEC);
	synth_put32(s, a + 116, SYNTH_KERNEL_EVENTS);
	synth_reserve(s, s->header_size);
	if (layout == POSIXTRACE_LOG_SLOTS) {
		s->region_end = s->header_size +
				(size_t)slot_size * slot_count;
		synth_reserve(s, s->region_end);
	}
}

void synth_free(struct synth *s)
{
	free(s->buf);
	s->buf = NULL;
}

static int synth_new_block(struct synth *s, uint32_t type, size_t pos)
{
	struct synth_block *b;

	if (s->nblocks == SYNTH_BLOCKS_MAX)
		synth_die("too many blocks");
	b = &s->blocks[s->nblocks];
	memset(b, 0, sizeof(*b));
	b->type = type;
	b->pos = pos;
	return s->nblocks++;
}

static void synth_events_header(struct synth *s, size_t pos,
				uint64_t block_seq, uint32_t epoch)
{
	int i = synth_new_block(s, POSIXTRACE_LOG_BLOCK_EVENTS, pos);

	s->blocks[i].epoch = epoch;
	s->blocks[i].block_seq = block_seq;
	synth_put32(s, pos, POSIXTRACE_LOG_BLOCK_EVENTS);
	synth_put64(s, pos + 16, block_seq);
	synth_put32(s, pos + 32, epoch);
	s->open = i;
	s->open_count = 0;
	s->wpos = pos + sizeof(struct posixtrace_log_events);
	synth_reserve(s, s->wpos);
}

void synth_events_begin(struct synth *s, uint64_t block_seq, uint32_t epoch)
{
	if (s->layout != POSIXTRACE_LOG_SEQUENTIAL || s->open >= 0)
		synth_die("events_begin");
	synth_events_header(s, s->len, block_seq, epoch);
}

void synth_slot_begin(struct synth *s, uint32_t slot, uint64_t block_seq,
		      uint32_t epoch)
{
	size_t pos = s->header_size + (size_t)slot * s->slot_size;
	int i;

	if (s->layout != POSIXTRACE_LOG_SLOTS || s->open >= 0 ||
	    slot >= s->slot_count)
		synth_die("slot_begin");
	for (i = 0; i < s->nblocks; i++)
		if (s->blocks[i].pos == pos)
			s->blocks[i].dead = true;
	memset(s->buf + pos, 0, s->slot_size);
	synth_events_header(s, pos, block_seq, epoch);
}

static size_t synth_entry(struct synth *s, uint32_t id, uint64_t seq,
			  const void *data, uint32_t data_len,
			  uint32_t truncation)
{
	size_t hs = sizeof(struct posixtrace_log_record);
	size_t size = SYNTH_ROUND8(hs + data_len), p = s->wpos;
	bool system = id < POSIXTRACE_EVENT_SYSTEM_MAX;

	if (s->open < 0)
		synth_die("entry outside a block");
	if (s->layout == POSIXTRACE_LOG_SLOTS &&
	    p + size > s->blocks[s->open].pos + s->slot_size)
		synth_die("slot overflow");
	synth_reserve(s, p + size);
	memset(s->buf + p, 0, size);
	synth_put32(s, p, (uint32_t)size);
	synth_put32(s, p + 4, id);
	synth_put64(s, p + 8, SYNTH_CREATE_SEC + seq);
	synth_put32(s, p + 16, (uint32_t)(seq * 1000 % 1000000000));
	synth_put32(s, p + 20, truncation);
	synth_put32(s, p + 24, system ? 0 : 4242);
	synth_put32(s, p + 28, system ? 0 : 4243);
	synth_put64(s, p + 32, system ? 0 : 0x400000 + seq);
	synth_put64(s, p + 40, seq);
	synth_put32(s, p + 48, data_len);
	synth_put32(s, p + 52, (uint32_t)hs);
	synth_put64(s, p + 56, system ? 0 : 0x7f0000000000 + seq);
	if (data_len)
		synth_put(s, p + hs, data, data_len);
	s->wpos = p + size;
	return p;
}

void synth_define_format(struct synth *s, uint32_t id, const char *name,
			 const char *format)
{
	unsigned char d[4 + POSIXTRACE_EVENT_NAME_MAX + 1 +
			POSIXTRACE_FORMAT_MAX + 1];
	size_t n = strlen(name), f = strlen(format), len;

	if (n > POSIXTRACE_EVENT_NAME_MAX)
		synth_die("name too long");
	if (f > POSIXTRACE_FORMAT_MAX)
		synth_die("format too long");
	d[0] = (unsigned char)id;
	d[1] = (unsigned char)(id >> 8);
	d[2] = (unsigned char)(id >> 16);
	d[3] = (unsigned char)(id >> 24);
	memcpy(d + 4, name, n + 1);
	len = 4 + n + 1;
	if (f) {
		memcpy(d + len, format, f + 1);
		len += f + 1;
	}
	synth_entry(s, POSIXTRACE_LOG_DEFINE, 0, d, (uint32_t)len,
		    POSIXTRACE_NOT_TRUNCATED);
	if (id < POSIXTRACE_EVENT_ID_MAX && !s->named[id]) {
		memcpy(s->names[id], name, n + 1);
		s->named[id] = true;
	}
	if (id < POSIXTRACE_EVENT_ID_MAX && f && !s->formats[id][0])
		memcpy(s->formats[id], format, f + 1);
}

void synth_define(struct synth *s, uint32_t id, const char *name)
{
	synth_define_format(s, id, name, "");
}

void synth_event(struct synth *s, uint32_t id, uint64_t seq,
		 const void *data, uint32_t data_len, uint32_t truncation)
{
	struct synth_event *e;
	size_t p;

	if (s->nevents == SYNTH_EVENTS_MAX)
		synth_die("too many events");
	p = synth_entry(s, id, seq, data, data_len, truncation);
	e = &s->events[s->nevents++];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->data_len = data_len;
	e->truncation = truncation;
	e->seq = seq;
	e->ts_sec = SYNTH_CREATE_SEC + (int64_t)seq;
	e->ts_nsec = (uint32_t)(seq * 1000 % 1000000000);
	e->pid = id < POSIXTRACE_EVENT_SYSTEM_MAX ? 0 : 4242;
	e->prog = id < POSIXTRACE_EVENT_SYSTEM_MAX ? 0 : 0x400000 + seq;
	e->thread = id < POSIXTRACE_EVENT_SYSTEM_MAX ? 0 :
		    0x7f0000000000 + seq;
	e->pos = p;
	e->end = s->wpos;
	e->data_pos = p + sizeof(struct posixtrace_log_record);
	e->block = s->open;
	s->open_count++;
}

size_t synth_event_unkept(struct synth *s, uint32_t id, uint64_t seq,
			  const void *data, uint32_t data_len)
{
	size_t p = synth_entry(s, id, seq, data, data_len,
			       POSIXTRACE_NOT_TRUNCATED);

	s->open_count++;
	return p;
}

static void synth_set_le(unsigned char *dst, const uint64_t *words)
{
	size_t i;
	int b;

	for (i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++)
		for (b = 0; b < 8; b++)
			dst[8 * i + b] = (unsigned char)(words[i] >> (8 * b));
}

#define SYNTH_SET_SIZE	(8 * POSIXTRACE_EVENTSET_WORDS)

void synth_start(struct synth *s, uint64_t seq, const uint64_t *filter)
{
	unsigned char d[SYNTH_SET_SIZE];

	synth_set_le(d, filter);
	synth_event(s, POSIXTRACE_EVENT_START, seq, d, sizeof(d),
		    POSIXTRACE_NOT_TRUNCATED);
}

void synth_stop(struct synth *s, uint64_t seq, uint32_t auto_stop)
{
	unsigned char d[4] = {
		(unsigned char)auto_stop, (unsigned char)(auto_stop >> 8),
		(unsigned char)(auto_stop >> 16),
		(unsigned char)(auto_stop >> 24),
	};

	synth_event(s, POSIXTRACE_EVENT_STOP, seq, d, sizeof(d),
		    POSIXTRACE_NOT_TRUNCATED);
}

void synth_filter(struct synth *s, uint64_t seq, const uint64_t *old_filter,
		  const uint64_t *new_filter)
{
	unsigned char d[2 * SYNTH_SET_SIZE];

	synth_set_le(d, old_filter);
	synth_set_le(d + SYNTH_SET_SIZE, new_filter);
	synth_event(s, POSIXTRACE_EVENT_FILTER, seq, d, sizeof(d),
		    POSIXTRACE_NOT_TRUNCATED);
}

void synth_events_end(struct synth *s)
{
	struct synth_block *b;
	size_t hdr = sizeof(struct posixtrace_log_events), used;

	if (s->open < 0)
		synth_die("events_end");
	b = &s->blocks[s->open];
	used = s->wpos - b->pos - hdr;
	b->size = s->layout == POSIXTRACE_LOG_SLOTS ? s->slot_size
						     : s->wpos - b->pos;
	synth_put64(s, b->pos + 8, b->size);
	synth_put64(s, b->pos + 24, used);
	synth_put32(s, b->pos + 36, s->open_count);
	s->open = -1;
}

/* Where the next block after the events goes. */
static size_t synth_tail(struct synth *s)
{
	if (s->open >= 0)
		synth_die("block inside a block");
	return s->len;
}

void synth_clear(struct synth *s)
{
	size_t pos = synth_tail(s);
	int i = synth_new_block(s, POSIXTRACE_LOG_BLOCK_CLEAR, pos);

	s->blocks[i].size = 16;
	synth_put32(s, pos, POSIXTRACE_LOG_BLOCK_CLEAR);
	synth_put64(s, pos + 8, 16);
}

static size_t synth_type_entry(struct synth *s, size_t pos, uint32_t id,
			       const char *name, const char *format)
{
	size_t n = strlen(name), f = strlen(format);
	size_t len = SYNTH_ROUND8(4 + 4 + n + 1 + (f ? f + 1 : 0));

	synth_reserve(s, pos + len);
	synth_put32(s, pos, (uint32_t)len);
	synth_put32(s, pos + 4, id);
	synth_put(s, pos + 8, name, n + 1);
	if (f)
		synth_put(s, pos + 8 + n + 1, format, f + 1);
	return pos + len;
}

void synth_types(struct synth *s)
{
	size_t pos = synth_tail(s), p = pos + sizeof(struct posixtrace_log_types);
	uint32_t id, count = 0;
	int i = synth_new_block(s, POSIXTRACE_LOG_BLOCK_TYPES, pos);

	for (id = 0; id < POSIXTRACE_EVENT_ID_MAX; id++) {
		const char *name = synth_system_name(id);

		if (!name && s->named[id])
			name = s->names[id];
		if (!name)
			continue;
		p = synth_type_entry(s, p, id, name,
				     synth_system_name(id) ? "" : s->formats[id]);
		count++;
	}
	s->blocks[i].size = p - pos;
	synth_put32(s, pos, POSIXTRACE_LOG_BLOCK_TYPES);
	synth_put64(s, pos + 8, p - pos);
	synth_put32(s, pos + 16, count);
}

void synth_end(struct synth *s, uint32_t full, uint32_t overrun,
	       int32_t flush_error, uint32_t log_overrun, uint32_t log_full,
	       const uint64_t *filter)
{
	size_t pos = synth_tail(s), size = sizeof(struct posixtrace_log_end);
	unsigned char set[SYNTH_SET_SIZE];
	int i = synth_new_block(s, POSIXTRACE_LOG_BLOCK_END, pos);

	s->blocks[i].size = size;
	synth_reserve(s, pos + size);
	synth_put32(s, pos, POSIXTRACE_LOG_BLOCK_END);
	synth_put64(s, pos + 8, size);
	synth_put32(s, pos + 16, POSIXTRACE_SUSPENDED);
	synth_put32(s, pos + 20, full);
	synth_put32(s, pos + 24, overrun);
	synth_put32(s, pos + 28, (uint32_t)flush_error);
	synth_put32(s, pos + 32, log_overrun);
	synth_put32(s, pos + 36, log_full);
	synth_put64(s, pos + 40, 100);
	synth_put64(s, pos + 48, 3);
	synth_put64(s, pos + 56, 97);
	synth_put64(s, pos + 64, 0);
	synth_set_le(set, filter);
	synth_put(s, pos + 72, set, sizeof(set));
	synth_put64(s, pos + 72 + sizeof(set), SYNTH_CREATE_SEC + 3600);
	s->has_end = true;
	s->end_pos = pos;
	s->end_size = size;
	s->end_full = full;
	s->end_overrun = overrun;
	s->end_flush_error = flush_error;
	s->end_log_overrun = log_overrun;
	s->end_log_full = log_full;
	memcpy(s->end_filter, filter, sizeof(s->end_filter));
}

void synth_unknown_block(struct synth *s, uint32_t type, size_t size)
{
	size_t pos = synth_tail(s);
	int i = synth_new_block(s, type, pos);

	s->blocks[i].size = size;
	synth_reserve(s, pos + size);
	synth_put32(s, pos, type);
	synth_put64(s, pos + 8, size);
	memset(s->buf + pos + 16, 0xa5, size - 16);
}
