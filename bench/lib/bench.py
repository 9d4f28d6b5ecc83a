#!/usr/bin/env python3
"""The usdt-trace benchmark: recording overhead, losses, trace size and
report speed, side by side with perf and bpftrace. Run through bench/run.sh,
which installs and builds what this needs.

Every workload is run by every tool in turn, in a new shuffled order each round, for
--rounds rounds; figures are medians with min and max. The machine is
shared and noisy, so the figures that matter are ratios between runs of the
same round.
"""
import argparse
import datetime
import json
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctx_switch  # noqa: E402
import detach  # noqa: E402
import hit_count  # noqa: E402
import isolation  # noqa: E402
import judge  # noqa: E402
import postgres  # noqa: E402
import tables  # noqa: E402
import targets  # noqa: E402
import tools  # noqa: E402
import verdicts  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Workload:
    def __init__(self, name, title, binary, argv, probes, expected_events, unique_args, kind="command",
                 hit_keys=None, loss_check=False, strings=(), func=None):
        self.name, self.title = name, title
        self.binary, self.argv = binary, argv
        self.probes = probes                  # [(provider, name)]
        self.expected_events = expected_events  # exact hits, None if not known beforehand
        self.unique_args = unique_args        # (tid, args) identifies every hit
        self.kind = kind                      # "command" or "attach"
        # hit_count.ExpectedHits: the key of every hit, to count a recording
        # against (None: not a loop workload).
        self.hit_keys = hit_keys
        self.loss_check = loss_check          # the loss workloads count exactly even with --no-dupcheck
        self.strings = list(strings)          # arguments usdt-record records as strings (--string)
        # The bare sampler's registers and stack hold the arguments (not when
        # they are in heap memory): only then can its duplicates be counted.
        self.sample_holds_args = not self.strings
        # ("uprobe" or "uretprobe", SYMBOL): a function probe instead of the
        # USDT probes (fentry, fret).
        self.func = func


def loop_workload(name, title, loop_bin, probe, hits, threads=1, variant=None, index_arg=0, tag_arg=1,
                  loss_check=False, strings=()):
    """A run of bench/workloads/loop.c: one probe, every hit keyed by (thread tag, index)."""
    argv = [loop_bin, "-n", str(hits)] + (["-t", str(threads)] if threads > 1 else []) + \
        (["-v", variant] if variant else [])
    return Workload(name, title, loop_bin, argv, [probe], hits, True,
                    hit_keys=hit_count.ExpectedHits([probe], hits, threads, index_arg, tag_arg),
                    loss_check=loss_check, strings=strings)


def function_workload(name, title, loop_bin, kind, hits):
    """loop -v func under a uprobe (kind "uprobe") or uretprobe on bench_work.
    Every event is keyed by its index: argument 0 (%rdi at the entry, the
    return value at the return), with the tag in argument 1 at the entry.
    The key ignores the event's provider and name (any_probe): the recording
    holds this one probe, whatever the trace calls it."""
    probe = (kind, "bench_work")
    keys = hit_count.ExpectedHits([probe], hits, 1, 0, 1 if kind == "uprobe" else None, any_probe=True)
    return Workload(name, title, loop_bin, [loop_bin, "-n", str(hits), "-v", "func"], [probe], hits, True,
                    hit_keys=keys, func=probe)


