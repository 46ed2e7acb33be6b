"""Build the scope tree of one graph, as MindInsight 2.3.1 shows it, then freeze it into indexes.

Build steps (their order matters, as in MindInsight):
1. parse operators, parameters and consts; resolve inputs (ids -> names, shapes, data types); outputs;
2. place a copy of every Parameter in the scope of each operator that reads it;
3. aggregate: in one scope, >= `min_group` (5; 10 in the optimized view) children of the same type
   become children of an `aggregation_scope` node `<type>[<count>]_<i>`;
4. aggregated Parameters get an independent layout (proxy edges to the scope of their readers);
5. create `name_scope` nodes from the `/` in the names; a scope inherits the edges that leave it;
6. place a copy of every Const in the scope of each reader; count direct children.

Node order everywhere is the order in which MindInsight's node map holds them (renamed nodes move to the
end), because the UI lists scopes, search results and `nodes/all` in that order.

After the build, `GraphModel` is read-only: `children` (scope -> direct children, in order) serves the
scope listings and the search index lives in query.py.
"""

from __future__ import annotations

import gc
import logging
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from mindinsight_clone.errors import GraphTooLargeError
from mindinsight_clone.plugins.graphs.node import (
    AGGREGATION_SCOPE,
    CONST,
    EDGE_METHODS,
    NAME_SCOPE,
    PARAMETER,
    Edge,
    Node,
    is_dynamic_shape,
    node_name,
)
from mindinsight_clone.plugins.graphs.parse import parse_graph

FREEZE_AT_NODES = 20_000
DEFAULT_MAX_NODES = 500_000  # the max_graph_nodes setting's default
LOG = logging.getLogger(__name__)


def _prefixes(name: str) -> Iterator[str]:
    """Every proper `/`-prefix of `name`: `a/b/c` -> `a`, `a/b`."""
    index = name.find("/")
    while index != -1:
        yield name[:index]
        index = name.find("/", index + 1)


