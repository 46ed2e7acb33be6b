"""The timeline (what trace_view.json holds) from the database export, as the same `TraceColumns` that
trace_events.load_trace makes, so timeline / timeline-summary do not know the export.

Processes and threads, named by `process_name` / `thread_name` metadata as trace_view.json names them:

* **Python**: `PYTORCH_API` (startNs/endNs stored as TEXT), cat `cpu_op`; threads: low 32 bits of `globalTid`.
* **CANN**: `CANN_API`, args `level` (ENUM_API_TYPE); threads as Python.
* **Ascend Hardware**: every `TASK` row but the communication tasks, named by the kernel (COMPUTE_TASK_INFO) or
  the task type; threads `Stream <streamId>`.
* **HCCL**: `COMMUNICATION_OP` on `Group <n> Communication` (one thread per group), the tasks of
  `COMMUNICATION_TASK_INFO` (times from TASK) on `Plane <planeId>`.
* **Overlap Analysis** (computed): Computing (compute kernels merged), Communication (ops merged),
  Communication(Not Overlapped) (communication minus computing), Free (gaps between the two).

A table that is absent (e.g. PYTORCH_API of a MindSpore export) leaves its lanes out; hardware counters (HBM, LLC,
NPU_MEM...) and flow arrows are not drawn. Times are µs (float64), durations exact from the ns integers.
Arguments are interned (one blob per distinct value combination), so a million events cost tens of MB.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from mindinsight_clone.analyzers.profiler.adapters.ascend_db.ascend_db import (
    INT_NULL,
    Db,
    DbRef,
    StringIds,
    dense_ids,
    ns_to_us,
    open_db,
    profiler_db,
    span_us,
    strings,
)
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.engine.trace_engine import TRACE_CODEC
from mindinsight_clone.analyzers.profiler.engine.trace_events import TraceColumns
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles

# (pid, process name, sort index, label)
PYTHON, CANN, HARDWARE, HCCL, OVERLAP = 1, 2, 3, 4, 5
PROCESSES = ((PYTHON, "Python", 0, "CPU"), (CANN, "CANN", 7, "CPU"), (HARDWARE, "Ascend Hardware", 13, "NPU"),
             (HCCL, "HCCL", 15, "NPU"), (OVERLAP, "Overlap Analysis", 23, "NPU"))
OVERLAP_LANES = ("Computing", "Communication", "Communication(Not Overlapped)", "Free")
TID_MASK = 0xFFFFFFFF


@dataclass
class _Builder:
    """Collects events as columns; strings, pid/tid values and args blobs are interned."""

    ids: StringIds
    strings: dict[str, int] = field(default_factory=dict)
    values: dict[int, int] = field(default_factory=dict)
    blobs: dict[bytes, int] = field(default_factory=dict)
    parts: dict[str, list[np.ndarray]] = field(default_factory=lambda: {k: [] for k in (
        "ph", "name", "cat", "pid", "tid", "ts", "dur", "args", "extra")})

    def text(self, value: str) -> int:
        return self.strings.setdefault(value, len(self.strings))

    def texts(self, values: tuple[str, ...]) -> np.ndarray:
        return np.array([self.text(v) for v in values], dtype=np.int32)

    def string_column(self, raw_ids: np.ndarray) -> np.ndarray:
        """STRING_IDS ids -> ids into this trace's strings."""
        dense, texts = self.ids.column(raw_ids)
        return self.texts(texts)[dense] if dense.size else np.empty(0, dtype=np.int32)

    def value_column(self, values: np.ndarray) -> np.ndarray:
        uniques, inverse = dense_ids(values)
        mapped = np.array([self.values.setdefault(int(v), len(self.values)) for v in uniques.tolist()],
                          dtype=np.int32)
        return mapped[inverse] if values.size else np.empty(0, dtype=np.int32)

    def blob_column(self, keys: np.ndarray, make: Any) -> np.ndarray:
        """Args blobs: `keys` (rows of ints) -> `make(row)` dict, serialised once per distinct row."""
        n = keys.shape[0]
        if n == 0:
            return np.empty(0, dtype=np.int32)
        combined = np.zeros(n, dtype=np.int64)
        for i in range(keys.shape[1]):  # one dense id per distinct row, column by column
            uniques, inverse = dense_ids(keys[:, i])
            combined = dense_ids(combined * uniques.size + inverse)[1]
        rows = np.zeros(int(combined.max()) + 1, dtype=np.intp)
        rows[combined] = np.arange(n)  # a row holding each distinct key
        mapped = [self.blobs.setdefault(orjson.dumps(make(row)), len(self.blobs)) for row in keys[rows].tolist()]
        return np.array(mapped, dtype=np.int32)[combined]

    def add(self, *, name: np.ndarray, pid: int, tid: np.ndarray, start_ns: np.ndarray, end_ns: np.ndarray,
            cat: str = "", args: np.ndarray | None = None) -> None:
        n = name.size
        self.parts["ph"].append(np.full(n, self.text("X"), dtype=np.int32))
        self.parts["name"].append(name.astype(np.int32))
        self.parts["cat"].append(np.full(n, self.text(cat), dtype=np.int32))
        self.parts["pid"].append(np.full(n, self.values.setdefault(pid, len(self.values)), dtype=np.int32))
        self.parts["tid"].append(self.value_column(tid))
        self.parts["ts"].append(ns_to_us(start_ns))
        self.parts["dur"].append(span_us(start_ns, end_ns))
        self.parts["args"].append(args if args is not None else np.full(n, -1, dtype=np.int32))
        self.parts["extra"].append(np.full(n, -1, dtype=np.int32))

    def meta(self, name: str, pid: int, tid: int, args: dict[str, Any]) -> None:
        blob = orjson.dumps(args)
        self.parts["ph"].append(np.array([self.text("M")], dtype=np.int32))
        self.parts["name"].append(np.array([self.text(name)], dtype=np.int32))
        self.parts["cat"].append(np.array([self.text("")], dtype=np.int32))
        self.parts["pid"].append(self.value_column(np.array([pid])))
        self.parts["tid"].append(self.value_column(np.array([tid])))
        self.parts["ts"].append(np.array([np.nan]))
        self.parts["dur"].append(np.array([np.nan]))
        self.parts["args"].append(np.array([self.blobs.setdefault(blob, len(self.blobs))], dtype=np.int32))
        self.parts["extra"].append(np.array([-1], dtype=np.int32))

    def thread(self, pid: int, tid: int, name: str, sort: int) -> None:
        self.meta("thread_name", pid, tid, {"name": name})
        self.meta("thread_sort_index", pid, tid, {"sort_index": sort})

    def build(self, problems: list[str]) -> TraceColumns:
        merged = {k: np.concatenate(v) if v else np.empty(0, dtype=np.float64 if k in ("ts", "dur") else np.int32)
                  for k, v in self.parts.items()}
        return TraceColumns(**merged, strings=tuple(self.strings), values=tuple(self.values),
                            blobs=tuple(self.blobs), problems=tuple(problems))


