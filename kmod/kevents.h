/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KEVENTS_H
#define _POSIXTRACE_KEVENTS_H

#include <linux/types.h>

/* The kernel event types of @classes: names, formats, iteration. */
const char *posixtrace_kevent_name(u32 id, u32 classes, const char **format);
bool posixtrace_kevent_next(u32 classes, u32 from, u32 *id);

/* A stream that records @classes holds them while it lives. */
int posixtrace_kevents_get(u32 classes);
void posixtrace_kevents_put(u32 classes);

int posixtrace_kevents_init(void);
void posixtrace_kevents_exit(void);

#endif /* _POSIXTRACE_KEVENTS_H */
