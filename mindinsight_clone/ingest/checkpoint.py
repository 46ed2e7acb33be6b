"""MindSpore checkpoints (`.ckpt`, `mindspore.save_checkpoint`): one serialized `Checkpoint` message
(proto/checkpoint.proto) — `repeated Value value = 1 { string tag = 1; TensorProto tensor = 2 { repeated int64 dims
= 1; string tensor_type = 2; bytes tensor_content = 3 } }`, values raw little endian in C order.

A checkpoint can hold tens of GB, so it is not parsed as one message: the entries are walked on the wire (field
keys and lengths only), each entry's small fields (tag, dims, type) are parsed with the compiled
`checkpoint_pb2.TensorProto` after cutting the content out, and only the byte range of each tensor's content is
kept; values are read when asked, in bounded chunks, through the storage seam. The protobuf runtime has no lazy
parser, hence this walk of three nesting levels (varints and length prefixes, the wire format's two primitives).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.model_graph import ModelFormatError, numpy_dtype_name
from mindinsight_clone.ingest.storage import Location

MAX_ENTRIES = 1_000_000
MAX_SMALL_FIELD = 1 << 20  # a tag or a type name longer than this is not a checkpoint
CHUNK_BYTES = 32 * 1024 * 1024
_LEN = 2  # wire type of length-delimited fields
_VARINT = 0


@dataclass(frozen=True, slots=True)
class CheckpointEntry:
    tag: str
    dims: tuple[int, ...]
    tensor_type: str  # MindSpore's name, e.g. Float32
    offset: int  # where the raw values start in the file
    length: int  # their byte count

    @property
    def dtype(self) -> str:
        return numpy_dtype_name(self.tensor_type)


def _varint(handle: IO[bytes]) -> int | None:
    """A base-128 varint, or None at the end of the file."""
    shift = result = 0
    while True:
        byte = handle.read(1)
        if not byte:
            if shift:
                raise ModelFormatError("the file ends inside a field header")
            return None
        result |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return result
        shift += 7
        if shift > 63:
            raise ModelFormatError("a varint longer than 10 bytes: not a checkpoint")


def _fields(handle: IO[bytes], end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, value start, value length or the varint value) up to `end`."""
    while handle.tell() < end:
        key = _varint(handle)
        if key is None:
            raise ModelFormatError("the file ends before the entry does (truncated)")
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value = _varint(handle)
            yield number, wire, handle.tell(), value or 0
        elif wire == _LEN:
            length = _varint(handle)
            if length is None:
                raise ModelFormatError("truncated length")
            start = handle.tell()
            if start + length > end:
                raise ModelFormatError(f"a field of {length} bytes runs past its message (truncated or not a "
                                       "checkpoint)")
            yield number, wire, start, length
            handle.seek(start + length)
        elif wire == 5:
            handle.seek(handle.tell() + 4)
        elif wire == 1:
            handle.seek(handle.tell() + 8)
        else:
            raise ModelFormatError(f"wire type {wire} in field {number}: not a checkpoint")


def _small(handle: IO[bytes], start: int, length: int) -> bytes:
    if length > MAX_SMALL_FIELD:
        raise ModelFormatError(f"a {length}-byte name: not a checkpoint")
    handle.seek(start)
    data = handle.read(length)
    if len(data) < length:
        raise ModelFormatError("truncated")
    return data


def read_entries(location: Location, size: int) -> list[CheckpointEntry]:
    """The entries of a checkpoint, in file order (ModelFormatError when it is not one or is truncated)."""
    out: list[CheckpointEntry] = []
    with storage.open_binary(location, block_bytes=64 * 1024) as handle:
        end = size if size >= 0 else storage.file_size(handle)
        for number, wire, start, length in _fields(handle, end):
            if number != 1 or wire != _LEN:
                raise ModelFormatError(f"field {number} at the top level: not a MindSpore checkpoint")
            if len(out) >= MAX_ENTRIES:
                raise ModelFormatError(f"more than {MAX_ENTRIES} entries")
            out.append(_entry(handle, start, start + length))
            handle.seek(start + length)
    if not out and end:
        raise ModelFormatError("no entries: not a MindSpore checkpoint")
    return out


def _entry(handle: IO[bytes], start: int, end: int) -> CheckpointEntry:
    handle.seek(start)
    tag, tensor = None, None
    for number, wire, field_start, length in list(_fields(handle, end)):
        if number == 1 and wire == _LEN:
            tag = _small(handle, field_start, length).decode("utf-8", "replace")
        elif number == 2 and wire == _LEN:
            tensor = (field_start, field_start + length)
    if tag is None or tensor is None:
        raise ModelFormatError("an entry without tag or tensor (a map tensor, or not a checkpoint)")
    dims: list[int] = []
    tensor_type, content = "", (0, 0)
    handle.seek(tensor[0])
    for number, wire, field_start, value in list(_fields(handle, tensor[1])):
        if number == 1 and wire == _VARINT:
            dims.append(value)
        elif number == 1 and wire == _LEN:  # packed dims
            dims.extend(_packed(_small(handle, field_start, value)))
        elif number == 2 and wire == _LEN:
            tensor_type = _small(handle, field_start, value).decode("utf-8", "replace")
        elif number == 3 and wire == _LEN:
            content = (field_start, value)
    return CheckpointEntry(tag, tuple(dims), tensor_type, content[0], content[1])


def _packed(data: bytes) -> list[int]:
    import io

    handle = io.BytesIO(data)
    out = []
    while (value := _varint(handle)) is not None:
        out.append(value)
    return out


def _numpy(entry: CheckpointEntry) -> tuple[np.dtype, int]:
    name = entry.dtype
    try:
        dtype = np.dtype("<u2") if name == "bfloat16" else np.dtype(name).newbyteorder("<")
    except TypeError:
        raise ModelFormatError(f"{entry.tag}: values of type {entry.tensor_type} are not read") from None
    count = int(np.prod(entry.dims, dtype=np.int64)) if entry.dims else 1
    if entry.length != count * dtype.itemsize:
        raise ModelFormatError(f"{entry.tag}: {entry.length} bytes of content for {count} {entry.tensor_type} values")
    return dtype, count


def _widen(values: np.ndarray, entry: CheckpointEntry) -> np.ndarray:
    return (values.astype(np.uint32) << 16).view(np.float32) if entry.dtype == "bfloat16" else values


def value_chunks(location: Location, entry: CheckpointEntry, chunk_bytes: int = CHUNK_BYTES) -> Iterator[np.ndarray]:
    """The values of one entry as flat chunks (file order)."""
    dtype, count = _numpy(entry)
    step = max(1, chunk_bytes // dtype.itemsize)
    for first in range(0, count, step):
        n = min(step, count - first)
        data = storage.read_range(location, entry.offset + first * dtype.itemsize, n * dtype.itemsize)
        if len(data) < n * dtype.itemsize:
            raise ModelFormatError(f"{entry.tag}: the file ends inside its values (truncated)")
        yield _widen(np.frombuffer(data, dtype), entry)


def values(location: Location, entry: CheckpointEntry) -> np.ndarray:
    """All values of one entry, shaped."""
    chunks = list(value_chunks(location, entry))
    flat = np.concatenate(chunks) if len(chunks) != 1 else chunks[0]
    return flat.reshape(entry.dims)