def _threads(builder: _Builder, pid: int, tids: np.ndarray, label: str) -> None:
    for tid in dense_ids(tids)[0].tolist():
        builder.thread(pid, int(tid), label.format(tid), int(tid))


def _host_apis(db: Db, builder: _Builder, enum_names: dict[int, str]) -> None:
    if db.has("PYTORCH_API"):
        db.require("PYTORCH_API", ("startNs", "endNs", "globalTid", "name"))
        have = db.tables()["PYTORCH_API"]
        select = {"start": "startNs", "end": "endNs", "gtid": "globalTid", "name": "name"}
        select.update({k: c for k, c in (("dims", "inputShapes"), ("dtypes", "inputDtypes")) if c in have})
        cols = db.int_columns(select, "FROM PYTORCH_API")  # CAST(... AS INTEGER) reads the TEXT times
        tids = cols["gtid"] & TID_MASK
        keys = np.column_stack([cols.get("dims", np.full(tids.size, INT_NULL)),
                                cols.get("dtypes", np.full(tids.size, INT_NULL))])
        ids = builder.ids
        args = builder.blob_column(keys, lambda row: {k: ids.text(v) for k, v in (("Input Dims", row[0]),
                                                                                  ("Input type", row[1]))
                                                      if v != INT_NULL})
        builder.add(name=builder.string_column(cols["name"]), pid=PYTHON, tid=tids, start_ns=cols["start"],
                    end_ns=cols["end"], cat="cpu_op", args=args)
        _threads(builder, PYTHON, tids, "Thread {}")
    if db.has("CANN_API"):
        db.require("CANN_API", ("startNs", "endNs", "globalTid", "name"))
        have = db.tables()["CANN_API"]
        select = {"start": "startNs", "end": "endNs", "gtid": "globalTid", "name": "name"}
        if "type" in have:
            select["type"] = "type"
        cols = db.int_columns(select, "FROM CANN_API")
        tids = cols["gtid"] & TID_MASK
        args = builder.blob_column(cols.get("type", np.full(tids.size, INT_NULL)).reshape(-1, 1),
                                   lambda row: {"level": enum_names.get(row[0], "")} if row[0] != INT_NULL else {})
        builder.add(name=builder.string_column(cols["name"]), pid=CANN, tid=tids, start_ns=cols["start"],
                    end_ns=cols["end"], args=args)
        _threads(builder, CANN, tids, "Thread {}")


