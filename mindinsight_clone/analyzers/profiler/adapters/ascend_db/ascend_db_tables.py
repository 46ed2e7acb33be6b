"""Step trace, communication and memory from the database export, as the same rows the text readers make
(ascend_text_steps.parse, ascend_text_comm.parse_ops / parse_matrix, ascend_text_memory.parse_record /
parse_operators); rank_tables.py picks them for a database rank.

* Steps: `StepTraceTime` of `analysis.db` / `communication_analyzer.db` (µs, as step_trace_time.csv), else of the
  profiler database itself (where a MindSpore version puts it).
* Communication (profiler Level1+): `CommAnalyzerTime` (ms; one row per op), `CommAnalyzerBandwidth` (one row per
  op, link type and packet size; the link's size MB / time ms / GB/s / large packet ratio repeat on each, `count`
  is the packets of that size), `CommAnalyzerMatrix`. The ratios are communication.json's: wait / (wait + transit)
  and synchronization / (synchronization + transit), 4 decimals; `totals` ("Total Op Info", which the database
  does not store) are the sums over the ops of a step and type, its ratios from those sums, link sizes, times and
  packets summed (no bandwidth), as communication.json has them.
* Memory: `MEMORY_RECORD` (bytes, ns) per component, plus the APP component of memory_record.csv, which the
  database keeps in `NPU_MEM` rows of type `app` (`hbm` bytes, reserved only); `OP_MEMORY` is operator_memory.csv.
  MB = 2^20 bytes, KB = 2^10 bytes (the text export's units).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import (
    INT_NULL,
    Db,
    DbRef,
    has_table,
    ns_to_us,
    profiler_db,
    read_parsed,
    strings,
)
from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import num, step_number, step_of
from mindinsight_clone.analyzers.profiler.layout import ANALYSIS_DBS, DeviceFiles
from mindinsight_clone.errors import ProfilerFileNotFoundError

Problems = list[dict[str, Any]]
LEVEL1 = "written at profiler Level1 and above"
MEMORY_WHY = "written with profile_memory=True"
MB = float(1 << 20)
STEP_TABLE = "StepTraceTime"
# answer field -> StepTraceTime column
STEP_COLUMNS = {
    "computing_us": "computing", "communication_not_overlapped_us": "communication_not_overlapped",
    "overlapped_us": "overlapped", "communication_us": "communication", "free_us": "free", "stage_us": "stage",
    "bubble_us": "bubble",
    "communication_not_overlapped_exclude_receive_us": "communication_not_overlapped_and_exclude_receive",
    "preparing_us": "preparing",
}
STEP_REQUIRED = ("computing_us", "communication_not_overlapped_us", "free_us")  # step_trace_time.csv's too
_TIMES = ("elapse_time", "transit_time", "wait_time", "synchronization_time", "idle_time")


def analysis_db(device: DeviceFiles, why: str = "") -> DbRef:
    path = device.analysis_db
    if path is None:
        detail = f"<{ascend_csv.label(ANALYSIS_DBS[0], device.device_id)}>" + (f" ({why})" if why else "")
        raise ProfilerFileNotFoundError(detail)
    return DbRef(path, device.device_id)


def has_analysis_table(device: DeviceFiles, table: str, cache: ParsedFileCache | None) -> bool:
    """Whether the rank's analysis database holds `table` (CommAnalyzerTime / CommAnalyzerMatrix are written at
    profiler Level1 and above): the database export's answer to "is the text file there"."""
    path = device.analysis_db
    return path is not None and has_table(DbRef(path, device.device_id), table, cache)


def analysis_label(device: DeviceFiles, table: str) -> str:
    """`<table> in analysis.db` (or communication_analyzer.db): what a problem names for a database rank."""
    name = device.analysis_db.name if device.analysis_db is not None else ANALYSIS_DBS[0]
    return f"{table} in {name}"


# --- steps -------------------------------------------------------------------------------------


