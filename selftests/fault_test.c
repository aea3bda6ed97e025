// SPDX-License-Identifier: GPL-2.0
/*
 * fault_test: the module's failure points on the paths of its ABI, failed
 * one at a time (issue 32), under a kernel with fault injection (the debug
 * kernel's: FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_USERCOPY and the
 * stack-trace filter); skipped elsewhere.
 *
 * failslab, fail_page_alloc and fail_usercopy count only calls made with
 * the module's text on the stack (require-start/require-end, the module's
 * text as /proc/kallsyms has it), GFP_KERNEL ones included. For each
 * operation below, in turn with N = 1, 2, ...: the state it needs is set
 * up, N is written to this thread's fail-nth, so that the module's Nth
 * allocation or user copy from then on fails, and the operation runs.
 * Reading fail-nth back says whether the failure happened; if not, the
 * operation reached fewer than N failure points and the walk of it ends
 * (it must then have succeeded). Each failure must give a clean error
 * number (or be absorbed: the operation succeeds all the same), leave
 * nothing recorded missing without a count, and leave the stream and the
 * process usable: what the operation did is checked afterwards, with no
 * failure injected. Leaks and splats are the guest's to find (init.sh's
 * kmemleak scan and taint check after every test).
 *
 * What runs in the module's kernel threads and workers (a log's writer,
 * the notification worker) or in a child before it runs is not this
 * task's, and fail-nth does not reach it: every_call_site_fails_in_turn
 * fails those sites once each with make-it-fail (fail_elsewhere()), and,
 * for the operations whose work goes on there, also the sites other
 * operations' own tasks reach.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault_common.h"
#include "kevent_common.h"
#include "nl_common.h"
#include "trc_common.h"
#include "trl_common.h"

#define MAX_POINTS	256
#define EVENTS		32
/* Failures each fault type may inject: its count down says which did. */
#define FAULT_TIMES	"1000000000"

