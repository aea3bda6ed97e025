/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_STREAM_CORE_H
#define _POSIXTRACE_STREAM_CORE_H

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/posixtrace.h>
#include <linux/spinlock.h>
#include <linux/time64.h>
#include <linux/timer.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/posixtrace_netlink.h>

#include "buf.h"
#include "stream.h"
#include "syscall_select.h"

/*
 * The stream core: stream.c (lifetime and control), stream_record.c (recording,
 * and taking records out), flush.c (the trace log) and links.c (the
 * processes a stream traces) share struct posixtrace_stream, and only
 * they include this header. Every other file uses stream.h's functions.
 */

struct posixtrace_kbufs;
struct posixtrace_process;

/*
 * A reader's (or the log's) batch that a drain stores records straight
 * into, while the stream holds none (stream_record.c, stream_read.c): @used of
 * @room bytes at @dst, @n records in it, all recorded after the stream's
 * @clears-th posix_trace_clear() (a clear empties the batch too). @pieces:
 * the log's thread of a FLUSH stream, which takes what the sources hold a
 * batch at a time however much they hold (posixtrace_stream_take_direct()).
 */
struct posixtrace_direct {
	u8 *dst;
	size_t room;
	size_t used;
	int n;
	u32 clears;
	bool pieces;
};

/* A stream's news not yet sent to monitoring, oldest at @head. */
struct posixtrace_news {
	u8 events[15];		/* POSIXTRACE_NL_EV_* */
	u8 head;
	u8 len;
	bool lost;		/* some were dropped: the queue was full */
};

/*
 * What a stream does with an event generated now: its recording state
 * (stream_record.c). One word, written under the stream's lock with
 * WRITE_ONCE() (posixtrace_stream_set_state()) and only once a change is
 * whole, so that the kernel events' probes and realtime threads, which
 * take no lock, never see one half made (posixtrace_stream_lose_nowait()).
 * Shutting down is the stream's lifetime, not a recording state
 * (@shut_down): a stream killed after its creator's death keeps its state
 * for the records made before the death that still come in.
 */
enum posixtrace_stream_state {
	/* Suspended (as created, or posix_trace_stop()): not generated. */
	POSIXTRACE_STREAM_STOPPED,
	/* Recorded, or lost as the full policy says. */
	POSIXTRACE_STREAM_RUNNING,
	/* UNTIL_FULL, stopped because full: lost; restarts once emptied. */
	POSIXTRACE_STREAM_FULL,
	/* ... and posix_trace_stop() since: not generated, and stays so. */
	POSIXTRACE_STREAM_FULL_STOPPED,
	/*
	 * FULL, emptied: its START is being stored. Lost, as when FULL, but
	 * no longer stopped full (a flush is not asked for again).
	 */
	POSIXTRACE_STREAM_RESTARTING,
};

/*
 * A trace stream.
 *
 * References: one held by its file (the anon inode fd the creator got), one
 * by its log's thread while it runs (flush.c), one by its news work while
 * queued, and short-lived ones taken by the reap work and monitoring's
 * lookups. Emitters find the stream on its process's RCU
 * list and never take a reference: the stream is freed after a grace
 * period.
 *
 * Locks:
 *  - @ctl_lock (mutex) serialises start, stop, clear and filter changes.
 *    Shutdown does not take it: it must never wait for a caller that
 *    holds it (see posixtrace_stream_shutdown()).
 *  - @lock (spinlock) protects @buf, @state, @shut_down, the status
 *    fields and the counters. Emitters and readers take it; nothing done
 *    under it sleeps or touches user memory.
 *  - @read_lock (mutex) makes readers take turns, as they share @bounce
 *    (stream_read.c).
 *  Order: ctl_lock, then read_lock, then the links lock (links.c), then a
 *  process's lock, then @lock.
 *
 * @log belongs to the log's thread alone (flush.c): nothing else writes
 * the log, not even posix_trace_clear(), which only counts in @clears.
 */
struct posixtrace_stream {
	struct kref ref;
	struct rcu_head rcu;
	/* stream.c: identity and lifetime; fixed once published. */
	u64 id;				/* for monitoring: never reused */
	kuid_t owner;			/* the creator's euid: who may see it */
	kuid_t quota_user;		/* whose quota it counts in (quota.c) */
	char *log_path;			/* the log's path at creation, or NULL */
	struct pid *creator;		/* the creating thread group */
	struct pid_namespace *pid_ns;	/* the creator's: pids are reported in it */
	/* The process it was created for; reference held. */
	struct posixtrace_process *proc;
	/*
	 * The table that names its event types, reference held: @proc's when
	 * the stream was made. Fixed, so that an identifier names one type
	 * for as long as the stream lives, should @proc move to a table of
	 * its own (links.c's posixtrace_links_own_names()).
	 */
	struct posixtrace_names *names;
	/*
	 * @proc's drain domain (drain.c), with a reference: its kbufs
	 * are listed there, and every process it traces is in it (links.c).
	 * Every drain for the stream drains it.
	 */
	struct posixtrace_drain_domain *domain;
	struct posixtrace_attr attr;	/* as created; never changes */

