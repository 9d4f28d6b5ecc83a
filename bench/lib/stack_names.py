"""The function names of the call stacks two tools recorded for the same hits,
and whether they agree (bench/stacks/run.py).

Stacks are lists of function names, innermost first, keyed by the probe's
first argument (the hit's index). Two stacks agree only when they are the
same whole: a stack cut short (a truncated copy of the user stack, an
unwinder that gave up) does not agree with a complete one, even where the
frames it has are right.
"""
import json
import re

# perf script -F event,trace,ip,sym,dso: a header line per sample with the
# probe's arguments, then one indented line per frame.
PERF_HEADER = re.compile(r"\sarg1=(0x[0-9a-f]+|\d+)")
# The object is the last parenthesized part: "f (inlined) (/bin/x)" is f (inlined).
PERF_FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\(([^()]*)\)$")
UNKNOWN = "[unknown]"


def perf_script_stacks(text):
    """{i: [function, ...]} from the text of perf script."""
    stacks, current = {}, None
    for line in text.splitlines():
        m = PERF_HEADER.search(line)
        if m and not line.startswith((" ", "\t")):
            current = []
            stacks[int(m.group(1), 0)] = current
            continue
        f = PERF_FRAME.match(line)
        if f and current is not None:
            current.append(f.group(1))
    return stacks


def dump_jsonl_stacks(text):
    """{i: [function, ...]} from usdt-report dump --format jsonl (events
    without a stack are left out)."""
    stacks = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        e = json.loads(line)
        if "stack" not in e:
            continue
        stacks[int(e["args"][0])] = [f.get("function") or UNKNOWN for f in e["stack"]]
    return stacks


def normalized(stack):
    """perf names the frames of inlined calls `f (inlined)` beside the
    function they are in; usdt-report names the function the address is in.
    Both tools name a frame by its symbol (perf script --no-inline), so the
    inlined entries are the only ones left out."""
    return [f for f in stack if f and not f.endswith("(inlined)")]


def agree(a, b):
    """Whether two stacks name the same functions, frame by frame, whole."""
    a, b = normalized(a), normalized(b)
    return bool(a) and a == b


def follows_path(stack, path):
    """Whether the stack's frames from the innermost through `path[-1]` (main)
    are exactly `path`: the call path the workload itself took."""
    s = normalized(stack)
    return s[:len(path)] == path


def agreement(ours, theirs):
    """(events compared, events that agree, up to three mismatches) over the
    hits both have."""
    common = sorted(set(ours) & set(theirs))
    bad = [i for i in common if not agree(ours[i], theirs[i])]
    return len(common), len(common) - len(bad), bad[:3]
