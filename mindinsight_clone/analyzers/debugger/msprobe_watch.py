"""MindInsight's watchpoint conditions evaluated on msprobe's dump statistics (issue 35), without reading a tensor.

msprobe writes, per tensor slot of every node, `Max`, `Min`, `Mean` and `Norm` (L2) — nothing else. The condition
names, parameter names, defaults and value checks are conditions.py's (MindInsight's); what those four figures can
answer is evaluated, what they cannot is refused with a reason (a request naming it: DebuggerParamValueError, 400)
and listed in every answer's `unsupported`:

* `nan_or_inf`: any of Max / Min / Mean / Norm is NaN or ±Inf (MindSpore's CPU Max/Min skip NaN elements, so all
  four are looked at, as the first-anomaly search does);
* `too_large` / `too_small`: `max_gt`, `min_gt`, `mean_gt` (`_lt`) on Max / Min / Mean, strictly above (below);
  `abs_mean_gt` / `abs_mean_lt` are not computable (the mean of |x| is not among the statistics);
* `all_zero`: Max = Min = 0 and Mean = Norm = 0 (where written) — every element is 0; only
  `zero_percentage_ge` = 100 (its default) is derivable, a smaller share is not;
* `range`: `max_min_lt` / `max_min_gt` on Max − Min; the `range_*` share of elements needs the values;
* `not_changed` (an approximation): each of the four statistics within atol + rtol·|previous| of the previous
  dumped step's — necessary for an unchanged tensor, not sufficient;
* `change_too_large` / `change_too_small`: |Norm − previous Norm| / (|previous Norm| + epsilon) above / below
  `abs_mean_update_ratio_gt` / `_lt`. MindInsight's ratio is mean|x − p| / (mean|p| + ε) over the values; this one
  is a lower bound of ‖x − p‖ / ‖p‖ (triangle inequality): a change that keeps the norm is not seen.

"Previous" is the same rank's previous dumped step, same node name, io and index (msprobe's call counters restart
every step, so a node keeps its name across steps). Per dump.json, the slots' statistics become one numpy table
(parsed once, cached; ~45 bytes a slot) and every condition is a few array operations over all its slots.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.debugger import conditions as cond
from mindinsight_clone.analyzers.debugger import msprobe_index
from mindinsight_clone.analyzers.debugger.msprobe_compare import stat_json
from mindinsight_clone.analyzers.debugger.msprobe_dumps import (
    MAX_ANOMALY_STEPS,
    MAX_LIMIT,
    MsprobeDumps,
    StepRank,
    rank_name,
)
from mindinsight_clone.analyzers.debugger.msprobe_index import StatsTable, stats_table
from mindinsight_clone.errors import DebuggerDumpNotExistError, DebuggerParamValueError, ParamValueError
from mindinsight_clone.ingest import msprobe_dump
from mindinsight_clone.ingest.msprobe_dump import DumpFile
from mindinsight_clone.ingest.storage import Location

STATS = ("max", "min", "mean", "norm")  # the table's columns, msprobe's Max / Min / Mean / Norm
MAX, MIN, MEAN, NORM = range(4)
MAX_WATCH_STEPS = MAX_ANOMALY_STEPS  # steps looked at per rank (a bound, said in the answer)

_NO_ABS_MEAN = "msprobe writes Max, Min, Mean and Norm: the mean of |x| is not among them"
_NO_SHARE = "the share of elements within a range needs the tensor's values; msprobe's statistics do not hold it"
UNSUPPORTED: dict[tuple[str, str], str] = {
    ("too_large", "abs_mean_gt"): _NO_ABS_MEAN,
    ("too_small", "abs_mean_lt"): _NO_ABS_MEAN,
    ("all_zero", "zero_percentage_ge"): "only 100 (every element 0: Max = Min = Mean = Norm = 0) is derivable from "
                                        "the statistics; a smaller share of zeros is not",
    **{("range", p): _NO_SHARE for p in ("range_start_inclusive", "range_end_inclusive", "range_percentage_lt",
                                         "range_percentage_gt")},
}
PARTLY = {("all_zero", "zero_percentage_ge"): 100.0}  # a parameter usable at this value only

DEFINITIONS = {
    "nan_or_inf": "Any of msprobe's Max, Min, Mean, Norm is NaN or ±Inf (MindSpore's CPU Max/Min skip NaN "
                  "elements: all four are looked at).",
    "too_large": "max_gt / min_gt / mean_gt: msprobe's Max / Min / Mean strictly above the threshold (any triggers). "
                 "abs_mean_gt is not computable from msprobe's statistics.",
    "too_small": "max_lt / min_lt / mean_lt: msprobe's Max / Min / Mean strictly below the threshold (any triggers). "
                 "abs_mean_lt is not computable from msprobe's statistics.",
    "all_zero": "Every element 0: Max = Min = 0 and Mean = Norm = 0 where written (a NaN element would make Mean "
                "NaN). Only zero_percentage_ge = 100 is derivable.",
    "range": "max_min_lt / max_min_gt: Max − Min below / above the threshold. The range_* share of elements needs "
             "the values and is not computable from msprobe's statistics.",
    "not_changed": "Approximation: each of Max, Min, Mean, Norm within atol + rtol·|previous| of the same rank's "
                   "previous dumped step (same node, io, index); NaN is never close. Necessary for an unchanged "
                   "tensor, not sufficient: elements that moved while keeping these four figures also hit. "
                   "actual.rtol: the smallest rtol under which all four would still be close.",
    "change_too_large": "|Norm − previous Norm| / (|previous Norm| + epsilon) > abs_mean_update_ratio_gt, previous "
                        "= the same rank's previous dumped step (same node, io, index). MindInsight's ratio, "
                        "mean|x − p| / (mean|p| + ε), needs the values; this one is a lower bound of ‖x − p‖ / ‖p‖ "
                        "(triangle inequality): a change that keeps the norm is not seen.",
    "change_too_small": "|Norm − previous Norm| / (|previous Norm| + epsilon) < abs_mean_update_ratio_lt, previous "
                        "= the same rank's previous dumped step (same node, io, index). MindInsight's ratio needs "
                        "the values; a change that keeps the norm looks like no change here.",
}
_PREVIOUS = {"not_changed", "change_too_large", "change_too_small"}


# ---------------------------------------------------------------------------------------------- the table
def align(previous: StatsTable, current: StatsTable) -> np.ndarray:
    """For each slot of `current`, its row in `previous` (same node name, io and index), -1 where none."""
    if (len(previous) == len(current) and previous.names == current.names and previous.keys == current.keys
            and np.array_equal(previous.node, current.node) and np.array_equal(previous.code, current.code)):
        return np.arange(len(current), dtype=np.int64)  # the usual case: the same calls in the same order
    where = {name: i for i, name in enumerate(previous.names)}
    node_map = np.array([where.get(name, -1) for name in current.names], dtype=np.int64)
    prev_codes = {key: i for i, key in enumerate(previous.keys)}
    code_map = np.array([prev_codes.get(key, -1) for key in current.keys], dtype=np.int64)
    width = max(len(previous.keys), 1)
    prev_keys = previous.node.astype(np.int64) * width + previous.code
    node = node_map[current.node] if len(current) else np.zeros(0, np.int64)
    code = code_map[current.code] if len(current) else np.zeros(0, np.int64)
    wanted = node * width + code
    order = np.argsort(prev_keys, kind="stable")
    ordered = prev_keys[order]
    pos = np.minimum(np.searchsorted(ordered, wanted), max(len(ordered) - 1, 0))
    found = (node >= 0) & (code >= 0) & (len(ordered) > 0)
    if len(ordered):
        found &= ordered[pos] == wanted
    return np.where(found, order[pos] if len(ordered) else -1, -1).astype(np.int64)


# ---------------------------------------------------------------------------------------------- conditions
def checked(condition_id: Any, given: Mapping[str, Any]) -> tuple[cond.Condition, dict[str, float]]:
    """conditions.checked_params (MindInsight's errors), then what msprobe's statistics cannot answer refused.
    Query-string values arrive as text: numbers are read here; anything else is refused by the check."""
    numbers = {k: _number(v) for k, v in given.items()}
    condition, values = cond.checked_params(condition_id, numbers)
    for name, value in values.items():
        reason = UNSUPPORTED.get((condition.id, name))
        if reason is None:
            continue
        if PARTLY.get((condition.id, name)) == value:
            continue
        raise DebuggerParamValueError(f"{condition.id}.{name} cannot be evaluated on msprobe statistics: {reason}")
    return condition, values


def _number(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return float(raw)
        except ValueError:
            return raw
    return raw


def unsupported(condition_id: str | None = None) -> list[dict[str, Any]]:
    return [{"condition": c, "param": p, "reason": r, **({"only": PARTLY[(c, p)]} if (c, p) in PARTLY else {})}
            for (c, p), r in UNSUPPORTED.items() if condition_id is None or c == condition_id]


def describe() -> dict[str, Any]:
    """The conditions with the parameters msprobe's statistics support (for the UI's form), and what they do not."""
    out = []
    for c in cond.CONDITIONS.values():
        params = [cond.param_json(p) for p in c.params
                  if (c.id, p.name) not in UNSUPPORTED or (c.id, p.name) in PARTLY]
        out.append({"id": c.id, "mindinsight": c.mindinsight, "previous": c.id in _PREVIOUS,
                    "definition": DEFINITIONS[c.id], "params": params})
    return {"conditions": out, "unsupported": unsupported()}


@dataclass(frozen=True, slots=True)
class Found:
    """The hits of one table: rows, the triggered parameters' actual values (NaN: not triggered) and, for the
    conditions over two steps, each hit's row in the previous table."""

    rows: np.ndarray
    actual: dict[str, np.ndarray]
    previous_rows: np.ndarray | None = None


