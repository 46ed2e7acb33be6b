"""The `optimize` view (MindInsight's optimized_graph): the forward network only.

Differences from the normal view, as in MindInsight 2.3.1:
* operators whose full name starts with `Gradients`, contains `optimizer`, or whose instance name
  contains `opt` are left out;
* Load, TupleGetItem, MakeTuple and UpdateState are removed and their inputs/outputs wired through;
* operators left without any edge are removed;
* a scope holding only several operators of one type named in the scope (`relu-ReLU/ReLU-op0`,
  `relu-ReLU/ReLU-op1`) is flattened into its parent;
* aggregation starts at 10 children of one type instead of 5.

Deliberate difference: when an operator feeds a removed pass-through node, MindInsight 2.3.1 fails with
a TypeError (`add_outputs(src_name=...)`); here the output is wired through to the consumers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from mindinsight_clone.plugins.graphs.model import GraphModel
from mindinsight_clone.plugins.graphs.node import CONST, PARAMETER, PASS_THROUGH_TYPES, Edge, Node


def _forward_op(proto: Any) -> bool:
    full_name: str = proto.full_name
    return not (full_name.startswith("Gradients") or "optimizer" in full_name
                or "opt" in proto.instance_name)


class OptimizedGraphModel(GraphModel):
    min_group = 10

    def _keep_op(self) -> Callable[[Any], bool] | None:
        return _forward_op

    def _parse(self, proto: Any) -> None:
        super()._parse(proto)
        self.delete([n.name for n in self.nodes.values() if n.type in PASS_THROUGH_TYPES])
        self.delete([n.name for n in self._ops_in_order() if not n.inputs and not n.outputs])
        self._flatten_single_type_scopes()

    def _ops_in_order(self) -> list[Node]:
        ops = [n for n in self.nodes.values() if n.type not in (CONST, PARAMETER)]
        ops.sort(key=lambda n: n.topological_index)
        return ops

    def _resolve_inputs(self) -> None:
        super()._resolve_inputs()
        for node in self._ops_in_order():
            for src_name in list(node.inputs):
                src = self.nodes.get(src_name)
                if src is None or src.type not in PASS_THROUGH_TYPES:
                    continue
                del node.inputs[src_name]
                for source_name, edge in list(src.inputs.items()):
                    source = self.nodes.get(source_name)
                    if source is None:
                        continue
                    edge.shape = source.output_shape
                    edge.data_type = source.output_data_type
                    node.add_input(source.name, edge)

    def _link_outputs(self) -> None:
        super()._link_outputs()
        for node in self._ops_in_order():
            for dst_name in list(node.outputs):
                dst = self.nodes.get(dst_name)
                if dst is None or dst.type not in PASS_THROUGH_TYPES:
                    continue
                del node.outputs[dst_name]
                for consumer_name, edge in list(dst.outputs.items()):
                    if consumer_name not in self.nodes:
                        continue
                    node.add_output(consumer_name, Edge(node.output_shape, edge.edge_type, False,
                                                        node.output_data_type))

    def _flatten_single_type_scopes(self) -> None:
        ops = self._ops_in_order()
        types: dict[str, set[str]] = defaultdict(set)
        counts: dict[str, int] = defaultdict(int)
        for node in ops:
            if not node.scope or "/" not in node.scope:
                continue
            types[node.scope].add(node.type)
            counts[node.scope] += 1
        chosen = {scope for scope, kinds in types.items()
                  if len(kinds) == 1 and counts[scope] > 1 and next(iter(kinds)) in scope}
        if not chosen:
            return
        # a scope that has sub-scopes with operators is kept
        parents = {prefix for scope in types for prefix in _proper_prefixes(scope)}
        chosen -= parents
        for node in ops:
            if node.scope in chosen:
                base = node.name.rsplit("/", 1)[1]
                parent = node.scope.rsplit("/", 1)[0]
                self.rename(node, f"{parent}/{base}")


def _proper_prefixes(scope: str) -> list[str]:
    parts = scope.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]
