// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Trace stream attributes objects. Pure userspace: nothing here needs the
 * module. Every function checks the object's magic, so an object never
 * initialised, or destroyed, gives EINVAL (when its bytes happen not to
 * hold the magic, which is what one can check cheaply).
 */

#include <string.h>
#include <time.h>

#include <posixtrace-k.h>

#include "internal.h"

#ifndef PTK_VERSION
#error "PTK_VERSION must be defined (the Makefile does)"
#endif
#define PTK_GENVERSION "posixtrace-k " PTK_VERSION

/* getgenversion's buffer only has to hold TRACE_NAME_MAX bytes. */
_Static_assert(sizeof(PTK_GENVERSION) <= TRACE_NAME_MAX,
	       "generation version too long");

PTK_EXPORT int posix_trace_attr_init(trace_attr_t *attr)
{
	if (!attr)
		return EINVAL;
	ptk_attr_defaults(attr);
	return 0;
}

PTK_EXPORT int posix_trace_attr_destroy(trace_attr_t *attr)
{
	if (!ptk_attr_valid(attr))
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->__magic = PTK_ATTR_DESTROYED;
	return 0;
}

PTK_EXPORT int posix_trace_attr_getgenversion(const trace_attr_t *attr,
					      char *genversion)
{
	if (!ptk_attr_valid(attr) || !genversion)
		return EINVAL;
	memcpy(genversion, PTK_GENVERSION, sizeof(PTK_GENVERSION));
	return 0;
}

PTK_EXPORT int posix_trace_attr_getname(const trace_attr_t *attr,
					char *tracename)
{
	size_t len;

	if (!ptk_attr_valid(attr) || !tracename)
		return EINVAL;
	len = strnlen(attr->__name, TRACE_NAME_MAX - 1);
	memcpy(tracename, attr->__name, len);
	tracename[len] = '\0';
	return 0;
}

/*
 * POSIX asks the reader for a buffer of only {TRACE_NAME_MAX} characters,
 * and allows a longer name to be cut to one less than that. We cut every
 * name to TRACE_NAME_MAX - 1 characters, so that the name and its null
 * byte always fit such a buffer. Not an error: setname has none.
 */
PTK_EXPORT int posix_trace_attr_setname(trace_attr_t *attr,
					const char *tracename)
{
	size_t len;

	if (!ptk_attr_valid(attr) || !tracename)
		return EINVAL;
	len = strnlen(tracename, TRACE_NAME_MAX - 1);
	memset(attr->__name, 0, sizeof(attr->__name));
	memcpy(attr->__name, tracename, len);
	return 0;
}

/*
 * The creation time exists only in an object filled by
 * posix_trace_get_attr(); POSIX leaves it unspecified otherwise, and we
 * say so with EINVAL rather than invent a time.
 */
PTK_EXPORT int posix_trace_attr_getcreatetime(const trace_attr_t *attr,
					      struct timespec *createtime)
{
	if (!ptk_attr_valid(attr) || !createtime)
		return EINVAL;
	if (!(attr->__flags & PTK_ATTR_HAS_CREATE_TIME))
		return EINVAL;
	createtime->tv_sec = (time_t)attr->__create_sec;
	createtime->tv_nsec = (long)attr->__create_nsec;
	return 0;
}

/*
 * Timestamps are CLOCK_REALTIME, taken by the kernel. The attributes of a
 * pre-recorded stream (TRL) carry the resolution its writer had.
 */
PTK_EXPORT int posix_trace_attr_getclockres(const trace_attr_t *attr,
					    struct timespec *resolution)
{
	PTK_KEEP_ERRNO;

	if (!ptk_attr_valid(attr) || !resolution)
		return EINVAL;
	if (attr->__flags & PTK_ATTR_HAS_CLOCK_RES) {
		resolution->tv_sec = (time_t)(attr->__clock_res_nsec /
					      1000000000u);
		resolution->tv_nsec = (long)(attr->__clock_res_nsec %
					     1000000000u);
		return 0;
	}
	return clock_getres(CLOCK_REALTIME, resolution) ? errno : 0;
}

static bool ptk_stream_policy_ok(int policy)
{
	/*
	 * FLUSH is for a stream with a log (TRL). It is a valid value of the
	 * attribute; posix_trace_create() refuses it (EINVAL), as POSIX says
	 * defining it for a stream without log is invalid.
	 */
	return policy == POSIX_TRACE_LOOP || policy == POSIX_TRACE_UNTIL_FULL ||
	       policy == POSIX_TRACE_FLUSH;
}

PTK_EXPORT int posix_trace_attr_getstreamfullpolicy(
	const trace_attr_t *restrict attr, int *restrict streampolicy)
{
	if (!ptk_attr_valid(attr) || !streampolicy)
		return EINVAL;
	*streampolicy = attr->__stream_full_policy;
	return 0;
}

/*
 * The default is LOOP without a log and FLUSH with one; an object cannot
 * know which create it will be given to, so it reports LOOP and remembers
 * whether the policy was set explicitly: posix_trace_create_withlog() will
 * take FLUSH for an object whose policy was never set.
 */
PTK_EXPORT int posix_trace_attr_setstreamfullpolicy(trace_attr_t *attr,
						    int streampolicy)
{
	if (!ptk_attr_valid(attr) || !ptk_stream_policy_ok(streampolicy))
		return EINVAL;
	attr->__stream_full_policy = streampolicy;
	attr->__flags |= PTK_ATTR_STREAM_POLICY_SET;
	return 0;
}

PTK_EXPORT int posix_trace_attr_getlogfullpolicy(
	const trace_attr_t *restrict attr, int *restrict logpolicy)
{
	if (!ptk_attr_valid(attr) || !logpolicy)
		return EINVAL;
	*logpolicy = attr->__log_full_policy;
	return 0;
}

