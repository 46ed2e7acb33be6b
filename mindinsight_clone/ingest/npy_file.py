"""Read a NumPy `.npy` file through the storage seam without loading it whole.

* `read_header` reads the header only (one small read; the whole file when it is small) and checks that the data
  is all there: a truncated file (a dump still being written, a copy cut short) raises `NpyError` saying how many
  bytes are missing. Object arrays (pickles) are refused: a dump never holds them and unpickling is unsafe.
* `NpyArray.window(index)` reads only the elements a basic index selects: locally through a memory map (the pages
  of the window are read), remotely with one range read of the span that holds the window.
* `NpyArray.chunks()` yields the values in bounded flat chunks (statistics of a huge tensor in bounded memory).

Header parsing is numpy's own (`numpy.lib.format`), the format's reference implementation.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.lib import format as npy_format

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

HEADER_PROBE_BYTES = 64 * 1024  # first read; a header is padded to 64 bytes and is rarely above 1 KB
MAX_HEADER_BYTES = 1 << 20
SMALL_FILE_BYTES = 4 * 1024 * 1024  # read whole in one request (remote) when the file is at most this big
CHUNK_BYTES = 32 * 1024 * 1024  # flat chunks for statistics
MAX_REMOTE_SPAN_BYTES = 256 * 1024 * 1024  # largest range read for one window of a remote file


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


def parse_header(prefix: bytes) -> NpyHeader:
    """The header at the start of `prefix` (NpyError if it is not a .npy header or is cut off)."""
    fast = _canonical(prefix)
    if fast is not None and not fast.dtype.hasobject:
        return fast
    handle = io.BytesIO(prefix)
    try:
        major, _minor = npy_format.read_magic(handle)
        if major == 1:
            shape, fortran, dtype = npy_format.read_array_header_1_0(handle, max_header_size=MAX_HEADER_BYTES)
        elif major in (2, 3):
            shape, fortran, dtype = npy_format.read_array_header_2_0(handle, max_header_size=MAX_HEADER_BYTES)
        else:
            raise NpyError(f"unsupported .npy format version {major}")
    except NpyError:
        raise
    except (ValueError, OSError, EOFError, SyntaxError) as exc:
        raise NpyError(f"not a .npy file or its header is cut off: {exc}") from None
    if dtype.hasobject:
        raise NpyError("object arrays (pickled Python objects) are not read")
    if any(d < 0 for d in shape):
        raise NpyError(f"negative dimension in shape {shape}")
    return NpyHeader(tuple(int(d) for d in shape), dtype, bool(fortran), handle.tell())


def read_header(location: Location, size: int) -> tuple[NpyHeader, bytes]:
    """The header of the .npy file at `location` (`size` bytes, from its listing or stat) and the bytes read so
    far (the whole file when it is small). Raises NpyError (not a .npy, truncated) or OSError (cannot be read)."""
    if size == 0:
        raise NpyError("empty file")
    probe = size if 0 <= size <= SMALL_FILE_BYTES else HEADER_PROBE_BYTES
    prefix = storage.read_range(location, 0, max(probe, 16))
    try:
        header = parse_header(prefix)
    except NpyError:
        if len(prefix) >= MAX_HEADER_BYTES or len(prefix) < probe:
            raise
        prefix = storage.read_range(location, 0, MAX_HEADER_BYTES)
        header = parse_header(prefix)
    actual = size if size >= 0 else len(prefix)
    if actual < header.offset + header.nbytes:
        raise NpyError(f"truncated: {actual} bytes, the header announces {header.offset + header.nbytes} "
                       f"({list(header.shape)} {header.dtype})")
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
        self._data: np.ndarray | None = None  # the flat values when they are in memory or mapped
        if len(prefix) >= end:
            self._data = np.frombuffer(prefix, header.dtype, header.count, header.offset)
        elif header.count == 0:
            self._data = np.empty(0, header.dtype)
        else:
            mapped = storage.map_local(location)
            if mapped is not None:
                if len(mapped) < end:
                    raise NpyError(f"truncated: {len(mapped)} bytes, the header announces {end}")
                self._data = np.frombuffer(mapped, header.dtype, header.count, header.offset)

    def _shaped(self, flat: np.ndarray) -> np.ndarray:
        return flat.reshape(self.header.shape, order="F" if self.header.fortran_order else "C")

    def whole(self) -> np.ndarray:
        """All values (read whole: for small tensors, or when the caller has checked the size)."""
        if self._data is None:
            self._data = np.frombuffer(self._read(0, self.header.nbytes), self.header.dtype, self.header.count)
        return self._shaped(self._data)

    def window(self, index: tuple[int | slice, ...]) -> np.ndarray:
        """A copy of `array[index]` (basic indexing, one int or slice per dimension), reading only its span."""
        if self._data is not None:
            return np.array(self._shaped(self._data)[index])
        shape = self.header.shape
        ranges = [range(*item.indices(n)) if isinstance(item, slice) else range(item % n, item % n + 1)
                  for item, n in zip(index, shape, strict=True)]
        if any(len(r) == 0 for r in ranges):
            return np.empty(selection_shape(shape, index), self.header.dtype)
        lows = [min(r[0], r[-1]) for r in ranges]
        highs = [max(r[0], r[-1]) for r in ranges]
        strides = _element_strides(shape, self.header.fortran_order)
        first = sum(lo * s for lo, s in zip(lows, strides, strict=True))
        last = sum(hi * s for hi, s in zip(highs, strides, strict=True))
        item = self.header.dtype.itemsize
        span = (last - first + 1) * item
        if span > MAX_REMOTE_SPAN_BYTES:
            raise NpyError(f"the window is spread over {span >> 20} MB of a remote file (at most "
                           f"{MAX_REMOTE_SPAN_BYTES >> 20} MB are read for one window): pick fewer rows or columns")
        data = np.frombuffer(self._read(first * item, span), self.header.dtype)
        box = np.lib.stride_tricks.as_strided(data, shape=tuple(h - lo + 1 for lo, h in zip(lows, highs, strict=True)),
                                              strides=tuple(s * item for s in strides), writeable=False)
        relative = tuple(_relative(r, lo) if isinstance(it, slice) else 0
                         for it, r, lo in zip(index, ranges, lows, strict=True))
        return np.array(box[relative])

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
        data = storage.read_range(self.location, self.header.offset + data_offset, length)
        if len(data) < length:
            raise NpyError(f"truncated: the file ended {length - len(data)} bytes early")
        return data


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
