// SPDX-License-Identifier: GPL-2.0
/*
 * Information leaks (issue 32): every byte the module hands to user space
 * is initialised: a member, a record's data as its producer made it, or
 * zero; never what the memory held before. Looked at: GETNEXT's records
 * (copied, and in the mapped batch buffer) and its struct, through the
 * library too; every other ioctl's output; the enable page and a thread
 * ring, new and grown; the module's generic netlink answers (get, dump)
 * and notifications; its trace logs, whole files; kernel events.
 *
 * Before each test, what the module will allocate from is filled with
 * what must never come back:
 *  - the secret: a process of another user (SECRET_UID) makes events
 *    whose data carry SECRET, through every producer path (system call,
 *    kbuf, thread ring, a log), reads some, and shuts its streams down;
 *    before the kernel events test, exec arguments, paths and socket
 *    addresses carry it too, recorded (the per-CPU buffers of exec and
 *    system call events). None of it may reach another stream;
 *  - the kernel's poisoning, when booted with init_on_alloc=0
 *    init_on_free=0 page_poison=1 slub_debug=P,kmalloc-* (make check's
 *    debug guests): free pages hold 0xaa, kmalloc objects 0x6b; and the
 *    debug kernel's stack variables start as 0xfe (INIT_STACK_ALL_PATTERN).
 *    Without it the test says so. Debian's kernels zero what they
 *    allocate (init_on_alloc) and their stack variables: there only the
 *    secret can show what the module itself hands from one stream to
 *    another;
 *  - the spray, where the kernel neither poisons nor zeroes memory (the
 *    debug kernel booted without those arguments, say): a child fills
 *    anonymous memory (its pages go back to the page allocator) and
 *    AF_UNIX datagrams of 32 B to 16 KiB (the kmalloc caches) with SPRAY,
 *    on every CPU.
 *
 * A leak: 8 bytes of SPRAY or SECRET in a row, in any phase, or a run of
 * 4 bytes of 0x6b, 0x5a, 0xaa or 0xfe. Nothing the test makes carries
 * such bytes (its data bytes are 0x01 to 0x3f; its buffers are filled
 * with FILL before a call), nor does any member the module fills (a
 * system call's argument registers, which the thread chose, are left out
 * of the runs). Besides, every structure is checked as the ABI has it:
 * reserved members and padding zero, a record's data what was made, a
 * kernel event's data its format's fields and nothing more, nothing
 * written past what a call returns. A failure names the path (the ioctl,
 * mapping, netlink message, log) and the first byte.
 *
 * make fuzz, or anyone, may put a number in "leak-rounds" beside the
 * program: each test then poisons and checks that many times (1 else).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/klog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <linux/posixtrace_log.h>

#include "beside_program.h"
#include "kevent_common.h"
#include "nl_common.h"
#include "stress_common.h"

/* Never made by the test, nor by the module: bytes no poison uses. */
static const uint8_t spray[8] = {
	0xc3, 0x9d, 0xb1, 0xe7, 0x8f, 0xd4, 0x96, 0xbc
};
static const uint8_t secret[8] = {
	0xc5, 0x99, 0xb7, 0xe1, 0x8b, 0xd2, 0x94, 0xb2
};

/* The kernel's poisons (include/linux/poison.h), and the stack's. */
static const struct {
	uint8_t byte;
	const char *what;
} poisons[] = {
	{ 0x6b, "slab poison (POISON_FREE 0x6b)" },
	{ 0x5a, "slab poison (POISON_INUSE 0x5a)" },
	{ 0xaa, "page poison (PAGE_POISON 0xaa)" },
	{ 0xfe, "stack pattern (INIT_STACK_ALL_PATTERN 0xfe)" },
};

/*
 * A run of a poison this long is no member's: a u32 left as the memory
 * was. (A record's timestamp, a pointer, a counter never holds 4 equal
 * bytes of these values; a system call's argument registers, which may,
 * are left out.)
 */
#define RUN_MIN		4
#define FILL		0x3c	/* the user's buffers, before a call */
#define FILL64		0x3c3c3c3c3c3c3c3cULL
#define FILL32		0x3c3c3c3cU
#define PROG_ADDRESS	0x0102030405060708ULL
#define THREAD_ID	0x0a0b0c0d0e0f1011ULL
#define SECRET_UID	1001
#define SPRAY_MIB	4	/* of pages, per CPU */
#define MAX_DATA	512
#define READ_ROOM	(64 << 10)	/* GETNEXT fills at most this */
#define DEFINE_ID	POSIXTRACE_LOG_DEFINE

/* ---- finding poison ---------------------------------------------------- */

enum { SCAN_MARKERS = 1, SCAN_RUNS = 2, SCAN_ALL = 3 };

struct finding {
	const char *what;
	size_t off;
};

/* Where each byte is in a marker (the markers' bytes are distinct). */
static int8_t spray_at[256], secret_at[256];

static void __attribute__((constructor)) markers_init(void)
{
	int i;

	memset(spray_at, -1, sizeof(spray_at));
	memset(secret_at, -1, sizeof(secret_at));
	for (i = 0; i < 8; i++) {
		spray_at[spray[i]] = i;
		secret_at[secret[i]] = i;
	}
}

/* 8 bytes of marker m at p, in any phase? */
static bool marker_at(const uint8_t *p, size_t left, const uint8_t *m,
		      const int8_t *at)
{
	int j = at[p[0]], n;

	if (j < 0 || left < 8)
		return false;
	for (n = 1; n < 8; n++)
		if (p[n] != m[(j + n) % 8])
			return false;
	return true;
}

static bool scan(const void *buf, size_t len, unsigned int what,
		 struct finding *f)
{
	const uint8_t *p = buf;
	size_t i, run = 0, k;

	for (i = 0; i < len; i++) {
		run = i && p[i] == p[i - 1] ? run + 1 : 1;
		if ((what & SCAN_RUNS) && run == RUN_MIN) {
			for (k = 0; k < ARRAY_LEN(poisons); k++) {
				if (p[i] != poisons[k].byte)
					continue;
				f->what = poisons[k].what;
				f->off = i + 1 - RUN_MIN;
				return true;
			}
		}
		if (!(what & SCAN_MARKERS))
			continue;
		f->off = i;
		if (marker_at(p + i, len - i, spray, spray_at)) {
			f->what = "the spray marker (freed memory)";
			return true;
		}
		if (marker_at(p + i, len - i, secret, secret_at)) {
			f->what = "another user's stream's secret";
			return true;
		}
	}
	return false;
}

static void fail(struct __test_metadata *_metadata, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct __test_metadata *_metadata, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	TH_LOG("%s", msg);
	_metadata->exit_code = KSFT_FAIL;
}

/*
 * Say where poison is in buf (@what: which kinds), the path named by
 * fmt: true if there is.
 */
static bool leaked(struct __test_metadata *_metadata, const void *buf,
		   size_t len, unsigned int what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static bool leaked(struct __test_metadata *_metadata, const void *buf,
		   size_t len, unsigned int what, const char *fmt, ...)
{
	char where[256], hex[3 * 16 + 1] = "";
	const uint8_t *p = buf;
	struct finding f;
	size_t i;
	va_list ap;

	if (!scan(buf, len, what, &f))
		return false;
	va_start(ap, fmt);
	vsnprintf(where, sizeof(where), fmt, ap);
	va_end(ap);
	for (i = 0; i < 16 && f.off + i < len; i++)
		snprintf(hex + 3 * i, 4, " %02x", p[f.off + i]);
	fail(_metadata, "LEAK in %s: %s at byte %zu of %zu:%s", where,
	     f.what, f.off, len, hex);
	return true;
}

#define CLEAN(buf, len, ...) \
	leaked(_metadata, buf, len, SCAN_ALL, __VA_ARGS__)

/* Are the bytes all b? */
static bool all_are(const void *buf, size_t len, uint8_t b, size_t *first)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != b) {
			if (first)
				*first = i;
			return false;
		}
	}
	return true;
}

/* ---- what the test records ------------------------------------------- */

/* Byte i of the data of every user event of type id: 0x01 to 0x3f. */
static uint8_t pat(size_t i, uint32_t id)
{
	return 1 + (i * 13 + id * 7) % 63;
}

static void make_data(uint8_t *d, size_t len, uint32_t id)
{
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = pat(i, id);
}

/* The lengths the test's events take in turn: padding of 0 to 7. */
static uint32_t event_len(unsigned int n)
{
	static const uint32_t lens[] = {
		0, 1, 3, 5, 7, 8, 9, 15, 17, 31, 33, 63, 100, 127, 200,
		255, 301, 511, 512, 600,
	};

	return lens[n % ARRAY_LEN(lens)];
}

/* A user event by system call: 0 or the errno. */
static int raw_event(int dev, uint32_t id, const void *data, uint32_t len,
		     uint32_t flags)
{
	struct posixtrace_event ev = {
		.size = sizeof(ev),
		.flags = flags,
		.event_id = id,
		.data_len = len,
		.data = (uintptr_t)data,
		.prog_address = PROG_ADDRESS,
		.thread = THREAD_ID,
	};

	return ioctl(dev, POSIXTRACE_IOC_EVENT, &ev) ? errno : 0;
}

/* An event name of this process by raw EVENTID_OPEN; 0 on failure. */
static uint32_t raw_eventid(int dev, const char *name, const char *format)
{
	struct posixtrace_eventid e = {
		.size = sizeof(e),
		.name = (uintptr_t)name,
		.format = (uintptr_t)format,
	};

	return ioctl(dev, POSIXTRACE_IOC_EVENTID_OPEN, &e) ? 0 : e.event_id;
}

/*
 * n events of type id, of the lengths event_len() gives, made in turn by
 * the three producer paths: the library (a thread ring when there is
 * one), a system call, a system call into the kbufs (RINGLESS).
 */
