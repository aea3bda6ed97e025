/* SPDX-License-Identifier: GPL-2.0 */
/*
 * posixtrace export --format=chrome: the Trace Event Format (JSON) of
 * Perfetto and chrome://tracing (export_chrome.c says what is written).
 */
#ifndef POSIXTRACE_TOOL_EXPORT_CHROME_H
#define POSIXTRACE_TOOL_EXPORT_CHROME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "logread.h"

/*
 * Writes every event of @lr to @out as one JSON object. *@nread counts the
 * events read; *@read_error tells a failure to read the log from one to
 * write (which the caller's flush or close may yet report). Returns 0 or
 * an error number.
 */
int export_chrome(struct log_reader *lr, FILE *out, uint64_t *nread,
		  bool *read_error);

#endif /* POSIXTRACE_TOOL_EXPORT_CHROME_H */
