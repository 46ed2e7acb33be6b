"""The JSON `.vis` msprobe `graph_visualize` wrote before `.vis.db` (issue 35), answered as `msprobe_vis` answers a db.

Who wrote it (read from the released wheels of mindstudio-probe): 1.2.0 to 1.3.0, 8.1.0 to 8.1.2 and 8.2.0 write
`GraphBuilder.to_json` (`json.dump`, so a NaN precision index is a bare `NaN` token: parsed with the standard
library, which orjson refuses); 8.2.1 and later write `.vis.db` only; 1.1 and older have no graph_visualize. One file
holds ONE step and rank: a run of several writes one file each, named `{build|compare}[_step<S>][_rank<R>]_<time>.vis`
(8.2.0 also `_merged<i>` for a merged parallel graph), so the step and rank are read from the name (0 without one).

    build:   {"root": "DefaultModel", "dump_data_dir": ..., "node": {<id>: <node>, ...},
              "MicroSteps"?: n, "OverflowCheck": bool}
    compare: {"NPU": {"root", "dump_data_dir", "node"}, "Bench": {"root", "dump_data_dir", "node"},
              "ToolTip": "<a JSON string>", "Colors": {"#RRGGBB": {"value": [lo, hi], "description"}},
              "MicroSteps"?: n, "task": "summary"|"all"|"md5"|..., "OverflowCheck": bool}
    <node>:  {"id", "node_type": 0 module | 1 api | 9 api collection, "upnode": <id> | "None",
              "subnodes": [<id>...], "input_data" / "output_data": {"<id>.input.0": {statistics, compare columns}},
              "matched_node_link": [<ancestors of the matched node>..., <its id>], "suggestions", "stack_info": [...],
              "micro_step_id"?, "data": {"precision_index"?, "overflow_level"?, "Result"? (md5)},
              "matched_distributed"?, "parallel_merge_info"? (8.2.0)}

The colours carry no `accuracy_level` (the db's legend has one): `level` is null here. tb-graph-ascend 1.0 also
looks for a `StepList` key and per-node `step_id`; no released msprobe writes them, and they are not read.

Node order: depth-first over `subnodes` from `root`, each node after its subnodes (post-order) — the order msprobe
8.2.1+ gives `node_order` when it writes the same graph into a `.vis.db` (`Graph.get_sorted_nodes`), so a graph
lists the same way from either file; the order of the `node` object is msprobe's internal map order, not shown.
Nodes no `subnodes` list reaches (msprobe writes none) follow in the file's order. `stack_id` is numbered the way
that writer numbers its `tb_stack` rows (`<graph>_<k>`, k-th distinct stack in node order).

The whole file is read (bounded by MAX_BYTES, through the storage seam) and parsed once; what is kept is the node
list and each node's statistics, stack and link (the routes cache it per file version).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

MAX_BYTES = 512 << 20  # a .vis above this is refused, not read (the parsed JSON costs several times its size)
SIDES = ("NPU", "Bench")
_STEP = re.compile(r"_step(\d+)_")
_RANK = re.compile(r"_rank(\d+)_")
NOT_MSPROBE = "is not an msprobe graph_visualize .vis"


def is_vis_json(name: str) -> bool:
    return name.lower().endswith(".vis")


def color_legend(node_colors: Any) -> list[dict[str, Any]]:
    """msprobe's `node_colors` (`{"#RRGGBB": {"value": [lo, hi], "description", "accuracy_level"?}}`) as a list."""
    if not isinstance(node_colors, dict):
        return []
    return [{"color": color, "range": facts.get("value") or [], "level": facts.get("accuracy_level"),
             "description": facts.get("description")}
            for color, facts in node_colors.items() if isinstance(facts, dict)]


@dataclass(slots=True)
class VisGraph:
    nodes: list[dict[str, Any]]  # as msprobe_vis.read_nodes answers them, in order
    details: dict[str, dict[str, Any]]  # name -> inputs / outputs / stack / matched_node_link


class VisJson:
    """A parsed `.vis`: the same answers as `msprobe_vis.read_config/read_graphs/read_nodes/read_node`."""

    def __init__(self, config: dict[str, Any], graphs: dict[str, VisGraph], step: int, rank: int, nbytes: int) -> None:
        self._config = config
        self._graphs = graphs
        self.step = step
        self.rank = rank
        self.nbytes = nbytes  # an estimate of what it holds in memory (the parse cache counts it)

    def config(self) -> dict[str, Any]:
        return dict(self._config)

    def graphs(self) -> list[dict[str, Any]]:
        return [{"graph": gid, "side": side, "step": self.step, "rank": self.rank, "nodes": len(g.nodes)}
                for side in SIDES if (g := self._graphs.get(gid := f"{side}_{self.step}_{self.rank}")) is not None]

    def nodes(self, graph: str) -> list[dict[str, Any]]:
        found = self._graphs.get(graph)
        return list(found.nodes) if found else []

    def node(self, graph: str, name: str) -> dict[str, Any] | None:
        found = self._graphs.get(graph)
        detail = found.details.get(name) if found else None
        return dict(detail) if detail is not None else None


