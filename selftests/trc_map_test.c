// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a stream through its mapping (GETNEXT_MAPPED, mmap() of the
 * stream's descriptor): what the library does for every reader, checked
 * here at the ABI, where the library cannot hide a mistake.
 *
 * The rules: the mapping is the stream's batch buffer, read-only, for the
 * creator only, not inherited, and never shows a byte that is not this
 * stream's; a batch GETNEXT_MAPPED took stays as it is, whatever is
 * recorded or cleared meanwhile, until the next GETNEXT; a LOOP gap's
 * OVERFLOW and RESUME come first in the batch, as copied ones do; and
 * every shape of mapping the module does not offer is refused.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "trc_common.h"

#define DATA_LEN	8
#define EVENT_SIZE	(RECORD_SIZE + DATA_LEN)
#define SMALL_STREAM	4096

FIXTURE(map) {
	trace_id_t trid;
	bool created;
	int fd;			/* the stream's descriptor */
	void *map;
	size_t map_size;
	unsigned char buf[65536];
};

FIXTURE_SETUP(map)
{
	self->created = false;
	self->map = NULL;
	SKIP_WITHOUT_DEVICE();
}

FIXTURE_TEARDOWN(map)
{
	if (self->map)
		munmap(self->map, self->map_size);
	if (self->created)
		posix_trace_shutdown(self->trid);
}

/* A running stream of @size bytes and @policy; sets self->fd. */
static int running(struct _test_data_map *self, size_t size, int policy)
{
	trace_attr_t attr;
	int err;

	err = posix_trace_attr_init(&attr);
	if (!err)
		err = posix_trace_attr_setmaxdatasize(&attr, DATA_LEN);
	if (!err)
		err = posix_trace_attr_setstreamsize(&attr, size);
	if (!err)
		err = posix_trace_attr_setstreamfullpolicy(&attr, policy);
	if (!err)
		err = create_stream(&attr, &self->trid, &self->created);
	posix_trace_attr_destroy(&attr);
	if (!err)
		err = posix_trace_start(self->trid);
	self->fd = err ? -1 : stream_fd();
	return err ? err : self->fd < 0 ? EBADF : 0;
}

/* Events numbered from @first on, their number as data. */
static void emit(uint64_t first, uint64_t n)
{
	for (uint64_t i = first; i < first + n; i++)
		posix_trace_event(POSIX_TRACE_UNNAMED_USEREVENT, &i, sizeof(i));
}

/* GETNEXT without waiting, with @flags more; 0 or errno. */
static int getnext(struct _test_data_map *self, uint32_t flags,
		   uint32_t buf_size, struct posixtrace_getnext *req)
{
	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	req->flags = POSIXTRACE_GETNEXT_NONBLOCK | flags;
	req->buf = (uintptr_t)self->buf;
	req->buf_size = buf_size;
	return ioctl(self->fd, POSIXTRACE_IOC_GETNEXT, req) ? errno : 0;
}

/* Reads the START record by copy, learning the mapping's size. */
static int learn_size(struct _test_data_map *self)
{
	struct posixtrace_getnext req;
	int err = getnext(self, 0, sizeof(self->buf), &req);

	if (err)
		return err;
	if (req.size != POSIXTRACE_GETNEXT_SIZE_VER0 || !req.count ||
	    req.map_offset != POSIXTRACE_GETNEXT_IN_BUF)
		return EPROTO;
	self->map_size = req.map_size;
	return 0;
}

static void *map_ring(struct _test_data_map *self, size_t len, int prot,
		      int flags, off_t off)
{
	return mmap(NULL, len, prot, flags, self->fd, off);
}

/* The stream's batch buffer, mapped as the library maps it. */
static int map(struct _test_data_map *self)
{
	int err = learn_size(self);
	void *m;

	if (err)
		return err;
	m = map_ring(self, self->map_size, PROT_READ, MAP_SHARED, 0);
	if (m == MAP_FAILED)
		return errno;
	self->map = m;
	return 0;
}

/*
 * The user events of a batch at @p, @bytes long: each numbered one more
 * than the last (*next), sequence numbers consecutive. Returns how many,
 * or -1 at the first that is not.
 */
static long check_batch(const unsigned char *p, size_t bytes, uint64_t *next,
			uint64_t *seq)
{
	const unsigned char *end = p + bytes;
	struct posixtrace_record r;
	uint64_t v;
	long n = 0;

	while (p < end) {
		memcpy(&r, p, sizeof(r));
		if (r.size != EVENT_SIZE || r.data_len != DATA_LEN ||
		    p + r.size > end)
			return -1;
		memcpy(&v, p + sizeof(r), sizeof(v));
		if (v != *next || (*seq && r.seq != *seq))
			return -1;
		++*next;
		*seq = r.seq + 1;
		p += r.size;
		n++;
	}
	return n;
}

