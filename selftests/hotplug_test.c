// SPDX-License-Identifier: GPL-2.0
/*
 * CPUs taken offline and brought back while threads record, readers read
 * and kernel events are made (issue 32): no event lost uncounted, none
 * read twice or out of order. The module keeps per-CPU storage (the kbufs
 * every event by system call goes through when the rings are off, the
 * kernel events' per-CPU buffers) and per-CPU work (a drain's irq_work):
 * a CPU that goes away must leave nothing behind.
 *
 * Two raw streams of this process: one of user events, recorded by
 * producer threads that migrate freely, and one of kernel events
 * (process, signal and scheduling), made by the same threads and by the
 * CPU toggling itself. A reader per stream reads as they go; a toggler
 * takes every CPU but the first offline and back, one at a time. At the
 * end, everything is read, and for each stream the reader saw each lost
 * event as a gap in the sequence numbers, exactly STATUS's events_lost,
 * and read exactly STATUS's events_read; the user stream read or lost
 * every event the producers made; each producer's events came in order.
 *
 * Needs a CPU that can go offline (cpuN/online, N >= 1; as root): the
 * guests have two, make fuzz's hotplug guest four. Skipped otherwise.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "trc_common.h"
#include "stress_common.h"

#define PRODUCERS	3
#define EVENTS		200000	/* per producer, at most */
#define RUN_MS		6000
#define CPUS_MAX	64
#define BUF_SIZE	(256 * 1024)

struct hp_event {
	uint32_t producer;
	uint32_t seq;
};

struct hp_reader {
	int sfd;
	atomic_bool *stop;
	bool user;		/* the user stream: check the producers' order */
	trace_event_id_t id;
	uint64_t read, user_read, gaps, next_seq, bad;
	int64_t last[PRODUCERS];
	char why[160];
};

struct hp {
	trace_event_id_t id;
	atomic_bool stop_producers, stop_toggler, stop_readers;
	uint32_t emitted[PRODUCERS];
	int cpus[CPUS_MAX], ncpus;
	unsigned long offlined, toggle_errors;
	struct hp_reader user, kernel;
};

/* The CPUs that can go offline: cpuN/online for N >= 1, writable. */
static int offlinable_cpus(int *cpus, int max)
{
	char path[96];
	int cpu, n = 0;

	for (cpu = 1; cpu < 4096 && n < max; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (access(path, F_OK))
			break;
		if (!access(path, W_OK))
			cpus[n++] = cpu;
	}
	return n;
}

static int cpu_set_online(int cpu, bool online)
{
	char path[96];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, online ? "1" : "0", 1) != 1)
		ret = errno;
	close(fd);
	return ret;
}

/*
 * A raw stream of this process, of @size bytes; @kernel_events: the
 * classes, or 0.
 */
static int hp_stream(int dev, uint64_t size, uint32_t kernel_events)
{
	struct posixtrace_attr a = {
		.stream_size = size,
		.max_data_size = 64,
		.stream_full_policy = POSIXTRACE_LOOP,
		.log_full_policy = POSIXTRACE_LOOP,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
		.kernel_events = kernel_events,
	};
	int fd = raw_create_with(dev, &a, -1);

	if (fd < 0)
		return fd;
	if (raw_control(fd, POSIXTRACE_IOC_START)) {
		close(fd);
		return -EIO;
	}
	return fd;
}

struct hp_producer {
	struct hp *hp;
	uint32_t idx;
};

static void *hp_producer(void *arg)
{
	struct hp_producer *p = arg;
	struct hp *hp = p->hp;
	struct hp_event ev = { .producer = p->idx };

	for (ev.seq = 0; ev.seq < EVENTS &&
	     !atomic_load(&hp->stop_producers); ev.seq++) {
		posix_trace_event(hp->id, &ev, sizeof(ev));
		/* Now and then, let the scheduler move us. */
		if (!(ev.seq % 64))
			sched_yield();
	}
	hp->emitted[p->idx] = ev.seq;
	return NULL;
}

