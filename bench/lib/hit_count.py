"""Counts a recording against the hits the loop workload made, without
trusting the recorder's own counters.

bench/workloads/loop.c gives every hit a key: the probe, the thread's tag
(1..THREADS) and the iteration index within that thread (0..n-1, n being
that thread's share of the hits). A recording is dumped with
`usdt-report dump --format csv` and every event's key is looked up:

    events      rows of the dump
    unique      distinct keys seen that the workload made
    lost        expected hits - unique
    dup         events whose key was seen before (events - unique - stray)
    stray       events with a key the workload never made (a wrong or null
                argument): neither lost nor duplicated, but any of them
                means the recording is wrong

Runs standalone too: hit_count.py USDT_REPORT TRACE HITS THREADS
PROVIDER:NAME[,...] [INDEX_ARG TAG_ARG] prints the counts as JSON.
"""
import csv
import io
import json
import subprocess
import sys
import tempfile


def per_thread_hits(hits, threads):
    """Hits of each thread, as loop.c splits them: the remainder goes to the first."""
    return [hits // threads + (hits % threads if t == 0 else 0) for t in range(threads)]


class ExpectedHits:
    """The hits of one run of loop.c: every probe fires once per iteration of
    every thread. index_arg and tag_arg are the argument positions of the
    iteration index and the thread tag (bench:hitmem has them swapped);
    tag_arg None: the events carry no tag (a uretprobe's only argument is the
    return value), which needs one thread, tag 1.

    any_probe: the recording holds the one probe of the workload and its
    provider and name columns are not compared (a uprobe's event is named
    after the file today, `uprobe:SYMBOL` later): every row counts as a hit of
    probes[0]."""

    def __init__(self, probes, hits, threads, index_arg=0, tag_arg=1, any_probe=False):
        self.probes = list(probes)  # [(provider, name)]
        self.hits, self.threads = hits, threads
        self.index_arg, self.tag_arg = index_arg, tag_arg
        self.any_probe = any_probe
        if tag_arg is None and threads != 1:
            raise ValueError("events without a thread tag need one thread")
        if any_probe and len(self.probes) != 1:
            raise ValueError("any_probe needs exactly one probe")

    def total(self):
        return self.hits * len(self.probes)

    def bitmaps(self):
        """(provider, name, tag) -> bytearray with one byte per iteration index."""
        out = {}
        for provider, name in self.probes:
            for t, n in enumerate(per_thread_hits(self.hits, self.threads)):
                out[(provider, name, t + 1)] = bytearray(n)
        return out


def count_rows(rows, expected):
    """Counts CSV rows (a header row first, as usdt-report dump writes it).
    Returns {"events", "unique", "lost", "dup", "stray"}; raises ValueError
    when the header lacks a needed column."""
    rows = iter(rows)
    header = next(rows, None)
    if header is None:
        raise ValueError("the dump is empty (no header line)")
    need = ["provider", "name", f"arg{expected.index_arg}"]
    if expected.tag_arg is not None:
        need.append(f"arg{expected.tag_arg}")
    missing = [c for c in need if c not in header]
    if missing:
        raise ValueError(f"the dump has no column {', '.join(missing)}")
    ip, iname, iidx = (header.index(c) for c in need[:3])
    itag = header.index(need[3]) if expected.tag_arg is not None else None
    maps = expected.bitmaps()
    only = expected.probes[0] if expected.any_probe else None
    seen = unique = stray = 0
    for row in rows:
        seen += 1
        try:
            idx = int(row[iidx])
            tag = int(row[itag]) if itag is not None else 1
        except (ValueError, IndexError):  # null (empty) or absent argument
            stray += 1
            continue
        provider, name = only if only else (row[ip], row[iname])
        bits = maps.get((provider, name, tag))
        if bits is None or not 0 <= idx < len(bits):
            stray += 1
        elif not bits[idx]:
            bits[idx] = 1
            unique += 1
    return {"events": seen, "unique": unique, "lost": expected.total() - unique,
            "dup": seen - unique - stray, "stray": stray}


def count_trace(report, trace, expected):
    """Counts the events of a trace through `report dump --format csv`.
    Raises RuntimeError when the dump fails."""
    # stderr to a file: a pipe could fill while stdout is being read.
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen([report, "dump", "--format", "csv", trace], stdout=subprocess.PIPE, stderr=err)
        try:
            counts = count_rows(csv.reader(io.TextIOWrapper(p.stdout, newline="")), expected)
        except ValueError as e:
            counts = e
            if p.poll() is None:
                p.kill()
        if p.wait() != 0 and not (isinstance(counts, ValueError) and p.returncode < 0):
            err.seek(0)
            lines = err.read().decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"usdt-report dump failed: {lines[-1] if lines else f'exit {p.returncode}'}")
    if isinstance(counts, ValueError):
        raise RuntimeError(f"usdt-report dump of {trace}: {counts}")
    return counts


def main(argv):
    if len(argv) not in (6, 8):
        print(__doc__.split("\n\n")[-1].strip(), file=sys.stderr)
        return 2
    probes = [tuple(p.split(":", 1)) for p in argv[5].split(",")]
    keys = (int(argv[6]), int(argv[7])) if len(argv) == 8 else (0, 1)
    expected = ExpectedHits(probes, int(argv[3]), int(argv[4]), *keys)
    try:
        print(json.dumps(count_trace(argv[1], argv[2], expected)))
    except (RuntimeError, OSError) as e:
        print(f"hit_count: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
