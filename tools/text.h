/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text forms shared by the subcommands, so that "posixtrace dump" and what
 * babeltrace2 prints of "posixtrace export" spell things the same way.
 */
#ifndef POSIXTRACE_TOOL_TEXT_H
#define POSIXTRACE_TOOL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* The longest escaped form of a NUL-terminated string of n characters. */
#define ESCAPED_SIZE(n)		(3 * (n) + 1)

void escape_name(char *out, const char *name);
void escape_text(char *out, const char *text);

/* "2024-11-22T08:03:12.123456789Z": UTC, always nine decimals. */
#define TIME_TEXT_SIZE		48
void format_time(char *out, const struct timespec *ts);

/*
 * "1764122400.123456789": seconds since the epoch, always nine decimals,
 * "-0.500000000" before it. Text, not a double: a double keeps about
 * 16 digits, and such a time has 19.
 */
#define EPOCH_TEXT_SIZE		48
void format_epoch(char *out, const struct timespec *ts);

/* "+1.500000000" or "-0.000001000": a - b in seconds, sign always. */
#define OFFSET_TEXT_SIZE	48
void format_offset(char *out, const struct timespec *a,
		   const struct timespec *b);

/*
 * Whether n bytes of event data read as text: printable ASCII, tab,
 * newline and carriage return, and at most one NUL, the last byte (a C
 * string passed with its terminator). No data is text too.
 */
bool data_is_text(const unsigned char *p, size_t n);

/*
 * Such data between double quotes, as a C string literal spells it: \",
 * \\, \t, \n, \r and \0 escaped, every other byte as is.
 */
void print_quoted(FILE *out, const unsigned char *p, size_t n);

/* The <trace.h> constant's name without POSIX_TRACE_, or its number. */
const char *policy_text(int value, char *buf, size_t size);

/*
 * A size for people, in powers of 1024 with the suffixes SIZE options
 * take: "352B", "64K", "1.5M", "12G".
 */
#define HUMAN_SIZE_SIZE		16
const char *human_size(uint64_t bytes, char *buf, size_t size);

/*
 * The other way: "64K", "4M", "1G" or bytes, the SIZE options' form.
 * Returns 0, EINVAL, or ERANGE.
 */
int parse_size(const char *text, size_t *size);

#endif /* POSIXTRACE_TOOL_TEXT_H */