def evaluate(condition: str, params: Mapping[str, float], table: StatsTable,
             previous: StatsTable | None = None) -> Found:
    """The slots of `table` that hit (conditions over two steps: against `previous`; none without one)."""
    v, ok = table.values, table.present
    empty = Found(np.zeros(0, np.int64), {})
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if condition == "nan_or_inf":
            return Found(np.flatnonzero((ok & ~np.isfinite(v)).any(axis=1)), {})
        if condition in ("too_large", "too_small"):
            figures = {"max": v[:, MAX], "min": v[:, MIN], "mean": v[:, MEAN]}
            return _thresholds(params, figures)
        if condition == "all_zero":
            zero = ok[:, MAX] & ok[:, MIN] & (v[:, MAX] == 0) & (v[:, MIN] == 0) & \
                (~ok[:, MEAN] | (v[:, MEAN] == 0)) & (~ok[:, NORM] | (v[:, NORM] == 0))
            rows = np.flatnonzero(zero)
            return Found(rows, {"zero_percentage_ge": np.full(len(rows), 100.0)})
        if condition == "range":
            return _thresholds({k: t for k, t in params.items() if k.startswith("max_min_")},
                               {"max_min": v[:, MAX] - v[:, MIN]})
        if condition not in _PREVIOUS:
            raise DebuggerParamValueError(f"{condition} is not evaluated on msprobe statistics")
        if previous is None or not len(table):
            return empty
        at = align(previous, table)
        matched = np.flatnonzero(at >= 0)
        p_rows = at[matched]
        x, p = v[matched], previous.values[p_rows]
        x_ok, p_ok = ok[matched], previous.present[p_rows]
        if condition == "not_changed":
            close = (x_ok & p_ok & (np.abs(x - p) <= params["atol"] + params["rtol"] * np.abs(p))) | (~x_ok & ~p_ok)
            hit = close.all(axis=1) & (x_ok & p_ok).any(axis=1)
            excess = np.maximum(np.abs(x - p) - params["atol"], 0.0)  # the smallest rtol that keeps them close
            needed = np.where(x_ok & p_ok & (excess > 0), excess / np.abs(p), 0.0)
            ratio = needed.max(axis=1) if len(x) else np.zeros(0)
            return Found(matched[hit], {"rtol": ratio[hit]}, p_rows[hit])
        norm, before = x[:, NORM], p[:, NORM]
        both = x_ok[:, NORM] & p_ok[:, NORM]
        ratio = np.abs(norm - before) / (np.abs(before) + params["epsilon"])
        name = "abs_mean_update_ratio_gt" if condition == "change_too_large" else "abs_mean_update_ratio_lt"
        threshold = params[name]
        hit = both & ((ratio > threshold) if name.endswith("_gt") else (ratio < threshold))
        return Found(matched[hit], {name: ratio[hit]}, p_rows[hit])


