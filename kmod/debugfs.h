/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_DEBUGFS_H
#define _POSIXTRACE_DEBUGFS_H

struct dentry;

/*
 * /sys/kernel/debug/posixtrace: what the tests read of the module's
 * insides, root's alone, never a setting. Made first at init and removed,
 * with every file in it, last at exit (debugfs.c, called by main.c); each
 * file is its owner's (drain.c, kprobes.c). Without debugfs it is an
 * error pointer, which debugfs_create_*() take and ignore.
 */
extern struct dentry *posixtrace_debugfs;

void posixtrace_debugfs_init(void);
void posixtrace_debugfs_exit(void);

#endif /* _POSIXTRACE_DEBUGFS_H */
