#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kselftests as a kernel tree would: our selftests/ directory is
# dropped into tools/testing/selftests/posixtrace of linux-source-6.12's
# selftests library (unpacked in the cache) and built there with lib.mk.
# Usage: build-selftests.sh OUTPUT_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$(realpath -m "${1:?usage: $0 OUTPUT_DIR}")
tree=$(ksft_tree)
dst=$tree/tools/testing/selftests/posixtrace
rm -rf "$dst" && mkdir -p "$dst" "$out"
cp -r "$TOP_DIR"/selftests/. "$dst"/
make -C "$dst" --no-print-directory OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $TOP_DIR/include/uapi -isystem $TOP_DIR/include" \
	LDFLAGS="-L$TOP_DIR/ulib"
