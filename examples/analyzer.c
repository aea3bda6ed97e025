// SPDX-License-Identifier: MIT
/*
 * An analyzer: runs a program, traces it from this process, and prints its
 * events as they arrive. Usage: analyzer PROGRAM [ARGS...]
 *
 * The child waits on a pipe until its stream is running, so that not one
 * of its events is missed, then execs the program.
 *
 * An event whose type has a format (posixtrace_k_eventid_get_format(), an
 * extension of libposixtrace-k) is printed as its fields.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <posixtrace-k.h>

/* Bytes of binary data printed in hexadecimal; longer data shows its size. */
#define HEX_SHOWN 16

/*
 * Prints data as the fields of format ("name:type,..."; the library gives
 * only well-formed ones), " name=value" each; false, having printed
 * nothing, when the data does not match it. Fields are packed, in this
 * machine's byte order (the traced program's: same machine).
 */
static bool print_fields(const char *format, const unsigned char *data,
			 size_t len)
{
	char out[1024], name[32], type[8];
	size_t off = 0, used = 0, n;
	const char *p = format;
	union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
		int8_t s8; int16_t s16; int32_t s32; int64_t s64;
		float f32; double f64; } v;
	int w;

	while (*p) {
		if (sscanf(p, "%31[^:]:%7[^,]", name, type) != 2)
			return false;
		p += strlen(name) + 1 + strlen(type);
		p += *p == ',';
		if (!strcmp(type, "str")) {
			n = strnlen((const char *)data + off, len - off);
			if (n == len - off)
				return false;
			w = snprintf(out + used, sizeof(out) - used, " %s=\"%.*s\"",
				     name, (int)n, (const char *)data + off);
			off += n + 1;
		} else if (!strcmp(type, "bytes")) {
			w = snprintf(out + used, sizeof(out) - used,
				     " %s=(%zu bytes)", name, len - off);
			off = len;
		} else {
			n = (size_t)(type[1] == '8' ? 1 : type[1] == '1' ? 2 :
				     type[1] == '3' ? 4 : 8);
			if (len - off < n)
				return false;
			memcpy(&v, data + off, n);
			off += n;
			if (!strcmp(type, "f32"))
				w = snprintf(out + used, sizeof(out) - used,
					     " %s=%g", name, v.f32);
			else if (!strcmp(type, "f64"))
				w = snprintf(out + used, sizeof(out) - used,
					     " %s=%g", name, v.f64);
			else if (type[0] == 's')
				w = snprintf(out + used, sizeof(out) - used,
					     " %s=%lld", name, (long long)(
					     n == 1 ? v.s8 : n == 2 ? v.s16 :
					     n == 4 ? v.s32 : v.s64));
			else
				w = snprintf(out + used, sizeof(out) - used,
					     " %s=%llu", name, (unsigned long long)(
					     n == 1 ? v.u8 : n == 2 ? v.u16 :
					     n == 4 ? v.u32 : v.u64));
		}
		if (w < 0 || (size_t)w >= sizeof(out) - used)
			return false;
		used += (size_t)w;
	}
	if (off != len)
		return false;
	fputs(out, stdout);
	return true;
}

/*
 * START carries the filter in force (a trace_event_set_t): the types it
 * keeps out, by name, as posix_trace_eventtypelist_getnext_id() lists them.
 */
static void print_filter(trace_id_t trid, const unsigned char *data)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_set_t set;
	trace_event_id_t id;
	int unavailable, member, n = 0;

	memcpy(&set, data, sizeof(set));
	if (posix_trace_eventtypelist_rewind(trid))
		return;
	while (!posix_trace_eventtypelist_getnext_id(trid, &id, &unavailable) &&
	       !unavailable) {
		if (posix_trace_eventset_ismember(id, &set, &member) ||
		    !member ||
		    posix_trace_eventid_get_name(trid, id, name))
			continue;
		printf("%s%s", n++ ? "," : " filter: ", name);
	}
	if (!n)
		printf(" filter: none");
}

