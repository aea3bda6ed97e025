// SPDX-License-Identifier: GPL-2.0
/*
 * Times on the command line: see timearg.h. Parsed by hand rather than
 * with strptime(), which reads the local time zone, accepts leading
 * spaces and partial input, and knows no fraction of a second.
 */

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "timearg.h"

#define NSEC_PER_SEC	1000000000L

/* Exactly n digits at *p, advanced past them. */
static bool fixed_digits(const char **p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return true;
}

/* One or more digits at *p, as long as they fit an int64_t. */
static const char *whole_number(const char **p, int64_t *v)
{
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return "a number must start with a digit";
	*v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		if (__builtin_mul_overflow(*v, 10, v) ||
		    __builtin_add_overflow(*v, *s - '0', v))
			return "out of range";
	}
	*p = s;
	return NULL;
}

/*
 * An optional fraction at *p (".5"), as nanoseconds of the unit: nine
 * digits at most, since nothing in a log is finer than a nanosecond.
 */
static const char *fraction(const char **p, long *nsec)
{
	const char *s = *p;
	long scale = NSEC_PER_SEC;

	*nsec = 0;
	if (*s != '.')
		return NULL;
	s++;
	if (!isdigit((unsigned char)*s))
		return "a digit must follow the decimal point";
	for (; isdigit((unsigned char)*s); s++) {
		if (scale == 1)
			return "more than nine decimals";
		scale /= 10;
		*nsec += (*s - '0') * scale;
	}
	*p = s;
	return NULL;
}

static bool fits_time_t(int64_t v)
{
	return (int64_t)(time_t)v == v;
}

/* "1764122400.5": seconds since the epoch. */
static const char *epoch_seconds(const char *s, struct timespec *ts)
{
	const char *why;
	int64_t sec;
	long nsec;

	why = whole_number(&s, &sec);
	if (!why)
		why = fraction(&s, &nsec);
	if (why)
		return why;
	if (*s)
		return "trailing characters after the seconds";
	if (!fits_time_t(sec))
		return "out of range";
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = nsec;
	return NULL;
}

static bool leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
				    30, 31 };

	return m == 2 && leap_year(y) ? 29 : days[m - 1];
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static int64_t days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "Z", "+hh:mm", "-hhmm", "+hh" or nothing (UTC): seconds east of UTC. */
static const char *zone(const char **p, int *east)
{
	const char *s = *p;
	int sign, hh, mm = 0;

	*east = 0;
	if (*s == 'Z' || *s == 'z') {
		*p = s + 1;
		return NULL;
	}
	if (*s != '+' && *s != '-')
		return NULL;
	sign = *s++ == '-' ? -1 : 1;
	if (!fixed_digits(&s, 2, &hh))
		return "a time zone offset is +hh:mm or -hh:mm";
	if (*s == ':')
		s++;
	if (isdigit((unsigned char)*s) && !fixed_digits(&s, 2, &mm))
		return "a time zone offset is +hh:mm or -hh:mm";
	if (hh > 23 || mm > 59)
		return "time zone offset out of range";
	*east = sign * (hh * 3600 + mm * 60);
	*p = s;
	return NULL;
}

/* "hh:mm[:ss[.fraction]]" at *p: seconds into the day, and nanoseconds. */
static const char *time_of_day(const char **p, int *secs, long *nsec)
{
	const char *s = *p, *why;
	int hh, mm, ss = 0;

	*nsec = 0;
	if (!fixed_digits(&s, 2, &hh) || *s++ != ':' ||
	    !fixed_digits(&s, 2, &mm))
		return "the time of day is hh:mm:ss";
	if (*s == ':') {
		s++;
		if (!fixed_digits(&s, 2, &ss))
			return "the time of day is hh:mm:ss";
		why = fraction(&s, nsec);
		if (why)
			return why;
	}
	if (hh > 23 || mm > 59 || ss > 59)
		return "time of day out of range";
	*secs = hh * 3600 + mm * 60 + ss;
	*p = s;
	return NULL;
}

