"""Write real summary files (MindSpore's framing + Event protobufs) for store/plugin/API tests."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.proto import anf_ir_pb2, summary_pb2


def version_event(wall_time: float = 0.0) -> bytes:
    return summary_pb2.Event(wall_time=wall_time, version="MindSpore.Event:1").SerializeToString()


def scalar_event(step: int, values: dict[str, float], wall_time: float | None = None) -> bytes:
    ev = summary_pb2.Event(wall_time=wall_time if wall_time is not None else 1_700_000_000.0 + step, step=step)
    for tag, v in values.items():
        ev.summary.value.add(tag=tag, scalar_value=v)
    return ev.SerializeToString()


def image_event(step: int, tag: str, png: bytes, width: int = 2, height: int = 1) -> bytes:
    ev = summary_pb2.Event(wall_time=1_700_000_000.0 + step, step=step)
    v = ev.summary.value.add(tag=tag)
    v.image.height, v.image.width, v.image.colorspace, v.image.encoded_image = height, width, 3, png
    return ev.SerializeToString()


def histogram_event(step: int, tag: str, data: np.ndarray, bins: int = 10) -> bytes:
    ev = summary_pb2.Event(wall_time=1_700_000_000.0 + step, step=step)
    v = ev.summary.value.add(tag=tag)
    counts, edges = np.histogram(data, bins=bins)
    for c, a, b in zip(counts, edges, edges[1:], strict=False):
        v.histogram.buckets.add(left=float(a), width=float(b - a), count=int(c))
    v.histogram.min, v.histogram.max, v.histogram.sum = float(data.min()), float(data.max()), float(data.sum())
    v.histogram.count = int(data.size)
    return ev.SerializeToString()


def tensor_event(step: int, tag: str, array: np.ndarray) -> bytes:
    ev = summary_pb2.Event(wall_time=1_700_000_000.0 + step, step=step)
    v = ev.summary.value.add(tag=tag)
    v.tensor.dims.extend(array.shape)
    v.tensor.data_type = anf_ir_pb2.DT_FLOAT32
    v.tensor.float_data.extend(array.astype(np.float32).ravel().tolist())
    return ev.SerializeToString()


def write_records(path: Path, payloads: Iterable[bytes], mode: str = "wb") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open(mode) as f:
        for p in payloads:
            f.write(frame_record(p))
    return path


def summary_name(ts: int | None = None, suffix: str = "_MS") -> str:
    return f"events.out.events.summary.{ts or int(time.time())}.0.host{suffix}"


def scalar_run(run_dir: Path, steps: Sequence[int], tags: Sequence[str], ts: int = 1_700_000_000) -> Path:
    """One summary file with `tags` scalars at each of `steps` (value = step * 0.5 + tag index)."""
    payloads = [version_event()]
    for s in steps:
        payloads.append(scalar_event(s, {t: s * 0.5 + i for i, t in enumerate(tags)}))
    return write_records(run_dir / summary_name(ts), payloads)
