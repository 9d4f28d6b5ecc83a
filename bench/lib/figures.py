"""The figures of a benchmark run, taken from its runs round by round.

A workload's results are {tool name: [run]} (one run per round, in round
order, each with "round") or {tool name: {"unavailable": why}}; a run is a
dict (tools.py) and a failed one has "error" set and no figures. Every
per-round figure is a {round: value} dict holding only the rounds where all
the runs it needs succeeded, so the rounds left out can be counted.
"""
import statistics


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, digits=0, unit=""):
    if x is None:
        return "n/a"
    if isinstance(x, float) and digits == 0 and abs(x) < 10:
        digits = 2
    return f"{x:,.{digits}f}{unit}"


def fmt_range(xs, digits=0):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "n/a"
    return f"{fmt(statistics.median(xs), digits)} ({fmt(min(xs), digits)}–{fmt(max(xs), digits)})"


def min_max(xs):
    """'a' or 'a–b' over the values that are known, 'n/a' without any."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "n/a"
    return fmt(xs[0]) if min(xs) == max(xs) else f"{fmt(min(xs))}–{fmt(max(xs))}"


def ran(res, tool):
    """Whether the tool was run (it may have failed): it has a list of runs."""
    return isinstance(res.get(tool), list)


def good_runs(res, tool):
    """{round: run} of the tool's runs that did not fail."""
    runs = res.get(tool)
    if not isinstance(runs, list):
        return {}
    return {r.get("round", i): r for i, r in enumerate(runs) if not r.get("error")}


def failed_rounds(res, *tools):
    """The rounds in which a run of any of the tools failed (error, timeout)."""
    out = set()
    for t in tools:
        runs = res.get(t)
        if isinstance(runs, list):
            out |= {r.get("round", i) for i, r in enumerate(runs) if r.get("error")}
    return out


def planned_rounds(res, *tools):
    return max([len(res[t]) for t in tools if ran(res, t)] or [0])


def first_error(res, tool):
    runs = res.get(tool)
    return next((r["error"] for r in runs if r.get("error")), None) if isinstance(runs, list) else None


def per_round_overhead(res, tool, baseline="untraced"):
    """{round: overhead ns/event} of `tool` against the untraced run of the
    same round; rounds where the tool recorded no event have none."""
    base = good_runs(res, baseline)
    out = {}
    for k, r in good_runs(res, tool).items():
        if k in base and r.get("events"):
            out[k] = (r["loop_ns"] - base[k]["loop_ns"]) / r["events"]
    return out


def ratio_rounds(res, tool, ref):
    """{round: overhead of tool / overhead of ref}, where ref's is positive."""
    a, b = per_round_overhead(res, tool), per_round_overhead(res, ref)
    return {k: a[k] / b[k] for k in a if k in b and b[k] > 0}


def above_floor_rounds(res, tool, ref, floor="floor"):
    """{round: (tool's overhead - floor's) / (ref's overhead - floor's)}: the
    cost a tool adds above what the kernel itself costs at the same probe
    (the counting uprobe), against what ref adds above it. Rounds where ref
    adds nothing measurable have no value."""
    a, b, f = (per_round_overhead(res, t) for t in (tool, ref, floor))
    return {k: (a[k] - f[k]) / (b[k] - f[k]) for k in a if k in b and k in f and b[k] > f[k]}


def above_floor_ns(res, tool, floor="floor"):
    """{round: tool's overhead - floor's overhead} in ns per event."""
    a, f = per_round_overhead(res, tool), per_round_overhead(res, floor)
    return {k: a[k] - f[k] for k in a if k in f}


def per_round_cpu(res, tool, with_tool_cpu, baseline="untraced"):
    """{round: CPU ns/event added by tracing}: the workload's own extra CPU
    (the trap and sample writing happen in its context), plus the tool's CPU
    when with_tool_cpu."""
    base = good_runs(res, baseline)
    out = {}
    for k, r in good_runs(res, tool).items():
        if k not in base or not r.get("events") or r.get("workload_cpu_ns") is None:
            continue
        extra = r["workload_cpu_ns"] - base[k]["workload_cpu_ns"]
        if with_tool_cpu:
            if r.get("tool_cpu_s") is None:
                continue
            extra += r["tool_cpu_s"] * 1e9
        out[k] = extra / r["events"]
    return out


def cpu_ratio(res, tool, ref, with_tool_cpu):
    a = per_round_cpu(res, tool, with_tool_cpu)
    b = per_round_cpu(res, ref, with_tool_cpu)
    return med([a[k] / b[k] for k in a if k in b and b[k] > 0])


def cpu_vs_untraced(res, tool, with_tool_cpu):
    """Median per-round (CPU of the traced run) / (CPU of the untraced run)."""
    base = good_runs(res, "untraced")
    out = []
    for k, r in good_runs(res, tool).items():
        b = base.get(k)
        if b is None or not r.get("workload_cpu_ns") or not b.get("workload_cpu_ns"):
            continue
        c = r["workload_cpu_ns"] + (r.get("tool_cpu_s") or 0) * 1e9 * with_tool_cpu
        out.append(c / b["workload_cpu_ns"])
    return med(out)


def field_ratio_rounds(res, tool, ref, field):
    """{round: run[field] of tool / of ref}, e.g. pgbench's tps."""
    a, b = good_runs(res, tool), good_runs(res, ref)
    return {k: a[k][field] / b[k][field] for k in a
            if k in b and a[k].get(field) is not None and b[k].get(field)}


def bytes_per_event_rounds(res, tool):
    return {k: r["bytes"] / r["events"] for k, r in good_runs(res, tool).items()
            if r.get("bytes") and r.get("events")}


def size_ratio_rounds(res, tool, ref):
    """{round: bytes/event of tool / of ref}."""
    a, b = bytes_per_event_rounds(res, tool), bytes_per_event_rounds(res, ref)
    return {k: a[k] / b[k] for k in a if k in b and b[k] > 0}
