// SPDX-License-Identifier: GPL-2.0
/*
 * Event formats: the grammar the uapi header gives ("Event formats"),
 * checked before a format joins a name table, so that every format a
 * stream or a log carries is well formed. The kernel never reads event
 * data by it: only tools do.
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/posixtrace.h>
#include <linux/string.h>

#include "format.h"

static const char *const posixtrace_format_types[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"f32", "f64", "str", "bytes",
};

/* Is @type (@len characters) a type, and is it "bytes"? */
static bool posixtrace_format_type(const char *type, size_t len, bool *rest)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(posixtrace_format_types); i++) {
		if (strlen(posixtrace_format_types[i]) == len &&
		    !memcmp(posixtrace_format_types[i], type, len)) {
			*rest = !strcmp(posixtrace_format_types[i], "bytes");
			return true;
		}
	}
	return false;
}

/*
 * ASCII only: the kernel's isalpha() takes Latin-1 letters too, which no
 * C identifier (and no reader of ours) has.
 */
static bool posixtrace_format_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool posixtrace_format_ident_char(char c)
{
	return posixtrace_format_ident_start(c) || (c >= '0' && c <= '9');
}

/* The length of the C identifier at @s, 0 if there is none. */
static size_t posixtrace_format_ident(const char *s)
{
	size_t len = 1;

	if (!posixtrace_format_ident_start(s[0]))
		return 0;
	while (posixtrace_format_ident_char(s[len]))
		len++;
	return len;
}

/**
 * posixtrace_format_check - is @format well formed?
 * @format: NUL-terminated, at most POSIXTRACE_FORMAT_MAX characters
 *
 * Return: 0 or -EINVAL.
 */
int posixtrace_format_check(const char *format)
{
	const char *names[POSIXTRACE_FORMAT_FIELDS_MAX];
	size_t lens[POSIXTRACE_FORMAT_FIELDS_MAX];
	const char *p = format, *type;
	unsigned int n = 0, i;
	bool rest = false;
	size_t len;

	do {
		/* "bytes" takes every byte left: nothing may follow it. */
		if (rest || n == POSIXTRACE_FORMAT_FIELDS_MAX)
			return -EINVAL;
		len = posixtrace_format_ident(p);
		if (!len || len > POSIXTRACE_FORMAT_FIELD_NAME_MAX ||
		    p[len] != ':')
			return -EINVAL;
		for (i = 0; i < n; i++)
			if (lens[i] == len && !memcmp(names[i], p, len))
				return -EINVAL;
		names[n] = p;
		lens[n++] = len;
		type = p + len + 1;
		p = type + strcspn(type, ",");
		if (!posixtrace_format_type(type, p - type, &rest))
			return -EINVAL;
	} while (*p++ == ',');
	return 0;
}
