/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An event's payload as text, the way dump prints it after "data=" and
 * trace after an event's name: the fields of its format, or "quoted
 * text", or hex. One place, so that both spell every payload alike.
 */
#ifndef POSIXTRACE_TOOL_EVENT_DATA_H
#define POSIXTRACE_TOOL_EVENT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "logread.h"

/* Payload bytes shown per event unless asked for all (dump -x). */
#define EVENT_DATA_SHOWN	32

/*
 * The data of a type with a format, as its fields ("{a=1, s="x"}"): true
 * if it was shown so. Data that does not match its format (or was
 * truncated) is not shown; *mismatch then says why (" (...)"), for the
 * caller to print after the bytes.
 */
bool event_data_fields(FILE *out, const struct log_event *ev, bool full,
		       char *mismatch, size_t size);

/* "quoted text" when the payload is printable (unless hex), else hex. */
void event_data_bytes(FILE *out, const struct log_event *ev, bool full,
		      bool hex);

#endif /* POSIXTRACE_TOOL_EVENT_DATA_H */
