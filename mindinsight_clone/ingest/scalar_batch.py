"""Vectorised reading of the records that dominate large training runs: scalar-only summary events.

MindSpore's SummaryRecord writes one `Event{wall_time, step, summary{value{tag, scalar_value}...}}` per step.
Consecutive such records have the same length and the same bytes except the wall time, the step and the
float values. This module frames and decodes a run of them with numpy, no Python per value:

1. Framing: from a record's header, assume the following records have the same length; one array compare
   checks that their 12-byte headers (u64 length + its masked CRC32C) are identical to the first one.
   The payload CRC32C of every record is checked too, vectorised: records of one layout differ from the
   first only in a few bytes, and CRC32C is linear over GF(2) for a fixed length, so
   crc(row) = crc(first) ^ XOR over the differing bytes of a per-(position, byte value) table, built from
   a few hundred `crc32c` calls per layout.
2. Decoding: the first payload is walked field by field (`_template`); it must be exactly that layout.
   Every other row must equal it byte for byte outside the wall-time, step and value bytes, and its
   step varint must have the same length (continuation bits checked), so each row parses exactly as the
   template does; then wall times, steps and values are read as columns.

It stops at the first record it cannot take this way (another length or layout, any other kind of event, a
bad CRC, a partial record at the end) and says where: the loader hands the rest to the general
`RecordReader` + protobuf path, which also reports any damage. So this path never changes what is read,
only how fast (tests/unit/ingest/test_scalar_batch.py compares both on the same files).
"""

from __future__ import annotations

import functools
import os
import struct
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np
from crc32c import crc32c

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.record_reader import FOOTER_BYTES, HEADER_BYTES, masked_crc32c

SCALAR_SUFFIX = "/scalar"
BLOCK_BYTES = 4 * 1024 * 1024  # bytes read and decoded at a time (transient memory is a few times this)
MIN_RUN = 16  # fewer equal records than this: not worth the vectorised path, let the general one take them
WIDE_ROWS = 256  # records a block should hold when they are long (a step of a thousand tags): the store's cost is
# per tag and block
_MASK_DELTA = np.uint32(0xA282EAD8)
_HEADER = struct.Struct("<QI")


@dataclass(frozen=True)
class _Layout:
    """Where the variable bytes of a scalar-only Event payload sit (the rest is fixed)."""

    step_at: int
    step_len: int
    tags: tuple[str, ...]  # disk tags, in record order (a tag may repeat)
    value_at: tuple[int, ...]  # offset of each tag's 4-byte float
    fixed: np.ndarray  # indices of the bytes that must equal the template's
    variable: tuple[int, ...]  # the other bytes (wall time, step, values), ascending
    fixed_mask: np.ndarray  # 0xFF at the fixed bytes, 0 elsewhere (one vectorised compare per row)
    fixed_bytes: bytes  # the template's bytes at `fixed`


MAX_KNOWN_LAYOUTS = 256  # layouts remembered across files (one per tag set and step width, in practice)
_known_layouts: dict[int, tuple[_Layout, ...]] = {}  # by payload length (replaced whole: safe across threads)


