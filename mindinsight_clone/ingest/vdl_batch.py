"""Vectorised reading of VisualDL's scalar records (`add_scalar`, `add_scalars`), the VisualDL twin of
`tfevents_batch`.

VisualDL's LogWriter frames ONE value per record (`u64 length | Record{values: [Value]}`, no CRC): a step of k
scalar tags is k consecutive records `Value{id, tag, timestamp, value}` (`add_scalars(main, {sub: v})`:
`Value{id, tag: main, timestamp, tag_value{tag: sub, value}}`). Records differ in length (tags differ), but each
step repeats the same sequence of k records, so a "row" is one such cycle: step after step, rows have the same
length and the same bytes except the steps, timestamps and values. So:

1. Cycle: the records from the current offset are walked one by one until the first record's layout (length,
   structure, tag bytes) comes back; each must be exactly one of the layouts above (`_template`: fields in
   order, nothing else). The walk is bounded by the bytes left in the block, not by a record count (a step of a
   thousand tags is a thousand records; a block too small for two says how many bytes it wants), and a file's
   last cycle is tried first on its next block. When that cycle holds too few rows (tags written at different
   cadences), the shortest period of the layouts of the next (up to) 1024 records is the cycle instead.
2. Rows: the following bytes are cut into rows of that cycle's length. A row is taken when it equals the first
   outside the variable bytes (step and timestamp varints, values) and every varint has the template's length
   (continuation bits). The frame lengths are fixed bytes, so such a row frames and parses exactly as the
   template does (what the per-record reader's decode check would say). Steps, wall times (timestamp / 1000)
   and values are then read as columns, every record of every row in one gather each (index arrays built with
   the cycle).

It stops at the first record it cannot take this way (the meta record, an image or any other kind, step 0
whose `id` is not written, a step whose varint grows, damage, a partial record at the end) and says where; the
loader hands the rest to `VdlRecordReader` + `vdl_parser`, which also reports any damage. So this path never
changes what is read, only how fast (tests/unit/ingest/test_vdl_batch.py compares both).
"""

from __future__ import annotations

import itertools
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.scalar_batch import (
    BLOCK_BYTES,
    MIN_RUN,
    WIDE_ROWS,
    CycleHints,
    Groups,
    RowTooLong,
    ScalarArrays,
    _first_false,
    _varint,
    add_row_groups,
    read_block,
    varint_columns,
    varint_groups,
)

LENGTH_BYTES = 8
MAX_CYCLE = 100_000  # most records walked to find where the first one's layout comes back (also bounded in bytes)
MAX_WALK = 1024  # most records walked to find the period of their layouts (tags written at other cadences)
_U64 = struct.Struct("<Q")

# tags, then steps, wall times and values as (rows, len(tags)) arrays, then the number of records
Group = tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, int]


@dataclass(frozen=True)
class _Record:
    """One scalar record's layout: where its variable bytes sit (offsets in its payload)."""

    length: int  # payload bytes
    step_at: int
    step_len: int  # 0: no `id` field (step 0)
    time_at: int
    time_len: int  # 0: no `timestamp` field (0)
    tag: str  # `<tag>`, or `<main>/<sub>` for add_scalars
    value_at: int  # offset of the 4-byte float32
    variable: tuple[int, ...]  # offsets of the step, timestamp and value bytes, ascending


def _template(payload: bytes) -> _Record | None:
    """The layout of a payload that is exactly `Record{values: [one scalar Value]}`, else None."""
    try:
        if payload[0] != 0x0A:  # Record.values
            return None
        size, pos = _varint(payload, 1)
        end = len(payload)
        if pos + size != end:
            return None
        step_at, step_len = pos + 1, 0
        if payload[pos] == 0x08:  # id (field 1, varint)
            after = _varint(payload, pos + 1)[1]
            step_len, pos = after - pos - 1, after
        tag = ""
        if payload[pos] == 0x12:  # tag (field 2)
            tlen, pos = _varint(payload, pos + 1)
            if pos + tlen > end:
                return None
            tag = payload[pos:pos + tlen].decode("utf-8")
            pos += tlen
        time_at, time_len = pos + 1, 0
        if payload[pos] == 0x18:  # timestamp (field 3, varint)
            after = _varint(payload, pos + 1)[1]
            time_len, pos = after - pos - 1, after
        if payload[pos] == 0x25 and pos + 5 == end:  # value (field 4, float): add_scalar
            value_at = pos + 1
        elif payload[pos] == 0x72:  # tag_value (field 14): add_scalars, TagValue{tag, value}, both present
            slen, pos = _varint(payload, pos + 1)
            if pos + slen != end or payload[pos] != 0x0A:
                return None
            sublen, pos = _varint(payload, pos + 1)
            sub = payload[pos:pos + sublen].decode("utf-8")
            pos += sublen
            if payload[pos] != 0x15 or pos + 5 != end:
                return None
            tag, value_at = f"{tag}/{sub}", pos + 1
        else:
            return None
    except (ValueError, IndexError, UnicodeDecodeError):
        return None
    spans = [(step_at, step_len), (time_at, time_len), (value_at, 4)]
    variable = tuple(sorted(p for at, n in spans for p in range(at, at + n)))
    return _Record(end, step_at, step_len, time_at, time_len, tag, value_at, variable)


