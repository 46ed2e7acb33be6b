"""Histogram re-binning on ranges at the edge of float64 (the fuzz test found math.ceil(NaN) there)."""

from __future__ import annotations

import math

from mindinsight_clone.plugins.rebin import OriginalHistogram, rebin_all

BIG = 1.7e308


def test_a_range_wider_than_float64_still_rebins() -> None:
    wide = OriginalHistogram(buckets=((-BIG, BIG, 3.0), (0.0, BIG, 5.0)), max=BIG, min=-BIG, count=8)
    narrow = OriginalHistogram(buckets=((0.0, 1.0, 2.0),), max=1.0, min=0.0, count=2)
    steps = rebin_all([wide, narrow])
    for buckets in steps:
        assert buckets and all(math.isfinite(left) and math.isfinite(width) and width > 0
                               for left, width, _count in buckets)
    # every value lands somewhere: counts are rounded up, never lost
    assert sum(int(c) for _l, _w, c in steps[0]) >= 8
    assert sum(int(c) for _l, _w, c in steps[1]) >= 2


def test_ordinary_ranges_are_unchanged() -> None:
    h = OriginalHistogram(buckets=((0.0, 0.5, 4.0), (0.5, 0.5, 6.0)), max=1.0, min=0.0, count=10)
    (buckets,) = rebin_all([h])
    assert sum(int(c) for _l, _w, c in buckets) >= 10
    assert buckets[0][0] == 0.0 and math.isclose(buckets[-1][0] + buckets[-1][1], 1.0)


def test_all_equal_values_answer_one_spike_with_the_count() -> None:
    """TensorBoard's all-zero bias: 30 buckets with left = right = 0, the last one holding the 64 values."""
    buckets = (*((0.0, 0.0, 0.0) for _ in range(29)), (0.0, 0.0, 64.0))
    h = OriginalHistogram(buckets=buckets, max=0.0, min=0.0, count=64)
    assert rebin_all([h, h]) == [[[0.0, 0.0, 64]], [[0.0, 0.0, 64]]]


def test_zero_width_buckets_keep_their_counts_at_visual_edges() -> None:
    """A point at a visual edge (here 0, 1 and the closed right end 2) is counted once, in the bucket holding it."""
    points = OriginalHistogram(buckets=((0.0, 0.0, 5.0), (1.0, 0.0, 7.0), (2.0, 0.0, 3.0)), max=2.0, min=0.0,
                               count=15)
    (out,) = rebin_all([points])
    assert sum(int(c) for _l, _w, c in out) == 15
    spread = OriginalHistogram(buckets=((-2.0, 4.0, 10.0),), max=2.0, min=-2.0, count=10)
    _, out = rebin_all([spread, points])
    assert sum(int(c) for _l, _w, c in out) == 15
