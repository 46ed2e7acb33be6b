"""MindInsight's proposals over the old layout: `summary/propose` (one device) and `summary/cluster-propose`.

Both answer JSON objects whose key order is MindInsight's (it sends them with `json.dumps`, unsorted), so they are
built as ordered dicts here and sent as they are.

* `propose`: step trace (average iteration interval over 0.5 ms), minddata (device queue emptiness, host CPU
  busy over 80 %), minddata pipeline (operators of a slow queue), common (the tutorial link); unless both the
  step trace and the pipeline have something to say, only the common proposal is kept (MindInsight's rule).
* `cluster-propose`: the slow rank (step interval 20 % over the mean), the slow-FLOPS rank, the slowest link of
  each type (bandwidth 20 % under its type's mean), and for pipeline parallel the receive share between stages,
  the busiest stage's communication share and the stage with 20 % more FLOPs than the mean.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_cluster, legacy_step_trace
from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import dir_names, read_json
from mindinsight_clone.analyzers.profiler.compat import legacy_flops, legacy_minddata
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.analyzers.profiler.views.minddata import outside_threshold, pipeline_table
from mindinsight_clone.errors import MindInsightError
from mindinsight_clone.ingest import storage

log = logging.getLogger(__name__)
ITER_INTERVAL_THRESHOLD = 0.5  # ms
CPU_BUSY_THRESHOLD = 80  # %
PIPELINE_THRESHOLD = (0.8, 0.6)  # queue usage: (high, low)
STEP_INTERVAL, FLOPS_PER_SECOND, RANK_LINK, COMMUNICATION, FLOPS = 0.2, 0.2, 0.2, 0.1, 0.2


def _step_trace(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> dict[str, Any]:
    interval = legacy_step_trace.average_interval(pdir, device_id, cache)
    return {"step_trace-iter_interval": [str(ITER_INTERVAL_THRESHOLD)]} if (
        interval is not None and interval > ITER_INTERVAL_THRESHOLD) else {}


def _minddata(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    summary = legacy_minddata.process_summary(pdir, device_id, cache)
    empty_rate = 0
    if "get_next_queue_info" in summary:
        info = summary["get_next_queue_info"]["summary"]
        out["minddata_get_next_queue"] = [info["empty_batch_count"], info["total_batch"]]
    if "device_queue_info" in summary:
        info = summary["device_queue_info"]["summary"]
        total = info.get("total_batch") or 0
        empty_rate = math.ceil(info["empty_batch_count"] / total * 100) if total else 0
        out["minddata_device_queue"] = [info["empty_batch_count"], total, info["full_batch_count"], total]
    for key, value in summary.items():
        if isinstance(value, dict) and value.get("status") == "warning":
            if key in ("data_process", "data_transmission"):
                out["minddata_device_queue_rate"] = {
                    "empty_rate": empty_rate,
                    "empty_warning_threshold": int(legacy_minddata.EMPTY_WARNING_THRESHOLD * 100)}
            elif key == "device_queue_warning":
                out[key] = ["warning"]
            break
    idle = legacy_minddata.idle_average(pdir, device_id, cache)
    if idle is not None and 100 - idle > CPU_BUSY_THRESHOLD:
        out["minddata_cpu_utilization"] = [100 - idle]
    return out


def _pipeline(pdir: ProfilerDir, device_id: str) -> dict[str, Any]:
    device = pdir.device(device_id)
    table = pipeline_table(device)
    if not table.rows:
        return {}
    rows = outside_threshold(list(table.rows), {r[0]: r for r in table.rows}, PIPELINE_THRESHOLD[1],
                             PIPELINE_THRESHOLD[0])
    names: dict[str, list[str]] = {"general": [], "dataset_op": [], "generator_op": [], "map_op": [], "batch_op": []}
    for row in rows:
        name = f"{row[1]}_{row[0]}"
        names["general"].append(name)
        kind = ("dataset_op" if not row[-1] else {"MapOp": "map_op", "GeneratorOp": "generator_op",
                                                 "BatchOp": "batch_op"}.get(row[1]))
        if kind:
            names[kind].append(name)
    out = {f"minddata_pipeline-{k}": ["/".join(v[::-1])] for k, v in names.items() if v}
    if out and rows[0][-2] is None:  # only the root operator was flagged: nothing to say
        return {}
    return out


def propose(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`summary/propose` in MindInsight's key order."""
    result: dict[str, Any] = {}
    for kind, proposer in (("step_trace", _step_trace), ("minddata", _minddata),
                           ("minddata_pipeline", lambda p, d, _c: _pipeline(p, d))):
        try:
            found = proposer(pdir, device_id, cache)
        except MindInsightError as err:  # a file a proposer needs is unusable: no proposal from it
            log.warning("proposal %s: %s", kind, err.message)
            found = {}
        if found:
            result[f"{kind}-proposer_type_label"] = None
            result.update(found)
    result["common-proposer_type_label"] = None
    result["common-profiler_tutorial"] = None
    try:
        advice = _msadvisor(pdir, device_id, cache)
    except MindInsightError as err:
        log.warning("proposal msadvisor: %s", err.message)
        advice = {}
    if advice:
        result["msadvisor-proposer_type_label"] = None
        result.update(advice)
    if "step_trace-iter_interval" not in result or "minddata_pipeline-general" not in result:
        return {k: v for k, v in result.items() if k in _ALWAYS_SHOWN}
    rate = result.get("minddata_device_queue_rate") or {}
    if rate.get("empty_rate") and rate["empty_rate"] <= rate["empty_warning_threshold"]:
        result = {k: v for k, v in result.items() if not k.startswith("minddata_pipeline-")}
    return result


