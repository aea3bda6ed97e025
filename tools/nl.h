/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family "posixtrace" (<linux/posixtrace_netlink.h>)
 * through libnl-genl-3: a socket that resolves the family, GET (one stream
 * or a dump), the "notify" group, and the streams the answers describe.
 * Shared by "posixtrace list" and "posixtrace monitor".
 */
#ifndef POSIXTRACE_TOOL_NL_H
#define POSIXTRACE_TOOL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/posixtrace_netlink.h>

/* A stream as a GET answer or a NOTIFY describes it. */
struct ptnl_stream {
	uint32_t have;			/* bit POSIXTRACE_NL_A_x: x present */
	uint64_t id;
	uint32_t creator_pid, creator_uid;
	uint32_t *traced;		/* the TRACED pids, ntraced of them */
	size_t ntraced;
	uint32_t traced_count;		/* all it traces (TRACED lists some) */
	char *name;
	uint32_t state, full_policy, log_policy, inheritance;
	uint64_t stream_size, bytes_used, events_recorded, events_lost;
	uint64_t events_read, log_events_discarded;
	uint32_t overrun_status, full_status;
	char *log_path;
	uint64_t create_time;		/* ns since the epoch */
	uint32_t event;			/* POSIXTRACE_NL_EV_x, NOTIFY only */
};

_Static_assert(POSIXTRACE_NL_A_MAX < 32, "ptnl_stream.have has 32 bits");
#define PTNL_HAS(s, attr)	(((s)->have >> (attr)) & 1)

void ptnl_stream_free(struct ptnl_stream *s);

/*
 * Called with each stream received, which is then the callee's to free.
 * Returns 0 to go on, or an errno that ends the receiving with it.
 */
typedef int (*ptnl_stream_fn)(struct ptnl_stream *s, void *arg);

struct ptnl;

/*
 * Connects and resolves the family. NULL, with the reason printed after
 * "prog: ", if it cannot (the module missing says so).
 */
struct ptnl *ptnl_open(const char *prog);
void ptnl_close(struct ptnl *nl);

/*
 * GET: every stream the caller may see (dump) or the stream id, each
 * passed to fn in the order received. Returns 0 or an errno (the kernel's
 * when it refused; ENOENT: no such stream, or not one of the caller's).
 */
int ptnl_get(struct ptnl *nl, bool dump, uint64_t id, ptnl_stream_fn fn,
	     void *arg);

/*
 * The kernel's extended ack message about the last error, or "" if it
 * gave none.
 */
const char *ptnl_error_message(const struct ptnl *nl);

/*
 * Joins the "notify" group (EPERM without CAP_SYS_ADMIN), and the
 * controller's, to notice the family go away, and makes the socket
 * non-blocking. Returns 0 or an errno.
 */
int ptnl_join(struct ptnl *nl);

/* The socket's descriptor, to poll for input after ptnl_join(). */
int ptnl_fd(const struct ptnl *nl);

/*
 * Receives every notification waiting, passing each to fn. Returns 0 when
 * none is left; ENOBUFS if some were dropped because the socket's buffer
 * overflowed (call again to go on); ENODEV once the family has been
 * unregistered (the module unloaded); or another errno.
 */
int ptnl_receive(struct ptnl *nl, ptnl_stream_fn fn, void *arg);

/* "created", "started", ...: a POSIXTRACE_NL_EV_*'s name, NULL if unknown. */
const char *ptnl_event_name(uint32_t event);

/* RUNNING, SUSPENDED or SHUT_DOWN; another value, as a number in buf. */
const char *ptnl_state_text(uint32_t state, char *buf, size_t size);

#endif /* POSIXTRACE_TOOL_NL_H */
