"""`profile/compare`: one rank against a base rank (two ranks of one job, or ranks of two jobs), as MindStudio
Insight's Compare and the TensorBoard plugin's Diff show it.

* `op_types`: per operator type (its cores summed: the table ops/search answers as `aicore_type` + `aicpu_type`,
  from op_statistic.csv or kernel_details.csv), `count` / `total_us` of the rank, `base_count` / `base_total_us` of
  the base, `diff_us` = total_us − base_total_us; a type only one side has counts 0 on the other. Largest |diff_us|
  first (then by name).
* `steps`: each step_trace_time field as means over the steps of each side: `{value, base, diff}` (µs), plus
  `step_total_us` (computing + communication not overlapped + free) and `step_count`. Totals are not scaled to
  the number of steps: compare profiles of the same number of steps, or read the step means.

A table one side cannot give (file missing or unreadable) answers empty and is named in `problems` with its side.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters.ascend_text.ascend_text_steps import FIELDS, PHASES
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.analyzers.profiler.views import ascend_ops, cluster_steps
from mindinsight_clone.errors import MindInsightError

SIDES = ("value", "base")


def op_type_totals(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, tuple[int, float]]:
    """op_type -> (count, total µs) over every core the type ran on."""
    cols = list(ascend_ops.TYPE_COLUMNS)
    name, count, total = cols.index("op_type"), cols.index("execution_frequency"), cols.index("total_time_us")
    out: dict[str, tuple[int, float]] = {}
    for kind in ("aicore_type", "aicpu_type"):
        for row in ascend_ops.types(device, kind, {}, cache)["object"]:
            old = out.get(row[name], (0, 0.0))
            out[row[name]] = (old[0] + int(row[count] or 0), old[1] + float(row[total] or 0.0))
    return out


def diff_op_types(value: dict[str, tuple[int, float]], base: dict[str, tuple[int, float]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for op_type in sorted(set(value) | set(base)):
        count, total = value.get(op_type, (0, 0.0))
        base_count, base_total = base.get(op_type, (0, 0.0))
        rows.append({"op_type": op_type, "count": count, "total_us": round(total, 3), "base_count": base_count,
                     "base_total_us": round(base_total, 3), "diff_us": round(total - base_total, 3)})
    rows.sort(key=lambda r: (-abs(r["diff_us"]), r["op_type"]))
    return rows


def step_means(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    steps, _ = rank_tables.load("steps", device, cache)
    means = cluster_steps.average(steps)
    totals = [s["total_us"] for s in steps if s.get("total_us") is not None]  # an old-layout step trace's own total
    if any(means[p] is not None for p in PHASES):
        means["step_total_us"] = cluster_steps.step_total(means)
    else:  # no phase split written (an old-layout single rank): its step trace's total, else nothing
        means["step_total_us"] = sum(totals) / len(totals) if totals else None
    means["step_count"] = len(steps)
    return means


def diff_steps(value: dict[str, Any], base: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for key in (*FIELDS, "step_total_us", "step_count"):
        a, b = value.get(key), base.get(key)
        out[key] = {"value": a, "base": b, "diff": None if a is None or b is None else round(a - b, 3)}
    return out


def compare(device: DeviceFiles, base: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    problems: list[dict[str, Any]] = []
    types: dict[str, dict[str, tuple[int, float]]] = {}
    means: dict[str, dict[str, Any]] = {}
    for side, dev in zip(SIDES, (device, base), strict=True):
        try:
            types[side] = op_type_totals(dev, cache)
        except MindInsightError as err:
            problems.append({"side": side, "rank_id": int(dev.device_id), "file": ascend_ops.types_label(dev),
                             "message": err.message})
        try:
            means[side] = step_means(dev, cache)
        except MindInsightError as err:
            problems.append({"side": side, "rank_id": int(dev.device_id), "file": rank_tables.source("steps", dev),
                             "message": err.message})
    answer: dict[str, Any] = {
        "op_types": diff_op_types(types["value"], types["base"]) if len(types) == 2 else [],
        "steps": diff_steps(means["value"], means["base"]) if len(means) == 2 else {},
    }
    return with_problems(answer, problems)
