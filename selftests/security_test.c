// SPDX-License-Identifier: GPL-2.0
/*
 * The module's security boundaries, each as an unprivileged user would
 * attack it:
 *  - a stream's last close from a kernel thread (io_uring's ring exit)
 *    never waits for its log, clear never waits for it, a log nobody
 *    reads is abandoned in bounded time once its stream is shut down, and
 *    the log's own last close (a socket that lingers) is not left to the
 *    shared deferred close: no deferred close on the machine is held up,
 *    and every place and module reference comes back;
 *  - after a set-id exec, the old tracer neither sees nor touches the new
 *    image's event names, nor records the exec;
 *  - a child of a traced privileged daemon that drops privileges
 *    (setresuid(), no exec) neither sees nor touches its family's names;
 *  - log writes obey the creator's RLIMIT_FSIZE and are charged to its
 *    memory cgroup;
 *  - the per-user stream limit is shared by a user and the user
 *    namespaces it owns, and not by the users of a container root made.
 * The test runs as root and does each attack in a child that switched to
 * an ordinary user.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <linux/capability.h>
#include <linux/io_uring.h>

#include <posixtrace-k.h>

#include "cgroup_common.h"
#include "trl_common.h"

/* An ordinary user, as Debian's useradd makes the first one. */
#define USER_UID	1000
#define REFCNT_PATH	"/sys/module/posixtrace/refcnt"
/* A child's exit status for "cannot test that here". */
#define CHILD_SKIP	99

#define NEEDS_ROOT() do {						\
	SKIP_WITHOUT_DEVICE();						\
	if (geteuid())							\
		SKIP(return, "needs root to act as another user");	\
} while (0)

/*
 * Become uid, groups and all, dumpable again as a user's own process is
 * (changing uid made us not); false on failure.
 */
static bool become_user(uid_t uid)
{
	return !setgroups(0, NULL) && !setresgid(uid, uid, uid) &&
	       !setresuid(uid, uid, uid) && !prctl(PR_SET_DUMPABLE, 1);
}

/* The module's reference count; -1 if unreadable. */
static int module_refcnt(void)
{
	int n;

	return param_read(REFCNT_PATH, &n) ? n : -1;
}

/*
 * Make log_stall_timeout 1 s for a test; *old gets what to restore, or -1
 * if the module has no such parameter (then the test runs all the same).
 */
static void stall_short(int *old)
{
	if (!param_read(STALL_PARAM, old) || !param_write(STALL_PARAM, 1))
		*old = -1;
}

static void stall_restore(int old)
{
	if (old > 0)
		param_write(STALL_PARAM, old);
}

/* Wait up to secs seconds for the module's reference count to be want. */
static bool wait_refcnt(int want, int secs)
{
	int i;

	for (i = 0; i < secs * 10; i++) {
		if (module_refcnt() == want)
			return true;
		usleep(100000);
	}
	return false;
}

/* Run fn in a child and return its exit status (CHILD_SKIP, 0, or not). */
static int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#define ASSERT_CHILD_OK(status) do {					\
	int _st = (status);						\
	if (_st == CHILD_SKIP)						\
		SKIP(return, "not available in this kernel");		\
	ASSERT_EQ(0, _st);						\
} while (0)

/*
 * Run fn in a child with log_stall_timeout at 1 s; then the module's
 * references must come back to what they were, every stream gone.
 */
static void stall_case(struct __test_metadata *_metadata, int (*fn)(void *))
{
	int base, stall, status;
	bool back;

	stall_short(&stall);
	base = module_refcnt();
	status = in_child(fn, NULL);
	back = base >= 0 && wait_refcnt(base, 30);
	stall_restore(stall);
	ASSERT_CHILD_OK(status);
	EXPECT_TRUE(back);
}

/* ---- io_uring, by raw system calls ---------------------------------- */

/* A ring of the given files (registered as fixed files); -1 on error. */
static int ring_holding(const int *fds, unsigned int n)
{
	struct io_uring_params params;
	int ring;

	memset(&params, 0, sizeof(params));
	ring = syscall(__NR_io_uring_setup, 4, &params);
	if (ring < 0)
		return -1;
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_FILES,
		    fds, n)) {
		close(ring);
		return -1;
	}
	return ring;
}

/*
 * A stream whose APPEND log is the write end of a 4 KiB pipe, running,
 * with 64 events of 1000 bytes recorded: far more than the pipe holds.
 */
static int stream_on_small_pipe(int p[2], trace_id_t *trid)
{
	static char data[1000];
	trace_event_id_t id;
	trace_attr_t attr;
	int i;

	if (pipe(p) || fcntl(p[1], F_SETPIPE_SZ, 4096) < 0 ||
	    log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND, 0, 0) ||
	    posix_trace_attr_setmaxdatasize(&attr, sizeof(data)) ||
	    posix_trace_eventid_open("sec.big", &id) ||
	    posix_trace_create_withlog(0, &attr, p[1], trid) ||
	    posix_trace_start(*trid))
		return -1;
	for (i = 0; i < 64; i++)
		posix_trace_event(id, data, sizeof(data));
	return 0;
}

/*
 * The recipe of the report: the stream's descriptor ends up in an io_uring
 * ring only, which is closed, so that its last fput comes from a kernel
 * worker (the deferred fput) while the pipe's reader, this process, never
 * reads. Then the pipe's read end goes the same way, and the process
 * exits: before the fix, behind a deferred fput stuck for good.
 */
static int release_from_kernel_thread(void *arg)
{
	trace_id_t trid;
	int p[2], fd, ring;

	if (!become_user(USER_UID) || stream_on_small_pipe(p, &trid))
		return 1;
	fd = stream_fd();
	ring = ring_holding(&fd, 1);
	if (ring < 0)
		return CHILD_SKIP;
	close(fd);
	close(p[1]);
	close(ring);
	/* Time for the worker to reach the stream's release. */
	sleep(1);
	ring = ring_holding(&p[0], 1);
	if (ring < 0)
		return 2;
	close(p[0]);
	close(ring);
	return 0;
}

