// SPDX-License-Identifier: GPL-2.0
/*
 * A program of ABI 1.0 against the module as it stands: built against the
 * headers ABI 1.0 released (abi/1.0/linux/, never edited), not the
 * tree's, and speaking to the module as such a program would, by raw
 * ioctls and mappings, without libposixtrace-k. A change to the module
 * that breaks a 1.0 program breaks this test
 * (Documentation/userspace-api/posixtrace-abi.rst).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/posixtrace.h>

#include "../kselftest_harness.h"

#ifndef POSIXTRACE_ABI_MAJOR
#error "built without the 1.0 headers"
#endif
_Static_assert(POSIXTRACE_ABI_MAJOR == 1 && POSIXTRACE_ABI_MINOR == 0,
	       "abi10_test is built against the frozen ABI 1.0 headers");

#define DEVICE		"/dev/posixtrace"
#define NAME		"abi10.event"
#define FORMAT		"n:u64"
#define STREAM_SIZE	(64 * 1024)

FIXTURE(abi10) {
	int dev;		/* /dev/posixtrace */
	int fd;			/* the stream, LOOP, tracing ourselves */
	__u32 id;		/* NAME's identifier */
	unsigned char buf[16384];
};

FIXTURE_SETUP(abi10)
{
	struct posixtrace_eventid eid = {
		.size = sizeof(eid), .name = (uintptr_t)NAME,
		.format = (uintptr_t)FORMAT,
	};
	struct posixtrace_attr attr = {
		.size = sizeof(attr), .name = "abi10",
		.stream_size = STREAM_SIZE, .max_data_size = 64,
		.stream_full_policy = POSIXTRACE_LOOP,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};
	struct posixtrace_create create = {
		.size = sizeof(create), .pid = 0, .log_fd = -1,
		.attr = (uintptr_t)&attr,
	};

	self->fd = -1;
	self->dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (self->dev < 0)
		SKIP(return, "no %s: module not loaded", DEVICE);
	ASSERT_EQ(0, ioctl(self->dev, POSIXTRACE_IOC_EVENTID_OPEN, &eid));
	ASSERT_LE(POSIXTRACE_EVENT_USER_BASE, eid.event_id);
	self->id = eid.event_id;
	self->fd = ioctl(self->dev, POSIXTRACE_IOC_CREATE, &create);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(abi10)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0)
		close(self->dev);
}

/* One event of NAME with @n as its data, by system call. */
static int event(int dev, __u32 id, __u64 n)
{
	struct posixtrace_event ev = {
		.size = sizeof(ev), .event_id = id, .data_len = sizeof(n),
		.data = (uintptr_t)&n,
	};

	return ioctl(dev, POSIXTRACE_IOC_EVENT, &ev);
}

/*
 * The records of one non-blocking GETNEXT: how many of type @id, the
 * last one's data in *@n; -1 on error.
 */
static int read_events(int fd, unsigned char *buf, __u32 size, __u32 id,
		       __u64 *n)
{
	struct posixtrace_getnext gn = {
		.size = sizeof(gn), .flags = POSIXTRACE_GETNEXT_NONBLOCK,
		.buf = (uintptr_t)buf, .buf_size = size,
	};
	struct posixtrace_record rec;
	__u32 off = 0;
	int found = 0;

	if (ioctl(fd, POSIXTRACE_IOC_GETNEXT, &gn))
		return -1;
	if (gn.size != sizeof(gn) || gn.map_offset != POSIXTRACE_GETNEXT_IN_BUF)
		return -1;
	for (__u32 i = 0; i < gn.count; i++) {
		memcpy(&rec, buf + off, sizeof(rec));
		if (rec.header_size != sizeof(rec) || rec.size < sizeof(rec) ||
		    off + rec.size > gn.bytes)
			return -1;
		if (rec.event_id == id) {
			if (rec.data_len != sizeof(*n) ||
			    rec.pid != getpid() ||
			    rec.tid != (__s32)syscall(SYS_gettid))
				return -1;
			memcpy(n, buf + off + rec.header_size, sizeof(*n));
			found++;
		}
		off += rec.size;
	}
	return off == gn.bytes ? found : -1;
}

