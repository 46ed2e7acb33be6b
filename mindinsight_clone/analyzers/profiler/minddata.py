"""Data-pipeline (minddata) views. MindSpore 2.10 writes no minddata files on CPU; the legacy
`minddata_pipeline_raw_<id>.csv` is read when present, everything else answers what MindInsight answers
without data (goldens 167-173)."""

from __future__ import annotations

import csv
import json
from typing import Any

from mindinsight_clone.analyzers.profiler import conditions, tables
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.analyzers.profiler.tables import Row, Table
from mindinsight_clone.errors import ProfilerFileNotFoundError
from mindinsight_clone.ingest import storage

PIPELINE_FILE = "minddata_pipeline_raw_{}.csv"
PIPELINE_COLUMNS = ("op_id", "op_type", "output_queue_average_size", "output_queue_length",
                    "output_queue_usage_rate", "sample_interval", "parent_id", "children_id")
SORT_COLUMNS = ("op_id", "op_type", "num_workers", "output_queue_average_size", "output_queue_length",
                "output_queue_usage_rate", "sample_interval", "parent_id")


def _number(raw: str | None) -> Any:
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        try:
            return float(raw)
        except ValueError:
            return raw


def _children(raw: str | None) -> list[int] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, list) else None


def pipeline_table(device: DeviceFiles | None) -> Table:
    path = device.file(PIPELINE_FILE) if device else None
    if path is None:
        return Table(PIPELINE_COLUMNS, ())
    rows: list[Row] = []
    with storage.open_text(path, newline="") as handle:
        for rec in csv.DictReader(handle):
            rows.append([_number(rec.get("op_id")), rec.get("op_type"),
                         _number(rec.get("output_queue_average_size")), _number(rec.get("output_queue_length")),
                         _number(rec.get("output_queue_usage_rate")), _number(rec.get("sample_interval")),
                         _number(rec.get("parent_id")), _children(rec.get("children_id"))])
    return Table(PIPELINE_COLUMNS, tuple(rows))


def validate_op_queue_condition(condition: Any) -> tuple[str, dict[str, Any]]:
    body = conditions.check_dict(condition, "condition")
    device_id = conditions.check_device_id(body)
    conditions.check_group(body)
    conditions.check_sort(body, SORT_COLUMNS)
    conditions.check_pipeline_filter(body)
    return device_id, body


def op_queue(device: DeviceFiles | None, condition: dict[str, Any]) -> dict[str, Any]:
    filters = dict(condition.get("filter_condition") or {})
    filters.pop("is_display_op_detail", None)
    return tables.query(pipeline_table(device), {**condition, "filter_condition": filters})


def op_and_parent(device: DeviceFiles | None, op_id: int) -> dict[str, Any]:
    table = pipeline_table(device)
    by_id = {row[0]: row for row in table.rows}
    row = by_id.get(op_id)
    if row is None:
        raise conditions.pipeline_op_error(op_id)
    names = list(table.col_names)

    def as_dict(r: Row) -> dict[str, Any]:
        return dict(zip(names, r, strict=True))

    parent = by_id.get(row[6]) if row[6] is not None else None
    return {"current_op": as_dict(row), "parent_op": as_dict(parent) if parent else None,
            "queue_info": None}


def cpu_utilization(device: DeviceFiles | None) -> dict[str, Any]:
    path = device.file("minddata_cpu_utilization_{}.json") if device else None
    if path is None:
        raise ProfilerFileNotFoundError("<Did not find the cpu utilization file.>")
    try:
        data = json.loads(storage.read_bytes(path))
    except (OSError, ValueError):
        raise ProfilerFileNotFoundError("<Did not find the cpu utilization file.>") from None
    return data if isinstance(data, dict) else {}
