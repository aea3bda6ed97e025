// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a log knows besides its events, learned on the first call that
 * needs it, once:
 *
 *  - the names of the event types: the TYPES block, written at shutdown;
 *    a log without one (cut short), or whose TYPES is damaged, names the
 *    types its DEFINE entries name too, from every EVENTS block, cleared
 *    ones included (posix_trace_clear() keeps the mapping of names). The
 *    first name given to an identifier is the one kept. The system types
 *    have POSIX's names whatever the log says. A format follows
 *    a name's NUL; the first well-formed one given with the name kept is
 *    the type's, and one that is not well formed is ignored;
 *  - without an END block: the filter in force, from the last START
 *    (the filter) or FILTER (old and new filter) entry, and whether the
 *    stream was last stopped automatically (STOP's "auto" data), which
 *    tells posix_trace_get_status() what the missing END would have.
 *
 * Both need a pass over every entry of the log: it is done only if the
 * log lacks a good TYPES or END, and only when asked. The name table is fixed
 * (one name per identifier the ABI has: about 70 KiB), whatever the file.
 */

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* POSIX's names (XSH 2.11.2), as the module gives them to streams. */
static const char *const ptk_system_names[] = POSIXTRACE_SYSTEM_EVENT_NAMES;

/* The name of a type every stream has, or NULL. */
const char *ptk_log_system_name(uint32_t id)
{
	if (id < sizeof(ptk_system_names) / sizeof(ptk_system_names[0]))
		return ptk_system_names[id];
	if (id == POSIXTRACE_EVENT_UNNAMED_USER)
		return POSIXTRACE_UNNAMED_USER_NAME;
	return NULL;
}

/*
 * The first name a log gives an identifier is the one it keeps. Says
 * whether the identifier now has this name (a user type's).
 */
static bool ptk_log_name(struct ptk_log *l, uint32_t id, const char *name,
			 size_t len)
{
	uint64_t bit = UINT64_C(1) << (id % 64);

	if (id >= POSIXTRACE_EVENT_ID_MAX || ptk_log_system_name(id))
		return false;
	if (l->named[id / 64] & bit)
		return !strcmp(l->names[id], name);
	memcpy(l->names[id], name, len);
	l->names[id][len] = '\0';
	l->named[id / 64] |= bit;
	return true;
}

/*
 * The format after a name's NUL: text and its NUL, within room
 * bytes, or nothing (older logs end the entry there, or pad it with
 * zeroes). A type keeps the first well-formed format given with its name:
 * the kernel never changes one, so a second would come from damage.
 * Says whether what was there was good (nothing is).
 */
static bool ptk_log_format(struct ptk_log *l, uint32_t id, const char *format,
			   size_t room, bool named)
{
	size_t len = strnlen(format, room);

	if (!len)
		return true;
	if (len == room || !ptk_format_ok(format))
		return false;
	if (!named || l->formats[id])
		return true;
	l->formats[id] = strdup(format);
	return true;
}

/*
 * A struct posixtrace_log_define of size bytes, its name then maybe a
 * format (no more than PTK_LOG_DEFINE_MAX): names its type if it is well
 * formed, and says whether it was.
 */
static bool ptk_log_define(struct ptk_log *l, const unsigned char *def,
			   size_t size)
{
	const char *name = (const char *)def + sizeof(__le32);
	bool named;
	__le32 id;
	size_t len;

	if (size <= sizeof(id))
		return false;
	memcpy(&id, def, sizeof(id));
	if (!ptk_log_name_ok(name, size - sizeof(id), &len))
		return false;
	named = ptk_log_name(l, le32toh(id), name, len);
	return ptk_log_format(l, le32toh(id), name + len + 1,
			      size - sizeof(id) - len - 1, named);
}

/*
 * TYPES: count entries of "__le32 entry_len; define; padding". An entry
 * that is not well formed ends the list; one whose name is not ends only
 * itself. types_good says whether every entry was good.
 */
#define PTK_LOG_TYPE_ENTRY_MAX \
	PTK_ROUND8(sizeof(__le32) + PTK_LOG_DEFINE_MAX)

static int ptk_log_types(struct ptk_log *l)
{
	unsigned char entry[PTK_LOG_TYPE_ENTRY_MAX];
	struct posixtrace_log_types t;
	uint64_t pos = l->types_pos, end = l->types_pos + l->types_size;
	uint32_t count, i, len, bad = 0;
	__le32 entry_len;
	int err;

	l->types_good = false;
	err = ptk_log_read(l, pos, &t, sizeof(t));
	if (err)
		return err == PTK_LOG_SHORT ? 0 : err;
	count = le32toh(t.count);
	pos += sizeof(t);
	for (i = 0; i < count; i++) {
		if (end - pos < sizeof(entry_len))
			return 0;
		err = ptk_log_read(l, pos, &entry_len, sizeof(entry_len));
		if (err)
			return err == PTK_LOG_SHORT ? 0 : err;
		len = le32toh(entry_len);
		if (len % 8 || len <= sizeof(entry_len) + sizeof(__le32) ||
		    len > sizeof(entry) || len > end - pos)
			return 0;
		err = ptk_log_read(l, pos, entry, len);
		if (err)
			return err == PTK_LOG_SHORT ? 0 : err;
		if (!ptk_log_define(l, entry + sizeof(entry_len),
				    len - sizeof(entry_len)))
			bad++;
		pos += len;
	}
	l->types_good = !bad;
	return 0;
}

/* The entry e, as far as learning is concerned. */
static int ptk_log_learn_entry(struct ptk_log *l,
			       const struct ptk_log_entry *e)
{
	unsigned char buf[PTK_LOG_DEFINE_MAX > 2 * PTK_LOG_SET_SIZE ?
			  PTK_LOG_DEFINE_MAX : 2 * PTK_LOG_SET_SIZE];
	uint64_t data = e->pos + e->header_size;
	size_t want = 0, skip = 0;
	int err;

	switch (e->event_id) {
	case POSIXTRACE_LOG_DEFINE:
		if (l->types_good)
			return 0;
		want = e->data_len < PTK_LOG_DEFINE_MAX ?
		       e->data_len : PTK_LOG_DEFINE_MAX;
		break;
	case POSIXTRACE_EVENT_START:
		if (l->has_end)
			return 0;
		l->stopped = false;
		if (e->data_len >= PTK_LOG_SET_SIZE)
			want = PTK_LOG_SET_SIZE;
		break;
	case POSIXTRACE_EVENT_FILTER:
		/* The new filter is the second set. */
		if (l->has_end || e->data_len < 2 * PTK_LOG_SET_SIZE)
			return 0;
		want = 2 * PTK_LOG_SET_SIZE;
		skip = PTK_LOG_SET_SIZE;
		break;
	case POSIXTRACE_EVENT_STOP:
		if (l->has_end)
			return 0;
		l->stopped = true;
		l->stop_auto = 0;
		if (e->data_len >= sizeof(__le32))
			want = sizeof(__le32);
		break;
	default:
		return 0;
	}
	if (!want)
		return 0;
	err = ptk_log_read(l, data, buf, want);
	if (err)
		return err == PTK_LOG_SHORT ? 0 : err;

	switch (e->event_id) {
	case POSIXTRACE_LOG_DEFINE:
		ptk_log_define(l, buf, want);
		break;
	case POSIXTRACE_EVENT_STOP: {
		__le32 v;

		memcpy(&v, buf, sizeof(v));
		l->stop_auto = le32toh(v);
		break;
	}
	default:
		ptk_log_set_from_le(buf + skip, l->filter);
		l->has_filter = true;
		break;
	}
	return 0;
}

/* Every entry of every EVENTS block, oldest first. */
static int ptk_log_scan(struct ptk_log *l)
{
	struct ptk_log_entry e;
	uint64_t pos;
	size_t i;
	int err;

	l->has_filter = false;
	l->stopped = false;
	for (i = 0; i < l->nblocks; i++) {
		pos = l->blocks[i].start;
		while (!(err = ptk_log_entry_read(l, pos, l->blocks[i].end,
						  &e))) {
			err = ptk_log_learn_entry(l, &e);
			if (err)
				return err;
			pos += e.size;
		}
		if (err != PTK_LOG_SHORT)
			return err;
	}
	return 0;
}

/*
 * Called with l->lock held. On an error (reading the file, memory) it
 * learns again at the next call.
 */
int ptk_log_learn(struct ptk_log *l)
{
	int err;

	if (l->learned)
		return 0;
	if (!l->names) {
		l->names = calloc(POSIXTRACE_EVENT_ID_MAX, sizeof(*l->names));
		if (!l->names)
			return ENOMEM;
	}
	if (!l->formats) {
		l->formats = calloc(POSIXTRACE_EVENT_ID_MAX,
				    sizeof(*l->formats));
		if (!l->formats)
			return ENOMEM;
	}
	if (l->has_types) {
		err = ptk_log_types(l);
		if (err)
			return err;
	}
	if (!l->types_good || !l->has_end) {
		err = ptk_log_scan(l);
		if (err)
			return err;
	}
	l->learned = true;
	return 0;
}
