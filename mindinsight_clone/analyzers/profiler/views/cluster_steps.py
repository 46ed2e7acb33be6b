"""`profile/cluster-step-trace`: every rank's step time split (means over its steps) and the slow ranks among peers.

Slow ranks (the rule, also in docs/profiler.md):

* a rank's step time is the stacked bar: computing + communication not overlapped + free (means over its steps);
* a rank is compared with its peers only: the ranks of its pipeline stage (stages.py), or every rank when the job
  gives no stage information. Ranks of different stages differ by design (other layers, bubbles);
* a rank is slow when its step time exceeds the median of its peers' by more than `TOLERANCE` (5 %). A rank whose
  step time is within tolerance is never slow, however its phases split: in a synchronous job the ranks that wait
  in a collective show communication where the slow one shows computing, with the same step time;
* its slow phase is the one above the peers' median of that phase by the most µs; `deviation` is that excess over
  the phase median, `step_deviation` the step time's excess over the peers' median step time.

Stages are only looked up when the step times of all ranks spread by more than the tolerance (otherwise no rank
can be slow in any grouping), so the common case reads step_trace_time.csv only.
"""

from __future__ import annotations

import statistics
from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters.ascend_text.ascend_text_steps import FIELDS, PHASES
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.analyzers.profiler.views import stages
from mindinsight_clone.errors import MindInsightError

TOLERANCE = 0.05


def average(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Every step field averaged over the steps that have it (None when none has)."""
    out: dict[str, Any] = {}
    for key in FIELDS:
        values = [s[key] for s in steps if s[key] is not None]
        out[key] = sum(values) / len(values) if values else None
    return out


def step_total(rank: dict[str, Any]) -> float:
    return float(sum(rank[p] or 0.0 for p in PHASES))


def spread_exceeds(totals: list[float], tolerance: float = TOLERANCE) -> bool:
    """Whether any grouping could hold a slow rank: max > min × (1 + tolerance)."""
    return len(totals) >= 2 and max(totals) > min(totals) * (1 + tolerance)


def slow_ranks(ranks: list[dict[str, Any]], groups: list[list[int]] | None = None,
               tolerance: float = TOLERANCE) -> list[dict[str, Any]]:
    """The rule in the module doc over per-rank means (`rank_id` and the PHASES keys); `groups` are the peer groups
    (default: all ranks)."""
    by_id = {r["rank_id"]: r for r in ranks}
    groups = groups if groups is not None else [sorted(by_id)]
    slow: list[dict[str, Any]] = []
    for index, group in enumerate(groups):
        peers = [by_id[r] for r in group if r in by_id]
        if len(peers) < 2:
            continue
        median_total = statistics.median(step_total(r) for r in peers)
        if median_total <= 0:
            continue
        medians = {p: statistics.median(r[p] or 0.0 for r in peers) for p in PHASES}
        for rank in peers:
            total = step_total(rank)
            if total <= median_total * (1 + tolerance):
                continue
            excess = {p: (rank[p] or 0.0) - medians[p] for p in PHASES}
            phase = max(PHASES, key=lambda p: excess[p])
            slow.append({"rank_id": rank["rank_id"], "phase": phase.removesuffix("_us"),
                         "deviation": round(excess[phase] / medians[phase], 4) if medians[phase] > 0 else None,
                         "excess_us": round(excess[phase], 3),
                         "step_deviation": round((total - median_total) / median_total, 4), "peer_group": index})
    return sorted(slow, key=lambda s: s["rank_id"])


def rank_means(pdir: ProfilerDir, cache: ParsedFileCache | None = None
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per rank the step fields averaged over its steps, and the problems; a rank whose file is missing or broken is
    named in the problems and left out."""
    ranks: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    pdir.prefetch_outputs()
    for device_id in pdir.device_ids:
        device = pdir.devices[device_id]
        try:
            steps, file_problems = rank_tables.load("steps", device, cache)
        except MindInsightError as err:
            problems.append({"rank_id": int(device_id), "file": rank_tables.source("steps", device),
                             "message": err.message})
            continue
        problems.extend({"rank_id": int(device_id), **p} for p in file_problems)
        if steps:
            ranks.append({"rank_id": int(device_id), **average(steps), "step_count": len(steps)})
    return ranks, problems


def peers_of(pdir: ProfilerDir, ranks: list[dict[str, Any]], cache: ParsedFileCache | None = None
             ) -> tuple[list[list[int]], str]:
    """The peer groups the rule uses: stages only when the step times spread beyond the tolerance."""
    ids = [r["rank_id"] for r in ranks]
    if not spread_exceeds([step_total(r) for r in ranks]):
        return [ids], stages.ALL_RANKS
    return stages.peer_groups(pdir, ids, cache)


def cluster_step_trace(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    ranks, problems = rank_means(pdir, cache)
    groups, source = peers_of(pdir, ranks, cache)
    answer: dict[str, Any] = {
        "ranks": ranks, "slow_ranks": slow_ranks(ranks, groups),
        "peers": {"source": source, "groups": groups},
        "rule": {"phases": [p.removesuffix("_us") for p in PHASES], "tolerance": TOLERANCE, "peers": source},
    }
    return with_problems(answer, problems)
