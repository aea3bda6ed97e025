/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * posixtrace: the kernel ABI behind the POSIX Tracing option (<trace.h>).
 *
 * The module registers the misc device /dev/posixtrace. Everything is an
 * ioctl: on that device (create a stream, name events, record them), or on
 * the descriptor of a stream that CREATE returns (everything else); the
 * device also maps the enable page.
 *
 * Conventions, the same for every command:
 *  - Every argument is an extensible struct whose first member is
 *    "__u32 size": the size of the struct as the caller knows it. The
 *    kernel accepts any size from the struct's size in ABI 1.0
 *    (..._SIZE_VER0) up to PAGE_SIZE; bytes it does not know must be zero
 *    (else E2BIG). A size below ..._SIZE_VER0 is EINVAL, above PAGE_SIZE is
 *    E2BIG. On output the kernel stores in "size" the size it knows, and
 *    copies out no more than the caller's size.
 *  - The size encoded in the command number is that of the first version of
 *    the struct and is not used for dispatch, so a caller built against a
 *    newer header still reaches an older module.
 *  - "flags" members reject unknown bits with EINVAL; reserved members must
 *    be zero (EINVAL otherwise).
 *  - User pointers are carried as __u64.
 *  - An unknown command is ENOTTY.
 *
 * Objects: a trace stream is a file descriptor (anon inode, close-on-exec)
 * returned by POSIXTRACE_IOC_CREATE on /dev/posixtrace. Stream commands are
 * ioctls on that descriptor and are refused with EINVAL in any process but
 * the one that created the stream (POSIX: a trid is valid only there).
 * Producer commands (EVENTID_OPEN, EVENT) are ioctls on /dev/posixtrace and
 * act for the calling process.
 */
#ifndef _UAPI_LINUX_POSIXTRACE_H
#define _UAPI_LINUX_POSIXTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define POSIXTRACE_DEVICE_NAME	"posixtrace"

/*
 * The ABI version. The major number changes when a command changes
 * incompatibly (never, we hope); the minor when commands, struct members,
 * flags or event types are added. What may change, and what never does:
 * Documentation/userspace-api/posixtrace-abi.rst.
 */
#define POSIXTRACE_ABI_MAJOR	1
#define POSIXTRACE_ABI_MINOR	0

/* See Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define POSIXTRACE_IOC_MAGIC	0xB9

/**
 * struct posixtrace_version - the ABI version of the loaded module
 * @size:	Input: sizeof(struct posixtrace_version) as the caller knows it.
 *		Output: the size the module knows.
 * @flags:	Input: no flags are defined; must be 0.
 * @major:	Output: POSIXTRACE_ABI_MAJOR of the module.
 * @minor:	Output: POSIXTRACE_ABI_MINOR of the module.
 * @__reserved:	Input: must be 0.
 */
struct posixtrace_version {
	__u32 size;
	__u32 flags;
	__u16 major;
	__u16 minor;
	__u32 __reserved;
};

#define POSIXTRACE_VERSION_SIZE_VER0	16

/* Query the ABI version of the loaded module. */
#define POSIXTRACE_IOC_VERSION \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x00, struct posixtrace_version)

/* Limits. Names exclude the terminating NUL. */
#define POSIXTRACE_NAME_MAX		63	/* TRACE_NAME_MAX */
#define POSIXTRACE_EVENT_NAME_MAX	63	/* TRACE_EVENT_NAME_MAX */
#define POSIXTRACE_USER_EVENT_MAX	1024	/* TRACE_USER_EVENT_MAX */

/*
 * Event type identifiers. System event types have fixed identifiers below
 * POSIXTRACE_EVENT_USER_BASE; 0-7 are those of POSIX, the rest is reserved
 * for this implementation's own system events. The unnamed user event comes
 * next, then one identifier per user event name a process opens.
 */
#define POSIXTRACE_EVENT_ERROR		0	/* posix_trace_error */
#define POSIXTRACE_EVENT_START		1	/* posix_trace_start */
#define POSIXTRACE_EVENT_STOP		2	/* posix_trace_stop */
#define POSIXTRACE_EVENT_OVERFLOW	3	/* posix_trace_overflow */
#define POSIXTRACE_EVENT_RESUME		4	/* posix_trace_resume */
#define POSIXTRACE_EVENT_FLUSH_START	5	/* posix_trace_flush_start */
#define POSIXTRACE_EVENT_FLUSH_STOP	6	/* posix_trace_flush_stop */
#define POSIXTRACE_EVENT_FILTER		7	/* posix_trace_filter */
#define POSIXTRACE_EVENT_SYSTEM_MAX	64
#define POSIXTRACE_EVENT_UNNAMED_USER	64	/* posix_trace_unnamed_userevent */
#define POSIXTRACE_EVENT_USER_BASE	65
/*
 * Their names, fixed by POSIX (XSH 2.11.2): an initializer for an array of
 * strings indexed by identifier (C99), and the unnamed user event's.
 */
#define POSIXTRACE_SYSTEM_EVENT_NAMES {					\
	[POSIXTRACE_EVENT_ERROR]	= "posix_trace_error",		\
	[POSIXTRACE_EVENT_START]	= "posix_trace_start",		\
	[POSIXTRACE_EVENT_STOP]		= "posix_trace_stop",		\
	[POSIXTRACE_EVENT_OVERFLOW]	= "posix_trace_overflow",	\
	[POSIXTRACE_EVENT_RESUME]	= "posix_trace_resume",		\
	[POSIXTRACE_EVENT_FLUSH_START]	= "posix_trace_flush_start",	\
	[POSIXTRACE_EVENT_FLUSH_STOP]	= "posix_trace_flush_stop",	\
	[POSIXTRACE_EVENT_FILTER]	= "posix_trace_filter",		\
}

#define POSIXTRACE_UNNAMED_USER_NAME	"posix_trace_unnamed_userevent"

/*
 * Kernel event types: what the kernel does to the processes a
 * stream traces (inherited children included), recorded only by a stream
 * that asked for their class at creation (posixtrace_attr.kernel_events).
 * They are system event types of this implementation (XSH 2.11), in the
 * range below POSIXTRACE_EVENT_SYSTEM_MAX, filtered like any type. Their
 * data is fields packed as a format says ("Event formats" below); every
 * pid and tid in it is numbered in the stream's pid namespace, as the
 * record's own, and is 0 for a process not visible there.
 *
 * A record's pid and tid are those of the traced thread the event is
 * about: the forking thread, the exec'ing one, the exiting one, the
 * signal's target (POSIXTRACE_EVENT_SIGNAL_GENERATE, even when another
 * process sent it), the thread it is delivered to, or the thread making
 * a system call.
 *
 * The right to trace the process covers the proc and signal classes. The
 * syscall class and the sched class also need
 * CAP_PERFMON or CAP_SYS_ADMIN, unless root set the module's
 * kernel_events_paranoid parameter to 0: EPERM otherwise. Their probes
 * run on every system call, or every context switch and wakeup, of every
 * task of the machine while any stream records them, so turning them on
 * is a cost to every user, as perf_event_paranoid judges a system-wide
 * perf event.
 */
