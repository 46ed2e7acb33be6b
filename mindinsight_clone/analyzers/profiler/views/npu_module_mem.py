"""`profile/npu-module-mem`: device memory reserved per CANN module over time (npu_module_mem.csv:
`Component,Timestamp(us),Total Reserved(MB),Device`; one component per module: APP, HCCL, RUNTIME, SLOG, ...; the
database export's NPU_MODULE_MEM; read through rank_tables.py). `source` names what was read.

The peaks are exact over every row; each component's series is downsampled as memory-record's is (equal buckets,
each keeping its first row and its highest-reserved row), so no peak is lost. Components are answered by peak,
largest first.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.store.downsample import peak_rows

DEFAULT_POINTS = 1000


def npu_module_mem(device: DeviceFiles, max_points: int = DEFAULT_POINTS,
                   cache: ParsedFileCache | None = None) -> dict[str, Any]:
    series, problems = rank_tables.load("module_memory", device, cache)
    peaks = {c: float(d[:, 2].max()) for c, d in series.items() if d.size}
    order = sorted(peaks, key=lambda c: (-peaks[c], c))
    components = []
    for c in order:
        data = peak_rows(series[c], max_points, (2, 1))
        components.append({"component": c, "peak_reserved_mb": peaks[c], "points": len(series[c]),
                           "series": [[row[0], row[2]] for row in data.tolist()]})
    answer: dict[str, Any] = {"components": components, "source": rank_tables.source("module_memory", device)}
    return with_problems(answer, problems)

