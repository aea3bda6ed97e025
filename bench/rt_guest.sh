#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside a PREEMPT_RT guest (run-vm.sh --demo) after init.sh loaded
# the module: cyclictest's wakeup latency, one SCHED_FIFO thread a CPU,
# with nothing else running, under rt_load's workload untraced, and under
# the same workload traced by the module; ROUNDS rounds of each, in turn.
# Prints "# bench: " lines, which bench/run.sh --rt picks out.
say() { echo "# bench: $*"; }
ROUNDS=${ROUNDS:-3}
SECONDS_EACH=${SECONDS_EACH:-10}
say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs," \
	"$(grep -q hypervisor /proc/cpuinfo && echo 'virtual machine' || echo 'no hypervisor flag')"
case $(uname -v) in
*PREEMPT_RT*) ;;
*) say "warning: not a PREEMPT_RT kernel" ;;
esac

# One cyclictest run under load $1 (idle, untraced, traced): prints
# "LOAD max MAX avg AVG" (microseconds, the worst thread's).
measure() {
	pid=
	if [ "$1" != idle ]; then
		rt_load $((SECONDS_EACH + 2)) "$1" >/tmp/load.txt 2>&1 &
		pid=$!
		sleep 1
	fi
	cyclictest -q -m -S -p 95 -i 1000 -D "$SECONDS_EACH" >/tmp/ct.txt 2>&1
	[ -z "$pid" ] || wait "$pid"
	awk -v load="$1" '
		/^T:/ {
			for (i = 1; i < NF; i++) {
				if ($i == "Max:" && $(i + 1) > max) max = $(i + 1)
				if ($i == "Avg:" && $(i + 1) > avg) avg = $(i + 1)
			}
			n++
		}
		END { if (n) print load, "max", max, "avg", avg; else print load, "none" }
	' /tmp/ct.txt
}

: >/tmp/all.txt
r=1
while [ $r -le "$ROUNDS" ]; do
	for load in idle untraced traced; do
		line=$(measure $load)
		say "round $r: $line"
		[ $load = idle ] || sed 's/^/# bench:   /' /tmp/load.txt
		echo "$line" >>/tmp/all.txt
	done
	r=$((r + 1))
done
# Per load: the worst maximum, and the median of the rounds' maxima.
say ""
for load in idle untraced traced; do
	grep "^$load max" /tmp/all.txt | awk '{print $3}' | sort -n |
		awk -v load="$load" '
			{ v[NR] = $1 }
			END {
				if (!NR) { print load ": not measured"; exit }
				printf "%s: max latency %d us (median of %d rounds %d us)\n",
					load, v[NR], NR, v[int((NR + 1) / 2)]
			}' | sed 's/^/# bench: cyclictest /'
done

# The tail of posix_trace_event() against a null system call (rt_tail),
# with the ring the library chooses (two streams: 64 KiB) and with a
# 1 MiB ring asked for.
say ""
for ring in "" 1048576; do
	if [ -n "$ring" ]; then
		POSIXTRACE_RING_SIZE=$ring rt_tail "${RT_TAIL_EVENTS:-10000000}"
	else
		rt_tail "${RT_TAIL_EVENTS:-10000000}"
	fi 2>&1 | sed 's/^/# bench: /'
done
