#!/usr/bin/env python3
"""Runs the commands of a documentation page: every fenced block marked
runnable, in page order, in one bash shell (so that a block can use the files
and variables of the blocks before it), and fails if one fails.

    run_doc_commands.py --build BUILD_DIR --source SOURCE_DIR PAGE.md

A runnable block opens with a line "```sh run" and may carry attributes:
  exit=N       the block must end with status N (an example of an error);
  needs=A,B    what it needs besides root: a program in PATH (ruby3.1, php8.2,
               java, g++), or "postgres", a throwaway PostgreSQL 15 cluster
               the runner starts for the page: PGDATA, PGHOST, PGUSER and
               PGDATABASE then point at it, as the page asks of a reader.
Blocks are run with `set -e` and without pipefail, as a reader's shell runs
them (`... | head` must not fail on the pipe it closes).

The page runs in a new directory holding `build` (a link to the build) and
`examples` (a link to the sources' examples), with the tools of the build
first in PATH and a plain system PATH after them. Recording needs root: without
it the page is skipped (exit 77), and so is a page whose programs are missing,
except under CI=true, where both are failures.
"""
import argparse
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
PG_BIN = "/usr/lib/postgresql/15/bin"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
FENCE = re.compile(r"^```sh run(?:\s+(.*))?$")


class Block:
    def __init__(self, line, attrs):
        self.line = line  # of the opening fence, 1-based
        self.text = ""
        self.exit = 0
        self.needs = []
        for attr in attrs.split():
            key, _, value = attr.partition("=")
            if key == "exit":
                self.exit = int(value)
            elif key == "needs":
                self.needs += [v for v in value.split(",") if v]
            else:
                raise ValueError(f"line {line}: unknown attribute '{attr}'")


def runnable_blocks(path):
    blocks, current = [], None
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if current is None:
                m = FENCE.match(line)
                if m:
                    current = Block(number, m.group(1) or "")
            elif line == "```":
                blocks.append(current)
                current = None
            else:
                current.text += line + "\n"
    if current is not None:
        raise ValueError(f"{path}:{current.line}: the block is not closed")
    return blocks


def script_of(page, blocks):
    """One bash script: each block announced, run, and its status checked."""
    parts = ["set -e\n"]
    for b in blocks:
        where = f"{page}:{b.line}"
        parts.append(f"echo '=== {where}' >&2\n")
        if b.exit == 0:
            parts.append(b.text)
            continue
        # In a subshell, so that its failure is looked at rather than fatal.
        parts.append("set +e\n(\nset -e\n" + b.text + ")\nstatus=$?\nset -e\n")
        parts.append(f"if [ $status -ne {b.exit} ]; then echo '{where}: exit status '$status', "
                     f"expected {b.exit}' >&2; exit 1; fi\n")
    return "".join(parts)


class Cluster:
    """A throwaway PostgreSQL 15 cluster of the postgres user (initdb and
    postgres refuse root), on a unix socket in its own directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="usdt-docs-pg-")
        self.started = False

    def _as_postgres(self, argv):
        return subprocess.run(["runuser", "-u", "postgres", "--"] + argv, capture_output=True,
                              text=True)

    def start(self):
        os.chmod(self.dir, 0o755)
        pw = pwd.getpwnam("postgres")
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        data = os.path.join(self.dir, "data")
        r = self._as_postgres([f"{PG_BIN}/initdb", "-D", data, "-A", "trust", "-U", "postgres",
                               "--no-sync", "-E", "UTF8", "--locale", "C"])
        if r.returncode != 0:
            raise RuntimeError("initdb failed: " + r.stderr[-300:])
        opts = f"-k {self.dir} -c listen_addresses='' -c fsync=off -c autovacuum=off"
        r = self._as_postgres([f"{PG_BIN}/pg_ctl", "-D", data, "-o", opts, "-l",
                               os.path.join(self.dir, "log"), "-w", "-t", "120", "start"])
        if r.returncode != 0:
            raise RuntimeError("pg_ctl start failed: " + r.stderr[-300:])
        self.started = True
        return {"PGDATA": data, "PGHOST": self.dir, "PGUSER": "postgres",
                "PGDATABASE": "postgres"}

    def stop(self):
        if self.started:
            self._as_postgres([f"{PG_BIN}/pg_ctl", "-D", os.path.join(self.dir, "data"), "-m",
                               "immediate", "-w", "stop"])
        shutil.rmtree(self.dir, ignore_errors=True)


def missing(needs):
    """What of needs is not there, as text; empty when all is."""
    out = []
    for need in needs:
        if need == "postgres":
            if not os.access(f"{PG_BIN}/initdb", os.X_OK) or not shutil.which("pgbench"):
                out.append("PostgreSQL 15 (postgresql-15)")
        elif not shutil.which(need, path=SYSTEM_PATH):
            out.append(need)
    return ", ".join(out)


def skip_or_fail(reason):
    if os.environ.get("CI") == "true":
        print(f"docs test cannot run: {reason} (CI=true requires it)", file=sys.stderr)
        return 1
    print(f"skipped: {reason}", file=sys.stderr)
    return SKIP


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("page")
    args = ap.parse_args()
    page = os.path.relpath(args.page, args.source)
    blocks = runnable_blocks(args.page)
    if not blocks:
        print(f"{page}: no runnable block (```sh run)", file=sys.stderr)
        return 1
    if os.getuid() != 0:
        return skip_or_fail("not root (recording needs root or CAP_SYS_ADMIN)")
    needs = sorted({n for b in blocks for n in b.needs})
    if missing(needs):
        return skip_or_fail(f"{page} needs {missing(needs)}")

    work = tempfile.mkdtemp(prefix="usdt-docs-")
    os.symlink(os.path.abspath(args.build), os.path.join(work, "build"))
    os.symlink(os.path.join(os.path.abspath(args.source), "examples"),
               os.path.join(work, "examples"))
    build = os.path.abspath(args.build)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["PATH"] = f"{build}/record:{build}/report:{SYSTEM_PATH}"
    env["HOME"] = work
    cluster = Cluster() if "postgres" in needs else None
    status = 1
    started = time.monotonic()
    try:
        if cluster:
            env.update(cluster.start())
        script = script_of(page, blocks)
        with open(os.path.join(work, "page.sh"), "w") as f:
            f.write(script)
        status = subprocess.run(["bash", "page.sh"], cwd=work, env=env,
                                stdin=subprocess.DEVNULL).returncode
    finally:
        if cluster:
            cluster.stop()
    seconds = time.monotonic() - started
    if status == 0:
        print(f"{page}: {len(blocks)} runnable blocks ran in {seconds:.1f} s")
        shutil.rmtree(work, ignore_errors=True)
        return 0
    print(f"{page}: a block failed (status {status}); its files are kept in {work}",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
