"""TensorBoard kinds beyond scalars, images and histograms -> typed values (`values.Text`, `PrCurve`, `Audio`,
`Mesh`, `ScalarsLayout`, `HParams`). `tfevents_parser` calls these; each raises ValueError with a message that
says what is wrong (the record is then skipped and listed as a `bad_payload` problem; the run is still served).

| plugin (`plugin_data.plugin_name`) | value on disk                                        | typed value     |
|------------------------------------|------------------------------------------------------|-----------------|
| `text`                             | DT_STRING tensor (tensorboardX/torch [1], TF2 [])     | `Text`          |
| `pr_curves`                        | DT_FLOAT [6, n]: tp, fp, tn, fn, precision, recall   | `PrCurve`       |
| (none) `Summary.Audio`             | WAV bytes + sample rate, channels, frames            | `Audio`         |
| `audio` (TF2)                      | DT_STRING [k, 2]: (encoded WAV, label); the first    | `Audio`         |
| `mesh`                             | DT_FLOAT [1, N, 3] + `MeshPluginData`                | `Mesh`          |
| `custom_scalars`                   | DT_STRING []: a serialized `Layout`                  | `ScalarsLayout` |
| `hparams`                          | metadata only: `HParamsPluginData`                   | `HParams`       |
"""

from __future__ import annotations

import io
import itertools
import math
import re
import wave
from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import DecodeError

from mindinsight_clone.ingest.tfevents_convert import real_dtype, tensor_array, tensor_shape
from mindinsight_clone.ingest.values import Audio, HParams, Mesh, PrCurve, ScalarsLayout, Text
from mindinsight_clone.proto import tb_hparams_pb2, tb_plugins_pb2, tb_summary_pb2, tb_tensor_pb2, tb_types_pb2

PR_ROWS = ("tp", "fp", "tn", "fn", "precision", "recall")
MAX_PR_THRESHOLDS = 100_000  # columns of a [6, n] PR tensor (writers default to 127 or 200)
MAX_MESH_POINTS = 1_000_000  # vertices, faces or colors of one mesh component (each sent as JSON)
MESH_COMPONENTS = {1: "vertices", 2: "faces", 3: "colors"}  # MeshPluginData.ContentType -> component
_WAV_TYPES = ("", "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave")
_AUDIO_TYPE = re.compile(r"audio/[\w.+-]{1,64}")  # what else a clip may say it is; anything else is served as bytes


# ---------------------------------------------------------------------- text
def text_from_tensor(proto: tb_tensor_pb2.TensorProto, max_chars: int) -> Text:
    """A text summary's string, cut to `max_chars` characters. A tensor of one string (tensorboardX and torch:
    [1]; TF2: []) is that string; several strings are paragraphs, a matrix of strings a markdown table.

    Only the first `max_chars` characters are built and the length as written is counted, so a string that
    fills a large shape costs what is kept, not the shape."""
    if proto.dtype != tb_types_pb2.DT_STRING:
        raise ValueError(f"a text summary must be a DT_STRING tensor, not {_dtype_name(proto.dtype)}")
    dims = tensor_shape(proto, what="a text tensor")
    cells = _string_cells(proto, math.prod(dims), "a text tensor")
    if len(dims) == 2 and len(cells) > 1:
        pieces, length = _table(cells, dims[1]), _table_length(cells, dims[0], dims[1])
    else:  # one string, or several: one paragraph each
        pieces, length = _paragraphs(cells), _paragraphs_length(cells)
    return Text(text=_first_chars(pieces, max_chars), length=length)


class _Fill(Sequence[bytes]):
    """`size` times the same string: a version-0 tensor whose one value fills its shape, never expanded."""

    def __init__(self, value: bytes, size: int) -> None:
        self.value, self.size = value, size

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> bytes: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[bytes]: ...
    def __getitem__(self, index: int | slice) -> bytes | Sequence[bytes]:
        if isinstance(index, slice):
            return _Fill(self.value, len(range(*index.indices(self.size))))
        if not -self.size <= index < self.size:
            raise IndexError(index)
        return self.value