#define POSIXTRACE_KERNEL_PROC		(1U << 0)	/* fork, exec, exit */
#define POSIXTRACE_KERNEL_SIGNAL	(1U << 1)	/* generate, deliver */
#define POSIXTRACE_KERNEL_SYSCALL	(1U << 2)	/* entry, exit */
#define POSIXTRACE_KERNEL_SCHED		(1U << 3)	/* out, in, woken, moved */
#define POSIXTRACE_KERNEL_ALL \
	(POSIXTRACE_KERNEL_PROC | POSIXTRACE_KERNEL_SIGNAL | \
	 POSIXTRACE_KERNEL_SYSCALL | POSIXTRACE_KERNEL_SCHED)
/* The classes that need CAP_PERFMON (see above). */
#define POSIXTRACE_KERNEL_PRIVILEGED \
	(POSIXTRACE_KERNEL_SYSCALL | POSIXTRACE_KERNEL_SCHED)

/*
 * A new thread or process (clone(), fork(), vfork(), pthread_create()).
 * @pid, @tid: the child's; @flags: the clone flags (CLONE_*, the exit
 * signal in the low byte); @thread: 1 for a thread of the same process.
 */
#define POSIXTRACE_EVENT_PROC_FORK	16
#define POSIXTRACE_PROC_FORK_FORMAT	"pid:s32,tid:s32,flags:u64,thread:u8"
/*
 * A successful execve(). @argc: the new image's; @cut: bit 0 set when
 * @path was cut at 255 bytes, bit 1 + i when argv[i] was (or could not
 * be read); @path: the file as execve() named it; @comm: the new
 * command name; @argv0 to @argv3: the first four arguments, "" past
 * @argc, each cut at 255 bytes. An argument whose end is not found within
 * 2 KiB also leaves the arguments after it "" and marked cut.
 */
#define POSIXTRACE_EVENT_PROC_EXEC	17
#define POSIXTRACE_PROC_EXEC_FORMAT \
	"argc:u32,cut:u8,path:str,comm:str,argv0:str,argv1:str,argv2:str," \
	"argv3:str"
#define POSIXTRACE_EXEC_STR_MAX		256	/* each string, its NUL included */
/*
 * A thread exits. @status: its exit status (0-255), or -1 if a signal
 * killed it; @signal: that signal, else 0; @core: 1 if it dumped core;
 * @process: 1 when it is the last thread of its process, and the fields
 * are then the process's, as its parent's wait() will see them.
 */
#define POSIXTRACE_EVENT_PROC_EXIT	18
#define POSIXTRACE_PROC_EXIT_FORMAT \
	"status:s32,signal:s32,core:u8,process:u8"
/*
 * A signal sent to a traced thread (@group 0) or process (@group 1),
 * whoever sent it. @code: the siginfo's si_code (SI_USER, SI_KERNEL...);
 * @sender: the process that sent it, 0 from the kernel (interrupt
 * context), or from a process the traced process's pid namespace does
 * not see; @result: POSIXTRACE_SIGNAL_*, what became of it.
 */
#define POSIXTRACE_EVENT_SIGNAL_GENERATE 19
#define POSIXTRACE_SIGNAL_GENERATE_FORMAT \
	"sig:s32,code:s32,sender:s32,result:u8,group:u8"
#define POSIXTRACE_SIGNAL_DELIVERED	0	/* queued, or pending already */
#define POSIXTRACE_SIGNAL_IGNORED	1	/* dropped: ignored or blocked */
#define POSIXTRACE_SIGNAL_ALREADY_PENDING 2	/* merged with a pending one */
#define POSIXTRACE_SIGNAL_OVERFLOW_FAIL	3	/* the queue was full */
#define POSIXTRACE_SIGNAL_LOSE_INFO	4	/* queued without its siginfo */
/*
 * A signal taken by a traced thread (dequeued to act on it). @action:
 * POSIXTRACE_SIGACT_*, what the disposition then was.
 */
#define POSIXTRACE_EVENT_SIGNAL_DELIVER	20
#define POSIXTRACE_SIGNAL_DELIVER_FORMAT "sig:s32,code:s32,action:u8"
#define POSIXTRACE_SIGACT_DEFAULT	0	/* the default action */
#define POSIXTRACE_SIGACT_IGNORE	1	/* SIG_IGN */
#define POSIXTRACE_SIGACT_HANDLER	2	/* a handler runs */
/*
 * A traced thread enters a system call. @nr: its number, in
 * the table of the thread's ABI (@compat: 0 for the native one, x86-64's
 * on x86-64, where an x32 call's number carries __X32_SYSCALL_BIT; 1 for
 * the 32-bit compat one), -1 if a ptracer cancelled it; @a0 to @a5: the
 * six argument registers, as the call found them, whatever the call
 * uses. For a native call of the open, exec, stat, unlink and rename
 * families, @path (and @path2, rename's new name) is the path argument
 * as the call found it in memory, cut at 255 bytes; for connect() and
 * bind(), @addr is the address, at most 128 bytes of it. They are read
 * without sleeping or faulting a page in: what cannot be read so is
 * empty. @cut: POSIXTRACE_SYSCALL_CUT_* bits, set when that field is not
 * the whole argument (cut, or not read; a NULL path is whole, and an
 * address of a negative length is none). Other calls carry "", "" and no
 * address.
 */
#define POSIXTRACE_EVENT_SYSCALL_ENTRY	21
#define POSIXTRACE_SYSCALL_ENTRY_FORMAT \
	"nr:s32,compat:u8,a0:u64,a1:u64,a2:u64,a3:u64,a4:u64,a5:u64," \
	"cut:u8,path:str,path2:str,addr:bytes"