/* One batch's records: gaps in the sequence, and the producers' order. */
static void hp_account(struct hp_reader *r, const unsigned char *buf,
		       uint32_t bytes)
{
	const struct posixtrace_record *rec;
	struct hp_event ev;
	uint32_t off;

	for (off = 0; off + sizeof(*rec) <= bytes; off += rec->size) {
		rec = (const void *)(buf + off);
		if (rec->size < sizeof(*rec) || off + rec->size > bytes) {
			snprintf(r->why, sizeof(r->why), "a bad record size %u",
				 rec->size);
			r->bad++;
			return;
		}
		/* The reader's own markers of a gap carry the next number. */
		if (rec->event_id == POSIXTRACE_EVENT_OVERFLOW ||
		    rec->event_id == POSIXTRACE_EVENT_RESUME)
			continue;
		if (rec->seq < r->next_seq) {
			snprintf(r->why, sizeof(r->why),
				 "seq %llu after %llu: read twice or back",
				 (unsigned long long)rec->seq,
				 (unsigned long long)r->next_seq);
			r->bad++;
		} else {
			r->gaps += rec->seq - r->next_seq;
		}
		r->next_seq = rec->seq + 1;
		r->read++;
		if (!r->user || rec->event_id != r->id ||
		    rec->data_len != sizeof(ev))
			continue;
		r->user_read++;
		memcpy(&ev, buf + off + rec->header_size, sizeof(ev));
		if (ev.producer >= PRODUCERS ||
		    (int64_t)ev.seq <= r->last[ev.producer]) {
			snprintf(r->why, sizeof(r->why),
				 "producer %u: event %u after %lld",
				 ev.producer, ev.seq, ev.producer < PRODUCERS ?
				 (long long)r->last[ev.producer] : -1LL);
			r->bad++;
			continue;
		}
		r->last[ev.producer] = ev.seq;
	}
}

/*
 * Read as events come; once told to stop, until a read finds nothing
 * (the caller has stopped every source first).
 */
static void *hp_reader(void *arg)
{
	static __thread unsigned char buf[BUF_SIZE];
	struct hp_reader *r = arg;
	struct timespec abstime;
	uint32_t count, bytes;
	int ret;

	for (;;) {
		bool stopping = atomic_load(r->stop);

		if (stopping)
			ret = raw_getnext(r->sfd, buf, sizeof(buf),
					  POSIXTRACE_GETNEXT_NONBLOCK, NULL,
					  &count, &bytes);
		else {
			abstime = realtime_in(20000);
			ret = raw_getnext(r->sfd, buf, sizeof(buf),
					  POSIXTRACE_GETNEXT_TIMED, &abstime,
					  &count, &bytes);
		}
		if (!ret && count) {
			hp_account(r, buf, bytes);
			continue;
		}
		if (stopping && (ret == EAGAIN || (!ret && !count)))
			break;
		if (ret && ret != ETIMEDOUT && ret != EAGAIN) {
			snprintf(r->why, sizeof(r->why), "GETNEXT: error %d",
				 ret);
			r->bad++;
			break;
		}
	}
	return NULL;
}

/* Every CPU but the first offline and back, one at a time, until told. */
static void *hp_toggler(void *arg)
{
	struct hp *hp = arg;
	int i;

	while (!atomic_load(&hp->stop_toggler)) {
		for (i = 0; i < hp->ncpus; i++) {
			if (cpu_set_online(hp->cpus[i], false)) {
				hp->toggle_errors++;
				continue;
			}
			hp->offlined++;
			usleep(20000);
			if (cpu_set_online(hp->cpus[i], true))
				hp->toggle_errors++;
		}
	}
	return NULL;
}

/* STATUS of @sfd: events_read and events_lost, checked against @r. */
#define ASSERT_ACCOUNTED(r) do {					\
	struct posixtrace_status _st;					\
									\
	ASSERT_EQ(0, raw_status((r)->sfd, &_st));			\
	EXPECT_EQ(0, (r)->bad) TH_LOG("%s", (r)->why);			\
	EXPECT_EQ(_st.events_read, (r)->read);				\
	EXPECT_EQ(_st.events_lost, (r)->gaps);				\
	TH_LOG("%s stream: recorded %llu, read %llu, lost %llu",	\
	       (r)->user ? "user" : "kernel",				\
	       (unsigned long long)_st.events_recorded,		\
	       (unsigned long long)_st.events_read,			\
	       (unsigned long long)_st.events_lost);			\
} while (0)

