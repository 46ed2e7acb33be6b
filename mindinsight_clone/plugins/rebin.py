"""MindInsight's histogram re-binning, float for float (`data_transform/histogram.py`).

All kept steps of a tag share one visual range (global min and max over the steps that have values) and
`calc_histogram_bins(max_count)` equal buckets, so the steps can be compared. Each step's original
buckets are spread over the visual buckets in proportion to their overlap; counts are rounded up.

Unlike MindInsight (which loses these counts): a zero-width original bucket (TensorBoard writes its buckets
with left = right when every value is equal) counts in the visual bucket holding its edge, the last one closed;
and when every value of every step is one number (an all-zero bias), each step is one zero-width bucket at
that value holding its count — a spike, not 8 empty buckets re-made over ±0.5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from mindinsight_clone.plugins.common import calc_histogram_bins

Bucket = tuple[float, float, float]  # left, width, count


@dataclass(frozen=True)
class OriginalHistogram:
    """One step's buckets sorted by left edge, with the values MindInsight uses for the visual range."""

    buckets: tuple[Bucket, ...]
    max: float
    min: float
    count: int


def mask_invalid(x: float) -> float:
    return 0.0 if math.isnan(x) or math.isinf(x) else x


def visual_range(histograms: Sequence[OriginalHistogram]) -> tuple[float, float, int]:
    """(max, min, bins) shared by `histograms` (MindInsight's HistogramReservoir.samples)."""
    started = False
    vmax = vmin = 0.0
    max_count = 0
    for h in histograms:
        if h.count == 0:
            continue
        max_count = max(h.count, max_count)
        if not started:
            vmax, vmin, started = h.max, h.min, True
            continue
        if h.max > vmax:
            vmax = h.max
        if h.min < vmin:
            vmin = h.min
    return vmax, vmin, calc_histogram_bins(max_count)


def _intersection(max1: float, min1: float, max2: float, min2: float) -> float:
    if min1 <= min2:
        if max1 <= min2:
            return max1 - max1
        if max1 <= max2:
            return max1 - min2
        return max2 - min2
    if max2 <= min1:
        return max2 - max2
    if max2 <= max1:
        return max2 - min1
    return max1 - min1


def _edge(vmin: float, width: float, i: int) -> float:
    """`vmin + width * i` (MindInsight's float for float), halved first where the product overflows."""
    edge = vmin + width * i
    return edge if math.isfinite(edge) else (vmin / 2 + width / 2 * i) * 2


def _share(inter: float, width: float) -> float:
    """The part of an original bucket inside a visual one (MindInsight's inter / width), kept in [0, 1]
    where extreme edges overflow float64 (inf - inf gives NaN)."""
    share = inter / width
    if math.isfinite(share):
        return share
    return 0.0 if math.isnan(share) else 1.0


def resample(h: OriginalHistogram, vmax: float, vmin: float, bins: int) -> list[list[float | int]]:
    """Buckets `[left, width, count]` of `h` over the visual range (`Histogram._re_sample_buckets`)."""
    if vmax == vmin:
        vmax += 0.5
        vmin -= 0.5
    width = (vmax - vmin) / bins
    if not math.isfinite(width):  # a range wider than float64 holds (e.g. -1.7e308..1.7e308)
        width = vmax / bins - vmin / bins
    if not h.count:
        return [[_edge(vmin, width, i), width, 0] for i in range(bins)]
    original = h.buckets
    out: list[list[float | int]] = []
    pos = 0
    o_left, o_width, o_count = original[pos]
    for i in range(bins):
        cur_left = _edge(vmin, width, i)
        cur_right = cur_left + width
        if not math.isfinite(cur_right):
            cur_right = _edge(vmin, width, i + 1)
        estimated = 0.0
        last = i == bins - 1
        if cur_right <= o_left and (o_width or not last):
            out.append([cur_left, width, math.ceil(estimated)])
            continue
        while cur_left > o_left + o_width or (o_width and cur_left == o_left + o_width):
            pos += 1
            if pos >= len(original):
                break
            o_left, o_width, o_count = original[pos]
        while pos < len(original):
            o_left, o_width, o_count = original[pos]
            if not o_width:  # a point: counted in the bucket holding it, the last bucket closed (and taking
                if o_left >= cur_right and not last:  # what float rounding of its right edge leaves out)
                    break
                if o_left >= cur_left:
                    estimated += o_count
                pos += 1
                continue
            inter = _intersection(cur_right, cur_left, o_left + o_width, o_left)
            estimated += _share(inter, o_width) * o_count
            if cur_right > o_left + o_width:
                pos += 1
            else:
                break
        out.append([cur_left, width, math.ceil(estimated) if math.isfinite(estimated) else 0])
    return out


def rebin_all(histograms: Sequence[OriginalHistogram]) -> list[list[list[float | int]]]:
    vmax, vmin, bins = visual_range(histograms)
    if vmax == vmin and any(h.count for h in histograms):  # one value everywhere: a spike per step
        return [[[vmin, 0.0, h.count]] for h in histograms]
    return [resample(h, vmax, vmin, bins) for h in histograms]
