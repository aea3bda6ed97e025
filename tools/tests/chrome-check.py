#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""usage: chrome-check.py LOG

Checks "posixtrace export --format=chrome" on the trace log LOG: that the
file is JSON (RFC 8259, no duplicate keys) in the Trace Event Format's
rules, and that it agrees with "posixtrace dump --json LOG" on every event.

The rules: an object with a "traceEvents" array, "displayTimeUnit" and
"otherData"; every trace event has a known phase, a name, integer pid and
tid, and a time ("ts", microseconds) unless it is metadata; a complete
event ("X") has a duration of at least 0; an instant ("i") a scope; every
"B" has its "E" on the same thread, nested; every thread that has events
has a "thread_name" and every process a "process_name", each once.

The agreement: the objects of dump --json's lines, and the "args" of the
export (an instant's args; a span's "begin" and "end"), are the same
multiset; each is on its own pid's and tid's track (its pid's main track
when it has no tid), at its own time from the stream's creation to the
nanosecond, a span as long as its begin is from its end; the "lost N
events" instants sum to the dump's gaps, and "otherData" counts as the
dump does.

Exit status: 0 all hold; 1 one does not (each failure printed), or the
tool failed; 2 usage.

Environment: POSIXTRACE, the tool (default: ../posixtrace beside this
script); KEEP=1 keeps the exported file and says where it is.
"""

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from decimal import Decimal

PHASES = {"i", "X", "M", "B", "E"}
failures = []


def fail(msg):
    if len(failures) < 20:
        print("chrome-check: " + msg, file=sys.stderr)
    failures.append(msg)


def no_duplicates(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError("duplicate key %r" % k)
        obj[k] = v
    return obj


def canon(obj):
    # Decimals (floats read exactly) as the text they were read from.
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def event_ns(args):
    return args["ts_sec"] * 1000000000 + args["ts_nsec"]


def us_to_ns(us):
    """ts and dur carry three decimals: nanoseconds, read exactly."""
    ns = us * 1000
    if ns != ns.to_integral_value():
        fail("a time of %s us is not a whole number of ns" % us)
    return int(ns)


def no_constant(name):
    raise ValueError("%s is not JSON (RFC 8259)" % name)


# The stream's spans: each kind on its track under pid 0.
STREAM_TRACKS = {"flush": 1, "stopped": 2, "overflow": 3}


def check_shape(doc):
    if not isinstance(doc, dict):
        fail("the file is not a JSON object")
        return []
    for key in ("traceEvents", "displayTimeUnit", "otherData"):
        if key not in doc:
            fail("no %r" % key)
    if doc.get("displayTimeUnit") not in ("ms", "ns"):
        fail("displayTimeUnit %r" % doc.get("displayTimeUnit"))
    events = doc.get("traceEvents", [])
    if not isinstance(events, list):
        fail("traceEvents is not an array")
        return []
    stacks = {}
    for n, e in enumerate(events):
        where = "event %d (%s)" % (n, e.get("name") if isinstance(e, dict) else e)
        if not isinstance(e, dict):
            fail(where + ": not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            fail(where + ": phase %r" % ph)
            continue
        if not isinstance(e.get("name"), str):
            fail(where + ": no name")
        for key in ("pid", "tid"):
            if not isinstance(e.get(key), int):
                fail(where + ": %s %r" % (key, e.get(key)))
        if ph != "M" and not isinstance(e.get("ts"), (int, Decimal)):
            fail(where + ": no ts")
        if ph == "X" and not (isinstance(e.get("dur"), (int, Decimal))
                              and e["dur"] >= 0):
            fail(where + ": dur %r" % e.get("dur"))
        if ph == "i" and e.get("s") not in ("t", "p", "g"):
            fail(where + ": instant scope %r" % e.get("s"))
        if "args" in e and not isinstance(e["args"], dict):
            fail(where + ": args not an object")
        track = (e.get("pid"), e.get("tid"))
        if ph == "B":
            stacks.setdefault(track, []).append(e)
        elif ph == "E":
            if not stacks.get(track):
                fail(where + ": an E without its B")
            else:
                b = stacks[track].pop()
                if e["ts"] < b["ts"]:
                    fail(where + ": ends before its B begins")
    for track, left in stacks.items():
        if left:
            fail("%d B without their E on pid %d tid %d" %
                 (len(left), track[0], track[1]))
    # Spans on one track nest or are apart, as viewers stack them.
    spans = {}
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "X":
            spans.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    for track, xs in spans.items():
        xs.sort(key=lambda e: (e["ts"], -e["dur"]))
        open_ends = []
        for e in xs:
            while open_ends and open_ends[-1] <= e["ts"]:
                open_ends.pop()
            end = e["ts"] + e["dur"]
            if open_ends and end > open_ends[-1]:
                fail("span %s at %s on pid %s tid %s crosses the one "
                     "around it" % (e["name"], e["ts"], track[0], track[1]))
            open_ends.append(end)
    thread_names = [(e["pid"], e["tid"]) for e in events
                    if e.get("ph") == "M" and e.get("name") == "thread_name"]
    proc_names = [e["pid"] for e in events
                  if e.get("ph") == "M" and e.get("name") == "process_name"]
    # Each track and each process named once: two names disagree.
    for what, names in (("thread", thread_names), ("process", proc_names)):
        seen = set()
        for key in names:
            if key in seen:
                fail("%s %s named twice" % (what, key))
            seen.add(key)
    named_threads = set(thread_names)
    named_procs = set(proc_names)
    for e in events:
        if e.get("ph") == "M":
            if not isinstance(e.get("args", {}).get("name"), str):
                fail("metadata %r without a name" % e.get("name"))
            continue
        if (e.get("pid"), e.get("tid")) not in named_threads:
            fail("thread pid %s tid %s has no thread_name" %
                 (e.get("pid"), e.get("tid")))
            named_threads.add((e.get("pid"), e.get("tid")))
        if e.get("pid") not in named_procs:
            fail("process %s has no process_name" % e.get("pid"))
            named_procs.add(e.get("pid"))
    return events


def on_track(e, args, what):
    tid = args["tid"] if args["tid"] is not None else args["pid"]
    if (e["pid"], e["tid"]) != (args["pid"], tid):
        fail("%s seq %s: on pid %d tid %d, dump says pid %d tid %s" %
             (what, args.get("seq"), e["pid"], e["tid"], args["pid"],
              args["tid"]))


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0], file=sys.stderr if len(sys.argv) != 2 else sys.stdout)
        return 0 if len(sys.argv) == 2 else 2
    log = sys.argv[1]
    tool = os.environ.get("POSIXTRACE") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "posixtrace")
    dump = subprocess.run([tool, "dump", "--json", log], capture_output=True)
    # 3: damaged, dumped as far as it reads (the export does the same).
    if dump.returncode not in (0, 3):
        print("chrome-check: dump failed: %s" % dump.stderr.decode(),
              file=sys.stderr)
        return 1
    want = [json.loads(line, parse_float=Decimal, parse_constant=no_constant)
            for line in dump.stdout.decode().splitlines()]
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        export = subprocess.run([tool, "export", "--format=chrome",
                                 "--force", "-o", path, log],
                                capture_output=True)
        if export.returncode != dump.returncode:
            print("chrome-check: export exited %d, dump %d: %s" %
                  (export.returncode, dump.returncode,
                   export.stderr.decode()), file=sys.stderr)
            return 1
        with open(path, "rb") as f:
            raw = f.read()
    finally:
        if os.environ.get("KEEP") == "1":
            print("chrome-check: kept %s" % path, file=sys.stderr)
        else:
            os.unlink(path)
    try:
        doc = json.loads(raw.decode("utf-8"), object_pairs_hook=no_duplicates,
                         parse_float=Decimal, parse_constant=no_constant)
    except ValueError as e:
        print("chrome-check: not JSON: %s" % e, file=sys.stderr)
        return 1
    events = check_shape(doc)
    other = doc.get("otherData", {})
    origin = other.get("created_sec", 0) * 1000000000 + \
        other.get("created_nsec", 0)

    got = []
    lost = 0
    last = max((event_ns(w) for w in want), default=origin) - origin
    for e in events:
        args = e.get("args", {})
        if e.get("ph") == "i" and e.get("cat") == "loss":
            lost += args.get("lost", 0)
            continue
        if e.get("ph") == "i":
            got.append(canon(args))
            on_track(e, args, "instant")
            if us_to_ns(e["ts"]) != event_ns(args) - origin:
                fail("instant seq %s: ts %s, dump says %d ns" %
                     (args.get("seq"), e["ts"], event_ns(args) - origin))
        elif e.get("ph") == "X":
            begin, end = args.get("begin"), args.get("end")
            if not isinstance(begin, dict):
                fail("span %s without its begin" % e.get("name"))
                continue
            got.append(canon(begin))
            if e.get("cat") in ("stream", "loss"):
                if (e["pid"], e["tid"]) != (0, STREAM_TRACKS.get(e["name"])):
                    fail("stream span %s on pid %d tid %d" %
                         (e["name"], e["pid"], e["tid"]))
            else:
                on_track(e, begin, "span")
            if e.get("cat") == "syscall" and \
                    e["name"] != begin.get("syscall_name"):
                fail("span %s begins with %s" % (e["name"],
                                                  begin.get("syscall_name")))
            if us_to_ns(e["ts"]) != event_ns(begin) - origin:
                fail("span seq %s: ts %s" % (begin.get("seq"), e["ts"]))
            if end is None:
                if args.get("unfinished") is not True:
                    fail("span seq %s: no end, not unfinished" %
                         begin.get("seq"))
                if us_to_ns(e["ts"]) + us_to_ns(e["dur"]) > last:
                    fail("unfinished span seq %s ends after the log" %
                         begin.get("seq"))
                continue
            got.append(canon(end))
            if e.get("cat") == "syscall" and (
                    end.get("syscall_name") != begin.get("syscall_name") or
                    (end["pid"], end["tid"]) != (begin["pid"], begin["tid"])):
                fail("span seq %s ends with another call or thread (seq %s)"
                     % (begin.get("seq"), end.get("seq")))
            if us_to_ns(e["dur"]) != max(0, event_ns(end) - event_ns(begin)):
                fail("span seq %s: dur %s" % (begin.get("seq"), e["dur"]))
    want_c = Counter(canon(w) for w in want)
    got_c = Counter(got)
    for k in (want_c - got_c):
        fail("in dump, not in the export: %s" % k[:300])
    for k in (got_c - want_c):
        fail("in the export, not in dump: %s" % k[:300])
    gaps = sum(w.get("gap", 0) for w in want)
    if lost != gaps:
        fail("lost instants say %d, dump's gaps %d" % (lost, gaps))
    if other.get("events") != len(want):
        fail("otherData says %s events, dump %d" % (other.get("events"),
                                                     len(want)))
    if other.get("lost") != gaps:
        fail("otherData says %s lost, dump %d" % (other.get("lost"), gaps))
    if failures:
        print("chrome-check: %s: %d failures" % (log, len(failures)),
              file=sys.stderr)
        return 1
    print("chrome-check: %s: %d events, %d trace events agree" %
          (log, len(want), len(events)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
