"""The targets of a benchmark run: each one (text, status, measured) from
the summaries of bench.py's tables."""
import verdicts
from tables import fmt, med


def targets(summaries, rr, pg_note, loss_summary, loss_hits, size_floors):
    """Each target: (text, status, measured)."""
    out = []

    def s(w, t):
        return summaries.get(w, {}).get(t)

    def ls(w, t):
        return loss_summary.get(w + "-loss", {}).get(t)

    def status(ok):
        return "met" if ok else "NOT MET"

    # recording cost
    for w in ("loop", "threads"):
        u = s(w, "usdt-record")
        if u is None or u["x_bare"] is None:
            out.append((f"{w}: recording cost ≤ 1.05 × bare sampler", "not available", "usdt-record did not run"))
        else:
            out.append((f"{w}: recording cost ≤ 1.05 × bare sampler", status(u["x_bare"] <= 1.05),
                        f"{u['x_bare']:.2f} × bare in workload wall time; in CPU: workload "
                        f"{fmt(u['cpu_x_bare'], 2)} ×, workload + recorder {fmt(u['total_cpu_x_bare'], 2)} ×"))
        if u is None or u["x_perf"] is None:
            out.append((f"{w}: recording cost ≤ perf record", "not available", "usdt-record or perf record did not run"))
        else:
            out.append((f"{w}: recording cost ≤ perf record", status(u["x_perf"] <= 1.0),
                        f"{u['x_perf']:.2f} × perf record in workload wall time; in CPU: workload "
                        f"{fmt(u['cpu_x_perf'], 2)} ×, workload + recorder {fmt(u['total_cpu_x_perf'], 2)} ×"))
    # function probes (issue 10)
    for w, judge in (("fentry", verdicts.function_entry), ("fret", verdicts.function_return)):
        if w in summaries:
            out.append(judge(summaries[w]))
            hits = (summaries[w].get("untraced") or {}).get("events") or [None]
            out.append(verdicts.exact_counts(f"{w}: every tool's events = the hits, none lost or duplicated",
                                             summaries[w], hits[0]))
    # kernel reads at the hit
    u = s("kread", "usdt-record")
    title = "kread: two heap words + a 64-byte string read by the kernel ≤ 1.10 × bare sampler (registers only, same site)"
    if u is None or u["x_bare"] is None:
        out.append((title, "not available", "usdt-record or the bare sampler did not run on kread"))
    else:
        lost = [x for x in u["lost"] if x is not None]
        out.append((title, status(u["x_bare"] <= 1.10),
                    f"{u['x_bare']:.2f} × bare in workload wall time (per-round {fmt(min(u['x_bare_rounds']), 2)}–"
                    f"{fmt(max(u['x_bare_rounds']), 2)}); in CPU: workload {fmt(u['cpu_x_bare'], 2)} ×, workload + "
                    f"recorder {fmt(u['total_cpu_x_bare'], 2)} ×; lost max {max(lost) if lost else 'n/a'}"))
    # losses
    for w in ("loop", "threads"):
        u = ls(w, "usdt-record")
        title = f"{w}: zero lost and zero duplicated at {loss_hits:,} hits"
        if u is None:
            out.append((title, "not available", "usdt-record did not run"))
            continue
        lost = [x for x in u["lost"] if x is not None]
        dup = [x for x in u["dup"] if x is not None]
        if not lost:
            out.append((title, "not available", "no loss count"))
            continue
        stray = [x for x in u["stray"] if x is not None]
        own = [x for x in u["own_lost"] if x is not None]
        ok = max(lost) == 0 and (not dup or max(dup) == 0) and (not stray or max(stray) == 0)
        meas = f"lost max {max(lost)} over {u['runs']} run(s); dup " + (f"max {max(dup)}" if dup else "not measured")
        if stray:
            meas += f"; stray max {max(stray)}"
        meas += " (counted from usdt-report dump: hits made − distinct (thread, index) keys)"
        if own:
            meas += f"; usdt-record's own lost count max {max(own)}"
        out.append((title, status(ok) if dup else
                    (status(ok) + " (lost only)" if ok else "NOT MET"), meas))
    # size
    u = s("loop", "usdt-record")
    if u is None or u["bytes_per_event"] is None:
        out.append(("loop: ≤ 3 bytes/event", "not available", "usdt-record did not run"))
    else:
        out.append(("loop: ≤ 3 bytes/event", status(u["bytes_per_event"] <= 3), f"{u['bytes_per_event']:.2f} B/event"))
    for w in summaries:
        if w in ("fentry", "fret"):  # no size target for the function probes
            continue
        u, pz = s(w, "usdt-record"), s(w, "perf-z")
        if u is None or pz is None or u["bytes_per_event"] is None or pz["bytes_per_event"] is None:
            out.append((f"{w}: size ≤ 1/3 of perf record -z", "not available", "usdt-record or perf record -z did not run"))
            continue
        r = u["bytes_per_event"] / pz["bytes_per_event"]
        meas = f"{u['bytes_per_event']:.2f} vs {pz['bytes_per_event']:.2f} B/event = {r:.3f}"
        fl = size_floors.get(w)
        if fl and fl.get("bytes_per_event"):
            cols = ", ".join(f"{k} {v:.2f}" for k, v in fl["columns"].items() if v >= 0.01)
            meas += (f"; information floor of the same trace (per-column deltas, zstd -19/xz -9e): "
                     f"{fl['bytes_per_event']:.2f} B/event ({cols}), i.e. "
                     f"{fl['bytes_per_event'] / pz['bytes_per_event']:.2f} of perf -z")
        out.append((f"{w}: size ≤ 1/3 of perf record -z", status(r <= 1 / 3), meas))
    # report
    runs = (rr or {}).get("runs", {})

    def eps(name, key="events_per_cpu_s"):
        good = [r[key] for r in runs.get(name, []) if not r.get("error") and r.get(key)]
        return med(good)

    for name in ("summary", "latency"):
        e, ew = eps(name), eps(name, "events_per_s")
        out.append((f"report {name} ≥ 20 M events/s on one core", "not available" if e is None else status(e >= 20e6),
                    "not run" if e is None else f"{e / 1e6:.1f} M events/CPU-s ({ew / 1e6:.1f} M/s wall)"))
    d, p = eps("dump text"), eps("perf script")
    dw, pw = eps("dump text", "events_per_s"), eps("perf script", "events_per_s")
    out.append(("dump text ≥ 20 × perf script", "not available" if d is None or p is None else status(d / p >= 20),
                "not run" if d is None or p is None else
                f"{d / p:.1f} × per CPU-s ({d / 1e6:.2f} vs {p / 1e6:.2f} M); {dw / pw:.1f} × wall"))
    # pgbench
    pg = summaries.get("postgres")
    if pg is None:
        out.append(("pgbench under usdt-record ≥ 0.9 × untraced and ≥ perf record", "not available", pg_note or "not run"))
    else:
        u, un, pr = pg.get("usdt-record"), pg.get("untraced"), pg.get("perf")
        if not u or not un or u.get("tps_ratio") is None:
            out.append(("pgbench under usdt-record ≥ 0.9 × untraced", "not available", "usdt-record did not run"))
        else:
            r = u["tps_ratio"]
            out.append(("pgbench under usdt-record ≥ 0.9 × untraced", status(r >= 0.9),
                        f"median tps {u['tps']:.0f} vs {un['tps']:.0f}; median per-round ratio {r:.3f}; "
                        f"CPU of pgbench + backends {fmt(u['cpu_vs_untraced'], 2)} × untraced, "
                        f"with the recorder's {fmt(u['total_cpu_vs_untraced'], 2)} ×; the kernel alone: "
                        f"counting uprobe {fmt((pg.get('floor') or {}).get('tps_ratio'), 2)} ×, "
                        f"bare sampler {fmt((pg.get('bare') or {}).get('tps_ratio'), 2)} × untraced tps"))
        if not u or not pr or u.get("tps_ratio") is None or pr.get("tps_ratio") is None:
            out.append(("pgbench under usdt-record ≥ under perf record", "not available", "usdt-record or perf record did not run"))
        else:
            ok = u["tps_ratio"] >= pr["tps_ratio"]
            out.append(("pgbench under usdt-record ≥ under perf record", status(ok),
                        f"{u['tps_ratio']:.3f} vs {pr['tps_ratio']:.3f} × untraced (median tps {u['tps']:.0f} vs "
                        f"{pr['tps']:.0f}); CPU with the tool's own: {fmt(u['total_cpu_vs_untraced'], 2)} vs "
                        f"{fmt(pr['total_cpu_vs_untraced'], 2)} × untraced"))
    return out
