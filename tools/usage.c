// SPDX-License-Identifier: GPL-2.0
/*
 * How every subcommand answers --help and a usage error. Its help text
 * starts with "usage: posixtrace NAME ...": --help prints the whole text
 * on stdout; a usage error prints one line saying what is wrong (unless
 * getopt_long() said it already) and a hint, on stderr.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "command.h"

int usage_help(const char *usage)
{
	fputs(usage, stdout);
	return 0;
}

/* "posixtrace NAME", from the help text's first line; its length. */
static int usage_prog(const char *usage, const char **prog)
{
	static const char tool[] = "posixtrace";
	const char *start = strstr(usage, tool);
	size_t len;

	if (!start) {
		*prog = tool;
		return (int)strlen(tool);
	}
	len = strlen(tool);
	if (start[len] == ' ')
		len += 1 + strcspn(start + len + 1, " \n");
	*prog = start;
	return (int)len;
}

int vusage_error(const char *usage, const char *fmt, va_list ap)
{
	const char *prog;
	int len = usage_prog(usage, &prog);

	if (fmt) {
		fprintf(stderr, "%.*s: ", len, prog);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Try '%.*s --help'.\n", len, prog);
	return EXIT_USAGE;
}

int usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vusage_error(usage, fmt, ap);
	va_end(ap);
	return ret;
}