#define POSIXTRACE_SYSCALL_PATH_MAX	256	/* each path, its NUL included */
#define POSIXTRACE_SYSCALL_ADDR_MAX	128	/* a sockaddr_storage */
#define POSIXTRACE_SYSCALL_CUT_PATH	(1U << 0)
#define POSIXTRACE_SYSCALL_CUT_PATH2	(1U << 1)
#define POSIXTRACE_SYSCALL_CUT_ADDR	(1U << 2)
/*
 * A traced thread leaves a system call. @nr, @compat: as at entry; @ret:
 * what it returns, -errno on failure. A call that does not return (exit,
 * a successful execve's old image) has no exit event; one that seccomp
 * or a ptracer (PTRACE_SYSEMU) stopped before it ran has an exit event
 * and no entry. A child's first return, from the fork that made it, is
 * not recorded: it happens before the child is traced.
 */
#define POSIXTRACE_EVENT_SYSCALL_EXIT	22
#define POSIXTRACE_SYSCALL_EXIT_FORMAT	"nr:s32,compat:u8,ret:s64"
/*
 * A traced thread leaves its CPU. @state: what it waits for,
 * as the kernel's sched_switch event and LTTng report it: 0 runnable,
 * else one bit of "SDTtXZPI" (1 S sleeping, 2 D uninterruptible, 4 T
 * stopped, 8 t traced, 16 X dead, 32 Z zombie, 64 P parked, 128 I idle);
 * POSIXTRACE_SCHED_PREEMPTED (256) when it was preempted, runnable;
 * @prio: its priority as LTTng's prev_prio counts it, the kernel's less
 * 100 (MAX_RT_PRIO): -1 - rt_priority for a realtime thread, -101 for
 * SCHED_DEADLINE, 20 + nice for the others (a boost by a
 * priority-inheritance mutex included);
 * @policy: SCHED_*; @cpu: the CPU it leaves.
 */
#define POSIXTRACE_EVENT_SCHED_OUT	23
#define POSIXTRACE_SCHED_OUT_FORMAT \
	"state:u32,prio:s32,policy:u32,cpu:u32"
#define POSIXTRACE_SCHED_PREEMPTED	256
/*
 * A traced thread runs on @cpu; @prio as above. A thread's
 * last switch-out, once it has exited, is not recorded: the kernel has
 * let go of its thread id by then.
 */
#define POSIXTRACE_EVENT_SCHED_IN	24
#define POSIXTRACE_SCHED_IN_FORMAT	"prio:s32,cpu:u32"
/*
 * A traced thread is woken, in the waker's context, before it
 * runs: @waker_pid, @waker_tid: the thread that woke it, 0 from an
 * interrupt, from a kernel thread, or from a process the stream's pid
 * namespace does not see; @cpu: the CPU it last ran on (where it runs
 * next is chosen after); @prio as above; @new: 1 for a new thread's
 * first wakeup, by the thread that forked it, @cpu the one it starts on.
 */
#define POSIXTRACE_EVENT_SCHED_WAKEUP	25
#define POSIXTRACE_SCHED_WAKEUP_FORMAT \
	"waker_pid:s32,waker_tid:s32,cpu:u32,prio:s32,new:u8"
/* A traced thread is moved from CPU @from to CPU @to. */
#define POSIXTRACE_EVENT_SCHED_MIGRATE	26
#define POSIXTRACE_SCHED_MIGRATE_FORMAT	"from:u32,to:u32"

#define POSIXTRACE_EVENT_KERNEL_FIRST	POSIXTRACE_EVENT_PROC_FORK
#define POSIXTRACE_EVENT_KERNEL_END	(POSIXTRACE_EVENT_SCHED_MIGRATE + 1)

/* Their names: an initializer as POSIXTRACE_SYSTEM_EVENT_NAMES. */
#define POSIXTRACE_KERNEL_EVENT_NAMES {					\
	[POSIXTRACE_EVENT_PROC_FORK]	= "posixtrace_proc_fork",	\
	[POSIXTRACE_EVENT_PROC_EXEC]	= "posixtrace_proc_exec",	\
	[POSIXTRACE_EVENT_PROC_EXIT]	= "posixtrace_proc_exit",	\
	[POSIXTRACE_EVENT_SIGNAL_GENERATE] = "posixtrace_signal_generate", \
	[POSIXTRACE_EVENT_SIGNAL_DELIVER] = "posixtrace_signal_deliver", \
	[POSIXTRACE_EVENT_SYSCALL_ENTRY] = "posixtrace_syscall_entry",	\
	[POSIXTRACE_EVENT_SYSCALL_EXIT]	= "posixtrace_syscall_exit",	\
	[POSIXTRACE_EVENT_SCHED_OUT]	= "posixtrace_sched_out",	\
	[POSIXTRACE_EVENT_SCHED_IN]	= "posixtrace_sched_in",	\
	[POSIXTRACE_EVENT_SCHED_WAKEUP]	= "posixtrace_sched_wakeup",	\
	[POSIXTRACE_EVENT_SCHED_MIGRATE] = "posixtrace_sched_migrate",	\
}

/* How many identifiers there are: every id is below this. */
#define POSIXTRACE_EVENT_ID_MAX	\
	(POSIXTRACE_EVENT_USER_BASE + POSIXTRACE_USER_EVENT_MAX)

/* Values shared with <trace.h>, which uses the same numbers. */
#define POSIXTRACE_RUNNING		1
#define POSIXTRACE_SUSPENDED		2
#define POSIXTRACE_FULL			3
#define POSIXTRACE_NOT_FULL		4
#define POSIXTRACE_OVERRUN		5
#define POSIXTRACE_NO_OVERRUN		0	/* "reset to zero" when read */
#define POSIXTRACE_FLUSHING		7
#define POSIXTRACE_NOT_FLUSHING		8
#define POSIXTRACE_LOOP			9
#define POSIXTRACE_UNTIL_FULL		10
#define POSIXTRACE_FLUSH		11
#define POSIXTRACE_APPEND		12
#define POSIXTRACE_CLOSE_FOR_CHILD	13
#define POSIXTRACE_INHERITED		14
#define POSIXTRACE_NOT_TRUNCATED	0
#define POSIXTRACE_TRUNCATED_RECORD	1
#define POSIXTRACE_TRUNCATED_READ	2

/* Filter operations (posix_trace_set_filter's "how"), as in <trace.h>. */
#define POSIXTRACE_SET_EVENTSET		18
#define POSIXTRACE_ADD_EVENTSET		19
#define POSIXTRACE_SUB_EVENTSET		20

/*
 * A set of event types: bit (id % 64) of word (id / 64) stands for event
 * type id. Bits at or above POSIXTRACE_EVENT_ID_MAX are always zero. It is
 * the layout of trace_event_set_t, and the data of the START event (the
 * filter in force) and of the FILTER event (the old and the new filter).
 */
