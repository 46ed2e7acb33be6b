"""TensorBoard event files (`events.out.tfevents.*`) -> the same typed values as MindSpore summaries.

Same TFRecord framing (the shared `RecordReader` reads them); each payload is a TensorBoard `Event`
(`proto/tb_event.proto`). What becomes a value, tagged MindInsight's way for its kinds and as on disk for the
TensorBoard kinds (`ingest.tfevents_kinds` converts those):

| on disk                                                 | plugin          | tag                 |
|---------------------------------------------------------|-----------------|---------------------|
| `simple_value`; a rank-0 tensor of plugin `scalars`       | scalar          | `<tag>/scalar`      |
| `image` (encoded); a tensor of plugin `images`            | image           | `<tag>/image` (*)   |
| `histo` (HistogramProto); a [k, 3] tensor of `histograms` | histogram       | `<tag>/histogram`   |
| a string tensor of plugin `text`                          | text            | `<tag>`             |
| a [6, n] tensor of plugin `pr_curves`                     | pr_curve        | `<tag>`             |
| `audio` (WAV); a [k, 2] string tensor of plugin `audio`   | audio           | `<tag>`             |
| a [1, N, 3] tensor of plugin `mesh`                       | mesh            | `<tag>`             |
| the layout tensor of plugin `custom_scalars`              | custom_scalars  | `<tag>`             |
| metadata only, plugin `hparams`                           | hparams         | `<tag>`             |

(*) image i > 0 of a TF2 batch: `<tag>/<i>/image`.
TensorFlow graphs, run metadata and other plugins' tensors are not shown (one log line per tag/kind and file).

A value's plugin (and its plugin data: a PR curve's thresholds, a mesh component's kind) comes from its
`metadata`, which writers send only with a tag's FIRST value in a file, so `TfeventsState` (one per file, kept
by the caller across reads) remembers it. A tensor whose tag was never described is classified by its dtype
and shape.

Output is `event_parser.ParsedColumns` (scalars as per-tag columns), with the same per-record
atomicity: a record that does not decode or convert contributes nothing and is reported.
"""

from __future__ import annotations

import logging
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError

from mindinsight_clone.ingest import tfevents_convert as convert
from mindinsight_clone.ingest import tfevents_kinds as kinds
from mindinsight_clone.ingest.event_parser import ParsedColumns, scalar_column
from mindinsight_clone.ingest.gc_pause import gc_paused
from mindinsight_clone.ingest.record_reader import ReadProblem
from mindinsight_clone.ingest.values import SummaryValue
from mindinsight_clone.proto import tb_event_pb2, tb_summary_pb2, tb_types_pb2

logger = logging.getLogger(__name__)

Event = tb_event_pb2.Event
TFEVENTS_PATTERN = re.compile(r"^events\.out\.tfevents\.(\d+)")
MAX_REMEMBERED_TAGS = 100_000  # tag -> plugin memory per file; beyond it tags are classified by shape
DEFAULT_TEXT_MAX_CHARS = 100_000  # config.text_max_chars
_CONTENT_PLUGINS = ("pr_curves", "mesh")  # whose plugin data later values of the tag need
_DT_FLOAT = tb_types_pb2.DT_FLOAT
_F32 = struct.Struct("<f")
_ERRORS = (DecodeError, ValueError, TypeError, KeyError, OverflowError)


def is_tfevents_file(name: str) -> bool:
    """Whether `name` is a TensorBoard event file (`events.out.tfevents.<timestamp>...`)."""
    return TFEVENTS_PATTERN.match(name) is not None


def tfevents_timestamp(name: str) -> int | None:
    match = TFEVENTS_PATTERN.match(name)
    return int(match.group(1)) if match else None


