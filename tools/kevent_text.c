// SPDX-License-Identifier: GPL-2.0
/* Kernel events as text (see kevent_text.h). */

#include <string.h>

#include <linux/sched.h>

#include "json.h"
#include "kevent_text.h"
#include "syscall_names.h"

/* A string field quoted, "..." after it when the kernel cut it. */
static void print_str(FILE *out, const struct kevent_str *s)
{
	fields_print_string(out, s->p, s->len);
	if (s->cut)
		fputs("...", out);
}

/* The new command name, unquoted: bytes a terminal would act on as \xNN. */
static void print_comm(FILE *out, const struct kevent *k)
{
	const struct kevent_str *c = &k->u.exec.comm;
	size_t i;

	for (i = 0; i < c->len; i++)
		if (c->p[i] > ' ' && c->p[i] < 0x7f && c->p[i] != '\\')
			putc(c->p[i], out);
		else
			fprintf(out, "\\x%02x", c->p[i]);
}

/* ["ls", "-l"]: the arguments the event has, ", ..." for the rest. */
static void print_argv(FILE *out, const struct kevent *k)
{
	uint32_t i, argc = k->u.exec.argc;

	putc('[', out);
	for (i = 0; i < argc && i < KEVENT_ARGV_SHOWN; i++) {
		fputs(i ? ", " : "", out);
		print_str(out, &k->u.exec.argv[i]);
	}
	if (argc > KEVENT_ARGV_SHOWN)
		fputs(", ...", out);
	putc(']', out);
}

/* The si_code by name, else its number. */
static void print_code(FILE *out, int sig, int code)
{
	const char *name = kevent_si_code_name(sig, code);

	if (name)
		fputs(name, out);
	else
		fprintf(out, "%d", code);
}

static void print_named(FILE *out, const char *name, int v)
{
	if (name)
		fputs(name, out);
	else
		fprintf(out, "%d", v);
}

static void line_fork(FILE *out, const struct kevent *k)
{
	char flags[CLONE_FLAGS_TEXT_SIZE];
	/*
	 * glibc's fork() is a clone() that asks for the child's tid to be
	 * stored and cleared: still a fork to the reader.
	 */
	uint64_t kind = k->u.fork.flags & ~UINT64_C(0xff) &
			~(uint64_t)(CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID);

	if (k->u.fork.thread)
		fprintf(out, "clone(%s) -> tid %d",
			kevent_clone_flags(k->u.fork.flags, flags),
			(int)k->u.fork.tid);
	else if (!kind)
		fprintf(out, "fork -> pid %d", (int)k->u.fork.pid);
	else if (kind == (CLONE_VM | CLONE_VFORK))
		fprintf(out, "vfork -> pid %d", (int)k->u.fork.pid);
	else
		fprintf(out, "clone(%s) -> pid %d",
			kevent_clone_flags(k->u.fork.flags, flags),
			(int)k->u.fork.pid);
}

static void line_exit(FILE *out, const struct kevent *k)
{
	char sig[SIGNAL_NAME_SIZE];

	fprintf(out, "+++ %s", k->u.exit.process ? "" : "thread ");
	if (k->u.exit.signal)
		fprintf(out, "killed by %s%s",
			kevent_signal_name(k->u.exit.signal, sig),
			k->u.exit.core ? " (core dumped)" : "");
	else
		fprintf(out, "exited with %d", k->u.exit.status);
	fputs(" +++", out);
}

static void line_signal(FILE *out, const struct kevent *k)
{
	char sig[SIGNAL_NAME_SIZE];
	const char *result;

	fprintf(out, "--- %s%s {code=", kevent_signal_name(k->u.sig.sig, sig),
		k->kind == KEVENT_SIGNAL_DELIVER ? " delivered" : "");
	print_code(out, k->u.sig.sig, k->u.sig.code);
	if (k->kind == KEVENT_SIGNAL_DELIVER) {
		fputs(", action=", out);
		print_named(out, kevent_action_name(k->u.sig.action),
			    k->u.sig.action);
	} else {
		fprintf(out, ", sender=%d", (int)k->u.sig.sender);
		if (!k->u.sig.group)
			fputs(", thread", out);
		/* Queued is what a signal sent does: say only otherwise. */
		if (k->u.sig.result != POSIXTRACE_SIGNAL_DELIVERED) {
			result = kevent_result_name(k->u.sig.result);
			fputs(", result=", out);
			print_named(out, result, k->u.sig.result);
		}
	}
	fputs("} ---", out);
}

