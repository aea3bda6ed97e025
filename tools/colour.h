/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Colour on a terminal only: the choice of --color=WHEN (auto, always or
 * never), and the few SGR sequences the subcommands use. "auto" colours
 * when the output is a terminal that is not "dumb" and NO_COLOR is unset
 * or empty (https://no-color.org); "always" and "never" say so, whatever
 * the environment.
 */
#ifndef POSIXTRACE_TOOL_COLOUR_H
#define POSIXTRACE_TOOL_COLOUR_H

#include <stdbool.h>

enum colour_when { COLOUR_AUTO, COLOUR_ALWAYS, COLOUR_NEVER };

/* "auto", "always" or "never"; -1 for anything else. */
int colour_parse(const char *text, enum colour_when *when);

/* Whether output to descriptor fd is coloured. */
bool colour_on(enum colour_when when, int fd);

#define SGR_BOLD	"\033[1m"
#define SGR_RED		"\033[31m"
#define SGR_GREEN	"\033[32m"
#define SGR_YELLOW	"\033[33m"
#define SGR_RESET	"\033[0m"

#endif /* POSIXTRACE_TOOL_COLOUR_H */
