#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (run-vm.sh --demo) after init.sh loaded the module:
# runs event_cost, the keep-up rows (keepup, and LTTng live: ust_cost -L),
# the exit hook's rows, the fork-heavy rows (fork_cost), then event_cost's
# LTTng-UST peer (ust_cost under bench/lttng.sh), and prints their reports
# as "# bench: " lines, which bench/run.sh picks out of the guest's KTAP
# stream.
say() { echo "# bench: $*"; }
show() { sed 's/^/# bench: /'; }
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs," \
	"clocksource $(cat $cs 2>/dev/null || echo unknown)," \
	"$(grep -q hypervisor /proc/cpuinfo && echo 'virtual machine' || echo 'no hypervisor flag')"
[ -d /sys/kernel/tracing ] && [ ! -e /sys/kernel/tracing/trace_marker ] &&
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# The rest of the run is the benchmark's: whatever init.sh checks next
# (rmmod, kmemleak...) comes after.

# Issue 27's row: a fork-heavy shell loop untraced, under posixtrace record
# --kernel=proc,signal and --kernel=none, and under strace -f (fork_cost),
# then a check that record's log holds the loop's execs and exits, so that
# the row cannot pass by recording nothing. FORK_PROCS: the loop's length.
FORK_PROCS=500
fork_row() {
	if ! command -v fork_cost >/dev/null; then
		say "fork-heavy: fork_cost is missing from the guest: no fork-heavy rows"
		return
	fi
	d=/tmp/fork_cost
	rm -rf $d && mkdir -p $d
	tool=$(command -v posixtrace || echo -)
	[ "$tool" = - ] && say "fork-heavy: posixtrace is missing from the guest"
	# shellcheck disable=SC2086
	fork_cost ${BENCH_ARGS:-} -n $FORK_PROCS -p "$tool" \
		-s "$(command -v strace || echo -)" -d $d 2>&1 | show
	log=$d/proc_signal.ptlog
	[ -s $log ] || return 0
	# One dump, counted by type: "TIME NAME pid=..." lines, '#' the rest.
	posixtrace dump $log >$d/dump.txt 2>&1
	count() { grep -v '^#' $d/dump.txt | grep -c " $1 " || true; }
	forks=$(count posixtrace_proc_fork) execs=$(count posixtrace_proc_exec)
	exits=$(count posixtrace_proc_exit)
	gen=$(count posixtrace_signal_generate)
	del=$(count posixtrace_signal_deliver)
	# The shell's own exec and exit, and each process's.
	if [ "$execs" -ge $FORK_PROCS ] && [ "$exits" -gt $FORK_PROCS ]; then
		verdict=ok
	else
		verdict="NOT ok: the row measured a record that missed events"
	fi
	say "fork-heavy, record --kernel=proc,signal's last log:" \
		"$forks forks, $execs execs, $exits exits, $gen signals" \
		"generated, $del delivered (at least $FORK_PROCS execs and" \
		"$((FORK_PROCS + 1)) exits wanted): $verdict"
	grep -i 'lost' $d/proc_signal.out | sed 's/^/fork-heavy, record: /' | show
	if [ -s $d/none.ptlog ]; then
		posixtrace dump $d/none.ptlog >$d/dump-none.txt 2>&1
		say "fork-heavy, record --kernel=none's last log:" \
			"$(grep -v '^#' $d/dump-none.txt | grep -c ' posixtrace_proc_\| posixtrace_signal_' || true)" \
			"kernel events (0 wanted)"
	fi
}
# run.sh --fork: that row alone.
if [ "${BENCH_ROWS:-}" = fork ]; then
	fork_row
	exit 0
fi

