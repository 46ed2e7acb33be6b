"""msprobe_graph_build's tree rules (issue 35) without ../shared: construct.json order, a backward node without a
parent, API runs under the root gathered, parameters_grad under the last backward call, post-order."""

from __future__ import annotations

from mindinsight_clone.analyzers.debugger import msprobe_graph_build as gb


def test_tree_follows_msprobes_graph_builder() -> None:
    construct: dict[str, str | None] = {
        "Tensor.add.0.forward": None,
        "Tensor.mul.0.forward": None,
        "Cell.net.Net.forward.0": None,
        "Mint.sum.0.forward": "Cell.net.fc.Dense.forward.0",
        "Cell.net.fc.Dense.forward.0": "Cell.net.Net.forward.0",
        "Tensor.sub.0.forward": None,
        "Cell.net.Net.backward.0": None,
        "Cell.net.fc.Dense.backward.0": None,  # no parent: its forward's parent's backward twin
    }
    tree = gb.build_tree(construct, [*construct, "Cell.net.fc.Dense.parameters_grad.0"])
    assert tree.children[gb.ROOT] == ["Apis_Between_Modules.0", "Cell.net.Net.forward.0", "Tensor.sub.0.forward",
                                      "Cell.net.Net.backward.0"]
    assert tree.types["Apis_Between_Modules.0"] == gb.API_COLLECTION
    assert tree.children["Apis_Between_Modules.0"] == ["Tensor.add.0.forward", "Tensor.mul.0.forward"]
    assert tree.parent["Cell.net.fc.Dense.backward.0"] == "Cell.net.Net.backward.0"
    assert tree.parent["Cell.net.fc.Dense.parameters_grad.0"] == "Cell.net.fc.Dense.backward.0"
    assert tree.ancestors("Mint.sum.0.forward") == [gb.ROOT, "Cell.net.Net.forward.0", "Cell.net.fc.Dense.forward.0"]
    order = tree.order()
    assert order[-1] == gb.ROOT and order[:3] == ["Tensor.add.0.forward", "Tensor.mul.0.forward",
                                                  "Apis_Between_Modules.0"]
    assert order.index("Mint.sum.0.forward") < order.index("Cell.net.fc.Dense.forward.0")


def test_node_types_and_legend() -> None:
    assert gb.node_type("Cell.a.B.forward.0") == gb.MODULE and gb.node_type("Mint.div.0.forward") == gb.API
    assert gb.node_type("Something.else") == gb.MODULE  # msprobe's default
    legend = gb.node_colors("statistics")
    assert [v["accuracy_level"] for v in legend.values()] == ["pass", "warning", "error", "unmatched node"]
    assert gb.node_colors("tensor")["#FF704D"]["description"] != legend["#FF704D"]["description"]
