// SPDX-License-Identifier: GPL-2.0
/* libposixtrace-k links, finds the module and reports errors as numbers. */

#include <errno.h>
#include <unistd.h>

#include <linux/posixtrace.h>
#include <posixtrace-k.h>

#include "../kselftest_harness.h"

TEST(abi_version_matches_header)
{
	unsigned int major = ~0u, minor = ~0u;

	if (access("/dev/posixtrace", F_OK))
		SKIP(return, "/dev/posixtrace missing: is posixtrace.ko loaded?");
	ASSERT_EQ(0, posixtrace_k_abi_version(&major, &minor));
	ASSERT_EQ(POSIXTRACE_ABI_MAJOR, major);
	ASSERT_EQ(POSIXTRACE_ABI_MINOR, minor);
	/* errno is not the channel: it is left as it was. */
	errno = 1234;
	ASSERT_EQ(0, posixtrace_k_abi_version(&major, &minor));
	ASSERT_EQ(1234, errno);
}

TEST(abi_version_null_pointers_are_einval)
{
	unsigned int v;

	/* Before the device is looked at: the same with or without it. */
	ASSERT_EQ(EINVAL, posixtrace_k_abi_version(NULL, &v));
	ASSERT_EQ(EINVAL, posixtrace_k_abi_version(&v, NULL));
}

TEST_HARNESS_MAIN
