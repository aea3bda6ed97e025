#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel under QEMU (TCG) with a busybox initramfs holding the module
# and the tests, run them (init.sh) and judge the run:
#  - the guest must finish within --timeout seconds (else it is killed);
#  - every KTAP test case must pass (skips are counted apart);
#  - the kernel log must hold no splat (BUG, WARNING, Oops, KASAN, lockdep,
#    kmemleak, UBSAN, hung task...).
# Prints the KTAP stream, then "vm <label>: P passed, F failed, S skipped".
# Exit status 0 only when all of that holds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	cat >&2 <<USAGE
usage: $0 --kernel BZIMAGE --module KO --out DIR [--tests DIR]
          [--demo SCRIPT] [--bin FILE]... [--label NAME] [--timeout SEC]
          [--import DIR] [--tree DIR]... [--rings-off] [--smp N]
          [--append "ARGS"] [--first LIST]
--bin FILE puts a program (with the libraries ldd finds) or a script in the
guest's /bin. Logs the tests export land in OUT/export; --import DIR hands
the *.ptlog files in DIR to the tests (POSIXTRACE_LOG_IMPORT). --tree DIR
copies DIR's files into the guest's root (another tracer's modules under
lib/modules, for the benchmark).
--rings-off loads the module with max_ring_size=0: every event goes by
system call, and ring_test (which tests the rings) is skipped. --smp N
gives the guest N CPUs (2 by default). --append adds ARGS to the
kernel's command line (make check's debug guests: the memory poisoning
leak_test looks for). --first LIST runs these test programs (comma-
separated) before the others, which run in name order.
USAGE
	exit 2
}

KERNEL= MODULE= OUT= TESTS= DEMO= LABEL=vm TIMEOUT=600 BINS=() IMPORT=
TREES=()
RINGS=on SMP=2 EXTRA_APPEND= FIRST=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=$2; shift 2 ;;
	--module) MODULE=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--tests) TESTS=$2; shift 2 ;;
	--demo) DEMO=$2; shift 2 ;;
	--bin) BINS+=("$2"); shift 2 ;;
	--label) LABEL=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--import) IMPORT=$2; shift 2 ;;
	--tree) TREES+=("$2"); shift 2 ;;
	--rings-off) RINGS=off; shift ;;
	--smp) SMP=$2; shift 2 ;;
	--append) EXTRA_APPEND="$EXTRA_APPEND $2"; shift 2 ;;
	--first) FIRST=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ -n "$KERNEL" ] && [ -n "$MODULE" ] && [ -n "$OUT" ] || usage
[ -r "$KERNEL" ] || die "cannot read kernel $KERNEL"
[ -r "$MODULE" ] || die "cannot read module $MODULE"

ROOT=$OUT/root
rm -rf "$OUT" && mkdir -p "$ROOT"/{bin,dev,proc,sys,tmp,root,usr/lib,lib64,posixtrace/tests}

# Copy an ELF and the shared libraries it needs into the initramfs (a
# script, or a static program, has none: ldd fails on it).
LIBPATH=$TOP_DIR/ulib
add_elf() {
	local dst=$1 src=$2 lib
	install -m 0755 "$src" "$ROOT/$dst"
	{ LD_LIBRARY_PATH=$LIBPATH ldd "$src" 2>/dev/null || true; } |
		awk '/=> \//{print $3} /^[ \t]*\/lib64\//{print $1}' |
		while read -r lib; do
			case $lib in
			/lib64/*) cp -L "$lib" "$ROOT$lib" ;;
			*) cp -L "$lib" "$ROOT/usr/lib/" ;;
			esac
		done
}

cp /bin/busybox "$ROOT/bin/busybox"
install -m 0755 "$VM_DIR/init.sh" "$ROOT/init"
cp "$MODULE" "$ROOT/posixtrace/posixtrace.ko"
if [ -n "$TESTS" ]; then
	for t in "$TESTS"/*; do
		[ -f "$t" ] && [ -x "$t" ] && add_elf "posixtrace/tests/${t##*/}" "$t"
	done