@dataclass(frozen=True, eq=False)
class _Cycle:
    """One row's layout, with index arrays that check and decode every record of a row in a few numpy calls (a
    step of a thousand tags is a thousand records: nothing loops over them per block)."""

    records: tuple[_Record, ...]
    period: int  # row bytes
    fixed: np.ndarray  # row offsets of the bytes that must equal the template's
    template: np.ndarray  # those bytes in the first row the cycle was found on
    varint_cols: np.ndarray  # row offsets of every step / timestamp varint byte, and whether its high bit is set
    varint_more: np.ndarray
    steps: Groups  # the step and timestamp varints, by length
    times: Groups
    value_cols: np.ndarray  # offsets of every record's 4 value bytes
    tags: tuple[str, ...]


_HINTS: CycleHints[_Cycle] = CycleHints()


def _walk(data: bytes, pos: int, max_record_bytes: int) -> Iterator[tuple[int, _Record, bytes]]:
    """(offset from `pos`, layout, payload with its variable bytes zeroed) of each record from `pos` on, while
    they are whole scalar records."""
    at = pos
    while len(data) - at >= LENGTH_BYTES:
        length = _U64.unpack_from(data, at)[0]
        stride = LENGTH_BYTES + length
        if length > max_record_bytes or at + stride > len(data):
            return
        payload = data[at + LENGTH_BYTES:at + stride]
        record = _template(payload)
        if record is None:
            return
        masked = bytearray(payload)
        for p in record.variable:
            masked[p] = 0
        yield at - pos, record, bytes(masked)
        at += stride


def _cycle(data: bytes, buf: np.ndarray, pos: int, max_record_bytes: int) -> _Cycle | None:
    """Walk records from `pos` until the first one's layout comes back: that sequence is one row. Bounded in bytes
    (a row must fit twice in what is left of the block): `RowTooLong` when the block ended first."""
    records: list[_Record] = []
    starts: list[int] = []
    first = b""
    limit = (len(data) - pos) // 2
    for start, record, masked in itertools.islice(_walk(data, pos, max_record_bytes), MAX_CYCLE + 1):
        if records and record.tag == records[0].tag:
            if record == records[0] and masked == first:
                return _make_cycle(records, starts, start, buf, pos)
            return None  # the first tag is back in another layout (a longer step varint, ...): no cycle here
        if start > limit:
            raise RowTooLong(start)
        if not records:
            first = masked
        records.append(record)
        starts.append(start)
    return None


def _periodic_cycle(data: bytes, buf: np.ndarray, pos: int, max_record_bytes: int) -> _Cycle | None:
    """The shortest period of the layouts of the next records (at most MAX_WALK of them, at least two periods),
    e.g. 11 records when `loss` is written every step and `lr` every 10th: that sequence is one row."""
    walked = list(itertools.islice(_walk(data, pos, max_record_bytes), MAX_WALK))
    ids: dict[tuple[_Record, bytes], int] = {}
    keys = np.array([ids.setdefault((record, masked), len(ids)) for _, record, masked in walked], dtype=np.int64)
    for period in np.flatnonzero(keys == keys[0]).tolist() if keys.size else ():
        if period and 2 * period <= keys.size and np.array_equal(keys[period:], keys[:-period]):
            return _make_cycle([r for _, r, _ in walked[:period]], [s for s, _, _ in walked[:period]],
                               walked[period][0], buf, pos)
    return None


def _make_cycle(records: list[_Record], starts: list[int], period: int, buf: np.ndarray, pos: int) -> _Cycle:
    variable = np.zeros(period, dtype=bool)
    varint_cols: list[int] = []
    varint_more: list[bool] = []
    steps: list[tuple[int, int]] = []
    times: list[tuple[int, int]] = []
    values: list[int] = []
    for record, start in zip(records, starts, strict=True):
        at = start + LENGTH_BYTES
        variable[[at + p for p in record.variable]] = True
        for field_at, length in ((at + record.step_at, record.step_len), (at + record.time_at, record.time_len)):
            varint_cols += range(field_at, field_at + length)
            varint_more += [i < length - 1 for i in range(length)]
        steps.append((at + record.step_at, record.step_len))
        times.append((at + record.time_at, record.time_len))
        values += range(at + record.value_at, at + record.value_at + 4)
    fixed = np.flatnonzero(~variable)
    return _Cycle(tuple(records), period, fixed, buf[pos:pos + period][fixed].copy(),
                  np.array(varint_cols, dtype=np.intp), np.array(varint_more, dtype=bool), varint_groups(steps),
                  varint_groups(times), np.array(values, dtype=np.intp), tuple(r.tag for r in records))


