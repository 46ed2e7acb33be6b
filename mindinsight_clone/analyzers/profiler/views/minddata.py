"""Data-pipeline (minddata) views. MindSpore 2.10 writes no minddata files on CPU; the legacy
`minddata_pipeline_raw_<id>.csv` is read when present (MindInsight's `MinddataPipelineAnalyser`: its conversions,
display columns and threshold filter), everything else answers what MindInsight answers without data (goldens
167-173). The queue files of the old Ascend/GPU layout are read by legacy_minddata.py."""

from __future__ import annotations

import csv
import json
import logging
from typing import Any

from mindinsight_clone.analyzers.profiler.engine import column_query, conditions
from mindinsight_clone.analyzers.profiler.engine.column_query import Row, Table
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.errors import ProfilerFileNotFoundError
from mindinsight_clone.ingest import storage

log = logging.getLogger(__name__)

PIPELINE_FILE = "minddata_pipeline_raw_{}.csv"
# the file's columns, as MindInsight's MinddataPipelineAnalyser keeps them
ALL_COLUMNS = ("op_id", "op_type", "num_workers", "output_queue_size", "output_queue_average_size",
               "output_queue_length", "output_queue_usage_rate", "sample_interval", "parent_id", "children_id")
SORT_COLUMNS = ("op_id", "op_type", "num_workers", "output_queue_average_size", "output_queue_length",
                "output_queue_usage_rate", "sample_interval", "parent_id")
_OP_ID, _OP_TYPE, _WORKERS, _QUEUE_SIZE, _AVG, _LENGTH, _USAGE, _INTERVAL, _PARENT, _CHILDREN = range(10)


def _json_cell(raw: str | None) -> Any:
    return json.loads(raw) if raw else None


def _row(rec: dict[str, str | None]) -> Row:
    """MindInsight's conversion: ints and floats, None for empty cells, 0 for an empty usage rate."""
    def cell(name: str) -> str:
        return (rec.get(name) or "").strip()

    return [int(cell("op_id")), rec.get("op_type"), int(cell("num_workers")), _json_cell(cell("output_queue_size")),
            float(cell("output_queue_average_size")) if cell("output_queue_average_size") else None,
            int(cell("output_queue_length")) if cell("output_queue_length") else None,
            float(cell("output_queue_usage_rate")) if cell("output_queue_usage_rate") else 0,
            int(cell("sample_interval")), int(cell("parent_id")) if cell("parent_id") else None,
            _json_cell(cell("children_id"))]


def pipeline_table(device: DeviceFiles | None) -> Table:
    """Every column of minddata_pipeline_raw_<id>.csv (empty without the file); unreadable rows are skipped."""
    path = device.file(PIPELINE_FILE) if device else None
    if path is None:
        return Table(ALL_COLUMNS, ())
    rows: list[Row] = []
    skipped = 0
    with storage.open_text(path, newline="") as handle:
        for rec in csv.DictReader(handle):
            try:
                rows.append(_row(rec))
            except (ValueError, TypeError):
                skipped += 1
    if skipped:
        log.warning("%s: %d row(s) skipped (not numbers where numbers belong)", path.name, skipped)
    return Table(ALL_COLUMNS, tuple(rows))


def outside_threshold(rows: list[Row], by_id: dict[int, Row], low: float, high: float) -> list[Row]:
    """MindInsight's `_filter_outside_threshold`: operators whose queue is much emptier than a child's, leaves
    whose queue is below `low`, or only the root when every queue is above `high`."""
    root = None
    leaves: list[Row] = []
    all_high = True
    result: list[Row] = []
    for item in rows:
        if item[_PARENT] is None:
            root = item
            continue
        if item[_USAGE] < high:
            all_high = False
        children = item[_CHILDREN]
        if not children:
            leaves.append(item)
            continue
        for child in children:
            child_row = by_id.get(child)
            if child_row is not None and child_row[_USAGE] - item[_USAGE] > 0.1 and item not in result:
                result.append(item)
    result.extend(leaf for leaf in leaves if leaf[_USAGE] < low)
    return [root] if all_high and root is not None else result


def validate_op_queue_condition(condition: Any) -> tuple[str, dict[str, Any]]:
    body = conditions.check_dict(condition, "condition")
    device_id = conditions.check_device_id(body)
    conditions.check_group(body)
    conditions.check_sort(body, SORT_COLUMNS)
    conditions.check_pipeline_filter(body)
    return device_id, body


def op_queue(device: DeviceFiles | None, condition: dict[str, Any]) -> dict[str, Any]:
    """`minddata-pipeline/op-queue`: filter (`op_id`, `op_type`, `threshold`), sort, page; the detail columns only
    with `is_display_op_detail`."""
    table = pipeline_table(device)
    filters = dict(condition.get("filter_condition") or {})
    detail = filters.pop("is_display_op_detail", False) is True
    threshold = filters.pop("threshold", None)
    rows = column_query.filter_rows(table.rows, table.col_names, filters)
    if isinstance(threshold, list) and len(threshold) == 2:
        rows = outside_threshold(rows, {r[_OP_ID]: r for r in table.rows}, threshold[1], threshold[0])
    size = len(rows)
    rows = column_query.sort_rows(rows, table.col_names, condition.get("sort_condition"))
    rows = column_query.page_rows(rows, condition.get("group_condition"))
    keep = list(range(len(ALL_COLUMNS))) if detail else [_OP_ID, _OP_TYPE, *range(_AVG, len(ALL_COLUMNS))]
    return {"col_name": [ALL_COLUMNS[i] for i in keep], "object": [[row[i] for i in keep] for row in rows],
            "size": size}


def op_and_parent(device: DeviceFiles | None, op_id: int) -> dict[str, Any]:
    """`minddata-pipeline/queue`: the operator, its parent and the queue between them."""
    by_id = {row[_OP_ID]: row for row in pipeline_table(device).rows}
    row = by_id.get(op_id)
    if row is None:
        raise conditions.pipeline_op_error(op_id)

    def brief(r: Row) -> dict[str, Any]:
        return {"op_id": r[_OP_ID], "op_type": r[_OP_TYPE], "num_workers": r[_WORKERS]}

    parent = by_id.get(row[_PARENT]) if row[_PARENT] is not None else None
    queue = None if parent is None else {
        "output_queue_size": row[_QUEUE_SIZE], "output_queue_average_size": row[_AVG],
        "output_queue_length": row[_LENGTH], "output_queue_usage_rate": row[_USAGE],
        "sample_interval": row[_INTERVAL]}
    return {"current_op": brief(row), "parent_op": brief(parent) if parent else None, "queue_info": queue}


def cpu_utilization(device: DeviceFiles | None) -> dict[str, Any]:
    path = device.file("minddata_cpu_utilization_{}.json") if device else None
    if path is None:
        raise ProfilerFileNotFoundError("<Did not find the cpu utilization file.>")
    try:
        data = json.loads(storage.read_bytes(path))
    except (OSError, ValueError):
        raise ProfilerFileNotFoundError("<Did not find the cpu utilization file.>") from None
    return data if isinstance(data, dict) else {}
