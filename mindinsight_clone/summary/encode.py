"""numpy values -> the protobuf messages MindSpore writes (same field layout, same bucket scheme)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from mindinsight_clone.proto import anf_ir_pb2, summary_pb2

IMAGES_PER_ROW = 8  # MindSpore tiles a batch 8 images per row
MAX_HISTOGRAM_BINS = 90
IMAGE_FORMATS = ("NCHW", "NHWC", "CHW", "HWC", "HW")

_DATA_TYPES: dict[np.dtype, anf_ir_pb2.DataType] = {
    np.dtype(np.bool_): anf_ir_pb2.DT_BOOL,
    np.dtype(np.int8): anf_ir_pb2.DT_INT8,
    np.dtype(np.int16): anf_ir_pb2.DT_INT16,
    np.dtype(np.int32): anf_ir_pb2.DT_INT32,
    np.dtype(np.int64): anf_ir_pb2.DT_INT64,
    np.dtype(np.uint8): anf_ir_pb2.DT_UINT8,
    np.dtype(np.uint16): anf_ir_pb2.DT_UINT16,
    np.dtype(np.uint32): anf_ir_pb2.DT_UINT32,
    np.dtype(np.uint64): anf_ir_pb2.DT_UINT64,
    np.dtype(np.float16): anf_ir_pb2.DT_FLOAT16,
    np.dtype(np.float32): anf_ir_pb2.DT_FLOAT32,
    np.dtype(np.float64): anf_ir_pb2.DT_FLOAT64,
}


def scalar_value(value: Any) -> float:
    """A Python/numpy number or a one-element array as the float MindSpore stores (float32 on disk)."""
    array = np.asarray(value)
    if array.size != 1:
        raise ValueError(f"a scalar needs exactly one element, got shape {array.shape}")
    return float(array.reshape(()))


def tensor_proto(value: Any) -> anf_ir_pb2.TensorProto:
    """A TensorProto as MindSpore writes it: dims, data_type, every dtype's elements in float_data."""
    array = np.asarray(value)
    data_type = _DATA_TYPES.get(array.dtype)
    if data_type is None:
        raise TypeError(f"unsupported tensor dtype {array.dtype}")
    proto = anf_ir_pb2.TensorProto(dims=array.shape, data_type=data_type)
    proto.float_data.extend(array.astype(np.float32).ravel().tolist())
    return proto


def calc_histogram_bins(count: int) -> int:
    """Bucket count MindSpore uses for `count` finite values."""
    if count == 0:
        return 0
    if count <= 5:
        return 2
    if count <= 10:
        return 3
    return min(count // 10 + 1, MAX_HISTOGRAM_BINS)


def histogram_proto(value: Any) -> summary_pb2.Summary.Histogram:
    """MindSpore's histogram: counts of NaN/±Inf, min/max/sum of the finite values, then buckets
    over [min, max] (widened by 0.5 each side when min == max) with edges in the value's dtype."""
    array = np.asarray(value)
    if array.dtype == np.bool_:
        array = array.astype(np.int8)
    flat = array.ravel()
    hist = summary_pb2.Summary.Histogram(count=flat.size)
    if flat.dtype.kind == "f":
        nan = int(np.count_nonzero(np.isnan(flat)))
        pos = int(np.count_nonzero(np.isposinf(flat)))
        neg = int(np.count_nonzero(np.isneginf(flat)))
        finite = flat[np.isfinite(flat)]
    else:
        nan = pos = neg = 0
        finite = flat
    hist.nan_count, hist.pos_inf_count, hist.neg_inf_count = nan, pos, neg
    if finite.size == 0:
        return hist
    low, high = finite.min(), finite.max()
    hist.max, hist.min, hist.sum = float(high), float(low), float(finite.sum())
    first, last = (low, high) if low < high else (low - 0.5, high + 0.5)
    edges = np.linspace(first, last, calc_histogram_bins(finite.size) + 1, dtype=finite.dtype)
    counts, _ = np.histogram(finite, bins=edges)
    for count, left, right in zip(counts.tolist(), edges[:-1], edges[1:], strict=True):
        hist.buckets.add(left=float(left), width=float(right - left), count=count)
    return hist


def image_proto(value: Any, dataformats: str = "NCHW") -> summary_pb2.Summary.Image:
    """Images (1 or 3 channels) -> one RGB PNG, a batch tiled 8 per row, as MindSpore does.

    uint8 is taken as is; floats within [0, 1] are multiplied by 255; other values are min-max
    scaled to [0, 255].
    """
    batch = _to_nchw(np.asarray(value), dataformats)
    if batch.shape[1] not in (1, 3):
        raise ValueError(f"images need 1 or 3 channels, got {batch.shape[1]}")
    if 0 in batch.shape:
        raise ValueError(f"empty image batch {batch.shape}")
    canvas = _tile(batch)  # 3 x H x W
    pixels = np.ascontiguousarray(_to_uint8(canvas).transpose(1, 2, 0))
    from PIL import Image  # imported lazily: only the writer needs Pillow

    out = io.BytesIO()
    Image.fromarray(pixels, mode="RGB").save(out, format="PNG")
    height, width = pixels.shape[:2]
    return summary_pb2.Summary.Image(height=height, width=width, colorspace=3, encoded_image=out.getvalue())


def _to_nchw(array: np.ndarray, dataformats: str) -> np.ndarray:
    fmt = dataformats.upper()
    if fmt not in IMAGE_FORMATS or array.ndim != len(fmt):
        raise ValueError(f"image of shape {array.shape} does not match dataformats {dataformats!r}")
    if fmt == "HW":
        return array[None, None]
    if fmt in ("CHW", "HWC"):
        array = array[None]
        fmt = "N" + fmt
    return array if fmt == "NCHW" else array.transpose(0, 3, 1, 2)


def _tile(batch: np.ndarray) -> np.ndarray:
    if batch.shape[1] == 1:
        batch = np.concatenate([batch, batch, batch], axis=1)
    n, _, h, w = batch.shape
    cols = min(n, IMAGES_PER_ROW)
    rows = -(-n // cols)
    canvas = np.zeros((3, h * rows, w * cols), dtype=batch.dtype)
    for i in range(n):
        y, x = divmod(i, cols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = batch[i]
    return canvas


def _to_uint8(canvas: np.ndarray) -> np.ndarray:
    if canvas.dtype == np.uint8:
        return canvas
    values = canvas.astype(np.float64)
    low, high = float(values.min()), float(values.max())
    if low >= 0.0 and high <= 1.0:
        values = values * 255.0
    elif high > low:
        values = (values - low) / (high - low) * 255.0
    else:
        values = np.zeros_like(values)
    return np.clip(values, 0, 255).astype(np.uint8)
