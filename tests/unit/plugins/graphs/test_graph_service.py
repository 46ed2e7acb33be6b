"""Which graph a request means, and that each graph is built once and kept."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from mindinsight_clone.errors import GraphNotExistError, ParamValueError
from mindinsight_clone.plugins.graphs.service import GraphService, plugin_of_mode, resolve_tag
from tests.unit.plugins.graphs.graph_factory import GraphBuilder


@dataclass
class _Sample:
    value: Any


class _Source:
    def __init__(self, graphs: dict[str, Any]) -> None:
        self.graphs = graphs

    def tags(self, plugin: str) -> list[str]:
        if plugin == "graph":
            return sorted(self.graphs)
        return sorted(f"{t} (optimized)" for t in self.graphs)

    def samples(self, plugin: str, tag: str) -> list[_Sample]:
        tag = tag.removesuffix(" (optimized)") if plugin == "optimized_graph" else tag
        return [_Sample(self.graphs[tag])] if tag in self.graphs else []


def _proto() -> Any:
    g = GraphBuilder()
    g.op("Add", "Default", [])
    return g.proto


def test_modes() -> None:
    assert plugin_of_mode(None) == "graph" and plugin_of_mode("optimize") == "optimized_graph"
    with pytest.raises(ParamValueError) as err:
        plugin_of_mode("fast")
    assert err.value.message == "Invalid parameter value. Invalid mode"


def test_tags_default_first_pinned_and_unknown() -> None:
    source = _Source({"b.summary.1_MS": _proto(), "ms_output_optimize.pb": _proto()})
    assert resolve_tag(source, "graph", None) == "ms_output_optimize.pb"
    assert resolve_tag(source, "optimized_graph", "b.summary.1_MS") == "b.summary.1_MS (optimized)"
    with pytest.raises(GraphNotExistError):
        resolve_tag(source, "graph", "nope.pb")
    with pytest.raises(GraphNotExistError):
        resolve_tag(_Source({}), "graph", None)


def test_graph_is_built_once_and_rebuilt_for_a_new_proto() -> None:
    service = GraphService(max_graphs=2)
    source = _Source({"t": _proto()})
    first = service.graph(source, "./a", None, None)
    assert service.graph(source, "./a", "t", "normal") is first
    optimized = service.graph(source, "./a", None, "optimize")
    assert optimized is not first
    source.graphs["t"] = _proto()  # the run cache now holds a new graph for that tag
    assert service.graph(source, "./a", None, None) is not first


def test_lru_keeps_at_most_max_graphs() -> None:
    service = GraphService(max_graphs=1)
    a, b = _Source({"t": _proto()}), _Source({"t": _proto()})
    qa = service.graph(a, "./a", None, None)
    service.graph(b, "./b", None, None)
    assert service.graph(a, "./a", None, None) is not qa
    service.forget("./a")
    assert service.graph(a, "./a", None, None) is not qa
