/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kevent_*_test.c kselftests (kernel events: the proc
 * and signal classes) share on top of trc_common.h and trl_common.h: the
 * names and formats of the kernel event types as the uapi header gives
 * them, reading a whole stream with each event's name and thread id,
 * decoding a payload by its format, the events a test expects as a table
 * matched exactly (each difference said), a child traced by a stream from
 * its first step, and the "burst": one fork, exec, exit and handled
 * signal, and the events it makes.
 *
 * A test file defines _GNU_SOURCE before its first #include.
 */
#ifndef KEVENT_COMMON_H
#define KEVENT_COMMON_H

#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <posixtrace-k.h>

#include "trl_common.h"

/* Room for any event's data: an exec's is at most 4 + 1 + 6 * 256. */
#define KEV_DATA_MAX	2048
#define KEV_STR_MAX	POSIXTRACE_EXEC_STR_MAX

#define KEV_FORK	POSIXTRACE_K_EVENT_PROC_FORK
#define KEV_EXEC	POSIXTRACE_K_EVENT_PROC_EXEC
#define KEV_EXIT	POSIXTRACE_K_EVENT_PROC_EXIT
#define KEV_GEN		POSIXTRACE_K_EVENT_SIGNAL_GENERATE
#define KEV_DLV		POSIXTRACE_K_EVENT_SIGNAL_DELIVER
#define KEV_SYS_ENTRY	POSIXTRACE_K_EVENT_SYSCALL_ENTRY
#define KEV_SYS_EXIT	POSIXTRACE_K_EVENT_SYSCALL_EXIT
#define KEV_SCHED_OUT	POSIXTRACE_K_EVENT_SCHED_OUT
#define KEV_SCHED_IN	POSIXTRACE_K_EVENT_SCHED_IN
#define KEV_WAKEUP	POSIXTRACE_K_EVENT_SCHED_WAKEUP
#define KEV_MIGRATE	POSIXTRACE_K_EVENT_SCHED_MIGRATE

/*
 * The classes the proc and signal tests record: not the syscall and sched
 * classes, whose events every system call or context switch of the test
 * would add (kevent_syscall_test.c and kevent_sched_test.c have theirs).
 */
#define KEV_PROC_SIGNAL	(POSIXTRACE_K_KERNEL_PROC | POSIXTRACE_K_KERNEL_SIGNAL)

/* Is id one of the kernel event types? */
static inline bool kev_kernel(trace_event_id_t id)
{
	return id >= POSIXTRACE_EVENT_KERNEL_FIRST &&
	       id < POSIXTRACE_EVENT_KERNEL_END;
}

/* The name of a kernel event type, as <linux/posixtrace.h> gives it. */
static inline const char *kev_name(trace_event_id_t id)
{
	static const char *const names[] = POSIXTRACE_KERNEL_EVENT_NAMES;

	return kev_kernel(id) ? names[id] : NULL;
}

/* Its format, as <linux/posixtrace.h> gives it. */
static inline const char *kev_format(trace_event_id_t id)
{
	static const char *const formats[] = {
		[POSIXTRACE_EVENT_PROC_FORK] = POSIXTRACE_PROC_FORK_FORMAT,
		[POSIXTRACE_EVENT_PROC_EXEC] = POSIXTRACE_PROC_EXEC_FORMAT,
		[POSIXTRACE_EVENT_PROC_EXIT] = POSIXTRACE_PROC_EXIT_FORMAT,
		[POSIXTRACE_EVENT_SIGNAL_GENERATE] =
			POSIXTRACE_SIGNAL_GENERATE_FORMAT,
		[POSIXTRACE_EVENT_SIGNAL_DELIVER] =
			POSIXTRACE_SIGNAL_DELIVER_FORMAT,
		[POSIXTRACE_EVENT_SYSCALL_ENTRY] =
			POSIXTRACE_SYSCALL_ENTRY_FORMAT,
		[POSIXTRACE_EVENT_SYSCALL_EXIT] =
			POSIXTRACE_SYSCALL_EXIT_FORMAT,
		[POSIXTRACE_EVENT_SCHED_OUT] = POSIXTRACE_SCHED_OUT_FORMAT,
		[POSIXTRACE_EVENT_SCHED_IN] = POSIXTRACE_SCHED_IN_FORMAT,
		[POSIXTRACE_EVENT_SCHED_WAKEUP] =
			POSIXTRACE_SCHED_WAKEUP_FORMAT,
		[POSIXTRACE_EVENT_SCHED_MIGRATE] =
			POSIXTRACE_SCHED_MIGRATE_FORMAT,
	};

	return kev_kernel(id) ? formats[id] : NULL;
}

