/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _POSIXTRACE_USTRUCT_H
#define _POSIXTRACE_USTRUCT_H

#include <linux/types.h>

int posixtrace_struct_from_user(void *dst, size_t ksize,
				const void __user *src, size_t min_size);
int posixtrace_struct_to_user(void __user *dst, u32 usize,
			      const void *src, size_t ksize);

#endif /* _POSIXTRACE_USTRUCT_H */
