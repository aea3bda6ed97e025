// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace record: the summary at the end (see record_summary.h).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kevent.h"
#include "logread.h"
#include "record_summary.h"

#define PROG		"posixtrace record"
/* Rows of each table: the biggest, then one line for the rest. */
#define TABLE_ROWS	10

/* The row of key, added with a count of 0 if new; NULL without memory. */
static struct tally_row *tally_row(struct tally *t, long long key,
				   const char *name)
{
	size_t lo = 0, hi = t->n, mid;
	struct tally_row *rows;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (t->rows[mid].key == key)
			return &t->rows[mid];
		if (t->rows[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	rows = realloc(t->rows, (t->n + 1) * sizeof(*rows));
	if (!rows)
		return NULL;
	t->rows = rows;
	memmove(rows + lo + 1, rows + lo, (t->n - lo) * sizeof(*rows));
	rows[lo] = (struct tally_row){ .key = key };
	/* The log reader's names live until it closes: keep a copy. */
	if (name && !(rows[lo].name = strdup(name))) {
		memmove(rows + lo, rows + lo + 1, (t->n - lo) * sizeof(*rows));
		return NULL;
	}
	t->n++;
	return &rows[lo];
}

static int tally_add(struct tally *t, long long key, const char *name)
{
	struct tally_row *row = tally_row(t, key, name);

	if (!row)
		return ENOMEM;
	row->count++;
	return 0;
}

static void tally_free(struct tally *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->rows[i].name);
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

/*
 * The reader makes OVERFLOW and RESUME around a gap, with the number of
 * the event after it: they are no event the stream stored.
 */
static bool stored_by_stream(const struct log_event *ev)
{
	trace_event_id_t id = ev->info.posix_event_id;

	return ev->has_seq && id != POSIX_TRACE_OVERFLOW &&
	       id != POSIX_TRACE_RESUME;
}

static int tally_event(const struct log_event *ev, uint64_t seq_end,
		       bool brief, struct record_summary *s)
{
	struct kevent k;
	int err;

	s->events++;
	s->gap_lost += ev->gap;
	/* Those stored after the status was read are not in its counts. */
	if (stored_by_stream(ev) && ev->seq < seq_end)
		s->stored_logged++;
	if (brief)
		return 0;
	err = tally_add(&s->types, ev->info.posix_event_id, ev->type ?
			ev->type->name : "?");
	/*
	 * POSIX's system events carry the controller's pid, or 0; the
	 * kernel's, the traced process's.
	 */
	if (!err && (ev->info.posix_event_id >= POSIX_TRACE_UNNAMED_USER_EVENT ||
		     kevent_is_kernel(ev->info.posix_event_id)))
		err = tally_add(&s->processes, ev->info.posix_pid, NULL);
	if (!err)
		err = proctree_add(&s->tree, ev);
	if (!err && s->kstats && kevent_decode(ev, &k))
		err = kstats_add(s->kstats, &k,
				 (uint64_t)ev->info.posix_timestamp.tv_sec *
				 1000000000ULL +
				 (uint64_t)ev->info.posix_timestamp.tv_nsec);
	return err;
}

/* The flags the log's final status adds (a full log at the last flush). */
static void add_log_status(struct log_reader *lr, struct record_status *st)
{
	struct posix_trace_status_info info;

	if (posix_trace_get_status(lr->trid, &info))
		return;
	if (!st->flush_error)
		st->flush_error = info.posix_stream_flush_error;
	st->log_overrun |= info.posix_log_overrun_status ==
			   POSIX_TRACE_OVERRUN;
	st->log_full |= info.posix_log_full_status == POSIX_TRACE_FULL;
}

static int read_log(const char *path, bool brief, struct record_summary *s)
{
	uint64_t seq_end = s->status.have_counts ?
			   record_status_seq_end(&s->status) : UINT64_MAX;
	struct log_reader lr;
	struct log_event ev;
	bool end = false;
	int err;

	if (log_open(&lr, path, PROG))
		return 1;
	while (!(err = log_next(&lr, &ev, &end)) && !end) {
		err = tally_event(&ev, seq_end, brief, s);
		if (err)
			break;
	}
	if (err)
		fprintf(stderr, PROG ": %s: reading event %" PRIu64 ": %s\n",
			path, s->events + 1, strerror(err));
	add_log_status(&lr, &s->status);
	log_close(&lr);
	s->log_read = true;
	return err ? 1 : 0;
}

/*
 * Every event the stream stored should be in the log: those it lacks were
 * lost to it. Without the stream's counts, the gaps are all we have.
 */
static void count_losses(struct record_summary *s)
{
	const struct record_status *st = &s->status;

	s->counted = st->have_counts;
	if (!st->have_counts) {
		s->log_lost = s->gap_lost;
		return;
	}
	s->stream_lost = st->lost;
	/*
	 * The module counts what the log did not keep (netlink GET). A
	 * log that holds fewer than the rest lost more after it was
	 * written (it was damaged or cut): the larger count is the truth.
	 */
	if (st->have_log_discarded)
		s->log_lost = st->log_discarded;
	if (s->log_read && st->recorded > s->stored_logged &&
	    st->recorded - s->stored_logged > s->log_lost)
		s->log_lost = st->recorded - s->stored_logged;
}

/* "1234 (sh)": a process's row, named by its command when known. */
static void name_processes(struct record_summary *s)
{
	const struct proc *p;
	char label[24 + PROC_COMM_SIZE];
	size_t i;

	for (i = 0; i < s->processes.n; i++) {
		p = proctree_find(&s->tree, (pid_t)s->processes.rows[i].key);
		if (!p || !p->comm[0])
			continue;
		snprintf(label, sizeof(label), "%lld (%s)",
			 s->processes.rows[i].key, p->comm);
		/* Without memory the pid alone says it. */
		s->processes.rows[i].name = strdup(label);
	}
}

int record_summarize(const struct record_summary_in *in,
		     struct record_summary *s)
{
	struct stat sb;
	int bad = 0;

	memset(s, 0, sizeof(*s));
	s->bytes = -1;
	s->log_policy = in->log_policy;
	s->log_size = in->log_size;
	s->status = *in->status;
	/* Without memory, the summary goes without these tables. */
	if (!in->brief)
		s->kstats = kstats_new();
	if (in->read_path && stat(in->read_path, &sb) == 0)
		s->bytes = sb.st_size;
	if (in->brief && s->status.have_counts &&
	    s->status.have_log_discarded) {
		/* What the stream stored, less what the log did not keep. */
		s->events = s->status.recorded -
			    (s->status.log_discarded < s->status.recorded ?
			     s->status.log_discarded : s->status.recorded);
		s->events_counted = true;
	} else if (in->read_path) {
		bad = read_log(in->read_path, in->brief, s);
	}
	count_losses(s);
	name_processes(s);
	return bad;
}

void record_summary_free(struct record_summary *s)
{
	kstats_free(s->kstats);
	s->kstats = NULL;
	tally_free(&s->processes);
	tally_free(&s->types);
	proctree_free(&s->tree);
}

/* The losses the log policy itself makes: its limit was reached. */
static bool policy_discards(const struct record_summary *s)
{
	return s->status.log_full && !s->status.flush_error &&
	       s->log_policy != POSIX_TRACE_APPEND;
}

bool record_summary_unexpected_loss(const struct record_summary *s)
{
	return s->stream_lost || (s->log_lost && !policy_discards(s));
}

static void format_bytes(char *buf, size_t size, long long bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 1024) {
		snprintf(buf, size, "%lld B", bytes);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
}

/* Why a full log lost events: the count alone would not say. */
static const char *full_note(const struct record_summary *s)
{
	if (!s->status.log_full)
		return "";
	if (s->log_policy == POSIX_TRACE_LOOP)
		return " (log looped: the oldest events were overwritten)";
	return " (log full: later events were not logged)";
}

static void print_line(const struct record_summary_in *in,
		       const struct record_summary *s)
{
	char size[32];

	if (!s->log_read && !s->events_counted) {
		fprintf(stderr, PROG ": trace log written to %s, %" PRIu64
			" lost, %.2f s%s\n", in->shown, s->stream_lost,
			in->seconds, full_note(s));
		return;
	}
	format_bytes(size, sizeof(size), s->bytes < 0 ? 0 : s->bytes);
	/*
	 * Brief, the processes were not counted; from the module's counts,
	 * the events are those logged until tracing stopped (the log also
	 * holds what shutting the stream down adds).
	 */
	if (in->brief || s->events_counted) {
		fprintf(stderr, PROG ": %" PRIu64 " event%s%s, %" PRIu64
			" lost, %s in %s, %.2f s%s\n", s->events,
			s->events == 1 ? "" : "s",
			s->events_counted ? " logged" : "",
			s->stream_lost + s->log_lost, size, in->shown,
			in->seconds, full_note(s));
		return;
	}
	fprintf(stderr, PROG ": %" PRIu64 " event%s (%zu process%s), %" PRIu64
		" lost, %s in %s, %.2f s%s\n", s->events,
		s->events == 1 ? "" : "s", s->processes.n,
		s->processes.n == 1 ? "" : "es", s->stream_lost + s->log_lost,
		size, in->shown, in->seconds, full_note(s));
}

static int by_count(const void *a, const void *b)
{
	const struct tally_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The TABLE_ROWS biggest rows of t, most events first, and the rest. */
static void print_table(const struct tally *t, const char *what,
			const char *whats)
{
	struct tally_row *rows;
	uint64_t rest = 0;
	char label[64];
	size_t i;

	if (!t->n)
		return;
	rows = malloc(t->n * sizeof(*rows));
	if (!rows)
		return;
	memcpy(rows, t->rows, t->n * sizeof(*rows));
	qsort(rows, t->n, sizeof(*rows), by_count);
	fprintf(stderr, "  %-40s %12s\n", what, "events");
	for (i = 0; i < t->n; i++) {
		if (i >= TABLE_ROWS) {
			rest += rows[i].count;
			continue;
		}
		if (rows[i].name)
			fprintf(stderr, "  %-40s %12" PRIu64 "\n",
				rows[i].name, rows[i].count);
		else
			fprintf(stderr, "  %-40lld %12" PRIu64 "\n",
				rows[i].key, rows[i].count);
	}
	if (t->n > TABLE_ROWS) {
		snprintf(label, sizeof(label), "(%zu more %s)",
			 t->n - TABLE_ROWS, whats);
		fprintf(stderr, "  %-40s %12" PRIu64 "\n", label, rest);
	}
	free(rows);
}

/* Where the events went missing, and why. */
static void print_losses(const struct record_summary_in *in,
			 const struct record_summary *s)
{
	const struct record_status *st = &s->status;

	if (s->stream_lost)
		fprintf(stderr, PROG ": %" PRIu64 " event%s lost in the "
			"stream: it was full\n", s->stream_lost,
			s->stream_lost == 1 ? "" : "s");
	if (st->flush_error && s->log_read && s->counted)
		fprintf(stderr, PROG ": %" PRIu64 " event%s not written to "
			"%s: %s\n", s->log_lost, s->log_lost == 1 ? "" : "s",
			in->shown, strerror(st->flush_error));
	else if (st->flush_error)
		fprintf(stderr, PROG ": events not written to %s: %s (how "
			"many is not known)\n", in->shown,
			strerror(st->flush_error));
	else if (s->log_lost && policy_discards(s))
		fprintf(stderr, PROG ": %" PRIu64 " event%s not in the log: "
			"%s\n", s->log_lost, s->log_lost == 1 ? "" : "s",
			s->log_policy == POSIX_TRACE_LOOP ?
			"overwritten as the log looped" :
			"the log was full");
	else if (s->log_lost)
		fprintf(stderr, PROG ": %" PRIu64 " event%s missing from "
			"the log\n", s->log_lost, s->log_lost == 1 ? "" : "s");
}

static void print_write_advice(int err)
{
	if (err == ENOSPC)
		fprintf(stderr, PROG ": advice: make room on the log's file "
			"system or write the log elsewhere (-o); with "
			"--log-policy until-full or loop and --log-size, the "
			"log's room is reserved when tracing starts\n");
	else if (err == EFBIG)
		fprintf(stderr, PROG ": advice: the log reached the file size "
			"limit (ulimit -f): raise it, or bound the log with "
			"--log-policy loop and --log-size\n");
	else
		fprintf(stderr, PROG ": advice: check the log's file system "
			"or device, or write the log elsewhere (-o)\n");
}

/* What would have kept the events: the stream's status says which. */
static void print_advice(const struct record_summary *s)
{
	char size[32];

	if (s->stream_lost) {
		format_bytes(size, sizeof(size), (long long)s->status.stream_size);
		fprintf(stderr, PROG ": advice: raise --stream-size (-s; now "
			"%s), so that the stream holds the events until they "
			"are written, or record fewer event types (-e)\n",
			size);
	}
	if (s->status.flush_error)
		print_write_advice(s->status.flush_error);
	else if (s->log_lost && policy_discards(s)) {
		format_bytes(size, sizeof(size), (long long)s->log_size);
		fprintf(stderr, PROG ": advice: raise --log-size (now %s)%s\n",
			size, s->log_policy == POSIX_TRACE_LOOP ? " to keep "
			"more of the latest events" : ", or use --log-policy "
			"loop to keep the latest events rather than the first");
	}
}

/* True if a type the log holds events of is selected by the i-th -e. */
static bool pattern_used(const struct record_summary_in *in,
			 const struct record_summary *s, size_t i)
{
	size_t t;

	for (t = 0; t < s->types.n; t++)
		if (s->types.rows[t].name && record_select_match_one(
				in->select, i, s->types.rows[t].name))
			return true;
	return false;
}

/* An -e that recorded nothing may be misspelt: names are not checked. */
static void print_unused_patterns(const struct record_summary_in *in,
				  const struct record_summary *s)
{
	size_t i;

	if (!in->select || !s->log_read)
		return;
	for (i = 0; i < in->select->n; i++)
		if (!pattern_used(in, s, i))
			fprintf(stderr, PROG ": warning: no event recorded "
				"matches --event '%s'\n",
				in->select->patterns[i]);
}

void record_summary_print(const struct record_summary_in *in,
			  const struct record_summary *s)
{
	print_line(in, s);
	if (s->log_read && !in->brief) {
		print_table(&s->processes, "process", "processes");
		print_table(&s->types, "event type", "types");
	}
	if (s->tree.kernel_events) {
		fprintf(stderr, "  process tree\n");
		proctree_print(stderr, &s->tree, "  ");
	}
	if (s->log_read && s->kstats)
		kstats_print(stderr, s->kstats, &s->tree, "  ");
	print_unused_patterns(in, s);
	print_losses(in, s);
	print_advice(s);
}