@dataclass(slots=True)
class ScalarArrays:
    """Scalar-only records of one file as numpy columns; duck-types `event_parser.ParsedColumns` for
    `RunCache.add_parsed` (`items` holds one `(tag, 0)` marker per tag, in first-seen order)."""

    source_file: str
    items: list[Any] = field(default_factory=list)
    scalars: dict[str, list[Any]] = field(default_factory=dict)  # always empty here
    arrays: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    problems: list[Any] = field(default_factory=list)
    records: int = 0
    # > 0: nothing taken because one row (a step of many tags) did not fit twice in the bytes read; ask again
    # with at least this many bytes
    wants_bytes: int = 0

    def set_columns(self, per_tag: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]],
                    share_single: bool) -> None:
        """Each tag's (steps, walls, values) parts joined into its columns, tags in first-seen order;
        `share_single`: a tag with one contiguous part keeps it without a copy."""
        for tag, parts in per_tag.items():
            self.items.append((tag, 0))
            if share_single and len(parts) == 1:
                self.arrays[tag] = parts[0]
                continue
            self.arrays[tag] = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                                np.concatenate([p[2] for p in parts]))

    def __getstate__(self) -> tuple[Any, ...]:
        """Pickled (the decode helper's answers) with its columns packed: three arrays in all, not three per tag
        (unpickling a thousand-tag block's 3,000 small arrays was a quarter of the worker's GIL time). Columns that
        tags share (a MindSpore step's steps and wall times) are pickled once, as they are."""
        cols = list(self.arrays.values())
        packed = None
        if cols and len({id(c[0]) for c in cols}) == len(cols) and all(
                c[k].dtype == cols[0][k].dtype and c[k].ndim == 1 for c in cols for k in range(3)):
            packed = (list(self.arrays), [len(c[0]) for c in cols],
                      tuple(np.concatenate([c[k] for c in cols]) for k in range(3)))
        return (self.source_file, self.items, self.scalars, None if packed else self.arrays, packed, self.problems,
                self.records, self.wants_bytes)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (self.source_file, self.items, self.scalars, arrays, packed, self.problems, self.records,
         self.wants_bytes) = state
        if packed is not None:
            tags, lengths, columns = packed
            ends = np.cumsum(lengths).tolist()
            arrays = {tag: (columns[0][start:end], columns[1][start:end], columns[2][start:end])
                      for tag, start, end in zip(tags, [0, *ends[:-1]], ends, strict=True)}
        self.arrays = arrays


def read_block(path: str | os.PathLike[str] | storage.Location, offset: int, size: int,
               max_bytes: int) -> tuple[str, bytes]:
    """The file's name and its bytes from `offset` (up to `size`, at most `max_bytes`); b"" when less than a
    record header is there or the file cannot be read. No read-ahead: one range request when remote."""
    location = storage.as_location(path)
    want = min(max(size - offset, 0), max_bytes)
    if want < HEADER_BYTES:
        return location.name, b""
    try:
        with storage.open_binary(location, block_bytes=0) as f:
            f.seek(offset)
            return location.name, f.read(want)
    except OSError:
        return location.name, b""


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ValueError("bad varint")
        b = buf[pos]
        result |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            return result, pos
        shift += 7


def _template(payload: bytes) -> _Layout | None:
    """The layout of a payload that is exactly Event{1: wall_time, 2: step, 5: Summary of scalar Values}."""
    try:
        if len(payload) < 12 or payload[0] != 0x09 or payload[9] != 0x10:
            return None
        _, pos = _varint(payload, 10)
        step_len = pos - 10
        if pos >= len(payload) or payload[pos] != 0x2A:
            return None
        size, pos = _varint(payload, pos + 1)
        if pos + size != len(payload):
            return None
        tags: list[str] = []
        value_at: list[int] = []
        while pos < len(payload):
            if payload[pos] != 0x0A:  # Summary.value (field 1, length-delimited)
                return None
            vlen, pos = _varint(payload, pos + 1)
            end = pos + vlen
            if payload[pos] != 0x0A:  # Value.tag
                return None
            tlen, pos = _varint(payload, pos + 1)
            tag = payload[pos:pos + tlen].decode("utf-8")
            pos += tlen
            if pos + 5 != end or payload[pos] != 0x1D:  # Value.scalar_value (field 3, fixed32), nothing else
                return None
            tags.append(tag)
            value_at.append(pos + 1)
            pos = end
        if not tags:
            return None
    except (ValueError, IndexError, UnicodeDecodeError):
        return None
    variable = np.zeros(len(payload), dtype=bool)
    variable[1:9] = True
    variable[10:10 + step_len] = True
    for at in value_at:
        variable[at:at + 4] = True
    fixed = np.flatnonzero(~variable)
    return _Layout(10, step_len, tuple(tags), tuple(value_at), fixed, tuple(np.flatnonzero(variable).tolist()),
                   np.where(variable, 0, 0xFF).astype(np.uint8),
                   np.frombuffer(payload, dtype=np.uint8)[fixed].tobytes())