/*
 * Whether the deferred fput still runs: a file locked, held only by an
 * io_uring ring that is then closed, is unlocked within 10 s.
 */
static bool deferred_close_goes_through(void)
{
	char path[] = "/tmp/sec-lockXXXXXX";
	int fd, again, ring, i;
	bool unlocked = false;

	fd = mkstemp(path);
	if (fd < 0 || flock(fd, LOCK_EX))
		return false;
	ring = ring_holding(&fd, 1);
	close(fd);
	if (ring < 0)
		return false;
	close(ring);
	again = open(path, O_RDONLY);
	for (i = 0; again >= 0 && i < 100 && !unlocked; i++) {
		unlocked = !flock(again, LOCK_EX | LOCK_NB);
		if (!unlocked)
			usleep(100000);
	}
	if (again >= 0)
		close(again);
	unlink(path);
	return unlocked;
}

/*
 * A stream released by a kernel thread does not wait for its log: the
 * machine's deferred closes go on, and the stream goes, its module
 * reference with it.
 */
TEST(stream_released_by_a_kernel_thread_holds_up_no_deferred_close)
{
	int base, stall;

	NEEDS_ROOT();
	stall_short(&stall);
	base = module_refcnt();
	ASSERT_LE(0, base);
	ASSERT_CHILD_OK(in_child(release_from_kernel_thread, NULL));
	EXPECT_TRUE(deferred_close_goes_through());
	EXPECT_TRUE(wait_refcnt(base, 30));
	stall_restore(stall);
}

/*
 * The log's pipe has a reader that never reads (a process of the same
 * user, stopped). posix_trace_shutdown() returns once the log is
 * abandoned, log_stall_timeout seconds after it stopped moving.
 */
static int shutdown_with_stuck_reader(void *arg)
{
	struct timespec t0, t1;
	trace_id_t trid;
	int p[2], ret;
	pid_t reader;

	if (!become_user(USER_UID) || stream_on_small_pipe(p, &trid))
		return 1;
	reader = fork();
	if (reader < 0)
		return 1;
	if (!reader) {
		close(p[1]);
		raise(SIGSTOP);
		pause();
		_exit(0);
	}
	close(p[0]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = posix_trace_shutdown(trid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	kill(reader, SIGKILL);
	waitpid(reader, NULL, 0);
	/* log_stall_timeout is 1: abandoned after 1 to 2 s. */
	return ret || t1.tv_sec - t0.tv_sec > 8 ? 1 : 0;
}

TEST(shutdown_with_a_log_nobody_reads_returns_in_bounded_time)
{
	NEEDS_ROOT();
	stall_case(_metadata, shutdown_with_stuck_reader);
}

/*
 * The log's pipe has a slow reader: 4 KiB every 200 ms, some 3 s for the
 * 64 KiB of events. The log moves all along, so the watchdog
 * (log_stall_timeout, 1 s) waits on rather than abandon it: shutdown
 * returns once the reader has taken it all, and the log holds every
 * event.
 */
#define SLOW_READ_US	200000

/* Copy @in to @out, a pipe's worth at a time, slowly, until its end. */
static int slow_reader(int in, int out)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n)
			return 1;
		usleep(SLOW_READ_US);
	}
	return n < 0;
}

