// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace record: the stream's own status (see record_status.h).
 */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "nl.h"
#include "record_status.h"

#define PROG	"posixtrace record"

struct find_arg {
	pid_t creator;
	bool found;
	uint64_t id;
};

/* Our stream is the one stream this process created. */
static int find_ours(struct ptnl_stream *s, void *arg)
{
	struct find_arg *f = arg;

	if (PTNL_HAS(s, POSIXTRACE_NL_A_CREATOR_PID) &&
	    s->creator_pid == (uint32_t)f->creator) {
		f->found = true;
		f->id = s->id;
	}
	ptnl_stream_free(s);
	return 0;
}

void record_status_open(struct record_status_src *src, trace_id_t trid)
{
	struct find_arg f = { .creator = getpid() };

	src->trid = trid;
	src->nl = ptnl_open(PROG);
	if (!src->nl)
		return;
	if (ptnl_get(src->nl, true, 0, find_ours, &f) || !f.found) {
		fprintf(stderr, PROG ": the stream is not in the module's "
			"list: the events lost will not be counted\n");
		record_status_close(src);
		return;
	}
	src->stream_id = f.id;
}

void record_status_close(struct record_status_src *src)
{
	ptnl_close(src->nl);
	src->nl = NULL;
}

static int take_counts(struct ptnl_stream *s, void *arg)
{
	struct record_status *st = arg;

	if (PTNL_HAS(s, POSIXTRACE_NL_A_EVENTS_RECORDED) &&
	    PTNL_HAS(s, POSIXTRACE_NL_A_EVENTS_LOST)) {
		st->have_counts = true;
		st->recorded = s->events_recorded;
		st->lost = s->events_lost;
		st->stream_size = s->stream_size;
		st->have_log_discarded =
			PTNL_HAS(s, POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED);
		st->log_discarded = s->log_events_discarded;
	}
	ptnl_stream_free(s);
	return 0;
}

/* The flags reset when read: what one read saw stays seen. */
static void latch(struct record_status *st,
		  const struct posix_trace_status_info *info)
{
	if (!st->flush_error)
		st->flush_error = info->posix_stream_flush_error;
	st->stream_overrun |= info->posix_stream_overrun_status ==
			      POSIX_TRACE_OVERRUN;
	st->log_overrun |= info->posix_log_overrun_status ==
			   POSIX_TRACE_OVERRUN;
	st->log_full |= info->posix_log_full_status == POSIX_TRACE_FULL;
}

int record_status_read(struct record_status_src *src,
		       struct record_status *st)
{
	struct posix_trace_status_info info;
	int err;

	/*
	 * The status first: it takes what the traced threads' rings hold
	 * into the stream, so that the counts read next include it.
	 */
	err = posix_trace_get_status(src->trid, &info);
	if (!err)
		latch(st, &info);
	if (src->nl && ptnl_get(src->nl, false, src->stream_id, take_counts,
				st))
		st->have_counts = false;
	return err;
}
