#!/usr/bin/env python3
"""How sure the benchmark is: each target's verdict over the last three full runs.

One run's numbers vary 20-30% on the shared VM, so a ratio near its limit can
fall either side from one run to the next. Every full run (bench.py with its
default workloads, tools and sizes) appends its verdicts to
bench/results/history.jsonl, one JSON object per run:

    {"date": "2026-11-29 13:22", "commit": "3d2bbd4", "source": "...",
     "verdicts": [{"target": "...", "status": "met", "measured": "..."}, ...]}

A target's overall verdict over the last three full runs is "met" only when
all three met it, "not met" when none did, "unstable" when they disagree,
and "too few runs" while fewer than three runs measured it.

    verdicts.py table [--history FILE]              the markdown table of the history
    verdicts.py backfill COMMIT... [--history FILE] append the runs whose
                                                    bench/results/latest.md a commit holds
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HISTORY = os.path.join(ROOT, "bench", "results", "history.jsonl")
RUNS_JUDGED = 3


def classify(status):
    """"met", "not met" or None (not available, partial, missing)."""
    s = (status or "").strip().lower()
    if s == "met":
        return "met"
    if s == "not met":
        return "not met"
    return None


def overall(statuses):
    """The verdict over the statuses of the last RUNS_JUDGED full runs (None
    for a run that did not have the target)."""
    kinds = [classify(s) for s in statuses]
    if "met" in kinds and "not met" in kinds:
        return "unstable"
    if len(kinds) < RUNS_JUDGED or None in kinds:
        return "too few runs"
    return kinds[0]


def load(path=HISTORY):
    """The runs of a history file, oldest first ([] when there is none).
    Raises ValueError naming the line that is not a run."""
    if not os.path.exists(path):
        return []
    runs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                run = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{path}:{n}: not JSON: {e}")
            if not isinstance(run, dict) or not isinstance(run.get("verdicts"), list):
                raise ValueError(f"{path}:{n}: not a run (no verdicts list)")
            runs.append(run)
    return runs


def append(run, path=HISTORY):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as f:
        f.write(json.dumps(run, ensure_ascii=False) + "\n")


def make_run(date, commit, targets, source):
    """A history entry from bench.py's (target, status, measured) triples."""
    return {"date": date, "commit": commit, "source": source,
            "verdicts": [{"target": t, "status": s, "measured": m} for t, s, m in targets]}


def run_label(run):
    return f"{run['date']} ({run['commit']})"


def table(full_runs, extra=None):
    """Markdown lines: per target, the status in each of the last RUNS_JUDGED
    full runs, the overall verdict, and what the newest run measured. extra
    is a run that is not in the history (a quick run): its statuses get a
    column of their own and its measurements are the ones shown, but it does
    not count in the verdict."""
    runs = full_runs[-RUNS_JUDGED:]
    shown = runs + ([extra] if extra else [])
    status = [{v["target"]: v["status"] for v in r["verdicts"]} for r in shown]
    newest = shown[-1] if shown else None
    measured = {v["target"]: v["measured"] for v in newest["verdicts"]} if newest else {}
    targets = []
    for r in reversed(shown):  # the newest run's order, then targets only older runs had
        for v in r["verdicts"]:
            if v["target"] not in targets:
                targets.append(v["target"])
    heads = [run_label(r) for r in runs] + ([f"this run, not a full run: {run_label(extra)}"] if extra else [])
    lines = ["| target | verdict, last " + f"{RUNS_JUDGED} full runs | " + " | ".join(heads) +
             " | measured, " + ("this run" if extra else "newest run") + " |",
             "|---|---|" + "---|" * len(heads) + "---|"]
    for t in targets:
        cells = [(st.get(t) or "n/a").lower() for st in status]
        verdict = overall([st.get(t) for st in status[:len(runs)]])
        lines.append(f"| {t} | {verdict} | " + " | ".join(cells) + f" | {measured.get(t, 'n/a')} |")
    return lines


def explain(n_full):
    """One sentence on how the verdict column reads."""
    return (f"Verdict over the last {RUNS_JUDGED} full runs of bench/run.sh ({n_full} in "
            "bench/results/history.jsonl): met only if met in all of them, not met if in none, unstable if "
            "they disagree, too few runs while fewer than three measured it.")


# ---------------------------------------------------------------- backfill

def parse_latest_md(text):
    """(date, commit, [(target, status, measured)]) from a latest.md written
    by bench.py. Raises ValueError when the text is not one."""
    m = re.search(r"^## Benchmark results — (\d{4}-\d\d-\d\d \d\d:\d\d)", text, re.M)
    c = re.search(r"; commit (\S+?);", text)
    if not m or not c:
        raise ValueError("no '## Benchmark results — DATE' heading or commit")
    section = text.split("### Targets", 1)
    if len(section) != 2:
        raise ValueError("no '### Targets' section")
    targets = []
    for line in section[1].splitlines():
        if line.startswith("### "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 3 or cells[0] in ("target", "---"):
            continue
        targets.append(tuple(cells))
    if not targets:
        raise ValueError("the Targets table is empty")
    return m.group(1), c.group(1), targets


def backfill(commits, path):
    known = {(r["date"], r["commit"]) for r in load(path)}
    for commit in commits:
        r = subprocess.run(["git", "-C", ROOT, "show", f"{commit}:bench/results/latest.md"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise ValueError(f"{commit}: {r.stderr.strip()}")
        try:
            date, measured_commit, targets = parse_latest_md(r.stdout)
        except ValueError as e:
            raise ValueError(f"{commit}:bench/results/latest.md: {e}")
        if (date, measured_commit) in known:
            print(f"verdicts: {commit}: the run of {date} is in the history already", file=sys.stderr)
            continue
        append(make_run(date, measured_commit, targets, f"git {commit}:bench/results/latest.md"), path)
        known.add((date, measured_commit))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["table", "backfill"])
    ap.add_argument("commits", nargs="*")
    ap.add_argument("--history", default=HISTORY)
    a = ap.parse_args(argv)
    try:
        if a.command == "backfill":
            backfill(a.commits, a.history)
        runs = load(a.history)
    except ValueError as e:
        print(f"verdicts: error: {e}", file=sys.stderr)
        return 1
    print(explain(len(runs)))
    print()
    print("\n".join(table(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
