"""How sure a verdict is: a confidence interval from the rounds, and the rule
that turns it into met, not met or unsure.

A run measures each tool in several interleaved rounds; a target is a bound
on one per-round figure (a ratio of two tools' overheads in the same round, a
size, a speed). Its verdict has one of two rules:

- "median": the figure is the median of the per-round values, and its
  confidence interval is the rank-based (order-statistic) interval of the
  median: for n independent rounds of a continuous figure, the true median
  lies between the k-th smallest and the k-th largest value with probability
  1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2), whatever the distribution (the
  sign-test interval, e.g. Conover, Practical Nonparametric Statistics). The
  interval is the narrowest one whose coverage is at least LEVEL; fewer
  rounds than that needs (5 at 90 %) give no interval. It is exact for any
  distribution and needs no random resampling: a percentile bootstrap of the
  median of 5 rounds covers the median far less often than it claims.
- "every round": a fact that must hold in each round (an exact event count,
  a worst-case time); the interval is the range of the rounds.

The verdict is "met" only when the whole interval is inside the bound, "not
met" when the whole interval is outside it, "unsure" otherwise (and when no
interval can be had, or no round gave a value). Under "every round", one
round outside the bound is "not met", and a failed round leaves the others
"unsure". "not available" means the measurement could not be attempted (a
tool missing, a workload not run).

A verdict is a dict, as the history stores it (verdicts.py):

    {"target", "status", "measured", "rule", "op", "bound", "estimate",
     "interval": [lo, hi] or None, "coverage", "rounds", "rounds_planned",
     "failed_rounds"}
"""
import math
import re
import statistics

LEVEL = 0.90
MEDIAN = "median"
EVERY_ROUND = "every round"
OPS = {"<=": lambda x, b: x <= b, ">=": lambda x, b: x >= b, "==": lambda x, b: x == b}


def median_interval(values, level=LEVEL):
    """(lo, hi, coverage) of the median of values: the k-th smallest and
    k-th largest value for the largest k whose coverage is at least level.
    None when there are too few values for that level."""
    xs = sorted(values)
    n = len(xs)
    best = None
    below = 0  # P(B <= k - 1) * 2**n
    for k in range(1, n // 2 + 1):
        below += math.comb(n, k - 1)
        coverage = 1 - 2 * below / 2 ** n
        if coverage < level:
            break
        best = (xs[k - 1], xs[n - k], coverage)
    return best


def rounds_needed(level=LEVEL):
    """The fewest rounds that give a median interval at this level."""
    n = 1
    while median_interval(range(n), level) is None:
        n += 1
    return n


def judge(target, values, op, bound, measured, rule=MEDIAN, planned=None, failed=0):
    """The verdict of `target` from its per-round values (None values are
    left out) against `op bound`. planned: the rounds the run made (default
    the values given); failed: how many of them failed (a tool's error or
    timeout), counted and shown, never dropped silently."""
    if op not in OPS:
        raise ValueError(f"unknown comparison {op!r}")
    xs = [x for x in values if x is not None]
    planned = len(values) + failed if planned is None else planned
    v = {"target": target, "status": "unsure", "measured": measured, "rule": rule, "op": op,
         "bound": bound, "estimate": None, "interval": None, "coverage": None, "rounds": len(xs),
         "rounds_planned": planned, "failed_rounds": failed}
    if not xs:
        if not planned:
            v["status"] = "not available"
        return v
    holds = OPS[op]
    if rule == EVERY_ROUND:
        v.update(estimate=statistics.median(xs), interval=[min(xs), max(xs)], coverage=1.0)
        if not all(holds(x, bound) for x in xs):
            v["status"] = "not met"
        elif not failed:
            v["status"] = "met"
        return v
    v["estimate"] = statistics.median(xs)
    ci = median_interval(xs)
    if ci is None:
        return v
    lo, hi, coverage = ci
    v.update(interval=[lo, hi], coverage=coverage)
    if holds(lo, bound) and holds(hi, bound):
        v["status"] = "met"
    elif _outside(lo, hi, op, bound):
        v["status"] = "not met"
    return v


def _outside(lo, hi, op, bound):
    """Whether the whole interval [lo, hi] is outside `op bound`."""
    if op == "<=":
        return lo > bound
    if op == ">=":
        return hi < bound
    return bound < lo or bound > hi


def not_available(target, why):
    return {"target": target, "status": "not available", "measured": why}


# ---------------------------------------------------------------- as text

def number(x):
    """A figure for a table cell: thousands grouped, three decimals below 10."""
    if float(x).is_integer():
        return f"{int(x):,}"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.3f}"


