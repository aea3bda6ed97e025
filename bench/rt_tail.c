// SPDX-License-Identifier: GPL-2.0
/*
 * rt_tail: the distribution of posix_trace_event()'s cost, against a null
 * system call's, under what a realtime user's process does around it
 * (make bench-rt, issue 30 part 4).
 *
 * The measured thread records 8-byte events into a 1 MiB LOOP stream that
 * a reader follows (posix_trace_timedgetnext_event()), while a FLUSH
 * stream with a log on the guest's /tmp records them too, and another
 * thread, every 10 ms, stops and starts the LOOP stream, clears it, and
 * changes its filter (a type of its own, in and out). The measured
 * thread runs SCHED_FIFO (priority 50) when it may, pinned to CPU 0; the
 * reader and that thread on CPU 1.
 *
 * It times blocks of BLOCK events and BLOCK getppid() calls in turn, so
 * that both see the same noise, each call between two CLOCK_MONOTONIC
 * reads (a block of BLOCK empty timings gives what the reads cost: in
 * every figure alike, it makes the ratios nearer 1). Prints, for each,
 * the median, p99, p99.99 and maximum in ns, and the event's over the
 * null call's; then the events split by what they did, counted exactly:
 * written to the ring alone, a kick (POSIXTRACE_IOC_RING_DRAIN), an
 * event by system call (POSIXTRACE_IOC_EVENT: the ring was full), or
 * another call (a ring's growth); the thread ring's size; and whether
 * p99.99 of an event is at most the null call's (the goal).
 *
 *   rt_tail [EVENTS [BLOCK]]       defaults 10000000 and 100000
 */

#include <errno.h>
#include <linux/posixtrace.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <trace.h>

#include "harness.h"

/* Log-linear buckets: exact below 1024 ns, then 64 a power of two. */
#define EXACT		1024
#define SUB		64
#define NBUCKETS	(EXACT + 54 * SUB)

struct hist {
	uint64_t n[NBUCKETS];
	uint64_t count, max;
};

static unsigned int bucket(uint64_t v)
{
	unsigned int msb;

	if (v < EXACT)
		return (unsigned int)v;
	msb = 63 - (unsigned int)__builtin_clzll(v);
	return EXACT + (msb - 10) * SUB +
	       (unsigned int)((v >> (msb - 6)) & (SUB - 1));
}

/* The least value of bucket @b. */
static uint64_t bucket_low(unsigned int b)
{
	unsigned int msb;

	if (b < EXACT)
		return b;
	msb = (b - EXACT) / SUB + 10;
	return (1ULL << msb) + ((uint64_t)((b - EXACT) % SUB) << (msb - 6));
}

