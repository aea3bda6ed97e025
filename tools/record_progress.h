/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace record: the progress line on standard error, rewritten in
 * place while tracing, for a person watching a terminal. Nothing when
 * standard error is not a terminal: a log file or a pipe would fill with
 * carriage returns.
 */
#ifndef POSIXTRACE_TOOL_RECORD_PROGRESS_H
#define POSIXTRACE_TOOL_RECORD_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "record_status.h"

struct record_progress {
	bool on;		/* standard error is a terminal */
	size_t shown;		/* length of the line on screen, 0: none */
};

void record_progress_init(struct record_progress *p);
/* Rewrites the line: the stream's counts, and the log's size if known. */
void record_progress_show(struct record_progress *p,
			  const struct record_status *st, long long log_bytes,
			  double seconds);
/* Erases the line, before anything else is printed on stderr. */
void record_progress_clear(struct record_progress *p);

#endif /* POSIXTRACE_TOOL_RECORD_PROGRESS_H */
