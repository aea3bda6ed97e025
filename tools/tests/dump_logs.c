// SPDX-License-Identifier: GPL-2.0
/*
 * dump_logs DIR: writes into DIR the trace logs dump-test.sh reads, made
 * by the library's own log synthesizer (ulib/tests/log_synth.c), since no
 * log can be recorded without the module. Every log derives from one
 * stream whose events have chosen times, pids, tids and data:
 *
 *	basic.ptlog	whole: two EVENTS blocks, TYPES, END
 *	incomplete.ptlog the same without TYPES and END (writer stopped)
 *	cut.ptlog	cut inside an entry of the second block
 *	damaged.ptlog	an entry of the first block with a bad size
 *	badblock.ptlog	the second block's header with a bad size
 *	times.ptlog	basic.ptlog with an event at the epoch and one
 *			160 years on
 *	pid0.ptlog	basic.ptlog with a user event on pid 0, tid 2
 *	slots.ptlog	LOOP layout, cut inside its second slot; its
 *			filter has types the log never names
 *	typed.ptlog	types with event formats: events that match,
 *			events that do not, a damaged format
 *	typed-incomplete.ptlog the same without TYPES and END: the formats
 *			come from DEFINE entries
 *	forks.ptlog	a shell's 150 forks, each child recording once
 *	kernel.ptlog	a shell script's kernel events (fork, vfork,
 *			a thread, exec, exits, signals) among its own
 *			events, with a gap: trace --replay, dump's
 *			decoding and dump --tree read it
 *	notalog.txt	text
 *
 * The offsets dump reports for the damaged ones are printed on stdout,
 * one "NAME OFFSET" per line, for the test to check against, and every
 * "boundary OFFSET" between blocks of basic.ptlog.
 */

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_synth.h"

#define BASE_SEC	1764122400	/* 2025-11-26T02:00:00Z */
#define BASE_NSEC	123456789

enum {
	ID_STEP = 65,
	ID_BIN,
	ID_DEBUG,
	ID_RECV,
};

static const char *dir;

static void die(const char *what)
{
	fprintf(stderr, "dump_logs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void save(const char *name, const unsigned char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		die(path);
}

/*
 * The last event written gets the time BASE + off_nsec and, for user
 * events, pid and tid: the synthesizer derives them from seq otherwise.
 */
static void stamp(struct synth *s, int64_t off_nsec, int32_t pid, int32_t tid)
{
	const struct synth_event *e = &s->events[s->nevents - 1];
	int64_t ns = BASE_NSEC + off_nsec;

	synth_put64(s, e->pos + 8, (uint64_t)(BASE_SEC + ns / 1000000000));
	synth_put32(s, e->pos + 16, (uint32_t)(ns % 1000000000));
	if (e->id >= POSIXTRACE_EVENT_SYSTEM_MAX) {
		synth_put32(s, e->pos + 24, (uint32_t)pid);
		synth_put32(s, e->pos + 28, (uint32_t)tid);
	}
}

static void user(struct synth *s, uint32_t id, uint64_t seq, const void *data,
		 uint32_t len, int64_t off_nsec, int32_t pid, int32_t tid)
{
	synth_event(s, id, seq, data, len, POSIXTRACE_NOT_TRUNCATED);
	stamp(s, off_nsec, pid, tid);
}

/* @v, little-endian, in @bytes bytes at @p of a copy of a log. */
static void synth_put_at(unsigned char *buf, size_t p, uint64_t v,
			 unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		buf[p + i] = (unsigned char)(v >> (8 * i));
}

static void set_add(uint64_t *set, uint32_t id)
{
	set[id / 64] |= UINT64_C(1) << (id % 64);
}

/* The offsets the damaged logs are cut or broken at. */
struct marks {
	size_t cut;		/* inside seq 8's entry */
	size_t bad_record;	/* seq 2's entry */
	size_t block1;		/* the second EVENTS block */
	size_t types;		/* TYPES: where an incomplete log ends */
};

/* The first block: START, then events of two processes. */
static void block0(struct synth *s, struct marks *m)
{
	static const char hello[] = "hello \"world\"\n";
	static const char longer[] = "a payload longer than the 32 shown";
	static const unsigned char bin[] = { 0x00, 0x01, 0xfe, 0xff };
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };

	synth_events_begin(s, 0, 0);
	synth_define(s, ID_STEP, "app.step");
	synth_define(s, ID_BIN, "app.bin");
	synth_define(s, ID_DEBUG, "app.debug");
	synth_define(s, ID_RECV, "net.recv");
	set_add(filter, ID_DEBUG);
	synth_start(s, 0, filter);
	stamp(s, 0, 0, 0);
	/* With its NUL: a C string as programs pass it. */
	user(s, ID_STEP, 1, hello, sizeof(hello), 250000, 4242, 4242);
	user(s, ID_BIN, 2, bin, sizeof(bin), 500000000, 4242, 4243);
	m->bad_record = s->events[s->nevents - 1].pos;
	user(s, ID_RECV, 3, NULL, 0, 1000000000, 4242, 4243);
	user(s, ID_STEP, 4, longer, sizeof(longer) - 1, 1500000000, 4300,
	     4301);
	synth_events_end(s);
}

