// SPDX-License-Identifier: GPL-2.0
/*
 * Monitoring trace streams over generic netlink (posixtrace_netlink.h),
 * spoken with raw sockets so that malformed requests can be sent: the
 * family and its "notify" group resolve through the controller; GET as a
 * dump and as a doit describes a stream with exactly its attributes; who
 * sees which stream; a stream with a log; the NOTIFY messages of a stream's
 * life, of UNTIL_FULL and LOOP streams that fill; who may join the group;
 * one malformed request per validation rule, each answered by an error
 * with an extended ack message and no partial answer, the socket working
 * afterwards.
 *
 * A family that does not resolve skips every test: that posixtrace.ko has
 * no netlink support. Forked children never use the harness's ASSERTs:
 * they report through a pipe.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/posixtrace_netlink.h>

#include "nl_common.h"
#include "trc_common.h"

#define MAX_STREAMS	512		/* room for the streams of a dump */
#define MAX_NOTES	64		/* notifications kept for one stream */
#define NOBODY		65534

#define SKIP_WITHOUT_ROOT() do {					\
	if (geteuid() != 0)						\
		SKIP(return, "needs root");				\
} while (0)

/* A stream as GET or NOTIFY describes it. */
struct stream_info {
	uint64_t seen;		/* a bit per attribute type present */
	uint64_t id, stream_size, bytes_used, recorded, lost, create_time;
	uint64_t read, log_discarded;
	uint32_t creator_pid, creator_uid, state, full_policy, log_policy;
	uint32_t inheritance, overrun, full_status, event;
	int ntraced;
	uint32_t traced_count;
	uint32_t traced[16];
	char name[POSIXTRACE_NAME_MAX + 1];
	char log_path[PATH_MAX];
	char bad[160];		/* why the message is malformed, "" if it is not */
};

#define HAS(s, a)	(((s)->seen >> (a)) & 1)

/* ---- a stream's description ------------------------------------------- */

