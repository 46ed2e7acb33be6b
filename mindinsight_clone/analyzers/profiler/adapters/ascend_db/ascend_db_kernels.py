"""The kernel table (what kernel_details.csv holds) from the database export, as the same `KernelTable` columns
`kernel_table.load_kernels` makes, so ops/search (aicore/aicpu type and detail) does not know the export.

* Compute kernels: `COMPUTE_TASK_INFO` joined to `TASK` on `globalTaskId` (msprof-analyze's kernel query); name,
  type (`opType`), core (`taskType`: AI_CORE, AI_VECTOR_CORE, MIX_AIV, AI_CPU...), block dim, shapes, data types
  and formats are STRING_IDS ids; start = `TASK.startNs`, duration = endNs - startNs; stream and task ids from TASK.
* Communication kernels (core `HCCL`, as kernel_details.csv lists them): `COMMUNICATION_OP` (name `opName`, type
  `opType`), no stream, task, block dim or shapes.
* Step: the `STEP_TIME` step whose [startNs, endNs] holds the kernel's start (none without a schedule).
* Wait: start - end of the previous task on the same stream, over every TASK row (kernels, events, memcpy...),
  0 for a stream's first task, as the text export's `Wait Time(us)`; none for communication kernels.

Rows come in start order (kernel_details.csv's order). A compute kernel missing from TASK has no time: it is
skipped and counted in `problems`. Times are µs as float64 (the text export's ~0.25 µs resolution at today's epoch);
durations are computed on the ns integers, so they are exact.
"""

from __future__ import annotations

import numpy as np

from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import (
    INT_NULL,
    Db,
    DbRef,
    dense_ids,
    ns_to_us,
    open_db,
    span_us,
    strings,
)
from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.column_query import ColumnTable

HCCL = "HCCL"
# stored string column -> COMPUTE_TASK_INFO column (all optional except name / type / core)
_STRINGS = {
    "name": "name", "type": "opType", "core": "taskType",
    "input_shapes": "inputShapes", "input_data_types": "inputDataTypes", "input_formats": "inputFormats",
    "output_shapes": "outputShapes", "output_data_types": "outputDataTypes", "output_formats": "outputFormats",
}
_COMPUTE_REQUIRED = ("globalTaskId", "name", "opType", "taskType")
_TASK_REQUIRED = ("globalTaskId", "startNs", "endNs", "streamId")
_COMM_REQUIRED = ("opName", "opType", "startNs", "endNs")


def _step_of(db: Db, starts_ns: np.ndarray) -> np.ndarray:
    """STEP_TIME id holding each start (NaN outside every step or without STEP_TIME)."""
    out = np.full(starts_ns.shape, np.nan)
    if not db.has("STEP_TIME"):
        return out
    db.require("STEP_TIME", ("id", "startNs", "endNs"))
    steps = sorted((int(s), int(e), i) for i, s, e in db.rows("SELECT id, startNs, endNs FROM STEP_TIME")
                   if None not in (i, s, e))
    for begin, end, step in steps:
        inside = (starts_ns >= begin) & (starts_ns <= end) & (starts_ns != INT_NULL)
        out[inside & np.isnan(out)] = float(step)
    return out


def _wait_ns(task: dict[str, np.ndarray]) -> np.ndarray:
    """Per TASK row: start - end of the previous task on its stream (0 for the first), in TASK's row order."""
    order = np.lexsort((task["start"], task["stream"]))
    start, end, stream = task["start"][order], task["end"][order], task["stream"][order]
    wait = np.zeros(order.size, dtype=np.int64)
    if order.size > 1:
        same = stream[1:] == stream[:-1]
        wait[1:] = np.where(same, start[1:] - end[:-1], 0)
    out = np.empty_like(wait)
    out[order] = wait
    return out


def _compute_rows(db: Db) -> tuple[dict[str, np.ndarray], int]:
    """Compute kernels joined to TASK in numpy (one pass over each table); returns the columns and how many
    kernels had no TASK row."""
    db.require("COMPUTE_TASK_INFO", _COMPUTE_REQUIRED)
    db.require("TASK", _TASK_REQUIRED)
    have = db.tables()["COMPUTE_TASK_INFO"]
    select = {"gid": "globalTaskId", **{key: col for key, col in _STRINGS.items() if col in have}}
    if "blockDim" in have:
        select["block_dim"] = "blockDim"
    compute = db.int_columns(select, "FROM COMPUTE_TASK_INFO")
    task_select = {"gid": "globalTaskId", "start": "startNs", "end": "endNs", "stream": "streamId"}
    if "taskId" in db.tables()["TASK"]:
        task_select["task"] = "taskId"
    task = db.int_columns(task_select, "FROM TASK")
    task["wait"] = _wait_ns(task)
    by_gid = np.argsort(task["gid"], kind="stable")
    sorted_gid = task["gid"][by_gid]
    pos = np.searchsorted(sorted_gid, compute["gid"])
    inside = pos < sorted_gid.size
    found = inside.copy()
    found[inside] = sorted_gid[pos[inside]] == compute["gid"][inside]
    row = by_gid[np.where(found, pos, 0)] if sorted_gid.size else np.zeros(compute["gid"].size, dtype=np.intp)
    out = {k: v[found] for k, v in compute.items()}
    for key in ("start", "end", "stream", "task", "wait"):
        if key in task:
            out[key] = task[key][row][found]
    return out, int((~found).sum())


