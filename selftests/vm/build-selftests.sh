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
# One build at a time in the shared tree: two checks at once (a developer's
# and a clone's) would otherwise empty each other's sources mid-build.
exec 9>"$tree/.posixtrace-build.lock"
flock 9
rm -rf "$dst" && mkdir -p "$dst" "$out"
cp -r "$TOP_DIR"/selftests/. "$dst"/
make -C "$dst" --no-print-directory OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $TOP_DIR/include/uapi -isystem $TOP_DIR/include" \
	LDFLAGS="-L$TOP_DIR/ulib"
