// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <trace.h>

#include "text.h"

static void escape(char *out, const char *in, bool keep_space)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)in;

	for (; *p; p++) {
		if ((*p > ' ' || (keep_space && *p == ' ')) && *p < 0x7f &&
		    *p != '%' && *p != '"' && *p != '\\') {
			*out++ = (char)*p;
		} else {
			*out++ = '%';
			*out++ = hex[*p >> 4];
			*out++ = hex[*p & 15];
		}
	}
	*out = '\0';
}

/*
 * Event and trace names are any bytes but NUL. We print them with every
 * byte outside the printable ASCII range, the space, '%', '"' and '\'
 * written as %XX (upper-case hex). The result is one whitespace-free token
 * for scripts; it stands in a TSDL string literal as is, so a CTF reader
 * shows it the same whatever its handling of escapes and of bytes that are
 * not UTF-8; "posixtrace dump" and the CTF trace spell every name alike;
 * and it maps back to the original bytes, so two names never print alike.
 */
void escape_name(char *out, const char *name)
{
	escape(out, name, false);
}

/* The same, spaces kept: for free text, at the end of a line or quoted. */
void escape_text(char *out, const char *text)
{
	escape(out, text, true);
}

void format_time(char *out, const struct timespec *ts)
{
	time_t sec = ts->tv_sec;
	struct tm tm;

	if (!gmtime_r(&sec, &tm)) {
		snprintf(out, TIME_TEXT_SIZE, "@%" PRIdMAX ".%09ld",
			 (intmax_t)ts->tv_sec, ts->tv_nsec);
		return;
	}
	snprintf(out, TIME_TEXT_SIZE, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ts->tv_nsec);
}

/* 0 is also NO_OVERRUN: overrun statuses are the caller's to spell. */
const char *policy_text(int value, char *buf, size_t size)
{
	static const struct {
		int value;
		const char *text;
	} names[] = {
		{ POSIX_TRACE_RUNNING, "RUNNING" },
		{ POSIX_TRACE_SUSPENDED, "SUSPENDED" },
		{ POSIX_TRACE_FULL, "FULL" },
		{ POSIX_TRACE_NOT_FULL, "NOT_FULL" },
		{ POSIX_TRACE_OVERRUN, "OVERRUN" },
		{ POSIX_TRACE_FLUSHING, "FLUSHING" },
		{ POSIX_TRACE_NOT_FLUSHING, "NOT_FLUSHING" },
		{ POSIX_TRACE_LOOP, "LOOP" },
		{ POSIX_TRACE_UNTIL_FULL, "UNTIL_FULL" },
		{ POSIX_TRACE_FLUSH, "FLUSH" },
		{ POSIX_TRACE_APPEND, "APPEND" },
		{ POSIX_TRACE_CLOSE_FOR_CHILD, "CLOSE_FOR_CHILD" },
		{ POSIX_TRACE_INHERITED, "INHERITED" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].value == value)
			return names[i].text;
	snprintf(buf, size, "%d", value);
	return buf;
}

const char *human_size(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "KMGTPE";
	uint64_t unit = 1024;
	int u = 0;

	if (bytes < 1024) {
		snprintf(buf, size, "%" PRIu64 "B", bytes);
		return buf;
	}
	while (u < 5 && bytes / unit >= 1024) {
		unit *= 1024;
		u++;
	}
	/* One decimal below 10 units, where it says something. */
	if (bytes % unit && bytes / unit < 10)
		snprintf(buf, size, "%.1f%c", (double)bytes / (double)unit,
			 units[u]);
	else
		snprintf(buf, size, "%.0f%c", (double)bytes / (double)unit,
			 units[u]);
	return buf;
}

/* |v| of a negative time_t, without overflow at its minimum. */
static uintmax_t magnitude(time_t v)
{
	return v < 0 ? (uintmax_t)-(v + 1) + 1 : (uintmax_t)v;
}

void format_epoch(char *out, const struct timespec *ts)
{
	/* -1.5 s is tv_sec -2, tv_nsec 500000000. */
	if (ts->tv_sec < 0 && ts->tv_nsec)
		snprintf(out, EPOCH_TEXT_SIZE, "-%ju.%09ld",
			 magnitude(ts->tv_sec) - 1, 1000000000L - ts->tv_nsec);
	else
		snprintf(out, EPOCH_TEXT_SIZE, "%s%ju.%09ld",
			 ts->tv_sec < 0 ? "-" : "", magnitude(ts->tv_sec),
			 ts->tv_nsec);
}

void format_offset(char *out, const struct timespec *a,
		   const struct timespec *b)
{
	bool neg = a->tv_sec < b->tv_sec ||
		   (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
	const struct timespec *hi = neg ? b : a, *lo = neg ? a : b;
	/* Modulo 2^64 the difference is right even where time_t's is not. */
	uint64_t sec = (uint64_t)hi->tv_sec - (uint64_t)lo->tv_sec;
	long nsec = hi->tv_nsec - lo->tv_nsec;

	if (nsec < 0) {
		nsec += 1000000000L;
		sec--;
	}
	snprintf(out, OFFSET_TEXT_SIZE, "%c%" PRIu64 ".%09ld", neg ? '-' : '+',
		 sec, nsec);
}

bool data_is_text(const unsigned char *p, size_t n)
{
	size_t i;

	if (n && !p[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if ((p[i] < ' ' || p[i] > '~') && p[i] != '\t' &&
		    p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

void print_quoted(FILE *out, const unsigned char *p, size_t n)
{
	size_t i;

	putc('"', out);
	for (i = 0; i < n; i++) {
		switch (p[i]) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\t': fputs("\\t", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\0': fputs("\\0", out); break;
		default: putc(p[i], out); break;
		}
	}
	putc('"', out);
}

/* "64K", "4M", "1G" or bytes: the sizes users think in (powers of 1024). */
int parse_size(const char *text, size_t *size)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	/* strtoull() would take "-1" and " 1". */
	if (!isdigit((unsigned char)text[0]))
		return EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		return errno;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	}
	if (shift)
		end++;
	if (*end)
		return EINVAL;
	if (v > (SIZE_MAX >> shift))
		return ERANGE;
	*size = (size_t)v << shift;
	return 0;
}
