"""Slow ranks by voting over collective operators (msprof-analyze's `slow_rank` cluster recipe, restated).

The ranks of one collective operator (same group, same operator name, same step) finish it at about the same time,
and the ranks that arrived early wait for the last one. So the rank whose copy of the operator is abnormally
*short* is the one the others waited for: it gets a vote. Abnormally short is decided per operator over its ranks'
elapse times:

* up to `MAX_DIXON` ranks: Dixon's Q test at 99.5 % (one-sided, the lowest value; r10 for n ≤ 7, r11 for n ≤ 10,
  r21 for n ≤ 13, r22 above), and no outlier when the times hold fewer than 4 distinct values (msprof-analyze's
  guard against a zero denominator, which also means 3 ranks never vote);
* more ranks: three standard deviations (population σ): every time below mean − 3σ, plus the shortest when the
  longest is above mean + 3σ.

Point-to-point operators (names with `send` / `receive`) are left out, and so is a whole group whose operators were
not reported by the same number of ranks (some rank's data is missing, so the group cannot be compared). Pure
functions over plain rows: the caller loads communication.json of every rank (communication.py).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# One-sided Dixon critical values at 99.5 % for n = 3..100 (the table msprof-analyze uses, dixon_table.py).
_DIXON_995 = (
    0.994, 0.920, 0.823, 0.744, 0.680, 0.723, 0.676, 0.638, 0.707, 0.675, 0.649, 0.672, 0.649, 0.629, 0.611, 0.595,
    0.580, 0.568, 0.556, 0.545, 0.536, 0.526, 0.519, 0.510, 0.503, 0.496, 0.489, 0.484, 0.478, 0.473, 0.468, 0.463,
    0.458, 0.454, 0.450, 0.446, 0.442, 0.439, 0.435, 0.432, 0.429, 0.425, 0.423, 0.420, 0.417, 0.414, 0.412, 0.409,
    0.407, 0.405, 0.402, 0.400, 0.398, 0.396, 0.394, 0.392, 0.391, 0.388, 0.387, 0.385, 0.383, 0.382, 0.380, 0.379,
    0.377, 0.376, 0.374, 0.372, 0.371, 0.370, 0.368, 0.368, 0.366, 0.365, 0.364, 0.363, 0.361, 0.360, 0.359, 0.358,
    0.356, 0.356, 0.355, 0.353, 0.352, 0.352, 0.351, 0.350, 0.349, 0.348, 0.347, 0.346, 0.345, 0.344, 0.344, 0.343,
    0.341, 0.341,
)
DIXON_CRITICAL = {n: q for n, q in enumerate(_DIXON_995, start=3)}
MAX_DIXON = 100
SIGMAS = 3.0
MIN_DISTINCT = 4
P2P_MARKERS = ("send", "receive")


def dixon_low_outlier(values: Sequence[float]) -> int | None:
    """Index of the lowest value when Dixon's Q test (99.5 %) calls it an outlier, else None."""
    n = len(values)
    if n < 3 or n > MAX_DIXON or len(set(values)) < MIN_DISTINCT:
        return None
    x = sorted(values)
    if n <= 7:
        gap, spread = x[1] - x[0], x[-1] - x[0]
    elif n <= 10:
        gap, spread = x[1] - x[0], x[-2] - x[0]
    elif n <= 13:
        gap, spread = x[2] - x[0], x[-2] - x[0]
    else:
        gap, spread = x[2] - x[0], x[-3] - x[0]
    if spread <= 0 or gap / spread <= DIXON_CRITICAL[n]:
        return None
    return list(values).index(x[0])


def sigma_low_outliers(values: Sequence[float], sigmas: float = SIGMAS) -> list[int]:
    """Indices below mean − 3σ, plus the lowest one when the highest is above mean + 3σ (msprof-analyze's rule)."""
    if not values:
        return []
    arr = np.asarray(values, dtype=np.float64)
    mean, std = float(arr.mean()), float(arr.std())
    out = [int(i) for i in np.flatnonzero(arr < mean - sigmas * std)]
    if float(arr.max()) > mean + sigmas * std:
        low = int(np.argmin(arr))
        if low not in out:
            out.append(low)
    return out


def low_outliers(values: Sequence[float]) -> list[int]:
    """The slow-rank test of one operator: Dixon for few ranks, 3σ for many."""
    if len(values) <= MAX_DIXON:
        found = dixon_low_outlier(values)
        return [] if found is None else [found]
    return sigma_low_outliers(values)


def test_name(n: int) -> str:
    return f"Dixon Q (99.5 %, Q > {DIXON_CRITICAL[n]})" if 3 <= n <= MAX_DIXON else (
        "3σ" if n > MAX_DIXON else "none (fewer than 3 ranks)")


@dataclass(frozen=True)
class CollectiveTime:
    """One rank's copy of one collective operator."""

    rank: int
    group: str
    step: Any
    name: str
    elapse_ms: float


@dataclass
class Votes:
    votes: Counter[int] = field(default_factory=Counter)
    tested: int = 0  # operators with enough ranks to test
    ops: list[dict[str, Any]] = field(default_factory=list)  # the operators that voted, with their times
    excluded_groups: list[str] = field(default_factory=list)


def _is_p2p(name: str) -> bool:
    lower = name.lower()
    return any(m in lower for m in P2P_MARKERS)


def vote(times: Iterable[CollectiveTime]) -> Votes:
    """Votes per rank over every collective operator (see the module doc)."""
    per_op: dict[str, dict[tuple[Any, str], list[CollectiveTime]]] = defaultdict(lambda: defaultdict(list))
    for t in times:
        if not _is_p2p(t.name):
            per_op[t.group][(t.step, t.name)].append(t)
    result = Votes()
    for group in sorted(per_op):
        ops = per_op[group]
        if len({len(v) for v in ops.values()}) > 1:  # some rank lacks some operator: not comparable
            result.excluded_groups.append(group)
            continue
        for (step, name), copies in ops.items():
            if len(copies) < 3:
                continue
            result.tested += 1
            values = [c.elapse_ms for c in copies]
            for index in low_outliers(values):
                rank = copies[index].rank
                result.votes[rank] += 1
                result.ops.append({"group": group, "step": step, "name": name, "slow_rank": rank,
                                   "elapse_ms": values[index], "median_ms": float(np.median(values)),
                                   "ranks": len(values), "test": test_name(len(values))})
    return result
