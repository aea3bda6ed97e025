// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which ABI the loaded module speaks, and whether the library may use it:
 * the library is built against one ABI (<linux/posixtrace.h>) and uses
 * every command and member of it, so the module must speak the same major
 * version, at the same minor or a later one (the compatibility policy:
 * Documentation/userspace-api/posixtrace-abi.rst). It is asked once, when
 * the library first opens the device; anything else is EPROTO, which
 * posixtrace_k_abi_version() then explains.
 */

#include <errno.h>
#include <fcntl.h>

#include <linux/posixtrace.h>
#include <posixtrace-k.h>

#include "internal.h"
#include "sys.h"

/*
 * Do the module's @major.@minor serve a library built for @major.@need
 * (this header's)? (@need a parameter: the comparison stays one when the
 * header's minor is 0.)
 */
static int ptk_abi_usable(unsigned int major, unsigned int minor,
			  unsigned int need)
{
	return major == POSIXTRACE_ABI_MAJOR && minor >= need;
}

/* 0 if the module on @fd is one this library may use, else EPROTO. */
int ptk_abi_check(int fd)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };

	/* Not even VERSION (another driver's node, say): not ours either. */
	if (ptk_ioctl(fd, POSIXTRACE_IOC_VERSION, &ver))
		return EPROTO;
	return ptk_abi_usable(ver.major, ver.minor, POSIXTRACE_ABI_MINOR) ?
	       0 : EPROTO;
}

/*
 * On a descriptor of its own: the library's (ptk_device_fd()) is refused
 * when the versions do not match, which is when this is asked.
 */
PTK_EXPORT int posixtrace_k_abi_version(unsigned int *major,
					unsigned int *minor)
{
	PTK_KEEP_ERRNO;
	struct posixtrace_version ver = { .size = sizeof(ver) };
	int fd, err;

	if (!major || !minor)
		return EINVAL;
	fd = ptk_sys_open(PTK_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	err = ptk_ioctl(fd, POSIXTRACE_IOC_VERSION, &ver);
	ptk_sys_close(fd);
	if (err)
		return err;
	*major = ver.major;
	*minor = ver.minor;
	return 0;
}
