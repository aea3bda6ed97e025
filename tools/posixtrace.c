// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace: the command-line tool. Each subcommand lives in its own file
 * (command.h); this one only finds it. "posixtrace help" lists them,
 * "posixtrace --version" says which posixtrace this is.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <posixtrace-k.h>

#include "command.h"

struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "record", "run a command, or attach to a process, and record its "
	  "trace log", cmd_record },
	{ "trace", "run a command, or attach to a process, and print its "
	  "events as they happen", cmd_trace },
	{ "version", "print the loaded module's ABI version", cmd_version },
	{ "dump", "print a trace log as text", cmd_dump },
	{ "export", "convert a trace log to a CTF trace (babeltrace2) or "
	  "for Perfetto", cmd_export },
	{ "view", "write a trace log's timeline as an HTML page", cmd_view },
	{ "list", "list the trace streams of the loaded module", cmd_list },
	{ "monitor", "print trace streams' changes as they happen (root)",
	  cmd_monitor },
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

bool is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

static int help(void)
{
	size_t i;

	printf("usage: posixtrace COMMAND [ARGS]\n"
	       "       posixtrace --version\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		printf("  %-10s %s\n", commands[i].name, commands[i].summary);
	printf("\n'posixtrace COMMAND --help' describes a command; "
	       "man posixtrace, all of them.\n");
	return 0;
}

/* One line saying what is wrong, one saying where help is. */
static int usage_error_top(const char *what, const char *arg)
{
	fprintf(stderr, "posixtrace: %s%s%s%s\nTry 'posixtrace --help'.\n",
		what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	return EXIT_USAGE;
}

/*
 * The package's version, and the module's ABI when it is loaded: what a
 * bug report needs. No module is no error here ("posixtrace version" is
 * the command that fails without one).
 */
static int version(void)
{
	unsigned int major, minor;
	int err;

	printf("posixtrace %s\n", POSIXTRACE_VERSION);
	err = posixtrace_k_abi_version(&major, &minor);
	if (!err)
		printf("posixtrace module ABI %u.%u\n", major, minor);
	else if (err != ENOENT)
		printf("posixtrace module: /dev/posixtrace: %s\n",
		       strerror(err));
	return 0;
}

static const struct command *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	char *help_argv[] = { NULL, "--help", NULL };
	static char prog[32];

	if (argc < 2)
		return usage_error_top("no command given", NULL);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			return usage_error_top("unexpected argument", argv[2]);
		return version();
	}
	if (!strcmp(argv[1], "help") || is_help(argv[1])) {
		if (argc < 3)
			return help();
		/* "posixtrace help dump" is "posixtrace dump --help". */
		cmd = find(argv[2]);
		if (!cmd)
			return usage_error_top("unknown command", argv[2]);
		help_argv[0] = argv[2];
		return cmd->run(2, help_argv);
	}
	if (argv[1][0] == '-')
		return usage_error_top("unknown option", argv[1]);
	cmd = find(argv[1]);
	if (!cmd)
		return usage_error_top("unknown command", argv[1]);
	/* getopt_long() names argv[0] in its messages. */
	snprintf(prog, sizeof(prog), "posixtrace %s", cmd->name);
	argv[1] = prog;
	return cmd->run(argc - 1, argv + 1);
}
