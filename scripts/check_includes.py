#!/usr/bin/env python3
"""Checks the include rules of docs/architecture.md: which folder may include which.

Exit 0 when every rooted include ("common/...", "report/input/...") of the
sources follows them; else one line per include that does not, and exit 1.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORT_COMMANDS = {"summary", "dump", "latency", "hist", "stacks", "export", "flamegraph", "heatmap", "html", "top"}
# Inside report/: the shared folders, each with what it may include.
REPORT_SHARED = {
    "input": {"input", "output/output_buffer.h"},
    "symbols": {"input", "symbols"},
    "stats": {"input", "stats"},
    "pairing": {"input", "stats", "symbols", "pairing"},
    "output": {"input", "stats", "symbols", "pairing", "output"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def top(path):
    return path.split("/", 1)[0]


def report_part(path):
    """'input', 'summary', ... or '' for a file at report/'s top."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else ""


def allowed(src, inc):
    """None when src may include inc, else why not."""
    s, i = top(src), top(inc)
    if i not in ("common", "formats", "pairing", "record", "report"):
        return None  # a test helper, a generated header
    if s == "common" and i != "common":
        return "common/ includes nothing of the project"
    if s == "formats" and i not in ("common", "formats"):
        return "formats/ uses common/ only"
    if s == "pairing" and i not in ("common", "formats", "pairing"):
        return "pairing/ uses formats/ and common/ only"
    if {s, i} == {"record", "report"}:
        return "record/ and report/ meet only in the trace format"
    if s != "report" or i != "report":
        return None
    sp, ip = report_part(src), report_part(inc)
    if sp == "":
        return None  # the entry: main, the command line, the dispatch
    if ip == "":
        return "the entry (report/*.{h,cpp}) is included by nothing"
    if sp in REPORT_COMMANDS:
        if ip in REPORT_COMMANDS and ip != sp:
            return "a command never includes another command's folder"
        return None
    may = REPORT_SHARED.get(sp, set())
    inner = inc.split("/", 1)[1]
    if ip in may or inner in may:
        return None
    return f"report/{sp}/ may include only {', '.join(sorted(may))}"


def main():
    bad = []
    for folder in ("common", "formats", "pairing", "record", "report"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if not name.endswith((".h", ".cpp", ".inc")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), ROOT)
                with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    why = allowed(path, inc)
                    if why:
                        bad.append(f"{path}: includes {inc}: {why}")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
