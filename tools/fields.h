/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event formats (<posixtrace-k.h>, posixtrace_k_eventid_open_format()):
 * parsing one into fields, and decoding an event's data by it. A format
 * read from a log is untrusted: the library checked it, and the tools
 * parse it again, with the parser the module and the library share
 * (lib/format_grammar.h), rather than rely on that. Data is never
 * trusted either: fields_decode() says why data does not match.
 */
#ifndef POSIXTRACE_TOOL_FIELDS_H
#define POSIXTRACE_TOOL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/posixtrace.h>

/* The grammar and its types (struct posixtrace_format), in the library. */
#include "../lib/format_grammar.h"

/* One field of one event. */
struct field_value {
	const struct posixtrace_field *field;
	union {
		uint64_t u;
		int64_t s;
		double f;
	} v;
	const unsigned char *p;	/* str (without its NUL), bytes */
	size_t len;
};

/* The type's name in a format: "u8", ..., "bytes". */
const char *field_type_name(enum posixtrace_field_type type);
/* Its size in bits for integers and floats, 0 for str and bytes. */
unsigned int field_type_bits(enum posixtrace_field_type type);
bool field_type_signed(enum posixtrace_field_type type);
bool field_type_float(enum posixtrace_field_type type);

/*
 * Decodes len bytes of data (little-endian, packed) into
 * vals[fmt->nfields]. False if they do not match the format, with why
 * (a static string, "... %s ..." naming the field in field).
 */
bool fields_decode(const struct posixtrace_format *fmt,
		   const unsigned char *data, size_t len,
		   struct field_value *vals, const char **why,
		   const char **field);

/*
 * "{a=1, b=2.5, s="text"}" for dump's text: strings quoted, with \" \\
 * \t \n \r and \xNN for every other byte that is not printable ASCII;
 * bytes in hex, the first max_bytes of them (then "...").
 */
void fields_print_text(FILE *out, const struct field_value *vals,
		       unsigned int n, size_t max_bytes);

/* One str field's bytes as fields_print_text() quotes them. */
void fields_print_string(FILE *out, const unsigned char *p, size_t n);

/*
 * A JSON object of the fields: integers up to 32 bits and floats as
 * numbers, 64-bit integers as decimal strings (a double holds 53 bits),
 * floats that are not finite as "nan", "inf", "-inf", str as strings,
 * bytes as hex strings.
 */
void fields_print_json(FILE *out, const struct field_value *vals,
		       unsigned int n);

#endif /* POSIXTRACE_TOOL_FIELDS_H */
