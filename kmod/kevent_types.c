// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel event types (kevents.c records them): their names, formats
 * and classes, for the streams that record them and their logs.
 */

#include <linux/build_bug.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/posixtrace.h>

#include "kevent_types.h"

static const char *const posixtrace_kevent_names[] =
	POSIXTRACE_KERNEL_EVENT_NAMES;

static const char *const posixtrace_kevent_formats[] = {
	[POSIXTRACE_EVENT_PROC_FORK] = POSIXTRACE_PROC_FORK_FORMAT,
	[POSIXTRACE_EVENT_PROC_EXEC] = POSIXTRACE_PROC_EXEC_FORMAT,
	[POSIXTRACE_EVENT_PROC_EXIT] = POSIXTRACE_PROC_EXIT_FORMAT,
	[POSIXTRACE_EVENT_SIGNAL_GENERATE] = POSIXTRACE_SIGNAL_GENERATE_FORMAT,
	[POSIXTRACE_EVENT_SIGNAL_DELIVER] = POSIXTRACE_SIGNAL_DELIVER_FORMAT,
	[POSIXTRACE_EVENT_SYSCALL_ENTRY] = POSIXTRACE_SYSCALL_ENTRY_FORMAT,
	[POSIXTRACE_EVENT_SYSCALL_EXIT] = POSIXTRACE_SYSCALL_EXIT_FORMAT,
	[POSIXTRACE_EVENT_SCHED_OUT] = POSIXTRACE_SCHED_OUT_FORMAT,
	[POSIXTRACE_EVENT_SCHED_IN] = POSIXTRACE_SCHED_IN_FORMAT,
	[POSIXTRACE_EVENT_SCHED_WAKEUP] = POSIXTRACE_SCHED_WAKEUP_FORMAT,
	[POSIXTRACE_EVENT_SCHED_MIGRATE] = POSIXTRACE_SCHED_MIGRATE_FORMAT,
};

static const u32 posixtrace_kevent_classes[] = {
	[POSIXTRACE_EVENT_PROC_FORK] = POSIXTRACE_KERNEL_PROC,
	[POSIXTRACE_EVENT_PROC_EXEC] = POSIXTRACE_KERNEL_PROC,
	[POSIXTRACE_EVENT_PROC_EXIT] = POSIXTRACE_KERNEL_PROC,
	[POSIXTRACE_EVENT_SIGNAL_GENERATE] = POSIXTRACE_KERNEL_SIGNAL,
	[POSIXTRACE_EVENT_SIGNAL_DELIVER] = POSIXTRACE_KERNEL_SIGNAL,
	[POSIXTRACE_EVENT_SYSCALL_ENTRY] = POSIXTRACE_KERNEL_SYSCALL,
	[POSIXTRACE_EVENT_SYSCALL_EXIT] = POSIXTRACE_KERNEL_SYSCALL,
	[POSIXTRACE_EVENT_SCHED_OUT] = POSIXTRACE_KERNEL_SCHED,
	[POSIXTRACE_EVENT_SCHED_IN] = POSIXTRACE_KERNEL_SCHED,
	[POSIXTRACE_EVENT_SCHED_WAKEUP] = POSIXTRACE_KERNEL_SCHED,
	[POSIXTRACE_EVENT_SCHED_MIGRATE] = POSIXTRACE_KERNEL_SCHED,
};

static_assert(ARRAY_SIZE(posixtrace_kevent_names) ==
	      POSIXTRACE_EVENT_KERNEL_END);
static_assert(POSIXTRACE_EVENT_KERNEL_END <= POSIXTRACE_EVENT_SYSTEM_MAX);

/* @id's name and format if it is a kernel event type of @classes. */
const char *posixtrace_kevent_name(u32 id, u32 classes, const char **format)
{
	if (id < POSIXTRACE_EVENT_KERNEL_FIRST ||
	    id >= POSIXTRACE_EVENT_KERNEL_END ||
	    !(posixtrace_kevent_classes[id] & classes))
		return NULL;
	if (format)
		*format = posixtrace_kevent_formats[id];
	return posixtrace_kevent_names[id];
}

/* Its format, for any kernel event type @id. */
const char *posixtrace_kevent_format(u32 id)
{
	return posixtrace_kevent_formats[id];
}

/* The first kernel event type of @classes at or after @from. */
bool posixtrace_kevent_next(u32 classes, u32 from, u32 *id)
{
	u32 i = max_t(u32, from, POSIXTRACE_EVENT_KERNEL_FIRST);

	for (; i < POSIXTRACE_EVENT_KERNEL_END; i++) {
		if (posixtrace_kevent_classes[i] & classes) {
			*id = i;
			return true;
		}
	}
	return false;
}
