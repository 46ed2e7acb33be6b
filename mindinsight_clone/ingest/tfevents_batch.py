"""Vectorised reading of scalar-only TensorBoard event records (what tensorboardX, torch.utils.tensorboard
and TF2's `tf.summary.scalar` write for every step), the tfevents twin of `scalar_batch`.

TensorBoard writers put ONE value per event: a step of k scalar tags is k consecutive records
`Event{wall_time, step, summary{value{tag, simple_value}}}` (TF2: `value{tag, tensor{DT_FLOAT, [shape {}],
tensor_content: 4 bytes}}`). Records differ in length (tags differ), but each step repeats the same
sequence of k records, so a "row" here is one such cycle: step after step, rows have the same length and
the same bytes except the wall times, steps and values. So:

1. Cycle: the records from the current offset are walked one by one (Python, a few dozen) until the first
   record's layout (length, structure, tag bytes) comes back; each one must be exactly one of the layouts
   above (`_template`), nothing else (no metadata, no other field, wall time first, fields in order).
   When that cycle holds too few rows (tags written at different cadences: `loss` every step, `lr` every
   10th), the shortest period of the layouts of the next (up to) 1024 records is the cycle instead.
2. Rows: the following bytes are cut into rows of that cycle's length. A row is taken when it equals the
   first outside the variable bytes (wall time, step varint, values, payload CRCs), every step varint has
   the template's length (continuation bits) and every payload CRC32C is right (vectorised through CRC
   linearity, `scalar_batch._crc_table`). Then wall times, steps and values are read as columns.

It stops at the first record it cannot take this way (another layout, a histogram or image, metadata, a
bad CRC, a partial record at the end) and says where; the loader hands the rest to the general
`RecordReader` + `tfevents_parser` path, which also reports any damage. So this path never changes what is
read, only how fast (tests/unit/ingest/test_tfevents_batch.py compares both).

A TF2 tensor scalar is taken only when the per-record parser would read it as a scalar too: its tag's
plugin (from metadata seen earlier in the file, `TfeventsState.plugins`) is `scalars` or unknown.
"""

from __future__ import annotations

import itertools
import os
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from crc32c import crc32c

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.record_reader import FOOTER_BYTES, HEADER_BYTES, masked_crc32c
from mindinsight_clone.ingest.scalar_batch import (
    BLOCK_BYTES,
    MIN_RUN,
    ScalarArrays,
    _crc_table,
    _first_false,
    _varint,
    add_row_groups,
    read_block,
)

MAX_CYCLE = 512  # most records walked to find where the first one's layout comes back
MAX_WALK = 1024  # most records walked to find the period of their layouts (tags written at other cadences)
_MASK_DELTA = np.uint32(0xA282EAD8)
_HEADER = struct.Struct("<QI")
_SCALAR_PLUGINS = ("", "scalars")  # what the per-record parser reads a rank-0 DT_FLOAT tensor as a scalar for
# TensorProto{dtype: DT_FLOAT}, optionally an empty tensor_shape, then 4 bytes of content or 1 packed float_val
_TENSOR_HEADS = (b"\x08\x01\x22\x04", b"\x08\x01\x12\x00\x22\x04", b"\x08\x01\x2a\x04", b"\x08\x01\x12\x00\x2a\x04")

# tags, then steps, wall times and values as (rows, len(tags)) arrays, then the number of records
Group = tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, int]


@dataclass(frozen=True)
class _Record:
    """One record of a cycle: where its variable bytes sit (offsets in its payload)."""

    length: int  # payload bytes
    wall_at: int  # -1: no wall_time field (0.0)
    step_at: int
    step_len: int  # 0: no step field (step 0)
    tags: tuple[str, ...]
    value_at: tuple[int, ...]  # offset of each value's 4-byte float32
    variable: tuple[int, ...]  # offsets of all the bytes above (wall time, step varint, values), ascending


