#!/usr/bin/env python3
"""The call-stack benchmark (issue 11): usdt-record --call-graph dwarf against
perf record --call-graph dwarf on the same workload, in interleaved rounds.

    sudo python3 bench/stacks/run.py [--build-dir DIR] [--hits N] [--rounds N]
                                     [--mode dwarf|fp] [--output FILE]

The workload (bench/workloads/stacks.c, -O2 without frame pointers) fires one
USDT probe at the bottom of four call paths. Each round runs it untraced,
under perf record and under usdt-record, in a shuffled order. It prints:

  - per-hit cost: the workload's own firing time minus the untraced one, per
    hit, for each tracer (median over rounds), and usdt-record / perf (target
    <= 1); also against perf record -m with usdt-record's ring size for -g
    dwarf, which keeps (most of) the hits as usdt-record does: perf's default
    ring drops most of a tight loop's samples, and a dropped sample costs the
    traced program no 8 KiB copy;
  - bytes per event kept in the trace files: usdt-record / perf record -z
    (target <= 1/10);
  - the oracle: for each event, the function names of usdt-report's frames
    (dump --format jsonl) against perf script's for the same hit (matched by
    the probe's argument i); the share of events whose names agree frame by
    frame (target >= 99%).

Numbers are only ever compared within one run (the host's uprobe cost drifts
between days). Needs root (uprobes, tracefs); tools come from bench/run.sh's
build dir (default build-bench/, or --build-dir).
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "lib"))
import tools  # noqa: E402  (bench/lib: the uprobe events perf records)


def run(argv, env=None, timeout=600):
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)


def workload_result(path):
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    return json.loads(lines[-1])


def run_once(kind, args, work, tmp, record, report, event):
    """One run of the workload; returns {"loop_ns", "bytes", "file"}."""
    result = os.path.join(tmp, f"{kind}.result")
    if os.path.exists(result):
        os.unlink(result)
    env = dict(os.environ, BENCH_RESULT=result)
    workload = [work, "-n", str(args.hits)]
    graph = args.mode if args.mode == "fp" else "dwarf"
    if kind == "untraced":
        argv, out = workload, None
    elif kind in ("perf", "perf-bigring"):
        out = os.path.join(tmp, f"{kind}.data")
        ring = ["-m", str(USDT_DWARF_RING_PAGES)] if kind == "perf-bigring" else []
        argv = ["perf", "record", "-q", "-z", *ring, "--call-graph", graph, "-e", event, "-o",
                out, "--"] + workload
    else:
        out = os.path.join(tmp, "usdt.trace")
        argv = [record, "-q", "--call-graph", graph, "-e", "bench_stack:hit", "-o", out,
                "--"] + workload
    r = run(argv, env=env)
    if r.returncode != 0:
        raise SystemExit(f"bench: error: {kind} run failed (exit {r.returncode}): "
                         f"{r.stderr.strip().splitlines()[-1:] or ''}")
    loop_ns = workload_result(result)["loop_ns"]
    events = events_in(kind, out, report) if out else 0
    return {"loop_ns": loop_ns, "bytes": os.path.getsize(out) if out else 0, "file": out,
            "events": events}


def events_in(kind, path, report):
    """The events a tool's file holds (what it kept of the hits)."""
    if kind == "usdt-record":
        r = run([report, "summary", "--format", "json", path])
        return json.loads(r.stdout)["events"] if r.returncode == 0 else 0
    r = run(["perf", "report", "--stats", "--stdio", "-i", path])
    m = re.search(r"SAMPLE events:\s+(\d+)", r.stdout)
    return int(m.group(1)) if m else 0


# The per-CPU ring usdt-record -g dwarf uses by default on a machine with few
# CPUs (64 MiB: record/stacks/stack_collector.cpp, ring_buffer_pages).
USDT_DWARF_RING_PAGES = 16384

PERF_HEADER = re.compile(r"\sarg1=(0x[0-9a-f]+|\d+)")
PERF_FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\((.*)\)$")


def perf_stacks(perf_data):
    """{i: [function, ...]} from perf script, innermost first."""
    r = run(["perf", "script", "--no-inline", "-i", perf_data, "-F", "event,trace,ip,sym,dso"],
            timeout=1200)
    stacks, current = {}, None
    for line in r.stdout.splitlines():
        m = PERF_HEADER.search(line)
        if m and not line.startswith((" ", "\t")):
            current = []
            stacks[int(m.group(1), 0)] = current
            continue
        f = PERF_FRAME.match(line)
        if f and current is not None:
            current.append(f.group(1))
    return stacks


def usdt_stacks(report, trace):
    """{i: [function, ...]} from usdt-report dump --format jsonl."""
    r = run([report, "dump", "--format", "jsonl", trace], timeout=1200)
    stacks = {}
    for line in r.stdout.splitlines():
        e = json.loads(line)
        if "stack" not in e:
            continue
        stacks[int(e["args"][0])] = [f.get("function") or "[unknown]" for f in e["stack"]]
    return stacks