TEST_F(map, getnext_says_how_large_the_mapping_is)
{
	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, learn_size(self));
	EXPECT_EQ(0, self->map_size % page_size());
	/* A batch: 64 KiB at least. */
	EXPECT_LE(65536, self->map_size);
}

TEST_F(map, mapped_getnext_leaves_the_batch_in_the_mapping)
{
	struct posixtrace_getnext req;
	uint64_t next = 0, seq = 0;

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	emit(0, 40);
	/* Not copied: no buffer needed. */
	ASSERT_EQ(0, getnext(self, POSIXTRACE_GETNEXT_MAPPED, 0, &req));
	ASSERT_EQ(40, req.count);
	EXPECT_EQ(40 * EVENT_SIZE, req.bytes);
	ASSERT_GE(self->map_size, req.map_offset + req.bytes);
	EXPECT_EQ(40, check_batch((unsigned char *)self->map + req.map_offset,
				  req.bytes, &next, &seq));
	/* Taken: nothing is left. */
	ASSERT_EQ(0, getnext(self, POSIXTRACE_GETNEXT_MAPPED, 0, &req));
	EXPECT_EQ(0, req.count);
}

/* More than a batch holds: batch after batch, each whole, none lost. */
TEST_F(map, batch_after_batch_every_event_once_in_order)
{
	struct posixtrace_getnext req;
	uint64_t next = 0, seq = 0;
	int batches = 0;

	ASSERT_EQ(0, running(self, 1 << 20, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	emit(0, 3000);
	for (;;) {
		ASSERT_EQ(0, getnext(self, POSIXTRACE_GETNEXT_MAPPED, 0, &req));
		if (!req.count)
			break;
		ASSERT_GE(self->map_size, req.map_offset + req.bytes);
		ASSERT_EQ(req.count,
			  check_batch((unsigned char *)self->map +
				      req.map_offset, req.bytes, &next, &seq));
		batches++;
	}
	EXPECT_EQ(3000, next);
	EXPECT_LE(3, batches);
}

/*
 * A ring whose size is no multiple of 8 wraps records, and their headers,
 * at every offset in turn: batches of every size, copied or mapped, hold
 * whole records, each once, in order.
 */
TEST_F(map, batches_of_a_ring_of_odd_size_hold_whole_records)
{
	struct posixtrace_getnext req;
	uint64_t next = 0, seq = 0, sent = 0;
	uint32_t sizes[] = { EVENT_SIZE, 3 * EVENT_SIZE + 5, 1000, 65536 };

	ASSERT_EQ(0, running(self, 4099, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	for (int round = 0; round < 120; round++) {
		uint32_t size = sizes[round % 4];
		bool mapped = round % 5 == 4;

		emit(sent, 40);
		sent += 40;
		while (next < sent) {
			ASSERT_EQ(0, getnext(self, mapped ?
					     POSIXTRACE_GETNEXT_MAPPED : 0,
					     size, &req));
			ASSERT_LT(0, req.count);
			ASSERT_EQ(req.count,
				  check_batch(mapped ?
					      (unsigned char *)self->map +
					      req.map_offset : self->buf,
					      req.bytes, &next, &seq));
			if (!mapped)
				ASSERT_GE(size, req.bytes);
		}
	}
	EXPECT_EQ(sent, next);
}

/*
 * A batch stays as it is while the stream records over and over, LOOP
 * overwriting, and is cleared: until the next GETNEXT.
 */
TEST_F(map, a_batch_stays_as_it_is_until_the_next_getnext)
{
	struct posix_trace_status_info st;
	struct posixtrace_getnext req;
	uint64_t next = 0, seq = 0;
	unsigned char *copy;

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, map(self));
	emit(0, 40);
	ASSERT_EQ(0, getnext(self, POSIXTRACE_GETNEXT_MAPPED, 0, &req));
	ASSERT_EQ(40, req.count);
	copy = malloc(req.bytes);
	ASSERT_NE(NULL, copy);
	memcpy(copy, (unsigned char *)self->map + req.map_offset, req.bytes);
	/* Through the stream's ring, over and over, then a clear: twice. */
	for (int round = 0; round < 2; round++) {
		for (uint64_t i = 0; i < 1000; i++) {
			emit(40 + i * 20, 20);
			/* A status drains the thread's ring into the stream. */
			ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
		}
		EXPECT_EQ(POSIX_TRACE_OVERRUN, st.posix_stream_overrun_status);
		ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_CLEAR));
	}
	ASSERT_EQ(0, memcmp(copy, (unsigned char *)self->map + req.map_offset,
			    req.bytes));
	EXPECT_EQ(40, check_batch((unsigned char *)self->map + req.map_offset,
				  req.bytes, &next, &seq));
	free(copy);
}

/* After a loss, OVERFLOW and RESUME come first in the batch. */
TEST_F(map, a_gaps_overflow_and_resume_come_first_in_the_batch)
{
	struct posixtrace_getnext req;
	struct posixtrace_record r[3];

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_LOOP));
	ASSERT_EQ(0, map(self));
	emit(0, 500);
	ASSERT_EQ(0, getnext(self, POSIXTRACE_GETNEXT_MAPPED, 0, &req));
	ASSERT_LT(2, req.count);
	ASSERT_LE(3 * RECORD_SIZE, req.bytes);
	memcpy(r, (unsigned char *)self->map + req.map_offset, sizeof(r));
	EXPECT_EQ(POSIX_TRACE_OVERFLOW, r[0].event_id);
	EXPECT_EQ(POSIX_TRACE_RESUME, r[1].event_id);
	EXPECT_EQ(POSIX_TRACE_UNNAMED_USEREVENT, r[2].event_id);
	EXPECT_EQ(r[2].seq, r[1].seq);
}

