"""Write TensorBoard event files of scalar-only steps in bulk: numpy builds every record at once.

The bytes are what tensorboardX's `SummaryWriter.add_scalar(tag, value, step)` writes (checked by
tests/unit/test_bench_tfevents_bulk.py against tensorboardX itself): a `file_version` event, then one
`Event{wall_time, step, summary{value{tag, simple_value}}}` per value, each framed as TFRecord
(u64 length, masked CRC32C of it, payload, masked CRC32C of the payload).

tensorboardX builds a protobuf object, serialises it and computes two CRCs per value in Python: about
12 minutes per rank of corpus L on this machine. Here records of equal length (the step's varint length
and the tag's length decide it) form one 2-D uint8 array, filled column by column, and the CRC32C runs
over all rows at once (table-driven, one numpy pass per byte column): no per-record Python.

Imports only numpy, so that it runs in the TensorBoard venv too.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

FILE_VERSION = b"brain.Event:2"
_MASK_DELTA = 0xA282EAD8


def _crc32c_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1).astype(np.uint32)
    return table


_TABLE = _crc32c_table()


def crc32c_rows(rows: np.ndarray) -> np.ndarray:
    """CRC32C (Castagnoli) of every row of a 2-D uint8 array."""
    crc = np.full(rows.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for j in range(rows.shape[1]):
        crc = _TABLE[(crc ^ rows[:, j]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(0xFFFFFFFF)


def masked_rows(rows: np.ndarray) -> np.ndarray:
    crc = crc32c_rows(rows).astype(np.uint64)
    return ((((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF).astype("<u4")


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _varint_columns(values: np.ndarray, width: int) -> np.ndarray:
    """Varints of `values`, all `width` bytes long, as an (n, width) uint8 array."""
    out = np.empty((values.size, width), dtype=np.uint8)
    v = values.astype(np.uint64)
    for j in range(width):
        byte = (v & 0x7F).astype(np.uint8)
        v = v >> 7
        out[:, j] = byte | 0x80 if j < width - 1 else byte
    return out


def _varint_width(values: np.ndarray) -> np.ndarray:
    width = np.ones(values.shape, dtype=np.int64)
    v = values.astype(np.uint64) >> 7
    while np.any(v):
        width += v > 0
        v = v >> 7
    return width


def frame(payload: bytes) -> bytes:
    """One TFRecord (the same framing as `ingest.record_reader.frame_record`)."""
    header = np.frombuffer(len(payload).to_bytes(8, "little"), dtype=np.uint8)
    body = np.frombuffer(payload, dtype=np.uint8)
    return b"".join((header.tobytes(), masked_rows(header[None, :]).tobytes(), payload,
                     masked_rows(body[None, :]).tobytes()))


def file_version_record(wall_time: float) -> bytes:
    return frame(b"\x09" + np.float64(wall_time).astype("<f8").tobytes() + b"\x1a" + varint(len(FILE_VERSION))
                 + FILE_VERSION)


def scalar_records(steps: np.ndarray, wall_times: np.ndarray, tags: Sequence[str], values: np.ndarray) -> bytes:
    """Framed records of `values[i, k]` (tag k at step i) in step order, tags in the given order per step.

    steps: (n,) int, > 0; wall_times: (n, len(tags)) float64 (one per value, as tensorboardX stamps them);
    values: (n, len(tags)) float32 (simple_value is a float).
    """
    steps = np.asarray(steps, dtype=np.int64)
    if steps.size and int(steps.min()) <= 0:
        raise ValueError("steps must be > 0 (a 0 step is not serialised; keep the layout fixed)")
    values = np.asarray(values, dtype="<f4")
    wall_times = np.asarray(wall_times, dtype="<f8")
    widths = _varint_width(steps)
    encoded = [(tag.encode("utf-8"), k) for k, tag in enumerate(tags)]
    out: list[bytes] = []
    for width in np.unique(widths):  # steps increase, so each width is one contiguous stretch of steps
        rows_idx = np.nonzero(widths == width)[0]
        per_tag = [_tag_records(steps[rows_idx], wall_times[rows_idx, k], tag_b, values[rows_idx, k], int(width))
                   for tag_b, k in encoded]
        if len({r.shape[1] for r in per_tag}) == 1:  # equal lengths: interleave (step, tag) in one reshape
            out.append(np.stack(per_tag, axis=1).tobytes())
        else:
            out.append(b"".join(r[i].tobytes() for i in range(rows_idx.size) for r in per_tag))
    return b"".join(out)


def _tag_records(steps: np.ndarray, wall_times: np.ndarray, tag_b: bytes, values: np.ndarray,
                 width: int) -> np.ndarray:
    """(n, record bytes) uint8: the framed records of one tag, all of whose steps take `width` varint bytes."""
    n = steps.size
    value_msg = b"\x0a" + varint(len(tag_b)) + tag_b + b"\x15"  # + 4 bytes of simple_value
    value_len = len(value_msg) + 4
    summary = b"\x0a" + varint(value_len) + value_msg
    summary_len = len(summary) + 4
    tail = b"\x2a" + varint(summary_len) + summary
    payload_len = 9 + 1 + width + len(tail) + 4
    rec = np.empty((n, 12 + payload_len + 4), dtype=np.uint8)
    rec[:, 0:8] = np.frombuffer(payload_len.to_bytes(8, "little"), dtype=np.uint8)
    rec[:, 8:12] = masked_rows(rec[:1, 0:8]).view(np.uint8)
    p = 12
    rec[:, p] = 0x09  # wall_time, field 1, fixed64
    rec[:, p + 1:p + 9] = np.ascontiguousarray(wall_times, dtype="<f8").view(np.uint8).reshape(n, 8)
    p += 9
    rec[:, p] = 0x10  # step, field 2, varint
    rec[:, p + 1:p + 1 + width] = _varint_columns(steps, width)
    p += 1 + width
    rec[:, p:p + len(tail)] = np.frombuffer(tail, dtype=np.uint8)  # summary, field 5 {value {tag, simple_value}}
    p += len(tail)
    rec[:, p:p + 4] = np.ascontiguousarray(values, dtype="<f4").view(np.uint8).reshape(n, 4)
    p += 4
    rec[:, p:p + 4] = masked_rows(rec[:, 12:p]).view(np.uint8).reshape(n, 4)
    return rec


def event_file_name(when: float) -> str:
    """tensorboardX's name: `events.out.tfevents.<first 10 characters of time.time()>.<hostname>`."""
    return f"events.out.tfevents.{str(when)[:10]}.{socket.gethostname()}"


def write_scalar_run(run_dir: Path, steps: np.ndarray, tags: Sequence[str], values: np.ndarray,
                     chunk_steps: int = 65_536, start: float | None = None) -> Path:
    """One event file in `run_dir` holding every value; wall times increase from `start` (default now)."""
    start = time.time() if start is None else start
    path = run_dir / event_file_name(start)
    steps = np.asarray(steps, dtype=np.int64)
    per_step = max(len(tags), 1)
    with open(path, "wb") as f:
        f.write(file_version_record(start))
        for lo in range(0, steps.size, chunk_steps):
            hi = min(lo + chunk_steps, steps.size)
            index = np.arange(lo * per_step, hi * per_step, dtype=np.float64).reshape(hi - lo, per_step)
            walls = start + 1e-6 * (index + 1)  # one microsecond apart, as a fast writer's clock would be
            f.write(scalar_records(steps[lo:hi], walls, tags, values[lo:hi]))
    return path
