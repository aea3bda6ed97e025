// SPDX-License-Identifier: GPL-2.0
/*
 * A stream's readers: GETNEXT, poll() and the mapping of the ring.
 *
 * A reader takes records out of the stream without copying them: they
 * leave the stream (counted read, their space free for what is recorded
 * next) but stay where they are, in the ring's slack (ring.h), until the
 * reader's next turn. GETNEXT then copies them to the caller once, from
 * the ring; with MAPPED it only says where they are, and the caller reads
 * them in its read-only mapping of the ring. Readers take turns under
 * the stream's read lock, so one claim is ever being read, and the slack
 * is sized for the largest.
 */

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "links.h"
#include "stream.h"
#include "stream_core.h"
#include "thread_ring.h"

/*
 * What one GETNEXT took: the records of a LOOP gap, made for the reader,
 * and the records themselves, left where they are in the ring.
 */
struct posixtrace_claim {
	u8 gap[2 * sizeof(struct posixtrace_record)];
	size_t gap_bytes;
	const u8 *buf;		/* the ring's buffer when they were taken */
	size_t size;		/* ... its size */
	size_t off;		/* where the records start in it */
	size_t bytes;		/* their bytes, from there, across the end */
};

/*
 * Take the oldest records for a reader without copying them: they leave
 * the stream (counted read, their space free) but stay where they are,
 * in the ring's slack, which nothing writes before the records after them
 * fill the stream again (ring.h). The read lock keeps the next claim, the
 * only thing that ends this one, until the reader is done: the copy out
 * for GETNEXT, the next GETNEXT for a reader of the mapping.
 *
 * @room bounds the gap's records and the records together; @mapped: a
 * gap's records come alone (the mapping holds only stream records).
 * Returns how many records, those of a gap included; -ENOSPC if not even
 * the oldest fits (with the gap before it, if any).
 */
static int posixtrace_stream_claim(struct posixtrace_stream *stream,
				   size_t room, bool mapped,
				   struct posixtrace_claim *c)
{
	struct posixtrace_ring *ring = &stream->ring;
	struct posixtrace_record next;
	size_t size;
	int n = 0;

	lockdep_assert_held(&stream->lock);
	c->gap_bytes = 0;
	c->bytes = 0;
	c->buf = ring->buf;
	c->size = ring->size;
	c->off = ring->tail;
	if (!ring->count)
		return 0;
	if (stream->gap_pending) {
		posixtrace_ring_peek(ring, &next, sizeof(next));
		if (sizeof(c->gap) + (mapped ? 0 : next.size) > room)
			return -ENOSPC;
		c->gap_bytes = posixtrace_reader_gap(stream, c->gap, &next);
		n = c->gap_bytes / sizeof(struct posixtrace_record);
		if (mapped)
			return n;
		room -= c->gap_bytes;
	}
	while (ring->count) {
		size = posixtrace_ring_oldest_size(ring);
		if (c->bytes + size > room)
			break;
		posixtrace_ring_drop(ring, size);
		c->bytes += size;
		n++;
		/* Events read: what was recorded, not what the reader made. */
		stream->events_read++;
	}
	if (!n)
		return -ENOSPC;
	if (c->bytes)
		posixtrace_stream_drained(stream);
	return n;
}

/* Copy a claim's records out to a reader's buffer, after the gap's. */
static int posixtrace_claim_copy(const struct posixtrace_claim *c,
				 u8 __user *dst)
{
	size_t first = min(c->bytes, c->size - c->off);

	if (copy_to_user(dst, c->gap, c->gap_bytes) ||
	    copy_to_user(dst + c->gap_bytes, c->buf + c->off, first) ||
	    copy_to_user(dst + c->gap_bytes + first, c->buf,
			 c->bytes - first))
		return -EFAULT;
	return 0;
}

/*
 * One reader's turn: the threads' rings drained first (a reader sees what
 * they made), then a claim, copied out unless @mapped. Under the read
 * lock: the claim is this reader's until the next turn.
 */
static int posixtrace_stream_read_once(struct posixtrace_stream *stream,
				       const struct posixtrace_getnext *gn,
				       size_t *bytes, u64 *map_offset)
{
	bool mapped = gn->flags & POSIXTRACE_GETNEXT_MAPPED;
	struct posixtrace_claim c;
	bool stale;
	int n;

	/* The gap's records go in the buffer: room for them, always. */
	if (mapped && gn->buf_size < sizeof(c.gap))
		return -ENOSPC;
	posixtrace_thread_rings_drain();
	spin_lock(&stream->lock);
	if (stream->shut_down)
		n = -EINVAL;
	else
		n = posixtrace_stream_claim(stream,
					    mapped ? stream->read_slack :
					    min_t(size_t, gn->buf_size,
						  stream->read_slack),
					    mapped, &c);
	stale = stream->enable_stale;
	stream->enable_stale = false;
	spin_unlock(&stream->lock);
	if (stale)
		posixtrace_links_update(stream);
	if (n <= 0)
		return n;
	if (mapped && !c.gap_bytes) {
		*map_offset = c.off;
		*bytes = c.bytes;
		return n;
	}
	*map_offset = POSIXTRACE_GETNEXT_IN_BUF;
	*bytes = c.gap_bytes + c.bytes;
	return posixtrace_claim_copy(&c, u64_to_user_ptr(gn->buf)) ?: n;
}

