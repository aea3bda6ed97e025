/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <trace.h>: the POSIX Tracing option (IEEE Std 1003.1-2017: TRC, TEF, TRI,
 * TRL), implemented by libposixtrace-k on the posixtrace kernel module.
 *
 * Functions return 0 or an error number; they do not set errno.
 */
#ifndef _POSIXTRACE_TRACE_H
#define _POSIXTRACE_TRACE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The options this implementation supports (<unistd.h> would say so). */
#ifndef _POSIX_TRACE
#define _POSIX_TRACE			200809L
#endif
#ifndef _POSIX_TRACE_EVENT_FILTER
#define _POSIX_TRACE_EVENT_FILTER	200809L
#endif
#ifndef _POSIX_TRACE_INHERIT
#define _POSIX_TRACE_INHERIT		200809L
#endif
#ifndef _POSIX_TRACE_LOG
#define _POSIX_TRACE_LOG		200809L
#endif

/*
 * Runtime invariant values (<limits.h>). Each is at least its _POSIX_
 * minimum; the names below exclude the terminating null byte.
 */
#ifndef TRACE_NAME_MAX
#define TRACE_NAME_MAX			63
#endif
#ifndef TRACE_EVENT_NAME_MAX
#define TRACE_EVENT_NAME_MAX		63
#endif
#ifndef TRACE_SYS_MAX
#define TRACE_SYS_MAX			64
#endif
#ifndef TRACE_USER_EVENT_MAX
#define TRACE_USER_EVENT_MAX		1024
#endif

/* The types POSIX places in <sys/types.h>. */
typedef int trace_id_t;
typedef int32_t trace_event_id_t;

#ifdef __cplusplus
}
#endif

#endif /* _POSIXTRACE_TRACE_H */
