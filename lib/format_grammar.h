/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * The grammar of event formats (<linux/posixtrace.h>, "Event formats"),
 * written once: the module checks a format with it before a name table
 * takes it (kmod/format.c), the library checks a log's formats with it
 * (ulib/format.c), and the tools, linking the library, parse formats into
 * fields with it (tools/logread.c), so that none of them disagrees with
 * another on what is well formed. lib/format_grammar.c needs nothing but
 * a few string functions, which the kernel and the C library (with
 * _GNU_SOURCE or POSIX 2008, for strnlen()) both have.
 */
#ifndef _POSIXTRACE_FORMAT_GRAMMAR_H
#define _POSIXTRACE_FORMAT_GRAMMAR_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

#include <linux/posixtrace.h>

enum posixtrace_field_type {
	POSIXTRACE_FIELD_U8, POSIXTRACE_FIELD_U16, POSIXTRACE_FIELD_U32,
	POSIXTRACE_FIELD_U64, POSIXTRACE_FIELD_S8, POSIXTRACE_FIELD_S16,
	POSIXTRACE_FIELD_S32, POSIXTRACE_FIELD_S64, POSIXTRACE_FIELD_F32,
	POSIXTRACE_FIELD_F64,
	POSIXTRACE_FIELD_STR,		/* text and its NUL */
	POSIXTRACE_FIELD_BYTES,		/* the rest, last only */
	POSIXTRACE_FIELD_TYPES
};

/* The types' names in a format, by enum posixtrace_field_type. */
extern const char *const posixtrace_field_type_names[POSIXTRACE_FIELD_TYPES];

struct posixtrace_field {
	char name[POSIXTRACE_FORMAT_FIELD_NAME_MAX + 1];
	enum posixtrace_field_type type;
};

struct posixtrace_format {
	unsigned int nfields;
	struct posixtrace_field fields[POSIXTRACE_FORMAT_FIELDS_MAX];
};

bool posixtrace_format_parse(const char *text, struct posixtrace_format *fmt);

#endif /* _POSIXTRACE_FORMAT_GRAMMAR_H */
