/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_HOOKS_H
#define _POSIXTRACE_HOOKS_H

struct tracepoint;

struct tracepoint *posixtrace_tracepoint(const char *name);
int posixtrace_hooks_init(void);
void posixtrace_hooks_exit(void);

#endif /* _POSIXTRACE_HOOKS_H */
