"""TfeventsWriter: write TensorBoard event files the way tensorboardX and torch.utils.tensorboard do, without either.

For the demo data and tests (`pip install .` is enough: our own TensorBoard protos, `ingest.record_reader`'s
framing, numpy, Pillow and the stdlib `wave`). One file per writer, `events.out.tfevents.<seconds>.<host>`,
starting with the `brain.Event:2` version record; one event per value, each tag's plugin metadata on its
first value only, as those writers do. What each `add_*` writes:

* `add_scalar`: `simple_value`; `add_scalars(main, {key: v})`: a child writer per key in `<logdir>/<main>/<key>/`
  holding the tag `main` (tensorboardX's layout);
* `add_text`: tag `<tag>/text_summary`, plugin `text`, a DT_STRING tensor [1];
* `add_pr_curve`: plugin `pr_curves`, DT_FLOAT [6, n] (tp, fp, tn, fn, precision, recall; tensorboardX's
  `compute_curve`); `add_pr_curve_counts` writes given rows as they are;
* `add_audio`: `Summary.Audio` with a 16-bit PCM WAV (stdlib `wave`); `add_audio_bytes` writes bytes as given;
* `add_mesh`: plugin `mesh`, one [1, N, 3] tensor per component, tags `<name>_VERTEX|_FACE|_COLOR`;
* `add_custom_scalars`: plugin `custom_scalars`, the `Layout` at step 0;
* `add_hparams`: a child writer per session (`<logdir>/<name or str(time)>/`) with the metadata-only
  `_hparams_/experiment`, `session_start_info`, `session_end_info` and each metric as a scalar;
* `add_embedding`: `<logdir>/<step:05d>/<tag>/tensors.tsv`, `metadata.tsv`, `sprite.png` and an entry appended
  to `<logdir>/projector_config.pbtxt` (no event).
"""

from __future__ import annotations

import io
import json
import math
import socket
import time
import wave
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np
from google.protobuf import text_format

from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.proto import (
    tb_event_pb2,
    tb_hparams_pb2,
    tb_plugins_pb2,
    tb_projector_pb2,
    tb_summary_pb2,
    tb_tensor_pb2,
    tb_types_pb2,
)

FILE_VERSION = "brain.Event:2"
Layout = Mapping[str, Mapping[str, tuple[str, Sequence[str]]]]  # category -> chart -> ("Multiline"|"Margin", tags)


