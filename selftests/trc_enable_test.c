// SPDX-License-Identifier: GPL-2.0
/*
 * The enable page holds only what a process may record: a type's bit is set
 * when some stream tracing the process admits it (running, or stopped
 * because full) and the process may make it: the unnamed type, and the
 * names of its table (shared by its family under inheritance). So an
 * identifier never opened is never enabled, and a thread ring never holds
 * an event the module would ignore. A name opened while streams run is
 * enabled, in every process sharing the table, before the open returns:
 * an event of it made at once, by the opening thread or by another
 * process of the family that learns the identifier, is recorded, as it
 * always was. What ends up recorded is what it was before the page was
 * limited: an identifier never opened records nothing and loses nothing.
 *
 * Processes synchronise through pipes; forked children never use the
 * harness's ASSERTs (they exit with a code saying what went wrong). No
 * test sleeps to let something happen.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <posixtrace-k.h>

#include "trc_common.h"

#define ID_MAX		POSIXTRACE_EVENT_ID_MAX

/* ---- helpers ---------------------------------------------------------- */

/*
 * The first id whose bit is not what a running stream without a filter
 * makes it in a process whose names are POSIXTRACE_EVENT_USER_BASE ..
 * last (POSIX_TRACE_UNNAMED_USEREVENT: none): set for those and the
 * unnamed type, clear for every other; -1 if none differs.
 */
static int page_diff(const struct posixtrace_enable_page *ep,
		     trace_event_id_t last)
{
	bool valid;
	uint32_t id;

	for (id = 0; id < ID_MAX; id++) {
		valid = id == POSIX_TRACE_UNNAMED_USEREVENT ||
			(id >= POSIXTRACE_EVENT_USER_BASE && id <= last);
		if (enabled(ep, id) != valid)
			return id;
	}
	return -1;
}

/* The first id whose bit is set, or -1. */
static int first_set(const struct posixtrace_enable_page *ep)
{
	uint32_t id;

	for (id = 0; id < ID_MAX; id++)
		if (enabled(ep, id))
			return id;
	return -1;
}

#define ASSERT_PAGE(ep, last) do {					\
	int _id = page_diff((ep), (last));				\
	ASSERT_EQ(-1, _id) {						\
		TH_LOG("enable bit of type %d is %d (names up to %d)",	\
		       _id, enabled((ep), _id), (int)(last));		\
	}								\
} while (0)

/* A user event whose data is the uint32_t n. */
static void emit(trace_event_id_t id, uint32_t n)
{
	posix_trace_event(id, &n, sizeof(n));
}

#define ASSERT_NEXT_USER(trid, r, id, n) do {				\
	uint32_t _n;							\
	ASSERT_NEXT(trid, r, id);					\
	ASSERT_EQ(sizeof(_n), (r)->len);				\
	memcpy(&_n, (r)->data, sizeof(_n));				\
	ASSERT_EQ((uint32_t)(n), _n);					\
} while (0)

/* A user event of 4 bytes of data takes 72 bytes in a stream. */
#define USER_SIZE	(RECORD_SIZE + 8)

/* A stream on this process, 4 MiB, with the given inheritance; running. */
static int create_running(int inheritance, trace_id_t *trid, bool *created)
{
	trace_attr_t attr;
	int ret;

	ret = posix_trace_attr_init(&attr);
	if (!ret)
		ret = posix_trace_attr_setinherited(&attr, inheritance);
	if (!ret)
		ret = posix_trace_attr_setstreamsize(&attr, 4 << 20);
	if (!ret)
		ret = create_stream(&attr, trid, created);
	posix_trace_attr_destroy(&attr);
	if (!ret)
		ret = posix_trace_start(*trid);
	return ret;
}

FIXTURE(enb) {
	int dev;
	const struct posixtrace_enable_page *ep;
	trace_id_t trid;
	trace_event_id_t a;
	bool created;
};

/* The page mapped, one name opened, no stream yet. */
FIXTURE_SETUP(enb)
{
	self->created = false;
	self->dev = -1;
	self->ep = NULL;
	SKIP_WITHOUT_DEVICE();
	self->dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev);
	self->ep = map_page(self->dev);
	ASSERT_NE(NULL, self->ep);
	ASSERT_EQ(POSIXTRACE_ENABLE_MAGIC, self->ep->magic);
	ASSERT_EQ(0, posix_trace_eventid_open("enb.a", &self->a));
	ASSERT_LE(POSIXTRACE_EVENT_USER_BASE, self->a);
}

FIXTURE_TEARDOWN(enb)
{
	if (self->created)
		posix_trace_shutdown(self->trid);
	if (self->ep)
		munmap((void *)self->ep, page_size());
	if (self->dev >= 0)
		close(self->dev);
}

