// SPDX-License-Identifier: GPL-2.0
/* Kernel events: decoding and naming (see kevent.h). */

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <linux/sched.h>

#include "kevent.h"

bool kevent_is_kernel(trace_event_id_t id)
{
	return id >= POSIXTRACE_EVENT_KERNEL_FIRST &&
	       id < POSIXTRACE_EVENT_KERNEL_END;
}

/*
 * The decoded fields, looked up by name. The decoders ask for them mostly
 * in the order of their formats: a lookup starts after the last one found
 * (@next), and is then one compare; from the start, a system call's
 * entry (13 lookups) would take some 90 string compares.
 */
struct kfields {
	const struct field_value *vals;
	unsigned int n;
	unsigned int next;	/* after the last field found */
	bool missing;		/* a field asked for is not there */
};

/* What a kernel event's field holds, as the decoders ask for it. */
enum kfield_kind {
	KFIELD_NUM,		/* an integer */
	KFIELD_STR,
	KFIELD_BYTES,
	KFIELD_OTHER,		/* a float: no kernel event has one */
};

static enum kfield_kind kfield_kind(enum posixtrace_field_type type)
{
	if (type == POSIXTRACE_FIELD_STR)
		return KFIELD_STR;
	if (type == POSIXTRACE_FIELD_BYTES)
		return KFIELD_BYTES;
	return field_type_float(type) ? KFIELD_OTHER : KFIELD_NUM;
}

/* The field @name, of @kind; NULL, and @f->missing, if there is none. */
static const struct field_value *field(struct kfields *f, const char *name,
				       enum kfield_kind kind)
{
	unsigned int k, i;

	for (k = 0; k < f->n; k++) {
		const struct field_value *fv;

		i = f->next + k < f->n ? f->next + k : f->next + k - f->n;
		fv = &f->vals[i];
		if (strcmp(fv->field->name, name))
			continue;
		f->next = i + 1 < f->n ? i + 1 : 0;
		if (kfield_kind(fv->field->type) == kind)
			return fv;
		break;
	}
	f->missing = true;
	return NULL;
}

static int64_t num(struct kfields *f, const char *name)
{
	const struct field_value *fv = field(f, name, KFIELD_NUM);

	return fv ? fv->v.s : 0;
}

static struct kevent_str str(struct kfields *f, const char *name,
			     unsigned int cut_bit, unsigned int cut)
{
	const struct field_value *fv = field(f, name, KFIELD_STR);
	struct kevent_str s = { (const unsigned char *)"", 0, false };

	if (fv) {
		s.p = fv->p;
		s.len = fv->len;
	}
	s.cut = cut >> cut_bit & 1;
	return s;
}

static void decode_exec(struct kfields *f, struct kevent *k)
{
	static const char *const argv_names[KEVENT_ARGV_SHOWN] = {
		"argv0", "argv1", "argv2", "argv3",
	};
	unsigned int cut = (unsigned int)num(f, "cut"), i;

	k->u.exec.argc = (uint32_t)num(f, "argc");
	k->u.exec.path = str(f, "path", 0, cut);
	k->u.exec.comm = str(f, "comm", 0, 0);
	for (i = 0; i < KEVENT_ARGV_SHOWN; i++)
		k->u.exec.argv[i] = str(f, argv_names[i], 1 + i, cut);
}

static void decode_syscall(struct kfields *f, struct kevent *k)
{
	static const char *const arg_names[KEVENT_SYSCALL_ARGS] = {
		"a0", "a1", "a2", "a3", "a4", "a5",
	};
	const struct field_value *addr;
	unsigned int i, cut;

	k->u.sys.nr = (int)num(f, "nr");
	k->u.sys.compat = num(f, "compat") != 0;
	if (k->kind == KEVENT_SYSCALL_EXIT) {
		k->u.sys.ret = num(f, "ret");
		return;
	}
	for (i = 0; i < KEVENT_SYSCALL_ARGS; i++)
		k->u.sys.args[i] = (uint64_t)num(f, arg_names[i]);
	cut = (unsigned int)num(f, "cut");
	k->u.sys.path = str(f, "path", 0, cut);
	k->u.sys.path2 = str(f, "path2", 1, cut);
	addr = field(f, "addr", KFIELD_BYTES);
	k->u.sys.addr_len = addr ? addr->len : 0;
	k->u.sys.addr_cut = cut & POSIXTRACE_SYSCALL_CUT_ADDR;
}

