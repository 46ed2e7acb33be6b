"""The vectorised VisualDL scalar reader (`ingest.vdl_batch`) reads exactly what the per-record path
(`VdlRecordReader` + `vdl_parser`) reads, and takes nothing it should leave to that path."""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindinsight_clone.ingest import vdl_batch
from mindinsight_clone.ingest.vdl_parser import parse_vdl_columns
from mindinsight_clone.ingest.vdl_record_reader import VdlRecordReader
from mindinsight_clone.proto import vdl_record_pb2

Record = vdl_record_pb2.Record
T0_MS = 1_750_000_000_000
LIMIT = 1 << 20


def _frame(value: Any) -> bytes:
    payload = Record(values=[value]).SerializeToString()
    return struct.pack("<Q", len(payload)) + payload


def _scalar(step: int, tag: str, v: float, ts: int | None = None) -> bytes:
    return _frame(Record.Value(id=step, tag=tag, timestamp=T0_MS + 100 * step if ts is None else ts, value=v))


def _meta() -> bytes:
    return _frame(Record.Value(tag="meta_data_tag", timestamp=T0_MS, meta_data=Record.MetaData(display_name="x")))


def _add_scalar_run() -> bytes:
    """3 tags x 300 steps: step 0 has no `id` field, the step varint grows at 128."""
    rng = np.random.default_rng(1)
    return _meta() + b"".join(_scalar(s, t, float(rng.random())) for s in range(300) for t in ("loss", "acc", "学习率"))


def _add_scalars_with_cadence() -> bytes:
    """add_scalars (two sub-tags per step) and `lr` every 10th step: a period of 21 records."""
    out = [_meta()]
    for s in range(1, 400):
        for sub, v in (("train", s * 0.5), ("eval", s * 0.25)):
            out.append(_frame(Record.Value(id=s, tag="loss", timestamp=T0_MS + s,
                                           tag_value=Record.TagValue(tag=sub, value=v))))
        if s % 10 == 0:
            out.append(_scalar(s, "lr", 1.0 / s))
    return b"".join(out)


def _odd_values() -> bytes:
    """NaN, infinities, -0.0, negative steps (10-byte varints), a zero timestamp, an empty tag."""
    values = [math.nan, math.inf, -math.inf, -0.0, 1e-45, 3.4e38]
    out = [_scalar(s, "odd", values[(s + 100) % len(values)]) for s in range(-100, 100)]
    out += [_scalar(s, "", float(s), ts=0) for s in range(1, 60)]
    return b"".join(out)


def _mixed_kinds() -> bytes:
    """Scalars interrupted by text and histogram records (which the per-record path takes)."""
    out = [_meta()]
    for s in range(1, 200):
        out.append(_scalar(s, "loss", 1.0 / s))
        if s % 50 == 0:
            out.append(_frame(Record.Value(id=s, tag="note", timestamp=T0_MS, text=Record.Text(encoded_text_string="x"))))
            out.append(_frame(Record.Value(id=s, tag="w", timestamp=T0_MS,
                                           histogram=Record.Histogram(hist=[1, 2], bin_edges=[0, 1, 2]))))
    return b"".join(out)


def _columns(parsed: Any, into: dict[str, list[tuple[float, float, float]]]) -> None:
    for tag, col in parsed.scalars.items():
        into.setdefault(tag, []).extend(zip(col[0::3], col[1::3], col[2::3], strict=True))
    for tag, (steps, walls, values) in getattr(parsed, "arrays", {}).items():
        into.setdefault(tag, []).extend(zip(steps.tolist(), walls.tolist(), values.tolist(), strict=True))


def _same(a: dict[str, list[tuple[float, float, float]]], b: dict[str, list[tuple[float, float, float]]]) -> None:
    assert a.keys() == b.keys()
    for tag in a:
        left, right = np.array(a[tag], dtype=np.float64), np.array(b[tag], dtype=np.float64)
        assert left.shape == right.shape, tag
        assert np.array_equal(left, right, equal_nan=True), tag
        assert np.array_equal(np.signbit(left), np.signbit(right)), tag  # -0.0 stays -0.0