def agree(perf, ours):
    """perf names a frame of an inlined call `f (inlined)`; its own frames end
    where ours may go on (or the reverse) only past the outermost named frame,
    so frames are compared up to the shorter stack, after dropping perf's
    inlined entries."""
    perf = [f for f in perf if f and not f.endswith("(inlined)")]
    n = min(len(perf), len(ours))
    return n > 0 and perf[:n] == ours[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--hits", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mode", choices=("dwarf", "fp"), default="dwarf")
    ap.add_argument("--output", default=os.path.join(ROOT, "bench", "results", "stacks-latest.md"))
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench: error: needs root (uprobes, tracefs, perf)\nhint: sudo python3 "
                         "bench/stacks/run.py")
    record = os.path.join(args.build_dir, "record", "usdt-record")
    report = os.path.join(args.build_dir, "report", "usdt-report")
    for tool in (record, report):
        if not os.access(tool, os.X_OK):
            raise SystemExit(f"bench: error: {tool} is missing\nhint: build it first "
                             f"(bash bench/run.sh --no-install --workloads report, or cmake)")
    tmp = tempfile.mkdtemp(prefix="usdt-bench-stacks.")
    work = os.path.join(tmp, "stacks")
    flags = ["-fno-omit-frame-pointer"] if args.mode == "fp" else ["-fomit-frame-pointer"]
    r = run(["cc", "-O2", "-g", *flags, "-o", work, os.path.join(ROOT, "bench", "workloads",
                                                                  "stacks.c")])
    if r.returncode != 0:
        raise SystemExit(f"bench: error: cannot build the workload: {r.stderr.strip()}")
    events = tools.UprobeEvents()
    try:
        event = events.add(work, "bench_stack", "hit")[0]
        runs = {k: [] for k in ("untraced", "perf", "perf-bigring", "usdt-record")}
        for n in range(args.rounds):
            order = list(runs)
            random.shuffle(order)
            for kind in order:
                runs[kind].append(run_once(kind, args, work, tmp, record, report, event))
            print(f"bench: round {n + 1}/{args.rounds} done", file=sys.stderr)
        kept_perf = len(perf_stacks(runs["perf"][-1]["file"]))
        # The oracle from the run that kept the most hits: more to compare.
        oracle_perf = perf_stacks(runs["perf-bigring"][-1]["file"])
        oracle_ours = usdt_stacks(report, runs["usdt-record"][-1]["file"])
    finally:
        events.cleanup()

    base = statistics.median(r["loop_ns"] for r in runs["untraced"])
    cost = {k: statistics.median((r["loop_ns"] - base) / args.hits for r in runs[k])
            for k in ("perf", "perf-bigring", "usdt-record")}
    # Per event kept: a tool that drops samples writes fewer bytes per hit
    # without writing fewer per event.
    size = {k: statistics.median(r["bytes"] / max(r["events"], 1) for r in runs[k])
            for k in ("perf", "usdt-record")}
    common = sorted(set(oracle_perf) & set(oracle_ours))
    same = sum(1 for i in common if agree(oracle_perf[i], oracle_ours[i]))
    share = same / len(common) if common else 0.0
    cost_ratio = cost["usdt-record"] / cost["perf"] if cost["perf"] > 0 else float("nan")
    lossless_ratio = (cost["usdt-record"] / cost["perf-bigring"] if cost["perf-bigring"] > 0
                      else float("nan"))
    size_ratio = size["usdt-record"] / size["perf"] if size["perf"] > 0 else float("nan")

    def verdict(ok):
        return "met" if ok else "NOT met"

    lines = [
        f"# Call stacks: usdt-record vs perf record, --call-graph {args.mode}",
        "",
        f"Workload bench/workloads/stacks.c, {args.hits:,} hits, {args.rounds} interleaved rounds, "
        "medians.",
        "",
        "| measure | perf record | usdt-record | ratio | target | verdict |",
        "|---|---:|---:|---:|---|---|",
        f"| per-hit cost (ns, minus untraced) | {cost['perf']:.0f} | {cost['usdt-record']:.0f} | "
        f"{cost_ratio:.2f} | <= 1.00 | {verdict(cost_ratio <= 1.0)} |",
        f"| per-hit cost, perf record -m {USDT_DWARF_RING_PAGES} (the ring usdt-record gives -g dwarf; kept "
        f"{statistics.median(r['events'] for r in runs['perf-bigring']):,.0f} events) | "
        f"{cost['perf-bigring']:.0f} | {cost['usdt-record']:.0f} | "
        f"{lossless_ratio:.2f} | (information) | |",
        f"| bytes per event kept (perf: -z) | {size['perf']:.1f} | {size['usdt-record']:.2f} | "
        f"{size_ratio:.3f} | <= 0.100 | {verdict(size_ratio <= 0.1)} |",
        f"| events in the last round's file (of {args.hits:,} hits; the rest lost, counted) | "
        f"{kept_perf:,} | {len(oracle_ours):,} | | every hit | "
        f"{verdict(len(oracle_ours) == args.hits)} |",
        f"| events whose frames name the same functions as perf script (of perf -m's) | "
        f"{len(oracle_perf):,} "
        f"events | {len(oracle_ours):,} events | {share:.2%} of {len(common):,} | >= 99% | "
        f"{verdict(share >= 0.99)} |",
        "",
    ]
    mismatches = [i for i in common if not agree(oracle_perf[i], oracle_ours[i])][:3]
    for i in mismatches:
        lines.append(f"- mismatch at i={i}: perf {oracle_perf[i]} / usdt {oracle_ours[i]}")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
