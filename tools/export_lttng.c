// SPDX-License-Identifier: GPL-2.0
/*
 * posixtrace export --format=lttng: a trace log as LTTng's kernel tracer
 * would have written its kernel events, so that Trace Compass's kernel
 * analyses (Control Flow, Resources, system calls) take it as they take an
 * LTTng kernel trace. See export_lttng.h for what is written and what it
 * cannot say.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctf.h"
#include "export_lttng.h"
#include "kevent.h"
#include "proctree.h"
#include "syscall_names.h"

#define LTTNG_CPUS_MAX		4096
#define PACKET_BYTES_MAX	(1u << 20)
#define HEADER_SIZE		32	/* magic, uuid, stream id, instance */
#define CONTEXT_SIZE		52	/* times, sizes, seq, discarded, cpu */

/* Each event class's fields, as LTTng's (its names, a leading '_'). */
enum layout {
	L_SWITCH, L_WAKEUP, L_MIGRATE, L_FORK, L_EXEC, L_EXIT, L_SIG_GEN,
	L_SIG_DLV, L_SYS_ENTRY, L_SYS_EXIT, L_USER,
};

static const char *const layouts[] = {
	[L_SWITCH] = "string _prev_comm; int32_t _prev_tid; int32_t _prev_prio; int64_t _prev_state; string _next_comm; int32_t _next_tid; int32_t _next_prio;",
	[L_WAKEUP] = "string _comm; int32_t _tid; int32_t _prio; int32_t _target_cpu; int32_t _waker_tid;",
	[L_MIGRATE] = "string _comm; int32_t _tid; int32_t _prio; int32_t _orig_cpu; int32_t _dest_cpu;",
	[L_FORK] = "string _parent_comm; int32_t _parent_tid; int32_t _parent_pid; string _child_comm; int32_t _child_tid; int32_t _child_pid;",
	[L_EXEC] = "string _filename; int32_t _tid; int32_t _old_tid;",
	[L_EXIT] = "string _comm; int32_t _tid; int32_t _prio;",
	[L_SIG_GEN] = "int32_t _sig; int32_t _errno; int32_t _code; string _comm; int32_t _pid; int32_t _group; int32_t _result;",
	[L_SIG_DLV] = "int32_t _sig; int32_t _errno; int32_t _code; uint64_t _sa_handler; uint64_t _sa_flags;",
	[L_SYS_ENTRY] = "int32_t _id; uint64_t _a0; uint64_t _a1; uint64_t _a2; uint64_t _a3; uint64_t _a4; uint64_t _a5; string _filename;",
	[L_SYS_EXIT] = "int64_t _ret;",
	[L_USER] = "uint32_t _data_len; uint8_t _data[_data_len];",
};

struct eclass {
	char *name;
	enum layout layout;
};

struct cpu_stream {
	FILE *file;
	unsigned char *buf;
	size_t len, cap;
	uint64_t ts_begin, ts_end, last_ts, packets;
	bool any;
};

/* A thread's CPU, as its last switch-in said. */
struct tid_cpu {
	pid_t tid;
	int cpu;
};

struct lttng_export {
	int dirfd;
	const uint8_t *uuid;
	struct eclass *classes;
	size_t nclasses;
	struct cpu_stream *cpus[LTTNG_CPUS_MAX];
	struct tid_cpu *tids;
	size_t ntids;
	struct proctree tree;
	uint64_t discarded;
	/* The event being encoded. */
	unsigned char ev[8192 + 2 * POSIXTRACE_SYSCALL_PATH_MAX];
	size_t evlen;
};

static void put(struct lttng_export *x, const void *p, size_t n)
{
	if (x->evlen + n > sizeof(x->ev))
		n = sizeof(x->ev) - x->evlen;
	memcpy(x->ev + x->evlen, p, n);
	x->evlen += n;
}

/* v as n bytes, little-endian, at p. */
static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put32(struct lttng_export *x, uint32_t v)
{
	unsigned char b[4];

	put_le(b, v, 4);
	put(x, b, 4);
}

static void put64(struct lttng_export *x, uint64_t v)
{
	unsigned char b[8];

	put_le(b, v, 8);
	put(x, b, 8);
}

/* A string field: its bytes up to a NUL, then a NUL. */
static void putstr(struct lttng_export *x, const void *p, size_t n)
{
	const unsigned char *nul = memchr(p, 0, n);

	put(x, p, nul ? (size_t)(nul - (const unsigned char *)p) : n);
	put(x, "", 1);
}

