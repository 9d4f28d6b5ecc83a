#!/usr/bin/env python3
"""Checks a usdt-report Chrome export against the Trace Event Format fields:
a JSON object with a traceEvents array; every event has name, ph, pid, tid;
X events have numeric ts and dur >= 0; i events have ts and scope s in g/p/t;
M events are process_name/thread_name with args.name. Exit 1 on a problem."""
import json
import sys


def fail(msg):
    print("check_chrome_trace: " + msg, file=sys.stderr)
    sys.exit(1)


def main(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("not an object with a traceEvents array")
    if doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        fail("bad displayTimeUnit")
    phases = {}
    for i, e in enumerate(doc["traceEvents"]):
        where = "event %d" % i
        for key in ("name", "ph", "pid", "tid"):
            if key not in e:
                fail("%s has no %s" % (where, key))
        if not isinstance(e["pid"], int) or not isinstance(e["tid"], int):
            fail("%s: pid/tid are not integers" % where)
        ph = e["ph"]
        phases[ph] = phases.get(ph, 0) + 1
        if ph == "X":
            if not isinstance(e.get("ts"), (int, float)) or not isinstance(e.get("dur"), (int, float)):
                fail("%s: X without numeric ts/dur" % where)
            if e["dur"] < 0:
                fail("%s: negative dur" % where)
        elif ph == "i":
            if not isinstance(e.get("ts"), (int, float)):
                fail("%s: i without numeric ts" % where)
            if e.get("s", "t") not in ("g", "p", "t"):
                fail("%s: bad scope" % where)
        elif ph == "M":
            if e["name"] not in ("process_name", "thread_name"):
                fail("%s: unexpected metadata %s" % (where, e["name"]))
            if not isinstance(e.get("args", {}).get("name"), str):
                fail("%s: metadata without args.name" % where)
        else:
            fail("%s: unexpected phase %r" % (where, ph))
        if "args" in e and not isinstance(e["args"], dict):
            fail("%s: args is not an object" % where)
    print("check_chrome_trace: %d events %s" % (len(doc["traceEvents"]), dict(sorted(phases.items()))))


if __name__ == "__main__":
    main(sys.argv[1])
