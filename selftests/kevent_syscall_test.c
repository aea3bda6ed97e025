// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events of the syscall class: a traced thread's
 * system calls, entry (number and argument registers) and exit (return
 * value), in order with its own user events; only a traced process's;
 * refused to a user without CAP_PERFMON unless root allows every user;
 * the probes on only while a stream wants the class.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>

#include "kevent_common.h"

#define LSEEK_TO	12345
#define UNTRACED_TO	54321

/*
 * One expected system-call event: entry with the first @nargs arguments
 * (the others are whatever the registers held), its cut bits, paths and
 * address; or exit with @ret.
 */
struct sys_want {
	trace_event_id_t id;
	long nr;
	int nargs;
	int64_t args[6];
	int64_t ret;
	bool any_ret;		/* any value but an error */
	int cut;
	const char *path, *path2;
	const void *addr;
	size_t addr_len;
};

#define WANT_ENTRY(_nr, _n, ...) \
	{ .id = KEV_SYS_ENTRY, .nr = (_nr), .nargs = (_n), .args = { __VA_ARGS__ } }
#define WANT_RET(_nr, _ret) \
	{ .id = KEV_SYS_EXIT, .nr = (_nr), .ret = (_ret) }

/* Does e, an event of thread tid of process pid, match w? */
static bool sys_is(const struct kev *e, pid_t pid, pid_t tid,
		   const struct sys_want *w)
{
	struct kev_val v;
	int i;

	if (e->info.posix_event_id != w->id || e->info.posix_pid != pid ||
	    e->tid != tid || !kev_values(e, &v))
		return false;
	/* nr, compat, then the arguments or the return value. */
	if (v.v[0] != w->nr || v.v[1] != 0)
		return false;
	if (w->id == KEV_SYS_EXIT)
		return w->any_ret ? v.v[2] >= 0 : v.v[2] == w->ret;
	for (i = 0; i < w->nargs; i++)
		if (v.v[2 + i] != w->args[i])
			return false;
	/* cut, path, path2, then the address's bytes (their count in v). */
	return v.v[8] == w->cut && !strcmp(v.s[9], w->path ? w->path : "") &&
	       !strcmp(v.s[10], w->path2 ? w->path2 : "") &&
	       v.v[11] == (int64_t)w->addr_len &&
	       !memcmp(v.s[11], w->addr, w->addr_len);
}

/* The index in l of the user event named name, or -1. */
static int find_mark(const struct kevs *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->ev[i].name, name))
			return i;
	return -1;
}

/*
 * Is e a system-call event of the marks themselves? Without rings
 * (posixtrace.rings=off) a user event is an ioctl(), which the tests'
 * calls never are.
 */
static bool mark_call(const struct kev *e)
{
	struct kev_val v;

	return (e->info.posix_event_id == KEV_SYS_ENTRY ||
		e->info.posix_event_id == KEV_SYS_EXIT) &&
	       kev_values(e, &v) && v.v[0] == SYS_ioctl;
}

/*
 * The events of l strictly between the marks "kev.before" and
 * "kev.after", the marks' own calls left out, must be exactly want, n of
 * them, all of thread pid.
 */
static int sys_between(const struct kevs *l, pid_t pid,
		       const struct sys_want *want, int n)
{
	int from = find_mark(l, "kev.before"), to = find_mark(l, "kev.after");
	const struct kev *between[64];
	int i, bad = 0, k = 0;
	char got[512];

	if (from < 0 || to < from) {
		fprintf(stderr, "# marks at %d and %d\n", from, to);
		return 1;
	}
	for (i = from + 1; i < to && k < 64; i++)
		if (!mark_call(&l->ev[i]))
			between[k++] = &l->ev[i];
	if (k != n) {
		fprintf(stderr, "# %d events between the marks, %d expected\n",
			k, n);
		bad++;
	}
	for (i = 0; i < n && i < k; i++) {
		if (sys_is(between[i], pid, pid, &want[i]))
			continue;
		kev_describe(between[i], got, sizeof(got));
		fprintf(stderr, "# [%d] expected %s nr %ld, got %s\n", i,
			want[i].id == KEV_SYS_ENTRY ? "entry" : "exit",
			want[i].nr, got);
		bad++;
	}
	return bad;
}

