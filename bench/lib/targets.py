"""The targets of a benchmark run, each judged from its rounds (judge.py).

Every target names the per-round figure it bounds, the tools whose runs of a
round that figure needs, and the bound. A round in which one of those runs
failed is counted in the verdict, never dropped silently; a target whose
tools could not run at all is "not available".
"""
import judge
from figures import (above_floor_ns, above_floor_rounds, cpu_ratio, cpu_vs_untraced, failed_rounds, field_ratio_rounds,
                     bytes_per_event_rounds, first_error, fmt, good_runs, med, per_round_overhead, planned_rounds,
                     ran, ratio_rounds, size_ratio_rounds)

FENTRY_TITLE = ("fentry: usdt-record's cost above the kernel's counting uprobe at a function entry "
                "≤ perf record's cost above it (same rounds)")
FRET_TITLE = "fret: uretprobe per-hit cost ≤ perf record on the same uretprobe"
KREAD_TITLE = ("kread: two heap words + a 64-byte string read by the kernel ≤ 1.10 × bare sampler "
               "(registers only, same site)")


def over_rounds(title, res, tools, values, op, bound, measured, rule=judge.MEDIAN):
    """The verdict of per-round values that need a run of each of `tools` in
    the same round; "not available" when one of them did not run."""
    if not res:
        return judge.not_available(title, "the workload was not run")
    missing = [t for t in tools if not ran(res, t)]
    if missing:
        why = (res.get(missing[0]) or {}).get("unavailable", "not run")
        return judge.not_available(title, f"{missing[0]}: {why}")
    return judge.judge(title, list(values.values()), op, bound, measured, rule,
                       planned=planned_rounds(res, *tools), failed=len(failed_rounds(res, *tools)))


def _errors(res, tools):
    """'; first error: ...' when a run of the tools failed."""
    err = next((e for e in (first_error(res, t) for t in tools) if e), None)
    return f"; first error: {err}" if err else ""


def recording_cost(w, res, ref, bound):
    """usdt-record's per-event overhead over ref's (bare sampler, perf record)."""
    names = {"bare": "bare sampler", "perf": "perf record"}
    title = (f"{w}: recording cost ≤ {bound:.2f} × {names[ref]}" if bound != 1.0
             else f"{w}: recording cost ≤ {names[ref]}")
    tools = ("untraced", "usdt-record", ref)
    x = ratio_rounds(res, "usdt-record", ref)
    measured = (f"{fmt(med(x.values()), 2)} × {ref} in workload wall time; in CPU: workload "
                f"{fmt(cpu_ratio(res, 'usdt-record', ref, False), 2)} ×, workload + recorder "
                f"{fmt(cpu_ratio(res, 'usdt-record', ref, True), 2)} ×")
    if w == "kread":
        title = KREAD_TITLE
        lost = [r.get("lost") for r in good_runs(res, "usdt-record").values() if r.get("lost") is not None]
        measured += f"; lost max {max(lost) if lost else 'n/a'}"
    return over_rounds(title, res, tools, x, "<=", bound, measured + _errors(res, tools))


def function_entry(res):
    """usdt-record's cost above the counting floor at the function entry
    against perf record's above the same floor: what each tool adds to the
    kernel's own work (a uprobe on an ordinary instruction is single-stepped
    out of line, which costs the kernel several times a USDT nop)."""
    tools = ("untraced", "floor", "perf", "usdt-record")
    x = above_floor_rounds(res, "usdt-record", "perf")
    floor = med(per_round_overhead(res, "floor").values())
    measured = (f"{fmt(med(x.values()), 2)} × perf record's cost above the kernel's: usdt-record "
                f"{fmt(med(above_floor_ns(res, 'usdt-record').values()))} vs perf record "
                f"{fmt(med(above_floor_ns(res, 'perf').values()))} ns/hit above the counting uprobe's "
                f"{fmt(floor)} ns/hit (medians); workload + recorder CPU "
                f"{fmt(cpu_ratio(res, 'usdt-record', 'perf', True), 2)} × perf record's")
    return over_rounds(FENTRY_TITLE, res, tools, x, "<=", 1.0, measured + _errors(res, tools))


