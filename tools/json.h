/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output of "posixtrace list --json", "posixtrace monitor --json" and
 * "posixtrace dump --json": strings escaped per RFC 8259, streams as
 * objects.
 */
#ifndef POSIXTRACE_TOOL_JSON_H
#define POSIXTRACE_TOOL_JSON_H

#include <stdio.h>

#include "nl.h"

/*
 * s as a JSON string, quotes included. '"', '\\' and control characters
 * are escaped; valid UTF-8 is copied; every byte that is not part of valid
 * UTF-8 becomes U+FFFD, since JSON text is Unicode.
 */
void json_string(FILE *out, const char *s);

/* The same for len bytes, NULs included (as \u0000). */
void json_string_n(FILE *out, const void *s, size_t len);

/*
 * The stream's attributes as "key": value members, comma-separated, with
 * no braces, for the caller to put in an object: the attribute names of
 * <linux/posixtrace_netlink.h> in lower case, numbers as numbers, the
 * <trace.h> constants as their names without POSIX_TRACE_.
 */
void json_stream_members(FILE *out, const struct ptnl_stream *s);

#endif /* POSIXTRACE_TOOL_JSON_H */