/* Failures fault type @dir may still inject: one fewer per failure. */
static long fault_times(int dir)
{
	char path[128], text[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/times", fault_dirs[dir]);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return atol(text);
}

/* Every fault type on, counted only in the module's text; false: skip. */
static bool faults_setup(void)
{
	unsigned long start, end;

	return fault_injection_here() && module_text(&start, &end) &&
	       faults_within(start, end) && faults_by_fail_nth(FAULT_TIMES);
}

/* An error a failed allocation or copy may give. */
static bool clean_error(int err)
{
	return err == ENOMEM || err == EFAULT || err == EAGAIN ||
	       err == ENOSPC || err == EINTR;
}

/*
 * An operation's error @ret that the failure does not explain: none was
 * injected (!@failed), or the error is not a clean one. 0 never is.
 */
static bool unexplained_error(int ret, bool failed)
{
	return ret && (!failed || !clean_error(ret));
}

/* One operation: its state, the call failed into, the check after. */
struct op {
	const char *name;
	int (*prepare)(void);
	int (*act)(void);
	/* After the act (failed or not, @failed saying which): 0 if sound. */
	int (*verify)(int act_ret, bool failed);
	void (*cleanup)(void);
	/*
	 * Its work goes on in another task (a worker, the log's thread, a
	 * child): failed there too at sites its own task does not reach,
	 * though other operations' tasks do (elsewhere_site()).
	 */
	bool elsewhere;
};

/*
 * An act may fail a child it makes instead (fresh_act()): it takes the
 * walk's failure point off this thread, says so in act_in_child, and the
 * child's failure came if child_fired.
 */
static int walk_n;
static bool act_in_child, child_fired;

static trace_id_t trid, trid2;
static bool have_trid, have_trid2;
static trace_event_id_t ev_id;
static int log_fd = -1;
static int name_serial;
static pid_t child;

/*
 * What a stream keeps of an event's data (its maximum data size): the
 * events here carry 8 bytes. LONG_DATA's stream keeps more.
 */
#define MAX_DATA	64

/*
 * A stream's attributes: @policy when full, 64 KiB, @data bytes kept of
 * an event, @inheritance across fork().
 */
static int make_attr(trace_attr_t *attr, int policy, size_t data,
		     int inheritance)
{
	int err = posix_trace_attr_init(attr);

	if (!err)
		err = posix_trace_attr_setstreamfullpolicy(attr, policy);
	if (!err)
		err = posix_trace_attr_setstreamsize(attr, 64 * 1024);
	if (!err)
		err = posix_trace_attr_setmaxdatasize(attr, data);
	if (!err)
		err = posix_trace_attr_setinherited(attr, inheritance);
	return err;
}

/*
 * posix_trace_create() of a LOOP stream into *@t, made with make_attr()'s
 * attributes; *@made says whether shut() has it to shut down.
 */
static int loop_stream(trace_id_t *t, bool *made, size_t data,
		       int inheritance)
{
	trace_attr_t attr;
	int err = make_attr(&attr, POSIX_TRACE_LOOP, data, inheritance);

	*made = false;
	if (!err)
		err = create_stream(&attr, t, made);
	posix_trace_attr_destroy(&attr);
	return err;
}

static void shut(void)
{
	if (have_trid)
		posix_trace_shutdown(trid);
	if (have_trid2)
		posix_trace_shutdown(trid2);
	have_trid = have_trid2 = false;
	if (log_fd >= 0)
		close(log_fd);
	log_fd = -1;
}

static int nothing(void)
{
	return 0;
}

/*
 * Events recorded: the first ones map the thread's ring (its pages), the
 * rest go through it or, if it could not be had, by system call. None
 * may go missing.
 */
static int events_act(void)
{
	uint64_t data;
	int i;

	for (i = 0; i < EVENTS; i++) {
		data = (uint64_t)i;
		posix_trace_event(ev_id, &data, sizeof(data));
	}
	return 0;
}

static int read_all(trace_id_t t, uint64_t *seen)
{
	struct posix_trace_event_info info;
	int err, unavailable;
	uint64_t data;
	size_t len;

	for (;;) {
		err = posix_trace_trygetnext_event(t, &info, &data,
						   sizeof(data), &len,
						   &unavailable);
		if (err || unavailable)
			return err;
		if (info.posix_event_id != ev_id)
			continue;
		if (data != *seen)
			return EPROTO;
		(*seen)++;
	}
}

/* A stream now works: it records events and gives them back in order. */
static int stream_works(trace_id_t t)
{
	uint64_t seen = 0;
	int err = posix_trace_start(t);

	if (!err)
		err = events_act();
	if (!err)
		err = read_all(t, &seen);
	return err ? err : seen == EVENTS ? 0 : EPROTO;
}

/* posix_trace_create(): a stream, or a clean error and none. */
static int create_act(void)
{
	return loop_stream(&trid, &have_trid, MAX_DATA,
			   POSIX_TRACE_CLOSE_FOR_CHILD);
}

static int create_verify(int ret, bool failed)
{
	if (unexplained_error(ret, failed))
		return -1;
	/* None was made; one is now. */
	if (ret && create_act())
		return -1;
	return stream_works(trid);
}

/* posix_trace_create_withlog(): the log's file and its header too. */
static int log_policy;

static int withlog_prepare(void)
{
	log_policy = POSIX_TRACE_APPEND;
	log_fd = tmp_log();
	return log_fd < 0 ? errno : 0;
}

/* A log of a fixed size (LOOP): its space reserved at create. */
static int loop_log_prepare(void)
{
	int err = withlog_prepare();

	log_policy = POSIX_TRACE_LOOP;
	return err;
}

static int withlog_act(void)
{
	trace_attr_t attr;
	int err = make_attr(&attr, POSIX_TRACE_FLUSH, MAX_DATA,
			    POSIX_TRACE_CLOSE_FOR_CHILD);

	if (!err)
		err = posix_trace_attr_setlogfullpolicy(&attr, log_policy);
	if (!err && log_policy == POSIX_TRACE_LOOP)
		err = posix_trace_attr_setlogsize(&attr, 256 * 1024);
	if (!err)
		err = posix_trace_create_withlog(0, &attr, log_fd, &trid);
	posix_trace_attr_destroy(&attr);
	have_trid = !err;
	return err;
}

static int withlog_verify(int ret, bool failed)
{
	struct logbuf lb;
	uint64_t seen = 0;
	int i, err;

	if (unexplained_error(ret, failed))
		return -1;
	/* The same file takes a log after all. */
	if (ret && (ftruncate(log_fd, 0) || withlog_act()))
		return -1;
	/* Events in, the stream shut down: all of them in the log. */
	err = posix_trace_start(trid);
	if (!err)
		err = events_act();
	if (!err)
		err = posix_trace_shutdown(trid);
	have_trid = false;
	if (err || read_log(log_fd, &lb))
		return -1;
	for (i = 0; i < lb.n; i++)
		if (!strcmp(lb.ev[i].name, "fault.work") &&
		    ev_num(&lb.ev[i]) == seen)
			seen++;
	free_log(&lb);
	return seen == EVENTS ? 0 : -1;
}

/*
 * eventid_open() of a name new to the process, or (typed payloads) the
 * same with a format: the format copied in, kept.
 */
#define TYPED_FORMAT	"n:u32,what:str"

static trace_event_id_t new_id;
static char new_name[32];
static bool new_typed;

static int new_open(trace_event_id_t *id)
{
	return new_typed ?
	       posixtrace_k_eventid_open_format(new_name, TYPED_FORMAT, id) :
	       posix_trace_eventid_open(new_name, id);
}

static int eventid_prepare(void)
{
	snprintf(new_name, sizeof(new_name), "fault.%d", ++name_serial);
	new_typed = false;
	return 0;
}

static int format_prepare(void)
{
	int err = eventid_prepare();

	new_typed = true;
	return err;
}

static int eventid_act(void)
{
	return new_open(&new_id);
}

static int eventid_verify(int ret, bool failed)
{
	trace_event_id_t again;

	if (unexplained_error(ret, failed))
		return -1;
	/* Opened now (or then): the same id every time after. */
	if (new_open(&again))
		return -1;
	return !ret && again != new_id ? -1 : 0;
}

/* A stream running, for the operations on one. */
static int running_prepare(void)
{
	int err = create_act();

	if (!err)
		err = posix_trace_start(trid);
	return err;
}

/*
 * Events by system call, the request made by hand (as the library makes
 * it when the thread has no ring), so that the call's error is seen: a
 * failure in reading the request or its data refuses the call (EFAULT),
 * and only that event may then be missing, uncounted, for the module
 * never had it. Any other failure is a clean error with the event
 * counted lost, or absorbed. With 8 bytes of data, the event takes the
 * short way (the stack); with LONG_DATA, more than the stack holds and a
 * stream keeping it, the long way (the heap).
 */
#define LONG_DATA	200

static int raw_hit = -1;	/* the event the failure came in, or -1 */
static int raw_dev = -1;	/* opened before, not in, the act */

static int raw_dev_open(void)
{
	if (raw_dev < 0)
		raw_dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	return raw_dev < 0 ? errno : 0;
}

static int raw_prepare(void)
{
	int err = raw_dev_open();

	return err ? err : running_prepare();
}

static int raw_events(uint32_t flags, size_t len)
{
	unsigned char data[LONG_DATA] = { 0 };
	struct posixtrace_event ev = {
		.size = sizeof(ev),
		.flags = flags,
		.event_id = ev_id,
		.data_len = len,
		.data = (uintptr_t)data,
	};
	int i, ret = 0;
	uint64_t n;

	raw_hit = -1;
	for (i = 0; i < EVENTS; i++) {
		n = (uint64_t)i;
		memcpy(data, &n, sizeof(n));
		if (ioctl(raw_dev, POSIXTRACE_IOC_EVENT, &ev) && !ret)
			ret = errno;
		if (raw_hit < 0 && fail_nth_fired())
			raw_hit = i;
	}
	return ret;
}

static int raw_small_act(void)
{
	return raw_events(0, sizeof(uint64_t));
}

static int raw_ringless_act(void)
{
	return raw_events(POSIXTRACE_EVENT_RINGLESS, sizeof(uint64_t));
}

static int raw_long_act(void)
{
	return raw_events(POSIXTRACE_EVENT_RINGLESS, LONG_DATA);
}

/* A running stream that keeps LONG_DATA bytes of an event. */
static int long_prepare(void)
{
	int err = raw_dev_open();

	if (!err)
		err = loop_stream(&trid, &have_trid, LONG_DATA,
				  POSIX_TRACE_CLOSE_FOR_CHILD);
	if (!err)
		err = posix_trace_start(trid);
	return err;
}

/*
 * What came of the events: each in order, or refused (the one the failure
 * came in, if the call said EFAULT), or lost and counted: the stream's
 * sequence numbers skip exactly as many as went missing so (a sentinel
 * event, made with no failure, shows a gap after the last), and the
 * status says overrun.
 */
static int raw_verify(int ret, bool failed)
{
	struct posix_trace_status_info st;
	struct posix_trace_event_info info;
	unsigned char data[LONG_DATA];
	int err, unavailable, refused = -1, missing = 0, i;
	uint64_t n, next = 0, seq, skipped = 0, prev_seq = 0;
	bool seen[EVENTS + 1] = { false }, first = true;
	size_t len;

	if (unexplained_error(ret, failed))
		return -1;
	if (ret == EFAULT)
		refused = raw_hit;
	n = EVENTS;
	posix_trace_event(ev_id, &n, sizeof(n));
	for (;;) {
		err = posix_trace_trygetnext_event(trid, &info, data,
						   sizeof(data), &len,
						   &unavailable);
		if (err)
			return -1;
		if (unavailable)
			break;
		if (posixtrace_k_event_seq(trid, &seq))
			return -1;
		/* OVERFLOW and RESUME carry the number of the one after. */
		if (!first && seq > prev_seq + 1)
			skipped += seq - prev_seq - 1;
		if (!first && seq < prev_seq)
			return -1;
		first = false;
		prev_seq = seq;
		if (info.posix_event_id != ev_id)
			continue;
		memcpy(&n, data, sizeof(n));
		if (n < next || n > EVENTS)
			return -1;
		seen[n] = true;
		next = n + 1;
	}
	if (!seen[EVENTS])
		return -1;
	for (i = 0; i < EVENTS; i++)
		missing += !seen[i] && i != refused;
	if (skipped != (uint64_t)missing)
		return -1;
	if (!missing)
		return 0;
	/* Lost: only by a failure, and said. */
	if (!failed || posix_trace_get_status(trid, &st) ||
	    st.posix_stream_overrun_status != POSIX_TRACE_OVERRUN)
		return -1;
	return 0;
}

/* Does the module map thread rings (its max_ring_size is not 0)? */
static bool rings_on(void)
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
 * A new thread's events through the library: its ring is mapped at its
 * first event, a page, and grows (a larger mapping, the records moved) as
 * they come. The thread sets its own fail-nth. Every event is read back,
 * in order, or counted lost (the sequence numbers skip as many, the
 * overrun status set), and only with a failure; with the rings off, one
 * may be refused instead (raw_verify()).
 */
#define GROW_EVENTS	400

/* Events 0 to @arg - 1 (a count) from a thread that sets its fail-nth. */
static void *numbered_thread(void *arg)
{
	uint64_t i, n = (uintptr_t)arg;

	fail_nth(walk_n);
	for (i = 0; i < n; i++)
		posix_trace_event(ev_id, &i, sizeof(i));
	child_fired = fail_nth_done();
	return NULL;
}

/* @n events from a new thread, the walk's failure point in it. */
static int thread_act(uint64_t n)
{
	pthread_t thr;

	fail_nth(0);
	act_in_child = true;
	child_fired = false;
	/* No ring: its events would be @n system calls' points. */
	if (!rings_on())
		return 0;
	if (pthread_create(&thr, NULL, numbered_thread, (void *)(uintptr_t)n))
		return EAGAIN;
	return pthread_join(thr, NULL) ? EPROTO : 0;
}

static int grow_act(void)
{
	return thread_act(GROW_EVENTS);
}

static int grow_verify(int ret, bool failed)
{
	struct posix_trace_status_info st;
	struct posix_trace_event_info info;
	uint64_t n, next = 0, seq, prev_seq = 0, skipped = 0, read = 0;
	int err, unavailable;
	bool first = true;
	size_t len;

	if (ret)
		return -1;
	if (!rings_on())
		return 0;
	/* A last one, after them: a gap at their end shows before it. */
	n = GROW_EVENTS;
	posix_trace_event(ev_id, &n, sizeof(n));
	for (;;) {
		err = posix_trace_trygetnext_event(trid, &info, &n, sizeof(n),
						   &len, &unavailable);
		if (err || (!unavailable && posixtrace_k_event_seq(trid, &seq)))
			return -1;
		if (unavailable)
			break;
		if (!first && seq > prev_seq + 1)
			skipped += seq - prev_seq - 1;
		first = false;
		prev_seq = seq;
		if (info.posix_event_id != ev_id)
			continue;
		if (n < next || n > GROW_EVENTS)
			return -1;
		next = n + 1;
		read += n < GROW_EVENTS;
	}
	/*
	 * With the rings off, events go by system call: the one whose request
	 * the module could not read was refused, and is missing uncounted.
	 */
	if (next != GROW_EVENTS + 1 || skipped > GROW_EVENTS - read ||
	    GROW_EVENTS - read - skipped > (failed ? 1 : 0))
		return -1;
	if (read == GROW_EVENTS || !skipped)
		return 0;
	return failed && !posix_trace_get_status(trid, &st) &&
	       st.posix_stream_overrun_status == POSIX_TRACE_OVERRUN ? 0 : -1;
}

/*
 * A new thread's events, many times what the LOOP stream holds, the only
 * stream of the process: once its ring has grown to the size the stream
 * suggests, each kick drops, in the thread's own call, what the stream
 * would overwrite, the kick's walk and cut state allocated there (without
 * waiting: GFP_NOWAIT) at its first. The thread sets its own fail-nth.
 * After the stop, every event is read, in order, or counted lost; with a
 * failure, one may be refused instead (raw_verify()).
 */
#define KICK_EVENTS	5000

static int kick_act(void)
{
	return thread_act(KICK_EVENTS);
}

static int kick_verify(int ret, bool failed)
{
	struct posix_trace_event_info info;
	struct posixtrace_status st;
	uint64_t n, next = 0, user = 0, other = 0;
	int err, unavailable;
	size_t len;

	if (ret)
		return -1;
	if (!rings_on())
		return 0;
	if (posix_trace_stop(trid))
		return -1;
	for (;;) {
		err = posix_trace_trygetnext_event(trid, &info, &n, sizeof(n),
						   &len, &unavailable);
		if (err)
			return -1;
		if (unavailable)
			break;
		if (info.posix_event_id == ev_id) {
			if (n < next || n >= KICK_EVENTS)
				return -1;
			next = n + 1;
			user++;
		} else if (info.posix_event_id == POSIX_TRACE_START ||
			   info.posix_event_id == POSIX_TRACE_STOP) {
			other++;
		}
	}
	if (own_stream_status(&st))
		return -1;
	/* START, the events (but one refused, with a failure), STOP. */
	if (st.events_recorded != KICK_EVENTS + 2 &&
	    (!failed || st.events_recorded != KICK_EVENTS + 1))
		return -1;
	return st.events_recorded == user + other + st.events_lost ? 0 : -1;
}

/* A stream holding EVENTS events, read: a batch copied out. */
static int filled_prepare(void)
{
	int err = running_prepare();

	if (!err)
		err = events_act();
	return err;
}

static uint64_t read_seen;

static int getnext_act(void)
{
	read_seen = 0;
	return read_all(trid, &read_seen);
}

/*
 * The rest read in order after a gap, if any: the events a failed copy
 * out lost must be counted (an overrun) and shown where they were (the
 * LOOP stream's OVERFLOW before the next event).
 */
static int read_rest(trace_id_t t, uint64_t *seen, bool *overflow)
{
	struct posix_trace_event_info info;
	int err, unavailable;
	uint64_t data;
	size_t len;

	for (;;) {
		err = posix_trace_trygetnext_event(t, &info, &data,
						   sizeof(data), &len,
						   &unavailable);
		if (err || unavailable)
			return err;
		if (info.posix_event_id == POSIX_TRACE_OVERFLOW)
			*overflow = true;
		if (info.posix_event_id != ev_id)
			continue;
		if (data < *seen || (data > *seen && !*overflow))
			return EPROTO;	/* out of order, or lost unsaid */
		*seen = data + 1;
	}
}

static int getnext_verify(int ret, bool failed)
{
	struct posix_trace_status_info st;
	bool overflow = false;

	if (unexplained_error(ret, failed))
		return -1;
	if (read_rest(trid, &read_seen, &overflow))
		return -1;
	if (read_seen == EVENTS && !overflow)
		return 0;
	/*
	 * Lost (the batch the failed read had taken, and nothing after it
	 * to say so in the stream if it was the last): counted all the
	 * same, in the status, and only by a failed read.
	 */
	if (!ret || posix_trace_get_status(trid, &st) ||
	    st.posix_stream_overrun_status != POSIX_TRACE_OVERRUN)
		return -1;
	return 0;
}

/* The filter set, copied in, and read back, copied out. */
static int filter_act(void)
{
	trace_event_set_t set, got;
	int err, member = 0;

	posix_trace_eventset_empty(&set);
	posix_trace_eventset_add(ev_id, &set);
	err = posix_trace_set_filter(trid, &set, POSIX_TRACE_SET_EVENTSET);
	if (!err)
		err = posix_trace_get_filter(trid, &got);
	if (!err)
		err = posix_trace_eventset_ismember(ev_id, &got, &member);
	return err ? err : member ? 0 : EPROTO;
}

/* A clean failure (or none), after which @act, done again, works. */
static int works_again(int ret, bool failed, int (*act)(void))
{
	if (unexplained_error(ret, failed))
		return -1;
	return act() ? -1 : 0;
}

/* Whatever stuck, setting it again works. */
static int filter_verify(int ret, bool failed)
{
	return works_again(ret, failed, filter_act);
}

/* The stream's event types listed (each name copied out). */
static int typelist_act(void)
{
	trace_event_id_t id;
	int unavailable = 0, n = 0, err;
	char name[TRACE_EVENT_NAME_MAX];

	err = posix_trace_eventtypelist_rewind(trid);
	/* The first few: each name is one more copy out of the same path. */
	while (!err && n < 4) {
		err = posix_trace_eventtypelist_getnext_id(trid, &id,
							   &unavailable);
		if (err || unavailable)
			break;
		err = posix_trace_eventid_get_name(trid, id, name);
		n++;
	}
	return err ? err : n ? 0 : EPROTO;
}

static int typelist_verify(int ret, bool failed)
{
	return works_again(ret, failed, typelist_act);
}

/* A second stream on the process: its links to the first's process. */
static int second_act(void)
{
	return loop_stream(&trid2, &have_trid2, MAX_DATA,
			   POSIX_TRACE_CLOSE_FOR_CHILD);
}

static int second_verify(int ret, bool failed)
{
	uint64_t seen = 0, seen2 = 0;

	if (unexplained_error(ret, failed))
		return -1;
	if (ret && second_act())
		return -1;
	/* Both record what the process makes, all of it, in order. */
	if (posix_trace_start(trid2))
		return -1;
	events_act();
	if (read_all(trid, &seen) || read_all(trid2, &seen2))
		return -1;
	return seen == EVENTS && seen2 == EVENTS ? 0 : -1;
}

/*
 * fork() under an inheriting stream: the module's fork hook links the
 * child. A failure there must not leave the parent's stream broken, and
 * the child runs either way (or fork fails cleanly).
 */
static int fork_prepare(void)
{
	return loop_stream(&trid, &have_trid, MAX_DATA, POSIX_TRACE_INHERITED);
}

static int fork_act(void)
{
	child = fork();
	if (!child) {
		uint64_t data = 7;

		posix_trace_event(ev_id, &data, sizeof(data));
		_exit(0);
	}
	return child < 0 ? errno : 0;
}

static int fork_verify(int ret, bool failed)
{
	int status;

	if (unexplained_error(ret, failed))
		return -1;
	/* Forked: the child ran to its _exit(0). */
	if (!ret && (waitpid(child, &status, 0) != child ||
		     !WIFEXITED(status) || WEXITSTATUS(status)))
		return -1;
	return stream_works(trid);
}

/*
 * A process new to the module, failed in its first steps, which a process
 * takes once: its entry, names, enable page and drain domain, its
 * thread's ring (the library maps one at the first event, the rings on),
 * a stream. fail-nth is not inherited: the child sets its own, checks
 * what it recorded itself (raw_verify(), a failed request copy its only
 * refusal) and says in its exit status.
 */
enum { CHILD_FIRED = 1, CHILD_UNSOUND = 2, CHILD_REFUSED = 4 };

static int child_body(void)
{
	long copies = fault_times(FAIL_USERCOPY);
	uint64_t data;
	int err, i, status = 0;
	bool fired;

	have_trid = false;
	raw_hit = -1;
	fail_nth(walk_n);
	err = posix_trace_eventid_open("fault.child", &ev_id);
	if (!err)
		err = create_act();
	if (!err)
		err = posix_trace_start(trid);
	for (i = 0; !err && i < EVENTS; i++) {
		data = (uint64_t)i;
		posix_trace_event(ev_id, &data, sizeof(data));
		if (raw_hit < 0 && fail_nth_fired())
			raw_hit = i;
	}
	fired = fail_nth_done();
	status |= fired ? CHILD_FIRED : 0;
	if (err) {
		status |= CHILD_REFUSED;
		/* Refused cleanly; the process does it all now. */
		if (unexplained_error(err, fired))
			return status | CHILD_UNSOUND;
		shut();
		err = posix_trace_eventid_open("fault.child", &ev_id);
		if (!err)
			err = create_act();
		if (err || stream_works(trid))
			status |= CHILD_UNSOUND;
		return status;
	}
	/* An event whose request the module could not read: refused. */
	if (raw_verify(fault_times(FAIL_USERCOPY) < copies ? EFAULT : 0, fired))
		status |= CHILD_UNSOUND;
	return status;
}

static bool child_sound;

/* @body in a child, which sets its own fail-nth; its status read. */
static int in_fresh_child(int (*body)(void))
{
	int status;
	pid_t pid;

	fail_nth(0);
	act_in_child = true;
	child_fired = false;
	child_sound = false;
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid)
		_exit(body());
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return EPROTO;
	status = WEXITSTATUS(status);
	child_fired = status & CHILD_FIRED;
	child_sound = !(status & CHILD_UNSOUND);
	return status & CHILD_REFUSED ? ECANCELED : 0;
}