static void decode_sched(struct kfields *f, struct kevent *k)
{
	if (k->kind == KEVENT_SCHED_MIGRATE) {
		k->u.sched.from = (uint32_t)num(f, "from");
		k->u.sched.cpu = (uint32_t)num(f, "to");
		return;
	}
	k->u.sched.prio = (int)num(f, "prio");
	k->u.sched.cpu = (uint32_t)num(f, "cpu");
	if (k->kind == KEVENT_SCHED_OUT) {
		k->u.sched.state = (uint32_t)num(f, "state");
		k->u.sched.policy = (uint32_t)num(f, "policy");
	} else if (k->kind == KEVENT_SCHED_WAKEUP) {
		k->u.sched.waker_pid = (pid_t)num(f, "waker_pid");
		k->u.sched.waker_tid = (pid_t)num(f, "waker_tid");
		k->u.sched.new = num(f, "new") != 0;
	}
}

static void decode_fields(struct kfields *f, struct kevent *k)
{
	if (k->kind == KEVENT_SIGNAL_GENERATE ||
	    k->kind == KEVENT_SIGNAL_DELIVER) {
		k->u.sig.sig = (int)num(f, "sig");
		k->u.sig.code = (int)num(f, "code");
	}
	switch (k->kind) {
	case KEVENT_FORK:
		k->u.fork.pid = (pid_t)num(f, "pid");
		k->u.fork.tid = (pid_t)num(f, "tid");
		k->u.fork.flags = (uint64_t)num(f, "flags");
		k->u.fork.thread = num(f, "thread") != 0;
		break;
	case KEVENT_EXEC:
		decode_exec(f, k);
		break;
	case KEVENT_EXIT:
		k->u.exit.status = (int)num(f, "status");
		k->u.exit.signal = (int)num(f, "signal");
		k->u.exit.core = num(f, "core") != 0;
		k->u.exit.process = num(f, "process") != 0;
		break;
	case KEVENT_SIGNAL_GENERATE:
		k->u.sig.sender = (pid_t)num(f, "sender");
		k->u.sig.result = (int)num(f, "result");
		k->u.sig.group = num(f, "group") != 0;
		break;
	case KEVENT_SIGNAL_DELIVER:
		k->u.sig.action = (int)num(f, "action");
		break;
	case KEVENT_SYSCALL_ENTRY:
	case KEVENT_SYSCALL_EXIT:
		decode_syscall(f, k);
		break;
	case KEVENT_SCHED_OUT:
	case KEVENT_SCHED_IN:
	case KEVENT_SCHED_WAKEUP:
	case KEVENT_SCHED_MIGRATE:
		decode_sched(f, k);
		break;
	}
}

int kevent_syscall_error(const struct kevent *k)
{
	/* As the kernel returns an error: -4095 to -1. */
	return k->kind == KEVENT_SYSCALL_EXIT && k->u.sys.ret < 0 &&
	       k->u.sys.ret >= -4095 ? (int)-k->u.sys.ret : 0;
}

bool kevent_decode(const struct log_event *ev, struct kevent *k)
{
	struct field_value vals[POSIXTRACE_FORMAT_FIELDS_MAX];
	struct kfields f = { vals, 0, 0, false };
	const char *why, *name;

	if (!kevent_is_kernel(ev->info.posix_event_id) || !ev->type ||
	    !ev->type->format ||
	    ev->info.posix_truncation_status != POSIX_TRACE_NOT_TRUNCATED ||
	    !fields_decode(ev->type->format, ev->data, ev->data_len, vals,
			   &why, &name))
		return false;
	memset(k, 0, sizeof(*k));
	f.n = ev->type->format->nfields;
	k->kind = (enum kevent_kind)ev->info.posix_event_id;
	k->pid = ev->info.posix_pid;
	k->tid = ev->has_tid && ev->tid ? ev->tid : ev->info.posix_pid;
	decode_fields(&f, k);
	return !f.missing;
}

#define NAMED(x)	[x] = #x

