// SPDX-License-Identifier: GPL-2.0
/*
 * A trace log on a file system that fails its writes (issue 32): the
 * test's own FUSE file system, served from a thread of this process
 * through /dev/fuse (no libfuse), holds one file, "log", that takes the
 * first GOOD_BYTES written, answers the next BAD_WRITES writes with EIO,
 * then takes every write again (a disk that came back). A
 * stream logs there; the flushes that meet the failure say EIO (STATUS's
 * flush_error), every
 * event not written is counted (log_events_discarded), the stream goes
 * on recording, an ERROR event in the log says where, and what was
 * written reads back as a log, its events in order: every number the
 * stream gave is in the log, or counted lost in the stream, or counted
 * as not written to the log, exactly.
 *
 * Needs FUSE in the kernel (the debug kernel and Debian's 6.12 have it
 * built in; Debian's 6.1 builds it as a module, which the guests do not
 * load): skipped otherwise.
 */
#define _GNU_SOURCE
#include <linux/fuse.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "trc_common.h"
#include "trl_common.h"
#include "stress_common.h"

#define MNT		"/tmp/trl-eio"
#define LOG_PATH	MNT "/log"
#define GOOD_BYTES	(40 << 10)
#define BAD_WRITES	3
#define FILE_MAX	(1 << 20)
#define EVENTS		3000
#define LOG_INO		2

/* The file system: one file, its bytes kept here. */
struct eiofs {
	int dev;
	pthread_t thr;
	unsigned char data[FILE_MAX];
	size_t size;
	unsigned long writes, failed_writes;
};

static struct eiofs fs;

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->nlink = ino == FUSE_ROOT_ID ? 2 : 1;
	a->size = ino == FUSE_ROOT_ID ? 0 : fs.size;
	a->blksize = 4096;
}

static void reply(uint64_t unique, int error, const void *body, size_t len)
{
	unsigned char buf[sizeof(struct fuse_out_header) + 128];
	struct fuse_out_header *out = (void *)buf;

	out->len = sizeof(*out) + (error ? 0 : len);
	out->error = error;
	out->unique = unique;
	if (!error && len)
		memcpy(out + 1, body, len);
	/* The kernel may have given up on the request (interrupted). */
	if (write(fs.dev, buf, out->len) < 0 && errno != ENOENT)
		perror("eiofs: reply");
}

/* One request: what a kernel log writer's open, write and close need. */
static void serve_one(const struct fuse_in_header *in, const void *arg)
{
	union {
		struct fuse_init_out init;
		struct fuse_attr_out attr;
		struct fuse_entry_out entry;
		struct fuse_open_out open;
		struct fuse_write_out write;
	} o;
	const struct fuse_write_in *w = arg;

	memset(&o, 0, sizeof(o));
	switch (in->opcode) {
	case FUSE_INIT:
		o.init.major = FUSE_KERNEL_VERSION;
		o.init.minor = FUSE_KERNEL_MINOR_VERSION;
		o.init.max_write = 64 << 10;
		o.init.max_pages = 16;
		reply(in->unique, 0, &o.init, sizeof(o.init));
		return;
	case FUSE_GETATTR:
	case FUSE_SETATTR:
		fill_attr(&o.attr.attr, in->nodeid);
		reply(in->unique, 0, &o.attr, sizeof(o.attr));
		return;
	case FUSE_LOOKUP:
		if (strcmp(arg, "log")) {
			reply(in->unique, -ENOENT, NULL, 0);
			return;
		}
		o.entry.nodeid = LOG_INO;
		fill_attr(&o.entry.attr, LOG_INO);
		reply(in->unique, 0, &o.entry, sizeof(o.entry));
		return;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		/* Every write reaches us at once: no page cache between. */
		o.open.open_flags = FOPEN_DIRECT_IO;
		reply(in->unique, 0, &o.open, sizeof(o.open));
		return;
	case FUSE_WRITE:
		fs.writes++;
		if (w->offset + w->size > GOOD_BYTES &&
		    fs.failed_writes < BAD_WRITES) {
			fs.failed_writes++;
			reply(in->unique, -EIO, NULL, 0);
			return;
		}
		if (w->offset + w->size > FILE_MAX) {
			reply(in->unique, -EFBIG, NULL, 0);
			return;
		}
		memcpy(fs.data + w->offset, w + 1, w->size);
		if (w->offset + w->size > fs.size)
			fs.size = w->offset + w->size;
		o.write.size = w->size;
		reply(in->unique, 0, &o.write, sizeof(o.write));
		return;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FSYNC:
		reply(in->unique, 0, NULL, 0);
		return;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		return;		/* no reply */
	default:
		reply(in->unique, -ENOSYS, NULL, 0);
	}
}

