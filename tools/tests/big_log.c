// SPDX-License-Identifier: GPL-2.0
/*
 * big_log N FILE: writes FILE, a trace log of N events (N >= 100) as a
 * server would leave it: a process ("server", pid 5000) whose eight
 * worker threads each loop on read(), a typed user event per request
 * ("app.request"), and futex(), now and then leaving their CPU; its
 * main thread marks a second with "app.tick". The kernel's events
 * (fork, exec, system calls, scheduling) are as the module records them.
 * The log's events are chosen by a fixed pseudo-random sequence: the
 * same N makes the same file. For the tests and benchmarks of "view"
 * and "export" on logs of a million events, which no guest run here
 * records in a test's time.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_synth.h"

#define PID		5000
#define WORKERS		8
#define PER_BLOCK	16384
#define NR_READ		0
#define NR_FUTEX	202

enum {
	ID_REQUEST = 65,	/* id:u32,bytes:u32,latency_us:f64,path:str */
	ID_TICK,		/* no format */
};

struct gen {
	struct synth s;
	uint64_t seq, want, ns, rng;
	uint32_t in_block;
};

static uint32_t gen_rand(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return (uint32_t)(g->rng >> 16);
}

static size_t put_le(unsigned char *p, uint64_t v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	return bytes;
}

/* The entry at @p happened now: the stream's creation + the clock. */
static void gen_stamp(struct gen *g, size_t p)
{
	uint64_t ns = SYNTH_CREATE_NSEC + g->ns;

	synth_put64(&g->s, p + 8, SYNTH_CREATE_SEC + ns / 1000000000);
	synth_put32(&g->s, p + 16, (uint32_t)(ns % 1000000000));
}

/* One event of thread @tid at the clock, which then moves on. */
static void gen_event(struct gen *g, uint32_t id, const unsigned char *d,
		      size_t n, int32_t tid, uint64_t prog)
{
	bool user = id >= POSIXTRACE_EVENT_SYSTEM_MAX;
	size_t p;

	if (g->in_block == PER_BLOCK) {
		synth_events_end(&g->s);
		synth_events_begin(&g->s, g->seq, 0);
		g->in_block = 0;
	}
	p = synth_event_unkept(&g->s, id, g->seq++, d, (uint32_t)n);
	g->in_block++;
	g->ns += 150 + gen_rand(g) % 900;
	gen_stamp(g, p);
	synth_put32(&g->s, p + 24, PID);
	synth_put32(&g->s, p + 28, (uint32_t)tid);
	synth_put64(&g->s, p + 32, user ? prog : 0);
	synth_put64(&g->s, p + 56, user ? 0x7f5a3c000700ull +
		    (uint64_t)(tid - PID) * 0x801000 : 0);
}

static void gen_syscall(struct gen *g, int32_t tid, int32_t nr,
			const uint64_t a[6])
{
	unsigned char d[64];
	size_t n = put_le(d, (uint32_t)nr, 4);
	int i;

	d[n++] = 0;
	for (i = 0; i < 6; i++)
		n += put_le(d + n, a[i], 8);
	d[n++] = 0;		/* cut */
	d[n++] = 0;		/* path */
	d[n++] = 0;		/* path2 */
	n += put_le(d + n, 0, 4);	/* addr: no bytes */
	gen_event(g, POSIXTRACE_EVENT_SYSCALL_ENTRY, d, n, tid, 0);
}

static void gen_sysret(struct gen *g, int32_t tid, int32_t nr, int64_t ret)
{
	unsigned char d[13];
	size_t n = put_le(d, (uint32_t)nr, 4);

	d[n++] = 0;
	n += put_le(d + n, (uint64_t)ret, 8);
	gen_event(g, POSIXTRACE_EVENT_SYSCALL_EXIT, d, n, tid, 0);
}

static void gen_sched(struct gen *g, int32_t tid, int cpu)
{
	unsigned char d[16];
	size_t n = put_le(d, 1, 4);	/* sleeping */

	n += put_le(d + n, 20, 4);
	n += put_le(d + n, 0, 4);
	n += put_le(d + n, (uint32_t)cpu, 4);
	gen_event(g, POSIXTRACE_EVENT_SCHED_OUT, d, n, tid, 0);
	n = put_le(d, 20, 4);
	n += put_le(d + n, (uint32_t)(cpu ^ 1), 4);
	gen_event(g, POSIXTRACE_EVENT_SCHED_IN, d, n, tid, 0);
}

/* A worker's request: read(), the event that says what it was, futex(). */
static void gen_request(struct gen *g, int32_t tid, uint32_t req)
{
	static const char *const paths[] = {
		"/index.html", "/api/v1/items", "/static/app.js",
		"/api/v1/login", "/favicon.ico",
	};
	uint64_t a[6] = { 3 + (uint64_t)(tid - PID),
			  0x7f5a3c100000ull + (uint64_t)(tid - PID) * 0x10000,
			  4096 };
	uint32_t bytes = 64 + gen_rand(g) % 4000;
	const char *path = paths[gen_rand(g) % 5];
	unsigned char d[64];
	size_t n;
	double lat = (gen_rand(g) % 100000) / 100.0;

	gen_syscall(g, tid, NR_READ, a);
	gen_sysret(g, tid, NR_READ, bytes);
	n = put_le(d, req, 4);
	n += put_le(d + n, bytes, 4);
	memcpy(d + n, &lat, 8);	/* little-endian hosts, as the log */
	n += 8;
	memcpy(d + n, path, strlen(path) + 1);
	n += strlen(path) + 1;
	gen_event(g, ID_REQUEST, d, n, tid, 0x55d0c0a01234ull);
	a[0] = 0x55d0c0c04000ull;
	a[1] = 1;		/* FUTEX_WAKE */
	a[2] = 1;
	gen_syscall(g, tid, NR_FUTEX, a);
	gen_sysret(g, tid, NR_FUTEX, 0);
}

