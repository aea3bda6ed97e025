/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace log reader (TRL): a pre-recorded stream, as posix_trace_open()
 * makes it. The format is <linux/posixtrace_log.h>; the files:
 *
 *	log_io.c	bounded, windowed pread() of the file
 *	log_index.c	posix_trace_open()'s pass: header checks, block index
 *	log_entry.c	one entry of an EVENTS block, checked
 *	log_learn.c	names, filter and status the log knows, on first need
 *	log.c		posix_trace_open/rewind/close and the trid functions
 *
 * Nothing a file says is trusted: every size is checked against the block
 * and the file before use, every allocation is bounded by the file size
 * (or fixed), and every loop moves forward by at least 8 bytes of the
 * file. A file that breaks the rules past its header reads as a shorter
 * log, never as an error: a log cut short is the normal case after a
 * crash or a full disk.
 */
#ifndef _POSIXTRACE_K_LOG_H
#define _POSIXTRACE_K_LOG_H

#include <linux/posixtrace_log.h>

#include "internal.h"

/*
 * From ptk_log_read() and ptk_log_entry_read(): the bytes asked for are
 * not (all) in the file or the block. Error numbers are positive.
 */
#define PTK_LOG_SHORT		(-1)

#define PTK_LOG_RECORD_SIZE	sizeof(struct posixtrace_log_record)
#define PTK_LOG_SET_SIZE	(POSIXTRACE_EVENTSET_WORDS * sizeof(__le64))

/* The entries of an EVENTS block, as far as they are in the file. */
struct ptk_log_block {
	uint64_t start;		/* file offset of the first entry */
	uint64_t end;		/* one past the last byte of entries */
};

/* The header of one entry of an EVENTS block, checked, in host order. */
struct ptk_log_entry {
	uint64_t pos;		/* file offset of the entry */
	uint32_t size;		/* of the whole entry: the next is there */
	uint32_t event_id;
	int64_t ts_sec;
	uint32_t ts_nsec;
	uint32_t truncation;
	int32_t pid;
	int32_t tid;
	uint32_t data_len;
	uint32_t header_size;	/* the data starts there */
	uint64_t prog_address;
	uint64_t seq;
	uint64_t thread;
};

/*
 * The most a DEFINE entry's data (or a TYPES entry's define) says: the
 * identifier, the name and its NUL, a format and its NUL.
 */
#define PTK_LOG_DEFINE_MAX \
	(sizeof(__le32) + POSIXTRACE_EVENT_NAME_MAX + 1 + \
	 POSIXTRACE_FORMAT_MAX + 1)

struct ptk_log {
	int fd;			/* our duplicate, close-on-exec */
	atomic_uint refs;	/* as struct ptk_stream's */

	/* The lock protects everything below. */
	pthread_mutex_t lock;

	/* Set at open, then read only. */
	uint64_t file_size;	/* at open: nothing past it is read */
	struct posixtrace_log_attr attr;	/* as in the file */
	/*
	 * Every EVENTS block with entries, oldest first (for the slot
	 * layout: by epoch, then block_seq). Those before blocks[first]
	 * were cleared: getnext skips them, but their DEFINE, START and
	 * FILTER entries still tell names and the filter.
	 */
	struct ptk_log_block *blocks;
	size_t nblocks;
	size_t blocks_cap;
	size_t first;
	bool has_types;		/* a whole TYPES block at types_pos */
	uint64_t types_pos;
	uint64_t types_size;
	bool has_end;		/* a whole END block, copied here */
	struct posixtrace_log_end end;	/* as in the file */

	/* getnext's position: blocks[block], entry at pos (0: its start). */
	size_t block;
	uint64_t pos;
	bool seq_valid;		/* posixtrace_k_event_seq(), _tid() */
	uint64_t seq;
	pid_t tid;
	uint32_t type_cursor;	/* eventtypelist: next id to look at */

	/* log_learn.c, on the first call that needs them. */
	bool learned;
	bool types_good;	/* TYPES was read, every entry well formed */
	char (*names)[POSIXTRACE_EVENT_NAME_MAX + 1];	/* by id */
	uint64_t named[POSIXTRACE_EVENTSET_WORDS];	/* ids with a name */
	char **formats;		/* by id: NULL, or a well-formed format */
	bool has_filter;	/* without END: the last START or FILTER */
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS];
	uint32_t stop_auto;	/* without END: the last STOP's "auto", */
	bool stopped;		/* if no START came after it */

	/*
	 * log_io.c: the bytes at [win_pos, win_pos + win_len). A read
	 * interrupted by a signal fails with EINTR while report_eintr is
	 * set (posix_trace_open() only), and is restarted otherwise.
	 */
	bool report_eintr;
	unsigned char *win;
	uint32_t win_size;
	uint64_t win_pos;
	uint32_t win_len;
};

/* log_io.c */
int ptk_log_read(struct ptk_log *l, uint64_t pos, void *dst, size_t len);

/* log_index.c */
int ptk_log_index(struct ptk_log *l);

/* log_entry.c */
int ptk_log_entry_read(struct ptk_log *l, uint64_t pos, uint64_t end,
		       struct ptk_log_entry *e);
bool ptk_log_name_ok(const char *name, size_t room, size_t *len);
void ptk_log_set_from_le(const unsigned char *src, uint64_t *words);

/* log_learn.c */
const char *ptk_log_system_name(uint32_t id);
int ptk_log_learn(struct ptk_log *l);

#endif /* _POSIXTRACE_K_LOG_H */
