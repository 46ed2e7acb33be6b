"""Host memory from `cpu_ms_memory_record_<id>.txt` (written with `profile_memory=True`), and MindInsight's
Ascend memory endpoints' answers for data they cannot show.

The record is a CSV: `Timestamp(ns),Total Allocated(Byte),Total Reserved(Byte),Total Active(Byte)`, one row per
allocator change. `memory_usage` answers it downsampled to at most `max_points` points: the points are split into
equal buckets and each bucket keeps its row of highest allocation, so peaks survive downsampling.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, ProfilerDir
from mindinsight_clone.errors import ParamValueError, ProfilerFileNotFoundError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.store.downsample import peak_rows

RECORD = "cpu_ms_memory_record_{}.txt"
COLUMNS = ["time_us", "allocated_bytes", "reserved_bytes", "active_bytes"]
DEFAULT_POINTS = 2000


def parse_record(path: Location) -> np.ndarray:
    """An (n, 4) int64 array: timestamp ns, allocated, reserved, active. Malformed rows are skipped."""
    rows: list[tuple[int, int, int, int]] = []
    with storage.open_text(path) as handle:
        next(handle, None)
        for line in handle:
            fields = line.strip().split(",")
            if len(fields) < 4:
                continue
            try:
                rows.append((int(fields[0]), int(fields[1]), int(fields[2]), int(fields[3])))
            except ValueError:
                continue
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def memory_usage(device: DeviceFiles | None, max_points: int = DEFAULT_POINTS,
                 cache: ParsedFileCache | None = None) -> dict[str, Any]:
    path = device.file(RECORD) if device else None
    if device is None or path is None:
        raise ProfilerFileNotFoundError("<cpu memory record>")
    data = cached(cache, "cpu_memory", path, parse_record)
    answer: dict[str, Any] = {"device_id": device.device_id, "col_name": COLUMNS, "points": [], "count": len(data),
                              "peak_allocated_bytes": 0, "peak_reserved_bytes": 0, "peak_active_bytes": 0,
                              "start_ts_ns": None}
    if not len(data):
        return answer
    start = int(data[0, 0])
    points = peak_rows(data, max_points, (1,))  # each bucket's allocated peak
    rel = np.round((points[:, 0] - start) / 1000.0, 3)
    answer["points"] = [[t, a, r, c] for t, a, r, c in zip(rel.tolist(), points[:, 1].tolist(),
                                                           points[:, 2].tolist(), points[:, 3].tolist(), strict=True)]
    peaks = data[:, 1:].max(axis=0).tolist()
    answer.update(peak_allocated_bytes=peaks[0], peak_reserved_bytes=peaks[1], peak_active_bytes=peaks[2],
                  start_ts_ns=start)
    return answer


def check_ascend_only(device_type: str) -> None:
    if device_type != "ascend":
        raise ParamValueError("Invalid device_type.")


def memory_summary(pdir: ProfilerDir) -> dict[str, Any]:
    """MindInsight hides device memory in heterogeneous (host CPU op) profiles; Ascend .pb files are not read."""
    if pdir.has_kind("cpu_op_type_info_"):
        return {"is_heterogeneous": True}
    raise ProfilerFileNotFoundError("<Invalid memory file path.>")


def memory_graphics() -> dict[str, Any]:
    raise ProfilerFileNotFoundError("<Invalid memory file path.>")
