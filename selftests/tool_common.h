/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of the posixtrace command share: finding it (in
 * $POSIXTRACE_TOOL, then /bin/posixtrace, where the test guest puts it),
 * skipping without it, and reading back what it printed to a scratch file.
 */
#ifndef TOOL_COMMON_H
#define TOOL_COMMON_H

#include <stdlib.h>
#include <unistd.h>

#include "trc_common.h"

static inline const char *tool(void)
{
	const char *t = getenv("POSIXTRACE_TOOL");

	if (t && !access(t, X_OK))
		return t;
	return access("/bin/posixtrace", X_OK) ? NULL : "/bin/posixtrace";
}

#define SKIP_WITHOUT_TOOL() do {					\
	SKIP_WITHOUT_DEVICE();						\
	if (!tool())							\
		SKIP(return, "posixtrace command not found");		\
} while (0)

/* All of fd's contents from the start, as a string. */
static inline void slurp(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

#endif /* TOOL_COMMON_H */
