#!/usr/bin/env python3
"""The always-on soak: a recording that runs for minutes stays bounded.

    sudo python3 bench/always_on/soak.py [--record BUILD/usdt-record] [--minutes 10]
                                         [--rate 20000] [--rounds 1] [--output FILE]

A steady workload (bench/workloads/paced.c: bench:hit2 at --rate hits a second)
runs --minutes under usdt-record in each of three configurations, one after the
other in a shuffled order each round:

    plain    one trace file, as a reference
    flight   --flight-recorder 64M
    series   --switch-output 100M --max-files 3

and once untraced. While each runs, the recorder's RSS (VmRSS), its open file
descriptors and its CPU time (utime + stime of every thread, /proc/PID/stat)
are read every second, with the bytes on disk in its output directory. The
table compares minute 1 with the last minute; the targets (bench/lib/judge.py,
"every round": a fact that must hold in each round):

    RSS in the last minute / RSS at minute 1                 <= 1.10  (flat; plain, series)
    flight: RSS in the last minute - RSS at minute 1         <= 64 MiB (its ring fills, at
      20,000 hits/s for most of an hour: bounded by its size, not flat)
    open fds, last minute - minute 1                         == 0
    recorder CPU per event, last minute / minute 1           <= 1.10  (flat)
    disk: flight, while recording                            == 0 (nothing until a snapshot)
    disk: series, at most                                    <= 3 x 100 MiB + the part written
    the workload's per-hit cost over plain's (same round)    <= 1.05
      per-hit cost = (workload CPU per hit traced - untraced), CPU of the
      workload process, where the trap and the sample are paid

With --minutes 10 and --rounds 1 it takes some 45 minutes; --minutes 0.5 makes a
sanity check: below 2 minutes "minute 1" and "the last minute" are a sixth of the
run each (5 s from the 5th second, and the last 5 s). The recorder's CPU time is
read in clock ticks (utime + stime: 10 ms), so a few seconds' window holds only a
few ticks and its CPU per event is coarse; a 60 s window is fine enough.
Results go to stdout and, with --output, to a markdown file with the command.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import judge  # noqa: E402

CONFIGS = {
    "plain": [],
    "flight": ["--flight-recorder", "64M"],
    "series": ["--switch-output", "100M", "--max-files", "3"],
}
SERIES_BOUND = 4 * 100 * 2**20  # 3 kept parts and the one being written


def build_workload(tmp):
    out = os.path.join(tmp, "paced")
    subprocess.run(["cc", "-O2", "-o", out, os.path.join(HERE, "..", "workloads", "paced.c")],
                   check=True)
    return out


def proc_sample(pid):
    """(rss bytes, open fds, cpu ns) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            rss = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS:"))
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) * 1_000_000_000 // os.sysconf("SC_CLK_TCK")
        return rss, fds, cpu
    except (OSError, StopIteration, IndexError):
        return None


def disk_bytes(directory):
    total = 0
    for name in os.listdir(directory):
        try:
            total += os.path.getsize(os.path.join(directory, name))
        except OSError:
            pass
    return total


