"""msprobe's layer mapping (`msprobe compare -lm layer_mapping.yaml`, issue 35): which bench row each target row is
compared with, found by position inside each layer. Facts from mindstudio-probe 26.2's
msprobe/core/compare/layer_mapping/ (read for its rules; this is our code).

Every node of a dump becomes an item in a tree of layers, at a path of names:

* a Cell / Module at its own path: `Cell._backbone.conv1.Conv2d.forward.0` -> `_backbone.conv1` (type `Conv2d`);
* an API below its parent (construct.json) under its own name: `Mint.sum.0.forward` inside
  `Cell._backbone.norm.Normalize.forward.0` -> `_backbone.norm.sum`; an API without a parent below the top;
* a `parameters_grad` node at `<cell path>.<cell name>`; a backward node where its forward twin is.

The target's path is rewritten layer by layer with the yaml, `{layer type: {child path: bench child path}}`
(`TopLayer` — or `Cell` — for the top; a longer child path first; unlisted children keep their name), and the
target node meets the bench node at the same position: the same index among the nodes of its phase (forward,
backward, parameters_grad) at that path. Its rows then meet the bench node's rows of the same suffix (`.input.0`,
`.parameters.weight`); `N/A` where there is none. The result is msprobe's data mapping (`data_mapping_<ts>.yaml`).

As msprobe 26.2: stack.json adds nothing (msprobe looks its frames up by node name, which the grouped stack.json that
msprobe writes never holds), and without construct.json (and stack.json) there is no tree and no mapping.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from mindinsight_clone.analyzers.debugger.msprobe_compare import named_slots
from mindinsight_clone.ingest.msprobe_dump import DumpFile, Node

NA = "N/A"
TOP = "TopLayer"
GRAD = "parameters_grad"
LAYER_KINDS = ("Cell", "Module")
Rules = dict[str, dict[str, list[tuple[str, str, int]]]]  # layer type -> first name -> (path, to, length)


@dataclass(slots=True)
class _Item:
    name: str  # the node
    type_name: str
    state: str  # forward | backward | parameters_grad
    scope: str  # its path, `<top>.<name>...`
    position: int = -1  # its index among the nodes of its state at its path


@dataclass(slots=True)
class _Layer:
    type_name: str
    children: dict[str, _Layer] = field(default_factory=dict)
    nodes: dict[str, list[str]] = field(default_factory=dict)  # state -> node names, in execution order


def layer_pairs(target: DumpFile, bench: DumpFile, target_parents: Mapping[str, str | None],
                bench_parents: Mapping[str, str | None], layers: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Target row -> bench row (`N/A`: none) for every row of every target node placed in the tree; `{}` without
    a target tree (no construct.json). The parents are construct.json's (`{}` when a side has no stack.json)."""
    items = _items(target, target_parents)
    if not items:
        return {}
    mine, theirs = _tree(items), _tree(_items(bench, bench_parents))
    rules = _rules(layers)
    bench_nodes = {n.name: n for n in bench.nodes}
    target_nodes = {n.name: n for n in target.nodes}
    out: dict[str, str] = {}
    for item in items:
        node = target_nodes[item.name]
        found = _bench_node(mine, theirs, item, rules)
        rows = _suffixes(bench_nodes[found]) if found is not None else {}
        for suffix, name in _suffixes(node).items():
            out[name] = rows.get(suffix, NA)
    return out


def _suffixes(node: Node) -> dict[str, str]:
    return {name[len(node.name):]: name for name, _ in named_slots(node)}


def _items(dump: DumpFile, parents: Mapping[str, str | None]) -> list[_Item]:
    if not parents:
        return []
    items = [i for i in (_item(n.name, parents.get(n.name)) for n in dump.nodes) if i is not None]
    by_name = {i.name: i for i in items}
    for item in items:  # a backward node sits where its forward twin is
        parts = item.name.split(".")
        if "backward" in parts[-2:]:
            twin = by_name.get(".".join(parts[:-2] + [p.replace("backward", "forward") for p in parts[-2:]]))
            if twin is not None:
                item.scope = twin.scope
    _renumber(items, "ParallelTransformer", "layers")
    return items


