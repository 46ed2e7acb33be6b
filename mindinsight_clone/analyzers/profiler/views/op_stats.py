"""Operator statistics tables behind `POST profile/ops/search`, one loader per `op_type`.

The CSV files are the same in both layouts (legacy: in the profiler dir; ms2: in `<session>/FRAMEWORK/`).
Times in CPU files are milliseconds and are answered in microseconds; `cpu_op_type` answers the proportion as a
percent, `cpu_op_info` as a fraction (MindInsight does the same). A missing file is an empty table, as in
MindInsight; rows that cannot be parsed are skipped (and logged) rather than failing the request.
"""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.engine.column_query import Row, Table
from mindinsight_clone.analyzers.profiler.engine.numbers import MS_TO_US, fmt
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)

OP_TYPES_MESSAGE = (
    "The op_type must in ['aicpu_type','aicpu_detail', 'aicore_type', 'aicore_detail', 'gpu_op_type', "
    "'gpu_op_info', 'gpu_cuda_activity', 'cpu_op_type', 'cpu_op_info', 'gpu_op_type_info', 'gpu_cuda_type_info']"
)
# filter_condition keys that switch columns or steps rather than filter rows.
DISPLAY_KEYS = ("is_display_detail", "is_display_full_op_name", "step_filter", "dispaly_op_type")


def _csv_rows(path: Location) -> Iterator[list[str]]:
    with storage.open_text(path, newline="") as handle:
        reader = csv.reader(handle)
        next(reader, None)
        for row in reader:
            if row:
                yield row


def _convert(path: Location, convert: Callable[[list[str]], Row]) -> tuple[Row, ...]:
    rows: list[Row] = []
    for raw in _csv_rows(path):
        try:
            rows.append(convert(raw))
        except (IndexError, ValueError):
            log.warning("skipping a malformed row in %s", path.name)
    return tuple(rows)


@dataclass(frozen=True)
class CsvSpec:
    template: str  # file name with `{}` for the device id
    columns: tuple[str, ...]
    convert: Callable[[list[str]], Row]


def _cpu_type(r: list[str]) -> Row:
    return [r[0], int(r[1]), int(r[2]), fmt(float(r[3]) * MS_TO_US), fmt(float(r[4]) * MS_TO_US),
            fmt(float(r[5]) * 100)]


def _cpu_info(r: list[str]) -> Row:
    return [r[0], r[1], r[2], r[3], int(r[4]), fmt(float(r[5]) * MS_TO_US), fmt(float(r[6]) * MS_TO_US),
            fmt(float(r[7])), r[8]]


def _gpu_type(r: list[str]) -> Row:
    return [r[0], fmt(float(r[2])), int(r[1]), fmt(float(r[3]) * 100), fmt(float(r[4]))]


def _gpu_info(r: list[str]) -> Row:
    return [r[0], r[1], r[2], r[3], int(r[4]), fmt(float(r[5])), fmt(float(r[6])), fmt(float(r[7])),
            fmt(float(r[8])), int(r[9])]


def _gpu_activity(r: list[str]) -> Row:
    return [*r[:6], int(r[6]), fmt(float(r[7])), fmt(float(r[8])), fmt(float(r[9])), fmt(float(r[10]))]


def _aicore_type(r: list[str]) -> Row:
    return [r[0], float(format(float(r[1]), ".6f")), int(r[2]), float(r[3])]


def _aicpu_detail(r: list[str]) -> Row:
    return [int(r[0]), r[1], float(r[2]), float(r[3]), int(r[4]), int(r[5])]


CSV_TABLES: dict[str, CsvSpec] = {
    "cpu_op_type": CsvSpec("cpu_op_type_info_{}.csv", (
        "op_type", "type_occurrences", "execution_frequency", "total_compute_time", "avg_time",
        "total_time_proportion"), _cpu_type),
    "cpu_op_info": CsvSpec("cpu_op_detail_info_{}.csv", (
        "op_side", "op_type", "op_name", "full_op_name", "op_occurrences", "op_total_time", "op_avg_time",
        "total_time_proportion", "subgraph"), _cpu_info),
    "gpu_op_type": CsvSpec("gpu_op_type_info_{}.csv", (
        "op_type", "total_time", "execution_frequency", "total_percent", "avg_time"), _gpu_type),
    "gpu_op_info": CsvSpec("gpu_op_detail_info_{}.csv", (
        "op_side", "op_type", "op_name", "op_full_name", "op_occurrences", "op_total_time", "op_avg_time",
        "proportion", "cuda_activity_cost_time", "cuda_activity_call_count"), _gpu_info),
    "gpu_cuda_activity": CsvSpec("gpu_activity_data_{}.csv", (
        "name", "type", "op_full_name", "stream_id", "block_dim", "grid_dim", "occurrences", "total_duration",
        "avg_duration", "max_duration", "min_duration"), _gpu_activity),
    "aicore_type": CsvSpec("aicore_intermediate_{}_type.csv", (
        "op_type", "execution_time", "execution_frequency", "percent"), _aicore_type),
    "aicpu_detail": CsvSpec("aicpu_intermediate_{}.csv", (
        "serial_number", "op_type", "total_time", "dispatch_time", "run_start", "run_end"), _aicpu_detail),
}
AICPU_TYPE_COLUMNS = ("op_type", "execution_time", "execution_frequency", "percent")
AICORE_DETAIL_COLUMNS = ("op_name", "op_type", "avg_execution_time", "subgraph", "full_op_name", "op_info")
DYNAMIC_COLUMNS = {
    "gpu_op_type_info": ("operator", "operator_type", ("step", "op_side", "op_type", "op_name", "duration",
                                                       "op_shape")),
    "gpu_cuda_type_info": ("kernel", "kernel_type", ("step", "op_type", "op_name", "op_full_name", "duration",
                                                     "block_dim", "grid_dim")),
}
OP_TYPES = (*CSV_TABLES, "aicpu_type", "aicore_detail", *DYNAMIC_COLUMNS)