TEST(version_is_1_x)
{
	struct posixtrace_version ver = { .size = sizeof(ver) };
	int dev = open(DEVICE, O_RDWR | O_CLOEXEC);

	if (dev < 0)
		SKIP(return, "no %s: module not loaded", DEVICE);
	ASSERT_EQ(0, ioctl(dev, POSIXTRACE_IOC_VERSION, &ver));
	EXPECT_EQ(1, ver.major);
	EXPECT_LE(0, ver.minor);
	EXPECT_LE(sizeof(ver), ver.size);
	close(dev);
}

TEST_F(abi10, events_by_system_call_are_read_and_counted)
{
	struct posixtrace_status st = { .size = sizeof(st) };
	__u64 n = 0;

	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_START, 0));
	ASSERT_EQ(0, event(self->dev, self->id, 41));
	ASSERT_EQ(0, event(self->dev, self->id, 42));
	ASSERT_EQ(2, read_events(self->fd, self->buf, sizeof(self->buf),
				 self->id, &n));
	EXPECT_EQ(42, n);
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_STATUS, &st));
	EXPECT_EQ(POSIXTRACE_RUNNING, st.state);
	EXPECT_LE(2, st.events_recorded);
	EXPECT_EQ(st.events_recorded, st.events_read);
	EXPECT_EQ(0, st.events_lost);
	EXPECT_EQ(STREAM_SIZE, st.bytes_total);
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_STOP, 0));
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_STATUS, &st));
	EXPECT_EQ(POSIXTRACE_SUSPENDED, st.state);
}

TEST_F(abi10, the_name_keeps_its_format)
{
	char name[POSIXTRACE_EVENT_NAME_MAX + 1], fmt[64];
	struct posixtrace_eventtype et = {
		.size = sizeof(et), .event_id = self->id,
		.name = (uintptr_t)name, .format = (uintptr_t)fmt,
		.format_size = sizeof(fmt),
	};

	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_EVENTID_NAME, &et));
	EXPECT_STREQ(NAME, name);
	EXPECT_EQ(strlen(FORMAT) + 1, et.format_len);
	EXPECT_STREQ(FORMAT, fmt);
}

TEST_F(abi10, a_filtered_type_is_neither_recorded_nor_lost)
{
	struct posixtrace_eventset set = { };
	struct posixtrace_filter f = {
		.size = sizeof(f), .how = POSIXTRACE_SET_EVENTSET,
		.set = (uintptr_t)&set,
	};
	struct posixtrace_status st = { .size = sizeof(st) };
	__u64 n = 0;

	set.bits[self->id / 64] |= 1ULL << (self->id % 64);
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_SET_FILTER, &f));
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_START, 0));
	ASSERT_EQ(0, event(self->dev, self->id, 7));
	ASSERT_EQ(0, read_events(self->fd, self->buf, sizeof(self->buf),
				 self->id, &n));
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_STATUS, &st));
	EXPECT_EQ(0, st.events_lost);
	memset(&set, 0, sizeof(set));
	f.how = 0;
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_GET_FILTER, &f));
	EXPECT_TRUE(set.bits[self->id / 64] & (1ULL << (self->id % 64)));
}

/* Does the module map thread rings (its max_ring_size is not 0)? */
static int rings_on(void)
{
	FILE *f = fopen("/sys/module/posixtrace/parameters/max_ring_size",
			"r");
	long size = 1;

	if (f) {
		if (fscanf(f, "%ld", &size) != 1)
			size = 1;
		fclose(f);
	}
	return size != 0;
}

/*
 * A thread ring, written as the protocol says: the record whole, the
 * next place's commit word zeroed, ~pos in the commit word (release),
 * the end in @produced (release); RING_DRAIN; the event is read. The
 * enable page says the type is recorded first.
 */