/* What a traced child does between its marks; 0, or the step that failed. */
struct sys_case {
	int (*calls)(struct sys_case *c);
	int fd;
	char path[512], path2[64];
	struct sockaddr_un sun;
	void *gone;		/* an address nothing maps */
	unsigned char big[200];	/* an address longer than any */
};

/*
 * The child: its event types are opened and a first event made
 * beforehand, so that nothing between the marks makes a system call but
 * the case's calls (the marks go to its ring).
 */
static int calls_between_marks(void *arg)
{
	trace_event_id_t warm, before, after;
	struct sys_case *c = arg;
	int v = 0, ret;

	if (posix_trace_eventid_open("kev.warm", &warm) ||
	    posix_trace_eventid_open("kev.before", &before) ||
	    posix_trace_eventid_open("kev.after", &after))
		return 1;
	posix_trace_event(warm, &v, sizeof(v));
	posix_trace_event(before, &v, sizeof(v));
	ret = c->calls(c);
	posix_trace_event(after, &v, sizeof(v));
	return ret ? 10 + ret : 0;
}

static int seek_and_close(struct sys_case *c)
{
	if (lseek(c->fd, LSEEK_TO, SEEK_SET) != LSEEK_TO)
		return 1;
	if (close(-1) != -1 || errno != EBADF)
		return 2;
	return 0;
}

/* Run case c in a traced child; its events between its marks must be want. */
static int run_case(struct sys_case *c, const struct sys_want *want, int n)
{
	struct kev_child k;
	struct kevs l = { 0 };
	int ret;

	ret = kev_child_run(&k, POSIXTRACE_K_KERNEL_SYSCALL,
			    calls_between_marks, c, &l);
	if (ret)
		return -ret;
	if (k.status) {
		fprintf(stderr, "# the child's status %#x\n", k.status);
		ret = 1;
	} else {
		ret = sys_between(&l, k.pid, want, n);
	}
	kevs_free(&l);
	posix_trace_shutdown(k.trid);
	return ret;
}

/*
 * A call that succeeds and one that fails: each entry with its number and
 * arguments, each exit with its return value (-EBADF), between the
 * thread's own events made before and after, and nothing else there.
 */
TEST(calls_are_recorded_with_arguments_and_returns_in_order)
{
	const struct sys_want want[] = {
		WANT_ENTRY(SYS_lseek, 3, 0, LSEEK_TO, SEEK_SET),
		WANT_RET(SYS_lseek, LSEEK_TO),
		/* An int's -1, as the 64-bit register holds it. */
		WANT_ENTRY(SYS_close, 1, UINT32_MAX),
		WANT_RET(SYS_close, -EBADF),
	};
	struct sys_want w[ARRAY_LEN(want)];
	struct sys_case c = { .calls = seek_and_close };

	SKIP_WITHOUT_DEVICE();
	c.fd = memfd_create("kev.sys", MFD_CLOEXEC);
	ASSERT_LE(0, c.fd);
	memcpy(w, want, sizeof(w));
	w[0].args[0] = c.fd;
	EXPECT_EQ(0, run_case(&c, w, ARRAY_LEN(w)));
	close(c.fd);
}

static int open_rename_unlink(struct sys_case *c)
{
	int fd = openat(AT_FDCWD, c->path, O_CREAT | O_WRONLY | O_CLOEXEC,
			0600);

	if (fd < 0)
		return 1;
	if (close(fd))
		return 2;
	if (renameat(AT_FDCWD, c->path, AT_FDCWD, c->path2))
		return 3;
	if (syscall(SYS_unlink, c->path2))
		return 4;
	return 0;
}

/* What the case's calls must record between the marks. */
static int paths_want(struct sys_case *c)
{
	const struct sys_want want[] = {
		{ .id = KEV_SYS_ENTRY, .nr = SYS_openat, .nargs = 1,
		  .args = { (uint32_t)AT_FDCWD }, .path = c->path },
		{ .id = KEV_SYS_EXIT, .nr = SYS_openat, .any_ret = true },
		WANT_ENTRY(SYS_close, 0),
		WANT_RET(SYS_close, 0),
		{ .id = KEV_SYS_ENTRY, .nr = SYS_renameat, .path = c->path,
		  .path2 = c->path2 },
		WANT_RET(SYS_renameat, 0),
		{ .id = KEV_SYS_ENTRY, .nr = SYS_unlink, .path = c->path2 },
		WANT_RET(SYS_unlink, 0),
	};

	return run_case(c, want, ARRAY_LEN(want));
}

