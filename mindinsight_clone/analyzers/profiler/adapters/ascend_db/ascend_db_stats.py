"""Two more tables of a rank from the database export, as the text readers make them:

* `npu_module_mem.csv` (`profile/npu-module-mem`) = `NPU_MODULE_MEM(moduleId, timestampNs, totalReserved)`, the
  module named through `ENUM_MODULE(id, name)` (an id it lacks is `UNKNOWN`, as msprof writes it); bytes -> MB
  (2^20, the text file's `Total Reserved(MB)`), ns -> µs.
* `api_statistic.csv` (`profile/api-statistic`) = msprof's per-API aggregation of `CANN_API(startNs, endNs, type,
  name)`: one row per (API name, level), the level the `ENUM_API_TYPE` name of `type` (acl, node, hccl, runtime...),
  the name through `STRING_IDS`. As msprof's ApiStatisticViewer computes it (msprof `analysis/viewer/
  api_statistic_viewer.py`, checked against the text fixture's api_statistic.csv and trace_view.json): durations in
  µs, `Time` = their sum rounded to 3 decimals, `Avg` = round(Time / Count, 3), `Min` / `Max` rounded to 3,
  `Variance` = the mean of the squared deviations from that rounded average, each rounded to 3 decimals, the mean
  rounded to 3 (population variance, µs²). Rows come ordered by API name, then level (msprof's ORDER BY).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import (
    INT_NULL,
    Db,
    profiler_db,
    read_parsed,
    strings,
)
from mindinsight_clone.analyzers.profiler.adapters.ascend_text.ascend_text_memory import by_component
from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.column_query import Row
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles

Problems = list[dict[str, Any]]
MB = float(1 << 20)
UNKNOWN = "UNKNOWN"  # msprof's name for a module id without a name
MODULE_WHY = "written with profile_memory=True"
API_WHY = "written when the CANN layer is profiled"


def _enum(db: Db, table: str) -> dict[int, str]:
    """id -> name of an ENUM_* table ({} without it)."""
    if not db.has(table):
        return {}
    db.require(table, ("id", "name"))
    return {int(i): str(n) for i, n in db.rows(f'SELECT id, name FROM "{table}"') if i is not None}  # noqa: S608


# --- NPU_MODULE_MEM ------------------------------------------------------------------------------------


def _parse_module_mem(db: Db) -> tuple[dict[str, np.ndarray], Problems]:
    db.require("NPU_MODULE_MEM", ("moduleId", "timestampNs", "totalReserved"), MODULE_WHY)
    names = _enum(db, "ENUM_MODULE")
    report = ascend_csv.ReadReport(f"NPU_MODULE_MEM in {db.label}")
    rows: dict[str, list[tuple[float, float, float, float]]] = {}
    sql = "SELECT moduleId, CAST(timestampNs AS INTEGER), totalReserved FROM NPU_MODULE_MEM ORDER BY rowid"
    for module, ts, reserved in db.rows(sql):
        if ts is None or not isinstance(reserved, int | float):
            report.skip("no timestamp or size")
            continue
        name = names.get(module, UNKNOWN) if isinstance(module, int) else UNKNOWN
        rows.setdefault(name, []).append((ts // 1000 + (ts % 1000) / 1000.0, np.nan, reserved / MB, np.nan))
    report.log()
    return by_component(rows), report.problems()


def module_mem_series(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[dict[str, np.ndarray], Problems]:
    """ascend_text_memory.parse_module_mem's (component -> [ts_us, NaN, reserved_mb, NaN] rows, problems) from
    NPU_MODULE_MEM."""
    return read_parsed(profiler_db(device), cache, "ascend_db_npu_module_mem", _parse_module_mem)


# --- CANN_API ------------------------------------------------------------------------------------------


def _api_row(level: str, name: str, durations: list[float]) -> Row:
    """api_statistic.csv's row of one API (msprof's ApiStatisticViewer._api_statistic_reformat)."""
    count = len(durations)
    total = round(sum(durations), 3)
    avg = round(total / count, 3)
    variance = round(sum(round((d - avg) ** 2, 3) for d in durations) / count, 3)
    return [level, name, total, count, avg, round(min(durations), 3), round(max(durations), 3), variance]


def _parse_api_statistic(db: Db, cache: ParsedFileCache | None) -> tuple[tuple[Row, ...], Problems]:
    db.require("CANN_API", ("startNs", "endNs", "type", "name"), API_WHY)
    levels = _enum(db, "ENUM_API_TYPE")
    ids = strings(db, cache)
    cols = db.int_columns({"type": "type", "name": "name", "start": "startNs", "end": "endNs"}, "FROM CANN_API")
    report = ascend_csv.ReadReport(f"CANN_API in {db.label}")
    timed = (cols["start"] != INT_NULL) & (cols["end"] != INT_NULL) & (cols["end"] >= cols["start"])
    if not timed.all():
        report.skip("no start / end time, or an end before the start", int((~timed).sum()))
    kinds, names = cols["type"][timed], cols["name"][timed]
    durations = (cols["end"][timed] - cols["start"][timed]) / 1000.0
    dense, texts = ids.column(names)
    order = np.lexsort((kinds, dense))
    kinds, dense, durations = kinds[order], dense[order], durations[order]
    rows: list[tuple[str, str, Row]] = []
    if durations.size:
        starts = np.flatnonzero(np.r_[True, (kinds[1:] != kinds[:-1]) | (dense[1:] != dense[:-1])])
        for begin, end in zip(starts.tolist(), [*starts[1:].tolist(), int(durations.size)], strict=True):
            kind = int(kinds[begin])
            level = levels.get(kind, str(kind)) if kind != INT_NULL else ""
            name = texts[int(dense[begin])]
            rows.append((name, level, _api_row(level, name, durations[begin:end].tolist())))
    rows.sort(key=lambda r: (r[0], r[1]))
    report.log()
    return tuple(r[2] for r in rows), report.problems()


def api_statistic_rows(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[tuple[Row, ...], Problems]:
    """api_statistic.csv's rows (level, api_name, time_us, count, avg_us, min_us, max_us, variance) from CANN_API."""
    return read_parsed(profiler_db(device), cache, "ascend_db_api_statistic",
                       lambda db: _parse_api_statistic(db, cache))
