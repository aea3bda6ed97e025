// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace: the command-line tool. Each subcommand lives in its own file
 * (command.h); this one only finds it. "posixtrace help" lists them.
 */

#include <stdio.h>
#include <string.h>

#include "command.h"

struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "record", "run a command, or attach to a process, and record its "
	  "trace log", cmd_record },
	{ "version", "print the loaded module's ABI version", cmd_version },
	{ "dump", "print a trace log as text", cmd_dump },
	{ "export", "convert a trace log to a CTF trace (babeltrace2)",
	  cmd_export },
	{ "list", "list the trace streams of the loaded module", cmd_list },
	{ "monitor", "print trace streams' changes as they happen (root)",
	  cmd_monitor },
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

bool is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

static int usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: posixtrace COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "\n'posixtrace COMMAND --help' describes a command; "
		"man posixtrace, all of them.\n");
	return out == stdout ? 0 : EXIT_USAGE;
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
		return usage(stderr);
	if (!strcmp(argv[1], "help") || is_help(argv[1])) {
		if (argc < 3)
			return usage(stdout);
		/* "posixtrace help dump" is "posixtrace dump --help". */
		cmd = find(argv[2]);
		if (!cmd) {
			fprintf(stderr, "posixtrace: unknown command '%s'\n",
				argv[2]);
			return usage(stderr);
		}
		help_argv[0] = argv[2];
		return cmd->run(2, help_argv);
	}
	cmd = find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "posixtrace: unknown command '%s'\n", argv[1]);
		return usage(stderr);
	}
	/* getopt_long() names argv[0] in its messages. */
	snprintf(prog, sizeof(prog), "posixtrace %s", cmd->name);
	argv[1] = prog;
	return cmd->run(argc - 1, argv + 1);
}