static int __attribute__((format(printf, 2, 3)))
bad(struct stream_info *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->bad[0]) {
		va_start(ap, fmt);
		vsnprintf(s->bad, sizeof(s->bad), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Attribute kinds: a u32, a u64, a string, TRACED, PAD. */
enum { K_NONE, K_U32, K_U64, K_STR, K_NEST, K_PAD };

static const unsigned char attr_kind[POSIXTRACE_NL_A_MAX + 1] = {
	[POSIXTRACE_NL_A_PAD] = K_PAD,
	[POSIXTRACE_NL_A_STREAM_ID] = K_U64,
	[POSIXTRACE_NL_A_CREATOR_PID] = K_U32,
	[POSIXTRACE_NL_A_CREATOR_UID] = K_U32,
	[POSIXTRACE_NL_A_TRACED] = K_NEST,
	[POSIXTRACE_NL_A_NAME] = K_STR,
	[POSIXTRACE_NL_A_STATE] = K_U32,
	[POSIXTRACE_NL_A_FULL_POLICY] = K_U32,
	[POSIXTRACE_NL_A_LOG_POLICY] = K_U32,
	[POSIXTRACE_NL_A_INHERITANCE] = K_U32,
	[POSIXTRACE_NL_A_STREAM_SIZE] = K_U64,
	[POSIXTRACE_NL_A_BYTES_USED] = K_U64,
	[POSIXTRACE_NL_A_EVENTS_RECORDED] = K_U64,
	[POSIXTRACE_NL_A_EVENTS_LOST] = K_U64,
	[POSIXTRACE_NL_A_OVERRUN_STATUS] = K_U32,
	[POSIXTRACE_NL_A_FULL_STATUS] = K_U32,
	[POSIXTRACE_NL_A_LOG_PATH] = K_STR,
	[POSIXTRACE_NL_A_CREATE_TIME] = K_U64,
	[POSIXTRACE_NL_A_EVENT] = K_U32,
	[POSIXTRACE_NL_A_TRACED_COUNT] = K_U32,
	[POSIXTRACE_NL_A_EVENTS_READ] = K_U64,
	[POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED] = K_U64,
};

/*
 * Parse a GET answer or a NOTIFY (cmd) strictly: the family's type, every
 * attribute known, of its size, at most once, strings terminated, TRACED
 * holding PIDs only, EVENT in NOTIFY only. 0, or -1 with s->bad set.
 */
static int parse_stream(const struct nlmsghdr *nlh, uint16_t family,
			uint8_t cmd, struct stream_info *s)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const struct nlattr *nla;
	int rem;

	memset(s, 0, sizeof(*s));
	if (nlh->nlmsg_type != family)
		return bad(s, "message type %d, not the family's %d",
			   nlh->nlmsg_type, family);
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return bad(s, "message of %u bytes", nlh->nlmsg_len);
	if (g->cmd != cmd)
		return bad(s, "command %d, expected %d", g->cmd, cmd);
	nla = (const struct nlattr *)((const char *)g + GENL_HDRLEN);
	rem = (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	while (rem > 0) {
		const unsigned char *p = (const unsigned char *)nla + NLA_HDRLEN;
		uint32_t u32 = 0;
		uint64_t u64 = 0;
		int type, len;

		if (rem < NLA_HDRLEN)
			return bad(s, "%d bytes left after the attributes", rem);
		if (nla->nla_len < NLA_HDRLEN || nla->nla_len > rem)
			return bad(s, "attribute of nla_len %u, %d bytes left",
				   nla->nla_len, rem);
		type = nla->nla_type & NLA_TYPE_MASK;
		len = nla->nla_len - NLA_HDRLEN;
		if (type == 0 || type > POSIXTRACE_NL_A_MAX ||
		    attr_kind[type] == K_NONE)
			return bad(s, "unexpected attribute %d at top level",
				   type);
		if (type == POSIXTRACE_NL_A_EVENT && cmd != POSIXTRACE_NL_CMD_NOTIFY)
			return bad(s, "EVENT in a GET answer");
		if (type != POSIXTRACE_NL_A_PAD && HAS(s, type))
			return bad(s, "attribute %d twice", type);
		s->seen |= 1ULL << type;
		switch (attr_kind[type]) {
		case K_U32:
			if (len != 4)
				return bad(s, "attribute %d of %d bytes", type, len);
			memcpy(&u32, p, 4);
			break;
		case K_U64:
			if (len != 8)
				return bad(s, "attribute %d of %d bytes", type, len);
			memcpy(&u64, p, 8);
			break;
		case K_STR:
			if (!len || p[len - 1] || strlen((const char *)p) + 1 != len)
				return bad(s, "string %d not terminated (%d bytes)",
					   type, len);
			break;
		case K_NEST: {
			const struct nlattr *in = (const void *)p;
			int irem = len;

			while (irem > 0) {
				if (irem < NLA_HDRLEN || in->nla_len < NLA_HDRLEN ||
				    in->nla_len > irem)
					return bad(s, "TRACED overrun");
				if ((in->nla_type & NLA_TYPE_MASK) !=
				    POSIXTRACE_NL_A_PID ||
				    in->nla_len != NLA_HDRLEN + 4)
					return bad(s, "in TRACED: attribute %d of %d bytes",
						   in->nla_type & NLA_TYPE_MASK,
						   in->nla_len - NLA_HDRLEN);
				if (s->ntraced < (int)(sizeof(s->traced) /
						       sizeof(s->traced[0])))
					memcpy(&s->traced[s->ntraced],
					       (const char *)in + NLA_HDRLEN, 4);
				s->ntraced++;
				irem -= NLA_ALIGN(in->nla_len);
				in = (const void *)((const char *)in +
						    NLA_ALIGN(in->nla_len));
			}
			break;
		}
		}
		switch (type) {
		case POSIXTRACE_NL_A_STREAM_ID: s->id = u64; break;
		case POSIXTRACE_NL_A_CREATOR_PID: s->creator_pid = u32; break;
		case POSIXTRACE_NL_A_CREATOR_UID: s->creator_uid = u32; break;
		case POSIXTRACE_NL_A_NAME:
			snprintf(s->name, sizeof(s->name), "%s", (const char *)p);
			break;
		case POSIXTRACE_NL_A_STATE: s->state = u32; break;
		case POSIXTRACE_NL_A_FULL_POLICY: s->full_policy = u32; break;
		case POSIXTRACE_NL_A_LOG_POLICY: s->log_policy = u32; break;
		case POSIXTRACE_NL_A_INHERITANCE: s->inheritance = u32; break;
		case POSIXTRACE_NL_A_STREAM_SIZE: s->stream_size = u64; break;
		case POSIXTRACE_NL_A_BYTES_USED: s->bytes_used = u64; break;
		case POSIXTRACE_NL_A_EVENTS_RECORDED: s->recorded = u64; break;
		case POSIXTRACE_NL_A_EVENTS_LOST: s->lost = u64; break;
		case POSIXTRACE_NL_A_OVERRUN_STATUS: s->overrun = u32; break;
		case POSIXTRACE_NL_A_FULL_STATUS: s->full_status = u32; break;
		case POSIXTRACE_NL_A_LOG_PATH:
			snprintf(s->log_path, sizeof(s->log_path), "%s",
				 (const char *)p);
			break;
		case POSIXTRACE_NL_A_CREATE_TIME: s->create_time = u64; break;
		case POSIXTRACE_NL_A_EVENT: s->event = u32; break;
		case POSIXTRACE_NL_A_TRACED_COUNT: s->traced_count = u32; break;
		case POSIXTRACE_NL_A_EVENTS_READ: s->read = u64; break;
		case POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED:
			s->log_discarded = u64;
			break;
		}
		rem -= NLA_ALIGN(nla->nla_len);
		nla = (const struct nlattr *)((const char *)nla +
					      NLA_ALIGN(nla->nla_len));
	}
	if (!HAS(s, POSIXTRACE_NL_A_STREAM_ID))
		return bad(s, "no STREAM_ID");
	/* TRACED lists the first POSIXTRACE_NL_TRACED_MAX of them. */
	if (HAS(s, POSIXTRACE_NL_A_TRACED_COUNT) &&
	    s->ntraced != (int)(s->traced_count < POSIXTRACE_NL_TRACED_MAX ?
				s->traced_count : POSIXTRACE_NL_TRACED_MAX))
		return bad(s, "TRACED lists %d of %u", s->ntraced,
			   s->traced_count);
	return 0;
}

/* The attributes every description carries (LOG_* only with a log). */
static const int always[] = {
	POSIXTRACE_NL_A_STREAM_ID, POSIXTRACE_NL_A_CREATOR_PID,
	POSIXTRACE_NL_A_CREATOR_UID, POSIXTRACE_NL_A_TRACED,
	POSIXTRACE_NL_A_NAME, POSIXTRACE_NL_A_STATE,
	POSIXTRACE_NL_A_FULL_POLICY, POSIXTRACE_NL_A_INHERITANCE,
	POSIXTRACE_NL_A_STREAM_SIZE, POSIXTRACE_NL_A_BYTES_USED,
	POSIXTRACE_NL_A_EVENTS_RECORDED, POSIXTRACE_NL_A_EVENTS_LOST,
	POSIXTRACE_NL_A_OVERRUN_STATUS, POSIXTRACE_NL_A_FULL_STATUS,
	POSIXTRACE_NL_A_CREATE_TIME, POSIXTRACE_NL_A_TRACED_COUNT,
	POSIXTRACE_NL_A_EVENTS_READ,
};

/* The first attribute of always[] missing from s, or 0. */
static int missing(const struct stream_info *s)
{
	size_t i;

	for (i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (!HAS(s, always[i]))
			return always[i];
	return 0;
}

struct streams {
	struct nl *nl;
	int n;
	struct stream_info *v;	/* MAX_STREAMS of them */
};

static int collect_stream(const struct nlmsghdr *nlh, void *ctx)
{
	struct streams *st = ctx;
	struct stream_info tmp, *s = st->n < MAX_STREAMS ? &st->v[st->n] : &tmp;
	int ret = parse_stream(nlh, st->nl->family, POSIXTRACE_NL_CMD_GET, s);

	st->n++;
	return ret;
}

/* A dump into st (allocated here; free st->v). Returns res->err. */
static int dump_streams(struct nl *nl, struct streams *st, struct result *res)
{
	st->nl = nl;
	st->n = 0;
	st->v = calloc(MAX_STREAMS, sizeof(*st->v));
	if (!st->v)
		abort();
	msg_begin(nl, nl->family, NLM_F_REQUEST | NLM_F_DUMP,
		  POSIXTRACE_NL_CMD_GET);
	return nl_transact(nl, collect_stream, st, res);
}

/* How many streams of the dump are named name; *at the last one. */
static int count_named(const struct streams *st, const char *name, int *at)
{
	int i, n = 0;

	for (i = 0; i < st->n && i < MAX_STREAMS; i++) {
		if (!strcmp(st->v[i].name, name)) {
			n++;
			if (at)
				*at = i;
		}
	}
	return n;
}

static int count_id(const struct streams *st, uint64_t id)
{
	int i, n = 0;

	for (i = 0; i < st->n && i < MAX_STREAMS; i++)
		n += st->v[i].id == id;
	return n;
}

struct one {
	struct nl *nl;
	int n;
	struct stream_info s;
};

static int collect_one(const struct nlmsghdr *nlh, void *ctx)
{
	struct one *o = ctx;

	if (o->n++)
		return -1;
	return parse_stream(nlh, o->nl->family, POSIXTRACE_NL_CMD_GET, &o->s);
}

/* A GET doit of stream id into *s. Returns res->err. */
static int get_stream(struct nl *nl, uint64_t id, struct stream_info *s,
		      struct result *res)
{
	struct one o = { .nl = nl };

	msg_begin(nl, nl->family, NLM_F_REQUEST | NLM_F_ACK,
		  POSIXTRACE_NL_CMD_GET);
	msg_u64(nl, POSIXTRACE_NL_A_STREAM_ID, id);
	nl_transact(nl, collect_one, &o, res);
	if (s)
		*s = o.s;
	return res->err;
}

/* ---- streams ----------------------------------------------------------- */

/* A name no other stream has: nlt-<tag>-<pid>-<n>. */
static void unique_name(char *buf, size_t len, const char *tag)
{
	static unsigned int n;

	snprintf(buf, len, "nlt-%s-%d-%u", tag, getpid(), n++);
}

/* Create a stream of this process named name (attr may be NULL). */
static int create_named(trace_attr_t *attr, const char *name, trace_id_t *trid)
{
	trace_attr_t def;
	int ret;

	if (!attr) {
		posix_trace_attr_init(&def);
		attr = &def;
	}
	ret = posix_trace_attr_setname(attr, name);
	if (!ret)
		ret = posix_trace_create(0, attr, trid);
	if (attr == &def)
		posix_trace_attr_destroy(&def);
	return ret;
}

/* The id of the stream named name, from a dump: 0 and *id, or an error. */
static int id_of(struct nl *nl, const char *name, uint64_t *id)
{
	struct streams st;
	struct result res;
	int at = -1, ret;

	ret = dump_streams(nl, &st, &res);
	if (!ret && res.bad[0])
		ret = -EBADMSG;
	if (!ret && count_named(&st, name, &at) != 1)
		ret = -ENOENT;
	if (!ret)
		*id = st.v[at].id;
	free(st.v);
	return ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Record n user events of 8 bytes of data. */
static void emit(trace_event_id_t id, int n)
{
	uint64_t v;

	for (v = 0; v < (uint64_t)n; v++)
		posix_trace_event(id, &v, sizeof(v));
}

#define ASSERT_GOOD(res) do {						\
	ASSERT_STREQ("", (res)->bad);					\
} while (0)

/* s must be well formed, with every attribute a description carries. */
#define ASSERT_DESCRIBED(s) do {					\
	ASSERT_STREQ("", (s)->bad);					\
	ASSERT_EQ(0, missing(s)) {					\
		TH_LOG("attribute %d missing", missing(s));		\
	}								\
} while (0)

/* ---- 1. the family, and a dump -------------------------------------------- */

TEST(family_resolves_with_notify_group)
{
	struct nl nl;

	SKIP_WITHOUT_DEVICE();
	NL_OPEN(&nl);
	ASSERT_NE(0, nl.family);
	ASSERT_EQ(POSIXTRACE_GENL_VERSION, nl.version);
	ASSERT_NE(0, nl.group) {
		TH_LOG("no multicast group \"" POSIXTRACE_GENL_MCGRP_NOTIFY "\"");
	}
	nl_close(&nl);
}

#define N_EVENTS	5
#define STREAM_SIZE	50000

TEST(dump_as_root_describes_stream_exactly)
{
	char name[POSIXTRACE_NAME_MAX + 1];
	struct stream_info *s;
	trace_event_id_t ev;
	struct streams st;
	struct result res;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t before, now;
	struct nl nl;
	int at = -1;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	unique_name(name, sizeof(name), "dump");
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
						POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_attr_setinherited(&attr, POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, STREAM_SIZE));
	before = now_ns();
	ASSERT_EQ(0, create_named(&attr, name, &trid));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_eventid_open("nlt_event", &ev));
	ASSERT_EQ(0, posix_trace_start(trid));
	emit(ev, N_EVENTS);

	ASSERT_EQ(0, dump_streams(&nl, &st, &res)) {
		TH_LOG("dump: %s (%s)", strerror(-res.err), res.msg);
	}
	now = now_ns();
	ASSERT_GOOD(&res);
	ASSERT_GE(MAX_STREAMS, st.n);
	ASSERT_EQ(1, count_named(&st, name, &at));
	s = &st.v[at];
	ASSERT_DESCRIBED(s);
	ASSERT_EQ(1, count_id(&st, s->id));
	ASSERT_EQ(POSIX_TRACE_RUNNING, s->state);
	ASSERT_EQ(getpid(), s->creator_pid);
	ASSERT_EQ(0, s->creator_uid);
	ASSERT_EQ(1, s->ntraced);
	ASSERT_EQ(1, s->traced_count);
	ASSERT_EQ(getpid(), s->traced[0]);
	ASSERT_EQ(POSIX_TRACE_UNTIL_FULL, s->full_policy);
	ASSERT_EQ(POSIX_TRACE_INHERITED, s->inheritance);
	ASSERT_EQ(STREAM_SIZE, s->stream_size);
	ASSERT_EQ(N_EVENTS + 1, s->recorded);
	ASSERT_EQ(START_RECORD_SIZE + N_EVENTS * (RECORD_SIZE + 8),
		  s->bytes_used);
	ASSERT_EQ(0, s->lost);
	ASSERT_EQ(POSIX_TRACE_NO_OVERRUN, s->overrun);
	ASSERT_EQ(POSIX_TRACE_NOT_FULL, s->full_status);
	ASSERT_LE(before - 1000000000ULL, s->create_time);
	ASSERT_GE(now + 1000000000ULL, s->create_time);
	ASSERT_EQ(0, s->read);
	ASSERT_FALSE(HAS(s, POSIXTRACE_NL_A_LOG_PATH));
	ASSERT_FALSE(HAS(s, POSIXTRACE_NL_A_LOG_POLICY));
	ASSERT_FALSE(HAS(s, POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED));
	free(st.v);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	nl_close(&nl);
}