def _thresholds(params: Mapping[str, float], figures: Mapping[str, np.ndarray]) -> Found:
    """Any of `<figure>_gt` / `<figure>_lt` triggers (NaN never compares, as in conditions._compare)."""
    masks: dict[str, np.ndarray] = {}
    for name, threshold in params.items():
        figure = figures.get(name[:-3])
        if figure is None:
            continue
        masks[name] = figure > threshold if name.endswith("_gt") else figure < threshold
    if not masks:
        return Found(np.zeros(0, np.int64), {})
    rows = np.flatnonzero(np.logical_or.reduce(list(masks.values())))
    actual = {name: np.where(mask[rows], figures[name[:-3]][rows], np.nan) for name, mask in masks.items()}
    return Found(rows, actual)


# ---------------------------------------------------------------------------------------------- over a dump
def table_of(dumps: MsprobeDumps, place: StepRank) -> StatsTable:
    """The table of a step/rank's dump.json, cached by path, mtime and size, in memory and as Parquet in the
    workspace (msprobe_index: a restart or another replica reads it instead of the dump.json). Built from the parsed
    entries when the node browser has them cached, else from a parse that is not kept (a table weighs ~1/10 of the
    entries: a check over many steps keeps tables, not entries). A step folder without dump.json yet: an empty
    table."""
    location = place.location / msprobe_dump.DUMP_JSON

    def build(at: Location) -> StatsTable:
        parsed = dumps.cache.peek("msprobe-dump", at)
        return stats_table(parsed if isinstance(parsed, DumpFile) else msprobe_dump.read_dump_json(at))
    try:
        return dumps.cache.get("msprobe-stats-table", location, build, codec=msprobe_index.STATS_CODEC)
    except FileNotFoundError:
        return stats_table(DumpFile(None, None, None, None, [], complete=False, size=0))


