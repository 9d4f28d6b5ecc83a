#!/usr/bin/env python3
"""Two builds of usdt-report side by side on one synthetic request trace.

Checks that a change of the reader keeps its speed: for summary, latency
and dump, the new build's events per CPU-second at -j 1 against the old
one's (target: at least 0.97), and each build's -j 2 speed-up over -j 1 in
wall time (target: the new one's at least the old one's). Each round runs
every configuration once, in a shuffled order, so that the machine's drift
falls on both builds alike; the verdict is the median ratio's interval over
the rounds (bench/lib/judge.py).

usage: sudo python3 bench/format/compare_reports.py OLD_REPORT NEW_REPORT
           [--events N] [--rounds R] [--pair-trace PATH]
The trace is written by pair_trace (bench/format, built when not given).
Needs a quiet machine: -j 2 on a busy one measures the other load.
"""
import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import judge  # noqa: E402

COMMANDS = {
    "summary": ["summary"],
    "latency": ["latency", "--start", "bench:start", "--end", "bench:done"],
    "dump": ["dump"],
}


def run_once(report, command, trace, jobs):
    """(wall seconds, CPU seconds) of one run, its output to /dev/null."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([report, *COMMANDS[command], "-j", str(jobs), trace],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def build_pair_trace(root):
    build = os.path.join(root, "build-bench-format")
    subprocess.run(["cmake", "-S", os.path.join(root, "bench", "format"), "-B", build,
                    "-DCMAKE_BUILD_TYPE=Release"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "-j2", "--target", "pair_trace"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build, "pair_trace")


def measure(builds, trace, rounds):
    """times[(build, command, jobs)] = [(wall, cpu), ...], one per round."""
    times = {}
    configs = [(b, c, j) for b in builds for c in COMMANDS for j in (1, 2)]
    for r in range(rounds):
        random.shuffle(configs)
        for b, c, j in configs:
            times.setdefault((b, c, j), []).append(run_once(builds[b], c, trace, j))
        print(f"round {r + 1}/{rounds} done", file=sys.stderr)
    return times


def verdict_line(name, values, op, bound):
    v = judge.judge(name, values, op, bound, measured="per round", rule=judge.MEDIAN)
    lo_hi = v["interval"]
    interval = f"[{lo_hi[0]:.3f}, {lo_hi[1]:.3f}]" if lo_hi else "none"
    estimate = "none" if v["estimate"] is None else f"{v['estimate']:.3f}"
    return f"| {name} | {estimate} | {interval} | {op} {bound} | {v['status']} |"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--pair-trace")
    args = ap.parse_args()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    pair_trace = args.pair_trace or build_pair_trace(root)
    with tempfile.TemporaryDirectory() as work:
        trace = os.path.join(work, "pairs.trace")
        subprocess.run([pair_trace, trace, str(args.events)], check=True,
                       stdout=subprocess.DEVNULL)
        os.sync()
        times = measure({"old": args.old, "new": args.new}, trace, args.rounds)
    print(f"{args.events} events, {args.rounds} rounds, interleaved and shuffled\n")
    print("| command | old -j 1 M ev/CPU-s | new -j 1 M ev/CPU-s | old -j 2 speed-up | "
          "new -j 2 speed-up |")
    print("|---|---|---|---|---|")
    for c in COMMANDS:
        rate = {b: statistics.median(args.events / cpu / 1e6 for _, cpu in times[(b, c, 1)])
                for b in ("old", "new")}
        speedup = {b: statistics.median(w1 / w2 for (w1, _), (w2, _) in
                                        zip(times[(b, c, 1)], times[(b, c, 2)]))
                   for b in ("old", "new")}
        print(f"| {c} | {rate['old']:.1f} | {rate['new']:.1f} | {speedup['old']:.2f} x | "
              f"{speedup['new']:.2f} x |")
    print("\n| target (per round: new / old) | median | 90% interval | bound | verdict |")
    print("|---|---|---|---|---|")
    for c in COMMANDS:
        # CPU time per event, old over new: the new build's speed relative to the old.
        cpu_ratio = [old[1] / new[1] for old, new in zip(times[("old", c, 1)], times[("new", c, 1)])]
        print(verdict_line(f"{c} -j 1 events/CPU-s, new/old", cpu_ratio, ">=", 0.97))
        old_up = [w1 / w2 for (w1, _), (w2, _) in zip(times[("old", c, 1)], times[("old", c, 2)])]
        new_up = [w1 / w2 for (w1, _), (w2, _) in zip(times[("new", c, 1)], times[("new", c, 2)])]
        print(verdict_line(f"{c} -j 2 speed-up, new/old", [n / o for n, o in zip(new_up, old_up)],
                           ">=", 0.97))


if __name__ == "__main__":
    main()
