// SPDX-License-Identifier: MIT
/*
 * An instrumented program: it does some "work" in two threads and records
 * what it does with posix_trace_event(). It knows nothing of who traces it;
 * run it alone and every posix_trace_event() does nothing.
 *
 * Usage: worker [JOBS [MS]]: each thread does JOBS jobs (default 4), each
 * taking MS milliseconds (default 0), so that a trace of it lasts a while.
 *
 * Its events say what they carry (posixtrace_k_eventid_open_format(), an
 * extension of libposixtrace-k), so that "posixtrace dump" and babeltrace2
 * show their fields rather than bytes: the data is the fields packed in
 * order, in the machine's byte order, a str with its NUL.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <posixtrace-k.h>

#define BEGIN_FORMAT	"worker:u32,job:u32,what:str"
#define END_FORMAT	"worker:u32,job:u32,ms:f64"

static trace_event_id_t ev_begin, ev_end;
static int jobs = 4;
static long job_ms;

static double since_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static void *work(void *arg)
{
	uint32_t worker = (uint32_t)(long)arg, job;
	struct timespec ts = { job_ms / 1000, job_ms % 1000 * 1000000 }, t0;
	unsigned char begin[8 + 48], end[8 + 8];
	size_t len;
	double ms;

	for (job = 0; job < (uint32_t)jobs; job++) {
		/* worker:u32,job:u32,what:str */
		memcpy(begin, &worker, 4);
		memcpy(begin + 4, &job, 4);
		len = 8 + (size_t)snprintf((char *)begin + 8, sizeof(begin) - 8,
					   "job %u of worker %u", job, worker) + 1;
		posix_trace_event(ev_begin, begin, len);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (job_ms)
			nanosleep(&ts, NULL);
		/* worker:u32,job:u32,ms:f64 */
		ms = since_ms(&t0);
		memcpy(end, &worker, 4);
		memcpy(end + 4, &job, 4);
		memcpy(end + 8, &ms, 8);
		posix_trace_event(ev_end, end, sizeof(end));
	}
	return NULL;
}

/* A name with its format, so that the tools show its fields. */
static int open_event(const char *name, const char *format,
		      trace_event_id_t *id)
{
	return posixtrace_k_eventid_open_format(name, format, id);
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
	if (open_event("job_begin", BEGIN_FORMAT, &ev_begin) ||
	    open_event("job_end", END_FORMAT, &ev_end)) {
		fprintf(stderr, "worker: cannot open event types\n");
		return 1;
	}
	for (i = 0; i < 2; i++)
		pthread_create(&threads[i], NULL, work, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