/* A call's paths and address, after its registers: path "/etc/x"... */
static void print_syscall_mem(FILE *out, const struct kevent *k)
{
	if (k->u.sys.path.len || k->u.sys.path.cut) {
		fputs(" path ", out);
		print_str(out, &k->u.sys.path);
	}
	if (k->u.sys.path2.len || k->u.sys.path2.cut) {
		fputs(" path2 ", out);
		print_str(out, &k->u.sys.path2);
	}
	if (k->u.sys.addr_len || k->u.sys.addr_cut)
		fprintf(out, " addr %zu bytes%s", k->u.sys.addr_len,
			k->u.sys.addr_cut ? "..." : "");
}

/*
 * "lseek(0x3, 0x3039, 0, ...)": the six registers, whatever it uses,
 * then its paths and address.
 */
static void print_syscall_entry(FILE *out, const struct kevent *k)
{
	char name[SYSCALL_NAME_SIZE];
	unsigned int i;

	fprintf(out, "%s(", syscall_name(k->u.sys.nr, k->u.sys.compat, name));
	for (i = 0; i < KEVENT_SYSCALL_ARGS; i++)
		fprintf(out, i ? ", %#llx" : "%#llx",
			(unsigned long long)k->u.sys.args[i]);
	putc(')', out);
	print_syscall_mem(out, k);
}

/* "lseek = 12345", "close = -1 EBADF (Bad file descriptor)". */
static void print_syscall_exit(FILE *out, const struct kevent *k)
{
	char name[SYSCALL_NAME_SIZE];
	int err = kevent_syscall_error(k);
	const char *err_name;

	fprintf(out, "%s = ", syscall_name(k->u.sys.nr, k->u.sys.compat, name));
	if (err) {
		err_name = syscall_errno_name(err);
		fprintf(out, "-1 %s (%s)", err_name ? err_name : "E?",
			strerror(err));
		return;
	}
	fprintf(out, "%lld", (long long)k->u.sys.ret);
}

/* The policy by name, else its number. */
static void print_policy(FILE *out, uint32_t policy)
{
	const char *name = kevent_policy_name(policy);

	if (name)
		fputs(name, out);
	else
		fprintf(out, "policy %u", policy);
}

/*
 * "off cpu 1: S, prio 20, SCHED_OTHER", "on cpu 0, prio 20",
 * "woken by 42/43 (last on cpu 1, prio 20)", "moved from cpu 0 to cpu 1".
 */
static void print_sched(FILE *out, const struct kevent *k)
{
	switch (k->kind) {
	case KEVENT_SCHED_OUT:
		fprintf(out, "off cpu %u: %s, prio %d, ", k->u.sched.cpu,
			kevent_sched_state_name(k->u.sched.state),
			k->u.sched.prio);
		print_policy(out, k->u.sched.policy);
		return;
	case KEVENT_SCHED_IN:
		fprintf(out, "on cpu %u, prio %d", k->u.sched.cpu,
			k->u.sched.prio);
		return;
	case KEVENT_SCHED_WAKEUP:
		fputs(k->u.sched.new ? "woken new" : "woken", out);
		if (k->u.sched.waker_tid)
			fprintf(out, " by %d/%d", (int)k->u.sched.waker_pid,
				(int)k->u.sched.waker_tid);
		fprintf(out, " (%s cpu %u, prio %d)",
			k->u.sched.new ? "to" : "last on", k->u.sched.cpu,
			k->u.sched.prio);
		return;
	case KEVENT_SCHED_MIGRATE:
		fprintf(out, "moved from cpu %u to cpu %u", k->u.sched.from,
			k->u.sched.cpu);
		return;
	default:
		return;
	}
}

void kevent_print_line(FILE *out, const struct kevent *k)
{
	switch (k->kind) {
	case KEVENT_FORK:
		line_fork(out, k);
		return;
	case KEVENT_EXEC:
		fputs("exec ", out);
		print_str(out, &k->u.exec.path);
		putc(' ', out);
		print_argv(out, k);
		fputs(" (comm ", out);
		print_comm(out, k);
		putc(')', out);
		return;
	case KEVENT_EXIT:
		line_exit(out, k);
		return;
	case KEVENT_SIGNAL_GENERATE:
	case KEVENT_SIGNAL_DELIVER:
		line_signal(out, k);
		return;
	case KEVENT_SYSCALL_ENTRY:
		print_syscall_entry(out, k);
		return;
	case KEVENT_SYSCALL_EXIT:
		print_syscall_exit(out, k);
		return;
	case KEVENT_SCHED_OUT:
	case KEVENT_SCHED_IN:
	case KEVENT_SCHED_WAKEUP:
	case KEVENT_SCHED_MIGRATE:
		print_sched(out, k);
		return;
	}
}

static void decoded_signal(FILE *out, const struct kevent *k)
{
	char sig[SIGNAL_NAME_SIZE];

	fprintf(out, "%s, ", kevent_signal_name(k->u.sig.sig, sig));
	print_code(out, k->u.sig.sig, k->u.sig.code);
	fputs(", ", out);
	if (k->kind == KEVENT_SIGNAL_DELIVER) {
		print_named(out, kevent_action_name(k->u.sig.action),
			    k->u.sig.action);
		return;
	}
	fprintf(out, "from pid %d, to the %s, ", (int)k->u.sig.sender,
		k->u.sig.group ? "process" : "thread");
	print_named(out, kevent_result_name(k->u.sig.result),
		    k->u.sig.result);
}

