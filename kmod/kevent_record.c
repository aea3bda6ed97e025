// SPDX-License-Identifier: GPL-2.0
/*
 * What every probe of a kernel event class does (kevents.c,
 * kevent_syscall.c): find whether a stream tracing the task's process
 * records the class, and post the event to each such stream's kbuf for
 * this CPU. Probes run with preemption off, maybe under the scheduler's
 * or a signal's locks: raw locks only, no allocation, no wakeup.
 */

#include <linux/rculist.h>
#include <linux/sched.h>

#include "kevent_record.h"
#include "links.h"
#include "process.h"
#include "stream.h"

/* @emit for event type @id of @task, @len bytes of @data. */
void posixtrace_kev_emit_init(struct posixtrace_emit *emit,
			      struct task_struct *task, u32 id,
			      const void *data, size_t len)
{
	*emit = (struct posixtrace_emit) {
		.event_id = id,
		.tgid = task_tgid(task),
		.tid = task_pid(task),
		.data = data,
		.data_len = len,
		.copied = len,
	};
}

/*
 * The entry of @task's process, if some stream tracing it records
 * @class; else NULL. Under RCU. Probes look first, so that an event of a
 * process nobody records costs a lookup, nothing more.
 */
struct posixtrace_process *posixtrace_kev_traced(struct task_struct *task,
						 u32 class)
{
	struct posixtrace_process *proc;
	struct posixtrace_link *link;

	proc = posixtrace_process_lookup(task_tgid(task));
	if (!proc)
		return NULL;
	list_for_each_entry_rcu(link, &proc->links, proc_node)
		if (posixtrace_stream_kernel_events(link->stream) & class)
			return proc;
	return NULL;
}

/*
 * @emit into every stream tracing @proc that records @class; @number (if
 * any) fills @emit's data for each stream first. Under RCU.
 */
void posixtrace_kev_record(struct posixtrace_process *proc, u32 class,
			   struct posixtrace_emit *emit, void *data,
			   posixtrace_kev_number_t number, const void *arg)
{
	struct posixtrace_link *link;
	struct posixtrace_stream *stream;

	list_for_each_entry_rcu(link, &proc->links, proc_node) {
		stream = link->stream;
		if (!(posixtrace_stream_kernel_events(stream) & class))
			continue;
		if (number)
			number(data, posixtrace_stream_pid_ns(stream), arg);
		posixtrace_stream_post_kernel(stream, emit);
	}
}
