// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "json.h"

/* What the decoders need of a type besides its name. */
static const struct {
	unsigned int bits;
	bool is_signed, is_float;
} field_types[POSIXTRACE_FIELD_TYPES] = {
	[POSIXTRACE_FIELD_U8] = { 8, false, false },
	[POSIXTRACE_FIELD_U16] = { 16, false, false },
	[POSIXTRACE_FIELD_U32] = { 32, false, false },
	[POSIXTRACE_FIELD_U64] = { 64, false, false },
	[POSIXTRACE_FIELD_S8] = { 8, true, false },
	[POSIXTRACE_FIELD_S16] = { 16, true, false },
	[POSIXTRACE_FIELD_S32] = { 32, true, false },
	[POSIXTRACE_FIELD_S64] = { 64, true, false },
	[POSIXTRACE_FIELD_F32] = { 32, true, true },
	[POSIXTRACE_FIELD_F64] = { 64, true, true },
	[POSIXTRACE_FIELD_STR] = { 0, false, false },
	[POSIXTRACE_FIELD_BYTES] = { 0, false, false },
};

const char *field_type_name(enum posixtrace_field_type type)
{
	return posixtrace_field_type_names[type];
}

unsigned int field_type_bits(enum posixtrace_field_type type)
{
	return field_types[type].bits;
}

bool field_type_signed(enum posixtrace_field_type type)
{
	return field_types[type].is_signed;
}

bool field_type_float(enum posixtrace_field_type type)
{
	return field_types[type].is_float;
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
	case POSIXTRACE_FIELD_F32:
		u32 = (uint32_t)u;
		memcpy(&f, &u32, sizeof(f));
		fv->v.f = f;
		break;
	case POSIXTRACE_FIELD_F64:
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

bool fields_decode(const struct posixtrace_format *fmt,
		   const unsigned char *data, size_t len,
		   struct field_value *vals, const char **why,
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
		case POSIXTRACE_FIELD_STR:
			nul = memchr(data + off, 0, len - off);
			if (!nul) {
				*why = "no NUL ends str field";
				return false;
			}
			fv->p = data + off;
			fv->len = (size_t)(nul - (data + off));
			off += fv->len + 1;
			break;
		case POSIXTRACE_FIELD_BYTES:
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
		print_float(out, fv->v.f,
			    fv->field->type == POSIXTRACE_FIELD_F32);
	else if (field_type_signed(fv->field->type))
		fprintf(out, "%jd", (intmax_t)fv->v.s);
	else
		fprintf(out, "%ju", (uintmax_t)fv->v.u);
}

void fields_print_string(FILE *out, const unsigned char *p, size_t n)
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
		if (fv->field->type == POSIXTRACE_FIELD_STR) {
			fields_print_string(out, fv->p, fv->len);
		} else if (fv->field->type == POSIXTRACE_FIELD_BYTES) {
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
		case POSIXTRACE_FIELD_STR:
			json_string_n(out, fv->p, fv->len);
			break;
		case POSIXTRACE_FIELD_BYTES:
			putc('"', out);
			for (j = 0; j < fv->len; j++)
				fprintf(out, "%02x", fv->p[j]);
			putc('"', out);
			break;
		case POSIXTRACE_FIELD_U64:
			fprintf(out, "\"%ju\"", (uintmax_t)fv->v.u);
			break;
		case POSIXTRACE_FIELD_S64:
			fprintf(out, "\"%jd\"", (intmax_t)fv->v.s);
			break;
		case POSIXTRACE_FIELD_F32:
		case POSIXTRACE_FIELD_F64:
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
