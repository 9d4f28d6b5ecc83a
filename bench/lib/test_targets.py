"""Self-test of the targets judged from a run's rounds (targets.py, figures.py):

    python3 -m unittest bench/lib/test_targets.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import detach  # noqa: E402
import figures  # noqa: E402
import isolation  # noqa: E402
import tables  # noqa: E402
import targets  # noqa: E402

HITS = 1000


def runs(loop_ns, events=HITS, **fields):
    """One run per round: loop_ns per round (None: the round failed)."""
    out = []
    for k, ns in enumerate(loop_ns):
        if ns is None:
            out.append({"round": k, "error": "timed out after 120s"})
        else:
            out.append(dict({"round": k, "loop_ns": ns, "events": events, "workload_cpu_ns": ns,
                             "tool_cpu_s": 0.0}, **fields))
    return out


def overheads(ns_per_hit):
    """loop_ns per round for per-hit overheads over an untraced loop of 0 ns."""
    return [None if x is None else x * HITS for x in ns_per_hit]


class RecordingCostTest(unittest.TestCase):
    def res(self, ours, bare):
        return {"untraced": runs([0] * len(ours)), "usdt-record": runs(overheads(ours)),
                "bare": runs(overheads(bare))}

    def test_met_when_every_round_is_inside(self):
        v = targets.recording_cost("loop", self.res([1000, 1010, 1020, 990, 1000], [1000] * 5), "bare", 1.05)
        self.assertEqual((v["target"], v["status"]), ("loop: recording cost ≤ 1.05 × bare sampler", "met"))
        self.assertEqual(v["interval"], [0.99, 1.02])

    def test_a_noisy_round_makes_it_unsure(self):
        v = targets.recording_cost("loop", self.res([1000, 1010, 1100, 990, 870], [1000] * 5), "bare", 1.05)
        self.assertEqual(v["status"], "unsure")
        self.assertEqual(v["estimate"], 1.0)

    def test_a_failed_round_is_counted_and_named(self):
        res = self.res([1000, 1010, 1020, 990, None], [1000] * 5)
        v = targets.recording_cost("loop", res, "bare", 1.05)
        self.assertEqual((v["status"], v["rounds"], v["failed_rounds"]), ("unsure", 4, 1))
        self.assertIn("first error: timed out after 120s", v["measured"])
        # ... also when the reference's or the untraced run failed
        res = self.res([1000] * 5, [1000, None, 1000, 1000, 1000])
        res["untraced"][2] = {"round": 2, "error": "exit 1"}
        self.assertEqual(targets.recording_cost("loop", res, "bare", 1.05)["failed_rounds"], 2)

    def test_a_tool_that_did_not_run(self):
        res = self.res([1000] * 5, [1000] * 5)
        res["bare"] = {"unavailable": "bare_sampler was not built"}
        v = targets.recording_cost("loop", res, "bare", 1.05)
        self.assertEqual(v["status"], "not available")
        self.assertIn("bare_sampler was not built", v["measured"])
        self.assertEqual(targets.recording_cost("loop", {}, "bare", 1.05)["measured"], "the workload was not run")


class FunctionEntryTest(unittest.TestCase):
    """Our cost above the kernel's counting uprobe against perf record's above it."""

    def res(self, floor, ours, perf):
        return {"untraced": runs([0] * 5), "floor": runs(overheads(floor)),
                "usdt-record": runs(overheads(ours)), "perf": runs(overheads(perf))}

    def test_judged_above_the_floor(self):
        # Both cost far above the floor in total (18 us), but usdt-record adds
        # 500 ns to the kernel's work where perf record adds 1000.
        floor = [17000, 17500, 18000, 17200, 17800]
        v = targets.function_entry(self.res(floor, [f + 500 for f in floor], [f + 1000 for f in floor]))
        self.assertEqual(v["status"], "met")
        self.assertEqual(v["interval"], [0.5, 0.5])
        self.assertIn("usdt-record 500 vs perf record 1,000 ns/hit above the counting uprobe's 17,500 ns/hit",
                      v["measured"])
        v = targets.function_entry(self.res(floor, [f + 1200 for f in floor], [f + 1000 for f in floor]))
        self.assertEqual(v["status"], "not met")

    def test_rounds_where_perf_adds_nothing_have_no_value(self):
        floor = [17000] * 5
        v = targets.function_entry(self.res(floor, [17500] * 5, [17000, 18000, 18000, 18000, 18000]))
        self.assertEqual((v["rounds"], v["rounds_planned"], v["status"]), (4, 5, "unsure"))

    def test_needs_the_floor(self):
        res = self.res([17000] * 5, [17500] * 5, [18000] * 5)
        del res["floor"]
        self.assertEqual(targets.function_entry(res)["status"], "not available")


class ExactCountsTest(unittest.TestCase):
    def res(self, **tools):
        return dict({"untraced": runs([0] * 2)}, **tools)

    def test_every_tool_exact_is_met(self):
        v = targets.exact_counts("t", self.res(perf=runs([1, 1], lost=0, dup=0), floor=runs([1, 1])), HITS)
        self.assertEqual(v["status"], "met")
        self.assertIn("in every successful run of floor, perf", v["measured"])

    def test_a_tool_that_recorded_nothing_fails(self):
        for nothing in (None, 0):
            res = self.res(perf=runs([1, 1], lost=0, dup=0), bpftrace=runs([1, 1], events=nothing))
            v = targets.exact_counts("t", res, HITS)
            self.assertEqual(v["status"], "not met", nothing)
            self.assertIn("bpftrace: recorded nothing", v["measured"])

    def test_a_wrong_count_fails(self):
        v = targets.exact_counts("t", self.res(perf=runs([1, 1], events=HITS + 1, dup=1)), HITS)
        self.assertEqual(v["status"], "not met")
        self.assertIn("perf: dup 1, events 1,001", v["measured"])

    def test_a_failed_run_is_unsure(self):
        v = targets.exact_counts("t", self.res(perf=runs([1, None], lost=0, dup=0)), HITS)
        self.assertEqual((v["status"], v["failed_rounds"]), ("unsure", 1))

    def test_nothing_ran(self):
        self.assertEqual(targets.exact_counts("t", self.res(), HITS)["status"], "not available")


class LossTest(unittest.TestCase):
    def test_lossless(self):
        res = {"usdt-record": runs([1], lost=0, dup=0, stray=0, own_lost=0)}
        self.assertEqual(targets.lossless("loop", res, 10**6)["status"], "met")
        res = {"usdt-record": runs([1], lost=3, dup=0, stray=0, own_lost=0)}
        v = targets.lossless("loop", res, 10**6)
        self.assertEqual(v["status"], "not met")
        self.assertIn("lost max 3", v["measured"])
        res = {"usdt-record": runs([1], lost=0, dup=None, stray=0)}
        self.assertEqual(targets.lossless("loop", res, 10**6)["status"], "unsure")


class OtherTargetsTest(unittest.TestCase):
    def test_report_speed_per_round(self):
        rr = {"runs": {"summary": [{"events_per_cpu_s": x, "events_per_s": x} for x in (30e6, 31e6, 29e6, 32e6)]
                       + [{"error": "exit 1: boom"}],
                       "dump text": [{"events_per_cpu_s": 20e6, "events_per_s": 20e6}] * 5,
                       "perf script": [{"events_per_cpu_s": 0.9e6, "events_per_s": 0.9e6}] * 5},
              "unavailable": {}}
        found = {v["target"]: v for v in targets.report_targets(rr)}
        s = found["report summary ≥ 20 M events/s on one core"]
        self.assertEqual((s["status"], s["failed_rounds"]), ("unsure", 1))
        self.assertIn("first error: exit 1: boom", s["measured"])
        self.assertEqual(found["report latency ≥ 20 M events/s on one core"]["status"], "not available")
        self.assertEqual(found["dump text ≥ 20 × perf script"]["status"], "met")

    def test_detach_every_round(self):
        ok = [{"sigint_to_exit_s": 0.03, "last_line_to_exit_s": 0.02, "exit_to_gone_s": 3.8, "sites": 71}] * 5
        self.assertEqual(detach.targets(ok)[0]["status"], "met")
        self.assertEqual(detach.targets(ok[:4] + [dict(ok[0], sigint_to_exit_s=1.2)])[0]["status"], "not met")
        v = detach.targets(ok[:4] + [{"error": "did not exit within 60 s of SIGINT"}])[0]
        self.assertEqual((v["status"], v["failed_rounds"]), ("unsure", 1))
        self.assertIn("did not exit", v["measured"])

    def test_isolation(self):
        base = [{"round": k, "loop_ns": 40e6, "hits": 10**8} for k in range(5)]
        res = {"untraced": base, "usdt-record": [dict(r, loop_ns=40.2e6) for r in base]}
        self.assertEqual(isolation.targets(res)[0]["status"], "met")


class TablesTest(unittest.TestCase):
    def test_failed_rounds_in_a_row(self):
        self.assertEqual(tables.failed_cell(runs([1, 1])), "0")
        self.assertEqual(tables.failed_cell(runs([1, None, None])), "2 of 3: timed out after 120s")

    def test_figures_keep_the_round(self):
        res = {"untraced": runs([0, 0, 0]), "a": runs([2000, None, 3000]), "b": runs([1000, 1000, None])}
        self.assertEqual(figures.ratio_rounds(res, "a", "b"), {0: 2.0})
        self.assertEqual(figures.failed_rounds(res, "a", "b"), {1, 2})
        self.assertEqual(figures.planned_rounds(res, "a", "b"), 3)


if __name__ == "__main__":
    unittest.main()
