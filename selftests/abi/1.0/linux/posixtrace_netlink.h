/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * posixtrace: monitoring trace streams over generic netlink.
 *
 * The module registers the generic netlink family POSIXTRACE_GENL_NAME
 * (resolve its id with the controller, e.g. genl_ctrl_resolve() of
 * libnl-genl-3; "genl-ctrl-list" shows it). It answers one command, GET,
 * for one stream (doit, with POSIXTRACE_NL_A_STREAM_ID) or for every
 * stream the caller may see (dump, NLM_F_DUMP), and sends NOTIFY messages
 * to the multicast group POSIXTRACE_GENL_MCGRP_NOTIFY as streams change.
 *
 * Visibility: a caller with CAP_SYS_ADMIN or CAP_PERFMON sees every
 * stream; any other sees the streams created by processes of its own
 * effective uid, and gets ENOENT for the others, as for a stream that
 * does not exist. The caller is judged by the credentials its socket was
 * opened with as well as by its own. Only CAP_SYS_ADMIN may join the multicast group (the
 * notifications are about every stream); others poll with GET.
 *
 * Requests are validated strictly against the policy below: unknown
 * attributes, wrong types or lengths, a GET doit without STREAM_ID get an
 * error with an extended ack message, never a partial answer.
 *
 * Pids and uids in answers are as the caller's pid and user namespaces see
 * them (0 for a process not visible there; overflowuid for a uid with no
 * mapping). In notifications, which go to every member, they are as the
 * initial namespaces see them.
 */
#ifndef _UAPI_LINUX_POSIXTRACE_NETLINK_H
#define _UAPI_LINUX_POSIXTRACE_NETLINK_H

#define POSIXTRACE_GENL_NAME		"posixtrace"
#define POSIXTRACE_GENL_VERSION		1
#define POSIXTRACE_GENL_MCGRP_NOTIFY	"notify"

enum posixtrace_nl_cmd {
	POSIXTRACE_NL_CMD_UNSPEC,
	/* Request: STREAM_ID (doit) or nothing (dump). Reply: a stream. */
	POSIXTRACE_NL_CMD_GET,
	/*
	 * Multicast: EVENT, then the stream as GET describes it, as it is
	 * when the notification is sent (it may have moved on since the
	 * event: the events themselves arrive in order).
	 */
	POSIXTRACE_NL_CMD_NOTIFY,
	__POSIXTRACE_NL_CMD_MAX
};

#define POSIXTRACE_NL_CMD_MAX	(__POSIXTRACE_NL_CMD_MAX - 1)

/*
 * Attributes of a stream. Only STREAM_ID is taken in a request; every
 * other one is output only (and refused in a request).
 */
enum posixtrace_nl_attr {
	POSIXTRACE_NL_A_UNSPEC,
	POSIXTRACE_NL_A_PAD,
	POSIXTRACE_NL_A_STREAM_ID,	/* u64: unique while the module is loaded */
	POSIXTRACE_NL_A_CREATOR_PID,	/* u32: the process that created it */
	POSIXTRACE_NL_A_CREATOR_UID,	/* u32: its effective uid then */
	POSIXTRACE_NL_A_TRACED,		/* nested: a PID for each process traced */
	POSIXTRACE_NL_A_PID,		/* u32: in TRACED */
	POSIXTRACE_NL_A_NAME,		/* string: the trace name */
	/* u32: POSIXTRACE_RUNNING, _SUSPENDED, or POSIXTRACE_NL_SHUT_DOWN */
	POSIXTRACE_NL_A_STATE,
	POSIXTRACE_NL_A_FULL_POLICY,	/* u32: POSIXTRACE_LOOP, ... */
	POSIXTRACE_NL_A_LOG_POLICY,	/* u32: with a log only */
	POSIXTRACE_NL_A_INHERITANCE,	/* u32: POSIXTRACE_CLOSE_FOR_CHILD, ... */
	POSIXTRACE_NL_A_STREAM_SIZE,	/* u64: bytes of event storage */
	POSIXTRACE_NL_A_BYTES_USED,	/* u64: bytes of it in use */
	POSIXTRACE_NL_A_EVENTS_RECORDED,	/* u64 */
	POSIXTRACE_NL_A_EVENTS_LOST,	/* u64 */
	/* u32: POSIXTRACE_OVERRUN or _NO_OVERRUN (not reset by reading it) */
	POSIXTRACE_NL_A_OVERRUN_STATUS,
	POSIXTRACE_NL_A_FULL_STATUS,	/* u32: POSIXTRACE_FULL or _NOT_FULL */
	POSIXTRACE_NL_A_LOG_PATH,	/* string: the log's path, with a log */
	POSIXTRACE_NL_A_CREATE_TIME,	/* u64: ns since the epoch (realtime) */
	POSIXTRACE_NL_A_EVENT,		/* u32: POSIXTRACE_NL_EV_*, in NOTIFY */
	/*
	 * u32: how many processes it traces; TRACED lists the first
	 * POSIXTRACE_NL_TRACED_MAX
	 */
	POSIXTRACE_NL_A_TRACED_COUNT,
	POSIXTRACE_NL_A_EVENTS_READ,	/* u64 */
	/*
	 * u64, with a log only: events the log did not keep, as
	 * struct posixtrace_status's log_events_discarded
	 */
	POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED,
	__POSIXTRACE_NL_A_MAX
};

#define POSIXTRACE_NL_A_MAX	(__POSIXTRACE_NL_A_MAX - 1)

/* TRACED holds at most this many pids; TRACED_COUNT says how many. */
#define POSIXTRACE_NL_TRACED_MAX	128

/* POSIXTRACE_NL_A_STATE of a stream shut down (notifications only). */
#define POSIXTRACE_NL_SHUT_DOWN		0x100

/* What a NOTIFY says happened to the stream. */
enum posixtrace_nl_event {
	POSIXTRACE_NL_EV_CREATED = 1,
	POSIXTRACE_NL_EV_STARTED,	/* start, or the automatic restart */
	POSIXTRACE_NL_EV_STOPPED,	/* stop, or the automatic stop */
	POSIXTRACE_NL_EV_FULL,		/* it filled (any policy) */
	POSIXTRACE_NL_EV_OVERFLOW,	/* LOOP: it began overwriting events */
	POSIXTRACE_NL_EV_FLUSH_DONE,	/* a flush to its log ended */
	POSIXTRACE_NL_EV_SHUTDOWN,	/* shut down; its last notification */
	/* Notifications of this stream were dropped before this one. */
	POSIXTRACE_NL_EV_LOST
};

#endif /* _UAPI_LINUX_POSIXTRACE_NETLINK_H */
