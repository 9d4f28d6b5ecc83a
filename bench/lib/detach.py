"""Detach: how long usdt-record takes to go away after a recording of all of
PostgreSQL's probe sites (`-e 'postgresql:*' -p POSTMASTER`).

Each round attaches usdt-record to the postmaster of the throwaway cluster,
runs a short pgbench so that the backends it forks inherit the events, sends
SIGINT and times, from a thread that stamps every line usdt-record writes on
stderr:

    SIGINT -> exit            what a user waits for at Ctrl-C
    final report line -> exit the recorder's own wait after its last word
    exit -> events gone       the background child ("usdt-detach") closing
                              the perf events and deleting the tracefs group
                              usdtrec_<pid>_* after the recorder has exited
"""
import os
import re
import signal
import statistics
import subprocess
import threading
import time

import judge
import tools


def group_lines(pid):
    """Lines of uprobe_events that belong to the recorder with this pid."""
    try:
        with open(os.path.join(tools.TRACEFS, "uprobe_events")) as f:
            return [l for l in f if re.match(rf"[pr]:usdtrec_{pid}_\d+/", l)]
    except OSError:
        return []


def one_round(record_bin, cluster, out, pg_transactions, timeout_s=60):
    if os.path.exists(out):
        os.unlink(out)
    argv = [record_bin, "-o", out, "-e", "postgresql:*", "-p", str(cluster.postmaster_pid())]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    lines = []  # (monotonic ns, text)
    ready = threading.Event()

    def reader():
        for raw in proc.stderr:
            lines.append((time.monotonic_ns(), raw.decode(errors="replace").rstrip()))
            if "Ctrl-C to end" in lines[-1][1]:
                ready.set()
        ready.set()

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    if not ready.wait(timeout_s) or proc.poll() is not None:
        proc.kill()
        proc.wait()
        return {"error": "usdt-record did not start: " + (lines[-1][1] if lines else "no output")}
    sites = len(group_lines(proc.pid))
    pg = cluster.pgbench(pg_transactions)
    t_sig = time.monotonic_ns()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return {"error": f"did not exit within {timeout_s} s of SIGINT"}
    t_exit = time.monotonic_ns()
    th.join(5)
    t_gone = None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not group_lines(proc.pid):
            t_gone = time.monotonic_ns()
            break
        time.sleep(0.01)
    after = [t for t, _ in lines if t >= t_sig]
    m = re.search(r"(\d+) events recorded", "\n".join(l for _, l in lines))
    return {"sites": sites, "rc": proc.returncode, "events": int(m.group(1)) if m else None,
            "tps": pg.get("tps"), "pg_error": pg.get("error"),
            "sigint_to_exit_s": (t_exit - t_sig) / 1e9,
            "last_line_to_exit_s": (t_exit - after[-1]) / 1e9 if after else None,
            "exit_to_gone_s": (t_gone - t_exit) / 1e9 if t_gone else None,
            "sigint_to_gone_s": (t_gone - t_sig) / 1e9 if t_gone else None,
            "last_line": lines[-1][1] if lines else ""}


def run(record_bin, cluster, rounds, pg_transactions, work, log):
    runs = []
    for rnd in range(rounds):
        r = one_round(record_bin, cluster, os.path.join(work, "detach.trace"), pg_transactions)
        r["round"] = rnd
        runs.append(r)
        log(f"  round {rnd + 1} detach: " + (r["error"] if r.get("error") else
                                             f"{r['sites']} events defined, SIGINT->exit "
                                             f"{r['sigint_to_exit_s']:.3f} s, last line->exit "
                                             f"{r['last_line_to_exit_s']:.3f} s, exit->tracefs clean "
                                             f"{r['exit_to_gone_s']} s"))
    return runs


def _rng(xs, digits=3):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "n/a"
    return f"{statistics.median(xs):.{digits}f} ({min(xs):.{digits}f}–{max(xs):.{digits}f})"


def table(runs, cpus):
    good = [r for r in runs if not r.get("error")]
    lines = [f"### Detach: usdt-record -e 'postgresql:*' -p POSTMASTER, {cpus} CPUs", ""]
    if not good:
        return lines + [f"not available: {runs[0]['error'] if runs else 'no run'}"]
    lines += ["Seconds, median (min–max) over the rounds; each round records a short pgbench, then SIGINT.", "",
              "| tracefs events defined | events recorded | SIGINT → exit | final report line → exit | "
              "exit → tracefs events gone (usdt-detach) | SIGINT → events gone |", "|---|---|---|---|---|---|",
              f"| {', '.join(str(s) for s in sorted({r['sites'] for r in good}))} | "
              f"{', '.join(f'{e:,}' for e in sorted({r['events'] for r in good if r['events'] is not None}))} | "
              f"{_rng([r['sigint_to_exit_s'] for r in good])} | {_rng([r['last_line_to_exit_s'] for r in good])} | "
              f"{_rng([r['exit_to_gone_s'] for r in good])} | {_rng([r['sigint_to_gone_s'] for r in good])} |"]
    bad = [r for r in runs if r.get("error")]
    if bad:
        lines += ["", f"{len(bad)} round(s) failed: {bad[0]['error']}"]
    return lines


def targets(runs):
    """SIGINT to exit within the bound in every round (a user waits for the
    slowest); a failed round is counted."""
    title = "detach: PostgreSQL's 71 sites, SIGINT to exit ≤ 1 s"
    good = [r for r in runs if not r.get("error")]
    failed = len(runs) - len(good)
    x = [r["sigint_to_exit_s"] for r in good]
    if not good:
        meas = runs[0]["error"] if runs else "not run"
    else:
        meas = (f"median {statistics.median(x):.3f} s, max {max(x):.3f} s over {len(x)} rounds "
                f"({good[0]['sites']} events); final report line → exit "
                f"{_rng([r['last_line_to_exit_s'] for r in good])} s; the background detach until the tracefs "
                f"events are gone: {_rng([r['exit_to_gone_s'] for r in good])} s after the exit")
        if failed:
            meas += f"; first error: {next(r['error'] for r in runs if r.get('error'))}"
    return [judge.judge(title, x, "<=", 1.0, meas, judge.EVERY_ROUND, planned=len(runs), failed=failed)]