def _parse_steps(db: Db) -> tuple[list[dict[str, Any]], Problems]:
    db.require(STEP_TABLE, tuple(STEP_COLUMNS[k] for k in STEP_REQUIRED))
    have = db.tables()[STEP_TABLE]
    report = ascend_csv.ReadReport(db.label)
    cols = [c for c in STEP_COLUMNS.values() if c in have]
    step_sql = "step" if "step" in have else "NULL"
    steps: list[dict[str, Any]] = []
    for raw in db.rows(f'SELECT {step_sql}, {", ".join(cols)} FROM "{STEP_TABLE}" ORDER BY rowid'):  # noqa: S608
        values = dict(zip(cols, raw[1:], strict=True))
        row: dict[str, Any] = {"step": step_number("" if raw[0] is None else str(raw[0]))}
        try:
            for key, col in STEP_COLUMNS.items():
                row[key] = ascend_csv.number(str(values[col])) if values.get(col) is not None else None
        except ValueError:
            report.skip("non-numeric time")
            continue
        if any(row[k] is None for k in STEP_REQUIRED):
            report.skip("no computing / communication / free time")
            continue
        steps.append(row)
    if not steps:
        report.note("no readable step")
    report.log()
    return steps, report.problems()


def steps(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[list[dict[str, Any]], Problems]:
    """step_trace_time.csv's rows from StepTraceTime (analysis database first, then the profiler database)."""
    for path in (device.analysis_db, device.profiler_db):
        if path is not None:
            found = read_parsed(DbRef(path, device.device_id), cache, "ascend_db_steps",
                                lambda db: _parse_steps(db) if db.has(STEP_TABLE) else None)
            if found is not None:
                return found
    ref = analysis_db(device)  # raises when there is no analysis database
    raise ProfilerFileNotFoundError(f"<{STEP_TABLE} in {ref.label}>")


# --- communication -----------------------------------------------------------------------------


def _ratio(part: float | None, transit: float | None) -> float | None:
    if part is None or transit is None:
        return None
    return round(part / (part + transit), 4) if part + transit else 0.0


def _bandwidth(db: Db) -> dict[tuple[Any, ...], dict[str, dict[str, Any]]]:
    """(op, group, step, type) -> link type -> {size_mb, time_ms, gbps, large_packet_ratio, packets}: the link's
    figures from its first row (they repeat on each packet-size row), `packets` the rows' `count` summed (what
    communication.json's Size Distribution counts add up to)."""
    have = db.tables()["CommAnalyzerBandwidth"]
    ratio = "large_packet_ratio" if "large_packet_ratio" in have else "NULL"
    count = "count" if "count" in have else "NULL"
    out: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    sql = ("SELECT hccl_op_name, group_name, step, type, transport_type, transit_size, transit_time, "  # noqa: S608
           f"bandwidth, {ratio}, {count} FROM CommAnalyzerBandwidth ORDER BY rowid")
    for op, group, step, kind, link, size, time_ms, gbps, large, packets in db.rows(sql):
        links = out.setdefault((op, group, step, kind), {})
        entry = links.setdefault(str(link), {"size_mb": num(size), "time_ms": num(time_ms), "gbps": num(gbps),
                                             "large_packet_ratio": num(large), "packets": None})
        counted = num(packets)
        if counted is not None:
            entry["packets"] = (entry["packets"] or 0) + int(counted)
    return out


def _parse_ops(db: Db) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Problems]:
    db.require("CommAnalyzerTime", ("hccl_op_name", "group_name", *_TIMES, "step", "type"), LEVEL1)
    problems: Problems = []
    bandwidth: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    if db.has("CommAnalyzerBandwidth"):
        db.require("CommAnalyzerBandwidth", ("hccl_op_name", "group_name", "step", "type", "transport_type",
                                             "transit_size", "transit_time", "bandwidth"))
        bandwidth = _bandwidth(db)
    else:
        problems.append({"file": db.label, "message": "no CommAnalyzerBandwidth table: no bandwidth per link"})
    start = "start_timestamp" if "start_timestamp" in db.tables()["CommAnalyzerTime"] else "NULL"
    ops: list[dict[str, Any]] = []
    sql = (f"SELECT hccl_op_name, group_name, step, type, {start}, {', '.join(_TIMES)} "  # noqa: S608
           "FROM CommAnalyzerTime ORDER BY rowid")
    for name, group, step, kind, start_us, *times in db.rows(sql):
        elapse, transit, wait, sync, idle = (num(t) for t in times)
        ops.append({"name": str(name), "group": "" if group is None else str(group), "step": step_of(str(step)),
                    "elapse_time_ms": elapse, "transit_time_ms": transit, "wait_time_ms": wait,
                    "synchronization_time_ms": sync, "idle_time_ms": idle, "wait_time_ratio": _ratio(wait, transit),
                    "synchronization_time_ratio": _ratio(sync, transit),
                    "bandwidth": bandwidth.get((name, group, step, kind), {}), "type": str(kind),
                    "start_us": num(start_us)})
    return ops, _totals(ops), problems


