// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's one handle on /dev/posixtrace, opened on first use.
 *
 * The descriptor is close-on-exec: exec shuts down the streams a process
 * created (POSIX), and a new image must not inherit a handle it never asked
 * for. A forked child shares it, which is right: the kernel identifies the
 * caller by the calling task, never by the descriptor.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "sys.h"

#define PTK_NSEC_PER_SEC 1000000000LL

static atomic_int ptk_fd = -1;
/* CLOCK_MONOTONIC_COARSE (ns) before which posix_trace_event() won't open. */
static _Atomic int64_t ptk_open_after;

/*
 * Returns 0 and the descriptor, or an error number from open(), or
 * EPROTO for a module of another ABI.
 */
int ptk_device_fd(int *fd)
{
	int cur = atomic_load_explicit(&ptk_fd, memory_order_acquire);
	int expected = -1, err;

	if (cur >= 0) {
		*fd = cur;
		return 0;
	}
	cur = ptk_sys_open(PTK_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (cur < 0)
		return errno;
	/* A module of another ABI is refused once, here: version.c. */
	err = ptk_abi_check(cur);
	if (err) {
		ptk_sys_close(cur);
		return err;
	}
	/* Two threads may race to open: the loser closes its own copy. */
	if (!atomic_compare_exchange_strong(&ptk_fd, &expected, cur)) {
		ptk_sys_close(cur);
		cur = expected;
	}
	*fd = cur;
	return 0;
}

/*
 * ptk_device_fd() for posix_trace_event(), which may run in a hot loop in a
 * program started before the module was loaded: after a failed open() it
 * tries again at most once a second, so it costs a vDSO clock read instead
 * of a system call, and the program starts tracing within a second of
 * insmod. Threads that find the time come may each try once: ptk_device_fd()
 * keeps one descriptor.
 */
int ptk_device_fd_throttled(int *fd)
{
	struct timespec ts;
	int64_t now;
	int cur = atomic_load_explicit(&ptk_fd, memory_order_acquire);
	int err;

	if (cur >= 0) {
		*fd = cur;
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (int64_t)ts.tv_sec * PTK_NSEC_PER_SEC + ts.tv_nsec;
	if (now < atomic_load_explicit(&ptk_open_after, memory_order_relaxed))
		return ENOENT;
	err = ptk_device_fd(fd);
	if (err)
		atomic_store_explicit(&ptk_open_after, now + PTK_NSEC_PER_SEC,
				      memory_order_relaxed);
	return err;
}

/* ioctl() that returns 0 or an error number, retrying on EINTR. */
int ptk_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ptk_sys_ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? errno : 0;
}

/*
 * The same without the retry, for the calls where POSIX wants EINTR back
 * (posix_trace_getnext_event(), posix_trace_timedgetnext_event()).
 */
int ptk_ioctl_once(int fd, unsigned long cmd, void *arg)
{
	return ptk_sys_ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

/* ptk_ioctl() for commands whose result is ioctl()'s value (a new fd). */
int ptk_ioctl_ret(int fd, unsigned long cmd, void *arg, int *ret)
{
	do {
		*ret = ptk_sys_ioctl(fd, cmd, arg);
	} while (*ret < 0 && errno == EINTR);
	return *ret < 0 ? errno : 0;
}