/* The second block, after a gap of two events: a new filter, STOP. */
static void block1(struct synth *s, struct marks *m)
{
	static const char tab[] = "x\ty";
	uint64_t old_filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };
	uint64_t new_filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };

	m->block1 = s->len;
	synth_events_begin(s, 1, 0);
	synth_define(s, ID_STEP, "app.step");
	synth_define(s, ID_RECV, "net.recv");
	user(s, ID_STEP, 7, tab, sizeof(tab) - 1, 2250000000, 4300, 4302);
	user(s, ID_RECV, 8, "ok", 2, 3000000000, 4300, 4302);
	m->cut = s->events[s->nevents - 1].pos + 20;
	set_add(old_filter, ID_DEBUG);
	set_add(new_filter, ID_DEBUG);
	set_add(new_filter, ID_RECV);
	synth_filter(s, 9, old_filter, new_filter);
	stamp(s, 3000000001, 0, 0);
	synth_stop(s, 10, 0);
	stamp(s, 10000000000, 0, 0);
	synth_events_end(s);
}

static void sequential(struct synth *s, struct marks *m)
{
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };

	synth_init(s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	block0(s, m);
	block1(s, m);
	m->types = s->len;
	synth_types(s);
	set_add(filter, ID_DEBUG);
	set_add(filter, ID_RECV);
	synth_end(s, POSIXTRACE_NOT_FULL, POSIXTRACE_NO_OVERRUN, 0,
		  POSIXTRACE_NO_OVERRUN, POSIXTRACE_NOT_FULL, filter);
}

/*
 * A LOOP log of three slots, cut inside the second. Its START filters ten
 * types the log never names: more than a line shows.
 */
static void slots(void)
{
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };
	struct synth s;
	uint32_t id;
	size_t cut;

	for (id = 70; id < 80; id++)
		set_add(filter, id);
	synth_init(&s, POSIXTRACE_LOG_SLOTS, 1024, 3, 0);
	synth_slot_begin(&s, 0, 0, 0);
	synth_define(&s, ID_STEP, "app.step");
	synth_start(&s, 0, filter);
	stamp(&s, 0, 0, 0);
	user(&s, ID_STEP, 1, "one", 3, 1000, 4242, 4242);
	synth_events_end(&s);
	synth_slot_begin(&s, 1, 1, 0);
	synth_define(&s, ID_STEP, "app.step");
	user(&s, ID_STEP, 2, "two", 3, 2000, 4242, 4242);
	user(&s, ID_STEP, 3, "three", 5, 3000, 4242, 4242);
	synth_events_end(&s);
	cut = s.events[s.nevents - 1].pos + 8;
	save("slots.ptlog", s.buf, cut);
	printf("slots.cut %zu\n", (size_t)s.header_size + 1024);
	printf("slots.cut_bytes %zu\n", cut - s.events[s.nevents - 1].pos);
	synth_free(&s);
}

/* Little-endian, packed: the layout a format describes. */
static size_t put_le(unsigned char *p, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	return bytes;
}

static size_t put_f64(unsigned char *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	return put_le(p, v, 8);
}

static size_t put_f32(unsigned char *p, float f)
{
	uint32_t v;

	memcpy(&v, &f, sizeof(v));
	return put_le(p, v, 4);
}

enum {
	ID_JOB = 65,	/* pid:s32,ms:f64,name:str */
	ID_ALL,		/* every type */
	ID_DAMAGED,	/* a format that is not well formed */
	ID_ESC,		/* s:str,rest:bytes */
};

