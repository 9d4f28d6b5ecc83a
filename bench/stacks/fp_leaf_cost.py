#!/usr/bin/env python3
"""What -g fp costs per hit at a leaf site, where it reads the caller's return
address from the stack (8 bytes of PERF_SAMPLE_STACK_USER), and at a site
whose frame is set up, where its sample is as it was: two usdt-record builds
(OLD, before the change; NEW) on the same workload (bench/stacks/fp_leaf.c,
-O2 -fno-omit-frame-pointer), in interleaved rounds.

    sudo python3 bench/stacks/fp_leaf_cost.py --old OLD/usdt-record --new NEW/usdt-record
                                              [--hits N] [--rounds N]

Each round runs, in a shuffled order, the workload untraced and under each
build for each site. Per-hit cost = (traced - untraced) / hits, of the
workload's CPU time (the trap and the sample are its system time; other load
on the machine disturbs it less than the wall time) and of its firing loop's
wall time. Prints per site the median costs, the median of the per-round
ratios NEW / OLD and their range. Numbers compare within one run only (the host's uprobe
cost drifts between days).
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(argv):
    """The workload's {"loop_ns", "cpu_ns"}."""
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"fp_leaf_cost: error: {' '.join(argv[:3])} failed: {r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="usdt-record before the change")
    ap.add_argument("--new", required=True, help="usdt-record with it")
    ap.add_argument("--hits", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("fp_leaf_cost: error: needs root (uprobes)\nhint: run it with sudo")
    tmp = tempfile.mkdtemp(prefix="usdt-fp-leaf.")
    work = os.path.join(tmp, "fp_leaf")
    subprocess.run(["cc", "-O2", "-fno-omit-frame-pointer", "-o", work,
                    os.path.join(HERE, "fp_leaf.c")], check=True)
    trace = os.path.join(tmp, "t.trace")
    kinds = ["untraced", "old", "new"]
    sites = ["leaf", "framed"]
    loops = {(k, s): [] for k in kinds for s in sites}
    for n in range(args.rounds):
        order = [(k, s) for k in kinds for s in sites]
        random.shuffle(order)
        for kind, site in order:
            workload = [work, "-n", str(args.hits), "-s", site]
            if kind == "untraced":
                argv = workload
            else:
                recorder = args.old if kind == "old" else args.new
                argv = [recorder, "-q", "-g", "-e", f"bench_fp:{site}", "-o", trace, "--"] + workload
            loops[(kind, site)].append(measure(argv))
        print(f"fp_leaf_cost: round {n + 1}/{args.rounds} done", file=sys.stderr)
    print(f"-g fp, {args.hits:,} hits, {args.rounds} interleaved rounds (ns per hit above untraced)")
    print("| site | time | old | new | new / old, median of rounds | range |")
    print("|---|---|---:|---:|---:|---|")
    for site in sites:
        for what in ("cpu_ns", "loop_ns"):
            base = [m[what] for m in loops[("untraced", site)]]
            cost = {k: [(m[what] - u) / args.hits for m, u in zip(loops[(k, site)], base)]
                    for k in ("old", "new")}
            ratios = [n / o for n, o in zip(cost["new"], cost["old"]) if o > 0]
            print(f"| {site} | {what[:-3]} | {statistics.median(cost['old']):.0f} | "
                  f"{statistics.median(cost['new']):.0f} | {statistics.median(ratios):.3f} | "
                  f"{min(ratios):.3f}-{max(ratios):.3f} |")

if __name__ == "__main__":
    main()