def _merge(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Union of [start, end) intervals as sorted, disjoint intervals."""
    if start.size == 0:
        return start, end
    order = np.argsort(start, kind="stable")
    start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    new = np.r_[True, start[1:] > reach[:-1]]
    first = np.flatnonzero(new)
    last = np.r_[first[1:] - 1, start.size - 1]
    return start[first], reach[last]


def _minus(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint intervals `a` minus disjoint intervals `b` (both sorted)."""
    cuts = np.sort(np.concatenate([a[0], a[1], b[0], b[1]]))
    if cuts.size < 2:
        return cuts[:0], cuts[:0]
    left, right = cuts[:-1], cuts[1:]
    inside_a = np.searchsorted(np.column_stack(a).ravel(), left, side="right") % 2 == 1
    inside_b = np.searchsorted(np.column_stack(b).ravel(), left, side="right") % 2 == 1 if b[0].size else False
    keep = inside_a & ~inside_b & (right > left)
    return _merge(left[keep], right[keep])


def _overlap(builder: _Builder, compute: tuple[np.ndarray, np.ndarray], comm: tuple[np.ndarray, np.ndarray]) -> None:
    computing, communication = _merge(*compute), _merge(*comm)
    both = _merge(np.concatenate([computing[0], communication[0]]), np.concatenate([computing[1], communication[1]]))
    free = (both[1][:-1], both[0][1:])
    lanes = (computing, communication, _minus(communication, computing), free)
    for tid, (name, (start, end)) in enumerate(zip(OVERLAP_LANES, lanes, strict=True)):
        if start.size:
            builder.add(name=np.full(start.size, builder.text(name), dtype=np.int32), pid=OVERLAP,
                        tid=np.full(start.size, tid, dtype=np.int64), start_ns=start, end_ns=end)
        builder.thread(OVERLAP, tid, name, tid)


def _device(db: Db, builder: _Builder) -> None:
    """Ascend Hardware, HCCL and Overlap Analysis."""
    ids = builder.ids
    empty = np.empty(0, dtype=np.int64)
    compute_span, comm_span, groups = (empty, empty), (empty, empty), 0
    if db.has("COMMUNICATION_OP"):
        db.require("COMMUNICATION_OP", ("opName", "startNs", "endNs", "groupName"))
        op = db.int_columns({"name": "opName", "start": "startNs", "end": "endNs", "group": "groupName"},
                            "FROM COMMUNICATION_OP")
        names, tids = dense_ids(op["group"])
        groups = int(names.size)
        args = builder.blob_column(op["group"].reshape(-1, 1), lambda row: {"group": ids.text(row[0])})
        builder.add(name=builder.string_column(op["name"]), pid=HCCL, tid=tids.reshape(-1).astype(np.int64),
                    start_ns=op["start"], end_ns=op["end"], args=args)
        for index in range(groups):
            builder.thread(HCCL, index, f"Group {index} Communication", index)
        comm_span = (op["start"], op["end"])
    if db.has("TASK"):
        db.require("TASK", ("globalTaskId", "startNs", "endNs", "streamId", "taskType"))
        task = db.int_columns({"gid": "globalTaskId", "start": "startNs", "end": "endNs", "stream": "streamId",
                               "type": "taskType"}, "FROM TASK")
        task_names = task["type"].copy()
        is_compute = np.zeros(task["gid"].size, dtype=bool)
        if db.has("COMPUTE_TASK_INFO"):
            db.require("COMPUTE_TASK_INFO", ("globalTaskId", "name"))
            compute = db.int_columns({"gid": "globalTaskId", "name": "name"}, "FROM COMPUTE_TASK_INFO")
            at = _positions(task["gid"], compute["gid"])
            task_names[at[at >= 0]] = compute["name"][at >= 0]
            is_compute[at[at >= 0]] = True
        is_comm = _planes(db, builder, task, max(groups, 1)) if db.has("COMMUNICATION_TASK_INFO") \
            else np.zeros(task["gid"].size, dtype=bool)
        hardware = ~is_comm
        args = builder.blob_column(task["type"][hardware].reshape(-1, 1), lambda row: {"Task Type": ids.text(row[0])})
        builder.add(name=builder.string_column(task_names[hardware]), pid=HARDWARE, tid=task["stream"][hardware],
                    start_ns=task["start"][hardware], end_ns=task["end"][hardware], args=args)
        _threads(builder, HARDWARE, task["stream"][hardware], "Stream {}")
        compute_span = (task["start"][is_compute], task["end"][is_compute])
    _overlap(builder, compute_span, comm_span)


def _planes(db: Db, builder: _Builder, task: dict[str, np.ndarray], first_tid: int) -> np.ndarray:
    """The communication tasks on HCCL's `Plane <n>` threads (numbered after the group threads); returns which
    TASK rows they are."""
    db.require("COMMUNICATION_TASK_INFO", ("globalTaskId", "taskType", "planeId"))
    have = db.tables()["COMMUNICATION_TASK_INFO"]
    optional = {"src": "srcRank", "dst": "dstRank", "size": "size", "op": "name"}
    cols = db.int_columns({"gid": "globalTaskId", "type": "taskType", "plane": "planeId",
                           **{k: c for k, c in optional.items() if c in have}}, "FROM COMMUNICATION_TASK_INFO")
    at = _positions(task["gid"], cols["gid"])
    found = at >= 0
    rows = at[found]
    is_comm = np.zeros(task["gid"].size, dtype=bool)
    is_comm[rows] = True
    plane = cols["plane"][found]
    tids = first_tid + np.where(plane == INT_NULL, 0, plane)
    keys = np.column_stack([cols.get(k, np.full(cols["gid"].size, INT_NULL))[found] for k in optional])
    ids = builder.ids
    labels = ("src rank", "dst rank", "size(Byte)", "op")
    args = builder.blob_column(keys, lambda row: {label: (ids.text(v) if label == "op" else v)
                                                  for label, v in zip(labels, row, strict=True) if v != INT_NULL})
    builder.add(name=builder.string_column(cols["type"][found]), pid=HCCL, tid=tids, start_ns=task["start"][rows],
                end_ns=task["end"][rows], args=args)
    for tid in dense_ids(tids)[0].tolist():
        builder.thread(HCCL, int(tid), f"Plane {int(tid) - first_tid}", int(tid))
    return is_comm


def _positions(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Row of `keys` holding each value of `wanted` (-1 when absent)."""
    order = np.argsort(keys, kind="stable")
    pos = np.searchsorted(keys[order], wanted)
    inside = pos < keys.size
    hit = np.zeros(wanted.size, dtype=bool)
    hit[inside] = keys[order][pos[inside]] == wanted[inside]
    out = np.full(wanted.size, -1, dtype=np.int64)
    out[hit] = order[pos[hit]]
    return out


def _enum(db: Db, table: str) -> dict[int, str]:
    if not db.has(table) or not {"id", "name"} <= db.tables()[table]:
        return {}
    return {int(i): str(n) for i, n in db.rows(f'SELECT id, name FROM "{table}"') if i is not None}  # noqa: S608


def load_trace(ref: DbRef, cache: ParsedFileCache | None) -> TraceColumns:
    with open_db(ref, cache) as db:
        builder = _Builder(strings(db, cache))
        for pid, name, sort, label in PROCESSES:
            builder.meta("process_name", pid, 0, {"name": name})
            builder.meta("process_labels", pid, 0, {"labels": label})
            builder.meta("process_sort_index", pid, 0, {"sort_index": sort})
        _host_apis(db, builder, _enum(db, "ENUM_API_TYPE"))
        _device(db, builder)
    return builder.build([])


def trace(device: DeviceFiles, cache: ParsedFileCache | None) -> TraceColumns:
    """The rank's timeline from its database export, parsed once per file."""
    ref = profiler_db(device)
    return cached(cache, "ascend_db_trace", ref.path, lambda _p: load_trace(ref, cache), codec=TRACE_CODEC)