def make_workloads(args, loop_bin):
    n, nv, nl = args.hits, args.variant_hits, args.loss_hits
    w = {
        "loop-loss": loop_workload("loop-loss", f"loop, {nl:,} hits, 1 thread", loop_bin, ("bench", "hit2"), nl,
                                   loss_check=True),
        "threads-loss": loop_workload("threads-loss", f"threads, {nl:,} hits in all, 2 threads", loop_bin,
                                      ("bench", "hit2"), nl, threads=2, loss_check=True),
        "loop": loop_workload("loop", f"loop: bench:hit2, 2 register args, {n:,} hits, 1 thread",
                              loop_bin, ("bench", "hit2"), n),
        "threads": loop_workload("threads", f"threads: bench:hit2 from 2 threads, {n:,} hits in all",
                                 loop_bin, ("bench", "hit2"), n, threads=2),
        "reg6": loop_workload("reg6", f"loop, 6 register args, {nv:,} hits", loop_bin, ("bench", "hit6"), nv,
                              variant="reg6"),
        "reg6-threads": loop_workload("reg6-threads", f"loop, 6 register args from 2 threads, {nv:,} hits in all",
                                      loop_bin, ("bench", "hit6"), nv, threads=2, variant="reg6"),
        # bench:hitmem(tag, i): the index is argument 1.
        "mem": loop_workload("mem", f"loop, one stack-memory arg (8@8(%rsp)), {nv:,} hits", loop_bin,
                             ("bench", "hitmem"), nv, variant="mem", index_arg=1, tag_arg=0),
        # bench:hitmem2(rec->i, rec->tag, rec->name): two words on the heap
        # (8@(%rdi), 8@8(%rdi)) and a pointer on the heap to a 64-byte
        # string, recorded with --string: usdt-record has the kernel read
        # them at the hit (tracefs fetch-args); the bare sampler samples the
        # base register alone, the register-only cost at the same site.
        "kread": loop_workload("kread", f"loop, kernel reads: two heap words + a 64-byte string (--string), "
                               f"{nv:,} hits", loop_bin, ("bench", "hitmem2"), nv, variant="kread",
                               strings=["arg2"]),
        "sema": loop_workload("sema", f"loop, semaphore-gated probe, {nv:,} hits", loop_bin,
                              ("bench_sema", "hit"), nv, variant="sema"),
        "fentry": function_workload("fentry", f"fentry: uprobe on the entry of bench_work(i, tag), {n:,} calls",
                                    loop_bin, "uprobe", n),
        "fret": function_workload("fret", f"fret: uretprobe on bench_work (returns i), {n:,} calls",
                                  loop_bin, "uretprobe", n),
        "postgres": Workload("postgres", f"postgres: pgbench -c 1 -t {args.pg_transactions}, "
                             "postgresql:query__start + query__done",
                             f"{postgres.PG_BIN}/postgres", None,
                             [("postgresql", "query__start"), ("postgresql", "query__done")],
                             None, False, kind="attach"),
    }
    return w


# ---------------------------------------------------------------- running

