/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --kernel=CLASSES of record and trace: which kernel events a
 * stream records besides the traced program's own. CLASSES is a comma
 * list of "proc" (fork, exec, exit), "signal" (generated, delivered),
 * "syscall" and "sched", or "all", or "none" (user events only). Without
 * the option: proc,signal.
 */
#ifndef POSIXTRACE_TOOL_KERNEL_CLASSES_H
#define POSIXTRACE_TOOL_KERNEL_CLASSES_H

#include <stdbool.h>

#include <trace.h>

#include "syscall_select.h"

#define KERNEL_CLASSES_DEFAULT	"proc,signal"

struct kernel_classes {
	unsigned int classes;		/* POSIXTRACE_K_KERNEL_* */
	bool explicit;			/* --kernel was given */
	struct syscall_select calls;	/* --syscalls */
};

/* Sets the default, not explicit. */
void kernel_classes_init(struct kernel_classes *kc);
/* --kernel's argument: 0, or -1 if it is not a list of classes. */
int kernel_classes_parse(struct kernel_classes *kc, const char *text);
/*
 * After the options: --syscalls adds the syscall class to the default
 * classes, and is a usage error (its text returned) with an explicit
 * --kernel that leaves the class out; else NULL.
 */
const char *kernel_classes_check(struct kernel_classes *kc);
/* Once the stream is created: its selection of calls, if any. */
int kernel_classes_select(const struct kernel_classes *kc, trace_id_t trid);
/*
 * Puts them in attr; with proc a max data size that keeps a whole exec
 * event, and with syscall or sched a stream of 4 MiB, unless the user
 * chose them: 0 or the library's error.
 */
int kernel_classes_apply(const struct kernel_classes *kc, trace_attr_t *attr,
			 bool max_data_given, bool stream_size_given);

/* What to add to the message of err, posix_trace_create*()'s. */
const char *kernel_classes_why(const struct kernel_classes *kc, int err);

#endif /* POSIXTRACE_TOOL_KERNEL_CLASSES_H */
