#!/usr/bin/env python3
"""pgbench end to end: latency --by 'sql(arg0)' groups PostgreSQL's traffic
into pgbench's statements, with the counts of the server's own log.

A throwaway PostgreSQL 15 cluster (a temporary directory, a unix socket
there, no TCP; owned by the postgres user, as initdb refuses root) logs
every statement (log_statement=all). pgbench -i fills it before the
recording; then usdt-record -p POSTMASTER (the server and the backends it
forks later: other PostgreSQL servers on the machine stay out) records
postgresql:query__start/done, their query strings, while
pgbench -n runs its default transaction (BEGIN; three UPDATEs, a SELECT, an
INSERT; END). The groups must be pgbench's statements, shaped as
pg_stat_statements shows them, and each group's pairs must equal the
number of statements of the server log that this test's own normalizer
(numbers to placeholders, written independently of usdt-report's) puts in
that group.

Exit 77 (skipped) without root or PostgreSQL, except under CI=true, where
that is a failure. usage: pgbench_shapes_test.py USDT_RECORD USDT_REPORT
"""
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile

PG_BIN = "/usr/lib/postgresql/15/bin"
SKIP = 77
TRANSACTIONS, CLIENTS = 40, 2

# pgbench's transaction, and the two queries it runs once at its start (the
# scale, and whether pgbench_accounts is partitioned).
EXPECTED_SHAPES = {
    "select count(*) from pgbench_branches",
    "begin;",
    "update pgbench_accounts set abalance = abalance + $1 where aid = $2;",
    "select abalance from pgbench_accounts where aid = $1;",
    "update pgbench_tellers set tbalance = tbalance + $1 where tid = $2;",
    "update pgbench_branches set bbalance = bbalance + $1 where bid = $2;",
    "insert into pgbench_history(tid, bid, aid, delta, mtime) values ($1, $2, $3, $4, current_timestamp);",
    "end;",
}


def cannot_run(why):
    if os.environ.get("CI") == "true":
        print(f"pgbench_shapes_test: {why} (under CI=true this is a failure)", file=sys.stderr)
        sys.exit(1)
    print(f"pgbench_shapes_test: skipped: {why}", file=sys.stderr)
    sys.exit(SKIP)


def log_shape(statement):
    """The log's statement grouped the simple way: every quoted string and
    number (with its sign where it is one) a #, lower-cased, without spaces."""
    s = re.sub(r"'(?:[^']|'')*'", "#", statement.strip())
    s = re.sub(r"(?<![\w$])-?\d+(\.\d+)?", "#", s)
    return re.sub(r"\s+", "", s).lower()


def our_shape(key):
    """One of usdt-report's groups in log_shape's terms."""
    return re.sub(r"\s+", "", re.sub(r"\$\d+", "#", key))


def as_postgres(argv, **kw):
    return subprocess.run(["runuser", "-u", "postgres", "--"] + argv, capture_output=True, text=True, **kw)


def start_cluster(work):
    data, log = os.path.join(work, "data"), os.path.join(work, "log")
    r = as_postgres([f"{PG_BIN}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8",
                     "--locale", "C"])
    if r.returncode != 0:
        raise RuntimeError(f"initdb failed: {r.stderr[-300:]}")
    opts = (f"-k {work} -c listen_addresses='' -c fsync=off -c autovacuum=off -c log_statement=all "
            "-c log_line_prefix='' -c logging_collector=off")
    r = as_postgres([f"{PG_BIN}/pg_ctl", "-D", data, "-o", opts, "-l", log, "-w", "-t", "120", "start"])
    if r.returncode != 0:
        raise RuntimeError(f"pg_ctl start failed: {r.stderr[-300:]}")
    return data, log


def pgbench(work, *args):
    r = subprocess.run([f"{PG_BIN}/pgbench", "-h", work, "-U", "postgres", *args, "postgres"], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"pgbench {' '.join(args)} failed: {r.stderr[-300:]}")


