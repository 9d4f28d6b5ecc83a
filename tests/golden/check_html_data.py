#!/usr/bin/env python3
"""Checks that usdt-report html carries the numbers of summary and latency:
its embedded JSON (data-summary, data-latency) must equal, value for value,
what `summary --format json` and `latency --format json` print for the same
trace and options (html shows the 10 slowest pairs, as --slowest 10 does).
Exit 1 on a difference.

usage: check_html_data.py USDT_REPORT TRACE_DIR OUT_HTML [OPTIONS...] TRACE"""
import json
import re
import subprocess
import sys


def run(report, cwd, *args):
    return subprocess.run([report, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def main():
    report, traces, out, *args = sys.argv[1:]
    options, trace = args[:-1], args[-1]
    run(report, traces, "html", "-o", out, *options, trace)
    with open(out, encoding="utf-8") as f:
        page = f.read()
    blocks = dict(re.findall(r'<script type="application/json" id="data-(\w+)">(.*?)</script>', page, re.S))
    problems = []
    # The summary's options: html's, without those only the pairs take.
    summary_options, skip = [], 0
    for i, a in enumerate(options):
        if skip:
            skip -= 1
            continue
        if a in ("--start", "--end", "--key", "--by"):
            skip = 1
            continue
        summary_options.append(a)
    expected = json.loads(run(report, traces, "summary", "--format", "json", *summary_options, trace))
    if json.loads(blocks.get("summary", "null")) != expected:
        problems.append("data-summary differs from summary --format json")
    if "--start" in options:
        expected = json.loads(run(report, traces, "latency", "--slowest", "10", "--format", "json", *options, trace))
        if json.loads(blocks.get("latency", "null")) != expected:
            problems.append("data-latency differs from latency --slowest 10 --format json")
    for p in problems:
        print("FAIL:", p, "for", " ".join([*options, trace]), file=sys.stderr)
    if not problems:
        print("ok: html carries the numbers of summary and latency for", " ".join([*options, trace]))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
