/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands of posixtrace. Each takes the arguments after the
 * program name (argv[0] is the subcommand's name) and returns the exit
 * status: 0 done, 1 failed, 2 bad usage (and dump's 3: a damaged log).
 */
#ifndef POSIXTRACE_TOOL_COMMAND_H
#define POSIXTRACE_TOOL_COMMAND_H

#include <stdarg.h>
#include <stdbool.h>

#define EXIT_USAGE	2

int cmd_record(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_view(int argc, char **argv);

/* True if argv[i] is -h or --help. */
bool is_help(const char *arg);

/*
 * usage.c: a subcommand's help text starts "usage: posixtrace NAME ...".
 * usage_help() prints it (--help) and returns 0; usage_error() prints
 * "posixtrace NAME: " and the message (none if fmt is NULL, as when
 * getopt_long() said what was wrong), then a hint, and returns EXIT_USAGE.
 */
int usage_help(const char *usage);
int usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int vusage_error(const char *usage, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* POSIXTRACE_TOOL_COMMAND_H */
