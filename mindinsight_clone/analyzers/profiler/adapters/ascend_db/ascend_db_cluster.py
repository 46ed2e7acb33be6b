"""`profile/cluster-analysis` from `cluster_analysis_output/cluster_analysis.db`, what msprof-analyze writes for a
job of database exports, as the same rows cluster_output.py reads from its CSV/JSON output.

Tables (msprof-analyze's `TablesConfig`; ../shared has no real cluster_analysis.db, so this follows its source and
is tested on a database made from the reference CSV/JSON output): `ClusterStepTraceTime(step, type, index,
computing, ..., preparing)` (µs), `ClusterCommAnalyzerTime(step, rank_id, hccl_op_name, group_name,
start_timestamp, elapsed_time, transit_time, wait_time, synchronization_time, idle_time, ...)` (ms),
`ClusterCommAnalyzerBandwidth(step, rank_id, hccl_op_name, group_name, band_type, transit_size, transit_time,
bandwidth, ...)`, `ClusterCommAnalyzerMatrix(step, hccl_op_name, group_name, src_rank, dst_rank, transit_size,
transit_time, bandwidth, transport_type, op_name)`, `CommunicationGroup(type, rank_set, group_name, ...)`; with
`data_simplification` the communication tables are named ClusterCommunication* and CommunicationGroupMapping.
The op type (p2p / collective) comes from the group's row in CommunicationGroup. Each table is optional; a missing
or broken one is named in `problems`, the others answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import Db, DbRef, open_db
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import num, step_number, step_of, with_problems
from mindinsight_clone.errors import MindInsightError
from mindinsight_clone.ingest.storage import Location

CLUSTER_DB = "cluster_analysis.db"
STEP_COLUMNS = ("computing", "communication_not_overlapped", "overlapped", "communication", "free", "stage", "bubble",
                "communication_not_overlapped_and_exclude_receive", "preparing")
STEP_FIELDS = ("computing_us", "communication_not_overlapped_us", "overlapped_us", "communication_us", "free_us",
               "stage_us", "bubble_us", "communication_not_overlapped_exclude_receive_us", "preparing_us")
_TIMES = ("elapsed_time", "transit_time", "wait_time", "synchronization_time", "idle_time")


def _table(db: Db, *names: str) -> str:
    return next((n for n in names if db.has(n)), names[0])


def _groups(db: Db) -> list[tuple[str, str, list[int]]]:
    """(type, group name, ranks) of each communication group."""
    table = _table(db, "CommunicationGroup", "CommunicationGroupMapping")
    db.require(table, ("type", "rank_set", "group_name"))
    return [(str(kind), str(group), [int(r) for r in re.findall(r"\d+", str(ranks))])
            for kind, ranks, group in db.rows(f'SELECT type, rank_set, group_name FROM "{table}"')]  # noqa: S608


def _step_trace(db: Db) -> list[dict[str, Any]]:
    db.require("ClusterStepTraceTime", ("step", "type", "index", "computing"))
    have = db.tables()["ClusterStepTraceTime"]
    cols = ", ".join(c if c in have else "NULL" for c in STEP_COLUMNS)
    rows = []
    for step, kind, index, *values in db.rows(f'SELECT step, type, "index", {cols} FROM ClusterStepTraceTime '  # noqa: S608
                                              "ORDER BY rowid"):
        text = "" if index is None else str(index)
        rows.append({"step": step_number("" if step is None else str(step)), "type": str(kind),
                     "index": int(text) if text.isdigit() else text,
                     **{k: num(v) for k, v in zip(STEP_FIELDS, values, strict=True)}})
    return rows


def _ratio(part: float | None, transit: float | None) -> float | None:
    if part is None or transit is None:
        return None
    return round(part / (part + transit), 4) if part + transit else 0.0


def _communication(db: Db, kinds: dict[str, str]) -> list[dict[str, Any]]:
    table = _table(db, "ClusterCommAnalyzerTime", "ClusterCommunicationTime")
    db.require(table, ("step", "rank_id", "hccl_op_name", "group_name", *_TIMES))
    band = _table(db, "ClusterCommAnalyzerBandwidth", "ClusterCommunicationBandwidth")
    links: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    if db.has(band):
        db.require(band, ("step", "rank_id", "hccl_op_name", "group_name", "band_type", "transit_size",
                          "transit_time", "bandwidth"))
        columns = "step, rank_id, hccl_op_name, group_name, band_type, transit_size, transit_time, bandwidth"
        for *key, link, size, time_ms, gbps in db.rows(f'SELECT {columns} FROM "{band}" ORDER BY rowid'):  # noqa: S608
            links.setdefault(tuple(key), {}).setdefault(str(link), {"size_mb": num(size), "time_ms": num(time_ms),
                                                                    "gbps": num(gbps)})
    start = "start_timestamp" if "start_timestamp" in db.tables()[table] else "NULL"
    ops = []
    for step, rank, name, group, start_us, *times in db.rows(
            f"SELECT step, rank_id, hccl_op_name, group_name, {start}, {', '.join(_TIMES)} "  # noqa: S608
            f'FROM "{table}" ORDER BY rowid'):
        elapse, transit, wait, sync, idle = (num(t) for t in times)
        ops.append({"name": str(name), "group": str(group), "step": step_of(str(step)), "elapse_time_ms": elapse,
                    "transit_time_ms": transit, "wait_time_ms": wait, "synchronization_time_ms": sync,
                    "idle_time_ms": idle, "wait_time_ratio": _ratio(wait, transit),
                    "synchronization_time_ratio": _ratio(sync, transit),
                    "bandwidth": links.get((step, rank, name, group), {}), "type": kinds.get(str(group)),
                    "start_us": num(start_us), "rank_id": rank})
    return ops


def _matrix(db: Db, kinds: dict[str, str]) -> list[dict[str, Any]]:
    table = _table(db, "ClusterCommAnalyzerMatrix", "ClusterCommunicationMatrix")
    db.require(table, ("step", "hccl_op_name", "group_name", "src_rank", "dst_rank", "transit_size", "transit_time",
                       "bandwidth", "transport_type"))
    cells = []
    columns = ("step, hccl_op_name, group_name, src_rank, dst_rank, transit_size, transit_time, bandwidth, "
               "transport_type")
    for step, op, group, src, dst, size, time_ms, gbps, link in db.rows(
            f'SELECT {columns} FROM "{table}" ORDER BY rowid'):  # noqa: S608
        if str(src).isdigit() and str(dst).isdigit():
            cells.append({"op": str(op), "src": int(src), "dst": int(dst), "transport": link, "size_mb": num(size),
                          "time_ms": num(time_ms), "gbps": num(gbps), "group": str(group),
                          "step": step_of(str(step)), "type": kinds.get(str(group))})
    return cells


def _read(db: Db) -> dict[str, Any]:
    answer: dict[str, Any] = {"available": True, "step_trace": [], "communication": [], "matrix": [],
                              "communication_group": None}
    problems: list[dict[str, Any]] = []
    kinds: dict[str, str] = {}
    try:
        groups = _groups(db)
    except MindInsightError as err:
        problems.append({"file": CLUSTER_DB, "message": err.message})
    else:
        kinds = {group: kind for kind, group, _ in groups}
        grouped: dict[str, list[list[int]]] = {}
        for kind, _, ranks in groups:
            grouped.setdefault(kind, []).append(ranks)
        answer["communication_group"] = grouped
    readers: tuple[tuple[str, Callable[[], Any]], ...] = (
        ("step_trace", lambda: _step_trace(db)), ("communication", lambda: _communication(db, kinds)),
        ("matrix", lambda: _matrix(db, kinds)))
    for key, read in readers:
        try:
            answer[key] = read()
        except MindInsightError as err:
            problems.append({"file": CLUSTER_DB, "message": err.message})
    return with_problems(answer, problems)


def cluster_analysis(path: Location, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    try:
        with open_db(DbRef(path, ""), cache) as db:
            return _read(db)
    except MindInsightError as err:
        return {"available": True, "step_trace": [], "communication": [], "matrix": [], "communication_group": None,
                "problems": [{"file": CLUSTER_DB, "message": err.message}]}
