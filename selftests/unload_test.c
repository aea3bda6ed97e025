// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading under load (issue 32). rmmod while anything of the module is
 * in use (a descriptor of the device or of a stream, a mapping of the
 * enable page, of a ring or of a batch buffer, a reader waiting, a log
 * being written, kernel events on, a child's stream) must be refused
 * (EWOULDBLOCK, the module working on), and succeed once the last of
 * them is gone; then the module loads again. And the module is unloaded
 * and loaded over and over with a traced workload in between (a child
 * that records through the library, with a log and kernel events, and
 * reads its events back): each cycle's events all arrive, and the
 * guest's kmemleak scan and splat check follow.
 *
 * make check makes SHORT_CYCLES cycles; "unload-cycles" beside this
 * program (make fuzz's, 1000) sets another count. This process never
 * calls the library: it would keep a descriptor of the device open.
 * Needs root and the module at MODULE_PATH (the guests'); it leaves the
 * module loaded, with the parameters it had.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "trc_common.h"
#include "trl_common.h"
#include "stress_common.h"
#include "module_common.h"
#include "beside_program.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	3600

#define SHORT_CYCLES	10
#define CYCLE_EVENTS	200
/* How long a release may keep the module busy (deferred work). */
#define RELEASE_MS	5000

/* Unload, waiting up to RELEASE_MS while it is still in use. */
static int unload_within(unsigned int ms)
{
	uint64_t end = deadline_ms(ms);
	int ret;

	while ((ret = module_unload()) == EWOULDBLOCK && before(end))
		usleep(10000);
	return ret;
}

/* ---- what holds the module ------------------------------------------- */

struct holder {
	const char *what;
	/* Take hold; 0 or an errno. release() lets go of what it made. */
	int (*take)(struct holder *h);
	int dev, sfd;
	void *map;
	size_t len;
	pid_t child;
	pthread_t thr;
	bool thread;
};

static int hold_device(struct holder *h)
{
	h->dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	return h->dev < 0 ? errno : 0;
}

/* A running stream, its device descriptor closed. */
static int hold_stream(struct holder *h)
{
	int ret = hold_device(h);

	if (ret)
		return ret;
	h->sfd = raw_create(h->dev, 0, 65536, 64, POSIXTRACE_LOOP);
	close(h->dev);
	h->dev = -1;
	if (h->sfd < 0)
		return -h->sfd;
	return raw_control(h->sfd, POSIXTRACE_IOC_START);
}

/* A mapping of @fd at @off, the descriptor closed. */
static int hold_mapping(struct holder *h, int fd, off_t off, size_t len,
			int prot)
{
	h->map = mmap(NULL, len, prot, MAP_SHARED, fd, off);
	close(fd);
	if (h->map == MAP_FAILED) {
		h->map = NULL;
		return errno;
	}
	h->len = len;
	return 0;
}

static int hold_enable_page(struct holder *h)
{
	int ret = hold_device(h);

	if (!ret)
		ret = hold_mapping(h, h->dev, POSIXTRACE_ENABLE_PAGE_OFFSET,
				   page_size(), PROT_READ);
	h->dev = -1;
	return ret;
}

static int hold_ring(struct holder *h)
{
	int ret = hold_device(h);

	if (!ret)
		ret = hold_mapping(h, h->dev, POSIXTRACE_RING_OFFSET,
				   page_size() + 4 * page_size(),
				   PROT_READ | PROT_WRITE);
	h->dev = -1;
	/* Rings off (max_ring_size=0): nothing to hold. */
	return ret == ENODEV ? EOPNOTSUPP : ret;
}

/*
 * A stream's batch buffer, mapped as a MAPPED read says (its size), its
 * descriptors closed.
 */
static int hold_batch_buffer(struct holder *h)
{
	struct posixtrace_getnext gn = {
		.size = sizeof(gn),
		.flags = POSIXTRACE_GETNEXT_NONBLOCK |
			 POSIXTRACE_GETNEXT_MAPPED,
	};
	int ret = hold_stream(h);

	if (!ret && ioctl(h->sfd, POSIXTRACE_IOC_GETNEXT, &gn))
		ret = errno;
	if (!ret)
		ret = hold_mapping(h, h->sfd, 0, gn.map_size, PROT_READ);
	else
		close(h->sfd);
	h->sfd = -1;
	return ret;
}

static void *wait_for_events(void *arg)
{
	static unsigned char buf[65536];
	struct holder *h = arg;
	uint32_t count, bytes;

	/* Blocks until the stream is shut down (release). */
	while (!raw_getnext(h->sfd, buf, sizeof(buf), 0, NULL, &count,
			    &bytes))
		;
	return NULL;
}

/* A reader blocked in GETNEXT on a stream with a log (a pipe). */
static int hold_reader_and_log(struct holder *h)
{
	struct posixtrace_attr a = {
		.stream_size = 65536,
		.max_data_size = 64,
		.stream_full_policy = POSIXTRACE_LOOP,
		.log_full_policy = POSIXTRACE_APPEND,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
		.kernel_events = POSIXTRACE_KERNEL_PROC |
				 POSIXTRACE_KERNEL_SIGNAL,
	};
	int ret = hold_device(h), p[2];

	if (ret)
		return ret;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return errno;
	h->sfd = raw_create_with(h->dev, &a, p[1]);
	ret = h->sfd < 0 ? -h->sfd : 0;
	close(p[1]);
	close(h->dev);
	h->dev = p[0];	/* the log's reader end, closed at release */
	if (ret)
		return ret;
	ret = raw_control(h->sfd, POSIXTRACE_IOC_START);
	if (!ret)
		ret = pthread_create(&h->thr, NULL, wait_for_events, h);
	h->thread = !ret;
	return ret;
}

/*
 * A child with a stream of its own (kernel events, a log, a reader
 * waiting), waiting: what it holds goes only when it does.
 */
static int hold_child_stream(struct holder *h)
{
	int ready[2];
	char c;

	if (pipe(ready))
		return errno;
	h->child = fork();
	if (h->child < 0)
		return errno;
	if (h->child == 0) {
		struct holder mine = { 0 };

		close(ready[0]);
		if (hold_reader_and_log(&mine))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		return ECHILD;
	}
	close(ready[0]);
	return 0;
}

static void release(struct holder *h)
{
	if (h->sfd >= 0 && h->thread)
		raw_control(h->sfd, POSIXTRACE_IOC_SHUTDOWN);
	if (h->thread)
		pthread_join(h->thr, NULL);
	if (h->map)
		munmap(h->map, h->len);
	if (h->sfd >= 0)
		close(h->sfd);
	if (h->dev >= 0)
		close(h->dev);
	if (h->child > 0) {
		kill(h->child, SIGKILL);
		waitpid(h->child, NULL, 0);
	}
}

/*
 * For each thing that can hold the module: while it holds, rmmod is
 * refused and the module works; once it lets go, rmmod succeeds (at once,
 * or when the work its release queued is done), and the module loads
 * again.
 */
TEST(unload_is_refused_while_anything_holds_the_module)
{
	static struct holder holders[] = {
		{ .what = "a descriptor of the device", .take = hold_device },
		{ .what = "a running stream's descriptor",
		  .take = hold_stream },
		{ .what = "a mapping of the enable page",
		  .take = hold_enable_page },
		{ .what = "a mapping of a ring", .take = hold_ring },
		{ .what = "a mapping of a batch buffer",
		  .take = hold_batch_buffer },
		{ .what = "a reader waiting, a log, kernel events",
		  .take = hold_reader_and_log },
		{ .what = "a child with a stream of its own",
		  .take = hold_child_stream },
	};
	char params[256];
	size_t i;
	int ret;

	SKIP_WITHOUT_DEVICE();
	if (geteuid() || access(MODULE_PATH, R_OK))
		SKIP(return, "needs root and " MODULE_PATH);
	module_params(params, sizeof(params));
	for (i = 0; i < sizeof(holders) / sizeof(holders[0]); i++) {
		struct holder *h = &holders[i];

		h->dev = h->sfd = -1;
		ret = h->take(h);
		if (ret == EOPNOTSUPP) {
			TH_LOG("%s: not here (the rings are off)", h->what);
			release(h);
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", h->what, strerror(ret));
		EXPECT_EQ(EWOULDBLOCK, module_unload())
			TH_LOG("%s: unloaded under it", h->what);
		EXPECT_TRUE(module_works()) TH_LOG("%s", h->what);
		release(h);
		ASSERT_EQ(0, unload_within(RELEASE_MS))
			TH_LOG("%s: still held once released", h->what);
		EXPECT_TRUE(module_gone());
		ASSERT_EQ(0, module_load(params)) TH_LOG("loading it again");
		ASSERT_TRUE(module_works());
	}
}

/* ---- load and unload, a traced workload in between -------------------- */

/*
 * The child's workload, through the library: a stream with a log (a file
 * of /tmp) and process and signal events, events recorded (through its
 * ring, if the rings are on), shut down (the log written), and the log
 * read back. Exit status 0 if every event is in the log, in order, else
 * the step that failed.
 */
static int traced_workload(int cycle)
{
	struct logbuf lb;
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	char path[64];
	uint64_t i, got = 0, v;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/tmp/unload-%d.ptlog", cycle);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 1;
	unlink(path);
	if (posix_trace_attr_init(&attr) ||
	    posixtrace_k_attr_setkernelevents(&attr,
					      POSIXTRACE_K_KERNEL_PROC |
					      POSIXTRACE_K_KERNEL_SIGNAL) ||
	    posix_trace_create_withlog(0, &attr, fd, &trid))
		return 2;
	if (posix_trace_eventid_open("unload.cycle", &id) ||
	    posix_trace_start(trid))
		return 3;
	for (i = 0; i < CYCLE_EVENTS; i++)
		posix_trace_event(id, &i, sizeof(i));
	if (posix_trace_shutdown(trid))
		return 4;
	if (read_log(fd, &lb))
		return 5;
	for (i = 0; i < (uint64_t)lb.n && !ret; i++) {
		if (strcmp(lb.ev[i].name, "unload.cycle"))
			continue;
		memcpy(&v, lb.ev[i].data, sizeof(v));
		if (lb.ev[i].len != sizeof(v) || v != got++)
			ret = 6;
	}
	free_log(&lb);
	return ret ? ret : got == CYCLE_EVENTS ? 0 : 7;
}

/* "unload-cycles" beside this program: how many cycles, else SHORT_CYCLES. */
static int cycles(void)
{
	char path[4096], line[32];
	int n = SHORT_CYCLES;

	if (beside_program(path, sizeof(path), "unload-cycles") &&
	    module_read_line(path, line, sizeof(line)) && atoi(line) > 0)
		n = atoi(line);
	return n;
}

TEST(load_and_unload_over_and_over_with_a_traced_workload_between)
{
	char params[256];
	uint64_t start;
	int i, n = cycles(), status;
	pid_t child;

	SKIP_WITHOUT_DEVICE();
	if (geteuid() || access(MODULE_PATH, R_OK))
		SKIP(return, "needs root and " MODULE_PATH);
	module_params(params, sizeof(params));
	start = now_ns();
	for (i = 0; i < n; i++) {
		child = fork();
		ASSERT_LE(0, child);
		if (child == 0)
			_exit(traced_workload(i));
		ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, unload_within(RELEASE_MS)) TH_LOG("cycle %d", i);
		ASSERT_TRUE(module_gone());
		ASSERT_EQ(0, module_load(params)) TH_LOG("cycle %d", i);
		ASSERT_TRUE(module_works());
	}
	TH_LOG("%d cycles of a traced workload, an unload and a load, in %.1f s",
	       n, (now_ns() - start) / 1e9);
}

TEST_HARNESS_MAIN
