#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# posixtrace dump, export and view (and so posix_trace_open(), which they
# read logs through) against files that are not logs, or not whole ones
# (issue 32): a directory, a FIFO, /dev/zero, /dev/null, a 4 GiB sparse
# file, a log followed by a 4 GiB hole, logs cut at every offset of their
# first KiB and then every 61st byte, logs with a byte flipped every 37
# bytes, and a log still being written while it is read.
#
# Each run has at most 1 GiB of address space (ulimit -v: no allocation
# the size of the file) and 20 seconds; it must exit 0, 1 (refused) with
# one line on standard error that names the file, or 3 (a damaged log,
# read as far as it goes) with a warning that names it; never a signal,
# never the time limit. A file that is not a log at all must be refused.
#
#   hostile-files.sh [POSIXTRACE]     (default: ../posixtrace)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tool=${1:-$here/../posixtrace}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0 runs=0

fail() {
	echo "hostile-files: $*" >&2
	fails=$((fails + 1))
}

# run EXPECT FILE ARGS...: one command on FILE; EXPECT is "refused" (exit
# 1) or "any" (0, 1 or 3).
run() {
	local expect=$1 file=$2 rc err
	shift 2
	runs=$((runs + 1))
	err=$( (ulimit -v 1048576; timeout 20 "$tool" "$@" "$file") 2>&1 >/dev/null)
	rc=$?
	case $rc in
	0)	[ "$expect" = any ] ||
			fail "$* $file: exit 0 for a file that is not a log"
		return ;;
	1)	if [ "$(printf '%s\n' "$err" | wc -l)" != 1 ] ||
			[[ $err != "posixtrace "*"$file"* ]]; then
			fail "$* $file: exit 1, not one line naming the file: $err"
		fi ;;
	3)	[ "$expect" = any ] ||
			fail "$* $file: read as a damaged log: $err"
		[[ $err == "posixtrace "*"warning: $file"* ]] ||
			fail "$* $file: exit 3 without a warning naming the file: $err" ;;
	124)	fail "$* $file: still running after 20 s" ;;
	*)	fail "$* $file: exit $rc: $err" ;;
	esac
}

# Every command that reads a log, on FILE.
each_command() {
	local expect=$1 file=$2
	run "$expect" "$file" dump
	run "$expect" "$file" dump --json
	run "$expect" "$file" export --format=ctf -o "$work/ctf.out" --force
	run "$expect" "$file" export --format=chrome -o "$work/chrome.json" --force
	run "$expect" "$file" view -o "$work/view.html" --force
}

mkdir "$work/logs"
if ! "$here/dump_logs" "$work/logs" >/dev/null; then
	echo "hostile-files: dump_logs failed" >&2
	exit 1
fi
logs=("$work"/logs/basic.ptlog "$work"/logs/kernel.ptlog)

# Not logs at all.
mkdir "$work/dir"
truncate -s 4G "$work/sparse"
for f in "$work/dir" /dev/zero /dev/null "$work/sparse"; do
	each_command refused "$f"
done
mkfifo "$work/fifo"
for c in dump "dump --json"; do
	# A valid log through a FIFO: a log is read by offset.
	timeout 20 cat "${logs[0]}" >"$work/fifo" 2>/dev/null &
	# shellcheck disable=SC2086
	run refused "$work/fifo" $c
	wait
done

# A whole log, then a hole to 4 GiB.
cp "${logs[0]}" "$work/holed"
truncate -s 4G "$work/holed"
each_command any "$work/holed"

# Cut anywhere; a byte flipped anywhere.
for log in "${logs[@]}"; do
	size=$(stat -c %s "$log")
	for ((cut = 0; cut < size; cut += cut < 1024 ? 1 : 61)); do
		head -c "$cut" "$log" >"$work/cut"
		run any "$work/cut" dump
	done
	for ((at = 0; at < size; at += 37)); do
		cp "$log" "$work/flip"
		byte=$(od -An -tu1 -j "$at" -N1 "$log" | tr -d ' ')
		printf '%b' "$(printf '\\%03o' $((byte ^ 255)))" |
			dd of="$work/flip" bs=1 seek="$at" conv=notrunc status=none
		run any "$work/flip" dump
		run any "$work/flip" export --format=chrome -o "$work/chrome.json" --force
	done
done

# A log still being written: 128 bytes every 2 ms, read as it grows.
: >"$work/growing"
(
	size=$(stat -c %s "${logs[1]}")
	for ((off = 0; off < size; off += 128)); do
		tail -c +$((off + 1)) "${logs[1]}" | head -c 128 >>"$work/growing"
		sleep 0.002
	done
) &
writer=$!
while kill -0 "$writer" 2>/dev/null; do
	run any "$work/growing" dump
done
wait "$writer"
run any "$work/growing" dump

echo "hostile-files: $runs runs, $fails failed"
[ "$fails" = 0 ]