/* The class a kernel event type belongs to. */
static inline unsigned int kev_class(trace_event_id_t id)
{
	return id < KEV_GEN ? POSIXTRACE_K_KERNEL_PROC :
	       id <= KEV_DLV ? POSIXTRACE_K_KERNEL_SIGNAL :
	       id <= KEV_SYS_EXIT ? POSIXTRACE_K_KERNEL_SYSCALL :
				    POSIXTRACE_K_KERNEL_SCHED;
}

/*
 * Attributes for a stream of the given kernel event classes and
 * inheritance, large enough for every test here and keeping an exec's
 * whole data.
 */
static inline int kev_attr(trace_attr_t *attr, unsigned int classes,
			   int inheritance)
{
	int ret = posix_trace_attr_init(attr);

	if (!ret)
		ret = posix_trace_attr_setinherited(attr, inheritance);
	if (!ret)
		ret = posix_trace_attr_setstreamsize(attr, 4 << 20);
	if (!ret)
		ret = posix_trace_attr_setmaxdatasize(attr, KEV_DATA_MAX);
	if (!ret && classes)
		ret = posixtrace_k_attr_setkernelevents(attr, classes);
	return ret;
}

/* A running stream on this process (pid 0) or another. */
static inline int kev_create(pid_t pid, unsigned int classes,
			     int inheritance, trace_id_t *trid)
{
	trace_attr_t attr;
	int ret = kev_attr(&attr, classes, inheritance);

	if (!ret)
		ret = posix_trace_create(pid, &attr, trid);
	if (!ret)
		ret = posix_trace_start(*trid);
	return ret;
}

/* One event read, with its type's name and what the library gave. */
struct kev {
	struct posix_trace_event_info info;
	char name[TRACE_EVENT_NAME_MAX + 1];
	pid_t tid;
	uint64_t seq;
	size_t len;
	unsigned char data[KEV_DATA_MAX];
};

/* The events of a stream, in the order read. */
struct kevs {
	struct kev *ev;
	int n, cap;
	bool tids;	/* tid and seq are known (a stream, not a log) */
};