fi
[ -z "$FIRST" ] || tr ',' '\n' <<<"$FIRST" >"$ROOT/posixtrace/first"
for b in "${BINS[@]}"; do add_elf "bin/${b##*/}" "$b"; done
for t in "${TREES[@]}"; do cp -a "$t/." "$ROOT/"; done
if [ -n "$IMPORT" ] && compgen -G "$IMPORT/*.ptlog" >/dev/null; then
	mkdir -p "$ROOT/import"
	cp "$IMPORT"/*.ptlog "$ROOT/import/"
fi
# tsc=reliable: under TCG load the clocksource watchdog can find the TSC
# skewed and mark sched_clock unstable mid-run; the static-key patching that
# follows (int3-based) has oopsed the 6.12 guest in update_rq_clock().
# oops=panic: an oops ends the guest there and then, in whatever context
# it struck; one in a test's system call would otherwise leave a guest
# that limps on, or hangs until the timeout, with its cause far above the
# end of the log.
APPEND="console=ttyS0 panic=-1 oops=panic softlockup_panic=0 tsc=reliable"
APPEND="$APPEND sysctl.kernel.hung_task_timeout_secs=60"
APPEND="$APPEND posixtrace.rings=$RINGS$EXTRA_APPEND"
if [ -n "$DEMO" ]; then
	install -m 0755 "$DEMO" "$ROOT/posixtrace/demo.sh"
	APPEND="$APPEND posixtrace.mode=demo"
fi
(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --quiet) >"$OUT/initramfs.cpio"

# The host's clock, in hundredths of a second (CLOCK_BOOTTIME).
host_cs() {
	local up
	read -r up _ </proc/uptime
	echo $((10#${up/./}))
}

# What the watch finds in the console every 5 s: a vCPU that runs code
# the emulator translated before the kernel patched it (see below), as
# Debian's 6.1 kernel reports it: the same CPU "stuck" twice at one
# instruction outside the module, a site the kernel patches (a static
# key's or a static call's NOP, jump or call). The emulator's copy still
# holds the int3 of text_poke_bp(); 6.1's kprobe_int3_handler() finds
# none in memory, takes it for a breakpoint just removed, and backs the
# CPU up onto it again, for ever (6.12 oopses instead). Prints where
# (patched-site-stuck.awk).
stuck_at_a_patched_site() {
	grep -q 'soft lockup - CPU#' "$OUT/console.log" 2>/dev/null &&
		awk -f "$VM_DIR/patched-site-stuck.awk" "$OUT/console.log"
}
STUCK=

# The machine we run on can stand still: paused, or starved by its own
# host. The guest's clock (TCG: the host's CLOCK_MONOTONIC) jumps by as
# much when it goes on, and its kernel reports every CPU stuck that long:
# soft lockups and RCU stalls, in whatever task ran, though nothing in the
# guest ran at all. So the guest's time is the host's time that the host
# ran: a watch beside QEMU wakes every second, counts a wake of
# HOST_STALL_S seconds or more as the host standing still (one line in
# host-stalls.txt: when it ended, in seconds since QEMU started, and how
# long it was), and kills QEMU (TERM, KILL 5 s later) once the guest has
# had --timeout seconds of the rest, or at once if stuck_at_a_patched_site()
# (in STUCK, then). Returns QEMU's exit status; 124 if the watch killed
# it, 125 if for being stuck. Leaves in QEMU_S and GUEST_S how long QEMU
# ran and how much of it counted as the guest's time (seconds).
HOST_STALL_S=5
QEMU_PID='' QEMU_S=0 GUEST_S=0
trap '[ -z "$QEMU_PID" ] || kill -KILL "$QEMU_PID" 2>/dev/null || :' EXIT
boot() {
	local pid t0 prev now gap ran=0 killed= wakes=0
	: >"$OUT/host-stalls.txt"
	STUCK=
	qemu-system-x86_64 -accel tcg -cpu max -smp "$SMP" \
		-m 2048 -nographic -no-reboot -monitor none \
		-kernel "$KERNEL" -initrd "$OUT/initramfs.cpio" \
		-append "$APPEND" \
		-serial "file:$OUT/console.log" -serial "file:$OUT/ktap.log" \
		-serial "file:$OUT/export.txt" \
		</dev/null >"$OUT/qemu.log" 2>&1 &
	pid=$! QEMU_PID=$!
	t0=$(host_cs) prev=$t0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		now=$(host_cs) gap=$((now - prev)) prev=$now
		if [ $gap -ge $((HOST_STALL_S * 100)) ]; then
			echo "$(((now - t0) / 100)) $((gap / 100))" >>"$OUT/host-stalls.txt"
			gap=100
		fi
		ran=$((ran + gap)) wakes=$((wakes + 1))
		if [ -z "$killed" ] && [ $((wakes % 5)) = 0 ] &&
			STUCK=$(stuck_at_a_patched_site); then
			kill -TERM "$pid" 2>/dev/null
			killed=$now
		elif [ -z "$killed" ] && [ $ran -ge $((TIMEOUT * 100)) ]; then
			kill -TERM "$pid" 2>/dev/null
			killed=$now
		elif [ -n "$killed" ] && [ $((now - killed)) -ge 500 ]; then
			kill -KILL "$pid" 2>/dev/null
		fi
	done
	wait "$pid"
	local rc=$?
	QEMU_PID='' QEMU_S=$((($(host_cs) - t0) / 100)) GUEST_S=$((ran / 100))
	[ -z "$killed" ] || rc=124
	[ -z "$STUCK" ] || rc=125
	return $rc
}

start=$(date +%s)
set +e
boot
qrc=$?
# A kernel that dies while booting, before init has run (nothing on the
# KTAP port), never had the module. And QEMU 7.2's TCG now and then goes
# on running code it translated before the kernel patched it: static
# keys and static calls flip through an int3 (text_poke_bp()), and a
# vCPU later executes that int3 from its stale copy, when memory no
# longer holds it: "Oops: int3" whose Code: line shows, before the byte
# at RIP, the byte that replaced the int3 instead of cc (the kernel
# reads those bytes from memory as it reports). Seen at boot
# (sched_clock_cpu(), update_rq_clock()), at a test's first TCP
# connection (secure_tcp_seq_and_ts_off()) and mid-run; the stale copy
# stays, so every CPU that runs that code next oopses too. On 6.1 the
# same int3 is a CPU stuck for good instead (stuck_at_a_patched_site(),
# which the watch stops the guest for): seen in syscall_trace_enter(),
# at the sys_enter tracepoint's static key, as kevent_syscall_test's
# streams had just flipped it. Once, and said, such a run is made again;
# a second death fails the run as any other, and so does any other oops,
# a real int3 (cc still there) included. Without the bytes (an oops that
# could not read them), an int3 outside the module's code counts as the
# emulator's.
# (No grep -m1 or -q in a pipe: the grep before it would die of SIGPIPE
# on a long console, and pipefail would make that the answer.)
stale_int3() {
	local code byte rip
	code=$(grep -A12 'Oops: int3' "$OUT/console.log" 2>/dev/null |
		grep 'Code: ')
	byte=$(sed -n '1s/.* \([0-9a-f][0-9a-f]\) <[0-9a-f][0-9a-f]>.*/\1/p' <<<"$code")
	if [ -n "$byte" ]; then
		[ "$byte" != cc ]
	else
		rip=$(grep -A4 'Oops: int3' "$OUT/console.log" 2>/dev/null |
			grep 'RIP: ')
		rip=${rip%%$'\n'*}
		[ -n "$rip" ] && [[ $rip != *'[posixtrace]'* ]]
	fi
}
# So is one whose kernel splatted before init loaded the module (init.sh
# says so and stops).
if { grep -q 'Kernel panic' "$OUT/console.log" 2>/dev/null &&
	{ [ ! -s "$OUT/ktap.log" ] || stale_int3; }; } ||
	[ $qrc = 125 ] ||
	grep -q '^# posixtrace-vm: splat before insmod' "$OUT/ktap.log" 2>/dev/null; then
	log "[$LABEL] the guest kernel died before init, splatted before" \
		"insmod, or died of or was stuck at an int3 the emulator ran" \
		"stale${STUCK:+ (stuck: $STUCK)} (console.log below): booting it again"
	grep -E 'Oops|RIP:|Kernel panic|BUG:' "$OUT/console.log" | head -n 3 |
		sed "s/^/[$LABEL first boot] /" >&2
	mv "$OUT/console.log" "$OUT/console-first-boot.log"
	boot
	qrc=$?
