#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs ust_cost (bench/ust_cost.c, the LTTng-UST peer of event_cost) under a
# session daemon of its own: starts lttng-sessiond --no-kernel (user space
# only: no lttng-modules), runs ust_cost, stops the daemon and removes what
# it wrote. bench/guest.sh runs it in the guest, bench/run.sh --host on the
# build machine. POSIX sh: the guest has busybox.
#
#   lttng.sh UST_COST [ust_cost options]
#
# LTTNG_HOME is a directory of its own, under $TMPDIR (/tmp), with the
# traces. A root session daemon keeps its sockets in /var/run/lttng
# whatever LTTNG_HOME says: run.sh --host gives it a mount namespace with
# its own /var/run/lttng and /dev/shm. If a daemon already answers, it is
# used, and said so. If ours cannot start, that is said too, and ust_cost
# runs anyway: it measures what needs no daemon and says why the rest is
# missing. Exit status: ust_cost's (0 unless it could not run at all).
#
# Environment: LTTNG_CONSUMERD, lttng-consumerd's path when it is not
# where lttng-sessiond looks for it (the guest has it in /bin).
set -u
[ $# -ge 1 ] || { echo "usage: $0 UST_COST [options]" >&2; exit 2; }
ust_cost=$1
shift

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ust-bench.XXXXXX") || exit 1
LTTNG_HOME=$tmp/home
# Registration of ust_cost with the daemon, in its constructor, may take
# longer than the default 3 s under emulation.
LTTNG_UST_REGISTER_TIMEOUT=30000
export LTTNG_HOME LTTNG_UST_REGISTER_TIMEOUT
mkdir -p "$LTTNG_HOME" "$tmp/traces"
if [ "$(id -u)" = 0 ]; then rundir=/var/run/lttng; else rundir=$LTTNG_HOME/.lttng; fi

answers() { lttng --no-sessiond list >/dev/null 2>&1; }

pid=
if answers; then
	echo "lttng-ust: a session daemon already runs ($rundir): ust_cost uses it"
elif ! command -v lttng-sessiond >/dev/null; then
	echo "lttng-ust: no lttng-sessiond here: only the disabled tracepoint is measured"
else
	# --daemonize returns once the daemon is ready (or has failed).
	if [ -n "${LTTNG_CONSUMERD:-}" ]; then
		lttng-sessiond --daemonize --no-kernel \
			--consumerd64-path="$LTTNG_CONSUMERD" >"$tmp/sessiond.log" 2>&1
	else
		lttng-sessiond --daemonize --no-kernel >"$tmp/sessiond.log" 2>&1
	fi
	pid=$(cat "$rundir/lttng-sessiond.pid" 2>/dev/null)
	if answers; then
		echo "lttng-ust: lttng-sessiond $(lttng --version 2>/dev/null |
			sed -n 's/^lttng (LTTng Trace Control) \([^ ]*\).*/\1/p')," \
			"started for this run (--no-kernel)"
	else
		echo "lttng-ust: lttng-sessiond did not start; LTTng rows skipped."
		sed 's/^/lttng-ust:   /' "$tmp/sessiond.log" | head -n 5
	fi
fi

"$ust_cost" -o "$tmp/traces" "$@"
rc=$?

if [ -n "$pid" ]; then
	# The daemon stops its consumer and removes its pid file as it exits.
	kill "$pid" 2>/dev/null
	i=0
	while [ -e "$rundir/lttng-sessiond.pid" ] && [ $i -lt 100 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	[ $i -lt 100 ] || echo "lttng-ust: lttng-sessiond ($pid) still runs"
fi
rm -rf "$tmp"
exit $rc
