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
 * And a LOOP log (slots, each with a header that says what it holds) on
 * the same file system, failing only a slot header's write: at open, the
 * stream is refused; after a slot's records were written, those records
 * are counted as not written, and the log never shows them.
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

#include <linux/posixtrace_log.h>

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

/* A slot header's write: its size, somewhere past the file's header. */
#define SLOT_HEADER	sizeof(struct posixtrace_log_events)

/*
 * Which writes fail with EIO: those of @size bytes (0: of any size) that
 * end past @from; of them, the @count after the first @skip.
 */
struct eio_rule {
	size_t size;
	uint64_t from;
	unsigned long skip, count;
};

/* The file system: one file, its bytes kept here. */
struct eiofs {
	int dev;
	pthread_t thr;
	unsigned char data[FILE_MAX];
	size_t size;
	struct eio_rule rule;
	unsigned long writes, matched, failed_writes;
	bool mounted;
};

/* Each test is a process of its own: a rule lasts for one test. */
static struct eiofs fs = {
	.rule = { .from = GOOD_BYTES, .count = BAD_WRITES },
};

/* Does the rule fail @w? The server's thread alone asks. */
static bool eio_fails(const struct fuse_write_in *w)
{
	struct eio_rule rule;
	unsigned long m;

	/* The test's thread sets the rule between its writes. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	rule = fs.rule;
	if ((rule.size && w->size != rule.size) ||
	    w->offset + w->size <= rule.from)
		return false;
	m = __atomic_fetch_add(&fs.matched, 1, __ATOMIC_RELAXED);
	return m >= rule.skip && m - rule.skip < rule.count;
}

/*
 * Fail the next @count slot header writes, from now on: between two
 * writes (the server is idle).
 */
static void eio_fail_slot_headers(unsigned long count)
{
	fs.matched = 0;
	fs.rule = (struct eio_rule){
		.size = SLOT_HEADER,
		.from = 1,	/* past the file's header, which is larger */
		.count = count,
	};
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

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
		if (eio_fails(w)) {
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
	if (pthread_create(&fs.thr, NULL, serve, NULL)) {
		umount2(MNT, MNT_DETACH);
		close(fs.dev);
		return false;
	}
	fs.mounted = true;
	return true;
}

/*
 * Once only: a test unmounts to read what the file kept, and the
 * teardown after a failed assertion, which would otherwise leave this
 * process's exit waiting for its own server to answer its last close.
 */
static void eiofs_unmount(void)
{
	if (!fs.mounted)
		return;
	fs.mounted = false;
	umount2(MNT, MNT_DETACH);
	close(fs.dev);
	pthread_join(fs.thr, NULL);
}

/*
 * Flush and wait until it is done; *@st the status then. Returns how many
 * times STATUS said the flush failed (with EIO: anything else fails).
 */
#define LOOP_LOG_SIZE	(256 << 10)

/* A raw FLUSH stream of this process, logged to @logfd (@log_policy). */
static int log_stream(int dev, int logfd, int log_policy)
{
	struct posixtrace_attr a = {
		.stream_size = 16 << 10,
		.max_data_size = 64,
		.stream_full_policy = POSIXTRACE_FLUSH,
		.log_full_policy = log_policy,
		.log_size = log_policy == POSIXTRACE_LOOP ? LOOP_LOG_SIZE : 0,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};

	return raw_create_with(dev, &a, logfd);
}

/*
 * A raw stream of this process logged to the file (@log_policy), started;
 * *@dev its device, *@id the type the test numbers its events of.
 */
static void started_log_stream(struct __test_metadata *_metadata,
			       int log_policy, int *dev, int *sfd,
			       trace_event_id_t *id)
{
	int logfd = open(LOG_PATH, O_WRONLY | O_CLOEXEC);

	ASSERT_LE(0, logfd) TH_LOG("open %s: %s", LOG_PATH, strerror(errno));
	ASSERT_EQ(0, posix_trace_eventid_open("trl.eio", id));
	*dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, *dev);
	*sfd = log_stream(*dev, logfd, log_policy);
	ASSERT_LE(0, *sfd) TH_LOG("create: %s", strerror(-*sfd));
	close(logfd);
	ASSERT_EQ(0, raw_control(*sfd, POSIXTRACE_IOC_START));
}

/* What the file kept, in a file of its own to read back (read_log()). */
static int kept_copy(struct __test_metadata *_metadata)
{
	int copy = memfd_create("eio-log", MFD_CLOEXEC);

	EXPECT_LE(0, copy);
	if (copy >= 0)
		EXPECT_EQ((ssize_t)fs.size, write(copy, fs.data, fs.size));
	return copy;
}

/* Each test: the file system mounted and served, unmounted after. */
FIXTURE(eio) {
	int unused;
};

FIXTURE_SETUP(eio)
{
	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root");
	if (!eiofs_mount())
		SKIP(return, "no FUSE here");
}

FIXTURE_TEARDOWN(eio)
{
	eiofs_unmount();
}

TEST_F(eio, a_log_on_a_file_system_failing_with_eio_counts_every_event_it_lost)
{
	struct posixtrace_status st;
	uint64_t recorded, lost, stream_lost, in_log = 0, next = 0, v;
	uint64_t last_seq = 0, errors_logged = 0;
	int dev, sfd, copy, i, flush_errors = 0;
	trace_event_id_t id;
	struct logbuf lb;

	started_log_stream(_metadata, POSIXTRACE_APPEND, &dev, &sfd, &id);
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
	copy = kept_copy(_metadata);
	ASSERT_LE(0, copy);
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

/*
 * The slots' headers are zeroed at open, so that a reused file's old bytes
 * never read as slots: if that fails, the stream is refused with the
 * error, not given a log whose slots may lie.
 */
TEST_F(eio, a_loop_log_whose_slot_headers_cannot_be_zeroed_is_refused)
{
	int dev, sfd, logfd;

	eio_fail_slot_headers(0);
	logfd = open(LOG_PATH, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, logfd) TH_LOG("open %s: %s", LOG_PATH, strerror(errno));
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	/* The first slot's: the others and the newest slot's go well. */
	eio_fail_slot_headers(1);
	sfd = log_stream(dev, logfd, POSIXTRACE_LOOP);
	EXPECT_EQ(-EIO, sfd);
	if (sfd >= 0)
		close(sfd);
	EXPECT_EQ(1, fs.failed_writes);
	/* The disk back: the same file takes a stream. */
	sfd = log_stream(dev, logfd, POSIXTRACE_LOOP);
	EXPECT_LE(0, sfd) TH_LOG("create: %s", strerror(-sfd));
	if (sfd >= 0) {
		EXPECT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN));
		close(sfd);
	}
	close(logfd);
	close(dev);
	eiofs_unmount();
}

