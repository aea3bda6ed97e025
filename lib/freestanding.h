/* SPDX-License-Identifier: GPL-2.0 OR LGPL-2.1-or-later */
/*
 * What lib/ code may use: in the kernel, the kernel's own headers; in user
 * space (the library, the tools, the benchmark's fake kernel), the same
 * names defined here on C11 and the GCC builtins, as the kernel's tools/
 * include does for the lib/ code it shares. Only what lib/ uses is here.
 */
#ifndef _POSIXTRACE_FREESTANDING_H
#define _POSIXTRACE_FREESTANDING_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <asm/barrier.h>
#else
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;

#define S64_MAX		INT64_MAX
#define S64_MIN		INT64_MIN

struct timespec64 {
	s64 tv_sec;
	long tv_nsec;
};

/* The kernel's, for memory another thread writes meanwhile: done once. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
/* Orders the loads after it: pairs with the writer's store-release. */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

/* Each argument evaluated once, as the kernel's <linux/minmax.h>. */
#define min_t(type, a, b) \
	({ type __a = (a); type __b = (b); __a < __b ? __a : __b; })
#define max_t(type, a, b) \
	({ type __a = (a); type __b = (b); __a > __b ? __a : __b; })
#define clamp_t(type, v, lo, hi) min_t(type, max_t(type, v, lo), hi)
#define max(a, b) \
	({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); \
	   __a > __b ? __a : __b; })

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return addr[nr / (8 * sizeof(long))] >> (nr % (8 * sizeof(long))) & 1;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline s64 ktime_get_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (s64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A long loop's point to let others run: the scheduler does it here. */
static inline void cond_resched(void)
{
}
#endif /* __KERNEL__ */

#endif /* _POSIXTRACE_FREESTANDING_H */
