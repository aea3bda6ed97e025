// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events as a stream sees them: only a stream that asked
 * records them and lists their types, with the uapi's names and formats;
 * unknown classes are refused by the library and the module; filters
 * switch each type off and on at once; processes the stream does not
 * trace never appear, nor do those of another user's stream; logs carry
 * them, names and formats included, to posix_trace_open() here and on
 * another kernel (the golden log mechanism: $POSIXTRACE_LOG_EXPORT and
 * $POSIXTRACE_LOG_IMPORT); and a storm of short processes loses nothing
 * it does not count.
 */
#define _GNU_SOURCE

#include "kevent_common.h"

/* Which of the kernel types the stream's type list holds. */
static int listed_types(trace_id_t trid, bool listed[])
{
	trace_event_id_t id;
	int unavailable, ret;

	memset(listed, 0, POSIXTRACE_EVENT_KERNEL_END * sizeof(listed[0]));
	ret = posix_trace_eventtypelist_rewind(trid);
	while (!ret) {
		ret = posix_trace_eventtypelist_getnext_id(trid, &id,
							   &unavailable);
		if (ret || unavailable)
			break;
		if (kev_kernel(id))
			listed[id] = true;
	}
	return ret;
}

/*
 * The kernel types trid lists must be those of classes, each named and
 * described as the uapi header says. Returns 0, or the step that failed.
 */
static int types_match(trace_id_t trid, unsigned int classes)
{
	bool listed[POSIXTRACE_EVENT_KERNEL_END];
	char name[TRACE_EVENT_NAME_MAX + 1];
	char format[POSIXTRACE_K_FORMAT_MAX + 1];
	trace_event_id_t id;

	if (listed_types(trid, listed))
		return 1;
	for (id = POSIXTRACE_EVENT_KERNEL_FIRST;
	     id < POSIXTRACE_EVENT_KERNEL_END; id++) {
		if (listed[id] != !!(classes & kev_class(id))) {
			fprintf(stderr, "# type %u listed: %d\n", id,
				listed[id]);
			return 2;
		}
		if (!listed[id])
			continue;
		if (posix_trace_eventid_get_name(trid, id, name) ||
		    strcmp(name, kev_name(id))) {
			fprintf(stderr, "# type %u: name not %s\n", id,
				kev_name(id));
			return 3;
		}
		if (posixtrace_k_eventid_get_format(trid, id, format,
						    sizeof(format)) ||
		    strcmp(format, kev_format(id))) {
			fprintf(stderr, "# type %u: format not %s\n", id,
				kev_format(id));
			return 4;
		}
	}
	return 0;
}

/* ---- attributes and types ----------------------------------------------- */

TEST(kernel_types_are_listed_only_for_the_classes_asked)
{
	static const unsigned int cases[] = {
		0, POSIXTRACE_K_KERNEL_PROC, POSIXTRACE_K_KERNEL_SIGNAL,
		POSIXTRACE_K_KERNEL_ALL,
	};
	unsigned int i, got;
	trace_attr_t attr;
	trace_id_t trid;

	SKIP_WITHOUT_DEVICE();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TH_LOG("classes %#x", cases[i]);
		ASSERT_EQ(0, kev_create(0, cases[i],
					POSIX_TRACE_CLOSE_FOR_CHILD, &trid));
		ASSERT_EQ(0, types_match(trid, cases[i]));
		ASSERT_EQ(0, posix_trace_attr_init(&attr));
		ASSERT_EQ(0, posix_trace_get_attr(trid, &attr));
		got = ~0u;
		ASSERT_EQ(0, posixtrace_k_attr_getkernelevents(&attr, &got));
		ASSERT_EQ(cases[i], got);
		ASSERT_EQ(0, posix_trace_shutdown(trid));
	}
}

TEST(unknown_classes_are_einval_in_the_library)
{
	unsigned int got = ~0u;
	trace_attr_t attr;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posixtrace_k_attr_getkernelevents(&attr, &got));
	ASSERT_EQ(0, got);
	ASSERT_EQ(0, posixtrace_k_attr_setkernelevents(&attr,
						       POSIXTRACE_K_KERNEL_ALL));
	ASSERT_EQ(EINVAL, posixtrace_k_attr_setkernelevents(&attr, 0x10));
	ASSERT_EQ(EINVAL, posixtrace_k_attr_setkernelevents(&attr,
			POSIXTRACE_K_KERNEL_PROC | 0x80000000u));
	ASSERT_EQ(EINVAL, posixtrace_k_attr_getkernelevents(&attr, NULL));
	/* A refused value changes nothing. */
	ASSERT_EQ(0, posixtrace_k_attr_getkernelevents(&attr, &got));
	ASSERT_EQ(POSIXTRACE_K_KERNEL_ALL, got);
	ASSERT_EQ(0, posix_trace_attr_destroy(&attr));
}

