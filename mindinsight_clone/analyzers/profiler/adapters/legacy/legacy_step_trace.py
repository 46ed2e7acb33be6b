"""Step trace of the old layout: `step_trace_raw_<id>_detail_time.csv` (MindInsight's `StepTraceAnalyser`).

One row per step, then an average row whose `step_num` is `-` (all zeros, step 0, when MindSpore 1.1-1.5 profiled a
single step: its parser averages steps 2..N). Times are system counts of 10 ns; answers are
milliseconds rounded to 4 decimals (`count / 1e5`). Columns: `start_point, end_point, total, fp_point, bp_point,
iteration_interval, fp_and_bp, tail` (training; inference files have `fp` instead of `fp_and_bp`/`tail`), then
per parallel stream `stream_<s>_..._start_point`, `..._end_point` and the duration column.

* `training-trace/graph?type=<step>` (0 = the average row): `{size, training_trace_graph, summary, point_info}`;
  the graph's lines are the whole step, then iteration interval / fp+bp / tail, then one line per stream with its
  reduce events and the gaps around them. A point with a negative start or duration is `{}` (MindInsight's way).
* `training-trace/target-time-info?type=<proc>`: `{size, info: {proc: [ms per step]}, summary}`.

A missing file is MindInsight's `{}` (graph) or 50546084 `<parsed step trace time file>` (target time); a file
without its average row (cut short) or with a cell that is no number is a 50546087 naming the file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import dir_file, dir_names, read_csv, read_json
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import to_float
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import (
    ProfilerFileNotFoundError,
    ProfilerParamValueError,
    ProfilerRawFileError,
    ProfilerSearchConditionError,
)
from mindinsight_clone.ingest.storage import Location

STEP_TRACE_FILE = "step_trace_raw_{}_detail_time.csv"
STEP_NUM_NOT_SUPPORTED = 0x102  # 50546102 "The step num must be in [0, N]"
PER_MS = 100_000  # system counts (10 ns) per millisecond


@dataclass(frozen=True)
class StepTrace:
    """The file's header and rows; the last row is the average (`step_num` `-`)."""

    name: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    @property
    def size(self) -> int:
        """Steps in the file (the average row not counted)."""
        return len(self.rows) - 1

    def values(self, row: tuple[str, ...]) -> dict[str, float]:
        """Column -> milliseconds (4 decimals) for one row, `step_num` left out."""
        out: dict[str, float] = {}
        for key, cell in zip(self.header, row, strict=False):
            if key != "step_num":
                out[key] = to_ms(self.count(cell, key))
        return out

    def count(self, cell: str, column: str) -> int:
        """A cell's system count. MindSpore 2.0-2.1 typed the parallel-stream columns float (`12300.000000000002`,
        `1.736408883704643e+17`): those are rounded, where MindInsight's `int()` refused the whole step."""
        try:
            return int(cell)  # exact: a count of 10 ns past 2**53 would lose digits as a float
        except ValueError:
            value = to_float(cell)
        if value is None or not math.isfinite(value):
            raise ProfilerRawFileError(f"<{self.name}> has {cell!r} in {column}, not a number.")
        return round(value)

    def column_ms(self, column: str, rows: tuple[tuple[str, ...], ...]) -> list[float]:
        i = self.header.index(column)
        return [to_ms(self.count(row[i] if i < len(row) else "", column)) for row in rows]


def to_ms(count: int) -> float:
    return round(count / PER_MS, 4)


def percent(part: float, total: float) -> str:
    return f"{round(part / total * 100, 2) if total else 0}%"


