"""Column definitions of the profiler tables (`GET profile/columns`): what each column of an answer holds.

A client must not guess a unit from a column's name (`execution_time` of `aicore_type` is milliseconds,
`total_time_us` beside it microseconds; `total_time_proportion` is a percent in `cpu_op_type` and a fraction in
`cpu_op_info`). So the unit of every column is declared here, per table, as this server answers it:

* `unit`: `us`, `ms` (times), `percent` (0..100), `fraction` (0..1), `count`, or null (text, ids, shapes);
* `timestamp: true`: an absolute time (µs since the epoch); Ascend kernel answers carry `time_origin_us`, the
  profile's start (the rank's first kernel), to show them relative to.

Tables: every `op_type` of `POST profile/ops/search` (the Ascend output's columns included, a superset of
MindInsight's), our `operator-details` / `api-statistic`, and `steps` (profile/step-trace-time, from any format).
`old_layout` describes what ops/search answers over a MindSpore <= 2.2 profile (MindInsight's own columns).
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.ascend_text import ascend_tables
from mindinsight_clone.analyzers.profiler.adapters.ascend_text.ascend_text_steps import FIELDS
from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_ops, legacy_steps
from mindinsight_clone.analyzers.profiler.views import ascend_ops, op_stats

US, MS, PERCENT, FRACTION, COUNT = "us", "ms", "percent", "fraction", "count"

# Columns whose meaning is the same in every table that has them.
_SHARED: dict[str, str | None] = {
    "execution_frequency": COUNT, "type_occurrences": COUNT, "op_occurrences": COUNT, "occurrences": COUNT,
    "count": COUNT, "cuda_activity_call_count": COUNT, "percent": PERCENT, "total_percent": PERCENT,
    "total_time_us": US, "avg_time_us": US, "min_time_us": US, "max_time_us": US, "duration_us": US,
    "wait_time_us": US, "start_time_us": US,
}
# Per table: the columns whose unit depends on the table (or is not in _SHARED).
_TABLES: dict[str, dict[str, str | None]] = {
    "cpu_op_type": {"total_compute_time": US, "avg_time": US, "total_time_proportion": PERCENT},
    "cpu_op_info": {"op_total_time": US, "op_avg_time": US, "total_time_proportion": FRACTION},
    "gpu_op_type": {"total_time": US, "avg_time": US},
    "gpu_op_info": {"op_total_time": US, "op_avg_time": US, "proportion": PERCENT, "cuda_activity_cost_time": US},
    "gpu_cuda_activity": {"total_duration": US, "avg_duration": US, "max_duration": US, "min_duration": US},
    "aicore_type": {"execution_time": MS},
    "ascend_type": {"execution_time": MS},
    "ascend_detail": {"avg_execution_time": MS},
    "aicpu_type": {"execution_time": MS},
    "aicore_detail": {"avg_execution_time": MS},
    "aicpu_detail": {"total_time": MS, "dispatch_time": MS, "run_start": US, "run_end": US},
    "gpu_op_type_info": {"duration": US},
    "gpu_cuda_type_info": {"duration": US},
    "operator-details": {c: US for c in ascend_tables.OPERATOR_DETAILS.col_names if c.endswith("_us")},
    "api-statistic": {"time_us": US, "avg_us": US, "min_us": US, "max_us": US, "count": COUNT},
    "steps": {c: US for c in (*FIELDS, *legacy_steps.TRACE_FIELDS.values())},
}
# The old layout's ops/search tables (legacy_ops.COLUMNS: MindInsight 2.3.1's): its files hold ms, its answers µs,
# where the same names in the newer tables are ms.
_OLD_LAYOUT: dict[str, dict[str, str | None]] = {
    "aicore_type": {"total_time": US, "avg_time": US},
    "aicore_detail": {"avg_execution_time": US},
    "aicpu_type": {"total_time": US},
    "aicpu_detail": {"avg_execution_time": US, "dispatch_time": US},
}
# Absolute times (µs since the epoch) per table.
_TIMESTAMPS: dict[str, tuple[str, ...]] = {
    "aicore_detail": ("start_time_us",),
    "ascend_detail": ("start_time_us",),
    "aicpu_detail": ("start_time_us", "run_start", "run_end"),
}


def table_columns(table: str) -> tuple[str, ...]:
    """Every column a table can answer, in answer order (the Ascend output's columns extend MindInsight's)."""
    if table in ascend_tables.TABLES:
        return ascend_tables.TABLES[table].col_names
    if table == "steps":
        return ("step", *FIELDS, *legacy_steps.TRACE_FIELDS.values())
    if table in ascend_ops.ALL_CORES:
        return ascend_ops.ASCEND_COLUMNS[table]
    base = op_stats.columns(table)
    wider = ascend_ops.ASCEND_COLUMNS.get(table, ())
    return (*wider, *(c for c in base if c not in wider)) if wider else base


def definition(table: str, column: str, units: dict[str, str | None] | None = None) -> dict[str, Any]:
    units = _TABLES.get(table, {}) if units is None else units
    entry: dict[str, Any] = {"name": column, "unit": units[column] if column in units else _SHARED.get(column)}
    if column in _TIMESTAMPS.get(table, ()):
        entry["timestamp"] = True
    return entry


def all_tables() -> dict[str, list[dict[str, Any]]]:
    names = (*op_stats.OP_TYPES, *ascend_ops.ALL_CORES, *ascend_tables.TABLES, "steps")
    return {t: [definition(t, c) for c in table_columns(t)] for t in names}


def old_layout_tables() -> dict[str, list[dict[str, Any]]]:
    return {t: [definition(t, c, _OLD_LAYOUT[t]) for c in cols] for t, cols in legacy_ops.COLUMNS.items()}
