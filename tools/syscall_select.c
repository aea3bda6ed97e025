// SPDX-License-Identifier: GPL-2.0
/* --syscalls=LIST (see syscall_select.h). */

#include <string.h>

#include "syscall_groups.h"
#include "syscall_names.h"
#include "syscall_select.h"

/* Selects the call name (len bytes) in each table that has it. */
static bool select_name(struct syscall_select *sel, const char *name,
			size_t len)
{
	bool found = false;
	int table, nr;

	for (table = 0; table < 2; table++) {
		nr = syscall_number(name, len, table);
		if (nr < 0 || nr >= POSIXTRACE_K_SYSCALL_NR_MAX)
			continue;
		sel->bits[table][nr / 64] |= UINT64_C(1) << (nr % 64);
		found |= table == 0;
	}
	return found;
}

int syscall_select_parse(struct syscall_select *sel, const char *list,
			 const char **bad)
{
	const char *const *group;
	const char *p = list;
	size_t len;

	sel->given = true;
	do {
		len = strcspn(p, ",");
		*bad = p;
		if (*p == '%') {
			group = syscall_group(p + 1, len - 1);
			if (!group)
				return -1;
			for (; *group; group++)
				select_name(sel, *group, strlen(*group));
		} else if (!len || !select_name(sel, p, len)) {
			return -1;
		}
		p += len;
	} while (*p++ == ',');
	return 0;
}

int syscall_select_apply(const struct syscall_select *sel, trace_id_t trid)
{
	int err;

	if (!sel->given)
		return 0;
	err = posixtrace_k_set_syscalls(trid, POSIXTRACE_K_SYSCALLS_NATIVE,
					sel->bits[0]);
	if (!err)
		err = posixtrace_k_set_syscalls(trid,
						POSIXTRACE_K_SYSCALLS_COMPAT,
						sel->bits[1]);
	return err;
}
