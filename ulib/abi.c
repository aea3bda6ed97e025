// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where <trace.h> meets <linux/posixtrace.h>: the build-time proof that the
 * two agree, and the conversions between trace_attr_t and the kernel's
 * struct posixtrace_attr.
 */

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/posixtrace_log.h>

#include <posixtrace-k.h>

#include "internal.h"

#define PTK_SAME(a, b) _Static_assert((a) == (b), #a " != " #b)

PTK_SAME(POSIX_TRACE_RUNNING, POSIXTRACE_RUNNING);
PTK_SAME(POSIX_TRACE_SUSPENDED, POSIXTRACE_SUSPENDED);
PTK_SAME(POSIX_TRACE_FULL, POSIXTRACE_FULL);
PTK_SAME(POSIX_TRACE_NOT_FULL, POSIXTRACE_NOT_FULL);
PTK_SAME(POSIX_TRACE_OVERRUN, POSIXTRACE_OVERRUN);
PTK_SAME(POSIX_TRACE_NO_OVERRUN, POSIXTRACE_NO_OVERRUN);
PTK_SAME(POSIX_TRACE_FLUSHING, POSIXTRACE_FLUSHING);
PTK_SAME(POSIX_TRACE_NOT_FLUSHING, POSIXTRACE_NOT_FLUSHING);
PTK_SAME(POSIX_TRACE_LOOP, POSIXTRACE_LOOP);
PTK_SAME(POSIX_TRACE_UNTIL_FULL, POSIXTRACE_UNTIL_FULL);
PTK_SAME(POSIX_TRACE_FLUSH, POSIXTRACE_FLUSH);
PTK_SAME(POSIX_TRACE_APPEND, POSIXTRACE_APPEND);
PTK_SAME(POSIX_TRACE_CLOSE_FOR_CHILD, POSIXTRACE_CLOSE_FOR_CHILD);
PTK_SAME(POSIX_TRACE_INHERITED, POSIXTRACE_INHERITED);
PTK_SAME(POSIX_TRACE_NOT_TRUNCATED, POSIXTRACE_NOT_TRUNCATED);
PTK_SAME(POSIX_TRACE_TRUNCATED_RECORD, POSIXTRACE_TRUNCATED_RECORD);
PTK_SAME(POSIX_TRACE_TRUNCATED_READ, POSIXTRACE_TRUNCATED_READ);
PTK_SAME(POSIX_TRACE_SET_EVENTSET, POSIXTRACE_SET_EVENTSET);
PTK_SAME(POSIX_TRACE_ADD_EVENTSET, POSIXTRACE_ADD_EVENTSET);
PTK_SAME(POSIX_TRACE_SUB_EVENTSET, POSIXTRACE_SUB_EVENTSET);

PTK_SAME(POSIX_TRACE_ERROR, POSIXTRACE_EVENT_ERROR);
PTK_SAME(POSIX_TRACE_START, POSIXTRACE_EVENT_START);
PTK_SAME(POSIX_TRACE_STOP, POSIXTRACE_EVENT_STOP);
PTK_SAME(POSIX_TRACE_OVERFLOW, POSIXTRACE_EVENT_OVERFLOW);
PTK_SAME(POSIX_TRACE_RESUME, POSIXTRACE_EVENT_RESUME);
PTK_SAME(POSIX_TRACE_FLUSH_START, POSIXTRACE_EVENT_FLUSH_START);
PTK_SAME(POSIX_TRACE_FLUSH_STOP, POSIXTRACE_EVENT_FLUSH_STOP);
PTK_SAME(POSIX_TRACE_FILTER, POSIXTRACE_EVENT_FILTER);
PTK_SAME(POSIX_TRACE_UNNAMED_USER_EVENT, POSIXTRACE_EVENT_UNNAMED_USER);
PTK_SAME(POSIX_TRACE_UNNAMED_USEREVENT, POSIXTRACE_EVENT_UNNAMED_USER);