/* ---- the page: valid identifiers only --------------------------------- */

/*
 * A stream without a filter admits every type, but only the unnamed type
 * and the names the process opened are enabled: no system type, no
 * identifier past the last name. A name opened while it runs is enabled
 * when the open returns.
 */
TEST_F(enb, no_filter_stream_enables_only_opened_names_and_unnamed)
{
	trace_event_id_t b, c;

	ASSERT_EQ(0, create_running(POSIX_TRACE_CLOSE_FOR_CHILD, &self->trid,
				    &self->created));
	ASSERT_PAGE(self->ep, self->a);
	ASSERT_FALSE(enabled(self->ep, self->a + 1));

	ASSERT_EQ(0, posix_trace_eventid_open("enb.b", &b));
	ASSERT_EQ(self->a + 1, b);
	ASSERT_PAGE(self->ep, b);
	/* Opened by the controller (here the process itself), on the trid. */
	ASSERT_EQ(0, posix_trace_trid_eventid_open(self->trid, "enb.c", &c));
	ASSERT_EQ(b + 1, c);
	ASSERT_PAGE(self->ep, c);
	/* An existing name changes nothing. */
	ASSERT_EQ(0, posix_trace_eventid_open("enb.a", &b));
	ASSERT_EQ(self->a, b);
	ASSERT_PAGE(self->ep, c);

	/* Stopped: nothing; started again: the same set. */
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_EQ(-1, first_set(self->ep));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_PAGE(self->ep, c);
}

/* A name opened while no stream runs is enabled once one starts. */
TEST_F(enb, name_opened_while_suspended_is_enabled_at_start)
{
	trace_event_id_t b;

	ASSERT_EQ(0, create_stream(NULL, &self->trid, &self->created));
	ASSERT_EQ(0, posix_trace_eventid_open("enb.b", &b));
	ASSERT_EQ(-1, first_set(self->ep));
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_PAGE(self->ep, b);
}

/*
 * Filling the table: each name is enabled as it is opened, up to the
 * last identifier there is; past that the open gives the unnamed type,
 * which is recorded.
 */
TEST_F(enb, every_name_up_to_a_full_table_is_enabled_as_opened)
{
	trace_event_id_t id, last = self->a;
	char name[32];
	struct rec r;
	int i;

	ASSERT_EQ(0, create_running(POSIX_TRACE_CLOSE_FOR_CHILD, &self->trid,
				    &self->created));
	for (i = 0;; i++) {
		snprintf(name, sizeof(name), "enb.full.%d", i);
		ASSERT_EQ(0, posix_trace_eventid_open(name, &id));
		if (id == POSIX_TRACE_UNNAMED_USEREVENT)
			break;
		ASSERT_EQ(last + 1, id);
		ASSERT_TRUE(enabled(self->ep, id));
		ASSERT_FALSE(id + 1 < ID_MAX && enabled(self->ep, id + 1));
		last = id;
	}
	ASSERT_EQ(ID_MAX - 1, last);
	ASSERT_PAGE(self->ep, last);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	emit(last, 1);
	emit(id, 2);
	ASSERT_NEXT_USER(self->trid, &r, last, 1);
	ASSERT_NEXT_USER(self->trid, &r, POSIX_TRACE_UNNAMED_USEREVENT, 2);
	ASSERT_EMPTY(self->trid, &r);
}

/* ---- recorded at once ------------------------------------------------- */

/*
 * Names opened after the stream started, each recorded by the same
 * thread right after its open returned: by eventid_open, with a format,
 * and by the controller on the trid.
 */
TEST_F(enb, name_opened_after_start_is_recorded_at_once)
{
	trace_event_id_t ids[40];
	char name[32];
	struct rec r;
	int i, ret;

	ASSERT_EQ(0, create_running(POSIX_TRACE_CLOSE_FOR_CHILD, &self->trid,
				    &self->created));
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "enb.now.%d", i);
		if (i % 4 == 1)
			ret = posixtrace_k_eventid_open_format(name, "n:u32",
							       &ids[i]);
		else if (i % 4 == 2)
			ret = posix_trace_trid_eventid_open(self->trid, name,
							    &ids[i]);
		else
			ret = posix_trace_eventid_open(name, &ids[i]);
		emit(ids[i], i);
		ASSERT_EQ(0, ret);
		ASSERT_NE(POSIX_TRACE_UNNAMED_USEREVENT, ids[i]);
	}
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	for (i = 0; i < 40; i++)
		ASSERT_NEXT_USER(self->trid, &r, ids[i], i);
	ASSERT_NEXT_STOP(self->trid, &r, 0);
	ASSERT_EMPTY(self->trid, &r);
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
}

