"""`profile/overview` of an Ascend rank: the CPU overview's fields, answered from the Ascend tables (the text
export's files named below, or the same tables of the database export, through the same loaders).

* steps from step_trace_time.csv: `duration_us` = computing + communication not overlapped + free (the step's
  split), `compute_us` = computing, plus `communication_not_overlapped_us` and `free_us`; `start_us` and
  `interval_us` are null (the file has no step start times);
* `top_op_types` and `op_total_time_us` from the operator-type table ops/search answers (cores summed);
* `memory`: the peaks of memory_record.csv in bytes (MB × 2^20), null without that file;
* `hints`: the advisor's per-rank findings for this rank (free time, AI CPU operators) as `{code, message,
  evidence}` (the finding's evidence, so a client can word it in its language).

A missing file leaves its part empty (null) and is named in `problems`.
"""

from __future__ import annotations

import statistics
from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import fmt, with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, ProfilerDir
from mindinsight_clone.analyzers.profiler.views import advice_rules, cluster_steps, compare, memory_record
from mindinsight_clone.analyzers.profiler.views.advice import aicpu_rows
from mindinsight_clone.errors import MindInsightError

TOP_N = 5
MIB = 1 << 20


def _steps(device: DeviceFiles, cache: ParsedFileCache | None) -> list[dict[str, Any]]:
    steps, _ = rank_tables.load("steps", device, cache)
    return [{"step": s["step"], "start_us": None, "duration_us": round(cluster_steps.step_total(s), 3),
             "compute_us": s["computing_us"], "interval_us": None,
             "communication_not_overlapped_us": s["communication_not_overlapped_us"], "free_us": s["free_us"]}
            for s in steps]


def _memory(device: DeviceFiles, cache: ParsedFileCache | None) -> dict[str, Any]:
    record = memory_record.memory_record(device, max_points=2, top=1, cache=cache)
    peaks = {"peak_allocated_bytes": record["peak_allocated_mb"], "peak_reserved_bytes": record["peak_reserved_mb"]}
    return {**{k: None if v is None else round(v * MIB) for k, v in peaks.items()}, "peak_active_bytes": None}


def overview(pdir: ProfilerDir, device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    rank = int(device.device_id)
    problems: list[dict[str, Any]] = []

    def part(name: str, action: Any, default: Any) -> Any:
        try:
            return action()
        except MindInsightError as err:
            problems.append({"part": name, "message": err.message})
            return default

    steps = part("steps", lambda: _steps(device, cache), [])
    types = part("top_op_types", lambda: compare.op_type_totals(device, cache), {})
    memory = part("memory", lambda: _memory(device, cache), None)
    op_total = sum(total for _, total in types.values())
    ranked = sorted(types.items(), key=lambda kv: (-kv[1][1], kv[0]))[:TOP_N]
    durations = [s["duration_us"] for s in steps]
    hints = []
    means = cluster_steps.average(rank_tables.load("steps", device, cache)[0]) if steps else None
    free = advice_rules.free_time([{"rank_id": rank, **means}]) if means else None
    aicpu = part("hints", lambda: advice_rules.aicpu({rank: aicpu_rows(device, cache)}), None) if types else None
    for found in (free, aicpu):
        if found:
            hints.append({"code": found["id"], "message": found["detail"], "evidence": found["evidence"]})
    answer: dict[str, Any] = {
        "device_id": device.device_id, "device_type": "ascend", "layout": pdir.layout,
        "profiler_mode": pdir.profiler_mode, "total_time_us": round(sum(durations), 3),
        "op_total_time_us": round(op_total, 3), "step_count": len(steps),
        "avg_step_time_us": round(statistics.fmean(durations), 3) if durations else None,
        "median_step_time_us": round(statistics.median(durations), 3) if durations else None,
        "steps": steps,
        "top_op_types": [{"op_type": name, "total_time_us": round(total, 3),
                          "percent": fmt(total / op_total * 100) if op_total else 0.0, "occurrences": count}
                         for name, (count, total) in ranked],
        "memory": memory, "hints": hints,
    }
    return with_problems(answer, problems)
