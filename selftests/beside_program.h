/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files a target puts beside a test program to change what it does (make
 * fault's fault-sites.tab and fault-load-full, make fuzz's fuzz-calls and
 * unload-cycles): where to find them.
 */
#ifndef BESIDE_PROGRAM_H
#define BESIDE_PROGRAM_H

#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/*
 * The path of the file @name beside this program, into @path. False if
 * this program's own path is unknown.
 */
static inline bool beside_program(char *path, size_t size, const char *name)
{
	size_t room = strlen(name) + 1;
	ssize_t len = readlink("/proc/self/exe", path, size - room);

	if (len <= 0)
		return false;
	path[len] = '\0';
	strcpy(strrchr(path, '/') + 1, name);
	return true;
}

#endif /* BESIDE_PROGRAM_H */
