/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace record: the stream's own status, as tracing goes on and
 * before it is shut down. posix_trace_get_status() gives the flags (the
 * flush error, the log's overrun and full status), which reading resets,
 * so they are latched here; the counts (events recorded and lost in the
 * stream, and not kept by the log) are not in struct
 * posix_trace_status_info, and come from the module's generic netlink
 * family, as "posixtrace list --json" shows them.
 */
#ifndef POSIXTRACE_TOOL_RECORD_STATUS_H
#define POSIXTRACE_TOOL_RECORD_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include <trace.h>

struct ptnl;

struct record_status {
	/* The counts below are known (the netlink family answered). */
	bool have_counts;
	/* Stored in the stream since creation: the log should hold them. */
	uint64_t recorded;
	/* Lost in the stream itself (full), never stored. */
	uint64_t lost;
	/*
	 * Stored, but not kept by the log: not written (a full disk, a
	 * write error) or discarded by its full policy. The module's own
	 * count, which does not depend on what the log holds.
	 */
	bool have_log_discarded;
	uint64_t log_discarded;
	uint64_t stream_size;
	/* Latched: the first flush error, and the overruns ever seen. */
	int flush_error;
	bool stream_overrun;
	bool log_overrun;
	bool log_full;
};

struct record_status_src {
	trace_id_t trid;
	struct ptnl *nl;		/* NULL: no counts */
	uint64_t stream_id;
};

/*
 * Finds our stream in the netlink family (the one this process created),
 * so that its counts can be read. Without it, the flags still are.
 */
void record_status_open(struct record_status_src *src, trace_id_t trid);
void record_status_close(struct record_status_src *src);

/*
 * Reads the stream's status into st, latching the flags into what st held
 * already. Returns 0 or the error of posix_trace_get_status().
 */
int record_status_read(struct record_status_src *src,
		       struct record_status *st);

/* The next event's sequence number: every event recorded or lost has one. */
static inline uint64_t record_status_seq_end(const struct record_status *st)
{
	return st->recorded + st->lost;
}

#endif /* POSIXTRACE_TOOL_RECORD_STATUS_H */