class Bench:
    def __init__(self, args):
        self.args = args
        self.work = tempfile.mkdtemp(prefix="usdt-bench-")
        self.uprobes = tools.UprobeEvents()
        self.ctx = {"uprobes": self.uprobes, "check_dups": not args.no_dupcheck}
        self.cluster = None
        self.notes = []
        self.results = {}  # workload -> tool -> [run]
        self.report_results = None
        self.loss_results = {}  # loss workload -> tool -> [run]
        self.size_floors = {}   # workload -> size_floor.py result
        self.extra_sections = []  # markdown lines of isolation, detach, ctxswitch
        self.extra_targets = []   # their verdicts (judge.py)

    def log(self, msg):
        print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    def cleanup(self):
        tools.stop_running_tools()
        if self.cluster is not None:
            self.cluster.stop()
            self.cluster = None
        self.uprobes.cleanup()
        subprocess.run(["rm", "-rf", self.work])

    def tool_list(self):
        b = self.args.build_dir
        all_tools = [
            tools.Untraced(),
            tools.PerfStat(),
            tools.BareSampler(os.path.join(b, "bench", "bare_sampler")),
            tools.PerfRecord(False),
            tools.PerfRecord(True),
            tools.Bpftrace(),
            tools.UsdtRecord(os.path.join(b, "record", "usdt-record"), os.path.join(b, "report", "usdt-report")),
            tools.UsdtRecordBpf(os.path.join(b, "record", "usdt-record"), os.path.join(b, "report", "usdt-report")),
        ]
        wanted = self.args.tools.split(",") if self.args.tools else None
        out = []
        for t in all_tools:
            t.ctx = self.ctx
            if wanted and t.name not in wanted and t.name != "untraced":
                continue
            out.append(t)
        return out

    def smoke_test_usdt_record(self, t, loop_bin):
        """usdt-record counts only if it records a small run exactly."""
        reason = t.available()
        if reason:
            return reason
        w = loop_workload("smoke", "", loop_bin, ("bench", "hit2"), 1000)
        out = os.path.join(self.work, "smoke.trace")
        try:
            run = tools.run_command_mode(t, w, out, os.path.join(self.work, "smoke.json"), timeout=30)
        except (tools.ToolError, OSError, ValueError) as e:
            return f"smoke test failed: {e}"
        if run.get("error"):
            return f"smoke test failed: {run['error']}"
        if run.get("events") != 1000 or run.get("lost") or run.get("stray"):
            return (f"smoke test recorded {run.get('events')} events of 1000 (lost {run.get('lost')}, "
                    f"stray {run.get('stray')})")
        return None

    def run_workload(self, w, tl, rounds=None, store=None):
        rounds = self.args.rounds if rounds is None else rounds
        store = self.results if store is None else store
        self.log(f"workload {w.name}: {w.title}")
        usable = []
        for t in tl:
            reason = t.available()
            if reason is None:
                try:
                    t.prepare(w, self.ctx)
                except tools.ToolError as e:
                    reason = str(e)
            if reason:
                store.setdefault(w.name, {})[t.name] = {"unavailable": reason}
            else:
                usable.append(t)
        res = store.setdefault(w.name, {})
        for t in usable:
            res[t.name] = []
        for rnd in range(rounds):
            # A different order each round (seeded, so reruns match): a tool's
            # cost depends on the one before it (perf record leaves up to 90 MB
            # of dirty page cache behind; right after bpftrace, usdt-record's
            # workload measured 8% more CPU per hit), so no pair may repeat.
            order = list(usable)
            random.Random(rnd).shuffle(order)
            for t in order:
                out = os.path.join(self.work, f"{w.name}.{t.name}.out")
                try:
                    if w.kind == "command":
                        run = tools.run_command_mode(t, w, out, os.path.join(self.work, "result.json"))
                    else:
                        pid = self.cluster.postmaster_pid()
                        run = tools.run_attach_mode(
                            t, w, out, pid, lambda: self.cluster.pgbench(self.args.pg_transactions))
                except (tools.ToolError, OSError, ValueError) as e:
                    run = {"error": str(e)}
                run["round"] = rnd
                res[t.name].append(run)
                self.log(f"  round {rnd + 1} {t.name}: " + (
                    run["error"] if run.get("error") else
                    f"{run['loop_ns'] / 1e6:.1f} ms, events {run.get('events')}, lost {run.get('lost')}, "
                    f"dup {run.get('dup')}"))
                if t.name == "usdt-record" and not run.get("error") and os.path.exists(out):
                    os.replace(out, os.path.join(self.work, f"{w.name}.usdt-record.last"))
                if os.path.exists(out):
                    os.unlink(out)

    def run_postgres(self, w, tl):
        reason = postgres.missing_reason()
        if reason:
            self.notes.append(f"postgres workload skipped: {reason}")
            self.log(f"skipping postgres: {reason}")
            return
        self.cluster = postgres.Cluster()
        try:
            self.log("starting a throwaway PostgreSQL cluster")
            self.cluster.start()
            self.cluster.pgbench(max(100, self.args.pg_transactions // 4))  # warm-up
            self.run_workload(w, tl)
            self.size_floor(w, tl)
            self.losses_against_floor(w)
        except RuntimeError as e:
            self.notes.append(f"postgres workload failed: {e}")
        finally:
            if self.cluster is not None:  # the signal handler may have stopped it
                self.cluster.stop()
                self.cluster = None

    def losses_against_floor(self, w):
        """pgbench's probe hits are not known beforehand, but with autovacuum
        off they repeat exactly: when every counting (floor) run saw the same
        number, that number is the expected count for the tools that do not
        report their own losses."""
        res = self.results.get(w.name, {})
        floor = res.get("floor")
        if not isinstance(floor, list):
            return
        counts = {r.get("events") for r in floor if not r.get("error")}
        if len(counts) != 1 or None in counts:
            self.notes.append(f"{w.name}: the counting runs disagree ({sorted(c for c in counts if c is not None)}), "
                              "so losses of perf record are not known")
            return
        expected = counts.pop()
        self.notes.append(f"{w.name}: every counting run saw {expected:,} hits; the lost of perf record and "
                          "usdt-record = that − events seen (usdt-record: rows of its dump)")
        for tname, runs in res.items():
            if tname in ("perf", "perf-z", "usdt-record") and isinstance(runs, list):
                for r in runs:
                    if not r.get("error") and r.get("events") is not None and r.get("lost") is None:
                        r["lost"] = expected - r["events"]

    def size_floor(self, w, tl):
        """The information content of the last usdt-record trace of w (size_floor.py)."""
        trace = os.path.join(self.work, f"{w.name}.usdt-record.last")
        urec = next((t for t in tl if t.name == "usdt-record"), None)
        if urec is None or not os.path.exists(trace):
            return
        r = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "size_floor.py"),
                            urec.report, trace], capture_output=True, text=True)
        if r.returncode == 0:
            self.size_floors[w.name] = json.loads(r.stdout)

    # ------------------------------------------------------------ isolation, detach, context switches

    def run_isolation(self, tl, loop_bin):
        """An untraced loop while the tools record another instance (isolation.py)."""
        a = self.args
        w = Workload("isolation", "", loop_bin, None, [("bench", "hit2")], None, False, kind="attach")
        urec = next((t for t in tl if t.name == "usdt-record"), None)
        iso_tools = [t for t in tl if t.name in ("untraced", "perf", "usdt-record")]
        if urec is not None:
            alltool = tools.UsdtRecordAll(urec.record, urec.report)
            alltool.ctx, alltool.reason = self.ctx, urec.reason
            iso_tools.append(alltool)
        self.log(f"isolation: an untraced loop of {a.iso_hits:,} hits while another instance is recorded")
        res = isolation.run(w, iso_tools, loop_bin, a.rounds, a.iso_hits, a.iso_reps, self.work, self.log)
        labels = {t.name: t.label + (" -p (the other instance)" if t.name in ("perf", "usdt-record") else "")
                  for t in iso_tools}
        labels["untraced"] = "nobody recording"
        labels["usdt-record-a"] = "usdt-record -a (system-wide)"
        self.extra_sections.append(isolation.table(res, labels, a.iso_hits, a.iso_reps))
        self.extra_targets += isolation.targets(res)
        self.iso_results = res

    def run_detach(self, tl):
        urec = next((t for t in tl if t.name == "usdt-record"), None)
        title = "detach: PostgreSQL's 71 sites, SIGINT to exit ≤ 1 s"
        why = postgres.missing_reason() or (urec.available() if urec else "usdt-record not selected")
        if why:
            self.extra_targets.append(judge.not_available(title, why))
            return
        self.log("detach: usdt-record -e 'postgresql:*' -p POSTMASTER, then SIGINT")
        self.cluster = postgres.Cluster()
        try:
            self.cluster.start()
            runs = detach.run(urec.record, self.cluster, self.args.rounds, 200, self.work, self.log)
        except RuntimeError as e:
            runs = [{"error": str(e)}]
        finally:
            if self.cluster is not None:
                self.cluster.stop()
                self.cluster = None
        self.extra_sections.append(detach.table(runs, os.cpu_count()))
        self.extra_targets += detach.targets(runs)
        self.detach_results = runs

    def run_ctx_switch(self, tl):
        urec = next((t for t in tl if t.name == "usdt-record"), None)
        pingpong = os.path.join(self.args.build_dir, "bench", "pingpong")
        if urec is None or urec.available() or not os.access(pingpong, os.X_OK):
            self.notes.append("ctxswitch skipped: usdt-record or bench/pingpong not built")
            return
        self.log("context switches: pingpong untraced, under per-task and per-CPU events")
        res = ctx_switch.run(urec.record, pingpong, self.args.rounds, self.work, self.log)
        self.extra_sections.append(ctx_switch.table(res, self.args.rounds))
        self.ctx_summary = ctx_switch.summary(res)
        self.ctx_results = res

    # ------------------------------------------------------------ report speed

    def run_report_speed(self, tl, loop_bin):
        """usdt-report summary / latency / dump vs perf script on recordings of
        the same workload (bench:start + bench:done pairs)."""
        n = self.args.report_pairs
        w = Workload("pair", "", loop_bin, [loop_bin, "-n", str(n), "-v", "pair"],
                     [("bench", "start"), ("bench", "done")], 2 * n, True)
        self.log(f"report speed: recording {2 * n:,} events (bench:start + bench:done)")
        res = {"events": 2 * n, "runs": {}, "unavailable": {}}
        self.report_results = res
        urec = next((t for t in tl if t.name == "usdt-record"), None)
        perf = next((t for t in tl if t.name == "perf"), None)
        trace = os.path.join(self.work, "pair.trace")
        perf_data = os.path.join(self.work, "pair.perf.data")
        commands = {}
        if urec is not None and urec.available() is None:
            run = tools.run_command_mode(urec, w, trace, os.path.join(self.work, "r.json"))
            if run.get("error"):
                res["unavailable"]["usdt-report"] = f"recording failed: {run['error']}"
            else:
                rep = urec.report
                commands["summary"] = [rep, "summary", trace]
                commands["latency"] = [rep, "latency", "--start", "bench:start", "--end", "bench:done", trace]
                commands["dump text"] = [rep, "dump", "--format", "text", trace]
                res["trace_events"] = run.get("events")
        else:
            res["unavailable"]["usdt-report"] = urec.available() if urec else "not selected"
        perf_ok = perf is not None and perf.available() is None
        if perf_ok:
            try:
                perf.prepare(w, self.ctx)
            except tools.ToolError as e:
                res["unavailable"]["perf"] = str(e)
                perf_ok = False
        if perf_ok:
            r = subprocess.run(perf.command_argv(w, perf_data, w.argv), capture_output=True,
                               env=dict(os.environ, BENCH_RESULT=os.path.join(self.work, "r.json")))
            if r.returncode == 0:
                commands["perf script"] = ["perf", "script", "-i", perf_data]
                c = subprocess.run(["perf", "script", "-i", perf_data, "-F", "ip"], capture_output=True)
                res["perf_events"] = c.stdout.count(b"\n")
        for name in commands:
            res["runs"][name] = []
        for rnd in range(self.args.rounds):
            for name, argv in commands.items():
                prefix = os.path.join(self.work, "report")
                t0 = time.monotonic_ns()
                # One core, as the target says: pinned to the last CPU.
                pin = ["taskset", "-c", str(os.cpu_count() - 1)]
                proc = tools.spawn(pin + argv, prefix, discard_stdout=True)
                rc, cpu, rss, _, se = tools.reap(proc, prefix, timeout=120)
                wall_ns = time.monotonic_ns() - t0
                events = res.get("perf_events") if name == "perf script" else res.get("trace_events")
                if rc != 0:
                    run = {"error": f"exit {rc}: {tools.last_line(se)}"}
                else:
                    run = {"wall_s": wall_ns / 1e9, "cpu_s": cpu, "rss_kib": rss,
                           "events_per_s": events / (wall_ns / 1e9) if events else None,
                           "events_per_cpu_s": events / cpu if events and cpu else None}
                res["runs"][name].append(run)
                self.log(f"  round {rnd + 1} {name}: " + (run.get("error") or
                                                        f"{run['wall_s']:.3f} s, {tables.fmt(run['events_per_s'])} ev/s"))

    # ------------------------------------------------------------ micro-benchmarks

    def run_micro(self):
        script = os.path.join(ROOT, "bench", "format", "run.sh")
        if not os.access(script, os.X_OK):
            return None
        self.log("format micro-benchmarks: bench/format/run.sh")
        try:
            env = dict(os.environ, BENCH_ARGS="--benchmark_min_time=0.05")
            env.pop("BUILD_DIR", None)
            r = subprocess.run([script, "1000000"], capture_output=True, text=True, timeout=180, env=env)
        except subprocess.TimeoutExpired:
            return "bench/format/run.sh timed out after 120 s"
        return (r.stdout.strip() or r.stderr.strip()[-1000:])



