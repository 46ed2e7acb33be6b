"""`GET profile/overview` (our addition): one page of numbers and hints for a device.

An Ascend rank (ASCEND_PROFILER_OUTPUT with NPU tables) is answered by ascend_overview.py. Otherwise: total op
time and op types come from `cpu_op_type_info`; steps from `cpu_op_execute_timestamp` (see steps.py);
the wall-clock span from the steps, else from the trace; host memory peaks from `cpu_ms_memory_record`.
"""

from __future__ import annotations

import statistics
from typing import Any

from mindinsight_clone.analyzers.profiler import ascend_ops, ascend_overview, memory, steps, timeline
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.analyzers.profiler.numbers import fmt
from mindinsight_clone.analyzers.profiler.op_stats import load_table
from mindinsight_clone.errors import ProfilerFileNotFoundError

TOP_N = 5
DOMINANT_SHARE = 50.0  # percent of op time
WARMUP_FACTOR = 3.0
HOST_BOUND_SHARE = 0.5  # of wall time outside operators


def _hint(code: str, message: str, **args: Any) -> dict[str, Any]:
    """A hint: its code, the English sentence, and the values the sentence names (`args`), so a client can say
    it in its own language."""
    return {"code": code, "message": message, "args": args}


def _hints(top: list[dict[str, Any]], step_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    hints: list[dict[str, Any]] = []
    if top and top[0]["percent"] >= DOMINANT_SHARE:
        name, share = top[0]["op_type"], top[0]["percent"]
        hints.append(_hint("dominant_op_type", f"{name} takes {share}% of operator time: "
                                               "optimise or fuse this operator type first.",
                           op_type=name, percent=share))
    if len(step_rows) >= 3:
        durations = [s["duration_us"] for s in step_rows]
        rest = statistics.median(durations[1:])
        if rest > 0 and durations[0] > WARMUP_FACTOR * rest:
            hints.append(_hint("first_step_slow", "The first profiled step is much slower than the others "
                                                  "(graph compilation / warm-up): leave it out when comparing.",
                               first_us=durations[0], median_us=rest))
    if step_rows:
        wall = step_rows[-1]["start_us"] + step_rows[-1]["duration_us"]
        busy = sum(s["compute_us"] for s in step_rows)
        if wall > 0 and 1 - busy / wall >= HOST_BOUND_SHARE:
            idle = round((1 - busy / wall) * 100, 1)
            hints.append(_hint("host_bound", f"{idle}% of the profiled wall time has no operator running: check the "
                                             "data pipeline (num_parallel_workers, prefetch) and Python overhead.",
                               percent=idle))
    elif not top:
        hints.append(_hint("no_op_data", "No operator statistics were written for this device."))
    if 0 < len(step_rows) < 3:
        hints.append(_hint("few_steps", "Fewer than 3 steps were profiled: figures may be dominated by warm-up.",
                           steps=len(step_rows)))
    return hints


def overview(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    device = pdir.device(device_id)
    if device is not None and pdir.layout == "ms2" and ascend_ops.is_ascend(device):
        return ascend_overview.overview(pdir, device, cache)  # the same fields from the Ascend tables
    table = load_table("cpu_op_type", device, cache)
    op_total = sum(row[3] for row in table.rows)
    ranked = sorted(table.rows, key=lambda row: row[3], reverse=True)
    top = [{"op_type": r[0], "total_time_us": r[3], "percent": fmt(r[3] / op_total * 100) if op_total else 0.0,
            "occurrences": r[1]} for r in ranked[:TOP_N]]
    step_list, exec_total = steps.load_steps(device, cache)
    step_rows = steps.steps_json(step_list)
    if step_rows:
        wall = step_rows[-1]["start_us"] + step_rows[-1]["duration_us"]
    else:
        trace = timeline.trace_for(device, cache)
        wall = timeline.summary(trace)["total_time"] * 1000.0 if trace is not None else 0.0
    durations = [s["duration_us"] for s in step_rows]
    try:
        mem = memory.memory_usage(device, max_points=1, cache=cache)
        peaks: dict[str, Any] | None = {k: mem[k] for k in ("peak_allocated_bytes", "peak_reserved_bytes",
                                                             "peak_active_bytes")}
    except ProfilerFileNotFoundError:
        peaks = None
    return {
        "device_id": device_id,
        "device_type": pdir.device_type,
        "layout": pdir.layout,
        "profiler_mode": pdir.profiler_mode,
        "total_time_us": round(float(wall), 3),
        "op_total_time_us": fmt(op_total) if op_total else round(exec_total, 3),
        "step_count": len(step_rows),
        "avg_step_time_us": round(statistics.fmean(durations), 3) if durations else None,
        "median_step_time_us": round(statistics.median(durations), 3) if durations else None,
        "steps": step_rows,
        "top_op_types": top,
        "memory": peaks,
        "hints": _hints(top, step_rows),
    }
