"""Self-test of the confidence interval and the verdict rule (judge.py):

    python3 -m unittest bench/lib/test_judge.py
"""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402


def coverage(n, k):
    """P(x_(k) <= median <= x_(n-k+1)) for n continuous i.i.d. values."""
    return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n


class MedianIntervalTest(unittest.TestCase):
    def test_too_few_rounds_give_no_interval(self):
        for n in range(5):
            self.assertIsNone(judge.median_interval([1.0] * n), n)
        self.assertEqual(judge.rounds_needed(), 5)

    def test_five_rounds_span_all_of_them(self):
        self.assertEqual(judge.median_interval([3, 1, 5, 2, 4]), (1, 5, coverage(5, 1)))
        self.assertAlmostEqual(coverage(5, 1), 0.9375)

    def test_more_rounds_leave_out_the_extremes(self):
        xs = [10, 1, 9, 2, 8, 3, 7, 4]  # 8 rounds: the 2nd smallest to the 2nd largest
        lo, hi, cov = judge.median_interval(xs)
        self.assertEqual((lo, hi), (2, 9))
        self.assertAlmostEqual(cov, coverage(8, 2))
        self.assertGreaterEqual(cov, judge.LEVEL)
        self.assertLess(coverage(8, 3), judge.LEVEL)  # the next narrower one would not do

    def test_the_interval_is_the_narrowest_at_the_level(self):
        for n in range(5, 30):
            lo, hi, cov = judge.median_interval(list(range(n)))
            k = lo + 1
            self.assertEqual(hi, n - k)
            self.assertAlmostEqual(cov, coverage(n, k))
            self.assertGreaterEqual(cov, judge.LEVEL)
            self.assertLess(coverage(n, k + 1), judge.LEVEL)

    def test_a_lower_level_gives_an_interval_sooner(self):
        self.assertIsNotNone(judge.median_interval([1, 2, 3], level=0.75))
        self.assertIsNone(judge.median_interval([1, 2, 3], level=0.76))