def function_return(res):
    tools = ("untraced", "perf", "usdt-record")
    x = ratio_rounds(res, "usdt-record", "perf")
    measured = (f"{fmt(med(x.values()), 2)} × perf record in workload wall time; in CPU: workload "
                f"{fmt(cpu_ratio(res, 'usdt-record', 'perf', False), 2)} ×, workload + recorder "
                f"{fmt(cpu_ratio(res, 'usdt-record', 'perf', True), 2)} ×")
    return over_rounds(FRET_TITLE, res, tools, x, "<=", 1.0, measured + _errors(res, tools))


def exact_counts(title, res, hits):
    """Every run of every tool that ran (untraced aside) wrote exactly `hits`
    distinct events: lost, dup and stray 0 where counted. A run that recorded
    nothing (no event count) counts as all `hits` missing: it fails the
    check rather than being left out. Judged per run (every round)."""
    tools = [t for t in sorted(res) if ran(res, t) and not t.startswith("untraced")]
    if not tools:
        return judge.not_available(title, "no tool ran")
    if hits is None:
        return judge.not_available(title, "the untraced run did not say how many hits it made")
    deviations, bad, failed, planned = [], [], 0, 0
    for t in tools:
        planned += len(res[t])
        failed += len(failed_rounds(res, t))
        problems = []
        for r in good_runs(res, t).values():
            ev = r.get("events")
            extra = [(k, r.get(k)) for k in ("lost", "dup", "stray") if r.get(k)]
            deviations.append(hits if ev is None else abs(ev - hits) + sum(v for _, v in extra))
            if ev is None or ev == 0:
                problems.append("recorded nothing")
            elif ev != hits:
                problems.append(f"events {ev:,}")
            problems += [f"{k} {v:,}" for k, v in extra]
        if problems:
            bad.append(f"{t}: " + ", ".join(sorted(set(problems))))
    if bad:
        measured = f"{hits:,} hits; " + "; ".join(bad)
    else:
        measured = f"{hits:,} events, lost 0, dup 0 in every successful run of " + ", ".join(tools)
    measured += f" ({planned} runs: {len(tools)} tools × their rounds)"
    return judge.judge(title, deviations, "==", 0, measured + _errors(res, tools), judge.EVERY_ROUND,
                       planned=planned, failed=failed)


def lossless(w, loss_res, hits, tool="usdt-record"):
    """usdt-record's loss check: lost + dup + stray = 0 in every run."""
    title = f"{w}: zero lost and zero duplicated at {hits:,} hits"
    if tool != "usdt-record":
        title = f"{w}: {tool} zero lost and zero duplicated at {hits:,} hits"
    tools = (tool,)
    runs = good_runs(loss_res, tool)

    def total(r):
        parts = [r.get(k) for k in ("lost", "dup", "stray")]
        return None if None in parts else sum(parts)

    def most(k):
        xs = [r[k] for r in runs.values() if r.get(k) is not None]
        return max(xs) if xs else "not counted"

    measured = (f"lost max {most('lost')}, dup max {most('dup')}, stray max {most('stray')} over "
                f"{len(runs)} run(s) (counted from usdt-report dump: hits made − distinct (thread, index) keys); "
                f"usdt-record's own lost count max {most('own_lost')}")
    return over_rounds(title, loss_res, tools, {k: total(r) for k, r in runs.items()}, "==", 0,
                       measured + _errors(loss_res, tools), judge.EVERY_ROUND)


BPF_REFS = {"perf": "perf record", "bpftrace": "bpftrace's in-kernel count()",
            "usdt-record": "usdt-record on the sampled path",
            "floor": "the kernel's counting uprobe (the trap alone)"}


def bpf_cost(w, res, ref, bound):
    """The BPF capture path's per-hit overhead over ref's, same rounds."""
    tool = "usdt-record-bpf"
    title = f"{w}: BPF capture cost ≤ {bound:.2f} × {BPF_REFS[ref]}"
    tools = ("untraced", tool, ref)
    x = ratio_rounds(res, tool, ref)
    measured = (f"{fmt(med(x.values()), 2)} × {ref} in workload wall time "
                f"({fmt(med(per_round_overhead(res, tool).values()))} vs "
                f"{fmt(med(per_round_overhead(res, ref).values()))} ns/hit); in CPU: workload "
                f"{fmt(cpu_ratio(res, tool, ref, False), 2)} ×, workload + recorder "
                f"{fmt(cpu_ratio(res, tool, ref, True), 2)} ×")
    if ref != "floor":
        # What the trap alone costs against ref: a bound below it is out of
        # any uprobe tracer's reach (then judged against the floor itself).
        floor = ratio_rounds(res, "floor", ref)
        measured += f"; the trap alone (counting uprobe) {fmt(med(floor.values()), 2)} × {ref}"
    return over_rounds(title, res, tools, x, "<=", bound, measured + _errors(res, tools))


