/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CTF 1.8 trace (https://diamon.org/ctf/v1.8.3/) of one trace log: a
 * directory holding "metadata" (TSDL text) and one binary stream file.
 *
 * The stream's packets, every integer little-endian and byte-aligned
 * (ctf_metadata.c declares exactly this; change both together):
 *
 *	packet header	u32 magic 0xc1fc1fc1, u8 uuid[16], u32 stream_id 0
 *	packet context	u64 timestamp_begin, timestamp_end (clock cycles),
 *			u64 content_size, packet_size (bits, equal),
 *			u64 packet_seq_num, u64 events_discarded
 *	events		header:  u32 id, u64 timestamp
 *			context: s32 pid, s32 tid, u64 thread, u64 seq
 *			payload: u32 truncation, u64 prog_address,
 *				 u32 data_len, u8 data[data_len]
 *
 * A type with an event format (posixtrace_k_eventid_open_format()) has a
 * typed event class instead, and a raw one beside it:
 *
 *	typed, id = the type's	context: u32 truncation, u64 prog_address,
 *				 u32 data_len[, u32 rest_len]
 *				payload: the format's fields, the event's data
 *				 as it is (packed, little-endian; str as CTF
 *				 strings; bytes as u8[rest_len], rest_len
 *				 only when the last field is bytes)
 *	raw, id = CTF_RAW_ID(type), the same name: the payload above, for
 *				the events whose data does not match the
 *				format (or was truncated)
 *
 * Field names are written with a leading underscore, which CTF readers
 * strip (CTF 1.8, 4.1.15): a field may then be named like a TSDL
 * keyword ("event", "string").
 *
 * The clock counts nanoseconds since the Unix epoch (freq 1 GHz, offset
 * 0): a timestamp is the event's CLOCK_REALTIME time itself.
 *
 * events_discarded is CTF's running count of events lost before the end
 * of the packet. A packet ends wherever sequence numbers skip, so that
 * the count goes up between two packets exactly by the events missing
 * between them, and readers report "N discarded events" right there.
 */
#ifndef POSIXTRACE_TOOL_CTF_H
#define POSIXTRACE_TOOL_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "logread.h"

#define CTF_MAGIC		0xc1fc1fc1u
#define CTF_STREAM_FILE		"stream"
#define CTF_METADATA_FILE	"metadata"

/* The id of the raw event class of a type with a format. */
#define CTF_RAW_ID(id)		((uint32_t)POSIXTRACE_EVENT_ID_MAX + (id))

/* A packet ends past this many bytes of events, gap or not. */
#define CTF_PACKET_EVENTS_MAX	(1u << 20)

struct ctf_stream {
	FILE *file;
	uint8_t uuid[16];
	/* Events of the packet being built, encoded. */
	unsigned char *buf;
	size_t len, cap;
	uint64_t events;		/* in this packet */
	uint64_t ts_begin, ts_end;	/* of this packet */
	uint64_t packets;		/* written so far */
	uint64_t discarded;		/* running count */
	uint64_t last_ts;		/* of the last event */
	uint64_t clamped;		/* events stamped before the last */
	uint64_t out_of_range;		/* times CTF cannot carry */
};

/* The trace UUID: derived from the log's attributes, so it is stable. */
void ctf_uuid(uint8_t uuid[16], const trace_attr_t *attr);

int ctf_stream_open(struct ctf_stream *cs, int dirfd, const uint8_t uuid[16]);
/* Adds one event; starts a new packet first if the event follows a gap. */
int ctf_stream_event(struct ctf_stream *cs, const struct log_event *ev);
/*
 * Writes the last packet and closes the file. Without events, the one
 * packet written is empty and stamped empty_ts.
 */
int ctf_stream_close(struct ctf_stream *cs, uint64_t empty_ts);

/*
 * A time as clock cycles (nanoseconds since the epoch) in *t; false if it
 * had to be brought into the range CTF readers take.
 */
bool ctf_time(const struct timespec *ts, uint64_t *t);

int ctf_metadata_write(int dirfd, const struct log_reader *lr,
		       const uint8_t uuid[16]);

#endif /* POSIXTRACE_TOOL_CTF_H */
