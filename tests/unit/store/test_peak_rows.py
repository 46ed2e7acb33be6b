"""store/downsample.peak_rows, the one peak-keeping downsampler of the profiler's memory series: it keeps the rows
the per-bucket loops it replaced kept (written out here as the definition), and every column's peak."""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_clone.store.downsample import peak_rows


def by_loop(data: np.ndarray, max_points: int, columns: tuple[int, ...]) -> np.ndarray:
    """The definition: numpy.array_split buckets, each keeping its first highest row per column (its first row
    where the column is all NaN)."""
    if len(data) <= max_points:
        return data
    keep: set[int] = set()
    for bucket in np.array_split(np.arange(len(data)), max(1, max_points // len(columns))):
        for col in columns:
            values = data[bucket, col].astype(np.float64)
            keep.add(int(bucket[0] if np.isnan(values).all() else bucket[np.nanargmax(values)]))
    return data[np.array(sorted(keep))]


@pytest.mark.parametrize(("rows", "max_points", "columns"), [
    (10_007, 2000, (2, 1)), (10_007, 1000, (1,)), (5, 10, (1,)), (999, 7, (2, 1)), (64, 3, (3, 1, 2)),
])
def test_keeps_what_the_bucket_loop_keeps(rows: int, max_points: int, columns: tuple[int, ...]) -> None:
    rng = np.random.default_rng(rows + max_points)
    data = rng.random((rows, 4)) * 100
    data[:, 0] = np.arange(rows)
    data[rng.random(rows) < 0.3, 1] = np.nan  # empty cells, and a run of them: an all-NaN bucket
    data[rows // 3: rows // 3 + rows // 5, 2] = np.nan
    data[rng.integers(0, rows, 5), 2] = data[rng.integers(0, rows), 2]  # ties: the first one wins
    got = peak_rows(data, max_points, columns)
    np.testing.assert_array_equal(got, by_loop(data, max_points, columns))
    assert len(got) <= max(max_points, rows if rows <= max_points else 0)
    for col in columns:
        assert np.nanmax(got[:, col]) == np.nanmax(data[:, col])


def test_integer_rows_keep_their_peaks() -> None:
    data = np.arange(40_000, dtype=np.int64).reshape(-1, 4) % 997
    got = peak_rows(data, 100, (1,))
    assert got.dtype == np.int64 and len(got) == 100
    np.testing.assert_array_equal(got, by_loop(data, 100, (1,)))
    assert got[:, 1].max() == data[:, 1].max()
