"""`POST profile/ops/search` over Ascend output: `aicore_type`, `aicore_detail`, `aicpu_type`, `aicpu_detail`.

* `*_type`: one row per operator type and core from `op_statistic.csv`; where it is absent (profiler Level0), the
  same table aggregated from `kernel_details.csv` by `Type` and `Accelerator Core` (HCCL kernels are left out, as
  op_statistic.csv does). MindInsight's four columns come first (`execution_time` is the type's total in ms,
  `percent` its share of the total), then `core_type` and the µs figures.
* `*_detail`: one row per kernel from `kernel_details.csv` (MindInsight's columns first, then name, core, start,
  duration, wait, block dim, shapes, dtypes, formats, step, stream and task ids).
* `aicpu_*` are the rows whose core is `AI_CPU`; `aicore_*` are all the others (MindInsight's split);
  `ascend_type` / `ascend_detail` are every core (AI_CORE, AI_VECTOR_CORE, MIX_*, AI_CPU), so a page can show
  one table whose shares sum to 100 %.

kernel_details.csv is read into numpy columns (csv_columns.py, column_query.py), so a million rows cost tens of MB.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters.ascend_text.kernel_table import (
    AI_CPU,
    HCCL,
    TYPE_COLUMNS,
    KernelTable,
    core_mask,
    type_row,
)
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.column_query import AnswerColumn, Row, Table, query, query_rows
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles

DETAIL_EXTRA = (
    AnswerColumn("core_type", "core", "str"),
    AnswerColumn("step_id", "step", "int"),
    AnswerColumn("stream_id", "stream", "int"),
    AnswerColumn("task_id", "task", "int"),
    AnswerColumn("start_time_us", "start", "num", digits=3),
    AnswerColumn("duration_us", "duration", "num"),
    AnswerColumn("wait_time_us", "wait", "num"),
    AnswerColumn("block_dim", "block_dim", "int"),
    AnswerColumn("input_shapes", "input_shapes", "str"),
    AnswerColumn("input_data_types", "input_data_types", "str"),
    AnswerColumn("input_formats", "input_formats", "str"),
    AnswerColumn("output_shapes", "output_shapes", "str"),
    AnswerColumn("output_data_types", "output_data_types", "str"),
    AnswerColumn("output_formats", "output_formats", "str"),
)
AICORE_DETAIL = (
    AnswerColumn("op_name", "name", "str"),
    AnswerColumn("op_type", "type", "str"),
    AnswerColumn("avg_execution_time", "duration", "num", scale=0.001, digits=6),  # ms (MindInsight)
    AnswerColumn("subgraph", kind="const", const=""),
    AnswerColumn("full_op_name", "name", "str"),
    AnswerColumn("op_info", kind="const", const=None),
    *DETAIL_EXTRA,
)
AICPU_DETAIL = (
    AnswerColumn("serial_number", "serial", "int"),
    AnswerColumn("op_type", "type", "str"),
    AnswerColumn("total_time", "duration", "num", scale=0.001, digits=6),  # ms
    AnswerColumn("dispatch_time", kind="const", const=None),  # not in kernel_details.csv
    AnswerColumn("run_start", "start", "num", digits=3),  # µs
    AnswerColumn("run_end", "end", "num", digits=3),  # µs
    AnswerColumn("op_name", "name", "str"),
    *DETAIL_EXTRA,
)
# this project's own op types: all cores in one table (not MindInsight's; only over Ascend output)
ALL_CORES = {"ascend_type": "aicore_type", "ascend_detail": "aicore_detail"}  # -> the table with its columns
ASCEND_COLUMNS: dict[str, tuple[str, ...]] = {
    "ascend_type": TYPE_COLUMNS,
    "ascend_detail": tuple(c.name for c in AICORE_DETAIL),
    "aicore_type": TYPE_COLUMNS,
    "aicpu_type": TYPE_COLUMNS,
    "aicore_detail": tuple(c.name for c in AICORE_DETAIL),
    "aicpu_detail": tuple(c.name for c in AICPU_DETAIL),
}


def types_label(device: DeviceFiles) -> str:
    """What a problem names as the source of the rank's operator types."""
    return rank_tables.source("op_statistic" if rank_tables.has("op_statistic", device) else "kernels", device)


