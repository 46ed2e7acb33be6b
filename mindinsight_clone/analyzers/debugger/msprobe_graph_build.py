"""The side-by-side compare graph of two msprobe dumps, built here (issue 35): what `msprobe graph_visualize -tp
<target> -gp <bench>` writes into a `.vis.db`, without running it. Answers as `ingest/msprobe_vis` answers a db
(`config` / `graphs` / `nodes` / `node`), so the graph routes and page draw it unchanged.

msprobe 26.2's rules (visualization/builder/graph_builder.py, graph/graph.py, compare/graph_comparator.py,
compare/mode_adapter.py, graph/node_colors.py), kept:

* **Tree** per side: a root `DefaultModel`; construct.json's `{node: parent}` in file order, a child listed under its
  parent in the order it is first attached (a node keeps its first parent). A backward node without a parent takes
  its forward node's parent's backward twin; a backward node whose parent's path differs from its own takes that
  twin too (inplace layers). Consecutive API nodes (two or more) directly under the root are gathered into
  `Apis_Between_Modules.<k>` (type 9). `<cell>.parameters_grad[.k]` entries of dump.json become nodes under the
  cell's last backward call. Node type by name: 0 Cell/Module (and anything unknown), 1 API.
* **Order**: depth-first from the root, each node after its children (msprobe's `node_order`).
* **Match**: breadth-first over the target tree; a target node is matched when the bench has a node of the same
  name with the same ancestors (with a cross-framework `mapping`: the bench node of its rows' bench rows, else the
  same name); `matched_node_link` is the ancestors of the matched node then its name, on both sides.
* **Precision index** (target side only; the bench's is null): a matched node with compare rows takes its worst
  row's verdict (pass 0, warning 0.5, error 1) — msprobe's per-node indicator, the same checkers as its csv, whose
  verdicts `msprobe_compare` reproduces; `empty`-family APIs 0; an `Apis_Between_Modules` collection the largest of
  its children's (matched or not, missing = 0); an unmatched node, or one without rows (the root), null.
* **Colours**: msprobe's `node_colors` for the mode (statistics: "summary", tensor: "all"), as it writes them.

Not done: msprobe's recompute re-parenting (`_handle_recompute`, for recomputed layers at the top level), micro
steps, fuzzy matching, overflow levels (`-oc`: the graph answers `overflow_check` false, `overflow_level` null).
In tensor mode the verdicts are still the statistics rules (docs/msprobe-compare.md), so a tensor graph's indices
can differ from msprobe's (its tensor checkers use the cosine and error ratios).
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from mindinsight_clone.analyzers.debugger.msprobe_compare import Comparison, named_slots
from mindinsight_clone.ingest.msprobe_dump import DumpFile, Slot
from mindinsight_clone.ingest.msprobe_vis_json import color_legend

ROOT = "DefaultModel"
COLLECTION = "Apis_Between_Modules"
MODULE, API, API_COLLECTION = 0, 1, 9
_MODULE_RE = re.compile(r"^(Module.|Cell.|optimizer|clip_grad|DefaultModel)")
_API_RE = re.compile(r"^(Tensor.|Torch.|Functional.|NPU.|VF.|Distributed.|Aten.|Mint.|Primitive.|Jit.|"
                     r"MintFunctional.|MindSpeed.)")
_BACKWARD = re.compile(r"(\.backward\.)(\d+)$")
_FORWARD = re.compile(r"(\.forward\.)(\d+)$")
_PARAMS_GRAD = re.compile(r"\.parameters_grad(?:\.\d+)?$")
IGNORED_APIS = frozenset({"empty", "empty_like", "empty_with_format", "new_empty_strided", "new_empty",
                          "empty_strided"})
PRECISION = (0, 0.5, 1)  # by verdict code: pass, warning, error
_SUMMARY = "此节点所有输入输出的统计量误差, 颜色越深代表调试侧与标杆侧的偏差越大"
_REAL_DATA = "此节点所有输入输出的 tensor 误差, 颜色越深代表调试侧与标杆侧的偏差越大"
_NOT_MATCHED = "比对过程中节点未匹配上"
TENSOR_COLUMNS = {"cosine": "Cosine", "euc_dist": "EucDist", "max_abs_err": "MaxAbsErr",
                  "max_relative_err": "MaxRelativeErr", "one_thousandth_err_ratio": "One Thousandth Err Ratio",
                  "five_thousandths_err_ratio": "Five Thousandths Err Ratio"}  # tensor mode: msprobe's names
TASKS = {"statistics": "summary", "tensor": "all"}  # our mode -> msprobe's tb_config.task


def node_colors(mode: str) -> dict[str, dict[str, Any]]:
    """msprobe's `node_colors` for a compare in `mode`, as graph_visualize writes it into tb_config."""
    text = _REAL_DATA if mode == "tensor" else _SUMMARY
    return {"#FFFCF3": {"value": [0, 0.3], "description": text, "accuracy_level": "pass"},
            "#FFDC7F": {"value": [0.3, 0.6], "description": text, "accuracy_level": "warning"},
            "#FF704D": {"value": [0.6, 1], "description": text, "accuracy_level": "error"},
            "#C7C7C7": {"value": [], "description": _NOT_MATCHED, "accuracy_level": "unmatched node"}}


