#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# harness-test.sh KERNEL MODULE: run-vm.sh tells what the host and the
# emulator do from what the guest does.
#  1. The splat filter (splat-filter.awk), on made-up logs: the reports
#     of a time the host stood still are left out, and what is not one
#     of them stays in (a longer lockup, one outside the stall's time, a
#     warning, a late hung task, no stall at all).
#  2. A CPU stuck at an int3 the emulator ran stale
#     (patched-site-stuck.awk), on made-up consoles: found where 6.1
#     told it, and not for a lockup of another kind (told once, in the
#     module, in a spin, at two places, on two CPUs).
#  3. A guest whose host stands still for 25 s while it waits (SIGSTOP
#     to QEMU and run-vm.sh): the run passes, whatever its kernel
#     reports of it (most often soft lockups: left out), and the 25 s
#     are not counted in its --timeout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: $0 KERNEL MODULE"
KERNEL=$1 MODULE=$2
WORK=$BUILD_DIR/harness
rm -rf "$WORK" && mkdir -p "$WORK/tests"
fails=0
fail() { log "harness-test: FAIL: $*"; fails=$((fails + 1)); }

LOCKUP='[  633.497118] watchdog: BUG: soft lockup - CPU#1 stuck for 216s! [fuzz_test:11751]'
STALL='[  633.503619] rcu: INFO: rcu_preempt self-detected stall on CPU'
TRACE='[  633.530659] Call Trace:'
HUNG='[  690.000000] INFO: task kworker/0:1:12 blocked for more than 60 seconds.'
WARN='[  634.000000] WARNING: CPU: 1 PID: 11751 at kmod/drain.c:100 posixtrace_x+0x1/0x2 [posixtrace]'

# filtered STALLS LINE...: the splat lines guest_splats keeps of LINEs,
# when the host stood still as STALLS says ("END LEN" lines).
filtered() {
	printf '%s\n' "$1" >"$WORK/stalls.txt"
	shift
	printf '%s\n' "$@" >"$WORK/console.log"
	guest_splats "$WORK/stalls.txt" "$WORK/console.log" || :
}
# expect NAME WANT STALLS LINE...: the lines kept are WANT (empty: none).
expect() {
	local name=$1 want=$2 got
	shift 2
	got=$(filtered "$@")
	[ "$got" = "$want" ] ||
		fail "$name: kept [$got], expected [$want]"
}
expect "a 230 s stall's reports" "" "636 230" \
	"$LOCKUP" "$STALL" "$TRACE" "$HUNG" "# dmesg: $LOCKUP"
expect "no stall" "$LOCKUP" "" "$LOCKUP"
expect "a lockup longer than the stall" "$LOCKUP" "636 150" "$LOCKUP"
expect "a warning in the stall's time" "$WARN" "636 230" "$LOCKUP" "$WARN"
expect "a lockup outside the stall's time" "$LOCKUP" "900 230" "$LOCKUP"
expect "a hung task told too late" "${HUNG/690/717}" "636 230" "${HUNG/690/717}"