def _string_cells(proto: tb_tensor_pb2.TensorProto, size: int, what: str) -> Sequence[bytes]:
    """The strings of a DT_STRING tensor of `size` elements, a fill without expanding it."""
    strings = proto.string_val
    if len(strings) == size:
        return strings
    if len(strings) == 1:
        return _Fill(strings[0], size)
    raise ValueError(f"{what} holds {len(strings)} strings, which do not fill its {size} elements")


def _decoded(cells: Sequence[bytes], escape: bool) -> Iterator[str]:
    for cell in cells:
        text = cell.decode("utf-8", "replace")
        yield text.replace("|", "\\|") if escape else text


def _paragraphs(cells: Sequence[bytes]) -> Iterator[str]:
    for i, text in enumerate(_decoded(cells, False)):
        yield ("\n\n" if i else "") + text


def _paragraphs_length(cells: Sequence[bytes]) -> int:
    if isinstance(cells, _Fill):
        chars = len(cells) * len(cells.value.decode("utf-8", "replace"))
    else:
        chars = sum(len(text) for text in _decoded(cells, False))
    return chars + 2 * max(len(cells) - 1, 0)  # the texts and the blank lines between them


def _table(cells: Sequence[bytes], columns: int) -> Iterator[str]:
    """The markdown table, piece by piece: header row, separator, the other rows."""
    for i, text in enumerate(_decoded(cells, True)):
        row, column = divmod(i, columns)
        if column == 0:
            yield ("\n| " if row else "| ")
        yield text
        yield " | " if column < columns - 1 else " |"
        if row == 0 and column == columns - 1:
            yield "\n|"
            yield from itertools.repeat("---|", columns)


def _table_length(cells: Sequence[bytes], rows: int, columns: int) -> int:
    """len() of the whole table `_table` gives, without building it."""
    if isinstance(cells, _Fill):
        chars = len(cells) * len(cells.value.decode("utf-8", "replace").replace("|", "\\|"))
    else:
        chars = sum(len(text) for text in _decoded(cells, True))
    return chars + rows * (4 + 3 * (columns - 1)) + (1 + 4 * columns) + rows  # cells, row frames, separator, newlines


def _first_chars(pieces: Iterator[str], max_chars: int) -> str:
    """The first `max_chars` characters of the concatenated pieces, consuming no more pieces than that needs."""
    out: list[str] = []
    total = 0
    for piece in pieces:
        out.append(piece)
        total += len(piece)
        if total >= max_chars:
            break
    return "".join(out)[:max_chars]


# ---------------------------------------------------------------------- PR curves
def pr_curve_from_tensor(proto: tb_tensor_pb2.TensorProto, content: bytes) -> PrCurve:
    """A `pr_curves` tensor [6, n] (n = num_thresholds of the plugin data when it says)."""
    what = "a pr_curve tensor"
    real_dtype(proto, what)
    dims = tensor_shape(proto, len(PR_ROWS) * MAX_PR_THRESHOLDS, what)
    if len(dims) != 2 or dims[0] != len(PR_ROWS):
        raise ValueError(f"{what} must be [6, num_thresholds] real numbers (tp, fp, tn, fn, precision, recall), "
                         f"got shape {list(dims)}")
    array = tensor_array(proto, len(PR_ROWS) * MAX_PR_THRESHOLDS, what)
    if array.ndim != 2 or array.shape[0] != len(PR_ROWS) or array.dtype.kind not in "fiu":
        raise ValueError(f"a pr_curve tensor must be [6, num_thresholds] real numbers (tp, fp, tn, fn, precision, "
                         f"recall), got {array.dtype} shape {list(array.shape)}")
    declared = _num_thresholds(content)
    if declared and declared != array.shape[1]:
        raise ValueError(f"a pr_curve tensor has {array.shape[1]} thresholds but its metadata says {declared}")
    if array.shape[1] < 1:
        raise ValueError("a pr_curve tensor has no thresholds")
    return PrCurve(counts=array.astype(np.float64))


