"""Self-test of the independent loss count (hit_count.py):

    python3 -m unittest bench/lib/test_hit_count.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hit_count  # noqa: E402

HEADER = ["time_ns", "pid", "tid", "cpu", "comm", "provider", "name", "arg0", "arg1"]


def rows(keys, header=HEADER):
    """CSV rows of bench:hit2 events with (index, tag) keys."""
    return [header] + [["1", "10", "11", "0", "loop", "bench", "hit2", str(i), str(t)] for i, t in keys]


class CountTest(unittest.TestCase):
    def setUp(self):
        self.two_threads = hit_count.ExpectedHits([("bench", "hit2")], 5, 2)  # tag 1: 0..2, tag 2: 0..1

    def test_split_as_loop_c_does(self):
        self.assertEqual(hit_count.per_thread_hits(5, 2), [3, 2])
        self.assertEqual(hit_count.per_thread_hits(1000000, 1), [1000000])

    def test_every_hit_once(self):
        c = hit_count.count_rows(rows([(0, 1), (1, 1), (2, 1), (0, 2), (1, 2)]), self.two_threads)
        self.assertEqual(c, {"events": 5, "unique": 5, "lost": 0, "dup": 0, "stray": 0})

    def test_lost_and_duplicated(self):
        c = hit_count.count_rows(rows([(0, 1), (0, 1), (2, 1), (1, 2), (1, 2), (1, 2)]), self.two_threads)
        self.assertEqual(c, {"events": 6, "unique": 3, "lost": 2, "dup": 3, "stray": 0})

    def test_keys_the_workload_never_made_are_stray(self):
        # index past the thread's share, unknown tag, null argument, other probe
        data = rows([(0, 1), (2, 2), (0, 3)])
        data.append(["1", "10", "11", "0", "loop", "bench", "hit2", "", "1"])
        data.append(["1", "10", "11", "0", "loop", "bench", "start", "1", "1"])
        c = hit_count.count_rows(data, self.two_threads)
        self.assertEqual(c, {"events": 5, "unique": 1, "lost": 4, "dup": 0, "stray": 4})

    def test_swapped_key_arguments(self):
        mem = hit_count.ExpectedHits([("bench", "hit2")], 2, 1, index_arg=1, tag_arg=0)
        c = hit_count.count_rows(rows([(1, 0), (1, 1)]), mem)  # (tag, index) in arg0, arg1
        self.assertEqual(c["unique"], 2)

    def test_a_host_column_first(self):
        c = hit_count.count_rows([["host"] + HEADER, ["h", "1", "10", "11", "0", "loop", "bench", "hit2", "0", "1"]],
                                 hit_count.ExpectedHits([("bench", "hit2")], 1, 1))
        self.assertEqual(c["unique"], 1)

    def test_missing_columns(self):
        with self.assertRaisesRegex(ValueError, "arg1"):
            hit_count.count_rows([HEADER[:-1]], self.two_threads)
        with self.assertRaises(ValueError):
            hit_count.count_rows([], self.two_threads)


class FunctionProbeTest(unittest.TestCase):
    """fentry/fret: one uprobe, whatever name the trace gives it."""

    def test_any_probe_name_counts(self):
        e = hit_count.ExpectedHits([("uprobe", "bench_work")], 3, 1, any_probe=True)
        got = [HEADER] + [["1", "10", "11", "0", "loop", prov, "bench_work", str(i), "1"]
                          for prov, i in (("loop", 0), ("uprobe", 1), ("loop", 2), ("uprobe", 2))]
        self.assertEqual(hit_count.count_rows(got, e), {"events": 4, "unique": 3, "lost": 0, "dup": 1, "stray": 0})

    def test_without_any_probe_the_name_must_match(self):
        e = hit_count.ExpectedHits([("uprobe", "bench_work")], 1, 1)
        got = [HEADER, ["1", "10", "11", "0", "loop", "loop", "bench_work", "0", "1"]]
        self.assertEqual(hit_count.count_rows(got, e)["stray"], 1)

    def test_return_value_alone_keys_a_hit(self):
        e = hit_count.ExpectedHits([("uretprobe", "bench_work")], 3, 1, tag_arg=None, any_probe=True)
        header = HEADER[:-1]
        got = [header] + [["1", "10", "11", "0", "loop", "loop", "bench_work", str(i)] for i in (0, 2, 7)]
        self.assertEqual(hit_count.count_rows(got, e), {"events": 3, "unique": 2, "lost": 1, "dup": 0, "stray": 1})

    def test_no_tag_needs_one_thread(self):
        with self.assertRaises(ValueError):
            hit_count.ExpectedHits([("uretprobe", "f")], 4, 2, tag_arg=None)


if __name__ == "__main__":
    unittest.main()
