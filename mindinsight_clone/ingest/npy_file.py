"""Read a NumPy `.npy` file through the storage seam without loading it whole.

* `read_header` reads the header only (one small read; the whole file when it is small) and checks that the data
  is all there: a truncated file (a dump still being written, a copy cut short) raises `NpyError` saying how many
  bytes are missing. A header is trusted for nothing: its length is bounded (numpy's own limit), so are its number of
  dimensions and the bytes its shape announces, and only plain numeric dtypes are read (object arrays, i.e. pickles,
  structured/record and subarray dtypes, strings are refused; nothing is ever unpickled).
* `NpyArray.window(index)` reads only the elements a basic index selects, by range reads of the spans that hold them.
* `NpyArray.chunks()` yields the values in bounded flat chunks (statistics of a huge tensor in bounded memory).

Nothing is memory-mapped: a mapped file cut short by its writer kills the process with SIGBUS when a page past
its new end is touched; a range read just comes back short, which is an `NpyError` ("truncated").
Header parsing is numpy's own (`numpy.lib.format`), the format's reference implementation. Error messages never
quote the header (file contents).
"""

from __future__ import annotations

import io
import logging
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.lib import format as npy_format

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)

MAX_HEADER_BYTES = 10_000  # numpy's own limit (`max_header_size` of numpy.lib.format); numpy.save writes ~100
HEADER_PROBE_BYTES = 64 * 1024  # first read: holds any header we accept
MAX_DIMS = 32  # numpy 1's limit (MindSpore tensors have at most 8)
MAX_ANNOUNCED_BYTES = 1 << 62  # shape x item size, zero dimensions counted as 1 (numpy's sizes are int64)
NUMERIC_KINDS = "biufc"  # bool, signed, unsigned, float, complex
SMALL_FILE_BYTES = 4 * 1024 * 1024  # read whole in one request (remote) when the file is at most this big
CHUNK_BYTES = 32 * 1024 * 1024  # flat chunks for statistics
GAP_BYTES = 16 * 1024  # a window's span is read in one piece when it wastes at most this (or 4x what it holds)
REMOTE_GAP_BYTES = 4 * 1024 * 1024  # the same for a remote file (each piece is a request)
MAX_REMOTE_PIECES = 256  # range reads for one window of a remote file


class NpyError(ValueError):
    """The file is not a readable .npy (not the format, truncated, object dtype...)."""