/*
 * Producers record, readers read, kernel events come, while every CPU but
 * the first goes offline and back over and over; then every event is
 * read or counted lost, exactly, and none twice or out of order.
 */
TEST(cpus_going_offline_and_back_lose_nothing_uncounted)
{
	static struct hp hp;
	struct hp_producer args[PRODUCERS];
	pthread_t prod[PRODUCERS], rd[2], tog;
	struct posixtrace_status st;
	uint64_t emitted = 0;
	int dev, i;

	SKIP_WITHOUT_DEVICE();
	hp.ncpus = offlinable_cpus(hp.cpus, CPUS_MAX);
	if (!hp.ncpus)
		SKIP(return, "no CPU can go offline here");
	ASSERT_EQ(0, posix_trace_eventid_open("hotplug", &hp.id));
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	/* Small enough that the reader falls behind now and then. */
	hp.user.sfd = hp_stream(dev, 128 << 10, 0);
	ASSERT_LE(0, hp.user.sfd);
	hp.kernel.sfd = hp_stream(dev, 4 << 20, POSIXTRACE_KERNEL_PROC |
				       POSIXTRACE_KERNEL_SIGNAL |
				       POSIXTRACE_KERNEL_SCHED);
	ASSERT_LE(0, hp.kernel.sfd) TH_LOG("kernel events: %d",
					   hp.kernel.sfd);
	hp.user.user = true;
	hp.user.id = hp.id;
	hp.user.stop = hp.kernel.stop = &hp.stop_readers;
	for (i = 0; i < PRODUCERS; i++)
		hp.user.last[i] = -1;

	ASSERT_EQ(0, pthread_create(&rd[0], NULL, hp_reader, &hp.user));
	ASSERT_EQ(0, pthread_create(&rd[1], NULL, hp_reader, &hp.kernel));
	ASSERT_EQ(0, pthread_create(&tog, NULL, hp_toggler, &hp));
	for (i = 0; i < PRODUCERS; i++) {
		args[i] = (struct hp_producer){ &hp, i };
		ASSERT_EQ(0, pthread_create(&prod[i], NULL, hp_producer,
					    &args[i]));
	}
	usleep(RUN_MS * 1000);
	atomic_store(&hp.stop_producers, true);
	for (i = 0; i < PRODUCERS; i++) {
		pthread_join(prod[i], NULL);
		emitted += hp.emitted[i];
	}
	atomic_store(&hp.stop_toggler, true);
	pthread_join(tog, NULL);
	/* Every CPU back, and no new event: stop both streams, then read. */
	for (i = 0; i < hp.ncpus; i++)
		cpu_set_online(hp.cpus[i], true);
	ASSERT_EQ(0, raw_control(hp.user.sfd, POSIXTRACE_IOC_STOP));
	ASSERT_EQ(0, raw_control(hp.kernel.sfd, POSIXTRACE_IOC_STOP));
	atomic_store(&hp.stop_readers, true);
	pthread_join(rd[0], NULL);
	pthread_join(rd[1], NULL);

	TH_LOG("%d CPUs taken offline %lu times (%lu refusals); %llu events emitted",
	       hp.ncpus, hp.offlined, hp.toggle_errors,
	       (unsigned long long)emitted);
	EXPECT_LT(0, hp.offlined);
	ASSERT_ACCOUNTED(&hp.user);
	ASSERT_ACCOUNTED(&hp.kernel);
	/* The user stream: each event read, or lost and counted. */
	ASSERT_EQ(0, raw_status(hp.user.sfd, &st));
	EXPECT_EQ(emitted, hp.user.user_read + st.events_lost);
	raw_control(hp.user.sfd, POSIXTRACE_IOC_SHUTDOWN);
	raw_control(hp.kernel.sfd, POSIXTRACE_IOC_SHUTDOWN);
	close(hp.user.sfd);
	close(hp.kernel.sfd);
	close(dev);
}

TEST_HARNESS_MAIN