def node_type(name: str) -> int:
    if _MODULE_RE.match(name):
        return MODULE
    return API if _API_RE.match(name) else MODULE


@dataclass
class Tree:
    """One side's hierarchy: every attached node's parent and its children in order."""

    parent: dict[str, str | None] = field(default_factory=lambda: {ROOT: None})
    children: dict[str, list[str]] = field(default_factory=lambda: {ROOT: []})
    types: dict[str, int] = field(default_factory=lambda: {ROOT: MODULE})

    def add(self, name: str, kind: int | None = None) -> None:
        if name not in self.children:
            self.children[name] = []
            self.types[name] = node_type(name) if kind is None else kind

    def attach(self, name: str, up: str) -> None:
        if name == up or name in self.parent:  # msprobe: a node keeps its first parent
            return
        self.parent[name] = up
        self.children[up].append(name)

    def ancestors(self, name: str) -> list[str]:
        out: list[str] = []
        seen: set[str] = set()
        cur = self.parent.get(name)
        while cur is not None and cur not in seen:
            seen.add(cur)
            out.append(cur)
            cur = self.parent.get(cur)
        return out[::-1]

    def order(self) -> list[str]:
        """Depth-first from the root, each node after its children (msprobe's `get_sorted_nodes`)."""
        visited: set[str] = set()
        out: list[str] = []
        stack: list[tuple[str, bool]] = [(ROOT, False)]
        while stack:
            name, done = stack.pop()
            if name in visited:
                continue
            if done:
                visited.add(name)
                out.append(name)
            else:
                stack.append((name, True))
                stack.extend((c, False) for c in reversed(self.children.get(name, [])) if c not in visited)
        return out


def build_tree(construct: dict[str, str | None], dump_names: list[str]) -> Tree:
    """msprobe's GraphBuilder over construct.json (module docstring), without recompute handling."""
    tree = Tree()
    for sub, given in construct.items():
        up = _backward_inplace(construct, sub, given) if given else _backward_missing(construct, sub, given)
        if up:
            tree.add(up)
        tree.add(sub)
        tree.attach(sub, up or ROOT)
    _collect_apis(tree)
    _add_parameters_grad(tree, dump_names)
    return tree


def _backward_missing(construct: dict[str, str | None], sub: str, up: str | None) -> str | None:
    if _BACKWARD.search(sub):
        forward_up = construct.get(_BACKWARD.sub(r".forward.\2", sub))
        if forward_up:
            twin = _FORWARD.sub(r".backward.\2", forward_up)
            if twin in construct:
                return twin
    if sub.endswith(".backward"):
        forward_up = construct.get(sub.replace("backward", "forward"))
        if forward_up:
            twin = forward_up.replace("forward", "backward")
            if twin in construct:
                return twin
    return up


def _backward_inplace(construct: dict[str, str | None], sub: str, up: str) -> str | None:
    if not _BACKWARD.search(sub):
        return up
    sub_parts, up_parts = sub.split("."), up.split(".")
    if len(sub_parts) < 5 or len(up_parts) < 4 or ".".join(sub_parts[:-4]) == ".".join(up_parts[:-3]):
        return up
    forward = _BACKWARD.sub(r".forward.\2", sub)
    if forward in construct:
        forward_up = construct.get(forward)
        if not forward_up:
            return forward_up
        twin = _FORWARD.sub(r".backward.\2", forward_up)
        if twin in construct:
            return twin
    return up


def _collect_apis(tree: Tree) -> None:
    top = tree.children[ROOT]
    out: list[str] = []
    i, k = 0, 0
    while i < len(top):
        if tree.types[top[i]] != API:
            out.append(top[i])
            i += 1
            continue
        run = [top[i]]
        i += 1
        while i < len(top) and tree.types[top[i]] == API:
            run.append(top[i])
            i += 1
        if len(run) < 2:
            out.extend(run)
            continue
        name = f"{COLLECTION}.{k}"
        k += 1
        tree.add(name, API_COLLECTION)
        tree.parent[name] = ROOT
        tree.children[name] = run
        for api in run:
            tree.parent[api] = name
        out.append(name)
    tree.children[ROOT] = out