static void make_events(int dev, uint32_t id, unsigned int n)
{
	uint8_t d[1024];
	unsigned int i;
	uint32_t len;

	make_data(d, sizeof(d), id);
	for (i = 0; i < n; i++) {
		len = event_len(i);
		switch (i % 3) {
		case 0:
			posix_trace_event(id, d, len);
			break;
		case 1:
			raw_event(dev, id, d, len, 0);
			break;
		default:
			raw_event(dev, id, d, len, POSIXTRACE_EVENT_RINGLESS);
			break;
		}
	}
}

/* ---- checking what came back ------------------------------------------ */

/* Walk a format's fields over data: true if they take it exactly. */
static bool fits_format(const char *fmt, const uint8_t *d, size_t len,
			size_t *bad)
{
	const char *f = fmt, *colon, *end;
	size_t pos = 0, w, tl;
	const uint8_t *nul;

	*bad = 0;
	while (*f) {
		colon = strchr(f, ':');
		if (!colon)
			return false;
		end = strchr(colon, ',');
		if (!end)
			end = colon + strlen(colon);
		tl = end - colon - 1;
		if (tl == 3 && !strncmp(colon + 1, "str", 3)) {
			nul = pos < len ? memchr(d + pos, 0, len - pos) : NULL;
			if (!nul ||
			    nul - (d + pos) >= POSIXTRACE_EXEC_STR_MAX) {
				*bad = pos;
				return false;
			}
			pos = nul - d + 1;
		} else if (tl == 5 && !strncmp(colon + 1, "bytes", 5)) {
			pos = len;
		} else {
			w = colon[2] == '8' ? 1 : colon[2] == '1' ? 2 :
			    colon[2] == '3' ? 4 : 8;
			if (pos + w > len) {
				*bad = pos;
				return false;
			}
			pos += w;
		}
		f = *end ? end + 1 : end;
	}
	*bad = pos;
	return pos == len;
}

/* Event sets (START's, FILTER's): no bit at or past the last id. */
static bool set_tail_clear(const uint8_t *d, size_t len, size_t *bad)
{
	const uint64_t tail = POSIXTRACE_EVENT_ID_MAX % 64 ?
			      ~0ULL << (POSIXTRACE_EVENT_ID_MAX % 64) : 0;
	size_t at;
	uint64_t w;

	for (at = EVENTSET_SIZE - 8; at < len; at += EVENTSET_SIZE) {
		memcpy(&w, d + at, 8);
		if (w & tail) {
			*bad = at;
			return false;
		}
	}
	return true;
}

/* Where a system call entry's argument registers are in its data. */
#define SYS_ARGS_AT	5	/* nr:s32, compat:u8 */
#define SYS_ARGS_LEN	48

/*
 * The data of an event of type id as the module has it: what the test
 * made (user events), an event set or an int (system events), a kernel
 * event's fields, a log's DEFINE (id, name, format). False (and the byte
 * in *bad) if not.
 */
static bool data_as_made(uint32_t id, const uint8_t *d, size_t len,
			 size_t *bad)
{
	uint32_t v;
	size_t i;

	*bad = 0;
	if (id == DEFINE_ID) {
		/* An id, a name, maybe a format: each string its NUL. */
		if (!fits_format("i:u32,n:str,f:bytes", d, len, bad))
			return false;
		i = 4 + strlen((const char *)d + 4) + 1;
		*bad = i;
		return i == len ||
		       i + strnlen((const char *)d + i, len - i) + 1 == len;
	}
	if (id >= POSIXTRACE_EVENT_UNNAMED_USER) {
		for (i = 0; i < len; i++) {
			if (d[i] != pat(i, id)) {
				*bad = i;
				return false;
			}
		}
		return true;
	}
	if (kev_kernel(id))
		return fits_format(kev_format(id), d, len, bad);
	switch (id) {
	case POSIXTRACE_EVENT_START:
		return len == EVENTSET_SIZE && set_tail_clear(d, len, bad);
	case POSIXTRACE_EVENT_FILTER:
		return len == 2 * EVENTSET_SIZE && set_tail_clear(d, len, bad);
	case POSIXTRACE_EVENT_STOP:
	case POSIXTRACE_EVENT_ERROR:
		if (len != sizeof(v))
			return false;
		memcpy(&v, d, sizeof(v));
		return id == POSIXTRACE_EVENT_STOP ? v <= 2 : v < 4096;
	case POSIXTRACE_EVENT_OVERFLOW:
	case POSIXTRACE_EVENT_RESUME:
	case POSIXTRACE_EVENT_FLUSH_START:
	case POSIXTRACE_EVENT_FLUSH_STOP:
		return len == 0;
	}
	return false;
}

/*
 * The record at p (a GETNEXT record, or a log's entry: the same layout),
 * left bytes to the end of what holds it: its header as the ABI has it,
 * its data as made, its padding zero, no poison (a system call's
 * registers left out of the runs). Returns its size, or 0 (said).
 */
static size_t check_record(struct __test_metadata *_metadata,
			   const uint8_t *p, size_t left, const char *where,
			   size_t at)
{
	uint8_t copy[sizeof(struct posixtrace_record) + KEV_DATA_MAX + 8];
	struct posixtrace_record r;
	size_t bad = 0;

	if (left < sizeof(r)) {
		fail(_metadata, "%s: %zu bytes at byte %zu, no record", where,
		     left, at);
		return 0;
	}
	memcpy(&r, p, sizeof(r));
	if (r.size < sizeof(r) || r.size % 8 || r.size > left ||
	    r.header_size != sizeof(r) || r.data_len > r.size - sizeof(r) ||
	    ROUND8(sizeof(r) + r.data_len) != r.size ||
	    r.ts_nsec >= 1000000000U || r.truncation > 1 ||
	    r.size > sizeof(copy)) {
		fail(_metadata, "%s: record at byte %zu is malformed: size %u, header %u, type %u, data %u, ns %u, truncation %u",
		     where, at, r.size, r.header_size, r.event_id, r.data_len,
		     r.ts_nsec, r.truncation);
		return 0;
	}
	/* Poison first: the failure then says what the bytes were. */
	memcpy(copy, p, r.size);
	if (r.event_id == POSIXTRACE_EVENT_SYSCALL_ENTRY)
		memset(copy + sizeof(r) + SYS_ARGS_AT, 0, SYS_ARGS_LEN);
	if (leaked(_metadata, copy, r.size, SCAN_RUNS,
		   "%s, record at byte %zu (type %u)", where, at, r.event_id) ||
	    leaked(_metadata, p, r.size, SCAN_MARKERS,
		   "%s, record at byte %zu (type %u)", where, at, r.event_id))
		return 0;
	if (!all_are(p + sizeof(r) + r.data_len,
		     r.size - sizeof(r) - r.data_len, 0, &bad)) {
		fail(_metadata, "%s: record at byte %zu (type %u, %u bytes of data): padding byte %zu is 0x%02x, not 0",
		     where, at, r.event_id, r.data_len, bad,
		     p[sizeof(r) + r.data_len + bad]);
		return 0;
	}
	if (!data_as_made(r.event_id, p + sizeof(r), r.data_len, &bad)) {
		fail(_metadata, "%s: record at byte %zu (type %u, %u bytes): data byte %zu (0x%02x) is not what was made",
		     where, at, r.event_id, r.data_len, bad,
		     bad < r.data_len ? p[sizeof(r) + bad] : 0);
		return 0;
	}
	return r.size;
}

/* @count records in @bytes at b, each checked. */
static void check_batch(struct __test_metadata *_metadata, const uint8_t *b,
			size_t bytes, uint32_t count, const char *where)
{
	size_t off = 0, size;
	uint32_t n = 0;

	while (off < bytes) {
		size = check_record(_metadata, b + off, bytes - off, where,
				    off);
		if (!size)
			return;
		off += size;
		n++;
	}
	if (n != count)
		fail(_metadata, "%s: %u records in the batch, GETNEXT said %u",
		     where, n, count);
}

/*
 * Read the stream on sfd to its end by raw GETNEXT (NONBLOCK): into a
 * buffer filled with FILL first, or left in its mapping @map of
 * @map_size bytes (@mapped). Each time: the struct GETNEXT gave back, the
 * batch, nothing written past it, the whole mapping. Returns the records
 * read.
 */
static unsigned long read_raw(struct __test_metadata *_metadata, int sfd,
			      const uint8_t *map, size_t map_size,
			      const char *what)
{
	const size_t room = READ_ROOM + 4096;
	uint8_t *buf = malloc(room);
	struct posixtrace_getnext gn;
	unsigned long total = 0;
	char where[160];
	size_t bad = 0;
	int turn;

	if (!buf) {
		fail(_metadata, "%s: no memory", what);
		return 0;
	}
	for (turn = 0; turn < 10000; turn++) {
		memset(buf, FILL, room);
		memset(&gn, 0, sizeof(gn));
		gn.size = sizeof(gn);
		gn.flags = POSIXTRACE_GETNEXT_NONBLOCK |
			   (map ? POSIXTRACE_GETNEXT_MAPPED : 0);
		gn.buf = (uintptr_t)buf;
		gn.buf_size = room;
		/* Outputs, "ignored on input": what is not written shows. */
		gn.count = gn.bytes = FILL32;
		gn.map_offset = gn.map_size = FILL64;
		snprintf(where, sizeof(where), "%s: GETNEXT %d%s", what, turn,
			 map ? " (mapped)" : "");
		if (ioctl(sfd, POSIXTRACE_IOC_GETNEXT, &gn)) {
			fail(_metadata, "%s: %s", where, strerror(errno));
			break;
		}
		CLEAN(&gn, sizeof(gn), "%s: struct posixtrace_getnext", where);
		if (gn.size != sizeof(gn) || gn.__reserved || gn.__reserved2 ||
		    gn.bytes > room || (map && gn.map_size != map_size) ||
		    gn.map_size % page_size()) {
			fail(_metadata, "%s: struct: size %u, reserved %u %u, bytes %u, map_size %llu",
			     where, gn.size, gn.__reserved, gn.__reserved2,
			     gn.bytes, (unsigned long long)gn.map_size);
			break;
		}
		if (!gn.count)
			break;
		total += gn.count;
		if (map) {
			if (gn.map_offset > map_size ||
			    gn.bytes > map_size - gn.map_offset) {
				fail(_metadata, "%s: batch at %llu, %u bytes, outside the mapping",
				     where, (unsigned long long)gn.map_offset,
				     gn.bytes);
				break;
			}
			check_batch(_metadata, map + gn.map_offset, gn.bytes,
				    gn.count, where);
			CLEAN(map, map_size, "%s: the batch buffer mapped",
			      where);
			if (!all_are(buf, room, FILL, &bad))
				fail(_metadata, "%s: byte %zu of buf written",
				     where, bad);
			continue;
		}
		if (gn.map_offset != POSIXTRACE_GETNEXT_IN_BUF)
			fail(_metadata, "%s: map_offset %llu", where,
			     (unsigned long long)gn.map_offset);
		check_batch(_metadata, buf, gn.bytes, gn.count, where);
		if (!all_are(buf + gn.bytes, room - gn.bytes, FILL, &bad))
			fail(_metadata, "%s: byte %zu past the batch's %u written",
			     where, gn.bytes + bad, gn.bytes);
	}
	free(buf);
	return total;
}

