"""Graph nodes and edges as MindInsight shows them (`Node.to_dict` is the wire shape of one node).

Memory matters at 100k nodes: nodes and edge attributes use `__slots__`, and an edge attribute object is
shared between the two ends exactly where MindInsight shares its dicts (so that marking an edge
`independent_layout` on one side shows on the other side in the same cases).
"""

from __future__ import annotations

from typing import Any

NAME_SCOPE = "name_scope"
AGGREGATION_SCOPE = "aggregation_scope"
PARAMETER = "Parameter"
CONST = "Const"
# Operators that only move data around; the optimized view removes them and wires through.
PASS_THROUGH_TYPES = frozenset({"Load", "TupleGetItem", "MakeTuple", "UpdateState"})

EDGE_METHODS = ("inputs", "outputs", "proxy_inputs", "proxy_outputs")


def node_name(scope: str, base_name: str) -> str:
    """`scope/base_name`, or `base_name` at the root."""
    return f"{scope}/{base_name}" if scope else base_name


def is_dynamic_shape(shape: list[Any]) -> bool:
    return any(isinstance(item, list) and (-1 in item or -2 in item) for item in shape)


class Edge:
    """Attributes of one data or control edge: shape and type of the tensor that flows on it."""

    __slots__ = ("data_type", "edge_type", "independent_layout", "shape")

    def __init__(self, shape: list[Any], edge_type: str, independent_layout: bool = False,
                 data_type: str = "") -> None:
        self.shape = shape
        self.edge_type = edge_type
        self.independent_layout = independent_layout
        self.data_type = data_type

    def copy(self) -> Edge:
        return Edge(self.shape, self.edge_type, self.independent_layout, self.data_type)

    def to_dict(self) -> dict[str, Any]:
        return {"data_type": self.data_type, "edge_type": self.edge_type,
                "independent_layout": self.independent_layout, "shape": self.shape}


class Node:
    """One graph node: an operator, a Parameter, a Const, a name scope or an aggregation scope."""

    __slots__ = ("attr", "full_name", "independent_layout", "inputs", "is_dynamic_shape_node", "name",
                 "node_id", "output_data_type", "output_i", "output_shape", "outputs", "proxy_inputs",
                 "proxy_outputs", "scope", "subnode_count", "topological_index", "type")

    def __init__(self, name: str, node_id: str, node_type: str = "", scope: str = "",
                 topological_index: int = -1) -> None:
        self.name = name
        self.node_id = node_id
        self.type = node_type
        self.scope = scope
        self.full_name = ""
        self.topological_index = topological_index
        self.is_dynamic_shape_node = False
        self.attr: dict[str, str] = {}
        self.inputs: dict[str, Edge] = {}
        self.outputs: dict[str, Edge] = {}
        self.proxy_inputs: dict[str, dict[str, str]] = {}
        self.proxy_outputs: dict[str, dict[str, str]] = {}
        self.output_i = 0
        self.subnode_count = 0
        self.independent_layout = False
        self.output_shape: list[Any] = []
        self.output_data_type = ""

    def __repr__(self) -> str:
        return f"<Node {self.name} ({self.type})>"

    @property
    def is_scope(self) -> bool:
        return not self.type or self.type.endswith("_scope")

    def add_input(self, src: str, edge: Edge) -> None:
        if not self.is_dynamic_shape_node and is_dynamic_shape(edge.shape):
            self.is_dynamic_shape_node = True
        self.inputs[src] = edge

    def add_output(self, dst: str, edge: Edge) -> None:
        if not self.is_dynamic_shape_node and is_dynamic_shape(edge.shape):
            self.is_dynamic_shape_node = True
        self.outputs[dst] = edge

    def add_edge(self, method: str, name: str, value: Any) -> None:
        """Add to one of EDGE_METHODS by name (used where MindInsight loops over the four maps)."""
        if method == "inputs":
            self.add_input(name, value)
        elif method == "outputs":
            self.add_output(name, value)
        else:
            getattr(self, method)[name] = value

    def copy_as(self, name: str, scope: str) -> Node:
        """A copy without edges, under another name and scope (Parameter/Const placed per scope)."""
        twin = Node(name, name, self.type, scope, self.topological_index)
        twin.full_name = self.full_name
        twin.output_i = self.output_i
        twin.subnode_count = self.subnode_count
        twin.independent_layout = self.independent_layout
        twin.output_shape = self.output_shape
        twin.output_data_type = self.output_data_type
        twin.attr = dict(self.attr)
        return twin

    def to_dict(self) -> dict[str, Any]:
        return {
            "attr": self.attr,
            "independent_layout": self.independent_layout,
            "input": {k: e.to_dict() for k, e in self.inputs.items()},
            "is_dynamic_shape_node": self.is_dynamic_shape_node,
            "name": self.name,
            "output": {k: e.to_dict() for k, e in self.outputs.items()},
            "output_i": self.output_i,
            "proxy_input": self.proxy_inputs,
            "proxy_output": self.proxy_outputs,
            "stack_info": [],
            "subnode_count": self.subnode_count,
            "type": self.type,
        }