PTK_SAME(POSIXTRACE_K_KERNEL_PROC, POSIXTRACE_KERNEL_PROC);
PTK_SAME(POSIXTRACE_K_KERNEL_SIGNAL, POSIXTRACE_KERNEL_SIGNAL);
PTK_SAME(POSIXTRACE_K_KERNEL_SYSCALL, POSIXTRACE_KERNEL_SYSCALL);
PTK_SAME(POSIXTRACE_K_KERNEL_SCHED, POSIXTRACE_KERNEL_SCHED);
PTK_SAME(POSIXTRACE_K_KERNEL_ALL, POSIXTRACE_KERNEL_ALL);
PTK_SAME(POSIXTRACE_K_EVENT_PROC_FORK, POSIXTRACE_EVENT_PROC_FORK);
PTK_SAME(POSIXTRACE_K_EVENT_PROC_EXEC, POSIXTRACE_EVENT_PROC_EXEC);
PTK_SAME(POSIXTRACE_K_EVENT_PROC_EXIT, POSIXTRACE_EVENT_PROC_EXIT);
PTK_SAME(POSIXTRACE_K_EVENT_SIGNAL_GENERATE, POSIXTRACE_EVENT_SIGNAL_GENERATE);
PTK_SAME(POSIXTRACE_K_EVENT_SIGNAL_DELIVER, POSIXTRACE_EVENT_SIGNAL_DELIVER);
PTK_SAME(POSIXTRACE_K_EVENT_SYSCALL_ENTRY, POSIXTRACE_EVENT_SYSCALL_ENTRY);
PTK_SAME(POSIXTRACE_K_EVENT_SYSCALL_EXIT, POSIXTRACE_EVENT_SYSCALL_EXIT);
PTK_SAME(POSIXTRACE_K_EVENT_SCHED_OUT, POSIXTRACE_EVENT_SCHED_OUT);
PTK_SAME(POSIXTRACE_K_EVENT_SCHED_IN, POSIXTRACE_EVENT_SCHED_IN);
PTK_SAME(POSIXTRACE_K_EVENT_SCHED_WAKEUP, POSIXTRACE_EVENT_SCHED_WAKEUP);
PTK_SAME(POSIXTRACE_K_EVENT_SCHED_MIGRATE, POSIXTRACE_EVENT_SCHED_MIGRATE);

PTK_SAME(TRACE_NAME_MAX, POSIXTRACE_NAME_MAX);
PTK_SAME(TRACE_EVENT_NAME_MAX, POSIXTRACE_EVENT_NAME_MAX);
PTK_SAME(TRACE_USER_EVENT_MAX, POSIXTRACE_USER_EVENT_MAX);
PTK_SAME(__PTK_EVENT_ID_MAX, POSIXTRACE_EVENT_ID_MAX);
PTK_SAME(__PTK_NAME_SIZE, POSIXTRACE_NAME_MAX + 1);
PTK_SAME(sizeof(((trace_attr_t *)0)->__name),
	 sizeof(((struct posixtrace_attr *)0)->name));
PTK_SAME(sizeof(((trace_attr_t *)0)->__name),
	 sizeof(((struct posixtrace_log_attr *)0)->name));

/* The fill values must not be mistaken for any shared one. */
_Static_assert(POSIX_TRACE_WOPID_EVENTS > POSIXTRACE_INHERITED &&
	       POSIX_TRACE_ALL_EVENTS < POSIXTRACE_SET_EVENTSET,
	       "TEF constants overlap the shared ones");

/* A trace_event_set_t is what the module reads and writes as a filter. */
PTK_SAME(sizeof(trace_event_set_t), sizeof(struct posixtrace_eventset));
PTK_SAME(offsetof(trace_event_set_t, __bits),
	 offsetof(struct posixtrace_eventset, bits));
PTK_SAME(sizeof(((trace_event_set_t *)0)->__bits),
	 sizeof(((struct posixtrace_eventset *)0)->bits));
PTK_SAME(_Alignof(trace_event_set_t), _Alignof(struct posixtrace_eventset));
_Static_assert(sizeof(trace_event_id_t) == sizeof(__u32),
	       "trace_event_id_t must carry a __u32 identifier");
/* The ABI of trace_attr_t is its size; later members go in __reserved. */
_Static_assert(sizeof(trace_attr_t) == 256, "trace_attr_t changed size");
_Static_assert(sizeof(struct posixtrace_record) % 8 == 0,
	       "records are 8-byte aligned");

/* The defaults; "impl-defined" in POSIX, documented in the man page. */
#define PTK_DEFAULT_STREAM_SIZE		(1024 * 1024)
#define PTK_DEFAULT_MAX_DATA_SIZE	1024
#define PTK_DEFAULT_LOG_SIZE		(4 * 1024 * 1024)

