"""`profile/memory-record`: device memory over time per component (memory_record.csv, or MEMORY_RECORD and NPU_MEM of
the database export; read through rank_tables.py) and the largest operator allocations (operator_memory.csv /
OP_MEMORY). Empty cells (APP has only a reserved figure) are null.

The peaks are exact, over every row of every component. Each component's series is downsampled to at most
`max_points` points: the rows are split into equal buckets, and each bucket keeps its rows of highest reserved
and highest allocated memory (in time order), so every peak stays visible in the chart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.errors import MindInsightError, ProfilerFileNotFoundError
from mindinsight_clone.store.downsample import peak_rows

DEFAULT_POINTS = 2000
DEFAULT_TOP = 20


def _cell(value: float) -> float | None:
    return None if value != value else value


def _peak(series: dict[str, np.ndarray], col: int) -> float | None:
    values = [np.nanmax(d[:, col]) for d in series.values() if d.size and not np.isnan(d[:, col]).all()]
    return float(max(values)) if values else None


def memory_record(device: DeviceFiles, max_points: int = DEFAULT_POINTS, top: int = DEFAULT_TOP,
                  cache: ParsedFileCache | None = None) -> dict[str, Any]:
    series, problems = rank_tables.load("memory_record", device, cache)
    problems = list(problems)
    answer: dict[str, Any] = {
        "peak_reserved_mb": _peak(series, 2),
        "peak_allocated_mb": _peak(series, 1),
        "series": {c: [[_cell(v) for v in row] for row in peak_rows(d, max_points, (2, 1)).tolist()]
                   for c, d in series.items()},
        "top_operators": [],
        "points": {c: len(d) for c, d in series.items()},
    }
    ops_label = ascend_csv.label(rank_tables.source("operator_memory", device), device.device_id)
    try:
        ops, op_problems = rank_tables.load("operator_memory", device, cache)
    except ProfilerFileNotFoundError:
        problems.append({"file": ops_label, "message": "missing: no operator list"})
    except MindInsightError as err:
        problems.append({"file": ops_label, "message": err.message})
    else:
        answer["top_operators"] = [dict(o) for o in ops[:top]]
        answer["operator_count"] = len(ops)
        problems.extend(op_problems)
    return with_problems(answer, problems)
