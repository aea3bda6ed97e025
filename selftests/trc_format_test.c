// SPDX-License-Identifier: GPL-2.0
/*
 * Event formats: posixtrace_k_eventid_open_format() gives an
 * event name a format, which streams (EVENTID_NAME) and logs (DEFINE
 * entries, TYPES) carry with the type. One negative case per rule of the
 * grammar and of the ABI:
 *  - a format is field:type[,field:type]..., 1 to 16 fields, at most 255
 *    characters; a field name is a C identifier of at most 31 characters,
 *    unique; a type is u8..u64, s8..s64, f32, f64, str or bytes (last);
 *    anything else is EINVAL, past 255 characters ENAMETOOLONG;
 *  - a name keeps its first format: another is EEXIST, the same is fine,
 *    a plain open keeps it; a name opened without one may get one; a
 *    tracer (TRID_EVENTID_OPEN) gives none: EINVAL;
 *  - a bad pointer is EFAULT; callers of the VER0 structs are served as
 *    before;
 *  - posixtrace_k_eventid_get_format(): ENOENT without a format, ERANGE
 *    for a small buffer, on a stream and on a log;
 *  - a traced family that inherits shares its names, formats included.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <posixtrace-k.h>

#include "trc_common.h"
#include "trl_common.h"

#define FMT	"pid:s32,ms:f64,what:str"

/* EVENTID_OPEN on the device, with a struct of @size bytes. */
static int raw_open(const char *name, const char *format, uint32_t size,
		    uint32_t *id)
{
	struct posixtrace_eventid req = {
		.size = size,
		.name = (uintptr_t)name,
		.format = (uintptr_t)format,
	};
	int dev, ret;

	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return errno;
	ret = ioctl(dev, POSIXTRACE_IOC_EVENTID_OPEN, &req) ? errno : 0;
	close(dev);
	if (!ret && id)
		*id = req.event_id;
	return ret;
}

static int open_fmt(const char *name, const char *format)
{
	return raw_open(name, format, sizeof(struct posixtrace_eventid), NULL);
}

/* A stream on this process, made with the raw ABI: its descriptor. */
static int raw_stream(void)
{
	struct posixtrace_attr ua = {
		.size = sizeof(ua),
		.stream_full_policy = POSIXTRACE_LOOP,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
	};
	struct posixtrace_create req = {
		.size = sizeof(req), .log_fd = -1, .attr = (uintptr_t)&ua,
	};
	int dev, fd;

	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	fd = ioctl(dev, POSIXTRACE_IOC_CREATE, &req);
	close(dev);
	return fd;
}

/* TRID_EVENTID_OPEN on the stream fd: 0 or the errno. */
static int tracer_open(int fd, const char *name, const char *format,
		       uint32_t *id)
{
	struct posixtrace_eventid eid = {
		.size = sizeof(eid),
		.name = (uintptr_t)name,
		.format = (uintptr_t)format,
	};

	if (ioctl(fd, POSIXTRACE_IOC_TRID_EVENTID_OPEN, &eid))
		return errno;
	*id = eid.event_id;
	return 0;
}