@dataclass(slots=True)
class TfeventsState:
    """What one file's earlier records told us: each tag's plugin (and plugin data), what was skipped."""

    plugins: dict[str, str] = field(default_factory=dict)  # disk tag -> plugin_name from its metadata
    contents: dict[str, bytes] = field(default_factory=dict)  # disk tag -> plugin data (PR curves, meshes)
    skipped: set[str] = field(default_factory=set)  # "<kind>:<tag>" already logged as not shown
    text_max_chars: int = DEFAULT_TEXT_MAX_CHARS  # longer texts are cut (the value says how long they were)

    def remember(self, value: tb_summary_pb2.Summary.Value) -> str:
        """The plugin of `value`'s tag ('' if unknown), learning it from the metadata when present."""
        if value.HasField("metadata"):
            name = value.metadata.plugin_data.plugin_name
            if not name and value.metadata.data_class == tb_summary_pb2.DATA_CLASS_SCALAR:
                name = "scalars"
            if name and (value.tag in self.plugins or len(self.plugins) < MAX_REMEMBERED_TAGS):
                self.plugins[value.tag] = name
                if name in _CONTENT_PLUGINS:
                    self.contents[value.tag] = value.metadata.plugin_data.content
            return name
        return self.plugins.get(value.tag, "")


# ---------------------------------------------------------------------- one value
def convert_value(value: tb_summary_pb2.Summary.Value, state: TfeventsState, file_name: str
                  ) -> float | list[tuple[str, str, Any]] | None:
    """A float for a scalar, else [(plugin, tag, typed value), ...] ([] or None: nothing to show)."""
    which = value.WhichOneof("value")
    plugin = state.remember(value)
    tag = value.tag
    if which == "simple_value":
        return value.simple_value
    if which == "image":
        return [("image", tag + "/image", convert.image_from_proto(value.image))]
    if which == "histo":
        return [("histogram", tag + "/histogram", convert.histogram_from_proto(value.histo))]
    if which == "tensor":
        return _convert_tensor(value.tensor, plugin or _guess_plugin(value.tensor), tag, state, file_name)
    if which == "audio":
        return [("audio", tag, kinds.audio_from_proto(value.audio))]
    if which is None and plugin == "hparams":  # metadata only
        return [("hparams", tag, kinds.hparams_from_metadata(value.metadata.plugin_data.content, tag))]
    if which is not None:
        _skip(state, file_name, which, tag)
    return None


def _convert_tensor(tensor: Any, plugin: str, tag: str, state: TfeventsState, file_name: str
                    ) -> float | list[tuple[str, str, Any]] | None:
    if plugin == "scalars":
        return convert.scalar_from_tensor(tensor)
    if plugin == "images":
        images = convert.images_from_tensor(tensor)
        return [("image", f"{tag}/image" if i == 0 else f"{tag}/{i}/image", img) for i, img in enumerate(images)]
    if plugin == "histograms":
        return [("histogram", tag + "/histogram", convert.histogram_from_tensor(tensor))]
    if plugin == "text":
        text = kinds.text_from_tensor(tensor, state.text_max_chars)
        if text.truncated:
            _note(state, file_name, "cut", tag, f"text values of tag {tag!r} longer than {state.text_max_chars} "
                  f"characters are cut to that (text_max_chars; the API marks them truncated)")
        return [("text", tag, text)]
    if plugin == "pr_curves":
        return [("pr_curve", tag, kinds.pr_curve_from_tensor(tensor, state.contents.get(tag, b"")))]
    if plugin == "audio":
        return [("audio", tag, kinds.audio_from_tensor(tensor))]
    if plugin == "mesh":
        return [("mesh", tag, kinds.mesh_from_tensor(tensor, state.contents.get(tag, b""), tag))]
    if plugin == "custom_scalars":
        return [("custom_scalars", tag, kinds.layout_from_tensor(tensor))]
    _skip(state, file_name, f"plugin {plugin or 'unknown'}", tag)
    return None


def _guess_plugin(tensor: Any) -> str:
    """Classify an undescribed tensor the way its shape allows (TF2 writers' layouts)."""
    dims = [d.size for d in tensor.tensor_shape.dim]
    if tensor.dtype == tb_types_pb2.DT_STRING:
        vals = tensor.string_val
        if len(dims) == 1 and len(vals) >= 2 and vals[0].isdigit() and vals[1].isdigit():
            return "images"
        return "text"
    if not dims:
        return "scalars"
    if len(dims) == 2 and dims[1] == 3:
        return "histograms"
    return ""


def _skip(state: TfeventsState, file_name: str, kind: str, tag: str) -> None:
    _note(state, file_name, kind, tag, f"{kind} values of tag {tag!r} are not shown (no view for them)")


def _note(state: TfeventsState, file_name: str, kind: str, tag: str, message: str) -> None:
    """Log `message` once per (kind, tag) and file."""
    key = f"{kind}:{tag}"
    if key not in state.skipped and len(state.skipped) < MAX_REMEMBERED_TAGS:
        state.skipped.add(key)
        logger.info("%s: %s", file_name, message)


