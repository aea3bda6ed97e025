// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_trace_open()'s one pass over a log: check the header, then find
 * the EVENTS blocks getnext will read (in the order it will read them),
 * the last CLEAR, and the TYPES and END blocks. Only block headers are
 * read here; entries are read when asked for.
 *
 * The header must be right, or the file is no log we can read (EINVAL).
 * Past the header, whatever is not a well-formed block ends the log
 * there: a log cut short, or a file extended with zeroes, is a shorter
 * log, not an error. The index holds one struct ptk_log_block for each
 * block with at least one whole entry (a block header and a record
 * header: 104 bytes of file), so its size is bounded by the file's.
 */

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

_Static_assert(sizeof(struct posixtrace_log_header) == 224,
	       "log header changed");
_Static_assert(sizeof(struct posixtrace_log_events) == 40,
	       "EVENTS block header changed");
_Static_assert(sizeof(struct posixtrace_log_end) == 232,
	       "END block changed");
_Static_assert(sizeof(((struct posixtrace_log_end *)0)->filter) ==
	       PTK_LOG_SET_SIZE, "END filter is an event set");

#define PTK_LOG_EVENTS_SIZE	sizeof(struct posixtrace_log_events)

/* What the header says about where the blocks are. */
struct ptk_log_layout {
	uint32_t header_size;
	uint32_t layout;
	uint32_t slot_size;
	uint32_t slot_count;
};

/* An EVENTS slot, with what orders it (the slot layout). */
struct ptk_log_slot {
	uint32_t epoch;
	uint32_t index;
	uint64_t block_seq;
	struct ptk_log_block block;
};

static int ptk_log_header(struct ptk_log *l, struct ptk_log_layout *lay)
{
	struct posixtrace_log_header h;
	int err;

	err = ptk_log_read(l, 0, &h, sizeof(h));
	if (err == PTK_LOG_SHORT)
		return EINVAL;
	if (err)
		return err;
	if (memcmp(h.magic, POSIXTRACE_LOG_MAGIC, POSIXTRACE_LOG_MAGIC_LEN) ||
	    le16toh(h.version_major) != POSIXTRACE_LOG_VERSION_MAJOR ||
	    le32toh(h.byte_order) != POSIXTRACE_LOG_BYTE_ORDER)
		return EINVAL;
	/* A later minor may make the header or the records longer. */
	lay->header_size = le32toh(h.header_size);
	if (lay->header_size < sizeof(h) || lay->header_size % 8 ||
	    lay->header_size > l->file_size)
		return EINVAL;
	if (le32toh(h.record_header_size) < PTK_LOG_RECORD_SIZE)
		return EINVAL;
	lay->layout = le32toh(h.layout);
	lay->slot_size = le32toh(h.slot_size);
	lay->slot_count = le32toh(h.slot_count);
	switch (lay->layout) {
	case POSIXTRACE_LOG_SEQUENTIAL:
		if (lay->slot_size || lay->slot_count)
			return EINVAL;
		break;
	case POSIXTRACE_LOG_SLOTS:
		if (lay->slot_size < PTK_LOG_EVENTS_SIZE ||
		    lay->slot_size % 8 || !lay->slot_count)
			return EINVAL;
		break;
	default:
		return EINVAL;
	}
	l->attr = h.attr;
	return 0;
}

/* Room for one more of n elements of size each in *array (capacity *cap). */
static int ptk_grow(void **array, size_t *cap, size_t n, size_t size)
{
	size_t new_cap;
	void *p;

	if (n < *cap)
		return 0;
	new_cap = *cap ? 2 * *cap : 16;
	if (new_cap > SIZE_MAX / size)
		return ENOMEM;
	p = realloc(*array, new_cap * size);
	if (!p)
		return ENOMEM;
	*array = p;
	*cap = new_cap;
	return 0;
}

/*
 * Reads the EVENTS block header at pos, of which avail bytes are in the
 * file, into *ev and b (its entries as far as they are in the file).
 * Returns 0, PTK_LOG_SHORT (not even its header is in the file) or an
 * error number.
 */
static int ptk_log_events_at(struct ptk_log *l, uint64_t pos, uint64_t avail,
			     struct posixtrace_log_events *ev,
			     struct ptk_log_block *b)
{
	uint64_t used;
	int err;

	if (avail < sizeof(*ev))
		return PTK_LOG_SHORT;
	err = ptk_log_read(l, pos, ev, sizeof(*ev));
	if (err)
		return err;
	used = le64toh(ev->used);
	if (used > avail - sizeof(*ev))
		used = avail - sizeof(*ev);
	b->start = pos + sizeof(*ev);
	b->end = b->start + used;
	return 0;
}

/* Whether a block can hold an entry: blocks that cannot stay out. */
static bool ptk_log_block_useful(const struct ptk_log_block *b)
{
	return b->end - b->start >= PTK_LOG_RECORD_SIZE;
}

static int ptk_log_add_block(struct ptk_log *l, const struct ptk_log_block *b)
{
	int err;

	err = ptk_grow((void **)&l->blocks, &l->blocks_cap, l->nblocks,
		       sizeof(*l->blocks));
	if (err)
		return err;
	l->blocks[l->nblocks++] = *b;
	return 0;
}

/*
 * Walks the blocks from pos to the end of the log: the whole log in the
 * sequential layout, what follows the slot region in the other (where
 * only TYPES and END are looked at). END is the last block.
 */
