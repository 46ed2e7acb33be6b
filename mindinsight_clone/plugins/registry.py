"""The data kinds, in MindInsight's order, then the TensorBoard kinds (declared once in ingest/values.py, with the
setting that sizes each one's reservoir), and the rules of the `plugins` answer.

Adding a data kind: one plugin module and its name and sample size in ingest/values.py (`TB_PLUGIN_NAMES`,
`SAMPLES_PER_TAG`). MindInsight's seven are always keys of a `plugins` answer; a TensorBoard kind is a key only
when the run has tags of it, so MindInsight's answers stay byte-for-byte the same.
"""

from __future__ import annotations

from mindinsight_clone.errors import PluginNotAvailableError
from mindinsight_clone.ingest.values import ALL_PLUGIN_NAMES, PLUGIN_NAMES

NAMES: tuple[str, ...] = ALL_PLUGIN_NAMES

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


def limit_tags(plugins: dict[str, list[str]], tag_limit: int) -> tuple[dict[str, list[str]], dict[str, int]]:
    """`tag_limit` (ours, docs/api.md): each plugin's list cut to its first `tag_limit` tags (the same order), and
    every plugin's full count, so a client knows which lists are whole (a run with 10,000 scalar tags answers a
    few KB instead of 400, issue 32)."""
    cut = {name: tags[:tag_limit] for name, tags in plugins.items()}
    return cut, {name: len(tags) for name, tags in plugins.items()}
