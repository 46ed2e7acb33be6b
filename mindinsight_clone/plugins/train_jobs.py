"""The run listing: `train-jobs`, `single-job` and `plugins` bodies (API.md §1), built from the store."""

from __future__ import annotations

import os
import time
from typing import Any

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.bases import Bases
from mindinsight_clone.plugins.registry import limit_tags, order_tags, plugins_dict
from mindinsight_clone.plugins.scalars import samples_twins
from mindinsight_clone.store.data_manager import DataManager
from mindinsight_clone.store.discovery import RunInfo, profiler_type
from mindinsight_clone.store.discovery import graph_mode as discovery_graph_mode
from mindinsight_clone.store.run_groups import GroupMember
from mindinsight_clone.store.run_index import sort_runs


def local_time(ts: float) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))
    except (OverflowError, ValueError, OSError):  # a "timestamp" in a file name the platform cannot represent
        return ""


def graph_mode(run: RunInfo) -> str:
    """'dynamic' when the profiler recorded PyNative mode, else 'static' (found by the scan, not per request)."""
    return discovery_graph_mode(run)


def job_item(dm: DataManager, run: RunInfo, group: GroupMember | None = None,
             data_version: bool = False, tag_limit: int | None = None) -> dict[str, Any]:
    status = dm.run_status(run.train_id)
    ptype = profiler_type(run)
    item: dict[str, Any] = {
        "train_id": run.train_id,
        "relative_path": run.train_id,
        "create_time": local_time(run.create_time),
        "update_time": local_time(run.update_time),
        "cache_status": status.cache_status,
        "is_integrity": status.is_integrity,
        "summary_files": len(run.summary_files),
        "lineage_files": len(run.lineage_files),
        "graph_files": len(run.pb_files),
        "profiler_dir": f"./{run.profiler_dirs[0]}" if run.profiler_dirs else None,
        "profiler_type": ptype,
        "dump_dir": None,
        "plugins": plugins_dict(status.plugins),
    }
    if ptype:
        item["graph_mode"] = graph_mode(run)
    # additive (docs/api.md): present only when there is something to say, so MindInsight bodies match
    if status.problems:
        item["problems"] = [p.as_dict() for p in status.problems]
    if status.display_name:  # VisualDL's LogWriter(display_name=...): VisualDL shows the run by this name
        item["display_name"] = status.display_name
    if status.text_tags:  # TensorBoard text tags (as in plugins.text; kept for clients of the first version)
        item["text_tags"] = status.text_tags
    item.update(tensorboard_layout(run, status.plugins))
    if status.dropped_tags:
        item["dropped_tags"] = status.dropped_tags
    if status.cache_status == "CACHING":
        item["load_progress"] = {"bytes_read": status.bytes_read, "bytes_total": status.bytes_total}
    if data_version and status.data_version is not None:
        item["data_version"] = status.data_version
    if group is not None:
        item["group"] = group.as_dict()
    if tag_limit is not None:
        item["plugins"], item["tag_counts"] = limit_tags(item["plugins"], tag_limit)
    return item


def tensorboard_layout(run: RunInfo | None, plugins: dict[str, list[str]] | None) -> dict[str, Any]:
    """Additive, only when there is something to say: `scalar_groups` (add_scalars main tag -> its keys, each key's
    series being the scalar tag `<main>/<key>/scalar`; `scalars-group` draws them as one chart), `samples_twins`
    (scalar tag -> its "vs samples" twin, for a samples x-axis) and `hparams_sessions` (the add_hparams session
    runs below this run; `hparams?train_id=<this run>` answers them)."""
    out: dict[str, Any] = {}
    groups = run.scalar_groups() if run is not None else {}
    if groups:
        out["scalar_groups"] = groups
    sessions = run.hparams_sessions() if run is not None else []
    if sessions:
        out["hparams_sessions"] = sessions
    twins = samples_twins((plugins or {}).get("scalar", ()))
    if twins:
        out["samples_twins"] = twins
    return out


def train_jobs(dm: DataManager, offset: int, limit: int, train_id: str | None, search: str | None = None,
               group: str | None = None, collapse_groups: bool = False, sort: str | None = None,
               descending: bool = False, data_version: bool = False, tag_limit: int | None = None) -> dict[str, Any]:
    """MindInsight's listing; `search`, `group` and `collapse_groups` (ours, docs/api.md) narrow it first, `sort`
    (ours) orders it before paging; `tag_limit` (ours) cuts each item's tag lists and adds `tag_counts`."""
    index = dm.index()
    if train_id is not None:  # exact match (MindInsight); the other filters still apply, never collapsed
        runs = [r for r in index.select(search, group) if r.train_id == train_id]
    else:
        runs = index.select(search, group, collapse_groups)
    if sort is not None:
        runs = sort_runs(runs, sort, descending)
    page = runs[offset * limit:(offset + 1) * limit]
    body: dict[str, Any] = {
        "name": jobs_name(dm.bases),
        "total": len(runs),
        "train_jobs": [job_item(dm, r, index.groups.get(r.train_id), data_version, tag_limit) for r in page],
        "load_status": dm.load_status,
    }
    # additive: present only when runs are left out of the listing, so MindInsight bodies match
    listed = len(index.runs)
    if dm.runs_found > listed:
        body["omitted_runs"] = {"count": dm.runs_found - listed, "found": dm.runs_found, "listed": listed,
                                "setting": "max_run_count"}
    if dm.runs_filtered > 0:
        body["filtered_runs"] = {"count": dm.runs_filtered, "setting": "run_filter",
                                 "pattern": dm.settings.run_filter}
    if dm.scan_truncated:
        body["scan_truncated"] = True
    return body


def jobs_name(bases: Bases) -> str:
    """MindInsight's `name`: the base dir's last component; named base dirs: their names, comma-separated."""
    if bases.named:
        return ",".join(b.name or "" for b in bases)
    return os.path.basename(storage.describe(bases.primary).rstrip("/"))


def single_job(train_id: str, plugin: str, tags: list[str]) -> dict[str, Any]:
    return {"train_jobs": [{"id": train_id, "name": train_id, "tags": order_tags(plugin, tags)}]}
