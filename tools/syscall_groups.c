// SPDX-License-Identifier: GPL-2.0
/*
 * strace's classes of system calls, by name (see syscall_groups.h): the
 * calls strace 6.x marks TF (%file), TP (%process), TN (%network), TS
 * (%signal) and TM (%memory) in src/linux/x86_64/syscallent.h and
 * src/linux/generic/syscallent-common.h (LGPL-2.1-or-later). Names this
 * machine's headers do not have (newer calls) match nothing.
 */

#include <stddef.h>
#include <string.h>

#include "syscall_groups.h"

static const char *const file_calls[] = {
	"access", "acct", "chdir", "chmod", "chown", "chroot", "creat",
	"execve", "execveat", "faccessat", "faccessat2", "fanotify_mark",
	"fchmodat", "fchmodat2", "fchownat", "file_getattr", "file_setattr",
	"fsconfig", "fspick", "futimesat", "getcwd", "getxattr", "getxattrat",
	"inotify_add_watch", "lchown", "lgetxattr", "link", "linkat",
	"listxattr", "listxattrat", "llistxattr", "lremovexattr", "lsetxattr",
	"lstat", "mkdir", "mkdirat", "mknod", "mknodat", "mount",
	"mount_setattr", "move_mount", "name_to_handle_at", "newfstatat",
	"open", "open_tree", "open_tree_attr", "openat", "openat2",
	"pivot_root", "quotactl", "readlink", "readlinkat", "removexattr",
	"removexattrat", "rename", "renameat", "renameat2", "rmdir",
	"setxattr", "setxattrat", "stat", "statfs", "statx", "swapoff",
	"swapon", "symlink", "symlinkat", "truncate", "umount2", "unlink",
	"unlinkat", "uselib", "utime", "utimensat", "utimes",
	/* The 32-bit table's names of the same calls. */
	"chown32", "lchown32", "fstatat64", "lstat64", "stat64", "statfs64",
	"truncate64", "oldlstat", "oldstat", "umount", "readdir",
	NULL,
};

static const char *const process_calls[] = {
	"clone", "clone3", "execve", "execveat", "exit", "exit_group", "fork",
	"kill", "pidfd_send_signal", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
	"tgkill", "tkill", "vfork", "wait4", "waitid", "waitpid",
	NULL,
};

static const char *const network_calls[] = {
	"accept", "accept4", "bind", "connect", "getpeername", "getpmsg",
	"getsockname", "getsockopt", "listen", "putpmsg", "recvfrom",
	"recvmmsg", "recvmsg", "sendfile", "sendmmsg", "sendmsg", "sendto",
	"setsockopt", "shutdown", "socket", "socketpair",
	"sendfile64", "socketcall", "recvmmsg_time64",
	NULL,
};

static const char *const signal_calls[] = {
	"io_uring_enter", "kill", "pause", "pidfd_send_signal",
	"rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigqueueinfo",
	"rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait",
	"rt_tgsigqueueinfo", "sigaltstack", "signalfd", "signalfd4", "tgkill",
	"tkill",
	"sigaction", "signal", "sigpending", "sigprocmask", "sigreturn",
	"sigsuspend", "sgetmask", "ssetmask", "rt_sigtimedwait_time64",
	NULL,
};

static const char *const memory_calls[] = {
	"brk", "get_mempolicy", "io_destroy", "io_setup", "io_uring_register",
	"madvise", "map_shadow_stack", "mbind", "migrate_pages", "mincore",
	"mlock", "mlock2", "mlockall", "mmap", "move_pages", "mprotect",
	"mremap", "mseal", "msync", "munlock", "munlockall", "munmap",
	"pkey_mprotect", "remap_file_pages", "set_mempolicy",
	"set_mempolicy_home_node", "shmat", "shmdt",
	"mmap2",
	NULL,
};

static const struct {
	const char *name;
	const char *const *calls;
} groups[] = {
	{ "file", file_calls },
	{ "process", process_calls },
	{ "network", network_calls },
	{ "net", network_calls },
	{ "signal", signal_calls },
	{ "memory", memory_calls },
};

const char *const *syscall_group(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		if (strlen(groups[i].name) == len &&
		    !memcmp(groups[i].name, name, len))
			return groups[i].calls;
	return NULL;
}