/*
 * The open, rename and unlink families carry their paths, as the call
 * found them; close, which has none, carries none.
 */
TEST(paths_are_recorded_with_their_calls)
{
	struct sys_case c = { .calls = open_rename_unlink };

	SKIP_WITHOUT_DEVICE();
	snprintf(c.path, sizeof(c.path), "/tmp/kev.path.%d", getpid());
	snprintf(c.path2, sizeof(c.path2), "/tmp/kev.path2.%d", getpid());
	EXPECT_EQ(0, paths_want(&c));
}

static int open_bad_paths(struct sys_case *c)
{
	/* Too long (ENOENT: no such directory), unmapped, the kernel's, NULL. */
	if (openat(AT_FDCWD, c->path, O_RDONLY) != -1 || errno != ENOENT)
		return 1;
	if (openat(AT_FDCWD, c->gone, O_RDONLY) != -1 || errno != EFAULT)
		return 2;
	if (openat(AT_FDCWD, (char *)0xffffffff81000000ul, O_RDONLY) != -1 ||
	    errno != EFAULT)
		return 3;
	if (syscall(SYS_openat, AT_FDCWD, NULL, O_RDONLY) != -1 ||
	    errno != EFAULT)
		return 4;
	return 0;
}

/* What the case's calls must record between the marks. */
static int bad_paths_want(struct sys_case *c)
{
	char cut[POSIXTRACE_SYSCALL_PATH_MAX];
	const struct sys_want want[] = {
		{ .id = KEV_SYS_ENTRY, .nr = SYS_openat, .path = cut,
		  .cut = POSIXTRACE_SYSCALL_CUT_PATH },
		WANT_RET(SYS_openat, -ENOENT),
		{ .id = KEV_SYS_ENTRY, .nr = SYS_openat, .path = "",
		  .cut = POSIXTRACE_SYSCALL_CUT_PATH },
		WANT_RET(SYS_openat, -EFAULT),
		{ .id = KEV_SYS_ENTRY, .nr = SYS_openat, .path = "",
		  .cut = POSIXTRACE_SYSCALL_CUT_PATH },
		WANT_RET(SYS_openat, -EFAULT),
		/* NULL is no path, not one that could not be read. */
		{ .id = KEV_SYS_ENTRY, .nr = SYS_openat, .path = "" },
		WANT_RET(SYS_openat, -EFAULT),
	};

	memcpy(cut, c->path, sizeof(cut) - 1);
	cut[sizeof(cut) - 1] = '\0';
	return run_case(c, want, ARRAY_LEN(want));
}

/*
 * A path longer than the event holds is cut at 255 bytes and marked; one
 * at an unmapped address, or the kernel's, is empty and marked, NULL is
 * empty and whole, and each call fails as it would untraced.
 */
TEST(long_unmapped_and_kernel_paths_are_cut_or_empty)
{
	struct sys_case c = { .calls = open_bad_paths };
	int i;

	SKIP_WITHOUT_DEVICE();
	/* 400 bytes under a directory that is not there: a/aaaaaaaaa/... */
	strcpy(c.path, "/tmp/kev.none");
	for (i = strlen(c.path); i < 400; i++)
		c.path[i] = i % 10 ? 'a' : '/';
	c.path[400] = '\0';
	/* Below vm.mmap_min_addr: never mapped. */
	c.gone = (void *)4096;
	EXPECT_EQ(0, bad_paths_want(&c));
}

static int connect_nowhere(struct sys_case *c)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 1;
	if (connect(fd, (struct sockaddr *)&c->sun, sizeof(c->sun)) != -1 ||
	    errno != ENOENT)
		return 2;
	return 0;
}