static int shutdown_with_slow_reader(void *arg)
{
	int p[2], copy, ret, status, i, big = 0;
	struct timespec t0, t1;
	struct logbuf lb;
	trace_id_t trid;
	pid_t reader;

	if (!become_user(USER_UID))
		return 1;
	copy = tmp_log();
	if (copy < 0 || stream_on_small_pipe(p, &trid))
		return 2;
	reader = fork();
	if (reader < 0)
		return 3;
	if (!reader) {
		close(p[1]);
		_exit(slow_reader(p[0], copy));
	}
	close(p[0]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = posix_trace_shutdown(trid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(p[1]);
	if (ret || waitpid(reader, &status, 0) != reader ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return 4;
	/* Longer than the watchdog's second: it saw progress and waited. */
	if (t1.tv_sec - t0.tv_sec < 2)
		return 5;
	if (lseek(copy, 0, SEEK_SET) || read_log(copy, &lb))
		return 6;
	for (i = 0; i < lb.n; i++)
		big += !strcmp(lb.ev[i].name, "sec.big");
	free_log(&lb);
	return big == 64 ? 0 : 7;
}

TEST(shutdown_waits_for_a_slow_log_that_moves)
{
	NEEDS_ROOT();
	stall_case(_metadata, shutdown_with_slow_reader);
}

/*
 * posix_trace_clear() while the log's thread is stuck writing to a pipe
 * nobody reads: before the fix, clear waited for that write, for ever,
 * holding the lock shutdown took. Now it returns at once, and shutdown
 * in bounded time. An alarm ends the child if either hangs.
 */
static int clear_with_stuck_log(void *arg)
{
	struct timespec t0, t1, t2;
	trace_id_t trid;
	int p[2];

	if (!become_user(USER_UID) || stream_on_small_pipe(p, &trid))
		return 1;
	alarm(20);
	/* The flush fills the pipe, then waits in pipe_write(). */
	if (posix_trace_flush(trid))
		return 2;
	usleep(200000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (posix_trace_clear(trid))
		return 3;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (posix_trace_shutdown(trid))
		return 4;
	clock_gettime(CLOCK_MONOTONIC, &t2);
	/* Clear waits for nothing; shutdown for log_stall_timeout (1 s). */
	if (t1.tv_sec - t0.tv_sec > 2)
		return 5;
	return t2.tv_sec - t1.tv_sec > 8 ? 6 : 0;
}

TEST(clear_does_not_wait_for_a_stuck_log)
{
	NEEDS_ROOT();
	stall_case(_metadata, clear_with_stuck_log);
}

/*
 * A log on a TCP socket that lingers for an hour on close, its peer never
 * reading. Once the log is abandoned, its last close must not go to the
 * machine's shared deferred close, where the linger would hold up every
 * other deferred close for that hour: the log's thread closes it itself,
 * where the watchdog's signal ends the linger.
 */
static int log_on_lingering_socket(void *arg)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	struct linger linger = { .l_onoff = 1, .l_linger = 3600 };
	socklen_t len = sizeof(addr);
	static char data[1000];
	int listener, client, peer, i, sndbuf = 4096;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	bool ok;

	if (!become_user(USER_UID))
		return 1;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listener = socket(AF_INET, SOCK_STREAM, 0);
	client = socket(AF_INET, SOCK_STREAM, 0);
	/* Small buffers both ways, from the handshake on: the log fills them. */
	if (listener < 0 || client < 0 ||
	    setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &sndbuf,
		       sizeof(sndbuf)) ||
	    bind(listener, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(listener, 1) ||
	    getsockname(listener, (struct sockaddr *)&addr, &len) ||
	    setsockopt(client, SOL_SOCKET, SO_SNDBUF, &sndbuf,
		       sizeof(sndbuf)) ||
	    setsockopt(client, SOL_SOCKET, SO_LINGER, &linger,
		       sizeof(linger)) ||
	    connect(client, (struct sockaddr *)&addr, sizeof(addr)))
		return CHILD_SKIP;
	peer = accept(listener, NULL, NULL);
	if (peer < 0)
		return CHILD_SKIP;
	if (log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND, 0, 0) ||
	    posix_trace_attr_setmaxdatasize(&attr, sizeof(data)) ||
	    posix_trace_eventid_open("sec.big", &id) ||
	    posix_trace_create_withlog(0, &attr, client, &trid) ||
	    posix_trace_start(trid))
		return 2;
	/* The log's thread holds the last reference. */
	close(client);
	for (i = 0; i < 1000; i++)
		posix_trace_event(id, data, sizeof(data));
	alarm(30);
	if (posix_trace_shutdown(trid))
		return 3;
	/* The peer still holds the connection, unread: the close lingers. */
	ok = deferred_close_goes_through();
	close(peer);
	close(listener);
	return ok ? 0 : 4;
}

/* A minimal guest may not have brought the loopback interface up. */
static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		return;
	if (!ioctl(s, SIOCGIFFLAGS, &ifr) && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

TEST(log_close_that_lingers_holds_up_no_deferred_close)
{
	NEEDS_ROOT();
	loopback_up();
	stall_case(_metadata, log_on_lingering_socket);
}

TEST(log_stall_timeout_outside_its_range_is_refused)
{
	int stall;

	NEEDS_ROOT();
	ASSERT_TRUE(param_read(STALL_PARAM, &stall));
	EXPECT_FALSE(param_write(STALL_PARAM, 0));
	EXPECT_FALSE(param_write(STALL_PARAM, 3601));
	EXPECT_TRUE(param_write(STALL_PARAM, 3600));
	ASSERT_TRUE(param_write(STALL_PARAM, stall));
}

/* ---- set-id exec ----------------------------------------------------- */

#define PRIV_HELPER_ENV	"SEC_PRIV_HELPER"

/* Whether CAP_NET_BIND_SERVICE is in this process's effective set. */
static bool has_bind_cap(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	return !syscall(SYS_capget, &h, d) &&
	       (d[0].effective & (1U << CAP_NET_BIND_SERVICE));
}

/*
 * The privileged program (this binary, copied and made set-id root, or
 * given a file capability): it opens a name in its new image, says which
 * identifier it got on stdout, and waits for a byte on stdin before it
 * exits. PRIV_HELPER_ENV says which privilege it must have: "setid"
 * (root), "fcap" (CAP_NET_BIND_SERVICE, its uid the caller's).
 */
static void __attribute__((constructor)) priv_helper(void)
{
	const char *how = getenv(PRIV_HELPER_ENV);
	trace_event_id_t id;

	if (!how)
		return;
	if (strcmp(how, "fcap") ? geteuid() != 0 : !has_bind_cap())
		_exit(1);
	if (posix_trace_eventid_open("privileged_secret", &id))
		_exit(1);
	if (!put(1, &id, sizeof(id)))
		_exit(2);
	wait_byte(0);
	_exit(0);
}

/* A copy of this binary, root's, mode 0755; false on error. */
static bool copy_self(const char *path)
{
	char buf[65536];
	int in, out;
	ssize_t n;
	bool ok = true;

	in = open("/proc/self/exe", O_RDONLY);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	if (in < 0 || out < 0)
		return false;
	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = put(out, buf, n);
	close(in);
	return !close(out) && ok && !chown(path, 0, 0) && !chmod(path, 0755);
}

/* A set-id root copy of this binary; false on error. */
static bool make_setuid_copy(const char *path)
{
	return copy_self(path) && !chmod(path, 04755);
}

/*
 * A copy of this binary with the file capability CAP_NET_BIND_SERVICE,
 * permitted and effective: an exec of it gains privilege (secureexec)
 * with the caller's uids, and stays dumpable. 0, or the errno of the
 * copy or of setting the capability (EOPNOTSUPP: no xattrs there).
 */
static int make_fcap_copy(const char *path)
{
	struct vfs_cap_data cap = {
		.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE,
		.data[0].permitted = 1U << CAP_NET_BIND_SERVICE,
	};

	if (!copy_self(path))
		return errno ? errno : EIO;
	return setxattr(path, "security.capability", &cap, sizeof(cap), 0) ?
	       errno : 0;
}

/* What the unprivileged tracer found, for the test to judge. */
struct exec_report {
	int step;		/* 0 when every step worked */
	trace_event_id_t before;	/* the child's first name, before exec */
	trace_event_id_t helper;	/* the set-id image's first name */
	trace_event_id_t probe;		/* a sibling's name opened after */
	bool secret_listed;	/* the tracer saw the new image's name */
	/* Its process kernel events, up to the sibling's exit: */
	bool fork_seen;		/* X forking S, before the exec */
	bool exec_seen;		/* X's exec of the set-id image */
	bool sibling_exit_seen;	/* S's exit, after the exec */
};

#define STEP(n, cond) do { if (!(cond)) { rep->step = (n); goto out; } } while (0)

/*
 * Read the stream's events until S's exit (10 s at most): what came
 * before it includes X's exec, had the stream recorded it. False if S's
 * exit never came.
 */
static bool read_proc_events(trace_id_t trid, pid_t x, pid_t s,
			     struct exec_report *rep)
{
	struct timespec deadline = realtime_in_ms(10000);
	struct posix_trace_event_info info;
	char data[1024];
	int unavailable;
	size_t len;

	while (!rep->sibling_exit_seen) {
		if (posix_trace_timedgetnext_event(trid, &info, data,
						   sizeof(data), &len,
						   &unavailable, &deadline))
			return false;
		if (unavailable)
			continue;
		if (info.posix_event_id == POSIXTRACE_K_EVENT_PROC_FORK &&
		    info.posix_pid == x)
			rep->fork_seen = true;
		if (info.posix_event_id == POSIXTRACE_K_EVENT_PROC_EXEC)
			rep->exec_seen = true;
		if (info.posix_event_id == POSIXTRACE_K_EVENT_PROC_EXIT &&
		    info.posix_pid == s)
			rep->sibling_exit_seen = true;
	}
	return true;
}

/*
 * The tracer (an ordinary user) traces its child X with inheritance. X
 * opens a name, forks a sibling S (in the family: it shares X's names),
 * then execs the set-id program, which opens "privileged_secret".
 */
static void trace_setid_exec(const char *helper, const char *how,
			     struct exec_report *rep)
{
	int up[2] = { -1, -1 }, go[2] = { -1, -1 }, done[2] = { -1, -1 };
	int sgo[2] = { -1, -1 }, sup[2] = { -1, -1 };
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	pid_t x, s = -1;
	int unavailable;

	/* Close-on-exec: the set-id image keeps only its stdin and stdout. */
	STEP(1, !pipe2(up, O_CLOEXEC) && !pipe2(go, O_CLOEXEC) &&
		!pipe2(done, O_CLOEXEC) && !pipe2(sgo, O_CLOEXEC) &&
		!pipe2(sup, O_CLOEXEC));
	x = fork();
	STEP(2, x >= 0);
	if (!x) {
		char *argv[] = { (char *)helper, NULL };

		close(up[0]);
		close(go[1]);
		close(done[1]);
		close(sgo[1]);
		close(sup[0]);

		if (posix_trace_eventid_open("before_exec", &id) ||
		    !put(up[1], &id, sizeof(id)))
			_exit(1);
		wait_byte(go[0]);
		s = fork();
		if (!s) {
			wait_byte(sgo[0]);
			if (posix_trace_eventid_open("probe", &id))
				_exit(1);
			_exit(put(sup[1], &id, sizeof(id)) ? 0 : 1);
		}
		if (put(up[1], &s, sizeof(s)) && dup2(up[1], 1) == 1 &&
		    dup2(done[0], 0) == 0 && !setenv(PRIV_HELPER_ENV, how, 1))
			execv(helper, argv);
		_exit(1);
	}
	/* Their ends: a child that dies shows as end of file, not a hang. */
	close(up[1]);
	close(go[0]);
	close(done[0]);
	close(sgo[0]);
	close(sup[1]);
	STEP(3, get(up[0], &rep->before, sizeof(rep->before)));
	STEP(4, !posix_trace_attr_init(&attr) &&
		!posix_trace_attr_setinherited(&attr, POSIX_TRACE_INHERITED) &&
		!posixtrace_k_attr_setkernelevents(&attr,
						   POSIXTRACE_K_KERNEL_PROC) &&
		!posix_trace_create(x, &attr, &trid) &&
		!posix_trace_start(trid));
	STEP(5, put_byte(go[1], 'g'));
	STEP(6, get(up[0], &s, sizeof(s)));
	STEP(7, get(up[0], &rep->helper, sizeof(rep->helper)));
	/* Every name the stream can list: none of the new image's. */
	STEP(8, !posix_trace_eventtypelist_rewind(trid));
	for (;;) {
		STEP(9, !posix_trace_eventtypelist_getnext_id(trid, &id,
							      &unavailable));
		if (unavailable)
			break;
		STEP(10, !posix_trace_eventid_get_name(trid, id, name));
		if (!strcmp(name, "privileged_secret"))
			rep->secret_listed = true;
	}
	/* The sibling's next name shows whether the family's table grew. */
	STEP(11, put_byte(sgo[1], 'p'));
	STEP(12, get(sup[0], &rep->probe, sizeof(rep->probe)));
	STEP(13, read_proc_events(trid, x, s, rep));
	posix_trace_shutdown(trid);
out:
	close(go[1]);
	close(sgo[1]);
	close(done[1]);
	while (wait(NULL) > 0)
		;
}

/*
 * Run trace_setid_exec() as an ordinary user with @helper, whose image
 * has the privilege @how, and judge what the tracer found: the new image
 * and the names it opened are hidden from it.
 */
static void judge_privileged_exec(struct __test_metadata *_metadata,
				  const char *helper, const char *how)
{
	struct exec_report *rep;
	int status;
	pid_t pid;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rep);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (!become_user(USER_UID))
			_exit(1);
		trace_setid_exec(helper, how, rep);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	unlink(helper);
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, rep->step);
	/* The new image got a table of its own: its first name is first. */
	EXPECT_EQ(rep->before, rep->helper);
	EXPECT_FALSE(rep->secret_listed);
	/* The family's table did not grow by the secret name. */
	EXPECT_EQ(rep->before + 1, rep->probe);
	/*
	 * Its process kernel events: X's fork and S's exit, around the
	 * exec, but not the exec, which would tell what the new image is.
	 */
	EXPECT_TRUE(rep->fork_seen);
	EXPECT_FALSE(rep->exec_seen);
	EXPECT_TRUE(rep->sibling_exit_seen);
	munmap(rep, sizeof(*rep));
}

TEST(setid_exec_hides_the_new_images_names_from_the_old_tracer)
{
	char helper[] = "/tmp/sec-setidXXXXXX";
	int fd;

	NEEDS_ROOT();
	fd = mkstemp(helper);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_TRUE(make_setuid_copy(helper));
	judge_privileged_exec(_metadata, helper, "setid");
}

/*
 * The same across an exec that gains a file capability: the uids stay
 * and the image stays dumpable, so only secureexec (AT_SECURE) says the
 * exec gained privilege. make mutants' access-keeps-tracing-across-
 * secureexec survived without it.
 */
TEST(file_capability_exec_hides_the_new_image_from_the_old_tracer)
{
	char helper[] = "/tmp/sec-fcapXXXXXX";
	int fd, err;

	NEEDS_ROOT();
	fd = mkstemp(helper);
	ASSERT_LE(0, fd);
	close(fd);
	err = make_fcap_copy(helper);
	if (err == EOPNOTSUPP) {
		unlink(helper);
		SKIP(return, "no security.capability xattr on /tmp");
	}
	ASSERT_EQ(0, err);
	judge_privileged_exec(_metadata, helper, "fcap");
}

/* ---- privileges dropped without exec ------------------------------------ */

#define JUNK_NAMES	1100

/* What the daemon, its session and its tracer found, for the test to judge. */
struct drop_report {
	int step;		/* 0 when every step worked */
	trace_event_id_t secret;	/* the daemon's first name */
	int pre_err;		/* the session's listing through its old stream */
	bool secret_listed;	/* the session saw one of the family's names */
	int listed;		/* user names the session's new stream lists */
	trace_event_id_t own_first;	/* the session's first name */
	trace_event_id_t via_stream;	/* its name opened through its stream */
	int late_err;		/* the daemon's open of the session's name */
	trace_event_id_t late;	/* ... and its identifier */
	trace_event_id_t late2;	/* the daemon's name after the junk */
	int tracer_listed;	/* user names the daemon's tracer lists */
	bool session_listed;	/* the tracer saw one of the session's */
	pid_t session;		/* the session's pid */
	int session_events;	/* its events the tracer read */
};

/* What the session records while still root, before it drops. */
#define SESSION_EVENTS	10

/* The user names a stream lists; *@found if one of them is @name. */
static int list_user_names(trace_id_t trid, const char *name, bool *found)
{
	char buf[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	int unavailable, n = 0;

	if (posix_trace_eventtypelist_rewind(trid))
		return -1;
	for (;;) {
		if (posix_trace_eventtypelist_getnext_id(trid, &id,
							 &unavailable))
			return -1;
		if (unavailable)
			return n;
		if (id <= POSIXTRACE_EVENT_UNNAMED_USER)
			continue;
		if (posix_trace_eventid_get_name(trid, id, buf))
			return -1;
		n++;
		if (!strcmp(buf, name))
			*found = true;
	}
}

/* The events of type @id by @pid that a stream holds, read out. */
static int count_events_of(trace_id_t trid, pid_t pid, trace_event_id_t id)
{
	struct rec r;
	int n = 0;

	for (;;) {
		if (try_next(trid, &r))
			return -1;
		if (r.unavailable)
			return n;
		if (r.info.posix_pid == pid && r.info.posix_event_id == id)
			n++;
	}
}

/*
 * The session: forked by the daemon, so in its family and traced by the
 * daemon's tracer; it made a stream on itself while still root, then
 * drops to an ordinary user (no exec) and attacks the family's names.
 */
static int dropped_session(struct drop_report *rep)
{
	char name[TRACE_EVENT_NAME_MAX + 1];
	trace_event_id_t id;
	trace_id_t pre, own;
	int unavailable, i;

	if (posix_trace_create(0, NULL, &pre))
		return 1;
	/* In its ring: taken for the tracer before the drop moves it. */
	for (i = 0; i < SESSION_EVENTS; i++)
		posix_trace_event(rep->secret, &i, sizeof(i));
	if (!become_user(USER_UID))
		return 1;
	/* Its stream of before: the family's table grows on behind it. */
	rep->pre_err = posix_trace_eventtypelist_getnext_id(pre, &id,
							    &unavailable);
	if (posix_trace_create(0, NULL, &own))
		return 2;
	rep->listed = list_user_names(own, "daemon_secret",
				      &rep->secret_listed);
	/* A name the daemon opens later, with another format. */
	if (posixtrace_k_eventid_open_format("daemon_late", "x:u8",
					     &rep->own_first) ||
	    posix_trace_trid_eventid_open(own, "via_stream", &rep->via_stream))
		return 3;
	/*
	 * Events of its own first name, which has the number of the
	 * family's secret: the tracer, which traces it no more, must not
	 * get them (as the family's secret, or at all).
	 */
	for (i = 0; i < SESSION_EVENTS; i++)
		posix_trace_event(rep->own_first, &i, sizeof(i));
	/* As many names as a table holds, and more. */
	for (i = 0; i < JUNK_NAMES; i++) {
		snprintf(name, sizeof(name), "junk%d", i);
		if (posix_trace_eventid_open(name, &id))
			return 4;
	}
	return 0;
}

/*
 * The daemon (root), traced with inheritance by the test: it opens a
 * name, forks the session and waits for it, then opens the names the
 * session tried to spoil.
 */
static int drop_daemon(struct drop_report *rep, int up, int go)
{
	int status;
	pid_t s;

	if (posixtrace_k_eventid_open_format("daemon_secret", "n:u32",
					     &rep->secret) ||
	    !put_byte(up, 's'))
		return 1;
	wait_byte(go);
	s = fork();
	if (s < 0)
		return 2;
	if (!s)
		_exit(dropped_session(rep));
	rep->session = s;
	if (waitpid(s, &status, 0) != s || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 10 + (WIFEXITED(status) ? WEXITSTATUS(status) : 9);
	rep->late_err = posixtrace_k_eventid_open_format("daemon_late",
							 "n:u32", &rep->late);
	if (posix_trace_eventid_open("daemon_late2", &rep->late2) ||
	    !put_byte(up, 'd'))
		return 3;
	wait_byte(go);
	return 0;
}

TEST(dropped_privileges_hide_the_familys_names)
{
	int up[2], go[2], status;
	struct drop_report *rep;
	trace_attr_t attr;
	trace_id_t trid;
	char c;
	pid_t d;

	NEEDS_ROOT();
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rep);
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(go));
	d = fork();
	ASSERT_LE(0, d);
	if (!d) {
		close(up[0]);
		close(go[1]);
		_exit(drop_daemon(rep, up[1], go[0]));
	}
	close(up[1]);
	close(go[0]);
	ASSERT_TRUE(get(up[0], &c, 1));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setinherited(&attr,
						   POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, posix_trace_create(d, &attr, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_TRUE(put_byte(go[1], 'f'));
	if (!get(up[0], &c, 1)) {
		ASSERT_EQ(d, waitpid(d, &status, 0));
		TH_LOG("the daemon stopped at step %d", WEXITSTATUS(status));
		ASSERT_TRUE(false);
	}
	/* The daemon's tracer names the family's events, and only those. */
	rep->tracer_listed = list_user_names(trid, "via_stream",
					     &rep->session_listed);
	rep->session_events = count_events_of(trid, rep->session,
					      rep->secret);
	list_user_names(trid, "junk0", &rep->session_listed);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_TRUE(put_byte(go[1], 'q'));
	ASSERT_EQ(d, waitpid(d, &status, 0));
	ASSERT_EQ(0, status);

	/* Its stream made while root serves the family's names no more. */
	EXPECT_EQ(EPERM, rep->pre_err);
	/* Its new stream lists none of them: it has a table of its own. */
	EXPECT_EQ(0, rep->listed);
	EXPECT_FALSE(rep->secret_listed);
	EXPECT_EQ(rep->secret, rep->own_first);
	EXPECT_EQ(rep->secret + 1, rep->via_stream);
	/* Nothing it opened, format or count, reached the daemon's names. */
	EXPECT_EQ(0, rep->late_err);
	EXPECT_EQ(rep->secret + 1, rep->late);
	EXPECT_EQ(rep->secret + 2, rep->late2);
	EXPECT_EQ(3, rep->tracer_listed);
	EXPECT_FALSE(rep->session_listed);
	/*
	 * What it recorded before the drop reached the tracer; what it
	 * recorded after, under the same number in its own table, did not
	 * (make mutants' links-own-names-keeps-the-links).
	 */
	EXPECT_EQ(SESSION_EVENTS, rep->session_events);
	munmap(rep, sizeof(*rep));
}

/* Lower (or raise back to the permitted) the effective capabilities. */
static bool caps_effective(bool on)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	data[0].effective = on ? data[0].permitted : 0;
	data[1].effective = on ? data[1].permitted : 0;
	return !syscall(SYS_capset, &hdr, data);
}

/*
 * An ordinary user in a user namespace of its own (all capabilities
 * there) lowers and raises its effective capabilities 2,000 times,
 * opening a name each time: it could raise them again, so it is as
 * privileged as before and keeps its table (the name keeps its id). It
 * moved once, when it entered the namespace. The first version moved it
 * each time, keeping every table it left, until the put of that chain
 * ran off the kernel's stack at its exit.
 */
static int toggle_caps_and_open(void *arg)
{
	trace_event_id_t a, b, again;
	int i;

	if (!become_user(USER_UID) ||
	    posix_trace_eventid_open("sec.toggle.a", &a) ||
	    posix_trace_eventid_open("sec.toggle.b", &b))
		return 1;
	if (unshare(CLONE_NEWUSER))
		return CHILD_SKIP;
	/* Another namespace: a table of its own, where b comes first. */
	if (posix_trace_eventid_open("sec.toggle.b", &again) || again != a ||
	    posix_trace_eventid_open("sec.toggle.a", &a))
		return 2;
	for (i = 0; i < 2000; i++) {
		if (!caps_effective(i & 1))
			return 3;
		/* Moved, a would be the first of an empty table again. */
		if (posix_trace_eventid_open("sec.toggle.a", &again) ||
		    again != a)
			return 4;
	}
	return 0;
}

TEST(lowering_capabilities_for_a_while_keeps_the_names)
{
	NEEDS_ROOT();
	ASSERT_CHILD_OK(in_child(toggle_caps_and_open, NULL));
}

/* Clear every capability, the permitted set too: given up for good. */
static bool caps_drop_all(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	return !syscall(SYS_capset, &hdr, data);
}

/* Open name: is its id @want? */
static bool opens_as(const char *name, trace_event_id_t want)
{
	trace_event_id_t id;

	return !posix_trace_eventid_open(name, &id) && id == want;
}

/*
 * Root lowers its effective uid, then its effective gid, for a while (the
 * real and saved ids stay 0, so it may take them back), then gives its
 * uids and gids up for good but keeps CAP_SETUID and CAP_SETGID permitted
 * (PR_SET_KEEPCAPS): each time it could still act as the process its
 * table was made for, and keeps it (b keeps its id; in a new table b
 * would come first, with a's). Clearing its permitted capabilities then
 * gives them up for good: a table of its own.
 */
static int lower_ids_and_open(void *arg)
{
	trace_event_id_t a, b;

	if (posix_trace_eventid_open("sec.lower.a", &a) ||
	    posix_trace_eventid_open("sec.lower.b", &b) || a == b)
		return 1;
	if (seteuid(USER_UID) || !opens_as("sec.lower.b", b) || seteuid(0))
		return 2;
	if (setegid(USER_UID) || !opens_as("sec.lower.b", b) || setegid(0))
		return 3;
	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    setresgid(USER_UID, USER_UID, USER_UID) ||
	    !opens_as("sec.lower.b", b))
		return 4;
	if (setresuid(USER_UID, USER_UID, USER_UID) ||
	    !opens_as("sec.lower.b", b))
		return 5;
	if (!caps_drop_all() || !opens_as("sec.lower.b", a))
		return 6;
	return 0;
}

TEST(lowering_ids_for_a_while_or_keeping_setid_keeps_the_names)
{
	NEEDS_ROOT();
	ASSERT_CHILD_OK(in_child(lower_ids_and_open, NULL));
}

/* ---- what log writes are charged to ----------------------------------- */

#define FSIZE_LIMIT	200000
#define BIG_EVENTS	400

static volatile sig_atomic_t sigxfsz_seen;

static void on_sigxfsz(int sig)
{
	sigxfsz_seen = 1;
}

/*
 * With RLIMIT_FSIZE below what the log would take: the log stays within
 * the limit, in whole blocks; the flush reports EFBIG and the log overrun;
 * the creator gets no SIGXFSZ (the write was not its own call).
 */
static int log_past_fsize_limit(void *arg)
{
	struct rlimit lim = { FSIZE_LIMIT, FSIZE_LIMIT };
	struct posix_trace_status_info st;
	static char data[1000];
	trace_event_id_t id;
	trace_attr_t attr;
	struct logbuf lb;
	trace_id_t trid;
	int fd, i, num, last = -1, kept = 0;
	bool efbig = false;
	struct stat sb;

	if (!become_user(USER_UID) || signal(SIGXFSZ, on_sigxfsz) == SIG_ERR ||
	    setrlimit(RLIMIT_FSIZE, &lim))
		return 1;
	fd = tmp_log();
	if (fd < 0 ||
	    log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND, 1 << 20, 0) ||
	    posix_trace_attr_setmaxdatasize(&attr, sizeof(data)) ||
	    posix_trace_eventid_open("sec.fsize", &id) ||
	    posix_trace_create_withlog(0, &attr, fd, &trid) ||
	    posix_trace_start(trid))
		return 2;
	for (i = 0; i < BIG_EVENTS; i++) {
		memcpy(data, &i, sizeof(i));
		posix_trace_event(id, data, sizeof(data));
	}
	if (posix_trace_flush(trid) || wait_flushed_seen(trid, &st))
		return 3;
	if (st.posix_stream_flush_error != EFBIG ||
	    st.posix_log_overrun_status != POSIX_TRACE_OVERRUN)
		return 4;
	if (posix_trace_shutdown(trid) || fstat(fd, &sb) ||
	    sb.st_size > FSIZE_LIMIT || sigxfsz_seen)
		return 5;
	/*
	 * What the log holds reads back: events in order, some missing, and
	 * where they went missing an ERROR carrying EFBIG (a later, smaller
	 * block may fit under the limit again, as after a full disk).
	 */
	if (read_log(fd, &lb))
		return 6;
	for (i = 0; i < lb.n; i++) {
		if (lb.ev[i].info.posix_event_id == id) {
			memcpy(&num, lb.ev[i].data, sizeof(num));
			if (num <= last)
				return 7;
			last = num;
			kept++;
		} else if (lb.ev[i].info.posix_event_id == POSIX_TRACE_ERROR &&
			   ev_int(&lb.ev[i]) == EFBIG) {
			efbig = true;
		}
	}
	if (!efbig || !kept || kept >= BIG_EVENTS)
		return 8;
	free_log(&lb);
	return 0;
}

