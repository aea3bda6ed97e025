#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: bt2-compare.sh LOG
# Checks "posixtrace export" against "posixtrace dump" on the trace log LOG.
#
# Dumps LOG, exports it as CTF, reads the CTF back with babeltrace2, and
# checks that babeltrace2 shows the dump's events one for one (time to the
# nanosecond as wall-clock UTC, name, pid, tid, thread, seq, prog address,
# truncation, data length, every data byte) and reports discarded events
# exactly where, and as many as, the dump's sequence numbers skip.
#
# Exit status: 0 all match; 1 a difference (printed as a diff, dump side
# "-", babeltrace2 side "+"), or dump, export or babeltrace2 failed;
# 2 usage; 4 babeltrace2 is not installed (kselftest's "skip").
#
# Environment: POSIXTRACE, the tool (default: ../posixtrace beside this
# script); BABELTRACE2, the reader (default: babeltrace2 from PATH);
# KEEP=1 keeps the work directory and says where it is.

set -u

usage() {
	sed -n '4,19s/^# \{0,1\}//p' "$0"
}
case $#:${1:-} in
1:-h | 1:--help) usage; exit 0 ;;
1:*) ;;
*) usage >&2; exit 2 ;;
esac
log=$1
tool=${POSIXTRACE:-$(dirname "$0")/../posixtrace}
bt2=${BABELTRACE2:-babeltrace2}

if ! command -v "$bt2" >/dev/null; then
	echo "bt2-compare: SKIP: $bt2 not found (Debian: apt-get install babeltrace2)" >&2
	exit 4
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bt2-compare.XXXXXX") || exit 1
if [ "${KEEP:-0}" = 1 ]; then
	echo "bt2-compare: work directory $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi

fail() {
	echo "bt2-compare: $log: $*" >&2
	exit 1
}

# Payloads in hex, as babeltrace2 shows them. A damaged log (status 3)
# is compared as far as both read it.
"$tool" dump --hex --full-data "$log" >"$work/dump.txt" 2>"$work/dump.err"
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] ||
	fail "posixtrace dump failed: $(tail -n 12 "$work/dump.err")"
"$tool" export -o "$work/ctf" "$log" 2>"$work/export.err" ||
	fail "posixtrace export failed: $(tail -n 12 "$work/export.err")"

# Events, one per line, times as UTC dates; discarded events go to stderr.
"$bt2" --clock-gmt --clock-date --no-delta "$work/ctf" \
	>"$work/pretty.txt" 2>"$work/pretty.err" ||
	fail "babeltrace2 failed: $(tail -n 12 "$work/pretty.err")"
# Every message in order, one per line: where each discard sits.
"$bt2" "$work/ctf" -c sink.text.details \
	--params='with-metadata=false,compact=true,color="never"' \
	>"$work/order.txt" 2>"$work/order.err" ||
	fail "babeltrace2 (details) failed: $(tail -n 12 "$work/order.err")"

# The dump as the CTF trace should show it: the event lines' first ten
# fields (the rest decodes system events), "gap N" before an event that
# follows a gap. An event stamped before the one preceding it takes that
# event's time in CTF, whose readers need time to go forward.
awk '
	/^# gap: / { print "gap " $3; next }
	/^#/ { next }
	{
		if ($1 < last)
			$1 = last
		last = $1
		print $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
	}' "$work/dump.txt" >"$work/expected.txt"

# babeltrace2's view in the same form. It prints the trace's hostname
# (export writes the exporting machine's) before each event's name.
host=$(sed -n 's/^\thostname = "\(.*\)";$/\1/p' "$work/ctf/metadata")
awk -v host="$host" '
	FNR == 1 { file++ }
	# order.txt: count the events; note the discards before each. (Its
	# muxer already fails on time going back, packet bounds included.)
	file == 1 && / Event `/ { n++; next }
	file == 1 && / Discarded events \(/ {
		s = $0
		sub(/.* Discarded events \(/, "", s)
		sub(/ events?\).*/, "", s)
		gsub(/,/, "", s)
		# Kept as text: awk numbers lose digits past 2^53.
		if ((n + 1) in gap)
			s = gap[n + 1] "+" s
		gap[n + 1] = s
		next
	}
	file == 1 && / Discarded packets / { print "unexpected: " $0; next }
	file == 1 { next }
	# pretty.txt: one event per line.
	function field(re, s) {
		if (!match(body, re))
			return "?"
		s = substr(body, RSTART, RLENGTH)
		sub(/^[^=]*= /, "", s)
		return s
	}
	{
		i++
		if (i in gap)
			print "gap " gap[i]
		t = substr($0, 2, index($0, "]") - 2)
		sub(/ /, "T", t)
		rest = substr($0, index($0, "] ") + 2)
		if (host != "" && index(rest, host " ") == 1)
			rest = substr(rest, length(host) + 2)
		name = substr(rest, 1, index(rest, ": { ") - 1)
		body = substr(rest, index(rest, ": { ") + 4)
		seq = field("seq = [0-9]+")
		if (seq == "18446744073709551615")
			seq = "?"
		tid = field("tid = -?[0-9]+")
		if (tid == "-1")
			tid = "?"
		c = field("container = -?[0-9]+")
		tr = c == 0 ? "no" : c == 1 ? "record" : c == 2 ? "read" : c
		data = ""
		if (match(body, /data = \[ .* \]/)) {
			d = substr(body, RSTART + 9, RLENGTH - 11)
			k = split(d, el, ", ")
			for (j = 1; j <= k; j++) {
				v = el[j]
				sub(/.*= 0x/, "", v)
				v = tolower(v)
				data = data (length(v) < 2 ? "0" v : v)
			}
		}
		print t "Z", name, "pid=" field("pid = -?[0-9]+"), "tid=" tid,
			"thread=" tolower(field("thread = 0x[0-9A-Fa-f]+")),
			"seq=" seq,
			"addr=" tolower(field("prog_address = 0x[0-9A-Fa-f]+")),
			"trunc=" tr, "len=" field("data_len = [0-9]+"),
			"data=" data
	}
	END {
		if ((i + 1) in gap)
			print "gap " gap[i + 1]
	}' "$work/order.txt" "$work/pretty.txt" >"$work/actual.txt"

# The warnings babeltrace2 prints must name the same counts.
want=$(sed -n 's/^gap //p' "$work/expected.txt")
warned=$(sed -n 's/^WARNING: Tracer discarded \([0-9,]*\) events\{0,1\} .*/\1/p' \
	"$work/pretty.err" | tr -d ,)

events=$(grep -vc '^gap ' "$work/expected.txt")
if ! diff -u --label "dump $log" --label "babeltrace2 $log" \
	"$work/expected.txt" "$work/actual.txt" >"$work/diff.txt"; then
	head -n 60 "$work/diff.txt"
	[ "$(wc -l <"$work/diff.txt")" -gt 60 ] && echo "... (diff cut at 60 lines)"
	fail "babeltrace2 differs from dump"
fi
[ "$want" = "$warned" ] ||
	fail "babeltrace2 warned of discarded events ($(echo "$warned" |
		paste -sd ' ')), the dump has gaps ($(echo "$want" | paste -sd ' '))"
gaps=$(echo "$want" | grep -c .)
clamped=$(sed -n 's/.*warning: \([0-9]*\) events are stamped before.*/\1/p' \
	"$work/export.err")
echo "bt2-compare: $log: OK: $events events, $gaps gaps${clamped:+,}" \
	"${clamped:+$clamped stamped back by a clock step}" | sed 's/ *$//'
exit 0
