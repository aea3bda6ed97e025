// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/posixtrace and the rules every ioctl of its ABI follows: the version
 * command, unknown commands, and the extensible-struct copy-in rules (one
 * negative case per rule).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/posixtrace.h>

#include "../kselftest_harness.h"

#define DEVICE "/dev/posixtrace"

/* A caller built against a newer header: the struct grew by 8 bytes. */
struct version_v1 {
	struct posixtrace_version v0;
	uint64_t future;
};

FIXTURE(device) {
	int fd;
};

FIXTURE_SETUP(device)
{
	self->fd = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, DEVICE " missing: is posixtrace.ko loaded?");
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(device)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(device, is_world_rw_char_device)
{
	struct stat st;

	ASSERT_EQ(0, fstat(self->fd, &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	ASSERT_EQ(0666, st.st_mode & 0777);
}

TEST_F(device, is_not_seekable)
{
	ASSERT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	ASSERT_EQ(ESPIPE, errno);
}

TEST_F(device, version_reports_abi)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };

	ver.major = 0xffff;
	ver.minor = 0xffff;
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_VERSION, &ver));
	ASSERT_EQ(POSIXTRACE_ABI_MAJOR, ver.major);
	ASSERT_EQ(POSIXTRACE_ABI_MINOR, ver.minor);
	ASSERT_EQ(sizeof(ver), ver.size);
	ASSERT_EQ(0, ver.flags);
	ASSERT_EQ(0, ver.__reserved);
}

TEST_F(device, version_from_newer_caller_with_zero_tail)
{
	struct version_v1 ver;
	unsigned long cmd = _IOWR(POSIXTRACE_IOC_MAGIC, 0x00, struct version_v1);

	memset(&ver, 0, sizeof(ver));
	ver.v0.size = sizeof(ver);
	ASSERT_EQ(0, ioctl(self->fd, cmd, &ver));
	ASSERT_EQ(POSIXTRACE_ABI_MAJOR, ver.v0.major);
	/* The module tells the caller how much of the struct it knows. */
	ASSERT_EQ(sizeof(struct posixtrace_version), ver.v0.size);
	ASSERT_EQ(0, ver.future);
}

TEST_F(device, version_rejects_unknown_nonzero_tail)
{
	struct version_v1 ver;

	memset(&ver, 0, sizeof(ver));
	ver.v0.size = sizeof(ver);
	ver.future = 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_VERSION, &ver));
	ASSERT_EQ(E2BIG, errno);
}

TEST_F(device, version_rejects_size_below_ver0)
{
	struct posixtrace_version ver = { .size = POSIXTRACE_VERSION_SIZE_VER0 - 1 };

	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_VERSION, &ver));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(device, version_rejects_size_zero)
{
	struct posixtrace_version ver = { .size = 0 };

	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_VERSION, &ver));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(device, version_rejects_size_above_page)
{
	static char page[2 * 65536];
	struct posixtrace_version *ver = (void *)page;

	ver->size = sysconf(_SC_PAGESIZE) + 1;
	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_VERSION, ver));
	ASSERT_EQ(E2BIG, errno);
}

TEST_F(device, version_rejects_unknown_flags)
{
	struct posixtrace_version ver = { .size = sizeof(ver), .flags = 1 };

	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_VERSION, &ver));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(device, version_rejects_nonzero_reserved)
{
	struct posixtrace_version ver = { .size = sizeof(ver), .__reserved = 1 };

	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_VERSION, &ver));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(device, version_rejects_bad_pointer)
{
	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_VERSION, NULL));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_VERSION, (void *)8));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(device, unknown_command_number_is_enotty)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };
	unsigned long cmd = _IOWR(POSIXTRACE_IOC_MAGIC, 0xff,
				  struct posixtrace_version);

	ASSERT_EQ(-1, ioctl(self->fd, cmd, &ver));
	ASSERT_EQ(ENOTTY, errno);
}

TEST_F(device, foreign_magic_is_enotty)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };
	unsigned long cmd = _IOWR(POSIXTRACE_IOC_MAGIC + 1, 0x00,
				  struct posixtrace_version);

	ASSERT_EQ(-1, ioctl(self->fd, cmd, &ver));
	ASSERT_EQ(ENOTTY, errno);
}

TEST_F(device, wrong_direction_is_enotty)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };
	unsigned long cmd = _IOR(POSIXTRACE_IOC_MAGIC, 0x00,
				 struct posixtrace_version);

	ASSERT_EQ(-1, ioctl(self->fd, cmd, &ver));
	ASSERT_EQ(ENOTTY, errno);
}

TEST(unprivileged_user_may_open)
{
	pid_t pid;
	int status;

	if (getuid() != 0)
		SKIP(return, "needs root to switch to an unprivileged user");
	if (access(DEVICE, F_OK))
		SKIP(return, DEVICE " missing: is posixtrace.ko loaded?");
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct posixtrace_version ver = { .size = sizeof(ver) };
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = open(DEVICE, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(3);
		_exit(ioctl(fd, POSIXTRACE_IOC_VERSION, &ver) ? 4 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
