// SPDX-License-Identifier: MIT
/*
 * An analyzer: runs a program, traces it from this process, and prints its
 * events as they arrive. Usage: analyzer PROGRAM [ARGS...]
 *
 * The child waits on a pipe until its stream is running, so that not one
 * of its events is missed, then execs the program.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <trace.h>

/* Bytes of binary data printed in hexadecimal; longer data shows its size. */
#define HEX_SHOWN 16

static void print_event(trace_id_t trid, const struct posix_trace_event_info *info,
			const unsigned char *data, size_t len)
{
	static struct timespec first = { -1, 0 };
	const struct timespec *ts = &info->posix_timestamp;
	char name[TRACE_EVENT_NAME_MAX + 1], date[32];
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
	if (len && data[0] >= ' ' && data[0] < 127)
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
