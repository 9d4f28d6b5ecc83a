"""A throwaway PostgreSQL 15 cluster for the pgbench workload.

initdb and postgres refuse to run as root, so the cluster belongs to the
`postgres` system user (created by the Debian package); it lives in a
temporary directory, listens only on a unix socket in that directory (no TCP)
and is stopped and removed by stop(), which the benchmark calls from a
finally block and from its signal handlers.
"""
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time

PG_BIN = "/usr/lib/postgresql/15/bin"


def missing_reason():
    for prog in ("initdb", "pg_ctl", "postgres", "pgbench"):
        if not os.access(os.path.join(PG_BIN, prog), os.X_OK):
            return (f"PostgreSQL 15 is not installed ({PG_BIN}/{prog} missing); "
                    "install it with: apt-get install postgresql-15 postgresql-contrib")
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "the postgres system user does not exist"
    return None


class Cluster:
    def __init__(self):
        self.dir = None
        self.started = False

    def _as_postgres(self, argv, **kw):
        if os.getuid() == 0:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        return subprocess.run(argv, capture_output=True, text=True, **kw)

    def start(self, scale=1):
        self.dir = tempfile.mkdtemp(prefix="usdt-bench-pg-")
        os.chmod(self.dir, 0o755)
        if os.getuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        data = os.path.join(self.dir, "data")
        r = self._as_postgres([f"{PG_BIN}/initdb", "-D", data, "-A", "trust", "-U", "postgres",
                               "--no-sync", "-E", "UTF8", "--locale", "C"])
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed: {r.stderr.strip()[-300:]}")
        # CPU-bound server: no fsync, no TCP, no autovacuum (its work would
        # vary the number of probe hits between runs).
        opts = (f"-k {self.dir} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
                "-c full_page_writes=off -c autovacuum=off -c shared_buffers=64MB")
        r = self._as_postgres([f"{PG_BIN}/pg_ctl", "-D", data, "-o", opts, "-l",
                               os.path.join(self.dir, "log"), "-w", "-t", "60", "start"])
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {r.stderr.strip()[-300:]}")
        self.started = True
        r = subprocess.run([f"{PG_BIN}/pgbench", "-h", self.dir, "-U", "postgres", "-i", "-q",
                            "-s", str(scale), "postgres"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"pgbench -i failed: {r.stderr.strip()[-300:]}")

    def postmaster_pid(self):
        with open(os.path.join(self.dir, "data", "postmaster.pid")) as f:
            return int(f.readline())

    def reaped_children_cpu_ns(self):
        """CPU time of the postmaster's exited children (the backends that
        served pgbench): cutime + cstime of /proc/PID/stat, in clock ticks."""
        with open(f"/proc/{self.postmaster_pid()}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = int(fields[13]) + int(fields[14])  # fields 16 and 17 of stat(5)
        return ticks * 1_000_000_000 // os.sysconf("SC_CLK_TCK")

    def pgbench(self, transactions, clients=1):
        """Runs pgbench; returns {"loop_ns": wall ns, "tps": tps, "workload_cpu_ns":
        CPU of pgbench and of the backends that served it} or {"error": ...}."""
        cpu0 = self.reaped_children_cpu_ns()
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            t0 = time.monotonic_ns()
            proc = subprocess.Popen([f"{PG_BIN}/pgbench", "-h", self.dir, "-U", "postgres", "-n",
                                     "-c", str(clients), "-t", str(transactions), "postgres"],
                                    stdout=out, stderr=err)
            _, status, ru = os.wait4(proc.pid, 0)
            wall = time.monotonic_ns() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        # The backends exit when pgbench disconnects; give the postmaster a
        # moment to reap them so that their CPU time is counted.
        time.sleep(0.05)
        cpu1 = self.reaped_children_cpu_ns()
        if proc.returncode != 0:
            lines = [l for l in stderr.splitlines() if l.strip() and "could not create connection" not in l]
            return {"error": "pgbench failed: " + (lines[-1] if lines else stderr.strip())[-200:].replace("|", "/")}
        m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", stdout)
        return {"loop_ns": wall, "tps": float(m.group(1)) if m else None,
                "workload_cpu_ns": cpu1 - cpu0 + int((ru.ru_utime + ru.ru_stime) * 1e9)}

    def stop(self):
        if self.dir is None:
            return
        if self.started:
            self._as_postgres([f"{PG_BIN}/pg_ctl", "-D", os.path.join(self.dir, "data"),
                               "-m", "immediate", "-w", "stop"])
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None
