"""Ingest speed: 600k scalar values (100k steps x 6 tags) read and parsed. Prints the figures.

    pytest tests/unit/ingest/test_parse_speed.py -s -m slow
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from mindinsight_clone.ingest.event_parser import parse_summary_records
from mindinsight_clone.ingest.record_reader import frame_record, read_all
from mindinsight_clone.proto import summary_pb2

STEPS, TAGS = 100_000, ("loss", "acc", "lr", "grad_norm", "val_loss", "val_acc")
BUDGET_SECONDS = 3.0  # generous for a loaded CI box; on an idle 2-core VM it is ~0.7 s


def _write(path: Path) -> None:
    values = np.random.default_rng(0).random((STEPS, len(TAGS))).astype(np.float32).tolist()
    template = summary_pb2.Event()
    for tag in TAGS:
        template.summary.value.add(tag=f"{tag}/auto", scalar_value=0.0)
    chunks = [frame_record(summary_pb2.Event(wall_time=1.0, version="MindSpore.Event:1").SerializeToString())]
    for step, row in enumerate(values, start=1):
        template.wall_time, template.step = 1.7e9 + step, step
        for value, x in zip(template.summary.value, row, strict=True):
            value.scalar_value = x
        chunks.append(frame_record(template.SerializeToString()))
    path.write_bytes(b"".join(chunks))


@pytest.mark.slow
def test_600k_scalars(tmp_path: Path) -> None:
    path = tmp_path / "events.out.events.summary.1700000000.0.bench_MS"
    _write(path)
    start = time.perf_counter()
    read = read_all(path)
    mid = time.perf_counter()
    parsed = parse_summary_records(read.records, path.name, read.offsets)
    end = time.perf_counter()
    assert len(parsed.values) == STEPS * len(TAGS) and not parsed.problems
    print(f"\n{path.stat().st_size / 1e6:.1f} MB, {len(read.records)} records, {len(parsed.values)} values: "
          f"read {mid - start:.3f} s, parse {end - mid:.3f} s, total {end - start:.3f} s")
    assert end - start < BUDGET_SECONDS
