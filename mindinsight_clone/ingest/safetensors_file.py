"""safetensors checkpoints (MindSpore 2.x `save_checkpoint(..., format="safetensors")`, Hugging Face shards).

Layout: an 8-byte little-endian header length N, N bytes of JSON
`{name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}}`, then the data section;
offsets are relative to byte 8 + N, tensors little-endian, C order.

The header is parsed here rather than with the `safetensors` package: its `safe_open` needs a local path (it
memory-maps the file), while every read of ours goes through the storage seam (checked opens confined to the base
dir, `s3://`). Listing reads the header only; one tensor's values are read by byte range (bounded chunks) when its
statistics are asked. Every lie a header can tell (length past the file or over MAX_HEADER_BYTES, bad JSON, an
unknown dtype, offsets that overlap, run past the file or disagree with shape x dtype) is a ModelFormatError.

A `model.safetensors.index.json` (`{"metadata": {...}, "weight_map": {tensor: shard file}}`) makes its shards one
model: each shard file must be a plain name in the index's own folder.
"""

from __future__ import annotations

import itertools
import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.model_graph import ModelFormatError
from mindinsight_clone.ingest.storage import Location

MAX_HEADER_BYTES = 100 * 1024 * 1024
MAX_INDEX_BYTES = 100 * 1024 * 1024
MAX_SHARDS = 100_000
CHUNK_BYTES = 32 * 1024 * 1024

# safetensors dtype -> (numpy dtype read from the file, name shown). BF16 is read as uint16 and widened.
DTYPES: dict[str, tuple[str, str]] = {
    "BOOL": ("|b1", "bool"), "U8": ("|u1", "uint8"), "I8": ("|i1", "int8"),
    "U16": ("<u2", "uint16"), "I16": ("<i2", "int16"), "F16": ("<f2", "float16"), "BF16": ("<u2", "bfloat16"),
    "U32": ("<u4", "uint32"), "I32": ("<i4", "int32"), "F32": ("<f4", "float32"),
    "U64": ("<u8", "uint64"), "I64": ("<i8", "int64"), "F64": ("<f8", "float64"),
}


@dataclass(frozen=True, slots=True)
class TensorEntry:
    name: str
    st_dtype: str  # as in the header, e.g. F32
    shape: tuple[int, ...]
    offset: int  # absolute byte offset of the values in the file
    length: int
    location: Location  # the file holding it (a shard of an index set)

    @property
    def dtype(self) -> str:
        return DTYPES[self.st_dtype][1]


@dataclass(frozen=True, slots=True)
class SafetensorsModel:
    tensors: list[TensorEntry]  # file order (index sets: shard by shard)
    metadata: dict[str, Any] = field(default_factory=dict)
    header_length: int = 0


def read_header(location: Location, size: int) -> SafetensorsModel:
    """The tensors of one file from its header alone (ModelFormatError when it lies)."""
    if size < 0:
        size = storage.stat(location).size
    head = storage.read_range(location, 0, 8)
    if len(head) < 8:
        raise ModelFormatError("shorter than the 8-byte header length: not a safetensors file")
    (length,) = struct.unpack("<Q", head)
    if length > MAX_HEADER_BYTES:
        raise ModelFormatError(f"a {length}-byte header is over the {MAX_HEADER_BYTES}-byte limit")
    if 8 + length > size:
        raise ModelFormatError(f"the header length {length} runs past the end of the file ({size} bytes)")
    raw = storage.read_range(location, 8, length)
    if len(raw) < length:
        raise ModelFormatError("the file ends inside the header (truncated)")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(f"the header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise ModelFormatError("the header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict):
        raise ModelFormatError("__metadata__ is not an object")
    data_start, data_bytes = 8 + length, size - 8 - length
    tensors = [_entry(name, spec, data_start, data_bytes, location) for name, spec in header.items()]
    _check_no_overlap(tensors)
    return SafetensorsModel(tensors, metadata, length)