static void putcstr(struct lttng_export *x, const char *s)
{
	putstr(x, s, strlen(s));
}

/* The id of class name (made if new); -1 without memory. */
static int class_id(struct lttng_export *x, const char *name,
		    enum layout layout)
{
	struct eclass *c;
	size_t i;

	for (i = 0; i < x->nclasses; i++)
		if (!strcmp(x->classes[i].name, name))
			return (int)i;
	c = realloc(x->classes, (x->nclasses + 1) * sizeof(*c));
	if (!c)
		return -1;
	x->classes = c;
	c[x->nclasses].name = strdup(name);
	if (!c[x->nclasses].name)
		return -1;
	c[x->nclasses].layout = layout;
	return (int)x->nclasses++;
}

static int *tid_cpu_slot(struct lttng_export *x, pid_t tid)
{
	struct tid_cpu *t;
	size_t i;

	for (i = 0; i < x->ntids; i++)
		if (x->tids[i].tid == tid)
			return &x->tids[i].cpu;
	t = realloc(x->tids, (x->ntids + 1) * sizeof(*t));
	if (!t)
		return NULL;
	x->tids = t;
	t[x->ntids] = (struct tid_cpu) { tid, 0 };
	return &t[x->ntids++].cpu;
}

static const char *comm_of(const struct lttng_export *x, pid_t pid)
{
	const struct proc *p = proctree_find(&x->tree, pid);

	return p && p->comm[0] ? p->comm : "";
}

/* Writes cpu's packet of events, if any: 0 or errno. */
static int flush_packet(struct lttng_export *x, int cpu)
{
	struct cpu_stream *s = x->cpus[cpu];
	unsigned char hdr[HEADER_SIZE + CONTEXT_SIZE];
	uint64_t bits;

	if (!s || !s->len)
		return 0;
	bits = (uint64_t)(sizeof(hdr) + s->len) * 8;
	put_le(hdr, CTF_MAGIC, 4);
	memcpy(hdr + 4, x->uuid, 16);
	put_le(hdr + 20, 0, 4);		/* stream id */
	put_le(hdr + 24, (uint64_t)cpu, 8);	/* stream instance */
	put_le(hdr + 32, s->ts_begin, 8);
	put_le(hdr + 40, s->ts_end, 8);
	put_le(hdr + 48, bits, 8);	/* content size */
	put_le(hdr + 56, bits, 8);	/* packet size */
	put_le(hdr + 64, s->packets, 8);
	/* The log's losses are no CPU's: all on CPU 0's packets. */
	put_le(hdr + 72, cpu ? 0 : x->discarded, 8);
	put_le(hdr + 80, (uint64_t)cpu, 4);
	if (fwrite(hdr, sizeof(hdr), 1, s->file) != 1 ||
	    fwrite(s->buf, s->len, 1, s->file) != 1)
		return errno ? errno : EIO;
	s->packets++;
	s->len = 0;
	s->any = false;
	return 0;
}

static struct cpu_stream *cpu_stream(struct lttng_export *x, int cpu)
{
	char name[32];
	int fd;

	if (x->cpus[cpu])
		return x->cpus[cpu];
	x->cpus[cpu] = calloc(1, sizeof(struct cpu_stream));
	if (!x->cpus[cpu])
		return NULL;
	snprintf(name, sizeof(name), LTTNG_STREAM_PREFIX "%d", cpu);
	fd = openat(x->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0666);
	x->cpus[cpu]->file = fd < 0 ? NULL : fdopen(fd, "w");
	if (!x->cpus[cpu]->file) {
		if (fd >= 0)
			close(fd);
		free(x->cpus[cpu]);
		x->cpus[cpu] = NULL;
	}
	return x->cpus[cpu];
}

