// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One entry of an EVENTS block (struct posixtrace_log_record and its
 * data), and the pieces of entries the reader decodes: names and event
 * sets. Every check of an entry's sizes is here.
 */

#include <endian.h>
#include <string.h>

#include "log.h"

_Static_assert(sizeof(struct posixtrace_log_record) == 64,
	       "log record header changed");
_Static_assert(sizeof(struct posixtrace_log_record) ==
	       sizeof(struct posixtrace_record),
	       "a log record is a struct posixtrace_record");

/*
 * Reads and checks the entry at pos, which must end by end (the block's
 * last byte of entries in the file). Returns 0, PTK_LOG_SHORT when there
 * is no whole, well-formed entry there (the block ends: cut short, or
 * corrupt), or an error number.
 */
int ptk_log_entry_read(struct ptk_log *l, uint64_t pos, uint64_t end,
		       struct ptk_log_entry *e)
{
	struct posixtrace_log_record rec;
	int err;

	if (pos > end || end - pos < sizeof(rec))
		return PTK_LOG_SHORT;
	err = ptk_log_read(l, pos, &rec, sizeof(rec));
	if (err)
		return err;
	e->pos = pos;
	e->size = le32toh(rec.size);
	e->header_size = le32toh(rec.header_size);
	e->data_len = le32toh(rec.data_len);
	/* Each step moves at least a record header forward. */
	if (e->size % 8 || e->size < sizeof(rec) || e->size > end - pos)
		return PTK_LOG_SHORT;
	if (e->header_size < sizeof(rec) || e->header_size > e->size ||
	    e->data_len > e->size - e->header_size)
		return PTK_LOG_SHORT;
	e->event_id = le32toh(rec.event_id);
	e->ts_sec = (int64_t)le64toh(rec.ts_sec);
	e->ts_nsec = le32toh(rec.ts_nsec);
	e->truncation = le32toh(rec.truncation);
	e->pid = (int32_t)le32toh(rec.pid);
	e->tid = (int32_t)le32toh(rec.tid);
	e->prog_address = le64toh(rec.prog_address);
	e->seq = le64toh(rec.seq);
	e->thread = le64toh(rec.thread);
	return 0;
}

/*
 * True if name, within room bytes, is an event name: 1 to
 * POSIXTRACE_EVENT_NAME_MAX characters and a NUL. *len is its length.
 */
bool ptk_log_name_ok(const char *name, size_t room, size_t *len)
{
	size_t n = strnlen(name, room);

	*len = n;
	return n > 0 && n < room && n <= POSIXTRACE_EVENT_NAME_MAX;
}

/*
 * A set of event types as the log stores it (POSIXTRACE_EVENTSET_WORDS
 * little-endian words) in host order, without the bits past the last
 * identifier, which a trace_event_set_t never has.
 */
void ptk_log_set_from_le(const unsigned char *src, uint64_t *words)
{
	uint64_t w;
	size_t i;

	for (i = 0; i < POSIXTRACE_EVENTSET_WORDS; i++) {
		memcpy(&w, src + i * sizeof(w), sizeof(w));
		words[i] = le64toh(w);
	}
#if POSIXTRACE_EVENT_ID_MAX % 64
	words[POSIXTRACE_EVENTSET_WORDS - 1] &=
		(UINT64_C(1) << (POSIXTRACE_EVENT_ID_MAX % 64)) - 1;
#endif
}