# report CPU RIP CODE: 6.1's report of a soft lockup, RIP and Code: as
# it prints them (CODE: the bytes from the one at RIP, _ for a space;
# ~ for a space in RIP).
report() {
	local rip=${2//\~/ } code=${3//_/ }
	printf '[   62.982662] watchdog: BUG: soft lockup - CPU#%s stuck for 26s! [ring_scope_test:1409]\n' "$1"
	printf '[   62.984626] RIP: 0010:%s\n' "$rip"
	printf '[   62.984905] Code: 85 c0 75 6d e9 64 ff ff ff <%s> %s\n' "${code%% *}" "${code#* }"
	printf '[   62.992367] RIP: 0033:0x7f7e16bde9b3\n'
	printf '[   62.992584] Code: ef e8 d1 b4 ff ff 0f 05 <48> 3d 00 f0 ff ff 77 25\n'
}
# stuck NAME WANT REPORT...: what patched-site-stuck.awk prints of a
# console of the REPORTs (each "CPU RIP CODE"), WANT (empty: nothing,
# and false).
stuck() {
	local name=$1 want=$2 r got rc=0
	shift 2
	for r in "$@"; do
		# shellcheck disable=SC2086 # a report's three words
		report $r
	done >"$WORK/stuck.log"
	got=$(awk -f "$VM_DIR/patched-site-stuck.awk" "$WORK/stuck.log") || rc=$?
	[ "$got" = "$want" ] && { [ -n "$want" ] || [ $rc != 0 ]; } ||
		fail "$name: found [$got] (exit $rc), expected [$want]"
}
SITE=syscall_trace_enter.constprop.0+0xe9/0x1a0
stuck "a static key's NOP, twice" "CPU 1 at $SITE" \
	"1 $SITE 66_90_e9" "1 $SITE 66_90_e9"
stuck "a 5-byte NOP, twice" "CPU 0 at $SITE" \
	"0 $SITE 0f_1f_44_00_00" "0 $SITE 0f_1f_44_00_00"
stuck "told once" "" "1 $SITE 66_90_e9"
stuck "in the module" "" "1 posixtrace_x+0x1/0x2~[posixtrace] 66_90_e9" \
	"1 posixtrace_x+0x1/0x2~[posixtrace] 66_90_e9"
stuck "a spin's pause" "" "1 $SITE f3_90_eb" "1 $SITE f3_90_eb"
stuck "a spin's jump back" "" "1 $SITE eb_fc_f3" "1 $SITE eb_fc_f3"
stuck "at two places" "" "1 $SITE 66_90_e9" "1 ${SITE/e9/f0} 66_90_e9"
stuck "on two CPUs" "" "0 $SITE 66_90_e9" "1 $SITE 66_90_e9"

# The guest's program: keeps both CPUs busy (an idle CPU's watchdog is
# touched as it wakes: no lockup to report) and waits for its clock to
# jump by 20 s or more (the host stood still), then 15 s more; fails if
# no jump comes in 120 s.
cat >"$WORK/tests/host_stall_wait" <<'EOF'
#!/bin/sh
sh -c 'while :; do :; done' &
sh -c 'while :; do :; done' &
trap 'kill %1 %2' EXIT
echo "# host_stall_wait: waiting"
last=$(cut -d. -f1 /proc/uptime)
i=0
while [ $i -lt 120 ]; do
	sleep 1
	now=$(cut -d. -f1 /proc/uptime)
	if [ $((now - last)) -ge 20 ]; then
		echo "# host_stall_wait: the clock jumped $((now - last)) s"
		sleep 15
		exit 0
	fi
	last=$now i=$((i + 1))
done
exit 1
EOF
chmod +x "$WORK/tests/host_stall_wait"

# The host standing still is run-vm.sh's process group stopped
# (SIGSTOP): QEMU and the watch beside it. --timeout leaves a slow host
# room; what counted of it is read from run-vm.sh's log.
setsid "$VM_DIR/run-vm.sh" --label host-stall --kernel "$KERNEL" \
	--module "$MODULE" --tests "$WORK/tests" --out "$WORK/vm" \
	--timeout 180 >"$WORK/run.log" 2>&1 &
run=$!
waiting=
for _ in $(seq 600); do
	grep -q 'host_stall_wait: waiting' "$WORK/vm/ktap.log" 2>/dev/null &&
		waiting=1 && break
	kill -0 $run 2>/dev/null || break
	sleep 0.2
done
if [ -n "$waiting" ]; then
	sleep 2
	kill -STOP -- -$run
	sleep 25
	kill -CONT -- -$run
else
	fail "the guest never waited (run-vm.sh's log: $WORK/run.log)"
fi
rc=0
wait $run || rc=$?
[ $rc = 0 ] || fail "run-vm.sh failed (exit $rc): $(grep -E \
	'not ok|splat|timed out|stopped|failed' "$WORK/run.log" | head -n 3 |
	tr '\n' ' ')"
awk '$2 >= 20 { n++ } END { exit !n }' "$WORK/vm/host-stalls.txt" 2>/dev/null ||
	fail "run-vm.sh saw no stall of 20 s or more"
grep -q 'host_stall_wait: the clock jumped' "$WORK/vm/ktap.log" ||
	fail "the guest's clock did not jump"
# The stall's time left out of the guest's: QEMU ran the 25 s, the
# guest's time did not (a second's slack per stall for the watch's wake).
spent=$(sed -n 's/.*(QEMU ran \([0-9]*\)s, the guest \([0-9]*\)s of .*/\1 \2/p' \
	"$WORK/run.log")
# shellcheck disable=SC2086 # two numbers
[ -n "$spent" ] && set -- $spent && [ $(($1 - $2)) -ge 20 ] ||
	fail "the stall counted in the guest's time (QEMU, guest: ${spent:-not said})"
[ $fails = 0 ] || exit 1
# Whether the kernel told the stall varies: a CPU's watchdog that runs
# before its timer on waking finds nothing stuck.
told=$(grep -c 'soft lockup' "$WORK/vm/console.log" || :)
log "harness-test: the host stood still $(cut -d' ' -f2 "$WORK/vm/host-stalls.txt") s," \
	"not counted; the guest's kernel reported $told soft lockups (left out)"