def _layout_of(payload: bytes) -> _Layout | None:
    """`_template(payload)`, reusing a layout seen before (in any file) when the payload equals its template at
    every fixed byte with a step varint of the same width: the test every other row of a block passes, so the
    payload parses exactly as that template did. A thousand small runs share a handful of layouts."""
    known = _known_layouts.get(len(payload), ())
    if known:
        row = np.frombuffer(payload, dtype=np.uint8)
        for seen in known:
            if row[seen.fixed].tobytes() == seen.fixed_bytes and bool(_varint_ok(row[None, :], seen)[0]):
                return seen
    layout = _template(payload)
    if layout is not None:
        if sum(len(v) for v in _known_layouts.values()) >= MAX_KNOWN_LAYOUTS:
            _known_layouts.clear()
        _known_layouts[len(payload)] = (*known, layout)
    return layout


def _decode_rows(rows: np.ndarray, layout: _Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps int64, wall times float64, values float32 of shape (rows, tags)) of matching rows."""
    walls = np.ascontiguousarray(rows[:, 1:9]).view("<f8").ravel().astype(np.float64)
    varint = rows[:, layout.step_at:layout.step_at + layout.step_len].astype(np.uint64)
    steps = np.zeros(rows.shape[0], dtype=np.uint64)
    for i in range(layout.step_len):
        steps |= (varint[:, i] & np.uint64(0x7F)) << np.uint64(7 * i)
    cols = np.concatenate([np.arange(at, at + 4) for at in layout.value_at])
    values = np.ascontiguousarray(rows[:, cols]).view("<f4").reshape(rows.shape[0], len(layout.value_at))
    return steps.view(np.int64), walls, values


def _varint_ok(rows: np.ndarray, layout: _Layout) -> np.ndarray:
    """Rows whose step varint has exactly the template's length (continuation bits)."""
    ok = np.ones(rows.shape[0], dtype=bool)
    for i in range(layout.step_len):
        more = (rows[:, layout.step_at + i] & 0x80) != 0
        ok &= more if i < layout.step_len - 1 else ~more
    return ok


@functools.lru_cache(maxsize=64)
def _crc_table(length: int, variable: tuple[int, ...]) -> np.ndarray:
    """table[j, v]: what byte value v at position variable[j] adds (XOR) to the CRC32C of `length` bytes."""
    zero_crc = crc32c(bytes(length))
    basis = np.empty((len(variable), 8), dtype=np.uint32)  # crc contribution of each single bit
    probe = bytearray(length)
    for j, p in enumerate(variable):
        for b in range(8):
            probe[p] = 1 << b
            basis[j, b] = crc32c(probe) ^ zero_crc
        probe[p] = 0
    bits = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(bool)  # byte value -> its set bits
    table = np.bitwise_xor.reduce(np.where(bits[None, :, :], basis[:, None, :], np.uint32(0)), axis=2)
    table.setflags(write=False)
    return table


def _row_crcs(rows: np.ndarray, layout: _Layout) -> np.ndarray:
    """CRC32C (unmasked) of each row; rows equal the first one outside the layout's variable bytes."""
    length = rows.shape[1]
    first = rows[0].tobytes()
    table = _crc_table(length, layout.variable)  # the same for every file of a layout
    variable = np.array(layout.variable, dtype=np.intp)
    diff = (rows[:, variable] ^ rows[0, variable]).astype(np.intp)
    diff += np.arange(0, 256 * variable.size, 256, dtype=np.intp)  # row-major offsets into the flat table
    contrib = table.ravel()[diff]
    return np.bitwise_xor.reduce(contrib, axis=1).astype(np.uint32) ^ np.uint32(crc32c(first))


def _first_false(mask: np.ndarray) -> int:
    return int(mask.size) if bool(mask.all()) else int(np.argmin(mask))