def git_rev():
    """The short commit, with "+changes" when the sources (anything but
    bench/results) differ from it: then the commit alone does not say what
    was measured."""
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    rev = r.stdout.strip() or "unknown"
    d = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", ".", ":!bench/results"],
                       capture_output=True, text=True)
    return rev + ("+changes" if d.returncode == 0 and d.stdout.strip() else "")


# What makes a run full: these options at their defaults.
FULL_RUN_OPTIONS = ("rounds", "hits", "variant_hits", "variant_tools", "loss_hits", "loss_rounds",
                    "pg_transactions", "report_pairs", "workloads", "tools", "no_dupcheck", "iso_hits",
                    "iso_reps")


def not_full_because(args, ap):
    """The options that make this run not a full one (empty for a full run)."""
    return [f"--{k.replace('_', '-')} {getattr(args, k)}" for k in FULL_RUN_OPTIONS
            if getattr(args, k) != ap.get_default(k)]


def not_kept_because(args, ap, rev):
    """Why this run's verdicts do not go into the history (None: they do)."""
    options = not_full_because(args, ap)
    if options:
        return "not a full run: " + ", ".join(options)
    if rev.endswith(verdicts.DIRTY):
        return (f"the tree had uncommitted changes ({rev}): the commit alone does not say what was "
                "measured")
    if args.no_history:
        return "--no-history"
    return None