def _totals(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """communication.json's "Total Op Info" of each step and type, from its ops."""
    groups: dict[tuple[Any, str], list[dict[str, Any]]] = {}
    for op in ops:
        groups.setdefault((op["step"], op["type"]), []).append(op)
    totals = []
    for (step, kind), members in groups.items():
        sums = {f"{t}_ms": sum(o[f"{t}_ms"] or 0.0 for o in members) for t in _TIMES}
        links: dict[str, dict[str, Any]] = {}
        for op in members:
            for link, values in op["bandwidth"].items():
                total = links.setdefault(link, {"size_mb": 0.0, "time_ms": 0.0, "gbps": None,
                                                "large_packet_ratio": None, "packets": None})
                total["size_mb"] += values["size_mb"] or 0.0
                total["time_ms"] += values["time_ms"] or 0.0
                if values.get("packets") is not None:
                    total["packets"] = (total["packets"] or 0) + values["packets"]
        totals.append({"name": "Total Op Info", "group": "", "step": step, **sums,
                       "wait_time_ratio": _ratio(sums["wait_time_ms"], sums["transit_time_ms"]),
                       "synchronization_time_ratio": _ratio(sums["synchronization_time_ms"], sums["transit_time_ms"]),
                       "bandwidth": links, "type": kind, "start_us": None})
    return totals


def _parse_matrix(db: Db) -> tuple[list[dict[str, Any]], int]:
    db.require("CommAnalyzerMatrix", ("hccl_op_name", "group_name", "src_rank", "dst_rank", "transport_type",
                                      "transit_size", "transit_time", "bandwidth", "step", "type"))
    op_name = "op_name" if "op_name" in db.tables()["CommAnalyzerMatrix"] else "NULL"
    cells, bad = [], 0
    sql = ("SELECT hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size, "  # noqa: S608
           f"transit_time, bandwidth, step, type, {op_name} FROM CommAnalyzerMatrix ORDER BY rowid")
    for op, group, src, dst, link, size, time_ms, gbps, step, kind, name in db.rows(sql):
        src_text, dst_text = str(src).strip(), str(dst).strip()
        if not src_text.isdigit() or not dst_text.isdigit():
            bad += 1
            continue
        cells.append({"op": str(op), "src": int(src_text), "dst": int(dst_text), "transport": link,
                      "size_mb": num(size), "time_ms": num(time_ms), "gbps": num(gbps),
                      "group": "" if group is None else str(group), "step": step_of(str(step)), "type": str(kind),
                      "op_name": name})
    return cells, bad


def ops(device: DeviceFiles, cache: ParsedFileCache | None
        ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Problems]:
    """The communication ops and totals (as communication.json's parse gives them) from the analysis database."""
    return read_parsed(analysis_db(device, LEVEL1), cache, "ascend_db_communication", _parse_ops)


def matrix(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[list[dict[str, Any]], int]:
    """The src→dst links (as communication_matrix.json's parse gives them) and how many were skipped."""
    return read_parsed(analysis_db(device, LEVEL1), cache, "ascend_db_matrix", _parse_matrix)


# --- memory ------------------------------------------------------------------------------------


def _mb(values: np.ndarray) -> np.ndarray:
    out = values / MB
    out[values == INT_NULL] = np.nan
    return out


def _parse_record(db: Db, cache: ParsedFileCache | None) -> tuple[dict[str, np.ndarray], Problems]:
    db.require("MEMORY_RECORD", ("component", "timestamp", "totalAllocated", "totalReserved", "totalActive"),
               MEMORY_WHY)
    ids = strings(db, cache)
    cols = db.int_columns({"component": "component", "ts": "timestamp", "allocated": "totalAllocated",
                           "reserved": "totalReserved", "active": "totalActive"}, "FROM MEMORY_RECORD")
    report = ascend_csv.ReadReport(db.label)
    timed = cols["ts"] != INT_NULL
    if not timed.all():
        report.skip("no timestamp", int((~timed).sum()))
    rows = np.column_stack([ns_to_us(cols["ts"]), _mb(cols["allocated"]), _mb(cols["reserved"]),
                            _mb(cols["active"])])[timed]
    dense, names = ids.column(cols["component"][timed])
    series = {names[i]: rows[dense == i] for i in range(len(names))}
    app = _app_rows(db, cache)
    if app is not None and len(app):
        series["APP"] = np.concatenate([series["APP"], app]) if "APP" in series else app
    report.log()
    return {c: d[np.argsort(d[:, 0], kind="stable")] for c, d in series.items()}, report.problems()


def _app_rows(db: Db, cache: ParsedFileCache | None) -> np.ndarray | None:
    """memory_record.csv's APP rows: NPU_MEM rows of type `app` (reserved = hbm)."""
    if not db.has("NPU_MEM") or not {"type", "hbm", "timestampNs"} <= db.tables()["NPU_MEM"]:
        return None
    ids = strings(db, cache)
    app_ids = [int(i) for i, v in zip(ids.ids.tolist(), ids.values, strict=True) if v.strip().lower() == "app"]
    if not app_ids:
        return None
    marks = ", ".join("?" * len(app_ids))
    found = db.rows(f"SELECT timestampNs, hbm FROM NPU_MEM WHERE type IN ({marks}) ORDER BY rowid",  # noqa: S608
                    tuple(app_ids))
    rows = [(ts, hbm) for ts, hbm in found if isinstance(ts, int) and isinstance(hbm, (int, float))]
    ts = np.array([r[0] for r in rows], dtype=np.int64)
    hbm = np.array([r[1] for r in rows], dtype=np.float64) / MB
    nan = np.full(len(rows), np.nan)
    return np.column_stack([ns_to_us(ts), nan, hbm, nan]) if rows else None


def _parse_operators(db: Db, cache: ParsedFileCache | None) -> tuple[list[dict[str, Any]], Problems]:
    db.require("OP_MEMORY", ("name", "size"))
    have = db.tables()["OP_MEMORY"]
    ids = strings(db, cache)
    select = {"name": "name", "size": "size"}
    select.update({k: c for k, c in (("alloc", "allocationTime"), ("release", "releaseTime"),
                                     ("duration", "duration")) if c in have})
    cols = db.int_columns(select, "FROM OP_MEMORY")
    report = ascend_csv.ReadReport(db.label)
    sized = cols["size"] != INT_NULL
    if not sized.all():
        report.skip("no size", int((~sized).sum()))
    dense, names = ids.column(cols["name"][sized])
    size_kb = cols["size"][sized] / 1024.0
    times = {k: ns_to_us(cols[k][sized]) if k in cols else np.full(dense.size, np.nan)
             for k in ("alloc", "release", "duration")}
    times["duration"] = times["duration"] if "duration" not in cols else _ns_span(cols["duration"][sized])
    ops = [{"name": names[n], "size_kb": s, "allocation_time_us": _cell(a), "release_time_us": _cell(r),
            "duration_us": _cell(d)}
           for n, s, a, r, d in zip(dense.tolist(), size_kb.tolist(), times["alloc"].tolist(),
                                    times["release"].tolist(), times["duration"].tolist(), strict=True)]
    ops.sort(key=lambda o: -o["size_kb"])  # stable: equal sizes keep table order
    report.log()
    return ops, report.problems()


def _ns_span(values: np.ndarray) -> np.ndarray:
    out = values / 1000.0
    out[values == INT_NULL] = np.nan
    return out


def _cell(value: float) -> float | None:
    return None if value != value else value


def memory_series(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[dict[str, np.ndarray], Problems]:
    """ascend_text_memory.parse_record's (series, problems) from MEMORY_RECORD and NPU_MEM."""
    ref = profiler_db(device)
    return read_parsed(ref, cache, "ascend_db_memory_record", lambda db: _parse_record(db, cache))


def operators(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[list[dict[str, Any]], Problems]:
    """ascend_text_memory.parse_operators's (operators, problems) from OP_MEMORY; ProfilerFileNotFoundError without
    it."""
    ref = profiler_db(device)
    return read_parsed(ref, cache, "ascend_db_operator_memory", lambda db: _parse_operators(db, cache))
