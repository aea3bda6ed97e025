#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: dump-test.sh
# Host test of "posixtrace dump" and of the conventions of every command:
# no module needed. dump_logs (beside this script, built by "make -C tools
# test") writes small trace logs with the library's log synthesizer;
# each case runs the tool on one and checks its standard output, standard
# error and exit status exactly.
#
# Prints "ok N NAME" or "not ok N NAME" and a diff for each case, then
# "N passed, M failed"; exits 0 only if every case passed.
#
# Environment: POSIXTRACE, the tool (default: ../posixtrace beside this
# script); DUMP_LOGS, the log writer (default: dump_logs beside it);
# KEEP=1 keeps the work directory and says where it is.

set -u

here=$(cd "$(dirname "$0")" && pwd)
tool=${POSIXTRACE:-$here/../posixtrace}
dump_logs=${DUMP_LOGS:-$here/dump_logs}

work=$(mktemp -d "${TMPDIR:-/tmp}/dump-test.XXXXXX") || exit 1
if [ "${KEEP:-0}" = 1 ]; then
	echo "dump-test: work directory $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi
"$dump_logs" "$work" >"$work/offsets" || exit 1
# Messages name the log as it is given: run where the logs are.
cd "$work" || exit 1

# The file offset dump_logs reported for KEY.
offset() {
	awk -v k="$1" '$1 == k { print $2 }' offsets
}

N=0 PASSED=0 FAILED=0
: >want.out
: >want.err

# expect: standard input is the output the next case must print.
expect() {
	cat >want.out
}

# expect_err: the same for standard error (empty unless given).
expect_err() {
	cat >want.err
}

# run NAME STATUS COMMAND...: runs the command and compares.
run() {
	local name=$1 want_rc=$2 rc ok=1
	shift 2
	N=$((N + 1))
	"$@" >got.out 2>got.err
	rc=$?
	diff -u --label "want $name" --label "got $name" want.out got.out \
		>diff.txt || ok=0
	diff -u --label "want stderr" --label "got stderr" want.err got.err \
		>>diff.txt || ok=0
	if [ "$rc" != "$want_rc" ]; then
		echo "exit status $rc, want $want_rc" >>diff.txt
		ok=0
	fi
	if [ $ok = 1 ]; then
		PASSED=$((PASSED + 1))
		echo "ok $N $name"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N $name"
		sed 's/^/#   /' diff.txt
	fi
	: >want.out
	: >want.err
}

# check NAME STATUS ARGS...: "posixtrace ARGS...".
check() {
	local name=$1 want_rc=$2
	shift 2
	run "$name" "$want_rc" "$tool" "$@"
}

# check_sh NAME STATUS SCRIPT: a shell script, the tool in $0.
check_sh() {
	run "$1" "$2" sh -c "$3" "$tool"
}

# usage_case NAME MESSAGE ARGS...: a usage error: nothing on standard
# output; "posixtrace dump: MESSAGE" and the hint on standard error; 2.
usage_case() {
	local name=$1 msg=$2
	shift 2
	printf 'posixtrace dump: %s\nTry '\''posixtrace dump --help'\''.\n' \
		"$msg" | expect_err
	check "usage.$name" 2 dump "$@"
}

# The header every log of dump_logs has, with its number of types.
header() {
	cat <<EOF
# trace: synth-stream
# generation: posixtrace-k 0.1.0
# created: 2023-11-14T22:13:20.123456789Z (clock resolution 1 ns)
# policies: stream-full=FLUSH log-full=${2:-UNTIL_FULL} inheritance=CLOSE_FOR_CHILD
# sizes: stream=65536 max-data=200 log=1048576
# event types: $1
EOF
}

# basic.ptlog's events, one line each, by seq; the gap before seq 7.
START='2025-11-26T02:00:00.123456789Z posix_trace_start pid=0 tid=0 thread=0x0 seq=0 addr=0x0 trunc=no len=144 data={app.debug} (filter: 1 types)'
E1='2025-11-26T02:00:00.123706789Z app.step pid=4242 tid=4242 thread=0x7f0000000001 seq=1 addr=0x400001 trunc=no len=15 data="hello \"world\"\n\0"'
E2='2025-11-26T02:00:00.623456789Z app.bin pid=4242 tid=4243 thread=0x7f0000000002 seq=2 addr=0x400002 trunc=no len=4 data=0001feff'
E3='2025-11-26T02:00:01.123456789Z net.recv pid=4242 tid=4243 thread=0x7f0000000003 seq=3 addr=0x400003 trunc=no len=0 data='
E4='2025-11-26T02:00:01.623456789Z app.step pid=4300 tid=4301 thread=0x7f0000000004 seq=4 addr=0x400004 trunc=no len=34 data="a payload longer than the 32 sho"...'
GAP='# gap: 2 events missing before seq 7'
E7='2025-11-26T02:00:02.373456789Z app.step pid=4300 tid=4302 thread=0x7f0000000007 seq=7 addr=0x400007 trunc=no len=3 data="x\ty"'
E8='2025-11-26T02:00:03.123456789Z net.recv pid=4300 tid=4302 thread=0x7f0000000008 seq=8 addr=0x400008 trunc=no len=2 data="ok"'
FILTER='2025-11-26T02:00:03.123456790Z posix_trace_filter pid=0 tid=0 thread=0x0 seq=9 addr=0x0 trunc=no len=288 data={app.debug}->{app.debug,net.recv} (filter: 1 types -> 2 types)'
STOP='2025-11-26T02:00:10.123456789Z posix_trace_stop pid=0 tid=0 thread=0x0 seq=10 addr=0x0 trunc=no len=4 data=00000000 (stop: 0, posix_trace_stop)'
STATUS='# status: stream=SUSPENDED full=NOT_FULL overrun=NO_OVERRUN flush=NOT_FLUSHING flush-error=0 log-overrun=NO_OVERRUN log-full=NOT_FULL'
NO_STATUS='# status: unknown: the log has no END block (its writer did not finish it)'
END_FILTER='# filter: 2 types app.debug net.recv'

# lines LINE...: one per line.
lines() {
	printf '%s\n' "$@"
}

# What dump prints of basic.ptlog, every event shown.
basic_text() {
	header 13
	lines "$START" "$E1" "$E2" "$E3" "$E4" "$GAP" "$E7" "$E8" "$FILTER" \
		"$STOP" "$STATUS" "$END_FILTER" \
		'# events: 9 read, 2 missing in 1 gaps'
}

# ---- Formats ----------------------------------------------------------

basic_text | expect
check text 0 dump basic.ptlog

# Colour: only when asked here (the output is a file, not a terminal);
# NO_COLOR changes nothing then. Names bold, system ones yellow, gaps red.
basic_text | expect
check colour_auto_in_a_file 0 dump --color auto basic.ptlog
basic_text | expect
check_sh colour_never_even_on_a_terminal 0 \
	'TERM=xterm script -qec "\"$0\" dump --color never basic.ptlog" \
	/dev/null | tr -d "\r"'
basic_text | expect
check_sh colour_no_color_on_a_terminal 0 \
	'TERM=xterm NO_COLOR=1 script -qec "\"$0\" dump basic.ptlog" /dev/null |
	tr -d "\r"'