def columns(op_type: str) -> tuple[str, ...]:
    if op_type in CSV_TABLES:
        return CSV_TABLES[op_type].columns
    if op_type == "aicpu_type":
        return AICPU_TYPE_COLUMNS
    if op_type == "aicore_detail":
        return AICORE_DETAIL_COLUMNS
    return DYNAMIC_COLUMNS[op_type][2]


def _aicpu_types(path: Location) -> tuple[Row, ...]:
    by_type: dict[str, list[float]] = {}
    for raw in _csv_rows(path):
        try:
            by_type.setdefault(raw[1], []).append(float(raw[2]))
        except (IndexError, ValueError):
            continue
    averages = {k: round(sum(v) / len(v), 6) for k, v in by_type.items()}
    total = sum(averages.values()) or 1.0
    return tuple([k, avg, len(by_type[k]), round(avg / total * 100, 2)] for k, avg in averages.items())


def _aicore_details(detail: Location, framework: Location) -> tuple[Row, ...]:
    infos: dict[str, list[Any]] = {}
    for raw in _csv_rows(framework):
        try:
            infos[raw[3]] = [raw[3], raw[4], raw[5], raw[6], json.loads(raw[7]) if raw[7] else None]
        except (IndexError, ValueError):
            continue
    rows: list[Row] = []
    for raw in _csv_rows(detail):
        info = infos.get(raw[0]) if raw else None
        if info is None:
            continue
        try:
            rows.append([info[1], info[2], float(raw[1]), info[3], info[0], info[4]])
        except (IndexError, ValueError):
            continue
    return tuple(rows)


def load_table(op_type: str, device: DeviceFiles | None, cache: ParsedFileCache | None = None) -> Table:
    """The full (unfiltered) table of `op_type` for one device; empty when the device or file is missing."""
    cols = columns(op_type)
    if device is None:
        return Table(cols, ())
    if op_type in CSV_TABLES:
        spec = CSV_TABLES[op_type]
        path = device.file(spec.template)
        rows = cached(cache, op_type, path, lambda p: _convert(p, spec.convert)) if path else ()
        return Table(cols, rows)
    if op_type == "aicpu_type":
        path = device.file("aicpu_intermediate_{}.csv")
        return Table(cols, cached(cache, op_type, path, _aicpu_types) if path else ())
    if op_type == "aicore_detail":
        detail, framework = device.file("aicore_intermediate_{}_detail.csv"), device.file("framework_raw_{}.csv")
        if detail is None or framework is None:
            return Table(cols, ())
        return Table(cols, _aicore_details(detail, framework))
    return Table(cols, ())


def aicore_detail_view(result: dict[str, Any], filters: dict[str, Any]) -> dict[str, Any]:
    """Drop the `full_op_name` / `op_info` columns when the display switches say so."""
    show_full = filters.get("is_display_full_op_name", True)
    show_detail = filters.get("is_display_detail", True)
    keep = [0, 1, 2, 3] + ([4] if show_full else []) + ([5] if show_detail else [])
    keep += list(range(6, len(result["col_name"])))  # the Ascend kernel columns (ascend_ops.py) always stay
    result["col_name"] = [result["col_name"][i] for i in keep]
    result["object"] = [[row[i] for i in keep] for row in result["object"]]
    return result


def dynamic_shape_query(op_type: str, device: DeviceFiles | None, filters: dict[str, Any]) -> dict[str, Any]:
    """`gpu_op_type_info` / `gpu_cuda_type_info` from `dynamic_shape_info_<id>.json` (GPU dynamic shape)."""
    switch, type_key, cols = DYNAMIC_COLUMNS[op_type]
    answer: dict[str, Any] = {"col_name": list(cols), "object": [], "size": 0, "all_type": [], "filter_type": {}}
    path = device.file("dynamic_shape_info_{}.json") if device else None
    if path is None:
        return answer
    try:
        data = json.loads(storage.read_bytes(path))
    except (OSError, ValueError):
        return answer
    step = str((filters.get("step_filter") or ["1"])[0])
    items = data.get(switch, {}).get(step) or []
    answer["object"] = [list(item.values()) for item in items if isinstance(item, dict)]
    answer["size"] = len(answer["object"])
    per_step = data.get(type_key, {})
    all_types = list(per_step.get(step, {}).keys())
    shown = filters.get("dispaly_op_type", all_types[:3])
    answer["all_type"] = all_types
    answer["filter_type"] = {
        t: [per_step[s].get(t, [0] * len(cols))[2] for s in per_step] for t in shown if isinstance(t, str)
    }
    return answer
