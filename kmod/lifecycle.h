/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_LIFECYCLE_H
#define _POSIXTRACE_LIFECYCLE_H

int posixtrace_lifecycle_init(void);
void posixtrace_lifecycle_exit(void);

#endif /* _POSIXTRACE_LIFECYCLE_H */
