// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace dump LOG: a trace log as text, one line per event, or as
 * JSON, one object per line; the events chosen by name, pid, tid and time.
 * This file reads the log and chooses; dump_text.c and dump_json.c print.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colour.h"
#include "command.h"
#include "dump.h"
#include "dump_filter.h"
#include "proctree.h"

static const char dump_usage[] =
"usage: posixtrace dump [OPTIONS] LOG\n"
"Print the trace log LOG as text, one line per event:\n"
"  TIME NAME pid=PID tid=TID thread=0xTHREAD seq=SEQ addr=0xADDR\n"
"  trunc=no|record|read len=N data=DATA [(decoded system event data)]\n"
"TID is the kernel thread id (gettid()) of the event's thread, 0 for events\n"
"of no thread (most system events).\n"
"TIME is UTC with nanoseconds; names escape bytes outside printable ASCII,\n"
"space, %, \" and \\ as %XX. DATA is \"quoted text\" when the payload is\n"
"printable, {names} for the filters of START and FILTER, else hex. Other\n"
"lines start with '#': the stream's attributes first, '# gap:' where\n"
"sequence numbers skip events, the final status last.\n"
"\n"
"Choosing events (an option given twice matches either value; events must\n"
"match every option given):\n"
"  -e, --event GLOB  names matching the shell pattern GLOB ('app.*')\n"
"  -p, --pid PID     events of process PID (PID,PID,... too)\n"
"  -t, --tid TID     events of thread TID (TID,TID,... too)\n"
"      --since TIME  events at or after TIME\n"
"      --until TIME  events at or before TIME\n"
"TIME is seconds since the epoch (1764122400.5), a UTC date and time\n"
"(2025-11-26T02:00:00.123456789, a zone Z, +hh:mm or -hh:mm may follow), or\n"
"an offset from the log's first event: +1.5, +250ms, +10us, +3ns, +2m, +1h.\n"
"'# events:' still counts every event read, and says how many were shown.\n"
"\n"
"Output:\n"
"  -j, --json        one JSON object per line per event, nothing else\n"
"      --tree        the process tree instead of the events, as pstree -A:\n"
"                    who forked whom, each process's command (its last\n"
"                    exec) and how it ended (from the kernel events)\n"
"  -r, --relative    times since the log's first event (+1.500000000)\n"
"  -d, --delta       times since the previous event printed\n"
"      --hex         every payload in hex, as before text and {names}\n"
"  -x, --full-data   print every payload byte (default: the first 32, then ...)\n"
"      --color WHEN  event names and gaps in colour: auto (the default: on a\n"
"                    terminal, unless NO_COLOR is set), always or never\n"
"  -h, --help        print this help\n"
"\n"
"A log with bytes it cannot read (cut short, a bad record or block header)\n"
"is printed as far as it can be read, with one warning on stderr.\n"
"Kernel events (posixtrace_proc_*, posixtrace_signal_*) are decoded after\n"
"their fields: signal and si_code names, clone flags, exit statuses; in\n"
"JSON, sig_name, code_name, result_name, action_name, flags_names,\n"
"signal_name, exit and argv beside the raw numbers of \"fields\".\n"
"Exit status: 0 read to the end, 1 not a trace log or a read error, 2 usage,\n"
"3 read to the end but damaged (the warning says how).\n";

enum {
	OPT_SINCE = 256,
	OPT_UNTIL,
	OPT_HEX,
	OPT_COLOUR,
	OPT_TREE,
};