#define POSIXTRACE_EVENTSET_WORDS	((POSIXTRACE_EVENT_ID_MAX + 63) / 64)

struct posixtrace_eventset {
	__u64 bits[POSIXTRACE_EVENTSET_WORDS];
};

/**
 * struct posixtrace_attr - the attributes of a trace stream
 * @size:	Input/Output: see the conventions above.
 * @flags:	Input: must be 0.
 * @name:	Input: the stream name, NUL-terminated.
 * @stream_size: Input: bytes of event storage; 0 takes the default.
 * @max_data_size: Input: bytes of user data kept per event; longer data is
 *		truncated (POSIXTRACE_TRUNCATED_RECORD).
 * @log_size:	Input: bytes of the trace log (with a log; kept otherwise).
 * @stream_full_policy: Input: POSIXTRACE_LOOP or POSIXTRACE_UNTIL_FULL;
 *		POSIXTRACE_FLUSH too with a log.
 * @log_full_policy: Input: POSIXTRACE_LOOP, UNTIL_FULL or APPEND; with a
 *		LOOP log, @log_size must hold two slots (see the log format
 *		documentation),
 *		EINVAL otherwise.
 * @inheritance: Input: POSIXTRACE_CLOSE_FOR_CHILD, or POSIXTRACE_INHERITED:
 *		the processes the traced process forks from then on are
 *		traced too, and theirs, sharing its event names.
 * @kernel_events: Input: 0, or the
 *		POSIXTRACE_KERNEL_* classes of kernel events to record for
 *		every process the stream traces; EINVAL for an unknown bit.
 *		Their types are then in the stream's type list. The right
 *		to trace the process covers them, but for
 *		POSIXTRACE_KERNEL_PRIVILEGED (EPERM: see the classes).
 * @create_time_sec: Output (GET_ATTR): CLOCK_REALTIME at creation.
 * @create_time_nsec: Output (GET_ATTR).
 * @__reserved2: Input: must be 0.
 */
struct posixtrace_attr {
	__u32 size;
	__u32 flags;
	char name[POSIXTRACE_NAME_MAX + 1];
	__u64 stream_size;
	__u64 max_data_size;
	__u64 log_size;
	__u32 stream_full_policy;
	__u32 log_full_policy;
	__u32 inheritance;
	__u32 kernel_events;
	__s64 create_time_sec;
	__u32 create_time_nsec;
	__u32 __reserved2;
};

#define POSIXTRACE_ATTR_SIZE_VER0	128

/* CREATE flags. */
#define POSIXTRACE_CREATE_MEM_FD	(1U << 0)	/* @mem_fd is valid */

/**
 * struct posixtrace_create - create a trace stream (POSIXTRACE_IOC_CREATE)
 * @size:	Input: see the conventions above.
 * @flags:	Input: POSIXTRACE_CREATE_MEM_FD or 0.
 * @pid:	Input: the process to trace; 0 for the caller. ESRCH if none.
 * @log_fd:	Input: -1, or a descriptor open for writing: the stream's trace
 *		log (posix_trace_create_withlog()). The module takes its own
 *		reference and writes the log (<linux/posixtrace_log.h>) from a
 *		work queue. EBADF if it is not open for writing; EINVAL if it
 *		cannot take the log-full-policy (LOOP needs a regular file
 *		opened without O_APPEND) or cannot be written from the
 *		kernel; ENOSPC, EFBIG, EIO if writing the log header fails.
 * @attr:	Input: pointer to a struct posixtrace_attr.
 * @mem_fd:	Input (POSIXTRACE_CREATE_MEM_FD): a descriptor of
 *		/proc/<pid>/mem opened for reading. Tracing another process
 *		needs the right to ptrace-attach to it; opening that file is
 *		where the kernel checks that right (ptrace_may_access(), LSMs
 *		included), so the descriptor is the proof: EPERM without it,
 *		or if it is not the mem file of @pid's current image.
 * @__reserved:	Input: must be 0.
 *
 * Returns the new stream's file descriptor (close-on-exec), suspended.
 * EAGAIN when the system-wide limit of streams is reached.
 */
struct posixtrace_create {
	__u32 size;
	__u32 flags;
	__s32 pid;
	__s32 log_fd;
	__u64 attr;
	__s32 mem_fd;
	__u32 __reserved;
};

#define POSIXTRACE_CREATE_SIZE_VER0	32

/**
 * struct posixtrace_eventid - map an event name to an identifier
 * @size:	Input: see the conventions above.
 * @flags:	Input: must be 0.
 * @name:	Input: pointer to the NUL-terminated name; ENAMETOOLONG past
 *		POSIXTRACE_EVENT_NAME_MAX characters, EINVAL if empty.
 * @event_id:	Output: the identifier, the same for the same name in the
 *		same traced process (and in the processes it forked while
 *		traced with inheritance); POSIXTRACE_EVENT_UNNAMED_USER once the
 *		process has opened POSIXTRACE_USER_EVENT_MAX names (the unnamed
 *		event is predefined and not counted).
 * @__reserved:	Input: must be 0.
 * @format:	Input: 0, or a pointer
 *		to the NUL-terminated format of the events of this name (see
 *		"Event formats" below), which the name keeps from then on.
 *		EINVAL if it is not well formed, ENAMETOOLONG past
 *		POSIXTRACE_FORMAT_MAX characters, EEXIST if the name already
 *		has a different format (the same one again is fine). A name
 *		opened without one keeps the one it has. When the table is
 *		full (the unnamed event is returned), the format is ignored.
 *		TRID_EVENTID_OPEN takes no format (EINVAL): only the program
 *		that records the events says what they carry.
 *
 * On /dev/posixtrace (POSIXTRACE_IOC_EVENTID_OPEN) for the calling process;
 * on a stream (POSIXTRACE_IOC_TRID_EVENTID_OPEN) for the traced process.
 */
struct posixtrace_eventid {
	__u32 size;
	__u32 flags;
	__u64 name;
	__u32 event_id;
	__u32 __reserved;
	__u64 format;
};

#define POSIXTRACE_EVENTID_SIZE_VER0	32

