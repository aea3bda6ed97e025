/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_LOG_H
#define _POSIXTRACE_LOG_H

#include <linux/bitmap.h>
#include <linux/posixtrace.h>
#include <linux/posixtrace_log.h>
#include <linux/types.h>

struct cred;
struct file;
struct mem_cgroup;
struct posixtrace_names;

/* How many slots a LOOP log has at most: see posixtrace_log_slots(). */
#define POSIXTRACE_LOG_SLOTS_MAX	16

/*
 * The writing side of a trace log (<linux/posixtrace_log.h>).
 *
 * Only the stream's log thread writes it and touches its members (the
 * watchdog reads @progress and sets @abandoned); nothing here takes the
 * stream's spinlock.
 * Records arrive as the ring holds them (struct posixtrace_record, native
 * byte order) and leave as entries of EVENTS blocks, little-endian, each
 * block naming the event types it uses before it uses them.
 */
struct posixtrace_log {
	struct file *file;		/* our own reference */
	/*
	 * Whose write(2) ours stand in for: the creator's credentials (LSM
	 * checks are made against them, as for the creator's own write) and
	 * memory cgroup (the page cache the log fills is charged there). The
	 * creator's RLIMIT_FSIZE is the writer's: see posixtrace_log_pwrite().
	 */
	const struct cred *cred;
	struct mem_cgroup *memcg;
	unsigned long fsize_limit;	/* the creator's, as last seen */
	u32 policy;			/* the log-full-policy */
	u32 kernel_events;		/* the stream's: their types are named */
	u64 size;			/* log-max-size */
	loff_t pos;			/* sequential: where the next block goes */
	/*
	 * How far our writes reached in a regular file, and the header to
	 * write again: the file cut below that is written anew
	 * (posixtrace_log_restart()).
	 */
	loff_t written_end;
	struct posixtrace_log_header *header;

	/* The block being built, written out whole (or a slot's new part). */
	u8 *buf;
	size_t buf_size;
	size_t buf_len;
	u32 buf_count;			/* event records in buf */
	DECLARE_BITMAP(defined, POSIXTRACE_EVENT_ID_MAX); /* in this block */
	/* A type's name and format, as a DEFINE or TYPES entry is built. */
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	char format[POSIXTRACE_FORMAT_MAX + 1];

	u64 block_seq;			/* of the block being built */
	u32 epoch;			/* posix_trace_clear()s so far */

	/* LOOP: a ring of slots in the file after the header. */
	u32 slot_size;
	u32 slot_count;
	u32 slot;			/* the slot being filled */
	u64 slot_used;			/* entry bytes already in that slot */
	u32 slot_records;		/* event records already there */
	u32 slot_events[POSIXTRACE_LOG_SLOTS_MAX]; /* records per slot */

	u64 bytes;			/* UNTIL_FULL: record bytes since clear */
	bool full;			/* log_full_status */
	bool overrun;			/* log_overrun_status, reset when read */
	bool broken;			/* a write failed half way: stop writing */
	int error;			/* first error not reported yet */
	u64 events_flushed;
	u64 events_discarded;
	u64 events_in_file;		/* sequential: since the last clear */
	/*
	 * The flush's watchdog (flush.c) reads @progress without a lock, and
	 * sets @abandoned when it stopped moving: nothing is written after.
	 */
	u64 progress;
	bool abandoned;
};

int posixtrace_log_open(struct posixtrace_log *log, int fd,
			const struct posixtrace_attr *attr);
void posixtrace_log_write(struct posixtrace_log *log,
			  struct posixtrace_names *names, const u8 *recs,
			  size_t bytes);
void posixtrace_log_clear(struct posixtrace_log *log);
bool posixtrace_log_close(struct posixtrace_log *log,
			  struct posixtrace_names *names,
			  const struct posixtrace_status *st,
			  const unsigned long *filter);
void posixtrace_log_release(struct posixtrace_log *log, bool sync);

#endif /* _POSIXTRACE_LOG_H */
