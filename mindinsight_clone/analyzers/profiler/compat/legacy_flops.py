"""FLOPs of the old layout: `flops_summary_<id>.json`, `flops_scope_<id>.json` (MindInsight's `FlopsAnalyser`,
`ClusterFlopsAnalyser`). The files are answered as written; a missing one is `{}` (or left out of the cluster)."""

from __future__ import annotations

import logging
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import dir_file, read_json
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import ProfilerRawFileError

log = logging.getLogger(__name__)


def _object(pdir: ProfilerDir, name: str, cache: ParsedFileCache | None) -> dict[str, Any]:
    path = dir_file(pdir, name)
    if path is None:
        return {}
    data = read_json(path, cache)
    if not isinstance(data, dict):
        raise ProfilerRawFileError(f"<{name}> is not a JSON object.")
    return data


def flops_summary(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`profile/flops-summary`: `{FLOPs, FLOPS, FLOPS_Utilization}` (MFLOPs, GFLOPS, %) or `{}`."""
    return _object(pdir, f"flops_summary_{device_id}.json", cache)


def flops_scope(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`profile/flops-scope`: the Sankey data of FLOPs per scope (`{data: {nodes, links}, max_scope_num}`) or `{}`."""
    return _object(pdir, f"flops_scope_{device_id}.json", cache)


def _total(summary: dict[str, Any]) -> float:
    flops = summary.get("FLOPs")
    if flops:
        return float(flops)
    return float(summary.get("cube_FLOPs") or 0) + float(summary.get("vec_FLOPs") or 0)


def cluster_flops(pdir: ProfilerDir, ranks: list[int], cache: ParsedFileCache | None = None) -> list[dict[str, Any]]:
    """`profile/cluster-flops`: each rank's summary with `rank_id` and `FLOPs_norm` (FLOPs / the largest)."""
    items: list[dict[str, Any]] = []
    for rank in ranks:
        name = f"flops_summary_{rank}.json"
        if dir_file(pdir, name) is None:
            log.warning("cluster FLOPs: %s is missing; rank %d left out", name, rank)
            continue
        items.append({"rank_id": rank, **_object(pdir, name, cache)})
    largest = max((_total(item) for item in items), default=0.0)
    for item in items:
        if not item.get("FLOPs"):
            item["FLOPs"] = _total(item)
        item["FLOPs_norm"] = _total(item) / largest if largest else 0.0
    return items
