/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LTTng-UST tracepoint ust_cost times: ust_bench:event, 8 bytes of
 * payload (one uint64), as posix_trace_event() records in event_cost.
 * ust_cost.c defines the probes (LTTNG_UST_TRACEPOINT_CREATE_PROBES) and
 * the tracepoint (LTTNG_UST_TRACEPOINT_DEFINE) in the program itself.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ust_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ust_tp.h"

#if !defined(UST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define UST_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ust_bench, event,
	LTTNG_UST_TP_ARGS(uint64_t, value),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, value, value)
	)
)

#endif /* UST_TP_H */

#include <lttng/tracepoint-event.h>