fi
set -e
secs=$(($(date +%s) - start))
tr -d '\r' <"$OUT/ktap.log" >"$OUT/ktap.txt" 2>/dev/null || : >"$OUT/ktap.txt"
# The logs the guest exported, one "begin NAME" ... "end" section each.
mkdir -p "$OUT/export"
tr -d '\r' <"$OUT/export.txt" 2>/dev/null | awk -v dir="$OUT/export" '
	/^begin / { name = dir "/" substr($0, 7) ".b64"; printf "" > name; next }
	/^end$/ { close(name); name = ""; next }
	name != "" { print >> name }' || true
for f in "$OUT"/export/*.b64; do
	[ -f "$f" ] || continue
	base64 -d "$f" >"${f%.b64}" && rm -f "$f"
done

{ grep -v '^# dmesg: ' "$OUT/ktap.txt" || true; } | sed "s/^/[$LABEL] /"

verdict=0
if [ -s "$OUT/host-stalls.txt" ]; then
	log "[$LABEL] the host stood still (seconds since QEMU started, for" \
		"how long): $(awk '{ printf "%s%ss at %ss", (NR > 1 ? ", " : ""), $2, $1 }' \
		"$OUT/host-stalls.txt"); not counted in the guest's time" \
		"(QEMU ran ${QEMU_S}s, the guest ${GUEST_S}s of its --timeout ${TIMEOUT}s)"
fi
if [ $qrc = 125 ]; then
	log "[$LABEL] guest stopped: $STUCK, stuck at a site the kernel" \
		"patches, again (an int3 the emulator ran stale, in both boots?)"
	verdict=1
elif [ $qrc = 124 ]; then
	log "[$LABEL] guest timed out after ${TIMEOUT}s and was killed"
	verdict=1
elif ! grep -q '^# posixtrace-vm: done' "$OUT/ktap.txt"; then
	log "[$LABEL] guest stopped before the end of the run (qemu exit $qrc)"
	tail -n 40 "$OUT/console.log" | sed "s/^/[$LABEL console] /" >&2
	verdict=1
fi

# splat_summary: where the first splat struck, on one line (check.sh puts
# it in the list of failures, which is what a CI's tail shows): its RIP,
# the task, and the innermost reliable callers.
splat_summary() {
	local first
	first=$(head -n 1 "$OUT/splat.txt")
	awk -v first="$first" '
		!go && index($0, first) { go = 1 }
		!go { next }
		/ Comm: / && !comm { comm = $0; sub(/.* Comm: /, "", comm); sub(/ .*/, "", comm) }
		/RIP: / && !rip { rip = $0; sub(/.*RIP: [0-9]+:/, "", rip) }
		/Call Trace:/ { trace = 1; next }
		trace && /<\/TASK>|---\[ end/ { exit }
		trace && n < 6 {
			f = $0; sub(/^\[[^]]*\] +/, "", f)
			if (f ~ /^\?|^</) next
			sub(/\+0x.*/, "", f)
			calls = calls (n++ ? " < " : "") f
		}
		END {
			if (rip) printf "RIP %s", rip
			if (comm) printf " in %s", comm
			if (calls) printf ", called from %s", calls
			print ""
		}' "$OUT/console.log" "$OUT/ktap.txt"
}
if guest_splats "$OUT/host-stalls.txt" "$OUT/console.log" "$OUT/ktap.txt" >"$OUT/splat.txt"; then
	log "[$LABEL] kernel splat in the log:"
	head -n 60 "$OUT/splat.txt" | sed "s/^/[$LABEL splat] /" >&2
	splat_summary >"$OUT/splat-summary.txt"
	verdict=1
fi

passed=$(grep -Ec '^ok [0-9]+ ' "$OUT/ktap.txt" || true)
skipped=$(grep -Ec '^ok [0-9]+ .*# SKIP' "$OUT/ktap.txt" || true)
failed=$(grep -Ec '^not ok [0-9]+ ' "$OUT/ktap.txt" || true)
passed=$((passed - skipped))
[ "$failed" = 0 ] || verdict=1
[ "$passed" -gt 0 ] || verdict=1
if [ $verdict != 0 ] && [ "$failed" = 0 ]; then
	# The run failed outside any test case: count it as one failure.
	failed=1
fi
echo "vm $LABEL: $passed passed, $failed failed, $skipped skipped (${secs}s)"
exit $verdict