def _add_parameters_grad(tree: Tree, dump_names: list[str]) -> None:
    suffixes: dict[str, list[str]] = {}
    for name in dump_names:
        m = _PARAMS_GRAD.search(name)
        if m and name not in tree.children:
            suffixes.setdefault(name[:m.start()], []).append(name[m.start():])
    last = dict.fromkeys(suffixes, 0)
    for name in tree.children:
        parts = name.split(".")
        if len(parts) > 2 and parts[-2] == "backward" and parts[-1].isdigit():
            prefix = ".".join(parts[:-2])
            if prefix in last and int(parts[-1]) > last[prefix]:
                last[prefix] = int(parts[-1])
    for prefix, num in last.items():
        owner = f"{prefix}.backward.{num}"
        if owner in tree.children:
            for suffix in suffixes[prefix]:
                tree.add(prefix + suffix, MODULE)
                tree.attach(prefix + suffix, owner)


@dataclass
class Side:
    """One side's graph: its nodes in order (as `msprobe_vis.read_nodes` answers them) and each node's details."""

    graph: str
    nodes: list[dict[str, Any]]
    details: dict[str, dict[str, Any]]


class BuiltGraph:
    """A compare graph built from two dumps: `msprobe_vis.VisGraphs`."""

    def __init__(self, mode: str, step: int, rank: int, sides: dict[str, Side]) -> None:
        self.mode = mode
        self.step = step
        self.rank = rank
        self.sides = sides

    def config(self) -> dict[str, Any]:
        return {"graph_type": "compare", "task": TASKS.get(self.mode, self.mode), "overflow_check": False,
                "colors": color_legend(node_colors(self.mode)), "ranks": [self.rank], "steps": [self.step]}

    def graphs(self) -> list[dict[str, Any]]:
        return [{"graph": s.graph, "side": side, "step": self.step, "rank": self.rank, "nodes": len(s.nodes)}
                for side, s in self.sides.items()]

    def nodes(self, graph: str) -> list[dict[str, Any]]:
        found = next((s for s in self.sides.values() if s.graph == graph), None)
        return list(found.nodes) if found else []

    def node(self, graph: str, name: str) -> dict[str, Any] | None:
        found = next((s for s in self.sides.values() if s.graph == graph), None)
        detail = found.details.get(name) if found else None
        return dict(detail) if detail is not None else None


def build(target: DumpFile, bench: DumpFile, parents: tuple[dict[str, str | None], dict[str, str | None]],
          stacks: tuple[dict[str, list[str]], dict[str, list[str]]], comparison: Comparison, mode: str,
          step: int, rank: int) -> BuiltGraph:
    """The two graphs of `target` vs `bench` (module docstring); `comparison` is `msprobe_compare.compare` of the
    two (mapped or not), `parents` each side's construct.json, `stacks` each side's stack.json."""
    trees = (build_tree(parents[0], [n.name for n in target.nodes]),
             build_tree(parents[1], [n.name for n in bench.nodes]))
    rows: dict[str, list[int]] = {}
    for i, node in enumerate(comparison.nodes):
        rows.setdefault(node, []).append(i)
    links = _match(trees, comparison, bench, rows)
    precision = _precision(trees[0], links[0], comparison, rows)
    sides = {}
    for k, (side, dump) in enumerate((("NPU", target), ("Bench", bench))):
        graph = f"{side}_{step}_{rank}"
        sides[side] = _side(graph, trees[k], links[k], precision if k == 0 else {}, dump, stacks[k],
                            comparison if k == 0 else None, rows)
    return BuiltGraph(mode, step, rank, sides)


