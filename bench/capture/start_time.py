#!/usr/bin/env python3
"""How long usdt-record takes to start, per capture path: from its exec to
its "recording" line (the probes armed), with the command it runs started
but doing nothing yet, in interleaved rounds. The BPF path loads its
programs there: the registers-only one alone, or with the faulting one
(memory and strings), whose kfunc makes libbpf parse the kernel's BTF.

    sudo python3 bench/capture/start_time.py --record build/record/usdt-record [--rounds 9]

Prints a table of the median and range per configuration (milliseconds).
Needs root (uprobes, BPF). Compare within one run: the host's speed drifts.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# (label, usdt-record arguments before -o)
CONFIGS = [
    ("sampled path", ["--capture", "sample", "-e", "bench_stack:hit"]),
    ("BPF path, registers", ["--capture", "bpf", "-e", "bench_stack:hit"]),
    ("BPF path, a string argument", ["--capture", "bpf", "-e", "bench_stack:hit",
                                     "--string", "bench_stack:hit=arg0"]),
    ("BPF path, registers, -g", ["--capture", "bpf", "-e", "bench_stack:hit", "-g"]),
]


def start_ms(record, args, work, out):
    """Milliseconds from exec to usdt-record's "recording" line."""
    t0 = time.monotonic()
    p = subprocess.Popen([record, *args, "-o", out, "--", work, "-n", "1"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    took = None
    for line in p.stderr:
        if took is None and line.startswith("usdt-record: recording"):
            took = (time.monotonic() - t0) * 1000
    if p.wait() != 0 or took is None:
        raise SystemExit(f"bench: error: usdt-record {' '.join(args)} failed (exit {p.returncode})")
    return took


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--record", required=True, help="the usdt-record to measure")
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="usdt-bench-start.") as tmp:
        work = os.path.join(tmp, "stacks")
        subprocess.run(["cc", "-O2", "-o", work, os.path.join(ROOT, "bench", "workloads", "stacks.c")],
                       check=True)
        times = {label: [] for label, _ in CONFIGS}
        for _ in range(args.rounds):
            for label, extra in CONFIGS:
                times[label].append(start_ms(args.record, extra, work, os.path.join(tmp, "t.trace")))
    print("| configuration | start, ms: median (min–max) |")
    print("|---|---|")
    for label, xs in times.items():
        print(f"| {label} | {statistics.median(xs):.0f} ({min(xs):.0f}–{max(xs):.0f}) |")


if __name__ == "__main__":
    sys.exit(main())
