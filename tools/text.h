/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text forms shared by the subcommands, so that "posixtrace dump" and what
 * babeltrace2 prints of "posixtrace export" spell things the same way.
 */
#ifndef POSIXTRACE_TOOL_TEXT_H
#define POSIXTRACE_TOOL_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The longest escaped form of a NUL-terminated string of n characters. */
#define ESCAPED_SIZE(n)		(3 * (n) + 1)

void escape_name(char *out, const char *name);
void escape_text(char *out, const char *text);

/* "2024-11-22T08:03:12.123456789Z": UTC, always nine decimals. */
#define TIME_TEXT_SIZE		48
void format_time(char *out, const struct timespec *ts);

/* The <trace.h> constant's name without POSIX_TRACE_, or its number. */
const char *policy_text(int value, char *buf, size_t size);

/*
 * A size for people, in powers of 1024 with the suffixes SIZE options
 * take: "352B", "64K", "1.5M", "12G".
 */
#define HUMAN_SIZE_SIZE		16
const char *human_size(uint64_t bytes, char *buf, size_t size);

#endif /* POSIXTRACE_TOOL_TEXT_H */
