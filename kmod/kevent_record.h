/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KEVENT_RECORD_H
#define _POSIXTRACE_KEVENT_RECORD_H

#include <linux/types.h>

struct pid_namespace;
struct posixtrace_emit;
struct posixtrace_process;
struct task_struct;

/*
 * Numbers the pids in an event's data for one stream's pid namespace,
 * before the event goes to that stream.
 */
typedef void (*posixtrace_kev_number_t)(void *data, struct pid_namespace *ns,
					const void *arg);

void posixtrace_kev_emit_init(struct posixtrace_emit *emit,
			      struct task_struct *task, u32 id,
			      const void *data, size_t len);
struct posixtrace_process *posixtrace_kev_traced(struct task_struct *task,
						 u32 class);
struct posixtrace_process *posixtrace_kev_traced_cached(struct task_struct *task,
							u32 class);
void posixtrace_kev_record(struct posixtrace_process *proc, u32 class,
			   struct posixtrace_emit *emit, void *data,
			   posixtrace_kev_number_t number, const void *arg);
bool posixtrace_kev_call_wanted(struct posixtrace_process *proc, long nr,
				u8 compat);
void posixtrace_kev_record_call(struct posixtrace_process *proc,
				struct posixtrace_emit *emit, long nr,
				u8 compat);

#endif /* _POSIXTRACE_KEVENT_RECORD_H */