_ALWAYS_SHOWN = ("common-proposer_type_label", "common-profiler_tutorial", "msadvisor-proposer")


def _msadvisor(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> dict[str, Any]:
    """The newest `msadvisor/device_<id>/recommendation/*.json`, its `model` renamed `msadvisor-proposer`."""
    folder = pdir.path / "msadvisor" / f"device_{device_id}" / "recommendation"
    files = [e for e in pdir.listings(folder) if e.is_file and e.name.endswith(".json")]
    if not files:
        return {}

    def mtime(entry: Any) -> float:
        try:
            return storage.stat(entry.location).mtime
        except OSError:
            return 0.0

    newest = max(files, key=mtime)
    advice = read_json(newest.location, cache)
    if not isinstance(advice, dict):
        return {}
    advice = dict(advice)
    advice["msadvisor-proposer"] = advice.pop("model", None)
    return advice


# --- cluster ---------------------------------------------------------------------------------------


def _files_present(pdir: ProfilerDir, ctx: legacy_cluster.ParallelContext) -> dict[str, bool]:
    names = set(dir_names(pdir))
    have = {"segments": True, "flops": True, "hccl": True}
    for rank in range(ctx.rank_size):
        if f"step_trace_raw_{rank}_detail_time.csv" not in names or ctx.cluster_file(rank) not in names:
            have["segments"] = False
        if f"flops_summary_{rank}.json" not in names:
            have["flops"] = False
        if f"hccl_raw_{rank}.csv" not in names:
            have["hccl"] = False
    return have


def _share(value: float, mean: float, above: bool) -> float:
    """How far `value` is above (or below) `mean`, as a fraction of it; 0 for a zero mean."""
    if not mean:
        return 0.0
    return value / mean - 1 if above else (mean - value) / mean


def _slowest(values: list[tuple[int, float]], threshold: float, above: bool) -> tuple[int, float, float] | None:
    """The (rank, value, share) furthest above (or below) the mean, when it is past `threshold`."""
    if not values:
        return None
    mean = sum(v for _, v in values) / len(values)
    best: tuple[int, float, float] | None = None
    for rank, value in values:
        share = _share(value, mean, above)
        if share > threshold and share > (best[2] if best else 0.0):
            best = (rank, value, share)
    return best


def cluster_propose(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`summary/cluster-propose` in MindInsight's key order (empty parts left out)."""
    ctx = legacy_cluster.parallel_context(pdir)
    if ctx.device_type != "ascend":  # MindInsight's parallel analyser reads ascend_cluster_analyse_* only
        return {}
    have = _files_present(pdir, ctx)
    out: dict[str, Any] = {"step_interval": {}, "flops_per_second": {}, "cluster_link": [], "parallel_strategy": {}}
    strategy: dict[str, dict[str, Any]] = {}
    steps: list[tuple[int, list[float]]] = []
    if have["segments"]:
        steps = [(r, legacy_cluster.bottleneck_info(pdir, ctx, r, 0, cache)) for r in range(ctx.rank_size)]
        slow = _slowest([(r, d[0]) for r, d in steps], STEP_INTERVAL, above=True)
        if slow:
            out["step_interval"] = {"rank_id": slow[0], "val": round(slow[1], 4), "percent": round(slow[2] * 100, 2)}
    flops = legacy_flops.cluster_flops(pdir, legacy_cluster.ranks(pdir), cache) if have["flops"] else []
    if have["flops"]:
        per_second = [(f["rank_id"], float(f.get("FLOPS") or (f.get("cube_FLOPS", 0) + f.get("vec_FLOPS", 0))))
                      for f in flops]
        slow = _slowest(per_second, FLOPS_PER_SECOND, above=False)
        if slow:
            out["flops_per_second"] = {"rank_id": slow[0], "val": round(slow[1], 4),
                                       "percent": round(slow[2] * 100, 2)}
    if have["hccl"]:
        out["cluster_link"] = _slow_links(legacy_cluster.link_rows(pdir, 0, cache))
    if ctx.mode in ("data-parallel", "model-parallel") and steps:
        rate = _rate([d[2] for _, d in steps], [d[1] for _, d in steps], [d[2] for _, d in steps])
        if rate > COMMUNICATION:
            key = f"{ctx.mode.split('-')[0]}_parallel_communication_rate"
            strategy[key] = {"val": round(rate * 100, 2), "threshold": round(COMMUNICATION * 100, 2)}
    elif ctx.mode == "pipeline-parallel":
        if steps:
            rate = _rate([d[4] for _, d in steps], [d[1] for _, d in steps], [d[2] for _, d in steps])
            if rate > COMMUNICATION:
                strategy["pipeline_parallel_between_stage"] = {"val": round(rate * 100, 2),
                                                               "threshold": round(COMMUNICATION * 100, 2)}
            within = _within_stage(steps, ctx)
            if within:
                strategy["pipeline_parallel_within_stage"] = {"val": round(within[1] * 100, 2),
                                                              "threshold": round(COMMUNICATION * 100, 2),
                                                              "stage": within[0]}
        if have["flops"]:
            busiest = _busiest_stage(flops, ctx)
            if busiest:
                strategy["pipeline_parallel_flops"] = {"stage": busiest[0], "val": round(busiest[1], 4),
                                                       "percent": round(busiest[2] * 100, 2)}
    out["parallel_strategy"] = strategy
    return {k: v for k, v in out.items() if v}


def _rate(part: list[float], computation: list[float], communication: list[float]) -> float:
    """sum(part) / (sum(computation) + sum(communication)), 4 decimals, 0 unless all three sums are positive."""
    p, comp, comm = sum(part), sum(computation), sum(communication)
    return round(p / (comp + comm), 4) if p > 0 and comp > 0 and comm > 0 else 0.0


def _within_stage(steps: list[tuple[int, list[float]]], ctx: legacy_cluster.ParallelContext
                  ) -> tuple[int, float] | None:
    alone: dict[int, float] = {}
    busy: dict[int, float] = {}
    for rank, data in steps:
        stage = int(rank // (ctx.rank_size / ctx.stage_num) + 1)  # both >= 1 (parallel_context)
        alone[stage] = alone.get(stage, 0) + data[5]
        busy[stage] = busy.get(stage, 0) + data[1] + data[2]
    best: tuple[int, float] | None = None
    for stage in busy:
        rate = alone[stage] / busy[stage] if busy[stage] else 0.0
        if rate > COMMUNICATION and rate > (best[1] if best else 0.0):
            best = (stage, rate)
    return best


def _busiest_stage(flops: list[dict[str, Any]], ctx: legacy_cluster.ParallelContext
                   ) -> tuple[int, float, float] | None:
    per_stage = ctx.rank_size // ctx.stage_num if ctx.stage_num else 0
    if not per_stage or not flops:
        return None
    stages: dict[int, float] = {}
    for item in flops:
        stage = int(item["rank_id"] // per_stage + 1)
        stages[stage] = stages.get(stage, 0) + float(item["FLOPs"]) / per_stage
    found = _slowest(list(stages.items()), FLOPS, above=True)
    return found


def _slow_links(links: list[list[Any]]) -> list[dict[str, Any]]:
    by_type: dict[str, list[tuple[int, int, float]]] = {}
    for src_dst, link_type, *values in links:
        src, dst = (int(x) for x in str(src_dst).split("-"))
        if src != dst:
            by_type.setdefault(link_type, []).append((src, dst, float(values[2])))
    out = []
    for link_type, items in by_type.items():
        mean = sum(bw for _, _, bw in items) / len(items)
        worst: tuple[int, int, float, float] | None = None
        for src, dst, bw in items:
            if not mean:
                continue
            share = (mean - bw) / mean
            if share > RANK_LINK and (worst is None or share > worst[3]):
                worst = (src, dst, bw, share)
        if worst:
            out.append({"src_rank": worst[0], "des_rank": worst[1], "link_type": link_type,
                        "val": round(worst[2], 4), "percent": round(worst[3] * 100, 2)})
    return out
