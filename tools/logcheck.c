// SPDX-License-Identifier: GPL-2.0
/*
 * The damage in a trace log: see logcheck.h. Every step follows what
 * ulib/log_index.c and ulib/log_entry.c accept, so that what is counted
 * here is what getnext skips: a rule changed there must change here.
 * Loops move forward by at least 8 bytes of the file each turn.
 */

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/posixtrace_log.h>

#include "logcheck.h"
#include "logread.h"

#define WINDOW		(64 * 1024)
#define SHORT		(-1)	/* not all in the file */
#define EVENTS_SIZE	sizeof(struct posixtrace_log_events)
#define RECORD_SIZE	sizeof(struct posixtrace_log_record)

struct scan {
	int fd;
	uint64_t size;
	struct log_damage *d;
	/* The bytes at [win_pos, win_pos + win_len): one pread per window. */
	unsigned char *win;
	uint64_t win_pos;
	size_t win_len;
};

/* Copies the len (<= WINDOW) bytes at pos: 0, SHORT or an error number. */
static int scan_read(struct scan *s, uint64_t pos, void *dst, size_t len)
{
	size_t want;
	ssize_t n;

	if (len > s->size || pos > s->size - len)
		return SHORT;
	if (pos < s->win_pos || pos - s->win_pos > s->win_len ||
	    len > s->win_len - (pos - s->win_pos)) {
		want = s->size - pos < WINDOW ? (size_t)(s->size - pos) : WINDOW;
		s->win_pos = pos;
		s->win_len = 0;
		while (s->win_len < want) {
			n = pread(s->fd, s->win + s->win_len, want - s->win_len,
				  (off_t)(pos + s->win_len));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return errno;
			if (!n)
				return SHORT;	/* it shrank */
			s->win_len += (size_t)n;
		}
	}
	memcpy(dst, s->win + (pos - s->win_pos), len);
	return 0;
}

/*
 * bytes of the file at pos not read, for kind. A cut counts even when
 * every whole entry before it was read: the log still lacks the rest.
 */
static void lose(struct scan *s, enum log_loss_kind kind, uint64_t pos,
		 uint64_t bytes)
{
	struct log_loss *l = &s->d->loss[kind];

	if (!bytes && kind != LOG_CUT_SHORT)
		return;
	if (!l->places)
		l->first = pos;
	l->places++;
	l->bytes += bytes;
}

/* ulib/log_entry.c's checks: whether the entry at pos ends by end. */
static int entry_ok(struct scan *s, uint64_t pos, uint64_t end,
		    uint32_t *size)
{
	struct posixtrace_log_record rec;
	uint32_t header_size, data_len;
	int err;

	if (end - pos < RECORD_SIZE)
		return SHORT;
	err = scan_read(s, pos, &rec, sizeof(rec));
	if (err)
		return err;
	*size = le32toh(rec.size);
	header_size = le32toh(rec.header_size);
	data_len = le32toh(rec.data_len);
	if (*size % 8 || *size < RECORD_SIZE || *size > end - pos ||
	    header_size < RECORD_SIZE || header_size > *size ||
	    data_len > *size - header_size)
		return SHORT;
	return 0;
}

/*
 * The entries of the EVENTS block at pos: used bytes after its header, as
 * it claims, up to block_end; cut if the file ends (at block_end) before
 * the block does. getnext stops at the first entry that is not whole and
 * well formed. A cut is counted at the block, a bad record where it is.
 */
static int scan_entries(struct scan *s, uint64_t pos, uint64_t used,
			uint64_t block_end, bool cut)
{
	uint64_t e = pos + EVENTS_SIZE, end;
	uint32_t size;
	int err;

	end = used > block_end - e ? block_end : e + used;
	while (!(err = entry_ok(s, e, end, &size)))
		e += size;
	if (err != SHORT)
		return err;
	if (cut)
		lose(s, LOG_CUT_SHORT, pos, end - e);
	else
		lose(s, LOG_BAD_RECORD, e, end - e);
	return 0;
}

/*
 * The block at pos of a sequential log (or after the slot region, where
 * EVENTS blocks are not read: sequential false). Sets *next to the next
 * block's offset, or to 0 where the log ends.
 */
