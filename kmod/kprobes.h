/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_KPROBES_H
#define _POSIXTRACE_KPROBES_H

#include <linux/types.h>

struct tracepoint;

/* A probe of a class of kernel events, on its tracepoint. */
struct posixtrace_kprobe {
	const char *tp_name;
	void *probe;
	u32 class;
	struct tracepoint *tp;
};

struct tracepoint *posixtrace_tracepoint(const char *name);
int posixtrace_kprobes_init(struct posixtrace_kprobe *probes, unsigned int n);
void posixtrace_kprobes_exit(void);
/* A stream that records @classes holds them while it lives. */
int posixtrace_kevents_get(u32 classes);
void posixtrace_kevents_put(u32 classes);

#endif /* _POSIXTRACE_KPROBES_H */