class GraphModel:
    """One built graph: node map (name -> Node, in display order) and scope -> children index."""

    min_group = 5

    def __init__(self, max_nodes: int = DEFAULT_MAX_NODES) -> None:
        self.max_nodes = max_nodes
        self.notes: list[str] = []  # what was bounded while building (limits.py), for the answers
        self.nodes: dict[str, Node] = {}
        self._ids: dict[str, str] = {}  # node id -> name
        self._params: dict[str, Node] = {}
        self._consts: dict[str, Node] = {}
        self.children: dict[str, list[Node]] = {}
        self.op_count = 0

    # ------------------------------------------------------------------ cache primitives
    def cache(self, node: Node) -> None:
        if node.type == CONST:
            self._consts[node.name] = node
        elif node.type == PARAMETER:
            self._params[node.name] = node
        self.nodes[node.name] = node
        self._ids[node.node_id] = node.name

    def delete(self, names: Iterator[str] | list[str] | set[str]) -> None:
        for name in names:
            self._params.pop(name, None)
            self._consts.pop(name, None)
            node = self.nodes.pop(name, None)
            if node is not None:
                self._ids.pop(node.node_id, None)

    def node_by_id(self, node_id: str) -> Node | None:
        name = self._ids.get(node_id)
        return None if name is None else self.nodes.get(name)

    def rename(self, node: Node, new_name: str, update_parent: bool = False) -> None:
        """Rename `node` and every reference to it (and, if asked, in the scopes of its neighbours)."""
        origin = node.name
        node.name = new_name
        node.scope = new_name.rsplit("/", 1)[0] if "/" in new_name else ""
        targets: dict[str, Node] = {}
        for method in EDGE_METHODS:
            for target_name in getattr(node, method):
                target = self.nodes.get(target_name)
                if target is None:
                    continue
                targets[target_name] = target
                if not update_parent:
                    continue
                for scope in _prefixes(target_name):
                    if scope in targets:
                        continue
                    scope_node = self.nodes.get(scope)
                    if scope_node is not None:
                        targets[scope] = scope_node
        for target in targets.values():
            for method in EDGE_METHODS:
                edges = getattr(target, method)
                value = edges.get(origin)
                if value is None:
                    continue
                del edges[origin]
                target.add_edge(method, new_name, value)
        self.delete([origin])
        self.cache(node)

    # ------------------------------------------------------------------ build
    def build(self, proto: Any) -> GraphModel:
        """Build from a GraphProto. The cyclic GC is paused meanwhile: the build allocates hundreds of
        thousands of containers without cycles, and GC passes would double the build time."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._build(proto)
        finally:
            if enabled:
                gc.enable()
        if len(self.nodes) >= FREEZE_AT_NODES:
            # Move what exists now (this graph included) out of the GC's sight: later full collections
            # would otherwise walk these millions of objects (~1 s pauses in requests). The graph holds
            # no reference cycles, so reference counting still frees it when it leaves the cache.
            gc.freeze()
        return self

    def _build(self, proto: Any) -> None:
        self._parse(proto)
        self._place_variables(PARAMETER)
        self._aggregate()
        self._independent_layout()
        self._name_scopes()
        self._place_variables(CONST)
        self._freeze()

    def _check_size(self, extra: int = 0) -> None:
        """GraphTooLargeError once the graph holds more than `max_nodes` nodes (scopes and placed copies count)."""
        if len(self.nodes) + extra > self.max_nodes:
            raise GraphTooLargeError(f"It has more than {self.max_nodes} nodes with its scopes (the "
                                     "max_graph_nodes setting).")

    def _parse(self, proto: Any) -> None:
        self.notes = parse_graph(proto, self.cache, self._keep_op()).notes()
        if self.notes:
            LOG.warning("graph %r: %s", str(proto.name)[:200], "; ".join(self.notes))
        self._check_size()
        self._resolve_inputs()
        self._link_outputs()

    def _keep_op(self) -> Callable[[Any], bool] | None:
        return None

    def _resolve_inputs(self) -> None:
        """Input keys are node ids in the proto; make them names and fill in shape and data type."""
        for node in self.nodes.values():
            for src_id, edge in list(node.inputs.items()):
                del node.inputs[src_id]
                src = self.node_by_id(src_id)
                if src is None:
                    continue
                edge.shape = src.output_shape
                edge.data_type = src.output_data_type
                node.add_input(src.name, edge)

    def _link_outputs(self) -> None:
        for node in self.nodes.values():
            for src_name, edge in node.inputs.items():
                src = self.nodes.get(src_name)
                if src is None or src.type in (CONST, PARAMETER):
                    continue
                src.add_output(node.name, edge)

    def _place_variables(self, node_type: str) -> None:
        """A copy of each Parameter (or Const) in the scope of every node that reads it."""
        cache = self._params if node_type == PARAMETER else self._consts
        placed: dict[str, Node] = {}
        for node in list(self.nodes.values()):
            for src_name, edge in list(node.inputs.items()):
                source = cache.get(src_name)
                if source is None:
                    continue
                var_name = node_name(node.scope, src_name)
                variable = placed.get(var_name)
                if variable is None:
                    variable = source.copy_as(var_name, node.scope)
                variable.add_output(node.name, edge.copy())
                placed[var_name] = variable
                del node.inputs[src_name]
                node.add_input(var_name, edge.copy())
            self._check_size(len(placed))
        for variable in placed.values():
            self.cache(variable)
        self.delete(set(cache) - set(placed))

    def _aggregate(self) -> None:
        groups: dict[str, list[Node]] = defaultdict(list)
        for node in self.nodes.values():
            if node.type in (CONST, NAME_SCOPE):
                continue
            groups[node_name(node.scope, node.type)].append(node)
        big = [(name, members) for name, members in groups.items() if len(members) >= self.min_group]
        made: list[tuple[Node, list[Node]]] = []
        for i, (group, members) in enumerate(big):
            scope, _, op_type = group.rpartition("/")
            agg_name = node_name(scope, f"{op_type}[{len(members)}]_{i}")
            agg = Node(agg_name, agg_name, AGGREGATION_SCOPE, scope)
            agg.subnode_count = len(members)
            for member in members:
                self.rename(member, node_name(agg_name, member.name.split("/")[-1]))
                member.scope = agg_name
            self.cache(agg)
            made.append((agg, members))
        for agg, members in made:
            self._inherit(agg, members)

    def _inherit(self, parent: Node, subnodes: list[Node]) -> None:
        """Give `parent` the edges of `subnodes` that leave it (not to Consts)."""
        prefix = parent.name + "/"
        for method in EDGE_METHODS:
            for node in subnodes:
                for item_name, value in getattr(node, method).items():
                    if item_name.startswith(prefix):
                        continue
                    target = self.nodes.get(item_name)
                    if target is None or target.type == CONST:
                        continue
                    parent.add_edge(method, item_name, value)

    def _independent_layout(self) -> None:
        scopes = {n.name: n for n in self.nodes.values()
                  if n.type == AGGREGATION_SCOPE and PARAMETER in n.name.split("/")[-1]}
        if not scopes:
            return
        members: dict[str, list[Node]] = defaultdict(list)
        for node in self.nodes.values():
            if node.scope in scopes:
                members[node.scope].append(node)
        for scope_node in scopes.values():
            scope_node.independent_layout = True
            for target_name, edge in list(scope_node.outputs.items()):
                proxy = {"edge_type": edge.edge_type}
                target = self.nodes.get(target_name)
                if target is None:
                    continue
                target.proxy_inputs[scope_node.name] = proxy
                if target.scope == scope_node.scope:
                    scope_node.proxy_outputs[target_name] = proxy
                else:
                    scope_node.proxy_outputs[target.scope] = proxy
                    target_scope = self.nodes.get(target.scope)
                    if target_scope is not None:
                        target_scope.proxy_inputs[scope_node.name] = proxy
            for sub in members[scope_node.name]:
                sub.independent_layout = True
                for target_name, edge in list(sub.outputs.items()):
                    proxy = {"edge_type": edge.edge_type}
                    target = self.nodes.get(target_name)
                    if target is None:
                        continue
                    key = target_name if target.scope == scope_node.scope else target.scope
                    sub.proxy_outputs[key] = proxy
                    back = target.inputs.get(sub.name)
                    if back is not None:
                        back.independent_layout = True
                        del target.inputs[sub.name]
                        target.add_input(sub.name, back)

    def _name_scopes(self) -> None:
        made: dict[str, Node] = {}
        work = list(self.nodes.values())
        for node in work:  # grows: a node renamed by a conflict is visited again at the end
            name = node.name
            if self.nodes.get(name) is not node:
                continue
            parents: list[Node] = []
            pre = -1
            index = name.find("/")
            while index > 0:
                scope = name[:index]
                scope_node = made.get(scope)
                if scope_node is None:
                    existing = self.nodes.get(scope)
                    if existing is not None and existing.type == AGGREGATION_SCOPE:
                        pre, index = index, name.find("/", index + 1)
                        continue
                    if existing is not None:
                        # an operator has the name of a scope: it becomes `(name)`
                        base = scope.split("/")[-1]
                        self.rename(existing, node_name(existing.scope, f"({base})"), update_parent=True)
                        work.append(existing)
                    scope_node = Node(scope, scope, NAME_SCOPE, "" if pre < 0 else name[:pre])
                    made[scope] = scope_node
                    self._check_size(len(made))
                parents.append(scope_node)
                pre, index = index, name.find("/", index + 1)
            if parents:
                self._inherit_into(parents, node)
        for scope_node in made.values():
            self.cache(scope_node)

    def _inherit_into(self, parents: list[Node], node: Node) -> None:
        """`_inherit(parent, [node])` for each parent, looking each edge's target up only once."""
        nodes = self.nodes
        edges: list[tuple[str, str, Any, bool]] = []
        for method in EDGE_METHODS:
            for item_name, value in getattr(node, method).items():
                target = nodes.get(item_name)
                if target is None or target.type == CONST:
                    continue
                dynamic = isinstance(value, Edge) and is_dynamic_shape(value.shape)
                edges.append((method, item_name, value, dynamic))
        if not edges:
            return
        for parent in parents:
            prefix = parent.name + "/"
            for method, item_name, value, dynamic in edges:
                if item_name.startswith(prefix):
                    continue
                getattr(parent, method)[item_name] = value
                if dynamic:
                    parent.is_dynamic_shape_node = True

    def _freeze(self) -> None:
        counts: dict[str, int] = defaultdict(int)
        children: dict[str, list[Node]] = defaultdict(list)
        for node in self.nodes.values():
            if not node.full_name:
                node.full_name = node.name
            children[node.scope].append(node)
            if node.scope and node.scope in self.nodes:
                counts[node.scope] += 1
        for scope, count in counts.items():
            self.nodes[scope].subnode_count = count
        self.children = dict(children)
        self.op_count = sum(1 for n in self.nodes.values() if not n.is_scope)
        self._params.clear()
        self._consts.clear()
        self._ids.clear()