/* The event encoded (payload in x->ev) as class id, on cpu, at ts. */
static int emit(struct lttng_export *x, int cpu, int id, uint64_t ts,
		pid_t pid, pid_t tid)
{
	struct cpu_stream *s;
	unsigned char head[20];
	unsigned char *b;
	size_t need;

	if (id < 0)
		return ENOMEM;
	if (cpu < 0 || cpu >= LTTNG_CPUS_MAX)
		cpu = 0;
	s = cpu_stream(x, cpu);
	if (!s)
		return errno ? errno : ENOMEM;
	/* Times only grow in a stream; the log's merge makes them so. */
	if (ts < s->last_ts)
		ts = s->last_ts;
	s->last_ts = ts;
	need = s->len + sizeof(head) + x->evlen;
	if (need > s->cap) {
		b = realloc(s->buf, need * 2);
		if (!b)
			return ENOMEM;
		s->buf = b;
		s->cap = need * 2;
	}
	put_le(head, (uint64_t)id, 4);
	put_le(head + 4, ts, 8);
	put_le(head + 12, (uint64_t)(uint32_t)pid, 4);
	put_le(head + 16, (uint64_t)(uint32_t)tid, 4);
	if (!s->any)
		s->ts_begin = ts;
	s->any = true;
	s->ts_end = ts;
	memcpy(s->buf + s->len, head, sizeof(head));
	memcpy(s->buf + s->len + sizeof(head), x->ev, x->evlen);
	s->len += sizeof(head) + x->evlen;
	return s->len > PACKET_BYTES_MAX ? flush_packet(x, cpu) : 0;
}

/* A switch on cpu: out (prev, its state) or in (next); the other idle. */
static int emit_switch(struct lttng_export *x, const struct kevent *k,
		       uint64_t ts)
{
	bool out = k->kind == KEVENT_SCHED_OUT;
	const char *comm = comm_of(x, k->pid);
	char idle[32];

	snprintf(idle, sizeof(idle), "swapper/%u", k->u.sched.cpu);
	x->evlen = 0;
	putcstr(x, out ? comm : idle);
	put32(x, out ? (uint32_t)k->tid : 0);
	put32(x, out ? (uint32_t)k->u.sched.prio : 20);
	put64(x, out ? k->u.sched.state : 0);
	putcstr(x, out ? idle : comm);
	put32(x, out ? 0 : (uint32_t)k->tid);
	put32(x, out ? 20 : (uint32_t)k->u.sched.prio);
	return emit(x, (int)k->u.sched.cpu, class_id(x, "sched_switch",
						      L_SWITCH),
		    ts, k->pid, k->tid);
}

static int emit_syscall(struct lttng_export *x, const struct kevent *k,
			uint64_t ts, int cpu)
{
	bool entry = k->kind == KEVENT_SYSCALL_ENTRY;
	char name[SYSCALL_NAME_SIZE], cname[SYSCALL_NAME_SIZE + 32];
	const char *n = syscall_name(k->u.sys.nr, k->u.sys.compat, name);
	int i;

	/* syscall_name() says "syscall_N" for a number it cannot name. */
	if (!strncmp(n, "syscall_", 8))
		n = "unknown";
	snprintf(cname, sizeof(cname), "%ssyscall_%s_%s",
		 k->u.sys.compat ? "compat_" : "", entry ? "entry" : "exit",
		 n);
	x->evlen = 0;
	if (entry) {
		put32(x, (uint32_t)k->u.sys.nr);
		for (i = 0; i < KEVENT_SYSCALL_ARGS; i++)
			put64(x, k->u.sys.args[i]);
		putstr(x, k->u.sys.path.p, k->u.sys.path.len);
	} else {
		put64(x, (uint64_t)k->u.sys.ret);
	}
	return emit(x, cpu, class_id(x, cname, entry ? L_SYS_ENTRY :
				     L_SYS_EXIT), ts, k->pid, k->tid);
}

