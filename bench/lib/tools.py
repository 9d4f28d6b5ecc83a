"""The tools the benchmark compares, each run on one workload once.

Every tool run is reaped with wait4, so its wall time, CPU time and peak
resident memory are known; a run returns a Run (a dict) with what could be
measured and None for what could not. A failure is a Run with "error" set,
never a made-up number.
"""
import json
import os
import re
import signal
import subprocess
import time

import hit_count

TRACEFS = "/sys/kernel/tracing"


class ToolError(Exception):
    pass


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def read_workload_result(path):
    """The JSON line the loop workload appends at exit (None if it wrote none)."""
    try:
        with open(path) as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        return json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None


def last_line(text):
    """The last non-empty line, cut to fit a table cell (the first, for pgbench,
    whose last line only says it gave up)."""
    lines = [l.strip() for l in (text or "").strip().splitlines() if l.strip()]
    lines = [l for l in lines if not l.startswith("pgbench: error: could not create connection")] or lines
    return lines[-1][:200].replace("|", "/") if lines else ""


# ---------------------------------------------------------------- tracefs

def ensure_tracefs():
    if not os.path.exists(os.path.join(TRACEFS, "uprobe_events")):
        sh(["mount", "-t", "tracefs", "nodev", TRACEFS])
    if not os.path.exists(os.path.join(TRACEFS, "uprobe_events")):
        raise ToolError("tracefs is not mounted at /sys/kernel/tracing and cannot be mounted")