static int fresh_act(void)
{
	return in_fresh_child(child_body);
}

/*
 * A process whose first calls to the module are raw, as no library call
 * makes them: an EVENTID_OPEN before any mapping (the ioctl makes its
 * entry and names), then a thread ring mapped before any stream traces it
 * (the mapping makes its drain domain and heap).
 */
#define RAW_RING_BYTES	(64 << 10)

/* Map @len bytes of the device at @off, and unmap them: 0 or the errno. */
static int map_once(int dev, size_t len, int prot, off_t off)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, dev, off);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, len);
	return 0;
}

static int raw_first_calls(void)
{
	struct posixtrace_eventid eid = {
		.size = sizeof(eid),
		.name = (uintptr_t)"fault.raw",
	};
	size_t len = sysconf(_SC_PAGESIZE) + RAW_RING_BYTES;
	int dev = open(DEVICE, O_RDWR | O_CLOEXEC), err;

	if (dev < 0)
		return errno;
	/* The ring only where the module maps them. */
	err = ioctl(dev, POSIXTRACE_IOC_EVENTID_OPEN, &eid) ? errno :
	      !rings_on() ? 0 :
	      map_once(dev, len, PROT_READ | PROT_WRITE,
		       POSIXTRACE_RING_OFFSET);
	close(dev);
	return err;
}