def _comm_rows(db: Db) -> dict[str, np.ndarray]:
    if not db.has("COMMUNICATION_OP"):
        return {}
    db.require("COMMUNICATION_OP", _COMM_REQUIRED)
    return db.int_columns({"name": "opName", "type": "opType", "start": "startNs", "end": "endNs"},
                          "FROM COMMUNICATION_OP")


def _number(parts: list[tuple[np.ndarray | None, int]]) -> np.ndarray:
    """float64 column from int64 parts (INT_NULL -> NaN); a None part is all NaN."""
    out = []
    for values, size in parts:
        if values is None:
            out.append(np.full(size, np.nan))
        else:
            column = values.astype(np.float64)
            column[values == INT_NULL] = np.nan
            out.append(column)
    return np.concatenate(out) if out else np.empty(0)


def load_kernels(ref: DbRef, cache: ParsedFileCache | None) -> tuple[ColumnTable, tuple[dict[str, str], ...]]:
    """The kernel ColumnTable of a database export and its problems (see the module doc)."""
    report = ascend_csv.ReadReport(ref.label)
    with open_db(ref, cache) as db:
        ids = strings(db, cache)
        compute, orphans = _compute_rows(db)
        comm = _comm_rows(db)
        n_compute = compute["gid"].size
        n_comm = comm["start"].size if comm else 0
        start_ns = np.concatenate([compute["start"], comm["start"] if comm else np.empty(0, dtype=np.int64)])
        end_ns = np.concatenate([compute["end"], comm["end"] if comm else np.empty(0, dtype=np.int64)])
        step = _step_of(db, start_ns)
    if orphans:
        report.skip("compute kernel without a TASK row (no time)", orphans)
    timed = (start_ns != INT_NULL) & (end_ns != INT_NULL)
    if not timed.all():
        report.skip("no start or end time", int((~timed).sum()))
    numbers = {
        "start": ns_to_us(start_ns), "duration": span_us(start_ns, end_ns),
        "wait": _number([(compute.get("wait"), n_compute), (None, n_comm)]) / 1000.0,
        "block_dim": _number([(compute.get("block_dim"), n_compute), (None, n_comm)]),
        "step": step,
        "stream": _number([(compute.get("stream"), n_compute), (None, n_comm)]),
        "task": _number([(compute.get("task"), n_compute), (None, n_comm)]),
    }
    string_ids = _string_columns(compute, comm, n_compute, n_comm)
    order = np.flatnonzero(timed)
    order = order[np.argsort(start_ns[order], kind="stable")]  # kernel_details.csv's order: by start time
    numbers = {k: v[order] for k, v in numbers.items()}
    numbers["end"] = numbers["start"] + numbers["duration"]
    numbers["serial"] = np.arange(1, order.size + 1, dtype=np.float64)
    dense: dict[str, np.ndarray] = {}
    texts: dict[str, tuple[str, ...]] = {}
    for key, raw in string_ids.items():
        dense[key], texts[key] = ids.column(raw[order])
    if n_comm:  # communication kernels: core HCCL (not a STRING_IDS value)
        cores = np.where(order >= n_compute, len(texts["core"]), dense["core"])
        kept, inverse = dense_ids(cores)
        names = (*texts["core"], HCCL)
        texts["core"] = tuple(names[i] for i in kept.tolist())
        dense["core"] = inverse.astype(np.int32)
    report.log()
    return ColumnTable(numbers, dense, texts, int(order.size)), tuple(report.problems())


def _string_columns(compute: dict[str, np.ndarray], comm: dict[str, np.ndarray], n_compute: int,
                    n_comm: int) -> dict[str, np.ndarray]:
    """STRING_IDS ids per string column, compute rows then communication rows (INT_NULL where absent)."""
    out = {}
    for key in _STRINGS:
        first = compute.get(key, np.full(n_compute, INT_NULL, dtype=np.int64))
        second = comm[key] if key in ("name", "type") and comm else np.full(n_comm, INT_NULL, dtype=np.int64)
        out[key] = np.concatenate([first, second])
    return out