/* CREATE on dev with the given kernel_events: the fd, or -1 and errno. */
static int raw_create(int dev, __u32 kernel_events)
{
	struct posixtrace_attr ua = {
		.size = sizeof(ua),
		.stream_full_policy = POSIXTRACE_LOOP,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
		.kernel_events = kernel_events,
	};
	struct posixtrace_create req = {
		.size = sizeof(req), .log_fd = -1, .attr = (uintptr_t)&ua,
	};

	return ioctl(dev, POSIXTRACE_IOC_CREATE, &req);
}

TEST(unknown_classes_are_einval_in_the_module)
{
	struct posixtrace_attr got = { .size = sizeof(got) };
	int dev, fd;

	SKIP_WITHOUT_DEVICE();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(-1, raw_create(dev, 0x10));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, raw_create(dev, POSIXTRACE_KERNEL_ALL | 0x80000000u));
	ASSERT_EQ(EINVAL, errno);
	fd = raw_create(dev, POSIXTRACE_KERNEL_ALL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, POSIXTRACE_IOC_GET_ATTR, &got));
	ASSERT_EQ(POSIXTRACE_KERNEL_ALL, got.kernel_events);
	close(fd);
	close(dev);
}

/* ---- what a stream records ---------------------------------------------- */

/* Marks, a burst between them, stop and read: Returns the burst's step. */
static int marked_burst(trace_id_t trid, pid_t *child, struct kevs *l)
{
	int ret;

	kev_mark("kev.before", 0);
	ret = kev_burst(child);
	kev_mark("kev.after", 0);
	return kevs_stop_read(trid, l) ? 100 : ret;
}

/* l must be START, "kev.before", parent's burst, "kev.after", STOP. */
static int marked_burst_match(const struct kevs *l, pid_t parent,
			      pid_t child)
{
	struct kev_want w[KEV_MARKED_EVENTS];

	return kevs_match(l, w, kev_marked_want(w, parent, child, false));
}

TEST(inherited_stream_records_a_burst_exactly)
{
	trace_id_t trid;
	struct kevs l;
	pid_t child;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, kev_create(0, KEV_PROC_SIGNAL,
				POSIX_TRACE_INHERITED, &trid));
	ASSERT_EQ(0, marked_burst(trid, &child, &l));
	ASSERT_EQ(0, marked_burst_match(&l, getpid(), child));
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

TEST(stream_without_the_attribute_records_no_kernel_event)
{
	trace_id_t trid;
	struct kevs l;
	pid_t child;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, kev_create(0, 0, POSIX_TRACE_INHERITED, &trid));
	ASSERT_EQ(0, marked_burst(trid, &child, &l));
	const struct kev_want want[] = {
		WANT_START,
		WANT_USER(getpid(), getpid(), "kev.before"),
		WANT_USER(getpid(), getpid(), "kev.after"),
		WANT_STOP,
	};

	ASSERT_EVENTS(&l, want);
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* ---- filters ------------------------------------------------------------ */

/* The filter: nothing, or type id filtered out. */
static int filter_out(trace_id_t trid, trace_event_id_t id)
{
	trace_event_set_t set;
	int ret = posix_trace_eventset_empty(&set);

	if (!ret && id)
		ret = posix_trace_eventset_add(id, &set);
	if (!ret)
		ret = posix_trace_set_filter(trid, &set,
					     POSIX_TRACE_SET_EVENTSET);
	return ret;
}

/*
 * For each kernel type: filtered out, a burst; let through again, a
 * burst. Each change records FILTER, then a mark: with its type off, a
 * burst has every event but that type's; on, it is whole.
 */
#define FILTER_ROUNDS	(2 * (KEV_DLV - KEV_FORK + 1))

