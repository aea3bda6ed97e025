/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_STREAM_H
#define _POSIXTRACE_STREAM_H

#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/posixtrace.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/uidgid.h>

/*
 * A trace stream, as the rest of the module sees it: an object behind
 * functions. Its definition is the stream core's (stream_core.h).
 */
struct posixtrace_stream;
struct posixtrace_syscall_sel;
struct posixtrace_syscalls;
struct posixtrace_names;
struct task_struct;

/* An event as an emitter hands it to every stream tracing it. */
struct posixtrace_emit {
	u32 event_id;
	/*
	 * Who made it: its thread group and thread, which may have been
	 * reaped by the time a drain takes a ring's record (their numbers
	 * stay in the struct pids, which the ring holds).
	 */
	struct pid *tgid, *tid;
	/*
	 * Or, from a stream's kbuf (@tgid and @tid NULL), its numbers in
	 * that stream's pid namespace, taken when it was made.
	 */
	bool numbered;
	pid_t pid_nr, tid_nr;
	u64 prog_address;
	u64 thread;
	const void *data;
	size_t data_len;		/* as the producer gave it */
	size_t copied;			/* bytes at @data: at most the largest max */
	/* From a thread ring: when the thread made it; else stamped now. */
	bool timed;
	struct timespec64 ts;
	/* A thread ring held a record that did not check out: one lost. */
	bool garbage;
};

/* Commands that change a stream's state (start, stop, clear, shutdown). */
enum posixtrace_stream_cmd {
	POSIXTRACE_STREAM_START,
	POSIXTRACE_STREAM_STOP,
	POSIXTRACE_STREAM_CLEAR,
	POSIXTRACE_STREAM_SHUTDOWN,
};

/*
 * Monitoring watches the streams (netlink.c): it is told of every change
 * (POSIXTRACE_NL_EV_*), in order, from a work item, while it listens.
 */
struct posixtrace_stream_watcher {
	bool (*listening)(void);	/* cheap; called under spinlocks */
	void (*changed)(struct posixtrace_stream *stream, u32 event);
};

/* stream.c: lifetime, control, and what others may know of a stream */
int posixtrace_stream_create(const struct posixtrace_attr __user *uattr,
			     pid_t pid, int mem_fd, int log_fd,
			     const struct file_operations *fops);
void posixtrace_stream_get(struct posixtrace_stream *stream);
void posixtrace_stream_put(struct posixtrace_stream *stream);
bool posixtrace_stream_tryget(struct posixtrace_stream *stream);
bool posixtrace_stream_usable(struct posixtrace_stream *stream);
int posixtrace_stream_control(struct posixtrace_stream *stream,
			      enum posixtrace_stream_cmd cmd);
int posixtrace_stream_set_filter(struct posixtrace_stream *stream,
				 const unsigned long *set, u32 how);
void posixtrace_stream_get_filter(struct posixtrace_stream *stream,
				  unsigned long *set);
int posixtrace_stream_status(struct posixtrace_stream *stream,
			     struct posixtrace_status *st, bool reset);
const struct posixtrace_attr *
posixtrace_stream_attr(struct posixtrace_stream *stream);
struct posixtrace_names *
posixtrace_stream_names(struct posixtrace_stream *stream);
int posixtrace_stream_names_allowed(struct posixtrace_stream *stream);
u64 posixtrace_stream_id(struct posixtrace_stream *stream);
u32 posixtrace_stream_kernel_events(const struct posixtrace_stream *stream);
const struct posixtrace_syscall_sel *
posixtrace_stream_syscalls(const struct posixtrace_stream *stream);
int posixtrace_stream_select_syscalls(struct posixtrace_stream *stream,
				      struct posixtrace_syscalls *req,
				      bool set);
struct pid_namespace *
posixtrace_stream_pid_ns(const struct posixtrace_stream *stream);
struct pid *posixtrace_stream_creator(struct posixtrace_stream *stream);
kuid_t posixtrace_stream_owner(struct posixtrace_stream *stream);
const char *posixtrace_stream_log_path(struct posixtrace_stream *stream);
void posixtrace_stream_release(struct posixtrace_stream *stream);
struct posixtrace_stream *posixtrace_stream_find(u64 id);
struct posixtrace_stream *posixtrace_stream_next(u64 after);
void posixtrace_streams_watch(const struct posixtrace_stream_watcher *watcher);
void posixtrace_streams_creator_gone(struct task_struct *task);
int posixtrace_streams_init(void);
void posixtrace_streams_exit(void);

/* stream_record.c: recording, and taking records out */
/* A kick's view of a LOOP stream: lib/ring_walk.h. */
struct posixtrace_loop_view;

size_t posixtrace_stream_loop_capacity(const struct posixtrace_stream *stream);
u64 posixtrace_stream_bytes_bound(u64 source_bytes);
bool posixtrace_stream_loop_view(struct posixtrace_stream *stream,
				 struct posixtrace_loop_view *view);
bool posixtrace_stream_overwritten(struct posixtrace_stream *stream, u64 n,
				   const struct timespec64 *first, u64 kept);
void posixtrace_stream_sources_ready(struct posixtrace_stream *stream);
void posixtrace_stream_emit(struct posixtrace_stream *stream,
			    const struct posixtrace_emit *emits,
			    unsigned int n);
/*
 * The streams an event by system call found with a full kbuf, referenced:
 * posted again after a drain (posixtrace_stream_post_retry()).
 */
struct posixtrace_post_retry {
	struct posixtrace_stream *streams[4];
	unsigned int n;
};

bool posixtrace_stream_post(struct posixtrace_stream *stream,
			    const struct posixtrace_emit *emit,
			    struct posixtrace_post_retry *retry);
void posixtrace_stream_post_retry(struct posixtrace_post_retry *retry,
				  const struct posixtrace_emit *emit);
void posixtrace_stream_post_nowait(struct posixtrace_stream *stream,
				   const struct posixtrace_emit *emit);
void posixtrace_stream_lose_nowait(struct posixtrace_stream *stream,
				   const struct posixtrace_emit *emit);
void posixtrace_stream_error(struct posixtrace_stream *stream, int error);
bool posixtrace_stream_admitted(struct posixtrace_stream *stream,
				unsigned long *admitted);
size_t posixtrace_stream_data_max(struct posixtrace_stream *stream);
/* The events of a batch a reader took: to count them if it never gets it. */
struct posixtrace_batch_taken {
	u64 events;
	s64 ts_sec;		/* the first's time */
	u32 ts_nsec;
};

int posixtrace_stream_read(struct posixtrace_stream *stream,
			   const struct posixtrace_getnext *gn, size_t *bytes,
			   u64 *map_offset, struct posixtrace_batch_taken *taken);
void posixtrace_stream_lose_taken(struct posixtrace_stream *stream,
				  const struct posixtrace_batch_taken *taken);
size_t posixtrace_stream_map_size(const struct posixtrace_stream *stream);
int posixtrace_stream_mmap(struct posixtrace_stream *stream,
			   struct vm_area_struct *vma);
__poll_t posixtrace_stream_poll(struct posixtrace_stream *stream,
				struct file *file, poll_table *wait);

/* flush.c */
int posixtrace_flush(struct posixtrace_stream *stream);
bool posixtrace_flush_takes(struct posixtrace_stream *stream, bool ask);

#endif /* _POSIXTRACE_STREAM_H */
