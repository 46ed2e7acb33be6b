"""VisualDL logs (`vdlrecords.<ts>.log`) -> the same typed values as MindSpore and TensorBoard files.

Framing: `vdl_record_reader`. Each payload is a `visualdl.Record` (`proto/vdl_record.proto`) of `Value`s; a
value's step is its `id`, its wall time its `timestamp` (ms since the epoch). What becomes a value:

| `Value.one_value` (VisualDL's writer call) | plugin     | tag                        |
|--------------------------------------------|------------|----------------------------|
| `value` (`add_scalar`)                     | scalar     | `<tag>/scalar`             |
| `tag_value` (`add_scalars(main, {sub})`)   | scalar     | `<main>/<sub>/scalar`      |
| `image` (`add_image`, PNG)                 | image      | `<tag>/image`              |
| `histogram` (counts + bin edges)           | histogram  | `<tag>/histogram`          |
| `text` (`add_text`)                        | text       | `<tag>`                    |
| `pr_curve` (`add_pr_curve`)                | pr_curve   | `<tag>`                    |
| `audio` (`add_audio`, WAV)                 | audio      | `<tag>`                    |
| `roc_curve` (`add_roc_curve`)              | pr_curve   | `<tag>/roc_curve`          |
| `embeddings` (`add_embeddings`)            | embedding  | `<tag>`                    |
| `hparam` (`add_hparams`)                   | hparams    | `_hparams_/experiment` + `_hparams_/session_start_info` |

`add_hparams` is given as TensorBoard's hparams plugin sees a session (the `hparams` plugin: each metric is the
newest value of the scalar tag of that name in the run, as VisualDL shows it). A ROC curve is a PR-curve value
of its counts (precision and recall computed from them as VisualDL computes them for `add_pr_curve`) that also
keeps its stored `tpr`/`fpr` rows; its own tag suffix keeps it apart from a PR curve of the same tag. An
embedding is the projector's value with its vectors and labels inline. `meta_data` (the first record of every
file: the writer's display name) is no value: a non-empty name is `ParsedColumns.display_name` (the train
job's `display_name`).

Output is `event_parser.ParsedColumns` with the TensorBoard parser's per-record atomicity: a record that does
not decode or convert adds nothing and is reported (`bad_payload`).
"""

from __future__ import annotations

import logging
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from mindinsight_clone.ingest import tfevents_convert as convert
from mindinsight_clone.ingest import tfevents_kinds as kinds
from mindinsight_clone.ingest.event_parser import ParsedColumns, scalar_column
from mindinsight_clone.ingest.gc_pause import gc_paused
from mindinsight_clone.ingest.record_reader import ReadProblem
from mindinsight_clone.ingest.values import Embedding, HParams, Image, PrCurve, SummaryValue, Text
from mindinsight_clone.proto import vdl_record_pb2

logger = logging.getLogger(__name__)

Record = vdl_record_pb2.Record
VDL_NAME = re.compile(r"vdlrecords")  # VisualDL's reader takes every file whose name contains it
VDL_TIMESTAMP = re.compile(r"vdlrecords\.(\d+)")
DEFAULT_TEXT_MAX_CHARS = 100_000
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_SIZE = struct.Struct(">II")
_ERRORS = (DecodeError, ValueError, TypeError, KeyError, OverflowError)
ROC_SUFFIX = "/roc_curve"
_EPSILON = 1e-7  # VisualDL's floor of a ratio's denominator (precision = TP / max(1e-7, TP + FP))
# TensorBoard's hparams tags (plugins.hparams) and the DataType names of `HparamInfo.type`
HPARAMS_EXPERIMENT, HPARAMS_START = "_hparams_/experiment", "_hparams_/session_start_info"
_HPARAM_TYPES = {"int_value": "DATA_TYPE_FLOAT64", "float_value": "DATA_TYPE_FLOAT64",
                 "string_value": "DATA_TYPE_STRING"}


def is_vdlrecords_file(name: str) -> bool:
    """Whether `name` is a VisualDL log: its name contains `vdlrecords` (VisualDL's own rule)."""
    return VDL_NAME.search(name) is not None


def vdl_timestamp(name: str) -> int | None:
    """The writer's creation time in a VisualDL log's name (`vdlrecords.<ts>.log`), None if it has none."""
    match = VDL_TIMESTAMP.search(name)
    return int(match.group(1)) if match else None