def _record(length: int, wall_at: int, step_at: int, step_len: int, tags: tuple[str, ...],
            value_at: tuple[int, ...]) -> _Record:
    spans = [(wall_at, 8)] if wall_at >= 0 else []
    spans += [(step_at, step_len)] + [(at, 4) for at in value_at]
    variable = tuple(sorted(p for at, n in spans for p in range(at, at + n)))
    return _Record(length, wall_at, step_at, step_len, tags, value_at, variable)


def _template(payload: bytes, plugins: Mapping[str, str] | None) -> _Record | None:
    """The layout of a payload that is exactly a scalar-only TensorBoard Event, else None."""
    try:
        pos, wall_at = 0, -1
        if payload[0] == 0x09:  # wall_time (field 1, fixed64)
            wall_at, pos = 1, 9
        step_at, step_len = pos + 1, 0
        if payload[pos] == 0x10:  # step (field 2, varint)
            _, end = _varint(payload, pos + 1)
            step_len, pos = end - pos - 1, end
        if payload[pos] != 0x2A:  # summary (field 5)
            return None
        size, pos = _varint(payload, pos + 1)
        if pos + size != len(payload):
            return None
        tags: list[str] = []
        value_at: list[int] = []
        while pos < len(payload):
            if payload[pos] != 0x0A:  # Summary.value
                return None
            vlen, pos = _varint(payload, pos + 1)
            end = pos + vlen
            tag = ""
            if payload[pos] == 0x0A:  # Value.tag (absent when empty)
                tlen, pos = _varint(payload, pos + 1)
                if pos + tlen > end:
                    return None
                tag = payload[pos:pos + tlen].decode("utf-8")
                pos += tlen
            at = _value_at(payload, pos, end, tag, plugins)
            if at < 0:
                return None
            tags.append(tag)
            value_at.append(at)
            pos = end
        if not tags or pos != len(payload):
            return None
    except (ValueError, IndexError, UnicodeDecodeError):
        return None
    return _record(len(payload), wall_at, step_at, step_len, tuple(tags), tuple(value_at))


def _value_at(payload: bytes, pos: int, end: int, tag: str, plugins: Mapping[str, str] | None) -> int:
    """Where the float32 of a Value's remainder `payload[pos:end]` sits, if it is a plain scalar (else -1)."""
    if payload[pos] == 0x15 and pos + 5 == end:  # simple_value (field 2, fixed32), nothing else
        return pos + 1
    if payload[pos] != 0x42 or plugins is None or plugins.get(tag, "") not in _SCALAR_PLUGINS:
        return -1  # tensor (field 8): only with what the file said about the tag's plugin
    tlen, start = _varint(payload, pos + 1)
    if start + tlen != end:
        return -1
    head = payload[start:end - 4]
    return end - 4 if head in _TENSOR_HEADS else -1


@dataclass(frozen=True)
class _Cycle:
    records: tuple[_Record, ...]
    starts: tuple[int, ...]  # offset of each record's header in the row
    period: int  # row bytes
    fixed: np.ndarray  # row offsets of the bytes that must equal the first row's


def _walk(data: bytes, pos: int, max_record_bytes: int, plugins: Mapping[str, str] | None
          ) -> Iterator[tuple[int, _Record, bytes]]:
    """(offset from `pos`, layout, payload with its variable bytes zeroed) of each record from `pos` on, while
    they are whole scalar-only records with a good length CRC."""
    view = memoryview(data)
    at = pos
    while len(data) - at >= HEADER_BYTES:
        length, length_crc = _HEADER.unpack_from(data, at)
        if length > max_record_bytes or masked_crc32c(view[at:at + 8]) != length_crc:
            return
        stride = HEADER_BYTES + length + FOOTER_BYTES
        if at + stride > len(data):
            return
        payload = bytes(view[at + HEADER_BYTES:at + HEADER_BYTES + length])
        record = _template(payload, plugins)
        if record is None:
            return
        yield at - pos, record, _masked(payload, record)
        at += stride