def targets_section(run, why_not_kept, history_path):
    """The Targets section: this run's verdicts beside those of the last full
    runs. A kept run is appended to the history first, so it is one of them;
    any other run is shown in a column of its own and does not count."""
    lines = ["### Targets", ""]
    try:
        history = verdicts.load(history_path)
    except ValueError as e:
        history = []
        lines += [f"The history cannot be read ({e}): verdicts of earlier runs are not shown.", ""]
    if why_not_kept is None:
        verdicts.append(run, history_path)
        history.append(run)
        return lines + [verdicts.explain(history), ""] + verdicts.table(history)
    lines += [verdicts.explain(history) + f" This run is not kept in the history ({why_not_kept}): its "
              "verdicts are shown beside the full runs' but do not count.", ""]
    return lines + verdicts.table(history, extra=run)


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--hits", type=int, default=100000, help="hits per run of loop and threads")
    ap.add_argument("--variant-hits", type=int, default=50000, help="hits per run of reg6, mem, sema")
    ap.add_argument("--variant-tools", default="floor,bare,perf,perf-z,bpftrace,usdt-record,usdt-record-bpf",
                    help="tools run on reg6, mem and sema (all: every tool)")
    ap.add_argument("--loss-hits", type=int, default=1000000, help="hits of the loss check runs")
    ap.add_argument("--loss-rounds", type=int, default=1, help="loss check runs per tool")
    ap.add_argument("--pg-transactions", type=int, default=1000)
    ap.add_argument("--report-pairs", type=int, default=400000)
    ap.add_argument("--workloads",
                    default="loop,threads,reg6,reg6-threads,mem,kread,sema,fentry,fret,postgres,isolation,detach,"
                    "ctxswitch,"
                    "loss,report,micro")
    ap.add_argument("--iso-hits", type=int, default=100000000,
                    help="hits of the untraced instance in the isolation workload")
    ap.add_argument("--iso-reps", type=int, default=3,
                    help="runs of the untraced instance per condition and round (the fastest counts)")
    ap.add_argument("--tools", default="",
                    help="comma list of floor,bare,perf,perf-z,bpftrace,usdt-record,usdt-record-bpf")
    ap.add_argument("--no-dupcheck", action="store_true")
    ap.add_argument("--output", default=os.path.join(ROOT, "bench", "results", "latest.md"))
    ap.add_argument("--history", default=verdicts.HISTORY,
                    help="where a full run appends its verdicts (JSON lines, see verdicts.py)")
    ap.add_argument("--no-history", action="store_true", help="do not append a full run to the history")
    return ap