def _rounds_text(v):
    n, planned, failed = v.get("rounds", 0), v.get("rounds_planned"), v.get("failed_rounds") or 0
    text = f"{n} round" + ("" if n == 1 else "s")
    if planned is not None and planned != n:
        text = f"{n} of {planned} rounds"
    if failed:
        text += f", {failed} failed"
    other = (planned or 0) - n - failed
    if other > 0:
        text += f", {other} without a value"
    return text


def interval_text(v):
    """The figure and its interval in one cell, e.g.
    '1.031 in [0.990; 1.062] (94%), 5 rounds' (parse_interval_text reads it
    back); 'n/a' for a verdict without rounds (an old or unavailable one)."""
    if "rule" not in v or v.get("status") == "not available":
        return "n/a"
    if v.get("estimate") is None:
        return "no value, " + _rounds_text(v)
    if v["rule"] == EVERY_ROUND:
        lo, hi = v["interval"]
        return f"every round in [{number(lo)}; {number(hi)}], " + _rounds_text(v)
    if v.get("interval") is None:
        return (f"{number(v['estimate'])}, no {LEVEL:.0%} interval from {v['rounds']} rounds "
                f"({rounds_needed()} needed), " + _rounds_text(v))
    lo, hi = v["interval"]
    return (f"{number(v['estimate'])} in [{number(lo)}; {number(hi)}] ({v['coverage']:.0%}), "
            + _rounds_text(v))


_NUM = r"-?[\d,]+(?:\.\d+)?"
_ROUNDS = r"(?P<n>\d+) (?:of (?P<planned>\d+) )?rounds?(?:, (?P<failed>\d+) failed)?(?:, \d+ without a value)?"
_FORMS = [
    (MEDIAN, re.compile(rf"^(?P<est>{_NUM}) in \[(?P<lo>{_NUM}); (?P<hi>{_NUM})\] \((?P<cov>\d+)%\), {_ROUNDS}$")),
    (MEDIAN, re.compile(rf"^(?P<est>{_NUM}), no \d+% interval from \d+ rounds \(\d+ needed\), {_ROUNDS}$")),
    (EVERY_ROUND, re.compile(rf"^every round in \[(?P<lo>{_NUM}); (?P<hi>{_NUM})\], {_ROUNDS}$")),
]


def parse_interval_text(text):
    """The rule, estimate, interval, coverage and round counts of an
    interval_text cell (figures as rounded there); {} when it is not one."""
    for rule, form in _FORMS:
        m = form.match(text.strip())
        if not m:
            continue
        g = m.groupdict()

        def num(key):
            return float(g[key].replace(",", "")) if g.get(key) else None

        out = {"rule": rule, "rounds": int(g["n"]), "failed_rounds": int(g["failed"] or 0)}
        out["rounds_planned"] = int(g["planned"]) if g["planned"] else out["rounds"] + out["failed_rounds"]
        if g.get("lo") is not None:
            out["interval"] = [num("lo"), num("hi")]
        out["estimate"] = num("est") if g.get("est") else None
        out["coverage"] = int(g["cov"]) / 100 if g.get("cov") else (1.0 if rule == EVERY_ROUND else None)
        return out
    return {}
