// SPDX-License-Identifier: LGPL-2.1-or-later
/* posixtrace_k_abi_version(): which ABI the loaded module speaks. */

#include <linux/posixtrace.h>
#include <posixtrace-k.h>

#include "internal.h"

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