static int scan_block(struct scan *s, uint64_t pos, bool sequential,
		      uint64_t *next)
{
	struct posixtrace_log_events ev;
	struct posixtrace_log_block bh;
	uint64_t size, avail = s->size - pos;
	bool whole;
	int err;

	*next = 0;
	err = scan_read(s, pos, &bh, sizeof(bh));
	if (err == SHORT) {
		lose(s, LOG_CUT_SHORT, pos, avail);
		return 0;
	}
	if (err)
		return err;
	size = le64toh(bh.size);
	if (size < sizeof(bh) || size % 8) {
		lose(s, LOG_BAD_BLOCK, pos, avail);
		return 0;
	}
	whole = size <= avail;
	switch (le32toh(bh.type)) {
	case POSIXTRACE_LOG_BLOCK_EVENTS:
		if (!sequential)
			break;
		if (!whole && avail < EVENTS_SIZE) {
			lose(s, LOG_CUT_SHORT, pos, avail);
			return 0;
		}
		if (size < EVENTS_SIZE) {	/* the library stops there */
			lose(s, LOG_BAD_BLOCK, pos, avail);
			return 0;
		}
		err = scan_read(s, pos, &ev, sizeof(ev));
		if (!err)
			err = scan_entries(s, pos, le64toh(ev.used),
					   whole ? pos + size : s->size, !whole);
		if (err)
			return err;
		if (!whole)
			return 0;
		break;
	case POSIXTRACE_LOG_BLOCK_END:
		if (!whole) {
			lose(s, LOG_CUT_SHORT, pos, avail);
		} else if (size < sizeof(struct posixtrace_log_end)) {
			lose(s, LOG_BAD_BLOCK, pos, avail);
		} else {
			s->d->has_end = true;
			lose(s, LOG_AFTER_END, pos + size, avail - size);
		}
		return 0;
	case POSIXTRACE_LOG_BLOCK_CLEAR:
		/* getnext skips what it cleared: its damage costs nothing. */
		if (sequential)
			memset(&s->d->loss[LOG_BAD_RECORD], 0,
			       sizeof(s->d->loss[LOG_BAD_RECORD]));
		break;
	}
	/* CLEAR, TYPES, a later minor's, an EVENTS block not read. */
	if (!whole) {
		lose(s, LOG_CUT_SHORT, pos, avail);
		return 0;
	}
	*next = pos + size;
	return 0;
}

static int scan_blocks(struct scan *s, uint64_t pos, bool sequential)
{
	int err = 0;

	while (!err && pos && pos < s->size)
		err = scan_block(s, pos, sequential, &pos);
	return err;
}

/* A slot that getnext may read, as ulib/log_index.c orders them. */
struct slot {
	uint32_t epoch;
	uint64_t pos;
	uint64_t used;
	uint64_t file_end;	/* of the slot, as far as the file has it */
	bool cut;
};

/*
 * One slot's header: *ok if it is an EVENTS block getnext may read. A slot
 * never written (type 0) is not damage, nor is one the file does not
 * reach; one of another type or size, or too full, is a bad block.
 */
static int scan_slot(struct scan *s, uint64_t pos, uint32_t slot_size,
		     struct slot *slot, bool *ok)
{
	struct posixtrace_log_events ev;
	uint64_t avail = s->size - pos;
	int err;

	*ok = false;
	if (avail > slot_size)
		avail = slot_size;
	err = scan_read(s, pos, &ev, sizeof(ev));
	if (err == SHORT) {
		lose(s, LOG_CUT_SHORT, pos, avail);
		return 0;
	}
	if (err)
		return err;
	if (!le32toh(ev.block.type))
		return 0;
	if (le32toh(ev.block.type) != POSIXTRACE_LOG_BLOCK_EVENTS ||
	    le64toh(ev.block.size) != slot_size ||
	    le64toh(ev.used) > slot_size - EVENTS_SIZE) {
		lose(s, LOG_BAD_BLOCK, pos, avail);
		return 0;
	}
	slot->epoch = le32toh(ev.epoch);
	slot->pos = pos;
	slot->used = le64toh(ev.used);
	slot->file_end = pos + avail;
	slot->cut = avail < slot_size;
	*ok = true;
	return 0;
}

/*
 * The slot region, then what follows it. Only the slots of the highest
 * epoch are read; the others hold events cleared, skipped on purpose.
 */
