#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing need, from Debian's archive. Idempotent
# and quiet: nothing is fetched when everything is present.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(
	make gcc libc6-dev pkg-config cpio kmod
	busybox-static qemu-system-x86
	linux-source-6.12 linux-headers-amd64 linux-image-amd64
	linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64
	dkms sparse
	flex bison bc libelf-dev libssl-dev
	babeltrace2 clang libclang-rt-14-dev lld llvm
	libnl-genl-3-dev libnl-utils
	lttng-tools liblttng-ust-dev rt-tests
	man-db
	python3 python3-bt2
	zlib1g-dev chromium fonts-liberation
)

missing() {
	local p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[ "$st" = "install ok installed" ] || echo "$p"
	done
}

apt_install() {
	[ "$(id -u)" = 0 ] || die "need root to install: $*"
	# Kernel images are only booted under QEMU: skip building their
	# initramfs (INITRD=No is honoured by Debian's kernel hooks).
	INITRD=No DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "$@" >/dev/null
}

# view's browser test drives chromium from node (with npm, for
# playwright-core): Debian's nodejs where the machine has none of its own.
# Fonts are only chromium's Recommends, which apt_install leaves out: the
# screenshots want some.
command -v node >/dev/null && command -v npm >/dev/null || PKGS+=(nodejs npm)

need=$(missing "${PKGS[@]}")
if [ -n "$need" ]; then
	log "installing: $(echo $need)"
	[ "$(id -u)" = 0 ] || die "need root to install: $(echo $need)"
	apt-get update -q >/dev/null
	# The 6.12 headers (and the RT ones) depend on their signed or
	# unsigned image: ask for the unsigned one in the same transaction,
	# so apt takes that.
	for meta in linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64; do
		dpkg-query -W "$meta" >/dev/null 2>&1 && continue
		dep=$(apt-cache depends "$meta" |
			awk '/Depends: linux-headers-6.12/{print $2; exit}')
		[ -n "$dep" ] && need="$need linux-image-${dep#linux-headers-}-unsigned"
	done
	# shellcheck disable=SC2086
	apt_install $need
fi

# The 6.12 images matching the headers meta packages (the unsigned builds:
# they are booted under QEMU, not by firmware).
for rel in "$(meta_release linux-headers-6.12-amd64)" "$(rt_kernel)"; do
	if [ ! -e "/boot/vmlinuz-$rel" ]; then
		log "installing linux-image-$rel-unsigned"
		apt_install "linux-image-$rel-unsigned"
	fi
done
for rel in $(test_kernels) "$(rt_kernel)"; do
	[ -e "/boot/vmlinuz-$rel" ] || die "/boot/vmlinuz-$rel missing"
	[ -d "/usr/src/linux-headers-$rel" ] || die "linux-headers-$rel missing"
done