@dataclass(slots=True)
class VdlState:
    """Per file: the text length limit."""

    text_max_chars: int = DEFAULT_TEXT_MAX_CHARS


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR (VisualDL stores no size); (0, 0) for anything else."""
    if len(data) >= 24 and data.startswith(_PNG_SIGNATURE) and data[12:16] == b"IHDR":
        width, height = _PNG_SIZE.unpack_from(data, 16)
        return int(width), int(height)
    return 0, 0


def histogram_from_vdl(proto: Any) -> Any:
    """`np.histogram`'s counts and `len + 1` bin edges -> `values.Histogram` (sum: from the bucket centres)."""
    counts = np.asarray(proto.hist, dtype=np.float64)
    edges = np.asarray(proto.bin_edges, dtype=np.float64)
    if edges.size != counts.size + 1:
        raise ValueError(f"histogram has {counts.size} counts but {edges.size} bin edges (want counts + 1)")
    if not counts.size:
        return convert._histogram(np.zeros(0), np.zeros(0), counts, 0.0, 0.0, 0.0)
    total = float(((edges[:-1] + edges[1:]) / 2 * counts).sum())
    return convert._histogram(edges[:-1], edges[1:], counts, float(edges[0]), float(edges[-1]), total)


def pr_curve_from_vdl(proto: Any) -> PrCurve:
    rows = [proto.TP, proto.FP, proto.TN, proto.FN, proto.precision, proto.recall]
    n = len(rows[0])
    if not n or any(len(r) != n for r in rows):
        raise ValueError(f"a PR curve needs 6 rows of one length, got {[len(r) for r in rows]}")
    return PrCurve(counts=np.array(rows, dtype=np.float64))


def roc_curve_from_vdl(proto: Any) -> PrCurve:
    """`add_roc_curve`: the counts, with precision and recall from them, and the stored tpr/fpr rows (VisualDL
    stores tpr = TP / (TN + FP), not TP / (TP + FN): kept as written; pages draw the ROC from the counts)."""
    counts = [np.asarray(r, dtype=np.float64) for r in (proto.TP, proto.FP, proto.TN, proto.FN)]
    roc = [np.asarray(r, dtype=np.float64) for r in (proto.tpr, proto.fpr)]
    n = counts[0].size
    if not n or any(r.size != n for r in counts + roc):
        raise ValueError(f"a ROC curve needs 6 rows of one length, got {[r.size for r in counts + roc]}")
    tp, fp, _tn, fn = counts
    precision = tp / np.maximum(_EPSILON, tp + fp)
    recall = tp / np.maximum(_EPSILON, tp + fn)
    return PrCurve(counts=np.array([*counts, precision, recall]), roc=np.array(roc))


def embedding_from_vdl(proto: Any, tag: str) -> Embedding:
    """`add_embeddings`: one row per point, each with its label columns; `label_meta` names them (else `label`,
    or `label_<i>` for more than one column)."""
    points = proto.embeddings
    dims = len(points[0].vectors) if points else 0
    if any(len(p.vectors) != dims for p in points):
        raise ValueError("embedding rows have different lengths")
    vectors = np.array([p.vectors for p in points], dtype=np.float32).reshape(len(points), dims)
    rows = [list(p.label) for p in points]
    width = max((len(r) for r in rows), default=0)
    columns = list(proto.label_meta) or (["label"] if width == 1 else [f"label_{i}" for i in range(width)])
    return Embedding(tensor_name=tag, tensor=None, metadata=None, sprite=None, sprite_dim=None,
                     shape=vectors.shape, vectors=vectors, labels=(columns, rows) if width else None)


def hparams_from_vdl(proto: Any, wall_time: float) -> list[tuple[str, str, Any]]:
    """`add_hparams`: an experiment (names, types, metric names) and a session start (the values) of the run."""
    infos = [(info.name, info.WhichOneof("type")) for info in proto.hparamInfos]
    values = {info.name: getattr(info, kind) for info, (_, kind) in zip(proto.hparamInfos, infos, strict=True)
              if kind is not None}
    experiment = {"hparams": [{"name": name, "type": _HPARAM_TYPES[kind]} for name, kind in infos if kind],
                  "metrics": [m.name for m in proto.metricInfos], "time_created": wall_time}
    start = {"hparams": dict(sorted(values.items())), "group_name": "", "start_time": wall_time}
    return [("hparams", HPARAMS_EXPERIMENT, HParams("experiment", experiment)),
            ("hparams", HPARAMS_START, HParams("session_start", start))]