def main():
    ap = parser()
    args = ap.parse_args()

    b = Bench(args)

    def on_signal(signum, frame):
        # Only unwind: the finally blocks stop the cluster, the running tool
        # and remove the uprobe events.
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    started = time.monotonic()
    load_start = os.getloadavg()[0]
    loop_bin = os.path.join(args.build_dir, "bench", "loop")
    wanted = [x for x in args.workloads.split(",") if x]
    rev = git_rev()
    try:
        tl, pg_note, micro = run_all(b, args, wanted, loop_bin)
    except KeyboardInterrupt as e:
        b.log(f"interrupted ({e}): cleaning up")
        b.cleanup()
        sys.exit(130)
    finally:
        b.cleanup()
    text = document(b, args, ap, tl, wanted, loop_bin, pg_note, micro, rev, time.monotonic() - started, load_start)
    print(text)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    with open(os.path.splitext(args.output)[0] + ".json", "w") as f:
        json.dump({"results": b.results, "report": b.report_results,
                   "isolation": getattr(b, "iso_results", None), "detach": getattr(b, "detach_results", None),
                   "ctxswitch": getattr(b, "ctx_results", None)}, f, indent=1, default=str)


def run_all(b, args, wanted, loop_bin):
    """Runs the wanted workloads; returns (tools, postgres note, micro-benchmark text)."""
    pg_note = None
    tl = b.tool_list()
    for t in tl:
        if t.name in ("usdt-record", "usdt-record-bpf"):
            t.reason = b.smoke_test_usdt_record(t, loop_bin)
            if t.reason:
                b.log(f"{t.name} not available: {t.reason}")
    workloads = make_workloads(args, loop_bin)
    for name in wanted:
        if name in ("report", "loss", "micro", "isolation", "detach", "ctxswitch"):
            continue
        if name not in workloads:
            raise SystemExit(f"bench: error: unknown workload '{name}'")
        w = workloads[name]
        wtl = tl
        if name in ("reg6", "reg6-threads", "mem", "kread", "sema") and args.variant_tools != "all":
            keep = set(args.variant_tools.split(",")) | {"untraced"}
            wtl = [t for t in tl if t.name in keep]
        if w.kind == "attach":
            b.run_postgres(w, tl)
            pg_note = next((n for n in b.notes if n.startswith("postgres")), None)
        else:
            b.run_workload(w, wtl)
    if "isolation" in wanted:
        b.run_isolation(tl, loop_bin)
    if "detach" in wanted:
        b.run_detach(tl)
    if "ctxswitch" in wanted:
        b.run_ctx_switch(tl)
    if "loss" in wanted and args.loss_rounds > 0:
        loss_tools = [t for t in tl if t.name in ("perf", "usdt-record", "usdt-record-bpf")]
        for name in ("loop-loss", "threads-loss"):
            b.run_workload(workloads[name], loss_tools, rounds=args.loss_rounds, store=b.loss_results)
    if "report" in wanted:
        b.run_report_speed(tl, loop_bin)
    micro = b.run_micro() if "micro" in wanted else None
    return tl, pg_note, micro