/*
 * A LOOP log's slot takes a flush's records, then its header, which says
 * how far they go: the header's write fails after the records' went well.
 * Those records are counted as not written, and the log must not show
 * them: the next commit's records go over them, and its header covers
 * only what it wrote. Every event the stream numbered is in the log or
 * counted, exactly once.
 */
TEST_F(eio, a_loop_log_whose_slot_header_fails_after_its_records_counts_them_once)
{
	uint64_t v, next = 0, in_log = 0, last_seq = 0, recorded, lost;
	uint64_t second = 0;
	int dev, sfd, copy, i, flush_errors;
	struct posixtrace_status st;
	trace_event_id_t id;
	struct logbuf lb;

	eio_fail_slot_headers(0);	/* none yet */
	started_log_stream(_metadata, POSIXTRACE_LOOP, &dev, &sfd, &id);
	for (v = 0; v < 50; v++)
		posix_trace_event(id, &v, sizeof(v));
	ASSERT_EQ(0, raw_flush_and_wait(_metadata, sfd, &st));
	/* The next flush: its records are written, its header is not. */
	eio_fail_slot_headers(1);
	for (; v < 100; v++)
		posix_trace_event(id, &v, sizeof(v));
	flush_errors = raw_flush_and_wait(_metadata, sfd, &st);
	EXPECT_EQ(1, fs.failed_writes);
	EXPECT_LE(1, flush_errors);
	for (; v < 150; v++)
		posix_trace_event(id, &v, sizeof(v));
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_STOP));
	ASSERT_EQ(0, raw_flush_and_wait(_metadata, sfd, &st));
	recorded = st.events_recorded;
	lost = st.log_events_discarded;
	EXPECT_EQ(0, st.events_lost);
	ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN));
	close(sfd);
	close(dev);
	eiofs_unmount();

	copy = kept_copy(_metadata);
	ASSERT_LE(0, copy);
	ASSERT_EQ(0, read_log(copy, &lb));
	for (i = 0; i < lb.n; i++) {
		last_seq = lb.ev[i].seq;
		in_log++;
		if (strcmp(lb.ev[i].name, "trl.eio"))
			continue;
		memcpy(&v, lb.ev[i].data, sizeof(v));
		EXPECT_LE(next, v);
		next = v + 1;
		second += v >= 50 && v < 100;
	}
	free_log(&lb);
	close(copy);
	TH_LOG("the log holds %llu events, the last seq %llu; the stream recorded %llu, the log discarded %llu",
	       (unsigned long long)in_log, (unsigned long long)last_seq,
	       (unsigned long long)recorded, (unsigned long long)lost);
	/*
	 * The second flush may commit in batches (what the stream held, then
	 * what the ring held): the one whose header failed, which may hold
	 * no more than the flush's own first record, is counted, and is
	 * missing from the log.
	 */
	EXPECT_EQ(150, next);
	EXPECT_LT(0, lost);
	EXPECT_LE(50 - second, lost);
	EXPECT_EQ(last_seq + 1, in_log + lost);
}

TEST_HARNESS_MAIN
