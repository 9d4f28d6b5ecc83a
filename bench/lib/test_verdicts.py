"""Self-test of the history of verdicts (verdicts.py):

    python3 -m unittest bench/lib/test_verdicts.py
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import judge  # noqa: E402
import verdicts  # noqa: E402

# A latest.md of the oldest form: a Targets table of target, status, measured.
OLD_LATEST_MD = """## Benchmark results — 2026-11-29 12:50

Machine: vm, kernel 6.18, 2 CPUs; commit 463ae3c; 5 interleaved rounds; run took 164 s.

### Report speed

| command | events/CPU-s |
|---|---|
| summary | 31,991,043 |

### Targets

| target | status | measured |
|---|---|---|
| loop: recording cost ≤ perf record | NOT MET | 1.10 × perf record |
| loop: ≤ 3 bytes/event | met | 0.73 B/event |
| pgbench under usdt-record ≥ 0.9 × untraced and ≥ perf record | not available | not run |

- postgres: a note
"""

# bench/results/latest.md as committed in bffde39: the Targets table with a
# column per full run (the run itself the last of them, measured on a dirty tree).
SAMPLE = os.path.join(HERE, "testdata", "latest-bffde39.md")
# A --quick run of d5150a8 (a loaded machine, not kept): the Targets table
# with the run's own column and the median and interval of each verdict.
QUICK_SAMPLE = os.path.join(HERE, "testdata", "latest-quick-d5150a8.md")


def run(date, *verdicts_, commit="abc1234"):
    return verdicts.make_run(date, commit, [(t, s, f"{t} measured {date}") for t, s in verdicts_], "test")


def judged_run(date, values, commit="abc1234", failed=0):
    """A run with one target "a" judged from per-round values against ≤ 1.05."""
    v = judge.judge("a", values, "<=", 1.05, f"a measured {date}", planned=len(values) + failed, failed=failed)
    return verdicts.make_run(date, commit, [v], "test")


def rows(lines):
    return {cells[0]: cells[1:] for cells in
            ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:])}


class OverallTest(unittest.TestCase):
    def test_met_only_when_met_in_all_three(self):
        self.assertEqual(verdicts.overall(["met", "met", "met"]), "met")

    def test_not_met_when_met_in_none(self):
        self.assertEqual(verdicts.overall(["NOT MET", "NOT MET", "not met"]), "not met")

    def test_a_flip_is_unsure_in_either_direction(self):
        self.assertEqual(verdicts.overall(["met", "NOT MET", "met"]), "unsure")
        self.assertEqual(verdicts.overall(["NOT MET", "NOT MET", "met"]), "unsure")
        self.assertEqual(verdicts.overall(["met", None, "NOT MET"]), "unsure")

    def test_one_unsure_run_makes_it_unsure(self):
        self.assertEqual(verdicts.overall(["met", "unsure", "met"]), "unsure")
        self.assertEqual(verdicts.overall(["not met", "not met", "unsure"]), "unsure")

    def test_missing_or_unavailable_runs_are_too_few(self):
        self.assertEqual(verdicts.overall(["met", "met"]), "too few runs")
        self.assertEqual(verdicts.overall(["met", None, "met"]), "too few runs")
        self.assertEqual(verdicts.overall(["met", "not available", "met"]), "too few runs")

    def test_a_partial_pass_is_not_met(self):
        self.assertIsNone(verdicts.classify("met (lost only)"))
        self.assertEqual(verdicts.overall(["met", "met (lost only)", "met"]), "too few runs")


class TableTest(unittest.TestCase):
    def test_only_the_last_three_full_runs_count(self):
        runs = [run("d1", ("a", "NOT MET")), run("d2", ("a", "met")), run("d3", ("a", "met")), run("d4", ("a", "met"))]
        lines = verdicts.table(runs)
        self.assertNotIn("d1", lines[0])
        self.assertEqual(rows(lines)["a"], ["met", "met†", "met†", "met†", "n/a", "a measured d4"])

    def test_a_quick_run_is_shown_but_not_judged(self):
        runs = [run("d1", ("a", "met")), run("d2", ("a", "met")), run("d3", ("a", "met"))]
        lines = verdicts.table(runs, extra=judged_run("q", [1.1, 1.2, 1.3, 1.2, 1.1]))
        self.assertIn("this run, not kept", lines[0])
        self.assertEqual(rows(lines)["a"][:5], ["met", "met†", "met†", "met†", "not met"])
        self.assertEqual(rows(lines)["a"][5:], ["1.200 in [1.100; 1.300] (94%), 5 rounds", "a measured q"])

    def test_dirty_runs_are_left_out(self):
        runs = [run("d1", ("a", "met")), run("d2", ("a", "met")), run("d3", ("a", "met")),
                run("d4", ("a", "NOT MET"), commit="abc1234+changes")]
        lines = verdicts.table(runs)
        self.assertNotIn("d4", lines[0])
        self.assertEqual(rows(lines)["a"][0], "met")
        self.assertIn("1 more of a dirty tree left out", verdicts.explain(runs))

    def test_interval_verdicts_and_failed_rounds(self):
        runs = [judged_run("d1", [1.0] * 5), judged_run("d2", [1.0, 1.1, 1.0, 1.0, 1.0]),
                judged_run("d3", [1.0] * 4, failed=1)]
        r = rows(verdicts.table(runs))["a"]
        self.assertEqual(r[:4], ["unsure", "met", "unsure", "unsure (1 failed)"])
        self.assertEqual(r[4], "1, no 90% interval from 4 rounds (5 needed), 4 of 5 rounds, 1 failed")
        runs.append(judged_run("d4", [1.0] * 5))
        runs.append(judged_run("d5", [0.9, 1.0, 1.01, 1.02, 1.05]))
        self.assertEqual(rows(verdicts.table(runs))["a"][:1], ["unsure"])  # d3 is still one of the three
        runs.append(judged_run("d6", [1.0] * 5))
        self.assertEqual(rows(verdicts.table(runs))["a"][:4], ["met", "met", "met", "met"])

    def test_old_and_new_runs_together(self):
        runs = [run("d1", ("a", "met")), run("d2", ("a", "met")), judged_run("d3", [1.0, 1.1, 0.9, 1.0, 1.0])]
        self.assertEqual(rows(verdicts.table(runs))["a"][:4], ["unsure", "met†", "met†", "unsure"])

    def test_a_target_missing_from_a_run(self):
        runs = [run("d1", ("a", "met")), run("d2", ("a", "met"), ("b", "met")), run("d3", ("a", "met"), ("b", "met"))]
        r = rows(verdicts.table(runs))
        self.assertEqual(r["b"][:4], ["too few runs", "n/a", "met†", "met†"])
        self.assertEqual(list(r), ["a", "b"])

    def test_empty_history(self):
        self.assertEqual(len(verdicts.table([])), 2)


def document(run_, history):
    """A latest.md as bench.py writes it: the heading, then the Targets table."""
    return "\n".join([f"## Benchmark results — {run_['date']} UTC", "",
                      f"Machine: vm, kernel 6.18, 2 CPUs; commit {run_['commit']}; 5 interleaved rounds; run "
                      "took 1 s.", "", "### Targets", "", verdicts.explain(history), ""] +
                     verdicts.table(history, extra=None if run_ in history else run_) + ["", "- a note"]) + "\n"


class ParseTest(unittest.TestCase):
    def test_the_oldest_form(self):
        date, commit, found = verdicts.parse_latest_md(OLD_LATEST_MD)
        self.assertEqual((date, commit), ("2026-11-29 12:50", "463ae3c"))
        self.assertEqual([(v["target"], v["status"], v["measured"]) for v in found],
                         [("loop: recording cost ≤ perf record", "NOT MET", "1.10 × perf record"),
                          ("loop: ≤ 3 bytes/event", "met", "0.73 B/event"),
                          ("pgbench under usdt-record ≥ 0.9 × untraced and ≥ perf record", "not available",
                           "not run")])

    def test_the_committed_latest_md_of_bffde39(self):
        with open(SAMPLE) as f:
            date, commit, found = verdicts.parse_latest_md(f.read())
        self.assertEqual((date, commit), ("2026-12-04 11:56", "bffde39+changes"))
        self.assertEqual(len(found), 26)
        by = {v["target"]: v for v in found}
        # The run's own column (the last of three), not the first run's.
        self.assertEqual(by["threads: recording cost ≤ 1.05 × bare sampler"]["status"], "not met")
        self.assertEqual(by["kread: two heap words + a 64-byte string read by the kernel ≤ 1.10 × bare sampler "
                            "(registers only, same site)"]["status"], "met")
        self.assertEqual(by["loop: ≤ 3 bytes/event"]["measured"], "1.03 B/event")
        self.assertNotIn("interval", by["loop: ≤ 3 bytes/event"])

    def test_a_quick_run_with_intervals(self):
        with open(QUICK_SAMPLE) as f:
            date, commit, found = verdicts.parse_latest_md(f.read())
        self.assertEqual((date, commit), ("2026-12-04 20:36", "d5150a8"))
        by = {v["target"]: v for v in found}
        v = by["loop: recording cost ≤ 1.05 × bare sampler"]
        self.assertEqual((v["status"], v["rule"], v["rounds"], v["failed_rounds"]), ("unsure", "median", 5, 0))
        self.assertEqual((v["estimate"], v["interval"], v["coverage"]), (0.882, [0.393, 1.254], 0.94))
        v = by["loop: zero lost and zero duplicated at 200,000 hits"]
        self.assertEqual((v["status"], v["rule"], v["interval"]), ("met", "every round", [0, 0]))
        self.assertEqual(by["kread: two heap words + a 64-byte string read by the kernel ≤ 1.10 × bare sampler "
                            "(registers only, same site)"]["status"], "not available")
        # Targets only the older runs of its table had are not this run's.
        self.assertNotIn("detach: PostgreSQL's 71 sites, SIGINT to exit ≤ 1 s", by)

    def test_a_table_written_today_reads_back(self):
        history = [run("d1", ("a", "met")), judged_run("2026-12-05 10:00", [1.0, 1.02, 0.99, 1.04, 1.01])]
        for new in (history[-1], judged_run("2026-12-05 11:00", [1.0, 1.2, 1.1], failed=2)):
            date, commit, found = verdicts.parse_latest_md(document(new, history))
            self.assertEqual((date, commit), (new["date"], new["commit"]))
            want = new["verdicts"][0]
            got = found[0]
            for key in ("target", "status", "measured", "rule", "rounds", "rounds_planned", "failed_rounds"):
                self.assertEqual(got[key], want[key], key)
            self.assertEqual(got.get("interval"), want["interval"])

    def test_a_document_without_the_runs_column(self):
        text = document(run("2026-12-05 10:00", ("a", "met")), [run("d1", ("a", "met"))]).replace(
            "this run, not kept: 2026-12-05 10:00 (abc1234)", "someone else's run")
        with self.assertRaisesRegex(ValueError, "no column of the run"):
            verdicts.parse_latest_md(text)

    def test_parse_rejects_other_text(self):
        with self.assertRaises(ValueError):
            verdicts.parse_latest_md("# README\n")
        with self.assertRaises(ValueError):
            verdicts.parse_latest_md(OLD_LATEST_MD.split("### Targets")[0])


class HistoryTest(unittest.TestCase):
    def test_append_and_load_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results", "history.jsonl")
            self.assertEqual(verdicts.load(path), [])
            verdicts.append(run("d1", ("a", "met")), path)
            verdicts.append(judged_run("d2", [1.0] * 5), path)
            loaded = verdicts.load(path)
            self.assertEqual([r["date"] for r in loaded], ["d1", "d2"])
            self.assertEqual(loaded[1]["verdicts"][0]["interval"], [1.0, 1.0])

    def test_a_dirty_run_is_never_appended(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "history.jsonl")
            with self.assertRaisesRegex(ValueError, "uncommitted changes"):
                verdicts.append(run("d1", ("a", "met"), commit="abc1234+changes"), path)
            self.assertFalse(os.path.exists(path))

    def test_load_names_a_bad_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "history.jsonl")
            with open(path, "w") as f:
                f.write('{"date": "d1", "commit": "c", "verdicts": []}\n{"date": "d2"}\n')
            with self.assertRaisesRegex(ValueError, "history.jsonl:2"):
                verdicts.load(path)

    def test_the_committed_history_reads(self):
        runs = verdicts.load()
        self.assertTrue(runs)
        self.assertTrue(verdicts.table(runs))


class BackfillTest(unittest.TestCase):
    def test_backfill(self):
        with open(SAMPLE) as f:
            dirty = f.read()
        clean = dirty.replace("bffde39+changes", "bffde39")
        texts = {"dirty": dirty, "clean": clean, "again": clean}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "history.jsonl")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                verdicts.backfill(["dirty", "clean", "again"], path, show=texts.get)
            self.assertIn("dirty: the run of 2026-12-04 11:56 measured bffde39+changes, a tree with uncommitted "
                          "changes: not added", err.getvalue())
            self.assertIn("again: the run of 2026-12-04 11:56 is in the history already", err.getvalue())
            runs = verdicts.load(path)
            self.assertEqual([(r["date"], r["commit"]) for r in runs], [("2026-12-04 11:56", "bffde39")])
            self.assertEqual(len(runs[0]["verdicts"]), 26)
            self.assertEqual(runs[0]["source"], "git clean:bench/results/latest.md")
            json.dumps(runs)

    def test_backfill_names_the_commit_of_a_bad_file(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(ValueError, "^x:bench/results/latest.md: no '## Benchmark"):
                verdicts.backfill(["x"], os.path.join(d, "h.jsonl"), show=lambda c: "# README\n")


if __name__ == "__main__":
    unittest.main()