	struct mutex ctl_lock;		/* see "Locks" above */
	struct mutex read_lock;		/* see "Locks" above */
	spinlock_t lock;		/* see "Locks" above */

	/*
	 * kbuf.c: events made by system call by threads without a ring,
	 * one buffer per possible CPU, until a drain takes them; NULL once
	 * shut down (RCU). A writer drains past @kbuf_threshold bytes.
	 */
	struct posixtrace_kbufs __rcu *kbufs;
	size_t kbuf_threshold;
	/*
	 * Events lost by makers that take no sleeping lock, a probe's that
	 * found its kbuf full and a realtime thread's that would have
	 * waited (posixtrace_stream_lose_nowait()), not yet in
	 * @events_lost: a drain or a status adds them.
	 */
	atomic64_t lost_nowait;
	bool kevents_held;		/* posixtrace_kevents_get() done */
	/* stream_record.c: the records and the recording state, under @lock. */
	struct posixtrace_buf buf;
	enum posixtrace_stream_state state;
	bool shut_down;
	bool gap_pending;		/* LOOP: records overwritten since last read */
	bool gap_overflow;		/* ... to be reported by OVERFLOW */
	bool gap_resume;		/* ... and RESUME (not filtered out then) */
	bool enable_stale;		/* drained: the enable bits need redoing */
	/*
	 * A reader's batch, while its drain stores records straight into it
	 * (stream_read.c); NULL otherwise.
	 */
	struct posixtrace_direct *direct;
	/*
	 * stream.c: state changes under way (their drain done, the change
	 * not yet made); kicks drop nothing meanwhile (stream_record.c). Atomic:
	 * a shutdown takes no @ctl_lock (posixtrace_stream_shutdown()).
	 */
	atomic_t changing;
	/*
	 * stream.c: state changes begun and ended, one each; a kick's walk
	 * counted under another value counts nothing (lib/ring_walk.c).
	 */
	atomic_t changes;
	/*
	 * stream.c: the time of the creator's exit or exec (ns since the
	 * Epoch), noted by its hook under the streams' lock, 0 before; never
	 * changes after. What its threads make after it is not recorded
	 * (stream_record.c), even before the task work @creator_cb kills the
	 * stream; @creator_gone is set after that kill, for the reap work.
	 */
	s64 died_ns;
	struct callback_head creator_cb;
	bool creator_gone;
	/*
	 * stream.c: killed after its creator's death, the time of the death,
	 * until a shutdown (the reap work's, or the last close's) has drained
	 * after it: ring records stamped up to then still go in (stream_record.c);
	 * else 0.
	 */
	s64 doom_ns;
	s64 gap_ts_sec;			/* time of the first one overwritten */
	u32 gap_ts_nsec;
	/* Event types not recorded (TEF); empty at creation. */
	DECLARE_BITMAP(filter, POSIXTRACE_EVENT_ID_MAX);
	/* syscall_select.c: the system calls recorded; set under @ctl_lock. */
	struct posixtrace_syscall_sel syscalls;
	u32 full_status;
	u32 overrun_status;
	u64 seq;			/* sequence number of the next event */
	struct timespec64 last_ts;	/* of the last record stored */
	u32 clears;			/* posix_trace_clear()s so far */
	u64 events_recorded;
	u64 events_lost;
	u64 events_read;

	/* flush.c: the log (TRL), or NULL. Flags under @lock. */
	struct posixtrace_log *log;
	u32 log_clears;			/* @clears the log has had: the thread's */
	struct task_struct *flusher;	/* the thread that writes the log */
	bool flusher_started;		/* ... and owns the log's end */
	wait_queue_head_t flush_wq;	/* it waits there for a flush */
	struct timer_list stall_timer;	/* the watchdog of the final flush */
	u64 stall_progress;		/* the log's progress at its last tick */
	struct completion log_closed;	/* the final flush is done */
	bool flush_requested;		/* a flush is due */
	bool take_requested;		/* the rings' records are due */
	bool flushing;			/* ... or running: flush_status */
	bool log_final;			/* shutting down: flush, then close */
	bool log_full;			/* log_full_status */
	bool log_overrun;		/* log_overrun_status */
	u64 log_discarded;		/* the log's events_discarded */
	int flush_error;		/* first flush error not yet read */

	/* News for monitoring (stream.c), under @lock; sent by @news_work. */
	struct posixtrace_news news;
	struct work_struct news_work;