@dataclass(frozen=True, slots=True)
class NpyHeader:
    shape: tuple[int, ...]
    dtype: np.dtype
    fortran_order: bool
    offset: int  # where the data starts

    @property
    def count(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.count * self.dtype.itemsize


# the header numpy.save writes (format 1.0): `{'descr': '<f4', 'fortran_order': False, 'shape': (4, 6), }`; read with
# this pattern first (numpy's own parser evaluates it as a Python literal, 20x slower), numpy's parser otherwise
_CANONICAL = re.compile(rb"\x93NUMPY\x01\x00(..)\{'descr': '([<>|=]?[a-zA-Z]\d*)', 'fortran_order': (True|False), "
                        rb"'shape': \(((?:\d+, ?)*\d*)\), \} *\n", re.S)


def _canonical(prefix: bytes) -> NpyHeader | None:
    match = _CANONICAL.match(prefix)
    if match is None:
        return None
    length = int.from_bytes(match.group(1), "little")
    if match.end() != 10 + length:
        return None
    try:
        dtype = np.dtype(match.group(2).decode())
    except TypeError:
        return None
    shape = tuple(int(d) for d in match.group(4).split(b",") if d.strip())
    return NpyHeader(shape, dtype, match.group(3) == b"True", match.end())


def _header_length(prefix: bytes) -> int:
    """The length the header announces (checked before anything parses it)."""
    if len(prefix) < 10 or not prefix.startswith(npy_format.MAGIC_PREFIX):
        raise NpyError("not a .npy file (no NumPy magic string)")
    major = prefix[6]
    if major not in (1, 2, 3):
        raise NpyError(f"unsupported .npy format version {major}")
    width = 2 if major == 1 else 4
    if len(prefix) < 8 + width:
        raise NpyError("not a .npy file or its header is cut off")
    return int.from_bytes(prefix[8:8 + width], "little")


def _numpy_header(prefix: bytes) -> NpyHeader:
    handle = io.BytesIO(prefix)
    try:
        major, _minor = npy_format.read_magic(handle)
        read = npy_format.read_array_header_1_0 if major == 1 else npy_format.read_array_header_2_0
        shape, fortran, dtype = read(handle, max_header_size=MAX_HEADER_BYTES)
    except (ValueError, TypeError, OSError, EOFError, SyntaxError, RecursionError, MemoryError) as exc:
        log.debug("numpy cannot parse a .npy header: %.200s", exc)
        raise NpyError("not a .npy file or its header cannot be parsed") from None
    return NpyHeader(tuple(int(d) for d in shape), dtype, bool(fortran), handle.tell())


def _check(header: NpyHeader) -> NpyHeader:
    """Refuse what no dump holds and what would cost more than its file: object and structured dtypes, too many
    dimensions, a shape whose byte count overflows."""
    dtype, shape = header.dtype, header.shape
    if dtype.hasobject:
        raise NpyError("object arrays (pickled Python objects) are not read")
    if dtype.names is not None or dtype.subdtype is not None:
        raise NpyError("structured (record) and subarray dtypes are not read: a dumped tensor has a numeric dtype")
    if dtype.kind not in NUMERIC_KINDS:
        raise NpyError(f"dtype {dtype.str[:20]} is not read: a dumped tensor has a numeric dtype")
    if len(shape) > MAX_DIMS:
        raise NpyError(f"{len(shape)} dimensions (at most {MAX_DIMS} are read)")
    if any(d < 0 for d in shape):
        raise NpyError("negative dimension in the shape")
    if math.prod(max(d, 1) for d in shape) * dtype.itemsize >= MAX_ANNOUNCED_BYTES:
        raise NpyError(f"the shape announces more than 2**62 bytes ({_brief(shape)})")
    return header


def _brief(shape: tuple[int, ...]) -> str:
    """A shape for a message (the first dimensions only)."""
    return str(list(shape)) if len(shape) <= 8 else f"{list(shape[:8])[:-1]}, ... ({len(shape)} dimensions)]"


def parse_header(prefix: bytes) -> NpyHeader:
    """The checked header at the start of `prefix` (NpyError if it is not a .npy header, is cut off, is longer than
    numpy's limit or describes what we do not read)."""
    length = _header_length(prefix)
    if length > MAX_HEADER_BYTES:
        raise NpyError(f"the header is {length} bytes long (numpy reads at most {MAX_HEADER_BYTES})")
    header = _canonical(prefix)
    return _check(header if header is not None else _numpy_header(prefix))


def read_header(location: Location, size: int) -> tuple[NpyHeader, bytes]:
    """The header of the .npy file at `location` (`size` bytes, from its listing or stat) and the bytes read so
    far (the whole file when it is small). Raises NpyError (not a .npy, truncated) or OSError (cannot be read)."""
    if size == 0:
        raise NpyError("empty file")
    probe = size if 0 <= size <= SMALL_FILE_BYTES else HEADER_PROBE_BYTES
    prefix = storage.read_range(location, 0, max(probe, 16))
    header = parse_header(prefix)
    actual = size if size >= 0 else len(prefix)
    if actual < header.offset + header.nbytes:
        raise NpyError(f"truncated: {actual} bytes, the header announces {header.offset + header.nbytes} "
                       f"({_brief(header.shape)} {header.dtype})")
    return header, prefix


def selection_shape(shape: tuple[int, ...], index: tuple[int | slice, ...]) -> tuple[int, ...]:
    """The shape `index` (one int or slice per dimension, already checked) selects, without any data."""
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape=shape, strides=(0,) * len(shape))
    return tuple(dummy[index].shape)


