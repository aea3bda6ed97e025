// SPDX-License-Identifier: GPL-2.0
/*
 * fault_load_test: the module's loading failed at each failure point in
 * turn (issue 32), under a kernel with fault injection (the debug
 * kernel's); skipped elsewhere. fault_test cannot reach these: they run
 * once, in the task that loads the module, before any stream.
 *
 * The module is unloaded, then loaded again with finit_module() by this
 * task, its fail-nth set to N = 1, 2, ...: failslab, fail_page_alloc and
 * fail_usercopy count only calls made with a module's text on the stack
 * (require-start and require-end: the modules' area), so that what the
 * kernel's loader itself allocates does not count, and the module's init
 * (and what it calls) fails at its Nth point. Each load must succeed (the
 * failure absorbed) or fail with a clean error number and leave nothing
 * behind: no device, no generic netlink family, and a load without a
 * failure after it that works. The walk ends at the first N the load
 * does not reach. kmemleak and the taint check follow, as after every
 * test. The module is left loaded, with the parameters it had.
 *
 * Every point takes a load of the module, a third of a second of a debug
 * kernel under emulation, and there are hundreds: make check walks every
 * SHORT_STRIDE-th; make fault (selftests/vm/fault.sh), which puts
 * "fault-load-full" beside this program, walks them all.
 *
 * The module must not be in use: no stream, no open descriptor (the
 * guest runs one test program at a time).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "fault_common.h"
#include "module_common.h"

/* Hundreds of loads of a debug module, under emulation. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 900

#define MAX_POINTS	4000
#define SHORT_STRIDE	9
/*
 * x86_64's modules area, with KASLR (from 0xffffffffc0000000) or not
 * (from 0xffffffffa0000000), to MODULES_END: only modules' text there.
 */
#define MODULES_START	0xffffffffa0000000ul
#define MODULES_END	0xffffffffff000000ul

/* Failures counted only with the modules' area on the stack, unlimited. */
static bool faults_setup(void)
{
	return faults_within(MODULES_START, MODULES_END) &&
	       faults_by_fail_nth("-1");
}

/* 1 if "fault-load-full" is beside this program, else SHORT_STRIDE. */
static int stride(void)
{
	char path[4096];

	return beside_program(path, sizeof(path), "fault-load-full") &&
	       !access(path, F_OK) ? 1 : SHORT_STRIDE;
}

/*
 * One load, its Nth failure point failed (as the filter counts them): a
 * clean error and nothing left, or loaded and working, then unloaded.
 * Returns whether the failure came; *@absorbed counts the loads that
 * succeeded all the same.
 */
static bool load_failed_at(struct __test_metadata *_metadata, int n,
			   const char *params, int *absorbed)
{
	bool failed;
	int ret;

	fail_nth(n);
	ret = module_load(params);
	failed = fail_nth_done();
	if (ret) {
		EXPECT_TRUE(failed && (ret == ENOMEM || ret == EFAULT))
			TH_LOG("failure point %d: %s", n, strerror(ret));
		EXPECT_TRUE(module_gone()) TH_LOG("failure point %d: left behind", n);
	} else {
		(*absorbed)++;
		EXPECT_TRUE(module_works()) TH_LOG("failure point %d: loaded, not working", n);
		EXPECT_EQ(0, module_unload()) TH_LOG("failure point %d: unload", n);
	}
	return failed;
}

static bool injection_here(void)
{
	return fault_injection_here() && !access(MODULE_PATH, R_OK);
}

TEST(every_failure_point_of_loading_fails_cleanly)
{
	int n, points = 0, absorbed = 0, step = stride();
	char params[256];

	if (!injection_here())
		SKIP(return, "no fault injection with a stack filter, or no module file");
	ASSERT_TRUE(faults_setup());
	module_params(params, sizeof(params));
	ASSERT_EQ(0, module_unload()) TH_LOG("the module is in use");
	for (n = 1; n <= MAX_POINTS; n += step) {
		if (!load_failed_at(_metadata, n, params, &absorbed))
			break;
		points++;
	}
	EXPECT_GT(MAX_POINTS, n);
	ASSERT_EQ(0, module_load(params)) TH_LOG("loading it again");
	EXPECT_TRUE(module_works());
	printf("# fault: loading: %d failure points failed (every %d%s), %d absorbed\n",
	       points, step, step == 1 ? "st" : "th", absorbed);
}

/*
 * fault_test's every_call_site_fails_in_turn, for loading: each call
 * site of the table (fault-map.sh's, beside this program: make fault
 * puts it there) failed alone, at each of its points in turn. The stack
 * filter takes an address, so the module must load where it loaded
 * before: the test says so if it did not.
 */
TEST(every_call_site_of_loading_fails_in_turn)
{
	char path[4096], params[256];
	struct fault_site site;
	int n, points, absorbed = 0, moved = 0;
	unsigned long base;
	FILE *f;

	if (!injection_here())
		SKIP(return, "no fault injection with a stack filter, or no module file");
	ASSERT_TRUE(beside_program(path, sizeof(path), "fault-sites.tab"));
	f = fopen(path, "r");
	if (!f)
		SKIP(return, "no fault-sites.tab here: make fault makes it");
	ASSERT_TRUE(faults_setup());
	module_params(params, sizeof(params));
	base = section_base(".text");
	ASSERT_NE(0, base);
	ASSERT_EQ(0, module_unload()) TH_LOG("the module is in use");
	while (fault_site_next(f, &site)) {
		if (strcmp(site.section, ".text"))
			continue;
		ASSERT_TRUE(faults_within(base + site.offset,
					  base + site.offset + 1));
		points = 0;
		for (n = 1; n <= MAX_POINTS; n++) {
			if (!load_failed_at(_metadata, n, params, &absorbed))
				break;
			points++;
		}
		/* The last load, not failed, was unloaded: where was it? */
		if (!module_load(params)) {
			moved += section_base(".text") != base;
			EXPECT_EQ(0, module_unload());
		}
		printf("# fault-site: %s %s %d\n", site.source, site.callee,
		       points);
	}
	fclose(f);
	ASSERT_TRUE(faults_setup());
	ASSERT_EQ(0, module_load(params)) TH_LOG("loading it again");
	EXPECT_TRUE(module_works());
	EXPECT_EQ(0, moved) TH_LOG("the module loaded elsewhere %d times", moved);
}

TEST_HARNESS_MAIN