static inline void kevs_free(struct kevs *l)
{
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

/* A new slot at the end of l; NULL when out of memory. */
static inline struct kev *kevs_add(struct kevs *l)
{
	struct kev *e;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		e = realloc(l->ev, l->cap * sizeof(*e));
		if (!e)
			return NULL;
		l->ev = e;
	}
	e = &l->ev[l->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

/*
 * Read what the stream holds (stop it first) into l, which starts empty.
 * Returns the library's error number.
 */
static inline int kevs_read(trace_id_t trid, struct kevs *l)
{
	int ret = 0, unavailable;
	struct kev *e;

	memset(l, 0, sizeof(*l));
	l->tids = true;
	for (;;) {
		e = kevs_add(l);
		if (!e)
			return ENOMEM;
		ret = posix_trace_trygetnext_event(trid, &e->info, e->data,
						   sizeof(e->data), &e->len,
						   &unavailable);
		if (ret || unavailable) {
			l->n--;
			return ret;
		}
		ret = posixtrace_k_event_tid(trid, &e->tid);
		if (!ret)
			ret = posixtrace_k_event_seq(trid, &e->seq);
		if (!ret)
			ret = posix_trace_eventid_get_name(trid,
					e->info.posix_event_id, e->name);
		if (ret)
			return ret;
	}
}

/* The events of a log read back by read_log() (no thread ids). */
static inline int kevs_from_log(const struct logbuf *lb, struct kevs *l)
{
	struct kev *e;
	int i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < lb->n; i++) {
		e = kevs_add(l);
		if (!e)
			return ENOMEM;
		e->info = lb->ev[i].info;
		strcpy(e->name, lb->ev[i].name);
		e->len = lb->ev[i].len;
		memcpy(e->data, lb->ev[i].data, e->len);
	}
	return 0;
}

/* ---- payloads ----------------------------------------------------------- */

/* The most fields a kernel event has (a system call's entry). */
#define KEV_FIELDS	12

/*
 * A kernel event's fields, as its format (the uapi's) says: integers in
 * v[], strings in s[] (v[] 0 then), in the format's order; the bytes of
 * a "bytes" field in s[] too, their count in v[].
 */
struct kev_val {
	int n;
	int64_t v[KEV_FIELDS];
	char s[KEV_FIELDS][KEV_STR_MAX];
};

/*
 * Decode e into out by its type's format: false if e is not a kernel
 * event, or its data is not exactly the fields of the format.
 */
static inline bool kev_values(const struct kev *e, struct kev_val *out)
{
	const char *fmt = kev_format(e->info.posix_event_id), *type;
	const unsigned char *p = e->data, *nul;
	size_t left = e->len, size;
	union { uint8_t u8; int32_t s32; uint32_t u32; uint64_t u64; } u;

	memset(out, 0, sizeof(*out));
	for (; fmt && *fmt && out->n < KEV_FIELDS; out->n++) {
		type = strchr(fmt, ':') + 1;
		fmt = strchr(type, ',');
		fmt = fmt ? fmt + 1 : type + strlen(type);
		if (!strncmp(type, "bytes", 5)) {
			if (left >= KEV_STR_MAX)
				return false;
			size = left;
			memcpy(out->s[out->n], p, size);
			out->v[out->n] = size;
		} else if (!strncmp(type, "str", 3)) {
			nul = memchr(p, 0, left);
			if (!nul || nul - p >= KEV_STR_MAX)
				return false;
			size = nul - p + 1;
			memcpy(out->s[out->n], p, size);
		} else {
			size = type[1] == '8' ? 1 : type[1] == '3' ? 4 : 8;
			if (left < size)
				return false;
			memcpy(&u, p, size);
			if (size == 1)
				out->v[out->n] = u.u8;
			else if (size == 8)
				out->v[out->n] = (int64_t)u.u64;
			else if (type[0] == 's')
				out->v[out->n] = u.s32;
			else
				out->v[out->n] = u.u32;
		}
		p += size;
		left -= size;
	}
	return fmt && !*fmt && !left;
}

/* Field i of a kernel event's values, as "name=value", into buf. */
static inline void kev_field_str(trace_event_id_t id,
				 const struct kev_val *v, int i, char *buf,
				 size_t size)
{
	const char *f = kev_format(id);
	int k, len;

	for (k = 0; k < i; k++)
		f = strchr(f, ',') + 1;
	len = strchr(f, ':') - f;
	if (!strncmp(f + len, ":str", 4))
		snprintf(buf, size, "%.*s=\"%.40s\"", len, f, v->s[i]);
	else
		snprintf(buf, size, "%.*s=%lld", len, f, (long long)v->v[i]);
}

/* One line of an event, decoded, for a test's log. */
static inline void kev_describe(const struct kev *e, char *buf, size_t size)
{
	trace_event_id_t id = e->info.posix_event_id;
	char field[64];
	struct kev_val v;
	size_t n;
	int i;

	snprintf(buf, size, "%s pid %d tid %d len %zu", e->name,
		 (int)e->info.posix_pid, (int)e->tid, e->len);
	if (!kev_kernel(id))
		return;
	if (!kev_values(e, &v)) {
		n = strlen(buf);
		snprintf(buf + n, size - n, " (data not as the format says)");
		return;
	}
	for (i = 0; i < v.n; i++) {
		kev_field_str(id, &v, i, field, sizeof(field));
		n = strlen(buf);
		snprintf(buf + n, size - n, " %s", field);
	}
}

/* Every event of l on stderr, as the harness's comments. */
static inline void kevs_show(const struct kevs *l)
{
	char line[512];
	int i;

	for (i = 0; i < l->n; i++) {
		kev_describe(&l->ev[i], line, sizeof(line));
		fprintf(stderr, "#   [%d] %s\n", i, line);
	}
}

/* Stop the stream, read it into l and show it. */
static inline int kevs_stop_read(trace_id_t trid, struct kevs *l)
{
	int ret = posix_trace_stop(trid);

	if (!ret)
		ret = kevs_read(trid, l);
	if (!ret)
		kevs_show(l);
	return ret;
}

/* ---- what a test expects ------------------------------------------------ */

/*
 * One expected event: its type (or a user event's name), process and
 * thread (-1: any; the thread only where the reader knows it), and a
 * kernel event's fields, in the format's order: v[i] under mask m[i] (0:
 * all bits), s[i] for a string (NULL: any).
 */
struct kev_want {
	trace_event_id_t id;
	const char *name;
	pid_t pid, tid;
	int64_t v[KEV_FIELDS];
	uint64_t m[KEV_FIELDS];
	const char *s[KEV_FIELDS];
};

#define WANT_SYS(_id)		{ .id = (_id), .pid = -1, .tid = -1 }
#define WANT_START		WANT_SYS(POSIX_TRACE_START)
#define WANT_STOP		WANT_SYS(POSIX_TRACE_STOP)
#define WANT_USER(_pid, _tid, _name)					\
	{ .name = (_name), .pid = (_pid), .tid = (_tid) }
/* A fork: the flags checked for CLONE_THREAD and the exit signal. */
#define WANT_FORK(_pid, _tid, _cpid, _ctid, _thread, _exitsig)		\
	{ .id = KEV_FORK, .pid = (_pid), .tid = (_tid),			\
	  .v = { (_cpid), (_ctid), ((_thread) ? CLONE_THREAD : 0) | (_exitsig), \
		 (_thread) },						\
	  .m = { 0, 0, CLONE_THREAD | 0xff } }
#define WANT_EXEC(_pid, _argc, _cut, ...)				\
	{ .id = KEV_EXEC, .pid = (_pid), .tid = (_pid),			\
	  .v = { (_argc), (_cut) }, .s = { NULL, NULL, __VA_ARGS__ } }
#define WANT_EXIT(_pid, _tid, _status, _signal, _core, _process)	\
	{ .id = KEV_EXIT, .pid = (_pid), .tid = (_tid),			\
	  .v = { (_status), (_signal), (_core), (_process) } }
/* A signal generated for single-threaded process _pid. */
#define WANT_GEN(_pid, _sig, _code, _sender, _result, _group)		\
	{ .id = KEV_GEN, .pid = (_pid), .tid = (_pid),			\
	  .v = { (_sig), (_code), (_sender), (_result), (_group) } }
#define WANT_DLV(_pid, _tid, _sig, _code, _action)			\
	{ .id = KEV_DLV, .pid = (_pid), .tid = (_tid),			\
	  .v = { (_sig), (_code), (_action) } }

static inline bool kev_is(const struct kevs *l, const struct kev *e,
			  const struct kev_want *w)
{
	struct kev_val v;
	uint64_t mask;
	int i;

	if ((w->pid != -1 && e->info.posix_pid != w->pid) ||
	    (l->tids && w->tid != -1 && e->tid != w->tid))
		return false;
	if (w->name)
		return e->info.posix_event_id >= POSIXTRACE_EVENT_USER_BASE &&
		       !strcmp(e->name, w->name);
	if (e->info.posix_event_id != w->id)
		return false;
	if (!kev_kernel(w->id))
		return true;
	if (strcmp(e->name, kev_name(w->id)) || !kev_values(e, &v))
		return false;
	for (i = 0; i < v.n; i++) {
		mask = w->m[i] ? w->m[i] : ~0ull;
		if (((uint64_t)v.v[i] & mask) != ((uint64_t)w->v[i] & mask) ||
		    (w->s[i] && strcmp(v.s[i], w->s[i])))
			return false;
	}
	return true;
}

/* A want, for a test's log. */
static inline void kev_want_describe(const struct kev_want *w, char *buf,
				     size_t size)
{
	struct kev_val v = { .n = 0 };
	char field[64];
	size_t n;
	int i;

	snprintf(buf, size, "%s pid %d tid %d",
		 w->name ? w->name : kev_kernel(w->id) ? kev_name(w->id) :
		 "(system event)", (int)w->pid, (int)w->tid);
	if (w->name || !kev_kernel(w->id))
		return;
	for (i = 0; i < KEV_FIELDS; i++) {
		v.v[i] = w->v[i];
		if (w->s[i])
			snprintf(v.s[i], sizeof(v.s[i]), "%s", w->s[i]);
	}
	v.n = 1;
	for (i = 0; kev_format(w->id)[i]; i++)
		v.n += kev_format(w->id)[i] == ',';
	for (i = 0; i < v.n; i++) {
		kev_field_str(w->id, &v, i, field, sizeof(field));
		n = strlen(buf);
		snprintf(buf + n, size - n, " %s%s", field,
			 w->m[i] ? " (masked)" : "");
	}
}

/*
 * l must be exactly the n events of want, in order. Says each difference
 * on stderr; returns how many there are (0: a match).
 */
static inline int kevs_match(const struct kevs *l,
			     const struct kev_want *want, int n)
{
	char got[512], wanted[512];
	int i, bad = 0;

	if (l->n != n) {
		fprintf(stderr, "# %d events, %d expected\n", l->n, n);
		bad++;
	}
	for (i = 0; i < n; i++) {
		if (i < l->n && kev_is(l, &l->ev[i], &want[i]))
			continue;
		kev_want_describe(&want[i], wanted, sizeof(wanted));
		if (i < l->n)
			kev_describe(&l->ev[i], got, sizeof(got));
		else
			strcpy(got, "(none)");
		fprintf(stderr, "# [%d] expected %s\n#      got      %s\n", i,
			wanted, got);
		bad++;
	}
	return bad;
}

#define ARRAY_LEN(a)	(int)(sizeof(a) / sizeof((a)[0]))

/* The events of l must be those of the array want, exactly. */
#define ASSERT_EVENTS(l, want) do {					\
	ASSERT_EQ(0, kevs_match(l, want, ARRAY_LEN(want)));		\
} while (0)

