/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * posixtrace: the trace log file format (POSIX Trace Log option, TRL).
 *
 * The module writes a trace log for a stream created with a log
 * (posix_trace_create_withlog()); anyone reads it back, without the module
 * (posix_trace_open() in libposixtrace-k, "posixtrace dump", a reader of
 * one's own). Documentation/userspace-api/posixtrace-log.rst describes the
 * format in prose; this header is its exact definition.
 *
 * Every integer is little-endian, whatever the writer's byte order; every
 * structure is 8-byte aligned and has no implicit padding. Sizes are in
 * bytes.
 *
 * A log is a header, then blocks:
 *
 *	struct posixtrace_log_header	at offset 0
 *	[slot region]			LOOP log-full-policy only
 *	blocks				each a struct posixtrace_log_block
 *					and its payload, back to back
 *
 * Sequential layout (log-full-policy UNTIL_FULL or APPEND; any file the
 * writer can write in order, a pipe too): EVENTS blocks, one or more per
 * flush, then at shutdown a TYPES and an END block. A CLEAR block says that
 * every event before it was cleared (posix_trace_clear()).
 *
 * Slot layout (log-full-policy LOOP; regular files only): @slot_count slots
 * of @slot_size bytes follow the header, each an EVENTS block of exactly
 * @slot_size bytes, filled from its front (@used), and rewritten oldest
 * first when the writer comes round again. A slot never written reads as
 * zeroes (type 0). The TYPES and END blocks follow the region.
 *
 * A reader:
 *  - checks the magic, the major version (it must know it) and the sizes;
 *  - walks blocks by their @size, skipping types it does not know;
 *  - in the slot layout, takes the EVENTS slots of the highest @epoch in
 *    @block_seq order (after posix_trace_clear() the writer starts again
 *    at slot 0 with the next epoch);
 *  - in the sequential layout, forgets every event before a CLEAR block;
 *  - reads the entries of an EVENTS block up to its @used bytes. A log cut
 *    short (a crash, a full disk) simply ends early: every entry that is
 *    whole is valid, and a log without END is incomplete, not corrupt.
 */
#ifndef _UAPI_LINUX_POSIXTRACE_LOG_H
#define _UAPI_LINUX_POSIXTRACE_LOG_H

#include <linux/types.h>
#include <linux/posixtrace.h>

/* The first 8 bytes of a log: not text, and caught by text conversion. */
#define POSIXTRACE_LOG_MAGIC		"\x89PXTLOG\n"
#define POSIXTRACE_LOG_MAGIC_LEN	8

/*
 * The format version: readers must refuse a major they do not know; a
 * minor adds members at the end of structures (their size fields tell)
 * or block types (which readers skip).
 */
#define POSIXTRACE_LOG_VERSION_MAJOR	1
#define POSIXTRACE_LOG_VERSION_MINOR	2

/* Written as a __le32: the bytes 04 03 02 01 in the file. */
#define POSIXTRACE_LOG_BYTE_ORDER	0x01020304

/* struct posixtrace_log_header::layout */
#define POSIXTRACE_LOG_SEQUENTIAL	1
#define POSIXTRACE_LOG_SLOTS		2

/**
 * struct posixtrace_log_attr - the stream's attributes, as at creation
 * @name:		the trace name, NUL-terminated.
 * @stream_size:	stream-min-size.
 * @max_data_size:	max-data-size.
 * @log_size:		log-max-size.
 * @stream_full_policy:	POSIXTRACE_LOOP, _UNTIL_FULL or _FLUSH.
 * @log_full_policy:	POSIXTRACE_LOOP, _UNTIL_FULL or _APPEND.
 * @inheritance:	POSIXTRACE_CLOSE_FOR_CHILD or _INHERITED.
 * @clock_res_nsec:	the resolution of the event timestamps.
 * @create_time_sec:	creation time, CLOCK_REALTIME.
 * @create_time_nsec:	its nanoseconds.
 * @kernel_events:	the POSIXTRACE_KERNEL_* classes of kernel events the
 *			stream recorded (log version 1.2; zero before).
 *
 * The values and constants are those of <linux/posixtrace.h>.
 */
struct posixtrace_log_attr {
	char name[64];
	__le64 stream_size;
	__le64 max_data_size;
	__le64 log_size;
	__le32 stream_full_policy;
	__le32 log_full_policy;
	__le32 inheritance;
	__le32 clock_res_nsec;
	__le64 create_time_sec;
	__le32 create_time_nsec;
	__le32 kernel_events;
};

/**
 * struct posixtrace_log_header - the start of every log
 * @magic:		POSIXTRACE_LOG_MAGIC.
 * @version_major:	POSIXTRACE_LOG_VERSION_MAJOR.
 * @version_minor:	POSIXTRACE_LOG_VERSION_MINOR.
 * @header_size:	the size of this header: the first block (or slot)
 *			starts there. A multiple of 8.
 * @byte_order:		POSIXTRACE_LOG_BYTE_ORDER.
 * @layout:		POSIXTRACE_LOG_SEQUENTIAL or POSIXTRACE_LOG_SLOTS.
 * @record_header_size:	the size of struct posixtrace_log_record as the
 *			writer knows it (64 in version 1.0).
 * @slot_size:		SLOTS: the size of a slot, a multiple of 8; else 0.
 * @slot_count:		SLOTS: how many slots there are; else 0.
 * @__reserved:		zero.
 * @genversion:		the trace system's generation and version, as
 *			posix_trace_attr_getgenversion() reports it;
 *			NUL-terminated.
 * @attr:		the stream's attributes.
 */
struct posixtrace_log_header {
	__u8 magic[POSIXTRACE_LOG_MAGIC_LEN];
	__le16 version_major;
	__le16 version_minor;
	__le32 header_size;
	__le32 byte_order;
	__le32 layout;
	__le32 record_header_size;
	__le32 slot_size;
	__le32 slot_count;
	__le32 __reserved;
	char genversion[64];
	struct posixtrace_log_attr attr;
};

/* struct posixtrace_log_block::type */
#define POSIXTRACE_LOG_BLOCK_EVENTS	1	/* struct posixtrace_log_events */
#define POSIXTRACE_LOG_BLOCK_CLEAR	2	/* a bare block header */
#define POSIXTRACE_LOG_BLOCK_TYPES	3	/* struct posixtrace_log_types */
#define POSIXTRACE_LOG_BLOCK_END	4	/* struct posixtrace_log_end */

/**
 * struct posixtrace_log_block - the header of every block
 * @type:	POSIXTRACE_LOG_BLOCK_*; readers skip types they do not know.
 * @__reserved:	zero.
 * @size:	the block's size, this header included: a multiple of 8, at
 *		least 16. The next block starts @size bytes after this one.
 */
struct posixtrace_log_block {
	__le32 type;
	__le32 __reserved;
	__le64 size;
};

/**
 * struct posixtrace_log_events - a block of event records
 * @block:	type POSIXTRACE_LOG_BLOCK_EVENTS.
 * @block_seq:	0 for the first EVENTS block of the log, then one more for
 *		each: the order of the slots.
 * @used:	bytes of entries following this header. Less than the
 *		block's size in a slot being filled; the rest is zero.
 * @epoch:	0, then one more after each posix_trace_clear().
 * @count:	how many event records (not DEFINE entries) are among them.
 *
 * The entries follow: struct posixtrace_log_record headers, each followed
 * by its data and zero padding to 8 bytes, @size bytes in all. An entry
 * whose event_id is POSIXTRACE_LOG_DEFINE names an event type; every other
 * entry is an event as posix_trace_getnext_event() reports it.
 */
struct posixtrace_log_events {
	struct posixtrace_log_block block;
	__le64 block_seq;
	__le64 used;
	__le32 epoch;
	__le32 count;
};

/*
 * The event_id of an entry that is no event: it defines the name of an
 * event type for the entries after it in the same EVENTS block. Its data is
 * a struct posixtrace_log_define. Each block defines every type it uses
 * before its first use, so every block can be read alone.
 */
#define POSIXTRACE_LOG_DEFINE		0xffffffffU

/**
 * struct posixtrace_log_record - one entry of an EVENTS block
 *
 * The layout of struct posixtrace_record (<linux/posixtrace.h>), in
 * little-endian: @size (the whole entry, a multiple of 8), @event_id,
 * @ts_sec, @ts_nsec (CLOCK_REALTIME), @truncation, @pid, @tid,
 * @prog_address, @seq (the event's number in the stream: events lost in
 * the stream or discarded from the log show as gaps; OVERFLOW and RESUME
 * carry the number of the event after the gap), @data_len, @header_size
 * (the data starts there) and @thread (the producer's pthread_t).
 *
 * The data of system events is little-endian too: an int (__le32) for
 * ERROR and STOP ("auto": 0 for posix_trace_stop(), 1 when the stream
 * filled, 2 when an UNTIL_FULL log filled), one event set for START (the
 * filter in force) and two for FILTER (old, new), each set
 * POSIXTRACE_EVENTSET_WORDS __le64 words.
 */
struct posixtrace_log_record {
	__le32 size;
	__le32 event_id;
	__le64 ts_sec;
	__le32 ts_nsec;
	__le32 truncation;
	__le32 pid;
	__le32 tid;
	__le64 prog_address;
	__le64 seq;
	__le32 data_len;
	__le32 header_size;
	__le64 thread;
};

/**
 * struct posixtrace_log_define - the data of a DEFINE entry
 * @event_id:	the event type identifier.
 * @name:	its name, NUL-terminated, at most POSIXTRACE_EVENT_NAME_MAX
 *		characters. Only the name and its NUL are stored: the data is
 *		4 + strlen(name) + 1 bytes, which is what data_len (DEFINE
 *		entries) or entry_len (TYPES, before padding) allow for.
 *
 * Minor version 1: a type with an event format (<linux/posixtrace.h>)
 * has it right after the name's NUL, NUL-terminated, at most
 * POSIXTRACE_FORMAT_MAX characters, and the data is that much longer.
 * Readers that stop at the name's NUL read the name as before; nothing
 * (or zero padding) after it means no format.
 */
struct posixtrace_log_define {
	__le32 event_id;
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
};

/**
 * struct posixtrace_log_types - every event type of the stream
 * @block:	type POSIXTRACE_LOG_BLOCK_TYPES.
 * @count:	how many entries follow.
 * @__reserved:	zero.
 *
 * Written at shutdown, before END: the stream's complete mapping of names
 * to identifiers, system types included. Each entry is a struct
 * posixtrace_log_define padded with zeroes to a multiple of 8 bytes, its
 * length given by the __le32 before it:
 *
 *	__le32 entry_len; struct posixtrace_log_define; padding
 *
 * entry_len counts itself, the define and the padding.
 */
struct posixtrace_log_types {
	struct posixtrace_log_block block;
	__le32 count;
	__le32 __reserved;
};

/**
 * struct posixtrace_log_end - the last block: the stream's final status
 * @block:		type POSIXTRACE_LOG_BLOCK_END.
 * @stream_status:	POSIXTRACE_SUSPENDED (a shut down stream).
 * @full_status:	POSIXTRACE_FULL or POSIXTRACE_NOT_FULL.
 * @overrun_status:	POSIXTRACE_OVERRUN if events were lost in the stream
 *			since the last posix_trace_get_status().
 * @flush_error:	the first flush error not yet reported, or 0.
 * @log_overrun_status:	POSIXTRACE_OVERRUN if events were discarded from
 *			the log (UNTIL_FULL) or overwritten in it (LOOP).
 * @log_full_status:	POSIXTRACE_FULL or POSIXTRACE_NOT_FULL.
 * @events_recorded:	events stored in the stream over its life.
 * @events_lost:	events lost in the stream.
 * @events_flushed:	events written to the log.
 * @events_discarded:	events not written (log full, write errors), or
 *			written and then overwritten (LOOP), which count
 *			as flushed too.
 * @filter:		the filter in force at shutdown.
 * @end_time_sec:	when the log was closed, CLOCK_REALTIME.
 * @end_time_nsec:	its nanoseconds.
 * @__reserved:		zero.
 */
struct posixtrace_log_end {
	struct posixtrace_log_block block;
	__le32 stream_status;
	__le32 full_status;
	__le32 overrun_status;
	__le32 flush_error;
	__le32 log_overrun_status;
	__le32 log_full_status;
	__le64 events_recorded;
	__le64 events_lost;
	__le64 events_flushed;
	__le64 events_discarded;
	__le64 filter[POSIXTRACE_EVENTSET_WORDS];
	__le64 end_time_sec;
	__le32 end_time_nsec;
	__le32 __reserved;
};

#endif /* _UAPI_LINUX_POSIXTRACE_LOG_H */
