"""The scope tree built from a GraphProto: names, variables, aggregation, scopes, optimize view."""

from __future__ import annotations

from mindinsight_clone.plugins.graphs.build import build_graph
from mindinsight_clone.plugins.graphs.parse import value_text
from mindinsight_clone.proto import anf_ir_pb2
from tests.unit.plugins.graphs.graph_factory import GraphBuilder


def _small() -> GraphBuilder:
    g = GraphBuilder()
    g.param("x", (2, 3))
    g.param("w", (4, 3))
    g.const("cst1")
    conv = g.op("Conv2D", "Default/conv-Conv2d", ["x", "w"], (2, 4))
    relu = g.op("ReLU", "Default/relu-ReLU", [conv, "cst1"], (2, 4))
    g.op("Depend", "Default", [relu])
    return g


def test_operators_are_named_by_full_name_and_variables_placed_per_scope() -> None:
    model = build_graph(_small().proto)
    names = list(model.nodes)
    assert "Default/conv-Conv2d/Conv2D-op0" in names
    assert "Default/conv-Conv2d/x" in names and "Default/conv-Conv2d/w" in names
    assert "Default/relu-ReLU/cst1" in names
    assert "x" not in names and "cst1" not in names  # originals removed once placed
    conv = model.nodes["Default/conv-Conv2d/Conv2D-op0"]
    edge = conv.inputs["Default/conv-Conv2d/w"]
    assert edge.shape == [[4, 3]] and edge.data_type == "DT_TENSOR[DT_FLOAT32]" and edge.edge_type == "data"
    assert conv.outputs["Default/relu-ReLU/ReLU-op0"].shape == [[2, 4]]
    assert conv.attr["pad"] == "dtype: DT_FLOAT32\nfloat_val: 1.0\n"
    param = model.nodes["Default/conv-Conv2d/w"]
    assert param.attr == {"type": "DT_TENSOR[DT_FLOAT32]", "shape": "[[4, 3]]"}


def test_name_scopes_inherit_only_edges_that_leave_them() -> None:
    model = build_graph(_small().proto)
    default = model.nodes["Default"]
    assert default.type == "name_scope" and default.scope == ""
    assert default.inputs == {} and default.outputs == {}
    conv_scope = model.nodes["Default/conv-Conv2d"]
    assert list(conv_scope.outputs) == ["Default/relu-ReLU/ReLU-op0"]
    assert conv_scope.inputs == {}  # its parameters live inside it
    assert conv_scope.subnode_count == 3
    assert default.subnode_count == 3
    assert [n.name for n in model.children[""]] == ["Default"]


def test_five_children_of_one_type_are_aggregated_four_are_not() -> None:
    g = GraphBuilder()
    first = g.op("Add", "Default", [])
    for _ in range(4):
        g.op("Add", "Default", [first])
    for _ in range(4):
        g.op("Mul", "Default", [first])
    model = build_graph(g.proto)
    agg = model.nodes["Default/Add[5]_0"]
    assert agg.type == "aggregation_scope" and agg.subnode_count == 5
    assert [n.name for n in model.children["Default/Add[5]_0"]] == [f"Default/Add[5]_0/Add-op{i}" for i in range(5)]
    assert "Default/Mul-op0" in model.nodes
    assert all(n.scope == "Default/Add[5]_0" for n in model.children["Default/Add[5]_0"])
    # the node map order: unaggregated ops, then renamed ones, their aggregation node, then scopes
    assert list(model.nodes)[-1] == "Default"