def _entry(name: str, spec: Any, data_start: int, data_bytes: int, location: Location) -> TensorEntry:
    if not isinstance(spec, dict):
        raise ModelFormatError(f"{name}: the entry is not an object")
    st_dtype, shape, offsets = spec.get("dtype"), spec.get("shape"), spec.get("data_offsets")
    if st_dtype not in DTYPES:
        raise ModelFormatError(f"{name}: unknown dtype {st_dtype!r}")
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                              for d in shape):
        raise ModelFormatError(f"{name}: the shape {shape!r} is not a list of non-negative integers")
    if (not isinstance(offsets, list) or len(offsets) != 2
            or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
        raise ModelFormatError(f"{name}: data_offsets {offsets!r} are not two integers")
    begin, end = offsets
    if not 0 <= begin <= end:
        raise ModelFormatError(f"{name}: data_offsets {offsets} are not ordered")
    if end > data_bytes:
        raise ModelFormatError(f"{name}: data_offsets {offsets} run past the data section ({data_bytes} bytes)")
    count = 1
    for dim in shape:
        count *= dim
    expected = count * np.dtype(DTYPES[st_dtype][0]).itemsize
    if end - begin != expected:
        raise ModelFormatError(f"{name}: {end - begin} bytes for shape {shape} of {st_dtype} ({expected} expected)")
    return TensorEntry(name, st_dtype, tuple(shape), data_start + begin, end - begin, location)


def _check_no_overlap(tensors: list[TensorEntry]) -> None:
    spans = sorted((t.offset, t.offset + t.length, t.name) for t in tensors if t.length)
    for (_, end, name), (begin, _, other) in itertools.pairwise(spans):
        if begin < end:
            raise ModelFormatError(f"the data of {name} and {other} overlap")


def read_index(location: Location, size: int) -> SafetensorsModel:
    """A `*.safetensors.index.json` set as one model: every shard's header (the index says which tensor is where;
    a tensor the index names but no shard holds, or a shard outside the index's folder, is an error)."""
    if size > MAX_INDEX_BYTES:
        raise ModelFormatError(f"the index has {size} bytes (limit {MAX_INDEX_BYTES})")
    try:
        index = json.loads(storage.read_bytes(location, max_size=MAX_INDEX_BYTES).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFormatError(f"the index is not JSON: {exc}") from None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise ModelFormatError("the index has no weight_map of tensor -> shard file")
    shards = list(dict.fromkeys(weight_map.values()))
    if len(shards) > MAX_SHARDS:
        raise ModelFormatError(f"more than {MAX_SHARDS} shards")
    folder = location.parent
    tensors: list[TensorEntry] = []
    for shard in shards:
        if storage.plain_parts(shard) != [shard]:
            raise ModelFormatError(f"the shard {shard!r} is not a file name in the index's folder")
        shard_location = storage.confine(folder, shard)
        if shard_location is None:
            raise ModelFormatError(f"the shard {shard!r} is refused (a symlink, or outside the base dir)")
        try:
            found = read_header(shard_location, -1)
        except OSError as exc:
            raise ModelFormatError(f"shard {shard}: {exc}") from None
        except ModelFormatError as exc:
            raise ModelFormatError(f"shard {shard}: {exc}") from None
        tensors.extend(t for t in found.tensors if weight_map.get(t.name) == shard)
    missing = set(weight_map) - {t.name for t in tensors}
    if missing:
        raise ModelFormatError(f"{len(missing)} tensors of the index are in no shard (e.g. {sorted(missing)[0]})")
    metadata = index.get("metadata") if isinstance(index.get("metadata"), dict) else {}
    return SafetensorsModel(tensors, {**metadata, "shards": len(shards)})


def value_chunks(entry: TensorEntry, chunk_bytes: int = CHUNK_BYTES) -> Iterator[np.ndarray]:
    """The values of one tensor as flat chunks, read by byte range (bf16 widened to float32)."""
    dtype = np.dtype(DTYPES[entry.st_dtype][0])
    step = max(1, chunk_bytes // dtype.itemsize) * dtype.itemsize
    for first in range(0, entry.length, step):
        n = min(step, entry.length - first)
        data = storage.read_range(entry.location, entry.offset + first, n)
        if len(data) < n:
            raise ModelFormatError(f"{entry.name}: the file ends inside its values (truncated)")
        values = np.frombuffer(data, dtype)
        yield (values.astype(np.uint32) << 16).view(np.float32) if entry.st_dtype == "BF16" else values


# ---------------------------------------------------------------- a distributed job's per-rank shards
RANKS_KIND = "safetensors-ranks"


@dataclass(frozen=True, slots=True)
class RankShard:
    rank: int
    model_id: str
    location: Location


def rank_sets(models: list[tuple[str, Location]]) -> dict[str, list[RankShard]]:
    """Per-rank shards of one distributed job, grouped: `<job>/rank_<r>/<name>.safetensors` files with the same
    `<job>` and `<name>` in two or more rank folders (what `ModelCheckpoint` writes under msrun) become one set,
    keyed `<job>/rank_*/<name>.safetensors`, its shards by rank."""
    from mindinsight_clone.ingest.dump_layout import rank_of

    groups: dict[str, list[RankShard]] = {}
    for model_id, location in models:
        parts = model_id.rsplit("/", 2)
        if len(parts) != 3 or not parts[2].lower().endswith(".safetensors"):
            continue
        rank = rank_of(parts[1])
        if rank is not None:
            groups.setdefault(f"{parts[0]}/rank_*/{parts[2]}", []).append(RankShard(rank, model_id, location))
    return {key: sorted(shards, key=lambda s: s.rank) for key, shards in groups.items() if len(shards) > 1}


def merge_ranks(headers: list[tuple[int, SafetensorsModel]]) -> tuple[SafetensorsModel, dict[str, list[int]]]:
    """The union of the ranks' tensors (a name held by several ranks — a job saved without remove_redundancy — is
    read from the lowest rank) and each name's owner ranks; metadata from the lowest rank plus `ranks`."""
    tensors: dict[str, TensorEntry] = {}
    owners: dict[str, list[int]] = {}
    for rank, header in headers:
        for tensor in header.tensors:
            tensors.setdefault(tensor.name, tensor)
            owners.setdefault(tensor.name, []).append(rank)
    metadata = {**(headers[0][1].metadata if headers else {}), "ranks": [rank for rank, _ in headers]}
    return SafetensorsModel(list(tensors.values()), metadata), owners
