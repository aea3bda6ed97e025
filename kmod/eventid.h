/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_EVENTID_H
#define _POSIXTRACE_EVENTID_H

#include <linux/types.h>

struct posixtrace_eventid;
struct posixtrace_names;

long posixtrace_ioctl_eventid_open(struct posixtrace_names *names,
				   struct posixtrace_eventid __user *ueid,
				   bool own);

#endif /* _POSIXTRACE_EVENTID_H */