/*
 * What a forked child of a family traced with inheritance reports: the
 * identifier it opened, and whether the parent's name (opened after the
 * child's) was enabled in its page when it learned it.
 */
enum { CHILD_OK, CHILD_NO_PAGE, CHILD_OPEN, CHILD_PIPE, CHILD_NOT_ENABLED };

static void family_child(int from_parent, int to_parent)
{
	const struct posixtrace_enable_page *ep;
	trace_event_id_t mine, parents;
	int dev;

	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ep = dev < 0 ? NULL : map_page(dev);
	if (!ep)
		_exit(CHILD_NO_PAGE);
	/* A name new to the family, recorded at once. */
	if (posix_trace_eventid_open("enb.child", &mine) ||
	    mine == POSIX_TRACE_UNNAMED_USEREVENT)
		_exit(CHILD_OPEN);
	emit(mine, 1);
	if (!put(to_parent, &mine, sizeof(mine)) ||
	    !get(from_parent, &parents, sizeof(parents)))
		_exit(CHILD_PIPE);
	/* The parent's new name: enabled here before the parent said it. */
	if (!enabled(ep, parents))
		_exit(CHILD_NOT_ENABLED);
	emit(parents, 2);
	_exit(CHILD_OK);
}

/*
 * TRI: parent and child share one table. A name the child opens is
 * enabled in the parent's page too before the child's open returns: the
 * child's event of it, and the parent's made as soon as it learns the
 * identifier, are both recorded; and the other way round.
 */