esc=$(printf '\033')
# basic_text as --color always prints it.
basic_coloured() {
	basic_text |
		sed -E "s/^([^ ]+Z) (posix_trace_[a-z]+) /\1 $esc[33m\2$esc[0m /;
			s/^([^ ]+Z) ([a-z]+\.[a-z]+) /\1 $esc[1m\2$esc[0m /;
			s/^# gap: .*/$esc[31m&$esc[0m/"
}
basic_coloured | expect
check colour_always 0 dump --color always basic.ptlog
basic_coloured | expect
check_sh colour_auto_on_a_terminal 0 \
	'TERM=xterm script -qec "\"$0\" dump basic.ptlog" /dev/null | tr -d "\r"'

# The form of before: hex for every payload, event sets included.
{ header 13; cat <<'EOF'
2025-11-26T02:00:00.123456789Z posix_trace_start pid=0 tid=0 thread=0x0 seq=0 addr=0x0 trunc=no len=144 data=0000000000000000080000000000000000000000000000000000000000000000... (filter: 1 types)
2025-11-26T02:00:00.123706789Z app.step pid=4242 tid=4242 thread=0x7f0000000001 seq=1 addr=0x400001 trunc=no len=15 data=68656c6c6f2022776f726c64220a00
2025-11-26T02:00:00.623456789Z app.bin pid=4242 tid=4243 thread=0x7f0000000002 seq=2 addr=0x400002 trunc=no len=4 data=0001feff
2025-11-26T02:00:01.123456789Z net.recv pid=4242 tid=4243 thread=0x7f0000000003 seq=3 addr=0x400003 trunc=no len=0 data=
2025-11-26T02:00:01.623456789Z app.step pid=4300 tid=4301 thread=0x7f0000000004 seq=4 addr=0x400004 trunc=no len=34 data=61207061796c6f6164206c6f6e676572207468616e207468652033322073686f...
# gap: 2 events missing before seq 7
2025-11-26T02:00:02.373456789Z app.step pid=4300 tid=4302 thread=0x7f0000000007 seq=7 addr=0x400007 trunc=no len=3 data=780979
2025-11-26T02:00:03.123456789Z net.recv pid=4300 tid=4302 thread=0x7f0000000008 seq=8 addr=0x400008 trunc=no len=2 data=6f6b
2025-11-26T02:00:03.123456790Z posix_trace_filter pid=0 tid=0 thread=0x0 seq=9 addr=0x0 trunc=no len=288 data=0000000000000000080000000000000000000000000000000000000000000000... (filter: 1 types -> 2 types)
2025-11-26T02:00:10.123456789Z posix_trace_stop pid=0 tid=0 thread=0x0 seq=10 addr=0x0 trunc=no len=4 data=00000000 (stop: 0, posix_trace_stop)
EOF
lines "$STATUS" "$END_FILTER" '# events: 9 read, 2 missing in 1 gaps'; } |
	expect
check hex 0 dump --hex basic.ptlog

# Every byte, and every name of a set (slots_full_set below).
{ header 13; lines "$START" "$E1" "$E2" "$E3" "${E4%\"...}wn\"" "$GAP" \
	"$E7" "$E8" "$FILTER" "$STOP" "$STATUS" "$END_FILTER" \
	'# events: 9 read, 2 missing in 1 gaps'; } | expect
check full_data 0 dump -x basic.ptlog

# Times since the first event; since the previous event printed.
{ header 13; cat <<'EOF'
# time origin: 2025-11-26T02:00:00.123456789Z (the first event)
+0.000000000 posix_trace_start pid=0 tid=0 thread=0x0 seq=0 addr=0x0 trunc=no len=144 data={app.debug} (filter: 1 types)
+0.000250000 app.step pid=4242 tid=4242 thread=0x7f0000000001 seq=1 addr=0x400001 trunc=no len=15 data="hello \"world\"\n\0"
+0.500000000 app.bin pid=4242 tid=4243 thread=0x7f0000000002 seq=2 addr=0x400002 trunc=no len=4 data=0001feff
+1.000000000 net.recv pid=4242 tid=4243 thread=0x7f0000000003 seq=3 addr=0x400003 trunc=no len=0 data=
+1.500000000 app.step pid=4300 tid=4301 thread=0x7f0000000004 seq=4 addr=0x400004 trunc=no len=34 data="a payload longer than the 32 sho"...
# gap: 2 events missing before seq 7
+2.250000000 app.step pid=4300 tid=4302 thread=0x7f0000000007 seq=7 addr=0x400007 trunc=no len=3 data="x\ty"
+3.000000000 net.recv pid=4300 tid=4302 thread=0x7f0000000008 seq=8 addr=0x400008 trunc=no len=2 data="ok"
+3.000000001 posix_trace_filter pid=0 tid=0 thread=0x0 seq=9 addr=0x0 trunc=no len=288 data={app.debug}->{app.debug,net.recv} (filter: 1 types -> 2 types)
+10.000000000 posix_trace_stop pid=0 tid=0 thread=0x0 seq=10 addr=0x0 trunc=no len=4 data=00000000 (stop: 0, posix_trace_stop)
EOF
lines "$STATUS" "$END_FILTER" '# events: 9 read, 2 missing in 1 gaps'; } |
	expect
check relative 0 dump --relative basic.ptlog

{ header 13; cat <<'EOF'
# time origin: 2025-11-26T02:00:00.123456789Z (the first event)
+0.000250000 app.step pid=4242 tid=4242 thread=0x7f0000000001 seq=1 addr=0x400001 trunc=no len=15 data="hello \"world\"\n\0"
+0.499750000 app.bin pid=4242 tid=4243 thread=0x7f0000000002 seq=2 addr=0x400002 trunc=no len=4 data=0001feff
+1.000000000 app.step pid=4300 tid=4301 thread=0x7f0000000004 seq=4 addr=0x400004 trunc=no len=34 data="a payload longer than the 32 sho"...
# gap: 2 events missing before seq 7
+0.750000000 app.step pid=4300 tid=4302 thread=0x7f0000000007 seq=7 addr=0x400007 trunc=no len=3 data="x\ty"
EOF
lines "$STATUS" "$END_FILTER" '# events: 9 read, 4 shown, 2 missing in 1 gaps'
} | expect
check delta_filtered 0 dump -d -e 'app.*' basic.ptlog

cat <<'EOF' | expect
{"ts": "1764122400.123456789", "ts_sec": 1764122400, "ts_nsec": 123456789, "time": "2025-11-26T02:00:00.123456789Z", "event": "posix_trace_start", "id": 1, "system": "START", "meaning": "tracing started", "pid": 0, "tid": 0, "thread": "0x0", "prog_address": "0x0", "seq": 0, "gap": 0, "truncated": false, "truncation": "no", "data_len": 144, "data_encoding": "hex", "data": "000000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", "filter": ["app.debug"]}
{"ts": "1764122400.123706789", "ts_sec": 1764122400, "ts_nsec": 123706789, "time": "2025-11-26T02:00:00.123706789Z", "event": "app.step", "id": 65, "system": null, "meaning": null, "pid": 4242, "tid": 4242, "thread": "0x7f0000000001", "prog_address": "0x400001", "seq": 1, "gap": 0, "truncated": false, "truncation": "no", "data_len": 15, "data_encoding": "text", "data": "hello \"world\"\n\u0000"}
{"ts": "1764122400.623456789", "ts_sec": 1764122400, "ts_nsec": 623456789, "time": "2025-11-26T02:00:00.623456789Z", "event": "app.bin", "id": 66, "system": null, "meaning": null, "pid": 4242, "tid": 4243, "thread": "0x7f0000000002", "prog_address": "0x400002", "seq": 2, "gap": 0, "truncated": false, "truncation": "no", "data_len": 4, "data_encoding": "hex", "data": "0001feff"}
{"ts": "1764122401.123456789", "ts_sec": 1764122401, "ts_nsec": 123456789, "time": "2025-11-26T02:00:01.123456789Z", "event": "net.recv", "id": 68, "system": null, "meaning": null, "pid": 4242, "tid": 4243, "thread": "0x7f0000000003", "prog_address": "0x400003", "seq": 3, "gap": 0, "truncated": false, "truncation": "no", "data_len": 0, "data_encoding": "text", "data": ""}
{"ts": "1764122401.623456789", "ts_sec": 1764122401, "ts_nsec": 623456789, "time": "2025-11-26T02:00:01.623456789Z", "event": "app.step", "id": 65, "system": null, "meaning": null, "pid": 4300, "tid": 4301, "thread": "0x7f0000000004", "prog_address": "0x400004", "seq": 4, "gap": 0, "truncated": false, "truncation": "no", "data_len": 34, "data_encoding": "text", "data": "a payload longer than the 32 shown"}
{"ts": "1764122402.373456789", "ts_sec": 1764122402, "ts_nsec": 373456789, "time": "2025-11-26T02:00:02.373456789Z", "event": "app.step", "id": 65, "system": null, "meaning": null, "pid": 4300, "tid": 4302, "thread": "0x7f0000000007", "prog_address": "0x400007", "seq": 7, "gap": 2, "truncated": false, "truncation": "no", "data_len": 3, "data_encoding": "text", "data": "x\ty"}
{"ts": "1764122403.123456789", "ts_sec": 1764122403, "ts_nsec": 123456789, "time": "2025-11-26T02:00:03.123456789Z", "event": "net.recv", "id": 68, "system": null, "meaning": null, "pid": 4300, "tid": 4302, "thread": "0x7f0000000008", "prog_address": "0x400008", "seq": 8, "gap": 0, "truncated": false, "truncation": "no", "data_len": 2, "data_encoding": "text", "data": "ok"}
{"ts": "1764122403.123456790", "ts_sec": 1764122403, "ts_nsec": 123456790, "time": "2025-11-26T02:00:03.123456790Z", "event": "posix_trace_filter", "id": 7, "system": "FILTER", "meaning": "the event filter changed", "pid": 0, "tid": 0, "thread": "0x0", "prog_address": "0x0", "seq": 9, "gap": 0, "truncated": false, "truncation": "no", "data_len": 288, "data_encoding": "hex", "data": "000000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000018000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", "filter_old": ["app.debug"], "filter": ["app.debug", "net.recv"]}
{"ts": "1764122410.123456789", "ts_sec": 1764122410, "ts_nsec": 123456789, "time": "2025-11-26T02:00:10.123456789Z", "event": "posix_trace_stop", "id": 2, "system": "STOP", "meaning": "tracing stopped", "pid": 0, "tid": 0, "thread": "0x0", "prog_address": "0x0", "seq": 10, "gap": 0, "truncated": false, "truncation": "no", "data_len": 4, "data_encoding": "hex", "data": "00000000", "stop": 0, "stop_reason": "posix_trace_stop"}
EOF
check json 0 dump --json basic.ptlog

cat <<'EOF' | expect
{"ts": "1764122401.123456789", "ts_sec": 1764122401, "ts_nsec": 123456789, "time": "2025-11-26T02:00:01.123456789Z", "relative": "+1.000000000", "event": "net.recv", "id": 68, "system": null, "meaning": null, "pid": 4242, "tid": 4243, "thread": "0x7f0000000003", "prog_address": "0x400003", "seq": 3, "gap": 0, "truncated": false, "truncation": "no", "data_len": 0, "data_encoding": "text", "data": ""}
{"ts": "1764122403.123456789", "ts_sec": 1764122403, "ts_nsec": 123456789, "time": "2025-11-26T02:00:03.123456789Z", "relative": "+3.000000000", "event": "net.recv", "id": 68, "system": null, "meaning": null, "pid": 4300, "tid": 4302, "thread": "0x7f0000000008", "prog_address": "0x400008", "seq": 8, "gap": 0, "truncated": false, "truncation": "no", "data_len": 2, "data_encoding": "text", "data": "ok"}
EOF
check json_relative 0 dump -j -r -e 'net*' basic.ptlog

cat <<'EOF' | expect
{"ts": "1764122402.373456789", "ts_sec": 1764122402, "ts_nsec": 373456789, "time": "2025-11-26T02:00:02.373456789Z", "delta": "+2.250000000", "event": "app.step", "id": 65, "system": null, "meaning": null, "pid": 4300, "tid": 4302, "thread": "0x7f0000000007", "prog_address": "0x400007", "seq": 7, "gap": 2, "truncated": false, "truncation": "no", "data_len": 3, "data_encoding": "text", "data": "x\ty"}
{"ts": "1764122403.123456789", "ts_sec": 1764122403, "ts_nsec": 123456789, "time": "2025-11-26T02:00:03.123456789Z", "delta": "+0.750000000", "event": "net.recv", "id": 68, "system": null, "meaning": null, "pid": 4300, "tid": 4302, "thread": "0x7f0000000008", "prog_address": "0x400008", "seq": 8, "gap": 0, "truncated": false, "truncation": "no", "data_len": 2, "data_encoding": "text", "data": "ok"}
EOF
check json_delta_tid 0 dump --json --delta --tid 4302 basic.ptlog

cat <<'EOF' | expect
{"ts": "1764122403.123456789", "ts_sec": 1764122403, "ts_nsec": 123456789, "time": "2025-11-26T02:00:03.123456789Z", "event": "net.recv", "id": 68, "system": null, "meaning": null, "pid": 4300, "tid": 4302, "thread": "0x7f0000000008", "prog_address": "0x400008", "seq": 8, "gap": 0, "truncated": false, "truncation": "no", "data_len": 2, "data_encoding": "hex", "data": "6f6b"}
EOF
check json_hex 0 dump --json --hex -e net.recv -t 4302 basic.ptlog

# ---- Filters ----------------------------------------------------------

# filtered EVENT_LINES...: basic.ptlog's header, the lines, its footer
# saying how many of the 9 events were shown.
filtered() {
	local shown=0 l
	for l in "$@"; do
		[ "${l:0:1}" = '#' ] || shown=$((shown + 1))
	done
	{ header 13; lines "$@" "$STATUS" "$END_FILTER" \
		"# events: 9 read, $shown shown, 2 missing in 1 gaps"; } | expect
}

# A gap shows where its event is in the time range, whichever the event:
# the events lost may have been of any name or process.
filtered "$E1" "$E2" "$E4" "$GAP" "$E7"
check event_glob 0 dump -e 'app.*' basic.ptlog

filtered "$E4" "$GAP" "$E7" "$E8"
check event_twice_and_pid 0 dump -e app.step --event 'net.*' -p 4300 basic.ptlog

filtered "$GAP"
check event_none 0 dump -e 'no[!a-z]thing' basic.ptlog

filtered "$START" "$E1" "$E4" "$GAP" "$E7" "$STOP"
check event_class 0 dump -e '[[:lower:]]*[._]s*' basic.ptlog

filtered "$E1" "$E2" "$E3" "$E4" "$GAP" "$E7" "$E8"
check pid_list 0 dump --pid 4242,4300 basic.ptlog

# System events are no process's: pid 0.
filtered "$START" "$GAP" "$FILTER" "$STOP"
check pid_zero 0 dump -p 0 basic.ptlog

filtered "$E2" "$E3" "$E4" "$GAP"
check tid_twice 0 dump -t 4243 --tid 4301 basic.ptlog

filtered "$E3" "$E4" "$GAP" "$E7" "$E8"
check since_until_relative 0 dump --since +1 --until +3 basic.ptlog

# Both bounds are included.
filtered "$E3" "$E4" "$GAP" "$E7"
check since_until_epoch 0 dump --since 1764122401.123456789 \
	--until @1764122402.373456789 basic.ptlog

filtered "$E3" "$E4" "$GAP" "$E7"
check since_until_iso 0 dump --since 2025-11-26T03:00:01.123456789+01:00 \
	--until '2025-11-26 02:00:02.373456789' basic.ptlog

filtered "$E1" "$E2"
check since_until_units 0 dump --since +250us --until +500ms basic.ptlog

filtered "$STOP"
check since_minutes 0 dump --since +0.1m basic.ptlog

filtered "$START" "$E1" "$E2" "$E3" "$E4"
check until_date 0 dump --until 2025-11-26T02:00:02Z basic.ptlog

filtered
check since_after_last 0 dump --since 2025-11-27 basic.ptlog

# ---- Damaged and incomplete logs --------------------------------------

# Without END the status is unknown, not made up; the filter is the last
# START's or FILTER's.
{ header 13; lines "$START" "$E1" "$E2" "$E3" "$E4" "$GAP" "$E7" "$E8" \
	"$FILTER" "$STOP" "$NO_STATUS" "$END_FILTER" \
	'# events: 9 read, 2 missing in 1 gaps'; } | expect
check incomplete 0 dump incomplete.ptlog

{ header 13; lines "$START" "$E1" "$E2" "$E3" "$E4" "$GAP" "$E7" \
	"$NO_STATUS" '# filter: 1 types app.debug' \
	'# events: 6 read, 2 missing in 1 gaps'; } | expect
echo "posixtrace dump: warning: cut.ptlog: $(offset cut.bytes) bytes not" \
	"read: cut short in the block at offset $(offset cut)" | expect_err
check cut 3 dump cut.ptlog

# export says the same, once, and exports what it read.
echo "posixtrace export: warning: cut.ptlog: $(offset cut.bytes) bytes not" \
	"read: cut short in the block at offset $(offset cut)" | expect_err
echo "6 events" | expect
check_sh export_cut 3 'rm -rf cut.ctf; "$0" export -o cut.ctf cut.ptlog
	rc=$?
	if command -v babeltrace2 >/dev/null; then
		n=$(babeltrace2 cut.ctf 2>/dev/null | wc -l)
	else
		n=$("$0" dump cut.ptlog 2>/dev/null | grep -vc "^#")
	fi
	echo "$n events"; exit $rc'

# A fork's child is named after its parent, however many threads there
# are: the export's table of threads grows while the fork is read (run
# under AddressSanitizer by make check's dump_tool_tests_asan).
echo "151 threads named sh" | expect
check_sh export_chrome_many_forks 0 '"$0" export --format=chrome -o - forks.ptlog |
	grep -c "\"thread_name\".*\"args\":{\"name\":\"sh\"}" | sed "s/$/ threads named sh/"'

# Every synthesized log, damaged ones too, through chrome-check.py: the
# format's rules, and dump --json event by event.
echo "every log agrees" | expect
check_sh chrome_check_every_log 0 'command -v python3 >/dev/null || { echo "every log agrees"; exit 0; }
	for f in *.ptlog; do
		POSIXTRACE="$0" python3 "'"$here"'/chrome-check.py" "$f" >/dev/null 2>chrome.err ||
			{ echo "$f:"; cat chrome.err; exit 1; }
	done
	echo "every log agrees"'

# The Chrome export of the same: the warning once, the events it read, and
# the file in place although the log is damaged (3); an existing file only
# with --force, and nothing left beside it.
echo "posixtrace export: warning: cut.ptlog: $(offset cut.bytes) bytes not" \
	"read: cut short in the block at offset $(offset cut)" | expect_err
printf '6 events\nrefused 1\n3 cut.json\n' | expect
check_sh export_chrome_cut 3 'rm -f cut.json; "$0" export --format=chrome -o cut.json cut.ptlog
	rc=$?
	grep -c "\"ts_sec\"" cut.json | sed "s/$/ events/"
	"$0" export --format=chrome -o cut.json cut.ptlog 2>/dev/null
	echo "refused $?"
	"$0" export --format=chrome --force -o cut.json cut.ptlog 2>/dev/null
	echo "$? $(ls cut.json*)"; exit $rc'

# view: every synthesized log makes a whole page (its three parts
# filled, its data decodable: the browser test in make check reads them),
# damaged logs as far as they read (3); an existing file only with
# --force; usage errors.
echo "every log makes a page" | expect
check_sh view_every_log 0 'for f in *.ptlog; do
		"$0" view -f -o page.html "$f" 2>/dev/null
		rc=$?
		[ $rc = 0 ] || [ $rc = 3 ] || { echo "$f: status $rc"; exit 1; }
		grep -q "@META@\|@ROWS@\|@ARGS@" page.html && { echo "$f: a part unfilled"; exit 1; }
		grep -c "<script" page.html | grep -qx 4 || { echo "$f: scripts"; exit 1; }
	done
	echo "every log makes a page"'
echo "posixtrace view: warning: cut.ptlog: $(offset cut.bytes) bytes not" \
	"read: cut short in the block at offset $(offset cut)" | expect_err
printf 'refused 1\n3 cut.html\n' | expect
check_sh view_cut 3 'rm -f cut.html; "$0" view -o cut.html cut.ptlog
	rc=$?
	"$0" view -o cut.html cut.ptlog 2>/dev/null
	echo "refused $?"
	"$0" view --force -o cut.html cut.ptlog 2>/dev/null
	echo "$? $(ls cut.html*)"; exit $rc'
printf "posixtrace view: no output: -o FILE is required\nTry 'posixtrace view --help'.\n" | expect_err
check view_no_output 2 view basic.ptlog
printf "posixtrace view: one LOG at a time\nTry 'posixtrace view --help'.\n" | expect_err
check view_two_logs 2 view -o x.html basic.ptlog cut.ptlog
printf "posixtrace view: notalog.txt: not a readable trace log: Invalid argument\n" | expect_err
check view_not_a_log 1 view -o x.html notalog.txt

head -n 6 <<'EOF' | expect
{"ts": "1764122400.123456789", "ts_sec": 1764122400, "ts_nsec": 123456789, "time": "2025-11-26T02:00:00.123456789Z", "event": "posix_trace_start", "id": 1, "system": "START", "meaning": "tracing started", "pid": 0, "tid": 0, "thread": "0x0", "prog_address": "0x0", "seq": 0, "gap": 0, "truncated": false, "truncation": "no", "data_len": 144, "data_encoding": "hex", "data": "000000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000", "filter": ["app.debug"]}
{"ts": "1764122400.123706789", "ts_sec": 1764122400, "ts_nsec": 123706789, "time": "2025-11-26T02:00:00.123706789Z", "event": "app.step", "id": 65, "system": null, "meaning": null, "pid": 4242, "tid": 4242, "thread": "0x7f0000000001", "prog_address": "0x400001", "seq": 1, "gap": 0, "truncated": false, "truncation": "no", "data_len": 15, "data_encoding": "text", "data": "hello \"world\"\n\u0000"}
{"ts": "1764122400.623456789", "ts_sec": 1764122400, "ts_nsec": 623456789, "time": "2025-11-26T02:00:00.623456789Z", "event": "app.bin", "id": 66, "system": null, "meaning": null, "pid": 4242, "tid": 4243, "thread": "0x7f0000000002", "prog_address": "0x400002", "seq": 2, "gap": 0, "truncated": false, "truncation": "no", "data_len": 4, "data_encoding": "hex", "data": "0001feff"}
{"ts": "1764122401.123456789", "ts_sec": 1764122401, "ts_nsec": 123456789, "time": "2025-11-26T02:00:01.123456789Z", "event": "net.recv", "id": 68, "system": null, "meaning": null, "pid": 4242, "tid": 4243, "thread": "0x7f0000000003", "prog_address": "0x400003", "seq": 3, "gap": 0, "truncated": false, "truncation": "no", "data_len": 0, "data_encoding": "text", "data": ""}
{"ts": "1764122401.623456789", "ts_sec": 1764122401, "ts_nsec": 623456789, "time": "2025-11-26T02:00:01.623456789Z", "event": "app.step", "id": 65, "system": null, "meaning": null, "pid": 4300, "tid": 4301, "thread": "0x7f0000000004", "prog_address": "0x400004", "seq": 4, "gap": 0, "truncated": false, "truncation": "no", "data_len": 34, "data_encoding": "text", "data": "a payload longer than the 32 shown"}
{"ts": "1764122402.373456789", "ts_sec": 1764122402, "ts_nsec": 373456789, "time": "2025-11-26T02:00:02.373456789Z", "event": "app.step", "id": 65, "system": null, "meaning": null, "pid": 4300, "tid": 4302, "thread": "0x7f0000000007", "prog_address": "0x400007", "seq": 7, "gap": 2, "truncated": false, "truncation": "no", "data_len": 3, "data_encoding": "text", "data": "x\ty"}
EOF
echo "posixtrace dump: warning: cut.ptlog: $(offset cut.bytes) bytes not" \
	"read: cut short in the block at offset $(offset cut)" | expect_err
check cut_json 3 dump --json cut.ptlog

# The bad record ends its block: seq 2 to 4 are lost, and show in the gap.
{ header 13; lines "$START" "$E1" '# gap: 5 events missing before seq 7' \
	"$E7" "$E8" "$FILTER" "$STOP" "$STATUS" "$END_FILTER" \
	'# events: 6 read, 5 missing in 1 gaps'; } | expect
echo "posixtrace dump: warning: damaged.ptlog: $(offset damaged.bytes) bytes" \
	"not read: a bad record at offset $(offset damaged)" | expect_err
check bad_record 3 dump damaged.ptlog

# Filtered or not, the warning is the log's.
filtered "$E1" '# gap: 5 events missing before seq 7'
sed -i 's/9 read, 1 shown, 2 missing/6 read, 1 shown, 5 missing/' want.out
echo "posixtrace dump: warning: damaged.ptlog: $(offset damaged.bytes) bytes" \
	"not read: a bad record at offset $(offset damaged)" | expect_err
check bad_record_filtered 3 dump -p 4242 damaged.ptlog

{ header 13; lines "$START" "$E1" "$E2" "$E3" "$E4" "$NO_STATUS" \
	'# filter: 1 types app.debug' '# events: 5 read, 0 missing in 0 gaps'
} | expect
echo "posixtrace dump: warning: badblock.ptlog: $(offset badblock.bytes)" \
	"bytes not read: a bad block header at offset $(offset badblock)" |
	expect_err
check bad_block 3 dump badblock.ptlog

{ header 10 LOOP; cat <<'EOF'
2025-11-26T02:00:00.123456789Z posix_trace_start pid=0 tid=0 thread=0x0 seq=0 addr=0x0 trunc=no len=144 data={?70,?71,?72,?73,?74,?75,?76,?77,...} (filter: 10 types)
2025-11-26T02:00:00.123457789Z app.step pid=4242 tid=4242 thread=0x7f0000000001 seq=1 addr=0x400001 trunc=no len=3 data="one"
2025-11-26T02:00:00.123458789Z app.step pid=4242 tid=4242 thread=0x7f0000000002 seq=2 addr=0x400002 trunc=no len=3 data="two"
# status: unknown: the log has no END block (its writer did not finish it)
# filter: 10 types ?70 ?71 ?72 ?73 ?74 ?75 ?76 ?77 ...
# events: 3 read, 0 missing in 0 gaps
EOF
} | expect
echo "posixtrace dump: warning: slots.ptlog: $(offset slots.cut_bytes) bytes" \
	"not read: cut short in the block at offset $(offset slots.cut)" | expect_err
check slots_cut 3 dump slots.ptlog

{ header 10 LOOP; cat <<'EOF'
2025-11-26T02:00:00.123456789Z posix_trace_start pid=0 tid=0 thread=0x0 seq=0 addr=0x0 trunc=no len=144 data={?70,?71,?72,?73,?74,?75,?76,?77,?78,?79} (filter: 10 types)
EOF
echo '# status: unknown: the log has no END block (its writer did not finish it)'
echo '# filter: 10 types ?70 ?71 ?72 ?73 ?74 ?75 ?76 ?77 ...'
echo '# events: 3 read, 1 shown, 0 missing in 0 gaps'
} | expect
echo "posixtrace dump: warning: slots.ptlog: $(offset slots.cut_bytes) bytes" \
	"not read: cut short in the block at offset $(offset slots.cut)" | expect_err
check slots_full_set 3 dump -x -e posix_trace_start slots.ptlog

# Every prefix of basic.ptlog past its header, as a crash may leave it:
# one ending between blocks is a shorter log (0, no warning); any other
# is cut short (3, one warning saying so).
prefixes() {
	local size len rc bad=0
	size=$(wc -c <basic.ptlog)
	for ((len = $(offset boundary | head -n 1); len <= size; len += 4)); do
		head -c "$len" basic.ptlog >prefix.ptlog
		"$tool" dump prefix.ptlog >/dev/null 2>prefix.err
		rc=$?
		if grep -qx "boundary $len" offsets; then
			[ $rc = 0 ] && [ ! -s prefix.err ] && continue
		else
			[ $rc = 3 ] && [ "$(grep -c . prefix.err)" = 1 ] &&
				grep -q ' bytes not read: cut short in the block at offset ' \
					prefix.err && continue
		fi
		echo "prefix of $len bytes: status $rc: $(cat prefix.err)"
		bad=1
	done
	return $bad
}
run every_prefix 0 prefixes

echo 'posixtrace dump: notalog.txt: not a readable trace log: Invalid argument' |
	expect_err
check not_a_log 1 dump notalog.txt

echo 'posixtrace dump: missing.ptlog: No such file or directory' | expect_err
check missing_log 1 dump missing.ptlog

# ---- Usage errors: one line, the hint, 2 ------------------------------

usage_case no_log 'no LOG given'
usage_case two_logs 'one LOG at a time' basic.ptlog basic.ptlog
printf '%s\n' "posixtrace dump: unrecognized option '--bogus'" \
	"Try 'posixtrace dump --help'." | expect_err
check usage.unknown_option 2 dump --bogus basic.ptlog
printf '%s\n' "posixtrace dump: option requires an argument -- 'e'" \
	"Try 'posixtrace dump --help'." | expect_err
check usage.missing_argument 2 dump basic.ptlog -e
usage_case empty_glob "--event '': empty event pattern" -e '' basic.ptlog
usage_case open_bracket "--event 'app.[ab': '[' without ']' in pattern" \
	-e 'app.[ab' basic.ptlog
usage_case bad_class "--event '[[:nope:]]': unknown character class in pattern" \
	-e '[[:nope:]]' basic.ptlog
usage_case trailing_backslash "--event 'app\\': pattern ends with '\\'" \
	-e 'app\' basic.ptlog
usage_case bad_pid "--pid '12x': not a process or thread id (0 to 2147483647)" \
	-p 12x basic.ptlog
usage_case negative_pid "--pid '-1': not a process or thread id (0 to 2147483647)" \
	--pid=-1 basic.ptlog
usage_case empty_in_list "--pid '1,,2': not a process or thread id (0 to 2147483647)" \
	-p 1,,2 basic.ptlog
usage_case huge_tid "--tid '2147483648': not a process or thread id (0 to 2147483647)" \
	-t 2147483648 basic.ptlog
usage_case bad_unit "--since '+1.5xs': unknown unit (ns, us, ms, s, m, min or h)" \
	--since +1.5xs basic.ptlog
usage_case bad_epoch "--since '17x': trailing characters after the seconds" \
	--since 17x basic.ptlog
usage_case ten_decimals "--until '1.0123456789': more than nine decimals" \
	--until 1.0123456789 basic.ptlog
usage_case bad_date "--since '2025-02-29T00:00:00': no such date" \
	--since 2025-02-29T00:00:00 basic.ptlog
usage_case bad_time "--until '2025-11-26T24:00:00': time of day out of range" \
	--until 2025-11-26T24:00:00 basic.ptlog
usage_case bad_zone "--since '2025-11-26T02:00:00+1': a time zone offset is +hh:mm or -hh:mm" \
	--since 2025-11-26T02:00:00+1 basic.ptlog
usage_case no_number "--since '+ms': a number must start with a digit" \
	--since +ms basic.ptlog
usage_case empty_time "--until '': a number must start with a digit" \
	--until '' basic.ptlog
usage_case since_after_until '--since is after --until' \
	--since +2 --until +1 basic.ptlog
usage_case relative_and_delta '--relative and --delta exclude each other' \
	-r -d basic.ptlog

printf 'usage: posixtrace dump [OPTIONS] LOG\n' | expect
check_sh help_first_line 0 '"$0" dump --help | head -n 1'

# ---- Event formats ----------------------------------------------------

# typed.ptlog: fields shown by each type's format; data that does not
# match it (too short, a str without NUL, bytes left over, truncated)
# shown as before, with why; a damaged format ignored (bytes, as a type
# without one); escapes in str; 64-bit extremes; floats round-trip.
TYPED_LINES=$(cat <<'EOF'
2025-11-26T02:00:00.123457789Z app.job pid=4242 tid=4242 thread=0x7f0000000000 seq=0 addr=0x400000 trunc=no len=19 data={pid=4242, ms=12.5, name="resize"}
2025-11-26T02:00:00.123458789Z app.job pid=4242 tid=4242 thread=0x7f0000000001 seq=1 addr=0x400001 trunc=no len=7 data=92100000000000 (does not match its format: data ends inside field ms)
2025-11-26T02:00:00.123459789Z app.job pid=4242 tid=4242 thread=0x7f0000000002 seq=2 addr=0x400002 trunc=no len=18 data=921000000000000000002940726573697a65 (does not match its format: no NUL ends str field name)
2025-11-26T02:00:00.123460789Z app.job pid=4242 tid=4242 thread=0x7f0000000003 seq=3 addr=0x400003 trunc=no len=20 data=921000000000000000002940726573697a65002a (does not match its format: bytes left after the last field)
2025-11-26T02:00:00.123461789Z app.job pid=4242 tid=4242 thread=0x7f0000000004 seq=4 addr=0x400004 trunc=record len=10 data=92100000000000000000 (truncated: not decoded by its format)
2025-11-26T02:00:00.123462789Z app.all pid=4242 tid=4243 thread=0x7f0000000005 seq=5 addr=0x400005 trunc=no len=44 data={a=255, b=65535, c=4294967295, d=18446744073709551615, e=-128, f=-2, g=-2147483648, h=-9223372036854775808, i=0.1, j=1234.56789012345, k=dead}
2025-11-26T02:00:00.123463789Z app.damaged pid=4242 tid=4243 thread=0x7f0000000006 seq=6 addr=0x400006 trunc=no len=1 data=07
2025-11-26T02:00:00.123464789Z app.esc pid=4242 tid=4243 thread=0x7f0000000007 seq=7 addr=0x400007 trunc=no len=12 data={s="say \"hi\"\n\x01\xff", rest=}
EOF
)
{ header 13; printf '%s\n' "$TYPED_LINES"; lines "$STATUS" \
	'# filter: 0 types' '# events: 8 read, 0 missing in 0 gaps'; } | expect
check typed_text 0 dump typed.ptlog

# Without TYPES the formats come from the DEFINE entries.
{ header 13; printf '%s\n' "$TYPED_LINES"; lines "$NO_STATUS" \
	'# filter: unknown' '# events: 8 read, 0 missing in 0 gaps'; } | expect
check typed_incomplete 0 dump typed-incomplete.ptlog

# --hex shows every payload as bytes, fields or not.
lines '2025-11-26T02:00:00.123464789Z app.esc pid=4242 tid=4243 thread=0x7f0000000007 seq=7 addr=0x400007 trunc=no len=12 data=73617920226869220a01ff00' | expect
check_sh typed_hex 0 '"$0" dump --hex -e app.esc typed.ptlog | grep -v "^#"'

# --json: "format", then "fields" (64-bit integers as strings), or null
# and "fields_error".
cat <<'EOF' | expect
{"ts": "1764122400.123462789", "ts_sec": 1764122400, "ts_nsec": 123462789, "time": "2025-11-26T02:00:00.123462789Z", "event": "app.all", "id": 66, "system": null, "meaning": null, "pid": 4242, "tid": 4243, "thread": "0x7f0000000005", "prog_address": "0x400005", "seq": 5, "gap": 0, "truncated": false, "truncation": "no", "data_len": 44, "data_encoding": "hex", "data": "ffffffffffffffffffffffffffffff80feff000000800000000000000080cdcccc3dc20ffd84454a9340dead", "format": "a:u8,b:u16,c:u32,d:u64,e:s8,f:s16,g:s32,h:s64,i:f32,j:f64,k:bytes", "fields": {"a": 255, "b": 65535, "c": 4294967295, "d": "18446744073709551615", "e": -128, "f": -2, "g": -2147483648, "h": "-9223372036854775808", "i": 0.1, "j": 1234.56789012345, "k": "dead"}}
{"ts": "1764122400.123464789", "ts_sec": 1764122400, "ts_nsec": 123464789, "time": "2025-11-26T02:00:00.123464789Z", "event": "app.esc", "id": 68, "system": null, "meaning": null, "pid": 4242, "tid": 4243, "thread": "0x7f0000000007", "prog_address": "0x400007", "seq": 7, "gap": 0, "truncated": false, "truncation": "no", "data_len": 12, "data_encoding": "hex", "data": "73617920226869220a01ff00", "format": "s:str,rest:bytes", "fields": {"s": "say \"hi\"\n\u0001\ufffd", "rest": ""}}
EOF
check typed_json 0 dump --json -e 'app.[ae]*' typed.ptlog

# export: a typed event class per type with a format, which babeltrace2
# prints as fields; events that do not match go to a raw class of the
# same name. bt2-compare.sh checks the whole trace against dump. Without
# babeltrace2 (or bt2-compare.sh's skip, 4) the cases say "skipped".
if command -v babeltrace2 >/dev/null; then
	lines '{ pid = 4242, ms = 12.5, name = "resize" }' \
		'data_len = 7, data = [ [0] = 0x92, [1] = 0x10, [2] = 0x0, [3] = 0x0, [4] = 0x0, [5] = 0x0, [6] = 0x0 ] }' \
		'{ a = 255, b = 65535, c = 4294967295, d = 18446744073709551615, e = -128, f = -2, g = -2147483648, h = -9223372036854775808, i = 0.1, j = 1234.57, k = [ [0] = 0xDE, [1] = 0xAD ] }' |
		expect
else
	echo skipped | expect
fi
check_sh typed_export_babeltrace2 0 'command -v babeltrace2 >/dev/null || { echo skipped; exit 0; }
	"$0" export -o typed.ctf typed.ptlog &&
	babeltrace2 typed.ctf 2>&1 | sed -n "1s/.*}, { truncation = .* }, //p; 2s/.*prog_address = 0x[0-9A-F]*, //p; 6s/.*}, { truncation = .* }, //p"'
echo ok | expect
check_sh typed_bt2_compare 0 'for f in typed.ptlog typed-incomplete.ptlog; do
		"$(dirname "$0")"/tests/bt2-compare.sh "$f" >/dev/null 2>bt2.err
		case $? in 0) ;; 4) ;; *) cat bt2.err; exit 1 ;; esac
	done; echo ok'

