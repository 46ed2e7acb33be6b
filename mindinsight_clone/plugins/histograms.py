"""Histogram plugin: `GET datavisual/histograms` (API.md §4)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mindinsight_clone.errors import HistogramNotExistError
from mindinsight_clone.ingest.values import Histogram
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.plugins.rebin import OriginalHistogram, mask_invalid, rebin_all
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

NAME = "histogram"
MAX_ORIGINAL_BUCKETS = 90  # MindInsight drops a step with more original buckets (LIMITS.md §6)


def original(h: Histogram) -> OriginalHistogram:
    order = np.argsort(h.left, kind="stable")
    left, width, count = h.left[order], h.width[order], h.count[order]
    buckets = tuple(zip(left.tolist(), width.tolist(), count.astype(np.int64).tolist(), strict=True))
    return OriginalHistogram(buckets=buckets, max=mask_invalid(float(h.max)), min=mask_invalid(float(h.min)),
                             count=int(count.sum()))


def _row(sample: Sample, buckets: Any) -> dict[str, Any]:
    """One step as MindInsight sends it, plus the NaN/±Inf counts (additive) when the step has any."""
    row: dict[str, Any] = {"wall_time": sample.wall_time, "step": sample.step, "buckets": buckets}
    h: Histogram = sample.value
    if h.nan_count or h.pos_inf_count or h.neg_inf_count:
        row.update(nan_count=h.nan_count, pos_inf_count=h.pos_inf_count, neg_inf_count=h.neg_inf_count)
    return row


def _render(samples: list[Sample]) -> list[dict[str, Any]]:
    rebinned = rebin_all([original(s.value) for s in samples])
    return [_row(s, b) for s, b in zip(samples, rebinned, strict=True)]


def histograms(cache: RunCache, train_id: str, tag: str) -> dict[str, Any]:
    tag_samples(cache, NAME, tag, HistogramNotExistError)
    rows = cache.memo(NAME, tag, "histograms", _render)
    return {"train_id": train_id, "tag": tag, "histograms": rows}
