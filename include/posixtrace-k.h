/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libposixtrace-k extensions beyond <trace.h>. Every name here starts with
 * posixtrace_k_ so it can never collide with a future POSIX name.
 */
#ifndef _POSIXTRACE_K_H
#define _POSIXTRACE_K_H

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

#ifdef __cplusplus
}
#endif

#endif /* _POSIXTRACE_K_H */
