"""Self-test of the verdict logic (verdicts.py):

    python3 -m unittest bench/lib/test_verdicts.py
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdicts  # noqa: E402

LATEST_MD = """## Benchmark results — 2026-11-29 12:50

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


def run(date, *verdicts_):
    return verdicts.make_run(date, "abc1234", [(t, s, f"{t} measured {date}") for t, s in verdicts_], "test")


class OverallTest(unittest.TestCase):
    def test_met_only_when_met_in_all_three(self):
        self.assertEqual(verdicts.overall(["met", "met", "met"]), "met")

    def test_not_met_when_met_in_none(self):
        self.assertEqual(verdicts.overall(["NOT MET", "NOT MET", "not met"]), "not met")

    def test_a_flip_is_unstable_in_either_direction(self):
        self.assertEqual(verdicts.overall(["met", "NOT MET", "met"]), "unstable")
        self.assertEqual(verdicts.overall(["NOT MET", "NOT MET", "met"]), "unstable")

    def test_a_flip_is_unstable_even_with_a_missing_run(self):
        self.assertEqual(verdicts.overall(["met", None, "NOT MET"]), "unstable")

    def test_missing_or_unavailable_runs_are_too_few(self):
        self.assertEqual(verdicts.overall(["met", "met"]), "too few runs")
        self.assertEqual(verdicts.overall(["met", None, "met"]), "too few runs")
        self.assertEqual(verdicts.overall(["met", "not available", "met"]), "too few runs")

    def test_a_partial_pass_is_not_met(self):
        self.assertIsNone(verdicts.classify("met (lost only)"))
        self.assertEqual(verdicts.overall(["met", "met (lost only)", "met"]), "too few runs")


class TableTest(unittest.TestCase):
    def rows(self, lines):
        return {cells[0]: cells[1:] for cells in
                ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:])}

    def test_only_the_last_three_full_runs_count(self):
        runs = [run("d1", ("a", "NOT MET")), run("d2", ("a", "met")), run("d3", ("a", "met")), run("d4", ("a", "met"))]
        lines = verdicts.table(runs)
        self.assertNotIn("d1", lines[0])
        self.assertEqual(self.rows(lines)["a"], ["met", "met", "met", "met", "a measured d4"])

    def test_a_quick_run_is_shown_but_not_judged(self):
        runs = [run("d1", ("a", "met")), run("d2", ("a", "met")), run("d3", ("a", "met"))]
        lines = verdicts.table(runs, extra=run("q", ("a", "NOT MET")))
        self.assertIn("this run, not a full run", lines[0])
        self.assertEqual(self.rows(lines)["a"], ["met", "met", "met", "met", "not met", "a measured q"])

    def test_a_target_missing_from_a_run(self):
        runs = [run("d1", ("a", "met")), run("d2", ("a", "met"), ("b", "met")), run("d3", ("a", "met"), ("b", "met"))]
        rows = self.rows(verdicts.table(runs))
        self.assertEqual(rows["b"][:4], ["too few runs", "n/a", "met", "met"])
        self.assertEqual(list(rows), ["a", "b"])

    def test_empty_history(self):
        self.assertEqual(len(verdicts.table([])), 2)


class HistoryTest(unittest.TestCase):
    def test_parse_latest_md(self):
        date, commit, targets = verdicts.parse_latest_md(LATEST_MD)
        self.assertEqual((date, commit), ("2026-11-29 12:50", "463ae3c"))
        self.assertEqual(targets, [("loop: recording cost ≤ perf record", "NOT MET", "1.10 × perf record"),
                                   ("loop: ≤ 3 bytes/event", "met", "0.73 B/event"),
                                   ("pgbench under usdt-record ≥ 0.9 × untraced and ≥ perf record",
                                    "not available", "not run")])

    def test_parse_rejects_other_text(self):
        with self.assertRaises(ValueError):
            verdicts.parse_latest_md("# README\n")
        with self.assertRaises(ValueError):
            verdicts.parse_latest_md(LATEST_MD.split("### Targets")[0])

    def test_append_and_load_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results", "history.jsonl")
            self.assertEqual(verdicts.load(path), [])
            verdicts.append(run("d1", ("a", "met")), path)
            verdicts.append(run("d2", ("a", "NOT MET")), path)
            self.assertEqual([r["date"] for r in verdicts.load(path)], ["d1", "d2"])

    def test_load_names_a_bad_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "history.jsonl")
            with open(path, "w") as f:
                f.write('{"date": "d1", "commit": "c", "verdicts": []}\n{"date": "d2"}\n')
            with self.assertRaisesRegex(ValueError, "history.jsonl:2"):
                verdicts.load(path)