TEST(filters_switch_each_kernel_type_off_and_on_while_running)
{
	struct kev_want want[2 + FILTER_ROUNDS * (2 + KEV_BURST_EVENTS) + 1];
	const struct kev_want start = WANT_START, stop = WANT_STOP;
	const struct kev_want filter = WANT_SYS(POSIX_TRACE_FILTER);
	const struct kev_want mark = WANT_USER(getpid(), getpid(),
					       "kev.round");
	pid_t children[FILTER_ROUNDS];
	trace_event_id_t t, id;
	int round, n = 0, k = 0;
	trace_id_t trid;
	struct kevs l;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, posix_trace_eventid_open("kev.round", &id));
	ASSERT_EQ(0, kev_create(0, KEV_PROC_SIGNAL,
				POSIX_TRACE_INHERITED, &trid));
	for (t = KEV_FORK; t <= KEV_DLV; t++) {
		for (round = 0; round < 2; round++) {
			ASSERT_EQ(0, filter_out(trid, round ? 0 : t));
			posix_trace_event(id, &round, sizeof(round));
			ASSERT_EQ(0, kev_burst(&children[k++]));
		}
	}
	posix_trace_event(id, &round, sizeof(round));
	ASSERT_EQ(0, kevs_stop_read(trid, &l));

	want[n++] = start;
	for (k = 0, t = KEV_FORK; t <= KEV_DLV; t++) {
		for (round = 0; round < 2; round++, k++) {
			want[n++] = filter;
			want[n++] = mark;
			n += kev_burst_want(&want[n], getpid(), children[k],
					    round ? 0 : t);
		}
	}
	want[n++] = mark;
	want[n++] = stop;
	ASSERT_EQ(0, kevs_match(&l, want, n));
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/* ---- what is not traced ------------------------------------------------- */

struct untraced {
	int ready[2], go[2];
};

/*
 * The traced child: SIGUSR2 blocked and handled; "kev.before", ready;
 * once told, a burst (its own child is not traced), then SIGUSR2 taken,
 * "kev.after".
 */
static int burst_then_usr2(void *arg)
{
	struct sigaction sa = { .sa_handler = kev_on_signal };
	struct untraced *u = arg;
	sigset_t set, none;
	pid_t child;
	int ret;

	sigemptyset(&set);
	sigemptyset(&none);
	sigaddset(&set, SIGUSR2);
	if (sigaction(SIGUSR2, &sa, NULL) ||
	    sigprocmask(SIG_BLOCK, &set, NULL))
		return 1;
	kev_mark("kev.before", 0);
	if (!put_byte(u->ready[1], 'r'))
		return 2;
	wait_byte(u->go[0]);
	ret = kev_burst(&child);
	if (ret)
		return 10 + ret;
	if (!put(u->ready[1], &child, sizeof(child)))
		return 3;
	sigsuspend(&none);
	kev_mark("kev.after", 0);
	return 0;
}

/*
 * A stream on one child (without inheritance): the test process, not
 * traced, makes a burst of its own and sends the child SIGUSR2; the
 * child's own child is not traced either. Only the traced child's events
 * appear: its fork (the untraced child's pid as payload), the SIGCHLD
 * and SIGUSR2 the untraced processes sent it, generated on it.
 */
TEST(processes_the_stream_does_not_trace_never_appear)
{
	struct untraced u;
	struct kev_child k;
	struct kevs l;
	pid_t mine, theirs = 0;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, pipe(u.ready));
	ASSERT_EQ(0, pipe(u.go));
	ASSERT_EQ(0, kev_child_start(&k, KEV_PROC_SIGNAL,
				     POSIX_TRACE_CLOSE_FOR_CHILD,
				     burst_then_usr2, &u));
	ASSERT_TRUE(kev_child_go(&k));
	wait_byte(u.ready[0]);
	ASSERT_EQ(0, kev_burst(&mine));
	ASSERT_EQ(0, kill(k.pid, SIGUSR2));
	ASSERT_TRUE(put_byte(u.go[1], 'g'));
	ASSERT_TRUE(get(u.ready[0], &theirs, sizeof(theirs)));
	ASSERT_EQ(0, kev_child_end(&k, &l));
	ASSERT_EQ(0, k.status);
	/* The untraced grandchild's exec and exit are not there. */
	const struct kev_want want[] = {
		WANT_START,
		WANT_USER(k.pid, k.pid, "kev.before"),
		WANT_GEN(k.pid, SIGUSR2, SI_USER, getpid(),
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_FORK(k.pid, k.pid, theirs, theirs, 0, SIGCHLD),
		WANT_GEN(k.pid, SIGCHLD, CLD_EXITED, theirs,
			 POSIXTRACE_SIGNAL_IGNORED, 1),
		WANT_GEN(k.pid, SIGUSR1, SI_USER, k.pid,
			 POSIXTRACE_SIGNAL_DELIVERED, 1),
		WANT_DLV(k.pid, k.pid, SIGUSR1, SI_USER,
			 POSIXTRACE_SIGACT_HANDLER),
		WANT_DLV(k.pid, k.pid, SIGUSR2, SI_USER,
			 POSIXTRACE_SIGACT_HANDLER),
		WANT_USER(k.pid, k.pid, "kev.after"),
		WANT_EXIT(k.pid, k.pid, 0, 0, 0, 1),
		WANT_STOP,
	};

	ASSERT_EVENTS(&l, want);
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(k.trid));
}