def run_one(recorder, workload, config, seconds, rate, tmp):
    """One run: the workload's paced lines and the recorder's samples."""
    out_dir = tempfile.mkdtemp(dir=tmp, prefix=f"{config}.")
    work = [workload, "-r", str(rate), "-d", str(seconds), "-i", "1000"]
    if config == "untraced":
        argv = work
    else:
        argv = [recorder, "-q", "-e", "bench:hit2", "-o", os.path.join(out_dir, "soak.trace")]
        argv += CONFIGS[config] + ["--"] + work
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = []  # (t, rss, fds, cpu, disk)
    stop = threading.Event()

    def sample():
        t0 = time.monotonic()
        while not stop.is_set():
            s = proc_sample(p.pid) if config != "untraced" else None
            if s is not None:
                samples.append((time.monotonic() - t0, *s, disk_bytes(out_dir)))
            stop.wait(1.0)

    sampler = threading.Thread(target=sample)
    sampler.start()
    lines = [json.loads(l) for l in p.stdout if l.startswith("{")]
    err = p.stderr.read()
    p.wait()
    stop.set()
    sampler.join()
    if p.returncode != 0:
        raise RuntimeError(f"{config}: exit {p.returncode}: {err.strip()[-400:]}")
    after_exit = disk_bytes(out_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    return {"lines": [l for l in lines if l.get("phase") == "paced"], "samples": samples,
            "disk_after_exit": after_exit}


def window(run, first, span):
    """Hits, workload CPU and recorder figures in [first, first + span) s of the paced phase."""
    lines = run["lines"]
    a = min(lines, key=lambda l: abs(l["t_ns"] / 1e9 - first))
    b = min(lines, key=lambda l: abs(l["t_ns"] / 1e9 - (first + span)))
    hits = b["hits"] - a["hits"]
    return {"hits": hits, "workload_cpu_per_hit": (b["cpu_ns"] - a["cpu_ns"]) / max(hits, 1)}


def recorder_window(run, first, span):
    s = [x for x in run["samples"] if first <= x[0] < first + span]
    if len(s) < 2:
        return None
    return {"rss": max(x[1] for x in s), "fds": s[-1][2], "cpu": s[-1][3] - s[0][3],
            "seconds": s[-1][0] - s[0][0]}


def summarize(runs, minute):
    """Per round and config: the figures the targets bound."""
    out = []
    for rnd in runs:
        seconds = max(l["t_ns"] for l in rnd["untraced"]["lines"]) / 1e9
        base = window(rnd["untraced"], 0, seconds)["workload_cpu_per_hit"]
        row = {}
        for config in CONFIGS:
            run = rnd[config]
            # Minute 1 from the 5th second: the start-up (attach) is not a minute's work.
            lead = min(5, minute)
            first = recorder_window(run, lead, minute)
            last = recorder_window(run, seconds - minute, minute)
            cost = window(run, 0, seconds)["workload_cpu_per_hit"] - base
            f = {"cost_ns": cost, "disk_max": max(x[4] for x in run["samples"]),
                 "disk_after_exit": run["disk_after_exit"]}
            if first and last:
                hits_1 = window(run, lead, first["seconds"])["hits"]
                hits_n = window(run, seconds - last["seconds"], last["seconds"])["hits"]
                f.update(rss_1=first["rss"], rss_n=last["rss"], fds_1=first["fds"], fds_n=last["fds"],
                         cpu_event_1=first["cpu"] / max(hits_1, 1),
                         cpu_event_n=last["cpu"] / max(hits_n, 1))
            row[config] = f
        out.append(row)
    return out


def verdicts(rows):
    v = []
    for config in CONFIGS:
        rs = [r[config] for r in rows]
        if config == "flight":
            v.append(judge.judge("flight: RSS last minute - minute 1 <= 64 MiB (the ring's size)",
                                 [r["rss_n"] - r["rss_1"] if r.get("rss_1") else None for r in rs],
                                 "<=", 64 * 2**20, "VmRSS", judge.EVERY_ROUND))
        else:
            v.append(judge.judge(f"{config}: RSS last minute / minute 1 <= 1.10",
                                 [r.get("rss_n", 0) / r["rss_1"] if r.get("rss_1") else None
                                  for r in rs], "<=", 1.10, "VmRSS", judge.EVERY_ROUND))
        v.append(judge.judge(f"{config}: open fds, last minute - minute 1 == 0",
                             [r["fds_n"] - r["fds_1"] if "fds_1" in r else None for r in rs],
                             "==", 0, "/proc/PID/fd", judge.EVERY_ROUND))
        v.append(judge.judge(f"{config}: recorder CPU per event, last minute / minute 1 <= 1.10",
                             [r["cpu_event_n"] / r["cpu_event_1"] if r.get("cpu_event_1") else None
                              for r in rs], "<=", 1.10, "utime+stime", judge.EVERY_ROUND))
        if config != "plain":
            v.append(judge.judge(f"{config}: workload per-hit cost / plain's <= 1.05",
                                 [r[config]["cost_ns"] / r["plain"]["cost_ns"]
                                  if r["plain"]["cost_ns"] > 0 else None for r in rows],
                                 "<=", 1.05, "workload CPU per hit above untraced",
                                 judge.EVERY_ROUND))
    v.append(judge.judge("flight: bytes on disk while recording == 0",
                         [r["flight"]["disk_max"] for r in rows], "==", 0, "output directory",
                         judge.EVERY_ROUND))
    v.append(judge.judge("series: bytes on disk <= 3 x 100 MiB + the part written",
                         [r["series"]["disk_max"] for r in rows], "<=", SERIES_BOUND,
                         "output directory", judge.EVERY_ROUND))
    return v


def table(rows, v, command):
    t = [f"# Always-on soak\n\n    {command}\n",
         "| round | config | RSS min 1 | RSS last | fds 1/last | CPU ns/event min 1 | last | "
         "workload cost ns/hit | disk max | disk after exit |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for n, row in enumerate(rows, 1):
        for config, r in row.items():
            t.append(f"| {n} | {config} | {judge.number(r.get('rss_1', 0))} | "
                     f"{judge.number(r.get('rss_n', 0))} | {r.get('fds_1')}/{r.get('fds_n')} | "
                     f"{judge.number(r.get('cpu_event_1', 0))} | {judge.number(r.get('cpu_event_n', 0))} | "
                     f"{judge.number(r['cost_ns'])} | {judge.number(r['disk_max'])} | "
                     f"{judge.number(r['disk_after_exit'])} |")
    t += ["", "| target | verdict | measured |", "|---|---|---|"]
    for x in v:
        t.append(f"| {x['target']} | {x['status']} | {judge.interval_text(x)} |")
    return "\n".join(t) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", default=os.path.join(HERE, "..", "..", "build", "record",
                                                     "usdt-record"))
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--rate", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--output")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("soak: error: needs root (uprobes)\nhint: run it with sudo")
    seconds = int(args.minutes * 60)
    minute = 60 if args.minutes >= 2 else max(seconds // 6, 2)
    tmp = tempfile.mkdtemp(prefix="usdt-soak.")
    try:
        workload = build_workload(tmp)
        runs = []
        for n in range(args.rounds):
            order = ["untraced"] + list(CONFIGS)
            random.shuffle(order)
            rnd = {}
            for config in order:
                print(f"round {n + 1}: {config} for {seconds} s", file=sys.stderr, flush=True)
                rnd[config] = run_one(os.path.abspath(args.record), workload, config, seconds,
                                      args.rate, tmp)
            runs.append(rnd)
        rows = summarize(runs, minute)
        text = table(rows, verdicts(rows), " ".join(["python3"] + sys.argv))
        print(text)
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
