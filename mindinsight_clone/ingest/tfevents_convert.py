"""TensorBoard summary values -> the typed values MindSpore files give (`values.Image`, `values.Histogram`).

* `tensor_array`: a TensorBoard `TensorProto` as a numpy array (raw `tensor_content` or the typed lists,
  version-0 single-element fill, half/bfloat16 bit patterns, strings as `bytes` objects).
* `histogram_from_proto`: a `HistogramProto` (tensorboardX, torch.utils.tensorboard, TF1): bucket i covers
  (bucket_limit[i-1], bucket_limit[i]]; the open ends are closed with `min` and `max`, as TensorBoard's own
  `data_compat` does.
* `histogram_from_tensor`: a TF2 `histograms` plugin tensor, shape [k, 3] of (left, right, count).
  Either kind with more than `MAX_BUCKETS` buckets (tensorboardX's default bins give up to ~1500) has
  groups of adjacent buckets merged down to at most `MAX_BUCKETS` (counts kept exactly, edges coarser),
  because the store drops histograms with more buckets, as MindInsight does.
* `images_from_tensor`: a TF2 `images` plugin tensor, strings [width, height, image0, image1, ...].

Everything inconsistent raises ValueError (the caller reports the record as a problem). A TensorProto whose
typed list holds ONE value for a larger shape means "fill the shape with it": a few bytes on disk can claim
gigabytes, so every consumer states the most elements it can use and the dtype it needs, both checked from the
shape alone before anything is allocated, and a fill expands to at most `MAX_FILL_ELEMENTS` (a tensor whose
values are all on disk costs memory in proportion to the file; a fill does not).
"""

from __future__ import annotations

import math

import numpy as np

from mindinsight_clone.ingest.values import Histogram, Image
from mindinsight_clone.proto import tb_summary_pb2, tb_tensor_pb2, tb_types_pb2

DataType = tb_types_pb2.DataType

# dtype -> (numpy dtype of the elements, TensorProto list field holding them when not in tensor_content)
_NUMERIC: dict[int, tuple[np.dtype, str]] = {
    tb_types_pb2.DT_FLOAT: (np.dtype(np.float32), "float_val"),
    tb_types_pb2.DT_DOUBLE: (np.dtype(np.float64), "double_val"),
    tb_types_pb2.DT_INT32: (np.dtype(np.int32), "int_val"),
    tb_types_pb2.DT_INT16: (np.dtype(np.int16), "int_val"),
    tb_types_pb2.DT_INT8: (np.dtype(np.int8), "int_val"),
    tb_types_pb2.DT_UINT8: (np.dtype(np.uint8), "int_val"),
    tb_types_pb2.DT_UINT16: (np.dtype(np.uint16), "int_val"),
    tb_types_pb2.DT_INT64: (np.dtype(np.int64), "int64_val"),
    tb_types_pb2.DT_UINT32: (np.dtype(np.uint32), "uint32_val"),
    tb_types_pb2.DT_UINT64: (np.dtype(np.uint64), "uint64_val"),
    tb_types_pb2.DT_BOOL: (np.dtype(np.bool_), "bool_val"),
    tb_types_pb2.DT_HALF: (np.dtype(np.float16), "half_val"),
    tb_types_pb2.DT_BFLOAT16: (np.dtype(np.uint16), "half_val"),  # bit patterns; widened below
    tb_types_pb2.DT_COMPLEX64: (np.dtype(np.complex64), "scomplex_val"),
    tb_types_pb2.DT_COMPLEX128: (np.dtype(np.complex128), "dcomplex_val"),
}
MAX_BUCKETS = 90  # store.run_cache.MAX_ORIGINAL_HISTOGRAM_BUCKETS (MindInsight's MAX_ORIGINAL_BUCKETS_COUNT)
MAX_TENSOR_ELEMENTS = 100_000_000  # a shape claiming more is refused before anything is allocated
MAX_RANK = 16  # summaries use rank <= 3; TensorFlow's own limit is 254
MAX_FILL_ELEMENTS = 65_536  # most elements one value may fill (writers put every value on disk)
MAX_HISTOGRAM_ROWS = 1_000_000  # buckets of a [k, 3] histogram tensor (merged to MAX_BUCKETS anyway)


