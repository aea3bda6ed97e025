/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_NETLINK_H
#define _POSIXTRACE_NETLINK_H

#include <linux/posixtrace_netlink.h>
#include <linux/types.h>

struct posixtrace_stream;

/* A stream's notifications not yet sent (netlink.c), under its lock. */
struct posixtrace_nl_queue {
	u8 events[15];		/* POSIXTRACE_NL_EV_*, oldest at head */
	u8 head;
	u8 len;
	bool lost;		/* some were dropped: the queue was full */
};

int posixtrace_nl_init(void);
void posixtrace_nl_exit(void);
void posixtrace_nl_stream_init(struct posixtrace_stream *stream);
void posixtrace_nl_notify(struct posixtrace_stream *stream, u32 event);

#endif /* _POSIXTRACE_NETLINK_H */
