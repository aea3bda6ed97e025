// SPDX-License-Identifier: GPL-2.0
/*
 * The module's debugfs directory (debugfs.h): a leaf, so that the files
 * in it (drain.c's, kprobes.c's) depend on nothing above them.
 */

#include <linux/debugfs.h>

#include "debugfs.h"

struct dentry *posixtrace_debugfs;

/* First at module init: without debugfs, or if it fails, nothing shows. */
void posixtrace_debugfs_init(void)
{
	posixtrace_debugfs = debugfs_create_dir("posixtrace", NULL);
}

/* Last at module exit: the directory and every file in it. */
void posixtrace_debugfs_exit(void)
{
	debugfs_remove(posixtrace_debugfs);
}