def watch(dumps: MsprobeDumps, dump_id: str, condition_id: Any, given: Mapping[str, Any], step: int | None = None,
          rank: str | None = None, offset: int = 0, limit: int = 100) -> dict[str, Any]:
    """`{"condition", "params", "definition", "total", "hits": [{"rank", "step", "node", "io", "index", "actual",
    "max", "min", "mean", "norm"[, "previous_step", "previous"]}], "unsupported", ...}`: every step × rank of a
    dump (or the given step and/or rank), hits in execution order, earliest step first (then ranks in order)."""
    condition, params = checked(condition_id, given)
    if offset < 0 or not 0 < limit <= MAX_LIMIT:
        raise ParamValueError(f"'offset' should be >= 0 and 'limit' between 1 and {MAX_LIMIT}.")
    places = dumps.layout(dumps.root(dump_id))
    wanted_rank = rank_name(rank)
    if wanted_rank is not None:
        places = [p for p in places if p.rank == wanted_rank]
    per_rank: dict[str, int] = {}
    kept: list[StepRank] = []
    for place in places:  # at most MAX_WATCH_STEPS steps per rank
        per_rank[place.rank] = per_rank.get(place.rank, 0) + 1
        if per_rank[place.rank] <= MAX_WATCH_STEPS:
            kept.append(place)
    chosen = [p for p in kept if step is None or msprobe_dump.step_of(p.step) == step]
    if not chosen:
        wanted = [f"step {step}"] * (step is not None) + [f"rank {rank}"] * bool(rank)
        raise DebuggerDumpNotExistError(f"{dump_id} has no {' '.join(wanted) or 'step folder yet'}")
    needs_previous = condition.id in _PREVIOUS
    previous_of: dict[str, StepRank] = {}  # rank -> its dumped step before the one being looked at
    if needs_previous and step is not None:
        for place in kept:
            if (msprobe_dump.step_of(place.step) or 0) < step:
                previous_of[place.rank] = place
    last: dict[str, tuple[StepRank, StatsTable]] = {}
    total = 0
    hits: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    incomplete: list[str] = []
    for place in chosen:
        if (condition.id == "nan_or_inf" and not _may_be_bad(dumps, place)):
            continue  # no nan/inf in its bytes: not parsed (as the first-anomaly search)
        try:
            table = table_of(dumps, place)
        except (OSError, ValueError) as exc:
            skipped.append({"step": place.step, "rank": place.rank, "reason": str(exc)})
            last.pop(place.rank, None)
            continue
        if not table.complete and len(table):
            incomplete.append(f"{place.step}/{place.rank}")
        before = last.get(place.rank)
        if needs_previous and before is None and place.rank in previous_of:
            try:
                prev_place = previous_of[place.rank]
                before = (prev_place, table_of(dumps, prev_place))
            except (OSError, ValueError):
                before = None
        found = evaluate(condition.id, params, table, before[1] if before else None)
        if needs_previous:
            last[place.rank] = (place, table)
        count = len(found.rows)
        start, stop = max(offset - total, 0), min(offset + limit - total, count)
        if start < stop:
            hits += _hits_json(place, table, found, before, start, stop)
        total += count
    return {"dump_id": dump_id, "condition": condition.id, "params": params, "definition": DEFINITIONS[condition.id],
            "total": total, "offset": offset, "hits": hits, "unsupported": unsupported(condition.id),
            "skipped": skipped, "incomplete": incomplete,
            "steps_looked_at": min(MAX_WATCH_STEPS, max(per_rank.values(), default=0))}


