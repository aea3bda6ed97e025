/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel events (ABI 0.12, <linux/posixtrace.h> "Kernel event types"):
 * their data decoded into a struct, and the names people read for their
 * numbers: signals, si_codes, clone flags, exit statuses. dump (text and
 * JSON), trace's lines and the process tree all read them through here.
 *
 * Fields are found by name in the type's format, not by position, so a
 * later module that adds a field still decodes. Numbers are named as this
 * machine's <signal.h> names them: a log read on another architecture
 * whose signal numbers differ would be misnamed (Linux's differ only on
 * alpha, mips, parisc and sparc).
 */
#ifndef POSIXTRACE_TOOL_KEVENT_H
#define POSIXTRACE_TOOL_KEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logread.h"

enum kevent_kind {
	KEVENT_FORK = POSIXTRACE_EVENT_PROC_FORK,
	KEVENT_EXEC = POSIXTRACE_EVENT_PROC_EXEC,
	KEVENT_EXIT = POSIXTRACE_EVENT_PROC_EXIT,
	KEVENT_SIGNAL_GENERATE = POSIXTRACE_EVENT_SIGNAL_GENERATE,
	KEVENT_SIGNAL_DELIVER = POSIXTRACE_EVENT_SIGNAL_DELIVER,
	KEVENT_SYSCALL_ENTRY = POSIXTRACE_EVENT_SYSCALL_ENTRY,
	KEVENT_SYSCALL_EXIT = POSIXTRACE_EVENT_SYSCALL_EXIT,
	KEVENT_SCHED_OUT = POSIXTRACE_EVENT_SCHED_OUT,
	KEVENT_SCHED_IN = POSIXTRACE_EVENT_SCHED_IN,
	KEVENT_SCHED_WAKEUP = POSIXTRACE_EVENT_SCHED_WAKEUP,
	KEVENT_SCHED_MIGRATE = POSIXTRACE_EVENT_SCHED_MIGRATE,
};

#define KEVENT_SYSCALL_ARGS	6

#define KEVENT_ARGV_SHOWN	4	/* argv0 to argv3 */

/* A string field: its bytes (no NUL), and whether the kernel cut it. */
struct kevent_str {
	const unsigned char *p;
	size_t len;
	bool cut;
};

struct kevent {
	enum kevent_kind kind;
	pid_t pid, tid;			/* the record's: whom it is about */
	union {
		struct {
			pid_t pid, tid;	/* the child's */
			uint64_t flags;
			bool thread;
		} fork;
		struct {
			uint32_t argc;
			struct kevent_str path, comm;
			struct kevent_str argv[KEVENT_ARGV_SHOWN];
		} exec;
		struct {
			int status, signal;
			bool core, process;
		} exit;
		struct {
			int sig, code;
			pid_t sender;	/* generate */
			int result;	/* generate: POSIXTRACE_SIGNAL_* */
			bool group;	/* generate */
			int action;	/* deliver: POSIXTRACE_SIGACT_* */
		} sig;
		struct {
			int nr;
			bool compat;	/* the 32-bit table's number */
			uint64_t args[KEVENT_SYSCALL_ARGS];	/* entry */
			/* entry: what the call's path and address were */
			struct kevent_str path, path2;
			size_t addr_len;
			bool addr_cut;
			int64_t ret;	/* exit */
		} sys;
		struct {
			uint32_t state;	/* out: POSIXTRACE_SCHED_PREEMPTED... */
			int prio;	/* out, in, wakeup */
			uint32_t policy;	/* out */
			uint32_t cpu;	/* out, in, wakeup; migrate: to */
			uint32_t from;	/* migrate */
			pid_t waker_pid, waker_tid;	/* wakeup */
			bool new;	/* wakeup: a new thread's first */
		} sched;
	} u;
};

/* Whether id is one of the kernel event types. */
bool kevent_is_kernel(trace_event_id_t id);

/*
 * Decodes ev if it is a kernel event whose data matches its format and
 * has the fields this version knows: true and *k, else false (dump then
 * shows it as any typed event, and says why the data did not match).
 */
bool kevent_decode(const struct log_event *ev, struct kevent *k);

/* The errno a system call's exit failed with; 0 if it did not fail. */
int kevent_syscall_error(const struct kevent *k);

/* "SIGUSR1", "SIGRTMIN+3"; "SIG42" for a number with no name. */
#define SIGNAL_NAME_SIZE	16
const char *kevent_signal_name(int sig, char buf[SIGNAL_NAME_SIZE]);

/* "SI_USER", "CLD_EXITED"...: NULL where this version has no name. */
const char *kevent_si_code_name(int sig, int code);

/*
 * The clone flags: "CLONE_VM|CLONE_FS|...|SIGCHLD" (the exit signal of
 * the low byte last, as strace writes them), unknown bits in hex, "0"
 * for none.
 */
#define CLONE_FLAGS_TEXT_SIZE	512
const char *kevent_clone_flags(uint64_t flags,
			       char buf[CLONE_FLAGS_TEXT_SIZE]);

/* "exited 0", "killed by SIGKILL", "killed by SIGSEGV (core dumped)". */
#define EXIT_TEXT_SIZE		64
const char *kevent_exit_text(int status, int signal, bool core,
			     char buf[EXIT_TEXT_SIZE]);

/* POSIXTRACE_SIGNAL_*: "queued", "ignored", ...; NULL if unknown. */
const char *kevent_result_name(int result);
/* POSIXTRACE_SIGACT_*: "default", "ignore", "handler"; NULL if unknown. */
const char *kevent_action_name(int action);

/*
 * A switched-out thread's state as ps writes it: "R" runnable, "R+"
 * preempted, "S", "D", "T", "t", "X", "Z", "P", "I"; "?" if unknown.
 */
const char *kevent_sched_state_name(uint32_t state);
/* SCHED_*: "SCHED_OTHER", "SCHED_FIFO"...; NULL if unknown. */
const char *kevent_policy_name(uint32_t policy);

#endif /* POSIXTRACE_TOOL_KEVENT_H */
