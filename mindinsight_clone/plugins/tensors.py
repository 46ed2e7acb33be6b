"""Tensor plugin: `GET datavisual/tensors` with detail = (none) | stats | histogram | data (API.md §5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.errors import (
    ParamMissError,
    ParamTypeError,
    ParamValueError,
    ResponseDataExceedMaxValueError,
    StepTensorDataNotInCacheError,
    TensorNotExistError,
    TensorTooLargeError,
)
from mindinsight_clone.ingest.values import Tensor
from mindinsight_clone.plugins.common import tag_samples
from mindinsight_clone.plugins.rebin import OriginalHistogram, rebin_all
from mindinsight_clone.plugins.tensor_stats import (
    MAX_RESPONSE_ELEMENTS,
    MAX_TENSOR_COUNT,
    Stats,
    original_histogram,
    parse_dims,
    slice_dims,
    statistics,
    statistics_dict,
    to_jsonable,
)
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

NAME = "tensor"


@dataclass(frozen=True)
class TensorView:
    """What MindInsight's TensorContainer holds for one step (computed once per kept sample)."""

    dims: list[int]
    data_type: str
    array: np.ndarray  # float64, empty if too large
    too_large: bool
    stats: Stats
    histogram: OriginalHistogram


def view(t: Tensor) -> TensorView:
    arr = np.asarray(t.array, dtype=np.float64).reshape(tuple(t.dims)) if t.array is not None else np.array([])
    too_large = arr.size > MAX_TENSOR_COUNT
    if too_large:
        arr = np.array([])
    stats = statistics(arr)
    return TensorView(list(t.dims), t.data_type, arr, too_large, stats, original_histogram(arr, stats))


def _views(samples: list[Sample]) -> list[TensorView]:
    return [view(s.value) for s in samples]


def _rebinned(samples: list[Sample]) -> list[list[list[float | int]]]:
    return rebin_all([v.histogram for v in _views(samples)])


def tensor_rows(cache: RunCache, train_id: str, tags: list[str], detail: str | None,
                step: str | None, dims: str | None) -> list[dict[str, Any]]:
    """The `tensors` list items for one run (one per tag), MindInsight's checks in its order."""
    out = []
    for tag in tags:
        samples = tag_samples(cache, NAME, tag, TensorNotExistError)
        views = cache.memo(NAME, tag, "views", _views)
        if detail is None or detail == "stats":
            values = []
            for s, v in zip(samples, views, strict=True):
                value: dict[str, Any] = {"dims": v.dims, "data_type": v.data_type}
                if detail == "stats":
                    value["statistics"] = None if v.too_large else statistics_dict(v.stats, v.stats)
                values.append({"wall_time": s.wall_time, "step": s.step, "value": value})
        elif detail == "data":
            values = _data(samples, views, step, dims)
        elif detail == "histogram":
            buckets = cache.memo(NAME, tag, "histogram", _rebinned)
            values = []
            for s, v, b in zip(samples, views, buckets, strict=True):
                if v.too_large:
                    raise TensorTooLargeError(f"Detail: Step: {s.step}")
                values.append({"wall_time": s.wall_time, "step": s.step, "value": {
                    "dims": v.dims, "data_type": v.data_type, "histogram_buckets": b,
                    "statistics": statistics_dict(v.stats, v.stats)}})
        else:
            raise ParamValueError(f"Can not support this value: {detail} of detail.")
        out.append({"train_id": train_id, "tag": tag, "values": values})
    return out


def _data(samples: list[Sample], views: list[TensorView], step: str | None,
          dims: str | None) -> list[dict[str, Any]]:
    if step is None or step == "":
        raise ParamMissError("step")
    if dims is None or dims == "":
        raise ParamMissError("dims")
    parsed = parse_dims(dims)
    try:
        step_no = int(step)
    except ValueError:
        raise ParamTypeError("step", "Integer") from None
    for s, v in zip(samples, views, strict=True):
        if s.step != step_no:
            continue
        if v.too_large:
            raise TensorTooLargeError(f"Detail: Step: {s.step}")
        part = slice_dims(v.array, parsed)
        if part.size > MAX_RESPONSE_ELEMENTS:
            raise ResponseDataExceedMaxValueError(
                f"Detail: the size of response data: {part.size} exceed max value: {MAX_RESPONSE_ELEMENTS}.")
        stats = statistics(part)
        return [{"wall_time": s.wall_time, "step": s.step, "value": {
            "dims": v.dims, "data_type": v.data_type, "data": to_jsonable(part, stats),
            "statistics": statistics_dict(stats, v.stats)}}]
    raise StepTensorDataNotInCacheError(f"Detail: this step: {step_no} data may has been dropped.")
