/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_DEVICE_H
#define _POSIXTRACE_DEVICE_H

#include <linux/types.h>

struct posixtrace_eventid;
struct posixtrace_names;

long posixtrace_ioctl_eventid_open(struct posixtrace_names *names,
				   struct posixtrace_eventid __user *ueid,
				   bool own);
int posixtrace_device_init(void);
void posixtrace_device_exit(void);

#endif /* _POSIXTRACE_DEVICE_H */