def test_aggregated_parameters_get_an_independent_layout() -> None:
    g = GraphBuilder()
    params = [g.param(f"p{i}") for i in range(6)]
    g.op("AddN", "Default/opt", params)
    model = build_graph(g.proto)
    agg = model.nodes["Default/opt/Parameter[6]_0"]
    assert agg.independent_layout
    target = "Default/opt/AddN-op0"
    assert agg.proxy_outputs == {target: {"edge_type": "data"}}
    member = model.nodes["Default/opt/Parameter[6]_0/p0"]
    assert member.independent_layout and member.proxy_outputs == {target: {"edge_type": "data"}}
    addn = model.nodes[target]
    assert addn.inputs["Default/opt/Parameter[6]_0/p0"].independent_layout
    assert not member.outputs[target].independent_layout  # MindInsight copies the edge per side
    assert "Default/opt/Parameter[6]_0" in addn.proxy_inputs


def test_an_operator_named_like_a_scope_is_renamed() -> None:
    g = GraphBuilder()
    a = g.op("Add", "Default", [], full_name="Default/block")
    g.op("Mul", "Default/block", [a])
    model = build_graph(g.proto)
    assert model.nodes["Default/block"].type == "name_scope"
    renamed = model.nodes["Default/(block)"]
    assert renamed.type == "Add"
    assert "Default/(block)" in model.nodes["Default/block/Mul-op0"].inputs


def test_summary_operators_and_nameless_nodes() -> None:
    g = GraphBuilder()
    g.op("ScalarSummary", "Default", [], full_name="Default/loss[:Scalar]")
    g.op("Add", "Default", [], full_name="")
    model = build_graph(g.proto)
    assert "Default/ScalarSummary1" in model.nodes
    assert "Default/Add2" in model.nodes


def test_dynamic_shapes_are_flagged() -> None:
    g = GraphBuilder()
    a = g.op("Add", "Default", [], shape=(-1, 4))
    g.op("Mul", "Default", [a])
    model = build_graph(g.proto)
    assert model.nodes["Default/Mul-op0"].is_dynamic_shape_node


def test_optimize_view_hides_gradients_optimizer_and_data_movers() -> None:
    g = GraphBuilder()
    g.param("w")
    g.param("x")
    load = g.op("Load", "Default/net", ["w"])
    r0 = g.op("ReLU", "Default/net/relu-ReLU", ["x", load])
    r1 = g.op("ReLU", "Default/net/relu-ReLU", [r0])
    tup = g.op("MakeTuple", "Default/net", [r1])
    g.op("Mul", "Default/net", [tup])
    g.op("ReluGrad", "Gradients/Default/net", [r1])
    g.op("ApplyMomentum", "Default/optimizer-Momentum", ["w"])
    g.op("Lonely", "Default/net", [])
    normal = build_graph(g.proto)
    assert "Gradients" in normal.nodes and "Default/net/Load-op0" in normal.nodes
    model = build_graph(g.proto, optimized=True)
    names = set(model.nodes)
    assert not any(n.startswith("Gradients") or "optimizer" in n for n in names)
    assert not any(t in n for n in names for t in ("Load", "MakeTuple", "Lonely"))
    # relu-ReLU held only ReLU nodes: flattened into its parent
    assert "Default/net/ReLU-op0" in names and "Default/net/relu-ReLU" not in names
    relu0 = model.nodes["Default/net/ReLU-op0"]
    assert "Default/net/w" in relu0.inputs  # wired through the Load
    assert "Default/net/ReLU-op1" in model.nodes["Default/net/Mul-op0"].inputs  # through MakeTuple
    assert model.nodes["Default/net/ReLU-op1"].scope == "Default/net"


def test_value_text_matches_protobuf_3_printing() -> None:
    v = anf_ir_pb2.ValueProto(dtype=11, float_val=2.0)
    assert value_text(v) == "dtype: DT_FLOAT32\nfloat_val: 2.0\n"
    assert value_text(anf_ir_pb2.ValueProto(dtype=11, float_val=0.5)).endswith("float_val: 0.5\n")
    assert value_text(anf_ir_pb2.ValueProto(dtype=13, str_val="é")) == 'dtype: DT_STRING\nstr_val: "\\303\\251"\n'
    assert value_text(anf_ir_pb2.ValueProto(dtype=5, int_val=3)) == "dtype: DT_INT64\nint_val: 3\n"
