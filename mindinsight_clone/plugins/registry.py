"""The data kinds, in MindInsight's order, then the TensorBoard kinds, with the setting that sizes each one's
reservoir.

Adding a data kind: one plugin module, one line here (the store sizes reservoirs from the same settings,
see store/run_cache.reservoir_sizes). MindInsight's seven are always keys of a `plugins` answer; a TensorBoard
kind is a key only when the run has tags of it, so MindInsight's answers stay byte-for-byte the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from mindinsight_clone.errors import PluginNotAvailableError
from mindinsight_clone.ingest.values import ALL_PLUGIN_NAMES, PLUGIN_NAMES


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
    # TensorBoard kinds (tags as on disk)
    PluginSpec("text", "text_samples", "mindinsight_clone.plugins.text"),
    PluginSpec("pr_curve", "pr_curve_samples", "mindinsight_clone.plugins.pr_curves"),
    PluginSpec("audio", "audio_samples", "mindinsight_clone.plugins.audio"),
    PluginSpec("embedding", "1 per tag (the projector config)", "mindinsight_clone.plugins.embeddings"),
    PluginSpec("mesh", "mesh_samples", "mindinsight_clone.plugins.meshes"),
    PluginSpec("custom_scalars", "1 per tag (the latest layout)", "mindinsight_clone.plugins.custom_scalars"),
    PluginSpec("hparams", "1 per tag (the latest)", "mindinsight_clone.plugins.hparams"),
)

NAMES: tuple[str, ...] = tuple(p.name for p in PLUGINS)
assert NAMES == ALL_PLUGIN_NAMES, "plugin registry and ingest.values.ALL_PLUGIN_NAMES must agree"

PINNED_GRAPH_TAGS = ("ms_output_optimize.pb", "ms_output_optimize.pb (optimized)")


def check_plugin_name(name: str) -> str:
    """A known plugin name; else MindInsight's error, which names its own seven (golden 037)."""
    if name not in NAMES:
        raise PluginNotAvailableError(f"Detail: 'plugin_name' only can be one of {list(PLUGIN_NAMES)}")
    return name


def order_tags(plugin: str, tags: list[str]) -> list[str]:
    """Sorted tags; for graphs the `ms_output_optimize.pb` tags go first (as MindInsight)."""
    tags = sorted(tags)
    if plugin in ("graph", "optimized_graph"):
        pinned = [t for t in PINNED_GRAPH_TAGS if t in tags]
        tags = pinned + [t for t in tags if t not in pinned]
    return tags


def plugins_dict(all_tags: dict[str, list[str]] | None) -> dict[str, list[str]]:
    """MindInsight's 7 plugin keys (empty lists when the run has no detail cache), then each TensorBoard kind
    the run has tags of."""
    all_tags = all_tags or {}
    out = {name: order_tags(name, all_tags.get(name, [])) for name in PLUGIN_NAMES}
    for name in NAMES[len(PLUGIN_NAMES):]:
        if all_tags.get(name):
            out[name] = order_tags(name, all_tags[name])
    return out
