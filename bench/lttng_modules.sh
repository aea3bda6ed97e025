#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# LTTng's kernel tracer for a guest of bench/run.sh --syscalls: builds
# Debian's lttng-modules (the source of lttng-modules-dkms, fetched with
# apt-get download when the package is not installed) against a kernel's
# headers, and stages the modules as a root tree for run-vm.sh --tree:
# STAGE/lib/modules/KVER/extra/*.ko with depmod's index, where the session
# daemon's libkmod finds them. Debian's 2.13.9 does not build against
# 6.12, and against 6.1's latest point releases all but the timer probe
# builds (their hrtimer_start tracepoint gained an argument): a probe
# that fails is left out, and what the benchmark needs is checked (the
# tracer, its ring buffer clients, the sched and signal probes; system
# calls are the tracer's own). Without them the script says
# so and exits 1, and run.sh leaves LTTng's rows out of that guest.
#
#   lttng_modules.sh KVER HEADERS_DIR WORK_DIR      (prints STAGE)
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 KVER HEADERS_DIR WORK_DIR" >&2; exit 2; }
kver=$1 headers=$2 work=$3
say() { echo "lttng_modules.sh: $*" >&2; }

mkdir -p "$work"
newest() { find "$1" -maxdepth 1 -name 'lttng-modules-*' 2>/dev/null | sort | tail -n 1; }
src=$(newest /usr/src)
[ -n "$src" ] || src=$(newest "$work/deb/usr/src")
if [ -z "$src" ]; then
	say "fetching lttng-modules-dkms's source from Debian's archive"
	rm -rf "$work/deb" && mkdir -p "$work/deb"
	# apt-get download writes to the current directory, as _apt when it
	# can: a directory of root's own is written unsandboxed, and said.
	if ! (cd "$work/deb" && apt-get download -q lttng-modules-dkms) >/dev/null 2>&1; then
		apt-get update -q >/dev/null 2>&1 || true
		(cd "$work/deb" && apt-get download -q lttng-modules-dkms) >/dev/null 2>&1 ||
			{ say "apt-get download lttng-modules-dkms failed"; exit 1; }
	fi
	dpkg-deb -x "$work"/deb/lttng-modules-dkms_*.deb "$work/deb"
	src=$(newest "$work/deb/usr/src")
fi

stage=$work/stage-$kver
build=$work/build-$kver
# A kernel it did not build for is not tried again (remove the file to).
if [ -f "$work/failed-$kver" ]; then
	say "$(cat "$work/failed-$kver")"
	exit 1
fi
if [ ! -f "$stage/.built" ]; then
	say "building ${src##*/} for $kver (some minutes)"
	rm -rf "$build" "$stage"
	cp -a "$src" "$build"
	# A probe that does not compile (the kernel's tracepoint changed in a
	# point release) is left out of the build and said; a module that
	# the benchmark needs failing ends it below.
	for _ in 1 2 3 4 5 6; do
		make -C "$build" KERNELDIR="$headers" -j"$(nproc)" modules \
			>"$work/build-$kver.log" 2>&1 && break
		failed=$(sed -n 's|.*\*\*\* \[.*/src/probes/\(lttng-probe-[a-z0-9_-]*\)\.o\] Error.*|\1|p' \
			"$work/build-$kver.log" | sort -u)
		[ -n "$failed" ] || break
		for p in $failed; do
			say "$p does not build for $kver: left out"
			sed -i "/+= $p\.o/d" "$build/src/probes/Kbuild"
		done
	done
	for m in lttng-tracer lttng-lib-ring-buffer lttng-ring-buffer-client-discard \
		lttng-ring-buffer-metadata-client lttng-probe-sched lttng-probe-signal; do
		if [ -z "$(find "$build/src" -name "$m.ko")" ]; then
			echo "${src##*/} does not build $m for $kver: see $work/build-$kver.log" \
				>"$work/failed-$kver"
			say "$(cat "$work/failed-$kver")"
			grep -m 3 -E 'error:' "$work/build-$kver.log" >&2 || true
			exit 1
		fi
	done
	mkdir -p "$stage/lib/modules/$kver/extra"
	find "$build/src" -name '*.ko' -exec cp {} "$stage/lib/modules/$kver/extra/" \;
	# Without their debug information: the guest's initramfs is in RAM.
	strip --strip-debug "$stage/lib/modules/$kver/extra/"*.ko
	# depmod wants these beside the modules; the guest's own kernel
	# modules are built in or absent from the initramfs.
	: >"$stage/lib/modules/$kver/modules.order"
	: >"$stage/lib/modules/$kver/modules.builtin"
	: >"$stage/lib/modules/$kver/modules.builtin.modinfo"
	depmod -b "$stage" "$kver"
	touch "$stage/.built"
fi
echo "$stage"