#define ALL_FORMAT \
	"a:u8,b:u16,c:u32,d:u64,e:s8,f:s16,g:s32,h:s64,i:f32,j:f64,k:bytes"

/*
 * typed.ptlog: a job that matches its format, then one too short, one
 * whose str has no NUL, one with bytes left over, one truncated; every
 * type at its limits; a damaged format (shown as bytes); a string that
 * needs escapes, and bytes.
 */
static void typed(void)
{
	unsigned char d[128];
	struct synth s;
	size_t n, types;
	uint64_t seq = 0;

	synth_init(&s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	synth_events_begin(&s, 0, 0);
	synth_define_format(&s, ID_JOB, "app.job", "pid:s32,ms:f64,name:str");
	synth_define_format(&s, ID_ALL, "app.all", ALL_FORMAT);
	synth_define_format(&s, ID_DAMAGED, "app.damaged", "9lives:u8");
	synth_define_format(&s, ID_ESC, "app.esc", "s:str,rest:bytes");

	n = put_le(d, 4242, 4);
	n += put_f64(d + n, 12.5);
	memcpy(d + n, "resize", 7);
	n += 7;
	user(&s, ID_JOB, seq++, d, (uint32_t)n, 1000, 4242, 4242);
	/* Too short: ms is cut. */
	user(&s, ID_JOB, seq++, d, 7, 2000, 4242, 4242);
	/* name without its NUL. */
	user(&s, ID_JOB, seq++, d, (uint32_t)n - 1, 3000, 4242, 4242);
	/* A byte after the last field. */
	d[n] = 0x2a;
	user(&s, ID_JOB, seq++, d, (uint32_t)n + 1, 4000, 4242, 4242);
	synth_event(&s, ID_JOB, seq++, d, 10, POSIXTRACE_TRUNCATED_RECORD);
	stamp(&s, 5000, 4242, 4242);

	n = put_le(d, 255, 1);
	n += put_le(d + n, 65535, 2);
	n += put_le(d + n, 4294967295u, 4);
	n += put_le(d + n, UINT64_MAX, 8);
	n += put_le(d + n, (uint8_t)-128, 1);
	n += put_le(d + n, (uint16_t)-2, 2);
	n += put_le(d + n, (uint32_t)INT32_MIN, 4);
	n += put_le(d + n, (uint64_t)INT64_MIN, 8);
	n += put_f32(d + n, 0.1f);
	n += put_f64(d + n, 1234.56789012345);
	d[n++] = 0xde;
	d[n++] = 0xad;
	user(&s, ID_ALL, seq++, d, (uint32_t)n, 6000, 4242, 4243);

	user(&s, ID_DAMAGED, seq++, "\x07", 1, 7000, 4242, 4243);

	memcpy(d, "say \"hi\"\n\x01\xff", 11);
	d[11] = 0;
	n = 12;
	user(&s, ID_ESC, seq++, d, (uint32_t)n, 8000, 4242, 4243);
	synth_events_end(&s);
	types = s.len;
	synth_types(&s);
	synth_end(&s, POSIXTRACE_NOT_FULL, POSIXTRACE_NO_OVERRUN, 0,
		  POSIXTRACE_NO_OVERRUN, POSIXTRACE_NOT_FULL,
		  (uint64_t[POSIXTRACE_EVENTSET_WORDS]){ 0 });
	save("typed.ptlog", s.buf, s.len);
	save("typed-incomplete.ptlog", s.buf, types);
	synth_free(&s);
}


enum {
	ID_BEGIN = 65,	/* step:u32,ms:f64 */
	ID_NOTE,	/* no format */
};

/* The script's kernel events: a sequence, a clock 1 ms a step. */
struct kscript {
	struct synth s;
	uint64_t seq;
};

/*
 * A kernel event about pid/tid: the synthesizer gives system ids pid 0,
 * as it does POSIX's; the kernel's carry the traced thread's.
 */
static void kev(struct kscript *k, uint32_t id, const unsigned char *d,
		size_t n, int32_t pid, int32_t tid)
{
	const struct synth_event *e;
	int64_t ns = BASE_NSEC + (int64_t)k->seq * 1000000;

	synth_event(&k->s, id, k->seq++, d, (uint32_t)n,
		    POSIXTRACE_NOT_TRUNCATED);
	e = &k->s.events[k->s.nevents - 1];
	synth_put64(&k->s, e->pos + 8, (uint64_t)(BASE_SEC + ns / 1000000000));
	synth_put32(&k->s, e->pos + 16, (uint32_t)(ns % 1000000000));
	synth_put32(&k->s, e->pos + 24, (uint32_t)pid);
	synth_put32(&k->s, e->pos + 28, (uint32_t)tid);
}

static void kfork(struct kscript *k, int32_t pid, int32_t child,
		  uint64_t flags, bool thread)
{
	unsigned char d[17];
	size_t n = put_le(d, (uint32_t)(thread ? pid : child), 4);

	n += put_le(d + n, (uint32_t)child, 4);
	n += put_le(d + n, flags, 8);
	d[n++] = thread;
	kev(k, POSIXTRACE_EVENT_PROC_FORK, d, n, pid, pid);
}

static size_t put_str(unsigned char *p, const char *s)
{
	memcpy(p, s, strlen(s) + 1);
	return strlen(s) + 1;
}

static void kexec(struct kscript *k, int32_t pid, uint32_t argc,
		  uint8_t cut, const char *path, const char *comm,
		  const char *const argv[4])
{
	unsigned char d[1100];
	size_t n = put_le(d, argc, 4);
	int i;

	d[n++] = cut;
	n += put_str(d + n, path);
	n += put_str(d + n, comm);
	for (i = 0; i < 4; i++)
		n += put_str(d + n, argv[i] ? argv[i] : "");
	kev(k, POSIXTRACE_EVENT_PROC_EXEC, d, n, pid, pid);
}

static void kexit(struct kscript *k, int32_t pid, int32_t tid,
		  int32_t status, int32_t sig, bool core, bool process)
{
	unsigned char d[10];
	size_t n = put_le(d, (uint32_t)status, 4);

	n += put_le(d + n, (uint32_t)sig, 4);
	d[n++] = core;
	d[n++] = process;
	kev(k, POSIXTRACE_EVENT_PROC_EXIT, d, n, pid, tid);
}

static void kgen(struct kscript *k, int32_t pid, int32_t sig, int32_t code,
		 int32_t sender, uint8_t result, bool group)
{
	unsigned char d[14];
	size_t n = put_le(d, (uint32_t)sig, 4);

	n += put_le(d + n, (uint32_t)code, 4);
	n += put_le(d + n, (uint32_t)sender, 4);
	d[n++] = result;
	d[n++] = group;
	kev(k, POSIXTRACE_EVENT_SIGNAL_GENERATE, d, n, pid, pid);
}

static void kdeliver(struct kscript *k, int32_t pid, int32_t sig,
		     int32_t code, uint8_t action)
{
	unsigned char d[9];
	size_t n = put_le(d, (uint32_t)sig, 4);

	n += put_le(d + n, (uint32_t)code, 4);
	d[n++] = action;
	kev(k, POSIXTRACE_EVENT_SIGNAL_DELIVER, d, n, pid, pid);
}

static void kuser(struct kscript *k, uint32_t id, const void *d, size_t n,
		  int32_t pid, int32_t tid)
{
	kev(k, id, d, n, pid, tid);
}

/*
 * A script's log begun: sequential, the process events' types defined,
 * started. The caller defines its other types, then writes the events.
 */
static struct kscript *kscript_begin(void)
{
	struct kscript *k = calloc(1, sizeof(*k));

	if (!k)
		die("calloc");
	synth_init(&k->s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	synth_events_begin(&k->s, 0, 0);
	synth_define_format(&k->s, POSIXTRACE_EVENT_PROC_FORK,
			    "posixtrace_proc_fork", POSIXTRACE_PROC_FORK_FORMAT);
	synth_define_format(&k->s, POSIXTRACE_EVENT_PROC_EXEC,
			    "posixtrace_proc_exec", POSIXTRACE_PROC_EXEC_FORMAT);
	return k;
}

/* The script's log ended (STOP, TYPES, END) and saved as @name; @k freed. */
static void kscript_save(struct kscript *k, const char *name,
			 const uint64_t *filter)
{
	synth_stop(&k->s, k->seq, 0);
	stamp(&k->s, (int64_t)k->seq++ * 1000000, 0, 0);
	synth_events_end(&k->s);
	synth_types(&k->s);
	synth_end(&k->s, POSIXTRACE_NOT_FULL, POSIXTRACE_NO_OVERRUN, 0,
		  POSIXTRACE_NO_OVERRUN, POSIXTRACE_NOT_FULL, filter);
	save(name, k->s.buf, k->s.len);
	synth_free(&k->s);
	free(k);
}

/* Linux's numbers, whatever the host: the log is the kernel's. */
#define K_SIGKILL	9
#define K_SIGUSR1	10
#define K_SIGSEGV	11
#define K_SIGTERM	15
#define K_SIGCHLD	17
#define K_SI_USER	0
#define K_SI_KERNEL	0x80
#define K_SI_TKILL	(-6)
#define K_CLD_EXITED	1
#define K_CLONE_VM	0x100
#define K_CLONE_VFORK	0x4000
#define K_CLONE_THREAD_FLAGS	0x3d0f00	/* as pthread_create() */

/*
 * kernel.ptlog: sh (1000) runs env, which execs ls (1001); a vfork'd
 * cat (1002) with a thread, killed; a background subshell (1004) that
 * dies of SIGSEGV after a gap; kill -USR1 $$; sh exits 3.
 */
static void kernel(void)
{
	static const char *const sh_argv[4] = { "sh", "script.sh" };
	static const char *const env_argv[4] = { "env", "ls", "-l" };
	static const char *const ls_argv[4] = { "ls", "-l" };
	static const char *const cat_argv[4] = {
		"cat", "a", "a-name-the-kernel-cut", "c",
	};
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };
	struct kscript *k = kscript_begin();
	unsigned char d[16];
	size_t n;

	synth_define_format(&k->s, POSIXTRACE_EVENT_PROC_EXIT,
			    "posixtrace_proc_exit", POSIXTRACE_PROC_EXIT_FORMAT);
	synth_define_format(&k->s, POSIXTRACE_EVENT_SIGNAL_GENERATE,
			    "posixtrace_signal_generate",
			    POSIXTRACE_SIGNAL_GENERATE_FORMAT);
	synth_define_format(&k->s, POSIXTRACE_EVENT_SIGNAL_DELIVER,
			    "posixtrace_signal_deliver",
			    POSIXTRACE_SIGNAL_DELIVER_FORMAT);
	synth_define_format(&k->s, ID_BEGIN, "app.begin", "step:u32,ms:f64");
	synth_define(&k->s, ID_NOTE, "app.note");
	synth_start(&k->s, k->seq++, filter);
	stamp(&k->s, 0, 0, 0);

	kexec(k, 1000, 2, 0, "/bin/sh", "sh", sh_argv);
	n = put_le(d, 1, 4);
	n += put_f64(d + n, 1.5);
	kuser(k, ID_BEGIN, d, n, 1000, 1000);
	kfork(k, 1000, 1001, K_SIGCHLD, false);
	kexec(k, 1001, 3, 0, "/usr/bin/env", "env", env_argv);
	kexec(k, 1001, 2, 0, "/bin/ls", "ls", ls_argv);
	kexit(k, 1001, 1001, 0, 0, false, true);
	kgen(k, 1000, K_SIGCHLD, K_CLD_EXITED, 1001, 0, true);
	kdeliver(k, 1000, K_SIGCHLD, K_CLD_EXITED, 0);
	kfork(k, 1000, 1002, K_CLONE_VM | K_CLONE_VFORK | K_SIGCHLD, false);
	kexec(k, 1002, 6, 1 << 3, "/bin/cat", "cat", cat_argv);
	kfork(k, 1002, 1003, K_CLONE_THREAD_FLAGS, true);
	kuser(k, ID_NOTE, "hello", 6, 1002, 1003);
	kexit(k, 1002, 1003, 0, 0, false, false);
	kgen(k, 1000, K_SIGUSR1, K_SI_USER, 1000, 0, true);
	kdeliver(k, 1000, K_SIGUSR1, K_SI_USER, 2);
	kfork(k, 1000, 1004, K_SIGCHLD, false);
	kgen(k, 1002, K_SIGKILL, K_SI_USER, 1000, 0, true);
	kexit(k, 1002, 1002, -1, K_SIGKILL, false, true);
	k->seq += 2;		/* two events lost */
	kexit(k, 1004, 1004, -1, K_SIGSEGV, true, true);
	kgen(k, 1000, K_SIGTERM, K_SI_KERNEL, 0, 1, false);
	kgen(k, 1000, K_SIGUSR1, K_SI_TKILL, 1000, 2, false);
	kexit(k, 1000, 1000, 3, 0, false, true);
	kscript_save(k, "kernel.ptlog", filter);
}

/*
 * forks.ptlog: sh (2000) forks FORKS children one after another, each of
 * which records a note: tools that keep a table of threads grow it while
 * a fork is being read (the Chrome export's, past 64 threads).
 */
#define FORKS	150

static void forks(void)
{
	static const char *const sh_argv[4] = { "sh", "-c", "many" };
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };
	struct kscript *k = kscript_begin();
	int32_t child;

	synth_define(&k->s, ID_NOTE, "app.note");
	synth_start(&k->s, k->seq++, filter);
	stamp(&k->s, 0, 0, 0);
	kexec(k, 2000, 3, 0, "/bin/sh", "sh", sh_argv);
	for (child = 2001; child <= 2000 + FORKS; child++) {
		kfork(k, 2000, child, K_SIGCHLD, false);
		kuser(k, ID_NOTE, "child", 6, child, child);
	}
	kscript_save(k, "forks.ptlog", filter);
}

