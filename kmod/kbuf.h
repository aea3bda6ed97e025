/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KBUF_H
#define _POSIXTRACE_KBUF_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "drain.h"

struct posixtrace_drain_domain;
struct posixtrace_emit;
struct posixtrace_stream;

/*
 * A stream's buffer for one CPU (kbuf.c): events made by system call by
 * threads that write no ring wait here, kernel-written, until a drain
 * merges them with every other source into the stream.
 */
struct posixtrace_kbuf {
	struct posixtrace_source src;	/* first: see struct posixtrace_kbufs */
	/*
	 * The writers: whoever runs on the buffer's CPU with interrupts
	 * off (posixtrace_kbuf_post()); no lock.
	 */
	u64 head;			/* bytes written: writers, release */
	u64 tail;			/* bytes taken: the drain, release */
	s64 last_ns;			/* writers: the last record's time */
	/* The drain's view, under its lock: as a thread ring's. */
	u64 pos, lap_end;
	u64 cut;			/* ... and takes nothing stamped after */
	u32 size;			/* of @data: a power of two */
	u8 *data;
};

/*
 * A kbuf's size: a page, or for a stream of the kernel-rate classes
 * (syscall, sched) up to POSIXTRACE_KBUF_SIZE_MAX (stream.c chooses).
 */
#define POSIXTRACE_KBUF_SIZE		PAGE_SIZE
#define POSIXTRACE_KBUF_SIZE_MAX	(1024 * 1024)

/*
 * A stream's kbufs, indexed by CPU, as the drain lists them (each one's
 * @src); NULL for a CPU that cannot be.
 */
struct posixtrace_kbufs {
	struct rcu_head rcu;
	/* Where they are listed (the stream's); a reference, once listed. */
	struct posixtrace_drain_domain *domain;
	struct posixtrace_source *srcs[];
};

/*
 * The largest data an event made by system call carries through a kbuf.
 * A kernel event carries up to an exec's (kevents.c: at most half a kbuf).
 */
#define POSIXTRACE_KBUF_DATA_MAX	128

/* posixtrace_kbuf_post(): the buffer was empty (the timer must run). */
#define POSIXTRACE_KBUF_FIRST	1
/* ... it holds more than the threshold given: drain. */
#define POSIXTRACE_KBUF_DRAIN	2

struct posixtrace_kbufs *
posixtrace_kbufs_new(struct posixtrace_stream *stream, u32 size);
void posixtrace_kbufs_free_later(struct posixtrace_kbufs *kbufs);
int posixtrace_kbuf_post(struct posixtrace_kbufs *kbufs,
			 const struct posixtrace_emit *emit, pid_t pid,
			 pid_t tid, size_t len, size_t threshold);

#endif /* _POSIXTRACE_KBUF_H */
