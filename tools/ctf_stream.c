// SPDX-License-Identifier: GPL-2.0
/* The binary stream of a CTF trace: packets of events (see ctf.h). */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctf.h"

#define PACKET_HEADER_SIZE	24
#define PACKET_CONTEXT_SIZE	48
#define EVENT_FIXED_SIZE	(12 + 24 + 16)

static unsigned char *put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

static unsigned char *put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (unsigned char)(v >> (8 * i));
	return p;
}

/* FNV-1a, 64 bits, from a given basis: two bases make 128 bits. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * Two exports of the same log get the same UUID (and so the same bytes),
 * and logs of different streams get different ones: the name, the
 * creation time to the nanosecond and the sizes tell streams apart.
 */
void ctf_uuid(uint8_t uuid[16], const trace_attr_t *attr)
{
	char name[TRACE_NAME_MAX + 1] = "";
	unsigned char key[TRACE_NAME_MAX + 1 + 40], *p;
	size_t stream_size = 0, max_data = 0, log_size = 0;
	struct timespec ct = { 0, 0 };
	uint64_t h1, h2;

	posix_trace_attr_getname(attr, name);
	posix_trace_attr_getcreatetime(attr, &ct);
	posix_trace_attr_getstreamsize(attr, &stream_size);
	posix_trace_attr_getmaxdatasize(attr, &max_data);
	posix_trace_attr_getlogsize(attr, &log_size);
	memset(key, 0, sizeof(key));
	memcpy(key, name, strlen(name));
	p = key + sizeof(name);
	p = put_le64(p, (uint64_t)ct.tv_sec);
	p = put_le64(p, (uint64_t)ct.tv_nsec);
	p = put_le64(p, stream_size);
	p = put_le64(p, max_data);
	put_le64(p, log_size);
	h1 = fnv1a(0xcbf29ce484222325ull, key, sizeof(key));
	h2 = fnv1a(0x84222325cbf29ce4ull, key, sizeof(key));
	put_le64(put_le64(uuid, h1), h2);
	/* RFC 9562 version 8 (custom), variant 10. */
	uuid[6] = (uuid[6] & 0x0f) | 0x80;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

/*
 * Readers count nanoseconds from the epoch in an int64_t, and babeltrace2
 * refuses a stream whose times reach INT64_MAX. A time before 1970 or
 * after 2262-04-11T23:47:15.999999999Z, the last whole second that fits
 * (or with nanoseconds out of range, from a damaged log), becomes the
 * nearest time in that range, and ctf_time() says it did.
 */
#define CTF_SEC_MAX	((uint64_t)INT64_MAX / 1000000000u - 1)
#define CTF_TIME_MAX	(CTF_SEC_MAX * 1000000000u + 999999999u)

bool ctf_time(const struct timespec *ts, uint64_t *t)
{
	if (ts->tv_sec < 0) {
		*t = 0;
		return false;
	}
	if ((uint64_t)ts->tv_sec > CTF_SEC_MAX) {
		*t = CTF_TIME_MAX;
		return false;
	}
	*t = (uint64_t)ts->tv_sec * 1000000000u;
	if (ts->tv_nsec < 0)
		return false;
	if (ts->tv_nsec >= 1000000000) {
		*t += 999999999u;
		return false;
	}
	*t += (uint64_t)ts->tv_nsec;
	return true;
}

/*
 * CTF readers take a stream's timestamps as never decreasing (babeltrace2
 * stops with an error otherwise), but CLOCK_REALTIME can be set back while
 * tracing. Such an event gets the time of the one before it; the caller
 * says how many did (ctf_stream::clamped). So does an event whose time
 * CTF cannot carry (ctf_stream::out_of_range): the nearest time CTF can
 * carry would hold back every event after it.
 */
static uint64_t event_time(struct ctf_stream *cs, const struct timespec *ts)
{
	uint64_t t;

	if (!ctf_time(ts, &t)) {
		cs->out_of_range++;
		t = cs->last_ts;
	}
	if (t < cs->last_ts) {
		cs->clamped++;
		t = cs->last_ts;
	}
	cs->last_ts = t;
	return t;
}

int ctf_stream_open(struct ctf_stream *cs, int dirfd, const uint8_t uuid[16])
{
	int fd;

	memset(cs, 0, sizeof(*cs));
	memcpy(cs->uuid, uuid, sizeof(cs->uuid));
	fd = openat(dirfd, CTF_STREAM_FILE,
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return errno;
	cs->file = fdopen(fd, "w");
	if (!cs->file) {
		close(fd);
		return ENOMEM;
	}
	return 0;
}

static int write_packet(struct ctf_stream *cs)
{
	unsigned char head[PACKET_HEADER_SIZE + PACKET_CONTEXT_SIZE], *p;
	uint64_t bits = 8 * (uint64_t)(sizeof(head) + cs->len);

	p = put_le32(head, CTF_MAGIC);
	memcpy(p, cs->uuid, sizeof(cs->uuid));
	p = put_le32(p + sizeof(cs->uuid), 0);
	p = put_le64(p, cs->ts_begin);
	p = put_le64(p, cs->ts_end);
	p = put_le64(p, bits);
	p = put_le64(p, bits);
	p = put_le64(p, cs->packets);
	put_le64(p, cs->discarded);
	if (fwrite(head, sizeof(head), 1, cs->file) != 1 ||
	    (cs->len && fwrite(cs->buf, cs->len, 1, cs->file) != 1))
		return errno ? errno : EIO;
	cs->packets++;
	cs->len = 0;
	cs->events = 0;
	return 0;
}

static int reserve(struct ctf_stream *cs, size_t more)
{
	unsigned char *buf;
	size_t cap;

	if (cs->cap - cs->len >= more)
		return 0;
	cap = cs->cap ? cs->cap : 4096;
	while (cap - cs->len < more)
		cap *= 2;
	buf = realloc(cs->buf, cap);
	if (!buf)
		return ENOMEM;
	cs->buf = buf;
	cs->cap = cap;
	return 0;
}

#define NO_REST	SIZE_MAX

/*
 * The event class of ev (see ctf.h): a type without a format has one; an
 * event of a type with one goes to the typed class when its data matches
 * the format, else to the raw class. *rest_len gets the length of a last
 * bytes field of the typed class, NO_REST otherwise.
 */
static uint32_t event_class(const struct log_event *ev, size_t *rest_len)
{
	struct field_value vals[POSIXTRACE_FORMAT_FIELDS_MAX];
	const struct posixtrace_format *fmt = ev->type->format;
	uint32_t id = (uint32_t)ev->info.posix_event_id;
	const char *why, *field;

	*rest_len = NO_REST;
	if (!fmt)
		return id;
	if (ev->info.posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED ||
	    !fields_decode(fmt, ev->data, ev->data_len, vals, &why, &field))
		return CTF_RAW_ID(id);
	if (fmt->fields[fmt->nfields - 1].type == POSIXTRACE_FIELD_BYTES)
		*rest_len = vals[fmt->nfields - 1].len;
	return id;
}

int ctf_stream_event(struct ctf_stream *cs, const struct log_event *ev)
{
	const struct posix_trace_event_info *in = &ev->info;
	size_t rest_len;
	uint64_t ts;
	unsigned char *p;
	int err;

	ts = event_time(cs, &in->posix_timestamp);
	if (cs->events && (ev->gap || cs->len >= CTF_PACKET_EVENTS_MAX)) {
		err = write_packet(cs);
		if (err)
			return err;
	}
	if (ev->gap && !cs->packets) {
		/*
		 * Events lost before the first one: readers report a loss
		 * between two packets, so an empty first packet, counting
		 * none, goes before the one that counts them.
		 */
		cs->ts_begin = ts;
		cs->ts_end = ts;
		err = write_packet(cs);
		if (err)
			return err;
	}
	if (ev->gap) {
		/*
		 * An empty packet from the event before the gap to the one
		 * after it carries the count, so that readers place the
		 * loss between those two events and no wider.
		 */
		cs->discarded += ev->gap;
		cs->ts_begin = cs->packets ? cs->ts_end : ts;
		cs->ts_end = ts;
		err = write_packet(cs);
		if (err)
			return err;
	}
	err = reserve(cs, EVENT_FIXED_SIZE + 4 + ev->data_len);
	if (err)
		return err;
	if (!cs->events)
		cs->ts_begin = ts;
	cs->ts_end = ts;
	p = cs->buf + cs->len;
	p = put_le32(p, event_class(ev, &rest_len));
	p = put_le64(p, ts);
	p = put_le32(p, (uint32_t)in->posix_pid);
	/* No thread id reads as -1, which no thread has. */
	p = put_le32(p, ev->has_tid ? (uint32_t)ev->tid : UINT32_MAX);
	p = put_le64(p, (uint64_t)(uintptr_t)in->posix_thread_id);
	/* No sequence number reads as all ones, which no event has. */
	p = put_le64(p, ev->has_seq ? ev->seq : UINT64_MAX);
	p = put_le32(p, (uint32_t)in->posix_truncation_status);
	p = put_le64(p, (uint64_t)(uintptr_t)in->posix_prog_address);
	p = put_le32(p, (uint32_t)ev->data_len);
	if (rest_len != NO_REST)
		p = put_le32(p, (uint32_t)rest_len);
	if (ev->data_len)
		memcpy(p, ev->data, ev->data_len);
	p += ev->data_len;
	cs->len = (size_t)(p - cs->buf);
	cs->events++;
	return 0;
}

int ctf_stream_close(struct ctf_stream *cs, uint64_t empty_ts)
{
	int err = 0;

	/*
	 * A log without events still gets a packet, empty, stamped with the
	 * stream's creation, so that readers see when the stream began.
	 */
	if (cs->events || !cs->packets) {
		if (!cs->events)
			cs->ts_begin = cs->ts_end = empty_ts;
		err = write_packet(cs);
	}
	if (fclose(cs->file) && !err)
		err = errno ? errno : EIO;
	cs->file = NULL;
	free(cs->buf);
	cs->buf = NULL;
	return err;
}