static int ptk_log_walk(struct ptk_log *l, uint64_t pos, bool sequential)
{
	struct posixtrace_log_events ev;
	struct posixtrace_log_block bh;
	struct ptk_log_block b;
	uint64_t size, avail;
	bool whole;
	int err;

	for (;;) {
		err = ptk_log_read(l, pos, &bh, sizeof(bh));
		if (err == PTK_LOG_SHORT)
			return 0;
		if (err)
			return err;
		size = le64toh(bh.size);
		if (size < sizeof(bh) || size % 8)
			return 0;	/* not a block: the log ends here */
		avail = l->file_size - pos;
		whole = size <= avail;
		if (!whole)
			size = avail;	/* cut short: the log ends with it */

		switch (le32toh(bh.type)) {
		case POSIXTRACE_LOG_BLOCK_EVENTS:
			if (!sequential)
				break;
			err = ptk_log_events_at(l, pos, size, &ev, &b);
			if (err == PTK_LOG_SHORT)
				return 0;
			if (err)
				return err;
			if (ptk_log_block_useful(&b)) {
				err = ptk_log_add_block(l, &b);
				if (err)
					return err;
			}
			break;
		case POSIXTRACE_LOG_BLOCK_CLEAR:
			/* Its header is the whole of it. */
			if (sequential)
				l->first = l->nblocks;
			break;
		case POSIXTRACE_LOG_BLOCK_TYPES:
			if (whole && size >= sizeof(struct posixtrace_log_types)) {
				l->has_types = true;
				l->types_pos = pos;
				l->types_size = size;
			}
			break;
		case POSIXTRACE_LOG_BLOCK_END:
			if (whole && size >= sizeof(l->end)) {
				err = ptk_log_read(l, pos, &l->end,
						   sizeof(l->end));
				if (err && err != PTK_LOG_SHORT)
					return err;
				l->has_end = !err;
			}
			return 0;
		default:
			break;	/* a later minor's: skipped */
		}
		if (!whole)
			return 0;
		pos += size;
	}
}

static int ptk_log_slot_cmp(const void *a, const void *b)
{
	const struct ptk_log_slot *x = a, *y = b;

	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	if (x->block_seq != y->block_seq)
		return x->block_seq < y->block_seq ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Reads the slot headers, orders the slots by epoch then block_seq, and
 * keeps those of the highest epoch for getnext: the others hold events
 * from before a posix_trace_clear(). A slot never written (type 0), or
 * past the end of the file, is left out; so is one that is no EVENTS block
 * of exactly slot_size bytes, or says it uses more (corrupt). Even an
 * empty slot tells the epoch.
 */
static int ptk_log_slots(struct ptk_log *l, const struct ptk_log_layout *lay)
{
	struct posixtrace_log_events ev;
	struct ptk_log_slot *slots = NULL, *s;
	struct ptk_log_block b;
	size_t n = 0, cap = 0, i;
	uint64_t pos, avail;
	uint32_t index, top;
	int err = 0;

	for (index = 0; index < lay->slot_count; index++) {
		pos = lay->header_size + (uint64_t)index * lay->slot_size;
		if (pos >= l->file_size)
			break;
		avail = l->file_size - pos;
		if (avail > lay->slot_size)
			avail = lay->slot_size;
		err = ptk_log_events_at(l, pos, avail, &ev, &b);
		if (err == PTK_LOG_SHORT) {
			err = 0;
			break;
		}
		if (err)
			goto out;
		if (le32toh(ev.block.type) != POSIXTRACE_LOG_BLOCK_EVENTS ||
		    le64toh(ev.block.size) != lay->slot_size ||
		    le64toh(ev.used) > lay->slot_size - PTK_LOG_EVENTS_SIZE)
			continue;
		err = ptk_grow((void **)&slots, &cap, n, sizeof(*slots));
		if (err)
			goto out;
		s = &slots[n++];
		s->epoch = le32toh(ev.epoch);
		s->index = index;
		s->block_seq = le64toh(ev.block_seq);
		s->block = b;
	}
	if (!n)
		goto out;
	qsort(slots, n, sizeof(*slots), ptk_log_slot_cmp);
	top = slots[n - 1].epoch;
	for (i = 0; i < n; i++) {
		if (slots[i].epoch == top && (!i || slots[i - 1].epoch != top))
			l->first = l->nblocks;
		if (!ptk_log_block_useful(&slots[i].block))
			continue;
		err = ptk_log_add_block(l, &slots[i].block);
		if (err)
			goto out;
	}
out:
	free(slots);
	return err;
}

/* Called by posix_trace_open() before the log is published. */
int ptk_log_index(struct ptk_log *l)
{
	struct ptk_log_layout lay;
	uint64_t region_end;
	int err;

	err = ptk_log_header(l, &lay);
	if (err)
		return err;
	if (lay.layout == POSIXTRACE_LOG_SEQUENTIAL)
		return ptk_log_walk(l, lay.header_size, true);

	err = ptk_log_slots(l, &lay);
	if (err)
		return err;
	/* Both factors are 32-bit: no overflow in 64 bits. */
	region_end = lay.header_size + (uint64_t)lay.slot_size * lay.slot_count;
	if (region_end < l->file_size)
		err = ptk_log_walk(l, region_end, false);
	return err;
}
