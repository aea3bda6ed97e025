/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_NETLINK_H
#define _POSIXTRACE_NETLINK_H

int posixtrace_nl_init(void);
void posixtrace_nl_exit(void);

#endif /* _POSIXTRACE_NETLINK_H */
