"""Self-test of which runs bench.py keeps in the history (bench.py):

    python3 -m unittest bench/lib/test_bench.py
"""
import importlib.util
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import judge  # noqa: E402
import verdicts  # noqa: E402

# By path: run from the repository's top, "import bench" finds the bench/ folder.
_spec = importlib.util.spec_from_file_location("bench_main", os.path.join(HERE, "bench.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


class KeptTest(unittest.TestCase):
    def setUp(self):
        self.ap = bench.parser()

    def why(self, argv, rev="abc1234"):
        return bench.not_kept_because(self.ap.parse_args(argv), self.ap, rev)

    def test_a_full_run_of_a_clean_tree_is_kept(self):
        self.assertIsNone(self.why([]))
        self.assertIsNone(self.why(["--output", "/tmp/x.md", "--build-dir", "/tmp/b"]))

    def test_a_dirty_tree_is_not_kept(self):
        why = self.why([], rev="abc1234+changes")
        self.assertIn("uncommitted changes (abc1234+changes)", why)

    def test_other_runs_are_not_kept(self):
        self.assertEqual(self.why(["--rounds", "3", "--workloads", "loop"]),
                         "not a full run: --rounds 3, --workloads loop")
        self.assertEqual(self.why(["--no-history"]), "--no-history")

    def section(self, rev, argv=()):
        """(lines of the Targets section, history lines after it) for a run of rev."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "history.jsonl")
            verdicts.append(verdicts.make_run("d0", "0000000", [("a", "met", "m")], "test"), path)
            v = judge.judge("a", [1.0] * 5, "<=", 1.05, "m")
            run = verdicts.make_run("d1", rev, [v], "test")
            lines = bench.targets_section(run, self.why(list(argv), rev), path)
            with open(path) as f:
                return lines, f.read().splitlines()

    def test_the_section_of_a_kept_run(self):
        lines, history = self.section("abc1234")
        self.assertEqual(len(history), 2)
        self.assertIn("| d1 (abc1234) |", lines[4])
        self.assertNotIn("not kept", "\n".join(lines))

    def test_the_section_says_why_a_dirty_run_was_not_kept(self):
        lines, history = self.section("abc1234+changes")
        self.assertEqual(len(history), 1)
        self.assertIn("This run is not kept in the history (the tree had uncommitted changes", lines[2])
        self.assertIn("this run, not kept: d1 (abc1234+changes)", lines[4])
        self.assertIn("| a | too few runs | met† | met |", "\n".join(lines))


if __name__ == "__main__":
    unittest.main()