/* ---- what the kernel poisons ------------------------------------------- */

/* What this kernel does to the memory it frees and allocates. */
struct poison_state {
	bool page;		/* page_poison=1: free pages hold 0xaa */
	bool slab;		/* slub_debug=P: kmalloc objects hold 0x6b */
	bool alloc_init;	/* init_on_alloc: what it allocates is zeroed */
	bool free_init;		/* init_on_free: what it frees is zeroed */
	const char *stack;	/* how stack variables start */
};

/* klogctl()'s actions (SYSLOG_ACTION_*, which glibc does not name). */
#define LOG_READ_ALL	3
#define LOG_SIZE_BUFFER	10

/*
 * From the command line, the slab's sysfs and the kernel's "mem
 * auto-init" line. What cannot be told is taken as off: the spray then
 * fills what the kernel may leave as it was.
 */
static const struct poison_state *poison_state(void)
{
	static struct poison_state st;
	static bool known;
	char cmdline[4096] = "", *log, *p;
	int fd, n, len;
	FILE *f;

	if (known)
		return &st;
	known = true;
	st.stack = "unknown";
	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, cmdline, sizeof(cmdline) - 1);
		cmdline[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	st.page = strstr(cmdline, "page_poison=1") ||
		  strstr(cmdline, "page_poison=on");
	f = fopen("/sys/kernel/slab/kmalloc-64/poison", "r");
	if (f) {
		st.slab = fgetc(f) == '1';
		fclose(f);
	}
	/* "mem auto-init: stack:all(zero), heap alloc:on, heap free:off" */
	len = klogctl(LOG_SIZE_BUFFER, NULL, 0);
	log = len > 0 ? malloc(len + 1) : NULL;
	if (!log)
		return &st;
	n = klogctl(LOG_READ_ALL, log, len);
	log[n > 0 ? n : 0] = '\0';
	p = strstr(log, "mem auto-init: stack:");
	if (p && strstr(p, "heap alloc:") && strstr(p, "heap free:")) {
		st.alloc_init = !strncmp(strstr(p, "heap alloc:") + 11, "on", 2);
		st.free_init = !strncmp(strstr(p, "heap free:") + 10, "on", 2);
		p += strlen("mem auto-init: stack:");
		st.stack = !strncmp(p, "all(pattern)", 12) ? "pattern (0xfe)" :
			   !strncmp(p, "all(zero)", 9) ? "zero" : "off";
	}
	free(log);
	return &st;
}

/* ---- poisoning memory --------------------------------------------------- */

/* The CPUs this process may run on, into *set; how many. */
static int cpus(cpu_set_t *set)
{
	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(*set), set))
		return 0;
	return CPU_COUNT(set);
}

static void pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/* Fill len bytes with marker m, in phase with their address. */
static void fill_marker(void *p, size_t len, const uint8_t *m)
{
	uint64_t word, *w = p;
	size_t i;

	memcpy(&word, m, sizeof(word));
	for (i = 0; i < len / 8; i++)
		w[i] = word;
}

/*
 * Pages with the marker, given back to the page allocator: unmapped
 * (and, but for what the per-CPU lists keep, free at once).
 */
static void spray_pages(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	fill_marker(p, bytes, spray);
	munmap(p, bytes);
}

/*
 * Datagrams of 32 B to 16 KiB with the marker, queued then read: their
 * heads come from the kmalloc caches of those sizes, and go back there.
 */
static void spray_slab(void)
{
	static uint64_t msg[16384 / 8];
	int sv[2], size = 4 << 20, i, n;
	size_t len;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	fill_marker(msg, sizeof(msg), spray);
	for (len = 32; len <= sizeof(msg); len += len / 2) {
		for (n = 0; n < 32; n++)
			if (send(sv[0], msg, len, MSG_DONTWAIT) < 0)
				break;
		for (i = 0; i < n; i++)
			recv(sv[1], msg, sizeof(msg), MSG_DONTWAIT);
		fill_marker(msg, sizeof(msg), spray);
	}
	close(sv[0]);
	close(sv[1]);
}

/*
 * The spray, from a child (its registers, not ours, held the marker): of
 * what this kernel neither poisons when freed nor zeroes when allocated.
 */
static void spray_memory(void)
{
	const struct poison_state *st = poison_state();
	bool pages = !st->alloc_init && !st->free_init && !st->page;
	bool slab = !st->alloc_init && !st->free_init && !st->slab;
	cpu_set_t set;
	int cpu;
	pid_t c;

	if (!pages && !slab)
		return;
	c = fork();
	if (c == 0) {
		cpus(&set);
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &set))
				continue;
			pin(cpu);
			if (pages)
				spray_pages((size_t)SPRAY_MIB << 20);
			if (slab)
				spray_slab();
		}
		_exit(0);
	}
	if (c > 0)
		waitpid(c, NULL, 0);
}

/* A raw stream as these arguments say, with a name: fd or -errno. */
static int raw_stream(int dev, pid_t pid, int mem_fd, uint64_t size,
		      uint32_t policy, uint32_t kernel, int log_fd,
		      uint32_t log_policy)
{
	struct posixtrace_attr a = {
		.stream_size = size,
		.max_data_size = kernel ? KEV_DATA_MAX : MAX_DATA,
		.log_size = 1 << 20,
		.stream_full_policy = policy,
		.log_full_policy = log_policy,
		.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
		.kernel_events = kernel,
	};

	strcpy(a.name, "leak");
	return raw_create_on(dev, &a, pid, mem_fd, log_fd);
}

/* A stream on process pid (its /proc/PID/mem the proof): fd or -errno. */
static int raw_stream_on(int dev, pid_t pid, uint64_t size,
			 uint32_t kernel)
{
	char path[64];
	int mem, fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	mem = open(path, O_RDONLY | O_CLOEXEC);
	if (mem < 0)
		return -errno;
	fd = raw_stream(dev, pid, mem, size, POSIXTRACE_LOOP, kernel, -1,
			POSIXTRACE_LOOP);
	close(mem);
	return fd;
}

/* Read a stream and drop what it holds (the secret's reader). */
static void drain_stream(int sfd)
{
	static uint8_t buf[READ_ROOM];
	uint32_t count, bytes;

	while (!raw_getnext(sfd, buf, sizeof(buf), POSIXTRACE_GETNEXT_NONBLOCK,
			    NULL, &count, &bytes) && count)
		;
}

/* Strings of the secret: @len bytes and a NUL. */
static void secret_string(char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		s[i] = (char)secret[i % 8];
	s[len] = '\0';
}

/* The secret's exec: /proc/self/exe, which exits at once (kevent_common.h). */
static void secret_exec(void)
{
	char a1[200], a2[300], a3[40];
	char *argv[] = { a1, a2, a3, a3, a1, NULL };

	secret_string(a1, sizeof(a1) - 1);
	secret_string(a2, sizeof(a2) - 1);
	secret_string(a3, sizeof(a3) - 1);
	setenv(KEV_EXIT_ENV, "0", 1);
	execv("/proc/self/exe", argv);
	_exit(127);
}

/*
 * As SECRET_UID (if we are root): events carrying the secret through
 * every path a user has, some read, a log, and with @exec an exec
 * recorded; then every stream shut down. Exits.
 */
