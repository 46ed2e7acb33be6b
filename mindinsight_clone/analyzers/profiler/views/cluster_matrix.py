"""`profile/cluster-communication-matrix`: the src→dst matrix of one communication group across all its ranks.

Each rank's communication_matrix.json holds the links it sent on (`<src>-<dst>` rows with src = itself); the
heatmap of a group puts every rank's rows together. Entries are summed over steps: size and time add up,
bandwidth = size / time (the profiler's own formula, MB/ms = GB/s). One group and one operator entry at a time
(`group`, `op`); by default the group reported by the most ranks and its `*-total` entry that moved the most data.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import MindInsightError, ProfilerParamValueError


def cluster_matrix(pdir: ProfilerDir, group: str | None = None, op: str | None = None,
                   cache: ParsedFileCache | None = None) -> dict[str, Any]:
    pdir.prefetch_outputs()
    problems: list[dict[str, Any]] = []
    cells: list[dict[str, Any]] = []
    read: list[int] = []
    for device_id in pdir.device_ids:
        device = pdir.devices[device_id]
        if not rank_tables.has("comm_matrix", device, cache):
            continue
        try:
            rows, _ = rank_tables.load("comm_matrix", device, cache)
        except MindInsightError as err:
            problems.append({"rank_id": int(device_id), "file": rank_tables.source("comm_matrix", device),
                             "message": err.message})
            continue
        read.append(int(device_id))
        cells.extend({**c, "rank_id": int(device_id)} for c in rows)
    ranks_of: dict[str, set[int]] = defaultdict(set)
    size_of: dict[tuple[str, str], float] = defaultdict(float)
    for c in cells:
        ranks_of[c["group"]].add(c["rank_id"])
        size_of[(c["group"], c["op"])] += c.get("size_mb") or 0.0
    groups: list[dict[str, Any]] = [{"group": g, "ranks": sorted(r), "ops": sorted({o for gg, o in size_of if gg == g})}
                                    for g, r in sorted(ranks_of.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    answer: dict[str, Any] = {"ranks_read": read, "groups": groups, "group": None, "op": None, "cells": []}
    if problems:
        answer["problems"] = problems
    if not groups:
        return answer
    if group is not None and group not in ranks_of:
        raise ProfilerParamValueError(f"group {group!r} is not a communication group of this job.")
    chosen: str = group if group is not None else groups[0]["group"]
    ops = [o for g, o in size_of if g == chosen]
    if op is not None and op not in ops:
        raise ProfilerParamValueError(f"op {op!r} is not an operator entry of group {chosen}.")
    totals = [o for o in ops if o.endswith("-total")] or ops
    chosen_op = op if op is not None else max(sorted(totals), key=lambda o: size_of[(chosen, o)])
    links: dict[tuple[int, int], dict[str, Any]] = {}
    for c in cells:
        if c["group"] != chosen or c["op"] != chosen_op:
            continue
        link = links.setdefault((c["src"], c["dst"]), {"src": c["src"], "dst": c["dst"], "transport": set(),
                                                       "size_mb": 0.0, "time_ms": 0.0})
        link["size_mb"] += c.get("size_mb") or 0.0
        link["time_ms"] += c.get("time_ms") or 0.0
        if c.get("transport"):
            link["transport"].add(c["transport"])
    out = []
    for (src, dst), link in sorted(links.items()):
        out.append({"op": chosen_op, "src": src, "dst": dst, "transport": "/".join(sorted(link["transport"])),
                    "size_mb": link["size_mb"], "time_ms": link["time_ms"],
                    "gbps": round(link["size_mb"] / link["time_ms"], 4) if link["time_ms"] > 0 else None})
    answer.update(group=chosen, op=chosen_op, cells=out)
    return answer
