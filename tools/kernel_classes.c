// SPDX-License-Identifier: GPL-2.0
/* --kernel=CLASSES (see kernel_classes.h). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <posixtrace-k.h>

#include "kernel_classes.h"

void kernel_classes_init(struct kernel_classes *kc)
{
	kc->classes = POSIXTRACE_K_KERNEL_PROC | POSIXTRACE_K_KERNEL_SIGNAL;
	kc->explicit = false;
}

/* One name of the list, len bytes at p: its bits, or -1. */
static long class_bits(const char *p, size_t len)
{
	static const struct {
		const char *name;
		unsigned int bits;
	} names[] = {
		{ "proc", POSIXTRACE_K_KERNEL_PROC },
		{ "signal", POSIXTRACE_K_KERNEL_SIGNAL },
		{ "all", POSIXTRACE_K_KERNEL_ALL },
		{ "none", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len &&
		    !memcmp(names[i].name, p, len))
			return names[i].bits;
	return -1;
}

int kernel_classes_parse(struct kernel_classes *kc, const char *text)
{
	unsigned int classes = 0;
	const char *p = text;
	size_t len;
	long bits;

	do {
		len = strcspn(p, ",");
		bits = class_bits(p, len);
		if (bits < 0)
			return -1;
		classes |= (unsigned int)bits;
		p += len;
	} while (*p++ == ',');
	kc->classes = classes;
	kc->explicit = true;
	return 0;
}

int kernel_classes_apply(const struct kernel_classes *kc, trace_attr_t *attr)
{
	return posixtrace_k_attr_setkernelevents(attr, kc->classes);
}

bool kernel_classes_fallback(struct kernel_classes *kc, int err,
			     trace_attr_t *attr, const char *prog)
{
	if (err != ENOTSUP || !kc->classes || kc->explicit)
		return false;
	fprintf(stderr, "%s: warning: the loaded module is older than ABI "
		"0.12 and records no kernel events: user events only\n", prog);
	kc->classes = 0;
	posixtrace_k_attr_setkernelevents(attr, 0);
	return true;
}

const char *kernel_classes_why(const struct kernel_classes *kc, int err)
{
	if (err == ENOTSUP && kc->classes)
		return " (the loaded module is older than ABI 0.12 and records "
		       "no kernel events: --kernel=none records user events "
		       "only)";
	return "";
}