int main(int argc, char **argv)
{
	static const char text[] = "not a trace log\n";
	struct synth *s = malloc(sizeof(*s));
	struct marks m;
	unsigned char *copy;
	int i;

	if (argc != 2 || !s) {
		fprintf(stderr, "usage: dump_logs DIR\n");
		return 2;
	}
	dir = argv[1];
	sequential(s, &m);
	save("basic.ptlog", s->buf, s->len);
	/* Where a prefix of it ends cleanly: between blocks. */
	printf("boundary %u\n", s->header_size);
	for (i = 0; i < s->nblocks; i++)
		printf("boundary %zu\n", s->blocks[i].pos + s->blocks[i].size);
	save("incomplete.ptlog", s->buf, m.types);
	save("cut.ptlog", s->buf, m.cut);
	printf("cut %zu\ncut.bytes %zu\n", m.block1, (size_t)20);

	copy = malloc(s->len);
	if (!copy)
		die("malloc");
	/* A size not a multiple of 8 ends the first block there. */
	memcpy(copy, s->buf, s->len);
	copy[m.bad_record] |= 3;
	save("damaged.ptlog", copy, s->len);
	printf("damaged %zu\ndamaged.bytes %zu\n", m.bad_record,
	       m.block1 - m.bad_record);
	/* A block size under 16: the log ends there. */
	memcpy(copy, s->buf, s->len);
	memset(copy + m.block1 + 8, 0, 8);
	save("badblock.ptlog", copy, s->len);
	printf("badblock %zu\nbadblock.bytes %zu\n", m.block1,
	       s->len - m.block1);
	/*
	 * Times no clock gave: seq 2 at the epoch, seq 4 some 160 years
	 * after the stream's creation (offsets past 2^53 ns, which a
	 * double does not hold: view's page must rebuild every later time
	 * exactly all the same).
	 */
	memcpy(copy, s->buf, s->len);
	/* Created with its first event, so that the others' times are near. */
	synth_put_at(copy, offsetof(struct posixtrace_log_header, attr) +
		     offsetof(struct posixtrace_log_attr, create_time_sec),
		     BASE_SEC, 8);
	memset(copy + s->events[2].pos + 8, 0, 12);
	synth_put_at(copy, s->events[4].pos + 8, (uint64_t)BASE_SEC +
		     UINT64_C(5000000000), 8);
	save("times.ptlog", copy, s->len);
	/*
	 * A user event on pid 0 and tid 2, the track the timeline gives the
	 * stream's stops: named once, by the stream.
	 */
	memcpy(copy, s->buf, s->len);
	synth_put_at(copy, s->events[3].pos + 24, 0, 4);
	synth_put_at(copy, s->events[3].pos + 28, 2, 4);
	save("pid0.ptlog", copy, s->len);
	free(copy);
	synth_free(s);
	free(s);

	slots();
	typed();
	kernel();
	forks();
	save("notalog.txt", (const unsigned char *)text, sizeof(text) - 1);
	return 0;
}
