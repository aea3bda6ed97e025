// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/posixtrace: the misc device every ioctl of the ABI goes through.
 *
 * The device is world read-write: any user may trace their own processes,
 * and each command checks its own permissions.
 */

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/posixtrace.h>
#include <linux/string.h>

#include "device.h"
#include "ustruct.h"

/*
 * Extensible structs carry their own size, so the size encoded in a command
 * number (that of the struct's first version) is left out of the match.
 */
#define POSIXTRACE_IOC_ID(cmd)	((cmd) & ~IOCSIZE_MASK)

static long posixtrace_ioctl_version(struct posixtrace_version __user *uver)
{
	struct posixtrace_version ver;
	u32 usize;
	int ret;

	ret = posixtrace_struct_from_user(&ver, sizeof(ver), uver,
					  POSIXTRACE_VERSION_SIZE_VER0);
	if (ret)
		return ret;
	if (ver.flags || ver.__reserved)
		return -EINVAL;

	usize = ver.size;
	memset(&ver, 0, sizeof(ver));
	ver.size = sizeof(ver);
	ver.major = POSIXTRACE_ABI_MAJOR;
	ver.minor = POSIXTRACE_ABI_MINOR;
	return posixtrace_struct_to_user(uver, usize, &ver, sizeof(ver));
}

static long posixtrace_dev_ioctl(struct file *file, unsigned int cmd,
				 unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (POSIXTRACE_IOC_ID(cmd)) {
	case POSIXTRACE_IOC_ID(POSIXTRACE_IOC_VERSION):
		return posixtrace_ioctl_version(uarg);
	}
	return -ENOTTY;
}

static const struct file_operations posixtrace_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= posixtrace_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice posixtrace_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= POSIXTRACE_DEVICE_NAME,
	.fops	= &posixtrace_dev_fops,
	.mode	= 0666,
};

int posixtrace_device_init(void)
{
	return misc_register(&posixtrace_miscdev);
}

void posixtrace_device_exit(void)
{
	misc_deregister(&posixtrace_miscdev);
}
