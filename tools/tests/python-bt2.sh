#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: python-bt2.sh LOG
# Checks that a trace exported by "posixtrace export" reads in Python
# through babeltrace2's bindings (python3-bt2) as "posixtrace dump --json"
# reads the log: examples/ctf_fields.py --json prints each event, and every
# one must match the dump's, in order: name, pid, tid, seq, time to the
# nanosecond, and the typed fields by name (a type with a format whose
# data matches it), else the data's bytes.
#
# Exit status: 0 all match; 1 a difference (printed), or a step failed;
# 2 usage.
#
# Environment: POSIXTRACE, the tool (default: ../posixtrace beside this
# script); PYTHON_BT2, a Python with the bindings (default:
# /usr/bin/python3, Debian's, which python3-bt2 installs into).

set -u
case $# in
1) ;;
*) sed -n '4,16s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
tool=${POSIXTRACE:-$here/../posixtrace}
py=${PYTHON_BT2:-/usr/bin/python3}
log=$1

if ! "$py" -c 'import bt2' 2>/dev/null; then
	echo "python-bt2: $py cannot import bt2 (Debian: apt-get install python3-bt2)" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/python-bt2.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# 3: a damaged log, exported and dumped as far as it reads.
"$tool" export -o "$work/ctf" "$log" 2>/dev/null
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { echo "python-bt2: export exited $rc" >&2; exit 1; }
"$tool" dump --json "$log" >"$work/dump.json" 2>/dev/null
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || { echo "python-bt2: dump exited $rc" >&2; exit 1; }
"$py" "$here/../../examples/ctf_fields.py" --json "$work/ctf" >"$work/bt2.json" ||
	{ echo "python-bt2: ctf_fields.py failed" >&2; exit 1; }
exec "$py" - "$work/dump.json" "$work/bt2.json" "$log" <<'EOF'
import json
import sys

dump = [json.loads(line) for line in open(sys.argv[1])]
got = [json.loads(line) for line in open(sys.argv[2])]
bad = 0


def differ(n, what, want, have):
    global bad
    bad += 1
    if bad <= 20:
        print("python-bt2: event %d (seq %s): %s: dump %r, Python %r" %
              (n, dump[n].get("seq"), what, want, have), file=sys.stderr)


if len(dump) != len(got):
    print("python-bt2: dump has %d events, Python %d" % (len(dump), len(got)),
          file=sys.stderr)
    sys.exit(1)

def normal(fields, fmt):
    """dump --json writes 64-bit integers as strings (JSON's doubles)."""
    types = dict(f.split(":", 1) for f in fmt.split(","))
    out = {}
    for k, v in fields.items():
        if types.get(k) in ("u64", "s64") and isinstance(v, str):
            v = int(v)
        out[k] = v
    return out


typed = 0
for n, (d, g) in enumerate(zip(dump, got)):
    ns = d["ts_sec"] * 1000000000 + d["ts_nsec"]
    tid = d["tid"] if d["tid"] is not None else 0
    for what, want, have in (("name", d["event"], g["event"]),
                             ("pid", d["pid"], g["pid"]),
                             ("tid", tid, g["tid"]),
                             ("seq", d["seq"], g["seq"]),
                             ("time", ns, g["ts"])):
        if want != have:
            differ(n, what, want, have)
    if isinstance(d.get("fields"), dict):
        typed += 1
        if normal(d["fields"], d["format"]) != g.get("fields"):
            differ(n, "fields", d["fields"], g.get("fields"))
    elif d["data_encoding"] == "hex":
        if bytes.fromhex(d["data"]) != bytes(g.get("data", [])):
            differ(n, "data", d["data"], g.get("data"))
    elif d["data_len"] < len(g.get("data", [])):
        differ(n, "data length", d["data_len"], len(g.get("data", [])))
if bad:
    print("python-bt2: %s: %d differences" % (sys.argv[3], bad),
          file=sys.stderr)
    sys.exit(1)
print("python-bt2: %s: %d events, %d with typed fields, read alike" %
      (sys.argv[3], len(dump), typed))
EOF