@pytest.mark.parametrize("make", [_add_scalar_run, _add_scalars_with_cadence, _odd_values, _mixed_kinds])
def test_block_reader_equals_the_per_record_path(tmp_path: Path, make: Any) -> None:
    path = tmp_path / "vdlrecords.1750000000.log"
    data = make()
    path.write_bytes(data)
    result = VdlRecordReader(path).read()
    assert result.offset == len(data) and not result.problems
    slow: dict[str, list[tuple[float, float, float]]] = {}
    _columns(parse_vdl_columns(result.records, path.name, result.offsets), slow)

    mixed: dict[str, list[tuple[float, float, float]]] = {}
    index = {offset: i for i, offset in enumerate(result.offsets)}
    i = taken = 0
    while i < len(result.records):  # as the loader does: the block reader where it takes, else one record
        end, arrays = vdl_batch.read_scalar_records(path, result.offsets[i], len(data), LIMIT, 64 * 1024)
        if end > result.offsets[i]:
            _columns(arrays, mixed)
            taken += arrays.records
            i = index.get(end, len(result.records))
            continue
        _columns(parse_vdl_columns([result.records[i]], path.name, [result.offsets[i]]), mixed)
        i += 1
    _same(slow, mixed)
    assert taken > 0.7 * len(result.records)  # most records went through the block reader


def test_takes_nothing_it_should_leave(tmp_path: Path) -> None:
    records = [_scalar(s, "loss", float(s)) for s in range(1, 41)]
    whole = b"".join(records)
    path = tmp_path / "vdlrecords.1.log"

    path.write_bytes(whole[:-3])  # the last record is not all there yet: stops before it
    end, arrays = vdl_batch.read_scalar_records(path, 0, len(whole) - 3, LIMIT)
    assert (end, arrays.records) == (len(whole) - len(records[-1]), 39)

    torn = records[10][:12]  # a record cut in the middle of the file: stops before it
    path.write_bytes(b"".join(records[:20]) + torn + b"".join(records[20:]))
    end, arrays = vdl_batch.read_scalar_records(path, 0, path.stat().st_size, LIMIT)
    assert (end, arrays.records) == (len(b"".join(records[:20])), 20)
    assert arrays.arrays["loss/scalar"][0].tolist() == list(range(1, 21))

    path.write_bytes(_meta() + whole)  # a non-scalar record first: takes nothing
    assert vdl_batch.read_scalar_records(path, 0, path.stat().st_size, LIMIT)[0] == 0
    path.write_bytes(b"".join(records[:10]))  # fewer than MIN_RUN records: left to the per-record path
    assert vdl_batch.read_scalar_records(path, 0, path.stat().st_size, LIMIT)[0] == 0
    extra = _frame(Record.Value(id=5, tag="loss", timestamp=T0_MS, value=1.0, image=Record.Image()))
    assert vdl_batch._template(extra[8:]) is None  # oneof: the last one set wins, so this is an image


def test_a_thousand_tags_per_step_ask_for_a_bigger_block_and_go_fast(tmp_path: Path) -> None:
    """A step of 1,000 tags does not fit twice in a 64 KB probe: the reader says how many bytes it wants (as the
    loader then asks), and with them takes every record, as the per-record path reads them (issue 32)."""
    tags = [f"local_norm/layer_{i}" for i in range(1000)]
    data = _meta() + b"".join(_scalar(s, t, s + i / 1000) for s in range(1, 81) for i, t in enumerate(tags))
    path = tmp_path / "vdlrecords.1750000000.log"
    path.write_bytes(data)
    result = VdlRecordReader(path).read()
    slow: dict[str, list[tuple[float, float, float]]] = {}
    _columns(parse_vdl_columns(result.records, path.name, result.offsets), slow)
    start = result.offsets[1]
    end, arrays = vdl_batch.read_scalar_records(path, start, len(data), LIMIT, 64 * 1024)
    assert end == start and arrays.wants_bytes > 2 * 64 * 1024
    fast: dict[str, list[tuple[float, float, float]]] = {}
    _columns(parse_vdl_columns(result.records[:1], path.name, result.offsets[:1]), fast)
    taken = 0
    while start < len(data):  # blocks of the size asked for; a later block reuses the cycle found first
        end, arrays = vdl_batch.read_scalar_records(path, start, len(data), LIMIT, arrays.wants_bytes or 1 << 20)
        assert end > start
        _columns(arrays, fast)
        taken += arrays.records
        start = end
    assert taken == 80 * 1000
    _same(slow, fast)
