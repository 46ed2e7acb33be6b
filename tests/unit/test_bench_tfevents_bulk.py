"""benchmarks/tfevents_bulk.py writes the bytes tensorboardX writes for the same scalars (the TensorBoard copy
of the issue-13 corpora depends on it)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
from crc32c import crc32c

from mindinsight_clone.ingest.record_reader import RecordReader
from mindinsight_clone.proto import tb_event_pb2

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bulk():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("tfevents_bulk")
    finally:
        sys.path.remove(str(BENCH))


def test_crc32c_rows_matches_the_crc32c_package(bulk) -> None:  # type: ignore[no-untyped-def]
    rows = np.random.default_rng(3).integers(0, 256, size=(64, 41), dtype=np.uint8)
    assert [int(c) for c in bulk.crc32c_rows(rows)] == [crc32c(r.tobytes()) for r in rows]


def test_bytes_equal_tensorboardx(bulk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tensorboardx = pytest.importorskip("tensorboardX")
    # every varint width of a step up to 4 bytes, a 0.0 value (a oneof: still written), tags of unequal length
    steps = np.array([1, 2, 127, 128, 129, 16_383, 16_384, 2**21 - 1, 2**21 + 5], dtype=np.int64)
    tags = ["s00", "loss/total", "lr"]
    values = np.random.default_rng(7).standard_normal((steps.size, len(tags))).astype(np.float32)
    values[0, 0] = 0.0
    values[3, 1] = -1e30
    writer = tensorboardx.SummaryWriter(logdir=str(tmp_path / "tbx"))
    for i, step in enumerate(steps):
        for k, tag in enumerate(tags):
            writer.add_scalar(tag, float(values[i, k]), int(step))
    writer.close()
    (written,) = (tmp_path / "tbx").glob("events.out.tfevents.*")
    theirs = written.read_bytes()
    # tensorboardX stamps each event with time.time(): take its wall times, everything else is ours
    events = [tb_event_pb2.Event.FromString(p) for p in RecordReader(written).read().records]
    walls = np.array([e.wall_time for e in events[1:]]).reshape(steps.size, len(tags))
    ours = bulk.file_version_record(events[0].wall_time) + bulk.scalar_records(steps, walls, tags, values)
    assert ours == theirs


def test_write_scalar_run_reads_back(bulk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    steps = np.arange(1, 501, dtype=np.int64)
    values = np.random.default_rng(1).standard_normal((500, 2)).astype(np.float32)
    path = bulk.write_scalar_run(tmp_path, steps, ["a", "b"], values, chunk_steps=64)
    result = RecordReader(path).read()
    assert not result.problems
    events = [tb_event_pb2.Event.FromString(p) for p in result.records]
    assert events[0].file_version == "brain.Event:2"
    got = [(e.step, e.summary.value[0].tag, e.summary.value[0].simple_value) for e in events[1:]]
    want = [(int(s), t, float(values[i, k])) for i, s in enumerate(steps) for k, t in enumerate(["a", "b"])]
    assert got == want
    walls = [e.wall_time for e in events[1:]]
    assert walls == sorted(walls) and len(set(walls)) == len(walls)