def _item(name: str, parent: str | None) -> _Item | None:
    """A node's type, phase and path (msprobe's DumpDataItem); None for a name msprobe refuses (< 4 parts)."""
    parts = name.split(".")
    if len(parts) < 4:
        return None
    if parts[-1] == GRAD:  # an older layout: `<cell>.<Type>.parameters_grad`
        kind, own, type_name, state = GRAD, parts[-3], parts[-2], GRAD
    elif parts[-2] == GRAD and parts[-1].isdigit():
        kind, own, type_name, state = GRAD, parts[-4], parts[-3], GRAD
    else:
        kind, type_name = parts[0], parts[-3]
        own, state = (parts[-4], parts[-2]) if kind in LAYER_KINDS else (type_name, parts[-1])
    if kind in LAYER_KINDS:
        scope = parts[:-4] + parts[-3:]
    elif kind == GRAD:
        scope = parts
    elif parent:
        scope = parent.split(".")
        if len(scope) < 4 and len(scope) > 1:  # msprobe refuses a dotted parent of < 4 parts ("optimizer" is fine)
            return None
    else:
        scope = []
    layer = ".".join(scope[:-3]) if scope else TOP
    return _Item(name, type_name, state, f"{layer}.{own}")


def _renumber(items: list[_Item], type_name: str, below: str) -> None:
    """The `<layer of type_name>.<below>.<k>` children renumbered from 0 (MindSpore numbers pipeline-parallel
    transformer layers globally, PyTorch per stage): each path's number less the smallest found there."""
    lowest = {f"{i.scope}.{below}": math.inf for i in items if i.type_name == type_name}
    for prefix in lowest:
        lowest[prefix] = min((n for i in items if i.scope.startswith(prefix + ".")
                              and (n := _next_number(i.scope, prefix)) is not None), default=math.inf)
    for prefix, low in lowest.items():
        for item in items:
            number = _next_number(item.scope, prefix) if item.scope.startswith(prefix + ".") else None
            if number is not None:
                head = re.compile(rf"^{re.escape(prefix)}\.(\S+?)(?:\.|$)").search(item.scope)
                assert head is not None
                item.scope = f"{prefix}.{number - int(low)}" + item.scope[head.end(1):]


def _next_number(scope: str, prefix: str) -> int | None:
    """The last number in the path component after `prefix`, if any."""
    head = re.search(rf"^{re.escape(prefix)}\.(\S+?)(?:\.|$)", scope)
    numbers = re.findall(r"\d+", head.group(1)) if head else []
    return int(numbers[-1]) if numbers else None


def _tree(items: list[_Item]) -> _Layer:
    root = _Layer(TOP)
    for item in items:
        layer = root
        for part in item.scope.split(".")[1:]:
            child = layer.children.get(part)
            if child is None:
                child = layer.children[part] = _Layer(part)
            layer = child
        here = layer.nodes.setdefault(item.state, [])
        item.position = len(here)
        here.append(item.name)
        layer.type_name = item.type_name
    return root


def _rules(layers: Mapping[str, Mapping[str, str]]) -> Rules:
    """The yaml as rules per layer type and first child name, the longest path first (`Cell` means `TopLayer`; a
    bench path is cut at `(`)."""
    given = dict(layers)
    if given.get("Cell") is not None:
        given[TOP] = given.pop("Cell")
    out: Rules = {}
    for type_name, paths in given.items():
        by_first: dict[str, list[tuple[str, str, int]]] = {}
        for path, to in paths.items():
            parts = path.split(".")
            by_first.setdefault(parts[0], []).append((path, to.split("(")[0], len(parts)))
        for found in by_first.values():
            found.sort(key=lambda rule: -rule[2])
        out[type_name] = by_first
    return out


def _bench_node(mine: _Layer, theirs: _Layer, item: _Item, rules: Rules) -> str | None:
    """The bench node at the target node's rewritten path and position, if any."""
    scope = item.scope.split(".")
    path = TOP
    layer: _Layer | None = mine
    i = 0
    while i < len(scope) - 1 and layer is not None:
        child, to, step = scope[i + 1], scope[i + 1], 1
        for origin, target, length in rules.get(layer.type_name, {}).get(child, []):
            if ".".join(scope[i + 1:i + 1 + length]) == origin:
                to, step = target, length
                break
        path += "." + to
        for _ in range(step):
            layer = layer.children.get(scope[i + 1]) if layer is not None else None
            i += 1
    if layer is None:
        return None
    found: _Layer | None = theirs
    for part in path.split(".")[1:]:
        found = found.children.get(part) if found is not None else None
    names = found.nodes.get(item.state, []) if found is not None else []
    return names[item.position] if 0 <= item.position < len(names) else None
