// SPDX-License-Identifier: GPL-2.0
/*
 * Taking records out of a stream, for its readers (GETNEXT) and for the
 * flush to its log. LOOP gaps are reported here, where records leave the
 * ring: OVERFLOW and RESUME are made by the reader and take no ring space.
 */

#include <linux/string.h>

#include "stream.h"

/*
 * A system event built by the reader (OVERFLOW, RESUME): it takes no ring
 * space. Returns the bytes written at @dst.
 */
static size_t posixtrace_reader_system_event(void *dst, u32 id, s64 sec,
					     u32 nsec, u64 seq)
{
	struct posixtrace_record rec = {
		.size = sizeof(rec), .header_size = sizeof(rec), .event_id = id,
		.ts_sec = sec, .ts_nsec = nsec, .seq = seq,
	};

	memcpy(dst, &rec, sizeof(rec));
	return sizeof(rec);
}

/*
 * Report a LOOP gap before @next, the first event after it: OVERFLOW with
 * the time of the first event lost, RESUME with @next's time.
 */
static size_t posixtrace_reader_gap(struct posixtrace_stream *stream,
				    u8 *dst, const struct posixtrace_record *next)
{
	size_t len = 0;

	if (stream->gap_overflow)
		len += posixtrace_reader_system_event(dst,
						      POSIXTRACE_EVENT_OVERFLOW,
						      stream->gap_ts_sec,
						      stream->gap_ts_nsec,
						      next->seq);
	if (stream->gap_resume)
		len += posixtrace_reader_system_event(dst + len,
						      POSIXTRACE_EVENT_RESUME,
						      next->ts_sec,
						      next->ts_nsec, next->seq);
	stream->gap_pending = false;
	return len;
}

/**
 * posixtrace_stream_fill - take the oldest records out of a stream
 * @stream: the stream, its lock held
 * @dst: where to put them
 * @room: bytes at @dst
 * @seq_limit: take only records numbered below this
 * @bytes: the bytes stored at @dst
 *
 * Moves as many whole records as fit, oldest first, each LOOP gap reported
 * before the record after it. Frees their space, and may so restart a
 * stream that stopped because it was full.
 *
 * Return: how many records were stored, or -ENOSPC if the oldest one does
 * not fit in @room at all.
 */
int posixtrace_stream_fill(struct posixtrace_stream *stream, u8 *dst,
			   size_t room, u64 seq_limit, size_t *bytes)
{
	struct posixtrace_ring *ring = &stream->ring;
	struct posixtrace_record next;
	size_t used = 0, need;
	int n = 0;

	lockdep_assert_held(&stream->lock);
	while (ring->count) {
		posixtrace_ring_peek(ring, &next, sizeof(next));
		if (next.seq >= seq_limit)
			break;
		need = next.size;
		if (stream->gap_pending)
			need += 2 * sizeof(struct posixtrace_record);
		if (used + need > room) {
			if (!n)
				return -ENOSPC;
			break;
		}
		if (stream->gap_pending) {
			size_t gap = posixtrace_reader_gap(stream, dst + used,
							   &next);

			used += gap;
			n += gap / sizeof(struct posixtrace_record);
		}
		posixtrace_ring_read(ring, dst + used, next.size);
		used += next.size;
		n++;
		/* Events read: what was recorded, not what the reader made. */
		stream->events_read++;
	}
	if (n)
		posixtrace_stream_drained(stream);
	*bytes = used;
	return n;
}
