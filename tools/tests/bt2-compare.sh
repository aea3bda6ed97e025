#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: bt2-compare.sh LOG
# Checks "posixtrace export" against "posixtrace dump" on the trace log LOG.
#
# Dumps LOG, exports it as CTF, reads the CTF back with babeltrace2, and
# checks that babeltrace2 shows the dump's events one for one (time to the
# nanosecond as wall-clock UTC, name, pid, tid, thread, seq, prog address,
# truncation, data length, every data byte, or every field of an event
# shown by its type's format, floats to babeltrace2's 6 digits) and
# reports discarded events exactly where, and as many as, the dump's
# sequence numbers skip.
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
	sed -n '4,21s/^# \{0,1\}//p' "$0"
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
# Fields as dump shows them, for the events of a type with a format.
"$tool" dump --full-data "$log" >"$work/fields.txt" 2>/dev/null
"$tool" export -o "$work/ctf" "$log" 2>"$work/export.err"
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] ||
	fail "posixtrace export failed: $(tail -n 12 "$work/export.err")"
# Dump and export say the same of a damaged log, and end with the same
# status.
dump_warned=$(grep -o 'warning: .* bytes not read: .*' "$work/dump.err")
export_warned=$(grep -o 'warning: .* bytes not read: .*' "$work/export.err")
[ "$dump_warned" = "$export_warned" ] ||
	fail "export warned '$export_warned', dump '$dump_warned'"

# Events, one per line, times as UTC dates; discarded events go to stderr.
"$bt2" --clock-gmt --clock-date --no-delta "$work/ctf" \
	>"$work/pretty.txt" 2>"$work/pretty.err" ||
	fail "babeltrace2 failed: $(tail -n 12 "$work/pretty.err")"
# Every message in order, one per line: where each discard sits.
"$bt2" "$work/ctf" -c sink.text.details \
	--params='with-metadata=false,compact=true,color="never"' \
	>"$work/order.txt" 2>"$work/order.err" ||
	fail "babeltrace2 (details) failed: $(tail -n 12 "$work/order.err")"

# The typed event classes' float fields, "CLASS FIELD" a line, from the
# metadata: babeltrace2 prints floats with 6 digits ("%g"), dump with
# as many as they need, so both are compared as "%g" gives them.
awk '
	/^event \{/ { name = "" }
	/^\tname = "/ { name = $0; sub(/^\tname = "/, "", name); sub(/";$/, "", name) }
	/floating_point/ { f = $NF; sub(/^_/, "", f); sub(/;$/, "", f); print name, f }
' "$work/ctf/metadata" >"$work/floats.txt"

# Typed fields in one form, "name=value,..." (awk, LC_ALL=C: bytes):
# strings as dump escapes them (babeltrace2 leaves bytes past ASCII
# raw), arrays of bytes as hex, floats as "%g".
fields_awk='
	BEGIN {
		for (byte = 128; byte < 256; byte++)
			hexof[sprintf("%c", byte)] = sprintf("\\x%02x", byte)
	}
	# The number of the file being read (empty files are never read).
	FILENAME != cur {
		cur = FILENAME
		for (file = 1; ARGV[file] != FILENAME; file++)
			;
	}
	file == 1 { isfloat[$1 SUBSEP $2] = 1; next }
	# s up to the brace that closes its first: what follows (dump decodes
	# kernel events there, "{sig=10, ...} (SIGUSR1, ...)") is not a field.
	function braced(s,    i, c, inq) {
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (inq && c == "\\")
				i++
			else if (c == "\"")
				inq = !inq
			else if (!inq && c == "}")
				return substr(s, 1, i)
		}
		return s
	}
	# s: "{a=1, s=\"x\"}" (dump) or "{ a = 1, s = \"x\" }" (babeltrace2).
	function norm_fields(class, s,    out, name, v, c, i, n, depth, el) {
		sub(/^\{ ?/, "", s)
		sub(/ ?\}$/, "", s)
		out = ""
		while (s != "") {
			i = index(s, "=")
			if (!i)
				return out "?" s
			name = substr(s, 1, i - 1)
			sub(/ $/, "", name)
			s = substr(s, i + 1)
			sub(/^ /, "", s)
			if (substr(s, 1, 1) == "\"") {
				# To the closing quote, escapes skipped.
				for (i = 2; i <= length(s); i++) {
					c = substr(s, i, 1)
					if (c == "\\")
						i++
					else if (c == "\"")
						break
				}
				v = ""
				for (n = 1; n <= i; n++) {
					c = substr(s, n, 1)
					v = v (c in hexof ? hexof[c] : c)
				}
				s = substr(s, i + 1)
			} else if (substr(s, 1, 1) == "[") {
				# babeltrace2: [ [0] = 0xDE, ... ] or [ ].
				depth = 0
				for (i = 1; i <= length(s); i++) {
					c = substr(s, i, 1)
					if (c == "[")
						depth++
					else if (c == "]" && !--depth)
						break
				}
				v = substr(s, 1, i)
				s = substr(s, i + 1)
				n = split(v, el, ", ")
				v = ""
				for (i = 1; i <= n; i++) {
					if (!match(el[i], /0x[0-9A-Fa-f]+/))
						continue
					c = tolower(substr(el[i], RSTART + 2, RLENGTH - 2))
					v = v (length(c) < 2 ? "0" c : c)
				}
			} else {
				i = index(s, ",")
				v = i ? substr(s, 1, i - 1) : s
				s = i ? substr(s, i) : ""
				if ((class SUBSEP name) in isfloat)
					v = sprintf("%g", v + 0)
			}
			sub(/^, ?/, "", s)
			out = out (out == "" ? "" : ",") name "=" v
		}
		return out
	}
