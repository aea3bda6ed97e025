/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_QUOTA_H
#define _POSIXTRACE_QUOTA_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct cred;

kuid_t posixtrace_quota_user(const struct cred *cred);
int posixtrace_quota_get(kuid_t uid, bool exempt);
void posixtrace_quota_put(kuid_t uid);
void posixtrace_quota_exit(void);

#endif /* _POSIXTRACE_QUOTA_H */