static void secret_user(bool exec)
{
	static uint8_t d[4096];
	int dev, sfd, kfd, lfd, log, i, go[2];
	char path[64];
	uint32_t id;
	pid_t c;

	if (!geteuid() && !become_user(SECRET_UID))
		_exit(1);
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		_exit(2);
	fill_marker(d, sizeof(d), secret);
	id = raw_eventid(dev, "leak.secret", NULL);
	sfd = raw_stream(dev, 0, -1, 64 << 10, POSIXTRACE_LOOP, 0, -1,
			 POSIXTRACE_LOOP);
	if (!id || sfd < 0)
		_exit(3);
	raw_control(sfd, POSIXTRACE_IOC_START);
	/* More than the stream holds: LOOP goes round, the rings grow. */
	for (i = 0; i < 96; i++) {
		if (i % 3 == 0)
			posix_trace_event(id, d, 100 + i * 41 % 512);
		else
			raw_event(dev, id, d, 100 + i * 41 % 512,
				  i % 3 == 2 ? POSIXTRACE_EVENT_RINGLESS : 0);
		if (i == 48)
			drain_stream(sfd);
	}
	drain_stream(sfd);
	/* Its log, in a file of its own, written and closed. */
	snprintf(path, sizeof(path), "/tmp/leak-secret-%d", (int)getpid());
	log = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	lfd = log < 0 ? -1 : raw_stream(dev, 0, -1, 64 << 10,
					POSIXTRACE_FLUSH, 0, log,
					POSIXTRACE_APPEND);
	if (lfd >= 0) {
		raw_control(lfd, POSIXTRACE_IOC_START);
		for (i = 0; i < 32; i++)
			raw_event(dev, id, d, 200 + i * 13 % 300, 0);
		raw_control(lfd, POSIXTRACE_IOC_FLUSH);
		raw_control(lfd, POSIXTRACE_IOC_SHUTDOWN);
		close(lfd);
	}
	if (log >= 0) {
		close(log);
		unlink(path);
	}
	/* An exec with secret arguments, recorded (the per-CPU buffer). */
	c = exec && !pipe2(go, O_CLOEXEC) ? fork() : -1;
	if (c == 0) {
		wait_byte(go[0]);
		secret_exec();
	}
	kfd = c < 0 ? -1 : raw_stream_on(dev, c, 256 << 10,
					 POSIXTRACE_KERNEL_PROC);
	if (kfd >= 0)
		raw_control(kfd, POSIXTRACE_IOC_START);
	if (c > 0) {
		put_byte(go[1], 'g');
		waitpid(c, NULL, 0);
	}
	if (kfd >= 0) {
		drain_stream(kfd);
		raw_control(kfd, POSIXTRACE_IOC_SHUTDOWN);
	}
	raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN);
	_exit(0);
}

/*
 * As root (the syscall class needs CAP_PERFMON): system calls whose paths
 * and socket addresses carry the secret, recorded on every CPU (their
 * per-CPU buffer). Exits.
 */
static void secret_calls(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char p1[300], p2[100];
	int dev, sfd, s, cpu;
	cpu_set_t set;

	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	sfd = dev < 0 ? -1 : raw_stream(dev, 0, -1, 256 << 10,
					POSIXTRACE_LOOP,
					POSIXTRACE_KERNEL_SYSCALL, -1,
					POSIXTRACE_LOOP);
	if (sfd < 0)
		_exit(0);
	p1[0] = '/';
	secret_string(p1 + 1, sizeof(p1) - 2);
	p2[0] = '/';
	secret_string(p2 + 1, sizeof(p2) - 2);
	secret_string(sun.sun_path, sizeof(sun.sun_path) - 1);
	raw_control(sfd, POSIXTRACE_IOC_START);
	cpus(&set);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		pin(cpu);
		close(open(p1, O_RDONLY | O_CLOEXEC));
		rename(p1, p2);
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		connect(s, (struct sockaddr *)&sun, sizeof(sun));
		close(s);
	}
	/* Stopped first: each read of our own calls would make more. */
	raw_control(sfd, POSIXTRACE_IOC_STOP);
	drain_stream(sfd);
	raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN);
	_exit(0);
}

/*
 * What each test does first: the other user's secret, with @kernel the
 * per-CPU buffers of exec and system call events too; the spray.
 */
static void poison_memory(bool kernel)
{
	pid_t c = fork();

	if (c == 0)
		secret_user(kernel);
	if (c > 0)
		waitpid(c, NULL, 0);
	c = kernel && !geteuid() ? fork() : -1;
	if (c == 0)
		secret_calls();
	if (c > 0)
		waitpid(c, NULL, 0);
	spray_memory();
}

/* How many times each test poisons and checks (leak-rounds beside us). */
static int rounds(void)
{
	char path[4096];
	int n = 1;
	FILE *f;

	if (!beside_program(path, sizeof(path), "leak-rounds"))
		return 1;
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (fscanf(f, "%d", &n) != 1 || n < 1)
		n = 1;
	fclose(f);
	return n;
}

#define SKIP_WITHOUT_ROOT() do {					\
	if (geteuid())							\
		SKIP(return, "needs root (another user's secret, the syscall class)"); \
} while (0)

/* ---- the tests -------------------------------------------------------- */

/* Say which poisons this kernel puts in freed memory. */
TEST(poisoning)
{
	const struct poison_state *st = poison_state();

	SKIP_WITHOUT_DEVICE();
	ksft_print_msg("poisoning: page_poison %s, slab poison %s, init_on_alloc %s, init_on_free %s, stack init %s\n",
		       st->page ? "on" : "off", st->slab ? "on" : "off",
		       st->alloc_init ? "on" : "off",
		       st->free_init ? "on" : "off", st->stack);
	if (!st->page || !st->slab || st->alloc_init || st->free_init)
		ksft_print_msg("poisoning is off (boot with init_on_alloc=0 init_on_free=0 page_poison=1 slub_debug=P,kmalloc-* for it): looking for the spray and the other user's secret only\n");
	if (!st->alloc_init && !st->free_init && (!st->page || !st->slab))
		ksft_print_msg("the spray fills what the kernel does not poison: %s\n",
			       !st->page && !st->slab ? "pages and slab" :
			       !st->page ? "pages" : "slab");
}

/* Every file of a directory the module fills (text): no poison. */
static void scan_files(struct __test_metadata *_metadata, const char *dir)
{
	char path[512], buf[4096];
	struct dirent *e;
	ssize_t n;
	DIR *d;
	int fd;

	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(buf, FILL, sizeof(buf));
		n = read(fd, buf, sizeof(buf));
		if (n > 0)
			CLEAN(buf, sizeof(buf), "%s", path);
		close(fd);
	}
	closedir(d);
}

/*
 * Every ioctl with an output struct: VERSION to GET_SYSCALLS; and the
 * module's parameters and debugfs files.
 */
