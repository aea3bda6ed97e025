/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace record: what was recorded, said at the end on standard error:
 * one line (events, processes, lost, size, time), the events lost and
 * why, with the advice that would have kept them, the counts per process
 * (named by their command) and per event type, the process tree with
 * exit statuses when the log has kernel events, and with system calls or
 * scheduling their statistics (kstats.h).
 *
 * The losses come from the stream's own status, read before shutdown
 * (record_status.h): every event the stream stored should be in the log,
 * so those of them the log lacks were lost to it, whatever the reason
 * (a failing write leaves no gap after the last event logged, and no
 * final status in the log to say so).
 */
#ifndef POSIXTRACE_TOOL_RECORD_SUMMARY_H
#define POSIXTRACE_TOOL_RECORD_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kstats.h"
#include "proctree.h"
#include "record_select.h"
#include "record_status.h"

/* A count per key: a process (pid) or an event type (id and name). */
struct tally_row {
	long long key;
	char *name;			/* event types only */
	uint64_t count;
};

struct tally {
	struct tally_row *rows;		/* sorted by key */
	size_t n;
};

struct record_summary {
	/* Read back from the log: false for a log on a pipe. */
	bool log_read;
	/* Brief: @events is the module's count of what the log holds. */
	bool events_counted;
	uint64_t events;		/* in the log */
	uint64_t stored_logged;		/* of the stream's stored ones */
	uint64_t gap_lost;		/* missing in the log's gaps */
	struct tally processes, types;
	struct proctree tree;		/* from the kernel events */
	struct kstats *kstats;		/* system calls, scheduling */
	long long bytes;		/* the log's size, -1 unknown */
	int log_policy;
	size_t log_size;
	/* From the stream: lost in it, and lost to the log. */
	bool counted;
	uint64_t stream_lost, log_lost;
	struct record_status status;
};

/* What the summary reports about; all of it already known. */
struct record_summary_in {
	const char *read_path;		/* NULL: the log cannot be read back */
	const char *shown;		/* the log's name in messages */
	double seconds;
	int log_policy;
	size_t log_size;
	const struct record_status *status;	/* before shutdown */
	const struct record_select *select;	/* -e */
	/*
	 * The first line and the losses only; from the module's counts,
	 * without reading the log back, when it has them.
	 */
	bool brief;
};

/*
 * Reads the log back and works out the losses. Returns 0, or 1 if the log
 * could not be read whole (said on stderr).
 */
int record_summarize(const struct record_summary_in *in,
		     struct record_summary *s);
void record_summary_print(const struct record_summary_in *in,
			  const struct record_summary *s);
void record_summary_free(struct record_summary *s);

/* Events were lost other than by the log policy chosen (loop, until-full). */
bool record_summary_unexpected_loss(const struct record_summary *s);

#endif /* POSIXTRACE_TOOL_RECORD_SUMMARY_H */
