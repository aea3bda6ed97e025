/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The grammar of event formats (<linux/posixtrace.h>, "Event formats"),
 * parsed in user space: the library checks a log's formats with it
 * (format.c), and the posixtrace tools parse them into fields with it
 * (tools/fields.c), so that the two never disagree on what is well
 * formed. The module keeps its own check in kernel C (kmod/format.c).
 * Header-only: the tools include it by path, not through the library's
 * ABI.
 */
#ifndef _POSIXTRACE_K_FORMAT_GRAMMAR_H
#define _POSIXTRACE_K_FORMAT_GRAMMAR_H

#include <stdbool.h>
#include <string.h>

#include <linux/posixtrace.h>

enum ptk_field_type {
	PTK_FIELD_U8, PTK_FIELD_U16, PTK_FIELD_U32, PTK_FIELD_U64,
	PTK_FIELD_S8, PTK_FIELD_S16, PTK_FIELD_S32, PTK_FIELD_S64,
	PTK_FIELD_F32, PTK_FIELD_F64,
	PTK_FIELD_STR,		/* text and its NUL */
	PTK_FIELD_BYTES,	/* the rest, last only */
	PTK_FIELD_TYPES
};

/* The types' names in a format, by enum ptk_field_type. */
static const char *const ptk_field_type_names[PTK_FIELD_TYPES] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"f32", "f64", "str", "bytes",
};

struct ptk_field {
	char name[POSIXTRACE_FORMAT_FIELD_NAME_MAX + 1];
	enum ptk_field_type type;
};

struct ptk_format {
	unsigned int nfields;
	struct ptk_field fields[POSIXTRACE_FORMAT_FIELDS_MAX];
};

static inline bool ptk_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool ptk_ident_char(char c)
{
	return ptk_ident_start(c) || (c >= '0' && c <= '9');
}

/*
 * Parses text into fmt: 1 to POSIXTRACE_FORMAT_FIELDS_MAX "name:type"
 * separated by commas, at most POSIXTRACE_FORMAT_MAX characters, names C
 * identifiers (ASCII) of at most POSIXTRACE_FORMAT_FIELD_NAME_MAX
 * characters and distinct, "bytes" last only. False if it is not.
 */
static inline bool ptk_format_parse(const char *text, struct ptk_format *fmt)
{
	const char *p = text, *type;
	size_t len, tlen;
	unsigned int i, t;

	memset(fmt, 0, sizeof(*fmt));
	if (strnlen(text, POSIXTRACE_FORMAT_MAX + 1) > POSIXTRACE_FORMAT_MAX)
		return false;
	do {
		if (fmt->nfields == POSIXTRACE_FORMAT_FIELDS_MAX ||
		    (fmt->nfields &&
		     fmt->fields[fmt->nfields - 1].type == PTK_FIELD_BYTES))
			return false;
		for (len = 0; len ? ptk_ident_char(p[len]) :
				    ptk_ident_start(p[0]);
		     len++)
			;
		if (!len || len > POSIXTRACE_FORMAT_FIELD_NAME_MAX ||
		    p[len] != ':')
			return false;
		for (i = 0; i < fmt->nfields; i++)
			if (strlen(fmt->fields[i].name) == len &&
			    !memcmp(fmt->fields[i].name, p, len))
				return false;
		memcpy(fmt->fields[fmt->nfields].name, p, len);
		type = p + len + 1;
		tlen = strcspn(type, ",");
		for (t = 0; t < PTK_FIELD_TYPES; t++)
			if (strlen(ptk_field_type_names[t]) == tlen &&
			    !memcmp(ptk_field_type_names[t], type, tlen))
				break;
		if (t == PTK_FIELD_TYPES)
			return false;
		fmt->fields[fmt->nfields++].type = (enum ptk_field_type)t;
		p = type + tlen;
	} while (*p++ == ',');
	return true;
}

#endif /* _POSIXTRACE_K_FORMAT_GRAMMAR_H */
