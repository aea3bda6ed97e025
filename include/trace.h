/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <trace.h>: the POSIX Tracing option (IEEE Std 1003.1-2017: TRC, TEF, TRI,
 * TRL), implemented by libposixtrace-k on the posixtrace kernel module.
 *
 * Functions return 0 or an error number; they do not set errno, and leave
 * it as it was.
 *
 * Every value below equals its twin in <linux/posixtrace.h> (POSIX_TRACE_X
 * == POSIXTRACE_X); the library checks that at build time. This header
 * stays self-contained: it includes no kernel header.
 */
#ifndef _POSIXTRACE_TRACE_H
#define _POSIXTRACE_TRACE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* restrict where POSIX has it; C++ and pre-C99 compilers spell it out. */
#if defined(__cplusplus) || !defined(__STDC_VERSION__) || \
	__STDC_VERSION__ < 199901L
# if defined(__GNUC__) || defined(__clang__)
#  define __ptk_restrict __restrict
# else
#  define __ptk_restrict
# endif
#else
# define __ptk_restrict restrict
#endif

/*
 * No _POSIX_TRACE* option macros here: glibc's <unistd.h> defines them as
 * -1 (glibc has no tracing), and a redefinition in either order would leave
 * a program seeing whichever came last. That this header exists, and
 * posixtrace_k_abi_version() succeeds, is what tells a program it has
 * tracing.
 */

/*
 * Runtime invariant values (<limits.h>). Each is at least its _POSIX_
 * minimum; the lengths exclude the terminating null byte.
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

/*
 * Sizes fixed by this ABI, independent of the limits above (which an
 * application's own <limits.h> could redefine): an event type identifier is
 * below __PTK_EVENT_ID_MAX, a stream name fits __PTK_NAME_SIZE bytes.
 */
#define __PTK_EVENT_ID_MAX		1089
#define __PTK_NAME_SIZE			64

/* Stream status (posix_stream_status). */
#define POSIX_TRACE_RUNNING		1
#define POSIX_TRACE_SUSPENDED		2
/* Stream and log full status. */
#define POSIX_TRACE_FULL		3
#define POSIX_TRACE_NOT_FULL		4
/* Stream and log overrun status. */
#define POSIX_TRACE_OVERRUN		5
#define POSIX_TRACE_NO_OVERRUN		0	/* "reset to zero" when read */
/* Flush status (TRL). */
#define POSIX_TRACE_FLUSHING		7
#define POSIX_TRACE_NOT_FLUSHING	8
/* Stream-full-policy (LOOP, UNTIL_FULL, FLUSH) and log-full-policy. */
#define POSIX_TRACE_LOOP		9
#define POSIX_TRACE_UNTIL_FULL		10
#define POSIX_TRACE_FLUSH		11
#define POSIX_TRACE_APPEND		12
/* Inheritance (TRI). */
#define POSIX_TRACE_CLOSE_FOR_CHILD	13
#define POSIX_TRACE_INHERITED		14
/* Truncation status (posix_truncation_status). */
#define POSIX_TRACE_NOT_TRUNCATED	0
#define POSIX_TRACE_TRUNCATED_RECORD	1
#define POSIX_TRACE_TRUNCATED_READ	2

/*
 * posix_trace_eventset_fill() "what" and posix_trace_set_filter() "how"
 * (TEF). They continue the numbering above so that a value of the wrong
 * kind is rejected rather than misread; only "how" has kernel twins.
 */
#define POSIX_TRACE_WOPID_EVENTS	15	/* the system types, 0-7 */
#define POSIX_TRACE_SYSTEM_EVENTS	16	/* the same */
#define POSIX_TRACE_ALL_EVENTS		17	/* every identifier */
#define POSIX_TRACE_SET_EVENTSET	18
#define POSIX_TRACE_ADD_EVENTSET	19
#define POSIX_TRACE_SUB_EVENTSET	20

/* The types POSIX places in <sys/types.h>. */
typedef int trace_id_t;
typedef int32_t trace_event_id_t;

/*
 * System trace event types (trace_event_id_t constants), then the
 * predefined user event, under both spellings the standard uses.
 */
#define POSIX_TRACE_ERROR		((trace_event_id_t)0)
#define POSIX_TRACE_START		((trace_event_id_t)1)
#define POSIX_TRACE_STOP		((trace_event_id_t)2)
#define POSIX_TRACE_OVERFLOW		((trace_event_id_t)3)
#define POSIX_TRACE_RESUME		((trace_event_id_t)4)
#define POSIX_TRACE_FLUSH_START		((trace_event_id_t)5)
#define POSIX_TRACE_FLUSH_STOP		((trace_event_id_t)6)
#define POSIX_TRACE_FILTER		((trace_event_id_t)7)
#define POSIX_TRACE_UNNAMED_USER_EVENT	((trace_event_id_t)64)
#define POSIX_TRACE_UNNAMED_USEREVENT	POSIX_TRACE_UNNAMED_USER_EVENT