/*
 * The events of trid, read into l, must be START, the "kev.before" of
 * process pid, the wants given, and STOP. Then the stream goes.
 */
#define ASSERT_MARKED(trid, pid, l, ...) do {				\
	const struct kev_want _w[] = {					\
		WANT_START,						\
		WANT_USER(pid, pid, "kev.before"),			\
		__VA_ARGS__,						\
		WANT_STOP,						\
	};								\
	ASSERT_EQ(0, kevs_match(l, _w, ARRAY_LEN(_w)));		\
	kevs_free(l);							\
	ASSERT_EQ(0, posix_trace_shutdown(trid));			\
} while (0)

/*
 * In a TEST: run fn(arg) in a child traced alone with the classes given;
 * its wait status must be wstatus, and its events START, its
 * "kev.before", the wants given (which name the child k.pid), STOP.
 */
#define ASSERT_CHILD_MARKED(classes, fn, arg, wstatus, ...) do {	\
	struct kev_child k;						\
	struct kevs l;							\
	ASSERT_EQ(0, kev_child_run(&k, classes, fn, arg, &l));		\
	ASSERT_EQ((wstatus), k.status);					\
	ASSERT_MARKED(k.trid, k.pid, &l, __VA_ARGS__);			\
} while (0)

/* ---- the module's parameters and users ---------------------------------- */

