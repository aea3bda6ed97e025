/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A trace log synthesizer: builds logs byte by byte, following
 * <linux/posixtrace_log.h> and nothing of the library, and remembers what
 * it wrote (events, blocks, names), so that a test can say what a reader
 * must report for the log, or for any prefix of it. Every integer is
 * written little-endian, whatever the host.
 */
#ifndef LOG_SYNTH_H
#define LOG_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/posixtrace_log.h>

#define SYNTH_EVENTS_MAX	512
#define SYNTH_BLOCKS_MAX	128

/* An event entry as written (DEFINE entries are not kept here). */
struct synth_event {
	uint32_t id;
	uint32_t data_len;
	uint32_t truncation;
	uint32_t ts_nsec;
	int64_t ts_sec;
	int32_t pid;
	uint64_t seq;
	uint64_t prog;
	uint64_t thread;
	size_t pos;		/* of the entry */
	size_t end;		/* one past it */
	size_t data_pos;
	int block;		/* index in synth.blocks */
};

struct synth_block {
	uint32_t type;
	size_t pos;
	size_t size;		/* as written in its header */
	uint32_t epoch;		/* EVENTS */
	uint64_t block_seq;	/* EVENTS */
	bool dead;		/* a slot written again since */
};

struct synth {
	unsigned char *buf;
	size_t len, cap;
	uint32_t layout, header_size, slot_size, slot_count;
	size_t region_end;	/* SLOTS: where TYPES and END go */

	struct synth_event events[SYNTH_EVENTS_MAX];
	int nevents;
	struct synth_block blocks[SYNTH_BLOCKS_MAX];
	int nblocks;

	int open;		/* the EVENTS block being written, or -1 */
	size_t wpos;		/* where its next entry goes */
	uint32_t open_count;

	/* The names of the user types defined so far. */
	char names[POSIXTRACE_EVENT_ID_MAX][POSIXTRACE_EVENT_NAME_MAX + 1];
	bool named[POSIXTRACE_EVENT_ID_MAX];
	/* Their formats, as written (well formed or not); "" for none. */
	char formats[POSIXTRACE_EVENT_ID_MAX][POSIXTRACE_FORMAT_MAX + 1];

	/* The END written, if any (host order). */
	bool has_end;
	size_t end_pos, end_size;
	uint32_t end_full, end_overrun, end_log_overrun, end_log_full;
	int32_t end_flush_error;
	uint64_t end_filter[POSIXTRACE_EVENTSET_WORDS];
};

/* The attributes the synthesizer writes in every header. */
#define SYNTH_NAME		"synth-stream"
#define SYNTH_STREAM_SIZE	65536
#define SYNTH_MAX_DATA_SIZE	200
#define SYNTH_LOG_SIZE		1048576
#define SYNTH_CREATE_SEC	1700000000
#define SYNTH_CREATE_NSEC	123456789
#define SYNTH_CLOCK_RES		1
#define SYNTH_KERNEL_EVENTS	POSIXTRACE_KERNEL_SIGNAL

/* header_extra: bytes of a later minor's header members (a multiple of 8). */
void synth_init(struct synth *s, uint32_t layout, uint32_t slot_size,
		uint32_t slot_count, uint32_t header_extra);
void synth_free(struct synth *s);

/* Sequential layout: a new EVENTS block at the end. */
void synth_events_begin(struct synth *s, uint64_t block_seq, uint32_t epoch);
/* Slot layout: (re)writes slot number slot. */
void synth_slot_begin(struct synth *s, uint32_t slot, uint64_t block_seq,
		      uint32_t epoch);
void synth_define(struct synth *s, uint32_t id, const char *name);
/*
 * A DEFINE with a format after the name's NUL (log minor 1), written as
 * given: a test may give one that is not well formed. TYPES gives it too.
 */
void synth_define_format(struct synth *s, uint32_t id, const char *name,
			 const char *format);
void synth_event(struct synth *s, uint32_t id, uint64_t seq,
		 const void *data, uint32_t data_len, uint32_t truncation);
/*
 * An event written and not remembered, for logs of more than
 * SYNTH_EVENTS_MAX events; returns where its entry is, for the caller to
 * stamp its time, pid, tid and addresses with synth_put32/64.
 */
size_t synth_event_unkept(struct synth *s, uint32_t id, uint64_t seq,
			  const void *data, uint32_t data_len);
/* Helpers for the system events' data. */
void synth_start(struct synth *s, uint64_t seq, const uint64_t *filter);
void synth_stop(struct synth *s, uint64_t seq, uint32_t auto_stop);
void synth_filter(struct synth *s, uint64_t seq, const uint64_t *old_filter,
		  const uint64_t *new_filter);
void synth_events_end(struct synth *s);

void synth_clear(struct synth *s);
/* Every system name, then every user name defined so far. */
void synth_types(struct synth *s);
void synth_end(struct synth *s, uint32_t full, uint32_t overrun,
	       int32_t flush_error, uint32_t log_overrun, uint32_t log_full,
	       const uint64_t *filter);
/* A block of a type no reader knows (a later minor's). */
void synth_unknown_block(struct synth *s, uint32_t type, size_t size);

/* Little-endian stores into the log, for tests that corrupt it. */
void synth_put32(struct synth *s, size_t pos, uint32_t v);
void synth_put64(struct synth *s, size_t pos, uint64_t v);

/* The POSIX name of a system type, or NULL. */
const char *synth_system_name(uint32_t id);

#endif /* LOG_SYNTH_H */
