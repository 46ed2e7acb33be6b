"""Reference computations of two Ascend tables, written from the profilers' own code for the tests (never from ours):

* `operator_details`: torch_npu's OperatorViewParser (torch_npu/profiler/analysis/prof_view/
  _operator_view_parser.py, prof_common_func/_tree_builder.py, prof_parse/_fwk_cann_relation_parser.py,
  prof_parse/_cann_file_parser.py): the operator tree by time, enqueue -> operator, launch -> dequeue, one device
  task per launch (the first arrow end of each flow);
* `api_statistic_row`: msprof's ApiStatisticViewer._api_statistic_reformat (msprof analysis/viewer/
  api_statistic_viewer.py).

Both are checked against the text export's own files (tests/integration/test_ascend_db.py) before they judge the
database export's answers, so a test comparing against them compares against the profiler's numbers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

Kernel = tuple[float, bool | None]  # (duration µs, on the AI Core; None when the core is not recorded)


def api_statistic_row(level: str, name: str, durations: Sequence[float]) -> list[Any]:
    """`Level, API Name, Time(us), Count, Avg(us), Min(us), Max(us), Variance` of one API's call durations (µs)."""
    total = round(sum(durations), 3)
    avg = round(total / len(durations), 3)
    variance = round(sum(round((d - avg) ** 2, 3) for d in durations) / len(durations), 3)
    return [level, name, total, len(durations), avg, round(min(durations), 3), round(max(durations), 3), variance]


def _innermost(children: list[dict[str, Any]], ts: int) -> list[dict[str, Any]]:
    """TreeBuilder.update_tree_node_info's path: descend by TorchOpNode.match_child_node (the last child starting
    at or before ts, else the first child; kept only when it ends after ts)."""
    path = []
    while children:
        before = [c for c in children if c["start"] <= ts]
        pick = before[-1] if before else children[0]
        if not pick["end"] > ts:
            break
        path.append(pick)
        children = pick["children"]
    return path


def operator_details(ops: Sequence[tuple[int, int, Any, Any]], enqueues: Sequence[tuple[int, Any, Any]],
                     dequeues: Sequence[tuple[int, int, Any]], launches: dict[int, list[Kernel]],
                     step_mark: str = "ProfilerStep#") -> list[tuple[Any, ...]]:
    """ops (start ns, end ns, thread, payload) in table order; enqueues (start ns, thread, correlation);
    dequeues (start ns, end ns, correlation); launches: launch start ns -> its kernels.
    Returns per operator (payload, host self µs, host total µs, device self, device total, AI Core self, AI Core
    total) in start order, ProfilerStep# operators left out."""
    events = sorted([(o[0], 0, i) for i, o in enumerate(ops)] + [(e[0], 1, i) for i, e in enumerate(enqueues)],
                    key=lambda e: e[0])
    root: dict[str, Any] = {"children": [], "parent": None}
    nodes: list[dict[str, Any]] = []
    last = root
    for ts, kind, i in events:
        while last is not root and ts > last["end"]:
            last = last["parent"]
        if kind == 0:
            start, end, tid, payload = ops[i]
            node = {"start": start, "end": end, "tid": tid, "payload": payload, "parent": last, "children": [],
                    "self": [], "total": []}
            last["children"].append(node)
            nodes.append(node)
            last = node
        elif last is not root and last["tid"] == enqueues[i][1]:
            last["self"].append(enqueues[i][2])
            walk = last
            while walk is not root:
                walk["total"].append(enqueues[i][2])
                walk = walk["parent"]
    kernels: dict[Any, list[Kernel]] = {}
    if enqueues and dequeues:
        for start, work in launches.items():
            holders = [d for d in dequeues if d[0] <= start <= d[1]]
            if holders:
                kernels.setdefault(holders[0][2], []).extend(work)
    else:
        for start, work in launches.items():
            kernels[start] = work
            path = _innermost(root["children"], start)
            for node in path:
                node["total"].append(start)
            if path:
                path[-1]["self"].append(start)

    def ai(found: list[Kernel]) -> float | None:
        return None if any(a is None for _, a in found) else sum(d for d, a in found if a)

    out = []
    for node in nodes:
        if step_mark in node["payload"][0]:
            continue
        total = node["end"] - node["start"]
        own = total - sum(c["end"] - c["start"] for c in node["children"])
        mine = [k for c in node["self"] for k in kernels.get(c, [])]
        below = [k for c in node["total"] for k in kernels.get(c, [])]
        out.append((node["payload"], own / 1000, total / 1000, sum(d for d, _ in mine), sum(d for d, _ in below),
                    ai(mine), ai(below)))
    return out


def trace_inputs(trace_view: Path) -> tuple[list[Any], list[Any], list[Any], dict[int, list[Kernel]],
                                            dict[tuple[str, str], list[float]]]:
    """The text export's trace_view.json as the references' inputs: (operators, enqueues, dequeues, launches) and
    the CANN API durations per (API name, level)."""
    events = json.loads(trace_view.read_text(encoding="utf-8"))

    def ns(ts: Any) -> int:
        return int(Decimal(str(ts)) * 1000)

    names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    python = [e for e in events if e.get("ph") == "X" and names.get(e["pid"]) == "Python"]
    ops = [(ns(e["ts"]), ns(e["ts"]) + int(e["dur"] * 1000), e["tid"], (e["name"],))
           for e in python if e.get("cat") == "cpu_op"]
    enqueues = [(ns(e["ts"]), e["tid"], e["args"]["correlation_id"]) for e in python if e.get("cat") == "enqueue"]
    dequeues = sorted((ns(e["ts"]), ns(e["ts"]) + int(e["dur"] * 1000), e["args"]["correlation_id"])
                      for e in python if e.get("cat") == "dequeue")
    spans = {(e["pid"], e["tid"], e["ts"]): e for e in events if e.get("ph") == "X"}
    starts = {e["id"]: e for e in events if e.get("cat") == "HostToDevice" and e["ph"] == "s"}
    ends: dict[Any, dict[str, Any]] = {}
    for e in events:  # the first arrow end of each flow
        if e.get("cat") == "HostToDevice" and e["ph"] == "f" and e["id"] in starts:
            ends.setdefault(e["id"], e)
    launches: dict[int, list[Kernel]] = {}
    for flow, end in ends.items():
        task = spans[(end["pid"], end["tid"], end["ts"])]
        launches.setdefault(ns(starts[flow]["ts"]), []).append(
            (float(task["dur"]), task["args"].get("Task Type") == "AI_CORE"))
    apis: dict[tuple[str, str], list[float]] = {}
    for e in events:
        if e.get("ph") == "X" and names.get(e["pid"]) == "CANN":
            level = e["args"]["level"]
            name = e["args"]["id"] if level == "acl" else e["name"].split("@", 1)[1]
            apis.setdefault((name, level), []).append(float(e["dur"]))
    return ops, enqueues, dequeues, launches, apis
