#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the test guest. The kernel log goes to ttyS0; everything this
# script and the tests print goes to ttyS1 as KTAP, so the two never
# interleave. The host (run-vm.sh) judges the run from both.

/bin/busybox --install -s /bin
export PATH=/bin LD_LIBRARY_PATH=/usr/lib HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

exec >/dev/ttyS1 2>&1
stty -F /dev/ttyS1 -onlcr 2>/dev/null

MODE=tests RINGS=on
for arg in $(cat /proc/cmdline); do
	case $arg in
	posixtrace.mode=*) MODE=${arg#posixtrace.mode=} ;;
	posixtrace.rings=*) RINGS=${arg#posixtrace.rings=} ;;
	esac
done
# Rings off: every event by system call (the module's kbufs).
INSMOD_ARGS=
[ "$RINGS" = off ] && INSMOD_ARGS=max_ring_size=0

# Logs the tests write for the host (ttyS2, base64) and read from it.
mkdir -p /export
export POSIXTRACE_LOG_EXPORT=/export
[ -d /import ] && export POSIXTRACE_LOG_IMPORT=/import

# Taint bits that only a splat sets: B(32) D(128) W(512). Not L (16384),
# a soft lockup: the guest cannot tell one from the host standing still,
# which stops its clock too; the host judges its report on the console.
SPLAT_TAINT=$((32 | 128 | 512))
splat_taint() { echo $(($(cat /proc/sys/kernel/tainted) & SPLAT_TAINT)); }

n=0
ok() { n=$((n + 1)); echo "ok $n vm.$1"; }
not_ok() { n=$((n + 1)); echo "not ok $n vm.$1${2:+ # $2}"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w $KMEMLEAK ] && echo clear > $KMEMLEAK

echo "TAP version 13"
echo "# kernel $(uname -r)"
echo "# rings: $RINGS"
# A kernel that splatted while it booted, before the module was loaded
# (a KASAN report of an interrupt taken in start_kernel(), say), is not
# the module's to answer for, and its taint would fail this run's checks:
# say so and stop. run-vm.sh boots again, once.
if [ "$(splat_taint)" != 0 ]; then
	echo "# posixtrace-vm: splat before insmod (tainted=$(cat /proc/sys/kernel/tainted))"
	sync
	reboot -f
fi
# shellcheck disable=SC2086
check insmod insmod /posixtrace/posixtrace.ko $INSMOD_ARGS
check device_node test -c /dev/posixtrace

if [ "$MODE" = demo ]; then
	/posixtrace/demo.sh
else
	# In name order, the programs named in /posixtrace/first before the
	# rest (make mutants: the one that killed a mutant the last time).
	first=$(cat /posixtrace/first 2>/dev/null)
	ran=" "
	for t in $(for f in $first; do echo "/posixtrace/tests/$f"; done) \
		 /posixtrace/tests/*; do
		case $ran in *" $t "*) continue ;; esac
		ran="$ran$t "
		[ -x "$t" ] || continue
		if [ "$RINGS" = off ] && [ "${t##*/}" = ring_test ]; then
			n=$((n + 1))
			echo "ok $n exit.ring_test # SKIP rings are off"
			continue
		fi
		echo "# selftest: ${t##*/}"
		started=$(cut -d' ' -f1 /proc/uptime)
		"$t"
		rc=$?
		# How long each program took: make check sums them up.
		awk -v s="$started" -v t="${t##*/}" \
			'{ printf "# time: %s %.1f s\n", t, $1 - s }' /proc/uptime
		# kselftest exit codes: 0 pass, 4 skip; anything else failed.
		case $rc in 0|4) ok "exit.${t##*/}" ;;
		*) not_ok "exit.${t##*/}" "exit status $rc" ;; esac
	done
fi

# A module in use must refuse to unload, and unload once it is not.
exec 3</dev/posixtrace
if rmmod posixtrace 2>/dev/null; then
	not_ok rmmod_refused_while_open
else
	ok rmmod_refused_while_open
fi
exec 3<&-
check rmmod rmmod posixtrace
check device_node_removed test ! -e /dev/posixtrace

if [ -w $KMEMLEAK ]; then
	# kmemleak reports objects older than 5 s; scan twice to settle.
	sleep 6
	echo scan > $KMEMLEAK
	echo scan > $KMEMLEAK
	leaks=$(cat $KMEMLEAK)
	if [ -z "$leaks" ]; then ok kmemleak; else
		not_ok kmemleak "leaks reported"
		echo "$leaks" | sed 's/^/# /'
	fi
fi

if [ "$(splat_taint)" = 0 ]; then ok not_tainted_by_splat
else not_ok not_tainted_by_splat "tainted=$(cat /proc/sys/kernel/tainted)"; fi

# A module built for coverage (GCOV_PROFILE=y) leaves its counters in
# debugfs after rmmod (gcov_persist): hand them over as one tar file. The
# files there report a size of 0, so each is read into /tmp first.
GCOV=/sys/kernel/debug/gcov
if [ -d $GCOV ]; then
	find $GCOV -name '*.gcda' | while read -r f; do
		mkdir -p "/tmp/gcov${f%/*}"
		cat "$f" > "/tmp/gcov$f"
	done
	[ -d /tmp/gcov ] && tar -C /tmp/gcov$GCOV -cf /export/gcov.tar .
fi

# Hand the exported logs to the host: "begin NAME", base64, "end".
stty -F /dev/ttyS2 raw -echo 2>/dev/null
for f in /export/*; do
	[ -f "$f" ] || continue
	{ echo "begin ${f##*/}"; base64 "$f"; echo "end"; } >/dev/ttyS2
done

echo "1..$n"
echo "# dmesg begin"
dmesg | sed 's/^/# dmesg: /'
echo "# dmesg end"
echo "# posixtrace-vm: done"
sync
reboot -f