/*
 * @calls failed at the walk's point: refused cleanly or done, and done
 * again after, with no failure.
 */
static int failed_calls_body(int (*calls)(void))
{
	int err, status = 0;
	bool fired;

	fail_nth(walk_n);
	err = calls();
	fired = fail_nth_done();
	status |= fired ? CHILD_FIRED : 0;
	if (err) {
		status |= CHILD_REFUSED;
		if (unexplained_error(err, fired))
			return status | CHILD_UNSOUND;
	}
	if (calls())
		status |= CHILD_UNSOUND;
	return status;
}

static int raw_child_body(void)
{
	return failed_calls_body(raw_first_calls);
}

/*
 * A process that dropped privileges since its names were made (root's,
 * shared with its root family): its next enable page mapping gives it a
 * table of its own (posixtrace_links_own_names()), then its raw calls.
 */
#define NOBODY	65534

static int dropped_calls(void)
{
	int dev = open(DEVICE, O_RDWR | O_CLOEXEC), err;

	if (dev < 0)
		return errno;
	err = map_once(dev, sysconf(_SC_PAGESIZE), PROT_READ,
		       POSIXTRACE_ENABLE_PAGE_OFFSET);
	close(dev);
	return err ? err : raw_first_calls();
}

static int dropped_child_body(void)
{
	trace_event_id_t id;

	/* Dumpable again, or its own fail-nth is root's to write. */
	if (posix_trace_eventid_open("fault.root", &id) || setgroups(0, NULL) ||
	    setgid(NOBODY) || setuid(NOBODY) || prctl(PR_SET_DUMPABLE, 1))
		return CHILD_UNSOUND;
	return failed_calls_body(dropped_calls);
}

