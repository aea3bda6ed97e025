// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which system calls a stream records: the module's
 * SET_SYSCALLS and GET_SYSCALLS, a bitmap per table of calls, applied in
 * the kernel before anything is written.
 */

#include <string.h>

#include <posixtrace-k.h>

#include "internal.h"

_Static_assert(POSIXTRACE_K_SYSCALL_NR_MAX == POSIXTRACE_SYSCALL_NR_MAX,
	       "the table's size is the module's");
_Static_assert(POSIXTRACE_K_SYSCALL_WORDS == POSIXTRACE_SYSCALL_WORDS,
	       "the bitmap's words are the module's");

PTK_EXPORT int posixtrace_k_set_syscalls(trace_id_t trid, unsigned int table,
					 const uint64_t *bits)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_syscalls req = {
		.size = sizeof(req),
		.flags = bits ? 0 : POSIXTRACE_SYSCALLS_ALL,
		.compat = table,
	};

	if (table > POSIXTRACE_K_SYSCALLS_COMPAT)
		return EINVAL;
	if (bits)
		memcpy(req.bits, bits, sizeof(req.bits));
	return ptk_trid_ioctl(trid, POSIXTRACE_IOC_SET_SYSCALLS, &req);
}

PTK_EXPORT int posixtrace_k_get_syscalls(trace_id_t trid, unsigned int table,
					 uint64_t *bits, int *all)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_syscalls req = {
		.size = sizeof(req),
		.compat = table,
	};
	int err;

	if (table > POSIXTRACE_K_SYSCALLS_COMPAT || !bits || !all)
		return EINVAL;
	err = ptk_trid_ioctl(trid, POSIXTRACE_IOC_GET_SYSCALLS, &req);
	if (err)
		return err;
	memcpy(bits, req.bits, sizeof(req.bits));
	*all = !!(req.flags & POSIXTRACE_SYSCALLS_ALL);
	return 0;
}