TEST(format_reaches_eventid_name_of_a_stream)
{
	struct posixtrace_eventtype et = { .size = sizeof(et) };
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	char fmt[POSIXTRACE_FORMAT_MAX + 1];
	uint32_t id, id2 = 0;
	int fd;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, raw_open("fmt.a", FMT, sizeof(struct posixtrace_eventid),
			      &id));
	fd = raw_stream();
	ASSERT_LE(0, fd);
	et.event_id = id;
	et.name = (uintptr_t)name;
	et.format = (uintptr_t)fmt;
	et.format_size = sizeof(fmt);
	ASSERT_EQ(0, ioctl(fd, POSIXTRACE_IOC_EVENTID_NAME, &et));
	ASSERT_EQ(sizeof(struct posixtrace_eventtype), et.size);
	ASSERT_STREQ("fmt.a", name);
	ASSERT_EQ(strlen(FMT) + 1, et.format_len);
	ASSERT_STREQ(FMT, fmt);

	/* Too small a buffer: the length, and nothing stored. */
	memset(fmt, 'x', sizeof(fmt));
	et.size = sizeof(et);
	et.format_size = strlen(FMT);
	ASSERT_EQ(0, ioctl(fd, POSIXTRACE_IOC_EVENTID_NAME, &et));
	ASSERT_EQ(strlen(FMT) + 1, et.format_len);
	ASSERT_EQ('x', fmt[0]);

	/* A tracer gives no format: only the program knows its data. */
	ASSERT_EQ(EINVAL, tracer_open(fd, "fmt.tracer", "a:u8", &id2));
	ASSERT_EQ(0, tracer_open(fd, "fmt.tracer", NULL, &id2));
	ASSERT_EQ(id + 1, id2);

	/* A system type has none; nor has EVENTTYPE_NEXT's past the end. */
	et.size = sizeof(et);
	et.event_id = POSIXTRACE_EVENT_START;
	et.format_size = sizeof(fmt);
	ASSERT_EQ(0, ioctl(fd, POSIXTRACE_IOC_EVENTID_NAME, &et));
	ASSERT_EQ(0, et.format_len);
	et.size = sizeof(et);
	et.event_id = id;
	ASSERT_EQ(0, ioctl(fd, POSIXTRACE_IOC_EVENTTYPE_NEXT, &et));
	ASSERT_EQ(1, et.found);
	ASSERT_EQ(strlen(FMT) + 1, et.format_len);
	et.size = sizeof(et);
	et.event_id = POSIXTRACE_EVENT_ID_MAX;
	et.format_len = 99;
	ASSERT_EQ(0, ioctl(fd, POSIXTRACE_IOC_EVENTTYPE_NEXT, &et));
	ASSERT_EQ(0, et.found);
	ASSERT_EQ(0, et.format_len);
	close(fd);
}

/*
 * ABI 1.0's structs are the smallest the module takes: a caller of a
 * smaller size (one of the unreleased 0.x headers) is refused, and
 * nothing past its size is written.
 */
TEST(structs_smaller_than_abi_1_0_are_einval)
{
	struct {
		struct posixtrace_eventtype et;
		uint32_t canary;
	} big;
	char name[POSIXTRACE_EVENT_NAME_MAX + 1];
	uint32_t id;
	int fd;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(EINVAL, raw_open("fmt.small", NULL,
				   POSIXTRACE_EVENTID_SIZE_VER0 - 8, &id));
	ASSERT_EQ(0, raw_open("fmt.small", NULL, POSIXTRACE_EVENTID_SIZE_VER0,
			      &id));
	fd = raw_stream();
	ASSERT_LE(0, fd);
	memset(&big, 0xa5, sizeof(big));
	big.et.size = POSIXTRACE_EVENTTYPE_SIZE_VER0 - 16;
	big.et.flags = 0;
	big.et.event_id = id;
	big.et.name = (uintptr_t)name;
	ASSERT_EQ(-1, ioctl(fd, POSIXTRACE_IOC_EVENTID_NAME, &big.et));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0xa5a5a5a5, big.et.format_len);
	ASSERT_EQ(0xa5a5a5a5, big.et.format_size);
	close(fd);
}

TEST(every_type_and_sixteen_fields_of_255_characters_are_accepted)
{
	char fmt[POSIXTRACE_FORMAT_MAX + 2];
	int i;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, open_fmt("fmt.types",
			      "a:u8,b:u16,c:u32,d:u64,e:s8,f:s16,g:s32,h:s64,"
			      "i:f32,j:f64,k:str,_L9:str,m:bytes"));
	/* 16 fields of 15 characters and 15 commas: 255 characters. */
	fmt[0] = '\0';
	for (i = 0; i < POSIXTRACE_FORMAT_FIELDS_MAX; i++)
		sprintf(fmt + strlen(fmt), "%sfi_%08d:u32", i ? "," : "",
			i);
	ASSERT_EQ(POSIXTRACE_FORMAT_MAX, strlen(fmt));
	ASSERT_EQ(0, open_fmt("fmt.max", fmt));
	/* A field name of 31 characters. */
	ASSERT_EQ(0, open_fmt("fmt.name31",
			      "abcdefghijklmnopqrstuvwxyz01234:u8"));
}

TEST(unknown_type_is_einval)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a:u128"));
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a:"));
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a:U8"));
}

