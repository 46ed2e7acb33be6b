"""Helpers shared by the ingest tests: build framed records and summary payloads."""

from __future__ import annotations

import struct
from pathlib import Path

from mindinsight_clone.ingest.record_reader import frame_record, masked_crc32c
from mindinsight_clone.proto import summary_pb2


def scalar_event(step: int, **values: float) -> bytes:
    event = summary_pb2.Event(wall_time=1000.0 + step, step=step)
    for tag, value in values.items():
        event.summary.value.add(tag=tag, scalar_value=value)
    return event.SerializeToString()


def write_records(path: Path, payloads: list[bytes]) -> list[int]:
    """Write framed payloads; return each record's byte offset."""
    offsets, pos = [], 0
    with path.open("wb") as f:
        for payload in payloads:
            offsets.append(pos)
            framed = frame_record(payload)
            f.write(framed)
            pos += len(framed)
    return offsets


def header(length: int, good_crc: bool = True) -> bytes:
    raw = struct.pack("<Q", length)
    crc = masked_crc32c(raw) if good_crc else masked_crc32c(raw) ^ 1
    return raw + struct.pack("<I", crc)
