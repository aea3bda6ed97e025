// SPDX-License-Identifier: GPL-2.0
/*
 * The system events of POSIX (XSH 2.11.2): their names, what they mean,
 * and the data the log gives them (<linux/posixtrace_log.h>). The library
 * hands their data over in this machine's byte order, as a stream's.
 */

#include <string.h>

#include "dump.h"
#include "kevent.h"

static const struct {
	const char *name;
	const char *meaning;
} sys_events[] = {
	[POSIX_TRACE_ERROR] = { "ERROR",
		"the trace system met an error (a write to the log failed)" },
	[POSIX_TRACE_START] = { "START", "tracing started" },
	[POSIX_TRACE_STOP] = { "STOP", "tracing stopped" },
	[POSIX_TRACE_OVERFLOW] = { "OVERFLOW",
		"the stream overflowed: events after this were lost" },
	[POSIX_TRACE_RESUME] = { "RESUME",
		"recording resumed after an overflow" },
	[POSIX_TRACE_FLUSH_START] = { "FLUSH_START",
		"a flush of the stream to its log started" },
	[POSIX_TRACE_FLUSH_STOP] = { "FLUSH_STOP",
		"a flush of the stream to its log ended" },
	[POSIX_TRACE_FILTER] = { "FILTER", "the event filter changed" },
};

#define NSYS	(sizeof(sys_events) / sizeof(sys_events[0]))

/* The kernel's, named without their posixtrace_ prefix. */
static const struct {
	const char *name;
	const char *meaning;
} kernel_events[] = {
	{ "PROC_FORK", "a traced thread created a thread or process" },
	{ "PROC_EXEC", "a traced process ran a new program" },
	{ "PROC_EXIT", "a traced thread exited" },
	{ "SIGNAL_GENERATE", "a signal was sent to a traced process" },
	{ "SIGNAL_DELIVER", "a traced thread took a signal" },
	{ "SYSCALL_ENTRY", "a traced thread entered a system call" },
	{ "SYSCALL_EXIT", "a traced thread left a system call" },
	{ "SCHED_OUT", "a traced thread left its CPU" },
	{ "SCHED_IN", "a traced thread ran on a CPU" },
	{ "SCHED_WAKEUP", "a traced thread was woken" },
	{ "SCHED_MIGRATE", "a traced thread was moved to another CPU" },
};

/* Identifiers below this are the system's; the unnamed user event next. */
#define SYS_ID_END	POSIX_TRACE_UNNAMED_USER_EVENT

const char *sys_event_name(trace_event_id_t id)
{
	if (id < 0 || id >= SYS_ID_END)
		return NULL;
	if (kevent_is_kernel(id))
		return kernel_events[id - POSIXTRACE_EVENT_KERNEL_FIRST].name;
	return (size_t)id < NSYS ? sys_events[id].name : "SYSTEM";
}

const char *sys_event_meaning(trace_event_id_t id)
{
	if (id >= 0 && (size_t)id < NSYS)
		return sys_events[id].meaning;
	if (kevent_is_kernel(id))
		return kernel_events[id - POSIXTRACE_EVENT_KERNEL_FIRST].meaning;
	return "an event of the trace system";
}

const char *sys_stop_reason(int v)
{
	static const char *const why[] = {
		"posix_trace_stop", "stream full", "log full",
	};

	return v >= 0 && v <= 2 ? why[v] : NULL;
}

int sys_data_int(const unsigned char *p)
{
	int v;

	memcpy(&v, p, sizeof(v));
	return v;
}

unsigned int set_count(const unsigned char *set)
{
	unsigned int n = 0;
	uint64_t w;
	size_t i;

	/* A word's population is the same in either byte order. */
	for (i = 0; i < DUMP_SET_SIZE; i += sizeof(w)) {
		memcpy(&w, set + i, sizeof(w));
		n += (unsigned int)__builtin_popcountll(w);
	}
	return n;
}

int set_next(const unsigned char *set, int from)
{
	const int bits = (int)(8 * DUMP_SET_SIZE);
	uint64_t w;
	int id;

	for (id = from < 0 ? 0 : from; id < bits; id++) {
		memcpy(&w, set + id / 64 * sizeof(w), sizeof(w));
		if (!(w >> (id % 64))) {
			id |= 63;	/* nothing left in this word */
			continue;
		}
		if (w >> (id % 64) & 1)
			return id;
	}
	return -1;
}
