"""Typed values that the event parser hands to the store: the contract between ingest and store.

One `SummaryValue` per (tag, plugin) in an Event. `tag` is already MindInsight's name
(`<disk tag>/<plugin>`, e.g. `loss/auto/scalar`; a graph's tag is the summary file's name).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Plugin = Literal["scalar", "image", "histogram", "tensor", "graph", "optimized_graph", "loss_landscape"]

PLUGIN_NAMES: tuple[str, ...] = (
    "image", "scalar", "graph", "optimized_graph", "histogram", "tensor", "loss_landscape",
)


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
class SummaryValue:
    plugin: str  # one of PLUGIN_NAMES
    tag: str
    step: int
    wall_time: float
    # float (scalar) | Image | Histogram | Tensor | GraphProto message (graph) | landscape message
    value: Any
    source_file: str = field(default="")  # file name the value came from (newer file wins a step)
