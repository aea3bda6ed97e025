// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Trace event filters (TEF): event type sets, and the filter of a stream,
 * the set of types it does not record.
 *
 * A trace_event_set_t is a struct posixtrace_eventset (abi.c checks it):
 * bit id % 64 of word id / 64 stands for type id, and bits from
 * POSIXTRACE_EVENT_ID_MAX up stay 0. The set functions are pure userspace,
 * on the application's own objects.
 */

#include <string.h>

#include "internal.h"

/* Every system type (0-7, ERROR to FILTER) is process-independent here. */
#define PTK_SYSTEM_IDS	(POSIXTRACE_EVENT_FILTER + 1)

static bool ptk_id_ok(trace_event_id_t id)
{
	return (uint32_t)id < POSIXTRACE_EVENT_ID_MAX;
}

static uint64_t ptk_bit(trace_event_id_t id)
{
	return UINT64_C(1) << ((uint32_t)id % 64);
}

PTK_EXPORT int posix_trace_eventset_empty(trace_event_set_t *set)
{
	if (!set)
		return EINVAL;
	memset(set, 0, sizeof(*set));
	return 0;
}

/* The set becomes the types of what, and only those. */
PTK_EXPORT int posix_trace_eventset_fill(trace_event_set_t *set, int what)
{
	uint32_t n;

	switch (what) {
	case POSIX_TRACE_WOPID_EVENTS:
	case POSIX_TRACE_SYSTEM_EVENTS:
		n = PTK_SYSTEM_IDS;
		break;
	case POSIX_TRACE_ALL_EVENTS:
		/* System, reserved, unnamed and every user identifier. */
		n = POSIXTRACE_EVENT_ID_MAX;
		break;
	default:
		return EINVAL;
	}
	if (!set)
		return EINVAL;
	/* Identifiers 0 to n - 1. */
	memset(set, 0, sizeof(*set));
	memset(set->__bits, 0xff, n / 64 * sizeof(set->__bits[0]));
	if (n % 64)
		set->__bits[n / 64] = ptk_bit((trace_event_id_t)n) - 1;
	return 0;
}

/* Adding a member or deleting a non-member is not an error (POSIX). */
PTK_EXPORT int posix_trace_eventset_add(trace_event_id_t event_id,
					trace_event_set_t *set)
{
	if (!set || !ptk_id_ok(event_id))
		return EINVAL;
	set->__bits[(uint32_t)event_id / 64] |= ptk_bit(event_id);
	return 0;
}

PTK_EXPORT int posix_trace_eventset_del(trace_event_id_t event_id,
					trace_event_set_t *set)
{
	if (!set || !ptk_id_ok(event_id))
		return EINVAL;
	set->__bits[(uint32_t)event_id / 64] &= ~ptk_bit(event_id);
	return 0;
}

PTK_EXPORT int posix_trace_eventset_ismember(trace_event_id_t event_id,
	const trace_event_set_t *restrict set, int *restrict ismember)
{
	if (!set || !ismember || !ptk_id_ok(event_id))
		return EINVAL;
	*ismember = !!(set->__bits[(uint32_t)event_id / 64] & ptk_bit(event_id));
	return 0;
}

/*
 * The module applies how (and refuses a set with bits past the last
 * identifier); on a running stream it records POSIX_TRACE_FILTER with the
 * old and the new filter. POSIX wants EINTR back when a signal interrupts
 * the call, the filter then unchanged: no restart.
 */
PTK_EXPORT int posix_trace_set_filter(trace_id_t trid,
				      const trace_event_set_t *set, int how)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_filter req = {
		.size = sizeof(req),
		.how = (__u32)how,
		.set = (uintptr_t)set,
	};

	if (!set || (how != POSIX_TRACE_SET_EVENTSET &&
		     how != POSIX_TRACE_ADD_EVENTSET &&
		     how != POSIX_TRACE_SUB_EVENTSET))
		return EINVAL;
	return ptk_trid_ioctl_once(trid, POSIXTRACE_IOC_SET_FILTER, &req);
}

/*
 * The module (or the log) writes into ours, so that the caller's is
 * untouched on error. A log's filter is the one in force when its stream
 * was shut down (log.c).
 */
PTK_EXPORT int posix_trace_get_filter(trace_id_t trid, trace_event_set_t *set)
{
	PTK_KEEP_ERRNO;
	trace_event_set_t cur;
	struct posixtrace_filter req = {
		.size = sizeof(req),
		.set = (uintptr_t)&cur,
	};
	struct ptk_ref ref;
	int err;

	if (!set)
		return EINVAL;
	err = ptk_ref_get(trid, &ref);
	if (err)
		return err;
	if (ref.log)
		err = ptk_log_get_filter(ref.log, &cur);
	else
		err = ptk_stream_ioctl(ref.stream, POSIXTRACE_IOC_GET_FILTER,
				       &req);
	ptk_ref_put(&ref);
	if (err)
		return err;
	*set = cur;
	return 0;
}
