#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: lttng-export.sh LOG
# Checks "posixtrace export --format=lttng" against "posixtrace dump" on
# the trace log LOG: babeltrace2 reads the export without a warning but
# discarded events, and it has, for each event of the dump, its LTTng
# counterpart: as many events in all; sched_switch for each switch out
# and in, sched_waking or sched_wakeup_new for each wakeup,
# sched_migrate_task, sched_process_fork, _exec, _exit, signal_generate,
# signal_deliver for theirs, and a syscall_entry_NAME / syscall_exit_NAME
# for each system call entry and exit; and the trace's environment says
# domain "kernel", as Trace Compass's kernel analyses want.
#
# Exit status: 0 all match; 1 a difference (printed), or dump, export or
# babeltrace2 failed; 2 usage; 4 babeltrace2 is not installed (skip).
#
# Environment: POSIXTRACE, the tool (default: ../posixtrace beside this
# script); BABELTRACE2, the reader (default: babeltrace2 from PATH).

set -u
case $#:${1:-} in
1:-h | 1:--help) sed -n '4,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
1:*) ;;
*) sed -n '4,19s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
log=$1
tool=${POSIXTRACE:-$(dirname "$0")/../posixtrace}
bt2=${BABELTRACE2:-babeltrace2}
if ! command -v "$bt2" >/dev/null; then
	echo "lttng-export: SKIP: $bt2 not found" >&2
	exit 4
fi
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# 3: a damaged log, read as far as it goes; the others are failures.
"$tool" dump "$log" >"$work/dump" 2>"$work/dump.err"
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { cat "$work/dump.err"; exit 1; }
"$tool" export --format=lttng -o "$work/trace" "$log" 2>"$work/export.err"
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { cat "$work/export.err"; exit 1; }
"$bt2" "$work/trace" >"$work/bt2" 2>"$work/bt2.err" ||
	{ cat "$work/bt2.err"; exit 1; }
if grep -v 'discarded events' "$work/bt2.err" | grep -q .; then
	echo "babeltrace2 said:"; cat "$work/bt2.err"; exit 1
fi
grep -q '^	domain = "kernel";$' "$work/trace/metadata" ||
	{ echo "the trace's environment has no domain \"kernel\""; exit 1; }

# The dump's event lines: "TIME NAME pid=...", comments start with '#'.
dcount() { grep -v '^#' "$work/dump" | grep -c " $1 " || true; }
# babeltrace2's lines: "[TIME] (+DELTA) HOST NAME: ..."
bcount() { grep -cE "^\[[^]]*\] \([^)]*\) [^ ]+ $1: " "$work/bt2" || true; }

bad=0
want() {
	if [ "$2" != "$3" ]; then
		echo "$1: the dump has $2, the export $3"
		bad=1
	fi
}
want events "$(grep -vc '^#' "$work/dump")" "$(grep -c '^\[' "$work/bt2")"
want sched_switch "$(( $(dcount posixtrace_sched_out) + $(dcount posixtrace_sched_in) ))" \
	"$(bcount sched_switch)"
want wakeups "$(dcount posixtrace_sched_wakeup)" \
	"$(( $(bcount sched_waking) + $(bcount sched_wakeup_new) ))"
want sched_migrate_task "$(dcount posixtrace_sched_migrate)" "$(bcount sched_migrate_task)"
want sched_process_fork "$(dcount posixtrace_proc_fork)" "$(bcount sched_process_fork)"
want sched_process_exec "$(dcount posixtrace_proc_exec)" "$(bcount sched_process_exec)"
want sched_process_exit "$(dcount posixtrace_proc_exit)" "$(bcount sched_process_exit)"
want signal_generate "$(dcount posixtrace_signal_generate)" "$(bcount signal_generate)"
want signal_deliver "$(dcount posixtrace_signal_deliver)" "$(bcount signal_deliver)"
want syscall_entry "$(dcount posixtrace_syscall_entry)" "$(bcount '(compat_)?syscall_entry_[a-z0-9_]+')"
want syscall_exit "$(dcount posixtrace_syscall_exit)" "$(bcount '(compat_)?syscall_exit_[a-z0-9_]+')"
[ $bad = 0 ] && echo "lttng-export: $(grep -c '^\[' "$work/bt2") events, every kind matched"
exit $bad
