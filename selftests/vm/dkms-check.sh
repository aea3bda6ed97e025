#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove dkms.conf: add the module to DKMS and build it for one kernel, then
# remove it again. Usage: dkms-check.sh KERNELRELEASE
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rel=${1:?usage: $0 KERNELRELEASE}
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$TOP_DIR/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP_DIR/dkms.conf")
src=/usr/src/$name-$ver

cleanup() {
	dkms remove "$name/$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src"
}
trap cleanup EXIT
cleanup

# What DKMS needs, and nothing else: the module, the uapi header and lib/.
mkdir -p "$src"
cp -r "$TOP_DIR/dkms.conf" "$TOP_DIR/kmod" "$TOP_DIR/include" "$TOP_DIR/lib" "$src"/
rm -f "$src"/kmod/*.o "$src"/kmod/*.ko "$src"/kmod/*.mod* "$src"/kmod/.*.cmd
dkms add "$name/$ver"
dkms build "$name/$ver" -k "$rel"
ko=$(find "/var/lib/dkms/$name/$ver/$rel" -name "$name.ko*" | head -n 1)
[ -n "$ko" ] || die "dkms built no $name.ko for $rel"
modinfo "$ko" | grep -E '^(vermagic|version):'