# Issue 28's rows: does what is recorded reach a live reader or a log,
# at what cost to the producer (keepup, as nobody at RLIMIT_MEMLOCK
# 8 MiB: it drops root itself).
keepup_row() {
	if ! command -v keepup >/dev/null; then
		say "keepup: keepup is missing from the guest: no keep-up rows"
		return
	fi
	# shellcheck disable=SC2086
	keepup ${BENCH_ARGS:-} 2>&1 | show
	# (b) again as root, whose rings no RLIMIT_MEMLOCK bounds: whether
	# the big streams' figure is the limit's or the module's (it suggests
	# rings of at most max_ring_size, 4 MiB, which no stream above that
	# fills; an unprivileged user gets one such ring at most).
	say ""
	say "keepup -R -b: (b) again as root (CAP_IPC_LOCK: no RLIMIT_MEMLOCK on rings)"
	# shellcheck disable=SC2086
	keepup -R -b ${BENCH_ARGS:-} 2>&1 | show
	say ""
	lttng_live_row
}

# LTTng's live mode beside keepup's live reader (ust_cost -L, under a
# session daemon of its own, lttng.sh): lttng-relayd and babeltrace2's
# lttng-live source over TCP on the loopback, which the initramfs leaves
# down, in a URL that names the host, which it leaves unnamed.
lttng_live_row() {
	if ! command -v ust_cost >/dev/null || ! command -v lttng.sh >/dev/null ||
		! command -v lttng-relayd >/dev/null; then
		say "lttng live: ust_cost, lttng.sh or lttng-relayd is missing from the guest: not run"
		return
	fi
	lttng_env
	ifconfig lo 127.0.0.1 up 2>/dev/null || ip link set lo up 2>/dev/null
	case $(hostname) in '' | '(none)') hostname bench-guest ;; esac
	# shellcheck disable=SC2086
	LTTNG_CONSUMERD=/bin/lttng-consumerd LTTNG_SESSION_CONFIG_XSD_PATH=/bin \
		BABELTRACE_PLUGIN_PATH=/bin lttng.sh ust_cost -L ${BENCH_ARGS:-} 2>&1 |
		grep -v '^lttng-ust: lttng-sessiond .* started for this run' | show
}

# The initramfs lacks what LTTng needs: /dev/shm (the buffers, shm_open)
# and /var/run (the daemon's sockets, /var/run/lttng). run.sh put
# lttng-consumerd, the daemon's session.xsd and babeltrace2's plugins in
# /bin.
lttng_env() {
	mkdir -p /dev/shm /var/run
	grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs tmpfs /dev/shm
}
# run.sh --profile K: keepup -a K under perf record -a, and the report.
if [ "${BENCH_ROWS:-}" = profile ]; then
	set -- ${BENCH_ARGS:-}
	k=$1
	shift
	echo 0 >/proc/sys/kernel/kptr_restrict
	# shellcheck disable=SC2086
	perf record -a -g -F 1999 -e cpu-clock -o /tmp/perf.data -- \
		keepup -a "$k" "$@" 2>&1 | show
	perf report -i /tmp/perf.data --stdio --no-children \
		--sort comm,dso,sym -g none 2>/dev/null | grep -v '^#' | grep . |
		head -n 60 | show
	say ""
	perf report -i /tmp/perf.data --stdio --no-children --sort pid \
		-g none 2>/dev/null | grep -v '^#' | grep . | head -n 12 | show
	say ""
	# Each busy thread's own functions (the producer's, the reader's).
	perf report -i /tmp/perf.data --stdio --no-children --sort pid,sym \
		-g none --percent-limit 0.4 2>/dev/null | grep -v '^#' |
		grep . | head -n 80 | show
	say ""
	# Who calls what the module waits and copies in (callers, 3 deep).
	perf report -i /tmp/perf.data --stdio --no-children --sort sym \
		-g caller,0.5,callee,function,percent --max-stack 6 \
		2>/dev/null | grep -v '^#' | grep . | head -n 200 | show
	exit 0
fi
# run.sh --keepup: those rows alone.
if [ "${BENCH_ROWS:-}" = keepup ]; then
	keepup_row
	exit 0
fi

# BENCH_ARGS: event_cost's options, set by run.sh above this script.
# shellcheck disable=SC2086
event_cost ${BENCH_ARGS:-} 2>&1 | tee /tmp/event_cost.txt | show

