#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: the module and the log reader under random input, at scale
# (issue 32).
#
#  1. fuzz_test under the debug kernel (KASAN, lockdep, kmemleak, UBSAN,
#     KFENCE): CALLS random calls (default 1,000,000) from processes and
#     threads that come and go (selftests/fuzz_test.c says what they do),
#     then the guest's kmemleak scan, splat check and rmmod. The module is
#     built for coverage (gcov), so the report says which of its lines the
#     fuzzing ran. Then, in the same guest, unload_test: rmmod refused
#     under each thing that can hold the module, and CYCLES (default 1000)
#     unloads and loads with a traced workload between; then stress_test
#     for S seconds (default 600): producers, readers, logs and kernel
#     events under random control changes and kills, every stream's
#     events accounted for exactly.
#  2. hotplug_test in a guest of four CPUs, the rings on and off: three
#     CPUs taken offline and back, one at a time, over and over, while
#     threads record and read and kernel events come. Debian's 6.12: the
#     debug kernel is built for two CPUs (CONFIG_NR_CPUS=2), so make
#     check's debug guests take one CPU away, under lockdep and KASAN.
#  3. The log reader's libFuzzer target (fuzz/) for SECONDS (default 600).
#  4. Every selftest once under KMSAN (kmsan.sh: a kernel built with
#     Debian's clang, the module instrumented too): any KMSAN report, or
#     splat, fails make fuzz; a test case that fails there only for
#     KMSAN's slowness (a case's 30 s limit, a test whose reader must fall
#     behind) is listed, not failed. About 45 minutes to build the kernel
#     the first time, 40 to run; --no-kmsan leaves it out.
#
# The report is $BUILD_DIR/fuzz/report.txt: the calls made of each kind,
# the guest's verdict, the coverage of kmod/ by the fuzzing alone and, if
# make check ran before on the same sources, by both (coverage-all.txt,
# every uncovered block with why), and libFuzzer's last status line. Exits
# non-zero if either part failed.
#
#   fuzz.sh [--calls N] [--seconds S] [--log-seconds S] [--seed SEED]
#           [--cycles N] [--stress-seconds S] [--no-kmsan]
#
# --seconds bounds the guest's fuzzing (default 3000); --seed replaces
# fuzz_test's fixed seed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

CALLS=1000000 SECONDS_MAX=3000 LOG_SECONDS=600 SEED= CYCLES=1000 STRESS_SECONDS=600
KMSAN=yes
while [ $# -gt 0 ]; do
	case $1 in
	--calls) CALLS=$2; shift 2 ;;
	--seconds) SECONDS_MAX=$2; shift 2 ;;
	--log-seconds) LOG_SECONDS=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--cycles) CYCLES=$2; shift 2 ;;
	--stress-seconds) STRESS_SECONDS=$2; shift 2 ;;
	--no-kmsan) KMSAN=no; shift ;;
	-h|--help) sed -n '3,/^set /p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

WORK=$BUILD_DIR/fuzz
rm -rf "$WORK" && mkdir -p "$WORK/tests" "$WORK/tree/posixtrace/tests"

"$VM_DIR/deps.sh" || die "installing dependencies failed"
kdir=$("$VM_DIR/debug-kernel.sh" | tail -n 1) || die "no debug kernel"
log "fuzz: module (gcov) and fuzz_test"
build_module fuzz "$kdir" GCOV_PROFILE=y -j"$(nproc)" >"$WORK/build.log" 2>&1 ||
	die "module build failed: $WORK/build.log"
objdir=$BUILD_DIR/kmod-fuzz/kmod
if ! make -C "$TOP_DIR" --no-print-directory ulib >>"$WORK/build.log" 2>&1 ||
	! "$VM_DIR/build-selftests.sh" "$WORK/selftests" >>"$WORK/build.log" 2>&1; then
	die "selftests build failed: $WORK/build.log"
fi
cp "$WORK/selftests/fuzz_test" "$WORK/selftests/unload_test" \
	"$WORK/selftests/stress_test" "$WORK/tests/"
echo "$CYCLES" >"$WORK/tree/posixtrace/tests/unload-cycles"
echo "$STRESS_SECONDS $SEED" >"$WORK/tree/posixtrace/tests/stress-seconds"
mkdir -p "$WORK/hotplug"
cp "$WORK/selftests/hotplug_test" "$WORK/hotplug/"
rel=$(test_kernels | tail -n 1)
# A directory of its own: make check's is kmod-$rel.
build_module "fuzz-$rel" "/usr/src/linux-headers-$rel" -j"$(nproc)" >>"$WORK/build.log" 2>&1 ||
	die "module build for $rel failed: $WORK/build.log"
echo "$CALLS $SECONDS_MAX $SEED" >"$WORK/tree/posixtrace/tests/fuzz-calls"

# Whether two builds of the module were made of the same sources (each
# build directory holds a copy of them): their lines can be added up.
same_sources() {
	[ -d "$2" ] && diff -q <(cd "$1" && cat -- *.c *.h) <(cd "$2" && cat -- *.c *.h) >/dev/null
}