/*
 * Event formats: what the data of a user event type carries, so
 * that tools can show fields instead of bytes. The kernel checks the
 * grammar and keeps the text; it never looks at event data. A format is
 * one to POSIXTRACE_FORMAT_FIELDS_MAX fields separated by ',', without
 * spaces, at most POSIXTRACE_FORMAT_MAX characters:
 *
 *	field:type[,field:type]...
 *
 * A field name is a C identifier ([A-Za-z_][A-Za-z0-9_]*) of at most
 * POSIXTRACE_FORMAT_FIELD_NAME_MAX characters, distinct from the other
 * fields'. A type is one of u8 u16 u32 u64 (unsigned integers), s8 s16 s32
 * s64 (two's complement), f32 f64 (IEEE 754 binary32 and binary64), str
 * (text up to and including a NUL byte) or bytes (every byte left; only
 * as the last field). Fields are packed in order, without padding or
 * alignment, in the byte order of the traced process (little-endian on
 * every architecture the module is built for; tools assume it).
 */
#define POSIXTRACE_FORMAT_MAX		255
#define POSIXTRACE_FORMAT_FIELDS_MAX	16
#define POSIXTRACE_FORMAT_FIELD_NAME_MAX 31

/**
 * struct posixtrace_event - record a user event (POSIXTRACE_IOC_EVENT)
 * @size:	Input: see the conventions above.
 * @flags:	Input: 0, or POSIXTRACE_EVENT_RINGLESS; anything
 *		else is EINVAL.
 * @event_id:	Input: an identifier this process opened, or
 *		POSIXTRACE_EVENT_UNNAMED_USER; anything else is EINVAL.
 * @data_len:	Input: bytes at @data.
 * @data:	Input: pointer to the event's data.
 * @prog_address: Input: the caller's program address, recorded as is.
 * @thread:	Input: the caller's pthread_t, recorded as is (POSIX reports a
 *		pthread_t, which only the traced process can interpret).
 *
 * Records into every running stream tracing the calling process; without
 * one it does nothing and succeeds.
 *
 * POSIXTRACE_EVENT_RINGLESS says the calling thread writes no thread ring
 * (none mapped, or none it can use): the module may then keep the event in
 * a per-CPU buffer of each stream, without a stream-wide lock, until a
 * drain merges it by time with the rings' records (before any read,
 * status, state change or flush, as a ring's). Without it, the module takes
 * every ring's records first and stores the event after them, so that a
 * thread's ring records and its system-call events stay in the order it
 * made them. A thread that sets the flag while it writes a ring may find
 * its own events out of that order; nobody else's.
 */
#define POSIXTRACE_EVENT_RINGLESS	(1U << 0)

struct posixtrace_event {
	__u32 size;
	__u32 flags;
	__u32 event_id;
	__u32 data_len;
	__u64 data;
	__u64 prog_address;
	__u64 thread;
};

#define POSIXTRACE_EVENT_SIZE_VER0	40

/**
 * struct posixtrace_record - one event as GETNEXT returns it
 * @size:	the record's size, data and padding to 8 bytes included.
 * @event_id:	the event type identifier.
 * @ts_sec:	CLOCK_REALTIME when the event was recorded.
 * @ts_nsec:	nanoseconds of @ts_sec.
 * @truncation: POSIXTRACE_NOT_TRUNCATED or POSIXTRACE_TRUNCATED_RECORD.
 * @pid:	the process (thread group) that generated the event; 0 for
 *		system events the stream generates itself.
 * @tid:	the thread that generated it.
 * @prog_address: the program address given by the producer.
 * @seq:	the event's sequence number in the stream: lost events show
 *		as gaps. OVERFLOW and RESUME, made by the reader at a gap,
 *		carry the number of the event after it.
 * @data_len:	bytes of data following this header.
 * @header_size: the size of this header: data starts @header_size bytes
 *		into the record (later versions may add members).
 * @thread:	the producer's pthread_t as it gave it; 0 for system events.
 */
struct posixtrace_record {
	__u32 size;
	__u32 event_id;
	__s64 ts_sec;
	__u32 ts_nsec;
	__u32 truncation;
	__s32 pid;
	__s32 tid;
	__u64 prog_address;
	__u64 seq;
	__u32 data_len;
	__u32 header_size;
	__u64 thread;
};

/* GETNEXT flags. */
#define POSIXTRACE_GETNEXT_NONBLOCK	(1U << 0)	/* trygetnext */
#define POSIXTRACE_GETNEXT_TIMED	(1U << 1)	/* timedgetnext */
#define POSIXTRACE_GETNEXT_MAPPED	(1U << 2)	/* in the mapping */

/* @map_offset of records copied to @buf. */
#define POSIXTRACE_GETNEXT_IN_BUF	(~0ULL)

/**
 * struct posixtrace_getnext - read events (POSIXTRACE_IOC_GETNEXT)
 * @size:	Input: see the conventions above.
 * @flags:	Input: POSIXTRACE_GETNEXT_*; without NONBLOCK the call waits
 *		while the stream is empty.
 * @timeout_sec: Input (TIMED): CLOCK_REALTIME absolute timeout; ETIMEDOUT
 *		when it passes with no event. EINVAL if @timeout_nsec is out of
 *		range and the call would wait.
 * @timeout_nsec: Input (TIMED).
 * @__reserved:	Input: must be 0.
 * @buf:	Input: pointer to the buffer for records.
 * @buf_size:	Input: its size; ENOSPC if the oldest record does not fit.
 *		After lost events (LOOP) the oldest record is preceded by an
 *		OVERFLOW and a RESUME record (64 bytes each), so a buffer of
 *		POSIXTRACE_GETNEXT_MIN_BUF(max data size) bytes always
 *		suffices; at most 64 KiB or that much is filled per call.
 * @count:	Output (ignored on input): how many records were copied:
 *		at least one, or zero
 *		with NONBLOCK when none was available. Without NONBLOCK the
 *		call waits, whether the stream is running or suspended.
 * @bytes:	Output (ignored on input): bytes of @buf used; with MAPPED,
 *		the bytes of the batch in the mapping.
 * @__reserved2: Input: must be 0.
 * @map_offset:	Output (ignored on input): POSIXTRACE_GETNEXT_IN_BUF, or
 *		with MAPPED where the batch starts in the stream's mapping.
 * @map_size:	Output (ignored on input): the size of the stream's
 *		mapping (mmap() of the stream's descriptor: offset 0, PROT_READ,
 *		MAP_SHARED, exactly this size); 0 for a stream that has none.
 *
 * Copies as many whole records as fit, oldest first, and frees their space
 * in the stream. A stream shut down meanwhile is EINVAL. A stream with a
 * log is EINVAL: its events go to the log, and the log is read instead.
 *
 * With MAPPED the batch is not copied to @buf (@buf and @buf_size are not
 * looked at): it is left in the stream's mapping, at @map_offset, where it
 * stays as it is until the next GETNEXT on the stream. The mapping is for
 * the stream's creator only, read-only, and not inherited by a child.
 */