def load(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> StepTrace | None:
    """The parsed step trace file of a device, or None when there is none."""
    path = dir_file(pdir, STEP_TRACE_FILE.format(device_id))
    return None if path is None else parse(path, cache)


def parse(path: Location, cache: ParsedFileCache | None) -> StepTrace:
    table = read_csv(path, cache, keep_short=True)
    rows = table.rows
    if not rows or not is_average_row(rows[-1]):
        raise ProfilerRawFileError(f"<{path.name}> has no average row (truncated file?).")
    return StepTrace(path.name, table.header, rows)


def is_average_row(row: tuple[str, ...]) -> bool:
    """The last row is the average (MindInsight takes it by position): MindSpore marks it `-`, except the old
    step trace parser (MindSpore 1.1-1.5) for a single step, which writes an all-zero row with step 0. A step row
    left last (a file cut between or inside rows) is neither, and is refused rather than read as the average."""
    return row[0] == "-" or all(cell.strip() == "0" for cell in row)


def summary(trace: StepTrace) -> dict[str, Any]:
    """MindInsight's `summary`: the average row's total, iteration interval and fp+bp / tail (or fp), with shares."""
    header, average = trace.header, trace.rows[-1]

    def field(name: str) -> float:
        return trace.column_ms(name, (average,))[0]

    total = field("total")
    interval = field("iteration_interval")
    out: dict[str, Any]
    if "fp_and_bp" in header:
        fp_bp, tail = field("fp_and_bp"), field("tail")
        out = {"fp_and_bp": fp_bp, "fp_and_bp_percent": percent(fp_bp, total), "tail": tail,
               "tail_percent": percent(tail, total)}
    else:
        fp = field("fp")
        out = {"fp": fp, "fp_percent": percent(fp, total)}
    out.update({"total_time": total, "iteration_interval": interval,
                "iteration_interval_percent": percent(interval, total), "total_steps": trace.size})
    return out


def _point(name: str, start: float, duration: float) -> dict[str, Any]:
    if start >= 0 and duration >= 0:
        return {"name": name, "start": round(start, 4), "duration": round(duration, 4)}
    return {}


def _reduce_lines(trace: StepTrace, values: dict[str, float]) -> list[list[dict[str, Any]]]:
    """One line per stream: the gap from fp start to each reduce event, the event, the gap to the step end."""
    by_stream: dict[str, list[tuple[float, float, float, str]]] = {}
    for column in trace.header:
        if not column.startswith("stream_") or column.endswith("point"):
            continue
        start = values.get(column + "_start_point", 0)
        end = values.get(column + "_end_point", 0)
        duration = values.get(column, 0)
        if not (start and end and duration):
            continue
        by_stream.setdefault(column.split("_", 2)[1], []).append((start, end, duration, column))
    step_start, fp_point, step_end = values.get("start_point", 0), values.get("fp_point", 0), values.get(
        "end_point", 0)
    lines = []
    for events in by_stream.values():
        events.sort(key=lambda e: e[1])
        line: list[dict[str, Any]] = []
        previous = fp_point
        for start, end, duration, column in events:
            line += [_point("", previous - step_start, start - previous),
                     _point(column, start - step_start, duration)]
            previous = end
        line.append(_point("", previous - step_start, step_end - previous))
        lines.append(line)
    return lines


def _check_step(trace: StepTrace, step: int) -> None:
    if not 0 <= step <= trace.size:
        raise ProfilerSearchConditionError(STEP_NUM_NOT_SUPPORTED, f"The step num must be in {[0, trace.size]}")


def step_graph(trace: StepTrace, step: int) -> list[list[dict[str, Any]]]:
    _check_step(trace, step)
    values = trace.values(trace.rows[step - 1])
    start = values.get("start_point", 0)
    main = [_point("iteration_interval", 0, values.get("iteration_interval", 0))]
    if "fp" in values:  # inference
        main.append(_point("fp", values.get("fp_point", 0) - start, values.get("fp", 0)))
    else:
        main += [_point("fp_and_bp", values.get("fp_point", 0) - start, values.get("fp_and_bp", 0)),
                 _point("tail", values.get("bp_point", 0) - start, values.get("tail", 0))]
    return [[_point("", 0, values.get("total", 0))], main, *_reduce_lines(trace, values)]


def _point_info(pdir: ProfilerDir, device_id: str, step: int, cache: ParsedFileCache | None) -> Any:
    path = (dir_file(pdir, f"step_trace_point_info_{device_id}.json")
            or dir_file(pdir, "step_trace_point_info.json"))
    if path is None:
        return {}
    info = read_json(path, cache)
    if isinstance(info, list):  # one entry per step
        return info[step - 1] if -len(info) <= step - 1 < len(info) else {}
    return info


def training_trace_graph(pdir: ProfilerDir, device_id: str, step: int,
                         cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`profile/training-trace/graph`, MindInsight's checks in its order."""
    if f"dynamic_shape_info_{device_id}.json" in dir_names(pdir):
        return {}
    device = pdir.device(device_id)
    info = device.info if device is not None else {}
    if str(info.get("context_mode", "graph")).lower() == "pynative":
        return {}
    if info.get("is_heterogeneous", False):
        return {"is_heterogeneous": True}
    trace = load(pdir, device_id, cache)
    if trace is None:
        return {}
    return {"size": trace.size, "training_trace_graph": step_graph(trace, step), "summary": summary(trace),
            "point_info": _point_info(pdir, device_id, step, cache)}


def target_time_info(pdir: ProfilerDir, device_id: str, proc: str,
                     cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`profile/training-trace/target-time-info`: `proc` (already one of the four names) for every step."""
    trace = load(pdir, device_id, cache)
    if trace is None:
        raise ProfilerFileNotFoundError("<parsed step trace time file>")
    if proc not in trace.header:
        raise ProfilerParamValueError("Invalid proc_name.")
    return {"size": trace.size, "info": {proc: trace.column_ms(proc, trace.rows[:-1])}, "summary": summary(trace)}


def average_interval(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> float | None:
    """The average row's iteration interval (ms), for the proposals; None without a usable file."""
    try:
        trace = load(pdir, device_id, cache)
    except ProfilerRawFileError:
        return None
    if trace is None or "iteration_interval" not in trace.header:
        return None
    return trace.column_ms("iteration_interval", trace.rows[-1:])[0]