static const char *const signal_names[] = {
	NAMED(SIGHUP), NAMED(SIGINT), NAMED(SIGQUIT), NAMED(SIGILL),
	NAMED(SIGTRAP), NAMED(SIGABRT), NAMED(SIGBUS), NAMED(SIGFPE),
	NAMED(SIGKILL), NAMED(SIGUSR1), NAMED(SIGSEGV), NAMED(SIGUSR2),
	NAMED(SIGPIPE), NAMED(SIGALRM), NAMED(SIGTERM),
#ifdef SIGSTKFLT
	NAMED(SIGSTKFLT),
#endif
	NAMED(SIGCHLD), NAMED(SIGCONT), NAMED(SIGSTOP), NAMED(SIGTSTP),
	NAMED(SIGTTIN), NAMED(SIGTTOU), NAMED(SIGURG), NAMED(SIGXCPU),
	NAMED(SIGXFSZ), NAMED(SIGVTALRM), NAMED(SIGPROF), NAMED(SIGWINCH),
	NAMED(SIGIO), NAMED(SIGPWR), NAMED(SIGSYS),
};

#define NELEMS(a)	(sizeof(a) / sizeof((a)[0]))

const char *kevent_signal_name(int sig, char buf[SIGNAL_NAME_SIZE])
{
	if (sig > 0 && (size_t)sig < NELEMS(signal_names) &&
	    signal_names[sig])
		return signal_names[sig];
	/* The kernel's numbers, not glibc's SIGRTMIN (which keeps two). */
	if (sig == __SIGRTMIN)
		return "SIGRTMIN";
	if (sig > __SIGRTMIN && sig <= __SIGRTMAX)
		snprintf(buf, SIGNAL_NAME_SIZE, "SIGRTMIN+%d",
			 sig - __SIGRTMIN);
	else
		snprintf(buf, SIGNAL_NAME_SIZE, "SIG%d", sig);
	return buf;
}

struct code_name {
	int code;
	const char *name;
};

#define CODE(x)		{ x, #x }

/* Who sent it: the same for every signal (code <= 0, and SI_KERNEL). */
static const struct code_name sender_codes[] = {
	CODE(SI_USER), CODE(SI_KERNEL), CODE(SI_QUEUE), CODE(SI_TIMER),
	CODE(SI_MESGQ), CODE(SI_ASYNCIO), CODE(SI_SIGIO), CODE(SI_TKILL),
};

/* Why the kernel sent it: the signal's own codes. */
static const struct code_name chld_codes[] = {
	CODE(CLD_EXITED), CODE(CLD_KILLED), CODE(CLD_DUMPED),
	CODE(CLD_TRAPPED), CODE(CLD_STOPPED), CODE(CLD_CONTINUED),
};
static const struct code_name segv_codes[] = {
	CODE(SEGV_MAPERR), CODE(SEGV_ACCERR),
};
static const struct code_name bus_codes[] = {
	CODE(BUS_ADRALN), CODE(BUS_ADRERR), CODE(BUS_OBJERR),
};
static const struct code_name fpe_codes[] = {
	CODE(FPE_INTDIV), CODE(FPE_INTOVF), CODE(FPE_FLTDIV),
	CODE(FPE_FLTOVF), CODE(FPE_FLTUND), CODE(FPE_FLTRES),
	CODE(FPE_FLTINV), CODE(FPE_FLTSUB),
};
static const struct code_name ill_codes[] = {
	CODE(ILL_ILLOPC), CODE(ILL_ILLOPN), CODE(ILL_ILLADR),
	CODE(ILL_ILLTRP), CODE(ILL_PRVOPC), CODE(ILL_PRVREG),
	CODE(ILL_COPROC), CODE(ILL_BADSTK),
};

static const char *lookup(const struct code_name *t, size_t n, int code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	return NULL;
}

#define LOOKUP(t, code)	lookup(t, NELEMS(t), code)

const char *kevent_si_code_name(int sig, int code)
{
	if (code <= 0 || code == SI_KERNEL)
		return LOOKUP(sender_codes, code);
	switch (sig) {
	case SIGCHLD:
		return LOOKUP(chld_codes, code);
	case SIGSEGV:
		return LOOKUP(segv_codes, code);
	case SIGBUS:
		return LOOKUP(bus_codes, code);
	case SIGFPE:
		return LOOKUP(fpe_codes, code);
	case SIGILL:
		return LOOKUP(ill_codes, code);
	}
	return NULL;
}

