/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KEVENTS_H
#define _POSIXTRACE_KEVENTS_H

#include <linux/types.h>

int posixtrace_kevents_init(void);
void posixtrace_kevents_exit(void);

#endif /* _POSIXTRACE_KEVENTS_H */
