// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace export LOG -o DIR: a trace log as a CTF 1.8 trace, which
 * babeltrace2 and Trace Compass read. See ctf.h for what is written.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command.h"
#include "ctf.h"
#include "export_chrome.h"
#include "export_lttng.h"
#include "logcheck.h"
#include "output.h"

static const char export_usage[] =
"usage: posixtrace export [--force] [--format=ctf|lttng] -o DIR LOG\n"
"       posixtrace export [--force] --format=chrome -o FILE LOG\n"
"Convert the trace log LOG to a CTF 1.8 trace in the directory DIR (made if\n"
"missing; it must be empty): DIR/metadata and DIR/stream. Event classes are\n"
"the log's event types, named as 'posixtrace dump' names them; timestamps\n"
"are CLOCK_REALTIME in nanoseconds; each event carries pid, tid, thread and\n"
"seq (context) and truncation, prog_address, data_len and data (payload).\n"
"Events missing from the log (gaps in sequence numbers) are CTF discarded\n"
"events. The trace's environment has the log's attributes, trace_name (the\n"
"stream's name, else LOG's file name) and hostname: this machine's, which\n"
"babeltrace2 names the trace after. Read it with: babeltrace2 DIR\n"
"\n"
"  -o, --output DIR  the trace directory to write\n"
"      --format FORMAT  ctf (the default, above) or lttng: the kernel\n"
"                    events as LTTng's kernel tracer names them\n"
"                    (sched_switch, syscall_entry_openat...), one stream\n"
"                    per CPU (DIR/channel0_N), for Trace Compass's\n"
"                    Control Flow and Resources views; or chrome: the\n"
"                    Trace Event Format (JSON) in the file FILE ('-':\n"
"                    standard output), which Perfetto (ui.perfetto.dev)\n"
"                    and chrome://tracing open: a track per thread, system\n"
"                    calls as spans, the other events as instants with\n"
"                    dump --json's members as args\n"
"  -f, --force       overwrite DIR if it holds a previous export only;\n"
"                    overwrite FILE\n"
"  -h, --help        print this help\n"
"\n"
"A log with bytes it cannot read (cut short, a bad record or block header)\n"
"is exported as far as it can be read, with one warning on stderr, as\n"
"'posixtrace dump' gives.\n"
"Exit status: 0 written, 1 not a trace log, a read or a write error, 2 usage,\n"
"3 written but the log is damaged (the warning says how).\n";

/* What an export writes; --force overwrites these and nothing else. */
static bool ours(const char *name)
{
	const char *p = name + strlen(LTTNG_STREAM_PREFIX);

	if (!strncmp(name, LTTNG_STREAM_PREFIX, strlen(LTTNG_STREAM_PREFIX)) &&
	    *p && strspn(p, "0123456789") == strlen(p))
		return true;
	return !strcmp(name, CTF_METADATA_FILE) ||
	       !strcmp(name, CTF_STREAM_FILE);
}

/*
 * Opens dir, made if missing. A reader takes every file of the directory
 * for part of the trace, so anything else there would corrupt it.
 */
static int open_dir(const char *dir, bool force, bool *made)
{
	struct dirent *de;
	DIR *d;
	int fd, err = 0;

	*made = !mkdir(dir, 0777);
	if (!*made && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(dup(fd));
	if (!d) {
		err = errno;
		close(fd);
		return -err;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!force || !ours(de->d_name)) {
			err = ENOTEMPTY;
			break;
		}
	}
	closedir(d);
	if (err) {
		close(fd);
		return -err;
	}
	return fd;
}

/* Removes what an export writes: its files, nothing else. */
static void remove_ours(int dirfd)
{
	struct dirent *de;
	DIR *d = fdopendir(dup(dirfd));

	if (!d)
		return;
	while ((de = readdir(d)))
		if (ours(de->d_name))
			unlinkat(dirfd, de->d_name, 0);
	closedir(d);
}

/* Leaves nothing half-written behind. */
static void undo(int dirfd, const char *dir, bool made)
{
	remove_ours(dirfd);
	if (made)
		rmdir(dir);
}

static void warn_times(const char *prog, const struct ctf_stream *cs)
{
	if (cs->out_of_range)
		fprintf(stderr, "%s: warning: %" PRIu64 " events have times "
			"outside 1970-2262, which CTF readers refuse; the trace "
			"gives them the time of the event before\n", prog,
			cs->out_of_range);
	if (cs->clamped)
		fprintf(stderr, "%s: warning: %" PRIu64 " events are stamped "
			"before the event preceding them (the clock was set "
			"back?); the trace gives them that event's time\n",
			prog, cs->clamped);
}

