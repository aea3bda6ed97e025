// SPDX-License-Identifier: GPL-2.0
/*
 * Copying the ABI's extensible structs across the user boundary.
 *
 * Every struct starts with "__u32 size" (see the uapi header). The rules live
 * here once, so that no ioctl handler can get them subtly different.
 */

#include <linux/mm.h>
#include <linux/uaccess.h>

#include "ustruct.h"

/**
 * posixtrace_struct_from_user - copy in an extensible struct
 * @dst: kernel copy, @ksize bytes; zero-filled past what the caller sent
 * @ksize: the size of the struct this module knows
 * @src: the user's struct
 * @min_size: the size of the first published version of the struct
 *
 * The caller's size is left in the first u32 of @dst.
 *
 * Return: 0, -EFAULT, -E2BIG for a size past PAGE_SIZE or non-zero bytes
 * this module does not know, or -EINVAL for a size below @min_size.
 */
int posixtrace_struct_from_user(void *dst, size_t ksize,
				const void __user *src, size_t min_size)
{
	u32 usize;
	int ret;

	if (get_user(usize, (const u32 __user *)src))
		return -EFAULT;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	if (usize < min_size)
		return -EINVAL;
	ret = copy_struct_from_user(dst, ksize, src, usize);
	/* The size read again may differ: keep the one that was checked. */
	*(u32 *)dst = usize;
	return ret;
}

/**
 * posixtrace_struct_to_user - copy out an extensible struct
 * @dst: the user's struct
 * @usize: the size the caller gave on input
 * @src: the kernel copy, fully initialised (padding included)
 * @ksize: the size of the struct this module knows
 *
 * Never writes past what the caller said it has.
 *
 * Return: 0 or -EFAULT.
 */
int posixtrace_struct_to_user(void __user *dst, u32 usize,
			      const void *src, size_t ksize)
{
	if (copy_to_user(dst, src, min_t(size_t, usize, ksize)))
		return -EFAULT;
	return 0;
}