static int emit_kevent(struct lttng_export *x, const struct kevent *k,
		       uint64_t ts)
{
	int *cpu = tid_cpu_slot(x, k->tid);

	if (!cpu)
		return ENOMEM;
	x->evlen = 0;
	switch (k->kind) {
	case KEVENT_SCHED_IN:
		*cpu = (int)k->u.sched.cpu;
		return emit_switch(x, k, ts);
	case KEVENT_SCHED_OUT:
		return emit_switch(x, k, ts);
	case KEVENT_SCHED_WAKEUP:
		putcstr(x, comm_of(x, k->pid));
		put32(x, (uint32_t)k->tid);
		put32(x, (uint32_t)k->u.sched.prio);
		put32(x, k->u.sched.cpu);
		put32(x, (uint32_t)k->u.sched.waker_tid);
		return emit(x, (int)k->u.sched.cpu, class_id(x,
			    k->u.sched.new ? "sched_wakeup_new" : "sched_waking",
			    L_WAKEUP), ts, k->pid, k->tid);
	case KEVENT_SCHED_MIGRATE:
		putcstr(x, comm_of(x, k->pid));
		put32(x, (uint32_t)k->tid);
		put32(x, 20);
		put32(x, k->u.sched.from);
		put32(x, k->u.sched.cpu);
		*cpu = (int)k->u.sched.cpu;
		return emit(x, (int)k->u.sched.from,
			    class_id(x, "sched_migrate_task", L_MIGRATE), ts,
			    k->pid, k->tid);
	case KEVENT_FORK:
		putcstr(x, comm_of(x, k->pid));
		put32(x, (uint32_t)k->tid);
		put32(x, (uint32_t)k->pid);
		putcstr(x, comm_of(x, k->pid));
		put32(x, (uint32_t)k->u.fork.tid);
		put32(x, (uint32_t)k->u.fork.pid);
		return emit(x, *cpu, class_id(x, "sched_process_fork", L_FORK),
			    ts, k->pid, k->tid);
	case KEVENT_EXEC:
		putstr(x, k->u.exec.path.p, k->u.exec.path.len);
		put32(x, (uint32_t)k->tid);
		put32(x, (uint32_t)k->tid);
		return emit(x, *cpu, class_id(x, "sched_process_exec", L_EXEC),
			    ts, k->pid, k->tid);
	case KEVENT_EXIT:
		putcstr(x, comm_of(x, k->pid));
		put32(x, (uint32_t)k->tid);
		put32(x, 20);
		return emit(x, *cpu, class_id(x, "sched_process_exit", L_EXIT),
			    ts, k->pid, k->tid);
	case KEVENT_SIGNAL_GENERATE:
		put32(x, (uint32_t)k->u.sig.sig);
		put32(x, 0);
		put32(x, (uint32_t)k->u.sig.code);
		putcstr(x, comm_of(x, k->pid));
		put32(x, (uint32_t)k->pid);
		put32(x, k->u.sig.group);
		put32(x, (uint32_t)k->u.sig.result);
		return emit(x, *cpu, class_id(x, "signal_generate", L_SIG_GEN),
			    ts, k->pid, k->tid);
	case KEVENT_SIGNAL_DELIVER:
		put32(x, (uint32_t)k->u.sig.sig);
		put32(x, 0);
		put32(x, (uint32_t)k->u.sig.code);
		put64(x, 0);
		put64(x, 0);
		return emit(x, *cpu, class_id(x, "signal_deliver", L_SIG_DLV),
			    ts, k->pid, k->tid);
	case KEVENT_SYSCALL_ENTRY:
	case KEVENT_SYSCALL_EXIT:
		return emit_syscall(x, k, ts, *cpu);
	}
	return 0;
}

/* Any other event: by its type's name, its data as bytes. */
static int emit_other(struct lttng_export *x, const struct log_event *ev,
		      uint64_t ts)
{
	pid_t tid = ev->has_tid && ev->tid ? ev->tid : ev->info.posix_pid;
	int *cpu = tid_cpu_slot(x, tid);
	size_t len = ev->data_len;

	if (!cpu)
		return ENOMEM;
	if (len > sizeof(x->ev) - 4)
		len = sizeof(x->ev) - 4;
	x->evlen = 0;
	put32(x, (uint32_t)len);
	put(x, ev->data, len);
	return emit(x, *cpu, class_id(x, ev->type ? ev->type->name : "unknown",
				      L_USER), ts, ev->info.posix_pid, tid);
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
static void format_uuid(char out[37], const uint8_t u[16])
{
	char *p = out;
	int i;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		p += sprintf(p, "%02x", u[i]);
	}
}