/* In debugfs: a statistic, not a setting. */
#define PROBES_FILE	"/sys/kernel/debug/posixtrace/kernel_probes"
#define LINGER_PARAM	PARAM_DIR "kernel_probes_linger_ms"
#define PARANOID_PARAM	PARAM_DIR "kernel_events_paranoid"

/* Wait up to 5 s for kernel_probes to read @want; its last value. */
static inline int probes_settle(int want)
{
	int on = -1, i;

	for (i = 0; i < 500; i++) {
		if (!param_read(PROBES_FILE, &on) || on == want)
			break;
		usleep(10000);
	}
	return on;
}

/* A stream with @classes, created (not started) on the caller. */
static inline int create_with(unsigned int classes, trace_id_t *trid)
{
	trace_attr_t attr;
	int ret = posix_trace_attr_init(&attr);

	if (!ret)
		ret = posixtrace_k_attr_setkernelevents(&attr, classes);
	if (!ret)
		ret = posix_trace_create(0, &attr, trid);
	return ret;
}

/*
 * Become uid, groups and all, dumpable again as a user's own process is;
 * false on failure.
 */
static inline bool become_user(uid_t uid)
{
	return !setgroups(0, NULL) && !setresgid(uid, uid, uid) &&
	       !setresuid(uid, uid, uid) && !prctl(PR_SET_DUMPABLE, 1);
}

