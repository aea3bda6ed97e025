/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Times given on the command line (dump's --since and --until): a point in
 * time, or an offset from a point the caller knows only later (the first
 * event of a log).
 */
#ifndef POSIXTRACE_TOOL_TIMEARG_H
#define POSIXTRACE_TOOL_TIMEARG_H

#include <stdbool.h>
#include <time.h>

struct time_arg {
	bool given;
	/* ts is an offset, not a point: the caller adds its origin. */
	bool relative;
	/* Normalized: 0 <= tv_nsec < 1000000000. */
	struct timespec ts;
};

/*
 * Parses s into *t. Accepted:
 *   1764122400, 1764122400.5, @1764122400.123456789   seconds since the
 *                                                     epoch (at most nine
 *                                                     decimals)
 *   2025-11-26T02:00:00[.123456789][Z|+hh:mm|-hh:mm|+hhmm|+hh]
 *   2025-11-26 02:00:00, 2025-11-26                   ISO 8601; UTC when
 *                                                     no zone is given
 *   +1.5, +250ms, +10us, +5ns, +2s, +3m, +3min, +1h   an offset (seconds
 *                                                     without a unit)
 * Returns NULL, or why s is not a time (for a usage message).
 */
const char *parse_time_arg(const char *s, struct time_arg *t);

/* -1, 0 or 1 as a is before, at or after b. */
int timespec_cmp(const struct timespec *a, const struct timespec *b);

/* a + b, both normalized, saturating at the ends of time_t. */
struct timespec timespec_add(const struct timespec *a,
			     const struct timespec *b);

#endif /* POSIXTRACE_TOOL_TIMEARG_H */