/*
 * More streams than one part of a dump holds: each part goes on from the
 * stream after the last one it sent, and every stream comes exactly once.
 * A part holds some 32 KiB, each stream here over 3 KiB: a log under a
 * deep directory, whose path the description carries.
 */
#define MANY_STREAMS	40
#define DEEP_LEVELS	14	/* of DEEP_NAME_LEN characters each */
#define DEEP_NAME_LEN	200

/* Make (or, @remove, take away) the deep directory of this process. */
static int deep_dir(char *path, size_t len, bool remove)
{
	char name[DEEP_NAME_LEN + 1];
	int i, n;

	memset(name, 'd', DEEP_NAME_LEN);
	name[DEEP_NAME_LEN] = '\0';
	for (i = 0; i <= DEEP_LEVELS; i++) {
		n = snprintf(path, len, "/tmp/nlt-deep-%d", getpid());
		for (int j = 0; j < (remove ? DEEP_LEVELS - i : i); j++)
			n += snprintf(path + n, len - n, "/%s", name);
		if ((size_t)n >= len)
			return -ENAMETOOLONG;
		if (remove ? rmdir(path) : mkdir(path, 0700))
			return -errno;
	}
	return 0;
}

TEST(dump_of_more_streams_than_a_part_holds_names_each_once)
{
	char names[MANY_STREAMS][POSIXTRACE_NAME_MAX + 1];
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int fds[MANY_STREAMS], i, n = 0;
	trace_id_t trids[MANY_STREAMS];
	struct result res = { 0 };
	struct streams st;
	trace_attr_t attr;
	struct nl nl;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	ASSERT_EQ(0, deep_dir(dir, sizeof(dir) - 16, false));
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, STREAM_SIZE));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_FLUSH));
	for (; n < MANY_STREAMS; n++) {
		snprintf(path, sizeof(path), "%s/log-%02d", dir, n);
		fds[n] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fds[n] < 0)
			break;
		unique_name(names[n], sizeof(names[n]), "many");
		if (posix_trace_attr_setname(&attr, names[n]) ||
		    posix_trace_create_withlog(0, &attr, fds[n], &trids[n])) {
			close(fds[n]);
			break;
		}
	}
	posix_trace_attr_destroy(&attr);
	if (n == MANY_STREAMS && !dump_streams(&nl, &st, &res)) {
		EXPECT_STREQ("", res.bad);
		EXPECT_LE(3, res.datagrams) {
			TH_LOG("%d streams in %d parts: the test tests nothing",
			       st.n, res.datagrams);
		}
		EXPECT_GE(MAX_STREAMS, st.n);
		for (i = 0; i < MANY_STREAMS; i++) {
			EXPECT_EQ(1, count_named(&st, names[i], NULL)) {
				TH_LOG("stream %d of %d (%s) in a dump of %d parts",
				       i, MANY_STREAMS, names[i],
				       res.datagrams);
			}
		}
		for (i = 0; i < st.n && i < MAX_STREAMS; i++) {
			EXPECT_EQ(1, count_id(&st, st.v[i].id));
		}
		free(st.v);
	} else {
		EXPECT_EQ(MANY_STREAMS, n);
		EXPECT_EQ(0, res.err);
	}
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, posix_trace_shutdown(trids[i]));
		close(fds[i]);
		snprintf(path, sizeof(path), "%s/log-%02d", dir, i);
		unlink(path);
	}
	EXPECT_EQ(0, deep_dir(dir, sizeof(dir) - 16, true));
	nl_close(&nl);
}

/*
 * Streams that each trace POSIXTRACE_NL_TRACED_MAX processes (this one
 * and its children, by inheritance): most of each description is its
 * TRACED list, so a part of the dump (some 32 KiB) fills within one, and
 * that stream goes whole to the next part. Each comes exactly once, its
 * list whole (parse_stream() checks it against TRACED_COUNT). 50 streams
 * of some 1.3 KiB: three parts, well within TRACE_SYS_MAX (64).
 */
#define LISTED_STREAMS	50