/*
 * In a child as uid: a stream of @privileged (a class that needs
 * CAP_PERFMON) must be refused (EPERM) while @paranoid, else allowed;
 * one of the proc and signal classes is allowed either way. Returns 0,
 * the step that failed, or -1 if the child could not be run.
 */
static inline int kev_user_asks(uid_t uid, int paranoid,
				unsigned int privileged)
{
	trace_id_t trid;
	int status, ret = 0;
	pid_t c = fork();

	if (c < 0)
		return -1;
	if (!c) {
		if (!become_user(uid))
			_exit(1);
		ret = create_with(privileged, &trid);
		if (paranoid ? ret != EPERM : ret != 0)
			_exit(2);
		if (!ret)
			posix_trace_shutdown(trid);
		if (create_with(KEV_PROC_SIGNAL, &trid))
			_exit(4);
		posix_trace_shutdown(trid);
		_exit(0);
	}
	if (waitpid(c, &status, 0) != c || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * In a TEST: @class needs CAP_PERFMON unless root sets
 * kernel_events_paranoid to 0 (only 0 and 1 are values).
 */
#define ASSERT_PARANOID_GUARDS(class) do {				\
	int _paranoid;							\
	if (geteuid())							\
		SKIP(return, "needs root for the module's parameters");	\
	ASSERT_TRUE(param_read(PARANOID_PARAM, &_paranoid));		\
	ASSERT_EQ(1, _paranoid);					\
	EXPECT_EQ(0, kev_user_asks(1000, 1, (class)));			\
	EXPECT_FALSE(param_write(PARANOID_PARAM, 2));			\
	ASSERT_TRUE(param_write(PARANOID_PARAM, 0));			\
	EXPECT_EQ(0, kev_user_asks(1000, 0, (class)));			\
	ASSERT_TRUE(param_write(PARANOID_PARAM, 1));			\
	EXPECT_EQ(0, kev_user_asks(1000, 1, (class)));			\
} while (0)

/*
 * In a TEST: @class's probes are on with its first stream and off once
 * the stream is gone and the linger (50 ms here) has passed.
 */
#define ASSERT_PROBES_FOLLOW_A_STREAM(class) do {			\
	trace_id_t _trid;						\
	int _linger;							\
	if (geteuid())							\
		SKIP(return, "needs root for the module's parameters");	\
	ASSERT_TRUE(param_read(LINGER_PARAM, &_linger));		\
	ASSERT_TRUE(param_write(LINGER_PARAM, 50));			\
	ASSERT_EQ(0, probes_settle(0));					\
	ASSERT_EQ(0, create_with((class), &_trid));			\
	EXPECT_EQ((int)(class), probes_settle((class)));		\
	ASSERT_EQ(0, posix_trace_shutdown(_trid));			\
	EXPECT_EQ(0, probes_settle(0));					\
	ASSERT_TRUE(param_write(LINGER_PARAM, _linger));		\
} while (0)

