"""Memory files of the Ascend text export (written with profile_memory=True).

* memory_record.csv: `Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB)[,Stream Ptr],
  Device Type` (MindSpore writes no `Stream Ptr`; its components are APP, GE, MindSpore, MindSpore+GE; torch_npu's
  APP, GE, PTA, PTA+GE). Empty cells (APP has only a reserved figure) are NaN.
* operator_memory.csv: one allocation per row (Name, Size(KB), allocation / release time, duration).
* npu_module_mem.csv: `Component,Timestamp(us),Total Reserved(MB),Device`, one component per CANN module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.ingest.storage import Location

MEMORY_RECORD = "memory_record.csv"
OPERATOR_MEMORY = "operator_memory.csv"
NPU_MODULE_MEM = "npu_module_mem.csv"
_VALUES = ("Total Allocated(MB)", "Total Reserved(MB)", "Total Active(MB)")


def parse_record(path: Location, rank: str) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """component -> (n, 4) float64 array [ts_us, allocated, reserved, active] (NaN = empty cell), time-sorted."""
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(MEMORY_RECORD, rank),
                                   ("Component", "Timestamp(us)", *_VALUES))
    rows: dict[str, list[tuple[float, ...]]] = {}
    for raw in csv_file.rows():
        try:
            ts = ascend_csv.number(csv_file.get(raw, "Timestamp(us)"))
            values = [ascend_csv.number(csv_file.get(raw, c)) for c in _VALUES]
        except ValueError:
            csv_file.report.skip("non-numeric timestamp or size")
            continue
        if ts is None:
            csv_file.report.skip("no timestamp")
            continue
        rows.setdefault(csv_file.get(raw, "Component"), []).append(
            (ts, *(np.nan if v is None else v for v in values)))
    csv_file.report.log()
    return by_component(rows), csv_file.report.problems()


def by_component(rows: Mapping[str, Sequence[tuple[float, ...]]]) -> dict[str, np.ndarray]:
    """component -> (n, 4) float64 rows sorted by time (stable: equal times keep file order)."""
    series = {}
    for component, items in rows.items():
        data = np.array(items, dtype=np.float64).reshape(-1, 4)
        series[component] = data[np.argsort(data[:, 0], kind="stable")]
    return series


def parse_operators(path: Location, rank: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(OPERATOR_MEMORY, rank), ("Name", "Size(KB)"))
    ops: list[dict[str, Any]] = []
    for raw in csv_file.rows():
        try:
            size = ascend_csv.number(csv_file.get(raw, "Size(KB)"))
            times = [ascend_csv.number(csv_file.get(raw, c))
                     for c in ("Allocation Time(us)", "Release Time(us)", "Duration(us)")]
        except ValueError:
            csv_file.report.skip("non-numeric size or time")
            continue
        if size is None:
            csv_file.report.skip("no size")
            continue
        ops.append({"name": csv_file.get(raw, "Name"), "size_kb": size, "allocation_time_us": times[0],
                    "release_time_us": times[1], "duration_us": times[2]})
    csv_file.report.log()
    ops.sort(key=lambda o: -o["size_kb"])  # stable: equal sizes keep file order
    return ops, csv_file.report.problems()


def parse_module_mem(path: Location, rank: str) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """component -> (n, 4) array [ts_us, NaN, reserved_mb, NaN] (memory_record's layout), time-sorted."""
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(NPU_MODULE_MEM, rank),
                                   ("Component", "Timestamp(us)", "Total Reserved(MB)"))
    rows: dict[str, list[tuple[float, float, float, float]]] = {}
    for raw in csv_file.rows():
        try:
            ts = ascend_csv.number(csv_file.get(raw, "Timestamp(us)"))
            reserved = ascend_csv.number(csv_file.get(raw, "Total Reserved(MB)"))
        except ValueError:
            csv_file.report.skip("non-numeric timestamp or size")
            continue
        if ts is None or reserved is None:
            csv_file.report.skip("no timestamp or size")
            continue
        rows.setdefault(csv_file.get(raw, "Component"), []).append((ts, np.nan, reserved, np.nan))
    csv_file.report.log()
    return by_component(rows), csv_file.report.problems()