/* What the case's calls must record between the marks. */
static int connect_want(struct sys_case *c)
{
	const struct sys_want want[] = {
		WANT_ENTRY(SYS_socket, 1, AF_UNIX),
		{ .id = KEV_SYS_EXIT, .nr = SYS_socket, .any_ret = true },
		{ .id = KEV_SYS_ENTRY, .nr = SYS_connect,
		  .addr = &c->sun, .addr_len = sizeof(c->sun) },
		WANT_RET(SYS_connect, -ENOENT),
	};

	return run_case(c, want, ARRAY_LEN(want));
}

/* connect() carries its address, as many bytes as the call was given. */
TEST(connect_carries_its_address)
{
	struct sys_case c = { .calls = connect_nowhere };

	SKIP_WITHOUT_DEVICE();
	c.sun.sun_family = AF_UNIX;
	snprintf(c.sun.sun_path, sizeof(c.sun.sun_path), "/tmp/kev.nowhere.%d",
		 getpid());
	EXPECT_EQ(0, connect_want(&c));
}

static int connect_bad_addresses(struct sys_case *c)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 1;
	if (connect(fd, (struct sockaddr *)c->big, sizeof(c->big)) != -1 ||
	    errno != EINVAL)
		return 2;
	if (connect(fd, c->gone, sizeof(struct sockaddr_un)) != -1 ||
	    errno != EFAULT)
		return 3;
	if (connect(fd, (struct sockaddr *)c->big, (socklen_t)-1) != -1 ||
	    errno != EINVAL)
		return 4;
	return 0;
}

/* What the case's calls must record between the marks. */
static int bad_addresses_want(struct sys_case *c)
{
	const struct sys_want want[] = {
		WANT_ENTRY(SYS_socket, 1, AF_UNIX),
		{ .id = KEV_SYS_EXIT, .nr = SYS_socket, .any_ret = true },
		{ .id = KEV_SYS_ENTRY, .nr = SYS_connect, .addr = c->big,
		  .addr_len = POSIXTRACE_SYSCALL_ADDR_MAX,
		  .cut = POSIXTRACE_SYSCALL_CUT_ADDR },
		WANT_RET(SYS_connect, -EINVAL),
		{ .id = KEV_SYS_ENTRY, .nr = SYS_connect, .addr = "",
		  .cut = POSIXTRACE_SYSCALL_CUT_ADDR },
		WANT_RET(SYS_connect, -EFAULT),
		/* A negative length: no address, and none left out. */
		{ .id = KEV_SYS_ENTRY, .nr = SYS_connect, .addr = "" },
		WANT_RET(SYS_connect, -EINVAL),
	};

	return run_case(c, want, ARRAY_LEN(want));
}

/*
 * An address longer than the event holds is cut at 128 bytes and marked;
 * one at an unmapped address is empty and marked; one of a negative
 * length is empty and whole; each call fails as it would untraced.
 */
TEST(long_unmapped_and_negative_addresses_are_cut_or_empty)
{
	struct sys_case c = { .calls = connect_bad_addresses };
	size_t i;

	SKIP_WITHOUT_DEVICE();
	for (i = 0; i < sizeof(c.big); i++)
		c.big[i] = (unsigned char)(i * 7 + 1);
	c.big[0] = AF_UNIX;
	c.big[1] = 0;
	/* Below vm.mmap_min_addr: never mapped. */
	c.gone = (void *)4096;
	EXPECT_EQ(0, bad_addresses_want(&c));
}

static int create_and_rename(struct sys_case *c)
{
	int fd = openat(AT_FDCWD, c->path, O_CREAT | O_WRONLY | O_CLOEXEC,
			0600);

	if (fd < 0)
		return 1;
	if (close(fd))
		return 2;
	/* rename(2) itself: its two paths are its first two arguments. */
	if (syscall(SYS_rename, c->path, c->path2))
		return 3;
	return 0;
}

