/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libposixtrace-k extensions beyond <trace.h>. Every name here starts with
 * posixtrace_k_ so it can never collide with a future POSIX name.
 */
#ifndef _POSIXTRACE_K_H
#define _POSIXTRACE_K_H

#include <stddef.h>
#include <stdint.h>

#include <trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The ABI version of the loaded module (see <linux/posixtrace.h>).
 * Returns 0, or an error number: EINVAL for a NULL pointer, else that of
 * opening /dev/posixtrace (ENOENT when the module is not loaded, EACCES
 * when the device may not be opened) or of its VERSION command.
 */
int posixtrace_k_abi_version(unsigned int *major, unsigned int *minor);

/*
 * The sequence number of the last event posix_trace_getnext_event() (or
 * its timed and try forms) reported on trid, an active stream's or a
 * pre-recorded one's (a log trid): the number the stream gave the event
 * when it recorded it, one more for each event recorded. Events lost in
 * the stream, or not written to its log, show as gaps, so a reader can
 * count them: a gap of n between two events reported one after the other
 * is n - 1 events lost. POSIX_TRACE_OVERFLOW and POSIX_TRACE_RESUME carry
 * the number of the event after the loss.
 *
 * Returns 0 and *seq, or EINVAL: trid names no stream or log of this
 * process, or no event has been reported on it yet (posix_trace_rewind()
 * of a log starts again with none). Symbol version LIBPOSIXTRACE_K_0.4.
 */
int posixtrace_k_event_seq(trace_id_t trid, uint64_t *seq);

/*
 * The kernel thread id (gettid()) of the thread that generated the last
 * event posix_trace_getnext_event() reported on trid, as the traced
 * creator's pid namespace numbers it; 0
 * for events of no thread (most system events). POSIX reports a
 * pthread_t, which only the traced process can interpret; tools want
 * this. Returns 0 and *tid, or EINVAL as posixtrace_k_event_seq().
 * Symbol version LIBPOSIXTRACE_K_0.4.
 */
int posixtrace_k_event_tid(trace_id_t trid, pid_t *tid);

/*
 * Event formats (ABI 0.7): what the data of an event type carries, so that
 * tools (posixtrace dump, export) show fields instead of bytes. A format
 * is "field:type[,field:type]...": 1 to 16 fields, at most 255
 * characters, no spaces; a field name is a C identifier of at most 31
 * characters, unique in the format; a type is u8 u16 u32 u64 s8 s16 s32
 * s64 f32 f64 (integers and IEEE 754 floats), str (text and its NUL) or
 * bytes (the rest of the data, last field only). The event's data is the
 * fields packed in order, without padding, in the producer's byte order
 * (little-endian on every architecture the module supports). Example:
 *
 *	posixtrace_k_eventid_open_format("job", "id:u32,ms:f64,what:str", &id);
 *
 * Like posix_trace_eventid_open(), and the name keeps this format in the
 * calling process's name table (shared, as names are, with the processes
 * it forks while traced with inheritance): streams and logs carry it with
 * the type. The same format again is fine; opening the name without one
 * (posix_trace_eventid_open()) keeps it. A NULL format is a plain open.
 * Returns 0, or an error number: those of posix_trace_eventid_open(), and
 * EINVAL for a format not well formed, ENAMETOOLONG past 255 characters,
 * EEXIST when the name already has another format, ENOTSUP when the
 * module is older than ABI 0.7. Symbol version LIBPOSIXTRACE_K_0.7.
 */
int posixtrace_k_eventid_open_format(const char *event_name,
				     const char *format,
				     trace_event_id_t *event);

/*
 * The format of type event on trid, an active stream's or a log's
 * (posix_trace_open()), NUL-terminated into format (size bytes; 256
 * always suffice). Returns 0, or an error number: EINVAL as
 * posix_trace_eventid_get_name() (trid or event unknown) or for a NULL
 * format with a size, ENOENT for a type without a format (system types,
 * and every type with a module older than ABI 0.7), ERANGE when size
 * is too small; format is left untouched on error. A log's formats are
 * checked as the kernel checks them: a damaged one is ENOENT. Symbol
 * version LIBPOSIXTRACE_K_0.7.
 */
int posixtrace_k_eventid_get_format(trace_id_t trid, trace_event_id_t event,
				    char *format, size_t size);

