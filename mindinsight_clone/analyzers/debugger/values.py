"""Values of dumped tensors: a window (slice) as the datavisual tensor endpoint answers it, a histogram, and the
comparison of one tensor between two iterations.

The slicing syntax and its checks, the window statistics, the JSON form of NaN/Inf and the histogram buckets are
the tensors plugin's (`tensor_stats`), reused; what differs is where values come from: only the window is read
(`npy_file`: range reads, never a memory map), and the whole-tensor figures (`overall_*`, the
histogram range) come from the tensor's cached statistics, so a window of a terabyte-sized tensor costs the
window. A histogram or a comparison reads the tensor(s) in bounded chunks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.debugger.stats import TensorStats, tensor_stats
from mindinsight_clone.analyzers.debugger.tensors import TensorItem
from mindinsight_clone.errors import (
    DebuggerCompareTensorError,
    DebuggerTensorUnreadableError,
    ResponseDataExceedMaxValueError,
)
from mindinsight_clone.ingest.npy_file import CHUNK_BYTES, NpyArray, NpyError, read_header, selection_shape
from mindinsight_clone.plugins.tensor_stats import (
    MAX_RESPONSE_ELEMENTS,
    Stats,
    original_histogram,
    parse_dims,
    slice_dims,
    statistics,
    statistics_dict,
    to_jsonable,
)

DEFAULT_WINDOW_EDGE = 10  # elements per sliced dimension when no `shape` is given


def open_array(item: TensorItem) -> NpyArray:
    """The checked .npy of a tensor item; DebuggerTensorUnreadableError when it cannot be read."""
    if item.entry is None:
        raise DebuggerTensorUnreadableError("only statistic.csv describes this tensor: its values were not dumped "
                                            "(saved_data \"statistic\")")
    try:
        header, prefix = read_header(item.entry.location, item.entry.size)
        return NpyArray(item.entry.location, header, prefix)
    except (NpyError, OSError) as exc:
        raise DebuggerTensorUnreadableError(f"{item.entry.name}: {exc}") from None


def default_dims(shape: tuple[int, ...]) -> str:
    """`[0, 0, :10, :10]`-style window: the last two dimensions sliced (at most 10 each), the others at 0."""
    parts = ["0"] * len(shape)
    for d in range(max(0, len(shape) - 2), len(shape)):
        parts[d] = f":{min(shape[d], DEFAULT_WINDOW_EDGE)}"
    return "[" + ", ".join(parts) + "]"


def checked_index(shape: tuple[int, ...], dims: str | None) -> tuple[str, tuple[int | slice, ...]]:
    """The slicing text and index for `shape` (MindInsight's syntax and errors), refused when it selects more
    than MAX_RESPONSE_ELEMENTS values: nothing is read before this passes."""
    text = dims if dims else default_dims(shape)
    index = parse_dims(text)
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape=shape, strides=(0,) * len(shape))
    slice_dims(dummy, index)  # raises ParamValueError on a wrong number of dims or an index out of range
    size = int(np.prod(selection_shape(shape, index), dtype=np.int64))
    if size > MAX_RESPONSE_ELEMENTS:
        raise ResponseDataExceedMaxValueError(
            f"Detail: the size of response data: {size} exceed max value: {MAX_RESPONSE_ELEMENTS}.")
    return text, index


def _window(array: NpyArray, index: tuple[int | slice, ...]) -> np.ndarray:
    try:
        part = array.window(index)
    except (NpyError, OSError) as exc:
        raise DebuggerTensorUnreadableError(str(exc)) from None
    return part.astype(np.uint8) if part.dtype == np.bool_ else part


def window_statistics(window: Stats, overall: TensorStats | None) -> dict[str, Any]:
    """The tensors plugin's statistics of a window; the overall_* figures null when the whole tensor's statistics
    are not known yet (a huge tensor, see tensors.INLINE_STATS_BYTES)."""
    if overall is not None:
        return statistics_dict(window, overall.as_plugin_stats())
    out = statistics_dict(window, window)
    return {k: (None if k.startswith("overall_") else v) for k, v in out.items()}


def value_answer(item: TensorItem, overall: TensorStats | None, dims: str | None) -> dict[str, Any]:
    """`{"shape", "value": {"dims", "data_type", "data", "statistics"}}` for one window."""
    return window_answer(open_array(item), item.name.dtype, overall, dims)


def window_answer(array: NpyArray, data_type: str, overall: TensorStats | None, dims: str | None) -> dict[str, Any]:
    """One window of any checked .npy (MindInsight's slicing syntax), with its statistics."""
    text, index = checked_index(array.header.shape, dims)
    part = _window(array, index)
    stats = statistics(part)
    return {"shape": text, "value": {"dims": list(array.header.shape), "data_type": data_type,
                                     "npy_dtype": str(array.header.dtype), "data": to_jsonable(part, stats),
                                     "statistics": window_statistics(stats, overall)}}


def histogram(item: TensorItem, overall: TensorStats) -> list[list[float]]:
    return array_histogram(open_array(item), overall)


def array_histogram(array: NpyArray, overall: TensorStats) -> list[list[float]]:
    """Buckets `[left, width, count]` over the finite values (the tensors plugin's bucketing over the whole
    tensor's range and count), counted chunk by chunk."""
    plugin_stats = overall.as_plugin_stats()
    if overall.finite_count == 0:
        return []
    counts: np.ndarray | None = None
    buckets: tuple[tuple[float, float, float], ...] = ()
    for chunk in value_chunks(array):
        buckets = original_histogram(chunk.astype(np.float64, copy=False), plugin_stats).buckets
        part = np.array([b[2] for b in buckets], dtype=np.int64)
        counts = part if counts is None else counts + part
    if counts is None:
        return []
    return [[left, width, int(c)] for (left, width, _), c in zip(buckets, counts, strict=True)]


def value_chunks(array: NpyArray, chunk_bytes: int = CHUNK_BYTES) -> Iterator[np.ndarray]:
    try:
        for chunk in array.chunks(chunk_bytes):
            yield chunk.view(np.uint8) if chunk.dtype == np.bool_ else chunk
    except (NpyError, OSError) as exc:
        raise DebuggerTensorUnreadableError(str(exc)) from None


def paired_chunks(left: NpyArray, right: NpyArray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Chunks of the same elements of two arrays of one shape (their item sizes may differ)."""
    width = max(left.header.dtype.itemsize, right.header.dtype.itemsize, 1)
    elements = max(1, CHUNK_BYTES // width)
    yield from zip(value_chunks(left, elements * left.header.dtype.itemsize),
                   value_chunks(right, elements * right.header.dtype.itemsize), strict=True)


def difference_stats(current: NpyArray, other: NpyArray) -> TensorStats:
    """Statistics of `current - other` (float64) over the whole tensors, chunk by chunk."""
    return tensor_stats(a.astype(np.float64) - b.astype(np.float64) for a, b in paired_chunks(current, other))


def compare_answer(current: TensorItem, other: TensorItem, dims: str | None) -> dict[str, Any]:
    """The difference `current - other` of one tensor in two iterations: statistics of the whole difference and
    the window of both tensors and of their difference."""
    left, right = open_array(current), open_array(other)
    if left.header.shape != right.header.shape:
        raise DebuggerCompareTensorError(f"the shapes differ: {list(left.header.shape)} and "
                                         f"{list(right.header.shape)}")
    if left.header.fortran_order != right.header.fortran_order:
        raise DebuggerCompareTensorError("one file is in C order and the other in Fortran order")
    text, index = checked_index(left.header.shape, dims)
    a, b = _window(left, index), _window(right, index)
    diff = a.astype(np.float64) - b.astype(np.float64)
    overall = difference_stats(left, right)
    diff_stats, a_stats, b_stats = statistics(diff), statistics(a), statistics(b)
    return {"shape": text, "value": {
        "dims": list(left.header.shape), "data_type": current.name.dtype,
        "data": to_jsonable(diff, diff_stats), "statistics": statistics_dict(diff_stats, overall.as_plugin_stats()),
        "current": to_jsonable(a, a_stats), "other": to_jsonable(b, b_stats)},
        "diff_statistics": overall.to_dict()}
