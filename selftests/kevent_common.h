/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kevent_*_test.c kselftests (kernel events, ABI 0.12: the proc
 * and signal classes) share on top of trc_common.h and trl_common.h: the
 * names and formats of the kernel event types as the uapi header gives
 * them, reading a whole stream with each event's thread id, decoding the
 * payloads into structs and the assertions built on them, a child traced
 * by a stream from its first step, and the "burst": one fork, exec, exit
 * and handled signal, whose events a test can check exactly.
 *
 * A test file defines _GNU_SOURCE before its first #include.
 */
#ifndef KEVENT_COMMON_H
#define KEVENT_COMMON_H

#include <sched.h>
#include <signal.h>
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
	};

	return kev_kernel(id) ? formats[id] : NULL;
}

/* The class a kernel event type belongs to. */
static inline unsigned int kev_class(trace_event_id_t id)
{
	return id < KEV_GEN ? POSIXTRACE_K_KERNEL_PROC :
			      POSIXTRACE_K_KERNEL_SIGNAL;
}

/* Skip where the module cannot record kernel events at all. */
#define SKIP_WITHOUT_KEVENTS() do {					\
	unsigned int _maj = 0, _min = 0;				\
	SKIP_WITHOUT_DEVICE();						\
	if (posixtrace_k_abi_version(&_maj, &_min) ||			\
	    (_maj == 0 && _min < 12))					\
		SKIP(return, "module older than ABI 0.12");		\
} while (0)

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

/* One event read, with the thread id and sequence number the library gave. */
struct kev {
	struct posix_trace_event_info info;
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
		e->len = lb->ev[i].len;
		memcpy(e->data, lb->ev[i].data, e->len);
	}
	return 0;
}

/* ---- payloads ---------------------------------------------------------- */

struct kev_fork {
	int32_t pid, tid;
	uint64_t flags;
	uint8_t thread;
};

struct kev_exec {
	uint32_t argc;
	uint8_t cut;
	char path[KEV_STR_MAX], comm[KEV_STR_MAX], argv[4][KEV_STR_MAX];
};

struct kev_exit {
	int32_t status, signal;
	uint8_t core, process;
};

struct kev_gen {
	int32_t sig, code, sender;
	uint8_t result, group;
};

struct kev_dlv {
	int32_t sig, code;
	uint8_t action;
};

/* Fields packed without padding, read in order. */
struct kev_cursor {
	const unsigned char *p;
	size_t left;
	bool ok;
};

static inline void kev_take(struct kev_cursor *c, void *out, size_t n)
{
	if (!c->ok || c->left < n) {
		c->ok = false;
		memset(out, 0, n);
		return;
	}
	memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
}

/* A str field: its NUL within the data and within KEV_STR_MAX bytes. */
static inline void kev_take_str(struct kev_cursor *c, char *out)
{
	const unsigned char *nul = c->ok ? memchr(c->p, 0, c->left) : NULL;

	if (!nul || nul - c->p >= KEV_STR_MAX) {
		c->ok = false;
		out[0] = '\0';
		return;
	}
	kev_take(c, out, nul - c->p + 1);
}

#define KEV_TAKE(c, field)	kev_take(c, &(field), sizeof(field))

/*
 * Decode e, an event of type id, into out: false if it is another type,
 * or its data is not exactly the fields of the format.
 */
static inline bool kev_decode(const struct kev *e, trace_event_id_t id,
			      void *out)
{
	struct kev_cursor c = { e->data, e->len, true };
	struct kev_fork *f = out;
	struct kev_exec *x = out;
	struct kev_exit *q = out;
	struct kev_gen *g = out;
	struct kev_dlv *d = out;
	int i;

	if (e->info.posix_event_id != id)
		return false;
	switch (id) {
	case KEV_FORK:
		KEV_TAKE(&c, f->pid);
		KEV_TAKE(&c, f->tid);
		KEV_TAKE(&c, f->flags);
		KEV_TAKE(&c, f->thread);
		break;
	case KEV_EXEC:
		KEV_TAKE(&c, x->argc);
		KEV_TAKE(&c, x->cut);
		kev_take_str(&c, x->path);
		kev_take_str(&c, x->comm);
		for (i = 0; i < 4; i++)
			kev_take_str(&c, x->argv[i]);
		break;
	case KEV_EXIT:
		KEV_TAKE(&c, q->status);
		KEV_TAKE(&c, q->signal);
		KEV_TAKE(&c, q->core);
		KEV_TAKE(&c, q->process);
		break;
	case KEV_GEN:
		KEV_TAKE(&c, g->sig);
		KEV_TAKE(&c, g->code);
		KEV_TAKE(&c, g->sender);
		KEV_TAKE(&c, g->result);
		KEV_TAKE(&c, g->group);
		break;
	case KEV_DLV:
		KEV_TAKE(&c, d->sig);
		KEV_TAKE(&c, d->code);
		KEV_TAKE(&c, d->action);
		break;
	default:
		return false;
	}
	return c.ok && !c.left;
}

