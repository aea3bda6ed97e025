#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the guest (run-vm.sh --demo) for bench/run.sh --syscalls:
# syscall_cost's workloads under each setup, then its neighbours' rows,
# as "# bench: " lines. BENCH_ARGS (the kernel command line's
# posixtrace.bench_args, if any) go to both.
say() { echo "# bench: $*"; }
show() { sed 's/^/# bench: /'; }
say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
d=/tmp/syscall_cost
rm -rf $d && mkdir -p $d
if ! command -v syscall_cost >/dev/null; then
	say "syscall_cost is missing from the guest: no rows"
	exit 0
fi
[ -d /sys/kernel/tracing ] && [ ! -e /sys/kernel/tracing/events ] &&
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

# LTTng's kernel tracer, when run.sh put lttng-modules for this kernel in
# /lib/modules and lttng-tools in /bin: a session daemon for the kernel
# domain, which loads the modules (libkmod), and lttng_kernel.sh as
# syscall_cost's -L. What is missing is said, and its rows left out.
lttng=-
lttng_kernel_daemon() {
	if [ ! -e "/lib/modules/$(uname -r)/extra/lttng-tracer.ko" ]; then
		say "LTTng's kernel tracer: no lttng-modules for $(uname -r) (see run.sh): its rows are left out"
		return
	fi
	for p in lttng lttng-sessiond lttng-consumerd lttng_kernel.sh babeltrace2; do
		command -v $p >/dev/null && continue
		say "LTTng's kernel tracer: $p is missing from the guest: its rows are left out"
		return
	done
	mkdir -p /dev/shm /var/run
	grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs tmpfs /dev/shm
	LTTNG_SESSION_CONFIG_XSD_PATH=/bin lttng-sessiond --daemonize \
		--consumerd64-path=/bin/lttng-consumerd >/tmp/sessiond.log 2>&1
	if ! lttng list --kernel >/dev/null 2>&1; then
		say "LTTng's kernel tracer: the session daemon has no kernel tracer: its rows are left out"
		show </tmp/sessiond.log
		return
	fi
	say "LTTng's kernel tracer: lttng-modules $(cat /sys/module/lttng_tracer/version 2>/dev/null || echo '(version unknown)'), a session daemon started"
	lttng=$(command -v lttng_kernel.sh)
}
lttng_kernel_daemon
export BABELTRACE_PLUGIN_PATH=/bin

# posixtrace's probes go as soon as the last stream wanting them does (the
# default keeps them 10 s, for a user who records again): each record
# setup pays for its own, and the untraced runs after it run without
# them (syscall_cost waits until they are gone).
linger=/sys/module/posixtrace/parameters/kernel_probes_linger_ms
[ -w $linger ] && echo 0 >$linger

# shellcheck disable=SC2086
syscall_cost ${BENCH_ARGS:-} -p "$(command -v posixtrace || echo -)" \
	-s "$(command -v strace || echo -)" -P "$(command -v perf || echo -)" \
	-L "$lttng" -d $d 2>&1 | show
[ "$lttng" = - ] || kill "$(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null)" 2>/dev/null
# shellcheck disable=SC2086
syscall_cost -N ${BENCH_ARGS:-} -p "$(command -v posixtrace || echo -)" \
	-P "$(command -v perf || echo -)" \
	-d $d 2>&1 | show