static void gen_start(struct gen *g)
{
	static const char *const argv[4] = { "server", "--port", "8080" };
	unsigned char d[256];
	size_t n;
	int i;

	synth_init(&g->s, POSIXTRACE_LOG_SEQUENTIAL, 0, 0, 0);
	synth_events_begin(&g->s, 0, 0);
	synth_define_format(&g->s, POSIXTRACE_EVENT_PROC_FORK,
			    "posixtrace_proc_fork", POSIXTRACE_PROC_FORK_FORMAT);
	synth_define_format(&g->s, POSIXTRACE_EVENT_PROC_EXEC,
			    "posixtrace_proc_exec", POSIXTRACE_PROC_EXEC_FORMAT);
	synth_define_format(&g->s, POSIXTRACE_EVENT_SYSCALL_ENTRY,
			    "posixtrace_syscall_entry",
			    POSIXTRACE_SYSCALL_ENTRY_FORMAT);
	synth_define_format(&g->s, POSIXTRACE_EVENT_SYSCALL_EXIT,
			    "posixtrace_syscall_exit",
			    POSIXTRACE_SYSCALL_EXIT_FORMAT);
	synth_define_format(&g->s, POSIXTRACE_EVENT_SCHED_OUT,
			    "posixtrace_sched_out", POSIXTRACE_SCHED_OUT_FORMAT);
	synth_define_format(&g->s, POSIXTRACE_EVENT_SCHED_IN,
			    "posixtrace_sched_in", POSIXTRACE_SCHED_IN_FORMAT);
	synth_define_format(&g->s, ID_REQUEST, "app.request",
			    "id:u32,bytes:u32,latency_us:f64,path:str");
	synth_define(&g->s, ID_TICK, "app.tick");
	n = put_le(d, 3, 4);
	d[n++] = 0;
	memcpy(d + n, "/usr/bin/server", 16);
	n += 16;
	memcpy(d + n, "server", 7);
	n += 7;
	for (i = 0; i < 4; i++) {
		const char *s = argv[i] ? argv[i] : "";

		memcpy(d + n, s, strlen(s) + 1);
		n += strlen(s) + 1;
	}
	gen_event(g, POSIXTRACE_EVENT_PROC_EXEC, d, n, PID, 0);
	for (i = 1; i < WORKERS; i++) {
		n = put_le(d, PID, 4);
		n += put_le(d + n, (uint32_t)(PID + i), 4);
		n += put_le(d + n, 0x3d0f00, 8);
		d[n++] = 1;
		gen_event(g, POSIXTRACE_EVENT_PROC_FORK, d, n, PID, 0);
	}
}

int main(int argc, char **argv)
{
	struct gen g = { .rng = 0x9e3779b97f4a7c15ull };
	uint64_t filter[POSIXTRACE_EVENTSET_WORDS] = { 0 };
	uint32_t req = 0;
	uint64_t next_tick = 0;
	int32_t tid;
	FILE *f;

	if (argc != 3 || strtoull(argv[1], NULL, 10) < 100) {
		fprintf(stderr, "usage: big_log N FILE (N >= 100)\n");
		return 2;
	}
	g.want = strtoull(argv[1], NULL, 10);
	gen_start(&g);
	while (g.seq + 8 < g.want) {
		tid = PID + (int32_t)(gen_rand(&g) % WORKERS);
		if (g.ns >= next_tick) {
			gen_event(&g, ID_TICK, NULL, 0, PID, 0x55d0c0a00100ull);
			next_tick = g.ns + 1000000;
		} else if (gen_rand(&g) % 32 == 0) {
			gen_sched(&g, tid, (int)(tid & 1));
		} else {
			gen_request(&g, tid, req++);
		}
	}
	while (g.seq + 1 < g.want)
		gen_event(&g, ID_TICK, NULL, 0, PID, 0x55d0c0a00100ull);
	synth_stop(&g.s, g.seq++, 0);
	gen_stamp(&g, g.s.events[g.s.nevents - 1].pos);
	synth_events_end(&g.s);
	synth_types(&g.s);
	synth_end(&g.s, POSIXTRACE_NOT_FULL, POSIXTRACE_NO_OVERRUN, 0,
		  POSIXTRACE_NO_OVERRUN, POSIXTRACE_NOT_FULL, filter);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(g.s.buf, 1, g.s.len, f) != g.s.len || fclose(f)) {
		fprintf(stderr, "big_log: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	synth_free(&g.s);
	return 0;
}