/* "2025-11-26T02:00:00.5+01:00", or a part of it: see timearg.h. */
static const char *iso_date_time(const char *s, struct timespec *ts)
{
	int y, m, d, secs = 0, east = 0;
	const char *why;
	int64_t t;
	long nsec = 0;

	if (!fixed_digits(&s, 4, &y) || *s++ != '-' ||
	    !fixed_digits(&s, 2, &m) || *s++ != '-' ||
	    !fixed_digits(&s, 2, &d))
		return "a date is YYYY-MM-DD";
	if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
		return "no such date";
	if (*s == 'T' || *s == 't' || *s == ' ') {
		s++;
		why = time_of_day(&s, &secs, &nsec);
		if (!why)
			why = zone(&s, &east);
		if (why)
			return why;
	}
	if (*s)
		return "trailing characters after the date";
	t = days_from_civil(y, m, d) * 86400 + secs - east;
	if (!fits_time_t(t))
		return "out of range";
	ts->tv_sec = (time_t)t;
	ts->tv_nsec = nsec;
	return NULL;
}

struct unit {
	const char *suffix;
	int64_t nsec;
};

static const struct unit units[] = {
	{ "", NSEC_PER_SEC }, { "s", NSEC_PER_SEC },
	{ "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
	{ "m", 60 * NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC },
};

/*
 * n units and frac nanoseconds of one unit, as a timespec. Units are
 * either whole seconds (s, m, h) or fractions of one (ms, us, ns): split
 * so that no product overflows.
 */
static const char *scale(int64_t n, long frac, int64_t unit,
			 struct timespec *ts)
{
	int64_t k, per_sec, sec, nsec;

	if (unit >= NSEC_PER_SEC) {
		k = unit / NSEC_PER_SEC;
		if (__builtin_mul_overflow(n, k, &sec))
			return "out of range";
		nsec = (int64_t)frac * k;
		sec += nsec / NSEC_PER_SEC;
		nsec %= NSEC_PER_SEC;
	} else {
		per_sec = NSEC_PER_SEC / unit;
		sec = n / per_sec;
		nsec = n % per_sec * unit + (int64_t)frac * unit / NSEC_PER_SEC;
	}
	if (!fits_time_t(sec))
		return "out of range";
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = (long)nsec;
	return NULL;
}

/* "+250ms": an offset. */
static const char *offset(const char *s, struct timespec *ts)
{
	const char *why;
	int64_t n;
	long frac;
	size_t i;

	why = whole_number(&s, &n);
	if (!why)
		why = fraction(&s, &frac);
	if (why)
		return why;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s, units[i].suffix))
			return scale(n, frac, units[i].nsec, ts);
	return "unknown unit (ns, us, ms, s, m, min or h)";
}

const char *parse_time_arg(const char *s, struct time_arg *t)
{
	struct time_arg r = { .given = true };
	const char *why;

	if (*s == '+') {
		r.relative = true;
		why = offset(s + 1, &r.ts);
	} else if (*s == '@') {
		why = epoch_seconds(s + 1, &r.ts);
	} else if (strlen(s) >= 5 && s[4] == '-') {
		why = iso_date_time(s, &r.ts);
	} else {
		why = epoch_seconds(s, &r.ts);
	}
	if (!why)
		*t = r;
	return why;
}

int timespec_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return a->tv_nsec < b->tv_nsec ? -1 : a->tv_nsec > b->tv_nsec;
}

struct timespec timespec_add(const struct timespec *a,
			     const struct timespec *b)
{
	struct timespec r;

	r.tv_nsec = a->tv_nsec + b->tv_nsec;
	if (__builtin_add_overflow(a->tv_sec, b->tv_sec, &r.tv_sec))
		goto saturate;
	if (r.tv_nsec >= NSEC_PER_SEC) {
		r.tv_nsec -= NSEC_PER_SEC;
		if (__builtin_add_overflow(r.tv_sec, 1, &r.tv_sec))
			goto saturate;
	}
	return r;
saturate:
	/* Only two values of one sign overflow: the sign of either. */
	r.tv_sec = a->tv_sec < 0 ? (time_t)INT64_MIN : (time_t)INT64_MAX;
	r.tv_nsec = a->tv_sec < 0 ? 0 : NSEC_PER_SEC - 1;
	return r;
}