TEST(dump_parts_that_fill_within_a_traced_list_send_each_list_whole)
{
	char names[LISTED_STREAMS][POSIXTRACE_NAME_MAX + 1];
	pid_t kids[POSIXTRACE_NL_TRACED_MAX - 1];
	trace_id_t trids[LISTED_STREAMS];
	int i, at, found, n = 0, nkids = 0, hold[2], ready[2];
	struct result res = { 0 };
	struct streams st;
	trace_attr_t attr;
	struct nl nl;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setinherited(&attr,
						   POSIX_TRACE_INHERITED));
	for (; n < LISTED_STREAMS; n++) {
		unique_name(names[n], sizeof(names[n]), "listed");
		if (create_named(&attr, names[n], &trids[n]))
			break;
	}
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, pipe(hold));
	ASSERT_EQ(0, pipe(ready));
	for (; n == LISTED_STREAMS && nkids < (int)ARRAY_SIZE(kids); nkids++) {
		kids[nkids] = fork();
		if (kids[nkids] < 0)
			break;
		if (!kids[nkids]) {
			close(hold[1]);
			/* Run: linked to the streams (inherit.c) by now. */
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			wait_byte(hold[0]);
			_exit(0);
		}
	}
	close(hold[0]);
	close(ready[1]);
	for (i = 0; i < nkids; i++)
		wait_byte(ready[0]);
	close(ready[0]);
	if (nkids == (int)ARRAY_SIZE(kids) && !dump_streams(&nl, &st, &res)) {
		EXPECT_STREQ("", res.bad);
		EXPECT_LE(3, res.datagrams);
		for (i = 0; i < LISTED_STREAMS; i++) {
			found = count_named(&st, names[i], &at);
			EXPECT_EQ(1, found)
				TH_LOG("stream %d (%s) in a dump of %d parts",
				       i, names[i], res.datagrams);
			if (found == 1)
				EXPECT_EQ(POSIXTRACE_NL_TRACED_MAX,
					  st.v[at].traced_count);
		}
		free(st.v);
	} else {
		EXPECT_EQ(LISTED_STREAMS, n);
		EXPECT_EQ((int)ARRAY_SIZE(kids), nkids);
		EXPECT_EQ(0, res.err);
	}
	close(hold[1]);
	for (i = 0; i < nkids; i++)
		EXPECT_EQ(kids[i], waitpid(kids[i], NULL, 0));
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, posix_trace_shutdown(trids[i]));
	nl_close(&nl);
}

/*
 * A reader that receives at most 6 KiB at a time gets parts of 6 KiB: a
 * part is as large as the reader's largest receive, and at least the
 * largest description (a log path of PATH_MAX, a full TRACED list: some
 * 5.5 KiB), which every part must hold. Plain streams with long names,
 * some 300 bytes each, most of it their first attributes: each part fills
 * within those of a stream, almost always, and that stream goes to the
 * next part. Each comes exactly once, and no part is larger than asked.
 */
#define PLAIN_STREAMS	50
#define SMALL_PART	6144

TEST(dump_in_small_parts_names_each_stream_once)
{
	char names[PLAIN_STREAMS][POSIXTRACE_NAME_MAX + 1];
	trace_id_t trids[PLAIN_STREAMS];
	struct result res = { 0 };
	struct nl nl, small;
	struct streams st;
	int i, at = 0, n = 0;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	/* A socket of its own: the kernel keeps a socket's largest receive. */
	ASSERT_EQ(0, nl_socket(&small));
	small.family = nl.family;
	small.version = nl.version;
	small.rx_max = SMALL_PART;
	for (; n < PLAIN_STREAMS; n++) {
		int len = snprintf(names[n], sizeof(names[n]), "nlt-small-%d-%d-",
				   getpid(), n);

		/* The longest name setname keeps (TRACE_NAME_MAX - 1). */
		memset(names[n] + len, 'p', POSIXTRACE_NAME_MAX - 1 - len);
		names[n][POSIXTRACE_NAME_MAX - 1] = '\0';
		if (create_named(NULL, names[n], &trids[n]))
			break;
	}
	if (n == PLAIN_STREAMS && !dump_streams(&small, &st, &res)) {
		EXPECT_STREQ("", res.bad);
		EXPECT_LE(3, res.datagrams) {
			TH_LOG("%d streams in %d parts: the test tests nothing",
			       st.n, res.datagrams);
		}
		for (i = 0; i < PLAIN_STREAMS; i++) {
			EXPECT_EQ(1, count_named(&st, names[i], &at)) {
				TH_LOG("stream %d (%s) in a dump of %d parts",
				       i, names[i], res.datagrams);
			}
			/* Whole: not the part of it that fitted. */
			EXPECT_STREQ("", st.v[at].bad);
			EXPECT_EQ(0, missing(&st.v[at])) {
				TH_LOG("stream %d: attribute %d missing", i,
				       missing(&st.v[at]));
			}
		}
		free(st.v);
	} else {
		EXPECT_EQ(PLAIN_STREAMS, n);
		EXPECT_STREQ("", res.bad);
	}
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, posix_trace_shutdown(trids[i]));
	nl_close(&small);
	nl_close(&nl);
}

/* ---- 2. GET doit ---------------------------------------------------------- */

TEST(get_doit_returns_one_stream_and_enoent_for_unknown_ids)
{
	char name[POSIXTRACE_NAME_MAX + 1], other[POSIXTRACE_NAME_MAX + 1];
	struct stream_info s;
	trace_id_t trid, trid2;
	struct result res;
	uint64_t id, id2;
	struct nl nl;

	SKIP_WITHOUT_DEVICE();
	NL_OPEN(&nl);
	unique_name(name, sizeof(name), "get");
	unique_name(other, sizeof(other), "get");
	ASSERT_EQ(0, create_named(NULL, name, &trid));
	ASSERT_EQ(0, create_named(NULL, other, &trid2));
	ASSERT_EQ(0, id_of(&nl, name, &id));
	ASSERT_EQ(0, id_of(&nl, other, &id2));
	ASSERT_NE(id, id2);

	ASSERT_EQ(0, get_stream(&nl, id, &s, &res)) {
		TH_LOG("GET: %s (%s)", strerror(-res.err), res.msg);
	}
	ASSERT_GOOD(&res);
	ASSERT_EQ(1, res.replies);
	ASSERT_DESCRIBED(&s);
	ASSERT_EQ(id, s.id);
	ASSERT_STREQ(name, s.name);
	ASSERT_EQ(POSIX_TRACE_SUSPENDED, s.state);
	ASSERT_EQ(getpid(), s.creator_pid);

	ASSERT_EQ(0, posix_trace_start(trid2));
	ASSERT_EQ(0, posix_trace_stop(trid2));
	ASSERT_EQ(0, get_stream(&nl, id2, &s, &res));
	ASSERT_EQ(1, res.replies);
	ASSERT_EQ(id2, s.id);
	ASSERT_STREQ(other, s.name);
	ASSERT_EQ(POSIX_TRACE_SUSPENDED, s.state);
	ASSERT_EQ(2, s.recorded);	/* START, STOP */

	/* Never issued, and one shut down. */
	ASSERT_EQ(-ENOENT, get_stream(&nl, ~0ULL, NULL, &res));
	ASSERT_EQ(0, res.replies);
	ASSERT_EQ(0, posix_trace_shutdown(trid2));
	ASSERT_EQ(-ENOENT, get_stream(&nl, id2, NULL, &res));
	ASSERT_EQ(0, res.replies);
	ASSERT_EQ(0, get_stream(&nl, id, NULL, &res));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_EQ(-ENOENT, get_stream(&nl, id, NULL, &res));
	nl_close(&nl);
}

