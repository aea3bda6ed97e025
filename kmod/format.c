// SPDX-License-Identifier: GPL-2.0
/*
 * Event formats: the grammar the uapi header gives ("Event formats"),
 * checked before a format joins a name table, so that every format a
 * stream or a log carries is well formed. The parser is the one the
 * library compiles too, and the tools link (lib/format_grammar.c,
 * included here as the kernel's boot code includes lib/ decompressors),
 * so that none of them disagrees with the module. The kernel never reads
 * event data by it: only tools do.
 */

#include <linux/errno.h>

#include "../lib/format_grammar.c"
#include "format.h"

/**
 * posixtrace_format_check - is @format well formed?
 * @format: NUL-terminated, at most POSIXTRACE_FORMAT_MAX characters
 *
 * Return: 0 or -EINVAL.
 */
int posixtrace_format_check(const char *format)
{
	struct posixtrace_format fmt;

	return posixtrace_format_parse(format, &fmt) ? 0 : -EINVAL;
}
