"""A rank's peers: the pipeline stage it belongs to. Ranks of different pipeline stages differ by design (other
layers, a bubble waiting for the previous stage), so a slow rank is looked for among the ranks of its own stage.

Sources, the first that gives two or more stages wins:

1. `cluster_analysis_output/cluster_step_trace_time.csv` rows of Type `stage` (msprof-analyze's own grouping);
2. `profiler_metadata.json` of the ranks, `parallel_group_info` (torch_npu): groups named `pp*` are the pipeline
   links, the other groups the collective groups;
3. `communication.json` of the ranks: the groups of the `p2p` section are the pipeline links, those of the
   `collective` section the collective groups (a rank belongs to every group it reports an operator of).

For 2 and 3 the stages are made as msprof-analyze's StageInfoAnalysis makes them: pipeline links sharing a rank are
merged; a collective group holding at most one rank of each merged pipeline lies inside one stage; such groups are
merged where they share a rank, and each merged set is a stage.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters import cluster_output
from mindinsight_clone.analyzers.profiler.adapters.ascend_text import ascend_text_comm
from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_cluster
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import MindInsightError

METADATA = "profiler_metadata.json"
ALL_RANKS = "all ranks"


def merge_connected(sets: Iterable[Iterable[int]]) -> list[set[int]]:
    """Merge sets that share an element (transitively), keeping first-seen order."""
    merged: list[set[int]] = []
    for items in sets:
        current = set(items)
        if not current:
            continue
        keep = []
        for existing in merged:
            if existing & current:
                current |= existing
            else:
                keep.append(existing)
        merged = [*keep, current]
    return merged


def stages_from_groups(links: Iterable[Iterable[int]], collectives: Iterable[Iterable[int]]) -> list[list[int]]:
    """msprof-analyze's stage inference (module doc), stages sorted by their first rank."""
    pipelines = merge_connected(links)
    if not pipelines:
        return []
    inside = [set(g) for g in collectives if all(len(set(g) & p) <= 1 for p in pipelines)]
    return sorted((sorted(s) for s in merge_connected(inside)), key=lambda s: s[0])


def _from_cluster_output(pdir: ProfilerDir) -> list[list[int]]:
    groups = [[int(x) for x in re.findall(r"\d+", str(row.get("index")))] for row in cluster_output.stage_rows(pdir)]
    unique: list[list[int]] = []
    for group in groups:
        if group and sorted(group) not in unique:
            unique.append(sorted(group))
    return unique


def _metadata_groups(data: Any) -> tuple[list[list[int]], list[list[int]]]:
    links: list[list[int]] = []
    collectives: list[list[int]] = []
    info = data.get("parallel_group_info") if isinstance(data, dict) else None
    for group in (info.values() if isinstance(info, dict) else ()):
        if not isinstance(group, dict):
            continue
        ranks = [int(r) for r in group.get("global_ranks") or () if isinstance(r, int) or str(r).isdigit()]
        name = str(group.get("group_name", "")).lower()
        (links if name.startswith("pp") else collectives).append(ranks)
    return links, collectives


def _from_metadata(pdir: ProfilerDir, cache: ParsedFileCache | None) -> list[list[int]]:
    links: list[list[int]] = []
    collectives: list[list[int]] = []
    for device in pdir.devices.values():
        path = device.session_file(METADATA)
        if path is None:
            continue
        try:
            data = cached(cache, "profiler_metadata", path, lambda p: ascend_text_comm.load_json(p, METADATA))
        except MindInsightError:
            continue
        more_links, more_groups = _metadata_groups(data)
        links.extend(g for g in more_links if g not in links)
        collectives.extend(g for g in more_groups if g not in collectives)
    return stages_from_groups(links, collectives)


def _from_communication(pdir: ProfilerDir, cache: ParsedFileCache | None) -> list[list[int]]:
    members: dict[tuple[str, str], set[int]] = defaultdict(set)  # (p2p|collective, group) -> ranks
    for device_id, device in pdir.devices.items():
        if not rank_tables.has("comm_ops", device, cache):
            continue
        try:
            ops, _, _ = rank_tables.load("comm_ops", device, cache)
        except MindInsightError:
            continue
        for op in ops:
            if op["group"]:
                members[(op["type"], op["group"])].add(int(device_id))
    links = [sorted(r) for (kind, _), r in members.items() if kind == "p2p"]
    collectives = [sorted(r) for (kind, _), r in members.items() if kind != "p2p"]
    return stages_from_groups(links, collectives)


def _from_legacy_context(pdir: ProfilerDir) -> list[list[int]]:
    """An old-layout pipeline job: `ascend_cluster_analyse_pipeline-parallel_<stages>_<rank size>_<rank>.csv` names
    the stage count; rank r is in stage r // (rank size / stages), as MindInsight's cluster view places it."""
    ctx = legacy_cluster.parallel_context(pdir)
    if ctx.mode != "pipeline-parallel" or ctx.stage_num < 2:
        return []
    per = max(1, ctx.rank_size // ctx.stage_num)
    return [list(range(s * per, (s + 1) * per)) for s in range(ctx.stage_num)]


def peer_groups(pdir: ProfilerDir, ranks: Iterable[int], cache: ParsedFileCache | None = None
                ) -> tuple[list[list[int]], str]:
    """The stages restricted to `ranks` and their source; ranks in no stage form one more group. Without stage
    information (or a single stage), every rank is a peer of every other: ([ranks], "all ranks")."""
    wanted = sorted(set(ranks))
    sources = (("cluster_analyse file name", lambda: _from_legacy_context(pdir)),
               ("cluster_analysis_output", lambda: _from_cluster_output(pdir)),
               ("parallel_group_info", lambda: _from_metadata(pdir, cache)),
               ("communication", lambda: _from_communication(pdir, cache)))
    for source, derive in sources:
        stages = derive()
        if len(stages) < 2:
            continue
        groups = [[r for r in stage if r in wanted] for stage in stages]
        covered = {r for g in groups for r in g}
        rest = [r for r in wanted if r not in covered]
        groups = [g for g in groups if g] + ([rest] if rest else [])
        if len(groups) >= 2:
            return groups, source
    return [wanted], ALL_RANKS
