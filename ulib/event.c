// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The instrumented application's side: name event types and record events.
 * Both act for the calling process through /dev/posixtrace; the kernel
 * knows which streams trace it.
 */

#include <stdint.h>

#include "internal.h"

PTK_EXPORT int posix_trace_eventid_open(const char *restrict event_name,
					trace_event_id_t *restrict event_id)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_eventid req = {
		.size = sizeof(req),
		.name = (uintptr_t)event_name,
	};
	int fd, err;

	if (!event_name || !event_id)
		return EINVAL;
	err = ptk_device_fd(&fd);
	if (err)
		return err;
	/* ENAMETOOLONG past TRACE_EVENT_NAME_MAX comes from the kernel. */
	err = ptk_ioctl(fd, POSIXTRACE_IOC_EVENTID_OPEN, &req);
	if (err)
		return err;
	*event_id = (trace_event_id_t)req.event_id;
	return 0;
}

/*
 * POSIX gives posix_trace_event() no way to fail: without the module, a
 * stream, or a valid event_id, it has no effect. Safe from any thread.
 * noinline keeps __builtin_return_address(0) the caller's address.
 */
PTK_EXPORT __attribute__((noinline)) void
posix_trace_event(trace_event_id_t event_id, const void *restrict data_ptr,
		  size_t data_len)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_event req = {
		.size = sizeof(req),
		.event_id = (__u32)event_id,
		/* Longer data is truncated to max-data-size anyway. */
		.data_len = data_len > UINT32_MAX ? UINT32_MAX
						  : (__u32)data_len,
		.data = (uintptr_t)data_ptr,
		.prog_address = (uintptr_t)__builtin_return_address(0),
		.thread = (uintptr_t)pthread_self(),
	};
	int fd;

	if (ptk_device_fd(&fd))
		return;
	(void)ptk_ioctl(fd, POSIXTRACE_IOC_EVENT, &req);
}