TEST(ioctl_outputs)
{
	/* Room past what the kernel may write: it must stay FILL. */
	char name[POSIXTRACE_EVENT_NAME_MAX + 1 + 16];
	char fmt[POSIXTRACE_FORMAT_MAX + 1 + 16];
	uint32_t kernel = POSIXTRACE_KERNEL_PROC | POSIXTRACE_KERNEL_SIGNAL |
			  POSIXTRACE_KERNEL_SYSCALL | POSIXTRACE_KERNEL_SCHED;
	struct posixtrace_eventset set, got;
	struct posixtrace_syscalls sc;
	struct posixtrace_eventtype et;
	struct posixtrace_version ver;
	struct posixtrace_eventid eid;
	struct posixtrace_filter flt;
	struct posixtrace_status st;
	struct posixtrace_attr a;
	int dev, sfd, round, types;
	uint32_t id, next;
	size_t bad = 0, nlen;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	for (round = 0; round < rounds(); round++) {
		poison_memory(false);

		memset(&ver, FILL, sizeof(ver));
		ver.size = sizeof(ver);
		ver.flags = 0;
		ver.__reserved = 0;
		ASSERT_EQ(0, ioctl(dev, POSIXTRACE_IOC_VERSION, &ver));
		CLEAN(&ver, sizeof(ver), "VERSION");
		EXPECT_EQ(sizeof(ver), ver.size);
		EXPECT_EQ(0, ver.__reserved);
		EXPECT_EQ(POSIXTRACE_ABI_MAJOR, ver.major);

		memset(&eid, 0, sizeof(eid));
		eid.size = sizeof(eid);
		eid.name = (uintptr_t)"leak.ioctl";
		eid.format = (uintptr_t)"b:bytes";
		eid.event_id = FILL32;
		ASSERT_EQ(0, ioctl(dev, POSIXTRACE_IOC_EVENTID_OPEN, &eid));
		CLEAN(&eid, sizeof(eid), "EVENTID_OPEN");
		EXPECT_EQ(0, eid.__reserved);
		id = eid.event_id;
		EXPECT_LE(POSIXTRACE_EVENT_UNNAMED_USER, id);

		sfd = raw_stream(dev, 0, -1, 256 << 10, POSIXTRACE_LOOP,
				 kernel, -1, POSIXTRACE_LOOP);
		ASSERT_LE(0, sfd);
		ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_START));
		make_events(dev, id, 20);

		memset(&a, FILL, sizeof(a));
		a.size = sizeof(a);
		a.flags = 0;
		a.__reserved2 = 0;
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_GET_ATTR, &a));
		CLEAN(&a, sizeof(a), "GET_ATTR");
		nlen = strnlen(a.name, sizeof(a.name));
		EXPECT_TRUE(nlen < sizeof(a.name) &&
			    all_are(a.name + nlen, sizeof(a.name) - nlen, 0,
				    NULL)) {
			TH_LOG("GET_ATTR: the name's bytes after its NUL");
		}
		EXPECT_EQ(0, a.flags);
		EXPECT_EQ(0, a.__reserved2);
		EXPECT_EQ(kernel, a.kernel_events);

		memset(&st, FILL, sizeof(st));
		st.size = sizeof(st);
		st.flags = 0;
		st.__reserved = 0;
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_STATUS, &st));
		CLEAN(&st, sizeof(st), "STATUS");
		EXPECT_EQ(sizeof(st), st.size);
		EXPECT_EQ(0, st.__reserved);
		EXPECT_EQ(POSIXTRACE_RUNNING, st.state);
		EXPECT_EQ(POSIXTRACE_NOT_FLUSHING, st.flush_status);

		memset(&eid, 0, sizeof(eid));
		eid.size = sizeof(eid);
		eid.name = (uintptr_t)"leak.trid";
		eid.event_id = FILL32;
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_TRID_EVENTID_OPEN,
				   &eid));
		CLEAN(&eid, sizeof(eid), "TRID_EVENTID_OPEN");
		EXPECT_EQ(0, eid.__reserved);

		/* Every type, its name and format: nothing past their NUL. */
		types = 0;
		for (next = 0; types < 2000; next = et.event_id + 1) {
			memset(&et, FILL, sizeof(et));
			et.size = sizeof(et);
			et.flags = 0;
			et.event_id = next;
			et.name = (uintptr_t)name;
			et.format = (uintptr_t)fmt;
			et.format_size = sizeof(fmt);
			memset(name, FILL, sizeof(name));
			memset(fmt, FILL, sizeof(fmt));
			ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_EVENTTYPE_NEXT,
					   &et));
			CLEAN(&et, sizeof(et), "EVENTTYPE_NEXT %u", next);
			if (!et.found)
				break;
			types++;
			CLEAN(name, sizeof(name), "EVENTTYPE_NEXT %u: name",
			      et.event_id);
			CLEAN(fmt, sizeof(fmt), "EVENTTYPE_NEXT %u: format",
			      et.event_id);
			nlen = strnlen(name, sizeof(name));
			EXPECT_TRUE(nlen < sizeof(name) &&
				    all_are(name + nlen + 1,
					    sizeof(name) - nlen - 1, FILL,
					    &bad)) {
				TH_LOG("type %u: name written past its NUL",
				       et.event_id);
			}
			EXPECT_TRUE(et.format_len ?
				    strlen(fmt) + 1 == et.format_len &&
				    all_are(fmt + et.format_len,
					    sizeof(fmt) - et.format_len, FILL,
					    &bad) :
				    all_are(fmt, sizeof(fmt), FILL, &bad)) {
				TH_LOG("type %u: format of %u bytes, byte %zu written",
				       et.event_id, et.format_len, bad);
			}
		}
		EXPECT_LE(8 + 11 + 1, types);

		memset(&et, FILL, sizeof(et));
		et.size = sizeof(et);
		et.flags = 0;
		et.event_id = POSIXTRACE_EVENT_PROC_EXEC;
		et.name = (uintptr_t)name;
		et.format = 0;
		memset(name, FILL, sizeof(name));
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_EVENTID_NAME, &et));
		CLEAN(&et, sizeof(et), "EVENTID_NAME");
		CLEAN(name, sizeof(name), "EVENTID_NAME: name");
		EXPECT_STREQ("posixtrace_proc_exec", name);

		/* A filter set, then got back: no more than the set's words. */
		memset(&set, 0, sizeof(set));
		set.bits[id / 64] |= 1ULL << (id % 64);
		set.bits[0] |= 1ULL << POSIXTRACE_EVENT_SCHED_IN;
		memset(&flt, 0, sizeof(flt));
		flt.size = sizeof(flt);
		flt.how = POSIXTRACE_SET_EVENTSET;
		flt.set = (uintptr_t)&set;
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_SET_FILTER, &flt));
		memset(&got, FILL, sizeof(got));
		flt.how = 0;
		flt.set = (uintptr_t)&got;
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_GET_FILTER, &flt));
		CLEAN(&got, sizeof(got), "GET_FILTER");
		CLEAN(&flt, sizeof(flt), "GET_FILTER: struct");
		EXPECT_EQ(0, memcmp(&set, &got, sizeof(set)));

		memset(&sc, FILL, sizeof(sc));
		sc.size = sizeof(sc);
		sc.compat = 0;
		sc.__reserved = 0;
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_GET_SYSCALLS, &sc));
		CLEAN(&sc, sizeof(sc), "GET_SYSCALLS");
		EXPECT_EQ(sizeof(sc), sc.size);
		EXPECT_EQ(POSIXTRACE_SYSCALLS_ALL, sc.flags);
		EXPECT_EQ(0, sc.__reserved);
		EXPECT_TRUE(all_are(sc.bits, sizeof(sc.bits), 0, &bad)) {
			TH_LOG("GET_SYSCALLS of every call: byte %zu of bits",
			       bad);
		}
		memset(&sc, 0, sizeof(sc));
		sc.size = sizeof(sc);
		sc.bits[0] = 1ULL << 2 | 1ULL << 39;
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_SET_SYSCALLS, &sc));
		memset(&sc, FILL, sizeof(sc));
		sc.size = sizeof(sc);
		sc.compat = 0;
		sc.__reserved = 0;
		ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_GET_SYSCALLS, &sc));
		CLEAN(&sc, sizeof(sc), "GET_SYSCALLS of a selection");
		EXPECT_EQ(0, sc.flags);
		EXPECT_EQ(1ULL << 2 | 1ULL << 39, sc.bits[0]);
		EXPECT_TRUE(all_are(sc.bits + 1, sizeof(sc.bits) - 8, 0,
				    &bad));

		scan_files(_metadata, "/sys/module/posixtrace/parameters");
		scan_files(_metadata, "/sys/kernel/debug/posixtrace");

		/* What the stream holds, its own STOP included. */
		ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_STOP));
		EXPECT_LT(20, read_raw(_metadata, sfd, NULL, 0, "ioctl stream"));
		ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN));
		close(sfd);
	}
	close(dev);
}

/*
 * GETNEXT, raw: LOOP past its size (OVERFLOW and RESUME), a filter
 * changed while running (FILTER), STOP, truncated events; copied, then in
 * the batch buffer, whose fresh mapping is all zero. UNTIL_FULL's own
 * STOP too.
 */
TEST(getnext_raw)
{
	static const struct {
		uint64_t size;
		uint32_t policy;
		bool mapped;
		const char *what;
	} modes[] = {
		{ 16 << 10, POSIXTRACE_LOOP, false, "LOOP stream" },
		{ 16 << 10, POSIXTRACE_LOOP, true, "LOOP stream, mapped" },
		{ 8 << 10, POSIXTRACE_UNTIL_FULL, false, "UNTIL_FULL stream" },
	};
	struct posixtrace_eventset set;
	struct posixtrace_filter flt = {
		.size = sizeof(flt),
		.how = POSIXTRACE_ADD_EVENTSET,
		.set = (uintptr_t)&set,
	};
	uint8_t buf[64];
	struct posixtrace_getnext gn = {
		.size = sizeof(gn),
		.flags = POSIXTRACE_GETNEXT_NONBLOCK,
		.buf = (uintptr_t)buf,
		.buf_size = sizeof(buf),
	};
	int dev, sfd, round, mode;
	uint32_t id, count, bytes;
	size_t map_size, bad = 0;
	const uint8_t *map;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	id = raw_eventid(dev, "leak.getnext", NULL);
	ASSERT_NE(0, id);
	for (round = 0; round < rounds(); round++) {
		poison_memory(false);
		for (mode = 0; mode < ARRAY_LEN(modes); mode++) {
			sfd = raw_stream(dev, 0, -1, modes[mode].size,
					 modes[mode].policy, 0, -1,
					 POSIXTRACE_LOOP);
			ASSERT_LE(0, sfd);
			/* Its batch buffer, mapped before any record. */
			ASSERT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_GETNEXT, &gn));
			map_size = gn.map_size;
			ASSERT_LT(0, map_size);
			map = mmap(NULL, map_size, PROT_READ, MAP_SHARED, sfd,
				   0);
			ASSERT_NE(MAP_FAILED, map);
			EXPECT_TRUE(all_are(map, map_size, 0, &bad)) {
				TH_LOG("a new batch buffer, mapped: byte %zu is 0x%02x",
				       bad, map[bad]);
				CLEAN(map, map_size, "new batch buffer");
			}
			/* Past its size (LOOP: OVERFLOW, RESUME); FILTER. */
			ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_START));
			make_events(dev, id, 150);
			memset(&set, 0, sizeof(set));
			set.bits[0] = 1ULL << POSIXTRACE_EVENT_SCHED_OUT;
			EXPECT_EQ(0, ioctl(sfd, POSIXTRACE_IOC_SET_FILTER,
					   &flt));
			make_events(dev, id, 7);
			raw_control(sfd, POSIXTRACE_IOC_STOP);
			EXPECT_LT(10, read_raw(_metadata, sfd,
					       modes[mode].mapped ? map : NULL,
					       map_size, modes[mode].what));
			/* A second time round the mapping: other records. */
			raw_control(sfd, POSIXTRACE_IOC_START);
			make_events(dev, id, 40);
			raw_control(sfd, POSIXTRACE_IOC_STOP);
			EXPECT_LT(10, read_raw(_metadata, sfd, map, map_size,
					       "stream read again, mapped"));
			CLEAN(map, map_size, "the batch buffer at the end");
			EXPECT_EQ(0, raw_getnext(sfd, buf, sizeof(buf),
						 POSIXTRACE_GETNEXT_NONBLOCK,
						 NULL, &count, &bytes));
			EXPECT_EQ(0, count);
			munmap((void *)map, map_size);
			ASSERT_EQ(0, raw_control(sfd,
						 POSIXTRACE_IOC_SHUTDOWN));
			close(sfd);
		}
	}
	close(dev);
}

/* One event through the library's three readers, checked. */
static int lib_read(struct __test_metadata *_metadata, trace_id_t trid,
		    int how, const char *what)
{
	struct posix_trace_event_info info;
	uint8_t data[MAX_DATA + 64];
	struct timespec soon;
	size_t len = FILL64, bad;
	int ret, unavailable = FILL;

	memset(&info, FILL, sizeof(info));
	memset(data, FILL, sizeof(data));
	soon = realtime_in_ms(2000);
	ret = how == 0 ? posix_trace_getnext_event(trid, &info, data,
						   sizeof(data), &len,
						   &unavailable) :
	      how == 1 ? posix_trace_trygetnext_event(trid, &info, data,
						      sizeof(data), &len,
						      &unavailable) :
			 posix_trace_timedgetnext_event(trid, &info, data,
							sizeof(data), &len,
							&unavailable, &soon);
	if (ret) {
		fail(_metadata, "%s: %s", what, strerror(ret));
		return -1;
	}
	if (unavailable)
		return 0;
	CLEAN(&info, sizeof(info), "%s: struct posix_trace_event_info", what);
	CLEAN(data, sizeof(data), "%s: data", what);
	if (len > MAX_DATA || info.posix_timestamp.tv_nsec >= 1000000000L ||
	    info.posix_truncation_status > 1 ||
	    !data_as_made(info.posix_event_id, data, len, &bad) ||
	    !all_are(data + len, sizeof(data) - len, FILL, &bad)) {
		fail(_metadata, "%s: event of type %u, %zu bytes, truncation %d, byte %zu",
		     what, info.posix_event_id, len,
		     info.posix_truncation_status, bad);
		return -1;
	}
	return 1;
}

