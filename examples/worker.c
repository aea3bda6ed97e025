// SPDX-License-Identifier: MIT
/*
 * An instrumented program: it does some "work" in two threads and records
 * what it does with posix_trace_event(). It knows nothing of who traces it;
 * run it alone and every posix_trace_event() does nothing.
 *
 * Usage: worker [JOBS [MS]]: each thread does JOBS jobs (default 4), each
 * taking MS milliseconds (default 0), so that a trace of it lasts a while.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <trace.h>

static trace_event_id_t ev_begin, ev_end;
static int jobs = 4;
static long job_ms;

static void *work(void *arg)
{
	int worker = (int)(long)arg, job;
	struct timespec ts = { job_ms / 1000, job_ms % 1000 * 1000000 };
	char msg[48];

	for (job = 0; job < jobs; job++) {
		snprintf(msg, sizeof(msg), "worker %d job %d", worker, job);
		posix_trace_event(ev_begin, msg, strlen(msg));
		if (job_ms)
			nanosleep(&ts, NULL);
		posix_trace_event(ev_end, &job, sizeof(job));
	}
	return NULL;
}

/* A number from 0 to max, or -1. */
static long number(const char *s, long max)
{
	char *end;
	long n = strtol(s, &end, 10);

	return *s && !*end && n >= 0 && n <= max ? n : -1;
}

int main(int argc, char **argv)
{
	pthread_t threads[2];
	long i;

	if (argc > 3 || (argc > 1 && (jobs = number(argv[1], 1000000)) < 0) ||
	    (argc > 2 && (job_ms = number(argv[2], 60000)) < 0)) {
		fprintf(stderr, "usage: worker [JOBS [MS]]\n");
		return 2;
	}
	if (posix_trace_eventid_open("job_begin", &ev_begin) ||
	    posix_trace_eventid_open("job_end", &ev_end)) {
		fprintf(stderr, "worker: cannot open event types\n");
		return 1;
	}
	for (i = 0; i < 2; i++)
		pthread_create(&threads[i], NULL, work, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