TEST(get_doit_without_stream_id_is_einval_with_extack)
{
	struct result res;
	struct nl nl;

	SKIP_WITHOUT_DEVICE();
	NL_OPEN(&nl);
	msg_begin(&nl, nl.family, NLM_F_REQUEST | NLM_F_ACK,
		  POSIXTRACE_NL_CMD_GET);
	ASSERT_EQ(-EINVAL, nl_transact(&nl, NULL, NULL, &res));
	ASSERT_GOOD(&res);
	ASSERT_EQ(0, res.replies);
	if (!res.extack)
		TH_LOG("extack: no message; missing attribute %d",
		       res.miss_type);
	/* If it names the missing attribute, it is STREAM_ID. */
	if (res.miss_type != -1)
		ASSERT_EQ(POSIXTRACE_NL_A_STREAM_ID, res.miss_type);
	/* The header promises an extended ack message. */
	ASSERT_TRUE(res.extack);
	nl_close(&nl);
}

/* ---- 3. visibility ------------------------------------------------------ */

/* What the unprivileged child saw, sent up a pipe. */
struct vis_report {
	int setuid;		/* errno of setgid/setuid */
	int create;		/* posix_trace_create of B */
	int open;		/* nl_open */
	int dump;		/* the dump's error */
	int dump_bad;		/* the dump was malformed */
	int seen_a, seen_b;	/* how often A and B were in the dump */
	int foreign;		/* streams of other uids in the dump */
	int get_a, get_b;	/* GET of A and of B */
	uint32_t b_uid, b_pid;	/* B's creator as the dump said */
	uint64_t id_b;
	pid_t pid;
};

static void unprivileged_view(const char *name_b, uint64_t id_a,
			      struct vis_report *rep)
{
	struct stream_info s;
	struct streams st;
	struct result res;
	trace_id_t trid;
	struct nl nl;
	int at = -1, i;

	rep->pid = getpid();
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	rep->create = create_named(NULL, name_b, &trid);
	rep->open = nl_open(&nl);
	if (rep->create || rep->open)
		return;
	rep->dump = dump_streams(&nl, &st, &res);
	rep->dump_bad = res.bad[0] != '\0';
	rep->seen_b = count_named(&st, name_b, &at);
	rep->seen_a = count_id(&st, id_a);
	for (i = 0; i < st.n && i < MAX_STREAMS; i++)
		rep->foreign += st.v[i].creator_uid != NOBODY;
	if (at >= 0) {
		rep->id_b = st.v[at].id;
		rep->b_uid = st.v[at].creator_uid;
		rep->b_pid = st.v[at].creator_pid;
	}
	free(st.v);
	rep->get_a = get_stream(&nl, id_a, &s, &res);
	rep->get_b = rep->id_b ? get_stream(&nl, rep->id_b, &s, &res) : -1;
	nl_close(&nl);
}

TEST(unprivileged_user_sees_only_own_streams)
{
	char name_a[POSIXTRACE_NAME_MAX + 1], name_b[POSIXTRACE_NAME_MAX + 1];
	int up[2], down[2], status, at = -1;
	struct vis_report rep;
	struct streams st;
	struct result res;
	trace_id_t trid;
	uint64_t id_a;
	struct nl nl;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	unique_name(name_a, sizeof(name_a), "visA");
	unique_name(name_b, sizeof(name_b), "visB");
	ASSERT_EQ(0, create_named(NULL, name_a, &trid));
	ASSERT_EQ(0, id_of(&nl, name_a, &id_a));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		memset(&rep, 0, sizeof(rep));
		rep.setuid = setgid(NOBODY) || setuid(NOBODY) ? errno : 0;
		if (!rep.setuid)
			unprivileged_view(name_b, id_a, &rep);
		put(up[1], &rep, sizeof(rep));
		wait_byte(down[0]);	/* B lives until root has looked */
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	ASSERT_TRUE(get(up[0], &rep, sizeof(rep)));
	ASSERT_EQ(0, rep.setuid);
	ASSERT_EQ(0, rep.create);
	ASSERT_EQ(0, rep.open);
	ASSERT_EQ(0, rep.dump);
	ASSERT_EQ(0, rep.dump_bad);
	ASSERT_EQ(1, rep.seen_b);
	ASSERT_EQ(0, rep.seen_a);
	ASSERT_EQ(0, rep.foreign);
	ASSERT_EQ(NOBODY, rep.b_uid);
	ASSERT_EQ(rep.pid, rep.b_pid);
	ASSERT_EQ(-ENOENT, rep.get_a);
	ASSERT_EQ(0, rep.get_b);

	/* Root sees both. */
	ASSERT_EQ(0, dump_streams(&nl, &st, &res));
	ASSERT_GOOD(&res);
	ASSERT_EQ(1, count_id(&st, id_a));
	ASSERT_EQ(1, count_named(&st, name_b, &at));
	ASSERT_EQ(rep.id_b, st.v[at].id);
	ASSERT_EQ(NOBODY, st.v[at].creator_uid);
	free(st.v);
	ASSERT_EQ(0, get_stream(&nl, rep.id_b, NULL, &res));

	close(down[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(up[0]);
	/* The child's exit shut B down. */
	ASSERT_EQ(-ENOENT, get_stream(&nl, rep.id_b, NULL, &res));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	nl_close(&nl);
}

/* ---- 4. a stream with a log -------------------------------------------- */

TEST(stream_with_log_has_log_path_and_policy)
{
	char path[] = "/tmp/nlt-logXXXXXX", real[PATH_MAX];
	char name[POSIXTRACE_NAME_MAX + 1];
	struct stream_info s;
	struct result res;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t id;
	struct nl nl;
	int fd, ret;

	SKIP_WITHOUT_DEVICE();
	NL_OPEN(&nl);
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, realpath(path, real));
	unique_name(name, sizeof(name), "log");
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, name));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_FLUSH));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr,
						       POSIX_TRACE_APPEND));
	ret = posix_trace_create_withlog(0, &attr, fd, &trid);
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, ret) {
		unlink(path);
	}
	ret = id_of(&nl, name, &id);
	if (!ret)
		ret = get_stream(&nl, id, &s, &res);
	posix_trace_shutdown(trid);
	close(fd);
	unlink(path);
	ASSERT_EQ(0, ret);
	ASSERT_DESCRIBED(&s);
	ASSERT_TRUE(HAS(&s, POSIXTRACE_NL_A_LOG_PATH));
	ASSERT_STREQ(real, s.log_path);
	ASSERT_TRUE(HAS(&s, POSIXTRACE_NL_A_LOG_POLICY));
	ASSERT_EQ(POSIX_TRACE_APPEND, s.log_policy);
	ASSERT_EQ(POSIX_TRACE_FLUSH, s.full_policy);
	nl_close(&nl);
}

/*
 * GET carries the counts STATUS has and struct posix_trace_status_info
 * has not: events read, and the events the log did not keep (an
 * UNTIL_FULL log of room for ten events, given twenty), which is how
 * "posixtrace record" learns what a failing log lost.
 */
TEST(get_counts_events_read_and_the_log_discarded)
{
	char path[] = "/tmp/nlt-logXXXXXX", name[POSIXTRACE_NAME_MAX + 1];
	struct posix_trace_status_info info;
	struct posixtrace_status raw;
	struct stream_info s;
	struct result res;
	trace_event_id_t ev;
	trace_attr_t attr;
	trace_id_t trid;
	uint64_t id;
	struct nl nl;
	int fd, ret, i;

	SKIP_WITHOUT_DEVICE();
	NL_OPEN(&nl);
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	unlink(path);
	unique_name(name, sizeof(name), "disc");
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, name));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr,
						POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, posix_trace_attr_setlogsize(&attr, START_RECORD_SIZE +
					10 * (RECORD_SIZE + 8) + STOP_RECORD_SIZE));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_eventid_open("nlt_disc", &ev));
	ASSERT_EQ(0, posix_trace_start(trid));
	emit(ev, 20);
	ASSERT_EQ(0, posix_trace_flush(trid));
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(0, posix_trace_get_status(trid, &info));
		if (info.posix_stream_flush_status == POSIX_TRACE_NOT_FLUSHING)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, own_stream_status(&raw));
	ret = id_of(&nl, name, &id);
	if (!ret)
		ret = get_stream(&nl, id, &s, &res);
	posix_trace_shutdown(trid);
	close(fd);
	ASSERT_EQ(0, ret);
	ASSERT_DESCRIBED(&s);
	ASSERT_LE(10, raw.log_events_discarded);
	ASSERT_TRUE(HAS(&s, POSIXTRACE_NL_A_LOG_EVENTS_DISCARDED));
	ASSERT_EQ(raw.log_events_discarded, s.log_discarded);
	/* What the flush took out of the stream counts as read there. */
	ASSERT_LT(0, raw.events_read);
	ASSERT_EQ(raw.events_read, s.read);
	nl_close(&nl);
}