/* posix_trace_getnext_event() and its try and timed forms. */
TEST(getnext_library)
{
	trace_event_id_t id;
	trace_attr_t attr;
	trace_id_t trid;
	int dev, round, i, r, got;
	char what[64];

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, posix_trace_eventid_open("leak.library", &id));
	for (round = 0; round < rounds(); round++) {
		poison_memory(false);
		make_attr(&attr, 1 << 20, MAX_DATA, POSIX_TRACE_LOOP);
		ASSERT_EQ(0, posix_trace_create(0, &attr, &trid));
		posix_trace_attr_destroy(&attr);
		ASSERT_EQ(0, posix_trace_start(trid));
		make_events(dev, id, 200);
		ASSERT_EQ(0, posix_trace_stop(trid));
		/* START, 200 events, STOP: then nothing. */
		for (i = got = 0; i < 202; i++) {
			snprintf(what, sizeof(what), "library read %d (%s)", i,
				 i % 3 == 0 ? "getnext" : i % 3 == 1 ?
				 "trygetnext" : "timedgetnext");
			r = lib_read(_metadata, trid, i % 3, what);
			if (r < 0)
				break;
			got += r;
		}
		EXPECT_EQ(202, got);
		EXPECT_EQ(0, lib_read(_metadata, trid, 1, "library, at the end"));
		ASSERT_EQ(0, posix_trace_shutdown(trid));
	}
	close(dev);
}

/* What a ring thread was given and found. */
struct ring_ctx {
	struct __test_metadata *md;
	int dev;
	uint32_t id;
	int err;	/* of the first mmap: ENODEV with the rings off */
};

/* Put one record in the ring at *pos, as a thread does (the uapi). */
static void ring_put(struct posixtrace_ring_ctl *ctl, uint8_t *data,
		     uint64_t *pos, uint32_t id, uint32_t len)
{
	uint8_t rec[sizeof(struct posixtrace_ring_record) + 1024] = { 0 };
	struct posixtrace_ring_record h = {
		.size = ROUND8(sizeof(h) + len),
		.event_id = id,
		.data_len = len,
		.prog_address = PROG_ADDRESS,
		.thread = THREAD_ID,
	};
	uint64_t mask = ctl->data_size - 1, next;
	struct timespec ts;
	size_t i;

	clock_gettime(CLOCK_REALTIME, &ts);
	h.ts_sec = ts.tv_sec;
	h.ts_nsec = ts.tv_nsec;
	memcpy(rec, &h, sizeof(h));
	make_data(rec + sizeof(h), len, id);
	for (i = 8; i < h.size; i++)
		data[(*pos + i) & mask] = rec[i];
	next = *pos + h.size;
	/* Its place is free (the first lap): no old commit word there. */
	*(uint64_t *)(data + (next & mask)) = 0;
	__atomic_store_n((uint64_t *)(data + (*pos & mask)), ~*pos,
			 __ATOMIC_RELEASE);
	*pos = next;
	__atomic_store_n(&ctl->produced, next, __ATOMIC_RELEASE);
}

/* A ring's control page as the module made it: members, the rest zero. */
static void check_ring_ctl(struct __test_metadata *_metadata,
			   const struct posixtrace_ring_ctl *ctl,
			   uint64_t size, uint64_t grown_from,
			   const char *what)
{
	size_t bad = 0;

	CLEAN(ctl, page_size(), "%s: control page", what);
	EXPECT_EQ(POSIXTRACE_RING_MAGIC, ctl->magic);
	EXPECT_EQ(POSIXTRACE_RING_LIVE, ctl->state);
	EXPECT_EQ(size, ctl->data_size);
	EXPECT_EQ(page_size(), ctl->data_offset);
	EXPECT_EQ(grown_from, ctl->grown_from);
	EXPECT_TRUE(all_are(ctl->__kernel_reserved,
			    sizeof(ctl->__kernel_reserved), 0, &bad) &&
		    all_are(ctl->__thread_reserved,
			    sizeof(ctl->__thread_reserved), 0, &bad) &&
		    all_are(ctl + 1, page_size() - sizeof(*ctl), 0, &bad)) {
		TH_LOG("%s: reserved or unused byte %zu of the control page",
		       what, bad);
	}
}

/*
 * In a thread of its own (a thread has one ring): a new ring, all zero
 * but its control page; records written; grown: the new one holds the
 * old one's lap, the rest zero.
 */
static void *ring_thread(void *arg)
{
	const size_t small = 16 << 10, big = 64 << 10, ps = page_size();
	struct ring_ctx *ctx = arg;
	struct __test_metadata *_metadata = ctx->md;
	struct posixtrace_ring_ctl *ctl, *ctl2;
	uint8_t *p, *q, *d2;
	uint64_t pos = 0, c, i;
	size_t bad = 0;

	p = mmap(NULL, ps + small, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->dev, POSIXTRACE_RING_OFFSET);
	if (p == MAP_FAILED) {
		ctx->err = errno;
		return NULL;
	}
	ctl = (void *)p;
	check_ring_ctl(_metadata, ctl, small, 0, "new ring");
	EXPECT_EQ(0, ctl->consumed);
	EXPECT_EQ(0, ctl->produced);
	EXPECT_TRUE(all_are(p + ps, small, 0, &bad)) {
		TH_LOG("new ring's data: byte %zu is 0x%02x", bad,
		       p[ps + bad]);
		CLEAN(p + ps, small, "new ring's data");
	}
	for (i = 0; i < 12; i++)
		ring_put(ctl, p + ps, &pos, ctx->id, event_len(i * 7) % 400);

	q = mmap(NULL, ps + big, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->dev,
		 POSIXTRACE_RING_GROW_OFFSET);
	if (q == MAP_FAILED) {
		fail(_metadata, "growing the ring: %s", strerror(errno));
		munmap(p, ps + small);
		return NULL;
	}
	ctl2 = (void *)q;
	d2 = q + ps;
	check_ring_ctl(_metadata, ctl2, big, small, "grown ring");
	EXPECT_EQ(POSIXTRACE_RING_RETIRED, ctl->state);
	EXPECT_EQ(pos, ctl2->produced);
	c = ctl2->consumed;
	EXPECT_LE(c, pos);
	CLEAN(q, ps + big, "grown ring");
	/* The old lap from consumed at its positions, zero elsewhere. */
	for (i = 0; i < big; i++) {
		uint64_t at = c + ((i - (c & (big - 1))) & (big - 1));
		uint8_t want = at - c < small ? p[ps + (at & (small - 1))] : 0;

		if (d2[i] != want) {
			fail(_metadata, "grown ring: data byte %llu is 0x%02x, not 0x%02x",
			     (unsigned long long)i, d2[i], want);
			break;
		}
	}
	munmap(p, ps + small);
	ring_put(ctl2, d2, &pos, ctx->id, 77);
	EXPECT_EQ(0, ioctl(ctx->dev, POSIXTRACE_IOC_RING_DRAIN, 0));
	CLEAN(q, ps + big, "grown ring, drained");
	munmap(q, ps + big);
	return NULL;
}

/* The enable page, a batch buffer, a thread ring and its growth. */
TEST(mapped_pages)
{
	const struct posixtrace_enable_page *ep;
	struct ring_ctx ctx = { .md = _metadata };
	uint64_t tail_mask;
	int sfd, round;
	pthread_t thr;
	size_t bad = 0;
	unsigned long n;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	ctx.dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ctx.dev);
	ctx.id = raw_eventid(ctx.dev, "leak.ring", NULL);
	ASSERT_NE(0, ctx.id);
	for (round = 0; round < rounds(); round++) {
		poison_memory(false);
		sfd = raw_stream(ctx.dev, 0, -1, 1 << 20, POSIXTRACE_LOOP, 0,
				 -1, POSIXTRACE_LOOP);
		ASSERT_LE(0, sfd);
		ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_START));
		ep = map_page(ctx.dev);
		ASSERT_NE(NULL, ep);
		CLEAN(ep, page_size(), "the enable page");
		EXPECT_EQ(POSIXTRACE_ENABLE_MAGIC, ep->magic);
		EXPECT_EQ(0, ep->ring_size & (ep->ring_size - 1));
		tail_mask = POSIXTRACE_EVENT_ID_MAX % 64 ?
			    ~0ULL << (POSIXTRACE_EVENT_ID_MAX % 64) : 0;
		EXPECT_EQ(0, ep->enabled[POSIXTRACE_EVENTSET_WORDS - 1] &
			  tail_mask);
		EXPECT_TRUE(enabled(ep, ctx.id));
		EXPECT_TRUE(all_are(ep->__pad, sizeof(ep->__pad), 0, &bad) &&
			    all_are(ep + 1, page_size() - sizeof(*ep), 0,
				    &bad)) {
			TH_LOG("enable page: byte %zu of its padding or beyond",
			       bad);
		}

		ctx.err = 0;
		ASSERT_EQ(0, pthread_create(&thr, NULL, ring_thread, &ctx));
		pthread_join(thr, NULL);
		if (ctx.err == ENODEV)
			ksft_print_msg("rings are off: no thread ring to look at\n");
		else
			EXPECT_EQ(0, ctx.err);
		munmap((void *)ep, page_size());
		raw_control(sfd, POSIXTRACE_IOC_STOP);
		n = read_raw(_metadata, sfd, NULL, 0, "ring stream");
		if (!ctx.err)
			EXPECT_LE(13 + 2, n);
		raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN);
		close(sfd);
	}
	close(ctx.dev);
}

/* ---- netlink ----------------------------------------------------------- */

/* What the messages of an answer said. */
struct nl_seen {
	uint64_t ids[16];	/* STREAM_ID */
	int nids;
	int shutdowns;		/* NOTIFY of POSIXTRACE_NL_EV_SHUTDOWN */
};

