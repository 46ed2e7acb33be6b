"""Statistics of one dumped tensor, over its finite values, in bounded memory.

The tensors plugin's `statistics` (min, max, mean and the NaN/Inf/zero/sign counts, MindInsight's definitions)
runs on each flat chunk of the file; here the chunks are merged and the standard deviation (population) and the
mean of absolute values are added (Chan's pairwise update, float64). Bools count as 0/1. A tensor without any
finite value has `None` for min/max/mean/std/abs_mean.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.plugins.tensor_stats import Stats, statistics

STAT_FIELDS = ("count", "finite_count", "nan_count", "pos_inf_count", "neg_inf_count", "zero_count", "neg_count",
               "pos_count", "min", "max", "mean", "std", "abs_mean")


@dataclass(frozen=True, slots=True)
class TensorStats:
    count: int
    finite_count: int
    nan_count: int
    pos_inf_count: int
    neg_inf_count: int
    zero_count: int
    neg_count: int
    pos_count: int
    min: float | None
    max: float | None
    mean: float | None
    std: float | None
    abs_mean: float | None

    @property
    def nonfinite_count(self) -> int:
        return self.nan_count + self.pos_inf_count + self.neg_inf_count

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in STAT_FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TensorStats:
        return cls(**{name: data.get(name) for name in STAT_FIELDS})  # type: ignore[arg-type]

    def as_plugin_stats(self) -> Stats:
        """The tensors plugin's `Stats` (for `statistics_dict`'s overall_* fields)."""
        return Stats(self.max or 0.0, self.min or 0.0, self.mean or 0.0, self.count, self.nan_count,
                     self.neg_inf_count, self.pos_inf_count, self.neg_count, self.pos_count, self.zero_count)


class _Accumulator:
    def __init__(self) -> None:
        self.count = self.finite = self.nan = self.pinf = self.ninf = self.zero = self.neg = self.pos = 0
        self.min = math.inf
        self.max = -math.inf
        self.mean = 0.0
        self.m2 = 0.0
        self.abs_sum = 0.0

    def add(self, chunk: np.ndarray) -> None:
        if chunk.dtype == np.bool_:
            chunk = chunk.view(np.uint8)
        part = statistics(chunk)
        self.count += part.count
        self.nan += part.nan_count
        self.pinf += part.pos_inf_count
        self.ninf += part.neg_inf_count
        valid = part.valid
        if not valid:
            return
        self.zero += part.zero_count
        self.neg += part.neg_zero_count
        self.pos += part.pos_zero_count
        self.min = min(self.min, part.min)
        self.max = max(self.max, part.max)
        values = chunk.astype(np.float64, copy=False)
        if valid != part.count:
            values = values[np.isfinite(values)]
        deviation = values - part.avg
        m2 = float((deviation * deviation).sum())  # not np.dot: BLAS threads spin on a busy machine (50x slower)
        abs_sum = float(np.abs(values).sum())
        total = self.finite + valid
        delta = part.avg - self.mean
        self.mean += delta * valid / total
        self.m2 += m2 + delta * delta * self.finite * valid / total
        self.abs_sum += abs_sum
        self.finite = total

    def result(self) -> TensorStats:
        has = self.finite > 0
        return TensorStats(
            self.count, self.finite, self.nan, self.pinf, self.ninf, self.zero, self.neg, self.pos,
            self.min if has else None, self.max if has else None, self.mean if has else None,
            math.sqrt(max(self.m2, 0.0) / self.finite) if has else None,
            self.abs_sum / self.finite if has else None)


def tensor_stats(chunks: Iterable[np.ndarray]) -> TensorStats:
    """Statistics over the finite values of the concatenation of `chunks` (flat arrays, any numeric dtype)."""
    acc = _Accumulator()
    for chunk in chunks:
        acc.add(np.asarray(chunk).reshape(-1))
    return acc.result()
