#!/usr/bin/env python3
"""The real programs, recorded with call stacks as a user would:

    sudo python3 bench/stacks/real_programs.py [--build-dir DIR] [--mode dwarf|fp]

1. PostgreSQL 15 under pgbench: postgresql:query__start with -g, on a throwaway
   cluster (bench/lib/postgres.py), `-p` the postmaster; prints the hottest
   stacks and whether exec_simple_query is on them.
2. python3.11's function__return with -g on a small script; prints the
   hottest stacks (the interpreter's frames).

Each trace is then copied to a fresh directory and read there, so nothing in the
report comes from the traced binaries' paths (the report never opens them).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "lib"))
import postgres  # noqa: E402

PY_SCRIPT = """
def leaf(i):
    return i * 2
def middle(i):
    return leaf(i) + 1
def outer(n):
    return sum(middle(i) for i in range(n))
print(outer(2000))
"""


def report(report_bin, trace, *args):
    r = subprocess.run([report_bin, *args, trace], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def moved(trace, tmp):
    """The trace copied to a new directory (as if mailed to a colleague)."""
    dest = os.path.join(tmp, "moved")
    os.makedirs(dest, exist_ok=True)
    return shutil.copy(trace, dest)


def postgres_case(args, record_bin, report_bin, tmp):
    reason = postgres.missing_reason()
    if reason:
        print(f"postgres: skipped: {reason}")
        return
    cluster = postgres.Cluster()
    try:
        cluster.start()
        trace = os.path.join(tmp, "pg.trace")
        rec = subprocess.Popen([record_bin, "-e", "postgresql:query__start", "-g", args.mode,
                                "-o", trace, "-p", str(cluster.postmaster_pid())],
                               stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        result = cluster.pgbench(args.transactions)
        time.sleep(0.5)
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=120)
        print("postgres: pgbench", result.get("tps", result.get("error")), "tps")
        print("postgres: usdt-record:", err.strip().replace("\n", "\n    "))
        trace = moved(trace, tmp)
        rc, out, err = report(report_bin, trace, "stacks", "--folded")
        lines = out.splitlines()
        with_query = [l for l in lines if "exec_simple_query" in l]
        print(f"postgres: {len(lines)} distinct stacks, {len(with_query)} through exec_simple_query")
        rc, out, err = report(report_bin, trace, "stacks")
        print("\n".join(out.splitlines()[:40]))
    finally:
        cluster.stop()


def python_case(args, record_bin, report_bin, tmp):
    py = "/usr/bin/python3.11"
    if not os.access(py, os.X_OK):
        print("python: skipped: /usr/bin/python3.11 is not installed")
        return
    script = os.path.join(tmp, "work.py")
    with open(script, "w") as f:
        f.write(PY_SCRIPT)
    trace = os.path.join(tmp, "py.trace")
    r = subprocess.run([record_bin, "-e", "python:function__return", "-g", args.mode,
                        "--string", "python:function__return=arg0,arg1", "-o", trace,
                        "--", py, script], capture_output=True, text=True)
    print("python: usdt-record:", r.stderr.strip().replace("\n", "\n    "))
    trace = moved(trace, tmp)
    rc, out, err = report(report_bin, trace, "stacks")
    print("\n".join(out.splitlines()[:40]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--mode", default="dwarf", choices=["dwarf", "fp"])
    ap.add_argument("--transactions", type=int, default=200)
    args = ap.parse_args()
    record_bin = os.path.join(args.build_dir, "record", "usdt-record")
    report_bin = os.path.join(args.build_dir, "report", "usdt-report")
    with tempfile.TemporaryDirectory(prefix="usdt-stacks-real-") as tmp:
        os.chmod(tmp, 0o755)
        postgres_case(args, record_bin, report_bin, tmp)
        python_case(args, record_bin, report_bin, tmp)


if __name__ == "__main__":
    main()