def detail(device: DeviceFiles, op_type: str, condition: dict[str, Any],
           cache: ParsedFileCache | None = None) -> dict[str, Any]:
    kernels: KernelTable = rank_tables.load("kernels", device, cache)
    aicpu = _cores(op_type)
    answer = query(kernels.subset(aicpu), AICPU_DETAIL if aicpu else AICORE_DETAIL, condition)
    starts = kernels.table.numbers["start"]
    # the profile's start (the rank's first kernel): timestamp columns are shown relative to it (column_defs.py)
    answer["time_origin_us"] = round(float(starts.min()), 3) if starts.size else None
    return with_problems(answer, kernels.problems)


def _cores(op_type: str) -> bool | None:
    """Which rows an op type holds: AI_CPU (True), the other cores (False) or all (None)."""
    return None if op_type in ALL_CORES else op_type.startswith("aicpu_")


def aggregate_types(kernels: KernelTable, aicpu: bool | None) -> tuple[Row, ...]:
    """op_statistic.csv's table from kernel rows: per (Type, Accelerator Core), HCCL kernels left out, the longest
    total first; the percent is of all non-HCCL kernel time (AI_CPU included), as op_statistic.csv's Ratio(%)."""
    table = kernels.table
    cores = table.strings["core"]
    is_hccl = np.array([c == HCCL for c in cores], dtype=bool)
    compute = ~is_hccl[table.ids["core"]] if cores else np.zeros(table.length, dtype=bool)
    keep = compute if aicpu is None else core_mask(table, aicpu) & compute
    types, core_ids, dur = table.ids["type"][keep], table.ids["core"][keep], table.numbers["duration"][keep]
    if dur.size == 0:
        return ()
    grand = float(table.numbers["duration"][compute].sum()) or 1.0  # Ratio(%) is of all device compute time
    order = np.lexsort((core_ids, types))
    types, core_ids, dur = types[order], core_ids[order], dur[order]
    starts = np.flatnonzero(np.r_[True, (types[1:] != types[:-1]) | (core_ids[1:] != core_ids[:-1])])
    counts = np.diff(np.r_[starts, dur.size])
    totals = np.add.reduceat(dur, starts)
    mins, maxs = np.minimum.reduceat(dur, starts), np.maximum.reduceat(dur, starts)
    rows = []
    for i, start in enumerate(starts.tolist()):
        total = float(totals[i])
        rows.append(type_row(table.strings["type"][types[start]], cores[core_ids[start]], int(counts[i]),
                              round(total, 3), float(mins[i]), round(total / counts[i], 3), float(maxs[i]),
                              round(total / grand * 100, 3)))
    rows.sort(key=lambda r: -r[5])  # op_statistic.csv's order: the longest total first (stable for ties)
    return tuple(rows)


def types(device: DeviceFiles, op_type: str, condition: dict[str, Any],
          cache: ParsedFileCache | None = None) -> dict[str, Any]:
    aicpu = _cores(op_type)
    if rank_tables.has("op_statistic", device):
        every, problems = rank_tables.load("op_statistic", device, cache)
        rows = every if aicpu is None else tuple(r for r in every if (r[4] == AI_CPU) == aicpu)
    else:
        kernels = rank_tables.load("kernels", device, cache)
        rows, problems = aggregate_types(kernels, aicpu), list(kernels.problems)
    source = types_label(device)
    answer = query_rows(Table(TYPE_COLUMNS, rows), condition)
    answer["source"] = source
    return with_problems(answer, problems)


def search(device: DeviceFiles, op_type: str, condition: dict[str, Any],
           cache: ParsedFileCache | None = None) -> dict[str, Any]:
    if op_type.endswith("_type"):
        return types(device, op_type, condition, cache)
    return detail(device, op_type, condition, cache)