	/* stream_read.c: readers (the log's thread, with a log). */
	wait_queue_head_t wq;		/* readers waiting for events */
	atomic_t readers_waking;	/* ... and about to: see stream_read.c */
	/*
	 * A kick found records for a reader in its ring: the reader takes
	 * them from there (stream_read.c). Set before the wakeup.
	 */
	bool sources_news;
	void *bounce;			/* where records taken out go first */
	size_t bounce_size;
	size_t map_size;		/* @bounce's pages; 0: a log's */
	unsigned int mappers;		/* mmap()s under way, under @lock */
	bool reading;			/* a reader uses @bounce, under @lock */
	unsigned int vmas;		/* mappings of @bounce, under @lock */
	bool slot_held;			/* shut down mapped: see stream_read.c */

	struct list_head links;		/* the processes traced: links.c */
	unsigned int nr_links;		/* under the links lock */
	struct list_head all_node;	/* in the stream list */
};

/* Recording: an event generated now is recorded (or lost to room). */
static inline bool
posixtrace_stream_running(const struct posixtrace_stream *stream)
{
	return stream->state == POSIXTRACE_STREAM_RUNNING;
}

/* Stopped because it was full (UNTIL_FULL), restarting or not. */
static inline bool
posixtrace_stream_stopped_full(const struct posixtrace_stream *stream)
{
	return stream->state == POSIXTRACE_STREAM_FULL ||
	       stream->state == POSIXTRACE_STREAM_FULL_STOPPED;
}

/*
 * Does an event lost in @state count, as posixtrace_stream_emit_one()
 * judges one: recording, or full until it restarts?
 */
static inline bool
posixtrace_stream_counts_lost(enum posixtrace_stream_state state)
{
	return state == POSIXTRACE_STREAM_RUNNING ||
	       state == POSIXTRACE_STREAM_FULL ||
	       state == POSIXTRACE_STREAM_RESTARTING;
}

/* stream.c */
void posixtrace_stream_slot_put(kuid_t user);
void *posixtrace_stream_bounce_unused(struct posixtrace_stream *stream);
void __posixtrace_stream_status(struct posixtrace_stream *stream,
				struct posixtrace_status *st);
void posixtrace_stream_news(struct posixtrace_stream *stream, u32 event);

/* stream_record.c */
size_t posixtrace_stream_ring_size(const struct posixtrace_stream *stream);
void posixtrace_stream_count_lost_nowait(struct posixtrace_stream *stream);
bool posixtrace_stream_store_system(struct posixtrace_stream *stream, u32 id,
				    struct task_struct *task,
				    const struct timespec64 *ts,
				    const void *data, size_t len);
bool posixtrace_stream_store_error(struct posixtrace_stream *stream, int error);
void posixtrace_stream_drained(struct posixtrace_stream *stream);
void posixtrace_stream_set_state(struct posixtrace_stream *stream,
				 enum posixtrace_stream_state state);
void posixtrace_stream_store_stop(struct posixtrace_stream *stream,
				  struct task_struct *task,
				  const struct timespec64 *ts, u32 automatic);
void posixtrace_stream_wake(struct posixtrace_stream *stream);
void posixtrace_stream_start(struct posixtrace_stream *stream);
void posixtrace_stream_stop(struct posixtrace_stream *stream);
int posixtrace_stream_take(struct posixtrace_stream *stream, u8 *dst,
			   size_t room, u64 seq_limit, size_t *bytes,
			   bool reader, u32 *clears);
void posixtrace_batch_events(const void *batch, size_t bytes,
			     struct posixtrace_batch_taken *taken);
bool posixtrace_stream_direct_fits(struct posixtrace_stream *stream,
				   u64 source_bytes);
bool posixtrace_stream_direct_begin(struct posixtrace_stream *stream,
				    struct posixtrace_direct *direct,
				    u64 bytes);
void posixtrace_stream_direct_end(struct posixtrace_stream *stream,
				  struct posixtrace_direct *direct);

/* stream_read.c */
struct posixtrace_drain_cut;
bool posixtrace_stream_take_direct(struct posixtrace_stream *stream,
				   struct posixtrace_direct *direct,
				   const struct posixtrace_drain_cut *cut);

/* flush.c */
int posixtrace_flush_open(struct posixtrace_stream *stream, int fd);
void posixtrace_flush_start(struct posixtrace_stream *stream);
void posixtrace_flush_request(struct posixtrace_stream *stream);
void posixtrace_flush_maybe(struct posixtrace_stream *stream);
void posixtrace_flush_clear(struct posixtrace_stream *stream);
void posixtrace_flush_final(struct posixtrace_stream *stream, bool wait);
void posixtrace_flush_free(struct posixtrace_stream *stream);

#endif /* _POSIXTRACE_STREAM_CORE_H */