# The same producer without a ring: every event by system call, into the
# streams' per-CPU buffers (kbufs); the rows that say what that costs.
say ""
# shellcheck disable=SC2086
POSIXTRACE_RING_SIZE=0 event_cost ${BENCH_ARGS:-} 2>&1 |
	grep -E '^posix_trace_event \((c|e)\) recorded|^two threads:' |
	sed 's/^/without a ring (system calls): /' | show

say ""
keepup_row

# What the exit hook costs (it runs with preemption disabled) while other
# threads' rings hold records: ftrace's function_graph tracer on
# posixtrace_on_exit() alone, around exit_cost, with the timer's drains
# held off (ring_drain_ms) so that the records stay in the rings.
exit_hook_row() {
	t=/sys/kernel/tracing
	if ! echo posixtrace_on_exit >$t/set_ftrace_filter 2>/dev/null ||
		! echo function_graph >$t/current_tracer 2>/dev/null; then
		say "exit hook: no function_graph tracer here"
		return
	fi
	echo >$t/trace
	on=$(cat $t/tracing_on)
	echo 1 >$t/tracing_on
	if err=$(POSIXTRACE_RING_SIZE=1048576 exit_cost "$@" 2>&1); then
		# Off while it is read; the tracer's going empties it.
		echo 0 >$t/tracing_on
		say "exit hook, $1 threads' rings holding $2 records each${3:+, the creator dies}:" \
			"the longest of $(grep -c posixtrace_on_exit $t/trace) exits" \
			"$(sed -n 's/.* \([0-9.]*\) us .*/\1/p' $t/trace | sort -g | tail -n 1) us"
	else
		say "exit hook: exit_cost $*: ${err:-failed}"
	fi
	# As it was: trace_marker, measured next, needs tracing on.
	echo nop >$t/current_tracer
	echo >$t/set_ftrace_filter
	echo "$on" >$t/tracing_on
}
if command -v exit_cost >/dev/null; then
	p=/sys/module/posixtrace/parameters/ring_drain_ms
	ms=$(cat $p)
	echo 10000 >$p
	say ""
	exit_hook_row 16 4000
	exit_hook_row 64 4000
	exit_hook_row 64 4000 die
	echo "$ms" >$p
fi

say ""
fork_row

# The peer: an LTTng-UST tracepoint, ust_cost, under a session daemon of
# its own (lttng.sh), in the environment lttng_env() makes.
say ""
if command -v ust_cost >/dev/null && command -v lttng.sh >/dev/null; then
	lttng_env
	# shellcheck disable=SC2086
	LTTNG_CONSUMERD=/bin/lttng-consumerd LTTNG_SESSION_CONFIG_XSD_PATH=/bin \
		BABELTRACE_PLUGIN_PATH=/bin lttng.sh ust_cost ${BENCH_ARGS:-} 2>&1 |
		tee /tmp/ust_cost.txt | show
	# The flight recorder (record --loop, event_cost's row (j)) against
	# its peer, an LTTng-UST snapshot session, both against getppid of
	# their own run.
	say "$(awk '
		FNR == 1 { file++ }
		file == 1 && /^posix_trace_event \(j\) recorded, flight recorder:/ {
			sub(/.*: /, ""); ours = $1 + 0 }
		file == 2 && /^lttng-ust tracepoint, a snapshot session/ {
			sub(/.*: /, ""); ust = $1 + 0 }
		END {
			if (!ours || !ust)
				print "flight recorder against an LTTng-UST snapshot session: not measured (a row is missing)"
			else
				printf "flight recorder (j) %.3fx getppid, LTTng-UST snapshot session %.3fx: %.2fx LTTng-UST\n", ours, ust, ours / ust
		}' /tmp/event_cost.txt /tmp/ust_cost.txt)"
else
	say "lttng-ust: ust_cost or lttng.sh is missing from the guest: no LTTng rows"
fi