static int write_metadata(struct lttng_export *x, const char *hostname,
			  const char *trace_name)
{
	static const char *const ints[][2] = {
		{ "8", "false" }, { "32", "false" }, { "64", "false" },
		{ "32", "true" }, { "64", "true" },
	};
	static const char *const int_names[] = {
		"uint8_t", "uint32_t", "uint64_t", "int32_t", "int64_t",
	};
	char uuid[37];
	size_t i;
	FILE *f;
	int fd;

	fd = openat(x->dirfd, CTF_METADATA_FILE,
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return errno;
	}
	format_uuid(uuid, x->uuid);
	fprintf(f, "/* CTF 1.8 */\n\n");
	for (i = 0; i < 5; i++)
		fprintf(f, "typealias integer { size = %s; align = 8; signed = %s; } := %s;\n",
			ints[i][0], ints[i][1], int_names[i]);
	fprintf(f, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n"
		"\tbyte_order = le;\n\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n"
		"\t};\n};\n\n", uuid);
	fprintf(f, "env {\n\tdomain = \"kernel\";\n\tsysname = \"Linux\";\n"
		"\ttracer_name = \"lttng-modules\";\n\ttracer_major = 2;\n"
		"\ttracer_minor = 13;\n\ttracer_patchlevel = 0;\n"
		"\ttrace_buffering_scheme = \"global\";\n"
		"\thostname = \"%s\";\n\ttrace_name = \"%s\";\n"
		"\tproducer = \"posixtrace export --format=lttng\";\n};\n\n",
		hostname, trace_name);
	fprintf(f, "clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		"\tdescription = \"CLOCK_REALTIME of the events, ns\";\n"
		"\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = 0;\n"
		"\toffset = 0;\n\tabsolute = TRUE;\n};\n\n", uuid);
	fprintf(f, "typealias integer { size = 64; align = 8; signed = false; "
		"map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n");
	fprintf(f, "struct packet_context {\n"
		"\tuint64_clock_monotonic_t timestamp_begin;\n"
		"\tuint64_clock_monotonic_t timestamp_end;\n"
		"\tuint64_t content_size;\n\tuint64_t packet_size;\n"
		"\tuint64_t packet_seq_num;\n\tuint64_t events_discarded;\n"
		"\tuint32_t cpu_id;\n};\n\n");
	fprintf(f, "stream {\n\tid = 0;\n\tevent.header := struct {\n"
		"\t\tuint32_t id;\n\t\tuint64_clock_monotonic_t timestamp;\n"
		"\t};\n\tpacket.context := struct packet_context;\n"
		"\tevent.context := struct {\n\t\tint32_t _pid;\n"
		"\t\tint32_t _tid;\n\t};\n};\n\n");
	for (i = 0; i < x->nclasses; i++)
		fprintf(f, "event {\n\tname = \"%s\";\n\tid = %zu;\n"
			"\tstream_id = 0;\n\tfields := struct { %s };\n};\n\n",
			x->classes[i].name, i, layouts[x->classes[i].layout]);
	if (fclose(f))
		return errno;
	return 0;
}

/* A name for TSDL's strings: no quote, no backslash, no control. */
static void clean(char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < ' ')
			*s = '_';
}

int export_lttng(struct log_reader *lr, int dirfd, const uint8_t uuid[16],
		 uint64_t *nread, bool *read_error)
{
	struct lttng_export *x = calloc(1, sizeof(*x));
	char host[256] = "", name[TRACE_NAME_MAX + 1] = "";
	struct log_event ev;
	struct kevent k;
	bool end = false;
	uint64_t ts;
	int err = 0, i;

	if (!x)
		return ENOMEM;
	x->dirfd = dirfd;
	x->uuid = uuid;
	while (!err) {
		err = log_next_counted(lr, &ev, &end, nread, read_error);
		if (err || end)
			break;
		x->discarded += ev.gap;
		err = proctree_add(&x->tree, &ev);
		if (err)
			break;
		/* Out of CTF's range: brought into it, as ctf's exports do. */
		ctf_time(&ev.info.posix_timestamp, &ts);
		err = kevent_decode(&ev, &k) ? emit_kevent(x, &k, ts) :
					       emit_other(x, &ev, ts);
	}
	for (i = 0; i < LTTNG_CPUS_MAX; i++) {
		if (!err)
			err = flush_packet(x, i);
		if (x->cpus[i] && fclose(x->cpus[i]->file) && !err)
			err = errno;
		if (x->cpus[i])
			free(x->cpus[i]->buf);
		free(x->cpus[i]);
	}
	if (!err) {
		if (gethostname(host, sizeof(host) - 1) || !strcmp(host, "(none)"))
			strcpy(host, "posixtrace");
		posix_trace_attr_getname(&lr->attr, name);
		clean(host);
		clean(name);
		err = write_metadata(x, host, name[0] ? name : "posixtrace");
	}
	for (size_t c = 0; c < x->nclasses; c++)
		free(x->classes[c].name);
	free(x->classes);
	free(x->tids);
	proctree_free(&x->tree);
	free(x);
	return err;
}
