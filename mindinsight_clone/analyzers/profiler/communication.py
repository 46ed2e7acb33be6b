"""`profile/communication` of one rank: its communication ops (per step and group, with link bandwidth), the
profiler's per-step totals, and its src→dst links (written at profiler Level1+). Read through rank_tables.py from
communication.json / communication_matrix.json (ascend_text_comm.py) or the analysis database's CommAnalyzer*
tables (ascend_db_tables.py); `Total Op Info` is answered apart in `totals`, so `ops` holds real operators only.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import ascend_csv, rank_tables
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.errors import MindInsightError

Rows = list[dict[str, Any]]


def ops_for(device: DeviceFiles, cache: ParsedFileCache | None = None) -> tuple[Rows, Rows, Rows]:
    """The communication of a rank: (ops, totals, problems), cached; the rows are shared (read only).
    ProfilerFileNotFoundError when the rank has none."""
    ops: tuple[Rows, Rows, Rows] = rank_tables.load("comm_ops", device, cache)
    return ops


def matrix_for(device: DeviceFiles, cache: ParsedFileCache | None = None) -> tuple[Rows, Rows]:
    """The src→dst links of a rank: (cells, problems), cached; ProfilerFileNotFoundError when the rank has none,
    ProfilerRawFileError when they cannot be read."""
    cells: tuple[Rows, Rows] = rank_tables.load("comm_matrix", device, cache)
    return cells


def has_ops(device: DeviceFiles, cache: ParsedFileCache | None = None) -> bool:
    """Whether the rank wrote its communication ops (profiler Level1+)."""
    return rank_tables.has("comm_ops", device, cache)


def has_matrix(device: DeviceFiles, cache: ParsedFileCache | None = None) -> bool:
    """Whether the rank wrote its src→dst links (profiler Level1+)."""
    return rank_tables.has("comm_matrix", device, cache)


def ops_label(device: DeviceFiles) -> str:
    """What a problem names as the source of the rank's communication ops."""
    return rank_tables.source("comm_ops", device)


def matrix_label(device: DeviceFiles) -> str:
    return rank_tables.source("comm_matrix", device)


def _label(device: DeviceFiles) -> str:
    return ascend_csv.label(matrix_label(device), device.device_id)


def communication(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    ops, totals, op_problems = ops_for(device, cache)
    problems = list(op_problems)
    matrix: Rows = []
    if not has_matrix(device, cache):
        problems.append({"file": _label(device), "message": "missing: no src→dst matrix"})
    else:
        try:
            matrix, link_problems = matrix_for(device, cache)
        except MindInsightError as err:
            problems.append({"file": _label(device), "message": err.message})
        else:
            problems.extend(link_problems)
    answer: dict[str, Any] = {"ops": [dict(o) for o in ops], "matrix": [dict(m) for m in matrix],
                              "totals": [dict(t) for t in totals]}
    if problems:
        answer["problems"] = problems
    return answer