class NpyArray:
    """Read access to the values of one checked .npy file (`read_header` first)."""

    def __init__(self, location: Location, header: NpyHeader, prefix: bytes = b"") -> None:
        self.location = location
        self.header = header
        end = header.offset + header.nbytes
        self._data: np.ndarray | None = None  # the flat values when they are in memory
        if len(prefix) >= end:
            self._data = np.frombuffer(prefix, header.dtype, header.count, header.offset)
        elif header.count == 0:
            self._data = np.empty(0, header.dtype)

    def _shaped(self, flat: np.ndarray) -> np.ndarray:
        return flat.reshape(self.header.shape, order="F" if self.header.fortran_order else "C")

    def whole(self) -> np.ndarray:
        """All values (read whole: for small tensors, or when the caller has checked the size)."""
        if self._data is None:
            self._data = np.frombuffer(self._read(0, self.header.nbytes), self.header.dtype, self.header.count)
        return self._shaped(self._data)

    def window(self, index: tuple[int | slice, ...]) -> np.ndarray:
        """A copy of `array[index]` (basic indexing, one int or slice per dimension), reading only its spans."""
        if self._data is not None:
            return np.array(self._shaped(self._data)[index])
        shape = self.header.shape
        ranges = [range(*item.indices(n)) if isinstance(item, slice) else range(item % n, item % n + 1)
                  for item, n in zip(index, shape, strict=True)]
        out = np.empty(tuple(len(r) for r in ranges), self.header.dtype)
        if out.size == 0:
            return out.reshape(selection_shape(shape, index))
        strides = _element_strides(shape, self.header.fortran_order)
        remote = storage.is_remote(self.location)
        boxes = list(_boxes(ranges, strides, self.header.dtype.itemsize,
                            REMOTE_GAP_BYTES if remote else GAP_BYTES, (0,) * len(ranges)))
        if remote and len(boxes) > MAX_REMOTE_PIECES:
            raise NpyError(f"the window is spread over {len(boxes)} parts of a remote file (at most "
                           f"{MAX_REMOTE_PIECES} range reads for one window): pick fewer rows or columns")
        if len(boxes) == 1:
            self._fill(out, boxes[0], strides, self._read)
        else:
            with storage.open_binary(self.location) as handle:
                def read(data_offset: int, length: int) -> bytes:
                    handle.seek(self.header.offset + data_offset)
                    return _complete(handle.read(length), length)
                for box in boxes:
                    self._fill(out, box, strides, read)
        return out.reshape(selection_shape(shape, index))

    def _fill(self, out: np.ndarray, box: tuple[tuple[int, ...], list[range]], strides: list[int],
              read: Callable[[int, int], bytes]) -> None:
        """Read one box (ranges readable as one span) into its place in `out`."""
        position, ranges = box
        item = self.header.dtype.itemsize
        lows = [min(r[0], r[-1]) for r in ranges]
        highs = [max(r[0], r[-1]) for r in ranges]
        first = sum(lo * s for lo, s in zip(lows, strides, strict=True))
        last = sum(hi * s for hi, s in zip(highs, strides, strict=True))
        data = np.frombuffer(read(first * item, (last - first + 1) * item), self.header.dtype)
        span = np.lib.stride_tricks.as_strided(data, shape=tuple(h - lo + 1 for lo, h in zip(lows, highs, strict=True)),
                                               strides=tuple(s * item for s in strides), writeable=False)
        target = tuple(slice(p, p + len(r)) for p, r in zip(position, ranges, strict=True))
        out[target] = span[tuple(_relative(r, lo) for r, lo in zip(ranges, lows, strict=True))]

    def chunks(self, chunk_bytes: int = CHUNK_BYTES) -> Iterator[np.ndarray]:
        """The values as flat arrays of at most `chunk_bytes` each (file order)."""
        count, item = self.header.count, self.header.dtype.itemsize
        step = max(1, chunk_bytes // max(item, 1))
        for start in range(0, count, step):
            stop = min(count, start + step)
            if self._data is not None:
                yield self._data[start:stop]
            else:
                yield np.frombuffer(self._read(start * item, (stop - start) * item), self.header.dtype)

    def _read(self, data_offset: int, length: int) -> bytes:
        return _complete(storage.read_range(self.location, self.header.offset + data_offset, length), length)


def _complete(data: bytes, length: int) -> bytes:
    """`data` when it has `length` bytes: a short read means the file was cut since its header was read."""
    if len(data) < length:
        raise NpyError(f"truncated: the file ended {length - len(data)} bytes early")
    return data


def _boxes(ranges: list[range], strides: list[int], item: int, gap: int,
           position: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], list[range]]]:
    """The window `ranges` (non-empty, one per dimension) as boxes, each read as one span that wastes at most
    max(`gap`, 4x its values) bytes: (where the box goes in the window, its ranges). A spread window is split along
    its dimension of largest stride, so its spans, like the number of boxes, never exceed what it holds by much."""
    lows = [min(r[0], r[-1]) for r in ranges]
    highs = [max(r[0], r[-1]) for r in ranges]
    span = (sum((h - lo) * s for lo, h, s in zip(lows, highs, strides, strict=True)) + 1) * item
    wanted = math.prod(len(r) for r in ranges) * item
    if span <= max(gap, 4 * wanted):
        yield position, ranges
        return
    split = max((d for d, r in enumerate(ranges) if len(r) > 1), key=lambda d: strides[d])
    for offset, value in enumerate(ranges[split]):
        part = list(ranges)
        part[split] = range(value, value + 1)
        moved = (*position[:split], position[split] + offset, *position[split + 1:])
        yield from _boxes(part, strides, item, gap, moved)


def _element_strides(shape: tuple[int, ...], fortran: bool) -> list[int]:
    strides = [1] * len(shape)
    dims = range(1, len(shape)) if fortran else range(len(shape) - 2, -1, -1)
    for d in dims:
        strides[d] = strides[d - 1] * shape[d - 1] if fortran else strides[d + 1] * shape[d + 1]
    return strides


def _relative(r: range, low: int) -> slice:
    """`r` (a non-empty range of indices) as a slice relative to `low`."""
    start, stop = r.start - low, r.stop - low
    return slice(start, stop if stop >= 0 else None, r.step)