/* rename(2) carries the old path and the new, as renameat() does. */
TEST(rename_carries_both_paths)
{
	struct sys_case c = { .calls = create_and_rename };
	struct sys_want want[] = {
		{ .id = KEV_SYS_ENTRY, .nr = SYS_openat, .nargs = 1,
		  .args = { (uint32_t)AT_FDCWD }, .path = c.path },
		{ .id = KEV_SYS_EXIT, .nr = SYS_openat, .any_ret = true },
		WANT_ENTRY(SYS_close, 0),
		WANT_RET(SYS_close, 0),
		{ .id = KEV_SYS_ENTRY, .nr = SYS_rename, .path = c.path,
		  .path2 = c.path2 },
		WANT_RET(SYS_rename, 0),
	};

	SKIP_WITHOUT_DEVICE();
	snprintf(c.path, sizeof(c.path), "/tmp/kev.rename.%d", getpid());
	snprintf(c.path2, sizeof(c.path2), "/tmp/kev.renamed.%d", getpid());
	EXPECT_EQ(0, run_case(&c, want, ARRAY_LEN(want)));
	EXPECT_EQ(0, unlink(c.path2));
}

/* Call nr into a selection's bits. */
static void select_call(uint64_t *bits, long nr)
{
	bits[nr / 64] |= UINT64_C(1) << (nr % 64);
}

/*
 * Run case c in a traced child whose stream records only the native
 * calls of bits; its events between the marks must be want.
 */
static int run_selected(struct sys_case *c, const uint64_t *bits,
			const struct sys_want *want, int n)
{
	struct kev_child k;
	struct kevs l = { 0 };
	int ret;

	ret = kev_child_start(&k, POSIXTRACE_K_KERNEL_SYSCALL,
			      POSIX_TRACE_CLOSE_FOR_CHILD, calls_between_marks,
			      c);
	if (ret)
		return -ret;
	ret = posixtrace_k_set_syscalls(k.trid, POSIXTRACE_K_SYSCALLS_NATIVE,
					bits);
	if (!kev_child_go(&k) && !ret)
		ret = EPIPE;
	if (!ret)
		ret = kev_child_end(&k, &l);
	else
		waitpid(k.pid, NULL, 0);
	if (ret) {
		posix_trace_shutdown(k.trid);
		return -ret;
	}
	ret = k.status ? 1 : sys_between(&l, k.pid, want, n);
	kevs_free(&l);
	posix_trace_shutdown(k.trid);
	return ret;
}

/*
 * A stream that selects lseek records its entry and exit, and nothing of
 * the close the child makes between the same marks.
 */
TEST(only_the_selected_calls_are_recorded)
{
	const struct sys_want want[] = {
		WANT_ENTRY(SYS_lseek, 2, 0, LSEEK_TO),
		WANT_RET(SYS_lseek, LSEEK_TO),
	};
	uint64_t bits[POSIXTRACE_K_SYSCALL_WORDS] = { 0 };
	struct sys_want w[ARRAY_LEN(want)];
	struct sys_case c = { .calls = seek_and_close };

	SKIP_WITHOUT_DEVICE();
	c.fd = memfd_create("kev.sys", MFD_CLOEXEC);
	ASSERT_LE(0, c.fd);
	memcpy(w, want, sizeof(w));
	w[0].args[0] = c.fd;
	select_call(bits, SYS_lseek);
	EXPECT_EQ(0, run_selected(&c, bits, w, ARRAY_LEN(w)));
	close(c.fd);
}

/* A selection reads back as set; NULL bits take every call again. */
TEST(a_selection_reads_back_and_is_undone)
{
	uint64_t bits[POSIXTRACE_K_SYSCALL_WORDS] = { 0 };
	uint64_t got[POSIXTRACE_K_SYSCALL_WORDS];
	trace_id_t trid;
	int all = -1;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, create_with(POSIXTRACE_K_KERNEL_SYSCALL, &trid));
	ASSERT_EQ(0, posixtrace_k_get_syscalls(trid, 0, got, &all));
	EXPECT_EQ(1, all);
	select_call(bits, SYS_read);
	select_call(bits, POSIXTRACE_K_SYSCALL_NR_MAX - 1);
	ASSERT_EQ(0, posixtrace_k_set_syscalls(trid, 0, bits));
	ASSERT_EQ(0, posixtrace_k_get_syscalls(trid, 0, got, &all));
	EXPECT_EQ(0, all);
	EXPECT_EQ(0, memcmp(bits, got, sizeof(bits)));
	/* The compat table is its own: still every call. */
	ASSERT_EQ(0, posixtrace_k_get_syscalls(trid, 1, got, &all));
	EXPECT_EQ(1, all);
	ASSERT_EQ(0, posixtrace_k_set_syscalls(trid, 0, NULL));
	ASSERT_EQ(0, posixtrace_k_get_syscalls(trid, 0, got, &all));
	EXPECT_EQ(1, all);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* SET_SYSCALLS and GET_SYSCALLS straight to the module: errno. */