def tensor_shape(proto: tb_tensor_pb2.TensorProto, max_elements: int = MAX_TENSOR_ELEMENTS,
                 what: str = "tensor") -> tuple[int, ...]:
    """The declared shape, refused when its rank or element count is more than `what` can use."""
    if proto.tensor_shape.unknown_rank:
        raise ValueError(f"{what} has an unknown rank")
    if len(proto.tensor_shape.dim) > MAX_RANK:
        raise ValueError(f"{what} has {len(proto.tensor_shape.dim)} dimensions; at most {MAX_RANK} are read")
    dims = tuple(int(d.size) for d in proto.tensor_shape.dim)
    if any(d < 0 for d in dims):
        raise ValueError(f"{what} has an unknown or negative dimension: {list(dims)}")
    if any(d > max_elements for d in dims) or math.prod(dims) > max_elements:
        raise ValueError(f"{what} shape {list(dims)} has more than the {max_elements} elements it can use")
    return dims


def real_dtype(proto: tb_tensor_pb2.TensorProto, what: str) -> None:
    """Refuse a tensor that does not hold real numbers, from its dtype alone."""
    spec = _NUMERIC.get(proto.dtype)
    if spec is None or spec[0].kind == "c":
        raise ValueError(f"{what} must hold real numbers, not {_dtype_name(proto.dtype)}")


def listed_count(proto: tb_tensor_pb2.TensorProto) -> int:
    """How many values the tensor holds on disk (before any fill)."""
    if proto.dtype == tb_types_pb2.DT_STRING:
        return len(proto.string_val)
    spec = _NUMERIC.get(proto.dtype)
    if spec is None:
        raise ValueError(f"tensor dtype {_dtype_name(proto.dtype)} is not a numeric type we read")
    dtype, field = spec
    if proto.tensor_content:
        return len(proto.tensor_content) // dtype.itemsize
    listed = len(getattr(proto, field))
    return listed // 2 if dtype.kind == "c" else listed


def tensor_array(proto: tb_tensor_pb2.TensorProto, max_elements: int = MAX_TENSOR_ELEMENTS,
                 what: str = "tensor") -> np.ndarray:
    """The tensor's elements shaped as declared; DT_STRING gives an object array of bytes.

    The shape (at most `max_elements`) and a fill (at most MAX_FILL_ELEMENTS) are checked before allocating."""
    dims = tensor_shape(proto, max_elements, what)
    size = math.prod(dims)
    if size > MAX_FILL_ELEMENTS and listed_count(proto) == 1:
        raise ValueError(f"{what} of shape {list(dims)} is one value filling {size} elements; at most "
                         f"{MAX_FILL_ELEMENTS} are filled")
    if proto.dtype == tb_types_pb2.DT_STRING:
        strings = list(proto.string_val)
        array = np.empty(len(strings), dtype=object)
        array[:] = strings
    else:
        spec = _NUMERIC.get(proto.dtype)
        if spec is None:
            raise ValueError(f"tensor dtype {_dtype_name(proto.dtype)} is not a numeric type we read")
        dtype, field = spec
        if proto.tensor_content:
            raw = proto.tensor_content
            if len(raw) % dtype.itemsize:
                raise ValueError("tensor_content is not a whole number of elements of its dtype")
            array = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype)
        else:
            listed = getattr(proto, field)
            if field == "half_val":
                array = np.array(listed, dtype=np.int64).astype(np.uint16)
                if proto.dtype == tb_types_pb2.DT_HALF:
                    array = array.view(np.float16)
            elif dtype.kind == "c":
                pairs = np.array(listed, dtype=np.float64)
                if pairs.size % 2:
                    raise ValueError("complex tensor has an odd number of parts")
                array = (pairs[0::2] + 1j * pairs[1::2]).astype(dtype)
            else:
                array = np.array(listed, dtype=dtype)
        if proto.dtype == tb_types_pb2.DT_BFLOAT16:
            array = (array.astype(np.uint32) << 16).view(np.float32)
    if array.size == 1 and size > 1:  # version 0: a single element fills the shape
        array = np.full(size, array[0], dtype=array.dtype)
    if array.size != size:
        raise ValueError(f"tensor data ({array.size} values) does not fill its shape {list(dims)}")
    return array.reshape(dims)


def scalar_from_tensor(proto: tb_tensor_pb2.TensorProto) -> float:
    """A TF2 `scalars` plugin tensor (rank 0, any real dtype) as a float."""
    real_dtype(proto, "a scalar summary")
    array = tensor_array(proto, 1, "a scalar summary")
    if array.size != 1 or array.dtype.kind not in "fiub":
        raise ValueError(f"a scalar summary needs one real number, got {array.dtype} shape {list(array.shape)}")
    return float(array.reshape(()))


