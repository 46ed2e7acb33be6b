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
