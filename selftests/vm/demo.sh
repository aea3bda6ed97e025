#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the module for Debian's 6.12 kernel, boot it under QEMU,
# load the module and show what it does (demo-guest.sh runs in the guest).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$VM_DIR/deps.sh"
rel=$(test_kernels | tail -n 1)
log "building for $rel"
dst=$BUILD_DIR/kmod-$rel
build_module "$rel" "/usr/src/linux-headers-$rel" -s >/dev/null
make -s -C "$TOP_DIR/ulib" >/dev/null
make -s -C "$TOP_DIR/tools" >/dev/null
make -s -C "$TOP_DIR/examples" >/dev/null
log "booting $rel under QEMU (software emulation, about a minute)"
"$VM_DIR/run-vm.sh" --label demo --kernel "/boot/vmlinuz-$rel" \
	--module "$dst/kmod/posixtrace.ko" --out "$BUILD_DIR/vm-demo" \
	--demo "$VM_DIR/demo-guest.sh" --bin "$TOP_DIR/tools/posixtrace" \
	--bin "$TOP_DIR/examples/selftrace" --bin "$TOP_DIR/examples/worker" \
	--bin "$TOP_DIR/examples/analyzer" |
	sed -e 's/^\[demo\] //'