/*
 * Attributes from p, len bytes: each attribute's padding zero, nested
 * TRACED walked, strings ending at their NUL; what they say into seen.
 */
static void check_attrs(struct __test_metadata *_metadata, const uint8_t *p,
			size_t len, const char *where, struct nl_seen *seen)
{
	const struct nlattr *a;
	size_t off = 0, plen, end, bad = 0;
	const uint8_t *v;
	uint16_t type;
	uint32_t u32;

	while (off + NLA_HDRLEN <= len) {
		a = (const void *)(p + off);
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len - off) {
			fail(_metadata, "%s: attribute at byte %zu of length %u",
			     where, off, a->nla_len);
			return;
		}
		type = a->nla_type & NLA_TYPE_MASK;
		v = p + off + NLA_HDRLEN;
		plen = a->nla_len - NLA_HDRLEN;
		end = off + NLA_ALIGN(a->nla_len);
		if (end > len)
			end = len;
		if (!all_are(p + off + a->nla_len, end - off - a->nla_len, 0,
			     &bad))
			fail(_metadata, "%s: attribute %u at byte %zu: padding byte %zu not 0",
			     where, type, off, bad);
		if (type == POSIXTRACE_NL_A_TRACED)
			check_attrs(_metadata, v, plen, where, NULL);
		if ((type == POSIXTRACE_NL_A_NAME ||
		     type == POSIXTRACE_NL_A_LOG_PATH) &&
		    (!plen || strnlen((const char *)v, plen) != plen - 1))
			fail(_metadata, "%s: string attribute %u: %zu bytes, NUL at %zu",
			     where, type, plen, strnlen((const char *)v, plen));
		if (seen && type == POSIXTRACE_NL_A_STREAM_ID && plen == 8 &&
		    seen->nids < ARRAY_LEN(seen->ids))
			memcpy(&seen->ids[seen->nids++], v, 8);
		if (seen && type == POSIXTRACE_NL_A_EVENT && plen == 4) {
			memcpy(&u32, v, 4);
			seen->shutdowns += u32 == POSIXTRACE_NL_EV_SHUTDOWN;
		}
		off = end;
	}
	if (off != len)
		fail(_metadata, "%s: %zu bytes after the last attribute",
		     where, len - off);
}

/*
 * A datagram of n bytes in nl->rx: no poison; each message of the
 * family with its header and attributes checked. True if the answer
 * ends there (DONE, ERROR).
 */
static bool check_datagram(struct __test_metadata *_metadata, struct nl *nl,
			   ssize_t n, const char *where, struct nl_seen *seen)
{
	const struct nlmsghdr *nlh = (const void *)nl->rx;
	const struct genlmsghdr *g;
	size_t rem = n;
	bool done = false;

	CLEAN(nl->rx, n, "%s: datagram", where);
	for (; NLMSG_OK(nlh, rem); nlh = NLMSG_NEXT(nlh, rem)) {
		if (nlh->nlmsg_type == NLMSG_DONE ||
		    nlh->nlmsg_type == NLMSG_ERROR) {
			done = true;
			continue;
		}
		if (nlh->nlmsg_type != nl->family)
			continue;
		g = NLMSG_DATA(nlh);
		if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
		    g->reserved) {
			fail(_metadata, "%s: generic netlink header: length %u, reserved %u",
			     where, nlh->nlmsg_len, g->reserved);
			continue;
		}
		check_attrs(_metadata, (const uint8_t *)g + GENL_HDRLEN,
			    nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, where,
			    seen);
	}
	return done;
}

/* Send the request built and check each datagram of the answer. */
static void nl_checked(struct __test_metadata *_metadata, struct nl *nl,
		       const char *where, struct nl_seen *seen)
{
	ssize_t n;
	int i;

	if (msg_send(nl)) {
		fail(_metadata, "%s: send", where);
		return;
	}
	for (i = 0; i < 1000; i++) {
		n = nl_recv(nl, TIMEOUT_MS);
		if (n < 0) {
			fail(_metadata, "%s: %s", where, strerror(-n));
			return;
		}
		if (check_datagram(_metadata, nl, n, where, seen))
			return;
	}
}

/*
 * The family's answers: a dump, a get of each stream (one with a log),
 * and the notifications of their ends.
 */
TEST(netlink)
{
	int dev, sfd, lfd, log, i, round, turns;
	struct nl_seen dump, get, notes;
	struct nl nl, mon;
	char where[64];
	ssize_t n;
	uint32_t id;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	NL_OPEN(&nl);
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	id = raw_eventid(dev, "leak.netlink", NULL);
	ASSERT_NE(0, id);
	for (round = 0; round < rounds(); round++) {
		poison_memory(false);
		sfd = raw_stream(dev, 0, -1, 64 << 10, POSIXTRACE_LOOP, 0, -1,
				 POSIXTRACE_LOOP);
		ASSERT_LE(0, sfd);
		log = tmp_log();
		ASSERT_LE(0, log);
		lfd = raw_stream(dev, 0, -1, 64 << 10, POSIXTRACE_FLUSH, 0, log,
				 POSIXTRACE_APPEND);
		ASSERT_LE(0, lfd);
		raw_control(sfd, POSIXTRACE_IOC_START);
		raw_control(lfd, POSIXTRACE_IOC_START);
		make_events(dev, id, 30);

		memset(&dump, 0, sizeof(dump));
		msg_begin(&nl, nl.family, NLM_F_REQUEST | NLM_F_DUMP,
			  POSIXTRACE_NL_CMD_GET);
		nl_checked(_metadata, &nl, "netlink dump", &dump);
		EXPECT_LE(2, dump.nids);
		for (i = 0; i < dump.nids; i++) {
			memset(&get, 0, sizeof(get));
			msg_begin(&nl, nl.family, NLM_F_REQUEST | NLM_F_ACK,
				  POSIXTRACE_NL_CMD_GET);
			msg_u64(&nl, POSIXTRACE_NL_A_STREAM_ID, dump.ids[i]);
			snprintf(where, sizeof(where), "netlink get of stream %llu",
				 (unsigned long long)dump.ids[i]);
			nl_checked(_metadata, &nl, where, &get);
			EXPECT_EQ(1, get.nids);
		}

		/* The notifications, to the group's members (root's). */
		ASSERT_EQ(0, nl_open(&mon));
		ASSERT_NE(0, mon.group);
		ASSERT_EQ(0, setsockopt(mon.fd, SOL_NETLINK,
					NETLINK_ADD_MEMBERSHIP, &mon.group,
					sizeof(mon.group)));
		raw_control(lfd, POSIXTRACE_IOC_FLUSH);
		raw_control(sfd, POSIXTRACE_IOC_STOP);
		raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN);
		raw_control(lfd, POSIXTRACE_IOC_SHUTDOWN);
		close(sfd);
		close(lfd);
		close(log);
		memset(&notes, 0, sizeof(notes));
		for (turns = 0; turns < 200 && notes.shutdowns < 2; turns++) {
			n = nl_recv(&mon, TIMEOUT_MS);
			if (n < 0)
				break;
			check_datagram(_metadata, &mon, n,
				       "netlink notification", &notes);
		}
		EXPECT_EQ(2, notes.shutdowns);
		nl_close(&mon);
	}
	nl_close(&nl);
	close(dev);
}

/* ---- logs --------------------------------------------------------------- */

/* A TYPES block's entries: each a define padded with zeroes. */
static void check_types(struct __test_metadata *_metadata, const uint8_t *b,
			size_t size, const char *where)
{
	const struct posixtrace_log_types *t = (const void *)b;
	size_t off = sizeof(*t), dlen, bad = 0;
	uint32_t elen, i;

	if (t->__reserved)
		fail(_metadata, "%s: TYPES reserved %u", where, t->__reserved);
	for (i = 0; i < t->count && off + 4 <= size; i++) {
		memcpy(&elen, b + off, 4);
		if (elen < 4 + 5 || elen % 8 || elen > size - off) {
			fail(_metadata, "%s: TYPES entry %u of %u bytes", where,
			     i, elen);
			return;
		}
		/* Its define: an id and a NUL-terminated name (and format). */
		dlen = 4 + strnlen((const char *)b + off + 8, elen - 8) + 1;
		if (off + 4 + dlen < off + elen &&
		    b[off + 4 + dlen] != 0)
			dlen += strnlen((const char *)b + off + 4 + dlen,
					elen - 4 - dlen) + 1;
		if (4 + dlen > elen ||
		    !all_are(b + off + 4 + dlen, elen - 4 - dlen, 0, &bad)) {
			fail(_metadata, "%s: TYPES entry %u: byte %zu after its define (%zu bytes) not 0",
			     where, i, 4 + dlen + bad, dlen);
			return;
		}
		off += elen;
	}
	if (i != t->count || off != size)
		fail(_metadata, "%s: TYPES of %u entries, %u walked, %zu of %zu bytes",
		     where, t->count, i, off, size);
}

/* The entries of an EVENTS block or slot, @used bytes of them. */
static unsigned int check_entries(struct __test_metadata *_metadata,
				  const uint8_t *e, size_t used,
				  const char *where, size_t at)
{
	unsigned int n = 0;
	size_t off = 0, size;
	char w[160];

	snprintf(w, sizeof(w), "%s, EVENTS at byte %zu", where, at);
	while (off < used) {
		size = check_record(_metadata, e + off, used - off, w, off);
		if (!size)
			break;
		off += size;
		n++;
	}
	return n;
}

/*
 * A whole log file: its header, every block, every slot, each record
 * (as GETNEXT's, in the log's byte order: the same here), every padding
 * and reserved member zero; no poison anywhere.
 */