TEST(field_name_not_an_identifier_is_einval)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "1a:u8"));
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a-b:u8"));
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", ":u8"));
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a :u8"));
	/* Letters of Latin-1 or UTF-8 are not C's. */
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "\xe9t\xe9:u8"));
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "caf\xc3\xa9:u8"));
	/* 32 characters: one too many. */
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad",
				   "abcdefghijklmnopqrstuvwxyz012345:u8"));
}

TEST(duplicate_field_name_is_einval)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a:u8,b:u8,a:u16"));
}

TEST(format_of_256_characters_is_enametoolong)
{
	char fmt[POSIXTRACE_FORMAT_MAX + 2];

	SKIP_WITHOUT_DEVICE();
	memset(fmt, 'a', sizeof(fmt) - 1);
	fmt[sizeof(fmt) - 1] = '\0';
	memcpy(fmt + sizeof(fmt) - 4, ":u8", 3);
	ASSERT_EQ(POSIXTRACE_FORMAT_MAX + 1, strlen(fmt));
	ASSERT_EQ(ENAMETOOLONG, open_fmt("fmt.bad", fmt));
}

TEST(seventeen_fields_is_einval)
{
	char fmt[POSIXTRACE_FORMAT_MAX + 1] = "";
	int i;

	SKIP_WITHOUT_DEVICE();
	for (i = 0; i <= POSIXTRACE_FORMAT_FIELDS_MAX; i++)
		sprintf(fmt + strlen(fmt), "%sf%d:u8", i ? "," : "", i);
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", fmt));
}

TEST(empty_format_and_empty_fields_are_einval)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", ""));
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a:u8,"));
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a:u8,,b:u8"));
}

TEST(bytes_before_the_last_field_is_einval)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(EINVAL, open_fmt("fmt.bad", "a:bytes,b:u8"));
}

TEST(bad_format_pointer_is_efault)
{
	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(EFAULT, open_fmt("fmt.fault", (const char *)8));
}

/* A refused format leaves no trace: the name was not added. */
TEST(refused_format_adds_no_name)
{
	trace_event_id_t id, first;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(EINVAL, posixtrace_k_eventid_open_format("fmt.none", "x",
							   &id));
	ASSERT_EQ(0, posix_trace_eventid_open("fmt.first", &first));
	ASSERT_EQ(0, posix_trace_eventid_open("fmt.none", &id));
	ASSERT_EQ(first + 1, id);
}

TEST(other_format_for_a_name_is_eexist_same_is_fine)
{
	trace_event_id_t id, id2;
	trace_id_t trid;
	char fmt[64];

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posixtrace_k_eventid_open_format("fmt.c", "a:u8", &id));
	ASSERT_EQ(EEXIST, posixtrace_k_eventid_open_format("fmt.c", "a:u16",
							   &id2));
	ASSERT_EQ(0, posixtrace_k_eventid_open_format("fmt.c", "a:u8", &id2));
	ASSERT_EQ(id, id2);
	ASSERT_EQ(0, posix_trace_eventid_open("fmt.c", &id2));
	ASSERT_EQ(id, id2);
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, posixtrace_k_eventid_get_format(trid, id, fmt,
						     sizeof(fmt)));
	ASSERT_STREQ("a:u8", fmt);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* A tracer may name a type (to filter it) before its program gives it one. */
