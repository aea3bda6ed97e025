/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * posixtrace: the kernel ABI behind the POSIX Tracing option (<trace.h>).
 *
 * The module registers the misc device /dev/posixtrace. Everything is an
 * ioctl on that device (or, later, on the file descriptors it hands out).
 *
 * Conventions, the same for every command:
 *  - Every argument is an extensible struct whose first member is
 *    "__u32 size": the size of the struct as the caller knows it. The
 *    kernel accepts any size from the first published version of the struct
 *    (..._SIZE_VER0) up to PAGE_SIZE; bytes it does not know must be zero
 *    (else E2BIG). A size below ..._SIZE_VER0 is EINVAL, above PAGE_SIZE is
 *    E2BIG. On output the kernel stores in "size" the size it knows, and
 *    copies out no more than the caller's size.
 *  - The size encoded in the command number is that of the first version of
 *    the struct and is not used for dispatch, so a caller built against a
 *    newer header still reaches an older module.
 *  - "flags" members reject unknown bits with EINVAL; reserved members must
 *    be zero (EINVAL otherwise).
 *  - User pointers are carried as __u64.
 *  - An unknown command is ENOTTY.
 */
#ifndef _UAPI_LINUX_POSIXTRACE_H
#define _UAPI_LINUX_POSIXTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define POSIXTRACE_DEVICE_NAME	"posixtrace"

/*
 * The ABI version. The major number changes when a command changes
 * incompatibly (never, we hope); the minor when commands or struct members
 * are added.
 */
#define POSIXTRACE_ABI_MAJOR	0
#define POSIXTRACE_ABI_MINOR	1

/* See Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define POSIXTRACE_IOC_MAGIC	0xB9

/**
 * struct posixtrace_version - the ABI version of the loaded module
 * @size:	Input: sizeof(struct posixtrace_version) as the caller knows it.
 *		Output: the size the module knows.
 * @flags:	Input: no flags are defined; must be 0.
 * @major:	Output: POSIXTRACE_ABI_MAJOR of the module.
 * @minor:	Output: POSIXTRACE_ABI_MINOR of the module.
 * @__reserved:	Input: must be 0.
 */
struct posixtrace_version {
	__u32 size;
	__u32 flags;
	__u16 major;
	__u16 minor;
	__u32 __reserved;
};

#define POSIXTRACE_VERSION_SIZE_VER0	16

/* Query the ABI version; the only command needing no open stream. */
#define POSIXTRACE_IOC_VERSION \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x00, struct posixtrace_version)

#endif /* _UAPI_LINUX_POSIXTRACE_H */
