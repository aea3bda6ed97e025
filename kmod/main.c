// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace: the POSIX Tracing option (<trace.h>) for Linux.
 *
 * Module entry and exit only; each concern lives in its own file, and
 * Documentation/dev-tools/posixtrace-design.rst says which. Exit undoes
 * init in reverse order.
 */

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/posixtrace.h>

#include "access.h"
#include "debugfs.h"
#include "device.h"
#include "drain.h"
#include "drain_domain.h"
#include "hooks.h"
#include "kevents.h"
#include "netlink.h"
#include "process.h"
#include "quota.h"
#include "ring_mem.h"
#include "stream.h"

static int __init posixtrace_init(void)
{
	int ret;

	posixtrace_debugfs_init();
	ret = posixtrace_access_init();
	if (ret)
		goto err_debugfs;
	ret = posixtrace_streams_init();
	if (ret)
		goto err_debugfs;
	ret = posixtrace_ring_mem_init();
	if (ret)
		goto err_streams_exit;
	ret = posixtrace_drains_init();
	if (ret)
		goto err_ring_mem_exit;
	ret = posixtrace_kevents_init();
	if (ret)
		goto err_rings_exit;
	ret = posixtrace_hooks_init();
	if (ret)
		goto err_kevents_exit;
	ret = posixtrace_nl_init();
	if (ret)
		goto err_hooks_exit;
	/* Last: from here on user space can reach us. */
	ret = posixtrace_device_init();
	if (ret)
		goto err_nl_exit;

	pr_debug("ABI %u.%u loaded\n", POSIXTRACE_ABI_MAJOR, POSIXTRACE_ABI_MINOR);
	return 0;

err_nl_exit:
	posixtrace_nl_exit();
err_hooks_exit:
	posixtrace_hooks_exit();
err_kevents_exit:
	posixtrace_kevents_exit();
err_rings_exit:
	posixtrace_drains_exit();
err_ring_mem_exit:
	posixtrace_ring_mem_exit();
err_streams_exit:
	posixtrace_streams_exit();
err_debugfs:
	posixtrace_debugfs_exit();
	return ret;
}

/*
 * No stream is left: every one holds the module, through its file, its
 * log's thread and its queued news.
 */
static void __exit posixtrace_exit(void)
{
	posixtrace_device_exit();
	posixtrace_nl_exit();
	posixtrace_hooks_exit();
	posixtrace_kevents_exit();
	posixtrace_drains_exit();
	posixtrace_ring_mem_exit();
	posixtrace_streams_exit();
	/* What lives as long as the module: names, per-user counts. */
	posixtrace_process_exit_all();
	/* The entries' last references on their drain domains went too. */
	posixtrace_drain_domains_exit();
	posixtrace_quota_exit();
	posixtrace_debugfs_exit();
	/*
	 * A task work of ours (hooks) puts the module as its last call, but
	 * still returns through our code: wait until every task that may be
	 * there has switched voluntarily, as ftrace does for trampolines.
	 */
	synchronize_rcu_tasks();
}

module_init(posixtrace_init);
module_exit(posixtrace_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("POSIX Tracing option (trace streams behind /dev/posixtrace)");
MODULE_AUTHOR("The posixtrace developers");
MODULE_VERSION("0.1.0");
