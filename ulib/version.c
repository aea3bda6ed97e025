// SPDX-License-Identifier: LGPL-2.1-or-later
/* posixtrace_k_abi_version(): which ABI the loaded module speaks. */

#include <linux/posixtrace.h>
#include <posixtrace-k.h>

#include "internal.h"

/* 0 if the module on fd speaks major.minor or later, else ENOTSUP. */
int ptk_abi_at_least(int fd, unsigned int major, unsigned int minor)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };
	int err = ptk_ioctl(fd, POSIXTRACE_IOC_VERSION, &ver);

	if (err)
		return err;
	if (ver.major != major)
		return ver.major > major ? 0 : ENOTSUP;
	return ver.minor >= minor ? 0 : ENOTSUP;
}

PTK_EXPORT int posixtrace_k_abi_version(unsigned int *major,
					unsigned int *minor)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_version ver = { .size = sizeof(ver) };
	int fd, err;

	if (!major || !minor)
		return EINVAL;
	err = ptk_device_fd(&fd);
	if (err)
		return err;
	err = ptk_ioctl(fd, POSIXTRACE_IOC_VERSION, &ver);
	if (err)
		return err;
	*major = ver.major;
	*minor = ver.minor;
	return 0;
}