/* ---- two users ---------------------------------------------------------- */

#define USER_A	1000
#define USER_B	1001

/*
 * One user's side: its own stream on itself (with inheritance), ready,
 * then at the go a burst at the same time as the other user's; the stream
 * must hold its own burst and nothing else. Returns 0 or the step.
 */
static int user_side(uid_t uid, int ready, int go)
{
	trace_id_t trid;
	struct kevs l;
	pid_t child;
	int ret;

	if (!become_user(uid))
		return 1;
	if (kev_create(0, KEV_PROC_SIGNAL, POSIX_TRACE_INHERITED,
		       &trid))
		return 2;
	if (!put_byte(ready, 'r'))
		return 3;
	wait_byte(go);
	ret = marked_burst(trid, &child, &l);
	if (ret)
		return 10 + ret;
	ret = marked_burst_match(&l, getpid(), child);
	kevs_free(&l);
	posix_trace_shutdown(trid);
	return ret ? 20 + ret : 0;
}

TEST(two_users_streams_see_only_their_own_processes)
{
	int ready[2], go[2], status, i;
	pid_t side[2];
	uid_t uids[2] = { USER_A, USER_B };

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root to act as two users");
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	for (i = 0; i < 2; i++) {
		side[i] = fork();
		ASSERT_LE(0, side[i]);
		if (!side[i])
			_exit(user_side(uids[i], ready[1], go[0]));
	}
	wait_byte(ready[0]);
	wait_byte(ready[0]);
	ASSERT_TRUE(put(go[1], "gg", 2));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(side[i], waitpid(side[i], &status, 0));
		TH_LOG("uid %u: status %#x", uids[i], status);
		EXPECT_EQ(0, status);
	}
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

/* ---- logs --------------------------------------------------------------- */

#define KEV_LOG_NAME	"kevents"

/*
 * A log of a marked burst, read back: the stream's name, START,
 * "kev.before", the burst with the kernel types' names, "kev.after",
 * STOP and the flush. Pids are those of the kernel that wrote it.
 * Returns 0 or the step that failed.
 */
static int log_check(int fd)
{
	struct kev_want w[KEV_MARKED_EVENTS];
	pid_t parent = 0, child = 0;
	char name[TRACE_NAME_MAX];
	struct kev_val fork;
	struct logbuf lb;
	trace_id_t trid;
	struct kevs l;
	int ret;

	if (read_log(fd, &lb))
		return 1;
	ret = kevs_from_log(&lb, &l) ? 2 : 0;
	if (!ret && (posix_trace_attr_getname(&lb.attr, name) ||
		     strcmp(name, KEV_LOG_NAME)))
		ret = 3;
	if (!ret) {
		kevs_show(&l);
		/* The pids of the kernel that wrote it: the marks', the fork's. */
		if (l.n > 2) {
			parent = l.ev[1].info.posix_pid;
			if (kev_values(&l.ev[2], &fork))
				child = fork.v[0];
		}
		if (kevs_match(&l, w, kev_marked_want(w, parent, child, true)))
			ret = 4;
	}
	kevs_free(&l);
	free_log(&lb);
	if (ret)
		return ret;
	/* The types, their names and formats, as posix_trace_open() has them. */
	if (posix_trace_open(fd, &trid))
		return 5;
	ret = types_match(trid, KEV_PROC_SIGNAL);
	posix_trace_close(trid);
	return ret ? 10 + ret : 0;
}

