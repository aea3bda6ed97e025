#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what posix_trace_event() costs, as ratios to a null system
# call, in the same QEMU guest the tests use (Debian's 6.12 kernel), and
# what its peer costs there: an LTTng-UST tracepoint of 8 bytes.
#
# Builds the module for that kernel, the library, bench/event_cost and
# bench/ust_cost, boots the guest with selftests/vm/run-vm.sh in demo mode
# (bench/guest.sh runs there after insmod: event_cost, then ust_cost under a
# session daemon of its own, bench/lttng.sh) and prints their reports. A
# benchmark, not a test: it fails only if it cannot run, never on the
# numbers. If LTTng cannot start in the guest, the report says so and goes
# on without the LTTng rows.
#
#   bench/run.sh [-r ROUNDS] [-t SECONDS]          e.g. -r 7 -t 0.5
#   bench/run.sh --fork [-r ROUNDS]                the fork-heavy rows alone
#   bench/run.sh --keepup [-r ROUNDS] [-t SECONDS] the keep-up rows alone
#   bench/run.sh --syscalls [-r ROUNDS]            the system-call rows alone
#   bench/run.sh --profile K [-r ROUNDS]           where a live reader's
#                                                  time goes (below)
#   bench/run.sh --host [-r ROUNDS] [-t SECONDS]   (make bench-host)
#   bench/run.sh --rt                              (make bench-rt)
#
# --rt boots Debian's PREEMPT_RT kernel instead and measures cyclictest's
# wakeup latency there, with nothing running, under bench/rt_load's
# workload (threads recording events, children forked one after another)
# untraced, and under the same workload traced (bench/rt_guest.sh); then
# bench/rt_tail: the median, p99, p99.99 and maximum of posix_trace_event()
# over 10 million events (RT_TAIL_EVENTS) against a null system call's,
# in alternating blocks, while a reader reads, a log is written and a
# thread stops, starts, clears and filters the stream, with the ring the
# library chooses and with a 1 MiB one; and the same for each kind of
# event apart (ring only, a kick, by system call), with how often each
# comes.
#
# Every run adds its rows to a results table, build/bench/results.tsv
# (tab-separated, a header line first): the date, the commit (with
# "-dirty" if the tree differs from it), the kernel, the program, the case,
# N, min, median and max ns per call over the rounds, and x getppid, for
# every row of event_cost, ust_cost and producer_host, and view's; the
# rows of the other programs, whose figures are not per-call times, are
# in the report only. bench/README.rst says how to read it.
#
# --view (and --host, and make bench) times posixtrace view's page of a
# million events (tools/tests/big_log) in this machine's chromium: the
# page's bytes per event, its load, and its zoom and pan frames, three
# times (tools/tests/view-test.sh --perf).
#
# --host measures natively, on this machine, with no guest: ust_cost under
# a private lttng-sessiond (--no-kernel, LTTNG_HOME in a directory of its
# own; as root in a mount namespace of its own, with its own /var/run/lttng
# and /dev/shm, so that a system session daemon is left alone), with the
# same references (getppid; trace_marker if this machine's tracefs lets us
# write it, else that row is skipped with a note); then producer_host, our
# library's producer path against a faked kernel side (bench/producer_host.c)
# and the quotient of the two, each against getppid of its own run.
#
# The fork-heavy rows (issue 27; bench/fork_cost.c, run by guest.sh): a
# shell loop starting 500 processes, untraced, under posixtrace record
# --kernel=proc,signal and --kernel=none, and under strace -f -e
# trace=process,signal, with record's log checked for the loop's execs and
# exits. The guest gets tools/posixtrace (built here), or the tool
# POSIXTRACE_TOOL names, and this machine's strace (installed if missing).
# --fork boots a guest that runs those rows alone.
#
# The keep-up rows (issue 28; bench/keepup.c, run by guest.sh after
# event_cost's): does what is recorded reach a live reader or a log, and
# what does that cost the producer? As nobody at RLIMIT_MEMLOCK 8 MiB
# (keepup drops root itself), each row a timed window per round, with
# getppid timed in the same round: (a) a reader in
# posix_trace_timedgetnext_event() following a 1 MiB LOOP stream while
# one or two producers record at 0.5, 1 and 2 M events/s or flat out:
# the share read, events/s delivered, the producers' rate with the reader
# and without it (a share counts only at >= 0.9x), the guest's CPU time
# from /proc/stat, and exact accounting (emitted == read + the stream's
# events_lost, every gap after an OVERFLOW: "SILENT LOSS?" if not);
# (b) recorded emit into 1, 4 and 64 MiB LOOP streams, no reader, as
# ratios to getppid (again as root, keepup -R -b, to tell the memlock
# limit's part); (c) two and four producers with a reader, throughput
# against one's beside the scaling of event_cost's no-tracing loop;
# (d) one producer flat out into a FLUSH stream with a log on tmpfs: the
# share the log kept, read back with posix_trace_open(); and (e) LTTng's
# live mode, lttng-relayd and babeltrace2's lttng-live source reading
# while ust_cost -L hits its tracepoint flat out, where it runs (the
# guest gets lttng-relayd). --keepup boots a guest that runs those rows
# alone (some 2 minutes under TCG with the default 3 rounds of 0.5 s).
#
# --profile K runs keepup -a K alone (the live reader's row of one
# producer at rate K: 0 is 0.5 M/s, 1 is 1 M/s, 2 is 2 M/s, 3 flat out;
# 4 to 7 the same total rates from two producers; 8 is (d), the log)
# under this machine's perf record -a (cpu-clock), once as the user keepup
# measures as, and prints perf report's functions and threads: where the
# guest's CPUs went, the module's functions among them.
#
# The system-call rows (issue 29; bench/syscall_cost.c, run by
# bench/syscall_guest.sh in a guest of each test kernel, 6.1 then 6.12):
# dd bs=1 (two system calls a byte) and a fork-heavy shell loop, untraced,
# under posixtrace record --kernel=proc,signal,syscall and --kernel=all,
# strace -f -o FILE and perf trace -o FILE (this machine's strace and
# perf), and LTTng's kernel tracer with the same events where Debian's
# lttng-modules builds for the kernel (bench/lttng_modules.sh: 6.1, not
# 6.12; bench/lttng_kernel.sh), wall time, the guest's CPU time from
# /proc/stat, events kept and lost; then an untraced process's getppid
# loop and pipe ping-pong beside each tracer of another process (record
# with its default classes as a control, with syscall and sched, each
# alone, and perf trace), against the same without. --syscalls runs these
# alone.
#
# -r and -t go to event_cost, ust_cost and keepup alike, -r to fork_cost
# and syscall_cost too.
# POSIXTRACE_BUILD (default build/) is where it builds and boots.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../selftests/vm/lib.sh
. "$(dirname "$0")/../selftests/vm/lib.sh"

