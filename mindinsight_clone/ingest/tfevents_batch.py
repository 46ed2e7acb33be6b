"""Vectorised reading of scalar-only TensorBoard event records (what tensorboardX, torch.utils.tensorboard
and TF2's `tf.summary.scalar` write for every step), the tfevents twin of `scalar_batch`.

TensorBoard writers put ONE value per event: a step of k scalar tags is k consecutive records
`Event{wall_time, step, summary{value{tag, simple_value}}}` (TF2: `value{tag, tensor{DT_FLOAT, [shape {}],
tensor_content: 4 bytes}}`). Records differ in length (tags differ), but each step repeats the same
sequence of k records, so a "row" here is one such cycle: step after step, rows have the same length and
the same bytes except the wall times, steps and values. So:

1. Cycle: the records from the current offset are walked one by one (Python) until the first record's layout
   (length, structure, tag bytes) comes back; each one must be exactly one of the layouts above (`_template`),
   nothing else (no metadata, no other field, wall time first, fields in order). The walk is bounded by the bytes
   left in the block (a row must fit twice), not by a record count: an LLM monitor's step is a thousand records,
   and a block too small for it says how many bytes it wants (`ScalarArrays.wants_bytes`). When that cycle holds
   too few rows (tags written at different cadences: `loss` every step, `lr` every 10th), the shortest period of
   the layouts of the next (up to) 1024 records is the cycle instead. A file's last cycle is tried first on its
   next block (one array compare), so the walk happens once per file, not per block.
2. Rows: the following bytes are cut into rows of that cycle's length. A row is taken when it equals the
   template outside the variable bytes (wall time, step varint, values, payload CRCs), every step varint has the
   template's length (continuation bits) and every payload CRC32C is right — all records of all rows at once,
   with index arrays built with the cycle: CRC32C is affine, so crc(row's payload) = crc(payload with its
   variable bytes zeroed) ^ XOR of a per-(position, byte value) table (`scalar_batch._crc_table`), one gather and
   one `reduceat`. Then wall times, steps and values are read as columns, one gather each.

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
    WIDE_ROWS,
    CycleHints,
    Groups,
    RowTooLong,
    ScalarArrays,
    _crc_table,
    _first_false,
    _varint,
    add_row_groups,
    read_block,
    varint_columns,
    varint_groups,
)

MAX_CYCLE = 100_000  # most records walked to find where the first one's layout comes back (also bounded in bytes)
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


@dataclass(frozen=True, eq=False)
class _Cycle:
    """One row's layout, with the index arrays that check and decode every record of a row in a few numpy calls
    (a step of an LLM monitor is a thousand records: nothing here loops over them per block)."""

    records: tuple[_Record, ...]
    starts: tuple[int, ...]  # offset of each record's header in the row
    period: int  # row bytes
    fixed: np.ndarray  # row offsets of the bytes that must equal the template's
    template: np.ndarray  # those bytes in the first row the cycle was found on
    step_cols: np.ndarray  # row offsets of every step varint byte, and whether each must have its high bit set
    step_more: np.ndarray
    var_cols: np.ndarray  # row offsets of every record's variable payload bytes, record after record
    var_base: np.ndarray  # 256 * position, to index the flat CRC table
    var_table: np.ndarray  # flat: what byte value v at variable position j adds to its record's CRC32C
    segments: np.ndarray  # where each record's variable bytes start in var_cols
    crc_masked: np.ndarray  # CRC32C of each record's payload with its variable bytes zeroed
    footer_cols: np.ndarray  # row offsets of each record's 4 payload-CRC bytes
    wall_records: np.ndarray  # records with a wall_time, and the offsets of its 8 bytes
    wall_cols: np.ndarray
    step_groups: Groups  # the step varints, by length
    value_cols: np.ndarray  # offsets of every value's 4 bytes, and the record each value belongs to
    value_records: np.ndarray
    tags: tuple[str, ...]  # one per value
    tensor_tags: tuple[str, ...]  # tags read from a TF2 tensor (valid while their plugin stays a scalar one)


_HINTS: CycleHints[_Cycle] = CycleHints()


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


def _cycle(data: bytes, buf: np.ndarray, pos: int, max_record_bytes: int, plugins: Mapping[str, str] | None
           ) -> _Cycle | None:
    """Walk records from `pos` until the first one's layout comes back: that sequence is one row. The walk is
    bounded in bytes (a row must fit twice in what is left of the block), not in records; `RowTooLong` when the
    block ended first (a bigger block may hold the row)."""
    records: list[_Record] = []
    starts: list[int] = []
    maskeds: list[bytes] = []
    limit = (len(data) - pos) // 2
    for start, record, masked in itertools.islice(_walk(data, pos, max_record_bytes, plugins), MAX_CYCLE + 1):
        if records and record.tags == records[0].tags:
            if record == records[0] and masked == maskeds[0]:
                return _make_cycle(records, starts, maskeds, start, buf, pos)
            return None  # the first tag is back in another layout (a longer step varint, ...): no cycle here
        if start > limit:
            raise RowTooLong(start)
        records.append(record)
        starts.append(start)
        maskeds.append(masked)
    return None


def _periodic_cycle(data: bytes, buf: np.ndarray, pos: int, max_record_bytes: int,
                    plugins: Mapping[str, str] | None) -> _Cycle | None:
    """The shortest period of the layouts of the next records (at most MAX_WALK of them, at least two periods),
    e.g. 11 records when `loss` is written every step and `lr` every 10th: that sequence is one row."""
    walked = list(itertools.islice(_walk(data, pos, max_record_bytes, plugins), MAX_WALK))
    ids: dict[tuple[_Record, bytes], int] = {}
    keys = np.array([ids.setdefault((record, masked), len(ids)) for _, record, masked in walked], dtype=np.int64)
    for period in np.flatnonzero(keys == keys[0]).tolist() if keys.size else ():
        if period and 2 * period <= keys.size and np.array_equal(keys[period:], keys[:-period]):
            end = walked[period][0]
            return _make_cycle([r for _, r, _ in walked[:period]], [s for s, _, _ in walked[:period]],
                               [m for _, _, m in walked[:period]], end, buf, pos)
    return None


def _make_cycle(records: list[_Record], starts: list[int], maskeds: list[bytes], period: int, buf: np.ndarray,
                pos: int) -> _Cycle:
    variable = np.zeros(period, dtype=bool)
    step_cols: list[int] = []
    step_more: list[bool] = []
    var_cols: list[np.ndarray] = []
    tables: list[np.ndarray] = []
    segments: list[int] = []
    footers: list[int] = []
    walls: tuple[list[int], list[int]] = ([], [])
    step_spans: list[tuple[int, int]] = []
    values: tuple[list[int], list[int]] = ([], [])
    tags: list[str] = []
    tensor_tags: list[str] = []
    count = 0
    for index, (record, start, masked) in enumerate(zip(records, starts, maskeds, strict=True)):
        at = start + HEADER_BYTES
        cols = np.array(record.variable, dtype=np.intp) + at
        variable[cols] = True
        variable[at + record.length:at + record.length + FOOTER_BYTES] = True  # payload CRC
        segments.append(count)
        count += cols.size
        var_cols.append(cols)
        tables.append(_crc_table(record.length, record.variable))
        footers += range(at + record.length, at + record.length + FOOTER_BYTES)
        step_cols += range(at + record.step_at, at + record.step_at + record.step_len)
        step_more += [i < record.step_len - 1 for i in range(record.step_len)]
        if record.wall_at >= 0:
            walls[0].append(index)
            walls[1].extend(range(at + record.wall_at, at + record.wall_at + 8))
        step_spans.append((at + record.step_at, record.step_len))
        for tag, v in zip(record.tags, record.value_at, strict=True):
            values[0].extend(range(at + v, at + v + 4))
            values[1].append(index)
            tags.append(tag)
            if masked[v - 1] != 0x15:  # not simple_value's key: a TF2 tensor's content
                tensor_tags.append(tag)
    fixed = np.flatnonzero(~variable)
    intp = np.intp
    return _Cycle(
        tuple(records), tuple(starts), period, fixed, buf[pos:pos + period][fixed].copy(),
        np.array(step_cols, dtype=intp), np.array(step_more, dtype=bool),
        np.concatenate(var_cols), np.arange(count, dtype=np.int32) * 256, np.concatenate(tables).ravel(),
        np.array(segments, dtype=intp),
        np.array([crc32c(m) for m in maskeds], dtype=np.uint32), np.array(footers, dtype=intp),
        np.array(walls[0], dtype=intp), np.array(walls[1], dtype=intp),
        varint_groups(step_spans),
        np.array(values[0], dtype=intp), np.array(values[1], dtype=intp), tuple(tags), tuple(tensor_tags))


def _masked(payload: bytes, record: _Record) -> bytes:
    """The payload with its variable bytes zeroed (equal for two records of one layout and tags)."""
    out = bytearray(payload)
    for p in record.variable:
        out[p] = 0
    return bytes(out)


def _rows_ok(rows: np.ndarray, cycle: _Cycle) -> int:
    """How many leading rows parse exactly as the template: fixed bytes, step varint lengths, payload CRCs."""
    ok = (rows[:, cycle.fixed] == cycle.template).all(axis=1)
    if cycle.step_cols.size:
        ok &= (((rows[:, cycle.step_cols] & 0x80) != 0) == cycle.step_more).all(axis=1)
    count = _first_false(ok)
    if not count:
        return 0
    # CRC32C is affine: crc(row) = crc(payload with the variable bytes zeroed) ^ XOR of table[j, byte j]
    index = rows[:count, cycle.var_cols].astype(np.int32)  # int32: half the memory traffic of intp
    index += cycle.var_base
    contrib = np.take(cycle.var_table, index)
    crcs = np.bitwise_xor.reduceat(contrib, cycle.segments, axis=1).astype(np.uint32) ^ cycle.crc_masked
    masked = ((crcs >> np.uint32(15)) | (crcs << np.uint32(17))) + _MASK_DELTA
    stored = np.ascontiguousarray(rows[:count, cycle.footer_cols]).view("<u4").reshape(count, -1)
    return _first_false((masked == stored).all(axis=1))


def _decode(rows: np.ndarray, cycle: _Cycle) -> Group:
    """Steps, wall times and values of every value of the rows, in file order (row by row)."""
    n, width = rows.shape[0], len(cycle.records)
    wall = np.zeros((n, width), dtype=np.float64)
    if cycle.wall_records.size:
        wall[:, cycle.wall_records] = np.ascontiguousarray(rows[:, cycle.wall_cols]).view("<f8").reshape(n, -1)
    step = varint_columns(rows, cycle.step_groups, width)
    with np.errstate(invalid="ignore"):  # a signalling NaN written as a value stays a NaN, quietly
        values = np.ascontiguousarray(rows[:, cycle.value_cols]).view("<f4").reshape(n, -1).astype(np.float64)
    # shape (rows, values) flattened row-major: the order the records hold them
    return (cycle.tags, step[:, cycle.value_records], wall[:, cycle.value_records], values,
            n * width)


def _fits(cycle: _Cycle | None, buf: np.ndarray, pos: int, plugins: Mapping[str, str] | None) -> bool:
    """Whether the block goes on with the cycle the previous block ended with (its first row is the template)."""
    if cycle is None or buf.size - pos < cycle.period:
        return False
    if cycle.tensor_tags and (plugins is None or any(plugins.get(t, "") not in _SCALAR_PLUGINS
                                                      for t in cycle.tensor_tags)):
        return False
    return bool(np.array_equal(buf[pos:pos + cycle.period][cycle.fixed], cycle.template))


def decode_block(data: bytes, max_record_bytes: int, plugins: Mapping[str, str] | None = None,
                 hint: _Cycle | None = None) -> tuple[int, list[Group], _Cycle | None, int]:
    """Frame and decode the scalar-only records at the start of `data`.

    Returns (bytes consumed, groups of (tags, steps, wall times, values, records), the last cycle taken, bytes
    wanted); stops at the first record it does not take, which may be the first one (0 consumed). `hint`: the
    cycle the previous block of the file ended with, tried first (finding a thousand-record cycle walks every
    record once). Bytes wanted > 0: nothing was taken because a row did not fit twice in `data`.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    pos, end = 0, len(data)
    groups: list[Group] = []
    last: _Cycle | None = None
    while end - pos >= HEADER_BYTES:
        if last is not None and end - pos < last.period:
            break  # the rest is part of a row: the next block starts there, with this cycle as its hint
        try:
            cycle = hint if _fits(hint, buf, pos, plugins) else _cycle(data, buf, pos, max_record_bytes, plugins)
        except RowTooLong as short:
            return pos, groups, last, (0 if groups else WIDE_ROWS * short.walked)
        hint = None
        if cycle is None or (end - pos) // cycle.period * len(cycle.records) < MIN_RUN:
            break  # not scalar-only records, or too few of them before the end of the data
        rows, count = _matching_rows(buf, pos, cycle)
        if count * len(cycle.records) < MIN_RUN:  # a record of another layout soon: tags at other cadences?
            cycle = _periodic_cycle(data, buf, pos, max_record_bytes, plugins)
            if cycle is None:
                break
            rows, count = _matching_rows(buf, pos, cycle)
            if count * len(cycle.records) < MIN_RUN:
                break
        groups.append(_decode(rows[:count], cycle))
        pos += count * cycle.period
        last = cycle
    return pos, groups, last, 0


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
    consumed, groups, last, out.wants_bytes = decode_block(data, max_record_bytes, plugins, _HINTS.take(str(path)))
    _HINTS.keep(str(path), last)
    add_row_groups(out, groups)
    return offset + consumed, out
