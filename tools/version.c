// SPDX-License-Identifier: GPL-2.0
/* posixtrace version: the ABI version of the loaded module. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/posixtrace.h>
#include <posixtrace-k.h>

#include "command.h"

static const char version_usage[] =
"usage: posixtrace version\n"
"Print the ABI version of the loaded posixtrace module, and whether this\n"
"posixtrace can use it.\n"
"\n"
"Exit status: 0 usable, 1 the module is not loaded or speaks another ABI,\n"
"2 usage.\n";

int cmd_version(int argc, char **argv)
{
	/* A variable: the comparison stays one when the minor is 0. */
	unsigned int need_minor = POSIXTRACE_ABI_MINOR;
	unsigned int major, minor;
	int err;

	if (argc > 1 && is_help(argv[1]))
		return usage_help(version_usage);
	if (argc > 1)
		return usage_error(version_usage, "unexpected argument '%s'",
				   argv[1]);
	err = posixtrace_k_abi_version(&major, &minor);
	if (err) {
		fprintf(stderr, "posixtrace: /dev/posixtrace: %s%s\n", strerror(err),
			err == ENOENT ? " (is posixtrace.ko loaded?)" : "");
		return 1;
	}
	printf("posixtrace module ABI %u.%u\n", major, minor);
	if (major != POSIXTRACE_ABI_MAJOR || minor < need_minor) {
		fprintf(stderr, "posixtrace: this posixtrace needs ABI %u.%u or "
			"a later %u.x: load the module of its own release\n",
			POSIXTRACE_ABI_MAJOR, need_minor, POSIXTRACE_ABI_MAJOR);
		return 1;
	}
	return 0;
}