/*
 * Events a thread wrote in its ring count at once in what GET shows,
 * without anyone reading the stream and before any timer: GET takes the
 * rings' records first, as posix_trace_get_status() does. (The timer's
 * drain of a LOOP stream nobody waits on runs every tenth tick only; this
 * is why monitoring never sees that.)
 */
TEST(get_counts_a_quiet_threads_ring_events_at_once)
{
	char name[POSIXTRACE_NAME_MAX + 1];
	struct stream_info s = { 0 };
	struct result res;
	trace_event_id_t ev;
	trace_id_t trid;
	struct nl nl;
	uint64_t id;
	int ret;

	SKIP_WITHOUT_DEVICE();
	NL_OPEN(&nl);
	unique_name(name, sizeof(name), "quiet");
	ASSERT_EQ(0, create_named(NULL, name, &trid));
	ASSERT_EQ(0, posix_trace_eventid_open("nlt_quiet", &ev));
	ASSERT_EQ(0, posix_trace_start(trid));
	ret = id_of(&nl, name, &id);
	/* Ten events: far less than a quarter ring, so no kick either. */
	emit(ev, 10);
	if (!ret)
		ret = get_stream(&nl, id, &s, &res);
	posix_trace_shutdown(trid);
	nl_close(&nl);
	ASSERT_EQ(0, ret);
	/* START and the ten. */
	ASSERT_EQ(11, s.recorded);
}

/* ---- 5. notifications --------------------------------------------------- */

/* The notifications of one stream, in the order received. */
struct notes {
	uint64_t id;		/* learned from the first one with its name */
	int n;
	uint32_t ev[MAX_NOTES], state[MAX_NOTES];
	uint32_t pid[MAX_NOTES];
	bool shutdown;		/* SHUTDOWN arrived */
	int lost;		/* LOST notifications, of any stream */
	char bad[256];
};

/* The next NOTIFY into *s: 0, or -errno (-ETIMEDOUT, -ENOBUFS...). */
static int next_notify(struct nl *nl, struct stream_info *s, int timeout_ms)
{
	const struct nlmsghdr *nlh;
	ssize_t n;

	while (nl->rxoff >= nl->rxlen) {
		n = nl_recv(nl, timeout_ms);
		if (n < 0)
			return n;
		nl->rxlen = n;
		nl->rxoff = 0;
	}
	nlh = (const struct nlmsghdr *)(nl->rx + nl->rxoff);
	if (!NLMSG_OK(nlh, nl->rxlen - nl->rxoff)) {
		nl->rxoff = nl->rxlen;
		snprintf(s->bad, sizeof(s->bad), "truncated message");
		return -EBADMSG;
	}
	nl->rxoff += NLMSG_ALIGN(nlh->nlmsg_len);
	return parse_stream(nlh, nl->family, POSIXTRACE_NL_CMD_NOTIFY, s) ?
		-EBADMSG : 0;
}

/*
 * Read notifications until the SHUTDOWN of the stream named name (or a
 * timeout), keeping those of that stream: each must carry EVENT and NAME.
 */
static void collect_notes(struct nl *nl, const char *name, struct notes *out)
{
	struct stream_info s;
	int ret;

	memset(out, 0, sizeof(*out));
	while (!out->shutdown && !out->bad[0]) {
		ret = next_notify(nl, &s, TIMEOUT_MS);
		if (ret) {
			snprintf(out->bad, sizeof(out->bad),
				 "after %d notifications: %s %s", out->n,
				 strerror(-ret), s.bad);
			break;
		}
		if (s.event == POSIXTRACE_NL_EV_LOST)
			out->lost++;
		if (!out->id && !strcmp(s.name, name))
			out->id = s.id;
		if (!out->id || s.id != out->id)
			continue;
		if (!HAS(&s, POSIXTRACE_NL_A_EVENT) ||
		    !HAS(&s, POSIXTRACE_NL_A_NAME) || strcmp(s.name, name)) {
			snprintf(out->bad, sizeof(out->bad),
				 "notification %d: EVENT %d, NAME \"%s\"",
				 out->n, (int)HAS(&s, POSIXTRACE_NL_A_EVENT),
				 s.name);
			break;
		}
		if (out->n == MAX_NOTES) {
			snprintf(out->bad, sizeof(out->bad), "too many");
			break;
		}
		out->ev[out->n] = s.event;
		out->state[out->n] = s.state;
		out->pid[out->n] = s.creator_pid;
		out->n++;
		out->shutdown = s.event == POSIXTRACE_NL_EV_SHUTDOWN;
	}
}

static void log_notes(struct __test_metadata *_metadata,
		      const struct notes *nt)
{
	char line[MAX_NOTES * 4 + 1] = "";
	int i;

	for (i = 0; i < nt->n; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "%s%u", i ? "," : "", nt->ev[i]);
	TH_LOG("events of the stream: %s", line);
}

/* Join the group; ASSERTs it worked. */
#define JOIN(nl) do {							\
	uint32_t _g = (nl)->group;					\
	ASSERT_NE(0, _g);						\
	ASSERT_EQ(0, setsockopt((nl)->fd, SOL_NETLINK,			\
				NETLINK_ADD_MEMBERSHIP, &_g, sizeof(_g))) { \
		TH_LOG("joining the group: %s", strerror(errno));	\
	}								\
} while (0)

TEST(notifications_of_a_stream_life_in_order)
{
	static const uint32_t want[] = {
		POSIXTRACE_NL_EV_CREATED, POSIXTRACE_NL_EV_STARTED,
		POSIXTRACE_NL_EV_STOPPED, POSIXTRACE_NL_EV_STARTED,
		POSIXTRACE_NL_EV_SHUTDOWN,
	};
	char name[POSIXTRACE_NAME_MAX + 1];
	struct notes nt;
	trace_id_t trid;
	struct nl nl;
	int i;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	JOIN(&nl);
	unique_name(name, sizeof(name), "life");
	ASSERT_EQ(0, create_named(NULL, name, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	collect_notes(&nl, name, &nt);
	log_notes(_metadata, &nt);
	ASSERT_STREQ("", nt.bad);
	ASSERT_EQ(0, nt.lost);
	ASSERT_EQ(5, nt.n);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(want[i], nt.ev[i]) {
			TH_LOG("notification %d", i);
		}
		ASSERT_EQ(getpid(), nt.pid[i]);
	}
	/*
	 * A notification describes the stream as it is when sent, which may
	 * be later than the event (the header does not tie them): only the
	 * last one's STATE is certain.
	 */
	ASSERT_EQ(POSIXTRACE_NL_SHUT_DOWN, nt.state[4]);
	nl_close(&nl);
}

/* How many of nt's notifications in [from, to) are ev. */
static int count_ev(const struct notes *nt, int from, int to, uint32_t ev)
{
	int i, n = 0;

	for (i = from; i < to; i++)
		n += nt->ev[i] == ev;
	return n;
}

/*
 * A small stream of policy, started, sent 200 events of 8 bytes, shut
 * down: its notifications.
 */
static void fill_stream(struct __test_metadata *_metadata, struct nl *nl,
			int policy, struct notes *nt, int *full_status)
{
	char name[POSIXTRACE_NAME_MAX + 1];
	struct posix_trace_status_info st;
	trace_event_id_t ev;
	trace_attr_t attr;
	trace_id_t trid;

	memset(nt, 0, sizeof(*nt));
	JOIN(nl);
	unique_name(name, sizeof(name), policy == POSIX_TRACE_LOOP ? "loop" : "full");
	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr, policy));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr, 4096));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 16));
	ASSERT_EQ(0, create_named(&attr, name, &trid));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_eventid_open("nlt_fill", &ev));
	ASSERT_EQ(0, posix_trace_start(trid));
	emit(ev, 200);
	ASSERT_EQ(0, posix_trace_get_status(trid, &st));
	*full_status = st.posix_stream_full_status;
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	collect_notes(nl, name, nt);
	log_notes(_metadata, nt);
}

