// SPDX-License-Identifier: MIT
/*
 * The smallest complete use of <trace.h>: a process traces itself.
 * Copy it to start. Build: cc -o selftrace selftrace.c $(pkg-config
 * --cflags --libs posixtrace-k)
 */

#include <stdio.h>
#include <string.h>
#include <trace.h>

static int check(int err, const char *what)
{
	if (err)
		fprintf(stderr, "%s: %s\n", what, strerror(err));
	return err;
}

int main(void)
{
	struct posix_trace_event_info info;
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t greeting;
	trace_attr_t attr;
	trace_id_t trid;
	char data[64];
	size_t len;
	int i, unavailable;

	/* The controller: a stream for this process (pid 0), started. */
	if (check(posix_trace_attr_init(&attr), "posix_trace_attr_init") ||
	    check(posix_trace_attr_setname(&attr, "selftrace"), "setname") ||
	    check(posix_trace_create(0, &attr, &trid), "posix_trace_create") ||
	    check(posix_trace_start(trid), "posix_trace_start"))
		return 1;
	posix_trace_attr_destroy(&attr);

	/* The traced process: name an event type, record a few events. */
	if (check(posix_trace_eventid_open("greeting", &greeting), "eventid_open"))
		return 1;
	for (i = 1; i <= 3; i++) {
		len = (size_t)snprintf(data, sizeof(data), "hello #%d", i);
		posix_trace_event(greeting, data, len);
	}
	posix_trace_stop(trid);

	/* The analyzer: read everything back without blocking. */
	for (;;) {
		if (check(posix_trace_trygetnext_event(trid, &info, data,
						       sizeof(data) - 1, &len,
						       &unavailable), "getnext"))
			return 1;
		if (unavailable)
			break;
		data[len] = '\0';
		posix_trace_eventid_get_name(trid, info.posix_event_id, name);
		printf("%ld.%09ld pid %d %-20s %s\n",
		       (long)info.posix_timestamp.tv_sec,
		       info.posix_timestamp.tv_nsec, (int)info.posix_pid, name,
		       info.posix_event_id == greeting ? data : "");
	}
	return check(posix_trace_shutdown(trid), "posix_trace_shutdown");
}
