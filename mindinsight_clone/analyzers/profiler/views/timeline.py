"""Timeline views: `profile/timeline-summary` and `profile/timeline`.

* legacy layout (MindInsight's own): legacy_timeline.py;
* ms2 layout: `ASCEND_PROFILER_OUTPUT/trace_view.json` (Chrome trace events) or the same events from the database
  export (read through rank_tables.py), with an optional time window
  (`start_us`/`end_us`, relative to the first timed event), a minimum duration and downsampling to the
  `max_events` longest events in the window. Metadata (`ph: "M"`) events are always kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.engine.trace_events import TraceColumns, blobs_at
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles

MAX_EVENTS_LIMIT = 5_000_000
SUMMARY_BLOCK = 1 << 18  # events per step of the summary


@dataclass(frozen=True)
class Window:
    start_us: float | None = None
    end_us: float | None = None
    min_dur_us: float | None = None
    max_events: int | None = None
    pids: tuple[str, ...] | None = None  # keep the timed events of these processes only (metadata stays whole)


def trace_for(device: DeviceFiles | None, cache: ParsedFileCache | None = None) -> TraceColumns | None:
    """The parsed trace of `device` (trace_view.json, or the same events from its database export); None when it has
    none or it cannot be read."""
    if device is None or not rank_tables.has("trace", device, cache):
        return None
    trace: TraceColumns | None = rank_tables.load("trace", device, cache)
    return trace


def _timed(trace: TraceColumns) -> np.ndarray:
    meta = trace.string_id("M")
    return (trace.ph != meta) & ~np.isnan(trace.ts)


def summary(trace: TraceColumns) -> dict[str, Any]:
    """MindInsight's timeline-summary fields, computed from the trace, plus the trace's time span. Computed a block of
    SUMMARY_BLOCK events at a time, so the temporaries stay small beside a trace of millions of events."""
    meta, complete_id = trace.string_id("M"), trace.string_id("X")
    scope_pid = _pid_named(trace, "Scope Layer")
    first, last = np.inf, -np.inf
    names = np.zeros(max(1, len(trace.strings)), dtype=bool)
    scope_tids = np.zeros(max(1, len(trace.values)), dtype=bool)
    streams: set[int] = set()
    op_count = 0
    width = max(1, len(trace.values))
    per_pid = np.zeros(width, dtype=np.int64)  # timed events per process (interned pid)
    for start in range(0, len(trace), SUMMARY_BLOCK):
        block = slice(start, start + SUMMARY_BLOCK)
        ts, ph, pid, tid = trace.ts[block], trace.ph[block], trace.pid[block], trace.tid[block]
        timed = (ph != meta) & ~np.isnan(ts)
        per_pid += np.bincount(pid[timed], minlength=width)[:width]
        if timed.any():
            first = min(first, float(ts[timed].min()))
            last = max(last, float((ts[timed] + np.nan_to_num(trace.dur[block][timed])).max()))
        ops = timed & (ph == complete_id)
        if scope_pid is not None:
            in_scope = pid == scope_pid
            scope_tids[tid[ops & in_scope]] = True
            ops &= ~in_scope
        op_count += int(ops.sum())
        names[trace.name[block][ops]] = True
        streams.update(np.unique(pid[ops].astype(np.int64) * width + tid[ops]).tolist())
    if not np.isfinite(first):
        first = last = 0.0
    return {
        "max_scope_name_num": int(scope_tids.sum()) if scope_pid is not None else 0,
        "num_of_ops": int(names.sum()),
        "op_exe_times": op_count,
        "num_of_streams": len(streams),
        "total_time": round((last - first) / 1000.0, 4),
        "num_of_events": len(trace),
        "first_ts_us": round(first, 3),
        "last_ts_us": round(last, 3),
        "processes": process_counts(trace, per_pid),
    }


def process_counts(trace: TraceColumns, counts: np.ndarray) -> list[dict[str, Any]]:
    """Timed events per process (`pid`, its `process_name` or null, `events`) from `counts` (by interned pid), so a
    client showing some lanes can say how many events it leaves out."""
    meta, pname = trace.string_id("M"), trace.string_id("process_name")
    names: dict[int, str] = {}
    for i in np.flatnonzero((trace.ph == meta) & (trace.name == pname)):
        blob = trace.args[i]
        name = orjson.loads(trace.blobs[blob]).get("name") if blob >= 0 else None
        if isinstance(name, str):
            names[int(trace.pid[i])] = name
    return [{"pid": trace.values[pid], "name": names.get(pid), "events": int(n)}
            for pid, n in enumerate(counts.tolist()) if n]


def _pid_named(trace: TraceColumns, name: str) -> int | None:
    meta, pname = trace.string_id("M"), trace.string_id("process_name")
    for i in np.flatnonzero((trace.ph == meta) & (trace.name == pname)):
        blob = trace.args[i]
        if blob >= 0 and orjson.loads(trace.blobs[blob]).get("name") == name:
            return int(trace.pid[i])
    return None


def select(trace: TraceColumns, window: Window) -> np.ndarray:
    """Indices of the events to answer: metadata first, then the selected timed events by start time."""
    meta_mask = trace.ph == trace.string_id("M")
    timed = _timed(trace)
    ts, dur = trace.ts, np.nan_to_num(trace.dur)
    mask = timed.copy()
    if window.start_us is not None or window.end_us is not None:
        origin = float(ts[timed].min()) if timed.any() else 0.0
        if window.start_us is not None:
            mask &= ts + dur >= origin + window.start_us
        if window.end_us is not None:
            mask &= ts <= origin + window.end_us
    if window.min_dur_us is not None:
        mask &= dur >= window.min_dur_us
    if window.pids is not None:
        wanted = set(window.pids)
        ids = [i for i, v in enumerate(trace.values) if str(v) in wanted]
        mask &= np.isin(trace.pid, np.array(ids, dtype=trace.pid.dtype))
    chosen = np.flatnonzero(mask)
    if window.max_events is not None and chosen.size > window.max_events:
        keep = np.argpartition(-dur[chosen], window.max_events - 1)[: window.max_events]
        chosen = chosen[keep]
    chosen = chosen[np.argsort(ts[chosen], kind="stable")]
    untimed = np.flatnonzero(~timed & ~meta_mask) if window == Window() else np.empty(0, dtype=np.int64)
    return np.concatenate([np.flatnonzero(meta_mask), chosen, untimed])


def events(trace: TraceColumns, indices: np.ndarray) -> list[dict[str, Any]]:
    """Chrome trace event dicts for `indices` (only what a response needs is materialised)."""
    out: list[dict[str, Any]] = []
    strings, values = trace.strings, trace.values
    args, extras = blobs_at(trace.blobs, trace.args[indices]), blobs_at(trace.blobs, trace.extra[indices])
    for n, i in enumerate(indices.tolist()):
        event: dict[str, Any] = {"ph": strings[trace.ph[i]], "name": strings[trace.name[i]],
                                 "pid": values[trace.pid[i]], "tid": values[trace.tid[i]]}
        ts, dur = trace.ts[i], trace.dur[i]
        if not np.isnan(ts):
            event["ts"] = round(float(ts), 3)
        if not np.isnan(dur):
            event["dur"] = round(float(dur), 3)
        cat = strings[trace.cat[i]]
        if cat or event["ph"] == "X":
            event["cat"] = cat
        blob, extra = args[n], extras[n]
        if blob is not None:
            event["args"] = orjson.Fragment(blob)
        if extra is not None:
            event.update(orjson.loads(extra))
        out.append(event)
    return out


def timeline(device: DeviceFiles | None, window: Window, cache: ParsedFileCache | None = None) -> list[Any]:
    trace = trace_for(device, cache)
    return events(trace, select(trace, window)) if trace is not None else []


def timeline_summary(device: DeviceFiles | None, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    path = rank_tables.locate("trace", device) if device is not None else None
    trace = trace_for(device, cache) if path is not None else None
    if trace is None or path is None:
        return {"max_scope_name_num": 0}
    if not len(trace):
        answer: dict[str, Any] = {"max_scope_name_num": 0}
    else:  # computed once per parsed file (a few seconds on millions of events)
        answer = dict(cached(cache, "trace_view_summary", path, lambda _p: summary(trace), weight=1024))
    if trace.problems:
        answer["problems"] = [{"file": path.name, "message": p} for p in trace.problems]
    return answer
