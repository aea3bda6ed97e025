// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <trace.h>

#include "json.h"
#include "text.h"

/*
 * The length of the valid UTF-8 sequence at p (RFC 3629), of which left
 * bytes are there, 0 if none.
 */
static int utf8_length(const unsigned char *p, size_t left)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (left < (size_t)n)
		return 0;
	/* No overlong forms, surrogates, or code points above U+10FFFF. */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

void json_string_n(FILE *out, const void *s, size_t len)
{
	const unsigned char *p = s, *end = p + len;
	int n;

	putc('"', out);
	while (p < end) {
		switch (*p) {
		case '"': fputs("\\\"", out); p++; continue;
		case '\\': fputs("\\\\", out); p++; continue;
		case '\b': fputs("\\b", out); p++; continue;
		case '\f': fputs("\\f", out); p++; continue;
		case '\n': fputs("\\n", out); p++; continue;
		case '\r': fputs("\\r", out); p++; continue;
		case '\t': fputs("\\t", out); p++; continue;
		}
		if (*p < 0x20) {
			fprintf(out, "\\u%04x", *p++);
			continue;
		}
		n = utf8_length(p, (size_t)(end - p));
		if (!n) {
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		fwrite(p, 1, (size_t)n, out);
		p += n;
	}
	putc('"', out);
}

void json_string(FILE *out, const char *s)
{
	json_string_n(out, s, strlen(s));
}

/* A <trace.h> constant by name: a string in every case, for scripts. */
static void json_constant(FILE *out, const char *key, int value)
{
	char buf[16];

	fprintf(out, ", \"%s\": ", key);
	json_string(out, policy_text(value, buf, sizeof(buf)));
}

void json_stream_members(FILE *out, const struct ptnl_stream *s)
{
	char buf[16];
	size_t i;

	fprintf(out, "\"stream_id\": %" PRIu64, s->id);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_NAME)) {
		fputs(", \"name\": ", out);
		json_string(out, s->name);
	}
	if (PTNL_HAS(s, POSIXTRACE_NL_A_CREATOR_PID))
		fprintf(out, ", \"creator_pid\": %" PRIu32, s->creator_pid);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_CREATOR_UID))
		fprintf(out, ", \"creator_uid\": %" PRIu32, s->creator_uid);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_TRACED)) {
		fputs(", \"traced\": [", out);
		for (i = 0; i < s->ntraced; i++)
			fprintf(out, "%s%" PRIu32, i ? ", " : "", s->traced[i]);
		fputs("]", out);
	}
	if (PTNL_HAS(s, POSIXTRACE_NL_A_TRACED_COUNT))
		fprintf(out, ", \"traced_count\": %" PRIu32, s->traced_count);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_STATE)) {
		fputs(", \"state\": ", out);
		json_string(out, ptnl_state_text(s->state, buf, sizeof(buf)));
	}
	if (PTNL_HAS(s, POSIXTRACE_NL_A_FULL_POLICY))
		json_constant(out, "full_policy", (int)s->full_policy);
	/* null, not missing, for a stream without a log. */
	if (PTNL_HAS(s, POSIXTRACE_NL_A_LOG_POLICY))
		json_constant(out, "log_policy", (int)s->log_policy);
	else
		fputs(", \"log_policy\": null", out);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_INHERITANCE))
		json_constant(out, "inheritance", (int)s->inheritance);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_STREAM_SIZE))
		fprintf(out, ", \"stream_size\": %" PRIu64, s->stream_size);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_BYTES_USED))
		fprintf(out, ", \"bytes_used\": %" PRIu64, s->bytes_used);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_EVENTS_RECORDED))
		fprintf(out, ", \"events_recorded\": %" PRIu64,
			s->events_recorded);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_EVENTS_LOST))
		fprintf(out, ", \"events_lost\": %" PRIu64, s->events_lost);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_EVENTS_READ))
		fprintf(out, ", \"events_read\": %" PRIu64, s->events_read);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED))
		fprintf(out, ", \"log_events_discarded\": %" PRIu64,
			s->log_events_discarded);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_OVERRUN_STATUS)) {
		/* policy_text() leaves 0 to us: it is NO_OVERRUN here. */
		fputs(", \"overrun_status\": ", out);
		json_string(out, s->overrun_status == POSIX_TRACE_NO_OVERRUN ?
			    "NO_OVERRUN" : policy_text((int)s->overrun_status,
						       buf, sizeof(buf)));
	}
	if (PTNL_HAS(s, POSIXTRACE_NL_A_FULL_STATUS))
		json_constant(out, "full_status", (int)s->full_status);
	fputs(", \"log_path\": ", out);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_LOG_PATH))
		json_string(out, s->log_path);
	else
		fputs("null", out);
	if (PTNL_HAS(s, POSIXTRACE_NL_A_CREATE_TIME))
		fprintf(out, ", \"create_time\": %" PRIu64, s->create_time);
}
