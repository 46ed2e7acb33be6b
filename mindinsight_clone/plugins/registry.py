"""The data kinds, in MindInsight's order, with the setting that sizes each one's reservoir.

Adding a data kind: one plugin module, one line here (the store sizes reservoirs from the same settings,
see store/run_cache.reservoir_sizes).
"""

from __future__ import annotations

from dataclasses import dataclass

from mindinsight_clone.errors import PluginNotAvailableError
from mindinsight_clone.ingest.values import PLUGIN_NAMES


@dataclass(frozen=True)
class PluginSpec:
    name: str
    samples_per_tag: str  # setting name, or a fixed description
    module: str  # module answering its queries


PLUGINS: tuple[PluginSpec, ...] = (
    PluginSpec("image", "image_samples", "mindinsight_clone.plugins.images"),
    PluginSpec("scalar", "scalar_samples", "mindinsight_clone.plugins.scalars"),
    PluginSpec("graph", "1 per tag", "mindinsight_clone.analyzers.graphs (other area)"),
    PluginSpec("optimized_graph", "1 per tag", "mindinsight_clone.analyzers.graphs (other area)"),
    PluginSpec("histogram", "histogram_samples", "mindinsight_clone.plugins.histograms"),
    PluginSpec("tensor", "tensor_samples", "mindinsight_clone.plugins.tensors"),
    PluginSpec("loss_landscape", "all (kept whole)", "mindinsight_clone.plugins.landscape"),
)

NAMES: tuple[str, ...] = tuple(p.name for p in PLUGINS)
assert NAMES == PLUGIN_NAMES, "plugin registry and ingest.values.PLUGIN_NAMES must agree"

PINNED_GRAPH_TAGS = ("ms_output_optimize.pb", "ms_output_optimize.pb (optimized)")


def check_plugin_name(name: str) -> str:
    if name not in NAMES:
        raise PluginNotAvailableError(f"Detail: 'plugin_name' only can be one of {list(NAMES)}")
    return name


def order_tags(plugin: str, tags: list[str]) -> list[str]:
    """Sorted tags; for graphs the `ms_output_optimize.pb` tags go first (as MindInsight)."""
    tags = sorted(tags)
    if plugin in ("graph", "optimized_graph"):
        pinned = [t for t in PINNED_GRAPH_TAGS if t in tags]
        tags = pinned + [t for t in tags if t not in pinned]
    return tags


def plugins_dict(all_tags: dict[str, list[str]] | None) -> dict[str, list[str]]:
    """All 7 plugin keys; empty lists when the run has no detail cache."""
    all_tags = all_tags or {}
    return {name: order_tags(name, all_tags.get(name, [])) for name in NAMES}
