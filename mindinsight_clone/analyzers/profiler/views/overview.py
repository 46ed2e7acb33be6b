"""`GET profile/overview` (our addition): one page of numbers and hints for a device.

A rank whose format has the Ascend tables (rank_tables.py) is answered by ascend_overview.py; an old-layout rank
(MindSpore <= 2.2) from its AI Core / AI CPU type tables and its step trace (`_legacy_parts`). A host rank: total
op time and op types come from `cpu_op_type_info`; steps from `cpu_op_execute_timestamp` (see steps.py); the
wall-clock span from the steps, else from the trace; host memory peaks from `cpu_ms_memory_record`.
"""

from __future__ import annotations

import statistics
from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_ops
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import fmt
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, ProfilerDir
from mindinsight_clone.analyzers.profiler.views import ascend_overview, memory, steps, timeline
from mindinsight_clone.analyzers.profiler.views.op_stats import load_table
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


def _legacy_parts(pdir: ProfilerDir, device: DeviceFiles, cache: ParsedFileCache | None
                  ) -> tuple[list[tuple[str, float, int]], list[dict[str, Any]]]:
    """(op type, total µs, count) from the AI Core and AI CPU type tables, and the steps of the step trace: each
    step's device phase (fp+bp and tail; the cluster analyse file's computing when the trace has neither) and the
    iteration interval before it."""
    types = [(r[0], r[1], r[2]) for kind in ("aicore_type", "aicpu_type")
             for r in legacy_ops.load(pdir, kind, device.device_id, cache)[0].rows]
    if not rank_tables.has("steps", device, cache):
        return types, []
    rows: list[dict[str, Any]] = []
    start = 0.0
    for s in rank_tables.load("steps", device, cache)[0]:
        device_phase = s.get("fp_and_bp_us") or s.get("fp_us")
        # the device's own phase (fp+bp and tail); the cluster analyse file's computing leaves out the
        # communication and bubbles of a parallel job, whose time is not host time
        busy = device_phase + (s.get("tail_us") or 0.0) if device_phase else (s["computing_us"] or 0.0)
        rows.append({"step": s["step"], "start_us": round(start, 3), "duration_us": s["total_us"],
                     "compute_us": round(busy, 3), "interval_us": s.get("iteration_interval_us") or 0.0})
        start += s["total_us"]
    return types, rows


def overview(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """A MindSpore >= 2.4 / torch_npu rank: from its Ascend tables, else (a host rank) from MindSpore's host files."""
    device = pdir.device(device_id)
    if device is not None and rank_tables.reads("kernels", device):
        return ascend_overview.overview(pdir, device, cache)  # the same fields from the Ascend tables
    table = load_table("cpu_op_type", device, cache)
    types = [(r[0], r[3], r[1]) for r in table.rows]
    step_list, exec_total = steps.load_steps(device, cache)
    return _answer(pdir, device_id, device, types, steps.steps_json(step_list), exec_total, cache)


def old_layout_overview(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """A MindSpore <= 2.2 rank (profile_views.OldLayout): its AI Core / AI CPU type tables and step trace."""
    device = pdir.device(device_id)
    if device is None:
        return overview(pdir, device_id, cache)  # the host path's "file not found"
    types, step_rows = _legacy_parts(pdir, device, cache)
    return _answer(pdir, device_id, device, types, step_rows, 0.0, cache)


def _answer(pdir: ProfilerDir, device_id: str, device: DeviceFiles | None, types: list[tuple[str, float, int]],
            step_rows: list[dict[str, Any]], exec_total: float, cache: ParsedFileCache | None) -> dict[str, Any]:
    op_total = sum(t[1] for t in types)
    ranked = sorted(types, key=lambda t: t[1], reverse=True)
    top = [{"op_type": name, "total_time_us": total, "percent": fmt(total / op_total * 100) if op_total else 0.0,
            "occurrences": count} for name, total, count in ranked[:TOP_N]]
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