# ---- The whole tool's conventions -------------------------------------

printf '%s\n' 'posixtrace: no command given' "Try 'posixtrace --help'." |
	expect_err
check top.no_command 2

printf '%s\n' "posixtrace: unknown command 'dumb'" \
	"Try 'posixtrace --help'." | expect_err
check top.unknown_command 2 dumb basic.ptlog

printf '%s\n' "posixtrace: unknown option '--verbose'" \
	"Try 'posixtrace --help'." | expect_err
check top.unknown_option 2 --verbose

printf '%s\n' "posixtrace: unknown command 'dumb'" \
	"Try 'posixtrace --help'." | expect_err
check top.help_unknown 2 help dumb

printf '%s\n' "posixtrace: unexpected argument 'x'" \
	"Try 'posixtrace --help'." | expect_err
check top.version_argument 2 --version x

usage_case bad_colour "bad --color 'blue': auto, always or never" \
	--color blue basic.ptlog

# --color takes auto, always or never; anything else is a usage error,
# found before the module is asked.
printf '%s\n' "posixtrace list: bad --color 'blue': auto, always or never" \
	"Try 'posixtrace list --help'." | expect_err
check top.bad_colour 2 list --color blue

# The package's version first, then the module's ABI if it is loaded.
echo ok | expect
check_sh top.version 0 '"$0" --version | head -n 1 |
	grep -qx "posixtrace [0-9][0-9.]*" && echo ok'

