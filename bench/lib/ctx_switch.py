"""Context-switch cost of per-task vs per-CPU perf events, with usdt-record.

bench/workloads/pingpong.c bounces a byte between two processes pinned to
one CPU (two context switches per round trip) and fires its probes
bench:pingpong0..7 once each at the end, so a recording of them costs the
round trips nothing but its events' part of every context switch. In a new
shuffled order each round:

    untraced        taskset -c 0 pingpong
    per-task N      usdt-record -e SITES -- taskset -c 0 pingpong
                    (per-task tracefs events, inherited by the forked child)
    per-CPU N       usdt-record -a -e SITES, pingpong run beside it
                    (one event per site and CPU, for every process)

with N = 1 and 8 sites. Cost per context switch = (round trip traced -
untraced, same round) / 2, in wall time and in the CPU time of the two
pingpong processes (pingpong reports both; the CPU time leaves out the time
other jobs of the shared machine held the CPU).
"""
import os
import random
import re
import signal
import statistics
import subprocess
import time

CONDITIONS = [("untraced", None, 0), ("per-task 1", "task", 1), ("per-CPU 1", "cpu", 1),
              ("per-task 8", "task", 8), ("per-CPU 8", "cpu", 8)]


def _pingpong(argv_prefix, pingpong):
    r = subprocess.run(argv_prefix + ["taskset", "-c", "0", pingpong], capture_output=True, text=True,
                       timeout=300)
    m = re.search(r"(\d+) ns/roundtrip (\d+) cpu_ns/roundtrip", r.stdout)
    if r.returncode != 0 or not m:
        return None, (r.stderr.strip().splitlines() or ["no output"])[-1]
    return {"ns": int(m.group(1)), "cpu_ns": int(m.group(2))}, None


def one(record_bin, pingpong, mode, sites, out):
    probes = f"usdt:{pingpong}:bench:pingpong" + ("0" if sites == 1 else "*")
    if mode is None:
        return _pingpong([], pingpong)
    if mode == "task":
        return _pingpong([record_bin, "-o", out, "-e", probes, "--"], pingpong)
    proc = subprocess.Popen([record_bin, "-o", out, "-a", "-e", probes], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    # Ready once it says so on stderr.
    buf = b""
    deadline = time.monotonic() + 30
    while b"Ctrl-C to end" not in buf and time.monotonic() < deadline and proc.poll() is None:
        buf += proc.stderr.read1(4096) if hasattr(proc.stderr, "read1") else proc.stderr.read(1)
    if proc.poll() is not None or b"Ctrl-C to end" not in buf:
        proc.kill()
        proc.wait()
        return None, "usdt-record -a did not start: " + buf.decode(errors="replace")[-200:]
    try:
        return _pingpong([], pingpong)
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=60)


def run(record_bin, pingpong, rounds, work, log):
    """{condition: [{"round", "ns"} or {"round", "error"}]}"""
    res = {c: [] for c, _, _ in CONDITIONS}
    out = os.path.join(work, "ctx.trace")
    for rnd in range(rounds):
        order = list(CONDITIONS)
        random.Random(200 + rnd).shuffle(order)
        for name, mode, sites in order:
            r, err = one(record_bin, pingpong, mode, sites, out)
            res[name].append(dict(r, round=rnd) if err is None else {"round": rnd, "error": err})
            log(f"  round {rnd + 1} {name}: " + (err or f"{r['ns']} ns/roundtrip, {r['cpu_ns']} CPU ns"))
    if os.path.exists(out):
        os.unlink(out)
    return res


def per_switch(res, name, key="ns"):
    """Per-round extra ns per context switch against the untraced run of the
    same round (key "ns": wall time, "cpu_ns": CPU time)."""
    base = {r["round"]: r[key] for r in res["untraced"] if r.get(key)}
    return [(r[key] - base[r["round"]]) / 2 for r in res.get(name, [])
            if r.get(key) and r["round"] in base]


def _rng(xs, digits=0):
    if not xs:
        return "n/a"
    return f"{statistics.median(xs):,.{digits}f} ({min(xs):,.{digits}f}–{max(xs):,.{digits}f})"


def table(res, rounds):
    lines = ["### Context switches: per-task vs per-CPU events (bench/workloads/pingpong.c, one CPU)", "",
             f"{rounds} interleaved rounds; 100,000 round trips = 200,000 context switches per run; "
             "extra ns per context switch = (round trip − untraced round trip of the same round) / 2.", "",
             "| condition | wall ns per round trip, median (min–max) | extra wall ns per context switch | "
             "CPU ns per round trip (both processes) | extra CPU ns per context switch |",
             "|---|---|---|---|---|"]
    for name, _, _ in CONDITIONS:
        good = [r for r in res[name] if r.get("ns")]
        errs = [r["error"] for r in res[name] if r.get("error")]
        if not good:
            lines.append(f"| {name} | not available: {errs[0] if errs else 'no run'} | | | |")
            continue
        ref = name == "untraced"
        lines.append(f"| {name} | {_rng([r['ns'] for r in good])} | "
                     f"{'0 (reference)' if ref else _rng(per_switch(res, name))} | "
                     f"{_rng([r['cpu_ns'] for r in good])} | "
                     f"{'0 (reference)' if ref else _rng(per_switch(res, name, 'cpu_ns'))} |")
    return lines


def summary(res):
    """One line for the pgbench target's measurement."""
    parts = []
    for name in ("per-task 1", "per-CPU 1", "per-task 8", "per-CPU 8"):
        x, c = per_switch(res, name), per_switch(res, name, "cpu_ns")
        if x:
            parts.append(f"{name} {statistics.median(x):,.0f} ns wall / {statistics.median(c):,.0f} ns CPU")
    return ("extra cost per context switch, sites × per-task or per-CPU events (pingpong, medians): " +
            ", ".join(parts)) if parts else ""
