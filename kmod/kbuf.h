/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KBUF_H
#define _POSIXTRACE_KBUF_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct posixtrace_drain_domain;
struct posixtrace_emit;
struct posixtrace_stream;

/*
 * An input of a drain's merge (thread_ring.c): a thread ring, or a stream's
 * buffer for one CPU. The drain's heap orders them by @next_ns, then rings
 * before kbufs, then kbufs by @next_mono.
 */
struct posixtrace_drain_src {
	s64 next_ns;		/* its next record's time, while in the heap */
	u64 next_mono;		/* a kbuf's: its CLOCK_MONOTONIC stamp */
	bool kbuf;		/* a struct posixtrace_kbuf, else a thread ring */
	/* A hold of the drain took records of it: on its touched list. */
	bool touched;
	struct posixtrace_drain_src *touched_next;
};

/*
 * A stream's buffer for one CPU (kbuf.c): events made by system call by
 * threads that write no ring wait here, kernel-written, until a drain
 * merges them with every other source into the stream.
 */
struct posixtrace_kbuf {
	struct posixtrace_drain_src src;
	raw_spinlock_t lock;		/* writers */
	u64 head;			/* bytes written: writers, release */
	u64 tail;			/* bytes taken: the drain, release */
	s64 last_ns;			/* writers: the last record's time */
	/* The drain's view, under its lock: as a thread ring's. */
	u64 pos, lap_end;
	u64 cut;			/* ... and takes nothing stamped after */
	struct posixtrace_stream *stream;
	struct list_head node;		/* on the drain's list: RCU */
	u8 *data;			/* POSIXTRACE_KBUF_SIZE bytes */
};

#define POSIXTRACE_KBUF_SIZE	PAGE_SIZE

/* A stream's kbufs, indexed by CPU. */
struct posixtrace_kbufs {
	struct rcu_head rcu;
	/* Where they are listed (the stream's); a reference, once listed. */
	struct posixtrace_drain_domain *domain;
	struct posixtrace_kbuf *cpu[];
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

struct posixtrace_kbufs *posixtrace_kbufs_new(struct posixtrace_stream *stream);
int posixtrace_kbufs_list(struct posixtrace_kbufs *kbufs,
			  struct posixtrace_drain_domain *dom);
void posixtrace_kbufs_retire(struct posixtrace_kbufs *kbufs);
int posixtrace_kbuf_post(struct posixtrace_kbufs *kbufs,
			 const struct posixtrace_emit *emit, pid_t pid,
			 pid_t tid, size_t len, size_t threshold);

/* The drain's side (thread_ring.c), under its lock. */
void posixtrace_kbuf_visit(struct posixtrace_kbuf *kb, u64 cut);
bool posixtrace_kbuf_peek(struct posixtrace_kbuf *kb);
void posixtrace_kbuf_take(struct posixtrace_kbuf *kb,
			  struct posixtrace_emit *emit);
void posixtrace_kbuf_store(struct posixtrace_kbuf *kb);
bool posixtrace_kbuf_empty(const struct posixtrace_kbuf *kb);

#endif /* _POSIXTRACE_KBUF_H */