class UprobeEvents:
    """The tracefs uprobe events behind `perf stat`/`perf record -e`.

    The definitions are the ones `perf probe -x BIN sdt_PROVIDER:NAME` would
    write (taken from its dry run), renamed to the group ubench_PROVIDER so
    they cannot collide with anybody else's sdt_* events on this machine."""

    def __init__(self):
        self.created = []  # "group/event"

    def add(self, binary, provider, name):
        ensure_tracefs()
        r = sh(["perf", "probe", "-n", "-v", "-x", binary, "-a", f"sdt_{provider}:{name}"])
        defs = re.findall(r"Writing event: (p:\S+ .*)", r.stderr + r.stdout)
        if not defs:
            # perf finds SDT notes through its build-id cache, which holds one
            # path per build-id: the same binary at a second path fails until
            # the cache entry is made again for this path.
            sh(["perf", "buildid-cache", "--remove", binary])
            sh(["perf", "buildid-cache", "--add", binary])
            r = sh(["perf", "probe", "-n", "-v", "-x", binary, "-a", f"sdt_{provider}:{name}"])
            defs = re.findall(r"Writing event: (p:\S+ .*)", r.stderr + r.stdout)
        if not defs:
            raise ToolError(f"perf probe cannot define sdt_{provider}:{name}: {last_line(r.stderr)}")
        events = []
        for d in defs:
            head, rest = d.split(" ", 1)
            event = head.split("/", 1)[1]
            group = "ubench_" + provider
            self.delete(f"{group}/{event}")
            try:
                self._write(f"p:{group}/{event} {rest}\n")
            except OSError as e:
                raise ToolError(f"cannot create uprobe event {group}/{event}: {e}")
            self.created.append(f"{group}/{event}")
            events.append(f"{group}:{event}")
        return events

    def add_func(self, binary, symbol, ret):
        """A uprobe on the entry of `symbol` with its first two argument
        registers (%di, %si: what bench:hit2's sdt event fetches), or a
        uretprobe with the return value; the address is the one `perf probe -x
        BIN SYMBOL[%return]` finds (its dry run), the group ubench_func."""
        ensure_tracefs()
        spec = symbol + ("%return" if ret else "")
        r = sh(["perf", "probe", "-n", "-v", "-x", binary, "-a", spec])
        m = re.search(r"Writing event: [pr]:\S+ (\S+)", r.stderr + r.stdout)
        if not m:
            raise ToolError(f"perf probe cannot define {spec} in {binary}: {last_line(r.stderr)}")
        event = symbol + ("__return" if ret else "")
        group_event = f"ubench_func/{event}"
        fetch = "arg1=$retval:u64" if ret else "arg1=%di:u64 arg2=%si:u64"
        self.delete(group_event)
        try:
            self._write(f"{'r' if ret else 'p'}:{group_event} {m.group(1)} {fetch}\n")
        except OSError as e:
            raise ToolError(f"cannot create uprobe event {group_event}: {e}")
        self.created.append(group_event)
        return [f"ubench_func:{event}"]

    @staticmethod
    def _write(line):
        # O_APPEND without Python's seek to the end, which tracefs refuses.
        fd = os.open(os.path.join(TRACEFS, "uprobe_events"), os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    @staticmethod
    def delete(group_event):
        if not os.path.isdir(os.path.join(TRACEFS, "events", group_event)):
            return
        try:
            UprobeEvents._write(f"-:{group_event}\n")
        except OSError:
            pass

    def cleanup(self):
        for ge in reversed(self.created):
            self.delete(ge)
        self.created = []


# ---------------------------------------------------------------- tools

class Tool:
    """One way of running a workload. `command_argv` wraps a command to run
    (the loop workloads); `attach_argv` attaches to a running process tree
    and is stopped with SIGINT (the postgres workload)."""

    name = "?"
    label = "?"
    ready_marker = None  # text on stderr/stdout once attached (None: wait a fixed time)
    blind_wait_s = 0.4   # that fixed time
    marker_precedes_attach = False
    uses_control_fifo = False

    def available(self):
        return None  # or a reason string

    def prepare(self, workload, ctx):
        pass

    def command_argv(self, workload, out, argv):
        raise NotImplementedError

    def attach_argv(self, workload, out, pid):
        return None  # not supported

    def collect(self, workload, out, proc_stdout, proc_stderr, ctx):
        """Returns dict with events, lost, dup, bytes (None when unknown)."""
        return {}


class Untraced(Tool):
    name, label = "untraced", "untraced"
    blind_wait_s = 0.0

    def command_argv(self, workload, out, argv):
        return argv

    def attach_argv(self, workload, out, pid):
        return ["sleep", "1000000"]

    def collect(self, workload, out, so, se, ctx):
        return {"events": workload.expected_events, "untraced": True}


def perf_control_args(out):
    """Attached perf starts with its events disabled and is enabled through a
    control FIFO that acknowledges (see wait_ready): it prints nothing when it
    has attached, and a fixed wait is too short on a loaded machine."""
    for suffix in (".ctl", ".ack"):
        if os.path.exists(out + suffix):
            os.unlink(out + suffix)
        os.mkfifo(out + suffix)
    return ["-D", "-1", "--control", f"fifo:{out}.ctl,{out}.ack"]


class PerfStat(Tool):
    name, label = "floor", "uprobe count (perf stat)"
    uses_control_fifo = True

    def available(self):
        return None if ctx_which("perf") else "perf is not installed"

    def prepare(self, workload, ctx):
        ctx.setdefault("events", {})
        key = (workload.binary, tuple(workload.probes))
        if key not in ctx["events"]:
            evs = []
            if workload.func:
                kind, symbol = workload.func
                evs += ctx["uprobes"].add_func(workload.binary, symbol, kind == "uretprobe")
            else:
                for p, n in workload.probes:
                    evs += ctx["uprobes"].add(workload.binary, p, n)
            ctx["events"][key] = evs

    def _ev(self, workload, ctx):
        return ctx["events"][(workload.binary, tuple(workload.probes))]

    def command_argv(self, workload, out, argv):
        evs = self._ev(workload, self.ctx)
        return ["perf", "stat", "-x", ",", "-o", out] + sum([["-e", e] for e in evs], []) + ["--"] + argv

    def attach_argv(self, workload, out, pid):
        evs = self._ev(workload, self.ctx)
        return ["perf", "stat", "-x", ",", "-o", out] + sum([["-e", e] for e in evs], []) + \
            perf_control_args(out) + ["-p", str(pid)]

    def collect(self, workload, out, so, se, ctx):
        total = 0
        seen = False
        with open(out) as f:
            for line in f:
                fields = line.strip().split(",")
                if len(fields) > 2 and fields[0].isdigit():
                    total += int(fields[0])
                    seen = True
        return {"events": total if seen else None}


class PerfRecord(Tool):
    uses_control_fifo = True

    def __init__(self, compress):
        self.compress = compress
        self.name = "perf-z" if compress else "perf"
        self.label = "perf record -z" if compress else "perf record"

    available = PerfStat.available
    prepare = PerfStat.prepare
    _ev = PerfStat._ev

    def _base(self, workload, out):
        argv = ["perf", "record", "-q", "-o", out]
        if self.compress:
            argv.append("-z")
        return argv + sum([["-e", e] for e in self._ev(workload, self.ctx)], [])

    def command_argv(self, workload, out, argv):
        return self._base(workload, out) + ["--"] + argv

    def attach_argv(self, workload, out, pid):
        return self._base(workload, out) + perf_control_args(out) + ["-p", str(pid)]

    def collect(self, workload, out, so, se, ctx):
        res = {"bytes": os.path.getsize(out) if os.path.exists(out) else None}
        # Every sample once: lines of `perf script` with tid, probe address and
        # arguments; (tid, arg0, arg1) is unique per hit in the loop workloads.
        p = subprocess.Popen(["perf", "script", "-i", out, "-F", "tid,ip,trace"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        lines, uniq = 0, set()
        for line in p.stdout:
            lines += 1
            uniq.add(hash(line))
        p.wait()
        res["events"] = lines
        if workload.unique_args:
            res["dup"] = lines - len(uniq)
            if workload.expected_events is not None:
                res["lost"] = workload.expected_events - len(uniq)
        elif workload.expected_events is not None:
            res["lost"] = workload.expected_events - lines
        return res


class BareSampler(Tool):
    name, label = "bare", "bare sampler"
    ready_marker = "bare_sampler: ready"

    def __init__(self, path):
        self.path = path

    def available(self):
        return None if os.access(self.path, os.X_OK) else f"{self.path} was not built"

    def prepare(self, workload, ctx):
        if workload.func:
            raise ToolError("sdt_locate.py finds USDT sites only, not functions")
        ctx.setdefault("locate", {})
        key = (workload.binary, tuple(workload.probes))
        if key not in ctx["locate"]:
            here = os.path.dirname(os.path.abspath(__file__))
            r = sh(["python3", os.path.join(here, "sdt_locate.py"), workload.binary] +
                   [f"{p}:{n}" for p, n in workload.probes])
            if r.returncode != 0:
                raise ToolError(last_line(r.stderr))
            ctx["locate"][key] = r.stdout.split()

    def _base(self, workload, out):
        opts = self.ctx["locate"][(workload.binary, tuple(workload.probes))]
        return [self.path, "-b", workload.binary] + opts + ["-o", out]

    def command_argv(self, workload, out, argv):
        return self._base(workload, out) + ["--"] + argv

    def attach_argv(self, workload, out, pid):
        # CPU-wide events (see bare_sampler.c); the command only keeps it alive.
        return self._base(workload, out) + ["--", "sleep", "1000000"]

    def collect(self, workload, out, so, se, ctx):
        m = re.search(r"samples=(\d+) lost=(\d+) bytes=(\d+)", se or "")
        if not m:
            return {}
        res = {"events": int(m.group(1)), "lost": int(m.group(2)),
               "bytes": os.path.getsize(out) if os.path.exists(out) else None}
        # Duplicates are told apart by the sampled registers, which hold the
        # arguments only when none is in memory (not on kread).
        if workload.unique_args and workload.sample_holds_args and ctx.get("check_dups", True) and res["bytes"]:
            res["dup"] = self.count_duplicates(out, len(workload.probes) > 1)
        return res

    @staticmethod
    def count_duplicates(path, has_identifier):
        """Samples whose content (all but TIME and CPU) appeared before: the
        workload's (tid, arguments) are unique per hit. The file holds the raw
        perf records: u32 type, u16 misc, u16 size, then the sample fields in
        order IDENTIFIER?, TID, TIME, CPU, REGS_USER, STACK_USER."""
        import struct
        with open(path, "rb") as f:
            data = f.read()
        time_at = 8 + (8 if has_identifier else 0) + 8  # header, id?, tid
        seen, dups, pos = set(), 0, 0
        while pos + 8 <= len(data):
            rtype, _, size = struct.unpack_from("<IHH", data, pos)
            if size == 0:
                break
            if rtype == 9:  # PERF_RECORD_SAMPLE
                key = hash(data[pos + 8:pos + time_at] + data[pos + time_at + 16:pos + size])
                if key in seen:
                    dups += 1
                else:
                    seen.add(key)
            pos += size
        return dups


class Bpftrace(Tool):
    name, label = "bpftrace", "bpftrace count"
    ready_marker = "Attaching"
    marker_precedes_attach = True

    def available(self):
        return None if ctx_which("bpftrace") else "bpftrace is not installed"

    def _prog(self, workload):
        if workload.func:
            kind, symbol = workload.func
            return f"{kind}:{workload.binary}:{symbol} {{ @ = count(); }}"
        probes = ",".join(f"usdt:{workload.binary}:{p}:{n}" for p, n in workload.probes)
        return probes + " { @ = count(); }"

    def command_argv(self, workload, out, argv):
        import shlex
        return ["bpftrace", "-e", self._prog(workload), "-c", " ".join(shlex.quote(a) for a in argv)]

    def attach_argv(self, workload, out, pid):
        # System-wide on the binary: with -p, bpftrace 0.17 attaches to that
        # process only and would miss the backends forked later.
        return ["bpftrace", "-e", self._prog(workload)]

    def collect(self, workload, out, so, se, ctx):
        m = re.search(r"^@: (\d+)", so or "", re.M)
        if m:
            return {"events": int(m.group(1))}
        # No event at all: bpftrace prints no map.
        return {"events": 0} if "Attaching" in (so or "") else {}


class UsdtRecord(Tool):
    """usdt-record on the sampled path (--capture sample): perf samples and
    tracefs kernel reads, as before the BPF path existed, so that its targets
    keep measuring the same thing."""
    name, label = "usdt-record", "usdt-record"
    ready_marker = "Ctrl-C to end"
    capture = "sample"

    def __init__(self, record, report):
        self.record, self.report = record, report
        self.reason = None

    def available(self):
        for p in (self.record, self.report):
            if not os.access(p, os.X_OK):
                return f"{os.path.basename(p)} was not built"
        return self.reason

    def _base(self, workload, out):
        if workload.func:
            kind, symbol = workload.func
            return [self.record, "--capture", self.capture, "-o", out, "-e", f"{kind}:{workload.binary}:{symbol}"]
        argv = [self.record, "--capture", self.capture, "-o", out] + \
            sum([["-e", f"{p}:{n}"] for p, n in workload.probes], [])
        for p, n in workload.probes:
            if workload.strings:
                argv += ["--string", f"{p}:{n}=" + ",".join(workload.strings)]
        return argv

    def command_argv(self, workload, out, argv):
        return self._base(workload, out) + ["--"] + argv

    def attach_argv(self, workload, out, pid):
        return self._base(workload, out) + ["-p", str(pid)]


    def collect(self, workload, out, so, se, ctx):
        """Events, lost and duplicated as counted from the dump of the trace
        (hit_count.py), not from usdt-record's own counters, which go to
        own_events and own_lost. Without hit keys (postgres), or for the
        timing workloads under --no-dupcheck, the events are the rows of the
        dump and lost is left to the floor comparison (losses_against_floor)."""
        res = {"bytes": os.path.getsize(out) if os.path.exists(out) else None}
        r = sh([self.report, "summary", "--format", "json", out])
        if r.returncode != 0:
            raise ToolError(f"usdt-report summary failed: {last_line(r.stderr)}")
        s = json.loads(r.stdout)
        res["own_events"] = s.get("events")
        res["own_lost"] = s.get("lost")
        if workload.hit_keys is not None and (workload.loss_check or ctx.get("check_dups", True)):
            try:
                c = hit_count.count_trace(self.report, out, workload.hit_keys)
            except RuntimeError as e:
                raise ToolError(str(e))
            res.update({k: c[k] for k in ("events", "lost", "dup", "stray")})
            return res
        r = subprocess.run([self.report, "dump", "--format", "csv", out], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise ToolError(f"usdt-report dump failed: {last_line(r.stderr.decode(errors='replace'))}")
        res["events"] = max(r.stdout.count(b"\n") - 1, 0)  # less the header line
        return res


class UsdtRecordBpf(UsdtRecord):
    """usdt-record --capture bpf: the BPF capture program reads the arguments
    at the hit into a BPF ring buffer."""
    name, label = "usdt-record-bpf", "usdt-record --capture bpf"
    capture = "bpf"


class UsdtRecordAll(UsdtRecord):
    """usdt-record -a: system-wide, every process that maps the probed file.
    Attach mode only (the workload's probes name their file)."""
    name, label = "usdt-record-a", "usdt-record -a"

    def _base(self, workload, out):
        return [self.record, "--capture", self.capture, "-o", out, "-a"] + \
            sum([["-e", f"usdt:{workload.binary}:{p}:{n}"] for p, n in workload.probes], [])

    def command_argv(self, workload, out, argv):
        raise ToolError("usdt-record -a runs no command")

    def attach_argv(self, workload, out, pid):
        return self._base(workload, out)


def ctx_which(prog):
    from shutil import which
    return which(prog) is not None


# ---------------------------------------------------------------- running

RUNNING = set()  # process groups of the tools being run, for stop_running_tools


def stop_running_tools():
    """On interruption: SIGINT, then SIGKILL, to every tool still running."""
    for sig in (signal.SIGINT, signal.SIGKILL):
        for pgid in list(RUNNING):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                RUNNING.discard(pgid)
        if RUNNING:
            time.sleep(0.5)
    RUNNING.clear()


def spawn(argv, out_prefix, env=None, new_session=False, discard_stdout=False):
    """Starts argv with stdout/stderr to files (no pipe can fill up), under
    GNU time for the peak RSS: a child forked from this Python process keeps
    Python's ~30 MiB in its ru_maxrss across exec, one forked by time does not
    (time ignores SIGINT while it waits, so SIGINT to the group reaches the tool)."""
    argv = ["/usr/bin/time", "-f", "%M", "-o", out_prefix + ".rss"] + argv
    so = open(os.devnull if discard_stdout else out_prefix + ".stdout", "w")
    if discard_stdout:
        open(out_prefix + ".stdout", "w").close()
    se = open(out_prefix + ".stderr", "w")
    try:
        proc = subprocess.Popen(argv, stdout=so, stderr=se, env=env, start_new_session=new_session)
        if new_session:
            RUNNING.add(proc.pid)
        return proc
    finally:
        so.close()
        se.close()


def reap(proc, out_prefix, timeout=None):
    """Waits for proc with wait4, so CPU time and peak RSS come from the
    kernel's rusage of the whole waited-for process tree (the figures
    /usr/bin/time -v prints, at microsecond resolution).
    Returns (status, cpu_s, rss_kib, stdout, stderr); rss_kib from GNU time."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if deadline is not None and time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL) if _is_leader(proc) else proc.kill()
            pid, status, ru = os.wait4(proc.pid, 0)
            status = -1
            break
        time.sleep(0.005)
    RUNNING.discard(proc.pid)
    proc.returncode = os.waitstatus_to_exitcode(status) if status != -1 else -1
    with open(out_prefix + ".stdout") as f:
        so = f.read()
    with open(out_prefix + ".stderr") as f:
        se = f.read()
    rss = None
    try:
        with open(out_prefix + ".rss") as f:
            rss = int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        pass
    # GNU time reports the tool's failure on its own stderr line; drop it.
    se = "\n".join(l for l in se.splitlines() if not l.startswith("Command exited with non-zero status"))
    return proc.returncode, ru.ru_utime + ru.ru_stime, rss, so, se


def _is_leader(proc):
    try:
        return os.getpgid(proc.pid) == proc.pid
    except ProcessLookupError:
        return False


def run_command_mode(tool, workload, out, result_file, timeout=120):
    """Runs the workload under the tool; returns a Run dict."""
    for p in (out, result_file):
        if os.path.exists(p):
            os.unlink(p)
    env = dict(os.environ, BENCH_RESULT=result_file)
    t0 = time.monotonic_ns()
    proc = spawn(tool.command_argv(workload, out, workload.argv), out, env=env, new_session=True)
    rc, cpu, rss, so, se = reap(proc, out, timeout)
    wall = (time.monotonic_ns() - t0) / 1e9
    if rc == -1:
        return {"error": f"timed out after {timeout}s"}
    wl = read_workload_result(result_file)
    if rc != 0 or wl is None:
        return {"error": f"exit {rc}: {last_line(se) or last_line(so)}"}
    run = {"loop_ns": wl["loop_ns"], "wall_s": wall, "rss_kib": rss,
           "workload_cpu_ns": wl["utime_ns"] + wl["stime_ns"],
           "tool_cpu_s": cpu - (wl["utime_ns"] + wl["stime_ns"]) / 1e9}
    run.update(tool.collect(workload, out, so, se, tool.ctx))
    return run


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def holds_perf_event(pid):
    for p in descendants(pid):
        try:
            for fd in os.listdir(f"/proc/{p}/fd"):
                if os.readlink(f"/proc/{p}/fd/{fd}") == "anon_inode:[perf_event]":
                    return True
        except OSError:
            pass
    return False


def enable_through_fifo(proc, out, timeout_s):
    """Sends perf "enable" on its control FIFO and waits for the "ack"."""
    deadline = time.monotonic() + timeout_s
    fd = -1
    while fd < 0 and time.monotonic() < deadline and proc.poll() is None:
        try:
            fd = os.open(out + ".ctl", os.O_WRONLY | os.O_NONBLOCK)  # ENXIO until perf opens it
        except OSError:
            time.sleep(0.02)
    if fd < 0:
        return False
    try:
        os.write(fd, b"enable\n")
    finally:
        os.close(fd)
    ack = os.open(out + ".ack", os.O_RDONLY | os.O_NONBLOCK)
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if b"ack" in os.read(ack, 64):
                    return True
            except BlockingIOError:
                pass
            time.sleep(0.01)
    finally:
        os.close(ack)
    return False


def wait_ready(proc, tool, out, settle_s, timeout_s=15):
    """Waits for the tool's ready marker (then settle_s more, as the marker may
    come just before the attach), or a fixed time for tools without one."""
    if tool.uses_control_fifo and os.path.exists(out + ".ctl"):
        if enable_through_fifo(proc, out, timeout_s):
            time.sleep(settle_s)
            return
    if tool.ready_marker is None:
        if tool.blind_wait_s > 0:
            # perf prints nothing when attached: wait until it holds a perf
            # event (then the blind wait, for the mmap and enable that follow).
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline and proc.poll() is None and not holds_perf_event(proc.pid):
                time.sleep(0.02)
        time.sleep(settle_s + tool.blind_wait_s)
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        text = ""
        for ext in (".stderr", ".stdout"):
            try:
                with open(out + ext) as f:
                    text += f.read()
            except OSError:
                pass
        if tool.ready_marker in text:
            break
        time.sleep(0.02)
    # bpftrace says "Attaching N probes..." before it attaches: also wait
    # until it holds the uprobes' perf events.
    while tool.marker_precedes_attach and time.monotonic() < deadline and proc.poll() is None \
            and not holds_perf_event(proc.pid):
        time.sleep(0.02)
    time.sleep(settle_s)


def run_attach_mode(tool, workload, out, pid, drive, settle_s=0.2):
    """Attaches the tool to the running process tree `pid`, runs drive()
    (which returns a dict with at least "loop_ns"), then stops the tool with
    SIGINT and returns a Run dict."""
    if os.path.exists(out):
        os.unlink(out)
    argv = tool.attach_argv(workload, out, pid)
    if argv is None:
        return {"error": "cannot attach to a running process"}
    t0 = time.monotonic_ns()
    proc = spawn(argv, out, new_session=True)
    wait_ready(proc, tool, out, settle_s)
    if proc.poll() is not None:
        rc, _, _, so, se = reap(proc, out)
        return {"error": f"exit {rc}: {last_line(se) or last_line(so)}"}
    try:
        drive_res = drive()
    finally:
        time.sleep(0.1)
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        rc, cpu, rss, so, se = reap(proc, out, timeout=20)
    wall = (time.monotonic_ns() - t0) / 1e9
    if drive_res.get("error"):
        return drive_res
    if rc == -1:
        return {"error": "did not stop within 20 s of SIGINT (killed)"}
    run = dict(drive_res)
    run.update({"wall_s": wall, "rss_kib": rss, "tool_cpu_s": cpu})
    try:
        run.update(tool.collect(workload, out, so, se, tool.ctx))
    except (ToolError, OSError, ValueError) as e:
        run["error"] = str(e)
    if not run.get("untraced") and run.get("events") is None:
        run.setdefault("error", f"no event count: {last_line(se) or last_line(so)}")
    return run
