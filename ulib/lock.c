// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The contended ways of a stream object's lock (lock.h).
 */

#include <limits.h>

#include "internal.h"

/*
 * Mark the word 2 (locked, maybe waited for) and sleep while it stays so;
 * whoever finds it 0 on the way owns the lock, with the mark left on, so
 * that its release wakes the next waiter. A wait cut short by a signal
 * (EINTR) or a word already changed (EAGAIN) just looks again: the lock
 * is not a cancellation point, as pthread_mutex_lock() is not. Neither
 * this nor the wake below changes errno: the readers' way in, which takes
 * the lock, keeps it only here (getnext.c).
 */
void ptk_lock_slow(ptk_lock_t *lock, uint32_t seen)
{
	PTK_KEEP_ERRNO;

	if (seen != 2)
		seen = atomic_exchange_explicit(lock, 2, memory_order_acquire);
	while (seen) {
		syscall(PTK_SYS_FUTEX, lock, FUTEX_WAIT_PRIVATE, 2, NULL, NULL,
			0);
		seen = atomic_exchange_explicit(lock, 2, memory_order_acquire);
	}
}

/* The word was 2: one waiter, if any, takes its turn. */
void ptk_unlock_wake(ptk_lock_t *lock)
{
	PTK_KEEP_ERRNO;

	syscall(PTK_SYS_FUTEX, lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
