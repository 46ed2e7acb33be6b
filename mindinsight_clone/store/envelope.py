"""Exact statistics and a fixed-size min/max envelope over *every* scalar value seen for a tag.

The reservoir keeps at most 1000 points, so a one-step spike can be dropped from the sample. Beside it we
keep the count, the exact min and max, the last value, and an envelope of `size` buckets over the step
axis: each bucket holds the min, max and count of the values whose step falls in it. When a step falls
outside the covered range, the bucket width doubles and neighbouring buckets merge, so memory stays fixed
and every value ever seen is still accounted for in some bucket. NaN values are counted but do not move
min or max. Updates are vectorised with numpy (one call per batch, not per value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

DEFAULT_BUCKETS = 256


@dataclass
class Envelope:
    size: int = DEFAULT_BUCKETS
    origin: int = 0
    width: int = 1
    started: bool = False
    mins: np.ndarray = field(init=False)
    maxs: np.ndarray = field(init=False)
    counts: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        if self.size < 2 or self.size % 2:
            raise ValueError("envelope size must be an even number >= 2")
        self.mins = np.full(self.size, np.nan)
        self.maxs = np.full(self.size, np.nan)
        self.counts = np.zeros(self.size, dtype=np.int64)

    def _grow_right(self) -> None:
        """Double the width; old buckets 2i and 2i+1 become bucket i."""
        half = self.size // 2
        self.mins = np.concatenate([np.fmin(self.mins[0::2], self.mins[1::2]), np.full(half, np.nan)])
        self.maxs = np.concatenate([np.fmax(self.maxs[0::2], self.maxs[1::2]), np.full(half, np.nan)])
        self.counts = np.concatenate([self.counts[0::2] + self.counts[1::2], np.zeros(half, dtype=np.int64)])
        self.width *= 2

    def _grow_left(self) -> None:
        """Double the width and move the origin left: the old range becomes the right half."""
        half = self.size // 2
        self.mins = np.concatenate([np.full(half, np.nan), np.fmin(self.mins[0::2], self.mins[1::2])])
        self.maxs = np.concatenate([np.full(half, np.nan), np.fmax(self.maxs[0::2], self.maxs[1::2])])
        self.counts = np.concatenate([np.zeros(half, dtype=np.int64), self.counts[0::2] + self.counts[1::2]])
        self.origin -= self.size * self.width
        self.width *= 2

    def update(self, steps: np.ndarray, values: np.ndarray) -> None:
        if steps.size == 0:
            return
        lo, hi = int(steps.min()), int(steps.max())
        if not self.started:  # every bucket is empty: pick the width doubling would reach, without merging
            self.origin = lo
            self.started = True
            while hi >= self.origin + self.size * self.width:
                self.width *= 2
        while lo < self.origin:
            self._grow_left()
        while hi >= self.origin + self.size * self.width:
            self._grow_right()
        idx = (steps.astype(np.int64) - self.origin) // self.width
        np.fmin.at(self.mins, idx, values)
        np.fmax.at(self.maxs, idx, values)
        np.add.at(self.counts, idx, 1)

    def buckets(self) -> list[dict[str, Any]]:
        """Non-empty buckets, ascending: first/last step covered, min, max (None if only NaN), count."""
        out: list[dict[str, Any]] = []
        for i in np.flatnonzero(self.counts):
            start = self.origin + int(i) * self.width
            lo, hi = float(self.mins[i]), float(self.maxs[i])
            out.append({
                "step_start": start,
                "step_end": start + self.width - 1,
                "min": None if math.isnan(lo) else lo,
                "max": None if math.isnan(hi) else hi,
                "count": int(self.counts[i]),
            })
        return out


@dataclass
class ScalarStats:
    """Count, exact min/max, last value and the envelope of every value seen for one scalar tag."""

    count: int = 0
    nan_count: int = 0
    min: float = math.inf
    max: float = -math.inf
    last_step: int | None = None
    last_value: float | None = None
    envelope: Envelope = field(default_factory=Envelope)

    def update(self, steps: np.ndarray, values: np.ndarray) -> None:
        if values.size == 0:
            return
        self.count += int(values.size)
        nans = int(np.count_nonzero(np.isnan(values)))
        self.nan_count += nans
        if nans < values.size:  # fmin/fmax skip NaN
            self.min = min(self.min, float(np.fmin.reduce(values)))
            self.max = max(self.max, float(np.fmax.reduce(values)))
        self.last_step = int(steps[-1])
        self.last_value = float(values[-1])
        self.envelope.update(steps, values)

    def as_dict(self) -> dict[str, Any]:
        def clean(x: float | None) -> float | None:
            return None if x is None or math.isnan(x) or math.isinf(x) else x

        return {
            "count": self.count,
            "nan_count": self.nan_count,
            "min": clean(self.min) if self.count > self.nan_count else None,
            "max": clean(self.max) if self.count > self.nan_count else None,
            "last_step": self.last_step,
            "last_value": clean(self.last_value),
        }
