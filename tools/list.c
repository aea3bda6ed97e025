// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace list [--json] [-i ID]
 *
 * The trace streams the caller may see, from the module's generic netlink
 * family (nl.h): a table with a column per attribute, or JSON.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <trace.h>

#include "colour.h"
#include "command.h"
#include "json.h"
#include "nl.h"
#include "text.h"

#define PROG		"posixtrace list"
/* TRACED shows this many pids, then "+N" for the others. */
#define TRACED_SHOWN	3

static const char list_usage[] =
"usage: posixtrace list [--json] [-i ID] [--color WHEN]\n"
"List the trace streams of the loaded posixtrace module that you may see:\n"
"all of them with CAP_SYS_ADMIN or CAP_PERFMON, otherwise those created\n"
"by processes of your effective uid. Streams that were shut down are not\n"
"listed.\n"
"\n"
"  -i, --id ID   only the stream ID\n"
"  -j, --json    a JSON array with an object per stream, every attribute\n"
"                in it, for scripts\n"
"      --color WHEN\n"
"                colour the table: auto (the default: on a terminal, unless\n"
"                NO_COLOR is set), always or never\n"
"  -h, --help    print this help\n"
"\n"
"Columns: ID; NAME, the trace name (bytes outside printable ASCII, spaces,\n"
"'%', '\"' and '\\' as %XX; \"\" if empty); CREATOR, the pid that created\n"
"the stream (- if not in your pid namespace); UID, its effective uid;\n"
"TRACED, the pids traced (the first 3, then +N for the others); STATE,\n"
"RUNNING or SUSPENDED; POLICY, the stream-full policy, then /the log-full\n"
"policy with a log; SIZE and USED, the stream's memory and how much holds\n"
"events; RECORDED and LOST, events; FLAGS, OVERRUN (events were lost) and\n"
"FULL; CREATED, in local time; LOG, the log's path as given at creation.\n"
"\n"
"Exit status: 0 listed, 1 no such stream or the module is not loaded,\n"
"2 usage.\n";

enum column {
	COL_ID, COL_NAME, COL_CREATOR, COL_UID, COL_TRACED, COL_STATE,
	COL_POLICY, COL_SIZE, COL_USED, COL_RECORDED, COL_LOST, COL_FLAGS,
	COL_CREATED, COL_LOG, NCOLUMNS
};

static const struct {
	const char *title;
	bool right;			/* aligned right: a number */
} columns[NCOLUMNS] = {
	[COL_ID] = { "ID", true },
	[COL_NAME] = { "NAME", false },
	[COL_CREATOR] = { "CREATOR", true },
	[COL_UID] = { "UID", true },
	[COL_TRACED] = { "TRACED", false },
	[COL_STATE] = { "STATE", false },
	[COL_POLICY] = { "POLICY", false },
	[COL_SIZE] = { "SIZE", true },
	[COL_USED] = { "USED", true },
	[COL_RECORDED] = { "RECORDED", true },
	[COL_LOST] = { "LOST", true },
	[COL_FLAGS] = { "FLAGS", false },
	[COL_CREATED] = { "CREATED", false },
	/* Last: the one that can be long. */
	[COL_LOG] = { "LOG", false },
};

struct list_opts {
	bool json;
	enum colour_when colour;
	bool has_id;
	uint64_t id;
};

/* The streams received, in order. */
struct stream_list {
	struct ptnl_stream **v;
	size_t n, cap;
};

static int collect(struct ptnl_stream *s, void *arg)
{
	struct stream_list *list = arg;
	struct ptnl_stream **v;

	if (list->n == list->cap) {
		v = realloc(list->v, (list->cap ? 2 * list->cap : 16) *
			    sizeof(*v));
		if (!v) {
			ptnl_stream_free(s);
			return ENOMEM;
		}
		list->v = v;
		list->cap = list->cap ? 2 * list->cap : 16;
	}
	list->v[list->n++] = s;
	return 0;
}

static void free_list(struct stream_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		ptnl_stream_free(list->v[i]);
	free(list->v);
}

static void print_json(const struct stream_list *list)
{
	size_t i;

	putchar('[');
	for (i = 0; i < list->n; i++) {
		fputs(i ? ",\n  {" : "\n  {", stdout);
		json_stream_members(stdout, list->v[i]);
		putchar('}');
	}
	fputs(list->n ? "\n]\n" : "]\n", stdout);
}

/* A cell's text, allocated; NULL only when out of memory. */
static char *cell(const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : text;
}

