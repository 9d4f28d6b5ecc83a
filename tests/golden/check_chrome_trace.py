#!/usr/bin/env python3
"""Checks a usdt-report Chrome export against the Trace Event Format fields
and its nesting rules. Exit 1 on a problem.

Fields: a JSON object with a traceEvents array; every event has name, ph,
pid, tid; X events have numeric ts and dur >= 0; B/E events numeric ts;
b/e events a string id and cat; i events ts and scope s in g/p/t; M events
are process_name/thread_name with args.name.

Nesting: on one thread (pid, tid), duration slices (X, and B/E pairs) must
nest: a slice that starts inside another must end inside it too, or
Perfetto and chrome://tracing draw them wrongly. Every E closes a B of its
thread. Async slices (b/e) match on (pid, cat, name, id): every e closes an
open b, no b stays open, and slices of one id nest like a stack.

Stacks: a stackFrames dictionary, when present, maps string ids to frames
with a string name and, but for roots, a parent that is another frame (no
cycles); every event's sf (and esf) refers to a frame of it.

--self-test runs the checker on small good and bad documents."""
import json
import sys


class Problem(Exception):
    pass


def fail(msg):
    raise Problem(msg)


def check_fields(events):
    phases = {}
    for i, e in enumerate(events):
        where = "event %d" % i
        for key in ("name", "ph", "pid", "tid"):
            if key not in e:
                fail("%s has no %s" % (where, key))
        if not isinstance(e["pid"], int) or not isinstance(e["tid"], int):
            fail("%s: pid/tid are not integers" % where)
        ph = e["ph"]
        phases[ph] = phases.get(ph, 0) + 1
        if ph in ("X", "B", "E", "b", "e", "i"):
            if not isinstance(e.get("ts"), (int, float)):
                fail("%s: %s without numeric ts" % (where, ph))
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)):
                fail("%s: X without numeric dur" % where)
            if e["dur"] < 0:
                fail("%s: negative dur" % where)
        elif ph in ("b", "e"):
            if not isinstance(e.get("id"), str) or not e["id"]:
                fail("%s: %s without a string id" % (where, ph))
            if not isinstance(e.get("cat"), str):
                fail("%s: %s without cat" % (where, ph))
        elif ph == "i":
            if e.get("s", "t") not in ("g", "p", "t"):
                fail("%s: bad scope" % where)
        elif ph == "M":
            if e["name"] not in ("process_name", "thread_name"):
                fail("%s: unexpected metadata %s" % (where, e["name"]))
            if not isinstance(e.get("args", {}).get("name"), str):
                fail("%s: metadata without args.name" % where)
        elif ph not in ("B", "E"):
            fail("%s: unexpected phase %r" % (where, ph))
        if "args" in e and not isinstance(e["args"], dict):
            fail("%s: args is not an object" % where)
    return phases


def thread_slices(events):
    """(start, end, index) per thread from X events and B/E pairs."""
    slices = {}
    open_b = {}
    # B/E pair up in time order per thread; the file order breaks ties.
    order = sorted(range(len(events)), key=lambda i: (events[i].get("ts", 0), i))
    for i in order:
        e = events[i]
        thread = (e["pid"], e["tid"])
        if e["ph"] == "X":
            slices.setdefault(thread, []).append((e["ts"], e["ts"] + e["dur"], i))
        elif e["ph"] == "B":
            open_b.setdefault(thread, []).append(i)
        elif e["ph"] == "E":
            stack = open_b.get(thread)
            if not stack:
                fail("event %d: E without an open B on pid %d tid %d" % (i, thread[0], thread[1]))
            b = stack.pop()
            slices.setdefault(thread, []).append((events[b]["ts"], e["ts"], b))
    for thread, stack in open_b.items():
        if stack:
            fail("event %d: B never ended on pid %d tid %d" % (stack[-1], thread[0], thread[1]))
    return slices


def check_thread_nesting(events):
    for thread, slices in thread_slices(events).items():
        # Outer slices first: by start, then longest first.
        slices.sort(key=lambda s: (s[0], -(s[1] - s[0]), s[2]))
        stack = []
        for start, end, i in slices:
            while stack and stack[-1][1] <= start:
                stack.pop()
            if stack and end > stack[-1][1]:
                fail("event %d [%s, %s] overlaps event %d [%s, %s] on pid %d tid %d without nesting"
                     % (i, start, end, stack[-1][2], stack[-1][0], stack[-1][1], thread[0], thread[1]))
            stack.append((start, end, i))


def check_async(events):
    open_ids = {}
    order = sorted(range(len(events)), key=lambda i: (events[i].get("ts", 0), i))
    for i in order:
        e = events[i]
        if e["ph"] not in ("b", "e"):
            continue
        key = (e["pid"], e.get("cat"), e["name"], e["id"])
        stack = open_ids.setdefault(key, [])
        if e["ph"] == "b":
            stack.append(i)
        elif not stack:
            fail("event %d: async end without an open begin (pid %d, cat %r, name %r, id %r)"
                 % ((i,) + key))
        else:
            stack.pop()
    for key, stack in open_ids.items():
        if stack:
            fail("event %d: async begin never ended (pid %d, cat %r, name %r, id %r)" % ((stack[-1],) + key))


