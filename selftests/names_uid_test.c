// SPDX-License-Identifier: GPL-2.0
/*
 * A process's table of user event names is kept only while the process
 * could still act as the one it was made for (kmod/names.c,
 * posixtrace_names_cred_ok()): here by its uids alone. A process without
 * capabilities running with effective uid B and real uid A (a set-uid-to-B
 * program run by A) opens a name, then gives B up for good
 * (setresuid(A, A, A)): the next name it opens is in a table of its own,
 * so it gets the first user identifier again. make mutants'
 * names-uid-always-reachable survived without it: the suite's drops all
 * go from root, where losing the capabilities moves the table anyway.
 * And the other way round: root that gives up its capabilities for good
 * (its permitted set cleared, uid 0 kept) moves too, which
 * names-caps-not-compared survived without.
 */

#define _GNU_SOURCE
#include <grp.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trc_common.h"

#define UID_A	61001
#define UID_B	61002

/* In the child: 0 if the table moved, else a step number. */
static int drop_the_uid_it_opened_a_name_as(void)
{
	trace_event_id_t secret, after;

	/* No uid 0 left: no capability either. */
	if (setgroups(0, NULL) || setresgid(UID_A, UID_A, UID_A) ||
	    setresuid(UID_A, UID_B, UID_B))
		return 1;
	if (posix_trace_eventid_open("names_uid.secret", &secret))
		return 2;
	if (setresuid(UID_A, UID_A, UID_A))
		return 3;
	if (posix_trace_eventid_open("names_uid.after", &after))
		return 4;
	/* Still in the table of B: the next identifier. */
	return after == secret ? 0 : 5;
}

/* @fn's result in a child of its own (its credentials change): -1 if lost. */
static int in_a_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(a_uid_given_up_for_good_takes_the_names_table_with_it)
{
	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to set the uids");
	EXPECT_EQ(0, in_a_child(drop_the_uid_it_opened_a_name_as));
}

/* In the child: 0 if the table moved, else a step number. */
static int drop_the_capabilities_it_opened_a_name_with(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { 0 };
	trace_event_id_t secret, after;

	if (posix_trace_eventid_open("names_caps.secret", &secret))
		return 1;
	/* For good: permitted cleared, uid 0 kept. */
	if (syscall(SYS_capset, &h, none))
		return 2;
	if (posix_trace_eventid_open("names_caps.after", &after))
		return 3;
	/* Still in root's table: the next identifier. */
	return after == secret ? 0 : 4;
}

TEST(capabilities_given_up_for_good_take_the_names_table_with_them)
{
	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root's capabilities to give them up");
	EXPECT_EQ(0, in_a_child(drop_the_capabilities_it_opened_a_name_with));
}

TEST_HARNESS_MAIN