def decode_block(data: bytes, max_record_bytes: int) -> tuple[int, list[tuple[_Layout, np.ndarray, np.ndarray,
                                                                              np.ndarray]], int]:
    """Frame and decode the scalar-only records at the start of `data`.

    Returns (bytes consumed, groups of (layout, steps, wall times, values), bytes wanted); stops at the first
    record it does not take (see the module docstring), which may be the first one (0 consumed). Bytes wanted > 0:
    nothing was taken because `data` held too few of its (long, scalar-only) records.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    view = memoryview(data)
    pos, end = 0, len(data)
    groups: list[tuple[_Layout, np.ndarray, np.ndarray, np.ndarray]] = []
    wants = 0
    while end - pos >= HEADER_BYTES:
        length, length_crc = _HEADER.unpack_from(data, pos)
        if length > max_record_bytes or masked_crc32c(view[pos:pos + 8]) != length_crc:
            break
        stride = HEADER_BYTES + length + FOOTER_BYTES
        count = (end - pos) // stride
        if count < MIN_RUN:
            if not groups and stride <= end - pos and _layout_of(bytes(view[pos + HEADER_BYTES:
                                                                            pos + HEADER_BYTES + length])):
                wants = WIDE_ROWS * stride  # a scalar record of many tags: read enough bytes for many of them
            break
        block = buf[pos:pos + count * stride].reshape(count, stride)
        count = _first_false((block[:, :HEADER_BYTES] == block[0, :HEADER_BYTES]).all(axis=1))
        if count < MIN_RUN:
            break
        payload0 = bytes(view[pos + HEADER_BYTES:pos + HEADER_BYTES + length])
        layout = _layout_of(payload0)
        if layout is None:
            break
        rows = block[:count, HEADER_BYTES:HEADER_BYTES + length]
        same = ~((rows ^ rows[0]) & layout.fixed_mask).any(axis=1) & _varint_ok(rows, layout)
        count = _first_false(same)
        crcs = _row_crcs(rows[:count], layout)
        masked = ((crcs >> np.uint32(15)) | (crcs << np.uint32(17))) + _MASK_DELTA
        stored = np.ascontiguousarray(block[:count, HEADER_BYTES + length:]).view("<u4").ravel()
        count = _first_false(masked == stored)
        if count < MIN_RUN:
            break
        steps, walls, values = _decode_rows(rows[:count], layout)
        groups.append((layout, steps, walls, values))
        pos += count * stride
    return pos, groups, wants


def read_scalar_records(path: str | os.PathLike[str] | storage.Location, offset: int, size: int, max_record_bytes: int,
                        max_bytes: int = BLOCK_BYTES) -> tuple[int, ScalarArrays]:
    """Decode scalar-only records of the file from `offset` (up to `size`, at most `max_bytes` of it).

    Returns the offset just past the last record taken (== `offset` if none) and the columns. Never raises on
    file problems: an unreadable file or any irregularity simply takes nothing.
    """
    name, data = read_block(path, offset, size, max_bytes)
    out = ScalarArrays(name)
    if not data:
        return offset, out
    consumed, groups, out.wants_bytes = decode_block(data, max_record_bytes)
    per_tag: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    for layout, steps, walls, values in groups:
        out.records += int(steps.size)
        positions: dict[str, list[int]] = {}
        for k, tag in enumerate(layout.tags):
            positions.setdefault(tag, []).append(k)
        by_tag = values.T.astype(np.float64, order="C")  # one copy, tag-major: a tag's column is one row of it
        for tag, cols in positions.items():
            if len(cols) == 1:
                part = (steps, walls, by_tag[cols[0]])
            else:  # the same tag twice in one event: both values, in record order
                part = (np.repeat(steps, len(cols)), np.repeat(walls, len(cols)),
                        values[:, cols].ravel().astype(np.float64))
            per_tag.setdefault(tag + SCALAR_SUFFIX, []).append(part)
    out.set_columns(per_tag, share_single=True)  # the common case (one event layout): no copy
    return offset + consumed, out


def add_row_groups(out: ScalarArrays,
                   groups: Iterable[tuple[Sequence[str], np.ndarray, np.ndarray, np.ndarray, int]]) -> None:
    """Set `out`'s columns from decoded groups of rows (tags, steps, wall times, values: one column per record of a
    cycle; records): each tag's column, or its columns interleaved in file order when a row holds it more than once.
    Shared by the tfevents and VisualDL block readers."""
    per_tag: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    for tags, steps, walls, values, records in groups:
        out.records += records
        positions: dict[str, list[int]] = {}
        for k, tag in enumerate(tags):
            positions.setdefault(tag, []).append(k)
        # one copy of each column block, record-major: a record's column is then a contiguous row (three copies
        # per tag per block were 13 % of the worker's GIL time on a thousand-tag run)
        steps_t, walls_t, values_t = steps.T.copy(), walls.T.copy(), values.T.copy()
        for tag, cols in positions.items():
            if len(cols) == 1:
                part = (steps_t[cols[0]], walls_t[cols[0]], values_t[cols[0]])
            else:  # the tag more than once per row: every value, in file order
                part = (steps[:, cols].ravel(), walls[:, cols].ravel(), values[:, cols].ravel())
            per_tag.setdefault(tag + SCALAR_SUFFIX, []).append(part)
    out.set_columns(per_tag, share_single=True)  # a tag's one part is a row of this block's own copy


# ---------------------------------------------------------------- shared by the cycle readers (tfevents, VisualDL)
Groups = tuple[tuple[np.ndarray, np.ndarray], ...]  # (records, (records, varint bytes) row offsets) per varint length
C = TypeVar("C")
MAX_HINTS = 64  # files whose last cycle is remembered for their next block


class RowTooLong(Exception):
    """A cycle walk ran out of block before the first record's layout came back (`walked` bytes of scalar
    records): a block of `WIDE_ROWS` times that may hold the row."""

    def __init__(self, walked: int) -> None:
        super().__init__(walked)
        self.walked = walked


class CycleHints(Generic[C]):
    """The cycle each file's last block ended with (at most MAX_HINTS files, the oldest dropped first): its next
    block tries it before walking its records again."""

    def __init__(self) -> None:
        self._by_file: dict[str, C] = {}  # insertion-ordered
        self._lock = threading.Lock()  # loader threads read different files at once

    def take(self, key: str) -> C | None:
        with self._lock:
            return self._by_file.pop(key, None)

    def keep(self, key: str, cycle: C | None) -> None:
        if cycle is None:
            return
        with self._lock:
            self._by_file[key] = cycle
            while len(self._by_file) > MAX_HINTS:
                self._by_file.pop(next(iter(self._by_file)))


def varint_groups(spans: Sequence[tuple[int, int]]) -> Groups:
    """The (row offset, length) of one varint per record, grouped by length (records without it left out)."""
    by_len: dict[int, tuple[list[int], list[int]]] = {}
    for index, (at, length) in enumerate(spans):
        if length:
            group = by_len.setdefault(length, ([], []))
            group[0].append(index)
            group[1].extend(range(at, at + length))
    return tuple((np.array(r, dtype=np.intp), np.array(c, dtype=np.intp).reshape(len(r), n))
                 for n, (r, c) in by_len.items())


def varint_columns(rows: np.ndarray, groups: Groups, width: int) -> np.ndarray:
    """(rows, records) int64 of the varints in `groups` (0 where a record does not write the field)."""
    out = np.zeros((rows.shape[0], width), dtype=np.uint64)
    for records, cols in groups:
        varint = rows[:, cols.ravel()].reshape(rows.shape[0], *cols.shape).astype(np.uint64) & np.uint64(0x7F)
        shifts = np.arange(cols.shape[1], dtype=np.uint64) * np.uint64(7)
        out[:, records] = np.bitwise_or.reduce(varint << shifts, axis=2)
    return out.view(np.int64)  # int64 fields: a negative one is a 10-byte two's complement varint