/* One line of an event, decoded, for a test's log. */
static inline void kev_describe(const struct kev *e, char *buf, size_t size)
{
	union {
		struct kev_fork f;
		struct kev_exec x;
		struct kev_exit q;
		struct kev_gen g;
		struct kev_dlv d;
	} u;
	trace_event_id_t id = e->info.posix_event_id;
	int n;

	n = snprintf(buf, size, "id %u pid %d tid %d len %zu", id,
		     (int)e->info.posix_pid, (int)e->tid, e->len);
	if (n < 0 || (size_t)n >= size)
		return;
	buf += n;
	size -= n;
	if (kev_decode(e, KEV_FORK, &u))
		snprintf(buf, size, " fork pid %d tid %d flags %#llx thread %u",
			 u.f.pid, u.f.tid, (unsigned long long)u.f.flags,
			 u.f.thread);
	else if (kev_decode(e, KEV_EXEC, &u))
		snprintf(buf, size, " exec argc %u cut %#x path %.40s comm %.16s argv0 %.40s",
			 u.x.argc, u.x.cut, u.x.path, u.x.comm, u.x.argv[0]);
	else if (kev_decode(e, KEV_EXIT, &u))
		snprintf(buf, size, " exit status %d signal %d core %u process %u",
			 u.q.status, u.q.signal, u.q.core, u.q.process);
	else if (kev_decode(e, KEV_GEN, &u))
		snprintf(buf, size, " generate sig %d code %d sender %d result %u group %u",
			 u.g.sig, u.g.code, u.g.sender, u.g.result, u.g.group);
	else if (kev_decode(e, KEV_DLV, &u))
		snprintf(buf, size, " deliver sig %d code %d action %u",
			 u.d.sig, u.d.code, u.d.action);
	else if (kev_kernel(id))
		snprintf(buf, size, " (data does not match the format)");
}

/* Every event of l on stderr, as the harness's comments. */
static inline void kevs_show(const struct kevs *l)
{
	char line[256];
	int i;

	for (i = 0; i < l->n; i++) {
		kev_describe(&l->ev[i], line, sizeof(line));
		fprintf(stderr, "#   [%d] %s\n", i, line);
	}
}

/* The record header: type, process and (for a stream) thread. */
#define ASSERT_KEV(e, _id, _pid, _tid) do {				\
	ASSERT_EQ((trace_event_id_t)(_id), (e)->info.posix_event_id);	\
	ASSERT_EQ((pid_t)(_pid), (e)->info.posix_pid);			\
	ASSERT_EQ((pid_t)(_tid), (e)->tid);				\
} while (0)

/* A user event of type _name in trid's names, by process _pid. */
#define ASSERT_USER(trid, e, _pid, _name) do {				\
	char _n[TRACE_EVENT_NAME_MAX + 1];				\
	ASSERT_EQ(0, posix_trace_eventid_get_name(trid,			\
			(e)->info.posix_event_id, _n));			\
	ASSERT_STREQ((_name), _n);					\
	ASSERT_EQ((pid_t)(_pid), (e)->info.posix_pid);			\
} while (0)

#define ASSERT_FORK(e, _pid, _tid, _cpid, _ctid, _thread) do {		\
	struct kev_fork _f;						\
	ASSERT_KEV(e, KEV_FORK, _pid, _tid);				\
	ASSERT_TRUE(kev_decode(e, KEV_FORK, &_f));			\
	ASSERT_EQ((_cpid), _f.pid);					\
	ASSERT_EQ((_ctid), _f.tid);					\
	ASSERT_EQ((_thread), _f.thread);				\
	ASSERT_EQ(!!(_thread), !!(_f.flags & CLONE_THREAD));		\
} while (0)

#define ASSERT_EXIT(e, _pid, _tid, _status, _signal, _core, _process) do { \
	struct kev_exit _q;						\
	ASSERT_KEV(e, KEV_EXIT, _pid, _tid);				\
	ASSERT_TRUE(kev_decode(e, KEV_EXIT, &_q));			\
	ASSERT_EQ((_status), _q.status);				\
	ASSERT_EQ((_signal), _q.signal);				\
	ASSERT_EQ((_core), _q.core);					\
	ASSERT_EQ((_process), _q.process);				\
} while (0)

/* A signal generated for single-threaded process _pid. */
#define ASSERT_GEN(e, _pid, _sig, _code, _sender, _result, _group) do {	\
	struct kev_gen _g;						\
	ASSERT_KEV(e, KEV_GEN, _pid, _pid);				\
	ASSERT_TRUE(kev_decode(e, KEV_GEN, &_g));			\
	ASSERT_EQ((_sig), _g.sig);					\
	ASSERT_EQ((_code), _g.code);					\
	ASSERT_EQ((_sender), _g.sender);				\
	ASSERT_EQ((_result), _g.result);				\
	ASSERT_EQ((_group), _g.group);					\
} while (0)

