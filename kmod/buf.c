// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer under every trace stream, a byte ring; see buf.h for its
 * shape.
 */

#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "buf.h"
#include "user_gfp.h"

int posixtrace_buf_alloc(struct posixtrace_buf *buf, size_t size)
{
	memset(buf, 0, sizeof(*buf));
	/*
	 * Charged to the creator's memory cgroup: the size is theirs. Page
	 * by page: kvmalloc() would first try one block of the next power
	 * of two, and a buffer is a power of two plus the room kept for STOP,
	 * so a 1 MiB stream would take 2 MiB.
	 */
	buf->data = __vmalloc(size, POSIXTRACE_GFP_USER_SIZED);
	if (!buf->data)
		return -ENOMEM;
	buf->size = size;
	return 0;
}

/* Returns the buffer for the caller to kvfree() outside its lock. */
void *posixtrace_buf_detach(struct posixtrace_buf *buf)
{
	void *data = buf->data;

	memset(buf, 0, sizeof(*buf));
	return data;
}

void posixtrace_buf_reset(struct posixtrace_buf *buf)
{
	buf->head = 0;
	buf->tail = 0;
	buf->used = 0;
	WRITE_ONCE(buf->count, 0);
}

static void posixtrace_buf_copy_in(struct posixtrace_buf *buf, size_t off,
				   const void *src, size_t len)
{
	size_t first = min(len, buf->size - off);

	memcpy(buf->data + off, src, first);
	memcpy(buf->data, src + first, len - first);
}

/* Copy @len bytes at @off out, across the end of the buffer if need be. */
void posixtrace_buf_copy_out(const struct posixtrace_buf *buf, size_t off,
			     void *dst, size_t len)
{
	size_t first = min(len, buf->size - off);

	memcpy(dst, buf->data + off, first);
	memcpy(dst + first, buf->data, len - first);
}

/* A record of @rec_len bytes was written at the head: it is in the buffer. */
void posixtrace_buf_commit(struct posixtrace_buf *buf, size_t rec_len)
{
	buf->head = posixtrace_buf_advance(buf, buf->head, rec_len);
	buf->used += rec_len;
	/* Readers' wait conditions peek at count without the lock. */
	WRITE_ONCE(buf->count, buf->count + 1);
}

/*
 * Append one record of @rec_len bytes: @hdr, @data, then zeroes. The caller
 * has made room (posixtrace_buf_free() >= @rec_len).
 */
void posixtrace_buf_write(struct posixtrace_buf *buf, const void *hdr,
			  size_t hdr_len, const void *data, size_t data_len,
			  size_t rec_len)
{
	static const u8 zeroes[8];
	size_t off = buf->head;

	posixtrace_buf_copy_in(buf, off, hdr, hdr_len);
	off = posixtrace_buf_advance(buf, off, hdr_len);
	posixtrace_buf_copy_in(buf, off, data, data_len);
	off = posixtrace_buf_advance(buf, off, data_len);
	posixtrace_buf_copy_in(buf, off, zeroes, rec_len - hdr_len - data_len);
	posixtrace_buf_commit(buf, rec_len);
}
