#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make fault: the module's failure points failed, one at a time, and a
# figure of how many of them were (issue 32). Under the debug kernel
# (debug-kernel.sh), its module built with -g (the same code; debug info
# for fault-map.sh), fault_test runs in two guests, the rings on and off:
#
#   every_failure_point_fails_cleanly  every point every operation reaches
#                                      (what make check runs too);
#   every_call_site_fails_in_turn      each call site of fault-map.sh's
#                                      table alone, every operation again.
#
# Then the report, in $BUILD_DIR/fault/report.txt: failure points per
# operation; for each site of fault-sites.sh (the allocations and user
# copies in kmod/*.c, the denominator) whether it failed at least once,
# and why not where it did not (fault-unreached.txt says; a site missing
# there is "unexplained"); the same for the kernel functions the module
# calls that allocate on its behalf. Exits non-zero if a guest failed or
# a site was left unexplained.
#
#   fault.sh [--timeout SEC]
set -uo pipefail
. "$(dirname "$0")/lib.sh"

TIMEOUT=1500
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) TIMEOUT=$2; shift 2 ;;
	-h|--help) sed -n '3,/^set /p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

WORK=$BUILD_DIR/fault
rm -rf "$WORK" && mkdir -p "$WORK/tests" "$WORK/tree/posixtrace/tests"

"$VM_DIR/deps.sh" || die "installing dependencies failed"
kdir=$("$VM_DIR/debug-kernel.sh" | tail -n 1) || die "no debug kernel"
log "fault: module (-g) and fault_test"
build_module debug-g "$kdir" KCFLAGS=-g -j"$(nproc)" >"$WORK/build.log" 2>&1 ||
	die "module build failed: $WORK/build.log"
ko=$BUILD_DIR/kmod-debug-g/kmod/posixtrace.ko
if ! make -C "$TOP_DIR" --no-print-directory ulib >>"$WORK/build.log" 2>&1 ||
	! "$VM_DIR/build-selftests.sh" "$WORK/selftests" >>"$WORK/build.log" 2>&1; then
	die "selftests build failed: $WORK/build.log"
fi
cp "$WORK/selftests/fault_test" "$WORK/tests/"
cp "$WORK/selftests/fault_load_test" "$WORK/tests/"
"$VM_DIR/fault-map.sh" "$ko" >"$WORK/tree/posixtrace/tests/fault-sites.tab" ||
	die "fault-map.sh failed"
# fault_load_test: every failure point of loading, not a sample.
touch "$WORK/tree/posixtrace/tests/fault-load-full"

rc=0
for mode in on off; do
	args=()
	[ $mode = off ] && args=(--rings-off)
	log "fault: guest, the rings $mode (a few minutes)"
	"$VM_DIR/run-vm.sh" --label "fault.$mode" \
		--kernel "$kdir/arch/x86/boot/bzImage" --module "$ko" \
		--out "$WORK/vm.$mode" --tests "$WORK/tests" \
		--tree "$WORK/tree" --timeout "$TIMEOUT" "${args[@]}" \
		>"$WORK/vm.$mode.log" 2>&1 || rc=1
	grep -q '^ok [0-9]* fault.every_call_site_fails_in_turn$' \
		"$WORK/vm.$mode/ktap.txt" 2>/dev/null || rc=1
done

# "SOURCE CALLEE POINTS" per site, both guests added up.
cat "$WORK"/vm.*/ktap.txt 2>/dev/null | sed -n 's/^# fault-site: //p' |
	awk '{ n[$1 " " $2] += $3 } END { for (k in n) print k, n[k] }' |
	sort >"$WORK/sites.txt"

# Why a site was not failed: fault-unreached.txt's line for it, if any.
why_not() {
	awk -v s="$1" '$1 == s { $1 = ""; sub(/^ /, ""); print; exit }' \
		"$VM_DIR/fault-unreached.txt"
}

# SOURCE CALLEE: not failed, and why; counts the unexplained.
not_failed() {
	local why
	why=$(why_not "$1")
	if [ -z "$why" ]; then
		why=unexplained
		UNEXPLAINED=$((UNEXPLAINED + 1))
	fi
	printf '  not failed: %s %s: %s\n' "$1" "$2" "$why"
}

# What the module calls directly (fault-map.sh's allocators and copies).
direct='^(__kmalloc|__kvmalloc|__vmalloc|vmalloc|vzalloc|krealloc|kvrealloc'
direct+='|kstr|kmemdup|__alloc_pages|alloc_pages|get_zeroed|__get_free'
direct+='|kmem_cache|__alloc_skb|pcpu_alloc|vmap$|_copy_|strncpy_from_user'
direct+='|memdup_user|vmemdup_user|strndup_user)'

report() {
	local mode src callee n hit=0 total=0
	UNEXPLAINED=0
	echo "fault injection under $(basename "$kdir"), $(date -u +%F)"
	for mode in on off; do
		echo
		echo "== the rings $mode: every failure point of every operation"
		sed -n 's/^# fault: /  /p' "$WORK/vm.$mode/ktap.txt" 2>/dev/null |
			grep -v 'call sites failed'
		grep '^not ok\|fault_test.c:' "$WORK/vm.$mode/ktap.txt" 2>/dev/null |
			sed 's/^/  /'
	done
	echo
	echo "== the call sites of fault-sites.sh, each failed alone"
	while read -r src _ callee; do
		total=$((total + 1))
		n=$(awk -v s="$src" '$1 == s { t += $3 } END { print t + 0 }' "$WORK/sites.txt")
		if [ "$n" -gt 0 ]; then
			hit=$((hit + 1))
		else
			not_failed "$src" "$callee"
		fi
	done < <("$VM_DIR/fault-sites.sh" "$TOP_DIR/kmod")
	echo "  $hit of $total failed at least once"
	echo
	echo "== the kernel's functions that allocate for the module"
	hit=0 total=0
	while read -r src callee n; do
		[[ $callee =~ $direct ]] && continue
		total=$((total + 1))
		if [ "$n" -gt 0 ]; then
			hit=$((hit + 1))
		else
			not_failed "$src" "$callee"
		fi
	done <"$WORK/sites.txt"
	echo "  $hit of $total failed at least once"
	echo
	echo "$UNEXPLAINED not failed and unexplained"
	[ "$UNEXPLAINED" = 0 ]
}
report >"$WORK/report.txt" || rc=1
cat "$WORK/report.txt"
[ $rc = 0 ] || log "fault: failed (guest logs in $WORK)"
exit $rc
