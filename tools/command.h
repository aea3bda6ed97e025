/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The subcommands of posixtrace. Each takes the arguments after the
 * program name (argv[0] is the subcommand's name) and returns the exit
 * status: 0 done, 1 failed, 2 bad usage.
 */
#ifndef POSIXTRACE_TOOL_COMMAND_H
#define POSIXTRACE_TOOL_COMMAND_H

#include <stdbool.h>

#define EXIT_USAGE	2

int cmd_record(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_monitor(int argc, char **argv);

/* True if argv[i] is -h or --help. */
bool is_help(const char *arg);

#endif /* POSIXTRACE_TOOL_COMMAND_H */
