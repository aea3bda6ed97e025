// SPDX-License-Identifier: GPL-2.0
/*
 * rt_load: the workload bench/rt_guest.sh measures cyclictest against on a
 * PREEMPT_RT kernel (make bench-rt). For SECONDS, two threads record
 * 8-byte events in bursts of 1000 with a millisecond's sleep between, and
 * the main thread forks children one after another, each of which records
 * 100 events and exits: the emit path, ring mappings and kicks, and the
 * fork, exit and ring-retiring hooks, all under load.
 *
 *   rt_load SECONDS traced     first creates a LOOP stream on itself, with
 *                              inheritance, and starts it: everything the
 *                              threads and children record goes in;
 *   rt_load SECONDS untraced   the same work without a stream: events are
 *                              not recorded (the library's off path).
 *
 * Prints how many children it forked.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <trace.h>
#include <unistd.h>

static trace_event_id_t id;
static atomic_bool running = true;

static void *emitter(void *arg)
{
	struct timespec ms = { 0, 1000000 };
	uint64_t k = 0;

	while (atomic_load(&running)) {
		for (int i = 0; i < 1000; i++, k++)
			posix_trace_event(id, &k, sizeof(k));
		nanosleep(&ms, NULL);
	}
	return arg;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	bool traced = argc == 3 && !strcmp(argv[2], "traced");
	double end, seconds = argc >= 2 ? atof(argv[1]) : 0;
	pthread_t th[2];
	trace_attr_t attr;
	trace_id_t trid;
	long children = 0;
	int ret;

	if (argc != 3 || seconds <= 0 ||
	    (!traced && strcmp(argv[2], "untraced"))) {
		fprintf(stderr, "usage: %s SECONDS traced|untraced\n", argv[0]);
		return 2;
	}
	if (traced) {
		ret = posix_trace_attr_init(&attr);
		if (!ret)
			ret = posix_trace_attr_setinherited(&attr,
							    POSIX_TRACE_INHERITED);
		if (!ret)
			ret = posix_trace_create(0, &attr, &trid);
		if (!ret)
			ret = posix_trace_start(trid);
		if (ret) {
			fprintf(stderr, "rt_load: stream: %s\n", strerror(ret));
			return 1;
		}
	}
	ret = posix_trace_eventid_open("rt.load", &id);
	if (ret) {
		fprintf(stderr, "rt_load: eventid_open: %s\n", strerror(ret));
		return 1;
	}
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, emitter, NULL))
			return 1;
	end = now() + seconds;
	while (now() < end) {
		pid_t c = fork();

		if (!c) {
			for (uint64_t k = 0; k < 100; k++)
				posix_trace_event(id, &k, sizeof(k));
			_exit(0);
		}
		if (c > 0 && waitpid(c, NULL, 0) == c)
			children++;
	}
	atomic_store(&running, false);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("rt_load: %s: %ld children\n", argv[2], children);
	return traced && posix_trace_shutdown(trid);
}
