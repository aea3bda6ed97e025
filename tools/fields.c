// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "json.h"

static const struct {
	const char *name;
	unsigned int bits;
	bool is_signed, is_float;
} field_types[] = {
	[FIELD_U8] = { "u8", 8, false, false },
	[FIELD_U16] = { "u16", 16, false, false },
	[FIELD_U32] = { "u32", 32, false, false },
	[FIELD_U64] = { "u64", 64, false, false },
	[FIELD_S8] = { "s8", 8, true, false },
	[FIELD_S16] = { "s16", 16, true, false },
	[FIELD_S32] = { "s32", 32, true, false },
	[FIELD_S64] = { "s64", 64, true, false },
	[FIELD_F32] = { "f32", 32, true, true },
	[FIELD_F64] = { "f64", 64, true, true },
	[FIELD_STR] = { "str", 0, false, false },
	[FIELD_BYTES] = { "bytes", 0, false, false },
};

#define NTYPES	(sizeof(field_types) / sizeof(field_types[0]))

const char *field_type_name(enum field_type type)
{
	return field_types[type].name;
}

unsigned int field_type_bits(enum field_type type)
{
	return field_types[type].bits;
}

bool field_type_signed(enum field_type type)
{
	return field_types[type].is_signed;
}

bool field_type_float(enum field_type type)
{
	return field_types[type].is_float;
}

static bool ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/* The grammar of <linux/posixtrace.h>, "Event formats". */
bool format_parse(const char *text, struct event_format *fmt)
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
		     fmt->fields[fmt->nfields - 1].type == FIELD_BYTES))
			return false;
		for (len = 0; len ? ident_char(p[len]) : ident_start(p[0]);
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
		for (t = 0; t < NTYPES; t++)
			if (strlen(field_types[t].name) == tlen &&
			    !memcmp(field_types[t].name, type, tlen))
				break;
		if (t == NTYPES)
			return false;
		fmt->fields[fmt->nfields++].type = (enum field_type)t;
		p = type + tlen;
	} while (*p++ == ',');
	return true;
}

/* n bytes, little-endian, as an unsigned number. */
static uint64_t get_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static void decode_number(struct field_value *fv, const unsigned char *p)
{
	unsigned int bits = field_type_bits(fv->field->type);
	uint64_t u = get_le(p, bits / 8);
	uint32_t u32;
	float f;

	switch (fv->field->type) {
	case FIELD_F32:
		u32 = (uint32_t)u;
		memcpy(&f, &u32, sizeof(f));
		fv->v.f = f;
		break;
	case FIELD_F64:
		memcpy(&fv->v.f, &u, sizeof(u));
		break;
	default:
		if (field_type_signed(fv->field->type) && bits < 64 &&
		    (u >> (bits - 1)) & 1)
			u |= ~UINT64_C(0) << bits;
		fv->v.u = u;
		break;
	}
}

bool fields_decode(const struct event_format *fmt, const unsigned char *data,
		   size_t len, struct field_value *vals, const char **why,
		   const char **field)
{
	const unsigned char *nul;
	size_t off = 0, size;
	unsigned int i;

	for (i = 0; i < fmt->nfields; i++) {
		struct field_value *fv = &vals[i];

		memset(fv, 0, sizeof(*fv));
		fv->field = &fmt->fields[i];
		*field = fv->field->name;
		switch (fv->field->type) {
		case FIELD_STR:
			nul = memchr(data + off, 0, len - off);
			if (!nul) {
				*why = "no NUL ends str field";
				return false;
			}
			fv->p = data + off;
			fv->len = (size_t)(nul - (data + off));
			off += fv->len + 1;
			break;
		case FIELD_BYTES:
			fv->p = data + off;
			fv->len = len - off;
			off = len;
			break;
		default:
			size = field_type_bits(fv->field->type) / 8;
			if (len - off < size) {
				*why = "data ends inside field";
				return false;
			}
			decode_number(fv, data + off);
			off += size;
			break;
		}
	}
	if (off != len) {
		*field = NULL;
		*why = "bytes left after the last field";
		return false;
	}
	return true;
}

/*
 * The fewest digits that read back as the same value: 12.5, not
 * 12.500000000000000; a float (f32) needs at most 9, a double 17.
 */
static void print_float(FILE *out, double v, bool single)
{
	char buf[40];
	int digits;

	for (digits = single ? 6 : 15; digits < (single ? 9 : 17); digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (single ? strtof(buf, NULL) == (float)v :
			     strtod(buf, NULL) == v)
			break;
	}
	fprintf(out, "%.*g", digits, v);
}

static void print_number(FILE *out, const struct field_value *fv)
{
	if (field_type_float(fv->field->type))
		print_float(out, fv->v.f, fv->field->type == FIELD_F32);
	else if (field_type_signed(fv->field->type))
		fprintf(out, "%jd", (intmax_t)fv->v.s);
	else
		fprintf(out, "%ju", (uintmax_t)fv->v.u);
}

static void print_string(FILE *out, const unsigned char *p, size_t n)
{
	size_t i;

	putc('"', out);
	for (i = 0; i < n; i++) {
		switch (p[i]) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (p[i] >= 0x20 && p[i] < 0x7f)
				putc(p[i], out);
			else
				fprintf(out, "\\x%02x", p[i]);
		}
	}
	putc('"', out);
}

void fields_print_text(FILE *out, const struct field_value *vals,
		       unsigned int n, size_t max_bytes)
{
	const struct field_value *fv;
	unsigned int i;
	size_t j;

	putc('{', out);
	for (i = 0; i < n; i++) {
		fv = &vals[i];
		fprintf(out, "%s%s=", i ? ", " : "", fv->field->name);
		if (fv->field->type == FIELD_STR) {
			print_string(out, fv->p, fv->len);
		} else if (fv->field->type == FIELD_BYTES) {
			for (j = 0; j < fv->len && j < max_bytes; j++)
				fprintf(out, "%02x", fv->p[j]);
			if (j < fv->len)
				fputs("...", out);
		} else {
			print_number(out, fv);
		}
	}
	putc('}', out);
}

void fields_print_json(FILE *out, const struct field_value *vals,
		       unsigned int n)
{
	const struct field_value *fv;
	unsigned int i;
	size_t j;

	putc('{', out);
	for (i = 0; i < n; i++) {
		fv = &vals[i];
		fprintf(out, "%s\"%s\": ", i ? ", " : "", fv->field->name);
		switch (fv->field->type) {
		case FIELD_STR:
			json_string_n(out, fv->p, fv->len);
			break;
		case FIELD_BYTES:
			putc('"', out);
			for (j = 0; j < fv->len; j++)
				fprintf(out, "%02x", fv->p[j]);
			putc('"', out);
			break;
		case FIELD_U64:
			fprintf(out, "\"%ju\"", (uintmax_t)fv->v.u);
			break;
		case FIELD_S64:
			fprintf(out, "\"%jd\"", (intmax_t)fv->v.s);
			break;
		case FIELD_F32:
		case FIELD_F64:
			if (isnan(fv->v.f))
				fputs("\"nan\"", out);
			else if (isinf(fv->v.f))
				fputs(fv->v.f < 0 ? "\"-inf\"" : "\"inf\"",
				      out);
			else
				print_number(out, fv);
			break;
		default:
			print_number(out, fv);
			break;
		}
	}
	putc('}', out);
}