def histogram_from_proto(proto: tb_summary_pb2.HistogramProto) -> Histogram:
    limits = np.array(proto.bucket_limit, dtype=np.float64)
    counts = np.array(proto.bucket, dtype=np.float64)
    if limits.size != counts.size:
        raise ValueError(f"histogram has {limits.size} bucket limits but {counts.size} counts")
    if not counts.size:
        return _histogram(np.zeros(0), np.zeros(0), counts, proto.min, proto.max, proto.sum)
    # TensorBoard's data_compat: lefts = [min] + limits[:-1], rights = limits[:-1] + [max]
    rights = np.append(limits[:-1], proto.max)
    lefts = np.minimum(np.insert(limits[:-1], 0, proto.min), rights)
    return _histogram(lefts, rights, counts, proto.min, proto.max, proto.sum)


def histogram_from_tensor(proto: tb_tensor_pb2.TensorProto) -> Histogram:
    """A TF2 `histograms` tensor [k, 3]: (left edge, right edge, count) per bucket."""
    real_dtype(proto, "a histogram tensor")
    dims = tensor_shape(proto, 3 * MAX_HISTOGRAM_ROWS, "a histogram tensor")
    if len(dims) != 2 or dims[1] != 3:
        raise ValueError(f"a histogram tensor must be [k, 3] real numbers, got shape {list(dims)}")
    array = tensor_array(proto, 3 * MAX_HISTOGRAM_ROWS, "a histogram tensor")
    if array.ndim != 2 or array.shape[1] != 3 or array.dtype.kind not in "fiu":
        raise ValueError(f"a histogram tensor must be [k, 3] real numbers, got shape {list(array.shape)}")
    data = array.astype(np.float64)
    lefts, rights, counts = data[:, 0], data[:, 1], data[:, 2]
    if not counts.size:
        return _histogram(lefts, rights, counts, 0.0, 0.0, 0.0)
    with np.errstate(all="ignore"):  # the tensor has no exact sum: estimate it from bucket centres
        total = float(((lefts + rights) / 2) @ counts)
    return _histogram(lefts, rights, counts, float(lefts.min()), float(rights.max()), total)


def _histogram(lefts: np.ndarray, rights: np.ndarray, counts: np.ndarray, lo: float, hi: float,
               total: float) -> Histogram:
    if counts.size > MAX_BUCKETS:
        lefts, rights, counts = merge_buckets(lefts, rights, counts, MAX_BUCKETS)
    with np.errstate(all="ignore"):  # inf - inf is NaN: refused just below
        widths = rights - lefts
    if not (np.isfinite(lefts).all() and np.isfinite(widths).all()) or (widths < 0).any():
        raise ValueError("histogram buckets must have finite edges in increasing order")
    if not np.isfinite(counts).all() or (counts < 0).any() or counts.sum() >= 2.0**62:
        raise ValueError("histogram counts must be finite, non-negative and fit in 62 bits")
    if counts.size:
        first, last = float(lefts.min()), float(rights.max())
        with np.errstate(all="ignore"):  # the views re-bin over [min, max]: that span must be a number
            if not math.isfinite(last - first):
                raise ValueError(f"histogram range [{first}, {last}] is too wide to show")
        # min/max as written when they lie within the buckets, else the buckets' outer edges
        lo = min(max(lo, first), last) if math.isfinite(lo) else first
        hi = min(max(hi, lo), last) if math.isfinite(hi) else last
    return Histogram(left=lefts, width=widths, count=counts, min=float(lo), max=float(hi), sum=float(total))


def merge_buckets(lefts: np.ndarray, rights: np.ndarray, counts: np.ndarray, most: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge runs of `ceil(n / most)` adjacent buckets: at most `most` buckets, the same total count."""
    group = -(-counts.size // most)
    starts = np.arange(0, counts.size, group)
    ends = np.minimum(starts + group, counts.size) - 1
    return lefts[starts], rights[ends], np.add.reduceat(counts, starts)


def image_from_proto(proto: tb_summary_pb2.Summary.Image) -> Image:
    return Image(width=proto.width, height=proto.height, encoded=proto.encoded_image_string)


def images_from_tensor(proto: tb_tensor_pb2.TensorProto) -> list[Image]:
    """A TF2 `images` tensor: [width, height, encoded image, ...] as strings; [] for an empty batch."""
    if proto.dtype != tb_types_pb2.DT_STRING:
        raise ValueError(f"an image tensor must hold strings, not {_dtype_name(proto.dtype)}")
    strings = proto.string_val
    if len(strings) < 2:
        raise ValueError("an image tensor needs at least its width and height")
    try:
        width, height = int(strings[0]), int(strings[1])
    except ValueError:
        raise ValueError("an image tensor's width and height are not decimal numbers") from None
    return [Image(width=width, height=height, encoded=data) for data in strings[2:]]


def _dtype_name(number: int) -> str:
    try:
        return DataType.Name(number)
    except ValueError:
        return str(number)