/*
 * A trace stream attributes object. Its members are private to the
 * library; the size is fixed (256 bytes) so that later attributes fit in
 * __reserved without changing the ABI.
 */
typedef struct {
	uint32_t __magic;
	uint32_t __flags;
	char __name[__PTK_NAME_SIZE];
	uint64_t __stream_size;
	uint64_t __max_data_size;
	uint64_t __log_size;
	int32_t __stream_full_policy;
	int32_t __log_full_policy;
	int32_t __inheritance;
	uint32_t __create_nsec;
	int64_t __create_sec;
	uint64_t __clock_res_nsec;
	uint32_t __kernel_events;
	uint32_t __pad0;
	uint64_t __reserved[15];
} trace_attr_t;

/*
 * A set of event types (TEF): bit id % 64 of __bits[id / 64] stands for
 * type id. Its layout is the kernel's struct posixtrace_eventset, which is
 * also the data of POSIX_TRACE_START (the filter in force) and of
 * POSIX_TRACE_FILTER (the old filter, then the new one).
 */
typedef struct {
	uint64_t __bits[(__PTK_EVENT_ID_MAX + 63) / 64];
} trace_event_set_t;

struct posix_trace_event_info {
	trace_event_id_t posix_event_id;
	pid_t posix_pid;
	void *posix_prog_address;
	pthread_t posix_thread_id;
	struct timespec posix_timestamp;
	int posix_truncation_status;
};

struct posix_trace_status_info {
	int posix_stream_status;
	int posix_stream_full_status;
	int posix_stream_overrun_status;
	int posix_stream_flush_status;		/* TRL */
	int posix_stream_flush_error;		/* TRL */
	int posix_log_overrun_status;		/* TRL */
	int posix_log_full_status;		/* TRL */
};

/* Trace stream attributes. */
int posix_trace_attr_init(trace_attr_t *attr);
int posix_trace_attr_destroy(trace_attr_t *attr);
int posix_trace_attr_getclockres(const trace_attr_t *attr,
				 struct timespec *resolution);
int posix_trace_attr_getcreatetime(const trace_attr_t *attr,
				   struct timespec *createtime);
int posix_trace_attr_getgenversion(const trace_attr_t *attr,
				   char *genversion);
int posix_trace_attr_getname(const trace_attr_t *attr, char *tracename);
int posix_trace_attr_setname(trace_attr_t *attr, const char *tracename);
int posix_trace_attr_getinherited(const trace_attr_t *__ptk_restrict attr,
				  int *__ptk_restrict inheritancepolicy);
int posix_trace_attr_setinherited(trace_attr_t *attr, int inheritancepolicy);
int posix_trace_attr_getlogfullpolicy(const trace_attr_t *__ptk_restrict attr,
				      int *__ptk_restrict logpolicy);
int posix_trace_attr_setlogfullpolicy(trace_attr_t *attr, int logpolicy);
int posix_trace_attr_getstreamfullpolicy(
	const trace_attr_t *__ptk_restrict attr,
	int *__ptk_restrict streampolicy);
int posix_trace_attr_setstreamfullpolicy(trace_attr_t *attr,
					 int streampolicy);
int posix_trace_attr_getlogsize(const trace_attr_t *__ptk_restrict attr,
				size_t *__ptk_restrict logsize);
int posix_trace_attr_setlogsize(trace_attr_t *attr, size_t logsize);
int posix_trace_attr_getmaxdatasize(const trace_attr_t *__ptk_restrict attr,
				    size_t *__ptk_restrict maxdatasize);
int posix_trace_attr_setmaxdatasize(trace_attr_t *attr, size_t maxdatasize);
int posix_trace_attr_getmaxsystemeventsize(
	const trace_attr_t *__ptk_restrict attr,
	size_t *__ptk_restrict eventsize);
int posix_trace_attr_getmaxusereventsize(
	const trace_attr_t *__ptk_restrict attr, size_t data_len,
	size_t *__ptk_restrict eventsize);
int posix_trace_attr_getstreamsize(const trace_attr_t *__ptk_restrict attr,
				   size_t *__ptk_restrict streamsize);
int posix_trace_attr_setstreamsize(trace_attr_t *attr, size_t streamsize);

/* Trace controller. */
int posix_trace_create(pid_t pid, const trace_attr_t *__ptk_restrict attr,
		       trace_id_t *__ptk_restrict trid);
int posix_trace_start(trace_id_t trid);
int posix_trace_stop(trace_id_t trid);
int posix_trace_clear(trace_id_t trid);
int posix_trace_shutdown(trace_id_t trid);
int posix_trace_get_attr(trace_id_t trid, trace_attr_t *attr);
int posix_trace_get_status(trace_id_t trid,
			   struct posix_trace_status_info *statusinfo);

/* Trace log (TRL): an active stream with a log. */
int posix_trace_create_withlog(pid_t pid,
			       const trace_attr_t *__ptk_restrict attr,
			       int file_desc,
			       trace_id_t *__ptk_restrict trid);
int posix_trace_flush(trace_id_t trid);