/*
 * Writes the stream file: every event of the log. *nread counts the
 * events read; *read_error tells a failure to read the log from one to
 * write the trace.
 */
static int write_stream(struct log_reader *lr, int dirfd,
			const uint8_t uuid[16], const char *prog,
			uint64_t *nread, bool *read_error)
{
	struct timespec created = { 0, 0 };
	struct ctf_stream cs;
	struct log_event ev;
	uint64_t empty_ts;
	bool end = false;
	int err, close_err;

	err = ctf_stream_open(&cs, dirfd, uuid);
	if (err)
		return err;
	while (!err) {
		err = log_next_counted(lr, &ev, &end, nread, read_error);
		if (err || end)
			break;
		err = ctf_stream_event(&cs, &ev);
	}
	posix_trace_attr_getcreatetime(&lr->attr, &created);
	ctf_time(&created, &empty_ts);
	close_err = ctf_stream_close(&cs, empty_ts);
	if (!err)
		err = close_err;
	if (!err)
		warn_times(prog, &cs);
	return err;
}

struct chrome_job {
	struct log_reader *lr;
	uint64_t *nread;
	bool *read_error;
};

/* The Chrome export into @fp, which write_output() then closes. */
static int chrome_fill(FILE *fp, void *arg)
{
	struct chrome_job *job = arg;

	return export_chrome(job->lr, fp, job->nread, job->read_error);
}

int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "posixtrace export", *dir = NULL, *what;
	struct log_damage damage;
	struct log_reader lr;
	uint8_t uuid[16];
	bool force = false, made, read_error = false, lttng = false;
	bool chrome = false;
	uint64_t nread = 0;
	int c, dirfd, err;

	while ((c = getopt_long(argc, argv, "o:fh", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'F':
			if (strcmp(optarg, "ctf") && strcmp(optarg, "lttng") &&
			    strcmp(optarg, "chrome"))
				return usage_error(export_usage, "bad --format: "
						   "ctf, lttng or chrome");
			lttng = !strcmp(optarg, "lttng");
			chrome = !strcmp(optarg, "chrome");
			break;
		case 'h':
			return usage_help(export_usage);
		default:
			return usage_error(export_usage, NULL);
		}
	}
	if (!dir)
		return usage_error(export_usage, chrome ?
				   "no output: -o FILE is required" :
				   "no output: -o DIR is required");
	if (argc - optind != 1)
		return usage_error(export_usage, argc == optind ?
				   "no LOG given" : "one LOG at a time");
	if (log_open_checked(&lr, argv[optind], prog, &damage))
		return 1;
	if (chrome) {
		struct chrome_job job = { &lr, &nread, &read_error };

		err = write_output(dir, force, chrome_fill, &job);
		if (err && read_error)
			fprintf(stderr, "%s: %s: reading event %" PRIu64
				": %s\n", prog, lr.path, nread + 1,
				strerror(err));
		else if (err)
			fprintf(stderr, "%s: %s: %s%s\n", prog, dir,
				strerror(err), err == EEXIST ?
				" (--force overwrites it)" : "");
		goto out;
	}
	dirfd = open_dir(dir, force, &made);
	if (dirfd < 0) {
		fprintf(stderr, "%s: %s: %s%s\n", prog, dir, strerror(-dirfd),
			-dirfd != ENOTEMPTY ? "" : force ?
			" (of more than a previous export)" :
			" (--force overwrites a previous export)");
		log_close(&lr);
		return 1;
	}
	ctf_uuid(uuid, &lr.attr);
	/* A previous export's files go: another format leaves others. */
	if (force)
		remove_ours(dirfd);
	/* The metadata comes last: it names the types the events used. */
	what = lttng ? LTTNG_STREAM_PREFIX "N" : CTF_STREAM_FILE;
	if (lttng)
		err = export_lttng(&lr, dirfd, uuid, &nread, &read_error);
	else
		err = write_stream(&lr, dirfd, uuid, prog, &nread, &read_error);
	if (!err && !lttng) {
		what = CTF_METADATA_FILE;
		err = ctf_metadata_write(dirfd, &lr, uuid);
	}
	if (err) {
		if (read_error)
			fprintf(stderr, "%s: %s: reading event %" PRIu64
				": %s\n", prog, lr.path, nread + 1,
				strerror(err));
		else
			fprintf(stderr, "%s: %s/%s: %s\n", prog, dir, what,
				strerror(err));
		undo(dirfd, dir, made);
	}
	close(dirfd);
out:
	if (!err && log_damaged(&damage))
		log_damage_warn(prog, lr.path, &damage);
	log_close(&lr);
	if (err)
		return 1;
	return log_damaged(&damage) ? EXIT_DAMAGED : 0;
}
