"""The figures of a benchmark run, from its runs: per-round overheads and
ratios, CPU per event, medians, and the tables of bench.py's markdown.

A run is a dict (tools.py): a failed one has "error" set and no figures.
"""
import statistics

import tools


# ---------------------------------------------------------------- statistics

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



# ---------------------------------------------------------------- tables

def per_round_overhead(res, tool, baseline="untraced"):
    """Per-round overhead ns/event of `tool` against the untraced run of the
    same round (`baseline`: the untraced run of the program the tool ran on)."""
    base = {r["round"]: r for r in res.get(baseline, []) if isinstance(r, dict) and not r.get("error")}
    out = {}
    runs = res.get(tool)
    if not isinstance(runs, list):
        return out
    for r in runs:
        b = base.get(r["round"])
        if r.get("error") or b is None:
            continue
        ev = r.get("events")
        if not ev:
            continue
        out[r["round"]] = (r["loop_ns"] - b["loop_ns"]) / ev
    return out


def tps_ratio_rounds(res, tool):
    """Per-round pgbench tps of `tool` / tps untraced in the same round."""
    base = {r["round"]: r.get("tps") for r in res.get("untraced", []) if isinstance(r, dict) and not r.get("error")}
    runs = res.get(tool)
    if not isinstance(runs, list):
        return []
    return [r["tps"] / base[r["round"]] for r in runs
            if not r.get("error") and r.get("tps") and base.get(r["round"])]


def per_round_cpu(res, tool, with_tool_cpu, baseline="untraced"):
    """Per-round CPU ns/event added by tracing: the workload's own extra CPU
    (the trap and sample writing happen in its context), plus the tool's CPU
    when with_tool_cpu."""
    base = {r["round"]: r for r in res.get(baseline, []) if isinstance(r, dict) and not r.get("error")}
    out = {}
    runs = res.get(tool)
    if not isinstance(runs, list):
        return out
    for r in runs:
        b = base.get(r["round"])
        if r.get("error") or b is None or not r.get("events") or r.get("workload_cpu_ns") is None:
            continue
        extra = r["workload_cpu_ns"] - b["workload_cpu_ns"]
        if with_tool_cpu:
            if r.get("tool_cpu_s") is None:
                continue
            extra += r["tool_cpu_s"] * 1e9
        out[r["round"]] = extra / r["events"]
    return out


def cpu_ratio(res, tool, ref, with_tool_cpu, bases=None):
    bases = bases or {}
    a = per_round_cpu(res, tool, with_tool_cpu, bases.get(tool, "untraced"))
    b = per_round_cpu(res, ref, with_tool_cpu, bases.get(ref, "untraced"))
    return med([a[k] / b[k] for k in a if k in b and b[k] > 0])


def cpu_vs_untraced(res, tool, with_tool_cpu):
    """Median per-round (CPU of the traced run) / (CPU of the untraced run)."""
    base = {r["round"]: r for r in res.get("untraced", []) if isinstance(r, dict) and not r.get("error")}
    runs = res.get(tool)
    if not isinstance(runs, list):
        return None
    out = []
    for r in runs:
        b = base.get(r["round"])
        if r.get("error") or b is None or not r.get("workload_cpu_ns") or not b.get("workload_cpu_ns"):
            continue
        c = r["workload_cpu_ns"] + (r.get("tool_cpu_s") or 0) * 1e9 * with_tool_cpu
        out.append(c / b["workload_cpu_ns"])
    return med(out)


def ratio_rounds(res, tool, ref, bases=None):
    """Per-round ratios of the overheads of tool and ref, each against its own
    baseline (bases: tool name -> baseline name, default untraced)."""
    bases = bases or {}
    a = per_round_overhead(res, tool, bases.get(tool, "untraced"))
    b = per_round_overhead(res, ref, bases.get(ref, "untraced"))
    return [a[k] / b[k] for k in a if k in b and b[k] > 0]


