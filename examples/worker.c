// SPDX-License-Identifier: MIT
/*
 * An instrumented program: it does some "work" in two threads and records
 * what it does with posix_trace_event(). It knows nothing of who traces it;
 * run it alone and every posix_trace_event() does nothing.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace.h>

static trace_event_id_t ev_begin, ev_end;

static void *work(void *arg)
{
	int worker = (int)(long)arg, job;
	char msg[48];

	for (job = 0; job < 4; job++) {
		snprintf(msg, sizeof(msg), "worker %d job %d", worker, job);
		posix_trace_event(ev_begin, msg, strlen(msg));
		posix_trace_event(ev_end, &job, sizeof(job));
	}
	return NULL;
}

int main(void)
{
	pthread_t threads[2];
	long i;

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
