#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read a trace exported by posixtrace with babeltrace2's Python bindings.

usage: ctf_fields.py [--json] TRACE_DIR [TYPE]

    posixtrace export -o trace.ctf trace.ptlog
    python3 ctf_fields.py trace.ctf job_end

Prints each event of TRACE_DIR (of type TYPE only, if given): its time,
name, pid and tid, and its typed fields by name (a type opened with
posixtrace_k_eventid_open_format()), else the length of its data; then the
events lost, where the trace says so. With --json, one JSON object a line:
"ts" (nanoseconds since the epoch), "event", "pid", "tid", "seq", and
"fields" (an object) or "data" (a list of bytes).

Debian: apt-get install python3-bt2 babeltrace2.
"""

import json
import sys

import bt2


def value(field):
    """A field as Python has it: int, float, str, or bytes for a byte array."""
    if isinstance(field, bt2._StringFieldConst):
        return str(field)
    if isinstance(field, bt2._RealFieldConst):
        return float(field)
    if isinstance(field, bt2._IntegerFieldConst):
        return int(field)
    if isinstance(field, bt2._ArrayFieldConst):
        return bytes(int(b) for b in field)
    return str(field)


def events(path):
    """(clock ns, event) for each event; (None, count) for events lost."""
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            yield None, msg.count
        elif type(msg) is bt2._EventMessageConst:
            yield msg.default_clock_snapshot.ns_from_origin, msg.event


def main():
    args = sys.argv[1:]
    as_json = bool(args) and args[0] == "--json"
    if as_json:
        args = args[1:]
    if not 1 <= len(args) <= 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    want = args[1] if len(args) == 2 else None
    for ns, ev in events(args[0]):
        if ns is None:
            if not as_json:
                print("# %d events lost" % (ev or 0))
            continue
        if want is not None and ev.name != want:
            continue
        ctx = ev.common_context_field
        # A typed event carries its format's fields as its payload, and
        # its truncation and data length in its own context.
        typed = ev.specific_context_field is not None
        payload = {name: value(f) for name, f in ev.payload_field.items()}
        if as_json:
            out = {"ts": ns, "event": ev.name, "pid": int(ctx["pid"]),
                   "tid": int(ctx["tid"]), "seq": int(ctx["seq"])}
            if typed:
                out["fields"] = {k: (v.hex() if isinstance(v, bytes) else v)
                                 for k, v in payload.items()}
            else:
                out["data"] = list(payload["data"])
            print(json.dumps(out))
        elif typed:
            print("%d %s pid=%d tid=%d %s" % (
                ns, ev.name, ctx["pid"], ctx["tid"],
                ", ".join("%s=%r" % kv for kv in payload.items())))
        else:
            print("%d %s pid=%d tid=%d %d bytes" % (
                ns, ev.name, ctx["pid"], ctx["tid"], payload["data_len"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