TEST_F(abi10, an_event_through_the_thread_ring_is_read)
{
	long page = sysconf(_SC_PAGESIZE);
	const struct posixtrace_enable_page *ep;
	struct posixtrace_ring_ctl *ctl;
	struct posixtrace_ring_record *rec;
	struct timespec ts;
	unsigned char *map, *data;
	size_t len = page + page;
	__u64 n = 0, pos, size, end;

	if (!rings_on())
		SKIP(return, "thread rings are off (max_ring_size 0)");
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_START, 0));
	ep = mmap(NULL, page, PROT_READ, MAP_SHARED, self->dev,
		  POSIXTRACE_ENABLE_PAGE_OFFSET);
	ASSERT_NE(MAP_FAILED, ep);
	ASSERT_EQ(POSIXTRACE_ENABLE_MAGIC, ep->magic);
	EXPECT_TRUE(__atomic_load_n(&ep->enabled[self->id / 64],
				    __ATOMIC_RELAXED) &
		    (1ULL << (self->id % 64)));
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, self->dev,
		   POSIXTRACE_RING_OFFSET);
	ASSERT_NE(MAP_FAILED, map);
	ctl = (void *)map;
	ASSERT_EQ(POSIXTRACE_RING_MAGIC, ctl->magic);
	ASSERT_EQ(POSIXTRACE_RING_LIVE, ctl->state);
	ASSERT_EQ((__u64)page, ctl->data_size);
	ASSERT_EQ(0, ctl->grown_from);
	data = map + ctl->data_offset;
	size = ctl->data_size;
	pos = __atomic_load_n(&ctl->consumed, __ATOMIC_ACQUIRE);
	end = pos + sizeof(*rec) + sizeof(n);
	rec = (void *)(data + (pos & (size - 1)));
	clock_gettime(CLOCK_REALTIME, &ts);
	rec->size = sizeof(*rec) + sizeof(n);
	rec->event_id = self->id;
	rec->ts_sec = ts.tv_sec;
	rec->ts_nsec = ts.tv_nsec;
	rec->data_len = sizeof(n);
	rec->prog_address = 0;
	rec->thread = 0;
	n = 4242;
	memcpy(rec + 1, &n, sizeof(n));
	__atomic_store_n((__u64 *)(data + (end & (size - 1))), 0,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&rec->commit, ~pos, __ATOMIC_RELEASE);
	__atomic_store_n(&ctl->produced, end, __ATOMIC_RELEASE);
	ASSERT_EQ(0, ioctl(self->dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	n = 0;
	ASSERT_EQ(1, read_events(self->fd, self->buf, sizeof(self->buf),
				 self->id, &n));
	EXPECT_EQ(4242, n);
	EXPECT_EQ(end, __atomic_load_n(&ctl->consumed, __ATOMIC_ACQUIRE));
	munmap(map, len);
	munmap((void *)ep, page);
}

/* The batch left in the stream's mapping instead of copied. */
TEST_F(abi10, a_mapped_read_finds_the_batch_in_the_mapping)
{
	struct posixtrace_getnext gn = {
		.size = sizeof(gn), .flags = POSIXTRACE_GETNEXT_NONBLOCK,
		.buf = (uintptr_t)self->buf, .buf_size = sizeof(self->buf),
	};
	struct posixtrace_record rec;
	const unsigned char *map;
	__u64 n;

	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_START, 0));
	ASSERT_EQ(0, event(self->dev, self->id, 1));
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_GETNEXT, &gn));
	ASSERT_LT(0, gn.map_size);
	map = mmap(NULL, gn.map_size, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, event(self->dev, self->id, 2));
	gn.flags = POSIXTRACE_GETNEXT_NONBLOCK | POSIXTRACE_GETNEXT_MAPPED;
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_GETNEXT, &gn));
	ASSERT_EQ(1, gn.count);
	ASSERT_NE(POSIXTRACE_GETNEXT_IN_BUF, gn.map_offset);
	ASSERT_GE(gn.map_size, gn.map_offset + gn.bytes);
	memcpy(&rec, map + gn.map_offset, sizeof(rec));
	EXPECT_EQ(self->id, rec.event_id);
	memcpy(&n, map + gn.map_offset + rec.header_size, sizeof(n));
	EXPECT_EQ(2, n);
	munmap((void *)map, gn.map_size);
}

TEST_F(abi10, shutdown_ends_the_stream)
{
	__u64 n;

	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_START, 0));
	ASSERT_EQ(0, ioctl(self->fd, POSIXTRACE_IOC_SHUTDOWN, 0));
	EXPECT_EQ(-1, read_events(self->fd, self->buf, sizeof(self->buf),
				  self->id, &n));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