TEST(log_writes_obey_the_creators_file_size_limit)
{
	NEEDS_ROOT();
	ASSERT_CHILD_OK(in_child(log_past_fsize_limit, NULL));
}

#define CGROUP_TEST	CGROUP_ROOT "/posixtrace-sec"

/* The "file" line of a cgroup's memory.stat, in bytes; -1 if none. */
static long long cgroup_file_bytes(const char *dir)
{
	char path[256], key[64];
	long long value, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &value) == 2)
		if (!strcmp(key, "file"))
			found = value;
	fclose(f);
	return found;
}

/*
 * In a memory cgroup of its own, the creator writes 4 MiB of events to a
 * log on tmpfs: the log's pages are charged to that cgroup.
 */
static int log_in_memcg(void *arg)
{
	static char data[1000];
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	char pid[32];
	int fd, i;

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (!write_string(CGROUP_TEST "/cgroup.procs", pid) ||
	    !become_user(USER_UID))
		return 1;
	fd = tmp_log();
	if (fd < 0 ||
	    log_attr(&attr, POSIX_TRACE_LOOP, POSIX_TRACE_APPEND, 8 << 20, 0) ||
	    posix_trace_attr_setmaxdatasize(&attr, sizeof(data)) ||
	    posix_trace_eventid_open("sec.memcg", &id) ||
	    posix_trace_create_withlog(0, &attr, fd, &trid) ||
	    posix_trace_start(trid))
		return 2;
	for (i = 0; i < 4096; i++)
		posix_trace_event(id, data, sizeof(data));
	if (posix_trace_flush(trid) || wait_flushed(trid))
		return 3;
	if (cgroup_file_bytes(CGROUP_TEST) < 3 << 20)
		return 4;
	return posix_trace_shutdown(trid) ? 5 : 0;
}

