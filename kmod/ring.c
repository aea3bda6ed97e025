// SPDX-License-Identifier: GPL-2.0
/*
 * The byte ring under every trace stream; see ring.h for its shape.
 */

#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "ring.h"

int posixtrace_ring_alloc(struct posixtrace_ring *ring, size_t size)
{
	memset(ring, 0, sizeof(*ring));
	/*
	 * Charged to the creator's memory cgroup: the size is theirs. Page
	 * by page: kvmalloc() would first try one block of the next power
	 * of two, and a ring is a power of two plus the room kept for STOP,
	 * so a 1 MiB stream would take 2 MiB.
	 */
	ring->buf = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!ring->buf)
		return -ENOMEM;
	ring->size = size;
	return 0;
}

/* Returns the buffer for the caller to kvfree() outside its lock. */
void *posixtrace_ring_detach(struct posixtrace_ring *ring)
{
	void *buf = ring->buf;

	memset(ring, 0, sizeof(*ring));
	return buf;
}

void posixtrace_ring_reset(struct posixtrace_ring *ring)
{
	ring->head = 0;
	ring->tail = 0;
	ring->used = 0;
	WRITE_ONCE(ring->count, 0);
}

static void posixtrace_ring_copy_in(struct posixtrace_ring *ring, size_t off,
				    const void *src, size_t len)
{
	size_t first = min(len, ring->size - off);

	memcpy(ring->buf + off, src, first);
	memcpy(ring->buf, src + first, len - first);
}

/* Copy @len bytes at @off out, across the end of the buffer if need be. */
void posixtrace_ring_copy_out(const struct posixtrace_ring *ring, size_t off,
			      void *dst, size_t len)
{
	size_t first = min(len, ring->size - off);

	memcpy(dst, ring->buf + off, first);
	memcpy(dst + first, ring->buf, len - first);
}

/* A record of @rec_len bytes was written at the head: it is in the ring. */
void posixtrace_ring_commit(struct posixtrace_ring *ring, size_t rec_len)
{
	ring->head = posixtrace_ring_advance(ring, ring->head, rec_len);
	ring->used += rec_len;
	/* Readers' wait conditions peek at count without the lock. */
	WRITE_ONCE(ring->count, ring->count + 1);
}

/*
 * Append one record of @rec_len bytes: @hdr, @data, then zeroes. The caller
 * has made room (posixtrace_ring_free() >= @rec_len).
 */
void posixtrace_ring_write(struct posixtrace_ring *ring, const void *hdr,
			   size_t hdr_len, const void *data, size_t data_len,
			   size_t rec_len)
{
	static const u8 zeroes[8];
	size_t off = ring->head;

	posixtrace_ring_copy_in(ring, off, hdr, hdr_len);
	off = posixtrace_ring_advance(ring, off, hdr_len);
	posixtrace_ring_copy_in(ring, off, data, data_len);
	off = posixtrace_ring_advance(ring, off, data_len);
	posixtrace_ring_copy_in(ring, off, zeroes, rec_len - hdr_len - data_len);
	posixtrace_ring_commit(ring, rec_len);
}