static int raw_syscalls(int fd, unsigned long cmd,
			struct posixtrace_syscalls *req)
{
	return ioctl(fd, cmd, req) ? errno : 0;
}

/*
 * Every rule of the command, one case each: EINVAL for a stream without
 * the syscall class, an unknown flag, a table past compat, a reserved
 * field, bits with ALL, a size below the first version; the library
 * refuses an unknown table and NULL outputs.
 */
TEST(bad_selections_are_einval)
{
	struct posixtrace_syscalls req;
	uint64_t bits[POSIXTRACE_K_SYSCALL_WORDS];
	trace_id_t trid, plain;
	int fd, all;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, create_with(KEV_PROC_SIGNAL, &plain));
	EXPECT_EQ(EINVAL, posixtrace_k_set_syscalls(plain, 0, NULL));
	EXPECT_EQ(EINVAL, posixtrace_k_get_syscalls(plain, 0, bits, &all));
	ASSERT_EQ(0, posix_trace_shutdown(plain));
	ASSERT_EQ(0, create_with(POSIXTRACE_K_KERNEL_SYSCALL, &trid));
	EXPECT_EQ(EINVAL, posixtrace_k_set_syscalls(trid, 2, NULL));
	EXPECT_EQ(EINVAL, posixtrace_k_get_syscalls(trid, 0, NULL, &all));
	EXPECT_EQ(EINVAL, posixtrace_k_get_syscalls(trid, 0, bits, NULL));
	/* The only stream this process holds now. */
	fd = stream_fd();
	ASSERT_LE(0, fd);
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.flags = 2;
	EXPECT_EQ(EINVAL, raw_syscalls(fd, POSIXTRACE_IOC_SET_SYSCALLS, &req));
	req.flags = 0;
	req.compat = 2;
	EXPECT_EQ(EINVAL, raw_syscalls(fd, POSIXTRACE_IOC_SET_SYSCALLS, &req));
	EXPECT_EQ(EINVAL, raw_syscalls(fd, POSIXTRACE_IOC_GET_SYSCALLS, &req));
	req.compat = 0;
	req.__reserved = 1;
	EXPECT_EQ(EINVAL, raw_syscalls(fd, POSIXTRACE_IOC_SET_SYSCALLS, &req));
	req.__reserved = 0;
	req.flags = POSIXTRACE_SYSCALLS_ALL;
	req.bits[3] = 1;
	EXPECT_EQ(EINVAL, raw_syscalls(fd, POSIXTRACE_IOC_SET_SYSCALLS, &req));
	req.bits[3] = 0;
	req.size = POSIXTRACE_SYSCALLS_SIZE_VER0 - 8;
	EXPECT_EQ(EINVAL, raw_syscalls(fd, POSIXTRACE_IOC_SET_SYSCALLS, &req));
	req.size = sizeof(req);
	EXPECT_EQ(0, raw_syscalls(fd, POSIXTRACE_IOC_SET_SYSCALLS, &req));
	/* GET takes a struct a GET filled (flags is its output) ... */
	EXPECT_EQ(0, raw_syscalls(fd, POSIXTRACE_IOC_GET_SYSCALLS, &req));
	EXPECT_EQ(POSIXTRACE_SYSCALLS_ALL, req.flags);
	EXPECT_EQ(0, raw_syscalls(fd, POSIXTRACE_IOC_GET_SYSCALLS, &req));
	/* ... and says the size the module knows. */
	EXPECT_EQ(POSIXTRACE_SYSCALLS_SIZE_VER0, req.size);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A process the stream does not trace makes calls while the traced one
 * does: none of its calls appears, and every system-call event is the
 * traced child's.
 */
