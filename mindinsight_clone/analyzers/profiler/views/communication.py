"""`profile/communication` of one rank: its communication ops (per step and group, with link bandwidth), the
profiler's per-step totals, and its src→dst links (written at profiler Level1+). Read through rank_tables.py from
communication.json / communication_matrix.json (ascend_text_comm.py) or the analysis database's CommAnalyzer*
tables (ascend_db_tables.py); `Total Op Info` is answered apart in `totals`, so `ops` holds real operators only.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.errors import MindInsightError

Rows = list[dict[str, Any]]


def _label(device: DeviceFiles) -> str:
    return ascend_csv.label(rank_tables.source("comm_matrix", device), device.device_id)


def communication(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    ops, totals, op_problems = rank_tables.load("comm_ops", device, cache)
    problems = list(op_problems)
    matrix: Rows = []
    if not rank_tables.has("comm_matrix", device, cache):
        problems.append({"file": _label(device), "message": "missing: no src→dst matrix"})
    else:
        try:
            matrix, link_problems = rank_tables.load("comm_matrix", device, cache)
        except MindInsightError as err:
            problems.append({"file": _label(device), "message": err.message})
        else:
            problems.extend(link_problems)
    answer: dict[str, Any] = {"ops": [dict(o) for o in ops], "matrix": [dict(m) for m in matrix],
                              "totals": [dict(t) for t in totals]}
    return with_problems(answer, problems)