class VerdictRuleTest(unittest.TestCase):
    def status(self, values, op="<=", bound=1.05, **kw):
        return judge.judge("t", values, op, bound, "m", **kw)["status"]

    def test_met_only_when_the_whole_interval_is_inside(self):
        self.assertEqual(self.status([1.00, 1.01, 0.99, 1.04, 1.02]), "met")
        self.assertEqual(self.status([1.00, 1.01, 0.99, 1.05, 1.02]), "met")  # the bound itself is inside

    def test_a_median_inside_with_a_round_outside_is_unsure(self):
        # The median (1.00) meets the bound: one 5-round median without a
        # margin called this met.
        self.assertEqual(self.status([0.87, 0.95, 1.00, 1.02, 1.08]), "unsure")

    def test_not_met_only_when_the_whole_interval_is_outside(self):
        self.assertEqual(self.status([1.06, 1.10, 1.07, 1.20, 1.09]), "not met")
        self.assertEqual(self.status([1.04, 1.10, 1.07, 1.20, 1.09]), "unsure")

    def test_a_lower_bound(self):
        self.assertEqual(self.status([21e6, 25e6, 30e6, 22e6, 20e6], ">=", 20e6), "met")
        self.assertEqual(self.status([19e6, 18e6, 17e6, 19.9e6, 15e6], ">=", 20e6), "not met")
        self.assertEqual(self.status([19e6, 25e6, 30e6, 22e6, 21e6], ">=", 20e6), "unsure")

    def test_too_few_rounds_are_unsure(self):
        v = judge.judge("t", [1.0, 1.0, 1.0], "<=", 1.05, "m")
        self.assertEqual((v["status"], v["interval"], v["estimate"]), ("unsure", None, 1.0))

    def test_eight_rounds_may_leave_out_one_outlier(self):
        self.assertEqual(self.status([1.0, 1.01, 0.99, 1.02, 1.03, 1.0, 1.01, 1.30]), "met")

    def test_failed_rounds_are_counted(self):
        v = judge.judge("t", [1.0, 1.0, 1.0, 1.0], "<=", 1.05, "m", planned=5, failed=1)
        self.assertEqual((v["status"], v["rounds"], v["rounds_planned"], v["failed_rounds"]), ("unsure", 4, 5, 1))
        self.assertIn("4 of 5 rounds, 1 failed", judge.interval_text(v))

    def test_rounds_without_a_value_are_counted(self):
        v = judge.judge("t", [1.0, None, 1.0, 1.0, 1.0, 1.0], "<=", 1.05, "m")
        self.assertEqual((v["rounds"], v["rounds_planned"]), (5, 6))
        self.assertIn("1 without a value", judge.interval_text(v))

    def test_all_rounds_failed_is_unsure_not_unavailable(self):
        v = judge.judge("t", [], "<=", 1.05, "m", planned=5, failed=5)
        self.assertEqual(v["status"], "unsure")
        self.assertEqual(judge.interval_text(v), "no value, 0 of 5 rounds, 5 failed")
        self.assertEqual(self.status([]), "not available")

    def test_every_round_rule(self):
        every = dict(rule=judge.EVERY_ROUND)
        self.assertEqual(self.status([0, 0, 0], "==", 0, **every), "met")
        self.assertEqual(self.status([0, 3, 0], "==", 0, **every), "not met")
        self.assertEqual(self.status([0.2, 0.9], "<=", 1.0, **every), "met")
        self.assertEqual(self.status([0.2, 1.1], "<=", 1.0, **every), "not met")
        # A failed round leaves the others' facts unsure; a wrong one is not met anyway.
        self.assertEqual(self.status([0, 0], "==", 0, failed=1, **every), "unsure")
        self.assertEqual(self.status([0, 2], "==", 0, failed=1, **every), "not met")

    def test_an_exact_bound_under_the_median_rule(self):
        self.assertEqual(self.status([5, 5, 5, 5, 5], "==", 5), "met")
        self.assertEqual(self.status([6, 7, 6, 8, 9], "==", 5), "not met")
        self.assertEqual(self.status([4, 7, 6, 5, 9], "==", 5), "unsure")

    def test_an_unknown_comparison(self):
        with self.assertRaises(ValueError):
            judge.judge("t", [1], "<", 1, "m")


class IntervalTextTest(unittest.TestCase):
    def test_round_trip(self):
        cases = [judge.judge("t", [1.0, 1.02, 0.99, 1.04, 1.01], "<=", 1.05, "m"),
                 judge.judge("t", [39e6, 38e6, 40e6, 41e6, 37e6], ">=", 20e6, "m"),
                 judge.judge("t", [1.0, 1.1, 0.9], "<=", 1.05, "m", planned=5, failed=2),
                 judge.judge("t", [0, 0], "==", 0, "m", judge.EVERY_ROUND, planned=3, failed=1)]
        for v in cases:
            text = judge.interval_text(v)
            back = judge.parse_interval_text(text)
            for key in ("rule", "rounds", "rounds_planned", "failed_rounds"):
                self.assertEqual(back[key], v[key], text)
            if v["rule"] == judge.MEDIAN:
                self.assertAlmostEqual(back["estimate"], v["estimate"], places=2)
            if v["interval"]:
                for got, want in zip(back["interval"], v["interval"]):
                    self.assertAlmostEqual(got, want, delta=abs(want) * 1e-3)

    def test_forms(self):
        v = judge.judge("t", [1.0, 1.02, 0.99, 1.04, 1.01], "<=", 1.05, "m")
        self.assertEqual(judge.interval_text(v), "1.010 in [0.990; 1.040] (94%), 5 rounds")
        v = judge.judge("t", [39e6, 38e6, 40e6, 41e6, 37e6], ">=", 20e6, "m")
        self.assertEqual(judge.interval_text(v), "39,000,000 in [37,000,000; 41,000,000] (94%), 5 rounds")
        self.assertEqual(judge.interval_text({"target": "t", "status": "met", "measured": "m"}), "n/a")
        self.assertEqual(judge.parse_interval_text("n/a"), {})


if __name__ == "__main__":
    unittest.main()