def _cycle(data: bytes, pos: int, max_record_bytes: int, plugins: Mapping[str, str] | None) -> _Cycle | None:
    """Walk records from `pos` until the first one's layout comes back: that sequence is one row."""
    records: list[_Record] = []
    starts: list[int] = []
    first = b""
    for start, record, masked in itertools.islice(_walk(data, pos, max_record_bytes, plugins), MAX_CYCLE + 1):
        if records and record.tags == records[0].tags:
            if record == records[0] and masked == first:
                return _make_cycle(records, starts, start)
            return None  # the first tag is back in another layout (a longer step varint, ...): no cycle here
        if not records:
            first = masked
        records.append(record)
        starts.append(start)
    return None


def _periodic_cycle(data: bytes, pos: int, max_record_bytes: int, plugins: Mapping[str, str] | None
                    ) -> _Cycle | None:
    """The shortest period of the layouts of the next records (at most MAX_WALK of them, at least two periods),
    e.g. 11 records when `loss` is written every step and `lr` every 10th: that sequence is one row."""
    walked = list(itertools.islice(_walk(data, pos, max_record_bytes, plugins), MAX_WALK))
    ids: dict[tuple[_Record, bytes], int] = {}
    keys = np.array([ids.setdefault((record, masked), len(ids)) for _, record, masked in walked], dtype=np.int64)
    for period in np.flatnonzero(keys == keys[0]).tolist() if keys.size else ():
        if period and 2 * period <= keys.size and np.array_equal(keys[period:], keys[:-period]):
            end = walked[period][0]
            return _make_cycle([r for _, r, _ in walked[:period]], [s for s, _, _ in walked[:period]], end)
    return None


def _make_cycle(records: list[_Record], starts: list[int], period: int) -> _Cycle:
    variable = np.zeros(period, dtype=bool)
    for record, start in zip(records, starts, strict=True):
        payload_at = start + HEADER_BYTES
        variable[[payload_at + p for p in record.variable]] = True
        variable[payload_at + record.length:payload_at + record.length + FOOTER_BYTES] = True  # payload CRC
    return _Cycle(tuple(records), tuple(starts), period, np.flatnonzero(~variable))


def _masked(payload: bytes, record: _Record) -> bytes:
    """The payload with its variable bytes zeroed (equal for two records of one layout and tags)."""
    out = bytearray(payload)
    for p in record.variable:
        out[p] = 0
    return bytes(out)


def _rows_ok(rows: np.ndarray, cycle: _Cycle) -> int:
    """How many leading rows parse exactly as the first: fixed bytes, step varint lengths, payload CRCs."""
    ok = (rows[:, cycle.fixed] == rows[0, cycle.fixed]).all(axis=1)
    for record, start in zip(cycle.records, cycle.starts, strict=True):
        at = start + HEADER_BYTES + record.step_at
        for i in range(record.step_len):
            more = (rows[:, at + i] & 0x80) != 0
            ok &= more if i < record.step_len - 1 else ~more
    count = _first_false(ok)
    for record, start in zip(cycle.records, cycle.starts, strict=True):
        if not count:
            break
        payload_at = start + HEADER_BYTES
        variable = np.array(record.variable, dtype=np.intp) + payload_at
        table = _crc_table(record.length, record.variable)  # cached per layout
        diff = rows[:count, variable] ^ rows[0, variable]
        crcs = np.bitwise_xor.reduce(table[np.arange(variable.size)[None, :], diff], axis=1).astype(np.uint32)
        crcs ^= np.uint32(crc32c(rows[0, payload_at:payload_at + record.length].tobytes()))
        masked = ((crcs >> np.uint32(15)) | (crcs << np.uint32(17))) + _MASK_DELTA
        footer = payload_at + record.length
        stored = np.ascontiguousarray(rows[:count, footer:footer + FOOTER_BYTES]).view("<u4").ravel()
        count = _first_false(masked == stored)
    return count