def _num_thresholds(content: bytes) -> int:
    if not content:
        return 0
    data = tb_plugins_pb2.PrCurvePluginData()
    try:
        data.ParseFromString(content)
    except DecodeError:
        return 0  # the tensor's own shape is what counts; the metadata only double-checks it
    return int(data.num_thresholds)


# ---------------------------------------------------------------------- audio
def audio_from_proto(proto: tb_summary_pb2.Summary.Audio) -> Audio:
    """tensorboardX / torch `add_audio`: the encoded clip with its sample rate, channels and frames."""
    content_type = proto.content_type or "audio/wav"
    return _audio(proto.encoded_audio_string, content_type, float(proto.sample_rate), int(proto.num_channels),
                  int(proto.length_frames), "")


def audio_from_tensor(proto: tb_tensor_pb2.TensorProto) -> Audio:
    """TF2 `tf.summary.audio`: strings [k, 2] of (encoded WAV, label); the first clip is taken."""
    if proto.dtype != tb_types_pb2.DT_STRING:
        raise ValueError(f"an audio tensor must hold strings, not {_dtype_name(proto.dtype)}")
    dims = tensor_shape(proto, what="an audio tensor")
    if len(dims) != 2 or dims[1] != 2 or not dims[0]:
        raise ValueError(f"an audio tensor must be [k, 2] (clip, label) with k >= 1, got {list(dims)}")
    cells = _string_cells(proto, math.prod(dims), "an audio tensor")  # only the first clip is read
    return _audio(cells[0], "audio/wav", 0.0, 0, 0, cells[1].decode("utf-8", "replace"))


def _audio(data: bytes, content_type: str, rate: float, channels: int, frames: int, label: str) -> Audio:
    if content_type.lower() in _WAV_TYPES:
        content_type = "audio/wav"
        if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
            raise ValueError(f"audio says it is WAV but its {len(data)} bytes do not start with a RIFF/WAVE header")
        try:  # the header's numbers when the stdlib can read them (PCM); else the summary's own
            with wave.open(io.BytesIO(data), "rb") as clip:
                rate, channels, frames = float(clip.getframerate()), clip.getnchannels(), clip.getnframes()
        except (wave.Error, EOFError, ValueError):
            if not rate:
                raise ValueError("WAV audio without a sample rate the header or the summary gives") from None
    elif not _AUDIO_TYPE.fullmatch(content_type):  # never text/html & co. from a file: served as plain bytes
        content_type = "application/octet-stream"
    return Audio(encoded=bytes(data), content_type=content_type, sample_rate=rate, num_channels=channels,
                 length_frames=frames, label=label)


# ---------------------------------------------------------------------- mesh
def mesh_from_tensor(proto: tb_tensor_pb2.TensorProto, content: bytes, tag: str) -> Mesh:
    """One component (vertices, faces or colors) of a mesh: [1, N, 3] (or [N, 3]) numbers."""
    data = tb_plugins_pb2.MeshPluginData()
    try:
        data.ParseFromString(content)
    except DecodeError:
        raise ValueError("mesh plugin data does not decode") from None
    component = MESH_COMPONENTS.get(data.content_type)
    if component is None:
        raise ValueError(f"mesh component of tag {tag!r} has no content type (vertices, faces or colors)")
    what = f"a mesh {component} tensor"
    real_dtype(proto, what)
    dims = tensor_shape(proto, 3 * MAX_MESH_POINTS, what)
    if dims[-1:] != (3,) or not (len(dims) == 2 or (len(dims) == 3 and dims[0] == 1)):
        raise ValueError(f"{what} must be [1, N, 3] numbers, got shape {list(dims)}")
    array = tensor_array(proto, 3 * MAX_MESH_POINTS, what).reshape(-1, 3)
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{what} must be [1, N, 3] numbers, got {array.dtype}")
    values = array.astype(np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"a mesh {component} tensor holds NaN or infinite numbers")
    return Mesh(name=data.name or tag, component=component, array=values, json_config=data.json_config)


