// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace record: the progress line (see record_progress.h).
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record_progress.h"

#define PROG	"posixtrace record"

void record_progress_init(struct record_progress *p)
{
	p->on = isatty(STDERR_FILENO);
	p->shown = 0;
}

/* "1.2 MiB": the size a person reads at a glance. */
static void human_bytes(char *buf, size_t size, long long bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/*
 * Padded with spaces over what the last line left, rather than with an
 * escape sequence, so that any terminal shows it right.
 */
static void put_line(struct record_progress *p, const char *line)
{
	size_t len = strlen(line);

	fprintf(stderr, "\r%s%*s", line,
		len < p->shown ? (int)(p->shown - len) : 0, "");
	if (len < p->shown)
		fprintf(stderr, "\r%s", line);
	fflush(stderr);
	p->shown = len;
}

void record_progress_show(struct record_progress *p,
			  const struct record_status *st, long long log_bytes,
			  double seconds)
{
	char line[160], size[32];
	int n = 0;

	if (!p->on)
		return;
	n = snprintf(line, sizeof(line), PROG ": %.0f s", seconds);
	if (st->have_counts)
		n += snprintf(line + n, sizeof(line) - n, ", %" PRIu64
			      " events, %" PRIu64 " lost", st->recorded,
			      st->lost);
	if (log_bytes >= 0) {
		human_bytes(size, sizeof(size), log_bytes);
		n += snprintf(line + n, sizeof(line) - n, ", %s of log", size);
	}
	if (st->flush_error)
		snprintf(line + n, sizeof(line) - n, ", log failing");
	put_line(p, line);
}

void record_progress_clear(struct record_progress *p)
{
	if (!p->on || !p->shown)
		return;
	fprintf(stderr, "\r%*s\r", (int)p->shown, "");
	fflush(stderr);
	p->shown = 0;
}
