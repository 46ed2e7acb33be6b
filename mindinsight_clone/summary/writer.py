"""SummaryWriter: write MindSpore-format summary and lineage files without MindSpore.

Files (in `logdir`, named after the second the writer was created, as MindSpore does):

* `events.out.events.summary.<ts>.<device id>.<host>_MS` — a version event, then graphs and one
  Event per step holding every value recorded for that step;
* `events.out.events.summary.<ts>.<device id>.<host>_lineage` — created on the first lineage write.

Values of one step are buffered and written as one Event when a value for another step arrives,
or on `flush()`/`close()`. Records are framed by `ingest.record_reader.frame_record`.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.proto import anf_ir_pb2, lineage_pb2, summary_pb2
from mindinsight_clone.summary import encode, lineage

VERSION = "MindSpore.Event:1"


class SummaryWriter:
    """Write scalars, images, histograms, tensors, graphs, landscapes and lineage for one run."""

    def __init__(self, logdir: str | Path, *, timestamp: int | None = None, device_id: int = 0,
                 host: str | None = None, file_prefix: str = "events") -> None:
        self.logdir = Path(logdir)
        self.logdir.mkdir(parents=True, exist_ok=True)
        stamp = int(time.time()) if timestamp is None else int(timestamp)
        hostname = (host or socket.gethostname()).replace("/", "_")
        base = f"{file_prefix}.out.events.summary.{stamp}.{device_id}.{hostname}"
        self.summary_path = self.logdir / f"{base}_MS"
        self.lineage_path = self.logdir / f"{base}_lineage"
        if self.summary_path.exists():
            raise FileExistsError(f"{self.summary_path} exists; pass another timestamp")
        self._summary: BinaryIO | None = self.summary_path.open("wb")
        self._lineage: BinaryIO | None = None
        self._step: int | None = None
        self._pending: list[summary_pb2.Summary.Value] = []
        self._closed = False
        self._write_event(summary_pb2.Event(wall_time=time.time(), version=VERSION))

    # ------------------------------------------------------------------ summary values
    def add_scalar(self, tag: str, value: Any, step: int) -> None:
        self._add(step, summary_pb2.Summary.Value(tag=tag, scalar_value=encode.scalar_value(value)))

    def add_image(self, tag: str, image: Any, step: int, dataformats: str = "NCHW") -> None:
        """`image`: NCHW (default), NHWC, CHW, HWC or HW array with 1 or 3 channels."""
        self._add(step, summary_pb2.Summary.Value(tag=tag, image=encode.image_proto(image, dataformats)))

    def add_histogram(self, tag: str, values: Any, step: int) -> None:
        self._add(step, summary_pb2.Summary.Value(tag=tag, histogram=encode.histogram_proto(values)))

    def add_tensor(self, tag: str, tensor: Any, step: int) -> None:
        self._add(step, summary_pb2.Summary.Value(tag=tag, tensor=encode.tensor_proto(tensor)))

    def add_landscape(self, tag: str, landscape: summary_pb2.LossLandscape | Mapping[str, Any],
                      step: int = 0) -> None:
        """A loss landscape: a LossLandscape message, or a dict with `x`, `y`, `z` grids and optional
        `path` (`x`, `y`, `z`, `intervals`), `convergence_point` (`x`, `y`, `z`), `decomposition`,
        `unit`, `step_per_epoch`."""
        msg = landscape if isinstance(landscape, summary_pb2.LossLandscape) else _landscape_proto(landscape)
        self._add(step, summary_pb2.Summary.Value(tag=tag, loss_landscape=msg))

    def add_graph(self, graph: anf_ir_pb2.GraphProto) -> None:
        """A computational graph, written at once as its own event (MindSpore writes no step)."""
        self._write_event(summary_pb2.Event(wall_time=time.time(), graph_def=graph))

    # ------------------------------------------------------------------ lineage
    def add_train_lineage(self, **fields: Any) -> None:
        """See `summary.lineage.train_lineage` for the fields."""
        self._write_lineage(train_lineage=lineage.train_lineage(**fields))

    def add_eval_lineage(self, metrics: Mapping[str, float] | None = None, **fields: Any) -> None:
        self._write_lineage(evaluation_lineage=lineage.evaluation_lineage(metrics, **fields))

    def add_dataset_graph(self, graph: Mapping[str, Any]) -> None:
        self._write_lineage(dataset_graph=lineage.dataset_graph(graph))

    def add_user_defined_info(self, info: Mapping[str, Any]) -> None:
        self._write_lineage(user_defined_info=lineage.user_defined_info(info))

    # ------------------------------------------------------------------ life cycle
    def flush(self) -> None:
        """Write the buffered step and push everything to the OS."""
        self._write_pending()
        for f in (self._summary, self._lineage):
            if f is not None:
                f.flush()

    def close(self) -> None:
        if self._closed:
            return
        self.flush()
        for f in (self._summary, self._lineage):
            if f is not None:
                f.close()
        self._summary = self._lineage = None
        self._closed = True

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # ------------------------------------------------------------------ internals
    def _add(self, step: int, value: summary_pb2.Summary.Value) -> None:
        self._check_open()
        step = int(step)
        if self._step is not None and step != self._step:
            self._write_pending()
        self._step = step
        self._pending.append(value)

    def _write_pending(self) -> None:
        if not self._pending:
            return
        event = summary_pb2.Event(wall_time=time.time(), step=self._step)
        event.summary.value.extend(self._pending)
        self._pending = []
        self._write_event(event)

    def _write_event(self, event: summary_pb2.Event) -> None:
        self._check_open()
        assert self._summary is not None
        self._summary.write(frame_record(event.SerializeToString()))

    def _write_lineage(self, **what: Any) -> None:
        self._check_open()
        if self._lineage is None:
            self._lineage = self.lineage_path.open("ab")
        event = lineage_pb2.LineageEvent(wall_time=time.time(), **what)
        self._lineage.write(frame_record(event.SerializeToString()))

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError("the SummaryWriter is closed")


def _landscape_proto(data: Mapping[str, Any]) -> summary_pb2.LossLandscape:
    msg = summary_pb2.LossLandscape()

    def fill(points: summary_pb2.LossLandscape.Points, source: Mapping[str, Any]) -> None:
        for axis in ("x", "y", "z"):
            if axis in source:
                getattr(points, axis).CopyFrom(encode.tensor_proto(source[axis]))

    fill(msg.landscape, data)
    path = data.get("path")
    if path:
        fill(msg.loss_path.points, path)
        msg.loss_path.intervals.extend(int(i) for i in path.get("intervals", ()))
    if data.get("convergence_point"):
        fill(msg.convergence_point, data["convergence_point"])
    for key in ("decomposition", "unit", "step_per_epoch"):
        if data.get(key) is not None:
            setattr(msg.metadata, key, data[key])
    return msg