def recording_table(w, res, tl):
    lines = [f"### {w.title}", "",
             "| tool | " + ("pgbench tps, median (min–max) = median per-round × untraced; CPU per run × untraced" if w.kind == "attach"
                          else "ns/event overhead, median (min–max)") + " | × floor | × bare | × perf record | "
             "events seen | lost | dup | bytes/event | tool CPU ns/event | workload CPU ns/event (× bare) | "
             "workload + tool CPU ns/event (× bare) | tool wall s | peak RSS MiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    summary = {}
    bases = {t.name: t.baseline for t in tl}
    for t in tl:
        runs = res.get(t.name)
        if runs is None:
            continue
        base = t.baseline
        is_base = t.name == base
        if isinstance(runs, dict):
            lines.append(f"| {t.label} | not available: {runs['unavailable']} |" + " |" * 12)
            continue
        good = [r for r in runs if not r.get("error")]
        errors = [r["error"] for r in runs if r.get("error")]
        if not good:
            lines.append(f"| {t.label} | not available: {errors[0] if errors else 'no run'} |" + " |" * 12)
            continue
        ov = list(per_round_overhead(res, t.name, base).values())
        tps_ratio = None
        if is_base:
            ov_s = f"0 (loop {fmt(med([r['loop_ns'] for r in good]) / 1e6, 1)} ms)"
            if w.kind == "attach":
                ov_s = f"{fmt_range([r.get('tps') for r in good])} tps = 1 (reference)"
        else:
            ov_s = fmt_range(ov)
            if w.kind == "attach":
                tps_ratio = med(tps_ratio_rounds(res, t.name))
                ov_s += f"; {fmt_range([r.get('tps') for r in good])} tps = {fmt(tps_ratio, 2)} × untraced"
        # Against the tools of this workload's program only (not the fentry
        # workload's USDT-site reference, another program).
        same = not is_base and base == "untraced"
        rf = ratio_rounds(res, t.name, "floor", bases) if same and t.name != "floor" else []
        rb = ratio_rounds(res, t.name, "bare", bases) if same and t.name != "bare" else []
        rp = ratio_rounds(res, t.name, "perf", bases) if same and t.name != "perf" else []
        if w.kind == "attach":
            # A few ten thousand events in a second of pgbench: the per-event
            # difference drowns in pgbench's own run-to-run spread, so only
            # the throughput ratio is shown.
            rf = rb = rp = []
            if t.name != "untraced":
                ov_s = (f"{fmt_range([r.get('tps') for r in good])} tps = "
                        f"{fmt(tps_ratio, 2)} × untraced; CPU of pgbench + backends "
                        f"{fmt(cpu_vs_untraced(res, t.name, False), 2)} × untraced, "
                        f"{fmt(cpu_vs_untraced(res, t.name, True), 2)} × with the tool's")
        events = [r.get("events") for r in good]
        lost = [r.get("lost") for r in good]
        dup = [r.get("dup") for r in good]
        bpe = [r["bytes"] / r["events"] for r in good if r.get("bytes") and r.get("events")]
        cpu = [r["tool_cpu_s"] * 1e9 / r["events"] for r in good
               if r.get("tool_cpu_s") is not None and r.get("events") and not is_base]
        wall = [r.get("wall_s") for r in good]
        rss = [r["rss_kib"] / 1024 for r in good if r.get("rss_kib")]

        def mm(xs):
            xs = [x for x in xs if x is not None]
            if not xs:
                return "n/a"
            return fmt(xs[0]) if min(xs) == max(xs) else f"{fmt(min(xs))}–{fmt(max(xs))}"

        err_note = f" ({len(errors)} failed runs: {errors[0]})" if errors else ""

        def cpu_s(with_tool):
            if is_base or w.kind == "attach":
                return "n/a"
            v = med(list(per_round_cpu(res, t.name, with_tool, base).values()))
            r = cpu_ratio(res, t.name, "bare", with_tool, bases) if t.name != "bare" else None
            return f"{fmt(v)} ({fmt(r, 2)})" if r is not None else fmt(v)

        lines.append(f"| {t.label}{err_note} | {ov_s} | {fmt(med(rf), 2)} | {fmt(med(rb), 2)} | {fmt(med(rp), 2)} | "
                     f"{mm(events)} | {mm(lost)} | {mm(dup)} | {fmt(med(bpe), 1)} | {fmt(med(cpu))} | "
                     f"{cpu_s(False)} | {cpu_s(True)} | "
                     f"{fmt(med(wall), 2)} | {fmt(med(rss), 1)} |")
        summary[t.name] = {"overhead": med(ov), "x_floor": med(rf), "x_bare": med(rb), "x_perf": med(rp),
                           "x_bare_rounds": rb, "x_perf_rounds": rp,
                           "cpu_x_bare": cpu_ratio(res, t.name, "bare", False, bases),
                           "total_cpu_x_bare": cpu_ratio(res, t.name, "bare", True, bases),
                           "cpu_x_perf": cpu_ratio(res, t.name, "perf", False, bases),
                           "total_cpu_x_perf": cpu_ratio(res, t.name, "perf", True, bases),
                           "events": events, "lost": lost, "dup": dup,
                           "stray": [r.get("stray") for r in good], "bytes_per_event": med(bpe),
                           "tps": med([r.get("tps") for r in good]), "tps_ratio": tps_ratio,
                           "cpu_vs_untraced": cpu_vs_untraced(res, t.name, False),
                           "total_cpu_vs_untraced": cpu_vs_untraced(res, t.name, True),
                           "runs": len(good)}
    for t, ref in (("usdt-record", "usdt-record-usdt"), ("floor", "floor-usdt")):
        if t in summary and ref in summary:
            # usdt-record's own part: its overhead less the counting floor's.
            above = {}
            for u, f in ((t, "floor"), (ref, "floor-usdt")):
                a = per_round_overhead(res, u, bases.get(u, "untraced"))
                b = per_round_overhead(res, f, bases.get(f, "untraced"))
                above[u] = med([a[k] - b[k] for k in a if k in b])
            summary[t]["above_floor_ns"] = above.get(t)
            summary[t]["usdt_site_above_floor_ns"] = above.get(ref)
            summary[t]["x_usdt_site_rounds"] = ratio_rounds(res, t, ref, bases)
            summary[t]["cpu_x_usdt_site"] = cpu_ratio(res, t, ref, False, bases)
            summary[t]["total_cpu_x_usdt_site"] = cpu_ratio(res, t, ref, True, bases)
    return lines, summary


def usdt_site_references(tl, site):
    """The fentry workload's reference in the same rounds: the loop workload's
    program (bench:hit2, two register arguments) untraced, under the counting
    floor and under usdt-record."""
    by = {t.name: t for t in tl}
    out = []
    if "untraced" in by:
        out.append(tools.OnOtherWorkload(by["untraced"], site, "untraced-usdt",
                                         "untraced, USDT-site loop (loop -v reg2)", "untraced-usdt"))
        for name, label in (("floor", "uprobe count (perf stat), USDT site bench:hit2"),
                            ("usdt-record", "usdt-record, USDT site bench:hit2")):
            if name in by:
                out.append(tools.OnOtherWorkload(by[name], site, name + "-usdt", label, "untraced-usdt"))
    return out


def loss_table(loss, args, tl):
    lines = [f"### Losses and duplicates at {args.loss_hits:,} hits, default buffers "
             f"({args.loss_rounds} run(s) per tool)", "",
             "Counted from what each tool wrote, not from its own counters: every hit of the workload has a "
             "key (thread tag, iteration index); lost = hits made − distinct keys seen, duplicated = events "
             "whose key was seen before, stray = events with a key the workload never made (usdt-record: "
             "`usdt-report dump --format csv`, bench/lib/hit_count.py; perf record: `perf script` lines). "
             "The tool's own count of lost events is shown beside it.", "",
             "| workload | tool | events seen | lost | duplicated | stray | lost, tool's own count | bytes/event | "
             "tool CPU ns/event | workload CPU ns/event | tool wall s | peak RSS MiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    labels = {t.name: t.label for t in tl}
    summary = {}
    for wname, res in loss.items():
        for tname, runs in res.items():
            label = labels.get(tname, tname)
            if isinstance(runs, dict):
                lines.append(f"| {wname} | {label} | not available: {runs['unavailable']} |" + " |" * 9)
                continue
            good = [r for r in runs if not r.get("error")]
            if not good:
                lines.append(f"| {wname} | {label} | not available: {runs[0]['error'] if runs else 'no run'} |" + " |" * 9)
                continue

            def mm(xs):
                xs = [x for x in xs if x is not None]
                if not xs:
                    return "n/a"
                return fmt(xs[0]) if min(xs) == max(xs) else f"{fmt(min(xs))}–{fmt(max(xs))}"

            lines.append(f"| {wname} | {label} | {mm([r.get('events') for r in good])} | "
                         f"{mm([r.get('lost') for r in good])} | {mm([r.get('dup') for r in good])} | "
                         f"{mm([r.get('stray') for r in good])} | {mm([r.get('own_lost') for r in good])} | "
                         f"{fmt(med([r['bytes'] / r['events'] for r in good if r.get('bytes') and r.get('events')]), 1)} | "
                         f"{fmt(med([r['tool_cpu_s'] * 1e9 / r['events'] for r in good if r.get('tool_cpu_s') is not None and r.get('events')]))} | "
                         f"{fmt(med([r['workload_cpu_ns'] / r['events'] for r in good if r.get('workload_cpu_ns') and r.get('events')]))} | "
                         f"{fmt(med([r.get('wall_s') for r in good]), 2)} | "
                         f"{fmt(med([r['rss_kib'] / 1024 for r in good if r.get('rss_kib')]), 1)} |")
            summary.setdefault(wname, {})[tname] = {"lost": [r.get("lost") for r in good],
                                                    "dup": [r.get("dup") for r in good],
                                                    "stray": [r.get("stray") for r in good],
                                                    "own_lost": [r.get("own_lost") for r in good],
                                                    "runs": len(good)}
    return lines, summary


def report_table(rr):
    lines = [f"### Report speed: {rr['events']:,} events (bench:start + bench:done pairs), pinned to one CPU", "",
             "Events per CPU-second (user + sys of the process) is the figure the targets use: on this shared "
             "machine the wall clock also counts the time other jobs held the CPU.", "",
             "| command | events/CPU-s, median (min–max) | events/s wall, median (min–max) | wall s | CPU s | peak RSS MiB |",
             "|---|---|---|---|---|---|"]
    for name in ("summary", "latency", "dump text", "perf script"):
        if name not in rr["runs"]:
            why = rr["unavailable"].get("usdt-report" if name != "perf script" else "perf", "not run")
            lines.append(f"| {name} | not available: {why} | | | | |")
            continue
        runs = rr["runs"][name]
        good = [r for r in runs if not r.get("error")]
        if not good:
            lines.append(f"| {name} | not available: {runs[0]['error'] if runs else 'no run'} | | | | |")
            continue
        lines.append(f"| {name} | {fmt_range([r['events_per_cpu_s'] for r in good])} | "
                     f"{fmt_range([r['events_per_s'] for r in good])} | "
                     f"{fmt(med([r['wall_s'] for r in good]), 3)} | {fmt(med([r['cpu_s'] for r in good]), 3)} | "
                     f"{fmt(med([r['rss_kib'] / 1024 for r in good if r.get('rss_kib')]), 1)} |")
    return lines
