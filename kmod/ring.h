/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_RING_H
#define _POSIXTRACE_RING_H

#include <linux/types.h>

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
void posixtrace_ring_peek(const struct posixtrace_ring *ring, void *dst,
			  size_t len);
void posixtrace_ring_read(struct posixtrace_ring *ring, void *dst,
			  size_t rec_len);
void posixtrace_ring_drop(struct posixtrace_ring *ring, size_t rec_len);

static inline size_t posixtrace_ring_free(const struct posixtrace_ring *ring)
{
	return ring->size - ring->used;
}

#endif /* _POSIXTRACE_RING_H */