static const struct option options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "json", no_argument, NULL, 'j' },
	{ "tree", no_argument, NULL, OPT_TREE },
	{ "relative", no_argument, NULL, 'r' },
	{ "delta", no_argument, NULL, 'd' },
	{ "hex", no_argument, NULL, OPT_HEX },
	{ "full-data", no_argument, NULL, 'x' },
	{ "color", required_argument, NULL, OPT_COLOUR },
	{ "colour", required_argument, NULL, OPT_COLOUR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --relative and --delta: one way to show time. */
static int set_time_mode(struct dump_opts *o, enum dump_time mode)
{
	if (o->time != DUMP_TIME_ABSOLUTE && o->time != mode)
		return usage_error(dump_usage,
				   "--relative and --delta exclude each other");
	o->time = mode;
	return 0;
}

static int time_option(struct time_arg *t, const char *name, const char *arg)
{
	const char *why = parse_time_arg(arg, t);

	if (why)
		return usage_error(dump_usage, "%s '%s': %s", name, arg, why);
	return 0;
}

/* An option's error: usage (2), or out of memory (1). */
static int option_error(int err, const char *name, const char *arg,
			const char *why)
{
	if (err == ENOMEM) {
		fprintf(stderr, "posixtrace dump: %s\n", strerror(err));
		return 1;
	}
	return usage_error(dump_usage, "%s '%s': %s", name, arg, why);
}

/* --color's choice, applied once the options are read. */
static enum colour_when colour_when;

/* One option: 0, or the exit status; *help when it was --help. */
static int parse_option(int c, struct dump_opts *o, struct dump_filter *f,
			bool *help)
{
	const char *why = NULL;
	int err;

	switch (c) {
	case 'e':
		err = filter_add_glob(f, optarg, &why);
		return err ? option_error(err, "--event", optarg, why) : 0;
	case 'p':
		err = filter_add_ids(&f->pids, optarg, &why);
		return err ? option_error(err, "--pid", optarg, why) : 0;
	case 't':
		err = filter_add_ids(&f->tids, optarg, &why);
		return err ? option_error(err, "--tid", optarg, why) : 0;
	case OPT_SINCE:
		return time_option(&f->since, "--since", optarg);
	case OPT_UNTIL:
		return time_option(&f->until, "--until", optarg);
	case 'j':
		o->json = true;
		return 0;
	case OPT_TREE:
		o->tree = true;
		return 0;
	case 'r':
		return set_time_mode(o, DUMP_TIME_RELATIVE);
	case 'd':
		return set_time_mode(o, DUMP_TIME_DELTA);
	case OPT_HEX:
		o->hex = true;
		return 0;
	case 'x':
		o->full_data = true;
		return 0;
	case OPT_COLOUR:
		if (colour_parse(optarg, &colour_when))
			return usage_error(dump_usage, "bad --color '%s': auto, "
					   "always or never", optarg);
		return 0;
	case 'h':
		*help = true;
		return usage_help(dump_usage);
	}
	return usage_error(dump_usage, NULL);
}

/* The options, then LOG: 0 and *path, or the exit status. */
static int parse_args(int argc, char **argv, struct dump_opts *o,
		      struct dump_filter *f, const char **path)
{
	bool help = false;
	const char *why;
	int c, ret;

	while ((c = getopt_long(argc, argv, "e:p:t:jrdxh", options,
				NULL)) != -1) {
		ret = parse_option(c, o, f, &help);
		if (ret || help)
			return ret;
	}
	if (argc - optind != 1)
		return usage_error(dump_usage, argc == optind ? "no LOG given" :
				   "one LOG at a time");
	if (o->tree && (o->json || o->time != DUMP_TIME_ABSOLUTE || o->hex ||
			o->full_data))
		return usage_error(dump_usage, "--tree prints no events: "
				   "--json, --relative, --delta, --hex and "
				   "--full-data do not apply");
	why = filter_check(f);
	if (why)
		return usage_error(dump_usage, "%s", why);
	o->colour = !o->json && colour_on(colour_when, STDOUT_FILENO);
	*path = argv[optind];
	return 0;
}

/* What the footer says of the filter when the log has no END. */
static void note_filter(struct dump_totals *t, const struct log_event *ev)
{
	const size_t set = DUMP_SET_SIZE;

	if (ev->info.posix_event_id == POSIX_TRACE_START &&
	    ev->data_len == set) {
		memcpy(t->filter, ev->data, set);
		t->have_filter = true;
	} else if (ev->info.posix_event_id == POSIX_TRACE_FILTER &&
		   ev->data_len == 2 * set) {
		memcpy(t->filter, ev->data + set, set);
		t->have_filter = true;
	}
}

struct dump {
	struct log_reader lr;
	struct dump_opts opts;
	struct dump_filter filter;
	struct dump_clock clock;
	struct dump_totals totals;
	struct log_damage damage;
	struct proctree tree;		/* --tree */
	bool tree_failed;		/* out of memory */
};

/*
 * One event read: counted whatever the filters say, its gap shown if it
 * is in the time range (the events lost there may be any process's, of
 * any name), printed if it matches.
 */
static void dump_event(struct dump *d, const struct log_event *ev)
{
	const struct timespec *ts = &ev->info.posix_timestamp;
	struct dump_totals *t = &d->totals;

	if (!t->events++) {
		d->clock.first = d->clock.prev = *ts;
		filter_set_origin(&d->filter, ts);
		if (!d->opts.json && d->opts.time != DUMP_TIME_ABSOLUTE)
			dump_text_origin(ts);
	}
	t->missing += ev->gap;
	t->gaps += ev->gap != 0;
	note_filter(t, ev);
	if (ev->gap && !d->opts.json && !d->opts.tree &&
	    filter_in_time(&d->filter, ts))
		dump_text_gap(ev, &d->opts);
	if (!filter_match(&d->filter, ev))
		return;
	t->shown++;
	if (d->opts.tree) {
		if (proctree_add(&d->tree, ev))
			d->tree_failed = true;
		return;
	}
	if (d->opts.json)
		dump_json_event(&d->lr, ev, &d->opts, &d->clock);
	else
		dump_text_event(&d->lr, ev, &d->opts, &d->clock);
	d->clock.prev = *ts;
}

/* Every event of the log: 0, or the error that stopped the reading. */
static int dump_events(struct dump *d)
{
	struct log_event ev;
	bool end = false;
	int err;

	while (!(err = log_next(&d->lr, &ev, &end)) && !end)
		dump_event(d, &ev);
	if (err) {
		fflush(stdout);
		fprintf(stderr, "posixtrace dump: %s: reading event %" PRIu64
			": %s\n", d->lr.path, d->totals.events + 1,
			strerror(err));
	}
	return err;
}

/* --tree: the tree, or why there is none. */
static void print_tree(const struct dump *d)
{
	if (!d->tree.n) {
		printf("# no process in the events shown\n");
		return;
	}
	if (!d->tree.kernel_events)
		printf("# no fork, exec or exit event: the processes of the "
		       "events, unrelated (record with --kernel=proc)\n");
	proctree_print(stdout, &d->tree, "");
	if (d->totals.missing)
		printf("# %" PRIu64 " events missing from the log: processes "
		       "or exits may be too\n", d->totals.missing);
}

static int dump_log(struct dump *d)
{
	int err;

	err = log_check(d->lr.fd, &d->damage);
	if (err) {
		fprintf(stderr, "posixtrace dump: %s: checking the log: %s\n",
			d->lr.path, strerror(err));
		return 1;
	}
	d->totals.filtered = filter_active(&d->filter);
	if (!d->opts.json && !d->opts.tree)
		dump_text_header(&d->lr);
	err = dump_events(d);
	if (!err && d->tree_failed)
		err = ENOMEM;
	if (!err && d->opts.tree)
		print_tree(d);
	else if (!err && !d->opts.json)
		dump_text_footer(&d->lr, &d->damage, &d->totals);
	if (fflush(stdout) || ferror(stdout)) {
		perror("posixtrace dump: standard output");
		return 1;
	}
	/* Once, last, so that it is seen: what the library could not read. */
	if (log_damaged(&d->damage))
		log_damage_warn("posixtrace dump", d->lr.path, &d->damage);
	if (err)
		return 1;
	return log_damaged(&d->damage) ? EXIT_DAMAGED : 0;
}

int cmd_dump(int argc, char **argv)
{
	struct dump d = { 0 };
	const char *path = NULL;
	int ret;

	ret = parse_args(argc, argv, &d.opts, &d.filter, &path);
	if (!ret && path) {
		if (log_open(&d.lr, path, "posixtrace dump"))
			ret = 1;
		else
			ret = dump_log(&d);
		log_close(&d.lr);
	}
	filter_free(&d.filter);
	proctree_free(&d.tree);
	return ret;
}
