#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The selftests once under KMSAN (issue 32, make fuzz): a kernel built with
# Debian's clang and lld (debug-kernel.sh --flavour kmsan, kmsan.config),
# the module built against it with LLVM=1 so that KMSAN instruments it
# too, and every selftest in one guest. KMSAN reports each use of memory
# nobody initialised: a branch on it, and each byte of it copied to user
# space (kernel-infoleak), which is what the module hands out in records,
# statuses, mapped pages and netlink messages.
#
# The report is $BUILD_DIR/kmsan/report.txt: the module build's warnings
# under clang, the guest's counts, and each KMSAN report (the ones with a
# frame in the module first, whole, in $BUILD_DIR/kmsan/reports.txt).
#
#   kmsan.sh [--timeout SEC] [--only "PROG..."]
#
# --timeout bounds the guest (default 5400 s: KMSAN under TCG is slow);
# --only runs these selftest programs instead of all of them.
#
# Exit status: 0 when every test passed and KMSAN reported nothing, 1 when
# something failed or KMSAN reported, 2 when KMSAN could not be built or
# the module not built for it here (the report says why).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TIMEOUT=5400 ONLY=
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) TIMEOUT=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	-h|--help) sed -n '3,/^set /p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

WORK=$BUILD_DIR/kmsan
rm -rf "$WORK" && mkdir -p "$WORK/tests"
REPORT=$WORK/report.txt

# not_run WHY [LINE...]: the report says KMSAN did not run, and why (the
# lines of a log that say it, indented).
not_run() {
	{
		echo "KMSAN: not run here: $1"
		shift
		printf '%s\n' "$@" | sed '/^$/d; s/^/    /'
	} >"$REPORT"
	cat "$REPORT"
	exit 2
}

for tool in clang ld.lld llvm-ar llvm-nm llvm-objcopy llvm-readelf; do
	command -v $tool >/dev/null ||
		not_run "no $tool (apt-get install clang lld llvm)"
done

log "kmsan: the KMSAN kernel (clang, built once and cached)"
# A build of a few tens of minutes on a CPU others share: at low priority.
if ! kdir=$(nice -n 19 "$VM_DIR/debug-kernel.sh" --flavour kmsan 2>"$WORK/kernel.log" |
	tail -n 1) || [ -z "$kdir" ]; then
	cat "$WORK/kernel.log" >&2
	not_run "the KMSAN kernel did not build; $WORK/kernel.log says:" \
		"$(grep -E 'error|want:' "$WORK/kernel.log" | head -n 5)"
fi

log "kmsan: the module (LLVM=1, W=1) and the selftests"
# The kernel's compiler and flags: LLVM=1 as the kernel was built, so that
# kbuild adds KMSAN's -fsanitize=kernel-memory to the module's objects.
# shellcheck disable=SC2016 # expanded by that shell
if ! nice -n 19 bash -c '. "$1/lib.sh"; build_module kmsan "$2" LLVM=1 W=1 -j"$(nproc)"' \
	sh "$VM_DIR" "$kdir" >"$WORK/build.log" 2>&1; then
	not_run "the module did not build with clang; $WORK/build.log says:" \
		"$(grep -E 'error' "$WORK/build.log" | head -n 5)"
fi
ko=$BUILD_DIR/kmod-kmsan/kmod/posixtrace.ko
# grep reads it all: -q would stop at the first match, and nm, writing
# on (8 KiB of symbols), would die of SIGPIPE, which pipefail reports.
if ! nm -u "$ko" | grep '__msan_' >/dev/null; then
	not_run "the module built, but without KMSAN's instrumentation (no __msan_ calls)"
fi
warnings=$(grep -c 'warning:' "$WORK/build.log" || true)
if ! make -C "$TOP_DIR" --no-print-directory ulib >>"$WORK/st-build.log" 2>&1 ||
	! "$VM_DIR/build-selftests.sh" "$WORK/selftests" >>"$WORK/st-build.log" 2>&1; then
	die "selftests build failed: $WORK/st-build.log"
fi
if [ -n "$ONLY" ]; then
	for t in $ONLY; do
		cp "$WORK/selftests/$t" "$WORK/tests/" || die "no selftest $t"
	done