/* ---- processes ---------------------------------------------------------- */

/* A user event of the given name carrying v (opened on each call). */
static inline void kev_mark(const char *name, int v)
{
	trace_event_id_t id;

	if (!posix_trace_eventid_open(name, &id))
		posix_trace_event(id, &v, sizeof(v));
}

/*
 * A child traced by a running stream of its own from its first step: it
 * waits for kev_child_go(), then exits with fn(arg) (0, or the step that
 * failed). The test process is not traced.
 */
struct kev_child {
	pid_t pid;
	int go;
	trace_id_t trid;
	int status;
};

/*
 * Fork the child, which waits for kev_child_go() before it runs fn, and
 * exits with what fn returns; no stream yet. Returns the error number.
 */
static inline int kev_child_fork(struct kev_child *k, int (*fn)(void *),
				 void *arg)
{
	int p[2];

	if (pipe(p))
		return errno;
	k->pid = fork();
	if (k->pid < 0)
		return errno;
	if (!k->pid) {
		close(p[1]);
		wait_byte(p[0]);
		close(p[0]);
		_exit(fn(arg));
	}
	close(p[0]);
	k->go = p[1];
	return 0;
}

static inline int kev_child_start(struct kev_child *k, unsigned int classes,
				  int inheritance, int (*fn)(void *),
				  void *arg)
{
	int ret = kev_child_fork(k, fn, arg);

	if (ret)
		return ret;
	ret = kev_create(k->pid, classes, inheritance, &k->trid);
	if (ret) {
		kill(k->pid, SIGKILL);
		waitpid(k->pid, NULL, 0);
		close(k->go);
	}
	return ret;
}

static inline bool kev_child_go(struct kev_child *k)
{
	bool ok = put_byte(k->go, 'g');

	close(k->go);
	return ok;
}

/*
 * Wait for the child's end (its exit is recorded before the wait
 * returns), stop the stream and read it into l. Returns the error number.
 */
static inline int kev_child_end(struct kev_child *k, struct kevs *l)
{
	if (waitpid(k->pid, &k->status, 0) != k->pid)
		return errno;
	return kevs_stop_read(k->trid, l);
}

/*
 * Run fn in a child traced (alone) with the given classes; l gets its
 * events. Returns the error number.
 */
static inline int kev_child_run(struct kev_child *k, unsigned int classes,
				int (*fn)(void *), void *arg, struct kevs *l)
{
	int ret = kev_child_start(k, classes, POSIX_TRACE_CLOSE_FOR_CHILD,
				  fn, arg);

	if (!ret && !kev_child_go(k))
		ret = EPIPE;
	return ret ? ret : kev_child_end(k, l);
}

/*
 * The image a burst's child execs: this binary again, which exits at once
 * with the status its environment names.
 */
#define KEV_EXIT_ENV		"KEVENT_EXIT_STATUS"
#define KEV_BURST_STATUS	7
#define KEV_BURST_ARGV0		"kevent-burst"

