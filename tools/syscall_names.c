// SPDX-License-Identifier: GPL-2.0
/* System call and errno names (see syscall_names.h). */

#include <stdio.h>
#include <string.h>

#include <linux/posixtrace.h>

#include "syscall_names.h"

static const char *const names[] = {
#include "syscall_table.h"
};

/* Sized so, as the file is empty where there is no compat table. */
static const char *const compat_names[POSIXTRACE_SYSCALL_NR_MAX] = {
#include "syscall_table_32.h"
};

#define NELEMS(a)	(sizeof(a) / sizeof((a)[0]))

const char *syscall_name(int nr, bool compat, char buf[SYSCALL_NAME_SIZE])
{
	const char *const *t = compat ? compat_names : names;
	size_t n = compat ? NELEMS(compat_names) : NELEMS(names);

	if (nr >= 0 && (size_t)nr < n && t[nr])
		return t[nr];
	snprintf(buf, SYSCALL_NAME_SIZE, "syscall_%d", nr);
	return buf;
}

int syscall_number(const char *name, size_t len, bool compat)
{
	const char *const *t = compat ? compat_names : names;
	size_t n = compat ? NELEMS(compat_names) : NELEMS(names), i;

	for (i = 0; i < n; i++)
		if (t[i] && strlen(t[i]) == len && !memcmp(t[i], name, len))
			return (int)i;
	return -1;
}

const char *syscall_errno_name(int err)
{
	/* glibc 2.32 and later; NULL for a number it does not know. */
	return err > 0 ? strerrorname_np(err) : NULL;
}
