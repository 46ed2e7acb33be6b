"""`profile/memory-record`: device memory over time per component (memory_record.csv) and the largest operator
allocations (operator_memory.csv).

memory_record.csv: `Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB)[,Stream Ptr],
Device Type` (MindSpore writes no `Stream Ptr`; its components are APP, GE, MindSpore, MindSpore+GE; torch_npu's
APP, GE, PTA, PTA+GE). Empty cells (APP has only a reserved figure) are null.

The peaks are exact, over every row of every component. Each component's series is downsampled to at most
`max_points` points: the rows are split into equal buckets, and each bucket keeps its rows of highest reserved
and highest allocated memory (in time order), so every peak stays visible in the chart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler import ascend_csv, ascend_db_tables
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.errors import MindInsightError, ProfilerFileNotFoundError
from mindinsight_clone.ingest.storage import Location

MEMORY_RECORD = "memory_record.csv"
OPERATOR_MEMORY = "operator_memory.csv"
DEFAULT_POINTS = 2000
DEFAULT_TOP = 20
_VALUES = ("Total Allocated(MB)", "Total Reserved(MB)", "Total Active(MB)")


def parse_record(path: Location, rank: str) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """component -> (n, 4) float64 array [ts_us, allocated, reserved, active] (NaN = empty cell), time-sorted."""
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(MEMORY_RECORD, rank),
                                   ("Component", "Timestamp(us)", *_VALUES))
    rows: dict[str, list[tuple[float, ...]]] = {}
    for raw in csv_file.rows():
        try:
            ts = ascend_csv.number(csv_file.get(raw, "Timestamp(us)"))
            values = [ascend_csv.number(csv_file.get(raw, c)) for c in _VALUES]
        except ValueError:
            csv_file.report.skip("non-numeric timestamp or size")
            continue
        if ts is None:
            csv_file.report.skip("no timestamp")
            continue
        rows.setdefault(csv_file.get(raw, "Component"), []).append(
            (ts, *(np.nan if v is None else v for v in values)))
    csv_file.report.log()
    series = {}
    for component, items in rows.items():
        data = np.array(items, dtype=np.float64).reshape(-1, 4)
        series[component] = data[np.argsort(data[:, 0], kind="stable")]
    return series, csv_file.report.problems()


def downsample(data: np.ndarray, max_points: int) -> np.ndarray:
    if len(data) <= max_points:
        return data
    buckets = max(1, max_points // 2)
    keep: set[int] = set()
    for bucket in np.array_split(np.arange(len(data)), buckets):
        for col in (2, 1):
            values = data[bucket, col]
            if not np.isnan(values).all():
                keep.add(int(bucket[np.nanargmax(values)]))
            else:
                keep.add(int(bucket[0]))
    return data[np.array(sorted(keep))]


def _cell(value: float) -> float | None:
    return None if value != value else value


def _peak(series: dict[str, np.ndarray], col: int) -> float | None:
    values = [np.nanmax(d[:, col]) for d in series.values() if d.size and not np.isnan(d[:, col]).all()]
    return float(max(values)) if values else None


def parse_operators(path: Location, rank: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(OPERATOR_MEMORY, rank), ("Name", "Size(KB)"))
    ops: list[dict[str, Any]] = []
    for raw in csv_file.rows():
        try:
            size = ascend_csv.number(csv_file.get(raw, "Size(KB)"))
            times = [ascend_csv.number(csv_file.get(raw, c))
                     for c in ("Allocation Time(us)", "Release Time(us)", "Duration(us)")]
        except ValueError:
            csv_file.report.skip("non-numeric size or time")
            continue
        if size is None:
            csv_file.report.skip("no size")
            continue
        ops.append({"name": csv_file.get(raw, "Name"), "size_kb": size, "allocation_time_us": times[0],
                    "release_time_us": times[1], "duration_us": times[2]})
    csv_file.report.log()
    ops.sort(key=lambda o: -o["size_kb"])  # stable: equal sizes keep file order
    return ops, csv_file.report.problems()


def _series(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    if device.export == "db":
        return ascend_db_tables.memory_series(device, cache)
    rank = device.device_id
    path = ascend_csv.require(device.output_file(MEMORY_RECORD), MEMORY_RECORD, rank,
                              "written with profile_memory=True")
    return cached(cache, "memory_record", path, lambda p: parse_record(p, rank))


def _operators(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The operator allocations; ProfilerFileNotFoundError when not written, MindInsightError when unreadable."""
    if device.export == "db":
        return ascend_db_tables.operators(device, cache)
    rank = device.device_id
    path = ascend_csv.require(device.output_file(OPERATOR_MEMORY), OPERATOR_MEMORY, rank)
    return cached(cache, "operator_memory", path, lambda p: parse_operators(p, rank))


def memory_record(device: DeviceFiles, max_points: int = DEFAULT_POINTS, top: int = DEFAULT_TOP,
                  cache: ParsedFileCache | None = None) -> dict[str, Any]:
    series, problems = _series(device, cache)
    problems = list(problems)
    answer: dict[str, Any] = {
        "peak_reserved_mb": _peak(series, 2),
        "peak_allocated_mb": _peak(series, 1),
        "series": {c: [[_cell(v) for v in row] for row in downsample(d, max_points).tolist()]
                   for c, d in series.items()},
        "top_operators": [],
        "points": {c: len(d) for c, d in series.items()},
    }
    ops_label = (ascend_db_tables.operators_label(device) if device.export == "db"
                 else ascend_csv.label(OPERATOR_MEMORY, device.device_id))
    try:
        ops, op_problems = _operators(device, cache)
    except ProfilerFileNotFoundError:
        problems.append({"file": ops_label, "message": "missing: no operator list"})
    except MindInsightError as err:
        problems.append({"file": ops_label, "message": err.message})
    else:
        answer["top_operators"] = [dict(o) for o in ops[:top]]
        answer["operator_count"] = len(ops)
        problems.extend(op_problems)
    if problems:
        answer["problems"] = problems
    return answer
