"""Isolation: what a recording of one process costs another process that
runs the same binary but is not traced.

Each round starts an idle instance of bench/workloads/loop.c (`loop -w`,
the one recorded) and, with a tool attached to it, runs a second instance
that fires bench:hit2 HITS times; its firing-loop time is what is compared.
The conditions, in a new shuffled order each round:

    nobody      no tool attached (the untraced speed)
    usdt -p     usdt-record -p IDLE_PID (per-task tracefs events)
    perf -p     perf record -p IDLE_PID on the same sdt event
    usdt -a     usdt-record -a (system-wide: the untraced process takes the
                trap at every hit; what -p avoids)

The untraced instance runs REPS times per condition and the fastest run
counts (a firing loop of a few ms is easily preempted on the shared VM);
under -a it runs once, and at most ALL_HITS hits, its cost being a thousand
times larger: the ratios compare time per hit. HITS must make the untraced
loop long enough to time to 2 %: 1,000,000 hits took 0.4 ms, and the
per-round ratios of -p spread from 0.75 to 1.49 (2026-12-02); the default
is 100,000,000 (about 40 ms).
"""

ALL_HITS = 1000000
import os
import random
import signal
import statistics
import subprocess
import tempfile

import targets as targets_lib
import tools


def fire(loop_bin, hits, reps):
    """Runs the untraced instance reps times; the fastest firing loop."""
    best = None
    with tempfile.TemporaryDirectory(prefix="usdt-bench-iso-") as d:
        for i in range(reps):
            path = os.path.join(d, f"r{i}.json")
            r = subprocess.run([loop_bin, "-n", str(hits)], env=dict(os.environ, BENCH_RESULT=path),
                               capture_output=True, text=True)
            wl = tools.read_workload_result(path)
            if r.returncode != 0 or wl is None:
                return {"error": f"loop failed: {tools.last_line(r.stderr)}"}
            if best is None or wl["loop_ns"] < best["loop_ns"]:
                best = wl
    return {"loop_ns": best["loop_ns"], "workload_cpu_ns": best["utime_ns"] + best["stime_ns"],
            "hits": hits}


def run(workload, tool_list, loop_bin, rounds, hits, reps, work, log):
    """Returns {tool name: [run]} with loop_ns of the untraced instance per
    round (tool "untraced" = nobody attached), or {"unavailable": why}."""
    res = {}
    usable = []
    for t in tool_list:
        reason = t.available()
        if reason is None:
            try:
                t.prepare(workload, t.ctx)
            except tools.ToolError as e:
                reason = str(e)
        if reason:
            res[t.name] = {"unavailable": reason}
        else:
            usable.append(t)
            res[t.name] = []
    for rnd in range(rounds):
        order = list(usable)
        random.Random(100 + rnd).shuffle(order)
        for t in order:
            idle = subprocess.Popen([loop_bin, "-w", "3600", "-n", "1"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
            out = os.path.join(work, f"isolation.{t.name}.out")
            system_wide = t.name == "usdt-record-a"
            n = 1 if system_wide else reps
            h = min(hits, ALL_HITS) if system_wide else hits
            try:
                r = tools.run_attach_mode(t, workload, out, idle.pid, lambda: fire(loop_bin, h, n))
            except (tools.ToolError, OSError, ValueError) as e:
                r = {"error": str(e)}
            finally:
                idle.send_signal(signal.SIGKILL)
                idle.wait()
            for ext in ("", ".stdout", ".stderr", ".rss", ".ctl", ".ack"):
                if os.path.exists(out + ext):
                    os.unlink(out + ext)
            r["round"] = rnd
            res[t.name].append(r)
            log(f"  round {rnd + 1} {t.name}: " + (r["error"] if r.get("error") else
                                                   f"untraced instance {r['loop_ns'] / 1e6:.2f} ms, "
                                                   f"tool events {r.get('events')}"))
    return res


def per_hit(r):
    return r["loop_ns"] / r.get("hits", 1)


def ratios(res, tool):
    """{round: loop time per hit of the untraced instance with `tool` attached
    to the other instance / with nobody attached}."""
    base = {r["round"]: per_hit(r) for r in res.get("untraced", []) if not r.get("error")}
    runs = res.get(tool)
    if not isinstance(runs, list):
        return {}
    return {r["round"]: per_hit(r) / base[r["round"]] for r in runs
            if not r.get("error") and base.get(r["round"])}


def table(res, labels, hits, reps):
    def rng(xs, digits):
        xs = list(xs)
        if not xs:
            return "n/a"
        return (f"{statistics.median(xs):,.{digits}f} ({min(xs):,.{digits}f}–{max(xs):,.{digits}f})")

    lines = [f"### Isolation: an untraced `loop` ({hits:,} hits of bench:hit2) while a tool records "
             "another instance of the same binary", "",
             f"Time of the untraced instance's firing loop (fastest of {reps} runs per round; 1 run "
             f"of {min(hits, ALL_HITS):,} hits under -a) and its per-round ratio per hit to the same "
             "loop with nobody recording. The recorded instance sleeps (`loop -w`).", "",
             "| condition | failed rounds | untraced instance's loop ms, median (min–max) | × nobody recording, median "
             "(min–max) | events the tool recorded |", "|---|---|---|---|---|"]
    for name, runs in res.items():
        label = labels.get(name, name)
        if isinstance(runs, dict):
            lines.append(f"| {label} | n/a | not available: {runs['unavailable']} | | |")
            continue
        good = [r for r in runs if not r.get("error")]
        errors = [r["error"] for r in runs if r.get("error")]
        failed = f"{len(errors)} of {len(runs)}: {errors[0]}" if errors else "0"
        if not good:
            lines.append(f"| {label} | {failed} | no run succeeded | | |")
            continue
        ev = sorted({r.get("events") for r in good if r.get("events") is not None})
        lines.append(f"| {label} | {failed} | {rng([r['loop_ns'] / 1e6 for r in good], 3)} | "
                     f"{'1 (reference)' if name == 'untraced' else rng(ratios(res, name).values(), 3)} | "
                     f"{', '.join(f'{e:,}' for e in ev) if ev else 'n/a'} |")
    return lines


def targets(res):
    title = "isolation: untraced process during usdt-record -p of another ≤ 1.02 × its untraced time"
    x = ratios(res, "usdt-record")
    p, a = ratios(res, "perf"), ratios(res, "usdt-record-a")
    meas = f"{statistics.median(x.values()):.3f} ×" if x else "no ratio"
    if p:
        meas += f"; perf record -p: {statistics.median(p.values()):.3f} ×"
    if a:
        meas += f"; usdt-record -a: {statistics.median(a.values()):.1f} ×"
    return [targets_lib.over_rounds(title, res, ("untraced", "usdt-record"), x, "<=", 1.02, meas)]