TEST(log_with_kernel_events_reads_back_and_is_exported)
{
	trace_attr_t attr;
	trace_id_t trid;
	pid_t child;
	int fd;

	SKIP_WITHOUT_DEVICE();
	fd = tmp_log();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kev_attr(&attr, KEV_PROC_SIGNAL,
			      POSIX_TRACE_INHERITED));
	ASSERT_EQ(0, posix_trace_attr_setname(&attr, KEV_LOG_NAME));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_LOOP));
	ASSERT_EQ(0, posix_trace_attr_setlogfullpolicy(&attr,
						       POSIX_TRACE_APPEND));
	ASSERT_EQ(0, posix_trace_create_withlog(0, &attr, fd, &trid));
	ASSERT_EQ(0, posix_trace_start(trid));
	kev_mark("kev.before", 0);
	ASSERT_EQ(0, kev_burst(&child));
	kev_mark("kev.after", 0);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
	ASSERT_EQ(0, log_check(fd));
	ASSERT_TRUE(export_log(fd, getenv("POSIXTRACE_LOG_EXPORT"),
			       KEV_LOG_NAME ".ptlog"));
	close(fd);
}

/* The same log, as another kernel's module wrote it, reads back here. */
TEST(kernel_event_logs_of_other_kernels_read_back)
{
	const char *dir = getenv("POSIXTRACE_LOG_IMPORT");
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/" KEV_LOG_NAME ".ptlog",
		 dir ? dir : "");
	fd = dir ? open(path, O_RDONLY) : -1;
	if (fd < 0)
		SKIP(return, "no kernel event log of another kernel to read");
	TH_LOG("reading %s", path);
	ASSERT_EQ(0, log_check(fd));
	close(fd);
}

/* ---- a storm of short processes ----------------------------------------- */

#define STORM_WORKERS	4
#define STORM_CHILDREN	25

/* What a worker tells the test of each child it reaped. */
struct reaped {
	pid_t pid;
	int status;
};

/*
 * A worker: STORM_CHILDREN children one after the other, each signalling
 * itself (SIGUSR1, handled) and exiting with a status, or every fifth
 * dying of SIGTERM; each reaped child is reported on fd.
 */
static int storm_worker(int fd)
{
	struct reaped r;
	int i;

	for (i = 0; i < STORM_CHILDREN; i++) {
		r.pid = fork();
		if (r.pid < 0)
			return 1;
		if (!r.pid) {
			kill(getpid(), SIGUSR1);
			if (i % 5 == 4)
				kill(getpid(), SIGTERM);
			_exit(i);
		}
		if (waitpid(r.pid, &r.status, 0) != r.pid ||
		    !put(fd, &r, sizeof(r)))
			return 2;
	}
	return 0;
}

/* The exit event a wait status must have been recorded as. */
static bool exit_matches(const struct kev_val *q, int status)
{
	if (WIFEXITED(status))
		return q->v[0] == WEXITSTATUS(status) && !q->v[1] &&
		       !q->v[2] && q->v[3];
	return q->v[0] == -1 && q->v[1] == WTERMSIG(status) &&
	       q->v[2] == !!WCOREDUMP(status) && q->v[3];
}

/*
 * Workers forking, signalling and reaping short children all at once,
 * with both classes on: every event read or counted lost (the module's
 * events_lost, the gaps in the sequence numbers); with nothing lost, each
 * fork of a process has exactly one exit of that process, with the status
 * its parent's wait() saw, and every signal is counted.
 */
