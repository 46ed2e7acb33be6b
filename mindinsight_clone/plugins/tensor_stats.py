"""Tensor statistics, buckets and slicing as MindInsight's `utils/tensor.py` computes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.errors import ParamValueError
from mindinsight_clone.plugins.common import calc_histogram_bins
from mindinsight_clone.plugins.rebin import Bucket, OriginalHistogram

MAX_TENSOR_COUNT = 10_000_000
MAX_DIMENSIONS = 2
MAX_RESPONSE_ELEMENTS = 100_000


@dataclass(frozen=True)
class Stats:
    max: float
    min: float
    avg: float
    count: int
    nan_count: int
    neg_inf_count: int
    pos_inf_count: int
    neg_zero_count: int = 0
    pos_zero_count: int = 0
    zero_count: int = 0

    @property
    def valid(self) -> int:
        return self.count - self.nan_count - self.neg_inf_count - self.pos_inf_count


def statistics(arr: np.ndarray) -> Stats:
    """`TensorUtils.get_statistics_from_tensor`: NaN/Inf are counted apart and left out of min/max/avg."""
    total = int(arr.size)
    finite = np.isfinite(arr)
    valid = int(np.count_nonzero(finite))
    nan_count = pos_inf = neg_inf = 0
    if valid != total:
        nan_count = int(np.count_nonzero(np.isnan(arr)))
        pos_inf = int(np.count_nonzero(np.isposinf(arr)))
        neg_inf = int(np.count_nonzero(np.isneginf(arr)))
    if not valid:
        return Stats(0.0, 0.0, 0.0, total, nan_count, neg_inf, pos_inf)
    # masked-array semantics: invalid entries filled (0 for the sum, +-inf for min/max), same shape
    total_sum = np.where(finite, arr, 0).sum(dtype=np.float64)
    vmin = float(np.where(finite, arr, np.inf).min())
    vmax = float(np.where(finite, arr, -np.inf).max())
    with np.errstate(invalid="ignore"):
        neg = int(np.count_nonzero(finite & (arr < 0)))
        pos = int(np.count_nonzero(finite & (arr > 0)))
        zero = int(np.count_nonzero(finite & (arr == 0)))
    return Stats(vmax, vmin, float(total_sum / valid), total, nan_count, neg_inf, pos_inf, neg, pos, zero)


def statistics_dict(stats: Stats, overall: Stats) -> dict[str, Any]:
    return {
        "max": float(stats.max),
        "min": float(stats.min),
        "avg": float(stats.avg),
        "count": stats.count,
        "nan_count": stats.nan_count,
        "neg_inf_count": stats.neg_inf_count,
        "pos_inf_count": stats.pos_inf_count,
        "overall_max": float(overall.max),
        "overall_min": float(overall.min),
        "overall_avg": float(overall.avg),
        "overall_count": overall.count,
        "overall_nan_count": overall.nan_count,
        "overall_neg_inf_count": overall.neg_inf_count,
        "overall_pos_inf_count": overall.pos_inf_count,
        "overall_zero_count": float(overall.zero_count),
        "overall_neg_zero_count": float(overall.neg_zero_count),
        "overall_pos_zero_count": float(overall.pos_zero_count),
    }


def original_histogram(arr: np.ndarray, stats: Stats) -> OriginalHistogram:
    """`calc_original_buckets` + the container's max/min/count (valid values only)."""
    valid = stats.valid
    buckets: tuple[Bucket, ...] = ()
    if valid:
        bins = calc_histogram_bins(valid)
        first, last = stats.min, stats.max
        if not first < last:
            first -= 0.5
            last += 0.5
        edges = np.linspace(first, last, bins + 1, dtype=arr.dtype)
        with np.errstate(invalid="ignore"):
            hist, edges = np.histogram(arr[np.isfinite(arr)], bins=edges)
        buckets = tuple(
            (float(a), float(b - a), int(c)) for c, a, b in zip(hist, edges, edges[1:], strict=False)
        )
    count = int(sum(b[2] for b in buckets))
    return OriginalHistogram(buckets=buckets, max=stats.max, min=stats.min, count=count)


def _slice_or_int(text: str) -> int | slice:
    try:
        if ":" in text:
            parts = [int(x.strip()) if x.strip() else None for x in text.split(":")]
            if len(parts) > 3:
                raise ValueError
            return slice(*parts)
        return int(text)
    except ValueError:
        raise ParamValueError(f"Invalid shape. Convert int from str failed. input_str: {text}") from None


def parse_dims(dims: str, limit: int = MAX_DIMENSIONS) -> tuple[int | slice, ...]:
    """`"[0, :, 1:3]"` -> `(0, slice(None), slice(1, 3))` (`TensorUtils.parse_shape`)."""
    text = dims.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ParamValueError("Invalid shape. The type of shape should be str and start with `[` and "
                              f"end with `]`. Received: {dims}.")
    inner = text[1:-1]
    if limit and sum(1 for d in inner.split(",") if d.count(":")) > limit:
        raise ParamValueError(f"Invalid shape. At most {limit} dimensions are specified. Received: {inner}")
    return tuple(_slice_or_int(d.strip()) for d in inner.split(",")) if inner else ()


def slice_dims(arr: np.ndarray, dims: tuple[int | slice, ...]) -> np.ndarray:
    if arr.ndim != len(dims):
        raise ParamValueError("Invalid dims. The length of param dims and tensor shape should be the same.")
    try:
        result = arr[dims]
    except IndexError:
        raise ParamValueError(f"Invalid shape. Shape unmatched. Received: {dims}, tensor shape: {arr.shape}") from None
    return np.asarray(result)


def to_jsonable(arr: np.ndarray, stats: Stats) -> Any:
    """Nested lists; NaN/-Inf/Inf become "NAN"/"-INF"/"INF" when any are present (as MindInsight)."""
    if stats.nan_count + stats.neg_inf_count + stats.pos_inf_count == 0:
        return arr.tolist()
    obj = arr.astype(object)
    obj[np.isnan(arr)] = "NAN"
    obj[np.isneginf(arr)] = "-INF"
    obj[np.isposinf(arr)] = "INF"
    return obj.tolist()