#define ASSERT_DLV(e, _pid, _tid, _sig, _code, _action) do {		\
	struct kev_dlv _d;						\
	ASSERT_KEV(e, KEV_DLV, _pid, _tid);				\
	ASSERT_TRUE(kev_decode(e, KEV_DLV, &_d));			\
	ASSERT_EQ((_sig), _d.sig);					\
	ASSERT_EQ((_code), _d.code);					\
	ASSERT_EQ((_action), _d.action);				\
} while (0)

/* ---- processes --------------------------------------------------------- */

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

static inline int kev_child_start(struct kev_child *k, unsigned int classes,
				  int inheritance, int (*fn)(void *),
				  void *arg)
{
	int p[2], ret;

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
	int ret;

	if (waitpid(k->pid, &k->status, 0) != k->pid)
		return errno;
	ret = posix_trace_stop(k->trid);
	if (!ret)
		ret = kevs_read(k->trid, l);
	if (!ret)
		kevs_show(l);
	return ret;
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

/* The kernel events of one burst, by type. */
#define KEV_BURST_COUNTS	{ [KEV_FORK] = 1, [KEV_EXEC] = 1,	\
				  [KEV_EXIT] = 1, [KEV_GEN] = 2,	\
				  [KEV_DLV] = 1 }

/*
 * Check the burst whose fork is l->ev[*at] and move *at past it: in
 * order, the fork (by parent, or by whichever process if parent is 0),
 * the child's exec and exit, SIGCHLD ignored by the parent, SIGUSR1
 * generated and taken by its handler; every payload as a burst makes it,
 * thread ids too when l has them. Returns 0, or the step that failed
 * (and says why on stderr).
 */
static inline int kev_burst_check(const struct kevs *l, int *at,
				  pid_t parent)
{
	const struct kev *e = &l->ev[*at];
	struct kev_fork f;
	struct kev_exec x;
	struct kev_exit q;
	struct kev_gen g;
	struct kev_dlv d;
	pid_t child;
	int step = 0;

#define KEV_CHECK(cond) do {						\
	step++;								\
	if (!(cond)) {							\
		fprintf(stderr, "# burst at %d: step %d: %s\n", *at,	\
			step, #cond);					\
		return step;						\
	}								\
} while (0)
#define KEV_ON(ev, pid) ((ev)->info.posix_pid == (pid) &&		\
			 (!l->tids || (ev)->tid == (pid)))
	KEV_CHECK(*at + 6 <= l->n);
	KEV_CHECK(kev_decode(e, KEV_FORK, &f));
	if (!parent)
		parent = e->info.posix_pid;
	child = f.pid;
	KEV_CHECK(KEV_ON(e, parent) && child > 0 && f.tid == child &&
		  !f.thread && !(f.flags & CLONE_THREAD));
	e++;
	KEV_CHECK(kev_decode(e, KEV_EXEC, &x) && KEV_ON(e, child));
	KEV_CHECK(x.argc == 1 && !x.cut && !strcmp(x.path, "/proc/self/exe") &&
		  !strcmp(x.comm, "exe") &&
		  !strcmp(x.argv[0], KEV_BURST_ARGV0) && !x.argv[1][0] &&
		  !x.argv[2][0] && !x.argv[3][0]);
	e++;
	KEV_CHECK(kev_decode(e, KEV_EXIT, &q) && KEV_ON(e, child));
	KEV_CHECK(q.status == KEV_BURST_STATUS && !q.signal && !q.core &&
		  q.process == 1);
	e++;
	KEV_CHECK(kev_decode(e, KEV_GEN, &g) && KEV_ON(e, parent));
	KEV_CHECK(g.sig == SIGCHLD && g.code == CLD_EXITED &&
		  g.sender == child && g.result == POSIXTRACE_SIGNAL_IGNORED &&
		  g.group == 1);
	e++;
	KEV_CHECK(kev_decode(e, KEV_GEN, &g) && KEV_ON(e, parent));
	KEV_CHECK(g.sig == SIGUSR1 && g.code == SI_USER &&
		  g.sender == parent &&
		  g.result == POSIXTRACE_SIGNAL_DELIVERED && g.group == 1);
	e++;
	KEV_CHECK(kev_decode(e, KEV_DLV, &d) && KEV_ON(e, parent));
	KEV_CHECK(d.sig == SIGUSR1 && d.code == SI_USER &&
		  d.action == POSIXTRACE_SIGACT_HANDLER);
	/* fork(): the exit signal is in the flags' low byte. */
	KEV_CHECK((f.flags & 0xff) == SIGCHLD);
#undef KEV_ON
#undef KEV_CHECK
	*at += 6;
	return 0;
}

#endif /* KEVENT_COMMON_H */
