/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KEVENT_TYPES_H
#define _POSIXTRACE_KEVENT_TYPES_H

#include <linux/types.h>

/* The kernel event types of @classes: names, formats, iteration. */
const char *posixtrace_kevent_name(u32 id, u32 classes, const char **format);
const char *posixtrace_kevent_format(u32 id);
bool posixtrace_kevent_next(u32 classes, u32 from, u32 *id);

#endif /* _POSIXTRACE_KEVENT_TYPES_H */
