#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (run-vm.sh --demo) after init.sh loaded the module:
# runs event_cost and prints its report as "# bench: " lines, which
# bench/run.sh picks out of the guest's KTAP stream.
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
# BENCH_ARGS: event_cost's options, set by run.sh above this script.
# shellcheck disable=SC2086
event_cost ${BENCH_ARGS:-} 2>&1 | show