# ---------------------------------------------------------------------- custom scalars
def layout_from_tensor(proto: tb_tensor_pb2.TensorProto) -> ScalarsLayout:
    """`add_custom_scalars`: a DT_STRING tensor whose string is a serialized `Layout`, as JSON-ready dicts."""
    if proto.dtype != tb_types_pb2.DT_STRING or not proto.string_val:
        raise ValueError("a custom scalars layout must be a string tensor")
    layout = tb_plugins_pb2.Layout()
    try:
        layout.ParseFromString(proto.string_val[0])
    except DecodeError:
        raise ValueError("the custom scalars layout does not decode") from None
    categories = []
    for category in layout.category:
        charts: list[dict[str, Any]] = []
        for chart in category.chart:
            item: dict[str, Any] = {"title": chart.title}
            if chart.WhichOneof("content") == "margin":
                item["margin"] = {"series": [{"value": s.value, "lower": s.lower, "upper": s.upper}
                                             for s in chart.margin.series]}
            else:
                item["multiline"] = {"tags": list(chart.multiline.tag)}
            charts.append(item)
        categories.append({"title": category.title, "closed": category.closed, "charts": charts})
    return ScalarsLayout(categories=categories)


# ---------------------------------------------------------------------- hparams
def hparams_from_metadata(content: bytes, tag: str) -> HParams:
    """`_hparams_/experiment`, `_hparams_/session_start_info` or `_hparams_/session_end_info`: metadata only."""
    data = tb_hparams_pb2.HParamsPluginData()
    try:
        data.ParseFromString(content)
    except DecodeError:
        raise ValueError(f"hparams plugin data of tag {tag!r} does not decode") from None
    which = data.WhichOneof("data")
    if which == "session_start_info":
        start = data.session_start_info
        return HParams("session_start", {
            "hparams": {name: _value(v) for name, v in sorted(start.hparams.items())},
            "group_name": start.group_name, "start_time": start.start_time_secs})
    if which == "session_end_info":
        end = data.session_end_info
        return HParams("session_end", {"status": tb_hparams_pb2.Status.Name(end.status)
                                       if end.status in tb_hparams_pb2.Status.values() else str(end.status),
                                       "end_time": end.end_time_secs})
    if which == "experiment":
        exp = data.experiment
        return HParams("experiment", {
            "hparams": [{"name": h.name, "type": _type_name(h.type),
                         **({"domain": MessageToDict(h.domain_discrete)} if h.HasField("domain_discrete") else {}),
                         **({"interval": [h.domain_interval.min_value, h.domain_interval.max_value]}
                            if h.HasField("domain_interval") else {})}
                        for h in exp.hparam_infos],
            "metrics": [m.name.tag if not m.name.group else f"{m.name.group}/{m.name.tag}" for m in exp.metric_infos],
            "time_created": exp.time_created_secs})
    raise ValueError(f"hparams plugin data of tag {tag!r} holds no experiment or session info")


def _value(value: Any) -> Any:
    """A google.protobuf.Value as JSON-ready Python (a whole float stays a float: ints are written as FLOAT64)."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        number = float(value.number_value)
        return number if math.isfinite(number) else str(number)
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return bool(value.bool_value)
    if kind in ("struct_value", "list_value"):
        return MessageToDict(getattr(value, kind))
    return None


def _type_name(number: int) -> str:
    try:
        return tb_hparams_pb2.DataType.Name(number)
    except ValueError:
        return str(number)


def _dtype_name(number: int) -> str:
    try:
        return tb_types_pb2.DataType.Name(number)
    except ValueError:
        return str(number)
