"""Queries on a built graph: scope listing (and paging), search, single-node path, all leaves."""

from __future__ import annotations

import pytest

from mindinsight_clone.errors import NodeNotInGraphError
from mindinsight_clone.plugins.graphs.build import build_graph
from mindinsight_clone.plugins.graphs.query import GraphQuery
from tests.unit.plugins.graphs.graph_factory import GraphBuilder


def _query() -> GraphQuery:
    g = GraphBuilder()
    g.param("x")
    conv = g.op("Conv2D", "Default/net/conv-Conv2d", ["x"])
    relu = g.op("ReLU", "Default/net/relu-ReLU", [conv])
    g.op("Flatten", "Default/net/flatten", [relu])
    g.op("ReluGrad", "Gradients/Default/net/relu-ReLU", [relu])
    return GraphQuery(build_graph(g.proto))


def _names(tree: list[dict]) -> list[str]:
    out = []
    for item in tree:
        out.append(item["name"])
        out += _names(item["nodes"])
    return out


def test_list_nodes_root_scope_and_unknown_scope() -> None:
    q = _query()
    assert [n["name"] for n in q.list_nodes()] == ["Default", "Gradients"]
    assert [n["name"] for n in q.list_nodes("Default/net/conv-Conv2d")] == [
        "Default/net/conv-Conv2d/Conv2D-op0", "Default/net/conv-Conv2d/x"]
    assert q.list_nodes("Default/net/conv-Conv2d/Conv2D-op0") == []  # a leaf has no children
    with pytest.raises(NodeNotInGraphError) as err:
        q.list_nodes("Nope/Scope")
    assert err.value.message == "Can not find node in graph by the given node name. node name: Nope/Scope."
    node = q.list_nodes("Default/net/relu-ReLU")[0]
    assert set(node) == {"attr", "independent_layout", "input", "is_dynamic_shape_node", "name", "output",
                         "output_i", "proxy_input", "proxy_output", "stack_info", "subnode_count", "type"}


def test_search_matches_only_in_the_last_segment_case_insensitively() -> None:
    q = _query()
    assert "Default/net/flatten/Flatten-op0" in _names(q.search("FLATTEN-OP", 0, 100))
    # 'flatten' also matches the scope, which then replaces its matching child (MindInsight)
    assert _names(q.search("flatten", 0, 100))[-1] == "Default/net/flatten"
    # 'conv' occurs in 'Default/net/conv-Conv2d/x' but not in its last segment
    assert "Default/net/conv-Conv2d/x" not in _names(q.search("conv", 0, 100))
    assert q.search("/", 0, 100) == [] and q.search("", 0, 100) == [] and q.search(None, 0, 100) == []
    # a text spanning the last '/' matches
    assert "Default/net/conv-Conv2d/Conv2D-op0" in _names(q.search("conv2d/conv", 0, 100))


def test_search_tree_shape_and_scope_overwrite() -> None:
    q = _query()
    tree = q.search("relu", 0, 100)
    assert tree[0]["name"] == "Default" and tree[0]["type"] == "name_scope"
    assert set(tree[0]) == {"is_dynamic_shape_node", "name", "nodes", "type"}
    # the matching scope 'relu-ReLU' comes after its child ReLU-op0 and replaces it (MindInsight)
    relu_scope = tree[0]["nodes"][0]["nodes"][0]
    assert relu_scope["name"] == "Default/net/relu-ReLU" and relu_scope["nodes"] == []


def test_search_paging_offset_is_a_page_index() -> None:
    q = _query()
    every = [n for n in _names(q.search("o", 0, 1000))]
    leaves = [n for n in every if n.count("-op")]
    assert leaves
    page0 = _names(q.search("o", 0, 1))
    page1 = _names(q.search("o", 1, 1))
    assert page0 != page1 and q.search("o", 10_000, 5) == []


def test_single_node_lists_every_scope_on_the_path() -> None:
    q = _query()
    answer = q.single_node("Default/net/relu-ReLU/ReLU-op0")
    assert answer["scope_name"] == "" and [n["name"] for n in answer["nodes"]] == ["Default", "Gradients"]
    levels = []
    level = answer["children"]
    while level:
        levels.append(level["scope_name"])
        level = level["children"]
    assert levels == ["Default", "Default/net", "Default/net/relu-ReLU"]
    with pytest.raises(NodeNotInGraphError):
        q.single_node("Default/nope")


def test_all_nodes_flattens_leaves_depth_first() -> None:
    q = _query()
    names = [n["name"] for n in q.all_nodes()]
    assert names[0] == "Default/net/conv-Conv2d/Conv2D-op0"
    assert all(not n.endswith(("Default", "net")) for n in names)
    assert [n["name"] for n in q.all_nodes("Gradients")] == ["Gradients/Default/net/relu-ReLU/ReluGrad-op0"]
    with pytest.raises(NodeNotInGraphError):
        q.all_nodes("Nope")


def test_a_scope_with_thousands_of_children_opens_and_pages() -> None:
    g = GraphBuilder()
    src = g.op("Input", "Default/big", [])
    types = ["Add", "Mul", "Sub", "Div"]
    for i in range(4000):  # 1000 of each type: aggregated, each aggregation has 1000 children
        g.op(types[i % 4], "Default/big", [src])
    for i in range(1600):  # 1600 distinct types, 1 each: 1600 direct children, never aggregated
        g.op(f"Op{i}", "Default/wide", [src])
    q = GraphQuery(build_graph(g.proto))
    big = [n["name"] for n in q.list_nodes("Default/big")]
    assert "Default/big/Add[1000]_0" in big and len(big) == 5
    assert len(q.list_nodes("Default/big/Add[1000]_0")) == 1000
    wide = q.list_nodes("Default/wide")
    assert len(wide) == 1600
    page = q.list_nodes("Default/wide", offset=1, limit=500)
    assert [n["name"] for n in page] == [n["name"] for n in wide[500:1000]]