'

# The dump as the CTF trace should show it: the event lines' first ten
# fields (the rest decodes system events), "gap N" before an event that
# follows a gap; for an event shown by its format, its fields (from the
# dump without --hex: the same lines). An event stamped before the one
# preceding it takes that event's time in CTF, whose readers need time
# to go forward.
LC_ALL=C awk "$fields_awk"'
	file == 2 && /^#/ { next }
	file == 2 {
		# " data={name=" after the name: fields; sets have no "=".
		if ($2 !~ /^posix_trace_/ && match($0, / data=\{[A-Za-z_][A-Za-z0-9_]*=/)) {
			typed[FNR] = norm_fields($2, braced(substr($0, RSTART + 6)))
		}
		next
	}
	/^# gap: / { print "gap " $3; next }
	/^#/ { next }
	{
		if ($1 < last)
			$1 = last
		last = $1
		if (FNR in typed)
			$10 = "data=" typed[FNR]
		print $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
	}' "$work/floats.txt" "$work/fields.txt" "$work/dump.txt" \
	>"$work/expected.txt"

# babeltrace2's view in the same form. It prints the trace's hostname
# (export writes the exporting machine's) before each event's name.
host=$(sed -n 's/^\thostname = "\(.*\)";$/\1/p' "$work/ctf/metadata")
LC_ALL=C awk -v host="$host" "$fields_awk"'
	# order.txt: count the events; note the discards before each. (Its
	# muxer already fails on time going back, packet bounds included.)
	file == 2 && / Event `/ { n++; next }
	file == 2 && / Discarded events \(/ {
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
	file == 2 && / Discarded packets / { print "unexpected: " $0; next }
	file == 2 { next }
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
		# A typed class: its context, then its fields.
		if (match(body, /data_len = [0-9]+(, rest_len = [0-9]+)? \}, \{ /)) {
			data = norm_fields(name, substr(body, RSTART + RLENGTH - 2))
		} else if (match(body, /data = \[ .* \]/)) {
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
	}' "$work/floats.txt" "$work/order.txt" "$work/pretty.txt" \
	>"$work/actual.txt"

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