BENCH_DIR=$TOP_DIR/bench
HOST='' RT='' ROWS=all
if [ "${1:-}" = --host ]; then
	HOST=1
	shift
elif [ "${1:-}" = --rt ]; then
	RT=1
	shift
elif [ "${1:-}" = --fork ]; then
	ROWS=fork
	shift
elif [ "${1:-}" = --keepup ]; then
	ROWS=keepup
	shift
elif [ "${1:-}" = --profile ]; then
	ROWS=profile
	shift
elif [ "${1:-}" = --syscalls ]; then
	ROWS=syscalls
	shift
elif [ "${1:-}" = --view ]; then
	ROWS=view
	shift
fi
# The options reach the guest on the kernel command line: allow only the
# ones the programs take, with their plain values.
for a in "$@"; do
	case $a in -r|-t|[0-9]*) ;; *) die "unknown option $a (see event_cost.c)" ;; esac
done

# The rows measured on this machine (--host), one program each.
# The results table: its rows are kept, the report's other lines shown.
TABLE=$BUILD_DIR/bench/results.tsv
COMMIT=$(git -C "$TOP_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$TOP_DIR" diff --quiet HEAD 2>/dev/null || COMMIT=$COMMIT-dirty
export BENCH_TABLE=1
mkdir -p "$BUILD_DIR/bench"
[ -s "$TABLE" ] || printf 'date\tcommit\tkernel\tprogram\tcase\tN\tmin_ns\tmedian_ns\tmax_ns\tx_getppid\n' >"$TABLE"
ROWS_BEFORE=$(wc -l <"$TABLE")

# table KERNEL: stdin's report shown, its "@row" lines into the table.
table() {
	local kernel=$1 date
	date=$(date -u +%Y-%m-%dT%H:%MZ)
	awk -v pre="$date	$COMMIT	$kernel" -v table="$TABLE" -F '\t' '
		/^@row\t/ { sub(/^@row\t/, ""); print pre "\t" $0 >>table; next }
		{ print }'
}

table_said() {
	local n
	n=$(($(wc -l <"$TABLE") - ROWS_BEFORE))
	log "$n rows added to the results table, $TABLE"
}

# view's page of a million events, in this machine's chromium, 3 times.
view_rows() {
	local work i report ms=() fr=() bytes=""
	make -s -C "$TOP_DIR/tools" posixtrace tests/big_log >/dev/null
	work=$(mktemp -d)
	"$TOP_DIR/tools/tests/big_log" 1000000 "$work/server-1m.ptlog"
	echo "posixtrace view: a server's log of 1,000,000 events (tools/tests/big_log), in $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
	for i in 1 2 3; do
		report=$("$TOP_DIR/tools/tests/view-test.sh" --perf "$work/out" \
			"$work/server-1m.ptlog" 2>&1) || true
		echo "$report" | sed 's/^/  /'
		report=$(grep '^view-perf ' <<<"$report" | sed 's/^view-perf //')
		[ -n "$report" ] || continue
		ms+=("$(sed 's/.*"load_ms_wall":\([0-9.]*\).*/\1/' <<<"$report")")
		fr+=("$(sed 's/.*"frame_ms_max":\([0-9.]*\).*/\1/' <<<"$report")")
		bytes=$(sed 's/.*"bytes_per_event":\([0-9.]*\).*/\1/' <<<"$report")
	done
	rm -rf "$work"
	[ ${#ms[@]} -gt 0 ] || { echo "view: not measured"; return; }
	# min, median, max of each: as ns, the table's unit.
	printf '%s\n' "${ms[@]}" | sort -n | awk -v n=1000000 '{ v[NR] = $1 * 1e6 }
		END { printf "@row\tview\tload, 1M events\t%d\t%.1f\t%.1f\t%.1f\t-\n", n, v[1], v[int((NR + 1) / 2)], v[NR] }'
	printf '%s\n' "${fr[@]}" | sort -n | awk -v n=1000000 '{ v[NR] = $1 * 1e6 }
		END { printf "@row\tview\tslowest frame, 1M events\t%d\t%.1f\t%.1f\t%.1f\t-\n", n, v[1], v[int((NR + 1) / 2)], v[NR] }'
	echo "view: ${bytes} bytes an event (goal <= 40); load ${ms[*]} ms (goal <= 5000); slowest frame ${fr[*]} ms (goal <= 50)"
}

host_rows() {
	local cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
	echo "host: kernel $(uname -r), $(nproc) CPUs," \
		"clocksource $(cat $cs 2>/dev/null || echo unknown)," \
		"$(grep -q hypervisor /proc/cpuinfo && echo 'virtual machine' || echo 'no hypervisor flag')"
	echo
	local out=$BUILD_DIR/bench/host-report
	mkdir -p "$out"
	# LTTng-UST: as root, the session daemon's /var/run/lttng and the
	# buffers' /dev/shm are made private to this run.
	if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		# shellcheck disable=SC2016
		unshare -m sh -c '
			mkdir -p /var/run/lttng &&
			mount -t tmpfs tmpfs /var/run/lttng &&
			mount -t tmpfs tmpfs /dev/shm ||
			echo "lttng-ust: no private /var/run/lttng: a root session daemon would be shared"
			exec "$@"' sh "$BENCH_DIR/lttng.sh" "$BUILD_DIR/bench/ust_cost" "$@"
	else
		"$BENCH_DIR/lttng.sh" "$BUILD_DIR/bench/ust_cost" "$@"
	fi | table "$(uname -r)" | tee "$out/ust_cost.txt"
	echo
	# Our producer path, the library's own code (built into it, with its
	# system calls faked), against a faked kernel.
	"$BUILD_DIR/bench/producer_host" "$@" | table "$(uname -r)" |
		tee "$out/producer_host.txt"
	echo
	# Both against getppid of their own run: their quotient is ours
	# against LTTng-UST's.
	awk '
		FNR == 1 { file++ }
		file == 1 && /^lttng-ust tracepoint, a session recording \(1M x 4\):/ {
			sub(/.*: /, ""); ust = $1 + 0 }
		file == 2 && /^posix_trace_event, recorded \(producer path\):/ {
			sub(/.*: /, ""); ours = $1 + 0 }
		END {
			if (!ust || !ours) {
				print "goal (issue): host producer path at most 1.0x LTTng-UST: not measured (a row is missing)"
				exit
			}
			printf "host: producer path %.3fx getppid, LTTng-UST enabled %.3fx: %.2fx LTTng-UST\n", ours, ust, ours / ust
			printf "goal (issue): host producer path at most 1.0x LTTng-UST: %s\n", ours / ust <= 1.0 ? "met" : "NOT met"
		}' "$out/ust_cost.txt" "$out/producer_host.txt"
}

# What the guest needs for the LTTng-UST peer, as run-vm.sh --bin options:
# ust_cost and lttng.sh, the lttng command, the session daemon, its
# consumer and the XML schema it reads session files with (it will not
# start without), the relay daemon (keepup's LTTng live row), babeltrace2
# and the plugins that read a CTF trace, from a directory or live (ust_cost
# checks that events arrive). What is missing is left out: the
# guest then says what it could not run.
lttng_bins() {
	local f
	for f in "$BUILD_DIR/bench/ust_cost" "$BENCH_DIR/lttng.sh" \
		"$(command -v lttng)" "$(command -v lttng-sessiond)" \
		"$(command -v lttng-relayd)" \
		"$(dpkg -L lttng-tools 2>/dev/null | grep '/lttng-consumerd$' | head -n 1)" \
		/usr/share/xml/lttng/session.xsd \
		"$(command -v babeltrace2)" \
		$(dpkg -L libbabeltrace2-0 2>/dev/null |
			grep -E '/babeltrace-plugin-(ctf|utils|text)\.so$'); do
		if [ -n "$f" ] && [ -f "$f" ]; then
			printf '%s\n' --bin "$f"
		else
			log "warning: ${f:-a program of lttng-tools or babeltrace2} is missing: the guest runs without it"
		fi
	done
}

# What the fork-heavy rows need beyond deps.sh's packages: strace, put in
# the guest. Installed as deps.sh installs (quiet, nothing fetched when
# present).
bench_deps() {
	local st
	st=$(dpkg-query -W -f='${Status}' strace 2>/dev/null || true)
	[ "$st" = "install ok installed" ] && return
	log "installing: strace"
	[ "$(id -u)" = 0 ] || die "need root to install: strace"
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends strace >/dev/null
}

# The fork-heavy rows' programs, as run-vm.sh --bin options: fork_cost, the
# posixtrace tool, strace.
fork_bins() {
	local f
	for f in "$BUILD_DIR/bench/fork_cost" "$TOOL" "$(command -v strace)"; do
		if [ -n "$f" ] && [ -f "$f" ]; then
			printf '%s\n' --bin "$f"
		else
			log "warning: ${f:-strace} is missing: the guest runs without it"
		fi
	done
}

"$VM_DIR/deps.sh"
[ -n "$HOST" ] || [ -n "$RT" ] || bench_deps
make -s -C "$TOP_DIR/ulib" >/dev/null
if [ -n "$HOST" ]; then
	make -s -C "$BENCH_DIR" O="$BUILD_DIR/bench" >/dev/null
	log "measuring on this machine ($(uname -r))"
	host_rows "$@"
	echo
	view_rows | table "$(uname -r)"
	table_said
	exit 0
fi
if [ $ROWS = view ]; then
	view_rows | table "$(uname -r)"
	table_said
	exit 0
fi

if [ -n "$RT" ]; then
	rel=$(rt_kernel)
	log "building for $rel"
	build_module "$rel" "/usr/src/linux-headers-$rel" -s >/dev/null
	make -s -C "$BENCH_DIR" O="$BUILD_DIR/bench" >/dev/null
	log "booting $rel under QEMU (software emulation, some minutes)"
	out=$BUILD_DIR/vm-bench-rt
	set +e
	"$VM_DIR/run-vm.sh" --label bench-rt --kernel "/boot/vmlinuz-$rel" \
		--module "$BUILD_DIR/kmod-$rel/kmod/posixtrace.ko" --out "$out" \
		--timeout 2400 --demo "$BENCH_DIR/rt_guest.sh" \
		--bin "$BUILD_DIR/bench/rt_load" --bin "$BUILD_DIR/bench/rt_tail" \
		--bin "$(command -v cyclictest)" \
		>"$out.log" 2>&1
	rc=$?
	set -e
	sed -n 's/^\[bench-rt\] # bench: \{0,1\}//p' "$out.log"
	[ $rc = 0 ] || { grep -v '# bench:' "$out.log" >&2; die "the guest run failed"; }
	exit 0
fi

# Did the guest in OUT die of the emulator's fault around text patching:
# an int3 oops outside this module, or a CPU stuck in text_poke_bp?
text_patch_fault() {
	local c=$1/console.log rip
	# Not grep -m1 in a pipe: pipefail would report its writer's SIGPIPE.
	rip=$(grep -A4 'Oops: int3' "$c" | grep 'RIP: ')
	rip=${rip%%$'\n'*}
	{ [ -n "$rip" ] && [[ $rip != *'[posixtrace]'* ]]; } ||
		{ grep -q 'soft lockup' "$c" && grep -q 'text_poke_bp' "$c"; }
}

# The system-call rows, in a guest of each test kernel (see the top).
syscall_rows() {
	local k out args tools=() t lttng stage
	args=$(printf '%s ' "$@")
	for t in strace perf; do
		command -v $t >/dev/null &&
			tools+=(--bin "$(readlink -f "$(command -v $t)")")
	done
	for k in $(test_kernels); do
		log "building for $k; the system-call rows (some minutes)"
		build_module "$k" "/usr/src/linux-headers-$k" -s >/dev/null
		lttng=()
		if stage=$("$BENCH_DIR/lttng_modules.sh" "$k" "/usr/src/linux-headers-$k" \
			"$BUILD_DIR/lttng-modules"); then
			mapfile -t lttng < <(lttng_bins)
			lttng+=(--bin "$BENCH_DIR/lttng_kernel.sh" --tree "$stage")
		fi
		out=$BUILD_DIR/vm-bench-syscalls-$k
		{
			echo "#!/bin/sh"
			echo "BENCH_ARGS='${args% }'"
			tail -n +2 "$BENCH_DIR/syscall_guest.sh"
		} >"$out.sh"
		chmod +x "$out.sh"
		# Every setup's start and stop patches the kernel's text (static
		# keys and calls of the tracepoints) while the other CPU runs
		# system calls: under TCG that now and then strands a CPU on
		# the patch's int3 (an oops or a soft lockup in text_poke_bp,
		# outside this module). Such a guest is booted again, twice
		# at most, and said.
		local rc try
		for try in 1 2 3; do
			set +e
			"$VM_DIR/run-vm.sh" --label "syscalls-$k" \
				--kernel "/boot/vmlinuz-$k" \
				--module "$BUILD_DIR/kmod-$k/kmod/posixtrace.ko" \
				--out "$out" --timeout 2400 --demo "$out.sh" \
				--bin "$BUILD_DIR/bench/syscall_cost" --bin "$TOOL" \
				"${tools[@]}" "${lttng[@]}" >"$out.log" 2>&1
			rc=$?
			set -e
			if [ "$rc" = 0 ] || [ $try = 3 ] || ! text_patch_fault "$out"; then
				break
			fi
			log "the $k guest died of a text patch under emulation (try $try): booting it again"
		done
		sed -n 's/^\[syscalls-[^]]*\] # bench: \{0,1\}//p' "$out.log"
		[ "$rc" = 0 ] || log "the $k guest failed (run-vm.sh exit $rc): see $out.log"
	done
}

rel=$(test_kernels | tail -n 1)
# The tool the fork-heavy rows record with.
TOOL=${POSIXTRACE_TOOL:-$TOP_DIR/tools/posixtrace}
[ -n "${POSIXTRACE_TOOL:-}" ] || make -s -C "$TOP_DIR/tools" >/dev/null
log "building for $rel"
dst=$BUILD_DIR/kmod-$rel
build_module "$rel" "/usr/src/linux-headers-$rel" -s >/dev/null
make -s -C "$BENCH_DIR" O="$BUILD_DIR/bench" >/dev/null
if [ $ROWS = syscalls ]; then
	syscall_rows "$@"
	exit 0
fi

# The guest script, with the options baked in (init.sh passes none).
mkdir -p "$BUILD_DIR/bench"
guest=$BUILD_DIR/bench/guest.sh
{
	echo "#!/bin/sh"
	echo "BENCH_ARGS='$*'"
	echo "BENCH_ROWS=$ROWS"
	echo "export BENCH_TABLE=1"
	tail -n +2 "$BENCH_DIR/guest.sh"
} >"$guest"
chmod +x "$guest"
lttng=()
[ $ROWS = fork ] || mapfile -t lttng < <(lttng_bins)
mapfile -t fork < <(fork_bins)
prof=()
if [ $ROWS = profile ]; then
	command -v perf >/dev/null || die "perf is missing (apt-get install linux-perf)"
	prof=(--bin "$(readlink -f "$(command -v perf)")")
fi

log "booting $rel under QEMU (software emulation, a minute or two)"
out=$BUILD_DIR/vm-bench
set +e
"$VM_DIR/run-vm.sh" --label bench --kernel "/boot/vmlinuz-$rel" \
	--module "$dst/kmod/posixtrace.ko" --out "$out" --timeout 1800 \
	--demo "$guest" --bin "$BUILD_DIR/bench/event_cost" \
	--bin "$BUILD_DIR/bench/exit_cost" --bin "$BUILD_DIR/bench/keepup" \
	"${lttng[@]}" "${fork[@]}" "${prof[@]}" \
	>"$out.log" 2>&1
rc=$?
set -e
sed -n 's/^\[bench\] # bench: \{0,1\}//p' "$out.log" | table "$rel"
if [ $rc != 0 ]; then
	log "the guest run failed (run-vm.sh exit $rc):"
	grep -v '# bench:' "$out.log" >&2 || true
	exit 1
fi
log "$(tail -n 1 "$out.log")"
[ $ROWS != all ] || syscall_rows "$@"
if [ $ROWS = all ]; then
	echo
	view_rows | table "$(uname -r)"
fi
table_said