static void add(struct hist *h, uint64_t v)
{
	h->n[bucket(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

/* The value at quantile @q (0 to 1), to the bucket's precision. */
static uint64_t quantile(const struct hist *h, double q)
{
	uint64_t want = (uint64_t)(q * (double)h->count), seen = 0;

	for (unsigned int b = 0; b < NBUCKETS; b++) {
		seen += h->n[b];
		if (seen > want)
			return bucket_low(b);
	}
	return h->max;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/*
 * The module's calls the library made on this thread since last cleared.
 * The library calls ioctl() through its PLT, which binds to this
 * program's definition first: so each timed event knows whether it
 * kicked its ring or went by system call, at the cost of a call.
 */
static __thread unsigned long last_ioctl;

int ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	last_ioctl = cmd;
	return (int)syscall(SYS_ioctl, fd, cmd, arg);
}

static trace_event_id_t ev, other;
static trace_id_t loop_trid, log_trid;
static atomic_bool stop_all;
static uint64_t reader_events, control_rounds;

static void *reader(void *arg)
{
	struct posix_trace_event_info info;
	struct timespec until;
	uint64_t data;
	size_t len;
	int unavailable, ret;

	(void)arg;
	while (!atomic_load(&stop_all)) {
		until = realtime_in_ms(20);
		ret = posix_trace_timedgetnext_event(loop_trid, &info, &data,
						     sizeof(data), &len,
						     &unavailable, &until);
		if (!ret && !unavailable && info.posix_event_id == ev)
			reader_events++;
		else if (ret && ret != ETIMEDOUT)
			break;
	}
	return NULL;
}

/* Every 10 ms: stop and start, clear, a filter in and out. */
static void *control(void *arg)
{
	struct timespec ms10 = { 0, 10000000 };
	trace_event_set_t set;

	(void)arg;
	posix_trace_eventset_empty(&set);
	posix_trace_eventset_add(other, &set);
	for (unsigned int i = 0; !atomic_load(&stop_all); i++) {
		nanosleep(&ms10, NULL);
		switch (i % 4) {
		case 0:
			posix_trace_stop(loop_trid);
			posix_trace_start(loop_trid);
			break;
		case 1:
			posix_trace_clear(loop_trid);
			break;
		case 2:
			posix_trace_set_filter(loop_trid, &set,
					       POSIX_TRACE_SET_EVENTSET);
			break;
		default:
			posix_trace_set_filter(loop_trid, &set,
					       POSIX_TRACE_SUB_EVENTSET);
			break;
		}
		control_rounds++;
	}
	return NULL;
}

/* The data size of this thread's ring, from /proc/self/maps; 0: none. */
static unsigned long ring_size(void)
{
	unsigned long lo, hi, off, size = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/posixtrace") &&
		    sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) == 3 &&
		    (off == 0x200000 || off == 0x400000))
			size = hi - lo - (unsigned long)sysconf(_SC_PAGESIZE);
	fclose(f);
	return size;
}

static void print_tail_row(const char *what, const struct hist *h)
{
	printf("%-28s %10llu %8llu %8llu %10llu %10llu\n", what,
	       (unsigned long long)h->count,
	       (unsigned long long)quantile(h, 0.5),
	       (unsigned long long)quantile(h, 0.99),
	       (unsigned long long)quantile(h, 0.9999),
	       (unsigned long long)h->max);
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static struct hist h_ev, h_sys, h_clock;

/* What a timed event did, and how long each kind took. */
enum event_kind { IN_RING, KICK, BY_SYSCALL, OTHER_CALL, KINDS };
static const char *const kind_name[KINDS] = {
	"  ring only", "  kick (RING_DRAIN)", "  by system call (EVENT)",
	"  another call",
};
static struct hist h_kind[KINDS];

static enum event_kind kind_of(unsigned long cmd)
{
	switch (cmd) {
	case 0:
		return IN_RING;
	case POSIXTRACE_IOC_RING_DRAIN:
		return KICK;
	case POSIXTRACE_IOC_EVENT:
		return BY_SYSCALL;
	default:
		return OTHER_CALL;
	}
}

int main(int argc, char **argv)
{
	uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
	uint64_t block = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000;
	struct sched_param sp = { .sched_priority = 50 };
	uint64_t t0, t1, k = 0;
	pthread_t rd, ctl;
	trace_attr_t attr;
	cpu_set_t cpu0, cpu1;
	char path[] = "/tmp/rt_tail-XXXXXX";
	bool fifo;
	int fd, err;

	if (!block || events < block)
		return 2;
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	unlink(path);
	err = posix_trace_eventid_open("rt_tail.event", &ev);
	if (!err)
		err = posix_trace_eventid_open("rt_tail.other", &other);
	if (!err)
		err = posix_trace_attr_init(&attr);
	if (!err)
		err = posix_trace_attr_setstreamsize(&attr, 1 << 20);
	if (!err)
		err = posix_trace_attr_setstreamfullpolicy(&attr,
							   POSIX_TRACE_FLUSH);
	if (!err)
		err = posix_trace_create_withlog(0, &attr, fd, &log_trid);
	if (!err)
		err = posix_trace_attr_setstreamfullpolicy(&attr,
							   POSIX_TRACE_LOOP);
	if (!err)
		err = posix_trace_create(0, &attr, &loop_trid);
	if (!err)
		err = posix_trace_start(log_trid);
	if (!err)
		err = posix_trace_start(loop_trid);
	if (err) {
		fprintf(stderr, "rt_tail: cannot trace: %s\n", strerror(err));
		return 1;
	}
	if (pthread_create(&rd, NULL, reader, NULL) ||
	    pthread_create(&ctl, NULL, control, NULL))
		return 1;
	/* The measured thread on CPU 0, the others on CPU 1: both run. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	pthread_setaffinity_np(pthread_self(), sizeof(cpu0), &cpu0);
	pthread_setaffinity_np(rd, sizeof(cpu1), &cpu1);
	pthread_setaffinity_np(ctl, sizeof(cpu1), &cpu1);
	/* The ring grows to its size before anything is timed. */
	for (int i = 0; i < 100000; i++, k++)
		posix_trace_event(ev, &k, sizeof(k));
	fifo = !pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	for (uint64_t done = 0; done < events; done += block) {
		for (uint64_t i = 0; i < block; i++) {
			t0 = now_ns();
			t1 = now_ns();
			add(&h_clock, t1 - t0);
		}
		for (uint64_t i = 0; i < block; i++) {
			t0 = now_ns();
			syscall(SYS_getppid);
			t1 = now_ns();
			add(&h_sys, t1 - t0);
		}
		for (uint64_t i = 0; i < block; i++, k++) {
			last_ioctl = 0;
			t0 = now_ns();
			posix_trace_event(ev, &k, sizeof(k));
			t1 = now_ns();
			add(&h_ev, t1 - t0);
			add(&h_kind[kind_of(last_ioctl)], t1 - t0);
		}
	}
	atomic_store(&stop_all, true);
	pthread_join(rd, NULL);
	pthread_join(ctl, NULL);

	printf("rt_tail: %llu events of 8 bytes in blocks of %llu, against as "
	       "many getppid(); %s, on CPU 0; the reader and the control "
	       "thread on CPU 1\n", (unsigned long long)events,
	       (unsigned long long)block,
	       fifo ? "SCHED_FIFO 50" : "SCHED_OTHER (SCHED_FIFO refused)");
	printf("streams: a 1 MiB LOOP stream read live, a 1 MiB FLUSH stream "
	       "with a log; every 10 ms stop+start, clear or a filter change "
	       "(%llu done); thread ring %lu bytes%s\n",
	       (unsigned long long)control_rounds, ring_size(),
	       getenv("POSIXTRACE_RING_SIZE") ? " (POSIXTRACE_RING_SIZE)" :
	       " (the library's choice)");
	printf("%-28s %10s %8s %8s %10s %10s\n", "ns per call", "calls",
	       "median", "p99", "p99.99", "max");
	print_tail_row("posix_trace_event()", &h_ev);
	for (int i = 0; i < KINDS; i++)
		if (h_kind[i].count)
			print_tail_row(kind_name[i], &h_kind[i]);
	print_tail_row("getppid()", &h_sys);
	print_tail_row("clock_gettime() x2, nothing", &h_clock);
	printf("event / getppid: median %.2f, p99 %.2f, p99.99 %.2f, max "
	       "%.2f\n",
	       ratio(quantile(&h_ev, 0.5), quantile(&h_sys, 0.5)),
	       ratio(quantile(&h_ev, 0.99), quantile(&h_sys, 0.99)),
	       ratio(quantile(&h_ev, 0.9999), quantile(&h_sys, 0.9999)),
	       ratio(h_ev.max, h_sys.max));
	printf("kicks: one event in %.0f; events by system call: one in "
	       "%.0f\n", ratio(events, h_kind[KICK].count),
	       ratio(events, h_kind[BY_SYSCALL].count));
	printf("the reader read %llu events\n",
	       (unsigned long long)reader_events);
	printf("goal, p99.99 of an event <= p99.99 of getppid(): %s\n",
	       quantile(&h_ev, 0.9999) <= quantile(&h_sys, 0.9999) ?
	       "met" : "NOT met");
	return 0;
}