static char *traced_cell(const struct ptnl_stream *s)
{
	char text[TRACED_SHOWN * 12 + 24];
	size_t i, len = 0, total = s->ntraced;

	if (!s->ntraced)
		return cell("-");
	for (i = 0; i < s->ntraced && i < TRACED_SHOWN; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%" PRIu32,
					i ? "," : "", s->traced[i]);
	/* The kernel lists the first few; TRACED_COUNT says how many. */
	if (PTNL_HAS(s, POSIXTRACE_NL_A_TRACED_COUNT) &&
	    s->traced_count > s->ntraced)
		total = s->traced_count;
	if (total > TRACED_SHOWN)
		snprintf(text + len, sizeof(text) - len, ",+%zu",
			 total - TRACED_SHOWN);
	return cell("%s", text);
}

static char *policy_cell(const struct ptnl_stream *s)
{
	char b1[16], b2[16];

	if (!PTNL_HAS(s, POSIXTRACE_NL_A_LOG_POLICY))
		return cell("%s", policy_text((int)s->full_policy, b1,
					      sizeof(b1)));
	return cell("%s/%s", policy_text((int)s->full_policy, b1, sizeof(b1)),
		    policy_text((int)s->log_policy, b2, sizeof(b2)));
}

static char *flags_cell(const struct ptnl_stream *s)
{
	bool overrun = s->overrun_status == POSIX_TRACE_OVERRUN;
	bool full = s->full_status == POSIX_TRACE_FULL;

	if (!overrun && !full)
		return cell("-");
	return cell("%s%s%s", overrun ? "OVERRUN" : "",
		    overrun && full ? "," : "", full ? "FULL" : "");
}

static char *created_cell(const struct ptnl_stream *s)
{
	time_t sec = (time_t)(s->create_time / 1000000000u);
	char text[32];
	struct tm tm;

	if (!localtime_r(&sec, &tm) ||
	    !strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S %Z", &tm))
		return cell("@%" PRIu64, s->create_time / 1000000000u);
	return cell("%s", text);
}

/* Escaped as dump does; "" for the empty name ('"' is %22 in names). */
static char *escaped_cell(const char *text)
{
	char *out;

	if (!*text)
		return cell("\"\"");
	out = malloc(ESCAPED_SIZE(strlen(text)));
	if (out)
		escape_name(out, text);
	return out;
}

/* The row of s; false if out of memory. */
static bool fill_row(char **row, const struct ptnl_stream *s)
{
	char b1[HUMAN_SIZE_SIZE], b2[HUMAN_SIZE_SIZE], b3[16];
	int i;

	row[COL_ID] = cell("%" PRIu64, s->id);
	row[COL_NAME] = escaped_cell(s->name ? s->name : "");
	row[COL_CREATOR] = s->creator_pid ? cell("%" PRIu32, s->creator_pid) :
					    cell("-");
	row[COL_UID] = cell("%" PRIu32, s->creator_uid);
	row[COL_TRACED] = traced_cell(s);
	row[COL_STATE] = cell("%s", ptnl_state_text(s->state, b3, sizeof(b3)));
	row[COL_POLICY] = policy_cell(s);
	row[COL_SIZE] = cell("%s", human_size(s->stream_size, b1, sizeof(b1)));
	row[COL_USED] = cell("%s", human_size(s->bytes_used, b2, sizeof(b2)));
	row[COL_RECORDED] = cell("%" PRIu64, s->events_recorded);
	row[COL_LOST] = cell("%" PRIu64, s->events_lost);
	row[COL_FLAGS] = flags_cell(s);
	row[COL_CREATED] = created_cell(s);
	row[COL_LOG] = s->log_path ? escaped_cell(s->log_path) : cell("-");
	for (i = 0; i < NCOLUMNS; i++)
		if (!row[i])
			return false;
	return true;
}

/*
 * The colour of each cell of a row (NULL: none), when colour is on: the
 * titles bold; RUNNING green, SUSPENDED yellow; events lost, and the
 * OVERRUN and FULL flags, red.
 */
static void row_colours(const char **sgr, char *const *row, bool titles)
{
	int i;

	for (i = 0; i < NCOLUMNS; i++)
		sgr[i] = titles ? SGR_BOLD : NULL;
	if (titles)
		return;
	if (!strcmp(row[COL_STATE], "RUNNING"))
		sgr[COL_STATE] = SGR_GREEN;
	else if (!strcmp(row[COL_STATE], "SUSPENDED"))
		sgr[COL_STATE] = SGR_YELLOW;
	if (strcmp(row[COL_LOST], "0"))
		sgr[COL_LOST] = SGR_RED;
	if (strcmp(row[COL_FLAGS], "-"))
		sgr[COL_FLAGS] = SGR_RED;
}

/* Padding counts the text, not the colour's escape sequences. */
static void print_row(char *const *row, const size_t *width, bool colour,
		      bool titles)
{
	const char *sgr[NCOLUMNS];
	int i, pad;

	row_colours(sgr, row, titles);
	for (i = 0; i < NCOLUMNS; i++) {
		const char *on = colour && sgr[i] ? sgr[i] : "";
		const char *off = colour && sgr[i] ? SGR_RESET : "";

		pad = (int)(width[i] - strlen(row[i]));
		if (i == NCOLUMNS - 1)
			printf("%s%s%s\n", on, row[i], off);
		else if (columns[i].right)
			printf("%*s%s%s%s  ", pad, "", on, row[i], off);
		else
			printf("%s%s%s%*s  ", on, row[i], off, pad, "");
	}
}

static int print_table(const struct stream_list *list, bool colour)
{
	char *(*rows)[NCOLUMNS] = calloc(list->n + 1, sizeof(*rows));
	size_t width[NCOLUMNS], i;
	bool ok = rows != NULL;
	int c;

	for (c = 0; c < NCOLUMNS; c++)
		width[c] = strlen(columns[c].title);
	for (i = 0; ok && i < list->n; i++) {
		ok = fill_row(rows[i], list->v[i]);
		for (c = 0; ok && c < NCOLUMNS; c++)
			if (strlen(rows[i][c]) > width[c])
				width[c] = strlen(rows[i][c]);
	}
	if (ok) {
		char *titles[NCOLUMNS];

		for (c = 0; c < NCOLUMNS; c++)
			titles[c] = (char *)columns[c].title;
		print_row(titles, width, colour, true);
		for (i = 0; i < list->n; i++)
			print_row(rows[i], width, colour, false);
	}
	for (i = 0; rows && i < list->n; i++)
		for (c = 0; c < NCOLUMNS; c++)
			free(rows[i][c]);
	free(rows);
	if (!ok)
		fprintf(stderr, PROG ": %s\n", strerror(ENOMEM));
	return ok ? 0 : 1;
}

static int parse_id(const char *text, uint64_t *id)
{
	unsigned long long v;
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end)
		return EINVAL;
	*id = v;
	return 0;
}