void ptk_attr_defaults(trace_attr_t *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->__magic = PTK_ATTR_MAGIC;
	attr->__stream_size = PTK_DEFAULT_STREAM_SIZE;
	attr->__max_data_size = PTK_DEFAULT_MAX_DATA_SIZE;
	attr->__log_size = PTK_DEFAULT_LOG_SIZE;
	attr->__stream_full_policy = POSIX_TRACE_LOOP;
	attr->__log_full_policy = POSIX_TRACE_LOOP;
	attr->__inheritance = POSIX_TRACE_CLOSE_FOR_CHILD;
}

bool ptk_attr_valid(const trace_attr_t *attr)
{
	return attr && attr->__magic == PTK_ATTR_MAGIC;
}

void ptk_attr_to_uapi(const trace_attr_t *attr, struct posixtrace_attr *u)
{
	memset(u, 0, sizeof(*u));
	u->size = sizeof(*u);
	/* Setters keep it terminated; a corrupt object must not leak bytes. */
	memcpy(u->name, attr->__name, sizeof(u->name) - 1);
	u->stream_size = attr->__stream_size;
	u->max_data_size = attr->__max_data_size;
	u->log_size = attr->__log_size;
	u->stream_full_policy = (__u32)attr->__stream_full_policy;
	u->log_full_policy = (__u32)attr->__log_full_policy;
	u->inheritance = (__u32)attr->__inheritance;
	u->kernel_events = attr->__kernel_events;
}

static uint64_t ptk_clamp_size(__u64 v)
{
	return v > SIZE_MAX ? SIZE_MAX : v;
}

void ptk_attr_from_uapi(const struct posixtrace_attr *u, trace_attr_t *attr)
{
	size_t len = strnlen(u->name, TRACE_NAME_MAX - 1);

	ptk_attr_defaults(attr);
	/* Stored names are at most TRACE_NAME_MAX - 1 long: see attr.c. */
	memcpy(attr->__name, u->name, len);
	attr->__stream_size = ptk_clamp_size(u->stream_size);
	attr->__max_data_size = ptk_clamp_size(u->max_data_size);
	attr->__log_size = ptk_clamp_size(u->log_size);
	attr->__stream_full_policy = (int32_t)u->stream_full_policy;
	attr->__log_full_policy = (int32_t)u->log_full_policy;
	attr->__inheritance = (int32_t)u->inheritance;
	attr->__kernel_events = u->kernel_events;
	attr->__create_sec = u->create_time_sec;
	attr->__create_nsec = u->create_time_nsec;
	attr->__flags = PTK_ATTR_HAS_CREATE_TIME | PTK_ATTR_STREAM_POLICY_SET;
}

/*
 * The attributes a log recorded (little-endian, as in the file). Like
 * get_attr's, they carry the creation time and the stream-full-policy
 * in force; and the clock resolution the writer had, when it said.
 * The generation version stays the library's.
 */
void ptk_attr_from_log(const struct posixtrace_log_attr *a,
		       trace_attr_t *attr)
{
	size_t len = strnlen(a->name, TRACE_NAME_MAX - 1);
	uint32_t res = le32toh(a->clock_res_nsec);

	ptk_attr_defaults(attr);
	memcpy(attr->__name, a->name, len);
	attr->__stream_size = ptk_clamp_size(le64toh(a->stream_size));
	attr->__max_data_size = ptk_clamp_size(le64toh(a->max_data_size));
	attr->__log_size = ptk_clamp_size(le64toh(a->log_size));
	attr->__stream_full_policy = (int32_t)le32toh(a->stream_full_policy);
	attr->__log_full_policy = (int32_t)le32toh(a->log_full_policy);
	attr->__inheritance = (int32_t)le32toh(a->inheritance);
	attr->__create_sec = (int64_t)le64toh(a->create_time_sec);
	attr->__create_nsec = le32toh(a->create_time_nsec);
	attr->__kernel_events = le32toh(a->kernel_events);
	attr->__flags = PTK_ATTR_HAS_CREATE_TIME | PTK_ATTR_STREAM_POLICY_SET;
	if (res) {
		attr->__clock_res_nsec = res;
		attr->__flags |= PTK_ATTR_HAS_CLOCK_RES;
	}
}