def convert_value(value: Any, state: VdlState, file_name: str) -> float | list[tuple[str, str, Any]] | None:
    """A float for a scalar, else [(plugin, tag, typed value), ...]; None: nothing to show."""
    which = value.WhichOneof("one_value")
    tag = value.tag
    if which == "value":
        return float(value.value)
    if which == "image":
        data = value.image.encoded_image_string
        width, height = png_size(data)
        return [("image", tag + "/image", Image(width=width, height=height, encoded=data))]
    if which == "histogram":
        return [("histogram", tag + "/histogram", histogram_from_vdl(value.histogram))]
    if which == "text":
        text = value.text.encoded_text_string
        return [("text", tag, Text(text=text[:state.text_max_chars], length=len(text)))]
    if which == "pr_curve":
        return [("pr_curve", tag, pr_curve_from_vdl(value.pr_curve))]
    if which == "audio":
        return [("audio", tag, kinds.audio_from_proto(value.audio))]  # same fields as TensorBoard's Audio
    if which == "roc_curve":
        return [("pr_curve", tag + ROC_SUFFIX, roc_curve_from_vdl(value.roc_curve))]
    if which == "embeddings":
        return [("embedding", tag, embedding_from_vdl(value.embeddings, tag))]
    if which == "hparam":
        return hparams_from_vdl(value.hparam, value.timestamp / 1000.0)
    return None


def parse_vdl_columns(records: Sequence[bytes], file_name: str, offsets: Sequence[int] | None = None,
                      state: VdlState | None = None) -> ParsedColumns:
    """Payloads of one VisualDL log (in order) -> `ParsedColumns`; `state` carries over between calls."""
    state = state if state is not None else VdlState()
    result = ParsedColumns(file_name)
    items, cols = result.items, result.scalars
    seen: dict[str, list] = {}  # scalar tag -> its column, since the last non-scalar item
    record = Record()  # reused: values are copied out
    parse = record.ParseFromString
    with gc_paused():
        for index, payload in enumerate(records):
            try:
                parse(payload)
                values = record.values
                if len(values) == 1:  # fast path: LogWriter's add_scalar, one value per record
                    value = values[0]
                    if value.WhichOneof("one_value") == "value":
                        col = seen.get(value.tag)
                        if col is None:
                            col = scalar_column(value.tag, cols, seen, items)
                        col += (value.id, value.timestamp / 1000.0, value.value)
                        continue
                converted: list[tuple[str, Any, Any]] = []
                named = ""
                for value in values:  # convert all first: a bad value drops the whole record
                    which = value.WhichOneof("one_value")
                    if which == "meta_data":  # LogWriter(display_name=...): VisualDL shows the run by it
                        named = value.meta_data.display_name or named
                    elif which == "tag_value":
                        sub = value.tag_value
                        converted.append((f"{value.tag}/{sub.tag}", value, float(sub.value)))
                    else:
                        converted.append((value.tag, value, convert_value(value, state, file_name)))
                result.display_name = named or result.display_name
                for disk_tag, value, out in converted:
                    if out is None:
                        continue
                    wall_time = value.timestamp / 1000.0
                    if isinstance(out, float):
                        col = seen.get(disk_tag)
                        if col is None:
                            col = scalar_column(disk_tag, cols, seen, items)
                        col += (value.id, wall_time, out)
                    else:
                        for plugin, tag, typed in out:
                            items.append(SummaryValue(plugin, tag, value.id, wall_time, typed, file_name))
                        seen = {}
            except _ERRORS as exc:
                offset = offsets[index] if offsets else -1
                message = f"record does not decode as a VisualDL Record ({exc}); skipped"
                result.problems.append(ReadProblem(file_name, offset, "bad_payload", message))
                logger.warning("%s at byte %d: %s", file_name, offset, message)
    return result


def parse_vdl_event(payload: bytes, file_name: str, state: VdlState | None = None) -> list[SummaryValue]:
    """One payload -> its values (scalars included); raises ValueError on an undecodable record."""
    parsed = parse_vdl_columns([payload], file_name, [0], state)
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
