/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_LINKS_H
#define _POSIXTRACE_LINKS_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

struct cred;
struct pid;
struct posixtrace_names;
struct posixtrace_process;
struct posixtrace_stream;
struct task_struct;

/*
 * A stream tracing a process. A stream traces the process it was created
 * for and, with inheritance (TRI), every process that one forks, and so
 * on: one link each. See links.c for the locking.
 */
struct posixtrace_link {
	struct list_head proc_node;	/* in proc->links (RCU) */
	struct list_head stream_node;	/* in stream->links */
	struct posixtrace_stream *stream;
	struct posixtrace_process *proc;	/* reference held */
	u64 seq;			/* links.c: its number, as made */
	struct rcu_head rcu;
};

struct posixtrace_emit;
struct posixtrace_post_retry;

struct posixtrace_link *posixtrace_link_new(void);
void posixtrace_link_attach(struct posixtrace_link *link,
			    struct posixtrace_stream *stream,
			    struct posixtrace_process *proc);
void posixtrace_links_drop_stream(struct posixtrace_stream *stream);
void posixtrace_links_wake_producers(struct posixtrace_stream *stream);
void posixtrace_links_hold(struct posixtrace_process *proc);
void posixtrace_links_put(struct posixtrace_process *proc);
void posixtrace_links_forget(struct posixtrace_process *proc);
void posixtrace_links_update(struct posixtrace_stream *stream);
void posixtrace_links_names_grown(struct posixtrace_names *names);
int posixtrace_links_own_names(struct posixtrace_process *proc,
			       const struct cred *cred);
bool posixtrace_links_traced(struct posixtrace_process *proc);
struct posixtrace_stream *
posixtrace_links_only_stream(struct posixtrace_process *proc);
void posixtrace_links_emit(struct posixtrace_process *proc,
			   const struct posixtrace_emit *emits, unsigned int n);
bool posixtrace_links_post(struct posixtrace_process *proc,
			   const struct posixtrace_emit *emit,
			   struct posixtrace_post_retry *retry);
void posixtrace_links_nowait(struct posixtrace_process *proc,
			     const struct posixtrace_emit *emit, bool keep);
unsigned int posixtrace_links_pids(struct posixtrace_stream *stream,
				   struct pid **pids, unsigned int max,
				   unsigned int *count);
u64 posixtrace_links_seq(void);
unsigned long posixtrace_links_generation(void);
bool posixtrace_links_inherited(struct posixtrace_process *proc);
void posixtrace_links_escaped(struct posixtrace_process *proc,
			      unsigned int nr, u64 seq, int err);
void posixtrace_links_inherit(struct posixtrace_process *from,
			      struct posixtrace_process *proc, u64 seq);

#endif /* _POSIXTRACE_LINKS_H */