/* Anything a reader can act on: an event, or the end of the stream. */
static bool posixtrace_stream_readable(struct posixtrace_stream *stream)
{
	return READ_ONCE(stream->ring.count) || READ_ONCE(stream->shut_down);
}

/* Wait for posixtrace_stream_readable(), until @expires if given. */
static int posixtrace_stream_wait(struct posixtrace_stream *stream,
				  ktime_t *expires)
{
	DEFINE_WAIT(wait);
	int ret = 0;

	for (;;) {
		prepare_to_wait(&stream->wq, &wait, TASK_INTERRUPTIBLE);
		if (posixtrace_stream_readable(stream))
			break;
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		if (!expires) {
			schedule();
		} else if (!schedule_hrtimeout_range_clock(expires, 0,
							   HRTIMER_MODE_ABS,
							   CLOCK_REALTIME)) {
			if (!posixtrace_stream_readable(stream))
				ret = -ETIMEDOUT;
			break;
		}
	}
	finish_wait(&stream->wq, &wait);
	return ret;
}

/**
 * posixtrace_stream_read - GETNEXT: the oldest records, to a reader
 * @stream: the stream
 * @gn: the request, its flags checked: the buffer, NONBLOCK or TIMED (and
 *	the deadline, CLOCK_REALTIME), or neither (wait as long as it takes);
 *	MAPPED: the records stay in the ring, for a reader of its mapping
 * @bytes: the bytes of the records
 * @map_offset: where they are in the mapping (MAPPED), or
 *	POSIXTRACE_GETNEXT_IN_BUF: in the buffer
 *
 * Readers take turns (a claim is theirs until the next). The deadline is
 * checked only when the call would wait, as POSIX has it.
 *
 * Return: the number of records (0: none, NONBLOCK), or -EINVAL (a
 * stream with a log, shut down, a bad deadline), -ENOSPC (the oldest
 * record does not fit), -EFAULT, -ERESTARTSYS or -ETIMEDOUT.
 */
int posixtrace_stream_read(struct posixtrace_stream *stream,
			   const struct posixtrace_getnext *gn, size_t *bytes,
			   u64 *map_offset)
{
	ktime_t expires, *timeout = NULL;
	int n, ret;

	/* Its events go to the log; the log is what one reads. */
	if (stream->log)
		return -EINVAL;
	for (;;) {
		if (mutex_lock_interruptible(&stream->read_lock))
			return -ERESTARTSYS;
		n = posixtrace_stream_read_once(stream, gn, bytes, map_offset);
		mutex_unlock(&stream->read_lock);
		if (n || (gn->flags & POSIXTRACE_GETNEXT_NONBLOCK))
			return n;
		if ((gn->flags & POSIXTRACE_GETNEXT_TIMED) && !timeout) {
			if (gn->timeout_nsec >= NSEC_PER_SEC)
				return -EINVAL;
			/* Before the epoch has passed too; ktime_set() would wrap. */
			expires = gn->timeout_sec < 0 ? 0 :
				  ktime_set(gn->timeout_sec, gn->timeout_nsec);
			timeout = &expires;
		}
		ret = posixtrace_stream_wait(stream, timeout);
		if (ret)
			return ret;
	}
}

/* poll() on a stream's descriptor: readable, or hung up once shut down. */
__poll_t posixtrace_stream_poll(struct posixtrace_stream *stream,
				struct file *file, poll_table *wait)
{
	poll_wait(file, &stream->wq, wait);
	if (READ_ONCE(stream->shut_down))
		return EPOLLHUP | EPOLLERR;
	return READ_ONCE(stream->ring.count) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* How large a mapping of the stream's ring is: twice this. 0: none. */
size_t posixtrace_stream_map_size(const struct posixtrace_stream *stream)
{
	return stream->map_size;
}

/**
 * posixtrace_stream_mmap - map the stream's ring for its reader
 * @stream: the stream, used by its creator (the caller checked)
 * @vma: the mapping: offset 0, twice the ring's size, shared, read-only
 *
 * The ring twice in a row, so that every record is whole in it wherever it
 * wraps (as perf's and our thread rings are). Read-only for good, not
 * inherited by a child, not in a core dump. The ring was zeroed when made:
 * nothing in it but this stream's records, which its reader may read. The
 * read lock is not taken (a reader holds it across faults, which take the
 * mmap lock we run under): @mappers keeps a shutdown from freeing the
 * pages until they are in; once in, the mapping holds them.
 *
 * Return: 0, -EINVAL (another shape; a stream with a log or shut down),
 * -EACCES (writable or executable), or vm_insert_page()'s error.
 */
int posixtrace_stream_mmap(struct posixtrace_stream *stream,
			   struct vm_area_struct *vma)
{
	size_t size = stream->map_size, i, pages = size >> PAGE_SHIFT;
	const u8 *buf;
	int ret = 0;

	if (!size || vma->vm_pgoff || !(vma->vm_flags & VM_SHARED) ||
	    vma->vm_end - vma->vm_start != 2 * size)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EACCES;
	spin_lock(&stream->lock);
	buf = stream->ring.buf;
	if (buf)
		stream->mappers++;
	spin_unlock(&stream->lock);
	if (!buf)
		return -EINVAL;
	vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
		     VM_MAYWRITE | VM_MAYEXEC);
	for (i = 0; i < 2 * pages && !ret; i++)
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     vmalloc_to_page(buf + (i % pages) *
							   PAGE_SIZE));
	spin_lock(&stream->lock);
	stream->mappers--;
	spin_unlock(&stream->lock);
	return ret;
}