struct posixtrace_getnext {
	__u32 size;
	__u32 flags;
	__s64 timeout_sec;
	__u32 timeout_nsec;
	__u32 __reserved;
	__u64 buf;
	__u32 buf_size;
	__u32 count;
	__u32 bytes;
	__u32 __reserved2;
	__u64 map_offset;
	__u64 map_size;
};

#define POSIXTRACE_GETNEXT_SIZE_VER0	64

/*
 * The smallest buffer GETNEXT always fills, for a given max data size: an
 * OVERFLOW and a RESUME, then the largest of a user event and FILTER.
 */
#define POSIXTRACE_GETNEXT_MIN_BUF(max_data_size) \
	(2 * sizeof(struct posixtrace_record) + \
	 ((((max_data_size) + 7) & ~7ULL) > \
	  2 * sizeof(struct posixtrace_eventset) ? \
	  sizeof(struct posixtrace_record) + (((max_data_size) + 7) & ~7ULL) : \
	  sizeof(struct posixtrace_record) + 2 * sizeof(struct posixtrace_eventset)))

/**
 * struct posixtrace_status - the status of a stream (POSIXTRACE_IOC_STATUS)
 * @size:	Input/Output: see the conventions above.
 * @flags:	Input: must be 0.
 * @state:	Output: POSIXTRACE_RUNNING or POSIXTRACE_SUSPENDED.
 * @full_status: Output: POSIXTRACE_FULL or POSIXTRACE_NOT_FULL.
 * @overrun_status: Output: POSIXTRACE_OVERRUN or POSIXTRACE_NO_OVERRUN;
 *		reading it resets it to POSIXTRACE_NO_OVERRUN.
 * @flush_status: Output: POSIXTRACE_FLUSHING while a flush is queued or
 *		running, else POSIXTRACE_NOT_FLUSHING.
 * @flush_error: Output: the first error number a flush met since the
 *		last STATUS (a positive errno), 0 if none; reset when read.
 * @log_overrun_status: Output: POSIXTRACE_OVERRUN if events were
 *		discarded from the log (UNTIL_FULL) or overwritten in it
 *		(LOOP) since the last STATUS; reset when read.
 * @log_full_status: Output: POSIXTRACE_FULL once an UNTIL_FULL log is
 *		full, or a LOOP log has come round; else NOT_FULL.
 * @__reserved:	Input: must be 0.
 * @events_recorded: Output: events stored in the stream since creation.
 * @events_lost: Output: events lost (overwritten or not stored) since
 *		creation.
 * @events_read: Output: events read since creation.
 * @bytes_used:	Output: bytes of event storage in use.
 * @bytes_total: Output: bytes of event storage (the stream size).
 * @log_events_discarded: Output: events the log did not keep since
 *		creation: not written (a write failed, the log was
 *		abandoned), discarded by an UNTIL_FULL log or overwritten in
 *		a LOOP log. The log's END block carries the
 *		same count, if it can be written; this one can be read when
 *		it cannot (a full disk, a broken pipe). 0 without a log.
 *
 * Without a log, the TRL members read NOT_FLUSHING, 0, NO_OVERRUN and
 * NOT_FULL.
 */
struct posixtrace_status {
	__u32 size;
	__u32 flags;
	__u32 state;
	__u32 full_status;
	__u32 overrun_status;
	__u32 flush_status;
	__s32 flush_error;
	__u32 log_overrun_status;
	__u32 log_full_status;
	__u32 __reserved;
	__u64 events_recorded;
	__u64 events_lost;
	__u64 events_read;
	__u64 bytes_used;
	__u64 bytes_total;
	__u64 log_events_discarded;
};

#define POSIXTRACE_STATUS_SIZE_VER0	88

/**
 * struct posixtrace_eventtype - event types of a stream
 * @size:	Input: see the conventions above.
 * @flags:	Input: must be 0.
 * @event_id:	Input (EVENTID_NAME): the identifier to name.
 *		Input (EVENTTYPE_NEXT): return the first type whose identifier
 *		is >= this one. Output (EVENTTYPE_NEXT): its identifier.
 * @found:	Output (EVENTTYPE_NEXT): 1 if a type was found, else 0.
 * @name:	Input: pointer to a buffer of POSIXTRACE_EVENT_NAME_MAX + 1
 *		bytes, where the name is stored. EINVAL for an unknown identifier
 *		(EVENTID_NAME).
 * @format:	Input: 0, or a
 *		pointer to a buffer of @format_size bytes, where the type's
 *		format is stored, NUL-terminated, if it has one and it fits.
 * @format_size: Input: the size of that buffer.
 * @format_len:	Output (ignored on input): the bytes the format takes,
 *		its NUL included (at most POSIXTRACE_FORMAT_MAX + 1); 0 for a
 *		type without one. When it is more than @format_size, nothing
 *		is stored at @format and the command still succeeds.
 */
struct posixtrace_eventtype {
	__u32 size;
	__u32 flags;
	__u32 event_id;
	__u32 found;
	__u64 name;
	__u64 format;
	__u32 format_size;
	__u32 format_len;
};

#define POSIXTRACE_EVENTTYPE_SIZE_VER0	40

/* The system calls a selection may name: numbers 0 to this less one. */
#define POSIXTRACE_SYSCALL_NR_MAX	1024
#define POSIXTRACE_SYSCALL_WORDS	(POSIXTRACE_SYSCALL_NR_MAX / 64)

/* struct posixtrace_syscalls flags. */
#define POSIXTRACE_SYSCALLS_ALL		(1U << 0)	/* every call */

/**
 * struct posixtrace_syscalls - which system calls a stream records
 *	(SET_SYSCALLS, GET_SYSCALLS)
 * @size:	Input/Output (GET): see the conventions above.
 * @flags:	Input (SET): POSIXTRACE_SYSCALLS_ALL, every call of the table
 *		(@bits must then be 0), or 0, the calls of @bits only.
 *		Output (GET): the same; GET ignores it on input.
 * @compat:	Input: which table: 0 the native one, 1 the 32-bit compat
 *		one (see POSIXTRACE_EVENT_SYSCALL_ENTRY); EINVAL otherwise.
 * @__reserved:	Input: must be 0.
 * @bits:	Input (SET), Output (GET): bit n % 64 of word n / 64 selects
 *		call n of the table.
 *
 * A stream that records the syscall class records every call of both
 * tables until a SET says otherwise (EINVAL for a stream that does not
 * record the class). The selection is applied in the probe, before
 * anything is copied or written: the calls it leaves out cost no room,
 * no loss and no copy. Calls numbered outside 0 to
 * POSIXTRACE_SYSCALL_NR_MAX - 1 (and one a ptracer cancelled, -1) are
 * recorded only with POSIXTRACE_SYSCALLS_ALL. A change applies to the
 * calls a thread enters after it returns; one that a thread is in then
 * may have its entry recorded and not its exit, or the reverse.
 */
