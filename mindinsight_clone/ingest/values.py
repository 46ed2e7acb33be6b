"""Typed values that the event parser hands to the store: the contract between ingest and store.

One `SummaryValue` per (tag, plugin) in an Event. For MindInsight's kinds `tag` is already MindInsight's name
(`<disk tag>/<plugin>`, e.g. `loss/auto/scalar`; a graph's tag is the summary file's name); the TensorBoard
kinds (`TB_PLUGIN_NAMES`: text, PR curves, audio, ...) keep the tag as it is on disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Plugin = Literal["scalar", "image", "histogram", "tensor", "graph", "optimized_graph", "loss_landscape"]

PLUGIN_NAMES: tuple[str, ...] = (  # MindInsight's, in its order: always listed in `plugins`
    "image", "scalar", "graph", "optimized_graph", "histogram", "tensor", "loss_landscape",
)
# TensorBoard kinds MindInsight has no view for: listed in `plugins` only when a run has them
TB_PLUGIN_NAMES: tuple[str, ...] = (
    "text", "pr_curve", "audio", "embedding", "mesh", "custom_scalars", "hparams",
)
ALL_PLUGIN_NAMES: tuple[str, ...] = PLUGIN_NAMES + TB_PLUGIN_NAMES
# Samples kept per tag, by kind: the setting that sizes its reservoir, or a fixed count (0 = all). A new kind is
# a plugin module and a line here and above (store/run_cache.reservoir_sizes reads this table).
SAMPLES_PER_TAG: dict[str, str | int] = {
    "image": "image_samples", "scalar": "scalar_samples", "graph": 1, "optimized_graph": 1,
    "histogram": "histogram_samples", "tensor": "tensor_samples", "loss_landscape": 0,  # kept whole
    "text": "text_samples", "pr_curve": "pr_curve_samples", "audio": "audio_samples",
    "embedding": 1,  # the projector config as last read
    "mesh": "mesh_samples", "custom_scalars": 1, "hparams": 1,  # the latest layout / experiment record
}
assert set(SAMPLES_PER_TAG) == set(ALL_PLUGIN_NAMES), "every kind has a samples-per-tag entry"


@dataclass(slots=True)
class Image:
    width: int
    height: int
    encoded: bytes  # PNG bytes exactly as written; never decoded on ingest


@dataclass(slots=True)
class Histogram:
    """Buckets as written: left edges, widths and counts (float64 arrays of one length)."""

    left: np.ndarray
    width: np.ndarray
    count: np.ndarray
    min: float
    max: float
    sum: float
    nan_count: int = 0
    pos_inf_count: int = 0
    neg_inf_count: int = 0

    @property
    def total(self) -> int:
        return int(self.count.sum()) + self.nan_count + self.pos_inf_count + self.neg_inf_count


@dataclass(slots=True)
class Tensor:
    dims: tuple[int, ...]
    data_type: str  # MindInsight's name, e.g. "DT_FLOAT32"
    array: np.ndarray  # shape == dims


@dataclass(slots=True)
class Text:
    """A text summary (markdown as written), cut to the `text_max_chars` setting: `length` says how long it was."""

    text: str
    length: int  # characters as written (> len(text) when cut)

    @property
    def truncated(self) -> bool:
        return self.length > len(self.text)

    @property
    def nbytes(self) -> int:
        return len(self.text)


@dataclass(slots=True)
class PrCurve:
    """One PR-curve step: float64 [6, n] rows tp, fp, tn, fn, precision, recall at thresholds i / (n - 1)."""

    counts: np.ndarray
    roc: np.ndarray | None = None  # VisualDL `add_roc_curve`: its stored [2, n] rows tpr, fpr (as written)

    @property
    def nbytes(self) -> int:
        return int(self.counts.nbytes) + (int(self.roc.nbytes) if self.roc is not None else 0)


@dataclass(slots=True)
class Audio:
    encoded: bytes  # the clip as written (WAV: checked to be one on ingest)
    content_type: str
    sample_rate: float
    num_channels: int
    length_frames: int
    label: str = ""

    @property
    def nbytes(self) -> int:
        return len(self.encoded)


@dataclass(slots=True)
class Mesh:
    """One component of a mesh at one step: vertices, faces (vertex indices) or colors, [N, 3] float64."""

    name: str  # the mesh's name (its components share it)
    component: str  # "vertices" | "faces" | "colors"
    array: np.ndarray
    json_config: str = ""

    @property
    def nbytes(self) -> int:
        return int(self.array.nbytes)


@dataclass(slots=True)
class ScalarsLayout:
    """A custom-scalars layout: categories of charts (multiline: tag regexes; margin: value/lower/upper tags)."""

    categories: list[dict[str, Any]]

    @property
    def nbytes(self) -> int:
        return 200 * sum(len(c["charts"]) + 1 for c in self.categories)


@dataclass(slots=True)
class HParams:
    """One `_hparams_/...` record: kind "experiment" | "session_start" | "session_end", its data as JSON-ready dicts."""

    kind: str
    data: dict[str, Any]

    @property
    def nbytes(self) -> int:
        return 200 + 100 * len(self.data.get("hparams", ()))


@dataclass(slots=True)
class Embedding:
    """One projector entry: where its files are (already confined to the run folder; None: not given or refused)."""

    tensor_name: str
    tensor: Any  # storage.Location | None
    metadata: Any  # storage.Location | None
    sprite: Any  # storage.Location | None
    sprite_dim: tuple[int, int] | None
    shape: tuple[int, ...]  # as the config says ((): not said)
    problem: str = ""  # why (part of) it cannot be served, e.g. a path outside the run folder
    # written inline in the record (VisualDL `add_embeddings`) instead of files: float32 [points, dims] and
    # (metadata column names, one row of labels per point)
    vectors: np.ndarray | None = None
    labels: tuple[list[str], list[list[str]]] | None = None

    @property
    def nbytes(self) -> int:
        rows = len(self.labels[1]) if self.labels else 0
        return 500 + (int(self.vectors.nbytes) if self.vectors is not None else 0) + 50 * rows


@dataclass(slots=True)
class SummaryValue:
    plugin: str  # one of ALL_PLUGIN_NAMES
    tag: str
    step: int
    wall_time: float
    # float (scalar) | Image | Histogram | Tensor | GraphProto message (graph) | landscape message
    value: Any
    source_file: str = field(default="")  # file name the value came from (newer file wins a step)
