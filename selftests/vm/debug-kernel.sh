#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the debug kernel the VM tests run posixtrace under: Debian's
# linux-source-6.12, `make tinyconfig` + selftests/vm/debug.config (KASAN,
# lockdep, kmemleak, UBSAN, KFENCE, ...), x86_64, for QEMU TCG.
#
# Usage: KDIR=$(selftests/vm/debug-kernel.sh [--flavour FLAVOUR])
#
# FLAVOUR is one of:
#   debug  (the default) debug.config, built with gcc;
#   kmsan  kmsan.config (KMSAN: uses of uninitialised memory), built with
#          Debian's clang and lld (LLVM=1): a module for it is built with
#          LLVM=1 too, so that it is instrumented the same way.
#
# Prints the absolute path of the kernel build tree as the only line on
# stdout; all progress goes to stderr. In that tree:
#   arch/x86/boot/bzImage        the kernel to boot
#   Module.symvers               so that `make -C $KDIR M=<dir> modules` works
#   build.log                    the log of the build
#
# The tree is cached in $POSIXTRACE_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/posixtrace) as FLAVOUR-kernel-<key>, where
# <key> hashes the source package version (and tarball size and mtime), the
# compiler version (and for kmsan the make variables) and the fragment; a
# tree is reused only once complete (.done). Editing a fragment thus builds
# a new tree; old ones are left for the user to delete. Concurrent runs of
# a flavour serialize on a lock in the cache.
#
# Needs the linux-source-6.12 package and the kernel build tools (gcc make
# flex bison bc libelf-dev libssl-dev cpio; for kmsan clang >= 14 and lld);
# installs nothing itself.

set -euo pipefail

readonly PKG=linux-source-6.12
readonly TARBALL=/usr/src/$PKG.tar.xz

msg() { echo "debug-kernel: $*" >&2; }
die() { msg "error: $*"; exit 1; }

flavour=debug
case $# in
0) ;;
2) [ "$1" = --flavour ] || die "usage: $0 [--flavour debug|kmsan]"
	flavour=$2 ;;
*) die "usage: $0 [--flavour debug|kmsan]" ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# makevars: what every make of the tree is given; compiler: the line of the
# compiler's version the cache key hashes.
case $flavour in
debug)
	fragment=$here/debug.config
	makevars=()
	compiler() { gcc --version 2>/dev/null | head -n 1 || true; }
	;;
kmsan)
	fragment=$here/kmsan.config
	makevars=(LLVM=1)
	if ! command -v clang >/dev/null || ! command -v ld.lld >/dev/null; then
		die "the kmsan flavour needs clang and lld (apt-get install clang lld)"
	fi
	compiler() {
		clang --version | head -n 1
		ld.lld --version | head -n 1
		echo "${makevars[*]}"
	}
	;;
*) die "unknown flavour $flavour (debug or kmsan)" ;;
esac

[ "$(uname -m)" = x86_64 ] || die "only x86_64 hosts are supported"
[ -r "$fragment" ] || die "missing $fragment"
[ -r "$TARBALL" ] ||
	die "$TARBALL not found; install it with: sudo apt-get install $PKG"

cache=${POSIXTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/posixtrace}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd -P)

# The variables below would redirect or change the kernel build.
unset ARCH SUBARCH CROSS_COMPILE LLVM O KBUILD_OUTPUT KBUILD_EXTMOD M \
	KCONFIG_CONFIG KCFLAGS KCPPFLAGS KAFLAGS LOCALVERSION

key=$(
	{
		echo "$PKG $(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || true)"
		stat -L -c '%s %Y' "$TARBALL"
		compiler
		cat "$fragment"
	} | sha256sum | cut -c1-12
)
dir=$cache/$flavour-kernel-$key

if [ -e "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

lock=$cache/.$flavour-kernel.lock
exec 9>"$lock"
if ! flock -n 9; then
	msg "waiting for another build (lock $lock)"
	flock 9
fi

# Someone else may have finished it while we waited.
if [ -e "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

# A tree without .done is an interrupted or failed build: start over.
rm -rf "$dir"
mkdir -p "$dir"
log=$dir/build.log
: >"$log"

step() {
	local what=$1
	shift
	msg "$what"
	echo "+ $*" >>"$log"
	if ! "$@" >>"$log" 2>&1; then
		msg "error: $what failed; last lines of $log:"
		tail -n 40 "$log" >&2
		exit 1
	fi
}

start=$SECONDS
msg "building a $flavour kernel in $dir (log: $log)"
step "extracting $TARBALL" \
	tar -xJf "$TARBALL" -C "$dir" --strip-components=1 --no-same-owner
step "make ${makevars[*]:+${makevars[*]} }tinyconfig" \
	make -C "$dir" "${makevars[@]}" tinyconfig
step "merging $fragment" \
	env -C "$dir" scripts/kconfig/merge_config.sh -m .config "$fragment"
step "make ${makevars[*]:+${makevars[*]} }olddefconfig" \
	make -C "$dir" "${makevars[@]}" olddefconfig

# Kconfig silently drops what it cannot satisfy: check that each line of the
# fragment made it into .config.
missing=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" "$dir/.config" || missing+=("$line")
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		if grep -q "^$sym=" "$dir/.config"; then
			missing+=("$line")
		fi
		;;
	esac
done <"$fragment"
if [ ${#missing[@]} -gt 0 ]; then
	msg "error: these lines of $fragment did not stick in .config" \
		"(unmet dependencies?):"
	for line in "${missing[@]}"; do
		sym=${line#\# }
		sym=${sym%%[= ]*}
		got=$(grep -E "^$sym=|^# $sym is not set" "$dir/.config" || true)
		echo "  want: $line   got: ${got:-(absent)}" >&2
	done
	exit 1
fi

step "make ${makevars[*]:+${makevars[*]} }-j$(nproc) bzImage modules (a few minutes)" \
	make -C "$dir" "${makevars[@]}" -j"$(nproc)" bzImage modules
[ -f "$dir/arch/x86/boot/bzImage" ] || die "no bzImage after the build"
[ -f "$dir/Module.symvers" ] || die "no Module.symvers after the build"

touch "$dir/.done"
msg "done in $((SECONDS - start))s"
echo "$dir"
