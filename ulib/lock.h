/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lock of a stream object (struct ptk_stream): a futex word, not a
 * pthread_mutex_t, because it is taken and released once for every event
 * a reader is given, and is most of what that costs (make bench-host,
 * the reader row): the same two atomic operations as
 * pthread_mutex_lock() and pthread_mutex_unlock(), but without the
 * mutex type checks of each call.
 *
 * The protocol is the third mutex of Drepper's "Futexes Are Tricky"
 * (2011): 0 unlocked, 1 locked, 2 locked and maybe waited for. Taking it
 * uncontended is one compare-and-exchange; releasing it, one exchange,
 * and a FUTEX_WAKE only if someone may wait. Like the default mutex it
 * replaces it is neither recursive nor robust, and does not inherit
 * priority. A word of zeroes is an unlocked lock, so objects from
 * calloc() need no initialisation; none ever needs destroying.
 */
#ifndef _POSIXTRACE_K_LOCK_H
#define _POSIXTRACE_K_LOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/futex.h>

/* The futex call taking this build's struct timespec. */
#if defined(SYS_futex_time64) && \
	(!defined(SYS_futex) || defined(__USE_TIME_BITS64))
#define PTK_SYS_FUTEX	SYS_futex_time64
#else
#define PTK_SYS_FUTEX	SYS_futex
#endif

typedef _Atomic uint32_t ptk_lock_t;

/* The waits, out of line: the uncontended way is all that is inlined. */
void ptk_lock_slow(ptk_lock_t *lock, uint32_t seen);
void ptk_unlock_wake(ptk_lock_t *lock);

static inline void ptk_lock(ptk_lock_t *lock)
{
	uint32_t seen = 0;

	if (__builtin_expect(atomic_compare_exchange_strong_explicit(lock,
			&seen, 1, memory_order_acquire, memory_order_relaxed),
			1))
		return;
	ptk_lock_slow(lock, seen);
}

static inline void ptk_unlock(ptk_lock_t *lock)
{
	if (__builtin_expect(atomic_exchange_explicit(lock, 0,
			memory_order_release) == 2, 0))
		ptk_unlock_wake(lock);
}

#endif /* _POSIXTRACE_K_LOCK_H */