def _match(trees: tuple[Tree, Tree], comparison: Comparison, bench: DumpFile,
           rows: dict[str, list[int]]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    mine, theirs = trees
    links: tuple[dict[str, list[str]], dict[str, list[str]]] = ({}, {})
    bench_node_of: dict[str, str] = {}
    if comparison.bench_names is not None:  # a mapped comparison: the bench node of each bench row
        bench_node_of = {row: node.name for node in bench.nodes for row, _ in named_slots(node)}
    queue = deque([ROOT])
    while queue:
        name = queue.popleft()
        queue.extend(mine.children.get(name, []))
        if comparison.bench_names is None:
            other = name if name in theirs.parent else None
            if other is None or mine.ancestors(name) != theirs.ancestors(other):
                continue
        else:
            paired = [bench_node_of.get(b or "") for i in rows.get(name, []) if (b := comparison.bench_names[i])]
            other = next((p for p in paired if p in theirs.parent), name if name in theirs.parent else None)
            if other is None:
                continue
        links[0][name] = [*theirs.ancestors(other), other]
        links[1][other] = [*mine.ancestors(name), name]
        if comparison.bench_names is None:  # msprobe's add_link: one list on both sides
            links[1][other] = links[0][name]
    return links


def _precision(tree: Tree, links: dict[str, list[str]], comparison: Comparison,
               rows: dict[str, list[int]]) -> dict[str, float | int]:
    out: dict[str, float | int] = {}
    for name in links:
        found = rows.get(name)
        if not found:
            continue  # nothing compared (the root, a cell without data): no index
        parts = name.split(".")
        out[name] = 0 if len(parts) > 1 and parts[1] in IGNORED_APIS else \
            PRECISION[int(max(comparison.results[i] for i in found))]
    for name in tree.children[ROOT]:
        if tree.types[name] == API_COLLECTION:
            out[name] = max((out.get(c, 0) for c in tree.children[name]), default=0)
    return out


def _side(graph: str, tree: Tree, links: dict[str, list[str]], precision: dict[str, float | int], dump: DumpFile,
          stacks: dict[str, list[str]], comparison: Comparison | None, rows: dict[str, list[int]]) -> Side:
    by_name = {n.name: n for n in dump.nodes}
    stack_ids: dict[str, str] = {}
    nodes: list[dict[str, Any]] = []
    details: dict[str, dict[str, Any]] = {}
    for name in tree.order():
        stack = _stack(name, stacks)
        stack_id = stack_ids.setdefault(json.dumps(stack), f"{graph}_{len(stack_ids)}")
        nodes.append({"name": name, "parent": tree.parent.get(name), "type": tree.types[name], "order": len(nodes),
                      "precision_index": precision.get(name), "overflow_level": None, "matched": name in links,
                      "stack_id": stack_id})
        found = by_name.get(name)
        compared = {}
        if comparison is not None and name in links:
            compared = {r["target_name"]: r for r in comparison.rows_json(rows.get(name, []))}
        inputs: dict[str, Any] = {}
        outputs: dict[str, Any] = {}
        for row, slot in named_slots(found) if found is not None else []:
            facts = {**_leaf(slot), **_compare_columns(compared.get(row))}
            (outputs if ".output." in row and ".input." not in row else inputs)[row] = facts
        details[name] = {"inputs": inputs, "outputs": outputs, "stack": stack,
                         "matched_node_link": links.get(name, [])}
    return Side(graph, nodes, details)


def _stack(name: str, stacks: dict[str, list[str]]) -> list[str]:
    found = stacks.get(name)
    if found:
        return list(found)
    if _BACKWARD.search(name):  # a backward node shows its forward call's stack, as msprobe does
        return list(stacks.get(_BACKWARD.sub(".forward.0", name)) or [])
    if name.endswith(".backward"):
        return list(stacks.get(name.replace("backward", "forward")) or [])
    return []


def _leaf(slot: Slot) -> dict[str, str]:
    """msprobe's leaf with every value a string (what graph_visualize writes into input_data / output_data)."""
    leaf = slot.leaf if isinstance(slot.leaf, dict) else {}
    out = {k: _text(v) for k, v in leaf.items() if k not in ("md5", "state", "full_op_name")}
    out.setdefault("data_name", "-1")
    out.setdefault("requires_grad", "null")
    return out


def _compare_columns(row: dict[str, Any] | None) -> dict[str, str]:
    if row is None:
        return {}
    names = {"max": "Max", "min": "Min", "mean": "Mean", "norm": "L2norm"}
    out = {f"{names[k]} diff": _text(row[f"{k}_diff"]) for k in names}
    out |= {f"{names[k].replace('L2norm', 'Norm')}RelativeErr": _percent(row[f"{k}_relative_err"]) for k in names}
    if "euc_dist" in row:  # a tensor-mode row: its tensor metrics
        out |= {theirs: _text(row[ours]) for ours, theirs in TENSOR_COLUMNS.items() if row.get(ours) is not None}
    out["Result"] = row["result"]
    out["Err_message"] = json.dumps(row["err_message"], ensure_ascii=False)
    return out


def _percent(value: Any) -> str:
    if value is None:
        return "N/A"
    return f"{value * 100:.6f}%" if isinstance(value, float | int) else str(value)


def _text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    return json.dumps(value) if isinstance(value, list | dict) else str(value)
