#!/usr/bin/env python3
"""A snapshot of a full 64 MiB flight recorder, taken while the workload runs.

    sudo python3 bench/always_on/snapshot.py [--record BUILD/usdt-record] [--rounds 7]
                                             [--fill 5000000] [--rate 20000] [--output FILE]

usdt-record --flight-recorder 64M records bench/workloads/paced.c: first --fill
hits of bench:fill with arguments that compress poorly (some 20 bytes an event:
the 64 MiB fill in seconds), then bench:hit2 at --rate hits a second. Each
round, while the paced phase runs, SIGUSR2 asks for a snapshot; the time from
the signal to the snapshot's file under its final name (renamed when complete)
is the write time, and the workload's per-hit cost in the second before the
signal is compared with its cost from the signal to the file (at least a
second). Per-hit cost = workload CPU per hit (user + system of the workload
process, where the trap and the sample are paid) minus the same workload's
untraced, measured in the same run. The snapshot file is removed after each
round. Targets (bench/lib/judge.py):

    snapshot of the full ring written in < 1 s          every round (<= 1.0 s)
    the ring was full: snapshot >= 60 MiB               every round
    per-hit cost during the snapshot / before it        median of the rounds <= 1.10

Results go to stdout and, with --output, to a markdown file with the command.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import judge  # noqa: E402

FULL_BYTES = 60 * 2**20


def build_workload(tmp):
    out = os.path.join(tmp, "paced")
    subprocess.run(["cc", "-O2", "-o", out, os.path.join(HERE, "..", "workloads", "paced.c")],
                   check=True)
    return out


class Lines:
    """The workload's JSON lines, read as they come."""

    def __init__(self, stream):
        self.lines = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for line in stream:
            if line.startswith("{"):
                with self.cond:
                    self.lines.append(json.loads(line))
                    self.cond.notify_all()

    def wait_for(self, pred, timeout):
        with self.cond:
            return self.cond.wait_for(lambda: any(pred(l) for l in self.lines), timeout)

    def cpu_per_hit(self, from_ns, to_ns):
        """Workload CPU per hit between two CLOCK_MONOTONIC times (the lines nearest them)."""
        with self.cond:
            paced = [l for l in self.lines if l.get("phase") == "paced"]
        a = min(paced, key=lambda l: abs(l["mono_ns"] - from_ns))
        b = min(paced, key=lambda l: abs(l["mono_ns"] - to_ns))
        hits = b["hits"] - a["hits"]
        return (b["cpu_ns"] - a["cpu_ns"]) / hits if hits > 0 else None


def untraced_cost(workload, rate):
    r = subprocess.run([workload, "-r", str(rate), "-d", "5", "-i", "1000"], capture_output=True,
                       text=True, check=True)
    lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    a, b = lines[0], lines[-1]
    return (b["cpu_ns"] - a["cpu_ns"]) / (b["hits"] - a["hits"])


def rounds(recorder, workload, args, tmp):
    out = os.path.join(tmp, "snap.trace")
    seconds = 40 + args.rounds * 6
    argv = [recorder, "-q", "-e", "bench:hit2", "-e", "bench:fill", "-o", out, "--flight-recorder",
            "64M", "--no-exit-snapshot", "--buffer-pages", "4096", "--", workload, "-f",
            str(args.fill), "-r", str(args.rate), "-d", str(seconds), "-i", "100"]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = Lines(p.stdout)
    results = []
    try:
        # Ten seconds into the paced phase: the writer has encoded the fill
        # (it lags behind a burst) and the ring holds 64 MiB.
        if not lines.wait_for(lambda l: l.get("phase") == "paced" and l["t_ns"] > 10e9, 600):
            raise RuntimeError("the workload did not reach its paced phase")
        for n in range(1, args.rounds + 1):
            t0 = time.monotonic_ns()
            p.send_signal(signal.SIGUSR2)
            path = os.path.join(tmp, f"snap.{n:04d}.trace")
            while not os.path.exists(path):
                if time.monotonic_ns() - t0 > 60e9:
                    raise RuntimeError(f"no {path} after 60 s")
                time.sleep(0.005)
            t1 = time.monotonic_ns()
            size = os.path.getsize(path)
            end = max(t1, t0 + 1_000_000_000)
            lines.wait_for(lambda l: l.get("mono_ns", 0) > end + 100_000_000, 30)
            results.append({"seconds": (t1 - t0) / 1e9, "bytes": size,
                            "before": lines.cpu_per_hit(t0 - 1_000_000_000, t0),
                            "during": lines.cpu_per_hit(t0, end)})
            os.unlink(path)
            time.sleep(1.0)
    finally:
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=600)[1]
    if p.returncode not in (0, 130):
        raise RuntimeError(f"usdt-record: exit {p.returncode}: {err.strip()[-400:]}")
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", default=os.path.join(HERE, "..", "..", "build", "record",
                                                     "usdt-record"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--fill", type=int, default=5_000_000)
    ap.add_argument("--rate", type=int, default=20000)
    ap.add_argument("--output")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("snapshot: error: needs root (uprobes)\nhint: run it with sudo")
    tmp = tempfile.mkdtemp(prefix="usdt-snapshot.")
    try:
        workload = build_workload(tmp)
        base = untraced_cost(workload, args.rate)
        res = rounds(os.path.abspath(args.record), workload, args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ratios = []
    for r in res:
        before, during = r["before"], r["during"]
        ok = before is not None and during is not None and before > base
        ratios.append((during - base) / (before - base) if ok else None)
    v = [judge.judge("snapshot of the full ring written in <= 1.0 s", [r["seconds"] for r in res],
                     "<=", 1.0, "SIGUSR2 to the file renamed", judge.EVERY_ROUND),
         judge.judge("the ring was full: snapshot >= 60 MiB", [r["bytes"] for r in res], ">=",
                     FULL_BYTES, "snapshot size", judge.EVERY_ROUND),
         judge.judge("workload per-hit cost during a snapshot / before <= 1.10", ratios, "<=",
                     1.10, "workload CPU per hit above untraced", planned=len(res))]
    t = [f"# Flight-recorder snapshot under load\n\n    python3 {' '.join(sys.argv)}\n",
         f"untraced workload: {judge.number(base)} CPU ns per hit\n",
         "| round | write s | bytes | cost before ns/hit | during ns/hit | ratio |",
         "|---|---|---|---|---|---|"]
    for n, (r, ratio) in enumerate(zip(res, ratios), 1):
        t.append(f"| {n} | {r['seconds']:.3f} | {judge.number(r['bytes'])} | "
                 f"{judge.number((r['before'] or 0) - base)} | {judge.number((r['during'] or 0) - base)} | "
                 f"{'n/a' if ratio is None else f'{ratio:.3f}'} |")
    t += ["", "| target | verdict | measured |", "|---|---|---|"]
    t += [f"| {x['target']} | {x['status']} | {judge.interval_text(x)} |" for x in v]
    text = "\n".join(t) + "\n"
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
