"""M4 downsampling of one scalar series: at most N real points, exact at that resolution.

The step range of the window is cut into `N // 4` buckets of equal step width (a chart's pixel columns);
each non-empty bucket contributes its first, last, minimum and maximum real points (M4: Jugel et al.,
VLDB 2014), so every spike and every bucket's extent survives, and no point is invented or moved. A
window that holds at most N points is returned whole. NaN values never win min or max (a bucket of
only NaN shows its first and last point); +/-Inf do.

Vectorised with numpy: O(n) over the window, no per-point Python.
"""

from __future__ import annotations

import numpy as np

MIN_POINTS = 4  # one bucket: first, last, min, max


def m4_indices(steps: np.ndarray, values: np.ndarray, points: int) -> np.ndarray:
    """Indices (ascending, unique) of the points to show; `steps` ascending, same length as `values`."""
    n = int(steps.size)
    if n <= points:
        return np.arange(n, dtype=np.int64)
    buckets = max(points // MIN_POINTS, 1)
    first, last = int(steps[0]), int(steps[-1])
    span = last - first + 1
    # bucket of each point: floor((step - first) * buckets / span), in integers (no float rounding)
    bucket = ((steps.astype(np.int64) - first) * buckets) // span
    starts = np.flatnonzero(np.concatenate(([True], bucket[1:] != bucket[:-1])))
    ends = np.concatenate((starts[1:], [n])) - 1
    picks = [starts, ends]
    sizes = ends - starts + 1
    for reduce in (np.fmin, np.fmax):
        extreme = reduce.reduceat(values, starts)  # NaN only where a bucket is all NaN
        hit = np.flatnonzero(values == np.repeat(extreme, sizes))  # NaN never equals: no pick there
        if hit.size:
            bucket_of_hit = bucket[hit]
            first_hit = np.flatnonzero(np.concatenate(([True], bucket_of_hit[1:] != bucket_of_hit[:-1])))
            picks.append(hit[first_hit])  # the first point reaching the bucket's extreme
    return np.unique(np.concatenate(picks))
