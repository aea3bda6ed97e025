/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a command's one output file (export --format=chrome's JSON,
 * view's page) without ever leaving half of one where a whole one was.
 */
#ifndef POSIXTRACE_TOOL_OUTPUT_H
#define POSIXTRACE_TOOL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Calls @fill(fp, @arg) to write @path ("-": standard output), then
 * flushes and closes it. A file that is not a regular one (a FIFO,
 * /dev/stdout) is written as it is. A regular file (the one a symbolic
 * link names, for a link) is written beside it, with the old file's mode,
 * and renamed into place once whole; it must not exist unless @force
 * (EEXIST). Returns @fill's error, else the first of writing's, else 0.
 */
int write_output(const char *path, bool force,
		 int (*fill)(FILE *fp, void *arg), void *arg);

#endif /* POSIXTRACE_TOOL_OUTPUT_H */