TEST(name_opened_without_format_may_get_one)
{
	trace_event_id_t id, id2;
	trace_id_t trid;
	char fmt[64];

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	ASSERT_EQ(0, posix_trace_trid_eventid_open(trid, "fmt.late", &id));
	ASSERT_EQ(ENOENT, posixtrace_k_eventid_get_format(trid, id, fmt,
							  sizeof(fmt)));
	ASSERT_EQ(0, posixtrace_k_eventid_open_format("fmt.late", "n:u64",
						      &id2));
	ASSERT_EQ(id, id2);
	ASSERT_EQ(0, posixtrace_k_eventid_get_format(trid, id, fmt,
						     sizeof(fmt)));
	ASSERT_STREQ("n:u64", fmt);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

TEST(get_format_errors)
{
	trace_event_id_t id, plain;
	trace_id_t trid;
	char fmt[64];

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posixtrace_k_eventid_open_format("fmt.g", "a:u8,b:str",
						      &id));
	ASSERT_EQ(0, posix_trace_eventid_open("fmt.plain", &plain));
	ASSERT_EQ(0, posix_trace_create(0, NULL, &trid));
	/* "a:u8,b:str" and its NUL: 11 bytes. */
	memset(fmt, 'x', sizeof(fmt));
	ASSERT_EQ(ERANGE, posixtrace_k_eventid_get_format(trid, id, fmt, 10));
	ASSERT_EQ('x', fmt[0]);
	ASSERT_EQ(0, posixtrace_k_eventid_get_format(trid, id, fmt, 11));
	ASSERT_STREQ("a:u8,b:str", fmt);
	ASSERT_EQ(ENOENT, posixtrace_k_eventid_get_format(trid, plain, fmt,
							  sizeof(fmt)));
	ASSERT_EQ(ENOENT, posixtrace_k_eventid_get_format(
				  trid, POSIX_TRACE_START, fmt, sizeof(fmt)));
	ASSERT_EQ(EINVAL, posixtrace_k_eventid_get_format(trid, id + 100, fmt,
							  sizeof(fmt)));
	ASSERT_EQ(EINVAL, posixtrace_k_eventid_get_format(trid, id, NULL, 8));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_EQ(EINVAL, posixtrace_k_eventid_get_format(trid, id, fmt,
							  sizeof(fmt)));
	ASSERT_EQ(EINVAL, posixtrace_k_eventid_open_format(NULL, "a:u8", &id));
}

/* Under inheritance the family shares one table: formats included. */
TEST(forked_child_of_an_inheriting_stream_shares_formats)
{
	trace_event_id_t id, cid;
	trace_attr_t attr;
	trace_id_t trid;
	int status;
	char fmt[64];
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setinherited(&attr,
						   POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
	ASSERT_EQ(0, posixtrace_k_eventid_open_format("fmt.fam", "a:u32",
						      &id));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The parent's format holds here; the child adds one. */
		if (posixtrace_k_eventid_open_format("fmt.fam", "a:u64",
						     &cid) != EEXIST)
			_exit(1);
		if (posixtrace_k_eventid_open_format("fmt.fam", "a:u32",
						     &cid) || cid != id)
			_exit(2);
		if (posixtrace_k_eventid_open_format("fmt.kid", "b:str",
						     &cid))
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, posix_trace_eventid_open("fmt.kid", &cid));
	ASSERT_EQ(0, posixtrace_k_eventid_get_format(trid, cid, fmt,
						     sizeof(fmt)));
	ASSERT_STREQ("b:str", fmt);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * A log carries formats in its DEFINE entries and its TYPES block: read
 * whole (TYPES), and cut short before TYPES (DEFINE entries only).
 */
TEST(format_reaches_a_log_types_and_define)
{
	trace_event_id_t id, plain, lid;
	struct stat st_flushed;
	trace_attr_t attr;
	trace_id_t trid, ltrid;
	struct {
		uint32_t v;
		double d;
		char s[6];
	} __attribute__((packed)) job = { 7, 2.5, "typed" };
	char fmt[64];
	int fd, pass;

	SKIP_WITHOUT_DEVICE();
	fd = tmp_log();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, posixtrace_k_eventid_open_format("fmt.log",
						      "v:u32,d:f64,s:str",
						      &id));
	ASSERT_EQ(0, posix_trace_eventid_open("fmt.plain", &plain));
	ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_FLUSH, POSIX_TRACE_APPEND,
			      0, 0));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	posix_trace_event(id, &job, sizeof(job));
	/* One that does not match its format: shown as bytes. */
	posix_trace_event(id, &job, 4);
	posix_trace_event(plain, &job, sizeof(job));
	ASSERT_EQ(0, posix_trace_flush(trid));
	ASSERT_EQ(0, wait_flushed(trid));
	ASSERT_EQ(0, fstat(fd, &st_flushed));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_TRUE(wait_log_closed(fd));
	ASSERT_TRUE(export_log(fd, getenv("POSIXTRACE_LOG_EXPORT"),
			       "typed.ptlog"));
	for (pass = 0; pass < 2; pass++) {
		/* The second pass reads the log without TYPES and END. */
		if (pass)
			ASSERT_EQ(0, ftruncate(fd, st_flushed.st_size));
		ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
		ASSERT_EQ(0, posix_trace_open(fd, &ltrid));
		ASSERT_EQ(0, posix_trace_eventid_get_name(ltrid, id, fmt));
		ASSERT_STREQ("fmt.log", fmt);
		lid = id;
		ASSERT_EQ(0, posixtrace_k_eventid_get_format(ltrid, lid, fmt,
							     sizeof(fmt)));
		ASSERT_STREQ("v:u32,d:f64,s:str", fmt);
		ASSERT_EQ(ERANGE, posixtrace_k_eventid_get_format(ltrid, lid,
								  fmt, 17));
		ASSERT_EQ(ENOENT, posixtrace_k_eventid_get_format(
					  ltrid, plain, fmt, sizeof(fmt)));
		ASSERT_EQ(ENOENT, posixtrace_k_eventid_get_format(
					  ltrid, POSIX_TRACE_STOP, fmt,
					  sizeof(fmt)));
		ASSERT_EQ(0, posix_trace_close(ltrid));
	}
	close(fd);
}

