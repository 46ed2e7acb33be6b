"""Write real TensorBoard event files for the tests: with tensorboardX (as PyTorch users do) and TF2-style
(tensors with plugin metadata on each tag's first value, as `tf.summary` writes) with our compiled protos.

Every writer returns what it wrote, so tests compare against it rather than against constants.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.proto import tb_event_pb2, tb_summary_pb2, tb_types_pb2

WALL0 = 1_700_000_000.0


@dataclass
class Written:
    """What a writer put into one run: scalar disk tag -> [(step, value as float32)], and more."""

    files: list[Path] = field(default_factory=list)
    scalars: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    images: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)  # MindInsight tag -> encoded
    histograms: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # disk tag -> (step, count)
    text_tags: list[str] = field(default_factory=list)


def png(width: int, height: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    PILImage.fromarray(rng.integers(0, 255, (height, width, 3), dtype=np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


# ---------------------------------------------------------------------- tensorboardX
def tensorboardx_run(run_dir: Path, steps: Sequence[int], scalar_tags: Sequence[str] = ("loss", "acc"),
                     image_every: int = 5, hist_every: int = 2, text: bool = True) -> Written:
    """A run written by tensorboardX's SummaryWriter (simple_value scalars, PNG images, HistogramProto)."""
    tbx = pytest.importorskip("tensorboardX", reason="tensorboardX (dev extra) writes the tfevents fixtures")
    out = Written()
    rng = np.random.default_rng(7)
    with tbx.SummaryWriter(logdir=str(run_dir), flush_secs=1) as writer:
        for step in steps:
            for i, tag in enumerate(scalar_tags):
                value = float(np.float32(1.0 / (step + 1) + i + rng.random()))
                writer.add_scalar(tag, value, step, walltime=WALL0 + step)
                out.scalars.setdefault(tag, []).append((step, value))
            if step % image_every == 0:
                img = rng.random((3, 4, 6))  # CHW, 6x4 RGB
                writer.add_image("input", img, step, walltime=WALL0 + step)
                out.images.setdefault("input/image", []).append((step, b""))
            if step % hist_every == 0:
                data = rng.standard_normal(200) + step * 0.01
                writer.add_histogram("weights", data, step, walltime=WALL0 + step)
                out.histograms.setdefault("weights", []).append((step, data.size))
        if text:
            writer.add_text("notes", "hello **tensorboard**", steps[-1])
            out.text_tags.append("notes")
    out.files = sorted(run_dir.glob("events.out.tfevents.*"))
    return out


# ---------------------------------------------------------------------- TF2 style, our protos
def _described(value: tb_summary_pb2.Summary.Value, plugin: str, first: bool) -> None:
    if first:  # writers describe a tag once per file
        value.metadata.plugin_data.plugin_name = plugin
        if plugin == "scalars":
            value.metadata.data_class = tb_summary_pb2.DATA_CLASS_SCALAR


def tf2_scalar(event: tb_event_pb2.Event, tag: str, value: float, first: bool) -> None:
    v = event.summary.value.add(tag=tag)
    _described(v, "scalars", first)
    v.tensor.dtype = tb_types_pb2.DT_FLOAT
    v.tensor.tensor_content = np.float32(value).tobytes()


def tf2_images(event: tb_event_pb2.Event, tag: str, images: Sequence[bytes], width: int, height: int,
               first: bool) -> None:
    v = event.summary.value.add(tag=tag)
    _described(v, "images", first)
    v.tensor.dtype = tb_types_pb2.DT_STRING
    v.tensor.tensor_shape.dim.add(size=2 + len(images))
    v.tensor.string_val.extend([str(width).encode(), str(height).encode(), *images])


def tf2_histogram(event: tb_event_pb2.Event, tag: str, data: np.ndarray, bins: int, first: bool) -> None:
    counts, edges = np.histogram(data, bins=bins)
    table = np.stack([edges[:-1], edges[1:], counts.astype(np.float64)], axis=1)
    v = event.summary.value.add(tag=tag)
    _described(v, "histograms", first)
    v.tensor.dtype = tb_types_pb2.DT_DOUBLE
    v.tensor.tensor_shape.dim.add(size=bins)
    v.tensor.tensor_shape.dim.add(size=3)
    v.tensor.tensor_content = table.astype("<f8").tobytes()


def tf2_text(event: tb_event_pb2.Event, tag: str, text: str, first: bool) -> None:
    v = event.summary.value.add(tag=tag)
    _described(v, "text", first)
    v.tensor.dtype = tb_types_pb2.DT_STRING
    v.tensor.string_val.append(text.encode())


def tf2_run(run_dir: Path, steps: Sequence[int], timestamp: int = 1_700_000_100) -> Written:
    """A TF2-style file: every value a tensor, plugin metadata only on each tag's first value."""
    out = Written()
    rng = np.random.default_rng(11)
    version = tb_event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2")
    payloads = [version.SerializeToString()]
    for n, step in enumerate(steps):
        first = n == 0
        ev = tb_event_pb2.Event(wall_time=WALL0 + step, step=step)
        value = float(np.float32(np.sin(step) * 3))
        tf2_scalar(ev, "epoch_loss", value, first)
        out.scalars.setdefault("epoch_loss", []).append((step, value))
        payloads.append(ev.SerializeToString())
        ev = tb_event_pb2.Event(wall_time=WALL0 + step, step=step)
        data = rng.standard_normal(100)
        tf2_histogram(ev, "dense/kernel", data, 30, first)
        out.histograms.setdefault("dense/kernel", []).append((step, data.size))
        batch = [png(5, 3, step), png(5, 3, step + 1000)]
        tf2_images(ev, "samples", batch, 5, 3, first)
        out.images.setdefault("samples/image", []).append((step, batch[0]))
        out.images.setdefault("samples/1/image", []).append((step, batch[1]))
        tf2_text(ev, "config", f"step {step}", first)
        payloads.append(ev.SerializeToString())
    out.text_tags.append("config")
    path = run_dir / f"events.out.tfevents.{timestamp}.testhost.123.0.v2"
    write_payloads(path, payloads)
    out.files.append(path)
    return out


def write_payloads(path: Path, payloads: Sequence[bytes], mode: str = "wb") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open(mode) as f:
        for payload in payloads:
            f.write(frame_record(payload))
    return path
