# SPDX-License-Identifier: GPL-2.0
# Shared by the scripts in this directory; sourced, never run.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_DIR=$(cd "$VM_DIR/../.." && pwd)
BUILD_DIR=${POSIXTRACE_BUILD:-$TOP_DIR/build}
CACHE_DIR=${POSIXTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/posixtrace}

log() { printf '%s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The kernel release a Debian meta package points at, e.g.
# linux-headers-amd64 -> 6.1.0-56-amd64.
meta_release() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' "$1" 2>/dev/null) || return 1
	dep=${dep%% *}
	echo "${dep#linux-headers-}"
}

# build_module RELEASE KDIR [MAKE ARGUMENTS...]: build the module for one
# kernel in a private copy of the sources, $BUILD_DIR/kmod-RELEASE, so that
# builds for different kernels never share objects. The module is then
# $BUILD_DIR/kmod-RELEASE/kmod/posixtrace.ko.
build_module() {
	local rel=$1 kdir=$2 dst=$BUILD_DIR/kmod-$1
	shift 2
	rm -rf "$dst" && mkdir -p "$dst"
	cp -r "$TOP_DIR/kmod" "$TOP_DIR/include" "$TOP_DIR/lib" "$dst"/
	make -C "$dst/kmod" --no-print-directory KERNELDIR="$kdir" "$@" module
}

# The kernels every test runs on: Debian's 6.1 and 6.12, one per line.
test_kernels() {
	meta_release linux-headers-amd64
	meta_release linux-headers-6.12-amd64
}

# The PREEMPT_RT kernel the suite runs on too (Debian's 6.12-rt).
rt_kernel() {
	meta_release linux-headers-6.12-rt-amd64
}

# Where linux-source-6.12's pieces we use (selftests lib, checkpatch) are
# unpacked: only those paths, not the whole tree.
LSRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
ksft_tree() {
	local stamp key dir
	[ -f "$LSRC_TARBALL" ] || die "$LSRC_TARBALL missing (apt-get install linux-source-6.12)"
	stamp=$(stat -c '%s-%Y' "$LSRC_TARBALL")
	key=$(echo "$stamp" | md5sum | cut -c1-10)
	dir=$CACHE_DIR/lsrc-parts-$key
	if [ ! -e "$dir/.done" ]; then
		log "unpacking selftests library and checkpatch from $LSRC_TARBALL"
		rm -rf "$dir" && mkdir -p "$dir"
		tar -xJf "$LSRC_TARBALL" -C "$dir" --strip-components=1 \
			linux-source-6.12/tools/testing/selftests/lib.mk \
			linux-source-6.12/tools/testing/selftests/kselftest.h \
			linux-source-6.12/tools/testing/selftests/kselftest_harness.h \
			linux-source-6.12/tools/testing/selftests/kselftest \
			linux-source-6.12/scripts/checkpatch.pl \
			linux-source-6.12/scripts/spelling.txt \
			linux-source-6.12/scripts/const_structs.checkpatch
		touch "$dir/.done"
	fi
	echo "$dir"
}

# What in a guest's kernel log is a splat: run-vm.sh fails a run on one.
SPLAT='BUG:|WARNING:|Oops|general protection fault|Kernel panic|KASAN|UBSAN:|'
SPLAT+='possible (circular|recursive|irq lock inversion)?.*locking|'
SPLAT+='suspected memory leak|unreferenced object|Call Trace:|'
SPLAT+='INFO: task .* blocked|rcu.*detected stall|'
SPLAT+='sleeping function called from invalid context|list_(add|del) corruption'

# guest_splats STALLS FILE...: the splat lines of a guest's kernel log
# (console.log, ktap.txt), but for the reports splat-filter.awk leaves out;
# STALLS: when the host stood still (run-vm.sh's host-stalls.txt). False
# if there are none.
guest_splats() {
	local stalls=$1
	shift
	awk -v splat="$SPLAT" -v stalls="$(cat "$stalls" 2>/dev/null)" \
		-f "$VM_DIR/splat-filter.awk" "$@" | grep -Eh "$SPLAT"
}
