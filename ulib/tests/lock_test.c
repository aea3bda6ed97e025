// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lock_test: the stream object's lock (lock.h) excludes, and wakes its
 * waiters. Threads add to a plain counter under the lock, some holding it
 * across a sleep so that the others wait in the kernel; any overlap of
 * two holders, or an increment lost, fails the test, and a lost wakeup
 * hangs it, and the 60 s timeout of make -C ulib test then fails it.
 */

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "../lock.h"

#define THREADS		4
#define ROUNDS		200000
#define SLEEPERS_EVERY	4096

static ptk_lock_t lock;
static unsigned long counter;
static int inside;
static int overlaps;

static void *worker(void *arg)
{
	struct timespec nap = { 0, 200000 };

	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		ptk_lock(&lock);
		if (inside++)
			overlaps++;
		counter++;
		/* Now and then hold it long enough for the others to sleep. */
		if (i % SLEEPERS_EVERY == 0)
			nanosleep(&nap, NULL);
		inside--;
		ptk_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t thr[THREADS];
	int i;

	for (i = 0; i < THREADS; i++)
		if (pthread_create(&thr[i], NULL, worker, NULL)) {
			fprintf(stderr, "lock_test: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < THREADS; i++)
		pthread_join(thr[i], NULL);
	if (counter != (unsigned long)THREADS * ROUNDS || overlaps ||
	    atomic_load(&lock)) {
		fprintf(stderr, "lock_test: FAILED: %lu of %lu increments, "
			"%d overlaps, lock word %u\n", counter,
			(unsigned long)THREADS * ROUNDS, overlaps,
			(unsigned int)atomic_load(&lock));
		return 1;
	}
	printf("lock_test: %d threads, %lu increments under the lock, "
	       "no overlap\n", THREADS, counter);
	return 0;
}
