#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (run-vm.sh --demo) for bench/run.sh --syscalls:
# syscall_cost's workloads under each setup, then its neighbours' rows,
# as "# bench: " lines. BENCH_ARGS (the kernel command line's
# posixtrace.bench_args, if any) go to both.
say() { echo "# bench: $*"; }
show() { sed -u 's/^/# bench: /'; }
say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
d=/tmp/syscall_cost
rm -rf $d && mkdir -p $d
if ! command -v syscall_cost >/dev/null; then
	say "syscall_cost is missing from the guest: no rows"
	exit 0
fi
[ -d /sys/kernel/tracing ] && [ ! -e /sys/kernel/tracing/events ] &&
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# shellcheck disable=SC2086
syscall_cost ${BENCH_ARGS:-} -p "$(command -v posixtrace || echo -)" \
	-s "$(command -v strace || echo -)" -P "$(command -v perf || echo -)" \
	-d $d 2>&1 | show
# shellcheck disable=SC2086
syscall_cost -N ${BENCH_ARGS:-} -p "$(command -v posixtrace || echo -)" \
	-d $d 2>&1 | show