# ---- Kernel events ---------------------------------------------------

# kernel.ptlog: a script's forks, execs, exits and signals among its own
# events, with a gap. trace's lines for it, exactly, line by line (trace
# --replay prints them as a live trace does; local time, so TZ=UTC).
expect <<'EOF'
[pid  1000] 02:00:00.124456 exec "/bin/sh" ["sh", "script.sh"] (comm sh)
[pid  1000] 02:00:00.125456 app.begin {step=1, ms=1.5}
[pid  1000] 02:00:00.126456 fork -> pid 1001
[pid  1001] 02:00:00.127456 exec "/usr/bin/env" ["env", "ls", "-l"] (comm env)
[pid  1001] 02:00:00.128456 exec "/bin/ls" ["ls", "-l"] (comm ls)
[pid  1001] 02:00:00.129456 +++ exited with 0 +++
[pid  1000] 02:00:00.130456 --- SIGCHLD {code=CLD_EXITED, sender=1001} ---
[pid  1000] 02:00:00.131456 --- SIGCHLD delivered {code=CLD_EXITED, action=default} ---
[pid  1000] 02:00:00.132456 vfork -> pid 1002
[pid  1002] 02:00:00.133456 exec "/bin/cat" ["cat", "a", "a-name-the-kernel-cut"..., "c", ...] (comm cat)
[pid  1002] 02:00:00.134456 clone(CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID) -> tid 1003
[pid  1002/1003] 02:00:00.135456 app.note "hello\0"
[pid  1002/1003] 02:00:00.136456 +++ thread exited with 0 +++
[pid  1000] 02:00:00.137456 --- SIGUSR1 {code=SI_USER, sender=1000} ---
[pid  1000] 02:00:00.138456 --- SIGUSR1 delivered {code=SI_USER, action=handler} ---
[pid  1000] 02:00:00.139456 fork -> pid 1004
[pid  1002] 02:00:00.140456 --- SIGKILL {code=SI_USER, sender=1000} ---
[pid  1002] 02:00:00.141456 +++ killed by SIGKILL +++
# 02:00:00.144456 lost 2 events
[pid  1004] 02:00:00.144456 +++ killed by SIGSEGV (core dumped) +++
[pid  1000] 02:00:00.145456 --- SIGTERM {code=SI_KERNEL, sender=0, thread, result=ignored} ---
[pid  1000] 02:00:00.146456 --- SIGUSR1 {code=SI_TKILL, sender=1000, thread, result=already_pending} ---
[pid  1000] 02:00:00.147456 +++ exited with 3 +++
EOF
check_sh trace_replay 0 'TZ=UTC "$0" trace --replay kernel.ptlog'

