// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace: the command-line tool. Each subcommand is one function;
 * "posixtrace help" lists them.
 */

#include <stdio.h>
#include <string.h>

#include <posixtrace-k.h>

struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static int cmd_version(int argc, char **argv)
{
	unsigned int major, minor;
	int err;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: posixtrace version\n"
		       "Print the ABI version of the loaded posixtrace module.\n");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "posixtrace version: takes no arguments\n");
		return 2;
	}
	err = posixtrace_k_abi_version(&major, &minor);
	if (err) {
		fprintf(stderr, "posixtrace: /dev/posixtrace: %s%s\n", strerror(err),
			err == 2 ? " (is posixtrace.ko loaded?)" : "");
		return 1;
	}
	printf("posixtrace module ABI %u.%u\n", major, minor);
	return 0;
}

static const struct command commands[] = {
	{ "version", "print the loaded module's ABI version", cmd_version },
};

static int usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: posixtrace COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'posixtrace COMMAND --help' describes a command.\n");
	return out == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h"))
		return usage(stdout);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "posixtrace: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