TEST(log_writes_are_charged_to_the_creators_memory_cgroup)
{
	int status;

	NEEDS_ROOT();
	if (!memcg_present())
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_TRUE(memcg_make(CGROUP_TEST));
	status = in_child(log_in_memcg, NULL);
	rmdir(CGROUP_TEST);
	ASSERT_EQ(0, status);
}

/* ---- the per-user limit across user namespaces --------------------------- */

/*
 * Create streams tracing this process (up to 8); report how many on
 * report, then wait for a byte on release (if not -1) and shut them down.
 */
static int take_streams(int report, int release)
{
	trace_id_t trids[8];
	int n = 0, i;

	while (n < 8 && !posix_trace_create(0, NULL, &trids[n]))
		n++;
	if (report >= 0)
		put(report, &n, sizeof(n));
	if (release >= 0)
		wait_byte(release);
	for (i = 0; i < n; i++)
		posix_trace_shutdown(trids[i]);
	return n;
}

/* Who makes the namespace, how it maps, and what its users got. */
struct ns_quota {
	uid_t maker;		/* USER_UID, or 0 (root, as for a container) */
	const char *map;	/* uid_map and gid_map, written by root */
	uid_t first, second;	/* two uids in the namespace */
	int held;		/* streams the first took, and holds */
	int second_got;		/* then the second */
	int maker_got;		/* then the maker, outside (USER_UID only) */
};