# In colour only when asked: exits green or red, signals yellow, the
# loss red (13 lines), user event names bold (2): two escapes each.
echo 30 | expect
check_sh trace_replay_colour 0 'TZ=UTC "$0" trace --replay kernel.ptlog \
	--color always | tr -cd "\033" | wc -c'

# dump decodes them after their fields: signal and si_code names, clone
# flags, exit statuses, the argv (a cut argument followed by ...).
expect <<'EOF'
{} (filter: 0 types)
{argc=2, cut=0, path="/bin/sh", comm="sh", argv0="sh", argv1="script.sh", argv2="", argv3=""} ("/bin/sh" ["sh", "script.sh"], comm sh)
{step=1, ms=1.5}
{pid=1001, tid=1001, flags=17, thread=0} (process 1001, flags SIGCHLD)
{argc=3, cut=0, path="/usr/bin/env", comm="env", argv0="env", argv1="ls", argv2="-l", argv3=""} ("/usr/bin/env" ["env", "ls", "-l"], comm env)
{argc=2, cut=0, path="/bin/ls", comm="ls", argv0="ls", argv1="-l", argv2="", argv3=""} ("/bin/ls" ["ls", "-l"], comm ls)
{status=0, signal=0, core=0, process=1} (process exited 0)
{sig=17, code=1, sender=1001, result=0, group=1} (SIGCHLD, CLD_EXITED, from pid 1001, to the process, queued)
{sig=17, code=1, action=0} (SIGCHLD, CLD_EXITED, default)
{pid=1002, tid=1002, flags=16657, thread=0} (process 1002, flags CLONE_VM|CLONE_VFORK|SIGCHLD)
{argc=6, cut=8, path="/bin/cat", comm="cat", argv0="cat", argv1="a", argv2="a-name-the-kernel-cut", argv3="c"} ("/bin/cat" ["cat", "a", "a-name-the-kernel-cut"..., "c", ...], comm cat)
{pid=1002, tid=1003, flags=4001536, thread=1} (thread 1003, flags CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID)
"hello\0"
{status=0, signal=0, core=0, process=0} (thread exited 0)
{sig=10, code=0, sender=1000, result=0, group=1} (SIGUSR1, SI_USER, from pid 1000, to the process, queued)
{sig=10, code=0, action=2} (SIGUSR1, SI_USER, handler)
{pid=1004, tid=1004, flags=17, thread=0} (process 1004, flags SIGCHLD)
{sig=9, code=0, sender=1000, result=0, group=1} (SIGKILL, SI_USER, from pid 1000, to the process, queued)
{status=-1, signal=9, core=0, process=1} (process killed by SIGKILL)
{status=-1, signal=11, core=1, process=1} (process killed by SIGSEGV (core dumped))
{sig=15, code=128, sender=0, result=1, group=0} (SIGTERM, SI_KERNEL, from pid 0, to the thread, ignored)
{sig=10, code=-6, sender=1000, result=2, group=0} (SIGUSR1, SI_TKILL, from pid 1000, to the thread, already_pending)
{status=3, signal=0, core=0, process=1} (process exited 3)
00000000 (stop: 0, posix_trace_stop)
EOF
check_sh dump_kernel 0 '"$0" dump kernel.ptlog | grep -v "^#" | sed "s/.*data=//"'