static void __attribute__((constructor)) kev_exit_helper(void)
{
	const char *s = getenv(KEV_EXIT_ENV);

	if (s)
		_exit(atoi(s));
}

static void kev_on_signal(int sig)
{
	(void)sig;
}

/*
 * A burst: fork a child that execs KEV_BURST_ARGV0 (this binary, as
 * /proc/self/exe) and exits KEV_BURST_STATUS, reap it (SIGCHLD ignored by
 * default), then SIGUSR1 to this process, which a handler takes. *child
 * gets the child's pid. Returns 0, or the step that failed.
 */
static inline int kev_burst(pid_t *child)
{
	struct sigaction sa = { .sa_handler = kev_on_signal };
	char *argv[] = { KEV_BURST_ARGV0, NULL };
	char status_env[16];
	int status;
	pid_t c;

	snprintf(status_env, sizeof(status_env), "%d", KEV_BURST_STATUS);
	if (sigaction(SIGUSR1, &sa, NULL) || signal(SIGCHLD, SIG_DFL) ==
	    SIG_ERR)
		return 1;
	c = fork();
	if (c < 0)
		return 2;
	if (!c) {
		setenv(KEV_EXIT_ENV, status_env, 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (waitpid(c, &status, 0) != c || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != KEV_BURST_STATUS)
		return 3;
	if (kill(getpid(), SIGUSR1))
		return 4;
	*child = c;
	return 0;
}

/*
 * What a burst of parent's (its child child) records, in order, into w
 * (room for KEV_BURST_EVENTS), the events of type skip left out: the
 * fork, the child's exec and exit, SIGCHLD ignored by the parent, SIGUSR1
 * generated and taken by its handler. Returns how many it wrote.
 */
#define KEV_BURST_EVENTS	6

static inline int kev_burst_want(struct kev_want *w, pid_t parent,
				 pid_t child, trace_event_id_t skip)
{
	const struct kev_want burst[KEV_BURST_EVENTS] = {
		WANT_FORK(parent, parent, child, child, 0, SIGCHLD),
		WANT_EXEC(child, 1, 0, "/proc/self/exe", "exe",
			  KEV_BURST_ARGV0, "", "", ""),
		WANT_EXIT(child, child, KEV_BURST_STATUS, 0, 0, 1),
		WANT_GEN(parent, SIGCHLD, CLD_EXITED, child,
			 POSIXTRACE_SIGNAL_IGNORED, 1),
		WANT_GEN(parent, SIGUSR1, SI_USER, parent,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(parent, parent, SIGUSR1, SI_USER,
			 POSIXTRACE_SIGACT_HANDLER),
	};
	int i, n = 0;

	for (i = 0; i < KEV_BURST_EVENTS; i++)
		if (burst[i].id != skip)
			w[n++] = burst[i];
	return n;
}

/*
 * What a burst between "kev.before" and "kev.after" records in a stream
 * of parent's: START, the marks around the burst, STOP, and with a log
 * the flush. Returns how many events it wrote into w (room for 12).
 */
#define KEV_MARKED_EVENTS	12

static inline int kev_marked_want(struct kev_want *w, pid_t parent,
				  pid_t child, bool log)
{
	const struct kev_want start = WANT_START, stop = WANT_STOP;
	const struct kev_want before = WANT_USER(parent, parent, "kev.before");
	const struct kev_want after = WANT_USER(parent, parent, "kev.after");
	const struct kev_want fstart = WANT_SYS(POSIX_TRACE_FLUSH_START);
	const struct kev_want fstop = WANT_SYS(POSIX_TRACE_FLUSH_STOP);
	int n = 0;

	w[n++] = start;
	w[n++] = before;
	n += kev_burst_want(&w[n], parent, child, 0);
	w[n++] = after;
	w[n++] = stop;
	if (log) {
		w[n++] = fstart;
		w[n++] = fstop;
	}
	return n;
}

#endif /* KEVENT_COMMON_H */