class TfeventsWriter:
    """Write one TensorBoard run (`logdir`). Values are written at once (one event each); `close()` ends it."""

    def __init__(self, logdir: str | Path, *, timestamp: float | None = None, host: str | None = None) -> None:
        self.logdir = Path(logdir)
        self.logdir.mkdir(parents=True, exist_ok=True)
        self._clock = time.time() if timestamp is None else float(timestamp)
        self._host = (host or socket.gethostname()).replace("/", "_")
        self.path = self.logdir / f"events.out.tfevents.{int(self._clock):010d}.{self._host}"
        if self.path.exists():
            raise FileExistsError(f"{self.path} exists; pass another timestamp")
        self._file: BinaryIO | None = self.path.open("wb")
        self._described: set[str] = set()
        self._children: dict[str, TfeventsWriter] = {}
        self._write(tb_event_pb2.Event(wall_time=self._clock, file_version=FILE_VERSION))

    # ------------------------------------------------------------------ plain kinds
    def add_scalar(self, tag: str, value: float, step: int, wall_time: float | None = None) -> None:
        self._value(step, wall_time, tb_summary_pb2.Summary.Value(tag=tag, simple_value=float(value)))

    def add_scalars(self, main_tag: str, values: Mapping[str, float], step: int,
                    wall_time: float | None = None) -> None:
        """tensorboardX's `add_scalars`: each key into its own run `<logdir>/<main_tag>/<key>/` (tag `main_tag`)."""
        for key, value in values.items():
            child = self._child(f"{main_tag}/{key}")
            child.add_scalar(main_tag, value, step, wall_time)

    def add_text(self, tag: str, text: str, step: int, wall_time: float | None = None) -> None:
        value = tb_summary_pb2.Summary.Value(tag=tag + "/text_summary")
        value.tensor.CopyFrom(_string_tensor([text.encode("utf-8")], [1]))
        self._value(step, wall_time, self._describe(value, "text"))

    def add_audio(self, tag: str, samples: Any, step: int, sample_rate: int, wall_time: float | None = None) -> None:
        """`samples`: floats in [-1, 1], shape [frames] or [frames, channels]; written as a 16-bit PCM WAV."""
        array = np.asarray(samples, dtype=np.float64)
        frames = array.reshape(array.shape[0], -1)
        buf = io.BytesIO()
        with wave.open(buf, "wb") as clip:
            clip.setnchannels(frames.shape[1])
            clip.setsampwidth(2)
            clip.setframerate(int(sample_rate))
            clip.writeframes((np.clip(frames, -1, 1) * 32767).astype("<i2").tobytes())
        self.add_audio_bytes(tag, buf.getvalue(), step, sample_rate, frames.shape[1], frames.shape[0], wall_time)

    def add_audio_bytes(self, tag: str, encoded: bytes, step: int, sample_rate: float, channels: int = 1,
                        frames: int = 0, wall_time: float | None = None, content_type: str = "audio/wav") -> None:
        value = tb_summary_pb2.Summary.Value(tag=tag)
        value.audio.CopyFrom(tb_summary_pb2.Summary.Audio(
            sample_rate=sample_rate, num_channels=channels, length_frames=frames, encoded_audio_string=encoded,
            content_type=content_type))
        self._value(step, wall_time, value)

    # ------------------------------------------------------------------ PR curves, meshes, layouts
    def add_pr_curve(self, tag: str, labels: Any, predictions: Any, step: int, num_thresholds: int = 127,
                     wall_time: float | None = None) -> None:
        self.add_pr_curve_counts(tag, pr_counts(labels, predictions, num_thresholds), step, wall_time)

    def add_pr_curve_counts(self, tag: str, counts: Any, step: int, wall_time: float | None = None) -> None:
        array = np.asarray(counts, dtype=np.float32)
        value = tb_summary_pb2.Summary.Value(tag=tag)
        value.tensor.CopyFrom(_float_tensor(array))
        data = tb_plugins_pb2.PrCurvePluginData(version=0, num_thresholds=array.shape[-1] if array.ndim else 0)
        self._value(step, wall_time, self._describe(value, "pr_curves", data.SerializeToString()))

    def add_mesh(self, name: str, vertices: Any, step: int, faces: Any = None, colors: Any = None,
                 config: Mapping[str, Any] | None = None, wall_time: float | None = None) -> None:
        parts = [("VERTEX", 1, vertices), ("FACE", 2, faces), ("COLOR", 3, colors)]
        for suffix, kind, data in parts:
            if data is None:
                continue
            array = np.asarray(data, dtype=np.float32).reshape(1, -1, 3)
            value = tb_summary_pb2.Summary.Value(tag=f"{name}_{suffix}")
            value.tensor.CopyFrom(_float_tensor(array))
            plugin = tb_plugins_pb2.MeshPluginData(version=0, name=name, content_type=kind,  # type: ignore[arg-type]
                                                   json_config=json.dumps(dict(config or {})),
                                                   shape=list(array.shape))
            self._value(step, wall_time, self._describe(value, "mesh", plugin.SerializeToString()))

    def add_custom_scalars(self, layout: Layout) -> None:
        """tensorboardX's layout dict: {category: {chart title: ("Multiline", [tag regexes]) or ("Margin",
        [value, lower, upper])}}."""
        proto = tb_plugins_pb2.Layout()
        for title, charts in layout.items():
            category = proto.category.add(title=title)
            for chart_title, (kind, tags) in charts.items():
                chart = category.chart.add(title=chart_title)
                if kind == "Margin":
                    chart.margin.series.add(value=tags[0], lower=tags[1], upper=tags[2])
                else:
                    chart.multiline.tag.extend(tags)
        value = tb_summary_pb2.Summary.Value(tag="custom_scalars__config__")
        value.tensor.CopyFrom(_string_tensor([proto.SerializeToString()], []))
        self._value(0, None, self._describe(value, "custom_scalars"))

    # ------------------------------------------------------------------ hparams, embeddings
    def add_hparams(self, hparams: Mapping[str, Any], metrics: Mapping[str, float], name: str | None = None,
                    wall_time: float | None = None) -> str:
        """One session in a child run (named `name`, else `str(wall time)` as tensorboardX does); returns its name."""
        wall = self._clock if wall_time is None else wall_time
        child = self._child(name or str(wall), wall)
        exp = tb_hparams_pb2.Experiment()
        start = tb_hparams_pb2.SessionStartInfo(start_time_secs=wall)
        for key, v in hparams.items():
            info = exp.hparam_infos.add(name=key)
            if isinstance(v, bool):
                info.type, start.hparams[key].bool_value = tb_hparams_pb2.DATA_TYPE_BOOL, v
            elif isinstance(v, int | float):
                info.type, start.hparams[key].number_value = tb_hparams_pb2.DATA_TYPE_FLOAT64, float(v)
            else:
                info.type, start.hparams[key].string_value = tb_hparams_pb2.DATA_TYPE_STRING, str(v)
        for metric in metrics:
            exp.metric_infos.add().name.tag = metric
        end = tb_hparams_pb2.SessionEndInfo(status=tb_hparams_pb2.STATUS_SUCCESS, end_time_secs=wall)
        for tag, data in (("experiment", tb_hparams_pb2.HParamsPluginData(experiment=exp)),
                          ("session_start_info", tb_hparams_pb2.HParamsPluginData(session_start_info=start)),
                          ("session_end_info", tb_hparams_pb2.HParamsPluginData(session_end_info=end))):
            value = tb_summary_pb2.Summary.Value(tag=f"_hparams_/{tag}")
            value.metadata.plugin_data.plugin_name = "hparams"
            value.metadata.plugin_data.content = data.SerializeToString()
            child._value(0, wall, value)
        for metric, number in metrics.items():
            child.add_scalar(metric, number, 0, wall)
        return child.logdir.name

    def add_embedding(self, matrix: Any, tag: str, step: int = 0, metadata: Sequence[Any] | None = None,
                      metadata_header: Sequence[str] | None = None, sprite: Any = None) -> Path:
        """Projector files: `matrix` [points, dims]; `metadata` one label (or row of labels, with
        `metadata_header`) per point; `sprite` uint8 thumbnails [points, h, w, 3]. Returns the embedding folder."""
        array = np.asarray(matrix, dtype=np.float32)
        folder = self.logdir / f"{step:05d}" / tag.replace("/", "%2f")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "tensors.tsv").write_text("".join("\t".join(repr(float(v)) for v in row) + "\n" for row in array))
        info = tb_projector_pb2.EmbeddingInfo(tensor_name=f"{tag}:{step:05d}",
                                              tensor_path=f"{folder.relative_to(self.logdir).as_posix()}/tensors.tsv")
        if metadata is not None:
            rows = ["\t".join(metadata_header)] if metadata_header else []
            rows += ["\t".join(map(str, m)) if metadata_header else str(m) for m in metadata]
            (folder / "metadata.tsv").write_text("\n".join(rows) + "\n")
            info.metadata_path = info.tensor_path.replace("tensors.tsv", "metadata.tsv")
        if sprite is not None:
            thumbs = np.asarray(sprite, dtype=np.uint8)
            size = thumbs.shape[1]
            per_row = math.ceil(math.sqrt(thumbs.shape[0]))
            grid = np.zeros((per_row * size, per_row * size, 3), dtype=np.uint8)
            for i, thumb in enumerate(thumbs):
                r, c = divmod(i, per_row)
                grid[r * size:(r + 1) * size, c * size:(c + 1) * size] = thumb
            from PIL import Image

            Image.fromarray(grid).save(folder / "sprite.png")
            info.sprite.image_path = info.tensor_path.replace("tensors.tsv", "sprite.png")
            info.sprite.single_image_dim.extend([size, size])
        config = tb_projector_pb2.ProjectorConfig()
        config.embeddings.append(info)
        with (self.logdir / "projector_config.pbtxt").open("a") as handle:
            handle.write(text_format.MessageToString(config))
        return folder

    # ------------------------------------------------------------------ plumbing
    def _describe(self, value: tb_summary_pb2.Summary.Value, plugin: str, content: bytes = b"") -> Any:
        if value.tag not in self._described:  # writers describe a tag with its first value only
            self._described.add(value.tag)
            value.metadata.plugin_data.plugin_name = plugin
            value.metadata.plugin_data.content = content
        return value

    def _value(self, step: int, wall_time: float | None, value: tb_summary_pb2.Summary.Value) -> None:
        event = tb_event_pb2.Event(wall_time=self._clock if wall_time is None else wall_time, step=step)
        event.summary.value.append(value)
        self._write(event)

    def _write(self, event: tb_event_pb2.Event) -> None:
        if self._file is None:
            raise ValueError("writer is closed")
        self._file.write(frame_record(event.SerializeToString()))

    def _child(self, relative: str, wall: float | None = None) -> TfeventsWriter:
        if relative not in self._children:
            self._children[relative] = TfeventsWriter(self.logdir / relative, timestamp=wall or self._clock,
                                                      host=self._host)
        return self._children[relative]

    def flush(self) -> None:
        for child in self._children.values():
            child.flush()
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        for child in self._children.values():
            child.close()
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> TfeventsWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def pr_counts(labels: Any, predictions: Any, num_thresholds: int) -> np.ndarray:
    """tensorboardX's `compute_curve`: [6, n] tp, fp, tn, fn, precision, recall at thresholds i / (n - 1)."""
    truth = np.asarray(labels, dtype=np.float64).ravel()
    buckets = np.floor(np.asarray(predictions, dtype=np.float64).ravel() * (num_thresholds - 1)).astype(np.int64)
    span = (0, num_thresholds - 1)
    tp_b, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=truth)
    fp_b, _ = np.histogram(buckets, bins=num_thresholds, range=span, weights=1.0 - truth)
    tp, fp = np.cumsum(tp_b[::-1])[::-1], np.cumsum(fp_b[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    return np.stack((tp, fp, tn, fn, tp / np.maximum(1e-7, tp + fp), tp / np.maximum(1e-7, tp + fn)))


def _float_tensor(array: np.ndarray) -> tb_tensor_pb2.TensorProto:
    proto = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_FLOAT, tensor_content=array.astype("<f4").tobytes())
    for size in array.shape:
        proto.tensor_shape.dim.add(size=size)
    return proto


def _string_tensor(strings: list[bytes], shape: list[int]) -> tb_tensor_pb2.TensorProto:
    proto = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_STRING, string_val=strings)
    for size in shape:
        proto.tensor_shape.dim.add(size=size)
    return proto
