// SPDX-License-Identifier: GPL-2.0
/* --kernel=CLASSES (see kernel_classes.h). */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/posixtrace.h>
#include <posixtrace-k.h>

#include "kernel_classes.h"

void kernel_classes_init(struct kernel_classes *kc)
{
	memset(kc, 0, sizeof(*kc));
	kc->classes = POSIXTRACE_K_KERNEL_PROC | POSIXTRACE_K_KERNEL_SIGNAL;
}

const char *kernel_classes_check(struct kernel_classes *kc)
{
	if (!kc->calls.given || (kc->classes & POSIXTRACE_K_KERNEL_SYSCALL))
		return NULL;
	if (kc->explicit)
		return "--syscalls chooses among the syscall class's events: "
		       "add syscall to --kernel";
	kc->classes |= POSIXTRACE_K_KERNEL_SYSCALL;
	return NULL;
}

int kernel_classes_select(const struct kernel_classes *kc, trace_id_t trid)
{
	return syscall_select_apply(&kc->calls, trid);
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
		{ "syscall", POSIXTRACE_K_KERNEL_SYSCALL },
		{ "sched", POSIXTRACE_K_KERNEL_SCHED },
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

/*
 * The largest exec event's data: its argc and cut byte, the command name
 * (TASK_COMM_LEN, 16), and the path and four arguments, each cut at
 * POSIXTRACE_EXEC_STR_MAX with its NUL (<linux/posixtrace.h>).
 */
#define EXEC_DATA_MAX	(sizeof(uint32_t) + 1 + 16 + 5 * POSIXTRACE_EXEC_STR_MAX)

/*
 * The stream size for the kernel-rate classes when none is given: the
 * module gives each CPU's kbuf a share of the stream's size, and a
 * system-call-heavy program overruns a 1 MiB stream's shares between two
 * of the drain's turns (the design page has the measurements).
 */
#define RATE_STREAM_SIZE	((size_t)4 << 20)

int kernel_classes_apply(const struct kernel_classes *kc, trace_attr_t *attr,
			 bool max_data_given, bool stream_size_given)
{
	size_t max;
	int err = posixtrace_k_attr_setkernelevents(attr, kc->classes);

	if (!err && !stream_size_given &&
	    (kc->classes & (POSIXTRACE_K_KERNEL_SYSCALL |
			    POSIXTRACE_K_KERNEL_SCHED)))
		err = posix_trace_attr_setstreamsize(attr, RATE_STREAM_SIZE);
	/* The library's default would cut an exec with long arguments. */
	if (err || max_data_given || !(kc->classes & POSIXTRACE_K_KERNEL_PROC))
		return err;
	err = posix_trace_attr_getmaxdatasize(attr, &max);
	if (!err && max < EXEC_DATA_MAX)
		err = posix_trace_attr_setmaxdatasize(attr, EXEC_DATA_MAX);
	return err;
}

const char *kernel_classes_why(const struct kernel_classes *kc, int err)
{
	if (err == EPROTO)
		return " (the loaded module speaks another ABI than this "
		       "posixtrace: 'posixtrace version' says which)";
	if (err == EPERM && (kc->classes & (POSIXTRACE_K_KERNEL_SYSCALL |
					    POSIXTRACE_K_KERNEL_SCHED)))
		return " (the syscall and sched classes need CAP_PERFMON, "
		       "unless root sets the module's kernel_events_paranoid "
		       "to 0)";
	return "";
}
