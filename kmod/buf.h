/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_BUF_H
#define _POSIXTRACE_BUF_H

#include <linux/align.h>
#include <linux/compiler.h>
#include <linux/posixtrace.h>
#include <linux/string.h>
#include <linux/types.h>

/* POSIXTRACE_RECORD_SIZE(): a record's size in the buffer. */
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
 * A stream's buffer: a byte ring of variable-size records (struct
 * posixtrace_record, its data, zero padding to 8 bytes). Records wrap
 * around its end, so a buffer of N bytes holds exactly N bytes of records:
 * capacity is what the stream size attribute says, with no waste to
 * account for. (A "ring" elsewhere in the module is a thread ring.)
 *
 * The buffer has no lock of its own: its owner (the stream) serialises every
 * call with its spinlock. Nothing here sleeps or touches user memory.
 */
struct posixtrace_buf {
	u8 *data;
	size_t size;	/* bytes of @data */
	size_t head;	/* offset of the next byte to write */
	size_t tail;	/* offset of the oldest record */
	size_t used;	/* bytes between tail and head */
	size_t count;	/* records between tail and head */
};

int posixtrace_buf_alloc(struct posixtrace_buf *buf, size_t size);
void *posixtrace_buf_detach(struct posixtrace_buf *buf);
void posixtrace_buf_reset(struct posixtrace_buf *buf);
void posixtrace_buf_write(struct posixtrace_buf *buf, const void *hdr,
			  size_t hdr_len, const void *data, size_t data_len,
			  size_t rec_len);
void posixtrace_buf_commit(struct posixtrace_buf *buf, size_t rec_len);
void posixtrace_buf_copy_out(const struct posixtrace_buf *buf, size_t off,
			     void *dst, size_t len);

static inline size_t posixtrace_buf_free(const struct posixtrace_buf *buf)
{
	return buf->size - buf->used;
}

/*
 * Where a record of @rec_len bytes goes, if it fits before the end of the
 * buffer: the caller writes it there whole, then posixtrace_buf_commit().
 * NULL if it would wrap: posixtrace_buf_write() then. The caller has made
 * room. Inline, with the copies of the common case: a record is built in
 * place, with no call per part of it.
 */
static inline void *posixtrace_buf_reserve(struct posixtrace_buf *buf,
					   size_t rec_len)
{
	return buf->head + rec_len <= buf->size ? buf->data + buf->head :
						    NULL;
}

/* The offset @len bytes after @off, across the end of the buffer. */
static inline size_t posixtrace_buf_advance(const struct posixtrace_buf *buf,
					    size_t off, size_t len)
{
	off += len;
	return off >= buf->size ? off - buf->size : off;
}

/*
 * The header of the record at @off: where it is, if it is whole and
 * aligned there, else copied into @copy. Valid until the buffer is written.
 */
static inline const struct posixtrace_record *
posixtrace_buf_header(const struct posixtrace_buf *buf, size_t off,
		      struct posixtrace_record *copy)
{
	if (likely(IS_ALIGNED(off, sizeof(u64)) &&
		   off + sizeof(*copy) <= buf->size))
		return (const void *)(buf->data + off);
	posixtrace_buf_copy_out(buf, off, copy, sizeof(*copy));
	return copy;
}

/* The header of the oldest record; the buffer is not empty. */
static inline const struct posixtrace_record *
posixtrace_buf_oldest(const struct posixtrace_buf *buf,
		      struct posixtrace_record *copy)
{
	return posixtrace_buf_header(buf, buf->tail, copy);
}

/* Free the space of the oldest @count records, @len bytes, unread. */
static inline void posixtrace_buf_drop(struct posixtrace_buf *buf,
				       size_t len, size_t count)
{
	buf->tail = posixtrace_buf_advance(buf, buf->tail, len);
	buf->used -= len;
	/* Readers' wait conditions peek at count without the lock. */
	WRITE_ONCE(buf->count, buf->count - count);
}

/* Copy out the oldest @count records, @len bytes, in one go; free them. */
static inline void posixtrace_buf_take(struct posixtrace_buf *buf,
				       void *dst, size_t len, size_t count)
{
	posixtrace_buf_copy_out(buf, buf->tail, dst, len);
	posixtrace_buf_drop(buf, len, count);
}

#endif /* _POSIXTRACE_BUF_H */
