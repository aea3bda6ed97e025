/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fault_test.c and fault_load_test.c (issue 32) share: the fault
 * injection knobs of a debug kernel (failslab, fail_page_alloc,
 * fail_usercopy) and their stack filter, this thread's fail-nth, where the
 * module's sections are loaded, and the files make fault puts beside the
 * test programs (fault-sites.tab, the call sites fault-map.sh lists).
 *
 * A test file defines _GNU_SOURCE before its first #include.
 */
#ifndef FAULT_COMMON_H
#define FAULT_COMMON_H

#include "beside_program.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL_NTH	"/proc/thread-self/fail-nth"

/* The fault types, each a directory of knobs in debugfs. */
enum { FAILSLAB, FAIL_PAGE_ALLOC, FAIL_USERCOPY, FAULT_DIRS };

static const char *const fault_dirs[FAULT_DIRS] = {
	[FAILSLAB] = "/sys/kernel/debug/failslab",
	[FAIL_PAGE_ALLOC] = "/sys/kernel/debug/fail_page_alloc",
	[FAIL_USERCOPY] = "/sys/kernel/debug/fail_usercopy",
};

/* All of @text written to the file at @path (a knob); false if not. */
static inline bool write_str(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text);
}

/* The first line of the file at @path into @text; false if unreadable. */
static inline bool read_str(const char *path, char *text, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, text, size - 1);
	close(fd);
	if (n < 0)
		return false;
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	return true;
}

/* @knob of fault type @dir (FAILSLAB...) set to @value. */
static inline bool fault_set(int dir, const char *knob, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", fault_dirs[dir], knob);
	return write_str(path, value);
}

/* Failures counted only where [start, end) is on the stack. */
static inline bool faults_within(unsigned long start, unsigned long end)
{
	char text[32];
	int i;

	for (i = 0; i < FAULT_DIRS; i++) {
		snprintf(text, sizeof(text), "%lu", start);
		if (!fault_set(i, "require-start", text))
			return false;
		snprintf(text, sizeof(text), "%lu", end);
		if (!fault_set(i, "require-end", text))
			return false;
	}
	return true;
}

/* The module's text: the lowest and highest of its functions, and past. */
static inline bool module_text(unsigned long *start, unsigned long *end)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], type;
	unsigned long a, lo = ~0ul, hi = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[posixtrace]"))
			continue;
		if (sscanf(line, "%lx %c", &a, &type) != 2 ||
		    (type != 't' && type != 'T') || !a)
			continue;
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	fclose(f);
	if (!hi)
		return false;
	*start = lo;
	/* The last function's own length, which kallsyms does not say. */
	*end = hi + 4096;
	return true;
}

/*
 * Every fault type failing only where fail-nth says (probability 0), at
 * most @times times, each failure without a message and a stack dump in
 * the kernel's log; GFP_KERNEL allocations too, and every order.
 */
static inline bool faults_by_fail_nth(const char *times)
{
	int i;

	for (i = 0; i < FAULT_DIRS; i++)
		if (!fault_set(i, "probability", "0") ||
		    !fault_set(i, "times", times) ||
		    !fault_set(i, "verbose", "0"))
			return false;
	return fault_set(FAILSLAB, "ignore-gfp-wait", "N") &&
	       fault_set(FAIL_PAGE_ALLOC, "ignore-gfp-wait", "N") &&
	       fault_set(FAIL_PAGE_ALLOC, "ignore-gfp-highmem", "N") &&
	       fault_set(FAIL_PAGE_ALLOC, "min-order", "0");
}

/* fail-nth and the stack filter, which the debug kernel alone has. */
static inline bool fault_injection_here(void)
{
	return !access(FAIL_NTH, W_OK) &&
	       !access("/sys/kernel/debug/failslab/require-start", W_OK);
}

/* This thread's @n-th failure point from now on fails; 0: none. */
static inline void fail_nth(int n)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", n);
	write_str(FAIL_NTH, text);
}

/* Whether the failure set up has come yet; fail-nth left as it is. */
static inline bool fail_nth_fired(void)
{
	char text[16] = "";

	return read_str(FAIL_NTH, text, sizeof(text)) && text[0] == '0';
}

/* Whether the failure set up was injected; fail-nth off either way. */
static inline bool fail_nth_done(void)
{
	bool fired = fail_nth_fired();

	fail_nth(0);
	return fired;
}

/* Where the module's @section is loaded, from sysfs; 0 if unknown. */
static inline unsigned long section_base(const char *section)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), "/sys/module/posixtrace/sections/%s",
		 section);
	return read_str(path, text, sizeof(text)) ?
	       strtoul(text, NULL, 16) : 0;
}

/*
 * One line of fault-sites.tab, a call that may fail (fault-map.sh says
 * how it is made): the call's return address, at @offset in @section,
 * FILE:LINE of the call in kmod/ and the function it calls.
 */
struct fault_site {
	char section[64];
	unsigned long offset;
	char source[128];
	char callee[128];
};

/* The next line of the table @f into @site; false at its end. */
static inline bool fault_site_next(FILE *f, struct fault_site *site)
{
	return fscanf(f, "%63s %lx %127s %127s", site->section, &site->offset,
		      site->source, site->callee) == 4;
}

#endif /* FAULT_COMMON_H */
