// SPDX-License-Identifier: GPL-2.0
/*
 * exit_cost: the process that the exit hooks' cost is measured on
 * (bench/guest.sh times posixtrace_on_exit() with ftrace's function_graph
 * tracer around it). It creates a LOOP stream on itself, has THREADS
 * threads write PER_THREAD 8-byte events each into their rings and wait,
 * with their records still there (the guest raises ring_drain_ms so that
 * no timer drains them), then:
 *
 *   exit_cost THREADS PER_THREAD        three more threads each record one
 *                                       event and exit (a thread's exit),
 *                                       then all end after a shutdown;
 *   exit_cost THREADS PER_THREAD die    the process, the stream's creator,
 *                                       exits at once (a creator's exit).
 *
 * Run it with POSIXTRACE_RING_SIZE=1048576, so that the records stay in
 * the rings (no kick before a quarter of a ring).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace.h>
#include <unistd.h>

static trace_event_id_t id;
static long per_thread;
static pthread_barrier_t filled, go;

static void *filler(void *arg)
{
	for (long k = 0; k < per_thread; k++)
		posix_trace_event(id, &k, sizeof(k));
	pthread_barrier_wait(&filled);
	pthread_barrier_wait(&go);
	return arg;
}

static void *one_event(void *arg)
{
	long k = 1;

	posix_trace_event(id, &k, sizeof(k));
	return arg;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[1]) : 0;
	bool die = argc > 3 && !strcmp(argv[3], "die");
	trace_attr_t attr;
	trace_id_t trid;
	pthread_t *th, t;
	int err;

	per_thread = argc > 2 ? atol(argv[2]) : 0;
	if (threads <= 0 || per_thread <= 0) {
		fprintf(stderr, "usage: %s THREADS PER_THREAD [die]\n", argv[0]);
		return 2;
	}
	th = calloc(threads, sizeof(*th));
	err = th ? posix_trace_attr_init(&attr) : ENOMEM;
	if (!err)
		err = posix_trace_attr_setstreamfullpolicy(&attr,
							   POSIX_TRACE_LOOP);
	if (!err)
		err = posix_trace_attr_setstreamsize(&attr, 4 << 20);
	if (!err)
		err = posix_trace_create(0, &attr, &trid);
	if (!err)
		err = posix_trace_eventid_open("exit_cost", &id);
	if (!err)
		err = posix_trace_start(trid);
	if (err) {
		fprintf(stderr, "exit_cost: no stream: %s\n", strerror(err));
		return 1;
	}
	pthread_barrier_init(&filled, NULL, threads + 1);
	pthread_barrier_init(&go, NULL, threads + 1);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, filler, NULL))
			return 1;
	pthread_barrier_wait(&filled);
	if (die)
		_exit(0);
	for (int r = 0; r < 3; r++) {
		if (pthread_create(&t, NULL, one_event, NULL))
			return 1;
		pthread_join(t, NULL);
	}
	pthread_barrier_wait(&go);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	return posix_trace_shutdown(trid) ? 1 : 0;
}
