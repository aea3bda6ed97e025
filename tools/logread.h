/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a trace log through the library, event by event, with what every
 * reader of ours wants besides: printable names, the sequence number, the
 * kernel thread id and the gap before each event.
 */
#ifndef POSIXTRACE_TOOL_LOGREAD_H
#define POSIXTRACE_TOOL_LOGREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <posixtrace-k.h>
#include <trace.h>

#include "fields.h"

/*
 * One event type: its identifier, its name as escape_name() spells it,
 * and its event format if it has a well-formed one (else NULL).
 */
struct log_type {
	trace_event_id_t id;
	bool listed;		/* in the log's event type list */
	char *name;
	char *format_text;
	struct posixtrace_format *format;
};

struct log_event {
	struct posix_trace_event_info info;
	const unsigned char *data;
	size_t data_len;
	struct log_type *type;
	bool has_seq;
	uint64_t seq;
	/*
	 * The kernel thread id (gettid()) of the thread that generated the
	 * event, 0 for events of no thread (posixtrace_k_event_tid()).
	 */
	bool has_tid;
	pid_t tid;
	/*
	 * Events missing right before this one: the sequence numbers
	 * skipped since the last event with one. A number going backwards
	 * or repeating (OVERFLOW and RESUME carry the number of the event
	 * after them) counts nothing, and the count starts again from it.
	 */
	uint64_t gap;
};

struct log_reader {
	const char *path;
	bool open;
	bool live;		/* an active stream's (log_attach()) */
	/* Ours, open until log_close(), for readers besides the library. */
	int fd;
	trace_id_t trid;
	trace_attr_t attr;
	unsigned char *buf;
	size_t buf_size;
	bool have_prev_seq;
	uint64_t prev_seq;
	/* Sorted by id. */
	struct log_type *types;
	size_t ntypes;
};

/*
 * Opens path as a trace log and reads its attributes and event type list.
 * On failure prints "prog: path: why" and returns the error number.
 */
int log_open(struct log_reader *lr, const char *path, const char *prog);
/*
 * 0 and *end false with an event; 0 and *end true past the last. The
 * event's data and type stay valid until the next call.
 */
int log_next(struct log_reader *lr, struct log_event *ev, bool *end);
void log_close(struct log_reader *lr);
/*
 * log_next() for a writer of every event (the exports): *nread counts the
 * events read, and *read_error says that a failure is the log's.
 */
int log_next_counted(struct log_reader *lr, struct log_event *ev, bool *end,
		     uint64_t *nread, bool *read_error);

/*
 * The same reading of an active stream that trid names (not a log: name
 * is what messages call it), created and shut down by the caller.
 */
int log_attach(struct log_reader *lr, trace_id_t trid, const char *name,
	       const char *prog);
/*
 * Waits until abstime (CLOCK_REALTIME) for its next event: 0 and *got
 * with one; 0 and !*got on timeout or a signal; else an error number.
 */
int log_next_live(struct log_reader *lr, struct log_event *ev,
		  const struct timespec *abstime, bool *got);

/*
 * The name of type id as log_next() names it, without adding the type:
 * a type the log does not know is "?ID", written into buf.
 */
#define LOG_TYPE_NAME_SIZE	16
const char *log_type_name(const struct log_reader *lr, trace_event_id_t id,
			  char buf[LOG_TYPE_NAME_SIZE]);

#endif /* POSIXTRACE_TOOL_LOGREAD_H */
