#!/usr/bin/env python3
"""The call-stack benchmark: usdt-record --call-graph dwarf, on each of its
capture paths, against perf record --call-graph dwarf on the same workload, in
interleaved rounds.

    sudo python3 bench/stacks/run.py [--build-dir DIR] [--hits N] [--rounds N]
                                     [--mode dwarf|fp] [--output FILE]

The workload (bench/workloads/stacks.c, -O2 without frame pointers) fires one
USDT probe at the bottom of four call paths. Each round runs it untraced,
under the kernel's counting uprobe (perf stat), under perf record with its
default ring, under perf record -m with usdt-record's ring size (so that both
tools keep every event) and under usdt-record twice, once per capture path
(--capture sample: perf samples; --capture bpf: a BPF program writing a BPF
ring), in a shuffled order. Each target is judged for each usdt-record capture
path from the rounds (bench/lib/judge.py: met only when the whole confidence
interval is inside the bound):

  - cost per kept event: the workload's firing time minus the untraced one of
    the same round, per event the tool kept, usdt-record over perf record -m,
    in the rounds where both kept every hit (a dropped sample costs the
    traced program no stack copy, so a tool that drops looks cheaper per hit;
    perf's default ring drops most of a tight loop's samples). The counting
    uprobe's cost per hit shows what the kernel alone costs;
  - bytes per event kept: usdt-record over perf record -m -z;
  - usdt-record keeps every hit, in every round;
  - the oracle: for each event of the last round, the function names of
    usdt-report's frames (dump --format jsonl) against perf script's for the
    same hit (matched by the probe's argument i), whole stacks (a truncated
    stack does not agree), and against the call path the workload took
    (i % 4, leaf to main).

Numbers are only ever compared within one run (the host's uprobe cost drifts
between days). Needs root (uprobes, tracefs, BPF); tools come from
bench/run.sh's build dir (default build-bench/, or --build-dir).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "lib"))
import judge  # noqa: E402
import stack_names  # noqa: E402
import tools  # noqa: E402  (the uprobe events perf records)
from figures import fmt, med  # noqa: E402

# The per-CPU ring usdt-record -g dwarf uses by default on a machine with few
# CPUs (64 MiB: record/stacks/stack_collector.cpp, ring_buffer_pages).
USDT_DWARF_RING_PAGES = 16384
# usdt-record's kinds and their capture paths, both named (the default, auto,
# picks bpf where the kernel allows it).
USDT_KINDS = {"usdt-record": "sample", "usdt-record-bpf": "bpf"}
KINDS = ("untraced", "floor", "perf", "perf-bigring", *USDT_KINDS)
TIMEOUT_S = 600

# The call path of hit i, by i % 4 (bench/workloads/stacks.c), leaf to main.
PATHS = [["leaf", "step_x", "route_a", "run", "main"],
         ["leaf", "step_y", "route_a", "run", "main"],
         ["leaf", "step_x", "route_b", "run", "main"],
         ["leaf", "deeper", "step_y", "route_b", "run", "main"]]


def run(argv, env=None, timeout=TIMEOUT_S):
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)


def argv_of(kind, args, work, tmp, record, event):
    """(argv, output file) of one run of the workload under `kind`."""
    workload = [work, "-n", str(args.hits)]
    graph = args.mode if args.mode == "fp" else "dwarf"
    if kind == "untraced":
        return workload, None
    if kind == "floor":
        out = os.path.join(tmp, "floor.stat")
        return ["perf", "stat", "-x", ",", "-o", out, "-e", event, "--"] + workload, out
    if kind in ("perf", "perf-bigring"):
        out = os.path.join(tmp, f"{kind}.data")
        ring = ["-m", str(USDT_DWARF_RING_PAGES)] if kind == "perf-bigring" else []
        return ["perf", "record", "-q", "-z", *ring, "--call-graph", graph, "-e", event, "-o", out,
                "--"] + workload, out
    out = os.path.join(tmp, f"{kind}.trace")
    return [record, "-q", "--capture", USDT_KINDS[kind], "--call-graph", graph, "-e", "bench_stack:hit",
            "-o", out, "--"] + workload, out


def run_once(kind, args, work, tmp, record, report, event):
    """One run of the workload: {"loop_ns", "bytes", "file", "events"}, or
    {"error"} when the tool or the workload failed or timed out."""
    result = os.path.join(tmp, f"{kind}.result")
    if os.path.exists(result):
        os.unlink(result)
    argv, out = argv_of(kind, args, work, tmp, record, event)
    try:
        r = run(argv, env=dict(os.environ, BENCH_RESULT=result))
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {TIMEOUT_S} s"}
    wl = tools.read_workload_result(result)
    if r.returncode != 0 or wl is None:
        return {"error": f"exit {r.returncode}: {tools.last_line(r.stderr)}"}
    events = args.hits if out is None else events_in(kind, out, report)
    if events is None:
        return {"error": f"{kind}: no event count in {os.path.basename(out)}"}
    return {"loop_ns": wl["loop_ns"], "bytes": os.path.getsize(out) if out else 0, "file": out,
            "events": events}


def events_in(kind, path, report):
    """The events a tool's file holds (what it kept of the hits), or None."""
    if kind == "floor":
        with open(path) as f:
            counts = [int(line.split(",")[0]) for line in f if line.split(",")[0].isdigit()]
        return sum(counts) if counts else None
    if kind in USDT_KINDS:
        r = run([report, "summary", "--format", "json", path])
        return json.loads(r.stdout)["events"] if r.returncode == 0 else None
    r = run(["perf", "report", "--stats", "--stdio", "-i", path])
    m = re.search(r"SAMPLE events:\s+(\d+)", r.stdout)
    return int(m.group(1)) if m else None