def bpf_pgbench(res, pg_note):
    """pgbench under the BPF path: tps against perf record's, and the
    recorder's own CPU per event."""
    tool = "usdt-record-bpf"
    t1 = "pgbench under usdt-record --capture bpf ≥ under perf record"
    t2 = "pgbench: usdt-record --capture bpf's own CPU ≤ 0.20 µs per event"
    if res is None:
        return [judge.not_available(t1, pg_note or "not run"), judge.not_available(t2, pg_note or "not run")]
    y = field_ratio_rounds(res, tool, "perf", "tps")
    m1 = f"{fmt(med(y.values()), 3)} × perf record's tps in the same round"
    out = [over_rounds(t1, res, (tool, "perf"), y, ">=", 1.0, m1 + _errors(res, (tool, "perf")))]
    per_event = {k: r["tool_cpu_s"] * 1e6 / r["events"] for k, r in good_runs(res, tool).items()
                 if r.get("tool_cpu_s") is not None and r.get("events")}
    m2 = f"{fmt(med(per_event.values()), 3)} µs of the recorder's CPU per event"
    out.append(over_rounds(t2, res, (tool,), per_event, "<=", 0.20, m2 + _errors(res, (tool,))))
    return out


def bpf_targets(results, loss_results, loss_hits, pg_note):
    """The BPF capture path's targets (usdt-record --capture bpf)."""
    out = []
    for w in ("loop", "threads", "reg6", "reg6-threads"):
        res = results.get(w, {})
        out += [bpf_cost(w, res, "perf", 0.55), bpf_cost(w, res, "floor", 1.10),
                bpf_cost(w, res, "bpftrace", 1.10)]
    out.append(bpf_cost("kread", results.get("kread", {}), "usdt-record", 0.60))
    for w in ("loop", "threads"):
        out.append(lossless(w, loss_results.get(w + "-loss", {}), loss_hits, "usdt-record-bpf"))
    out += bpf_pgbench(results.get("postgres"), pg_note)
    return out


def size_targets(results, size_floors):
    out = []
    res = results.get("loop", {})
    bpe = bytes_per_event_rounds(res, "usdt-record")
    out.append(over_rounds("loop: ≤ 3 bytes/event", res, ("usdt-record",), bpe, "<=", 3,
                           f"{fmt(med(bpe.values()))} B/event"))
    for w, res in results.items():
        if w in ("fentry", "fret"):  # no size target for the function probes
            continue
        x = size_ratio_rounds(res, "usdt-record", "perf-z")
        u = med(bytes_per_event_rounds(res, "usdt-record").values())
        pz = med(bytes_per_event_rounds(res, "perf-z").values())
        measured = f"{fmt(u)} vs {fmt(pz)} B/event = {fmt(med(x.values()), 3)}"
        fl = size_floors.get(w)
        if fl and fl.get("bytes_per_event") and pz:
            cols = ", ".join(f"{k} {v:.2f}" for k, v in fl["columns"].items() if v >= 0.01)
            measured += (f"; information floor of the same trace (per-column deltas, zstd -19/xz -9e): "
                         f"{fl['bytes_per_event']:.2f} B/event ({cols}), i.e. "
                         f"{fl['bytes_per_event'] / pz:.2f} of perf -z")
        out.append(over_rounds(f"{w}: size ≤ 1/3 of perf record -z", res, ("usdt-record", "perf-z"), x, "<=", 1 / 3,
                               measured))
    return out