void kevent_print_decoded(FILE *out, const struct kevent *k)
{
	char text[CLONE_FLAGS_TEXT_SIZE], name[SYSCALL_NAME_SIZE];

	fputs(" (", out);
	switch (k->kind) {
	case KEVENT_FORK:
		fprintf(out, "%s %d, flags %s",
			k->u.fork.thread ? "thread" : "process",
			(int)(k->u.fork.thread ? k->u.fork.tid :
			      k->u.fork.pid),
			kevent_clone_flags(k->u.fork.flags, text));
		break;
	case KEVENT_EXEC:
		print_str(out, &k->u.exec.path);
		putc(' ', out);
		print_argv(out, k);
		fputs(", comm ", out);
		print_comm(out, k);
		break;
	case KEVENT_EXIT:
		fprintf(out, "%s %s", k->u.exit.process ? "process" : "thread",
			kevent_exit_text(k->u.exit.status, k->u.exit.signal,
					 k->u.exit.core, text));
		break;
	case KEVENT_SIGNAL_GENERATE:
	case KEVENT_SIGNAL_DELIVER:
		decoded_signal(out, k);
		break;
	case KEVENT_SYSCALL_ENTRY:
		fputs(syscall_name(k->u.sys.nr, k->u.sys.compat, name), out);
		break;
	case KEVENT_SYSCALL_EXIT:
		print_syscall_exit(out, k);
		break;
	case KEVENT_SCHED_OUT:
	case KEVENT_SCHED_IN:
	case KEVENT_SCHED_WAKEUP:
	case KEVENT_SCHED_MIGRATE:
		print_sched(out, k);
		break;
	}
	putc(')', out);
}

/* ", "key": "text"", or ", "key": null" without a name. */
static void json_member(FILE *out, const char *key, const char *text)
{
	fprintf(out, ", \"%s\": ", key);
	if (text)
		json_string(out, text);
	else
		fputs("null", out);
}

static void json_argv(FILE *out, const struct kevent *k)
{
	uint32_t i;

	fputs(", \"argv\": [", out);
	for (i = 0; i < k->u.exec.argc && i < KEVENT_ARGV_SHOWN; i++) {
		fputs(i ? ", " : "", out);
		json_string_n(out, k->u.exec.argv[i].p, k->u.exec.argv[i].len);
	}
	putc(']', out);
}

void kevent_print_json(FILE *out, const struct kevent *k)
{
	char text[CLONE_FLAGS_TEXT_SIZE], sig[SIGNAL_NAME_SIZE];
	char name[SYSCALL_NAME_SIZE];

	switch (k->kind) {
	case KEVENT_FORK:
		json_member(out, "flags_names",
			    kevent_clone_flags(k->u.fork.flags, text));
		return;
	case KEVENT_EXEC:
		json_argv(out, k);
		return;
	case KEVENT_EXIT:
		if (k->u.exit.signal)
			json_member(out, "signal_name", kevent_signal_name(
					    k->u.exit.signal, sig));
		json_member(out, "exit", kevent_exit_text(k->u.exit.status,
				k->u.exit.signal, k->u.exit.core, text));
		return;
	case KEVENT_SIGNAL_GENERATE:
	case KEVENT_SIGNAL_DELIVER:
		json_member(out, "sig_name",
			    kevent_signal_name(k->u.sig.sig, sig));
		json_member(out, "code_name",
			    kevent_si_code_name(k->u.sig.sig, k->u.sig.code));
		if (k->kind == KEVENT_SIGNAL_DELIVER)
			json_member(out, "action_name",
				    kevent_action_name(k->u.sig.action));
		else
			json_member(out, "result_name",
				    kevent_result_name(k->u.sig.result));
		return;
	case KEVENT_SYSCALL_ENTRY:
	case KEVENT_SYSCALL_EXIT:
		json_member(out, "syscall_name", syscall_name(k->u.sys.nr,
				k->u.sys.compat, name));
		if (k->kind == KEVENT_SYSCALL_EXIT)
			json_member(out, "errno_name", syscall_errno_name(
					    kevent_syscall_error(k)));
		return;
	case KEVENT_SCHED_OUT:
		json_member(out, "state_name",
			    kevent_sched_state_name(k->u.sched.state));
		json_member(out, "policy_name",
			    kevent_policy_name(k->u.sched.policy));
		return;
	case KEVENT_SCHED_IN:
	case KEVENT_SCHED_WAKEUP:
	case KEVENT_SCHED_MIGRATE:
		return;
	}
}