static int scan_slots(struct scan *s, uint32_t header_size,
		      uint32_t slot_size, uint32_t slot_count)
{
	uint64_t pos, region_end;
	struct slot *slots;
	uint32_t i, n = 0, top = 0;
	int err = 0;
	bool ok;

	/* The file bounds the allocation, not what its header claims. */
	n = (uint32_t)((s->size - header_size) / slot_size + 1);
	if (n > slot_count)
		n = slot_count;
	slots = calloc(n, sizeof(*slots));
	n = 0;
	if (!slots)
		return ENOMEM;
	for (i = 0; i < slot_count && !err; i++) {
		pos = header_size + (uint64_t)i * slot_size;
		if (pos >= s->size)
			break;
		err = scan_slot(s, pos, slot_size, &slots[n], &ok);
		if (ok && (!n || slots[n].epoch > top))
			top = slots[n].epoch;
		n += ok;
	}
	for (i = 0; i < n && !err; i++)
		if (slots[i].epoch == top)
			err = scan_entries(s, slots[i].pos, slots[i].used,
					   slots[i].file_end, slots[i].cut);
	free(slots);
	region_end = header_size + (uint64_t)slot_size * slot_count;
	if (!err && region_end < s->size)
		err = scan_blocks(s, region_end, false);
	return err;
}

static int scan_log(struct scan *s)
{
	struct posixtrace_log_header h;
	uint32_t header_size, slot_size, slot_count;
	int err;

	err = scan_read(s, 0, &h, sizeof(h));
	if (err)
		return err == SHORT ? EINVAL : err;
	header_size = le32toh(h.header_size);
	slot_size = le32toh(h.slot_size);
	slot_count = le32toh(h.slot_count);
	if (header_size < sizeof(h) || header_size > s->size)
		return EINVAL;
	switch (le32toh(h.layout)) {
	case POSIXTRACE_LOG_SEQUENTIAL:
		return scan_blocks(s, header_size, true);
	case POSIXTRACE_LOG_SLOTS:
		if (slot_size < EVENTS_SIZE || !slot_count)
			return EINVAL;
		return scan_slots(s, header_size, slot_size, slot_count);
	}
	return EINVAL;
}

int log_check(int fd, struct log_damage *d)
{
	struct scan s = { .fd = fd, .d = d };
	struct stat st;
	int err;

	memset(d, 0, sizeof(*d));
	if (fstat(fd, &st))
		return errno;
	s.size = (uint64_t)st.st_size;
	s.win = malloc(WINDOW);
	if (!s.win)
		return ENOMEM;
	err = scan_log(&s);
	free(s.win);
	return err;
}

bool log_damaged(const struct log_damage *d)
{
	int k;

	for (k = 0; k < LOG_LOSS_KINDS; k++)
		if (d->loss[k].places)
			return true;
	return false;
}

uint64_t log_damage_bytes(const struct log_damage *d)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < LOG_LOSS_KINDS; k++)
		n += d->loss[k].bytes;
	return n;
}

void log_damage_print(FILE *out, const struct log_damage *d)
{
	static const char *const what[LOG_LOSS_KINDS][2] = {
		[LOG_CUT_SHORT] = { "cut short in the block", "cut short" },
		[LOG_BAD_RECORD] = { "a bad record", "bad records" },
		[LOG_BAD_BLOCK] = { "a bad block header", "bad block headers" },
		[LOG_AFTER_END] = { "after the END block", "after the END block" },
	};
	const struct log_loss *l;
	const char *sep = "";
	int k, kinds = 0;

	for (k = 0; k < LOG_LOSS_KINDS; k++)
		kinds += d->loss[k].places != 0;
	for (k = 0; k < LOG_LOSS_KINDS; k++) {
		l = &d->loss[k];
		if (!l->places)
			continue;
		if (l->places == 1)
			fprintf(out, "%s%s at offset %" PRIu64, sep,
				what[k][0], l->first);
		else
			fprintf(out, "%s%" PRIu64 " %s, the first at offset %"
				PRIu64, sep, l->places, what[k][1], l->first);
		/* The total said it already when there is one kind. */
		if (kinds > 1)
			fprintf(out, " (%" PRIu64 " bytes)", l->bytes);
		sep = "; ";
	}
}

void log_damage_warn(const char *prog, const char *path,
		     const struct log_damage *d)
{
	fprintf(stderr, "%s: warning: %s: %" PRIu64 " bytes not read: ", prog,
		path, log_damage_bytes(d));
	log_damage_print(stderr, d);
	fputc('\n', stderr);
}

int log_open_checked(struct log_reader *lr, const char *path,
		     const char *prog, struct log_damage *d)
{
	int err;

	if (log_open(lr, path, prog))
		return 1;
	err = log_check(lr->fd, d);
	if (err) {
		fprintf(stderr, "%s: %s: checking the log: %s\n", prog, lr->path,
			strerror(err));
		log_close(lr);
		return 1;
	}
	return 0;
}