struct posixtrace_syscalls {
	__u32 size;
	__u32 flags;
	__u32 compat;
	__u32 __reserved;
	__u64 bits[POSIXTRACE_SYSCALL_WORDS];
};

#define POSIXTRACE_SYSCALLS_SIZE_VER0	144

/**
 * struct posixtrace_filter - a stream's filter (SET_FILTER, GET_FILTER)
 * @size:	Input: see the conventions above.
 * @flags:	Input: must be 0.
 * @how:	Input (SET_FILTER): POSIXTRACE_SET_EVENTSET, ADD_EVENTSET or
 *		SUB_EVENTSET; EINVAL otherwise. Must be 0 for GET_FILTER.
 * @__reserved:	Input: must be 0.
 * @set:	Input (SET_FILTER): pointer to the struct posixtrace_eventset
 *		to apply; EINVAL if a bit above POSIXTRACE_EVENT_ID_MAX is set.
 *		Output (GET_FILTER): where to store the filter.
 *
 * The filter is the set of event types the stream does not record; it is
 * empty at creation. A change takes effect at once and for every producer
 * alike; on a running stream it records a FILTER event with the old and the
 * new sets.
 */
struct posixtrace_filter {
	__u32 size;
	__u32 flags;
	__u32 how;
	__u32 __reserved;
	__u64 set;
};

#define POSIXTRACE_FILTER_SIZE_VER0	24

/*
 * The enable page: what a producer reads before making a system call.
 *
 *	mmap(NULL, page size, PROT_READ, MAP_SHARED, devfd,
 *	     POSIXTRACE_ENABLE_PAGE_OFFSET)
 *
 * on /dev/posixtrace maps, read-only, a page the module keeps for the
 * calling process. Bit id of @enabled is set while some stream tracing the
 * process may record events of type id: it is running (or stopped because
 * full, where events still count as lost) and id is not in its filter,
 * and id is one the process may make (the unnamed user event, or a name
 * its family opened: set before that open returns).
 * A clear bit means posix_trace_event() of that type would have no effect,
 * so the library returns at once. Bits are set before the command that
 * enables recording returns, and cleared after recording stops; each word
 * is written whole (READ_ONCE/WRITE_ONCE). The page belongs to the thread
 * group that mapped it: after fork() a child must map its own.
 *
 * @ring_size is the data size the module suggests for the process's next
 * thread rings, or 0 for none: while the process is traced by one LOOP
 * stream only (without a log), what the stream keeps in ring records (7/8
 * of its size: their headers are shorter) rounded up to a power of two, at
 * most the module's max_ring_size, so that a ring can hold what the stream
 * keeps and the module can drop the rest without copying it (or, for a
 * stream larger than that, copy it between fewer kicks).
 *
 * @wake changes when a reader of a stream tracing the process
 * has waited a millisecond for events in a blocking GETNEXT: a thread that
 * sees it change after it committed a record to its ring kicks at once
 * (POSIXTRACE_IOC_RING_DRAIN), once, so that the reader gets the record
 * now, not at the module's timer. Only its changes mean anything; a ring
 * mapped after a change starts from it.
 */
#define POSIXTRACE_ENABLE_PAGE_OFFSET	0
#define POSIXTRACE_ENABLE_MAGIC		0x70747831	/* "ptx1" */

struct posixtrace_enable_page {
	__u32 magic;
	__u32 ring_size;
	__u64 enabled[POSIXTRACE_EVENTSET_WORDS];
	__u64 __pad[5];		/* @wake on a cache line of its own */
	__u64 wake;
};

/*
 * The thread ring: where a thread records its events without a system call.
 *
 *	mmap(NULL, page size + data size, PROT_READ | PROT_WRITE,
 *	     MAP_SHARED, devfd, POSIXTRACE_RING_OFFSET)
 *
 * gives the calling thread a ring the module allocates and owns: a control
 * page (struct posixtrace_ring_ctl), then the data area, a power of two of
 * at least a page and at most the module's max_ring_size. A record that
 * does not fit before the end of the data area goes on at its start (it
 * is written in two pieces; every field of the header is naturally
 * aligned, so none is cut, and the commit word, first, never is). A
 * thread has one ring; mapping another at POSIXTRACE_RING_OFFSET retires
 * the first (its records are taken first). The mapping is not inherited
 * (a child maps its own) and is not in core dumps.
 *
 *	mmap(NULL, page size + data size, PROT_READ | PROT_WRITE,
 *	     MAP_SHARED, devfd, POSIXTRACE_RING_GROW_OFFSET)
 *
 * grows the thread's live ring instead (see the end of this comment):
 * ENOENT if it has none (or it was revoked or retired), EINVAL if the
 * data size is not larger.
 *
 * The thread writes records at increasing byte positions: pos & (data size
 * - 1) in the data area. A record is a struct posixtrace_ring_record and
 * its data, padded to 8 bytes; the thread writes it whole, stores 0 in the
 * commit word of the next record's place if that place is free (old data
 * there could read as ~ its position), then stores ~pos in its @commit
 * with release semantics (P1). Then it publishes how far it has written:
 * the position of the record's end in @produced, with release (P2).
 * Seeing @produced at some position (acquire) thus implies seeing every
 * commit stored before it.
 *
 * The module is the only reader: it takes records (with acquire semantics
 * on @commit) soon after the thread asks (POSIXTRACE_IOC_RING_DRAIN),
 * when any stream tracing the process is read, flushed, started, stopped,
 * filtered, cleared or shut down, when the thread makes a system-call
 * event, soon after it exits or execs, and on a timer. Then it stores
 * the position it has taken up to in @consumed (release): the space
 * before it may be written again. The
 * thread must not write past @consumed + data size. A record committed
 * but not yet in @produced may be taken; @produced past a record that is
 * not committed is a lie (an honest thread commits first) and revokes
 * the ring, as a bad record does; @produced behind @consumed or more than
 * a data size ahead of it claims nothing.
 *
 * The module trusts nothing in the ring. It copies each header once and
 * checks it; the pid and thread id of a record are those of the ring's
 * thread; the timestamp is kept between the previous record's and the
 * time it is taken. A record that does not check out counts as one event
 * lost in every running stream tracing the process, and revokes the ring
 * (@state POSIXTRACE_RING_REVOKED): nothing more is taken from it, and the
 * thread must make its events by system call.
 *
 * When the ring's thread exits or execs, maps another ring, or its process
 * leaves the module's table, the module stores POSIXTRACE_RING_RETIRED in
 * @state; a drain that begins after that takes the records committed
 * until then, and the ring is then taken nothing more from. Only a writer
 * that is not the ring's thread (a vfork() child on its parent's TLS) can
 * see it: it must make its events by system call. What such a writer
 * commits in between may be taken, as the ring's thread's; what it
 * commits after the last drain is not taken and not counted: a process
 * that writes to a ring it does not own can lose or misattribute only its
 * own events.
 *
 * A ring that grows keeps its positions. The module stores
 * POSIXTRACE_RING_RETIRED in the old @state (if it was LIVE), then copies
 * the old data area's lap from the position it has taken up to
 * (committed records or not) to the same positions in the new one, gives
 * the new control page that position as @consumed and the old @produced,
 * and sets @grown_from to the old data size. The thread goes on writing
 * at its own position, in the new data area, and unmaps the old one when
 * it likes (its pages count in RLIMIT_MEMLOCK until then). Nothing is
 * taken from the old data area after the copy. A ring larger
 * than 64 KiB may take the user to half the limit, as a new one may,
 * counted without the ring it grows from.
 */