/* Nothing of anyone else's: past the records, the buffer is zeroes. */
TEST_F(map, a_new_streams_mapping_holds_nothing_but_its_records)
{
	const unsigned char *m;
	size_t i, other = 0;

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	/* START, read by copy, is the only record it ever held. */
	m = self->map;
	EXPECT_EQ(POSIX_TRACE_START,
		  ((const struct posixtrace_record *)m)->event_id);
	for (i = START_RECORD_SIZE; i < self->map_size; i++)
		other += !!m[i];
	EXPECT_EQ(0, other);
}

TEST_F(map, only_the_shape_offered_is_mapped)
{
	size_t len;

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, learn_size(self));
	len = self->map_size;
	EXPECT_EQ(MAP_FAILED, map_ring(self, len - page_size(), PROT_READ,
				       MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_ring(self, len + page_size(), PROT_READ,
				       MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_ring(self, len, PROT_READ, MAP_SHARED,
				       page_size()));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_ring(self, len, PROT_READ, MAP_PRIVATE, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map_ring(self, len, PROT_READ | PROT_WRITE,
				       MAP_SHARED, 0));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(MAP_FAILED, map_ring(self, len, PROT_READ | PROT_EXEC,
				       MAP_SHARED, 0));
	EXPECT_EQ(EACCES, errno);
}

TEST_F(map, the_mapping_never_becomes_writable_or_larger)
{
	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	EXPECT_EQ(-1, mprotect(self->map, page_size(), PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(self->map, page_size(), PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(MAP_FAILED, mremap(self->map, self->map_size,
				     2 * self->map_size, MREMAP_MAYMOVE));
}

/* Nor inherited on request: MADV_DOFORK cannot undo it. */
TEST_F(map, the_mapping_cannot_be_made_inheritable)
{
	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	EXPECT_EQ(-1, madvise(self->map, self->map_size, MADV_DOFORK));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * Nor can its pages be pinned past it (the module frees the buffer when
 * the last mapping goes): get_user_pages() refuses them, fast or not.
 */
TEST_F(map, the_mappings_pages_cannot_be_pinned_into_a_pipe)
{
	struct iovec iov;
	int p[2];

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	ASSERT_EQ(0, pipe(p));
	iov.iov_base = self->map;
	iov.iov_len = page_size();
	EXPECT_EQ(-1, vmsplice(p[1], &iov, 1, 0));
	EXPECT_EQ(EFAULT, errno);
	close(p[0]);
	close(p[1]);
	/* Nor dropped from it: its pages are the stream's until unmapped. */
	EXPECT_EQ(-1, madvise(self->map, page_size(), MADV_DONTNEED));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(POSIX_TRACE_START,
		  ((const struct posixtrace_record *)self->map)->event_id);
}

/*
 * A caller of a size smaller than ABI 1.0's, who would never learn where
 * a mapped batch is, is refused: nothing is taken, nothing lost.
 */
TEST_F(map, mapped_getnext_smaller_than_abi_1_0_is_einval)
{
	struct posixtrace_getnext req;
	struct posix_trace_status_info st;

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	emit(0, 1);
	memset(&req, 0, sizeof(req));
	req.size = POSIXTRACE_GETNEXT_SIZE_VER0 - 16;
	req.flags = POSIXTRACE_GETNEXT_NONBLOCK | POSIXTRACE_GETNEXT_MAPPED;
	EXPECT_EQ(-1, ioctl(self->fd, POSIXTRACE_IOC_GETNEXT, &req));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing was taken. */
	ASSERT_EQ(0, posix_trace_get_status(self->trid, &st));
	ASSERT_EQ(0, getnext(self, POSIXTRACE_GETNEXT_MAPPED, 0, &req));
	EXPECT_EQ(1, req.count);
}

/*
 * Memory a mapping keeps after its stream's shutdown counts against the
 * streams' limit until the mapping goes: shutting streams down while
 * keeping their mappings cannot hold memory past max_streams.
 */
TEST_F(map, a_mapping_kept_past_shutdown_keeps_the_streams_slot)
{
	void *kept[3];
	trace_id_t trid;
	int old, i, err;

	ASSERT_TRUE(param_read(MAX_STREAMS_PARAM, &old));
	ASSERT_TRUE(param_write(MAX_STREAMS_PARAM, 3));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, running(self, SMALL_STREAM,
				     POSIX_TRACE_UNTIL_FULL));
		ASSERT_EQ(0, learn_size(self));
		kept[i] = map_ring(self, self->map_size, PROT_READ,
				   MAP_SHARED, 0);
		ASSERT_NE(MAP_FAILED, kept[i]);
		/* Shut down and closed: only the mapping holds it now. */
		ASSERT_EQ(0, posix_trace_shutdown(self->trid));
		self->created = false;
	}
	EXPECT_EQ(EAGAIN, posix_trace_create(0, NULL, &trid));
	/* Every piece of a mapping counts: split, then unmapped in turn. */
	ASSERT_EQ(0, munmap((char *)kept[0] + page_size(), page_size()));
	ASSERT_EQ(0, munmap(kept[0], page_size()));
	EXPECT_EQ(EAGAIN, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, munmap((char *)kept[0] + 2 * page_size(),
			    self->map_size - 2 * page_size()));
	for (i = 1; i < 3; i++)
		ASSERT_EQ(0, munmap(kept[i], self->map_size));
	/*
	 * The last mapping gone, the stream goes, and its slot: when its
	 * last reference does (a news work may hold one a moment longer).
	 */
	for (i = 0; i < 100; i++) {
		err = posix_trace_create(0, NULL, &trid);
		if (err != EAGAIN)
			break;
		usleep(10000);
	}
	EXPECT_EQ(0, err);
	if (!err)
		EXPECT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_TRUE(param_write(MAX_STREAMS_PARAM, old));
}

/* A stream with a log is not read: nothing to map. */
TEST_F(map, a_stream_with_a_log_offers_no_mapping)
{
	char path[] = "/tmp/trc_map_test.XXXXXX";
	trace_attr_t attr;
	int log = mkstemp(path);

	ASSERT_LE(0, log);
	unlink(path);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, log, &self->trid));
	self->created = true;
	posix_trace_attr_destroy(&attr);
	close(log);
	self->fd = stream_fd();
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(MAP_FAILED, map_ring(self, 65536, PROT_READ, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * Shut down, the stream maps no more; a mapping made before still reads
 * what it held (the buffer stays until the last mapping goes).
 */
TEST_F(map, a_mapping_outlives_shutdown_and_shutdown_refuses_new_ones)
{
	struct posixtrace_getnext req;
	uint64_t next = 0, seq = 0;

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	emit(0, 10);
	ASSERT_EQ(0, getnext(self, POSIXTRACE_GETNEXT_MAPPED, 0, &req));
	ASSERT_EQ(10, req.count);
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_SHUTDOWN));
	EXPECT_EQ(10, check_batch((unsigned char *)self->map + req.map_offset,
				  req.bytes, &next, &seq));
	EXPECT_EQ(MAP_FAILED, map_ring(self, self->map_size, PROT_READ,
				       MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * A child has neither the mapping (not inherited) nor the right to make
 * one with the descriptor it inherited (a trid is its creator's).
 */
TEST_F(map, a_child_neither_inherits_nor_makes_a_mapping)
{
	unsigned char vec;
	int status, fd;
	pid_t pid;

	ASSERT_EQ(0, running(self, SMALL_STREAM, POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, map(self));
	/* The library closes its descriptors in a child: one of our own. */
	fd = dup(self->fd);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		void *m;
		int code = 0;

		if (mincore(self->map, page_size(), &vec) != -1 ||
		    errno != ENOMEM)
			code |= 1;
		m = mmap(NULL, self->map_size, PROT_READ, MAP_SHARED, fd, 0);
		if (m != MAP_FAILED || errno != EINVAL)
			code |= 2;
		_exit(code);
	}
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