TEST(an_untraced_process_calls_never_appear)
{
	struct sys_case c = { .calls = seek_and_close };
	struct kev_child k;
	struct kevs l = { 0 };
	pid_t other;
	int fd, p[2], i;
	bool seen = false;

	SKIP_WITHOUT_DEVICE();
	fd = memfd_create("kev.sys", MFD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(p));
	other = fork();
	ASSERT_LE(0, other);
	if (!other) {
		close(p[1]);
		/* Until the test closes the pipe, as fast as it can. */
		while (lseek(fd, UNTRACED_TO, SEEK_SET) == UNTRACED_TO) {
			struct pollfd pfd = { .fd = p[0], .events = POLLIN };

			if (poll(&pfd, 1, 0))
				_exit(0);
		}
		_exit(1);
	}
	close(p[0]);
	c.fd = fd;
	ASSERT_EQ(0, kev_child_run(&k, POSIXTRACE_K_KERNEL_SYSCALL,
				   calls_between_marks, &c, &l));
	close(p[1]);
	ASSERT_EQ(other, waitpid(other, &i, 0));
	ASSERT_EQ(0, i);
	ASSERT_EQ(0, k.status);
	for (i = 0; i < l.n; i++) {
		struct kev_val v;

		if (l.ev[i].info.posix_event_id != KEV_SYS_ENTRY &&
		    l.ev[i].info.posix_event_id != KEV_SYS_EXIT)
			continue;
		seen = true;
		EXPECT_EQ(k.pid, l.ev[i].info.posix_pid);
		ASSERT_TRUE(kev_values(&l.ev[i], &v));
		if (l.ev[i].info.posix_event_id == KEV_SYS_ENTRY)
			EXPECT_NE(UNTRACED_TO, v.v[3]);
	}
	EXPECT_TRUE(seen);
	kevs_free(&l);
	close(fd);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

/*
 * As a user without CAP_PERFMON: the syscall class is refused (EPERM),
 * the others are not; once root sets kernel_events_paranoid to 0, it is
 * allowed.
 */
TEST(the_class_needs_perfmon_unless_root_allows_every_user)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_PARANOID_GUARDS(POSIXTRACE_K_KERNEL_SYSCALL);
}

#define FULL_CALLS	20000

static int getppid_loop(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < FULL_CALLS; i++)
		syscall(SYS_getppid);
	return 0;
}

/*
 * A 64 KiB stream that stops when full records only getppid, which its
 * child calls FULL_CALLS times as fast as it can: the stream fills and
 * stops, and its kbufs (a page each for so small a stream) may fill
 * before a drain empties them, before the stop and after. Each entry and
 * exit is then read or counted lost: one a full kbuf refused while the
 * stream was stopped because full counts as the drain would have counted
 * it.
 */
TEST(a_full_stream_counts_every_call_it_did_not_keep)
{
	uint64_t bits[POSIXTRACE_K_SYSCALL_WORDS] = { 0 };
	struct posixtrace_status st;
	struct kev_child k;
	trace_attr_t attr;
	struct kevs l = { 0 };
	int i, calls = 0;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, kev_child_fork(&k, getppid_loop, NULL));
	ASSERT_EQ(0, kev_attr(&attr, POSIXTRACE_K_KERNEL_SYSCALL,
			      POSIX_TRACE_CLOSE_FOR_CHILD));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 64 << 10));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_create(k.pid, &attr, &k.trid));
	select_call(bits, SYS_getppid);
	ASSERT_EQ(0, posixtrace_k_set_syscalls(k.trid,
					       POSIXTRACE_K_SYSCALLS_NATIVE,
					       bits));
	ASSERT_EQ(0, posix_trace_start(k.trid));
	ASSERT_TRUE(kev_child_go(&k));
	ASSERT_EQ(k.pid, waitpid(k.pid, &k.status, 0));
	ASSERT_EQ(0, k.status);
	ASSERT_EQ(0, posix_trace_stop(k.trid));
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, kevs_read(k.trid, &l));
	for (i = 0; i < l.n; i++)
		if (l.ev[i].info.posix_event_id == KEV_SYS_ENTRY ||
		    l.ev[i].info.posix_event_id == KEV_SYS_EXIT)
			calls++;
	TH_LOG("%d of %d calls' events read, %llu lost", calls,
	       2 * FULL_CALLS, (unsigned long long)st.events_lost);
	EXPECT_EQ(POSIXTRACE_FULL, st.full_status);
	EXPECT_EQ((uint64_t)2 * FULL_CALLS, calls + st.events_lost);
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

