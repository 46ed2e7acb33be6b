"""Record payloads -> typed values (`values.SummaryValue`) or lineage messages.

* A summary payload is a `mindspore.irpb.Event`. Each `Summary.Value` becomes one SummaryValue
  tagged MindInsight's way, `<disk tag>/<plugin>` (scalar, image, histogram, tensor,
  loss_landscape); a `graph_def` becomes plugin "graph" tagged with the summary file's name.
  The version event (and explainer events) yield nothing.
* A lineage payload is a `mindspore.irpb.LineageEvent`; `parse_lineage_event` is the one place that
  decodes it (the lineage analyzer interprets it).
* A payload that does not decode is skipped and reported (`ReadProblem` kind "bad_payload").

Decoding uses the protobuf upb C backend; per-value Python work is kept to attribute reads.
The loader's fast path, `parse_summary_columns`, makes no object per scalar: it gathers each scalar tag's
(step, wall_time, value) into one flat list (`ParsedColumns`), which `RunCache.add_parsed` takes at once.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from mindinsight_clone.ingest.gc_pause import gc_paused
from mindinsight_clone.ingest.record_reader import ReadProblem
from mindinsight_clone.ingest.values import Histogram, Image, SummaryValue, Tensor
from mindinsight_clone.proto import anf_ir_pb2, lineage_pb2, summary_pb2

logger = logging.getLogger(__name__)

Event = summary_pb2.Event
LineageEvent = lineage_pb2.LineageEvent
GraphProto = anf_ir_pb2.GraphProto
LossLandscape = summary_pb2.LossLandscape
TensorProto = anf_ir_pb2.TensorProto

# DataType number -> MindInsight's name ("DT_FLOAT32", ...)
DATA_TYPE_NAMES: dict[int, str] = {v.number: v.name for v in anf_ir_pb2.DataType.DESCRIPTOR.values}

# numpy dtype of each numeric DataType (what a TensorProto's elements mean)
NUMPY_DTYPES: dict[int, np.dtype] = {
    anf_ir_pb2.DT_BOOL: np.dtype(np.bool_),
    anf_ir_pb2.DT_INT8: np.dtype(np.int8),
    anf_ir_pb2.DT_INT16: np.dtype(np.int16),
    anf_ir_pb2.DT_INT32: np.dtype(np.int32),
    anf_ir_pb2.DT_INT64: np.dtype(np.int64),
    anf_ir_pb2.DT_UINT8: np.dtype(np.uint8),
    anf_ir_pb2.DT_UINT16: np.dtype(np.uint16),
    anf_ir_pb2.DT_UINT32: np.dtype(np.uint32),
    anf_ir_pb2.DT_UINT64: np.dtype(np.uint64),
    anf_ir_pb2.DT_FLOAT16: np.dtype(np.float16),
    anf_ir_pb2.DT_FLOAT32: np.dtype(np.float32),
    anf_ir_pb2.DT_FLOAT64: np.dtype(np.float64),
    anf_ir_pb2.DT_COMPLEX64: np.dtype(np.complex64),
    anf_ir_pb2.DT_COMPLEX128: np.dtype(np.complex128),
}

# TensorProto element field -> numpy dtype of its storage
_STORAGE: tuple[tuple[str, np.dtype], ...] = (
    ("float_data", np.dtype(np.float32)),
    ("double_data", np.dtype(np.float64)),
    ("int32_data", np.dtype(np.int32)),
    ("int64_data", np.dtype(np.int64)),
    ("uint64_data", np.dtype(np.uint64)),
)


class PayloadError(ValueError):
    """A record payload is not a valid protobuf message of the expected type."""


@dataclass(slots=True)
class ParsedRecords:
    values: list[SummaryValue] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)


@dataclass(slots=True)
class ParsedColumns:
    """Many summary payloads of one file, scalars as per-tag columns (the loader's fast path).

    * `scalars[tag]` is a flat list `[step, wall_time, value, step, wall_time, value, ...]` in file order.
    * `items` is the file-order sequence that matters for tag limits: every non-scalar SummaryValue, and a
      `(tag, index)` marker where a scalar tag is first seen since the previous non-scalar value (`index` =
      that sample's position in its column). Between two non-scalar values no scalar admission can change,
      so a store that admits scalar tags at their markers matches adding the values one list at a time.
    """

    source_file: str
    items: list[SummaryValue | tuple[str, int]] = field(default_factory=list)
    scalars: dict[str, list] = field(default_factory=dict)
    problems: list[ReadProblem] = field(default_factory=list)
    display_name: str = ""  # VisualDL logs: the writer's `display_name` (a file's meta record), "" if none


@dataclass(slots=True)
class ParsedLineage:
    events: list[lineage_pb2.LineageEvent] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)


# ---------------------------------------------------------------------- tensors and values
def tensor_to_numpy(proto: anf_ir_pb2.TensorProto) -> Tensor:
    """Decode a TensorProto to a `Tensor` (array shaped `dims`, dtype from `data_type` where lossless).

    MindSpore stores every dtype in `float_data`; integer/bool tensors are cast back to their
    declared dtype when that loses nothing. NaN and Inf are kept.
    """
    dims = tuple(int(d) for d in proto.dims)
    if any(d < 0 for d in dims):
        raise ValueError(f"tensor has a negative dimension: {list(dims)}")
    target = NUMPY_DTYPES.get(proto.data_type)
    array: np.ndarray | None = None
    for name, storage in _STORAGE:
        data = getattr(proto, name)
        if len(data):
            array = np.array(data, dtype=storage)
            break
    if array is None:
        raw = proto.raw_data
        if raw and (target is None or len(raw) % target.itemsize):
            raise ValueError("tensor raw_data is not a whole number of elements of its data type")
        if raw and target is not None:
            array = np.frombuffer(raw, dtype=target.newbyteorder("<")).astype(target)
        else:
            array = np.zeros(0, dtype=target or np.float32)
    if target is not None and array.dtype != target:
        array = _cast_if_lossless(array, target)
    if array.size or dims:  # an absent tensor (no dims, no data) stays empty
        if array.size != math.prod(dims):
            raise ValueError(f"tensor data ({array.size} values) does not fill its dims {list(dims)}")
        array = array.reshape(dims)
    return Tensor(dims=dims, data_type=DATA_TYPE_NAMES.get(proto.data_type, "DT_UNDEFINED"), array=array)


def _cast_if_lossless(array: np.ndarray, target: np.dtype) -> np.ndarray:
    if target.kind in "fc" and array.dtype.kind == "f":
        return array.astype(target)  # float32 storage of float16/float64 data: exact or widening
    with np.errstate(invalid="ignore", over="ignore"):
        cast = array.astype(target)
    return cast if np.array_equal(cast.astype(array.dtype), array) else array


def histogram_value(proto: summary_pb2.Summary.Histogram) -> Histogram:
    buckets = proto.buckets
    n = len(buckets)
    left = np.fromiter((b.left for b in buckets), dtype=np.float64, count=n)
    width = np.fromiter((b.width for b in buckets), dtype=np.float64, count=n)
    count = np.fromiter((b.count for b in buckets), dtype=np.float64, count=n)
    if not (np.isfinite(left).all() and np.isfinite(width).all()) or (count < 0).any() or (width < 0).any():
        raise ValueError("histogram buckets must have finite edges and non-negative widths and counts")
    return Histogram(left=left, width=width, count=count, min=proto.min, max=proto.max, sum=proto.sum,
                     nan_count=proto.nan_count, pos_inf_count=proto.pos_inf_count,
                     neg_inf_count=proto.neg_inf_count)


def landscape_arrays(landscape: summary_pb2.LossLandscape) -> dict[str, object]:
    """A loss landscape message as plain numbers (numpy arrays) for the landscape plugin."""

    def points(p: summary_pb2.LossLandscape.Points) -> dict[str, np.ndarray]:
        return {axis: tensor_to_numpy(getattr(p, axis)).array for axis in ("x", "y", "z")}

    meta = landscape.metadata
    return {
        "landscape": points(landscape.landscape),
        "path": {**points(landscape.loss_path.points), "intervals": list(landscape.loss_path.intervals)},
        "convergence_point": points(landscape.convergence_point),
        "metadata": {"decomposition": meta.decomposition, "unit": meta.unit,
                     "step_per_epoch": meta.step_per_epoch},
    }


# ---------------------------------------------------------------------- summary events
def parse_event(payload: bytes) -> summary_pb2.Event:
    """Decode one summary payload; raise PayloadError if it is not an Event."""
    event = Event()
    try:
        event.ParseFromString(payload)
    except DecodeError as exc:
        raise PayloadError(str(exc)) from None
    return event


def event_values(event: summary_pb2.Event, file_name: str) -> list[SummaryValue]:
    """The SummaryValues of one decoded Event (empty for version and explainer events)."""
    out: list[SummaryValue] = []
    _append_values(event, file_name, {}, out)
    return out


def _append_values(event: summary_pb2.Event, file_name: str, scalar_tags: dict[str, str],
                   out: list[SummaryValue]) -> None:
    # The hot loop: scalars take the short path (one HasField, two reads, one object).
    if event.HasField("summary"):
        step = event.step
        wall_time = event.wall_time
        append = out.append
        for value in event.summary.value:
            if value.HasField("scalar_value"):
                disk_tag = value.tag
                tag = scalar_tags.get(disk_tag)
                if tag is None:
                    tag = scalar_tags[disk_tag] = disk_tag + "/scalar"
                append(SummaryValue("scalar", tag, step, wall_time, value.scalar_value, file_name))
                continue
            which = value.WhichOneof("value")
            if which is not None:
                plugin = _PLUGIN_OF[which]
                append(SummaryValue(plugin, f"{value.tag}/{plugin}", step, wall_time,
                                    _CONVERT[which](value), file_name))
    elif event.HasField("graph_def"):
        out.append(SummaryValue("graph", file_name, event.step, event.wall_time, event.graph_def, file_name))


def parse_summary_event(payload: bytes, file_name: str) -> list[SummaryValue]:
    """One summary payload -> its values; raise PayloadError if it does not decode."""
    return event_values(parse_event(payload), file_name)


def parse_summary_records(records: Sequence[bytes], file_name: str,
                          offsets: Sequence[int] | None = None) -> ParsedRecords:
    """Many summary payloads (from one file, in order) -> values; undecodable ones are reported."""
    result = ParsedRecords()
    scalar_tags: dict[str, str] = {}
    values = result.values
    with gc_paused():  # millions of small objects: generational GC passes would double the time
        for index, payload in enumerate(records):
            event = Event()  # fresh each time: graph/landscape values keep references into it
            mark = len(values)
            try:
                event.ParseFromString(payload)
                _append_values(event, file_name, scalar_tags, values)
            except (DecodeError, ValueError, TypeError, KeyError) as exc:  # undecodable or inconsistent
                del values[mark:]  # the whole record goes, not half of it
                _bad_payload(result.problems, file_name, offsets[index] if offsets else -1, exc)
    return result


def parse_summary_columns(records: Sequence[bytes], file_name: str,
                          offsets: Sequence[int] | None = None) -> ParsedColumns:
    """`parse_summary_records` with scalars gathered into per-tag columns (see `ParsedColumns`).

    Same per-record atomicity: a record that does not decode or convert contributes nothing.
    """
    result = ParsedColumns(file_name)
    items = result.items
    cols = result.scalars
    seen: dict[str, list] = {}  # scalar tag -> its column, since the last non-scalar item
    with gc_paused():
        for index, payload in enumerate(records):
            event = Event()
            try:
                event.ParseFromString(payload)
                if event.HasField("summary"):
                    step = event.step
                    wall_time = event.wall_time
                    mark = len(items)
                    for value in event.summary.value:
                        scalar = value.scalar_value
                        # a non-zero scalar_value means the oneof holds a scalar: HasField only for 0.0
                        if not scalar and not value.HasField("scalar_value"):
                            break
                        col = seen.get(value.tag)
                        if col is None:
                            col = scalar_column(value.tag, cols, seen, items)
                        col += (step, wall_time, scalar)
                    else:
                        continue
                    # a non-scalar value: undo this record's scalars, then take it the careful way
                    _undo(event, items, mark, cols, seen)
                    seen = _careful_record(event, step, wall_time, file_name, items, cols, seen)
                elif event.HasField("graph_def"):
                    items.append(SummaryValue("graph", file_name, event.step, event.wall_time,
                                              event.graph_def, file_name))
                    seen = {}
            except (DecodeError, ValueError, TypeError, KeyError) as exc:
                _bad_payload(result.problems, file_name, offsets[index] if offsets else -1, exc)
    return result


_SCALAR_SUFFIX = "/scalar"


def _undo(event: summary_pb2.Event, items: list, mark: int, cols: dict[str, list],
          seen: dict[str, list]) -> None:
    """Take back the leading scalar values of `event` and the markers added since `mark`."""
    for value in event.summary.value:
        if not value.HasField("scalar_value"):
            break
        del cols[value.tag + _SCALAR_SUFFIX][-3:]  # a tag's samples of this record are its last ones
    for tag, _ in items[mark:]:
        seen.pop(tag[: -len(_SCALAR_SUFFIX)], None)
    del items[mark:]


def scalar_column(disk_tag: str, cols: dict[str, list], seen: dict[str, list], items: list) -> list:
    """The column of scalar `disk_tag`, first seen since the last non-scalar item: mark it (shared by the
    MindSpore and TensorBoard column parsers)."""
    tag = disk_tag + _SCALAR_SUFFIX
    col = cols.get(tag)
    if col is None:
        col = cols[tag] = []
    seen[disk_tag] = col
    items.append((tag, len(col) // 3))
    return col


def _careful_record(event: summary_pb2.Event, step: int, wall_time: float, file_name: str, items: list,
                    cols: dict[str, list], seen: dict[str, list]) -> dict[str, list]:
    """A record with non-scalar values: convert them all first (may raise), then emit in order."""
    converted: list[Any] = []
    for value in event.summary.value:
        which = value.WhichOneof("value")
        if which is not None and which != "scalar_value":
            plugin = _PLUGIN_OF[which]
            converted.append(SummaryValue(plugin, f"{value.tag}/{plugin}", step, wall_time,
                                          _CONVERT[which](value), file_name))
    pos = 0
    for value in event.summary.value:
        which = value.WhichOneof("value")
        if which == "scalar_value":
            col = seen.get(value.tag)
            if col is None:
                col = scalar_column(value.tag, cols, seen, items)
            col += (step, wall_time, value.scalar_value)
        elif which is not None:
            items.append(converted[pos])
            pos += 1
            seen = {}
    return seen


def parse_pb_graph(data: bytes, file_name: str, wall_time: float = 0.0) -> SummaryValue:
    """A `*.pb` graph file (a serialized ModelProto) -> its graph, tagged with the file name."""
    model = anf_ir_pb2.ModelProto()
    try:
        model.ParseFromString(data)
    except DecodeError as exc:
        raise PayloadError(str(exc)) from None
    return SummaryValue("graph", file_name, 0, wall_time, model.graph, file_name)


# ---------------------------------------------------------------------- lineage events
def parse_lineage_event(payload: bytes) -> lineage_pb2.LineageEvent:
    """Decode one `*_lineage` record payload; raise PayloadError if it is not a LineageEvent."""
    event = LineageEvent()
    try:
        event.ParseFromString(payload)
    except DecodeError as exc:
        raise PayloadError(str(exc)) from None
    return event


def parse_lineage_records(records: Sequence[bytes], file_name: str,
                          offsets: Sequence[int] | None = None) -> ParsedLineage:
    """Lineage payloads -> LineageEvents (version events dropped); undecodable ones are reported."""
    result = ParsedLineage()
    for index, payload in enumerate(records):
        try:
            event = parse_lineage_event(payload)
        except PayloadError as exc:
            _bad_payload(result.problems, file_name, offsets[index] if offsets else -1, exc)
            continue
        if event.WhichOneof("what") not in (None, "version"):
            result.events.append(event)
    return result



def _bad_payload(problems: list[ReadProblem], file_name: str, offset: int, exc: Exception) -> None:
    message = f"record does not decode ({exc}); skipped"
    problems.append(ReadProblem(file_name, offset, "bad_payload", message))
    logger.warning("%s at byte %d: %s", file_name, offset, message)


def _image(value: summary_pb2.Summary.Value) -> Image:
    img = value.image
    return Image(width=img.width, height=img.height, encoded=img.encoded_image)


_PLUGIN_OF = {
    "scalar_value": "scalar",
    "image": "image",
    "histogram": "histogram",
    "tensor": "tensor",
    "loss_landscape": "loss_landscape",
}

def _tensor(value: summary_pb2.Summary.Value) -> Tensor:
    tensor = tensor_to_numpy(value.tensor)
    if not tensor.dims and not tensor.array.size:
        raise ValueError("tensor value has neither dims nor data")
    return tensor


def _landscape(value: summary_pb2.Summary.Value) -> summary_pb2.LossLandscape:
    landscape_arrays(value.loss_landscape)  # refuse inconsistent grids here, not when they are served
    return value.loss_landscape


_CONVERT = {
    "image": _image,
    "histogram": lambda v: histogram_value(v.histogram),
    "tensor": _tensor,
    "loss_landscape": _landscape,
}