static int fresh_dropped_act(void)
{
	if (geteuid()) {
		/* No root's names to drop: nothing to walk. */
		fail_nth(0);
		child_sound = true;
		return 0;
	}
	return in_fresh_child(dropped_child_body);
}

static int fresh_raw_act(void)
{
	return in_fresh_child(raw_child_body);
}

static int fresh_verify(int ret, bool failed)
{
	return child_sound && (ret == 0 || ret == ECANCELED) ? 0 : -1;
}

/*
 * A stream for another process, new to the module: the create makes the
 * target's entry and its table of names. The target waits for the end.
 */
static pid_t target = -1;
static int target_hold = -1;

static int target_prepare(void)
{
	int p[2];

	if (pipe(p))
		return errno;
	target = fork();
	if (target < 0) {
		close(p[0]);
		close(p[1]);
		return errno;
	}
	if (!target) {
		close(p[1]);
		wait_byte(p[0]);
		_exit(0);
	}
	close(p[0]);
	target_hold = p[1];
	return 0;
}

static int target_act(void)
{
	trace_attr_t attr;
	int err = make_attr(&attr, POSIX_TRACE_LOOP, MAX_DATA,
			    POSIX_TRACE_CLOSE_FOR_CHILD);

	have_trid = false;
	if (!err) {
		err = posix_trace_create(target, &attr, &trid);
		have_trid = !err;
	}
	posix_trace_attr_destroy(&attr);
	return err;
}

/* Made, or made now; it starts and records its START. */
static int target_verify(int ret, bool failed)
{
	struct posix_trace_event_info info;
	int unavailable;
	char data[64];
	size_t len;

	if (unexplained_error(ret, failed) || (ret && target_act()))
		return -1;
	if (posix_trace_start(trid) ||
	    posix_trace_trygetnext_event(trid, &info, data, sizeof(data),
					 &len, &unavailable) ||
	    unavailable || info.posix_event_id != POSIX_TRACE_START)
		return -1;
	return 0;
}

static void target_cleanup(void)
{
	shut();
	if (target_hold >= 0)
		close(target_hold);
	if (target > 0)
		waitpid(target, NULL, 0);
	target = -1;
	target_hold = -1;
}

/*
 * Monitoring over generic netlink: a dump of the streams and a GET of one
 * (the answers the module builds in the task), and the notifications a
 * listener gets, which the module's worker sends (elsewhere_site() fails
 * those): a notification not sent is told, the listener's next receive
 * failing with ENOBUFS.
 */
static struct nl mon;
static bool mon_ready;
static uint64_t mon_stream;	/* trid's stream id, as monitoring has it */

