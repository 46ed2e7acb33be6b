"""How much memory a cached run takes (an estimate) and which runs fit the `cache_memory_mb` budget.

The estimate is cheap enough to take after every load pass of every cached run: per tag, the cost of its
newest sample times the number of samples kept. A sample's cost is a fixed overhead (the Sample tuple, its
ints, floats and list slot, measured with tracemalloc) plus its payload (PNG bytes, histogram and tensor
arrays). Before a run is first loaded 4x its file size stands in, capped at PROVISIONAL_CAP, so a huge
new run cannot push every other run out before we know what it really costs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mindinsight_clone.ingest.values import Histogram, Image, Tensor
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

MB = 1024 * 1024
RUN_OVERHEAD = 24 * 1024  # loader, cache, dicts and per-file state of one run (measured, rounded up)
SAMPLE_OVERHEAD = 130  # one kept scalar sample: Sample tuple, int, float, float, list slot (tracemalloc: ~125)
# one kept tag: reservoir, tag name in the cache's dicts, its point-store series object and path; measured
# ~1,000 B/tag held after loading 5,000 and 10,000 scalar tags (benchmarks/many_tags.py), rounded up
TAG_OVERHEAD = 1280
# a scalar tag's exact stats once asked for (ScalarStats: a 256-bucket min/max/count envelope of three
# 8-byte arrays, 6 KB, plus objects): measured 6.9 KB/tag over 5,000 tags; a run of 10,000 tags whose stats
# were all shown holds 70 MB of them
STATS_OVERHEAD = 7 * 1024
PROVISIONAL_CAP = 4 * MB  # stand-in size of a run never loaded: min(4 x file bytes, this)
PROVISIONAL_MIN = 64 * 1024


def sample_cost(plugin: str, sample: Sample) -> int:
    """Estimated bytes of one kept sample of `plugin` (the overhead plus its payload)."""
    return SAMPLE_OVERHEAD + _payload_bytes(sample.value)


def _payload_bytes(value: Any) -> int:
    if isinstance(value, float | int):
        return 0
    if isinstance(value, Image):
        return len(value.encoded)
    if isinstance(value, Histogram):
        return value.left.nbytes + value.width.nbytes + value.count.nbytes
    if isinstance(value, Tensor):
        return value.array.nbytes
    if isinstance(value, np.ndarray):
        return value.nbytes
    nbytes = getattr(value, "nbytes", None)  # the TensorBoard kinds (ingest.values.Text, PrCurve, Audio, ...)
    if isinstance(nbytes, int):
        return nbytes
    size = getattr(value, "ByteSize", None)  # protobuf messages (graphs, landscapes): ~3x their wire size
    if callable(size):
        try:
            return 3 * int(size())
        except Exception:  # a message we cannot size: count the overhead only
            return 0
    return 0


def provisional_bytes(file_bytes: int) -> int:
    """Stand-in size of a run that has not been loaded yet (a kept scalar costs ~4-8x its record)."""
    return RUN_OVERHEAD + max(PROVISIONAL_MIN, min(4 * file_bytes, PROVISIONAL_CAP))


def run_bytes(cache: RunCache) -> int:
    """Estimated bytes of a loaded run."""
    return (RUN_OVERHEAD + cache.tag_count() * TAG_OVERHEAD + cache.stats_count() * STATS_OVERHEAD
            + cache.memory_estimate(sample_cost))


def choose_within_budget(candidates: Sequence[str], size_of: Callable[[str], int], budget_bytes: int,
                         max_count: int = 0) -> tuple[list[str], list[str]]:
    """Split `candidates` (most recent first) into (kept, left out): the most recent runs whose sizes
    fit `budget_bytes` (the first always kept), at most `max_count` of them when it is > 0.

    A run that does not fit is skipped and smaller, older runs may still fit after it."""
    kept: list[str] = []
    left: list[str] = []
    used = 0
    for tid in candidates:
        size = size_of(tid)
        if not kept or ((max_count <= 0 or len(kept) < max_count) and used + size <= budget_bytes):
            kept.append(tid)
            used += size
        else:
            left.append(tid)
    return kept, left

