// SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later
/*
 * The grammar of event formats: see format_grammar.h. Compiled into the
 * module (kmod/format.c includes this file) and the library, which the
 * tools link.
 */

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "format_grammar.h"

const char *const posixtrace_field_type_names[POSIXTRACE_FIELD_TYPES] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"f32", "f64", "str", "bytes",
};

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

/* The type the @len characters at @s name; POSIXTRACE_FIELD_TYPES: none. */
static enum posixtrace_field_type posixtrace_format_type(const char *s,
							 size_t len)
{
	unsigned int t;

	for (t = 0; t < POSIXTRACE_FIELD_TYPES; t++)
		if (strlen(posixtrace_field_type_names[t]) == len &&
		    !memcmp(posixtrace_field_type_names[t], s, len))
			break;
	return (enum posixtrace_field_type)t;
}

/**
 * posixtrace_format_parse - is @text a well-formed format? If so, its fields
 * @text: NUL-terminated
 * @fmt: filled in with the fields, in order
 *
 * A format is 1 to POSIXTRACE_FORMAT_FIELDS_MAX "name:type" separated by
 * commas, at most POSIXTRACE_FORMAT_MAX characters; the names are C
 * identifiers (ASCII) of at most POSIXTRACE_FORMAT_FIELD_NAME_MAX
 * characters, all distinct; "bytes" takes every byte left, so it comes
 * last if at all.
 *
 * Return: true if it is well formed.
 */
bool posixtrace_format_parse(const char *text, struct posixtrace_format *fmt)
{
	struct posixtrace_field *f;
	const char *p = text, *type;
	size_t len, tlen;
	unsigned int i;

	memset(fmt, 0, sizeof(*fmt));
	if (strnlen(text, POSIXTRACE_FORMAT_MAX + 1) > POSIXTRACE_FORMAT_MAX)
		return false;
	do {
		if (fmt->nfields == POSIXTRACE_FORMAT_FIELDS_MAX ||
		    (fmt->nfields &&
		     fmt->fields[fmt->nfields - 1].type ==
		     POSIXTRACE_FIELD_BYTES))
			return false;
		len = posixtrace_format_ident(p);
		if (!len || len > POSIXTRACE_FORMAT_FIELD_NAME_MAX ||
		    p[len] != ':')
			return false;
		for (i = 0; i < fmt->nfields; i++)
			if (strlen(fmt->fields[i].name) == len &&
			    !memcmp(fmt->fields[i].name, p, len))
				return false;
		f = &fmt->fields[fmt->nfields];
		memcpy(f->name, p, len);
		type = p + len + 1;
		tlen = strcspn(type, ",");
		f->type = posixtrace_format_type(type, tlen);
		if (f->type == POSIXTRACE_FIELD_TYPES)
			return false;
		fmt->nfields++;
		p = type + tlen;
	} while (*p++ == ',');
	return true;
}
