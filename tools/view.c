// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace view -o FILE LOG: the log's timeline as one HTML page that a
 * browser opens from disk, with nothing fetched (view_page.html draws it).
 *
 * The page holds the timeline of trace_model.c, the one export
 * --format=chrome writes as JSON, in a compact form the page decodes into
 * the same Trace Event objects (its posixtraceView.traceEvents() gives
 * them, and the tests compare the two):
 *  - "meta", JSON: the stream, its creation, the log, the counts (the
 *    JSON's "otherData"), the record names, and the tracks as
 *    [pid, tid, thread name, process name or null];
 *  - "rows", raw deflate (RFC 1951) in base64: per record, unsigned
 *    LEB128 varints: the name's index, the track's index, a flags byte
 *    (VIEW_* below), the time since the previous record's in ns
 *    (zigzag), then a span's duration or a loss's count;
 *  - "args", raw deflate in base64: per event of a record (a span has
 *    two, or one if unfinished), one line: its members as
 *    dump_json_untimed() writes them, ", " first, when the record's time
 *    gives its time members exactly, else all its members; in chunks
 *    (VIEW_CHUNK) that the page inflates one at a time, when it needs
 *    one, since they are most of the page.
 * The browser inflates with its own DecompressionStream.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "command.h"
#include "dump.h"
#include "json.h"
#include "logcheck.h"
#include "output.h"
#include "text.h"
#include "trace_model.h"
#include "view_page.h"

/* The flags byte of a row: its kind, its category, its events' times. */
#define VIEW_KIND_MASK		0x03	/* enum model_kind */
#define VIEW_CAT_SHIFT		2	/* view_cats[], 3 bits */
#define VIEW_BEGIN_TIMED	0x20	/* its (first) event's line has time */
#define VIEW_END_TIMED		0x40	/* a span's end's line has time */
#define VIEW_UNFINISHED		0x80	/* a span without an end event */

static const char *const view_cats[] = {
	"user", "kernel", "stream", "syscall", "loss",
};

#define NCATS	(sizeof(view_cats) / sizeof(view_cats[0]))

/*
 * The args lines of every VIEW_CHUNK records end with a full flush, so
 * that the page inflates only the chunk of the event hovered: a chunk
 * starts a raw deflate stream of its own, which the page ends with an
 * empty final block (03 00).
 */
#define VIEW_CHUNK	4096

/*
 * The most a page's data may deflate to: its base64 (4/3 of it) stays
 * below the 512 MiB a browser's string holds, and zlib's 32-bit
 * avail_out never sees more room than it counts.
 */
#define VIEW_DEFLATED_MAX	((uLong)360 << 20)

/* A deflate stream into a growing buffer. */
struct view_zbuf {
	z_stream z;
	unsigned char *out;
	size_t cap;
	bool ready;
};

struct view_track {
	pid_t pid, tid;
	char *thread_name, *process_name;
};

struct view {
	const struct log_reader *lr;
	struct dump_opts opts;
	struct timespec origin;
	struct view_zbuf rows, args;
	FILE *args_file;	/* writes into args */
	int64_t prev_ts;
	uint64_t records;
	/* Where each chunk of the args ends, in deflated bytes. */
	uint64_t *chunk_ends;
	size_t nchunks, chunks_cap;
	/* Names and tracks, each a table and an open-addressed index. */
	char **names;
	size_t nnames, names_cap, *name_slots, name_nslots;
	struct view_track *tracks;
	size_t ntracks, tracks_cap, *track_slots, track_nslots;
	int err;
};

static int zbuf_init(struct view_zbuf *b)
{
	memset(b, 0, sizeof(*b));
	/* Raw deflate (windowBits < 0): the browser's "deflate-raw". */
	if (deflateInit2(&b->z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return ENOMEM;
	b->ready = true;
	return 0;
}

/* Feed @len bytes (@flush Z_FINISH: the end). */
static int zbuf_put(struct view_zbuf *b, const void *p, size_t len, int flush)
{
	unsigned char *grown;
	int rc;

	b->z.next_in = (unsigned char *)p;
	b->z.avail_in = (uInt)len;
	do {
		/* Base64 of more is more than a browser holds as a string. */
		if (b->z.total_out > VIEW_DEFLATED_MAX)
			return EFBIG;
		if (b->z.total_out + 65536 > b->cap) {
			size_t cap = b->cap ? 2 * b->cap : 1 << 20;

			grown = realloc(b->out, cap);
			if (!grown)
				return ENOMEM;
			b->out = grown;
			b->cap = cap;
		}
		b->z.next_out = b->out + b->z.total_out;
		b->z.avail_out = (uInt)(b->cap - b->z.total_out);
		rc = deflate(&b->z, flush);
		if (rc == Z_STREAM_ERROR)
			return EINVAL;
	} while (b->z.avail_in || (flush == Z_FINISH && rc != Z_STREAM_END) ||
		 !b->z.avail_out);
	return 0;
}

static void zbuf_free(struct view_zbuf *b)
{
	if (b->ready)
		deflateEnd(&b->z);
	free(b->out);
}

/* Bytes written to the args FILE go into its deflate stream. */
static ssize_t args_write(void *cookie, const char *buf, size_t len)
{
	struct view *v = cookie;
	int err = zbuf_put(&v->args, buf, len, Z_NO_FLUSH);

	if (err) {
		v->err = err;
		errno = err;
		return 0;
	}
	return (ssize_t)len;
}

static size_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 32);
}

static size_t hash_track(pid_t pid, pid_t tid)
{
	uint64_t h = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32);
}