#define POSIXTRACE_RING_OFFSET		0x200000
#define POSIXTRACE_RING_GROW_OFFSET	0x400000
#define POSIXTRACE_RING_MAGIC		0x70747234	/* "ptr4" */
#define POSIXTRACE_RING_LIVE		0
#define POSIXTRACE_RING_REVOKED		1
#define POSIXTRACE_RING_RETIRED		2

/**
 * struct posixtrace_ring_ctl - a thread ring's control page
 * @magic:	POSIXTRACE_RING_MAGIC.
 * @state:	POSIXTRACE_RING_LIVE, _REVOKED or _RETIRED: the thread writes
 *		only while it is LIVE.
 * @data_size:	Bytes in the data area.
 * @data_offset: Where the data area begins, from the start of the mapping.
 * @consumed:	The position up to which the module has taken the records.
 * @grown_from:	0 for a new ring; for a grown one (see above), the
 *		@data_size of the ring it grew from.
 * @produced:	The position of the end of the last record published.
 *
 * The module writes every member before @produced and only reads
 * @produced, which the thread writes, on a cache line of its own, and
 * only reads the rest.
 */
struct posixtrace_ring_ctl {
	__u32 magic;
	__u32 state;
	__u64 data_size;
	__u64 data_offset;
	__u64 consumed;
	__u64 grown_from;
	__u64 __kernel_reserved[3];
	__u64 produced;
	__u64 __thread_reserved[7];
};

/**
 * struct posixtrace_ring_record - one event in a thread ring
 * @commit:	~(the record's position), stored last, with release.
 * @size:	Bytes of the record: this header, the data, padding to 8.
 * @event_id:	As for POSIXTRACE_IOC_EVENT.
 * @ts_sec:	When it was generated (CLOCK_REALTIME): seconds ...
 * @ts_nsec:	... and nanoseconds (below 10^9).
 * @data_len:	Bytes of data after the header.
 * @prog_address: As for POSIXTRACE_IOC_EVENT.
 * @thread:	As for POSIXTRACE_IOC_EVENT.
 */
struct posixtrace_ring_record {
	__u64 commit;
	__u32 size;
	__u32 event_id;
	__s64 ts_sec;
	__u32 ts_nsec;
	__u32 data_len;
	__u64 prog_address;
	__u64 thread;
};

/* Commands on /dev/posixtrace. */
#define POSIXTRACE_IOC_CREATE \
	_IOW(POSIXTRACE_IOC_MAGIC, 0x01, struct posixtrace_create)
#define POSIXTRACE_IOC_EVENTID_OPEN \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x02, struct posixtrace_eventid)
#define POSIXTRACE_IOC_EVENT \
	_IOW(POSIXTRACE_IOC_MAGIC, 0x03, struct posixtrace_event)
/* Take the records of the calling thread's ring now. */
#define POSIXTRACE_IOC_RING_DRAIN	_IO(POSIXTRACE_IOC_MAGIC, 0x04)

/* Commands on a stream; no argument where none is shown. */
#define POSIXTRACE_IOC_START		_IO(POSIXTRACE_IOC_MAGIC, 0x10)
#define POSIXTRACE_IOC_STOP		_IO(POSIXTRACE_IOC_MAGIC, 0x11)
#define POSIXTRACE_IOC_CLEAR		_IO(POSIXTRACE_IOC_MAGIC, 0x12)
/* Free the stream's storage and wake its readers (EINVAL); close follows. */
#define POSIXTRACE_IOC_SHUTDOWN		_IO(POSIXTRACE_IOC_MAGIC, 0x13)
#define POSIXTRACE_IOC_GET_ATTR \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x14, struct posixtrace_attr)
#define POSIXTRACE_IOC_STATUS \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x15, struct posixtrace_status)
#define POSIXTRACE_IOC_GETNEXT \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x16, struct posixtrace_getnext)
#define POSIXTRACE_IOC_TRID_EVENTID_OPEN \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x17, struct posixtrace_eventid)
#define POSIXTRACE_IOC_EVENTID_NAME \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x18, struct posixtrace_eventtype)
#define POSIXTRACE_IOC_EVENTTYPE_NEXT \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x19, struct posixtrace_eventtype)
#define POSIXTRACE_IOC_SET_FILTER \
	_IOW(POSIXTRACE_IOC_MAGIC, 0x1a, struct posixtrace_filter)
#define POSIXTRACE_IOC_GET_FILTER \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x1b, struct posixtrace_filter)
/*
 * posix_trace_flush(): queue a flush of the stream to its log and return;
 * STATUS tells when it is done. EINVAL for a stream without a log.
 */
#define POSIXTRACE_IOC_FLUSH		_IO(POSIXTRACE_IOC_MAGIC, 0x1c)
/* Which system calls the stream records. */
#define POSIXTRACE_IOC_SET_SYSCALLS \
	_IOW(POSIXTRACE_IOC_MAGIC, 0x1d, struct posixtrace_syscalls)
#define POSIXTRACE_IOC_GET_SYSCALLS \
	_IOWR(POSIXTRACE_IOC_MAGIC, 0x1e, struct posixtrace_syscalls)

#endif /* _UAPI_LINUX_POSIXTRACE_H */
