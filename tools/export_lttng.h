/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace export --format=lttng: a CTF 1.8 trace laid out as LTTng's
 * kernel tracer (lttng-modules) writes one, for Trace Compass's kernel
 * analyses: "metadata" with env.domain "kernel", and one stream file per
 * CPU (channel0_N, packet context cpu_id N). The kernel events take
 * LTTng's names and fields: sched_switch (prev_comm, prev_tid, prev_prio,
 * prev_state, next_comm, next_tid, next_prio), sched_waking and
 * sched_wakeup_new (comm, tid, prio, target_cpu), sched_migrate_task,
 * sched_process_fork, sched_process_exec, sched_process_exit,
 * signal_generate, signal_deliver, syscall_entry_NAME and
 * syscall_exit_NAME (compat_syscall_* for the 32-bit table; ret at the
 * exit); the event context has pid and tid. Other events keep their
 * type's name, their data as bytes.
 *
 * What it cannot say, since posixtrace records the traced threads only:
 * a switch from or to another task is a switch from or to the CPU's idle
 * task (swapper/N), so Resources shows a CPU idle while an untraced task
 * runs on it. Events other than the sched class's carry no CPU: they go
 * to the CPU their thread last ran on (its last switch-in), or CPU 0
 * before any (without the sched class, everything is on CPU 0). The
 * log's lost events are CPU 0's packets' discarded events.
 */
#ifndef POSIXTRACE_TOOL_EXPORT_LTTNG_H
#define POSIXTRACE_TOOL_EXPORT_LTTNG_H

#include <stdbool.h>
#include <stdint.h>

#include "logread.h"

/* The stream files' names: this, then the CPU's number. */
#define LTTNG_STREAM_PREFIX	"channel0_"

/*
 * Writes the trace of lr into the directory dirfd: 0 or an errno. As
 * ctf's: *nread counts the events read, *read_error says the error was
 * the log's.
 */
int export_lttng(struct log_reader *lr, int dirfd, const uint8_t uuid[16],
		 uint64_t *nread, bool *read_error);

#endif /* POSIXTRACE_TOOL_EXPORT_LTTNG_H */