def perf_stacks(perf_data):
    r = run(["perf", "script", "--no-inline", "-i", perf_data, "-F", "event,trace,ip,sym,dso"], timeout=1200)
    return stack_names.perf_script_stacks(r.stdout)


def usdt_stacks(report, trace):
    r = run([report, "dump", "--format", "jsonl", trace], timeout=1200)
    return stack_names.dump_jsonl_stacks(r.stdout)


def cost_per_kept(runs, kind):
    """{round: (loop ns - the untraced loop ns of the round) / events kept}."""
    base = runs["untraced"]
    return {k: (r["loop_ns"] - base[k]["loop_ns"]) / r["events"] for k, r in enumerate(runs[kind])
            if not r.get("error") and not base[k].get("error") and r["events"]}


def failed(runs, *kinds):
    return len({k for kind in kinds for k, r in enumerate(runs[kind]) if r.get("error")})


def judged(title, runs, kinds, values, op, bound, measured, rule=judge.MEDIAN):
    return judge.judge(title, list(values.values()), op, bound, measured, rule,
                       planned=len(runs[kinds[0]]), failed=failed(runs, *kinds))


def label(kind):
    return f"usdt-record --capture {USDT_KINDS[kind]}"


def verdicts_of(args, runs, oracle):
    """The targets of the run, judged from its rounds: each usdt-record
    kind's, then the oracle's."""
    cost = {k: cost_per_kept(runs, k) for k in KINDS[1:]}
    bpe = {k: {i: r["bytes"] / r["events"] for i, r in enumerate(runs[k]) if not r.get("error") and r["events"]}
           for k in ("perf-bigring", *USDT_KINDS)}
    return [v for kind in USDT_KINDS for v in usdt_verdicts(args, runs, kind, cost, bpe)] + oracle


def usdt_verdicts(args, runs, kind, cost, bpe):
    """Cost per kept event, bytes per event kept and hits kept of one
    usdt-record kind, against perf record -m."""
    hits, ref, who = args.hits, "perf-bigring", f"-g {args.mode}, {label(kind)}"
    both = {i for i in range(len(runs[kind])) if runs[ref][i].get("events") == runs[kind][i].get("events") == hits}
    x = {i: cost[kind][i] / cost[ref][i] for i in both if i in cost[kind] and cost[ref].get(i, 0) > 0}
    ran = {i for i in range(len(runs["untraced"]))
           if not any(runs[k][i].get("error") for k in ("untraced", ref, kind))}
    lossy = len(ran - both)
    m_cost = (f"{fmt(med(cost[kind].values()))} vs {fmt(med(cost[ref].values()))} ns per kept "
              f"event (perf record -m {USDT_DWARF_RING_PAGES}); the kernel's counting uprobe "
              f"{fmt(med(cost['floor'].values()))} ns per hit; perf's default ring "
              f"{fmt(med(cost['perf'].values()))} ns per kept event, keeping "
              f"{fmt(med(r.get('events') for r in runs['perf'] if not r.get('error')))} of {hits:,}")
    if lossy > 0:
        m_cost += f"; {lossy} round(s) left out: a tool lost events there, so the costs are not comparable"
    size = {i: bpe[kind][i] / bpe[ref][i] for i in bpe[kind] if i in bpe[ref]}
    kept = {i: r["events"] for i, r in enumerate(runs[kind]) if not r.get("error")}
    return [
        judged(f"{who}: cost per kept event ≤ perf record's, both keeping every event", runs,
               ("untraced", ref, kind), x, "<=", 1.0, m_cost),
        judged(f"{who}: bytes per event kept ≤ 1/10 of perf record -z", runs, (ref, kind), size, "<=", 0.1,
               f"{fmt(med(bpe[kind].values()), 2)} vs {fmt(med(bpe[ref].values()), 1)} B/event"),
        judged(f"{who}: keeps every hit", runs, (kind,), kept, "==", hits,
               f"{fmt(min(kept.values()) if kept else None)}–{fmt(max(kept.values()) if kept else None)} "
               f"events of {hits:,} hits", judge.EVERY_ROUND),
    ]