class FunctionProbeTest(unittest.TestCase):
    def test_entry_within_tolerance_is_met(self):
        t, st, m = verdicts.function_entry({"usdt-record": {"x_usdt_site_rounds": [1.04, 0.97, 1.02]},
                                            "floor": {"x_usdt_site_rounds": [1.3]}})
        self.assertEqual(st, "met")
        self.assertIn("1.02 × the USDT site", m)
        self.assertIn("(per-round 0.97–1.04)", m)
        self.assertIn("counting uprobe, perf stat) 1.30 ×", m)
        self.assertNotIn("above that floor", m)
        _, _, m = verdicts.function_entry({"usdt-record": {"x_usdt_site_rounds": [1.0], "above_floor_ns": 1500.4,
                                                           "usdt_site_above_floor_ns": 1400}})
        self.assertIn("usdt-record above that floor: 1,500 vs 1,400 ns/hit", m)

    def test_entry_above_tolerance_is_not_met(self):
        _, st, _ = verdicts.function_entry({"usdt-record": {"x_usdt_site_rounds": [1.06, 1.10, 1.00]}})
        self.assertEqual(st, "NOT MET")

    def test_entry_at_the_tolerance_is_met(self):
        _, st, _ = verdicts.function_entry({"usdt-record": {"x_usdt_site_rounds": [verdicts.FENTRY_TOLERANCE]}})
        self.assertEqual(st, "met")

    def test_entry_without_the_reference(self):
        self.assertEqual(verdicts.function_entry({"usdt-record": {"x_usdt_site_rounds": []}})[1], "not available")
        self.assertEqual(verdicts.function_entry(None)[1], "not available")

    def test_return_against_perf_record(self):
        self.assertEqual(verdicts.function_return({"usdt-record": {"x_perf": 0.8, "x_perf_rounds": [0.8]}})[1], "met")
        self.assertEqual(verdicts.function_return({"usdt-record": {"x_perf": 1.0}})[1], "met")
        _, st, m = verdicts.function_return({"usdt-record": {"x_perf": 1.07, "x_perf_rounds": [1.2, 1.07, 0.9]}})
        self.assertEqual(st, "NOT MET")
        self.assertIn("(per-round 0.90–1.20)", m)
        self.assertEqual(verdicts.function_return({"usdt-record": {"x_perf": None}})[1], "not available")

    def test_exact_counts(self):
        good = {"untraced": {"events": [5]}, "perf": {"events": [5, 5], "lost": [0, 0], "dup": [0, 0]},
                "usdt-record": {"events": [5], "lost": [0], "dup": [0], "stray": [0]}, "floor": {"events": [5]}}
        _, st, m = verdicts.exact_counts("t", good, 5)
        self.assertEqual(st, "met")
        self.assertIn("floor, perf, usdt-record", m)
        bad = dict(good, perf={"events": [5, 6], "lost": [0, 0], "dup": [0, 1]})
        _, st, m = verdicts.exact_counts("t", bad, 5)
        self.assertEqual(st, "NOT MET")
        self.assertIn("perf: events 5–6, dup max 1", m)
        short = dict(good, bpftrace={"events": [4]})
        self.assertIn("bpftrace: events 4–4", verdicts.exact_counts("t", short, 5)[2])
        self.assertEqual(verdicts.exact_counts("t", {"untraced": {"events": [5]}}, 5)[1], "not available")


if __name__ == "__main__":
    unittest.main()