/* The names a race round opens, and the thread that gives them formats. */
#define RACE_NAMES	200
#define RACE_ROUNDS	4

struct race {
	int round;
	int errors;
};

static void race_name(char *buf, size_t size, int round, int i)
{
	snprintf(buf, size, "race.%d.%d", round, i);
}

static void *give_formats(void *arg)
{
	struct race *r = arg;
	trace_event_id_t id;
	char name[32];
	int i;

	for (i = 0; i < RACE_NAMES; i++) {
		race_name(name, sizeof(name), r->round, i);
		if (posixtrace_k_eventid_open_format(name, "a:u32", &id))
			r->errors++;
	}
	return NULL;
}

/*
 * The traced process may give its names formats while its stream's log is
 * being closed: the TYPES block must still name every type the log has
 * events of. It once sized itself in one pass and filled itself in
 * another, and a format given in between pushed the last types out of it;
 * readers, who prefer TYPES to the DEFINE entries, then lost their names.
 * A thread gives the formats while the stream shuts down; every event
 * read back must have its name.
 */
TEST(formats_given_while_the_log_closes_leave_no_type_out)
{
	char name[32], got[TRACE_EVENT_NAME_MAX + 1], data[16];
	trace_event_id_t ids[RACE_NAMES], first;
	struct posix_trace_event_info info;
	int fd, round, i, unavailable, n;
	trace_id_t trid, ltrid;
	struct race r;
	trace_attr_t attr;
	pthread_t thr;
	size_t len;

	SKIP_WITHOUT_DEVICE();
	for (round = 0; round < RACE_ROUNDS; round++) {
		fd = tmp_log();
		ASSERT_LE(0, fd);
		for (i = 0; i < RACE_NAMES; i++) {
			race_name(name, sizeof(name), round, i);
			ASSERT_EQ(0, posix_trace_eventid_open(name, &ids[i]));
		}
		first = ids[0];
		ASSERT_EQ(0, log_attr(&attr, POSIX_TRACE_FLUSH,
				      POSIX_TRACE_APPEND, 0, 0));
		ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
		ASSERT_EQ(0, posix_trace_start(trid));
		for (i = 0; i < RACE_NAMES; i++)
			posix_trace_event(ids[i], &i, sizeof(i));
		r = (struct race){ .round = round };
		ASSERT_EQ(0, pthread_create(&thr, NULL, give_formats, &r));
		ASSERT_EQ(0, posix_trace_shutdown(trid));
		ASSERT_EQ(0, pthread_join(thr, NULL));
		ASSERT_EQ(0, r.errors);
		ASSERT_TRUE(wait_log_closed(fd));
		ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
		ASSERT_EQ(0, posix_trace_open(fd, &ltrid));
		for (n = 0;; ) {
			ASSERT_EQ(0, posix_trace_getnext_event(ltrid, &info,
					data, sizeof(data), &len, &unavailable));
			if (unavailable)
				break;
			if (info.posix_event_id < first ||
			    info.posix_event_id >= first + RACE_NAMES)
				continue;
			i = info.posix_event_id - first;
			race_name(name, sizeof(name), round, i);
			ASSERT_EQ(0, posix_trace_eventid_get_name(ltrid,
						info.posix_event_id, got)) {
				TH_LOG("round %d: event %d has no name", round,
				       i);
			}
			ASSERT_STREQ(name, got);
			n++;
		}
		ASSERT_EQ(RACE_NAMES, n);
		ASSERT_EQ(0, posix_trace_close(ltrid));
		close(fd);
	}
}

TEST_HARNESS_MAIN
