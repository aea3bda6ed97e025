// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event type identifiers as a stream sees them: the names the traced
 * process opened plus the system events. A pre-recorded stream (a log
 * trid) has the mapping its log recorded (log_learn.c), and no new names:
 * trid_eventid_open is EINVAL there, as for any trid but an active
 * stream's.
 */

#include <stdint.h>
#include <string.h>

#include "internal.h"

PTK_EXPORT int posix_trace_trid_eventid_open(trace_id_t trid,
					     const char *restrict event_name,
					     trace_event_id_t *restrict event)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_eventid req = {
		.size = sizeof(req),
		.name = (uintptr_t)event_name,
	};
	int err;

	if (!event_name || !event)
		return EINVAL;
	err = ptk_trid_ioctl(trid, POSIXTRACE_IOC_TRID_EVENTID_OPEN, &req);
	if (err)
		return err;
	*event = (trace_event_id_t)req.event_id;
	return 0;
}

/*
 * Identifiers are plain numbers, the same for the same name in a stream;
 * POSIX leaves the result unspecified for a bad trid, so it is not looked
 * up (this function has no way to report an error).
 */
PTK_EXPORT int posix_trace_eventid_equal(trace_id_t trid,
					 trace_event_id_t event1,
					 trace_event_id_t event2)
{
	(void)trid;
	return event1 == event2;
}

/*
 * The caller's buffer needs TRACE_EVENT_NAME_MAX + 1 bytes. The kernel
 * (or the log) writes into ours, so that the caller's is untouched on
 * error.
 */
PTK_EXPORT int posix_trace_eventid_get_name(trace_id_t trid,
					    trace_event_id_t event,
					    char *event_name)
{
	PTK_KEEP_ERRNO;
	char name[POSIXTRACE_EVENT_NAME_MAX + 1] = "";
	struct posixtrace_eventtype req = {
		.size = sizeof(req),
		.event_id = (__u32)event,
		.name = (uintptr_t)name,
	};
	struct ptk_ref ref;
	size_t len;
	int err;

	if (!event_name)
		return EINVAL;
	err = ptk_ref_get(trid, &ref);
	if (err)
		return err;
	if (ref.log)
		err = ptk_log_get_name(ref.log, event, name);
	else
		err = ptk_stream_ioctl(ref.stream, POSIXTRACE_IOC_EVENTID_NAME,
				       &req);
	ptk_ref_put(&ref);
	if (err)
		return err;
	len = strnlen(name, POSIXTRACE_EVENT_NAME_MAX);
	memcpy(event_name, name, len);
	event_name[len] = '\0';
	return 0;
}

/*
 * The iterator is a cursor per trid: ask for the first type at or after
 * it, then move past the one found. Types opened meanwhile with a higher
 * identifier still show up; the order is by identifier.
 */
PTK_EXPORT int posix_trace_eventtypelist_getnext_id(
	trace_id_t trid, trace_event_id_t *restrict event,
	int *restrict unavailable)
{
	PTK_KEEP_ERRNO;
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	struct posixtrace_eventtype req = {
		.size = sizeof(req),
		.name = (uintptr_t)name,
	};
	struct ptk_stream *s;
	struct ptk_ref ref;
	int err;

	if (!event || !unavailable)
		return EINVAL;
	err = ptk_ref_get(trid, &ref);
	if (err)
		return err;
	if (ref.log) {
		err = ptk_log_type_next(ref.log, event, unavailable);
		ptk_ref_put(&ref);
		return err;
	}
	s = ref.stream;
	/* Held across the ioctl: two threads must not get the same id. */
	ptk_lock(&s->lock);
	req.event_id = s->type_cursor;
	err = s->dead ? EINVAL :
		ptk_stream_ioctl(s, POSIXTRACE_IOC_EVENTTYPE_NEXT, &req);
	if (!err) {
		/* Never backwards: a cursor that could not advance ends. */
		if (req.found && req.event_id >= s->type_cursor &&
		    req.event_id < UINT32_MAX) {
			*event = (trace_event_id_t)req.event_id;
			*unavailable = 0;
			s->type_cursor = req.event_id + 1;
		} else {
			*unavailable = 1;
		}
	}
	ptk_unlock(&s->lock);
	ptk_ref_put(&ref);
	return err;
}

PTK_EXPORT int posix_trace_eventtypelist_rewind(trace_id_t trid)
{
	PTK_KEEP_ERRNO;
	struct ptk_ref ref;
	int err;

	err = ptk_ref_get(trid, &ref);
	if (err)
		return err;
	if (ref.log) {
		ptk_log_type_rewind(ref.log);
	} else {
		ptk_lock(&ref.stream->lock);
		ref.stream->type_cursor = 0;
		ptk_unlock(&ref.stream->lock);
	}
	ptk_ref_put(&ref);
	return 0;
}
