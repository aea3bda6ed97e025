/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * The check a thread ring's record header passes before anything takes
 * the record (<linux/posixtrace.h>, "Thread rings"), written once: the
 * module applies it to every record its kicks walk and its drains take
 * (lib/ring_walk.c, kmod/thread_ring.c), and the benchmark's fake kernel
 * (bench/producer_host.c) the same. Freestanding C, as lib/ is.
 */
#ifndef _POSIXTRACE_RING_RECORD_H
#define _POSIXTRACE_RING_RECORD_H

#include <linux/posixtrace.h>

#include "freestanding.h"

/*
 * A record's size in a stream: its header, its data, zero padding to 8
 * bytes (what a kick's walk counts a thread ring's record as).
 */
#define POSIXTRACE_RECORD_SIZE(len) \
	(sizeof(struct posixtrace_record) + (((size_t)(len) + 7) & ~(size_t)7))

#define POSIXTRACE_RING_NSEC_PER_SEC	1000000000
/*
 * The first second whose nanoseconds a signed 64-bit count cannot all
 * hold (the kernel's KTIME_SEC_MAX): a drain orders records by that count.
 */
#define POSIXTRACE_RING_SEC_MAX \
	((__s64)(~0ULL >> 1) / POSIXTRACE_RING_NSEC_PER_SEC)

/*
 * Is @h the header of a record a reader of the ring may take, with @room
 * bytes of the lap left from its start? Its size covers the header and
 * the data, in multiples of 8, within the room; its nanoseconds are under
 * a second, and its seconds from 0 to before POSIXTRACE_RING_SEC_MAX.
 */
static inline bool
posixtrace_ring_record_ok(const struct posixtrace_ring_record *h, __u64 room)
{
	return h->size >= sizeof(*h) && !(h->size & 7) && h->size <= room &&
	       h->data_len <= h->size - sizeof(*h) &&
	       h->ts_nsec < POSIXTRACE_RING_NSEC_PER_SEC && h->ts_sec >= 0 &&
	       h->ts_sec < POSIXTRACE_RING_SEC_MAX;
}

#endif /* _POSIXTRACE_RING_RECORD_H */