# JSON keeps the numbers in "fields" and names them beside.
expect <<'EOF'
{"sig": 17, "code": 1, "sender": 1001, "result": 0, "group": 1}, "sig_name": "SIGCHLD", "code_name": "CLD_EXITED", "result_name": "queued"}
{"sig": 17, "code": 1, "action": 0}, "sig_name": "SIGCHLD", "code_name": "CLD_EXITED", "action_name": "default"}
{"sig": 10, "code": 0, "sender": 1000, "result": 0, "group": 1}, "sig_name": "SIGUSR1", "code_name": "SI_USER", "result_name": "queued"}
{"sig": 10, "code": 0, "action": 2}, "sig_name": "SIGUSR1", "code_name": "SI_USER", "action_name": "handler"}
{"sig": 9, "code": 0, "sender": 1000, "result": 0, "group": 1}, "sig_name": "SIGKILL", "code_name": "SI_USER", "result_name": "queued"}
{"sig": 15, "code": 128, "sender": 0, "result": 1, "group": 0}, "sig_name": "SIGTERM", "code_name": "SI_KERNEL", "result_name": "ignored"}
{"sig": 10, "code": -6, "sender": 1000, "result": 2, "group": 0}, "sig_name": "SIGUSR1", "code_name": "SI_TKILL", "result_name": "already_pending"}
EOF
check_sh dump_kernel_json 0 '"$0" dump -j -e "posixtrace_signal*" kernel.ptlog |
	sed "s/.*\"fields\": //"'