def document(b, args, ap, tl, wanted, loop_bin, pg_note, micro, rev, elapsed, load_start):
    """The markdown of the run: its tables, then the targets (appending the
    run to the history when it is kept), the notes, the micro-benchmarks."""
    now = datetime.datetime.now(datetime.timezone.utc)
    doc = [f"## Benchmark results — {now:%Y-%m-%d %H:%M} UTC", "",
           f"Machine: {platform.node()}, kernel {platform.release()}, {os.cpu_count()} CPUs; "
           f"commit {rev}; {args.rounds} interleaved rounds; run took {elapsed:.0f} s; "
           f"load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
           "(other jobs share the machine: compare ratios within a table, not absolute times).",
           "Overhead = (workload time traced − untraced in the same round) / events; the × columns are "
           "medians of per-round ratios of those overheads. Floor = counting-only uprobe (`perf stat` on "
           "the sdt event); bare = bench/floor/bare_sampler (uprobe PMU, raw ring buffer to file). "
           "Tool CPU = CPU time of the tool process tree minus the workload's own; workload CPU = the extra "
           "user + sys time of the traced program itself (the uprobe trap and the sample are written in its "
           "context), which the load of other jobs inflates less than wall time. Peak RSS is the largest "
           "process of the tool run. Targets use the wall-time overhead; the CPU columns explain it. "
           "Failed rounds: tool runs that failed or timed out, with the first error; they count in the "
           "verdicts of the targets they belong to.", ""]
    workloads = make_workloads(args, loop_bin)
    for name in wanted:
        if name in b.results:
            doc += tables.recording_table(workloads[name], b.results[name], tl) + [""]
    if b.loss_results:
        doc += tables.loss_table(b.loss_results, args, tl) + [""]
    if b.report_results:
        doc += tables.report_table(b.report_results) + [""]
    for section in b.extra_sections:
        doc += section + [""]
    for store in (b.results, b.loss_results):
        for wname, res in store.items():
            for tname, runs in res.items():
                strays = [r["stray"] for r in runs if isinstance(runs, list) and r.get("stray")]
                if strays:
                    b.notes.append(f"{wname}: {tname} wrote events with keys the workload never made "
                                   f"(stray, max {max(strays):,} in a run): wrong or null arguments")
    found = targets.targets(b.results, b.report_results, pg_note, b.loss_results, args.loss_hits, b.size_floors)
    for v in found:
        if v["target"] == "pgbench under usdt-record ≥ under perf record" and getattr(b, "ctx_summary", None):
            v["measured"] += "; " + b.ctx_summary
    options = not_full_because(args, ap)
    run = verdicts.make_run(f"{now:%Y-%m-%d %H:%M}", rev, found + b.extra_targets,
                            "bench.py" + (" " + " ".join(options) if options else ""))
    why_not_kept = not_kept_because(args, ap, rev)
    if why_not_kept:
        b.log(f"this run is not appended to {args.history}: {why_not_kept}")
    doc += targets_section(run, why_not_kept, args.history)
    doc.append("")
    for n in b.notes:
        doc.append(f"- {n}")
    if micro:
        doc += ["", "### Format micro-benchmarks (bench/format/run.sh)", "", "```", micro, "```"]
    return "\n".join(doc) + "\n"


if __name__ == "__main__":
    main()