/* A u32 or u64 attribute of a family message; false if absent. */
static bool nl_attr(const struct nlmsghdr *nlh, uint16_t type, void *v,
		    size_t len)
{
	const struct nlattr *nla = (const void *)((const char *)NLMSG_DATA(nlh) +
						  GENL_HDRLEN);
	int rem = (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	for (; rem >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= rem;
	     rem -= NLA_ALIGN(nla->nla_len),
	     nla = (const void *)((const char *)nla + NLA_ALIGN(nla->nla_len)))
		if ((nla->nla_type & NLA_TYPE_MASK) == type &&
		    nla->nla_len == NLA_HDRLEN + len) {
			memcpy(v, (const char *)nla + NLA_HDRLEN, len);
			return true;
		}
	return false;
}

/* A dump's answer: the id of the stream this process made. */
static int mon_find(const struct nlmsghdr *nlh, void *ctx)
{
	uint32_t pid;
	uint64_t id;

	if (nl_attr(nlh, POSIXTRACE_NL_A_CREATOR_PID, &pid, sizeof(pid)) &&
	    pid == (uint32_t)getpid() &&
	    nl_attr(nlh, POSIXTRACE_NL_A_STREAM_ID, &id, sizeof(id)))
		*(uint64_t *)ctx = id;
	return 0;
}

/* The streams dumped; 0 or an error number, *id: this process's. */
static int mon_dump(uint64_t *id)
{
	struct result res;

	*id = 0;
	msg_begin(&mon, mon.family, NLM_F_REQUEST | NLM_F_DUMP,
		  POSIXTRACE_NL_CMD_GET);
	return -nl_transact(&mon, mon_find, id, &res);
}

/* A stream, and monitoring's name for it. */
static int mon_prepare(void)
{
	int err = 0;

	if (!mon_ready)
		err = -nl_open(&mon);
	mon_ready = !err;
	if (!err)
		err = create_act();
	if (!err)
		err = mon_dump(&mon_stream);
	return err ? err : mon_stream ? 0 : ENOENT;
}

static int dump_act(void)
{
	uint64_t id;

	return mon_dump(&id);
}

static int get_act(void)
{
	struct result res;

	msg_begin(&mon, mon.family, NLM_F_REQUEST | NLM_F_ACK,
		  POSIXTRACE_NL_CMD_GET);
	msg_u64(&mon, POSIXTRACE_NL_A_STREAM_ID, mon_stream);
	return -nl_transact(&mon, NULL, NULL, &res);
}

/* Refused cleanly or answered; the socket answers whole after. */
static int mon_verify(int ret, bool failed)
{
	uint64_t id;

	if (unexplained_error(ret, failed))
		return -1;
	return !mon_dump(&id) && id == mon_stream && !get_act() ? 0 : -1;
}

static struct nl listener = { .fd = -1 };

/* A listener to the notify group, then a stream (CREATED is news). */
static int notify_prepare(void)
{
	int err = mon_prepare(), group = (int)mon.group;

	if (!err)
		err = -nl_socket(&listener);
	if (!err && setsockopt(listener.fd, SOL_NETLINK,
			       NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)))
		err = errno;
	return err;
}

static int notify_act(void)
{
	return posix_trace_start(trid);
}

/* STARTED heard of, or (a failure only) that something was not. */
static int notify_verify(int ret, bool failed)
{
	const struct nlmsghdr *nlh;
	uint32_t event;
	uint64_t id;
	ssize_t n;
	size_t rem;

	if (ret)
		return -1;
	for (;;) {
		n = nl_recv(&listener, TIMEOUT_MS);
		if (n == -ENOBUFS)
			return failed ? 0 : -1;
		if (n < 0)
			return -1;
		nlh = (const struct nlmsghdr *)listener.rx;
		for (rem = n; NLMSG_OK(nlh, rem); nlh = NLMSG_NEXT(nlh, rem))
			if (nl_attr(nlh, POSIXTRACE_NL_A_STREAM_ID, &id,
				    sizeof(id)) && id == mon_stream &&
			    nl_attr(nlh, POSIXTRACE_NL_A_EVENT, &event,
				    sizeof(event)) &&
			    event == POSIXTRACE_NL_EV_STARTED)
				return 0;
	}
}

static void notify_cleanup(void)
{
	shut();
	nl_close(&listener);
}

/* A formatted type's format, copied out of a stream's type list. */
static trace_event_id_t fmt_id;

static int getformat_prepare(void)
{
	int err = running_prepare();

	if (!err)
		err = posixtrace_k_eventid_open_format("fault.typed",
						       TYPED_FORMAT, &fmt_id);
	return err;
}

static int getformat_act(void)
{
	char format[64];

	return posixtrace_k_eventid_get_format(trid, fmt_id, format,
					       sizeof(format));
}

static int getformat_verify(int ret, bool failed)
{
	if (unexplained_error(ret, failed))
		return -1;
	return getformat_act() ? -1 : stream_works(trid);
}

/*
 * A stream of the caller's kernel events of @classes into trid, running
 * if @start.
 */
static int kevents_stream(unsigned int classes, bool start)
{
	trace_attr_t attr;
	int err = make_attr(&attr, POSIX_TRACE_LOOP, MAX_DATA,
			    POSIX_TRACE_CLOSE_FOR_CHILD);

	have_trid = false;
	if (!err)
		err = posixtrace_k_attr_setkernelevents(&attr, classes);
	if (!err)
		err = create_stream(&attr, &trid, &have_trid);
	posix_trace_attr_destroy(&attr);
	if (!err && start)
		err = posix_trace_start(trid);
	return err;
}

/*
 * Creating a stream of the caller's signals (a kernel event class)
 * registers the class's tracepoint probes, whose failure must unwind the
 * classes already registered.
 */
static int kevents_act(void)
{
	return kevents_stream(POSIXTRACE_K_KERNEL_SIGNAL, false);
}

/* A signal made pending and taken back: one SIGNAL_GENERATE recorded. */
static int kevents_recorded(trace_id_t t)
{
	struct posix_trace_event_info info;
	int err, unavailable, generated = 0;
	sigset_t usr2, old;
	char data[256];
	size_t len;

	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &usr2, &old) || raise(SIGUSR2) ||
	    sigwaitinfo(&usr2, NULL) != SIGUSR2 ||
	    sigprocmask(SIG_SETMASK, &old, NULL))
		return EPROTO;
	for (;;) {
		err = posix_trace_trygetnext_event(t, &info, data,
						   sizeof(data), &len,
						   &unavailable);
		if (err || unavailable)
			break;
		generated += info.posix_event_id ==
			     POSIXTRACE_K_EVENT_SIGNAL_GENERATE;
	}
	return err ? err : generated == 1 ? 0 : EPROTO;
}