def _may_be_bad(dumps: MsprobeDumps, place: StepRank) -> bool:
    location = place.location / msprobe_dump.DUMP_JSON
    try:
        return bool(dumps.cache.get("msprobe-maybe-bad", location, msprobe_dump.may_hold_non_finite, weight=1))
    except OSError:
        return True  # missing (being written) or unreadable: the table says so


def _hits_json(place: StepRank, table: StatsTable, found: Found, before: tuple[StepRank, StatsTable] | None,
               start: int, stop: int) -> list[dict[str, Any]]:
    out = []
    step = msprobe_dump.step_of(place.step)
    for k in range(start, stop):
        row = int(found.rows[k])
        io, index = table.keys[int(table.code[row])]
        stats = _stats(table, row)
        if found.actual:
            actual = {name: stat_json(float(a[k])) for name, a in found.actual.items() if not np.isnan(a[k])}
        else:  # nan_or_inf: the non-finite statistics
            actual = {name: value for name, value in stats.items() if isinstance(value, str)}
        hit = {"rank": place.rank, "step": step, "node": table.names[int(table.node[row])], "io": io, "index": index,
               "actual": actual, **stats}
        if found.previous_rows is not None and before is not None:
            hit["previous_step"] = msprobe_dump.step_of(before[0].step)
            hit["previous"] = _stats(before[1], int(found.previous_rows[k]))
        out.append(hit)
    return out


def _stats(table: StatsTable, row: int) -> dict[str, Any]:
    return {name: stat_json(float(table.values[row, i])) if table.present[row, i] else None
            for i, name in enumerate(STATS)}
