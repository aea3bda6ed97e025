#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (run-vm.sh --demo) after init.sh loaded the module:
# runs event_cost, then its LTTng-UST peer (ust_cost under bench/lttng.sh),
# and prints their reports as "# bench: " lines, which bench/run.sh picks
# out of the guest's KTAP stream.
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

# The peer: an LTTng-UST tracepoint, ust_cost, under a session daemon of
# its own (lttng.sh). The initramfs lacks what LTTng needs: /dev/shm (the
# buffers, shm_open) and /var/run (the daemon's sockets, /var/run/lttng).
# run.sh put lttng-consumerd, the daemon's session.xsd and babeltrace2's
# plugins in /bin.
say ""
if command -v ust_cost >/dev/null && command -v lttng.sh >/dev/null; then
	mkdir -p /dev/shm /var/run
	grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs tmpfs /dev/shm
	# shellcheck disable=SC2086
	LTTNG_CONSUMERD=/bin/lttng-consumerd LTTNG_SESSION_CONFIG_XSD_PATH=/bin \
		BABELTRACE_PLUGIN_PATH=/bin lttng.sh ust_cost ${BENCH_ARGS:-} 2>&1 | show
else
	say "lttng-ust: ust_cost or lttng.sh is missing from the guest: no LTTng rows"
fi