/*
 * No class on before each create. A class keeps its probes a while after
 * its last stream (kernel_probes_linger_ms, 10 s by default), and a
 * create meanwhile registers nothing: the walk would reach none of the
 * registration's points. The linger goes to 0; each create waits for the
 * class to go off (the module's count, in debugfs).
 */
static int kevents_prepare(void)
{
	if (!param_write(LINGER_PARAM, 0))
		return EPERM;
	return probes_settle(0) ? ETIMEDOUT : 0;
}

static int kevents_verify(int ret, bool failed)
{
	if (unexplained_error(ret, failed))
		return -1;
	if (ret && kevents_act())
		return -1;
	/* Started and read by stream_works(): the signal comes after. */
	return stream_works(trid) || kevents_recorded(trid) ? -1 : 0;
}

/*
 * A system call with a path, traced: the probe copies the path at the
 * call's entry, without faulting. A failed copy is absorbed: the event is
 * recorded all the same, its path empty and marked cut. (The act reaches
 * one more failure point, elsewhere, which leaves the path whole.)
 */
static const char syscall_path[] = "/";

static int syscall_prepare(void)
{
	return kevents_stream(POSIXTRACE_K_KERNEL_SYSCALL, true);
}

static int syscall_act(void)
{
	int fd = open(syscall_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* The entry of openat(syscall_path): its cut bits and path, packed. */
#define SYSCALL_ENTRY_CUT	(4 + 1 + 6 * 8)	/* after nr, compat, a0-a5 */

static int syscall_verify(int ret, bool failed)
{
	struct posix_trace_event_info info;
	int err, unavailable, found = 0;
	unsigned char data[512];
	bool whole, cut;
	uint64_t a1;
	int32_t nr;
	size_t len;

	/* Stopped: the reads' own system calls are not recorded. */
	if (ret || posix_trace_stop(trid))
		return -1;
	for (;;) {
		err = posix_trace_trygetnext_event(trid, &info, data,
						   sizeof(data) - 1, &len,
						   &unavailable);
		if (err || unavailable)
			break;
		if (info.posix_event_id != POSIXTRACE_K_EVENT_SYSCALL_ENTRY ||
		    len <= SYSCALL_ENTRY_CUT + 1)
			continue;
		data[len] = '\0';
		memcpy(&nr, data, sizeof(nr));
		memcpy(&a1, data + 4 + 1 + 8, sizeof(a1));
		if (nr != SYS_openat || a1 != (uintptr_t)syscall_path)
			continue;
		found++;
		/* Whole, or (the failure its copy's) empty and marked cut. */
		whole = !data[SYSCALL_ENTRY_CUT] &&
			!strcmp((char *)data + SYSCALL_ENTRY_CUT + 1,
				syscall_path);
		cut = data[SYSCALL_ENTRY_CUT] == POSIXTRACE_SYSCALL_CUT_PATH &&
		      !data[SYSCALL_ENTRY_CUT + 1];
		if (!whole && !(failed && cut))
			return -1;
	}
	return err || found != 1 ? -1 : 0;
}

static const struct op ops[] = {
	{ "create", nothing, create_act, create_verify, shut, false },
	{ "create_withlog", withlog_prepare, withlog_act, withlog_verify,
	  shut, true },
	{ "create_withlog_loop", loop_log_prepare, withlog_act,
	  withlog_verify, shut, true },
	{ "eventid_open", eventid_prepare, eventid_act, eventid_verify,
	  shut, false },
	{ "eventid_format", format_prepare, eventid_act, eventid_verify,
	  shut, false },
	{ "events", raw_prepare, raw_small_act, raw_verify, shut, false },
	{ "events_ringless", raw_prepare, raw_ringless_act, raw_verify,
	  shut, false },
	{ "events_long", long_prepare, raw_long_act, raw_verify, shut, false },
	{ "ring_grows", running_prepare, grow_act, grow_verify, shut, false },
	{ "loop_kicks", running_prepare, kick_act, kick_verify, shut, false },
	{ "getnext", filled_prepare, getnext_act, getnext_verify, shut, false },
	{ "filter", running_prepare, filter_act, filter_verify, shut, false },
	{ "eventtypelist", filled_prepare, typelist_act, typelist_verify,
	  shut, false },
	{ "second_stream", running_prepare, second_act, second_verify,
	  shut, false },
	{ "fork", fork_prepare, fork_act, fork_verify, shut, true },
	{ "new_process", nothing, fresh_act, fresh_verify, shut, false },
	{ "new_process_raw", nothing, fresh_raw_act, fresh_verify, shut,
	  false },
	{ "dropped_privileges", nothing, fresh_dropped_act, fresh_verify,
	  shut, false },
	{ "create_for_another", target_prepare, target_act, target_verify,
	  target_cleanup, false },
	{ "netlink_dump", mon_prepare, dump_act, mon_verify, shut, false },
	{ "netlink_get", mon_prepare, get_act, mon_verify, shut, false },
	{ "netlink_notify", notify_prepare, notify_act, notify_verify,
	  notify_cleanup, true },
	{ "eventid_get_format", getformat_prepare, getformat_act,
	  getformat_verify, shut, false },
	{ "syscall_path", syscall_prepare, syscall_act, syscall_verify,
	  shut, false },
};

/*
 * Walked by make fault's site by site walk only: each create registers
 * the class's tracepoint probes, patching kernel text, and failing every
 * point of it in turn would take minutes of make check's guests.
 */
static const struct op kevents_op = {
	"create_kevents", kevents_prepare, kevents_act, kevents_verify, shut,
	false,
};

FIXTURE(fault) {
	bool ready;
};

FIXTURE_SETUP(fault)
{
	self->ready = false;
	SKIP_WITHOUT_DEVICE();
	if (!faults_setup())
		SKIP(return, "no fault injection with a stack filter here");
	ASSERT_EQ(0, posix_trace_eventid_open("fault.work", &ev_id));
	self->ready = true;
}

FIXTURE_TEARDOWN(fault)
{
	fail_nth(0);
}

/*
 * @op failed at each failure point it reaches in turn (the stack filter
 * says which count): a clean error or none, and all sound after. Returns
 * how many it reached; *@absorbed: how many the operation survived.
 */
static int walk_op(struct __test_metadata *_metadata, const struct op *op,
		   const char *where, int *absorbed)
{
	int n, ret, points = 0;
	bool failed;

	*absorbed = 0;
	for (n = 1; n <= MAX_POINTS; n++) {
		if (op->prepare()) {
			EXPECT_TRUE(false) TH_LOG("%s: prepare", op->name);
			op->cleanup();
			break;
		}
		walk_n = n;
		act_in_child = false;
		fail_nth(n);
		ret = op->act();
		failed = fail_nth_done();
		if (act_in_child)
			failed = child_fired;
		EXPECT_EQ(0, op->verify(ret, failed))
			TH_LOG("%s%s: failure point %d: %s (%d)%s", where,
			       op->name, n, strerror(ret), ret,
			       failed ? "" : ", none injected");
		op->cleanup();
		if (!failed)
			break;
		points++;
		*absorbed += !ret;
	}
	EXPECT_GT(MAX_POINTS, n) TH_LOG("%s%s: more failure points than %d",
					where, op->name, MAX_POINTS);
	return points;
}

/* Every operation, every failure point it reaches: a minute or two. */
TEST_F_TIMEOUT(fault, every_failure_point_fails_cleanly, 600)
{
	int total = 0, points, absorbed;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		points = walk_op(_metadata, &ops[i], "", &absorbed);
		printf("# fault: %s: %d failure points reached, %d absorbed\n",
		       ops[i].name, points, absorbed);
		total += points;
	}
	printf("# fault: %d failure points reached in all\n", total);
}

/*
 * Failures elsewhere (@on), where the stack filter lets them: in the
 * module's workers and the log's thread, and in the children this process
 * forks (a child's inheritance, before it runs), which fail-nth, this
 * task's own, cannot reach. make-it-fail on this process, on kthreadd and
 * its children, and so on the threads either starts from now on; each
 * type's task filter on, and the next failure a filter lets through
 * injected, once.
 */
static bool fail_elsewhere(bool on)
{
	const char *flag = on ? "1" : "0";
	char path[320], line[256];
	bool ok = true;
	int i, ppid;
	FILE *f;
	DIR *d;
	struct dirent *e;

	/* This process too, and the children it forks from now on. */
	ok &= write_str("/proc/self/make-it-fail", flag);
	ok &= write_str("/proc/2/make-it-fail", flag);
	d = opendir("/proc");
	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		ppid = 0;
		/* pid (comm) state ppid: comm without spaces for kthreads */
		if (fgets(line, sizeof(line), f) && strrchr(line, ')'))
			sscanf(strrchr(line, ')') + 2, "%*c %d", &ppid);
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/make-it-fail",
			 e->d_name);
		if (ppid == 2)
			write_str(path, flag);
	}
	closedir(d);
	for (i = 0; i < FAULT_DIRS; i++)
		ok &= fault_set(i, "task-filter", on ? "Y" : "N") &&
		      fault_set(i, "probability", on ? "100" : "0") &&
		      fault_set(i, "times", on ? "1" : FAULT_TIMES);
	return ok;
}

