#!/usr/bin/env python3
"""How sure the benchmark is: each target's verdict over the last three full runs.

Each run judges every target from its rounds (judge.py: met only when the
whole confidence interval is inside the bound, not met when it is wholly
outside, unsure otherwise). A full run (bench.py with its default workloads,
tools and sizes) of a clean tree appends its verdicts to
bench/results/history.jsonl, one JSON object per run:

    {"date": "2026-11-29 13:22", "commit": "3d2bbd4", "source": "...",
     "verdicts": [{"target": "...", "status": "met", "measured": "...",
                   "interval": [0.99, 1.04], ...}, ...]}

Entries written before verdicts carried an interval have target, status and
measured only; they stay readable, marked † in the table. Runs of a tree
with uncommitted changes (commit "abc1234+changes") are never appended, and
any such entry of an older history is left out of the table: the commit
alone does not say what was measured.

A target's overall verdict over the last three full runs is "met" only when
all three met it, "not met" when all three did not, "unsure" when any was
unsure or they disagree, and "too few runs" while fewer than three runs
judged it.

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

import judge

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HISTORY = os.path.join(ROOT, "bench", "results", "history.jsonl")
RUNS_JUDGED = 3
DIRTY = "+changes"
NO_INTERVAL = "†"
INTERVAL_HEAD = "median and interval"


def classify(status):
    """"met", "not met", "unsure" or None (not available, partial, missing)."""
    s = (status or "").strip().lower().rstrip(NO_INTERVAL)
    return s if s in ("met", "not met", "unsure") else None


def overall(statuses):
    """The verdict over the statuses of the last RUNS_JUDGED full runs (None
    for a run that did not have the target)."""
    kinds = [classify(s) for s in statuses]
    if "met" in kinds and "not met" in kinds:
        return "unsure"
    if len(kinds) < RUNS_JUDGED or None in kinds:
        return "too few runs"
    return kinds[0] if len(set(kinds)) == 1 else "unsure"


def is_dirty(run):
    """Whether the run measured a tree with uncommitted changes."""
    return str(run.get("commit", "")).endswith(DIRTY)


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
    """Appends a run; raises ValueError for a run of a dirty tree."""
    if is_dirty(run):
        raise ValueError(f"the run of {run.get('date')} measured {run.get('commit')}, a tree with "
                         "uncommitted changes: not kept")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a") as f:
        f.write(json.dumps(run, ensure_ascii=False) + "\n")


def make_run(date, commit, found, source):
    """A history entry from verdict dicts (judge.py) or, for runs read back
    from markdown, (target, status, measured) triples."""
    vs = [dict(v) if isinstance(v, dict) else {"target": v[0], "status": v[1], "measured": v[2]}
          for v in found]
    return {"date": date, "commit": commit, "source": source, "verdicts": vs}


def run_label(run):
    return f"{run['date']} ({run['commit']})"


def cell(v):
    """One run's verdict of a target in the table: its status, † when it was
    judged without an interval, and its failed rounds."""
    if v is None:
        return "n/a"
    s = (v.get("status") or "n/a").lower()
    if "rule" not in v and classify(s) in ("met", "not met"):
        s += NO_INTERVAL
    if v.get("failed_rounds"):
        s += f" ({v['failed_rounds']} failed)"
    return s


def table(history, extra=None):
    """Markdown lines: per target, the verdict in each of the last
    RUNS_JUDGED full runs of a clean tree, the overall verdict, and the
    median, interval and measurement of the newest run. extra is a run that
    is not in the history (not a full run, or of a dirty tree): its
    verdicts get a column of their own and are the ones whose figures are
    shown, but it does not count."""
    runs = [r for r in history if not is_dirty(r)][-RUNS_JUDGED:]
    shown = runs + ([extra] if extra else [])
    by_target = [{v["target"]: v for v in r["verdicts"]} for r in shown]
    newest = by_target[-1] if shown else {}
    targets = []
    for r in reversed(shown):  # the newest run's order, then targets only older runs had
        for v in r["verdicts"]:
            if v["target"] not in targets:
                targets.append(v["target"])
    heads = [run_label(r) for r in runs] + ([f"this run, not kept: {run_label(extra)}"] if extra else [])
    which = "this run" if extra else "newest run"
    lines = [f"| target | verdict, last {RUNS_JUDGED} full runs | " + " | ".join(heads) +
             f" | {INTERVAL_HEAD}, {which} | measured, {which} |",
             "|---|---|" + "---|" * len(heads) + "---|---|"]
    for t in targets:
        cells = [cell(bt.get(t)) for bt in by_target]
        verdict = overall([(bt.get(t) or {}).get("status") for bt in by_target[:len(runs)]])
        v = newest.get(t) or {}
        lines.append(f"| {t} | {verdict} | " + " | ".join(cells) +
                     f" | {judge.interval_text(v) if v else 'n/a'} | {v.get('measured', 'n/a')} |")
    return lines


def explain(history):
    """How the table reads."""
    clean = [r for r in history if not is_dirty(r)]
    dirty = len(history) - len(clean)
    return (f"Each run judges a target from its rounds: met only when the whole {judge.LEVEL:.0%} confidence "
            "interval of the median of the per-round values (or, for counts and worst cases, every round) is "
            "inside the bound, not met when it is wholly outside, unsure otherwise (bench/README.md, \"How "
            f"sure\"). The verdict over the last {RUNS_JUDGED} full runs of bench/run.sh ({len(clean)} in "
            "bench/results/history.jsonl" + (f", {dirty} more of a dirty tree left out" if dirty else "") +
            f"): met only if met in all of them, not met if in none, unsure otherwise, too few runs while fewer "
            f"than {RUNS_JUDGED} judged it. {NO_INTERVAL}: judged from the median alone, before runs carried "
            "an interval; (n failed): rounds whose tool run failed or timed out.")


# ---------------------------------------------------------------- backfill

def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _status_of(text):
    """(status, failed rounds) of a table cell such as 'not met† (1 failed)'."""
    m = re.match(r"^(.*?)(?: \((\d+) failed\))?$", text.strip())
    return m.group(1).rstrip(NO_INTERVAL).strip(), int(m.group(2) or 0)


def parse_latest_md(text):
    """(date, commit, [verdict]) from a latest.md written by bench.py: the
    run's column of its Targets table (or, in the oldest files, a table of
    target, status, measured). Raises ValueError when the text is not one."""
    m = re.search(r"^## Benchmark results — (\d{4}-\d\d-\d\d \d\d:\d\d)", text, re.M)
    c = re.search(r"; commit (\S+?);", text)
    if not m or not c:
        raise ValueError("no '## Benchmark results — DATE' heading or commit")
    date, commit = m.group(1), c.group(1)
    section = text.split("### Targets", 1)
    if len(section) != 2:
        raise ValueError("no '### Targets' section")
    rows = []
    for line in section[1].splitlines():
        if line.startswith("### "):
            break
        if line.startswith("|"):
            rows.append(_cells(line))
    if not rows:
        raise ValueError("the Targets section has no table")
    head = [h.lower() for h in rows[0]]
    label = f"{date} ({commit})".lower()
    if head == ["target", "status", "measured"]:
        status_col, interval_col = 1, None
    else:
        cols = [i for i, h in enumerate(head) if h == label or h.endswith(": " + label)]
        if not cols:
            raise ValueError(f"the Targets table has no column of the run {date} ({commit})")
        status_col = cols[0]
        interval_col = next((i for i, h in enumerate(head) if h.startswith(INTERVAL_HEAD)), None)
    found = []
    for cells in rows[1:]:
        if len(cells) != len(head) or set(cells[1]) <= {"-"}:
            continue
        if cells[status_col] == "n/a":  # a target of the older runs only
            continue
        status, failed = _status_of(cells[status_col])
        v = {"target": cells[0], "status": status, "measured": cells[-1]}
        if interval_col is not None:
            v.update(judge.parse_interval_text(cells[interval_col]))
        if failed and "failed_rounds" not in v:
            v["failed_rounds"] = failed
        found.append(v)
    if not found:
        raise ValueError("the Targets table is empty")
    return date, commit, found


def git_show_latest(commit):
    """The text of bench/results/latest.md at a commit; raises ValueError."""
    r = subprocess.run(["git", "-C", ROOT, "show", f"{commit}:bench/results/latest.md"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError(f"{commit}: {r.stderr.strip()}")
    return r.stdout


def backfill(commits, path, show=git_show_latest):
    """Appends the run whose bench/results/latest.md each commit holds (its
    text from show(commit)), unless it is in the history already or measured
    a dirty tree."""
    known = {(r["date"], r["commit"]) for r in load(path)}
    for commit in commits:
        text = show(commit)
        try:
            date, measured_commit, found = parse_latest_md(text)
        except ValueError as e:
            raise ValueError(f"{commit}:bench/results/latest.md: {e}")
        run = make_run(date, measured_commit, found, f"git {commit}:bench/results/latest.md")
        if (date, measured_commit) in known:
            print(f"verdicts: {commit}: the run of {date} is in the history already", file=sys.stderr)
        elif is_dirty(run):
            print(f"verdicts: {commit}: the run of {date} measured {measured_commit}, a tree with uncommitted "
                  "changes: not added", file=sys.stderr)
        else:
            append(run, path)
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
    print(explain(runs))
    print()
    print("\n".join(table(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