/*
 * UNTIL_FULL: the stream stops itself as it fills. The header orders
 * neither STOPPED (the automatic stop) nor FULL against the other: each
 * comes once, between STARTED and SHUTDOWN, and nothing else does (no
 * reader empties it, so no restart).
 */
TEST(until_full_stream_notifies_stopped_and_full_once)
{
	struct notes nt;
	int full = 0;
	struct nl nl;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	fill_stream(_metadata, &nl, POSIX_TRACE_UNTIL_FULL, &nt, &full);
	nl_close(&nl);
	ASSERT_EQ(POSIX_TRACE_FULL, full);
	ASSERT_STREQ("", nt.bad);
	ASSERT_EQ(0, nt.lost);
	ASSERT_EQ(5, nt.n);
	ASSERT_EQ(POSIXTRACE_NL_EV_CREATED, nt.ev[0]);
	ASSERT_EQ(POSIXTRACE_NL_EV_STARTED, nt.ev[1]);
	ASSERT_EQ(1, count_ev(&nt, 2, 4, POSIXTRACE_NL_EV_STOPPED));
	ASSERT_EQ(1, count_ev(&nt, 2, 4, POSIXTRACE_NL_EV_FULL));
	ASSERT_EQ(POSIXTRACE_NL_EV_SHUTDOWN, nt.ev[4]);
	ASSERT_EQ(POSIXTRACE_NL_SHUT_DOWN, nt.state[4]);
}

/*
 * LOOP: the stream fills (FULL, "any policy") and begins overwriting
 * (OVERFLOW) once, however many events it overwrites; it never stops.
 */
TEST(loop_stream_notifies_full_and_overflow_once)
{
	struct notes nt;
	int full = 0;
	struct nl nl;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	fill_stream(_metadata, &nl, POSIX_TRACE_LOOP, &nt, &full);
	nl_close(&nl);
	ASSERT_EQ(POSIX_TRACE_FULL, full);
	ASSERT_STREQ("", nt.bad);
	ASSERT_EQ(0, nt.lost);
	ASSERT_LE(3, nt.n);
	ASSERT_EQ(POSIXTRACE_NL_EV_CREATED, nt.ev[0]);
	ASSERT_EQ(POSIXTRACE_NL_EV_STARTED, nt.ev[1]);
	ASSERT_EQ(1, count_ev(&nt, 2, nt.n, POSIXTRACE_NL_EV_OVERFLOW));
	ASSERT_EQ(1, count_ev(&nt, 2, nt.n, POSIXTRACE_NL_EV_FULL));
	ASSERT_EQ(5, nt.n);
	ASSERT_EQ(POSIXTRACE_NL_EV_SHUTDOWN, nt.ev[4]);
}

/*
 * A creator dies with a small UNTIL_FULL stream's events still in its
 * thread's ring (no kick drops them: UNTIL_FULL keeps the oldest): the
 * stream is shut down at the death, and what the ring held goes in
 * afterwards (it fills the stream, which stops); SHUTDOWN is still the
 * stream's last notification, as the header promises.
 */
TEST(shutdown_is_last_when_the_creator_dies_with_events_in_its_ring)
{
	char name[POSIXTRACE_NAME_MAX + 1];
	struct stream_info s;
	struct notes nt;
	struct nl nl;
	int status, after = 0;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	JOIN(&nl);
	unique_name(name, sizeof(name), "death");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		trace_event_id_t ev;
		trace_attr_t attr;
		trace_id_t trid;

		if (posix_trace_attr_init(&attr) ||
		    posix_trace_attr_setstreamfullpolicy(&attr,
							 POSIX_TRACE_UNTIL_FULL) ||
		    posix_trace_attr_setstreamsize(&attr, 4096) ||
		    posix_trace_attr_setmaxdatasize(&attr, 16) ||
		    create_named(&attr, name, &trid) ||
		    posix_trace_eventid_open("nlt_death", &ev) ||
		    posix_trace_start(trid))
			_exit(1);
		emit(ev, 200);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	collect_notes(&nl, name, &nt);
	log_notes(_metadata, &nt);
	ASSERT_STREQ("", nt.bad);
	ASSERT_EQ(0, nt.lost);
	ASSERT_TRUE(nt.shutdown);
	ASSERT_EQ(POSIXTRACE_NL_EV_CREATED, nt.ev[0]);
	ASSERT_EQ(POSIXTRACE_NL_EV_STARTED, nt.ev[1]);
	/* Nothing of it after SHUTDOWN, while its last records go in. */
	while (!next_notify(&nl, &s, 500))
		after += s.id == nt.id;
	ASSERT_EQ(0, after);
	nl_close(&nl);
}

/* ---- 6. who may join the group --------------------------------------------- */

TEST(unprivileged_user_cannot_join_notify_group)
{
	int fds[2], status, rep[3] = { 0 };
	struct nl nl;
	pid_t pid;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);		/* skips without the family */
	nl_close(&nl);
	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(fds[0]);
		rep[0] = setgid(NOBODY) || setuid(NOBODY) ? errno : 0;
		if (!rep[0])
			rep[1] = nl_open(&nl);
		if (!rep[0] && !rep[1]) {
			uint32_t g = nl.group;

			rep[2] = setsockopt(nl.fd, SOL_NETLINK,
					    NETLINK_ADD_MEMBERSHIP, &g,
					    sizeof(g)) ? errno : 0;
			if (!g)
				rep[2] = -1;
		}
		put(fds[1], rep, sizeof(rep));
		_exit(0);
	}
	close(fds[1]);
	ASSERT_TRUE(get(fds[0], rep, sizeof(rep)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(fds[0]);
	ASSERT_EQ(0, rep[0]);
	ASSERT_EQ(0, rep[1]);
	ASSERT_EQ(EPERM, rep[2]);
}

/* ---- 7. malformed requests ------------------------------------------------ */

FIXTURE(bad_request) {
	struct nl nl;
	trace_id_t trid;
	bool created;
	uint64_t id;
	char name[POSIXTRACE_NAME_MAX + 1];
};

FIXTURE_SETUP(bad_request)
{
	int ret;

	self->nl.fd = -1;
	SKIP_WITHOUT_DEVICE();
	ret = nl_open(&self->nl);
	if (ret == -ENOENT)
		SKIP(return, NO_FAMILY_MSG);
	ASSERT_EQ(0, ret);
	unique_name(self->name, sizeof(self->name), "bad");
	ASSERT_EQ(0, create_named(NULL, self->name, &self->trid));
	self->created = true;
	ASSERT_EQ(0, id_of(&self->nl, self->name, &self->id));
}

/* The socket still answers a good GET. */
FIXTURE_TEARDOWN(bad_request)
{
	struct stream_info s;
	struct result res;

	if (self->nl.fd >= 0) {
		EXPECT_EQ(0, get_stream(&self->nl, self->id, &s, &res)) {
			TH_LOG("GET after the bad request: %s", strerror(-res.err));
		}
		EXPECT_STREQ("", res.bad);
		EXPECT_EQ(self->id, s.id);
		EXPECT_STREQ(self->name, s.name);
	}
	if (self->created)
		posix_trace_shutdown(self->trid);
	nl_close(&self->nl);
}

/*
 * Send the request built: it must fail with want, with no answer before the
 * error, and with an extended ack message if want_extack; what (-1: none)
 * says which case failed.
 */
#define ASSERT_REFUSED_AT(nl, want, want_extack, what) do {		\
	struct result _res;						\
	int _got = nl_transact(nl, NULL, NULL, &_res);			\
	if (_got != (want) || _res.bad[0] || _res.replies ||		\
	    ((want_extack) && !_res.extack))				\
		TH_LOG("case %d: answer %d, %d replies, extack \"%s\" %s", \
		       (int)(what), _got, _res.replies, _res.msg, _res.bad); \
	ASSERT_EQ(want, _got);						\
	ASSERT_STREQ("", _res.bad);					\
	ASSERT_EQ(0, _res.replies);					\
	if (want_extack)						\
		ASSERT_TRUE(_res.extack);				\
} while (0)