TEST(storm_of_short_processes_loses_nothing_unaccounted)
{
	struct reaped reaped[STORM_WORKERS * (STORM_CHILDREN + 1)];
	int forks = 0, exits = 0, gens = 0, dlvs = 0, other = 0, made = 0;
	int unmatched;
	int p[2], i, j, n = 0;
	struct sigaction sa = { .sa_handler = kev_on_signal };
	struct posixtrace_status st;
	pid_t workers[STORM_WORKERS];
	uint64_t gaps = 0;
	trace_id_t trid;
	struct kev_val v;
	struct kevs l;
	bool *exited;

	SKIP_WITHOUT_DEVICE();
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_NE(SIG_ERR, signal(SIGCHLD, SIG_DFL));
	ASSERT_NE(SIG_ERR, signal(SIGTERM, SIG_DFL));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, kev_create(0, KEV_PROC_SIGNAL,
				POSIX_TRACE_INHERITED, &trid));
	for (i = 0; i < STORM_WORKERS; i++) {
		workers[i] = fork();
		ASSERT_LE(0, workers[i]);
		if (!workers[i])
			_exit(storm_worker(p[1]));
	}
	for (i = 0; i < STORM_WORKERS; i++) {
		reaped[n].pid = workers[i];
		ASSERT_EQ(workers[i], waitpid(workers[i], &reaped[n].status,
					      0));
		ASSERT_EQ(0, reaped[n].status);
		n++;
	}
	close(p[1]);
	while (n < STORM_WORKERS * (STORM_CHILDREN + 1) &&
	       get(p[0], &reaped[n], sizeof(reaped[n])))
		n++;
	close(p[0]);
	ASSERT_EQ(STORM_WORKERS * (STORM_CHILDREN + 1), n);
	ASSERT_EQ(0, posix_trace_stop(trid));
	ASSERT_EQ(0, own_stream_status(&st));
	ASSERT_EQ(0, kevs_read(trid, &l));

	exited = calloc(n, sizeof(*exited));
	ASSERT_NE(NULL, exited);
	for (i = 0; i < l.n; i++) {
		const struct kev *e = &l.ev[i];

		if (i && e->seq > l.ev[i - 1].seq + 1)
			gaps += e->seq - l.ev[i - 1].seq - 1;
		switch (e->info.posix_event_id) {
		case KEV_FORK:
			ASSERT_TRUE(kev_values(e, &v));
			ASSERT_EQ(0, v.v[3]);	/* not a thread */
			forks++;
			break;
		case KEV_EXIT:
			ASSERT_TRUE(kev_values(e, &v));
			for (j = 0; j < n && reaped[j].pid !=
			     e->info.posix_pid; j++)
				;
			ASSERT_LT(j, n) TH_LOG("exit of pid %d", e->info.posix_pid);
			ASSERT_FALSE(exited[j]);
			ASSERT_TRUE(exit_matches(&v, reaped[j].status))
				TH_LOG("pid %d: status %#x", reaped[j].pid,
				       reaped[j].status);
			exited[j] = true;
			exits++;
			break;
		case KEV_GEN:
			gens++;
			break;
		case KEV_DLV:
			dlvs++;
			break;
		case POSIX_TRACE_START:
		case POSIX_TRACE_STOP:
			break;
		case POSIX_TRACE_OVERFLOW:
		case POSIX_TRACE_RESUME:
			made++;	/* by the reader, not recorded */
			break;
		default:
			other++;
		}
	}
	unmatched = n - exits;
	TH_LOG("read %d: %d forks, %d exits, %d generated, %d delivered; "
	       "lost %llu, gaps %llu",
	       l.n, forks, exits, gens, dlvs,
	       (unsigned long long)st.events_lost, (unsigned long long)gaps);
	/* Every event recorded is read or counted lost. */
	ASSERT_EQ(st.events_recorded,
		  (uint64_t)(l.n - made) + st.events_lost);
	ASSERT_LE(gaps, st.events_lost);
	if (!st.events_lost) {
		int terms = STORM_WORKERS * (STORM_CHILDREN / 5);

		ASSERT_EQ(0, other);
		ASSERT_EQ(n, forks);
		ASSERT_EQ(0, unmatched);
		/* SIGUSR1 and SIGCHLD per child, SIGTERM for some, SIGCHLD per worker. */
		ASSERT_EQ(STORM_WORKERS * STORM_CHILDREN * 2 + terms +
			  STORM_WORKERS, gens);
		/* SIGUSR1 per child, the fatal one for those SIGTERM killed. */
		ASSERT_EQ(STORM_WORKERS * STORM_CHILDREN + terms, dlvs);
	} else {
		ASSERT_LE((uint64_t)unmatched + (n - forks), 2 * st.events_lost);
	}
	free(exited);
	kevs_free(&l);
	ASSERT_EQ(0, posix_trace_shutdown(trid));
}

/*
 * The goal "no stream wants a class: its tracepoint has no probe of
 * ours", read from the module's own count: on with the first stream that
 * wants the class, off once the last is gone and the linger has passed.
 */