TEST_F(enb, name_opened_in_a_family_is_recorded_at_once_in_every_process)
{
	trace_event_id_t childs, parents;
	int down[2], up[2], status, got[4] = { 0 };
	uint32_t n;
	struct rec r;
	pid_t pid;

	ASSERT_EQ(0, create_running(POSIX_TRACE_INHERITED, &self->trid,
				    &self->created));
	ASSERT_EQ(0, pipe(down));
	ASSERT_EQ(0, pipe(up));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		family_child(down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);

	ASSERT_TRUE(get(up[0], &childs, sizeof(childs)));
	ASSERT_EQ(self->a + 1, childs);
	ASSERT_TRUE(enabled(self->ep, childs));
	emit(childs, 3);
	ASSERT_EQ(0, posix_trace_eventid_open("enb.parent", &parents));
	ASSERT_EQ(childs + 1, parents);
	emit(parents, 4);
	ASSERT_TRUE(put(down[1], &parents, sizeof(parents)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(CHILD_OK, WEXITSTATUS(status));
	close(down[1]);
	close(up[0]);

	/* Each once, by whom it says; the order between processes is time's. */
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	for (;;) {
		ASSERT_EQ(0, try_next(self->trid, &r));
		ASSERT_EQ(0, r.unavailable);
		if (r.info.posix_event_id == POSIX_TRACE_STOP)
			break;
		ASSERT_EQ(sizeof(n), r.len);
		memcpy(&n, r.data, sizeof(n));
		ASSERT_TRUE(n >= 1 && n <= 4) {
			TH_LOG("event %d with data %u",
			       (int)r.info.posix_event_id, n);
		}
		ASSERT_EQ(n % 2 ? childs : parents, r.info.posix_event_id);
		ASSERT_EQ(n <= 2 ? pid : getpid(), r.info.posix_pid);
		got[n - 1]++;
	}
	ASSERT_EMPTY(self->trid, &r);
	ASSERT_TRUE(got[0] == 1 && got[1] == 1 && got[2] == 1 && got[3] == 1) {
		TH_LOG("events 1 to 4 recorded %d, %d, %d and %d times",
		       got[0], got[1], got[2], got[3]);
	}
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
}

/*
 * A thread opens names and records each at once while the main thread
 * keeps republishing the page: filter changes that admit every user type,
 * and a second stream created, started and shut down. Every event is
 * recorded in the first stream: a publication racing with a new name never
 * leaves the name disabled.
 */
#define RACE_NAMES	300

struct opener {
	atomic_int done;
	atomic_int changes;		/* the main thread's, so far */
	trace_event_id_t ids[RACE_NAMES];
	int err;
};

/* One name per filter change, so that opens spread over them. */
static void *opener_thread(void *arg)
{
	struct opener *o = arg;
	char name[32];
	int i, seen;

	for (i = 0; i < RACE_NAMES && !o->err; i++) {
		seen = atomic_load(&o->changes);
		snprintf(name, sizeof(name), "enb.race.%d", i);
		o->err = posix_trace_eventid_open(name, &o->ids[i]);
		emit(o->ids[i], i);
		while (atomic_load(&o->changes) == seen)
			sched_yield();
	}
	atomic_store(&o->done, 1);
	return NULL;
}

TEST_F(enb, names_opened_while_the_page_is_republished_are_recorded)
{
	trace_event_set_t f[2];
	struct opener o = { 0 };
	trace_id_t other;
	pthread_t thr;
	struct rec r;
	int i, changes = 0;

	/* Both filters admit every user type: only FILTER events differ. */
	ASSERT_EQ(0, posix_trace_eventset_empty(&f[0]));
	ASSERT_EQ(0, posix_trace_eventset_empty(&f[1]));
	ASSERT_EQ(0, posix_trace_eventset_add(POSIX_TRACE_FLUSH_START, &f[1]));
	ASSERT_EQ(0, create_running(POSIX_TRACE_CLOSE_FOR_CHILD, &self->trid,
				    &self->created));
	ASSERT_EQ(0, pthread_create(&thr, NULL, opener_thread, &o));
	while (!atomic_load(&o.done)) {
		ASSERT_EQ(0, posix_trace_set_filter(self->trid, &f[changes % 2],
						    POSIX_TRACE_SET_EVENTSET));
		if (changes % 8 == 0) {
			ASSERT_EQ(0, posix_trace_create(0, NULL, &other));
			ASSERT_EQ(0, posix_trace_start(other));
			ASSERT_EQ(0, posix_trace_shutdown(other));
		}
		atomic_store(&o.changes, ++changes);
	}
	ASSERT_EQ(0, pthread_join(thr, NULL));
	ASSERT_EQ(0, o.err);
	ASSERT_EQ(0, posix_trace_stop(self->trid));

	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	for (i = 0; i < RACE_NAMES;) {
		ASSERT_EQ(0, try_next(self->trid, &r));
		ASSERT_EQ(0, r.unavailable) {
			TH_LOG("%d events of %d recorded (%d changes)", i,
			       RACE_NAMES, changes);
		}
		if (r.info.posix_event_id == POSIX_TRACE_FILTER)
			continue;
		ASSERT_EQ(o.ids[i], r.info.posix_event_id) {
			TH_LOG("event %d of %d (%d changes)", i, RACE_NAMES,
			       changes);
		}
		i++;
	}
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	TH_LOG("%d filter changes while %d names were opened", changes,
	       RACE_NAMES);
}

/* ---- never opened: nothing recorded, nothing lost --------------------- */

/*
 * An UNTIL_FULL stream with room for START and two user events: events of
 * identifiers the process never opened, many more than would fill it, are
 * neither recorded nor counted lost, by the library or by the system call
 * (which says EINVAL, as it always did); their bits are clear.
 */
TEST_F(enb, never_opened_ids_record_nothing_and_lose_nothing)
{
	const trace_event_id_t bogus[] = {
		self->a + 1, self->a + 7, ID_MAX - 1, POSIX_TRACE_START,
		POSIX_TRACE_STOP,
	};
	struct posixtrace_event req = { .size = sizeof(req) };
	trace_attr_t attr;
	struct rec r;
	size_t i;
	int n;

	ASSERT_EQ(0, posix_trace_attr_init(&attr));
	ASSERT_EQ(0, posix_trace_attr_setmaxdatasize(&attr, 16));
	ASSERT_EQ(0, posix_trace_attr_setstreamsize(&attr,
				START_RECORD_SIZE + 2 * USER_SIZE));
	ASSERT_EQ(0, posix_trace_attr_setstreamfullpolicy(&attr,
							  POSIX_TRACE_UNTIL_FULL));
	ASSERT_EQ(0, create_stream(&attr, &self->trid, &self->created));
	posix_trace_attr_destroy(&attr);
	ASSERT_EQ(0, posix_trace_start(self->trid));
	ASSERT_PAGE(self->ep, self->a);

	for (i = 0; i < sizeof(bogus) / sizeof(bogus[0]); i++) {
		ASSERT_FALSE(enabled(self->ep, bogus[i]));
		for (n = 0; n < 100; n++)
			emit(bogus[i], n);
		req.event_id = bogus[i];
		ASSERT_EQ(-1, ioctl(self->dev, POSIXTRACE_IOC_EVENT, &req));
		ASSERT_EQ(EINVAL, errno);
	}
	ASSERT_STATUS(self->trid, POSIX_TRACE_RUNNING, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	emit(self->a, 1);
	ASSERT_EQ(0, posix_trace_stop(self->trid));
	ASSERT_STATUS(self->trid, POSIX_TRACE_SUSPENDED, POSIX_TRACE_NOT_FULL,
		      POSIX_TRACE_NO_OVERRUN);
	ASSERT_NEXT(self->trid, &r, POSIX_TRACE_START);
	ASSERT_NEXT_USER(self->trid, &r, self->a, 1);
	ASSERT_NEXT_STOP(self->trid, &r, 0);
	ASSERT_EMPTY(self->trid, &r);
}

TEST_HARNESS_MAIN