def oracle_of(args, runs, report):
    """Each usdt-record kind's oracle verdicts over the last round's
    recordings, against perf record -m's; (verdicts, mismatch lines)."""
    last = {k: runs[k][-1] for k in ("perf-bigring", *USDT_KINDS)}
    if last["perf-bigring"].get("error"):
        return [], ["- no oracle: the last round of perf record -m failed"]
    theirs = perf_stacks(last["perf-bigring"]["file"])
    found, lines = [], []
    for kind in USDT_KINDS:
        if last[kind].get("error"):
            lines.append(f"- no oracle for {label(kind)}: its last round failed")
            continue
        v, more = oracle_verdicts(args.mode, kind, usdt_stacks(report, last[kind]["file"]), theirs)
        found, lines = found + v, lines + more
    return found, lines


def oracle_verdicts(mode, kind, ours, theirs):
    """Whole-stack agreement of one usdt-record kind with perf script and
    with the workload's own call paths; (verdicts, mismatch lines)."""
    n, same, bad = stack_names.agreement(ours, theirs)
    share = same / n if n else None
    own = {i for i in ours if stack_names.follows_path(ours[i], PATHS[i % 4])}
    own_share = len(own) / len(ours) if ours else None
    who = f"-g {mode}, {label(kind)}"
    out = [judge.judge(f"{who}: frames name the same functions as perf script's, whole stacks, for ≥ 99% of "
                       "events", [share], ">=", 0.99, f"{same:,} of {n:,} events agree ({len(ours):,} recorded by "
                       f"{label(kind)}, {len(theirs):,} by perf record -m)", judge.EVERY_ROUND),
           judge.judge(f"{who}: frames follow the workload's own call path (leaf to main) for ≥ 99% of events",
                       [own_share], ">=", 0.99, f"{len(own):,} of {len(ours):,} events", judge.EVERY_ROUND)]
    off = [i for i in sorted(ours) if i not in own][:3]
    lines = [f"- {label(kind)}, mismatch at i={i}: perf {theirs[i]} / usdt {ours[i]}" for i in bad]
    lines += [f"- {label(kind)}, off the call path at i={i}: usdt {ours[i]}, path {PATHS[i % 4]}" for i in off]
    return out, lines


def document(args, runs, found, mismatches):
    lines = [f"# Call stacks: usdt-record (--capture sample, bpf) vs perf record, --call-graph {args.mode}", "",
             f"Workload bench/workloads/stacks.c, {args.hits:,} hits, {args.rounds} interleaved rounds. "
             "Each verdict: met only when the whole interval is inside the bound (bench/README.md, \"How sure\").",
             "", "| target | verdict | median and interval | measured |", "|---|---|---|---|"]
    for v in found:
        lines.append(f"| {v['target']} | {v['status']} | {judge.interval_text(v)} | {v['measured']} |")
    lines += ["", "| tool | failed rounds | events kept, each round | cost per kept event ns, each round |",
              "|---|---|---|---|"]
    for kind in KINDS[1:]:
        errors = [r["error"] for r in runs[kind] if r.get("error")]
        c = cost_per_kept(runs, kind)
        lines.append(f"| {kind} | {len(errors)}{': ' + errors[0] if errors else ''} | "
                     f"{', '.join(fmt(r.get('events')) for r in runs[kind])} | "
                     f"{', '.join(fmt(c.get(i)) for i in range(len(runs[kind])))} |")
    return "\n".join(lines + [""] + mismatches) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--hits", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
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
    events = tools.UprobeEvents()
    try:
        work = os.path.join(tmp, "stacks")
        flags = ["-fno-omit-frame-pointer"] if args.mode == "fp" else ["-fomit-frame-pointer"]
        r = run(["cc", "-O2", "-g", *flags, "-o", work, os.path.join(ROOT, "bench", "workloads", "stacks.c")])
        if r.returncode != 0:
            raise SystemExit(f"bench: error: cannot build the workload: {r.stderr.strip()}")
        event = events.add(work, "bench_stack", "hit")[0]
        runs = {k: [] for k in KINDS}
        for n in range(args.rounds):
            order = list(KINDS)
            random.Random(n).shuffle(order)
            for kind in order:
                runs[kind].append(run_once(kind, args, work, tmp, record, report, event))
            print(f"bench: round {n + 1}/{args.rounds} done", file=sys.stderr)
        oracle, mismatches = oracle_of(args, runs, report)
    finally:
        events.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    text = document(args, runs, verdicts_of(args, runs, oracle), mismatches)
    print(text)
    with open(args.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
