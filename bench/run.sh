#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what posix_trace_event() costs, as ratios to a null system
# call, in the same QEMU guest the tests use (Debian's 6.12 kernel).
#
# Builds the module for that kernel, the library and bench/event_cost, boots
# the guest with selftests/vm/run-vm.sh in demo mode (bench/guest.sh runs
# there after insmod) and prints event_cost's report. A benchmark, not a
# test: it fails only if it cannot run, never on the numbers.
#
#   bench/run.sh [event_cost options]	e.g. -r 7 -t 0.5
#
# POSIXTRACE_BUILD (default build/) is where it builds and boots.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../selftests/vm/lib.sh
. "$(dirname "$0")/../selftests/vm/lib.sh"

BENCH_DIR=$TOP_DIR/bench
# event_cost's options reach the guest on the kernel command line: allow
# only the ones it takes, with their plain values.
for a in "$@"; do
	case $a in -r|-t|[0-9]*) ;; *) die "unknown option $a (see event_cost.c)" ;; esac
done

"$VM_DIR/deps.sh"
rel=$(test_kernels | tail -n 1)
log "building for $rel"
dst=$BUILD_DIR/kmod-$rel
build_module "$rel" "/usr/src/linux-headers-$rel" -s >/dev/null
make -s -C "$TOP_DIR/ulib" >/dev/null
make -s -C "$BENCH_DIR" O="$BUILD_DIR/bench" >/dev/null

# The guest script, with the options baked in (init.sh passes none).
mkdir -p "$BUILD_DIR/bench"
guest=$BUILD_DIR/bench/guest.sh
{
	echo "#!/bin/sh"
	echo "BENCH_ARGS='$*'"
	tail -n +2 "$BENCH_DIR/guest.sh"
} >"$guest"
chmod +x "$guest"

log "booting $rel under QEMU (software emulation, under a minute)"
out=$BUILD_DIR/vm-bench
set +e
"$VM_DIR/run-vm.sh" --label bench --kernel "/boot/vmlinuz-$rel" \
	--module "$dst/kmod/posixtrace.ko" --out "$out" --timeout 300 \
	--demo "$guest" --bin "$BUILD_DIR/bench/event_cost" >"$out.log" 2>&1
rc=$?
set -e
sed -n 's/^\[bench\] # bench: \{0,1\}//p' "$out.log"
if [ $rc != 0 ]; then
	log "the guest run failed (run-vm.sh exit $rc):"
	grep -v '# bench:' "$out.log" >&2 || true
	exit 1
fi
log "$(tail -n 1 "$out.log")"
