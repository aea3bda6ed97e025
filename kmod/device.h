/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_DEVICE_H
#define _POSIXTRACE_DEVICE_H

#include <linux/types.h>

int posixtrace_device_init(void);
void posixtrace_device_exit(void);

#endif /* _POSIXTRACE_DEVICE_H */