static void *serve(void *arg)
{
	static unsigned char buf[(64 << 10) + FUSE_MIN_READ_BUFFER];
	const struct fuse_in_header *in = (void *)buf;
	ssize_t n;

	for (;;) {
		n = read(fs.dev, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			break;	/* ENODEV: unmounted */
		serve_one(in, in + 1);
	}
	return NULL;
}

/* Mount the file system at MNT and serve it; false if FUSE is not here. */
static bool eiofs_mount(void)
{
	char opts[128];

	fs.dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fs.dev < 0)
		return false;
	mkdir(MNT, 0755);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fs.dev);
	if (mount("eiofs", MNT, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		close(fs.dev);
		return false;
	}
	return !pthread_create(&fs.thr, NULL, serve, NULL);
}

static void eiofs_unmount(void)
{
	umount2(MNT, MNT_DETACH);
	close(fs.dev);
	pthread_join(fs.thr, NULL);
}

/*
 * Flush and wait until it is done; *@st the status then. Returns how many
 * times STATUS said the flush failed (with EIO: anything else fails).
 */
/* A raw FLUSH stream of this process, logged to @logfd (APPEND). */
static int log_stream(int dev, int logfd)
{
	struct posixtrace_attr a = {
		.stream_size = 16 << 10,
		.max_data_size = 64,
		.stream_full_policy = POSIXTRACE_FLUSH,
		.log_full_policy = POSIXTRACE_APPEND,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};

	return raw_create_with(dev, &a, logfd);
}

TEST(a_log_on_a_file_system_failing_with_eio_counts_every_event_it_lost)
{
	struct posixtrace_status st;
	uint64_t recorded, lost, stream_lost, in_log = 0, next = 0, v;
	uint64_t last_seq = 0, errors_logged = 0;
	int dev, sfd, logfd, copy, i, flush_errors = 0;
	trace_event_id_t id;
	struct logbuf lb;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root");
	if (!eiofs_mount())
		SKIP(return, "no FUSE here");
	logfd = open(LOG_PATH, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, logfd) TH_LOG("open %s: %s", LOG_PATH, strerror(errno));
	ASSERT_EQ(0, posix_trace_eventid_open("trl.eio", &id));
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	sfd = log_stream(dev, logfd);
	ASSERT_LE(0, sfd) TH_LOG("create: %s", strerror(-sfd));
	close(logfd);
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_START));
	/* Numbered events, a flush now and then: the log fails midway. */
	for (v = 0; v < EVENTS; v++) {
		posix_trace_event(id, &v, sizeof(v));
		if (v % 500 == 499)
			flush_errors += raw_flush_and_wait(_metadata, sfd, &st);
	}
	/* Still recording after the failure. */
	EXPECT_EQ(POSIXTRACE_RUNNING, st.state);
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_STOP));
	flush_errors += raw_flush_and_wait(_metadata, sfd, &st);
	recorded = st.events_recorded;
	lost = st.log_events_discarded;
	stream_lost = st.events_lost;
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN));
	close(sfd);
	close(dev);
	eiofs_unmount();

	TH_LOG("%lu writes, %lu failed with EIO; %zu bytes kept; %llu events recorded, %llu not written, EIO said %d time(s)",
	       fs.writes, fs.failed_writes, fs.size,
	       (unsigned long long)recorded, (unsigned long long)lost,
	       flush_errors);
	EXPECT_LT(0, fs.failed_writes);
	EXPECT_LE(1, flush_errors);
	EXPECT_LT(0, lost);

	/* What was written reads back: a log whose events are in order. */
	copy = memfd_create("eio-log", MFD_CLOEXEC);
	ASSERT_LE(0, copy);
	ASSERT_EQ((ssize_t)fs.size, write(copy, fs.data, fs.size));
	if (getenv("POSIXTRACE_LOG_EXPORT")) {
		char path[256];
		int out;

		snprintf(path, sizeof(path), "%s/eio.ptlog",
			 getenv("POSIXTRACE_LOG_EXPORT"));
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out >= 0) {
			if (write(out, fs.data, fs.size) < 0)
				TH_LOG("export: %s", strerror(errno));
			close(out);
		}
	}
	ASSERT_EQ(0, read_log(copy, &lb));
	for (i = 0; i < lb.n; i++) {
		last_seq = lb.ev[i].seq;
		in_log++;
		if (lb.ev[i].info.posix_event_id == POSIX_TRACE_ERROR)
			errors_logged++;
		if (strcmp(lb.ev[i].name, "trl.eio"))
			continue;
		/* In order; the ones the stream or the log lost leave gaps. */
		memcpy(&v, lb.ev[i].data, sizeof(v));
		EXPECT_LE(next, v);
		next = v + 1;
	}
	free_log(&lb);
	close(copy);
	TH_LOG("the log holds %llu events (%llu ERROR), the last seq %llu; the stream recorded %llu, lost %llu, the log discarded %llu",
	       (unsigned long long)in_log, (unsigned long long)errors_logged,
	       (unsigned long long)last_seq, (unsigned long long)recorded,
	       (unsigned long long)stream_lost, (unsigned long long)lost);
	EXPECT_LT(0, next);
	EXPECT_LT(0, errors_logged);
	/*
	 * Every event the stream numbered is in the log, or was lost in the
	 * stream (full), or was not written to the log: counted, exactly.
	 */
	EXPECT_EQ(last_seq + 1, in_log + stream_lost + lost);
}

TEST_HARNESS_MAIN
