// SPDX-License-Identifier: GPL-2.0
/* The metadata of a CTF trace: TSDL text declaring ctf.h's layout. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctf.h"
#include "text.h"

/*
 * Everything but the per-trace values. Every integer is byte-aligned, so
 * no field is padded; ctf_stream.c writes them in this order.
 */
static const char tsdl_types[] =
"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
"typealias integer { size = 8; align = 8; signed = false; base = 16; }"
" := uint8_hex_t;\n"
"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
"typealias integer { size = 64; align = 8; signed = false; base = 16; }"
" := uint64_hex_t;\n"
"\n";

static const char tsdl_trace_fields[] =
"\tpacket.header := struct {\n"
"\t\tuint32_t magic;\n"
"\t\tuint8_t uuid[16];\n"
"\t\tuint32_t stream_id;\n"
"\t};\n";

static const char tsdl_stream[] =
"typealias integer { size = 64; align = 8; signed = false;"
" map = clock.realtime.value; } := uint64_clock_t;\n"
"\n"
"stream {\n"
"\tid = 0;\n"
"\tpacket.context := struct {\n"
"\t\tuint64_clock_t timestamp_begin;\n"
"\t\tuint64_clock_t timestamp_end;\n"
"\t\tuint64_t content_size;\n"
"\t\tuint64_t packet_size;\n"
"\t\tuint64_t packet_seq_num;\n"
"\t\tuint64_t events_discarded;\n"
"\t};\n"
"\tevent.header := struct {\n"
"\t\tuint32_t id;\n"
"\t\tuint64_clock_t timestamp;\n"
"\t};\n"
"\tevent.context := struct {\n"
"\t\tint32_t pid;\n"
"\t\tint32_t tid;\n"
"\t\tuint64_hex_t thread;\n"
"\t\tuint64_t seq;\n"
"\t};\n"
"};\n"
"\n"
"typealias struct {\n"
"\tenum : int32_t {\n"
"\t\tNOT_TRUNCATED = 0,\n"
"\t\tTRUNCATED_RECORD = 1,\n"
"\t\tTRUNCATED_READ = 2,\n"
"\t} truncation;\n"
"\tuint64_hex_t prog_address;\n"
"\tuint32_t data_len;\n"
"\tuint8_hex_t data[data_len];\n"
"} := posixtrace_payload;\n";

static void print_uuid(FILE *f, const uint8_t u[16])
{
	fprintf(f, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		"%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5],
		u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		u[15]);
}

/*
 * The trace's name: the stream's, else the log file's name without a
 * .ptlog or .ptl suffix; escape_text()'s spelling, at most NAME_MAX bytes
 * of it.
 */
static void trace_name(char out[ESCAPED_SIZE(NAME_MAX)],
		       const struct log_reader *lr)
{
	char name[NAME_MAX + 1] = "";
	const char *base;
	size_t len;

	_Static_assert(NAME_MAX >= TRACE_NAME_MAX, "a trace name fits");

	posix_trace_attr_getname(&lr->attr, name);
	if (!name[0]) {
		base = strrchr(lr->path, '/');
		base = base ? base + 1 : lr->path;
		len = strnlen(base, NAME_MAX);
		if (len > 6 && !strncmp(base + len - 6, ".ptlog", 6))
			len -= 6;
		else if (len > 4 && !strncmp(base + len - 4, ".ptl", 4))
			len -= 4;
		memcpy(name, base, len);
		name[len] = '\0';
	}
	escape_text(out, name);
}

/*
 * The trace's environment: the log's attributes, for whoever reads the
 * trace, and the two entries readers name a trace by. babeltrace2 names
 * it after hostname (LTTng's convention), Trace Compass groups traces by
 * it: a log does not say on which machine it was written, so this is the
 * one that exported it, most often the same.
 */
static void print_env(FILE *f, const struct log_reader *lr)
{
	char gen[TRACE_NAME_MAX + 1] = "";
	char esc[ESCAPED_SIZE(NAME_MAX)], time_text[TIME_TEXT_SIZE];
	char host[HOST_NAME_MAX + 1] = "";
	char b1[16], b2[16], b3[16];
	size_t stream_size = 0, max_data = 0, log_size = 0;
	int sfp = 0, lfp = 0, inh = 0;
	struct timespec ct = { 0, 0 };

	posix_trace_attr_getgenversion(&lr->attr, gen);
	posix_trace_attr_getcreatetime(&lr->attr, &ct);
	posix_trace_attr_getstreamsize(&lr->attr, &stream_size);
	posix_trace_attr_getmaxdatasize(&lr->attr, &max_data);
	posix_trace_attr_getlogsize(&lr->attr, &log_size);
	posix_trace_attr_getstreamfullpolicy(&lr->attr, &sfp);
	posix_trace_attr_getlogfullpolicy(&lr->attr, &lfp);
	posix_trace_attr_getinherited(&lr->attr, &inh);

	fprintf(f, "env {\n\tdomain = \"posixtrace\";\n");
	fprintf(f, "\ttracer_name = \"posixtrace\";\n");
	/* "(none)": the kernel's until someone names the machine. */
	if (!gethostname(host, sizeof(host) - 1) && host[0] &&
	    strcmp(host, "(none)")) {
		escape_name(esc, host);
		fprintf(f, "\thostname = \"%s\";\n", esc);
	}
	trace_name(esc, lr);
	fprintf(f, "\ttrace_name = \"%s\";\n", esc);
	escape_text(esc, gen);
	fprintf(f, "\tgeneration = \"%s\";\n", esc);
	format_time(time_text, &ct);
	fprintf(f, "\tcreate_time = \"%s\";\n", time_text);
	fprintf(f, "\tstream_full_policy = \"%s\";\n",
		policy_text(sfp, b1, sizeof(b1)));
	fprintf(f, "\tlog_full_policy = \"%s\";\n",
		policy_text(lfp, b2, sizeof(b2)));
	fprintf(f, "\tinheritance = \"%s\";\n", policy_text(inh, b3,
							       sizeof(b3)));
	fprintf(f, "\tstream_size = %zu;\n\tmax_data_size = %zu;\n"
		"\tlog_size = %zu;\n};\n\n", stream_size, max_data, log_size);
}

