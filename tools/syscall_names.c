// SPDX-License-Identifier: GPL-2.0
/* System call and errno names (see syscall_names.h). */

#include <stdio.h>
#include <string.h>

#include "syscall_names.h"

static const char *const names[] = {
#include "syscall_table.h"
};

const char *syscall_name(int nr, bool compat, char buf[SYSCALL_NAME_SIZE])
{
	if (!compat && nr >= 0 && (size_t)nr < sizeof(names) / sizeof(names[0]) &&
	    names[nr])
		return names[nr];
	snprintf(buf, SYSCALL_NAME_SIZE, "syscall_%d", nr);
	return buf;
}

const char *syscall_errno_name(int err)
{
	/* glibc 2.32 and later; NULL for a number it does not know. */
	return err > 0 ? strerrorname_np(err) : NULL;
}