static int streams_of_user(void *arg)
{
	return become_user(USER_UID) ? take_streams(-1, -1) : 100;
}

/*
 * Under a quota of 3 streams per user: @q->maker makes a user namespace
 * that root maps; its uid @q->first takes streams and holds them while
 * its uid @q->second, then the maker itself, try for more. Returns the
 * namespace child's wait status.
 */
static int ns_quota_run(struct ns_quota *q)
{
	int up[2], down[2], sdown[2], status = -1;
	char path[64];
	pid_t ns_child;

	q->held = q->second_got = q->maker_got = -1;
	if (pipe(up) || pipe(down) || pipe(sdown))
		return -1;
	ns_child = fork();
	if (ns_child < 0)
		return -1;
	if (!ns_child) {
		pid_t sibling;
		int n;

		if (q->maker && !become_user(q->maker))
			_exit(1);
		if (unshare(CLONE_NEWUSER))
			_exit(CHILD_SKIP);
		/* Root writes the map; then be one uid there, and another. */
		put_byte(up[1], 'u');
		wait_byte(down[0]);
		sibling = fork();
		if (!sibling) {
			wait_byte(sdown[0]);
			if (setresgid(q->second, q->second, q->second) ||
			    setresuid(q->second, q->second, q->second))
				_exit(1);
			n = take_streams(-1, -1);
			_exit(put(up[1], &n, sizeof(n)) ? 0 : 1);
		}
		if (setresgid(q->first, q->first, q->first) ||
		    setresuid(q->first, q->first, q->first))
			_exit(1);
		take_streams(up[1], down[0]);
		waitpid(sibling, NULL, 0);
		_exit(0);
	}
	if (get(up[0], path, 1)) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", ns_child);
		write_string(path, q->map);
		snprintf(path, sizeof(path), "/proc/%d/gid_map", ns_child);
		write_string(path, q->map);
		put_byte(down[1], 'm');
		get(up[0], &q->held, sizeof(q->held));
		put_byte(sdown[1], 's');
		get(up[0], &q->second_got, sizeof(q->second_got));
		if (q->maker == USER_UID)
			q->maker_got = in_child(streams_of_user, NULL);
		put_byte(down[1], 'r');
	}
	waitpid(ns_child, &status, 0);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	close(sdown[0]);
	close(sdown[1]);
	return status;
}