# The process tree: commands of the last exec (a fork without exec keeps
# its parent's), exit statuses, threads; what the gap may hide.
expect <<'EOF'
1000 sh (exited 3)
|-- 1001 ls (exited 0)
|-- 1002 cat [+1 thread] (killed by SIGKILL)
`-- 1004 sh (killed by SIGSEGV (core dumped))
# 2 events missing from the log: processes or exits may be too
EOF
check dump_tree 0 dump --tree kernel.ptlog

# Chosen by pid like the events; a log without kernel events says so.
expect <<'EOF'
1002 cat [+1 thread] (killed by SIGKILL)
# 2 events missing from the log: processes or exits may be too
EOF
check dump_tree_pid 0 dump --tree -p 1002 kernel.ptlog
expect <<'EOF'
# no fork, exec or exit event: the processes of the events, unrelated (record with --kernel=proc)
4242 (no exit seen)
4300 (no exit seen)
# 2 events missing from the log: processes or exits may be too
EOF
check dump_tree_no_kernel 0 dump --tree basic.ptlog
usage_case tree_json '--tree prints no events: --json, --relative, --delta, --hex and --full-data do not apply' \
	--tree --json kernel.ptlog

# trace's and record's usage errors, found before the module is asked.
printf '%s\n' "posixtrace trace: bad --kernel 'proc,sched2' (proc, signal, syscall, sched, a comma list of them, all or none)" \
	"Try 'posixtrace trace --help'." | expect_err
check trace.bad_kernel 2 trace --kernel=proc,sched2 -- true
printf '%s\n' "posixtrace record: bad --kernel '' (proc, signal, syscall, sched, a comma list of them, all or none)" \
	"Try 'posixtrace record --help'." | expect_err
check record.bad_kernel 2 record -o x.ptlog --kernel= -- true
printf '%s\n' "posixtrace trace: give one of COMMAND, -p PID and --replay LOG" \
	"Try 'posixtrace trace --help'." | expect_err
check trace.two_sources 2 trace -p 1 -- true
printf '%s\n' "posixtrace trace: --replay prints the log as it is: -e, --kernel, --syscalls and -s are for a live trace (posixtrace dump -e chooses events of a log)" \
	"Try 'posixtrace trace --help'." | expect_err
check trace.replay_select 2 trace --replay kernel.ptlog -e 'app.*'

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
