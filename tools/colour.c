// SPDX-License-Identifier: GPL-2.0
/*
 * Colour on a terminal only (see colour.h).
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colour.h"

int colour_parse(const char *text, enum colour_when *when)
{
	if (!strcmp(text, "auto"))
		*when = COLOUR_AUTO;
	else if (!strcmp(text, "always"))
		*when = COLOUR_ALWAYS;
	else if (!strcmp(text, "never"))
		*when = COLOUR_NEVER;
	else
		return -1;
	return 0;
}

bool colour_on(enum colour_when when, int fd)
{
	const char *no_colour = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (when != COLOUR_AUTO)
		return when == COLOUR_ALWAYS;
	if (no_colour && *no_colour)
		return false;
	return isatty(fd) && term && *term && strcmp(term, "dumb");
}