/* Whether the one failure fail_elsewhere() allowed came. */
static bool failed_elsewhere(void)
{
	int i;

	for (i = 0; i < FAULT_DIRS; i++)
		if (fault_times(i) == 0)
			return true;
	return false;
}

/*
 * A site failed elsewhere: each operation run once, with the site's first
 * call failed wherever it comes; the operation, and all it did, checked
 * as a failure point's. With @reached NULL (no operation's task reaches
 * the site), every operation; else only those whose work goes on in
 * another task and whose own task reached no point of it (@reached[i]
 * 0): a worker's call of a site the others' tasks fail (put_traced()'s
 * list, in a notification). 1 if it failed once, 0 if nothing called it.
 */
static int elsewhere_site(struct __test_metadata *_metadata, const char *where,
			  const int *reached)
{
	bool fired;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (reached && (!ops[i].elsewhere || reached[i]))
			continue;
		if (ops[i].prepare()) {
			EXPECT_TRUE(false) TH_LOG("%s: prepare", ops[i].name);
			ops[i].cleanup();
			continue;
		}
		ASSERT_TRUE(fail_elsewhere(true));
		ret = ops[i].act();
		/* What the kernel threads do for it: a while, in a guest. */
		usleep(20000);
		/*
		 * A site this task reaches too is failed only for the act's:
		 * the check's own calls would fail there instead. One that no
		 * task reaches may fail in the work the check sets off.
		 */
		fired = failed_elsewhere();
		if (reached)
			ASSERT_TRUE(fail_elsewhere(false));
		EXPECT_EQ(0, ops[i].verify(ret, reached ? fired :
					   failed_elsewhere()))
			TH_LOG("%s: %s, failed elsewhere: %s (%d)", where,
			       ops[i].name, strerror(ret), ret);
		ops[i].cleanup();
		if (!reached) {
			fired = failed_elsewhere();
			ASSERT_TRUE(fail_elsewhere(false));
		}
		if (fired) {
			printf("# fault: %s failed elsewhere by %s\n",
			       where, ops[i].name);
			return 1;
		}
	}
	return 0;
}

/*
 * One call site at a time, from the table selftests/vm/fault-map.sh made
 * of this very module (fault-sites.tab beside this program; make fault
 * puts it there): the stack filter narrowed to the call's return address,
 * every operation walked again, so that each failure point of the site
 * fails in turn, whichever operation reaches it. One line per site, which
 * selftests/vm/fault.sh adds up: "# fault-site: SOURCE CALLEE POINTS".
 */
/* Every site walked again: many minutes under emulation. */
TEST_F_TIMEOUT(fault, every_call_site_fails_in_turn, 1800)
{
	char table[4096];
	struct fault_site site;
	int reached[sizeof(ops) / sizeof(ops[0])];
	int absorbed, sites = 0, hit = 0, n;
	unsigned long base;
	size_t i;
	FILE *f;

	ASSERT_TRUE(beside_program(table, sizeof(table), "fault-sites.tab"));
	f = fopen(table, "r");
	if (!f)
		SKIP(return, "no fault-sites.tab here: make fault makes it");
	while (fault_site_next(f, &site)) {
		base = section_base(site.section);
		ASSERT_NE(0, base) TH_LOG("%s: not loaded", site.section);
		ASSERT_TRUE(faults_within(base + site.offset,
					  base + site.offset + 1));
		n = walk_op(_metadata, &kevents_op, site.source, &absorbed);
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			reached[i] = walk_op(_metadata, &ops[i], site.source,
					     &absorbed);
			n += reached[i];
		}
		n += elsewhere_site(_metadata, site.source, n ? reached : NULL);
		printf("# fault-site: %s %s %d\n", site.source, site.callee,
		       n);
		sites++;
		hit += n > 0;
	}
	fclose(f);
	printf("# fault: %d of %d call sites failed\n", hit, sites);
	ASSERT_TRUE(faults_setup());
}

TEST_HARNESS_MAIN
