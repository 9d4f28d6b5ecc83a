"""The tables of bench.py's markdown: one per recording workload, the loss
check and the report speed. Each row says how many of its rounds failed
(a tool run that failed or timed out) and the first error: none is dropped
silently.
"""
from figures import (cpu_ratio, cpu_vs_untraced, field_ratio_rounds, fmt, fmt_range, good_runs, med,
                     min_max, per_round_cpu, per_round_overhead, ratio_rounds)


def failed_cell(runs):
    """'0', or 'k of n: first error' for the failed runs of a row."""
    errors = [r["error"] for r in runs if r.get("error")]
    if not errors:
        return "0"
    return f"{len(errors)} of {len(runs)}: {errors[0]}".replace("|", "/")


def recording_table(w, res, tl):
    lines = [f"### {w.title}", "",
             "| tool | failed rounds | " +
             ("pgbench tps, median (min–max) = median per-round × untraced; CPU per run × untraced"
              if w.kind == "attach" else "ns/event overhead, median (min–max)") +
             " | × floor | × bare | × perf record | events seen | lost | dup | bytes/event | tool CPU ns/event | "
             "workload CPU ns/event (× bare) | workload + tool CPU ns/event (× bare) | tool wall s | peak RSS MiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in tl:
        runs = res.get(t.name)
        if runs is None:
            continue
        if isinstance(runs, dict):
            lines.append(f"| {t.label} | n/a | not available: {runs['unavailable']} |" + " |" * 12)
            continue
        good = list(good_runs(res, t.name).values())
        if not good:
            lines.append(f"| {t.label} | {failed_cell(runs)} | no run succeeded |" + " |" * 12)
            continue
        lines.append(f"| {t.label} | {failed_cell(runs)} | " + " | ".join(_recording_cells(w, res, t.name, good)) + " |")
    return lines


def _recording_cells(w, res, name, good):
    """The cells after the failed rounds of one tool's row."""
    is_base = name == "untraced"
    if is_base:
        ov_s = f"0 (loop {fmt(med([r['loop_ns'] for r in good]) / 1e6, 1)} ms)"
        if w.kind == "attach":
            ov_s = f"{fmt_range([r.get('tps') for r in good])} tps = 1 (reference)"
    elif w.kind == "attach":
        # A few ten thousand events in a second of pgbench: the per-event
        # difference drowns in pgbench's own run-to-run spread, so only the
        # throughput ratio is shown.
        ov_s = (f"{fmt_range([r.get('tps') for r in good])} tps = "
                f"{fmt(med(field_ratio_rounds(res, name, 'untraced', 'tps').values()), 2)} × untraced; CPU of "
                f"pgbench + backends {fmt(cpu_vs_untraced(res, name, False), 2)} × untraced, "
                f"{fmt(cpu_vs_untraced(res, name, True), 2)} × with the tool's")
    else:
        ov_s = fmt_range(per_round_overhead(res, name).values())

    def ratio(ref):
        if is_base or name == ref or w.kind == "attach":
            return "n/a"
        return fmt(med(ratio_rounds(res, name, ref).values()), 2)

    def cpu_s(with_tool):
        if is_base or w.kind == "attach":
            return "n/a"
        v = med(per_round_cpu(res, name, with_tool).values())
        r = cpu_ratio(res, name, "bare", with_tool) if name != "bare" else None
        return f"{fmt(v)} ({fmt(r, 2)})" if r is not None else fmt(v)

    bpe = [r["bytes"] / r["events"] for r in good if r.get("bytes") and r.get("events")]
    cpu = [r["tool_cpu_s"] * 1e9 / r["events"] for r in good
           if r.get("tool_cpu_s") is not None and r.get("events") and not is_base]
    return [ov_s, ratio("floor"), ratio("bare"), ratio("perf"), min_max([r.get("events") for r in good]),
            min_max([r.get("lost") for r in good]), min_max([r.get("dup") for r in good]), fmt(med(bpe), 1),
            fmt(med(cpu)), cpu_s(False), cpu_s(True), fmt(med([r.get("wall_s") for r in good]), 2),
            fmt(med([r["rss_kib"] / 1024 for r in good if r.get("rss_kib")]), 1)]


def loss_table(loss, args, tl):
    lines = [f"### Losses and duplicates at {args.loss_hits:,} hits, default buffers "
             f"({args.loss_rounds} run(s) per tool)", "",
             "Counted from what each tool wrote, not from its own counters: every hit of the workload has a "
             "key (thread tag, iteration index); lost = hits made − distinct keys seen, duplicated = events "
             "whose key was seen before, stray = events with a key the workload never made (usdt-record: "
             "`usdt-report dump --format csv`, bench/lib/hit_count.py; perf record: `perf script` lines). "
             "The tool's own count of lost events is shown beside it.", "",
             "| workload | tool | failed runs | events seen | lost | duplicated | stray | lost, tool's own count | "
             "bytes/event | tool CPU ns/event | workload CPU ns/event | tool wall s | peak RSS MiB |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    labels = {t.name: t.label for t in tl}
    for wname, res in loss.items():
        for tname, runs in res.items():
            label = labels.get(tname, tname)
            if isinstance(runs, dict):
                lines.append(f"| {wname} | {label} | n/a | not available: {runs['unavailable']} |" + " |" * 9)
                continue
            good = list(good_runs(res, tname).values())
            if not good:
                lines.append(f"| {wname} | {label} | {failed_cell(runs)} | no run succeeded |" + " |" * 9)
                continue
            per_event = [(r, r["events"]) for r in good if r.get("events")]
            lines.append(f"| {wname} | {label} | {failed_cell(runs)} | {min_max([r.get('events') for r in good])} | "
                         f"{min_max([r.get('lost') for r in good])} | {min_max([r.get('dup') for r in good])} | "
                         f"{min_max([r.get('stray') for r in good])} | {min_max([r.get('own_lost') for r in good])} | "
                         f"{fmt(med([r['bytes'] / n for r, n in per_event if r.get('bytes')]), 1)} | "
                         f"{fmt(med([r['tool_cpu_s'] * 1e9 / n for r, n in per_event if r.get('tool_cpu_s') is not None]))} | "
                         f"{fmt(med([r['workload_cpu_ns'] / n for r, n in per_event if r.get('workload_cpu_ns')]))} | "
                         f"{fmt(med([r.get('wall_s') for r in good]), 2)} | "
                         f"{fmt(med([r['rss_kib'] / 1024 for r in good if r.get('rss_kib')]), 1)} |")
    return lines


def report_table(rr):
    lines = [f"### Report speed: {rr['events']:,} events (bench:start + bench:done pairs), pinned to one CPU", "",
             "Events per CPU-second (user + sys of the process) is the figure the targets use: on this shared "
             "machine the wall clock also counts the time other jobs held the CPU.", "",
             "| command | failed rounds | events/CPU-s, median (min–max) | events/s wall, median (min–max) | wall s | "
             "CPU s | peak RSS MiB |",
             "|---|---|---|---|---|---|---|"]
    for name in ("summary", "latency", "dump text", "perf script"):
        if name not in rr["runs"]:
            why = rr["unavailable"].get("usdt-report" if name != "perf script" else "perf", "not run")
            lines.append(f"| {name} | n/a | not available: {why} | | | | |")
            continue
        runs = rr["runs"][name]
        good = [r for r in runs if not r.get("error")]
        if not good:
            lines.append(f"| {name} | {failed_cell(runs)} | no run succeeded | | | | |")
            continue
        lines.append(f"| {name} | {failed_cell(runs)} | {fmt_range([r['events_per_cpu_s'] for r in good])} | "
                     f"{fmt_range([r['events_per_s'] for r in good])} | "
                     f"{fmt(med([r['wall_s'] for r in good]), 3)} | {fmt(med([r['cpu_s'] for r in good]), 3)} | "
                     f"{fmt(med([r['rss_kib'] / 1024 for r in good if r.get('rss_kib')]), 1)} |")
    return lines