PTK_EXPORT int posix_trace_attr_setlogfullpolicy(trace_attr_t *attr,
						 int logpolicy)
{
	if (!ptk_attr_valid(attr))
		return EINVAL;
	if (logpolicy != POSIX_TRACE_LOOP &&
	    logpolicy != POSIX_TRACE_UNTIL_FULL &&
	    logpolicy != POSIX_TRACE_APPEND)
		return EINVAL;
	attr->__log_full_policy = logpolicy;
	return 0;
}

PTK_EXPORT int posix_trace_attr_getinherited(
	const trace_attr_t *restrict attr, int *restrict inheritancepolicy)
{
	if (!ptk_attr_valid(attr) || !inheritancepolicy)
		return EINVAL;
	*inheritancepolicy = attr->__inheritance;
	return 0;
}

PTK_EXPORT int posix_trace_attr_setinherited(trace_attr_t *attr,
					     int inheritancepolicy)
{
	if (!ptk_attr_valid(attr))
		return EINVAL;
	if (inheritancepolicy != POSIX_TRACE_CLOSE_FOR_CHILD &&
	    inheritancepolicy != POSIX_TRACE_INHERITED)
		return EINVAL;
	attr->__inheritance = inheritancepolicy;
	return 0;
}

PTK_EXPORT int posixtrace_k_attr_getkernelevents(const trace_attr_t *attr,
						 unsigned int *classes)
{
	if (!ptk_attr_valid(attr) || !classes)
		return EINVAL;
	*classes = attr->__kernel_events;
	return 0;
}

PTK_EXPORT int posixtrace_k_attr_setkernelevents(trace_attr_t *attr,
						 unsigned int classes)
{
	if (!ptk_attr_valid(attr) || classes & ~POSIXTRACE_K_KERNEL_ALL)
		return EINVAL;
	attr->__kernel_events = classes;
	return 0;
}

static size_t ptk_size(uint64_t v)
{
	return v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

PTK_EXPORT int posix_trace_attr_getstreamsize(
	const trace_attr_t *restrict attr, size_t *restrict streamsize)
{
	if (!ptk_attr_valid(attr) || !streamsize)
		return EINVAL;
	*streamsize = ptk_size(attr->__stream_size);
	return 0;
}

/*
 * A stream must hold at least one system event of the largest kind (a
 * FILTER event, PTK_SYSTEM_EVENT_SIZE), as the module requires. The upper
 * bound, and whether the size fits max-data-size, is the module's to judge
 * at create. 0 would mean "the module's default" to the kernel: refused
 * here too.
 */
PTK_EXPORT int posix_trace_attr_setstreamsize(trace_attr_t *attr,
					      size_t streamsize)
{
	if (!ptk_attr_valid(attr) || streamsize < PTK_SYSTEM_EVENT_SIZE)
		return EINVAL;
	attr->__stream_size = streamsize;
	return 0;
}

PTK_EXPORT int posix_trace_attr_getmaxdatasize(
	const trace_attr_t *restrict attr, size_t *restrict maxdatasize)
{
	if (!ptk_attr_valid(attr) || !maxdatasize)
		return EINVAL;
	*maxdatasize = ptk_size(attr->__max_data_size);
	return 0;
}

/* 0 is valid: events keep no data (and longer data is TRUNCATED_RECORD). */
PTK_EXPORT int posix_trace_attr_setmaxdatasize(trace_attr_t *attr,
					       size_t maxdatasize)
{
	if (!ptk_attr_valid(attr) || maxdatasize > PTK_MAX_DATA_SIZE)
		return EINVAL;
	attr->__max_data_size = maxdatasize;
	return 0;
}

PTK_EXPORT int posix_trace_attr_getlogsize(const trace_attr_t *restrict attr,
					   size_t *restrict logsize)
{
	if (!ptk_attr_valid(attr) || !logsize)
		return EINVAL;
	*logsize = ptk_size(attr->__log_size);
	return 0;
}

/*
 * The least log worth asking for: a record with an int of data. Whether a
 * log of this size can take the log-full-policy (a LOOP log needs two
 * slots) is the module's to judge at posix_trace_create_withlog().
 */
#define PTK_LOG_SIZE_MIN	(PTK_RECORD_SIZE + 8)

PTK_EXPORT int posix_trace_attr_setlogsize(trace_attr_t *attr, size_t logsize)
{
	if (!ptk_attr_valid(attr) || logsize < PTK_LOG_SIZE_MIN)
		return EINVAL;
	attr->__log_size = logsize;
	return 0;
}

/*
 * An event takes, in the stream, its record header plus its data padded to
 * 8 bytes; user data beyond max-data-size is truncated, so never costs more.
 * The largest system event is FILTER, with two trace_event_set_t (TEF).
 */
PTK_EXPORT int posix_trace_attr_getmaxsystemeventsize(
	const trace_attr_t *restrict attr, size_t *restrict eventsize)
{
	if (!ptk_attr_valid(attr) || !eventsize)
		return EINVAL;
	*eventsize = PTK_SYSTEM_EVENT_SIZE;
	return 0;
}

PTK_EXPORT int posix_trace_attr_getmaxusereventsize(
	const trace_attr_t *restrict attr, size_t data_len,
	size_t *restrict eventsize)
{
	uint64_t len;

	if (!ptk_attr_valid(attr) || !eventsize)
		return EINVAL;
	len = data_len < attr->__max_data_size ? data_len
					       : attr->__max_data_size;
	if (len > PTK_MAX_DATA_SIZE)
		len = PTK_MAX_DATA_SIZE;
	*eventsize = ptk_size(PTK_RECORD_SIZE + PTK_ROUND8(len));
	return 0;
}