def read(location: Location, max_bytes: int = MAX_BYTES) -> VisJson:
    """Read and parse a `.vis` (OSError when unreadable or above `max_bytes`; ValueError when it is not msprobe's)."""
    data = storage.read_bytes(location, max_size=max_bytes)
    return parse(data, location.name)


def parse(data: bytes, name: str) -> VisJson:
    try:
        doc = json.loads(data)
    except RecursionError as exc:
        raise ValueError(f"{name} {NOT_MSPROBE} (nested too deeply to parse)") from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{name} is not valid JSON (cut short, or not a .vis): {exc}") from exc
    if not isinstance(doc, dict):
        raise ValueError(f"{name} {NOT_MSPROBE} (not a JSON object)")
    step, rank = _place(name)
    if "NPU" in doc or "Bench" in doc:
        kind, sides = "compare", {side: _graph_object(doc.get(side), name, side) for side in SIDES}
    else:
        kind, sides = "build", {"NPU": _graph_object(doc, name, None)}
    graphs = {f"{side}_{step}_{rank}": _graph(graph, name, f"{side}_{step}_{rank}") for side, graph in sides.items()}
    config = {"graph_type": kind, "task": doc.get("task") if isinstance(doc.get("task"), str) else None,
              "overflow_check": bool(doc.get("OverflowCheck")), "colors": color_legend(doc.get("Colors")),
              "ranks": [rank], "steps": [step]}
    return VisJson(config, graphs, step, rank, nbytes=len(data) * 2 + 1024)  # kept: ~1.4x an indented file


def _place(name: str) -> tuple[int, int]:
    """The step and rank a file name says (`compare_step2_rank1_<time>.vis`), 0 when it says none."""
    step, rank = _STEP.search(name), _RANK.search(name)
    return (int(step.group(1)) if step else 0), (int(rank.group(1)) if rank else 0)


def _graph_object(value: Any, name: str, side: str | None) -> dict[str, Any]:
    where = f"'{side}' " if side else ""
    if not isinstance(value, dict):
        raise ValueError(f"{name} {NOT_MSPROBE} (no {where}graph object)")
    if not isinstance(value.get("node"), dict):
        raise ValueError(f"{name} {NOT_MSPROBE} (no {where}'node' object)")
    return value


def _graph(graph: dict[str, Any], name: str, graph_id: str) -> VisGraph:
    raw: dict[str, Any] = graph["node"]
    for node_id, node in raw.items():
        if not isinstance(node, dict):
            raise ValueError(f"{name} {NOT_MSPROBE} (node {node_id!r} of {graph_id} is not an object)")
    nodes: list[dict[str, Any]] = []
    details: dict[str, dict[str, Any]] = {}
    stacks: dict[str, str] = {}
    for node_id in _order(raw, graph.get("root")):
        node = raw[node_id]
        data = node.get("data") if isinstance(node.get("data"), dict) else {}
        link = _list(node.get("matched_node_link"))
        stack = _list(node.get("stack_info"))
        stack_id = stacks.setdefault(json.dumps(stack), f"{graph_id}_{len(stacks)}")
        level = data.get("overflow_level")
        nodes.append({"name": node_id, "parent": _parent(node), "type": _int(node.get("node_type")),
                      "order": len(nodes), "precision_index": _number(data.get("precision_index")),
                      "overflow_level": level if isinstance(level, str) and level else None,
                      "matched": bool(link), "stack_id": stack_id})
        details[node_id] = {"inputs": _dict(node.get("input_data")), "outputs": _dict(node.get("output_data")),
                            "stack": stack, "matched_node_link": link}
    return VisGraph(nodes, details)


def _order(raw: dict[str, Any], root: Any) -> list[str]:
    """Post-order depth-first over `subnodes` from the root (iterative: a deep graph does not recurse), then the
    nodes it did not reach in the file's order."""
    roots = [root] if isinstance(root, str) and root in raw else [k for k, n in raw.items() if _parent(n) is None]
    seen: set[str] = set()
    order: list[str] = []
    for start in roots:
        if start in seen:
            continue
        seen.add(start)
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            node_id, i = stack[-1]
            children = _list(raw[node_id].get("subnodes"))
            while i < len(children) and (not isinstance(children[i], str) or children[i] not in raw
                                         or children[i] in seen):
                i += 1
            if i < len(children):
                stack[-1] = (node_id, i + 1)
                seen.add(children[i])
                stack.append((children[i], 0))
            else:
                stack.pop()
                order.append(node_id)
    order += [k for k in raw if k not in seen]
    return order


def _parent(node: dict[str, Any]) -> str | None:
    up = node.get("upnode")
    return up if isinstance(up, str) and up and up != "None" else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | int | None:
    """A precision index; NaN (msprobe's json.dump writes bare NaN) is null, as SQLite stores it in a `.vis.db`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