# ---------------------------------------------------------------------- many records
def parse_tfevents_columns(records: Sequence[bytes], file_name: str, offsets: Sequence[int] | None = None,
                           state: TfeventsState | None = None) -> ParsedColumns:
    """Payloads of one tfevents file (in order) -> `ParsedColumns`; `state` carries over between calls."""
    state = state if state is not None else TfeventsState()
    result = ParsedColumns(file_name)
    items = result.items
    cols = result.scalars
    seen: dict[str, list] = {}  # disk tag -> its column, since the last non-scalar item
    event = Event()  # reused: nothing kept refers into it (values are copied out)
    parse = event.ParseFromString
    with gc_paused():
        for index, payload in enumerate(records):
            try:
                parse(payload)
                values = event.summary.value
                if len(values) == 1:  # fast path: one `simple_value` per event (tensorboardX's add_scalar)
                    value = values[0]
                    scalar = value.simple_value
                    if scalar or value.HasField("simple_value"):
                        col = seen.get(value.tag)
                        if col is None:
                            col = scalar_column(value.tag, cols, seen, items)
                        col += (event.step, event.wall_time, scalar)
                        continue
                    # TF2 `tf.summary.scalar`: a rank-0 float32 tensor of a `scalars` tag
                    tensor = value.tensor  # an empty default when the value is something else
                    content = tensor.tensor_content
                    if (len(content) == 4 and tensor.dtype == _DT_FLOAT and not tensor.tensor_shape.dim
                            and state.remember(value) == "scalars"):
                        col = seen.get(value.tag)
                        if col is None:
                            col = scalar_column(value.tag, cols, seen, items)
                        col += (event.step, event.wall_time, _F32.unpack(content)[0])
                        continue
                elif not values:
                    _note_non_summary(event, state, file_name)
                    continue
                seen = _careful_record(values, event.step, event.wall_time, file_name, state, items, cols, seen)
            except _ERRORS as exc:
                _bad_payload(result.problems, file_name, offsets[index] if offsets else -1, exc)
    return result


def parse_tfevents_event(payload: bytes, file_name: str, state: TfeventsState | None = None
                         ) -> list[SummaryValue]:
    """One payload -> its values (scalars included as SummaryValues); raises on an undecodable record."""
    parsed = parse_tfevents_columns([payload], file_name, [0], state)
    if parsed.problems:
        raise ValueError(parsed.problems[0].message)
    out: list[SummaryValue] = []
    for item in parsed.items:
        if isinstance(item, SummaryValue):
            out.append(item)
            continue
        tag, start = item
        col = parsed.scalars[tag]
        out.extend(SummaryValue("scalar", tag, col[i], col[i + 1], col[i + 2], file_name)
                   for i in range(3 * start, len(col), 3))
    return out


def _careful_record(values: Any, step: int, wall_time: float, file_name: str, state: TfeventsState,
                    items: list, cols: dict[str, list], seen: dict[str, list]) -> dict[str, list]:
    """Convert every value of one record first (may raise: the record then adds nothing), then emit."""
    converted = [(value.tag, convert_value(value, state, file_name)) for value in values]
    for disk_tag, out in converted:
        if out is None:
            continue
        if isinstance(out, float):
            col = seen.get(disk_tag)
            if col is None:
                col = scalar_column(disk_tag, cols, seen, items)
            col += (step, wall_time, out)
            continue
        for plugin, tag, typed in out:
            items.append(SummaryValue(plugin, tag, step, wall_time, typed, file_name))
            seen = {}
    return seen


def _note_non_summary(event: Any, state: TfeventsState, file_name: str) -> None:
    which = event.WhichOneof("what")  # an empty summary, the file version, a graph, ...
    if which in ("graph_def", "meta_graph_def", "tagged_run_metadata"):
        _skip(state, file_name, which, "")


def _bad_payload(problems: list[ReadProblem], file_name: str, offset: int, exc: Exception) -> None:
    message = f"record does not decode as a TensorBoard event ({exc}); skipped"
    problems.append(ReadProblem(file_name, offset, "bad_payload", message))
    logger.warning("%s at byte %d: %s", file_name, offset, message)
