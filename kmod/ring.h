/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_RING_H
#define _POSIXTRACE_RING_H

#include <linux/align.h>
#include <linux/compiler.h>
#include <linux/posixtrace.h>
#include <linux/string.h>
#include <linux/types.h>

/* POSIXTRACE_RECORD_SIZE(): a record's size in the ring. */
#include "../lib/ring_record.h"

/*
 * STOP, with its int "auto": the room every other record leaves free, so
 * that the STOP a full UNTIL_FULL stream records always fits.
 */
#define POSIXTRACE_STOP_RECORD_SIZE	POSIXTRACE_RECORD_SIZE(sizeof(u32))
/* FLUSH_START and FLUSH_STOP, which carry no data. */
#define POSIXTRACE_FLUSH_RECORD_SIZE	POSIXTRACE_RECORD_SIZE(0)
/* The largest system event: FILTER, with the old and the new filter. */
#define POSIXTRACE_SYSTEM_RECORD_MAX \
	POSIXTRACE_RECORD_SIZE(2 * sizeof(struct posixtrace_eventset))

/*
 * A byte ring of variable-size records (struct posixtrace_record, its data,
 * zero padding to 8 bytes). Records wrap around the end of the buffer, so
 * a ring of N bytes holds exactly N bytes of records: capacity is what the
 * stream size attribute says, with no waste to account for.
 *
 * The ring has no lock of its own: its owner (the stream) serialises every
 * call with its spinlock. Nothing here sleeps or touches user memory.
 */
struct posixtrace_ring {
	u8 *buf;
	size_t size;	/* bytes of buf */
	size_t head;	/* offset of the next byte to write */
	size_t tail;	/* offset of the oldest record */
	size_t used;	/* bytes between tail and head */
	size_t count;	/* records between tail and head */
};

int posixtrace_ring_alloc(struct posixtrace_ring *ring, size_t size);
void *posixtrace_ring_detach(struct posixtrace_ring *ring);
void posixtrace_ring_reset(struct posixtrace_ring *ring);
void posixtrace_ring_write(struct posixtrace_ring *ring, const void *hdr,
			   size_t hdr_len, const void *data, size_t data_len,
			   size_t rec_len);
void posixtrace_ring_commit(struct posixtrace_ring *ring, size_t rec_len);
void posixtrace_ring_copy_out(const struct posixtrace_ring *ring, size_t off,
			      void *dst, size_t len);

static inline size_t posixtrace_ring_free(const struct posixtrace_ring *ring)
{
	return ring->size - ring->used;
}

/*
 * Where a record of @rec_len bytes goes, if it fits before the end of the
 * buffer: the caller writes it there whole, then posixtrace_ring_commit().
 * NULL if it would wrap: posixtrace_ring_write() then. The caller has made
 * room. Inline, with the copies of the common case: a record is built in
 * place, with no call per part of it.
 */
static inline void *posixtrace_ring_reserve(struct posixtrace_ring *ring,
					    size_t rec_len)
{
	return ring->head + rec_len <= ring->size ? ring->buf + ring->head :
						    NULL;
}

/* The offset @len bytes after @off, across the end of the buffer. */
static inline size_t posixtrace_ring_advance(const struct posixtrace_ring *ring,
					     size_t off, size_t len)
{
	off += len;
	return off >= ring->size ? off - ring->size : off;
}

/*
 * The header of the record at @off: where it is, if it is whole and
 * aligned there, else copied into @copy. Valid until the ring is written.
 */
static inline const struct posixtrace_record *
posixtrace_ring_header(const struct posixtrace_ring *ring, size_t off,
		       struct posixtrace_record *copy)
{
	if (likely(IS_ALIGNED(off, sizeof(u64)) &&
		   off + sizeof(*copy) <= ring->size))
		return (const void *)(ring->buf + off);
	posixtrace_ring_copy_out(ring, off, copy, sizeof(*copy));
	return copy;
}

/* The header of the oldest record; the ring is not empty. */
static inline const struct posixtrace_record *
posixtrace_ring_oldest(const struct posixtrace_ring *ring,
		       struct posixtrace_record *copy)
{
	return posixtrace_ring_header(ring, ring->tail, copy);
}

/* Free the space of the oldest @count records, @len bytes, unread. */
static inline void posixtrace_ring_drop(struct posixtrace_ring *ring,
					size_t len, size_t count)
{
	ring->tail = posixtrace_ring_advance(ring, ring->tail, len);
	ring->used -= len;
	/* Readers' wait conditions peek at count without the lock. */
	WRITE_ONCE(ring->count, ring->count - count);
}

/* Copy out the oldest @count records, @len bytes, in one go; free them. */
static inline void posixtrace_ring_take(struct posixtrace_ring *ring,
					void *dst, size_t len, size_t count)
{
	posixtrace_ring_copy_out(ring, ring->tail, dst, len);
	posixtrace_ring_drop(ring, len, count);
}

#endif /* _POSIXTRACE_RING_H */