static const struct {
	uint64_t bit;
	const char *name;
} clone_flags[] = {
	CODE(CLONE_VM), CODE(CLONE_FS), CODE(CLONE_FILES),
	CODE(CLONE_SIGHAND), CODE(CLONE_PIDFD), CODE(CLONE_PTRACE),
	CODE(CLONE_VFORK), CODE(CLONE_PARENT), CODE(CLONE_THREAD),
	CODE(CLONE_NEWNS), CODE(CLONE_SYSVSEM), CODE(CLONE_SETTLS),
	CODE(CLONE_PARENT_SETTID), CODE(CLONE_CHILD_CLEARTID),
	CODE(CLONE_DETACHED), CODE(CLONE_UNTRACED), CODE(CLONE_CHILD_SETTID),
	CODE(CLONE_NEWCGROUP), CODE(CLONE_NEWUTS), CODE(CLONE_NEWIPC),
	CODE(CLONE_NEWUSER), CODE(CLONE_NEWPID), CODE(CLONE_NEWNET),
	CODE(CLONE_IO), { 0x100000000ULL, "CLONE_CLEAR_SIGHAND" },
	{ 0x200000000ULL, "CLONE_INTO_CGROUP" }, CODE(CLONE_NEWTIME),
};

/* Appends "|" (unless first) and text to buf of CLONE_FLAGS_TEXT_SIZE. */
static void append(char *buf, const char *text)
{
	size_t len = strlen(buf);

	snprintf(buf + len, CLONE_FLAGS_TEXT_SIZE - len, "%s%s",
		 len ? "|" : "", text);
}

const char *kevent_clone_flags(uint64_t flags,
			       char buf[CLONE_FLAGS_TEXT_SIZE])
{
	char sig[SIGNAL_NAME_SIZE], rest[24];
	uint64_t left = flags & ~UINT64_C(0xff);
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < NELEMS(clone_flags); i++) {
		if (!(left & clone_flags[i].bit))
			continue;
		append(buf, clone_flags[i].name);
		left &= ~clone_flags[i].bit;
	}
	if (left) {
		snprintf(rest, sizeof(rest), "%#llx", (unsigned long long)left);
		append(buf, rest);
	}
	if (flags & 0xff)
		append(buf, kevent_signal_name((int)(flags & 0xff), sig));
	if (!buf[0])
		append(buf, "0");
	return buf;
}

const char *kevent_exit_text(int status, int signal, bool core,
			     char buf[EXIT_TEXT_SIZE])
{
	char sig[SIGNAL_NAME_SIZE];

	if (signal)
		snprintf(buf, EXIT_TEXT_SIZE, "killed by %s%s",
			 kevent_signal_name(signal, sig),
			 core ? " (core dumped)" : "");
	else
		snprintf(buf, EXIT_TEXT_SIZE, "exited %d", status);
	return buf;
}

const char *kevent_result_name(int result)
{
	static const char *const names[] = {
		[POSIXTRACE_SIGNAL_DELIVERED] = "queued",
		[POSIXTRACE_SIGNAL_IGNORED] = "ignored",
		[POSIXTRACE_SIGNAL_ALREADY_PENDING] = "already_pending",
		[POSIXTRACE_SIGNAL_OVERFLOW_FAIL] = "overflow_fail",
		[POSIXTRACE_SIGNAL_LOSE_INFO] = "lose_info",
	};

	return result >= 0 && (size_t)result < NELEMS(names) ?
	       names[result] : NULL;
}

const char *kevent_action_name(int action)
{
	static const char *const names[] = {
		[POSIXTRACE_SIGACT_DEFAULT] = "default",
		[POSIXTRACE_SIGACT_IGNORE] = "ignore",
		[POSIXTRACE_SIGACT_HANDLER] = "handler",
	};

	return action >= 0 && (size_t)action < NELEMS(names) ?
	       names[action] : NULL;
}

const char *kevent_sched_state_name(uint32_t state)
{
	static const char *const names[] = {
		"S", "D", "T", "t", "X", "Z", "P", "I",
	};
	unsigned int i;

	if (state == POSIXTRACE_SCHED_PREEMPTED)
		return "R+";
	if (!state)
		return "R";
	for (i = 0; i < NELEMS(names); i++)
		if (state == 1U << i)
			return names[i];
	return "?";
}

const char *kevent_policy_name(uint32_t policy)
{
	static const char *const names[] = {
		NAMED(SCHED_OTHER), NAMED(SCHED_FIFO), NAMED(SCHED_RR),
		NAMED(SCHED_BATCH), NAMED(SCHED_IDLE), NAMED(SCHED_DEADLINE),
	};

	return policy < NELEMS(names) ? names[policy] : NULL;
}