static void print_clock(FILE *f, const struct log_reader *lr)
{
	struct timespec res = { 0, 1 };
	uint64_t precision;

	posix_trace_attr_getclockres(&lr->attr, &res);
	precision = (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
	fprintf(f, "clock {\n\tname = realtime;\n"
		"\tdescription = \"CLOCK_REALTIME of the traced system\";\n"
		"\tfreq = 1000000000;\n\tprecision = %" PRIu64 ";\n"
		"\toffset_s = 0;\n\toffset = 0;\n\tabsolute = true;\n};\n\n",
		precision ? precision : 1);
}

/* A field of a format as TSDL declares it, its name with a leading '_'. */
static void print_field(FILE *f, const struct posixtrace_field *fd)
{
	unsigned int bits = field_type_bits(fd->type);

	fputs("\t\t", f);
	switch (fd->type) {
	case POSIXTRACE_FIELD_STR:
		fprintf(f, "string _%s;\n", fd->name);
		return;
	case POSIXTRACE_FIELD_BYTES:
		fprintf(f, "uint8_hex_t _%s[event.context.rest_len];\n",
			fd->name);
		return;
	case POSIXTRACE_FIELD_F32:
	case POSIXTRACE_FIELD_F64:
		fprintf(f, "floating_point { exp_dig = %u; mant_dig = %u; "
			"align = 8; } _%s;\n", bits == 32 ? 8 : 11,
			bits == 32 ? 24 : 53, fd->name);
		return;
	default:
		fprintf(f, "integer { size = %u; align = 8; signed = %s; } "
			"_%s;\n", bits,
			field_type_signed(fd->type) ? "true" : "false",
			fd->name);
		return;
	}
}

/*
 * The typed event class of a type with a format (see ctf.h): what the
 * raw payload says of the event in its context, the fields as payload.
 */
static void print_typed_class(FILE *f, const struct log_type *t)
{
	const struct posixtrace_format *fmt = t->format;
	unsigned int i;

	fprintf(f, "\nevent {\n\tname = \"%s\";\n\tid = %" PRIu32 ";\n"
		"\tstream_id = 0;\n\tcontext := struct {\n"
		"\t\tenum : int32_t {\n\t\t\tNOT_TRUNCATED = 0,\n"
		"\t\t\tTRUNCATED_RECORD = 1,\n\t\t\tTRUNCATED_READ = 2,\n"
		"\t\t} truncation;\n\t\tuint64_hex_t prog_address;\n"
		"\t\tuint32_t data_len;\n", t->name, (uint32_t)t->id);
	if (fmt->fields[fmt->nfields - 1].type == POSIXTRACE_FIELD_BYTES)
		fputs("\t\tuint32_t rest_len;\n", f);
	fputs("\t};\n\tfields := struct {\n", f);
	for (i = 0; i < fmt->nfields; i++)
		print_field(f, &fmt->fields[i]);
	fputs("\t};\n};\n", f);
}

int ctf_metadata_write(int dirfd, const struct log_reader *lr,
		       const uint8_t uuid[16])
{
	size_t i;
	FILE *f;
	int fd, err = 0;

	fd = openat(dirfd, CTF_METADATA_FILE,
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return ENOMEM;
	}
	/* babeltrace2 refuses text metadata without this signature. */
	fputs("/* CTF 1.8 */\n\n", f);
	fputs(tsdl_types, f);
	fputs("trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"", f);
	print_uuid(f, uuid);
	fputs("\";\n\tbyte_order = le;\n", f);
	fputs(tsdl_trace_fields, f);
	fputs("};\n\n", f);
	print_env(f, lr);
	print_clock(f, lr);
	fputs(tsdl_stream, f);
	/*
	 * One event class per type the log lists or an event used, named
	 * as "posixtrace dump" names it: escape_name() leaves nothing a TSDL
	 * string would need to escape.
	 */
	for (i = 0; i < lr->ntypes; i++) {
		if (lr->types[i].format)
			print_typed_class(f, &lr->types[i]);
		fprintf(f, "\nevent {\n\tname = \"%s\";\n\tid = %" PRIu32 ";\n"
			"\tstream_id = 0;\n"
			"\tfields := posixtrace_payload;\n};\n",
			lr->types[i].name, lr->types[i].format ?
			CTF_RAW_ID(lr->types[i].id) : (uint32_t)lr->types[i].id);
	}
	if (ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	return err;
}
