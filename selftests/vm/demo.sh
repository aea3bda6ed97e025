#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build the module for Debian's 6.12 kernel, boot it under QEMU,
# load the module and show what posixtrace does (demo-guest.sh tells that
# story in the guest). Prints the story alone: the guest's test harness
# (init.sh's KTAP checks, the kernel log) still runs and, with the story's
# own commands, decides the exit status; the guest's whole output is kept in
# build/vm-demo.log, which a failure points to.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# babeltrace2 and the plugins it reads a CTF trace with (source.ctf.fs,
# filter.utils.muxer, sink.text.pretty), as run-vm.sh --bin options, as
# bench/run.sh passes them. Nothing when babeltrace2 is missing: the guest
# then says it skips reading the trace.
babeltrace_bins() {
	local bt f
	bt=$(command -v babeltrace2) || {
		log "warning: babeltrace2 is not installed: the demo does not read the CTF trace"
		return 0
	}
	printf '%s\n' --bin "$bt"
	for f in $(dpkg -L libbabeltrace2-0 2>/dev/null |
		grep -E '/babeltrace-plugin-(ctf|utils|text)\.so$'); do
		printf '%s\n' --bin "$f"
	done
}

"$VM_DIR/deps.sh"
rel=$(test_kernels | tail -n 1)
log "building for $rel"
dst=$BUILD_DIR/kmod-$rel
build_module "$rel" "/usr/src/linux-headers-$rel" -s >/dev/null
make -s -C "$TOP_DIR/ulib" >/dev/null
make -s -C "$TOP_DIR/tools" >/dev/null
make -s -C "$TOP_DIR/examples" >/dev/null
mapfile -t bt < <(babeltrace_bins)

log "booting $rel under QEMU (software emulation, under a minute)"
out=$BUILD_DIR/vm-demo
set +e
"$VM_DIR/run-vm.sh" --label demo --kernel "/boot/vmlinuz-$rel" \
	--module "$dst/kmod/posixtrace.ko" --out "$out" --timeout 300 \
	--demo "$VM_DIR/demo-guest.sh" --bin "$TOP_DIR/tools/posixtrace" \
	--bin "$TOP_DIR/examples/worker" --bin "$TOP_DIR/examples/analyzer" \
	"${bt[@]}" >"$out.log" 2>&1
rc=$?
set -e
sed -n 's/^\[demo\] # demo: \{0,1\}//p' "$out.log"
# A failure: a check of the harness, the guest itself, or a step of the
# story. Say which, briefly, and where the whole log is.
if [ $rc != 0 ] || grep -q '^\[demo\] # demo-failed: ' "$out.log"; then
	log
	if [ $rc != 0 ]; then
		log "make demo FAILED: the guest's checks failed (run-vm.sh exit $rc):"
	else
		log "make demo FAILED: a step of the story failed:"
	fi
	awk '/^\[demo\] # / && !/^\[demo\] # demo-failed: / { next }
		/^\[demo\] (ok |TAP version|1\.\.)/ { next }
		{ sub(/^\[demo\] /, ""); print }' "$out.log" | head -n 60 >&2 || true
	log "the guest's whole output: $out.log"
	exit 1
fi