static void check_log_file(struct __test_metadata *_metadata, int fd,
			   const char *where)
{
	const struct posixtrace_log_header *h;
	const struct posixtrace_log_events *ev;
	const struct posixtrace_log_block *blk;
	const struct posixtrace_log_end *end;
	size_t size, off, len, bad = 0;
	unsigned int events = 0, s;
	struct stat st;
	uint8_t *f;

	ASSERT_EQ(0, fstat(fd, &st));
	size = st.st_size;
	ASSERT_LT(sizeof(*h), size);
	f = malloc(size);
	ASSERT_NE(NULL, f);
	ASSERT_EQ((ssize_t)size, pread(fd, f, size, 0));
	CLEAN(f, size, "%s: the log file", where);
	h = (const void *)f;
	len = strnlen(h->genversion, sizeof(h->genversion));
	EXPECT_TRUE(!memcmp(h->magic, POSIXTRACE_LOG_MAGIC,
			    POSIXTRACE_LOG_MAGIC_LEN) &&
		    h->header_size == sizeof(*h) && !h->__reserved &&
		    len < sizeof(h->genversion) &&
		    all_are(h->genversion + len, sizeof(h->genversion) - len,
			    0, &bad)) {
		TH_LOG("%s: header: size %u, reserved %u, genversion", where,
		       h->header_size, h->__reserved);
	}
	len = strnlen(h->attr.name, sizeof(h->attr.name));
	EXPECT_TRUE(len < sizeof(h->attr.name) &&
		    all_are(h->attr.name + len, sizeof(h->attr.name) - len, 0,
			    &bad)) {
		TH_LOG("%s: header: the name's bytes after its NUL", where);
	}
	off = h->header_size;
	if (h->layout == POSIXTRACE_LOG_SLOTS) {
		for (s = 0; s < h->slot_count; s++, off += h->slot_size) {
			ASSERT_LE(off + h->slot_size, size);
			ev = (const void *)(f + off);
			if (!ev->block.type) {
				/* Never written: all zero, in a new file. */
				EXPECT_TRUE(all_are(f + off, h->slot_size, 0,
						    &bad));
				continue;
			}
			EXPECT_TRUE(ev->block.type ==
				    POSIXTRACE_LOG_BLOCK_EVENTS &&
				    ev->block.size == h->slot_size &&
				    !ev->block.__reserved &&
				    ev->used <= h->slot_size - sizeof(*ev)) {
				TH_LOG("%s: slot %u: type %u, size %llu, used %llu",
				       where, s, ev->block.type,
				       (unsigned long long)ev->block.size,
				       (unsigned long long)ev->used);
				continue;
			}
			events += check_entries(_metadata,
						f + off + sizeof(*ev),
						ev->used, where, off);
		}
	}
	while (off + sizeof(*blk) <= size) {
		blk = (const void *)(f + off);
		if (blk->size < sizeof(*blk) || blk->size % 8 ||
		    blk->size > size - off || blk->__reserved) {
			fail(_metadata, "%s: block at byte %zu: type %u, size %llu, reserved %u",
			     where, off, blk->type,
			     (unsigned long long)blk->size, blk->__reserved);
			break;
		}
		switch (blk->type) {
		case POSIXTRACE_LOG_BLOCK_EVENTS:
			ev = (const void *)blk;
			EXPECT_EQ(blk->size, sizeof(*ev) + ev->used);
			events += check_entries(_metadata,
						f + off + sizeof(*ev),
						blk->size - sizeof(*ev), where,
						off);
			break;
		case POSIXTRACE_LOG_BLOCK_CLEAR:
			EXPECT_EQ(sizeof(*blk), blk->size);
			break;
		case POSIXTRACE_LOG_BLOCK_TYPES:
			check_types(_metadata, f + off, blk->size, where);
			break;
		case POSIXTRACE_LOG_BLOCK_END:
			EXPECT_EQ(sizeof(struct posixtrace_log_end), blk->size);
			end = (const void *)blk;
			EXPECT_EQ(0, end->__reserved);
			break;
		default:
			fail(_metadata, "%s: block of type %u at byte %zu",
			     where, blk->type, off);
		}
		off += blk->size;
	}
	EXPECT_EQ(size, off);
	EXPECT_LT(0, events);
	free(f);
}

/*
 * Logs of every layout and policy, with a format (DEFINE entries carry
 * it), cleared once (a CLEAR block), a filter changed, flushed, and
 * closed (TYPES, END): the whole file.
 */
TEST(log_files)
{
	static const struct {
		uint32_t policy, log_policy;
		size_t log_size;
		const char *what;
	} logs[] = {
		{ POSIXTRACE_FLUSH, POSIXTRACE_APPEND, 1 << 20,
		  "FLUSH stream, APPEND log" },
		{ POSIXTRACE_LOOP, POSIXTRACE_UNTIL_FULL, 12 << 10,
		  "UNTIL_FULL log" },
		{ POSIXTRACE_LOOP, POSIXTRACE_LOOP, 12 << 10,
		  "LOOP log (slots)" },
	};
	struct posixtrace_eventset set = { 0 };
	struct posixtrace_filter flt = {
		.size = sizeof(flt),
		.how = POSIXTRACE_SET_EVENTSET,
		.set = (uintptr_t)&set,
	};
	struct posixtrace_status st;
	int dev, sfd, log, round, i, k;
	uint32_t id;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	id = raw_eventid(dev, "leak.log", "b:bytes");
	ASSERT_NE(0, id);
	for (round = 0; round < rounds(); round++) {
		poison_memory(false);
		for (k = 0; k < ARRAY_LEN(logs); k++) {
			struct posixtrace_attr a = {
				.stream_size = 16 << 10,
				.max_data_size = MAX_DATA,
				.log_size = logs[k].log_size,
				.stream_full_policy = logs[k].policy,
				.log_full_policy = logs[k].log_policy,
				.inheritance = POSIXTRACE_CLOSE_FOR_CHILD,
				.kernel_events = POSIXTRACE_KERNEL_PROC,
			};

			log = tmp_log();
			ASSERT_LE(0, log);
			strcpy(a.name, "leak.log");
			sfd = raw_create_with(dev, &a, log);
			ASSERT_LE(0, sfd) {
				TH_LOG("%s: %s", logs[k].what, strerror(-sfd));
			}
			ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_START));
			for (i = 0; i < 4; i++) {
				make_events(dev, id, 40);
				raw_control(sfd, POSIXTRACE_IOC_FLUSH);
				if (i == 1)
					raw_control(sfd, POSIXTRACE_IOC_CLEAR);
				if (i == 2) {
					set.bits[0] = 1ULL <<
						      POSIXTRACE_EVENT_SCHED_IN;
					ioctl(sfd, POSIXTRACE_IOC_SET_FILTER,
					      &flt);
				}
			}
			/* The flushes done, its status read too. */
			for (i = 0; i < 2000; i++) {
				if (raw_status(sfd, &st) ||
				    st.flush_status != POSIXTRACE_FLUSHING)
					break;
				usleep(1000);
			}
			CLEAN(&st, sizeof(st), "%s: STATUS", logs[k].what);
			raw_control(sfd, POSIXTRACE_IOC_STOP);
			ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN));
			close(sfd);
			EXPECT_TRUE(wait_log_closed(log));
			check_log_file(_metadata, log, logs[k].what);
			close(log);
		}
	}
	close(dev);
}

/* ---- kernel events ----------------------------------------------------- */

static void on_usr1(int sig)
{
	(void)sig;
}

static void *yield_once(void *arg)
{
	sched_yield();
	return arg;
}

/*
 * What the traced child does: short and cut paths, a rename, a socket
 * address, a signal handled, a thread, a fork and exec of 6 arguments.
 */
static int kernel_work(void *arg)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char *argv[] = { "leak-exec", "a", "bb", "ccc", "dddd", "e", NULL };
	char long_path[400];
	pthread_t thr;
	pid_t c;
	int s;

	(void)arg;
	memset(long_path, '/', sizeof(long_path) - 1);
	long_path[sizeof(long_path) - 1] = '\0';
	memcpy(long_path, "/tmp/", 5);
	close(open("/tmp/leak-none", O_RDONLY | O_CLOEXEC));
	close(open(long_path, O_RDONLY | O_CLOEXEC));
	rename("/tmp/leak-x", "/tmp/leak-y");
	strcpy(sun.sun_path, "/tmp/leak-sock");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	connect(s, (struct sockaddr *)&sun, sizeof(sun));
	close(s);
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	if (!pthread_create(&thr, NULL, yield_once, NULL))
		pthread_join(thr, NULL);
	c = fork();
	if (c == 0) {
		setenv(KEV_EXIT_ENV, "3", 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (c > 0)
		waitpid(c, NULL, 0);
	return 0;
}

/* Every class of kernel events of a child, read raw. */
TEST(kernel_events)
{
	uint32_t classes = POSIXTRACE_KERNEL_ALL;
	int dev, sfd, round, go[2], status;
	unsigned long n;
	pid_t c;

	SKIP_WITHOUT_DEVICE();
	SKIP_WITHOUT_ROOT();
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	for (round = 0; round < rounds(); round++) {
		poison_memory(true);
		ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
		c = fork();
		ASSERT_LE(0, c);
		if (c == 0) {
			close(go[1]);
			wait_byte(go[0]);
			_exit(kernel_work(NULL));
		}
		close(go[0]);
		sfd = raw_stream_on(dev, c, 4 << 20, classes);
		ASSERT_LE(0, sfd) {
			kill(c, SIGKILL);
			waitpid(c, NULL, 0);
		}
		ASSERT_EQ(0, raw_control(sfd, POSIXTRACE_IOC_START));
		put_byte(go[1], 'g');
		close(go[1]);
		ASSERT_EQ(c, waitpid(c, &status, 0));
		EXPECT_EQ(0, status);
		raw_control(sfd, POSIXTRACE_IOC_STOP);
		n = read_raw(_metadata, sfd, NULL, 0, "kernel events");
		EXPECT_LT(20, n);
		raw_control(sfd, POSIXTRACE_IOC_SHUTDOWN);
		close(sfd);
	}
	close(dev);
}

TEST_HARNESS_MAIN