def report_targets(rr):
    """Report speed, per round (the commands run in turns, one of each per round)."""
    runs = (rr or {}).get("runs", {})
    res = {name: [dict(r, round=i) for i, r in enumerate(rs)] for name, rs in runs.items()}
    unavailable = (rr or {}).get("unavailable", {})
    for name in ("summary", "latency", "dump text", "perf script"):
        if name not in res:
            why = unavailable.get("perf" if name == "perf script" else "usdt-report", "not run")
            res[name] = {"unavailable": why}

    def speed(name, key="events_per_cpu_s"):
        return {k: r[key] for k, r in good_runs(res, name).items() if r.get(key)}

    out = []
    for name in ("summary", "latency"):
        e = speed(name)
        out.append(over_rounds(f"report {name} ≥ 20 M events/s on one core", res, (name,), e, ">=", 20e6,
                               f"{fmt(med(e.values()) / 1e6 if e else None, 1)} M events/CPU-s "
                               f"({fmt(med(speed(name, 'events_per_s').values()) / 1e6 if e else None, 1)} M/s wall)"
                               + _errors(res, (name,))))
    d, p = speed("dump text"), speed("perf script")
    x = {k: d[k] / p[k] for k in d if k in p}
    dw, pw = speed("dump text", "events_per_s"), speed("perf script", "events_per_s")
    measured = (f"{fmt(med(x.values()), 1)} × per CPU-s ({fmt(med(d.values()) / 1e6 if d else None)} vs "
                f"{fmt(med(p.values()) / 1e6 if p else None)} M); "
                f"{fmt(med(dw[k] / pw[k] for k in dw if k in pw), 1)} × wall")
    out.append(over_rounds("dump text ≥ 20 × perf script", res, ("dump text", "perf script"), x, ">=", 20,
                           measured + _errors(res, ("dump text", "perf script"))))
    return out


def pgbench_targets(res, pg_note):
    t1 = "pgbench under usdt-record ≥ 0.9 × untraced"
    t2 = "pgbench under usdt-record ≥ under perf record"
    if res is None:
        return [judge.not_available(t1, pg_note or "not run"), judge.not_available(t2, pg_note or "not run")]
    x = field_ratio_rounds(res, "usdt-record", "untraced", "tps")
    tps = {t: med(r.get("tps") for r in good_runs(res, t).values()) for t in ("usdt-record", "untraced", "perf")}
    ratio = {t: med(field_ratio_rounds(res, t, "untraced", "tps").values()) for t in ("floor", "bare", "perf")}
    m1 = (f"median tps {fmt(tps['usdt-record'])} vs {fmt(tps['untraced'])}; median per-round ratio "
          f"{fmt(med(x.values()), 3)}; CPU of pgbench + backends {fmt(cpu_vs_untraced(res, 'usdt-record', False), 2)} "
          f"× untraced, with the recorder's {fmt(cpu_vs_untraced(res, 'usdt-record', True), 2)} ×; the kernel alone: "
          f"counting uprobe {fmt(ratio['floor'], 2)} ×, bare sampler {fmt(ratio['bare'], 2)} × untraced tps")
    tools = ("untraced", "usdt-record")
    out = [over_rounds(t1, res, tools, x, ">=", 0.9, m1 + _errors(res, tools))]
    y = field_ratio_rounds(res, "usdt-record", "perf", "tps")
    m2 = (f"{fmt(med(y.values()), 3)} × perf record's tps in the same round (median tps {fmt(tps['usdt-record'])} vs "
          f"{fmt(tps['perf'])}); CPU with the tool's own: {fmt(cpu_vs_untraced(res, 'usdt-record', True), 2)} vs "
          f"{fmt(cpu_vs_untraced(res, 'perf', True), 2)} × untraced")
    tools = ("usdt-record", "perf")
    out.append(over_rounds(t2, res, tools, y, ">=", 1.0, m2 + _errors(res, tools)))
    return out


def targets(results, rr, pg_note, loss_results, loss_hits, size_floors):
    """Every target of the run, as verdict dicts (judge.py), in a fixed order."""
    out = []
    for w in ("loop", "threads"):
        res = results.get(w, {})
        out += [recording_cost(w, res, "bare", 1.05), recording_cost(w, res, "perf", 1.0)]
    for w, judged in (("fentry", function_entry), ("fret", function_return)):
        if w in results:
            res = results[w]
            out.append(judged(res))
            hits = next((r.get("events") for r in good_runs(res, "untraced").values()), None)
            out.append(exact_counts(f"{w}: every tool's events = the hits, none lost or duplicated", res, hits))
    out.append(recording_cost("kread", results.get("kread", {}), "bare", 1.10))
    for w in ("loop", "threads"):
        out.append(lossless(w, loss_results.get(w + "-loss", {}), loss_hits))
    out += size_targets(results, size_floors)
    out += report_targets(rr)
    out += pgbench_targets(results.get("postgres"), pg_note)
    out += bpf_targets(results, loss_results, loss_hits, pg_note)
    return out
