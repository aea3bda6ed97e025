// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace monitor [--json]
 *
 * Joins the module's "notify" multicast group (nl.h) and prints a line
 * per notification as it arrives, until SIGINT or SIGTERM.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "command.h"
#include "json.h"
#include "nl.h"
#include "text.h"

#define PROG		"posixtrace monitor"

static const char monitor_usage[] =
"usage: posixtrace monitor [--json]\n"
"Print a line for every change of every trace stream as the posixtrace\n"
"module notifies it: a stream created, started, stopped, full, overflowing\n"
"(a LOOP stream overwriting events), a flush to its log done, shut down;\n"
"\"lost\" says that notifications of that stream were dropped before.\n"
"Runs until SIGINT (Ctrl-C) or SIGTERM. Needs CAP_SYS_ADMIN (root);\n"
"without it, 'posixtrace list' shows your own streams.\n"
"\n"
"  -j, --json    an object per line with the event, the time received\n"
"                (\"received\", ns since the epoch) and every attribute of\n"
"                the stream, as 'posixtrace list --json' gives them\n"
"  -h, --help    print this help\n"
"\n"
"A line: the local time received, the event, then id=, name= (escaped as\n"
"'posixtrace list' does), creator= (pid) and state= of the stream as it\n"
"was when notified (SHUT_DOWN after shutdown).\n"
"\n"
"Exit status: 0 stopped by a signal, 1 an error (not permitted, the\n"
"module not loaded or unloaded meanwhile), 2 usage.\n";

/* The signal that asked us to stop; 0 while none did. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

/* Blocked but while waiting (ppoll), so that none is missed. */
static int setup_signals(sigset_t *wait_mask)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;	/* no SA_RESTART: wake ppoll */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, wait_mask) ||
	    sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL)) {
		fprintf(stderr, PROG ": signals: %s\n", strerror(errno));
		return 1;
	}
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
	return 0;
}

static void print_text(const struct ptnl_stream *s, const char *event,
		       const struct timespec *now)
{
	const char *raw = s->name ? s->name : "";
	char when[16], state[16], *name;
	struct tm tm;

	if (!localtime_r(&now->tv_sec, &tm) ||
	    !strftime(when, sizeof(when), "%H:%M:%S", &tm))
		snprintf(when, sizeof(when), "@%jd", (intmax_t)now->tv_sec);
	name = malloc(ESCAPED_SIZE(strlen(raw)) + 2);
	if (name)
		escape_name(name, raw);
	/* As list shows it: '"' is %22 in a name, so "" is none. */
	if (name && !*raw)
		strcpy(name, "\"\"");
	printf("%s.%06ld %-10s id=%" PRIu64 " name=%s creator=%" PRIu32
	       " state=%s\n", when, now->tv_nsec / 1000, event, s->id, name ? name : "?",
	       s->creator_pid, ptnl_state_text(s->state, state, sizeof(state)));
	free(name);
}

static int print_notification(struct ptnl_stream *s, void *arg)
{
	const bool *json = arg;
	const char *event = ptnl_event_name(s->event);
	char unknown[16];
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (!event) {
		snprintf(unknown, sizeof(unknown), "%" PRIu32, s->event);
		event = unknown;
	}
	if (*json) {
		printf("{\"received\": %" PRIu64 ", \"event\": ",
		       (uint64_t)now.tv_sec * 1000000000u +
		       (uint64_t)now.tv_nsec);
		json_string(stdout, event);
		fputs(", ", stdout);
		json_stream_members(stdout, s);
		fputs("}\n", stdout);
	} else {
		print_text(s, event, &now);
	}
	ptnl_stream_free(s);
	/* One line at a time, for whoever reads a pipe. */
	if (fflush(stdout) || ferror(stdout))
		return errno ? errno : EIO;
	return 0;
}

static int join(struct ptnl *nl)
{
	int err = ptnl_join(nl);

	if (!err)
		return 0;
	if (err == EPERM || err == EACCES)
		fprintf(stderr, PROG ": %s: monitoring needs CAP_SYS_ADMIN "
			"(notifications are about every user's streams); "
			"'posixtrace list' shows your own\n", strerror(err));
	else if (err == ENOENT)
		fprintf(stderr, PROG ": the posixtrace module has no "
			"\"" POSIXTRACE_GENL_MCGRP_NOTIFY "\" multicast group\n");
	else
		fprintf(stderr, PROG ": joining the \""
			POSIXTRACE_GENL_MCGRP_NOTIFY "\" group: %s\n",
			strerror(err));
	return 1;
}

static int run(struct ptnl *nl, bool json, const sigset_t *wait_mask)
{
	struct pollfd pfd = { .fd = ptnl_fd(nl), .events = POLLIN };
	int err;

	while (!stop_signal) {
		if (ppoll(&pfd, 1, NULL, wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return 1;
		}
		err = ptnl_receive(nl, print_notification, &json);
		if (err == ENOBUFS) {
			fprintf(stderr, PROG ": notifications were lost: the "
				"socket's receive buffer overflowed, or the "
				"kernel had no memory for them\n");
			continue;
		}
		if (err == ENODEV) {
			fprintf(stderr, PROG ": the posixtrace module was "
				"unloaded\n");
			return 1;
		}
		if (err) {
			fprintf(stderr, PROG ": %s\n", strerror(err));
			return 1;
		}
	}
	return 0;
}

/* Returns 0, -1 for --help, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, bool *json)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*json = false;
	while ((c = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_help(monitor_usage);
			return -1;
		case 'j':
			*json = true;
			break;
		default:
			return usage_error(monitor_usage, NULL);
		}
	}
	if (optind < argc)
		return usage_error(monitor_usage, "unexpected argument '%s'",
				   argv[optind]);
	return 0;
}

int cmd_monitor(int argc, char **argv)
{
	sigset_t wait_mask;
	struct ptnl *nl;
	bool json;
	int status;

	status = parse_args(argc, argv, &json);
	if (status)
		return status < 0 ? 0 : status;
	if (setup_signals(&wait_mask))
		return 1;
	nl = ptnl_open(PROG);
	if (!nl)
		return 1;
	status = join(nl);
	if (!status)
		status = run(nl, json, &wait_mask);
	ptnl_close(nl);
	return status;
}