#define ASSERT_NS_CHILD_OK(status) do {						int _st = (status);							if (WIFEXITED(_st) && WEXITSTATUS(_st) == CHILD_SKIP)				SKIP(return, "no user namespaces for this user");		ASSERT_EQ(0, _st);						} while (0)

/*
 * USER_UID makes a user namespace where its two subordinate uids are 0
 * and 1 (as newuidmap would map them): one quota for all three.
 */
TEST(streams_per_user_are_shared_with_the_users_namespaces)
{
	struct ns_quota q = {
		.maker = USER_UID, .map = "0 100000 2\n", .first = 0,
		.second = 1,
	};
	int old = 32, status;

	NEEDS_ROOT();
	ASSERT_TRUE(param_read(PER_USER_PARAM, &old));
	ASSERT_TRUE(param_write(PER_USER_PARAM, 3));
	status = ns_quota_run(&q);
	ASSERT_TRUE(param_write(PER_USER_PARAM, old));
	ASSERT_NS_CHILD_OK(status);
	/* The user's quota of 3, wherever its uids are. */
	EXPECT_EQ(3, q.held);
	EXPECT_EQ(0, q.second_got);
	EXPECT_EQ(0, q.maker_got);
}

/*
 * Root makes a namespace (a container) of 3 uids: they are users of
 * their own. Charged to root, the namespace's owner, one would take the
 * quota of all the others.
 */
TEST(users_of_a_container_root_made_have_a_quota_each)
{
	struct ns_quota q = {
		.maker = 0, .map = "0 200000 3\n", .first = 1, .second = 2,
	};
	int old = 32, status;

	NEEDS_ROOT();
	ASSERT_TRUE(param_read(PER_USER_PARAM, &old));
	ASSERT_TRUE(param_write(PER_USER_PARAM, 3));
	status = ns_quota_run(&q);
	ASSERT_TRUE(param_write(PER_USER_PARAM, old));
	ASSERT_NS_CHILD_OK(status);
	EXPECT_EQ(3, q.held);
	EXPECT_EQ(3, q.second_got);
}

TEST_HARNESS_MAIN
