// SPDX-License-Identifier: GPL-2.0
/*
 * A kick's walk of a thread ring, and a reader's cut: what the only
 * stream of its process, a LOOP one, would overwrite. The code is the
 * benchmark's fake kernel's too (lib/, included here as format.c
 * includes the format grammar), so that the benchmark times the module's
 * own walk.
 */

#include <linux/build_bug.h>
#include <linux/ktime.h>

#include "process.h"
#include "../lib/ring_walk.c"

/* A drain orders records by their time in a ktime_t. */
static_assert(POSIXTRACE_RING_SEC_MAX == KTIME_SEC_MAX);