/* Grows an index of @n entries to twice its slots if half full. */
static int index_grow(size_t **slots, size_t *nslots, size_t n,
		      size_t (*hash_of)(const struct view *, size_t),
		      const struct view *v)
{
	size_t ns = *nslots ? 2 * *nslots : 256, i, s;
	size_t *fresh;

	if (2 * (n + 1) <= *nslots)
		return 0;
	fresh = calloc(ns, sizeof(*fresh));
	if (!fresh)
		return ENOMEM;
	for (i = 0; i < n; i++) {
		for (s = hash_of(v, i) & (ns - 1); fresh[s]; s = (s + 1) & (ns - 1))
			;
		fresh[s] = i + 1;
	}
	free(*slots);
	*slots = fresh;
	*nslots = ns;
	return 0;
}

static size_t name_hash_of(const struct view *v, size_t i)
{
	return hash_bytes(v->names[i], strlen(v->names[i]));
}

static size_t track_hash_of(const struct view *v, size_t i)
{
	return hash_track(v->tracks[i].pid, v->tracks[i].tid);
}

/* The index of @name in the table, added if new; SIZE_MAX without memory. */
static size_t view_name(struct view *v, const char *name)
{
	size_t s, n = strlen(name);
	char **grown;

	if (index_grow(&v->name_slots, &v->name_nslots, v->nnames,
		       name_hash_of, v))
		return SIZE_MAX;
	for (s = hash_bytes(name, n) & (v->name_nslots - 1); v->name_slots[s];
	     s = (s + 1) & (v->name_nslots - 1))
		if (!strcmp(v->names[v->name_slots[s] - 1], name))
			return v->name_slots[s] - 1;
	if (v->nnames == v->names_cap) {
		size_t cap = v->names_cap ? 2 * v->names_cap : 64;

		grown = realloc(v->names, cap * sizeof(*grown));
		if (!grown)
			return SIZE_MAX;
		v->names = grown;
		v->names_cap = cap;
	}
	v->names[v->nnames] = strdup(name);
	if (!v->names[v->nnames])
		return SIZE_MAX;
	v->name_slots[s] = ++v->nnames;
	return v->nnames - 1;
}