/* Trace event type identifiers. */
int posix_trace_eventid_open(const char *__ptk_restrict event_name,
			     trace_event_id_t *__ptk_restrict event_id);
int posix_trace_trid_eventid_open(trace_id_t trid,
				  const char *__ptk_restrict event_name,
				  trace_event_id_t *__ptk_restrict event);
int posix_trace_eventid_equal(trace_id_t trid, trace_event_id_t event1,
			      trace_event_id_t event2);
int posix_trace_eventid_get_name(trace_id_t trid, trace_event_id_t event,
				 char *event_name);
int posix_trace_eventtypelist_getnext_id(trace_id_t trid,
					 trace_event_id_t *__ptk_restrict event,
					 int *__ptk_restrict unavailable);
int posix_trace_eventtypelist_rewind(trace_id_t trid);

/* Instrumented application. */
void posix_trace_event(trace_event_id_t event_id,
		       const void *__ptk_restrict data_ptr, size_t data_len);

/*
 * posix_trace_event() is a function, and also a macro, as XSH 2.1.1 lets
 * a header make any function: the macro makes inline the test the function
 * makes first (may any stream record this event now?) and calls it only
 * if one may, so that an instrumented program pays a few loads, not a
 * call, while nothing records its events. (posix_trace_event)(...) and
 * &posix_trace_event are the function, as always; define
 * POSIXTRACE_K_NO_INLINE_EVENT before including <trace.h> for the call
 * everywhere.
 *
 * posixtrace_k_enabled is the library's: the address of a word in a page
 * of the process that reads 0 in every child (MADV_WIPEONFORK) until the
 * child maps its own bits. The word is NULL, or the address of the
 * process's bits, one per event type below POSIXTRACE_K_EVENT_IDS, that
 * the module keeps up to date (the enable page's __u64 words, which are
 * unsigned long long on every Linux ABI). A bit clear means the
 * function would return at once; anything else goes to the function.
 */
#if !defined(POSIXTRACE_K_NO_INLINE_EVENT) && \
	(defined(__GNUC__) || defined(__clang__))
#define POSIXTRACE_K_EVENT_IDS	1089u
extern const unsigned long long *const *posixtrace_k_enabled;

static __inline__ __attribute__((__always_inline__)) void
__posixtrace_k_event(trace_event_id_t event_id, const void *data_ptr,
		     size_t data_len)
{
	const unsigned long long *const *word =
		__atomic_load_n(&posixtrace_k_enabled, __ATOMIC_ACQUIRE);
	const unsigned long long *bits;
	uint32_t id = (uint32_t)event_id;

	if (word && id < POSIXTRACE_K_EVENT_IDS) {
		bits = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		if (bits && !((__atomic_load_n(&bits[id / 64],
					       __ATOMIC_RELAXED) >>
			       (id % 64)) & 1))
			return;
	}
	/* Called from here, inlined: its caller's address is the event's. */
	(posix_trace_event)(event_id, data_ptr, data_len);
}

#define posix_trace_event(event_id, data_ptr, data_len) \
	__posixtrace_k_event((event_id), (data_ptr), (data_len))
#endif

/* Trace event filters (TEF). */
int posix_trace_eventset_empty(trace_event_set_t *set);
int posix_trace_eventset_fill(trace_event_set_t *set, int what);
int posix_trace_eventset_add(trace_event_id_t event_id,
			     trace_event_set_t *set);
int posix_trace_eventset_del(trace_event_id_t event_id,
			     trace_event_set_t *set);
int posix_trace_eventset_ismember(trace_event_id_t event_id,
				  const trace_event_set_t *__ptk_restrict set,
				  int *__ptk_restrict ismember);
int posix_trace_get_filter(trace_id_t trid, trace_event_set_t *set);
int posix_trace_set_filter(trace_id_t trid, const trace_event_set_t *set,
			   int how);

/* Trace analyzer. */
int posix_trace_getnext_event(trace_id_t trid,
	struct posix_trace_event_info *__ptk_restrict event,
	void *__ptk_restrict data, size_t num_bytes,
	size_t *__ptk_restrict data_len, int *__ptk_restrict unavailable);
int posix_trace_trygetnext_event(trace_id_t trid,
	struct posix_trace_event_info *__ptk_restrict event,
	void *__ptk_restrict data, size_t num_bytes,
	size_t *__ptk_restrict data_len, int *__ptk_restrict unavailable);
int posix_trace_timedgetnext_event(trace_id_t trid,
	struct posix_trace_event_info *__ptk_restrict event,
	void *__ptk_restrict data, size_t num_bytes,
	size_t *__ptk_restrict data_len, int *__ptk_restrict unavailable,
	const struct timespec *__ptk_restrict abstime);

/* Trace log (TRL): a pre-recorded stream, read back from its log. */
int posix_trace_open(int file_desc, trace_id_t *trid);
int posix_trace_rewind(trace_id_t trid);
int posix_trace_close(trace_id_t trid);

#ifdef __cplusplus
}
#endif

#endif /* _POSIXTRACE_TRACE_H */
