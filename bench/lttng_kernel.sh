#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LTTng's kernel tracer as a setup of bench/syscall_cost.c: the same
# events as posixtrace record --kernel=proc,signal,syscall (or =all), for
# the same processes, into a session of a session daemon that runs
# already (bench/syscall_guest.sh starts it, with lttng-modules loaded).
# POSIX sh: the guest has busybox.
#
#   lttng_kernel.sh record CLASSES DIR UID -- COMMAND...
#	CLASSES is "syscall" (system calls, fork, exec, exit and signals)
#	or "all" (and sched_switch, sched_waking, sched_wakeup_new and
#	sched_migrate_task: the tracepoints of the sched class's probes).
#	The session records the processes of user UID only (lttng track
#	--kernel --uid): COMMAND is to switch to it (syscall_cost as-uid
#	does), so that its children are recorded and the session daemon's
#	consumer, which runs as root and writes the trace, is not. Session set-up, the run and the
#	session's stop and destroy (which flushes the buffers) are all in
#	the time syscall_cost measures, as record's are.
#   lttng_kernel.sh count DIR
#	"lttng: N events, M discarded" of the trace in DIR, by babeltrace2
#	(untimed).
set -u
die() { echo "lttng_kernel.sh: $*" >&2; exit 1; }

case ${1:-} in
record)
	if [ $# -lt 6 ] || [ "$5" != -- ]; then
		die "usage: record CLASSES DIR UID -- COMMAND..."
	fi
	classes=$2 dir=$3 uid=$4
	shift 5
	events=sched_process_fork,sched_process_exec,sched_process_exit
	events=$events,signal_generate,signal_deliver
	[ "$classes" = all ] &&
		events=$events,sched_switch,sched_waking,sched_wakeup_new,sched_migrate_task
	s=syscost$$
	rm -rf "$dir"
	lttng create "$s" --output="$dir" >/dev/null || die "lttng create failed"
	ok=1
	if ! lttng enable-event -s "$s" -k --syscall --all >/dev/null ||
		! lttng enable-event -s "$s" -k "$events" >/dev/null ||
		! lttng track -s "$s" -k --uid="$uid" >/dev/null ||
		! lttng start "$s" >/dev/null; then
		ok=0
	fi
	rc=1
	if [ $ok = 1 ]; then
		"$@"
		rc=$?
		lttng stop "$s" >/dev/null || rc=1
	else
		echo "lttng_kernel.sh: the session could not be set up" >&2
	fi
	lttng destroy "$s" >/dev/null || rc=1
	exit $rc
	;;
count)
	[ $# = 2 ] || die "usage: count DIR"
	# The text plugin prints a trace's events one a line, and each
	# discarded-events message as a WARNING line naming their count.
	babeltrace2 "$2" 2>&1 | awk '
		/^WARNING: Tracer discarded [0-9]+ events/ { lost += $4; next }
		/^\[/ { n++ }
		END { printf "lttng: %d events, %d discarded\n", n, lost }'
	;;
*)
	die "usage: lttng_kernel.sh record|count ..."
	;;
esac