/* Returns 0, -1 for --help, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct list_opts *o)
{
	static const struct option options[] = {
		{ "id", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "color", required_argument, NULL, 'C' },
		{ "colour", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "i:jh", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_help(list_usage);
			return -1;
		case 'j':
			o->json = true;
			break;
		case 'C':
			if (colour_parse(optarg, &o->colour))
				return usage_error(list_usage,
						   "bad --color '%s': auto, "
						   "always or never", optarg);
			break;
		case 'i':
			if (parse_id(optarg, &o->id))
				return usage_error(list_usage,
						   "bad stream ID '%s'", optarg);
			o->has_id = true;
			break;
		default:
			return usage_error(list_usage, NULL);
		}
	}
	if (optind < argc)
		return usage_error(list_usage, "unexpected argument '%s'",
				   argv[optind]);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct stream_list list = { 0 };
	struct list_opts o;
	struct ptnl *nl;
	int status, err;

	status = parse_args(argc, argv, &o);
	if (status)
		return status < 0 ? 0 : status;
	nl = ptnl_open(PROG);
	if (!nl)
		return 1;
	err = ptnl_get(nl, !o.has_id, o.id, collect, &list);
	if (err == ENOENT && o.has_id) {
		fprintf(stderr, PROG ": no such stream: %" PRIu64 "\n", o.id);
		status = 1;
	} else if (err) {
		fprintf(stderr, PROG ": %s%s%s\n", strerror(err),
			*ptnl_error_message(nl) ? ": " : "",
			ptnl_error_message(nl));
		status = 1;
	} else if (o.json) {
		print_json(&list);
	} else {
		status = print_table(&list,
				     colour_on(o.colour, STDOUT_FILENO));
	}
	ptnl_close(nl);
	free_list(&list);
	if (!status && (fflush(stdout) || ferror(stdout))) {
		fprintf(stderr, PROG ": standard output: %s\n",
			strerror(errno));
		status = 1;
	}
	return status;
}