/* The index of track (pid, tid), added if new; SIZE_MAX without memory. */
static size_t view_track(struct view *v, pid_t pid, pid_t tid)
{
	struct view_track *grown, *t;
	size_t s;

	if (index_grow(&v->track_slots, &v->track_nslots, v->ntracks,
		       track_hash_of, v))
		return SIZE_MAX;
	for (s = hash_track(pid, tid) & (v->track_nslots - 1);
	     v->track_slots[s]; s = (s + 1) & (v->track_nslots - 1)) {
		t = &v->tracks[v->track_slots[s] - 1];
		if (t->pid == pid && t->tid == tid)
			return v->track_slots[s] - 1;
	}
	if (v->ntracks == v->tracks_cap) {
		size_t cap = v->tracks_cap ? 2 * v->tracks_cap : 64;

		grown = realloc(v->tracks, cap * sizeof(*grown));
		if (!grown)
			return SIZE_MAX;
		v->tracks = grown;
		v->tracks_cap = cap;
	}
	t = &v->tracks[v->ntracks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	v->track_slots[s] = ++v->ntracks;
	return v->ntracks - 1;
}

static size_t put_varint(unsigned char *p, uint64_t x)
{
	size_t n = 0;

	while (x >= 0x80) {
		p[n++] = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	p[n++] = (unsigned char)x;
	return n;
}

static uint64_t zigzag(int64_t x)
{
	return ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
}

/*
 * Whether the page rebuilds @ts's time members exactly from @rel, its ns
 * from the stream's creation: a double holds @rel exactly, and the time
 * is one gmtime() spells as a date of four digits.
 */
static bool view_time_derived(const struct view *v, const struct timespec *ts,
			      int64_t rel)
{
	const int64_t exact = (int64_t)1 << 53;

	return rel > -exact && rel < exact && ts->tv_sec >= 0 &&
	       ts->tv_sec < 253402300800 && ts->tv_nsec >= 0 &&
	       ts->tv_nsec < 1000000000 &&
	       model_ns_between(&v->origin, ts) == rel;
}

/* The args so far end a chunk: flushed, so that the next starts anew. */
static int view_chunk_end(struct view *v)
{
	uint64_t *grown;
	int err;

	if (v->nchunks == v->chunks_cap) {
		size_t cap = v->chunks_cap ? 2 * v->chunks_cap : 64;

		grown = realloc(v->chunk_ends, cap * sizeof(*grown));
		if (!grown)
			return ENOMEM;
		v->chunk_ends = grown;
		v->chunks_cap = cap;
	}
	if (fflush(v->args_file))
		return v->err ? v->err : EIO;
	err = zbuf_put(&v->args, NULL, 0, Z_FULL_FLUSH);
	if (!err)
		v->chunk_ends[v->nchunks++] = v->args.z.total_out;
	return err;
}

/* An event's line: its members, its time's only if not derived. */
static void view_line(struct view *v, const struct log_event *ev, bool timed)
{
	if (timed)
		dump_json_time(v->args_file, &ev->info.posix_timestamp);
	dump_json_untimed(v->args_file, v->lr, ev, &v->opts);
	putc('\n', v->args_file);
}

static void view_record(void *arg, const struct model_record *r)
{
	struct view *v = arg;
	size_t name = view_name(v, r->name), track = view_track(v, r->pid,
								 r->tid);
	unsigned char row[4 * 10 + 1], flags = (unsigned char)r->kind;
	size_t n = 0, cat;
	int err;

	if (name == SIZE_MAX || track == SIZE_MAX) {
		v->err = ENOMEM;
		return;
	}
	if (v->records && v->records % VIEW_CHUNK == 0) {
		err = view_chunk_end(v);
		if (err) {
			v->err = err;
			return;
		}
	}
	v->records++;
	for (cat = 0; cat < NCATS && strcmp(view_cats[cat], r->cat); cat++)
		;
	flags |= (unsigned char)(cat << VIEW_CAT_SHIFT);
	switch (r->kind) {
	case MODEL_EVENT:
		if (!view_time_derived(v, &r->ev->info.posix_timestamp, r->ts))
			flags |= VIEW_BEGIN_TIMED;
		view_line(v, r->ev, flags & VIEW_BEGIN_TIMED);
		break;
	case MODEL_SPAN:
		if (!view_time_derived(v, r->begin_ts, r->ts)) {
			flags |= VIEW_BEGIN_TIMED;
			dump_json_time(v->args_file, r->begin_ts);
		}
		fputs(r->begin_untimed, v->args_file);
		putc('\n', v->args_file);
		if (!r->ev) {
			flags |= VIEW_UNFINISHED;
			break;
		}
		/* The page adds the two as doubles: both exact, and the sum. */
		if (r->dur >= (int64_t)1 << 53 ||
		    r->ts > INT64_MAX - r->dur ||
		    !view_time_derived(v, &r->ev->info.posix_timestamp,
				       r->ts + r->dur))
			flags |= VIEW_END_TIMED;
		view_line(v, r->ev, flags & VIEW_END_TIMED);
		break;
	case MODEL_LOST:
		break;
	}
	n += put_varint(row + n, name);
	n += put_varint(row + n, track);
	row[n++] = flags;
	/* Two's complement: the page's sum is the same modulo 2^64. */
	n += put_varint(row + n, zigzag((int64_t)((uint64_t)r->ts -
						  (uint64_t)v->prev_ts)));
	v->prev_ts = r->ts;
	if (r->kind == MODEL_SPAN)
		n += put_varint(row + n, (uint64_t)r->dur);
	else if (r->kind == MODEL_LOST)
		n += put_varint(row + n, r->lost);
	err = zbuf_put(&v->rows, row, n, Z_NO_FLUSH);
	if (err)
		v->err = err;
}

static void view_track_named(void *arg, pid_t pid, pid_t tid,
			     const char *thread_name, const char *process_name)
{
	struct view *v = arg;
	size_t i = view_track(v, pid, tid);
	struct view_track *t;

	if (i == SIZE_MAX) {
		v->err = ENOMEM;
		return;
	}
	t = &v->tracks[i];
	t->thread_name = strdup(thread_name);
	if (process_name)
		t->process_name = strdup(process_name);
	if (!t->thread_name || (process_name && !t->process_name))
		v->err = ENOMEM;
}

/*
 * The page's JSON inside a <script> element: a "<" in a string (a name
 * or a path may hold "</script>") becomes \u003c, as JSON allows.
 */
static void page_string(FILE *out, const char *s)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	/* Without memory, an empty string: the JSON stays whole. */
	if (!f) {
		fputs("\"\"", out);
		return;
	}
	json_string(f, s);
	if (fclose(f)) {
		free(text);
		fputs("\"\"", out);
		return;
	}
	for (i = 0; i < len; i++) {
		if (text[i] == '<')
			fputs("\\u003c", out);
		else
			putc(text[i], out);
	}
	free(text);
}

static void view_meta(const struct view *v, const struct model_totals *t,
		      FILE *out)
{
	char name[TRACE_NAME_MAX + 1] = "", text[TIME_TEXT_SIZE];
	const struct view_track *tr;
	size_t i;

	posix_trace_attr_getname(&v->lr->attr, name);
	fputs("{\"stream\":", out);
	page_string(out, name);
	format_time(text, &t->origin);
	fputs(",\"created\":", out);
	page_string(out, text);
	fprintf(out, ",\"created_sec\":%jd,\"created_nsec\":%ld",
		(intmax_t)t->origin.tv_sec, t->origin.tv_nsec);
	fputs(",\"log\":", out);
	page_string(out, v->lr->path);
	fprintf(out, ",\"events\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"generator\":\"posixtrace " POSIXTRACE_VERSION "\"",
		t->events, t->lost);
	fputs(",\n\"cats\":[", out);
	for (i = 0; i < NCATS; i++)
		fprintf(out, "%s\"%s\"", i ? "," : "", view_cats[i]);
	fputs("],\n\"names\":[", out);
	for (i = 0; i < v->nnames; i++) {
		fputs(i ? "," : "", out);
		page_string(out, v->names[i]);
	}
	fprintf(out, "],\n\"records\":%" PRIu64 ",\"chunk\":%d,"
		"\"chunk_ends\":[", v->records, VIEW_CHUNK);
	for (i = 0; i < v->nchunks; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", v->chunk_ends[i]);
	fputs("],\n\"tracks\":[", out);
	for (i = 0; i < v->ntracks; i++) {
		tr = &v->tracks[i];
		fprintf(out, "%s[%d,%d,", i ? ",\n" : "", (int)tr->pid,
			(int)tr->tid);
		page_string(out, tr->thread_name ? tr->thread_name : "");
		putc(',', out);
		if (tr->process_name)
			page_string(out, tr->process_name);
		else
			fputs("null", out);
		putc(']', out);
	}
	fputs("]}", out);
}

static void base64(FILE *out, const unsigned char *p, size_t n)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789+/";
	uint32_t w;
	size_t i;

	for (i = 0; i + 3 <= n; i += 3) {
		w = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		putc(digits[w >> 18], out);
		putc(digits[w >> 12 & 63], out);
		putc(digits[w >> 6 & 63], out);
		putc(digits[w & 63], out);
	}
	if (n - i == 1) {
		w = (uint32_t)p[i] << 16;
		fprintf(out, "%c%c==", digits[w >> 18], digits[w >> 12 & 63]);
	} else if (n - i == 2) {
		w = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
		fprintf(out, "%c%c%c=", digits[w >> 18], digits[w >> 12 & 63],
			digits[w >> 6 & 63]);
	}
}

/* The page's text up to @marker (from *@at), and *@at past it. */
static void page_until(FILE *out, const char **at, const char *marker)
{
	const char *end = strstr(*at, marker);

	fwrite(*at, 1, (size_t)(end - *at), out);
	*at = end + strlen(marker);
}

struct view_job {
	struct log_reader *lr;
	uint64_t *nread;
	bool *read_error;
};

static void view_free(struct view *v)
{
	size_t i;

	if (v->args_file)
		fclose(v->args_file);
	zbuf_free(&v->rows);
	zbuf_free(&v->args);
	for (i = 0; i < v->nnames; i++)
		free(v->names[i]);
	for (i = 0; i < v->ntracks; i++) {
		free(v->tracks[i].thread_name);
		free(v->tracks[i].process_name);
	}
	free(v->names);
	free(v->name_slots);
	free(v->tracks);
	free(v->track_slots);
	free(v->chunk_ends);
}

/* The whole page into @out: the log read, deflated, then written. */
static int view_fill(FILE *out, void *arg)
{
	static const cookie_io_functions_t args_io = { .write = args_write };
	struct view_job *job = arg;
	struct view v = { .lr = job->lr };
	const struct model_sink sink = {
		.record = view_record,
		.track = view_track_named,
		.arg = &v,
	};
	const char *at = view_page;
	struct model_totals totals;
	int err;

	posix_trace_attr_getcreatetime(&job->lr->attr, &v.origin);
	err = zbuf_init(&v.rows);
	if (!err)
		err = zbuf_init(&v.args);
	if (!err) {
		v.args_file = fopencookie(&v, "w", args_io);
		if (!v.args_file)
			err = errno;
	}
	if (!err)
		err = trace_model_walk(job->lr, &sink, &totals, job->nread,
				       job->read_error);
	if (!err)
		err = v.err;
	if (!err)
		err = view_chunk_end(&v);
	if (!err)
		err = zbuf_put(&v.rows, NULL, 0, Z_FINISH);
	if (!err)
		err = zbuf_put(&v.args, NULL, 0, Z_FINISH);
	if (!err) {
		page_until(out, &at, "@META@");
		view_meta(&v, &totals, out);
		page_until(out, &at, "@ROWS@");
		base64(out, v.rows.out, v.rows.z.total_out);
		page_until(out, &at, "@ARGS@");
		base64(out, v.args.out, v.args.z.total_out);
		fputs(at, out);
	}
	view_free(&v);
	return err;
}

static const char view_usage[] =
"usage: posixtrace view [--force] -o FILE LOG\n"
"Write the trace log LOG as one HTML page, FILE ('-': standard output),\n"
"that a browser opens from disk with nothing fetched: a timeline with a\n"
"lane per thread, events as marks coloured by type, system calls and the\n"
"stream's flushes and stops as spans, losses as red lines; zoom with the\n"
"wheel or W/S, pan by dragging or with A/D, 0 shows all; hovering shows an\n"
"event's members as dump --json gives them; a filter box keeps the types\n"
"whose name matches; tables count events per type and per process. It\n"
"shows what 'posixtrace export --format=chrome' writes.\n"
"\n"
"  -o, --output FILE  the page to write\n"
"  -f, --force        overwrite FILE\n"
"  -h, --help         print this help\n"
"\n"
"A log with bytes it cannot read is shown as far as it can be read, with\n"
"one warning on stderr, as 'posixtrace dump' gives.\n";

int cmd_view(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "posixtrace view", *path = NULL;
	bool force = false, read_error = false;
	struct log_damage damage;
	struct log_reader lr;
	uint64_t nread = 0;
	struct view_job job = { &lr, &nread, &read_error };
	int c, err;

	while ((c = getopt_long(argc, argv, "o:fh", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			path = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'h':
			return usage_help(view_usage);
		default:
			return usage_error(view_usage, NULL);
		}
	}
	if (!path)
		return usage_error(view_usage, "no output: -o FILE is required");
	if (argc - optind != 1)
		return usage_error(view_usage, argc == optind ?
				   "no LOG given" : "one LOG at a time");
	if (log_open_checked(&lr, argv[optind], prog, &damage))
		return 1;
	err = write_output(path, force, view_fill, &job);
	if (err && read_error)
		fprintf(stderr, "%s: %s: reading event %" PRIu64 ": %s\n", prog,
			lr.path, nread + 1, strerror(err));
	else if (err)
		fprintf(stderr, "%s: %s: %s%s\n", prog, path, strerror(err),
			err == EEXIST ? " (--force overwrites it)" : "");
	if (!err && log_damaged(&damage))
		log_damage_warn(prog, lr.path, &damage);
	log_close(&lr);
	if (err)
		return 1;
	return log_damaged(&damage) ? EXIT_DAMAGED : 0;
}