def record(record_bin, work, data, trace):
    """Records query__start/done while pgbench runs; the recorder says when
    it is ready (its 'recording' line) and stops on SIGINT."""
    postgres = f"{PG_BIN}/postgres"
    with open(os.path.join(data, "postmaster.pid")) as f:
        postmaster = f.readline().strip()
    rec = subprocess.Popen([record_bin, "-p", postmaster, "-e", f"usdt:{postgres}:postgresql:query__start",
                            "-e", f"usdt:{postgres}:postgresql:query__done",
                            "--string", "postgresql:query__*=arg0", "--string-bytes", "1024", "-o", trace],
                           stderr=subprocess.PIPE, text=True)
    seen = []
    for line in rec.stderr:
        seen.append(line)
        if line.startswith("usdt-record: recording"):
            break
    else:
        raise RuntimeError("usdt-record stopped before it was ready: " + "".join(seen)[-500:])
    try:
        pgbench(work, "-n", "-c", str(CLIENTS), "-t", str(TRANSACTIONS))
    finally:
        rec.send_signal(signal.SIGINT)
        rest = rec.communicate(timeout=300)[1]
    if rec.returncode != 0:
        raise RuntimeError(f"usdt-record failed: {rest[-500:]}")


def main():
    record_bin, report_bin = sys.argv[1], sys.argv[2]
    if os.getuid() != 0:
        cannot_run("needs root (usdt-record, and the postgres user's cluster)")
    if not os.access(f"{PG_BIN}/pgbench", os.X_OK):
        cannot_run(f"PostgreSQL 15 is not installed ({PG_BIN}); scripts/install-deps.sh installs it")
    pw = pwd.getpwnam("postgres")
    work = tempfile.mkdtemp(prefix="usdt-pgbench-")
    os.chmod(work, 0o755)
    os.chown(work, pw.pw_uid, pw.pw_gid)
    data = None
    try:
        data, log = start_cluster(work)
        pgbench(work, "-i", "-q", "-s", "1")
        log_start = os.path.getsize(log)
        trace = os.path.join(work, "pg.trace")
        record(record_bin, work, data, trace)
        if os.environ.get("USDT_KEEP_TRACE"):
            shutil.copy(trace, os.environ["USDT_KEEP_TRACE"])
        r = subprocess.run([report_bin, "latency", "--start", "postgresql:query__start", "--end",
                            "postgresql:query__done", "--key", "pid", "--by", "sql(arg0)", "--format", "json", trace],
                           capture_output=True, text=True, check=True)
        groups = {g["key"]: g["count"] for g in json.loads(r.stdout)["groups"]}
        with open(log, encoding="utf-8", errors="replace") as f:
            f.seek(log_start)
            statements = re.findall(r"^LOG:  statement: (.*)$", f.read(), re.M)
        by_log = {}
        for s in statements:
            by_log[log_shape(s)] = by_log.get(log_shape(s), 0) + 1
        failures = []
        setup = [k for k in groups if k.startswith("select o.n, p.partstrat, ")]
        if set(groups) - set(setup) != EXPECTED_SHAPES or len(setup) != 1:
            failures.append(f"groups {sorted(groups)} are not pgbench's {sorted(EXPECTED_SHAPES)}")
        ours = sorted((our_shape(k), n) for k, n in groups.items())
        theirs = sorted(by_log.items())
        if ours != theirs:
            failures.append(f"counts per group {ours} differ from the server log's {theirs}")
        if sum(groups.values()) != 7 * TRANSACTIONS * CLIENTS + 2:
            failures.append(f"{sum(groups.values())} pairs, expected {7 * TRANSACTIONS * CLIENTS + 2}")
        for f in failures:
            print("FAILED: " + f, file=sys.stderr)
        print(f"pgbench_shapes_test: {len(groups)} groups, {sum(groups.values())} statements")
        return 1 if failures else 0
    finally:
        if data:
            as_postgres([f"{PG_BIN}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