/*
 * Kernel events (ABI 0.12): what the kernel does to the processes a
 * stream traces (its target, and the processes it forks with
 * POSIX_TRACE_INHERITED), in the same stream as their own events. A
 * stream records them only when its attributes ask for their classes:
 *
 *	posixtrace_k_attr_setkernelevents(&attr, POSIXTRACE_K_KERNEL_ALL);
 *
 * They are system event types of this implementation, named posixtrace_*,
 * each with a format (posixtrace_k_eventid_get_format()), in the stream's
 * type list and filtered like any type. The right to trace the process
 * covers the proc and signal classes; the syscall class (ABI 0.13) and
 * the sched class (ABI 0.14) also need CAP_PERFMON or CAP_SYS_ADMIN
 * unless root allowed every user (the module's kernel_events_paranoid):
 * posix_trace_create() returns EPERM.
 * <linux/posixtrace.h> describes each one's fields.
 */
#define POSIXTRACE_K_KERNEL_PROC	0x1u	/* fork, exec, exit */
#define POSIXTRACE_K_KERNEL_SIGNAL	0x2u	/* generated, delivered */
#define POSIXTRACE_K_KERNEL_SYSCALL	0x4u	/* entered, left */
#define POSIXTRACE_K_KERNEL_SCHED	0x8u	/* out, in, woken, moved */
#define POSIXTRACE_K_KERNEL_ALL		0xfu

#define POSIXTRACE_K_EVENT_PROC_FORK		((trace_event_id_t)16)
#define POSIXTRACE_K_EVENT_PROC_EXEC		((trace_event_id_t)17)
#define POSIXTRACE_K_EVENT_PROC_EXIT		((trace_event_id_t)18)
#define POSIXTRACE_K_EVENT_SIGNAL_GENERATE	((trace_event_id_t)19)
#define POSIXTRACE_K_EVENT_SIGNAL_DELIVER	((trace_event_id_t)20)
#define POSIXTRACE_K_EVENT_SYSCALL_ENTRY	((trace_event_id_t)21)
#define POSIXTRACE_K_EVENT_SYSCALL_EXIT		((trace_event_id_t)22)
#define POSIXTRACE_K_EVENT_SCHED_OUT		((trace_event_id_t)23)
#define POSIXTRACE_K_EVENT_SCHED_IN		((trace_event_id_t)24)
#define POSIXTRACE_K_EVENT_SCHED_WAKEUP		((trace_event_id_t)25)
#define POSIXTRACE_K_EVENT_SCHED_MIGRATE	((trace_event_id_t)26)

/*
 * The classes of kernel events a stream created with attr records: 0 (the
 * default), or POSIXTRACE_K_KERNEL_* bits. Returns 0, or EINVAL for an
 * attr not initialised, a NULL classes, or an unknown bit.
 * posix_trace_create() then returns ENOTSUP when the module is older than
 * ABI 0.12 (0.13 for the syscall class, 0.14 for the sched class). posix_trace_get_attr() reports what the stream records.
 * Symbol version LIBPOSIXTRACE_K_0.12.
 */
int posixtrace_k_attr_setkernelevents(trace_attr_t *attr, unsigned int classes);
int posixtrace_k_attr_getkernelevents(const trace_attr_t *attr,
				      unsigned int *classes);

/*
 * Which system calls a stream of the syscall class records (ABI 0.14):
 * those of bits, bit n % 64 of word n / 64 for call n of the table
 * (POSIXTRACE_K_SYSCALLS_NATIVE, the native one, or
 * POSIXTRACE_K_SYSCALLS_COMPAT, the 32-bit compat one; <sys/syscall.h>
 * numbers the native calls), or every call of the table when bits is
 * NULL, the default. The module applies it before writing anything: the
 * calls left out cost no room and no loss. Calls numbered from
 * POSIXTRACE_K_SYSCALL_NR_MAX up are recorded only when the table takes
 * every call. Returns 0, EINVAL (an unknown table, a stream not
 * recording the syscall class, a trid of a log), or ENOTSUP for a module
 * older than ABI 0.14. posixtrace_k_get_syscalls() gives back what the
 * stream selects: *all is 1 for every call (bits then all 0).
 * Symbol version LIBPOSIXTRACE_K_0.14.
 */
#define POSIXTRACE_K_SYSCALLS_NATIVE	0u
#define POSIXTRACE_K_SYSCALLS_COMPAT	1u
#define POSIXTRACE_K_SYSCALL_NR_MAX	1024
#define POSIXTRACE_K_SYSCALL_WORDS	(POSIXTRACE_K_SYSCALL_NR_MAX / 64)

int posixtrace_k_set_syscalls(trace_id_t trid, unsigned int table,
			      const uint64_t *bits);
int posixtrace_k_get_syscalls(trace_id_t trid, unsigned int table,
			      uint64_t *bits, int *all);

/* The limits of an event format, as above. */
#define POSIXTRACE_K_FORMAT_MAX		255
#define POSIXTRACE_K_FORMAT_FIELDS_MAX	16

#ifdef __cplusplus
}
#endif

#endif /* _POSIXTRACE_K_H */