/*
 * A FLUSH stream with a log, of @size bytes (0: the default), records
 * only getppid, which its child calls FULL_CALLS times as fast as it can.
 * The log's thread writes the stream's records as it fills; a small
 * stream also fills and stops until its flush empties it. Each entry and
 * exit is then in the log, or counted lost, and some are in the log.
 * Returns 0, or the step that failed; the child, the stream and the log
 * are gone either way.
 */
static int log_keeps_or_counts_every_call(struct __test_metadata *_metadata,
					  size_t size)
{
	uint64_t bits[POSIXTRACE_K_SYSCALL_WORDS] = { 0 };
	struct posixtrace_status st;
	struct kev_child k;
	trace_attr_t attr;
	struct logbuf lb;
	int i, fd, ret = 0, calls = 0;

	fd = tmp_log();
	if (fd < 0)
		return 1;
	if (kev_child_fork(&k, getppid_loop, NULL)) {
		close(fd);
		return 2;
	}
	if (kev_attr(&attr, POSIXTRACE_K_KERNEL_SYSCALL,
		     POSIX_TRACE_CLOSE_FOR_CHILD) ||
	    (size && posix_trace_attr_setstreamsize(&attr, size)) ||
	    posix_trace_attr_setstreamfullpolicy(&attr, POSIX_TRACE_FLUSH) ||
	    posix_trace_attr_setlogfullpolicy(&attr, POSIX_TRACE_APPEND) ||
	    posix_trace_create_withlog(k.pid, &attr, fd, &k.trid)) {
		kill(k.pid, SIGKILL);
		close(k.go);
		waitpid(k.pid, NULL, 0);
		close(fd);
		return 3;
	}
	select_call(bits, SYS_getppid);
	if (posixtrace_k_set_syscalls(k.trid, POSIXTRACE_K_SYSCALLS_NATIVE,
				      bits) ||
	    posix_trace_start(k.trid))
		ret = 4;
	/* The child runs either way, traced or not, and is reaped. */
	if (!kev_child_go(&k) && !ret)
		ret = 5;
	if (waitpid(k.pid, &k.status, 0) != k.pid || (k.status && !ret))
		ret = 6;
	if (!ret && (posix_trace_stop(k.trid) || own_stream_status(&st)))
		ret = 7;
	if (posix_trace_shutdown(k.trid) && !ret)
		ret = 8;
	if (!ret && read_log(fd, &lb))
		ret = 9;
	close(fd);
	if (ret)
		return ret;
	for (i = 0; i < lb.n; i++)
		if (lb.ev[i].info.posix_event_id == KEV_SYS_ENTRY ||
		    lb.ev[i].info.posix_event_id == KEV_SYS_EXIT)
			calls++;
	free_log(&lb);
	TH_LOG("%zu-byte stream: %d of %d calls' events in the log, %llu lost",
	       size, calls, 2 * FULL_CALLS, (unsigned long long)st.events_lost);
	if (!calls || st.log_events_discarded)
		return 10;
	return (uint64_t)2 * FULL_CALLS == calls + st.events_lost ? 0 : 11;
}

TEST(a_log_keeps_or_counts_every_call)
{
	SKIP_WITHOUT_DEVICE();
	EXPECT_EQ(0, log_keeps_or_counts_every_call(_metadata, 0));
	EXPECT_EQ(0, log_keeps_or_counts_every_call(_metadata, 64 << 10));
	/*
	 * Smaller: the stream fills, stops and restarts once its log took
	 * it, many more times, and so do the windows where a probe finds its
	 * kbuf full while a restart is half made (its loss must count) and
	 * where a flush's markers find the ring refilled (they must fit).
	 */
	EXPECT_EQ(0, log_keeps_or_counts_every_call(_metadata, 16 << 10));
}

/*
 * The goal "no stream wants a class: no probe of ours registered", for
 * the syscall class.
 */
TEST(syscall_probes_are_on_only_while_a_stream_wants_them)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_PROBES_FOLLOW_A_STREAM(POSIXTRACE_K_KERNEL_SYSCALL);
}

TEST_HARNESS_MAIN