def _decode(rows: np.ndarray, cycle: _Cycle) -> Group:
    """Steps, wall times and values of every value of the rows, in file order (row by row)."""
    steps: list[np.ndarray] = []
    walls: list[np.ndarray] = []
    values: list[np.ndarray] = []
    tags: list[str] = []
    n = rows.shape[0]
    for record, start in zip(cycle.records, cycle.starts, strict=True):
        at = start + HEADER_BYTES
        if record.wall_at >= 0:
            w = at + record.wall_at
            wall = np.ascontiguousarray(rows[:, w:w + 8]).view("<f8").ravel().astype(np.float64)
        else:
            wall = np.zeros(n, dtype=np.float64)
        step = np.zeros(n, dtype=np.uint64)
        for i in range(record.step_len):
            step |= (rows[:, at + record.step_at + i].astype(np.uint64) & np.uint64(0x7F)) << np.uint64(7 * i)
        for tag, v in zip(record.tags, record.value_at, strict=True):
            tags.append(tag)
            steps.append(step.view(np.int64))
            walls.append(wall)
            values.append(np.ascontiguousarray(rows[:, at + v:at + v + 4]).view("<f4").ravel())
    with np.errstate(invalid="ignore"):  # a signalling NaN written as a value stays a NaN, quietly
        wide = np.stack(values, axis=1).astype(np.float64)
    # shape (rows, values) flattened row-major: the order the records hold them
    return tuple(tags), np.stack(steps, axis=1), np.stack(walls, axis=1), wide, n * len(cycle.records)


def decode_block(data: bytes, max_record_bytes: int, plugins: Mapping[str, str] | None = None
                 ) -> tuple[int, list[Group]]:
    """Frame and decode the scalar-only records at the start of `data`.

    Returns (bytes consumed, groups of (tags, steps, wall times, values, records));
    stops at the first record it does not take, which may be the first one (0 consumed).
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    pos, end = 0, len(data)
    groups: list[Group] = []
    while end - pos >= HEADER_BYTES:
        cycle = _cycle(data, pos, max_record_bytes, plugins)
        if cycle is None or (end - pos) // cycle.period * len(cycle.records) < MIN_RUN:
            break  # not scalar-only records, or too few of them before the end of the data
        rows, count = _matching_rows(buf, pos, cycle)
        if count * len(cycle.records) < MIN_RUN:  # a record of another layout soon: tags at other cadences?
            cycle = _periodic_cycle(data, pos, max_record_bytes, plugins)
            if cycle is None:
                break
            rows, count = _matching_rows(buf, pos, cycle)
            if count * len(cycle.records) < MIN_RUN:
                break
        groups.append(_decode(rows[:count], cycle))
        pos += count * cycle.period
    return pos, groups


def _matching_rows(buf: np.ndarray, pos: int, cycle: _Cycle) -> tuple[np.ndarray, int]:
    """The rows of `cycle` from `pos` to the end of `buf`, and how many leading ones it takes."""
    count = (buf.size - pos) // cycle.period
    rows = buf[pos:pos + count * cycle.period].reshape(count, cycle.period)
    return rows, _rows_ok(rows, cycle)


def read_scalar_records(path: str | os.PathLike[str] | storage.Location, offset: int, size: int, max_record_bytes: int,
                        max_bytes: int = BLOCK_BYTES, plugins: Mapping[str, str] | None = None
                        ) -> tuple[int, ScalarArrays]:
    """Decode scalar-only records of a tfevents file from `offset` (up to `size`, at most `max_bytes` of it).

    `plugins`: the file's tag -> plugin memory (`TfeventsState.plugins`); without it TF2 tensor scalars are
    left to the general path. Returns the offset just past the last record taken (== `offset` if none) and
    the columns (`scalar_batch.ScalarArrays`). Never raises on file problems: they simply take nothing.
    """
    name, data = read_block(path, offset, size, max_bytes)
    out = ScalarArrays(name)
    if not data:
        return offset, out
    consumed, groups = decode_block(data, max_record_bytes, plugins)
    add_row_groups(out, groups)
    return offset + consumed, out
