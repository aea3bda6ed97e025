/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_USTRUCT_H
#define _POSIXTRACE_USTRUCT_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Extensible structs carry their own size, so the size encoded in a command
 * number (that of the struct's first version) is left out of the match.
 */
#define POSIXTRACE_IOC_ID(cmd)	((cmd) & ~IOCSIZE_MASK)

int posixtrace_struct_from_user(void *dst, size_t ksize,
				const void __user *src, size_t min_size);
int posixtrace_struct_to_user(void __user *dst, u32 usize,
			      const void *src, size_t ksize);

#endif /* _POSIXTRACE_USTRUCT_H */