def check_stack_frames(doc):
    frames = doc.get("stackFrames", {})
    if not isinstance(frames, dict):
        fail("stackFrames is not an object")
    for ident, f in frames.items():
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            fail("stack frame %s has no name" % ident)
        if "category" in f and not isinstance(f["category"], str):
            fail("stack frame %s: category is not a string" % ident)
        if "parent" in f and str(f["parent"]) not in frames:
            fail("stack frame %s: parent %r is not a frame" % (ident, f["parent"]))
    for ident in frames:
        seen = set()
        node = ident
        while node is not None:
            if node in seen:
                fail("stack frame %s: its parents loop" % ident)
            seen.add(node)
            parent = frames[node].get("parent")
            node = None if parent is None else str(parent)
    for i, e in enumerate(doc["traceEvents"]):
        for key in ("sf", "esf"):
            if key in e and str(e[key]) not in frames:
                fail("event %d: %s %r is not in stackFrames" % (i, key, e[key]))


def check(doc):
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("not an object with a traceEvents array")
    if doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        fail("bad displayTimeUnit")
    events = doc["traceEvents"]
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            fail("event %d is not an object" % i)
    phases = check_fields(events)
    check_thread_nesting(events)
    check_async(events)
    check_stack_frames(doc)
    return phases


def self_test():
    def x(ts, dur, tid=1):
        return {"ph": "X", "name": "s", "ts": ts, "dur": dur, "pid": 1, "tid": tid}

    def a(ph, ts, ident, name="s"):
        return {"ph": ph, "name": name, "cat": "latency", "id": ident, "ts": ts, "pid": 1, "tid": 1}

    def be(ph, ts):
        return {"ph": ph, "name": "s", "ts": ts, "pid": 1, "tid": 1}

    good = {
        "nested X": [x(0, 10), x(2, 3), x(10, 5)],
        "overlap on two threads": [x(0, 10, 1), x(5, 10, 2)],
        "nested B/E": [be("B", 0), be("B", 1), be("E", 2), be("E", 3)],
        "overlapping async ids": [a("b", 0, "0x1"), a("b", 1, "0x2"), a("e", 2, "0x1"), a("e", 3, "0x2")],
        "zero-length async": [a("b", 5, "0x1"), a("e", 5, "0x1")],
    }
    bad = {
        "overlapping X": [x(0, 10), x(5, 10)],
        "overlapping X and B/E": [x(0, 10), be("B", 5), be("E", 15)],
        "E without B": [be("E", 1)],
        "B without E": [be("B", 1)],
        "e without b": [a("e", 1, "0x1")],
        "b without e": [a("b", 1, "0x1")],
        "e of another id": [a("b", 1, "0x1"), a("e", 2, "0x2")],
        "e of another name": [a("b", 1, "0x1"), a("e", 2, "0x1", "t")],
        "async without id": [{"ph": "b", "name": "s", "cat": "c", "ts": 1, "pid": 1, "tid": 1}],
    }
    frames = {"1": {"name": "main", "category": "/app"}, "2": {"name": "f", "parent": "1"}}
    good_docs = {"sf of a frame": {"traceEvents": [dict(x(0, 10), sf=2, esf=1)], "stackFrames": frames}}
    bad_docs = {
        "sf of no frame": {"traceEvents": [dict(x(0, 10), sf=3)], "stackFrames": frames},
        "sf without stackFrames": {"traceEvents": [dict(x(0, 10), sf=1)]},
        "parent of no frame": {"traceEvents": [], "stackFrames": {"1": {"name": "f", "parent": "9"}}},
        "parents loop": {"traceEvents": [], "stackFrames": {"1": {"name": "f", "parent": "2"},
                                                             "2": {"name": "g", "parent": "1"}}},
    }
    good.update({name: doc for name, doc in good_docs.items()})
    bad.update({name: doc for name, doc in bad_docs.items()})
    failures = 0
    for name, events in good.items():
        try:
            check(events if isinstance(events, dict) else {"traceEvents": events})
        except Problem as p:
            print("self-test: %s: refused: %s" % (name, p), file=sys.stderr)
            failures += 1
    for name, events in bad.items():
        try:
            check(events if isinstance(events, dict) else {"traceEvents": events})
            print("self-test: %s: accepted" % name, file=sys.stderr)
            failures += 1
        except Problem:
            pass
    if failures:
        sys.exit(1)
    print("check_chrome_trace: self-test passed (%d good, %d bad documents)" % (len(good), len(bad)))


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        self_test()
        return
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    try:
        phases = check(doc)
    except Problem as p:
        print("check_chrome_trace: " + str(p), file=sys.stderr)
        sys.exit(1)
    print("check_chrome_trace: %d events %s" % (len(doc["traceEvents"]), dict(sorted(phases.items()))))


if __name__ == "__main__":
    main(sys.argv)