rc=0
log "fuzz: $CALLS calls in the debug guest (at most $SECONDS_MAX s)"
"$VM_DIR/run-vm.sh" --label fuzz --kernel "$kdir/arch/x86/boot/bzImage" \
	--module "$objdir/posixtrace.ko" --out "$WORK/vm" --tests "$WORK/tests" \
	--tree "$WORK/tree" \
	--timeout $((SECONDS_MAX + CYCLES * 2 + STRESS_SECONDS * 2 + 600)) \
	>"$WORK/vm.log" 2>&1 || rc=1

for mode in on off; do
	args=()
	[ $mode = off ] && args=(--rings-off)
	log "fuzz: CPUs offline and back, four CPUs, $rel, the rings $mode"
	"$VM_DIR/run-vm.sh" --label "hotplug.$mode" --smp 4 \
		--kernel "/boot/vmlinuz-$rel" \
		--module "$BUILD_DIR/kmod-fuzz-$rel/kmod/posixtrace.ko" \
		--out "$WORK/vm-hotplug.$mode" --tests "$WORK/hotplug" \
		--timeout 900 "${args[@]}" >"$WORK/vm-hotplug.$mode.log" 2>&1 || rc=1
done

kmsan_rc=
if [ $KMSAN = yes ]; then
	log "fuzz: every selftest under KMSAN (kmsan.sh; long)"
	"$VM_DIR/kmsan.sh" >"$WORK/kmsan.log" 2>&1
	kmsan_rc=$?
	# A KMSAN report or a splat fails; its exit 2 says KMSAN cannot be
	# built here (the report says why), which is said, not failed.
	if grep -q '^  KMSAN reports: [1-9]' "$BUILD_DIR/kmsan/report.txt" 2>/dev/null ||
		[ -s "$BUILD_DIR/kmsan/vm/splat.txt" ]; then
		rc=1
	fi
fi

log "fuzz: the log reader, $LOG_SECONDS s"
make -C "$TOP_DIR/fuzz" --no-print-directory run FUZZ_SECONDS="$LOG_SECONDS" \
	>"$WORK/log_fuzz.log" 2>&1 || rc=1

{
	echo "make fuzz under $(basename "$kdir"), $(date -u +%F), commit $(git -C "$TOP_DIR" rev-parse --short HEAD 2>/dev/null)"
	echo
	echo "== fuzz_test: $CALLS calls at most, within $SECONDS_MAX s; unload_test: $CYCLES cycles; stress_test: $STRESS_SECONDS s"
	sed -n 's/^# \(fuzz\|unload\|stress\)_test\.c:[0-9]*:[a-z_]*://p' \
		"$WORK/vm/ktap.txt" 2>/dev/null | sed 's/^/  /'
	sed -n 's/^# \(stress: \)/  \1/p' "$WORK/vm/ktap.txt" 2>/dev/null
	grep -E '^(not )?ok ' "$WORK/vm/ktap.txt" 2>/dev/null | sed 's/^/  /'
	tail -n 1 "$WORK/vm.log" | sed 's/^/  /'
	for mode in on off; do
		echo
		echo "== hotplug_test, four CPUs, $rel, the rings $mode"
		sed -n 's/^# hotplug_test\.c:[0-9]*:[a-z_]*://p' \
			"$WORK/vm-hotplug.$mode/ktap.txt" 2>/dev/null | sed 's/^/  /'
		tail -n 1 "$WORK/vm-hotplug.$mode.log" | sed 's/^/  /'
	done
	echo
	echo "== coverage of kmod/ by fuzz_test and unload_test"
	"$VM_DIR/coverage.py" "$objdir" "$WORK/coverage.txt" \
		"$WORK/vm/export/gcov.tar" |
		sed -n 's/^# /  /p' | sed -n '1p;/^  all /p;/uncovered/p' || rc=1
	# With make check's debug guests, if it ran here on these sources.
	check_runs=("$BUILD_DIR"/vm-debug*/export/gcov.tar)
	if [ -f "${check_runs[0]}" ] && same_sources "$objdir" "$BUILD_DIR/kmod-debug/kmod"; then
		echo
		echo "== coverage of kmod/ by make check's debug guests and make fuzz"
		"$VM_DIR/coverage.py" --explained "$VM_DIR/coverage-unreached.txt" \
			"$objdir" "$WORK/coverage-all.txt" "$WORK/vm/export/gcov.tar" \
			--and "$BUILD_DIR/kmod-debug/kmod" "${check_runs[@]}" |
			sed -n 's/^# /  /p' | sed -n '1p;/^  all /p;/uncovered/p' || rc=1
	fi
	if [ -n "$kmsan_rc" ]; then
		echo
		echo "== every selftest under KMSAN (kmsan.sh exit $kmsan_rc)"
		sed 's/^/  /' "$BUILD_DIR/kmsan/report.txt" 2>/dev/null ||
			tail -n 5 "$WORK/kmsan.log" | sed 's/^/  /'
	fi
	echo
	echo "== the log reader (libFuzzer, $LOG_SECONDS s)"
	grep -E '^#[0-9]+\s+(DONE|pulse)|^Done ' "$WORK/log_fuzz.log" | tail -n 2 |
		sed 's/^/  /'
	grep -E 'ERROR|SUMMARY|crash-|leak-' "$WORK/log_fuzz.log" | head -n 5 |
		sed 's/^/  /'
} >"$WORK/report.txt"
cat "$WORK/report.txt"
[ $rc = 0 ] || log "fuzz: failed (logs in $WORK)"
exit $rc