def _rows_ok(rows: np.ndarray, cycle: _Cycle) -> int:
    """How many leading rows parse exactly as the template: fixed bytes and varint lengths."""
    ok = (rows[:, cycle.fixed] == cycle.template).all(axis=1)
    if cycle.varint_cols.size:
        ok &= (((rows[:, cycle.varint_cols] & 0x80) != 0) == cycle.varint_more).all(axis=1)
    return _first_false(ok)


def _decode(rows: np.ndarray, cycle: _Cycle) -> Group:
    """Steps, wall times and values of every record of the rows, in file order (row by row)."""
    n, width = rows.shape[0], len(cycle.records)
    steps = varint_columns(rows, cycle.steps, width)
    walls = varint_columns(rows, cycle.times, width).astype(np.float64) / 1000.0
    with np.errstate(invalid="ignore"):  # a signalling NaN written as a value stays a NaN, quietly
        values = np.ascontiguousarray(rows[:, cycle.value_cols]).view("<f4").reshape(n, width).astype(np.float64)
    return cycle.tags, steps, walls, values, n * width


def _matching_rows(buf: np.ndarray, pos: int, cycle: _Cycle) -> tuple[np.ndarray, int]:
    count = (buf.size - pos) // cycle.period
    rows = buf[pos:pos + count * cycle.period].reshape(count, cycle.period)
    return rows, _rows_ok(rows, cycle) if count else 0


def _fits(cycle: _Cycle | None, buf: np.ndarray, pos: int) -> bool:
    """Whether the block goes on with the cycle the previous block ended with (its first row is the template)."""
    return (cycle is not None and buf.size - pos >= cycle.period
            and bool(np.array_equal(buf[pos:pos + cycle.period][cycle.fixed], cycle.template)))


def decode_block(data: bytes, max_record_bytes: int, hint: _Cycle | None = None
                 ) -> tuple[int, list[Group], _Cycle | None, int]:
    """Frame and decode the scalar records at the start of `data`: (bytes consumed, groups, the last cycle taken,
    bytes wanted); stops at the first record it does not take, which may be the first one (0 consumed). `hint`:
    the cycle the file's previous block ended with, tried first. Bytes wanted > 0: nothing was taken because a row
    did not fit twice in `data`."""
    buf = np.frombuffer(data, dtype=np.uint8)
    pos, end = 0, len(data)
    groups: list[Group] = []
    last: _Cycle | None = None
    while end - pos >= LENGTH_BYTES:
        if last is not None and end - pos < last.period:
            break  # the rest is part of a row: the next block starts there, with this cycle as its hint
        try:
            cycle = hint if _fits(hint, buf, pos) else _cycle(data, buf, pos, max_record_bytes)
        except RowTooLong as short:
            return pos, groups, last, (0 if groups else WIDE_ROWS * short.walked)
        hint = None
        if cycle is None or (end - pos) // cycle.period * len(cycle.records) < MIN_RUN:
            break
        rows, count = _matching_rows(buf, pos, cycle)
        if count * len(cycle.records) < MIN_RUN:  # another layout soon: tags written at other cadences?
            cycle = _periodic_cycle(data, buf, pos, max_record_bytes)
            if cycle is None:
                break
            rows, count = _matching_rows(buf, pos, cycle)
            if count * len(cycle.records) < MIN_RUN:
                break
        groups.append(_decode(rows[:count], cycle))
        pos += count * cycle.period
        last = cycle
    return pos, groups, last, 0


def read_scalar_records(path: str | os.PathLike[str] | storage.Location, offset: int, size: int, max_record_bytes: int,
                        max_bytes: int = BLOCK_BYTES) -> tuple[int, ScalarArrays]:
    """Decode the scalar records of a VisualDL log from `offset` (up to `size`, at most `max_bytes` of it).

    Returns the offset just past the last record taken (== `offset` if none) and the columns
    (`scalar_batch.ScalarArrays`, tags `<tag>/scalar` and `<main>/<sub>/scalar` as `vdl_parser` names them).
    Never raises on file problems: they simply take nothing.
    """
    name, data = read_block(path, offset, size, max_bytes)
    out = ScalarArrays(name)
    if not data:
        return offset, out
    consumed, groups, last, out.wants_bytes = decode_block(data, max_record_bytes, _HINTS.take(str(path)))
    _HINTS.keep(str(path), last)
    add_row_groups(out, groups)
    return offset + consumed, out