else
	for t in "$WORK"/selftests/*; do
		[ -f "$t" ] && [ -x "$t" ] && cp "$t" "$WORK/tests/"
	done
fi

log "kmsan: $(find "$WORK/tests" -type f | wc -l) selftest programs in the KMSAN guest (at most $TIMEOUT s)"
rc=0
"$VM_DIR/run-vm.sh" --label kmsan --kernel "$kdir/arch/x86/boot/bzImage" \
	--module "$ko" --out "$WORK/vm" --tests "$WORK/tests" \
	--bin "$TOP_DIR/tools/posixtrace" --bin "$(command -v genl-ctrl-list)" \
	--timeout "$TIMEOUT" >"$WORK/vm.log" 2>&1 || rc=1

# Each KMSAN report, whole (in reports.txt): from its "BUG: KMSAN:" line to
# the line of '=' that closes it, or to the end of the log; those with a
# frame in the module first. Prints how many, and how many of the module.
reports() {
	awk -v out="$WORK/reports.txt" '
	function done_rep() {
		if (rep ~ /\[posixtrace\]/) { mod = mod rep "\n"; nmod++ }
		else other = other rep "\n"
		n++; inrep = 0
	}
	{ sub(/\r$/, "") }
	/BUG: KMSAN:/ { if (inrep) done_rep(); inrep = 1; rep = "" }
	inrep { rep = rep $0 "\n" }
	inrep && /^(\[[ 0-9.]+\] )?=+$/ { done_rep() }
	END {
		if (inrep) done_rep()
		printf "%s%s", mod, other > out
		print n + 0, nmod + 0
	}' "$@"
}
logs=("$WORK/vm/console.log")
[ -f "$WORK/vm/console-first-boot.log" ] && logs=("$WORK/vm/console-first-boot.log" "${logs[@]}")
read -r total in_module < <(reports "${logs[@]}")
[ "$total" = 0 ] || rc=1

{
	echo "KMSAN: the selftests once under $(basename "$kdir") ($(clang --version | head -n 1)), $(date -u +%F), commit $(git -C "$TOP_DIR" rev-parse --short HEAD 2>/dev/null)"
	echo "  module built with LLVM=1 W=1: $warnings compiler warnings ($WORK/build.log)"
	echo "  $(tail -n 1 "$WORK/vm.log")"
	echo "  KMSAN reports: $total, $in_module with a frame in the module ($WORK/reports.txt)"
	grep -h 'BUG: KMSAN:' "$WORK/reports.txt" | sed 's/^\[[ 0-9.]*\] //' |
		sort | uniq -c | sed 's/^ */    /'
	# The harness's timeouts (30 s a case unless the test says) are
	# wall-clock in the guest: a case KMSAN makes too slow is said apart.
	slow=$(grep -c ': Test terminated by timeout' "$WORK/vm/ktap.txt" 2>/dev/null || true)
	[ "${slow:-0}" = 0 ] ||
		echo "  of the failures, $slow test cases out of time (the harness's timeout):"
	grep -E ': Test terminated by timeout' "$WORK/vm/ktap.txt" 2>/dev/null |
		sed 's/^# \(.*\): Test terminated by timeout/    \1/'
	if grep -q '^not ok ' "$WORK/vm/ktap.txt" 2>/dev/null; then
		echo "  the failed cases:"
		awk '/^# selftest: / { prog = $3 }
		/^not ok [0-9]+ / {
			name = $0; sub(/^not ok [0-9]+ /, "", name)
			print "    " (name ~ /^vm\./ ? "" : prog " ") name
		}' "$WORK/vm/ktap.txt"
	fi
	if [ -s "$WORK/vm/splat.txt" ]; then
		echo "  other splat lines (run-vm.sh's check, $WORK/vm/splat.txt):"
		grep -v 'KMSAN' "$WORK/vm/splat.txt" | head -n 5 | sed 's/^/    /'
	fi
} >"$REPORT"
cat "$REPORT"
[ $rc = 0 ] || log "kmsan: failed (logs in $WORK)"
exit $rc