static void print_event(trace_id_t trid, const struct posix_trace_event_info *info,
			const unsigned char *data, size_t len)
{
	static struct timespec first = { -1, 0 };
	const struct timespec *ts = &info->posix_timestamp;
	char name[TRACE_EVENT_NAME_MAX + 1], date[32];
	char format[POSIXTRACE_K_FORMAT_MAX + 1];
	bool typed;
	long sec, nsec;
	struct tm tm;
	size_t i;

	/* Times are from the first event, whose date is said once. */
	if (first.tv_sec < 0) {
		first = *ts;
		gmtime_r(&first.tv_sec, &tm);
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
		printf("analyzer: first event at %s.%09ld UTC, times from it:\n",
		       date, first.tv_nsec);
	}
	sec = (long)(ts->tv_sec - first.tv_sec);
	nsec = ts->tv_nsec - first.tv_nsec;
	if (nsec < 0) {
		sec--;
		nsec += 1000000000;
	}
	if (posix_trace_eventid_get_name(trid, info->posix_event_id, name))
		strcpy(name, "?");
	/* pthread_t is opaque; on Linux it is an address, unique per thread. */
	printf("+%ld.%09ld pid %-5d thread %-14lx %-18s", sec, nsec,
	       (int)info->posix_pid, (unsigned long)info->posix_thread_id, name);
	typed = info->posix_truncation_status == POSIX_TRACE_NOT_TRUNCATED &&
		!posixtrace_k_eventid_get_format(trid, info->posix_event_id,
						 format, sizeof(format)) &&
		print_fields(format, data, len);
	if (typed)
		;	/* shown as its fields */
	else if (info->posix_event_id == POSIX_TRACE_START &&
		 len == sizeof(trace_event_set_t))
		print_filter(trid, data);
	else if (len && data[0] >= ' ' && data[0] < 127)
		printf(" \"%.*s\"", (int)len, (const char *)data);
	else if (len > HEX_SHOWN)
		printf(" (%zu bytes)", len);
	else
		for (i = 0; i < len; i++)
			printf(" %02x", data[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct posix_trace_status_info status;
	struct posix_trace_event_info info;
	unsigned char data[256];
	int go[2], err, unavailable, wstatus, events = 0;
	struct timespec deadline;
	trace_id_t trid;
	size_t len;
	pid_t child;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PROGRAM [ARGS...]\n", argv[0]);
		return 2;
	}
	if (pipe(go))
		return 1;
	child = fork();
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(go[0]);

	err = posix_trace_create(child, NULL, &trid);
	if (!err)
		err = posix_trace_start(trid);
	if (err) {
		fprintf(stderr, "analyzer: tracing %d: %s\n", (int)child, strerror(err));
		return 1;
	}
	printf("analyzer: tracing pid %d (%s)\n", (int)child, argv[1]);
	if (write(go[1], "g", 1) != 1)
		return 1;
	close(go[1]);

	/* Read as events come; when none came for 100 ms, see if it exited. */
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += 100 * 1000 * 1000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		err = posix_trace_timedgetnext_event(trid, &info, data, sizeof(data),
						     &len, &unavailable, &deadline);
		if (!err && !unavailable) {
			print_event(trid, &info, data, len);
			events++;
			continue;
		}
		if (err && err != ETIMEDOUT) {
			fprintf(stderr, "analyzer: %s\n", strerror(err));
			return 1;
		}
		if (waitpid(child, &wstatus, WNOHANG) == child)
			break;
	}
	/* The child is gone: what it recorded is still in the stream. */
	while (!posix_trace_trygetnext_event(trid, &info, data, sizeof(data),
					     &len, &unavailable) && !unavailable) {
		print_event(trid, &info, data, len);
		events++;
	}
	posix_trace_get_status(trid, &status);
	printf("analyzer: %d events read, stream %s, %s\n", events,
	       status.posix_stream_full_status == POSIX_TRACE_FULL ? "full" : "not full",
	       status.posix_stream_overrun_status == POSIX_TRACE_OVERRUN ?
	       "events were lost" : "no event lost");
	return posix_trace_shutdown(trid) ? 1 : 0;
}
