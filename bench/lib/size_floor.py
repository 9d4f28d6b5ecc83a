#!/usr/bin/env python3
"""How small can a recording be? An estimate of the information in a trace.

    size_floor.py USDT_REPORT TRACE

Dumps the trace (usdt-report dump --format jsonl), re-encodes each column on
its own the way a careful format would (time, pid, tid, cpu, probe and each
argument as zig-zag varint deltas from the previous event) and compresses
every column with the strongest general-purpose settings at hand (zstd -19,
xz -9e; the smaller wins). Prints one JSON object:
  {"events":N,"bytes_per_event":B,"columns":{"time":B,...}}
B is bytes per event; a recorder that keeps nanosecond timestamps is not
expected to get below it by much, so a size target under it is out of reach
without dropping information.
"""
import json
import lzma
import shutil
import subprocess
import sys


def varint(x, out):
    while True:
        b = x & 0x7F
        x >>= 7
        if x:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def zigzag(x):
    return (x << 1) if x >= 0 else ((-x) << 1) - 1


def best_compressed_size(data):
    sizes = [len(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))]
    if shutil.which("zstd"):
        r = subprocess.run(["zstd", "-19", "-q", "-c"], input=data, capture_output=True)
        if r.returncode == 0:
            sizes.append(len(r.stdout))
    return min(sizes)


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: size_floor.py USDT_REPORT TRACE")
    report, trace = sys.argv[1], sys.argv[2]
    r = subprocess.run([report, "dump", "--format", "jsonl", trace], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"size_floor: error: usdt-report dump failed: {r.stderr.strip()}")
    cols, prev, probes = {}, {}, {}
    n = 0
    for line in r.stdout.splitlines():
        e = json.loads(line)
        n += 1
        fields = {"time": e["time_ns"], "pid": e["pid"], "tid": e["tid"], "cpu": e["cpu"],
                  "probe": probes.setdefault((e["provider"], e["name"]), len(probes))}
        for i, a in enumerate(e.get("args") or []):
            fields[f"arg{i}"] = a if a is not None else 0
        for k, v in fields.items():
            varint(zigzag(v - prev.get(k, v)), cols.setdefault(k, bytearray()))
            prev[k] = v
    if n == 0:
        print(json.dumps({"events": 0, "bytes_per_event": None, "columns": {}}))
        return
    sizes = {k: best_compressed_size(bytes(v)) for k, v in cols.items()}
    print(json.dumps({"events": n, "bytes_per_event": round(sum(sizes.values()) / n, 3),
                      "columns": {k: round(v / n, 3) for k, v in sizes.items()}}))


if __name__ == "__main__":
    main()
