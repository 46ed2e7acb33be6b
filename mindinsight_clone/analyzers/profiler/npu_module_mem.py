"""`profile/npu-module-mem`: device memory reserved per CANN module over time (npu_module_mem.csv:
`Component,Timestamp(us),Total Reserved(MB),Device`; one component per module: APP, HCCL, RUNTIME, SLOG, ...; the
database export's NPU_MODULE_MEM, read by ascend_db_stats.py). `source` names what was read.

The peaks are exact over every row; each component's series is downsampled as memory-record's is (equal buckets,
each keeping its first row and its highest-reserved row), so no peak is lost. Components are answered by peak,
largest first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler import ascend_csv, ascend_db, ascend_db_stats
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.analyzers.profiler.memory_record import downsample
from mindinsight_clone.ingest.storage import Location

NPU_MODULE_MEM = "npu_module_mem.csv"
DEFAULT_POINTS = 1000


def parse(path: Location, rank: str) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
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
    series = {}
    for component, items in rows.items():
        data = np.array(items, dtype=np.float64).reshape(-1, 4)
        series[component] = data[np.argsort(data[:, 0], kind="stable")]
    return series, csv_file.report.problems()


def series_for(device: DeviceFiles, cache: ParsedFileCache | None = None
               ) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], str]:
    """(component -> rows, problems, source) of a rank: npu_module_mem.csv, or NPU_MODULE_MEM of the database
    export; ProfilerFileNotFoundError when the rank has neither."""
    if device.export == "db":
        series, problems = ascend_db_stats.module_mem_series(device, cache)
        return series, problems, f"NPU_MODULE_MEM in {ascend_db.profiler_db(device).name}"
    rank = device.device_id
    path = ascend_csv.require(device.output_file(NPU_MODULE_MEM), NPU_MODULE_MEM, rank,
                              "written with profile_memory=True")
    series, problems = cached(cache, "npu_module_mem", path, lambda p: parse(p, rank))
    return series, problems, NPU_MODULE_MEM


def npu_module_mem(device: DeviceFiles, max_points: int = DEFAULT_POINTS,
                   cache: ParsedFileCache | None = None) -> dict[str, Any]:
    series, problems, source = series_for(device, cache)
    peaks = {c: float(d[:, 2].max()) for c, d in series.items() if d.size}
    order = sorted(peaks, key=lambda c: (-peaks[c], c))
    components = []
    for c in order:
        data = downsample(series[c], max_points)
        components.append({"component": c, "peak_reserved_mb": peaks[c], "points": len(series[c]),
                           "series": [[row[0], row[2]] for row in data.tolist()]})
    answer: dict[str, Any] = {"components": components, "source": source}
    if problems:
        answer["problems"] = list(problems)
    return answer

