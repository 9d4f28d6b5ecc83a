"""Self-test of the call-stack comparison of bench/stacks/run.py (stack_names.py):

    python3 -m unittest bench/lib/test_stack_names.py
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stack_names  # noqa: E402

FULL = ["leaf", "step_x", "route_a", "run", "main", "__libc_start_call_main", "__libc_start_main@@GLIBC_2.34",
        "_start"]

# perf script --no-inline -F event,trace,ip,sym,dso as perf 6.1 writes it
# (an "(inlined)" entry added to the first sample).
PERF_SCRIPT = (
    "ubench_stack:hit: (5618e879e360) arg1=0 arg2=0\n"
    "\t            1360 leaf (/tmp/stacks)\n"
    "\t            1398 step_x (/tmp/stacks)\n"
    "\t            13a0 inline_helper (inlined) (/tmp/stacks)\n"
    "\t            13ed route_a+0x1d (/tmp/stacks)\n"
    "\n"
    "ubench_stack:hit: (5618e879e360) arg1=0x1 arg2=1\n"
    "\t            1360 leaf (/tmp/stacks)\n"
    "\t           27249 __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)\n")


class AgreeTest(unittest.TestCase):
    def test_the_same_whole_stack_agrees(self):
        self.assertTrue(stack_names.agree(FULL, list(FULL)))

    def test_a_truncated_stack_does_not_agree(self):
        # Its frames are right as far as they go: compared only up to the
        # shorter stack, it "agreed".
        self.assertFalse(stack_names.agree(FULL, FULL[:5]))
        self.assertFalse(stack_names.agree(FULL[:3], FULL))

    def test_a_different_frame_does_not_agree(self):
        self.assertFalse(stack_names.agree(FULL, ["leaf", "step_y"] + FULL[2:]))

    def test_perf_inlined_entries_are_left_out(self):
        perf = FULL[:2] + ["helper (inlined)"] + FULL[2:]
        self.assertTrue(stack_names.agree(perf, FULL))

    def test_empty_stacks_never_agree(self):
        self.assertFalse(stack_names.agree([], []))

    def test_agreement_counts_the_common_hits(self):
        n, same, bad = stack_names.agreement({0: FULL, 1: FULL[:4], 2: FULL}, {0: FULL, 1: FULL, 3: FULL})
        self.assertEqual((n, same, bad), (2, 1, [1]))

    def test_the_workloads_own_path(self):
        path = FULL[:5]
        self.assertTrue(stack_names.follows_path(FULL, path))
        self.assertFalse(stack_names.follows_path(FULL[:4], path))  # main is missing
        self.assertFalse(stack_names.follows_path(["leaf", "route_a", "run", "main"], path))  # step_x is missing


class ParseTest(unittest.TestCase):
    def test_perf_script(self):
        stacks = stack_names.perf_script_stacks(PERF_SCRIPT)
        self.assertEqual(stacks, {0: ["leaf", "step_x", "inline_helper (inlined)", "route_a"],
                                  1: ["leaf", "__libc_start_call_main"]})

    def test_dump_jsonl(self):
        text = "\n".join(json.dumps(e) for e in [
            {"args": [7, 3], "stack": [{"function": "leaf"}, {"function": None}, {}]},
            {"args": [8, 0]}])
        self.assertEqual(stack_names.dump_jsonl_stacks(text), {7: ["leaf", "[unknown]", "[unknown]"]})


if __name__ == "__main__":
    unittest.main()