#define ASSERT_REFUSED(nl, want, want_extack)				\
	ASSERT_REFUSED_AT(nl, want, want_extack, -1)

#define BEGIN_GET(self, flags)						\
	msg_begin(&(self)->nl, (self)->nl.family, NLM_F_REQUEST | (flags), \
		  POSIXTRACE_NL_CMD_GET)

TEST_F(bad_request, unknown_commands_are_eopnotsupp)
{
	static const uint8_t cmds[] = {
		POSIXTRACE_NL_CMD_UNSPEC, POSIXTRACE_NL_CMD_NOTIFY,
		POSIXTRACE_NL_CMD_MAX + 1, 200,
	};
	size_t i;

	for (i = 0; i < sizeof(cmds); i++) {
		msg_begin(&self->nl, self->nl.family,
			  NLM_F_REQUEST | NLM_F_ACK, cmds[i]);
		msg_u64(&self->nl, POSIXTRACE_NL_A_STREAM_ID, self->id);
		ASSERT_REFUSED_AT(&self->nl, -EOPNOTSUPP, false, cmds[i]);
		msg_begin(&self->nl, self->nl.family,
			  NLM_F_REQUEST | NLM_F_DUMP, cmds[i]);
		ASSERT_REFUSED_AT(&self->nl, -EOPNOTSUPP, false, cmds[i]);
	}
}

TEST_F(bad_request, message_shorter_than_genl_header_is_einval)
{
	BEGIN_GET(self, NLM_F_ACK);
	self->nl.txlen = NLMSG_HDRLEN;
	ASSERT_REFUSED(&self->nl, -EINVAL, false);
}

TEST_F(bad_request, stream_id_of_four_bytes_is_einval_with_extack)
{
	uint32_t id = self->id;

	BEGIN_GET(self, NLM_F_ACK);
	msg_attr(&self->nl, POSIXTRACE_NL_A_STREAM_ID, &id, sizeof(id));
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
}

TEST_F(bad_request, empty_stream_id_is_einval_with_extack)
{
	BEGIN_GET(self, NLM_F_ACK);
	msg_attr(&self->nl, POSIXTRACE_NL_A_STREAM_ID, NULL, 0);
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
}

/* Every attribute but STREAM_ID is output only. */
TEST_F(bad_request, output_only_attributes_are_einval_with_extack)
{
	static const char name[] = "x";
	uint64_t zero = 0;
	int type;

	BEGIN_GET(self, NLM_F_ACK);
	msg_u64(&self->nl, POSIXTRACE_NL_A_STREAM_ID, self->id);
	msg_attr(&self->nl, POSIXTRACE_NL_A_NAME, name, sizeof(name));
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
	for (type = POSIXTRACE_NL_A_PAD; type <= POSIXTRACE_NL_A_MAX; type++) {
		if (type == POSIXTRACE_NL_A_STREAM_ID)
			continue;
		BEGIN_GET(self, NLM_F_ACK);
		msg_u64(&self->nl, POSIXTRACE_NL_A_STREAM_ID, self->id);
		msg_attr(&self->nl, type, &zero,
			 type == POSIXTRACE_NL_A_NAME ||
			 type == POSIXTRACE_NL_A_LOG_PATH ? 1 :
			 type == POSIXTRACE_NL_A_TRACED ? 0 : 4);
		ASSERT_REFUSED_AT(&self->nl, -EINVAL, true, type);
	}
}

TEST_F(bad_request, attribute_above_max_is_einval_with_extack)
{
	uint32_t v = 0;

	BEGIN_GET(self, NLM_F_ACK);
	msg_u64(&self->nl, POSIXTRACE_NL_A_STREAM_ID, self->id);
	msg_attr(&self->nl, POSIXTRACE_NL_A_MAX + 1, &v, sizeof(v));
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
	BEGIN_GET(self, NLM_F_ACK);
	msg_u64(&self->nl, POSIXTRACE_NL_A_STREAM_ID, self->id);
	msg_attr(&self->nl, 0x3fff, &v, sizeof(v));	/* NLA_TYPE_MASK */
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
}

/* An attribute whose nla_len runs past the end of the message. */
TEST_F(bad_request, truncated_attribute_is_einval_with_extack)
{
	struct nlattr *nla;

	BEGIN_GET(self, NLM_F_ACK);
	nla = msg_u64(&self->nl, POSIXTRACE_NL_A_STREAM_ID, self->id);
	nla->nla_len = NLA_HDRLEN + 8 + 64;
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
	/* And one shorter than its own header. */
	BEGIN_GET(self, NLM_F_ACK);
	msg_u64(&self->nl, POSIXTRACE_NL_A_STREAM_ID, self->id);
	nla = msg_attr(&self->nl, POSIXTRACE_NL_A_STREAM_ID, NULL, 0);
	nla->nla_len = 2;
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
}

/* 64 KiB of PAD attributes after STREAM_ID. */
TEST_F(bad_request, huge_request_of_padding_is_refused)
{
	struct result res;
	int i;

	BEGIN_GET(self, NLM_F_ACK);
	msg_u64(&self->nl, POSIXTRACE_NL_A_STREAM_ID, self->id);
	for (i = 0; i < 65536 / NLA_HDRLEN; i++)
		msg_attr(&self->nl, POSIXTRACE_NL_A_PAD, NULL, 0);
	ASSERT_LT(65536, self->nl.txlen);
	ASSERT_NE(0, nl_transact(&self->nl, NULL, NULL, &res));
	ASSERT_EQ(0, res.replies);
	ASSERT_STREQ("", res.bad);
	TH_LOG("answer %d (%s), extack \"%s\"", res.err, strerror(-res.err),
	       res.msg);
	/* The header refuses every attribute but STREAM_ID. */
	ASSERT_EQ(-EINVAL, res.err);
}

/* A dump takes no attribute: garbage gets an error, no stream. */
TEST_F(bad_request, dump_with_garbage_attributes_is_einval_with_extack)
{
	static const char name[] = "x";
	struct nlattr *nla;
	uint32_t v = 0;

	BEGIN_GET(self, NLM_F_DUMP);
	msg_attr(&self->nl, POSIXTRACE_NL_A_NAME, name, sizeof(name));
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
	BEGIN_GET(self, NLM_F_DUMP);
	msg_attr(&self->nl, POSIXTRACE_NL_A_MAX + 7, &v, sizeof(v));
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
	BEGIN_GET(self, NLM_F_DUMP);
	msg_attr(&self->nl, POSIXTRACE_NL_A_STREAM_ID, &v, sizeof(v));
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
	BEGIN_GET(self, NLM_F_DUMP);
	nla = msg_attr(&self->nl, POSIXTRACE_NL_A_EVENT, &v, sizeof(v));
	nla->nla_len = 200;
	ASSERT_REFUSED(&self->nl, -EINVAL, true);
}

TEST_HARNESS_MAIN