TEST(probes_are_on_only_while_a_stream_wants_their_class)
{
	trace_id_t proc, sig;
	int linger;

	SKIP_WITHOUT_DEVICE();
	if (geteuid())
		SKIP(return, "needs root for the module's parameters");
	ASSERT_TRUE(param_read(LINGER_PARAM, &linger));
	ASSERT_TRUE(param_write(LINGER_PARAM, 50));
	/* Whatever an earlier test left on goes first. */
	ASSERT_EQ(0, probes_settle(0));

	ASSERT_EQ(0, create_with(POSIXTRACE_K_KERNEL_PROC, &proc));
	EXPECT_EQ(POSIXTRACE_K_KERNEL_PROC, probes_settle(POSIXTRACE_K_KERNEL_PROC));
	ASSERT_EQ(0, create_with(POSIXTRACE_K_KERNEL_SIGNAL, &sig));
	EXPECT_EQ(KEV_PROC_SIGNAL, probes_settle(KEV_PROC_SIGNAL));
	ASSERT_EQ(0, posix_trace_shutdown(proc));
	EXPECT_EQ(POSIXTRACE_K_KERNEL_SIGNAL,
		  probes_settle(POSIXTRACE_K_KERNEL_SIGNAL));
	ASSERT_EQ(0, posix_trace_shutdown(sig));
	EXPECT_EQ(0, probes_settle(0));

	/* A stream that asks for none turns none on. */
	ASSERT_EQ(0, create_with(0, &proc));
	usleep(100000);
	EXPECT_EQ(0, probes_settle(0));
	ASSERT_EQ(0, posix_trace_shutdown(proc));

	/* The linger keeps a class on across a close and a create. */
	ASSERT_TRUE(param_write(LINGER_PARAM, 60000));
	ASSERT_EQ(0, create_with(POSIXTRACE_K_KERNEL_PROC, &proc));
	ASSERT_EQ(0, posix_trace_shutdown(proc));
	usleep(100000);
	EXPECT_EQ(POSIXTRACE_K_KERNEL_PROC,
		  probes_settle(POSIXTRACE_K_KERNEL_PROC));
	ASSERT_TRUE(param_write(LINGER_PARAM, linger));
}

static void kev_on_usr1(int sig)
{
	(void)sig;
}

/*
 * Two streams on one process, one with the signal class, one with the
 * proc class: each gets its own class's events, and none of the other's.
 * make mutants' kev-record-ignores-class survived without it.
 */
TEST(two_streams_of_one_process_each_get_only_their_class)
{
	const unsigned int classes[2] = { POSIXTRACE_K_KERNEL_SIGNAL,
					  POSIXTRACE_K_KERNEL_PROC };
	int i, s, own[2] = { 0, 0 }, other[2] = { 0, 0 }, status;
	trace_id_t trid[2];
	struct kevs l[2];
	pid_t c;

	SKIP_WITHOUT_DEVICE();
	ASSERT_NE(SIG_ERR, signal(SIGUSR1, kev_on_usr1));
	for (s = 0; s < 2; s++)
		ASSERT_EQ(0, kev_create(0, classes[s],
					POSIX_TRACE_CLOSE_FOR_CHILD, &trid[s]));
	/* A signal handled, and a child forked and reaped. */
	ASSERT_EQ(0, kill(getpid(), SIGUSR1));
	c = fork();
	ASSERT_LE(0, c);
	if (!c)
		_exit(0);
	ASSERT_EQ(c, waitpid(c, &status, 0));
	for (s = 0; s < 2; s++) {
		ASSERT_EQ(0, kevs_stop_read(trid[s], &l[s]));
		for (i = 0; i < l[s].n; i++) {
			trace_event_id_t id = l[s].ev[i].info.posix_event_id;

			if (!kev_kernel(id))
				continue;
			if (kev_class(id) & classes[s])
				own[s]++;
			else
				other[s]++;
		}
		kevs_free(&l[s]);
		ASSERT_EQ(0, posix_trace_shutdown(trid[s]));
	}
	/* Generated and delivered; the fork (the child is not traced). */
	EXPECT_LE(2, own[0]);
	EXPECT_LE(1, own[1]);
	EXPECT_EQ(0, other[0]);
	EXPECT_EQ(0, other[1]);
	signal(SIGUSR1, SIG_DFL);
}

TEST_HARNESS_MAIN
