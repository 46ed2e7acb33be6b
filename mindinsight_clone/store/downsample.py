"""Downsampling that keeps every peak: M4 for scalar series (`m4_indices`), highest rows for tables over time
(`peak_rows`, the profiler's memory series).

M4: at most N real points, exact at that resolution.

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


def peak_rows(data: np.ndarray, max_points: int, columns: tuple[int, ...]) -> np.ndarray:
    """At most `max_points` rows of a time-ordered table (rows x columns): the rows are split into
    `max_points // len(columns)` buckets of equal row count (as numpy.array_split cuts them), and each bucket keeps,
    for each of `columns`, its first row of highest value (its first row where that column is all NaN), in time
    order. So every column's peak survives; a table of at most `max_points` rows is returned whole."""
    n = len(data)
    if n <= max_points:
        return data
    buckets = max(1, max_points // max(1, len(columns)))
    size, extra = divmod(n, buckets)
    sizes = np.full(buckets, size, dtype=np.int64)
    sizes[:extra] += 1
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    bucket = np.repeat(np.arange(buckets), sizes)
    keep = []
    for col in columns:
        values = data[:, col].astype(np.float64)
        values = np.where(np.isnan(values), -np.inf, values)
        hits = np.flatnonzero(values == np.repeat(np.maximum.reduceat(values, starts), sizes))
        _, first = np.unique(bucket[hits], return_index=True)  # the first hit of each bucket
        keep.append(hits[first])
    return data[np.unique(np.concatenate(keep))]
