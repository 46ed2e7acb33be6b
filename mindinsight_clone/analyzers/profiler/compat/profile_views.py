"""MindInsight's profiler answers for one profiler dir, one adapter per layout: the routes ask `views_for(pdir)`
and never look at the layout (TensorBoard's DataProvider idea: the plugin does not branch on the backend).

* `CurrentLayout`: MindSpore >= 2.4 and torch_npu (`*_ascend_ms` / `*_ascend_pt` result folders; minddata.py,
  timeline.py). The views MindInsight 2.3.1 had only for its own layout (flops, MindData queues,
  cluster communication, ...) answer MindInsight's "nothing here" (`{}` / `[]`), as it does for such a folder.
* `OldLayout`: MindSpore <= 2.2, files directly in the profiler dir (MindInsight's own readers, legacy_*.py).

The tables the two layouts share (steps, kernels, ...) are read through rank_tables.py; the views over them
(step-trace-time, compare, advice, cluster analysis) are format-blind and need no adapter here.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_cluster, legacy_ops, legacy_step_trace
from mindinsight_clone.analyzers.profiler.compat import (
    legacy_flops,
    legacy_info,
    legacy_minddata,
    legacy_propose,
    legacy_timeline,
)
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, ProfilerDir
from mindinsight_clone.analyzers.profiler.views import minddata, overview, search, timeline
from mindinsight_clone.errors import ProfilerFileNotFoundError

# The pages of a profile (the UI's tabs), by what wrote it.
ASCEND_VIEWS = ("overview", "ops", "timeline", "communication", "memory", "cluster", "compare", "advice")
HOST_VIEWS = ("overview", "ops", "timeline", "steps", "memory", "pipeline")
OLD_VIEWS = ("overview", "ops", "steps", "timeline", "pipeline", "flops", "cluster", "compare", "advice")
# The rank tables a page draws (any one will do); a page whose tables the profile's first rank lacks is listed with
# `has_data` false: it opens on what is missing and how to get it.
VIEW_TABLES = {"timeline": ("trace",), "communication": ("comm_ops",), "memory": ("memory_record", "module_memory"),
               "cluster": ("steps",), "compare": ("steps", "kernels"), "steps": ("steps",)}


class CurrentLayout:
    """The answers for a MindSpore >= 2.4 / torch_npu profiler dir."""

    def __init__(self, pdir: ProfilerDir, cache: ParsedFileCache | None) -> None:
        self.pdir = pdir
        self.cache = cache

    def _names(self) -> tuple[str, ...]:
        return ASCEND_VIEWS if self.pdir.device_type == "ascend" else HOST_VIEWS

    def _first(self) -> DeviceFiles | None:
        ids = self.pdir.device_ids
        return self.pdir.device(ids[0]) if ids else None

    def _has(self, view: str) -> bool:
        device = self._first()
        if device is None or view not in VIEW_TABLES:
            return True
        tables = VIEW_TABLES[view]  # a page none of whose tables the rank's format has reads its own files (host)
        return any(rank_tables.has(t, device, self.cache) for t in tables) or \
            not any(rank_tables.reads(t, device) for t in tables)

    def views(self) -> list[dict[str, Any]]:
        """The profile's pages in order, each with whether its first rank has the data it draws."""
        return [{"view": v, "has_data": self._has(v)} for v in self._names()]

    def devices(self) -> Any:
        return {"device_list": self.pdir.device_ids, "profiler_mode": self.pdir.profiler_mode}

    def propose(self, device_id: str) -> Any:
        # MindInsight's proposer answer for data without step trace / minddata (key order matters: not sorted)
        return {"common-proposer_type_label": None, "common-profiler_tutorial": None}

    def overview(self, device_id: str) -> Any:
        return overview.overview(self.pdir, device_id, self.cache)

    def minddata_queues(self, view: str, device_id: str, kind: str) -> Any:
        """queue_info / minddata_op / process_summary."""
        return {}

    def cpu_utilization(self, device_id: str, condition: dict[str, Any]) -> Any:
        return minddata.cpu_utilization(self.pdir.device(device_id))

    def ops_search(self, op_type: str, device_id: str, condition: dict[str, Any]) -> Any:
        return search.search_ops(self.pdir, op_type, device_id, condition, self.cache)

    def timeline_summary(self, device_id: str, device_type: str) -> Any:
        return timeline.timeline_summary(self.pdir.device(device_id), self.cache)

    def timeline(self, device_id: str, device_type: str, scope_name_num: int, window: timeline.Window) -> Any:
        return timeline.timeline(self.pdir.device(device_id), window, self.cache)

    def training_trace_graph(self, device_id: str, step: int) -> Any:
        """`{}` unless Ascend/GPU step-trace files exist; heterogeneous (host CPU op) profiles are flagged."""
        device = self.pdir.device(device_id)
        if device is None or device.file("step_trace_intermediate_{}.csv") is None:
            return {}
        return {"is_heterogeneous": True} if device.file("cpu_op_type_info_{}.csv") is not None else {}

    def target_time_info(self, device_id: str, proc: str) -> Any:
        raise ProfilerFileNotFoundError("<parsed step trace time file>")

    def msprof_timeline_option(self) -> Any:
        return {"model_list": [], "rank_list": []}

    def dynamic_shape(self, device_id: str) -> Any:
        return {}

    def cluster_propose(self) -> Any:
        return {}

    def flops(self, device_id: str, scope: bool) -> Any:
        return {}

    def cluster_step_trace(self, device_id: str, condition: dict[str, Any]) -> Any:
        return {"info": [], "parallel-mode": "data-parallel", "size": 0, "stage_num": 1, "total_step_num": 0}

    def cluster_peak_memory(self) -> Any:
        return {"is_heterogeneous": True} if self.pdir.has_kind("cpu_op_type_info_") else []

    def cluster_flops(self) -> Any:
        return []

    def cluster_communication(self, condition: dict[str, Any], links: bool) -> Any:
        return {}

    def communication_data(self) -> Any:
        return []


class OldLayout(CurrentLayout):
    """The answers for a MindSpore <= 2.2 profiler dir, as MindInsight 2.3.1 gives them."""

    def _names(self) -> tuple[str, ...]:
        return OLD_VIEWS if self.pdir.device_type in ("ascend", "gpu") else HOST_VIEWS

    def _has(self, view: str) -> bool:
        """The old layout's own pages say what they miss; on Ascend the steps-based ones need the step trace."""
        device = self._first()
        if device is None or self.pdir.device_type != "ascend" or view not in ("steps", "cluster", "compare"):
            return True
        return rank_tables.has("steps", device, self.cache)

    def devices(self) -> Any:
        return legacy_info.devices(self.pdir)

    def propose(self, device_id: str) -> Any:
        return legacy_propose.propose(self.pdir, device_id, self.cache)

    def overview(self, device_id: str) -> Any:
        return overview.old_layout_overview(self.pdir, device_id, self.cache)

    def minddata_queues(self, view: str, device_id: str, kind: str) -> Any:
        if view == "queue_info":
            return legacy_minddata.queue_info(self.pdir, device_id, kind, self.cache)
        if view == "minddata_op":
            return legacy_minddata.minddata_op(self.pdir, device_id, kind, self.cache)
        return legacy_minddata.process_summary(self.pdir, device_id, self.cache)

    def cpu_utilization(self, device_id: str, condition: dict[str, Any]) -> Any:
        return legacy_minddata.cpu_utilization(self.pdir, device_id, condition, self.cache)

    def ops_search(self, op_type: str, device_id: str, condition: dict[str, Any]) -> Any:
        if op_type in legacy_ops.COLUMNS:  # MindInsight's AI Core / AI CPU tables of the old Ascend layout
            return legacy_ops.search(self.pdir, op_type, device_id, condition, self.cache)
        return super().ops_search(op_type, device_id, condition)

    def timeline_summary(self, device_id: str, device_type: str) -> Any:
        return legacy_timeline.timeline_summary(self.pdir, device_id, device_type, self.cache)

    def timeline(self, device_id: str, device_type: str, scope_name_num: int, window: timeline.Window) -> Any:
        return legacy_timeline.timeline(self.pdir, device_id, device_type, scope_name_num, window, self.cache)

    def training_trace_graph(self, device_id: str, step: int) -> Any:
        return legacy_step_trace.training_trace_graph(self.pdir, device_id, step, self.cache)

    def target_time_info(self, device_id: str, proc: str) -> Any:
        return legacy_step_trace.target_time_info(self.pdir, device_id, proc, self.cache)

    def msprof_timeline_option(self) -> Any:
        return legacy_info.msprof_timeline_option(self.pdir, self.cache)

    def dynamic_shape(self, device_id: str) -> Any:
        return legacy_info.dynamic_shape(self.pdir, device_id, self.cache)

    def cluster_propose(self) -> Any:
        return legacy_propose.cluster_propose(self.pdir, self.cache)

    def flops(self, device_id: str, scope: bool) -> Any:
        if scope:
            return legacy_flops.flops_scope(self.pdir, device_id, self.cache)
        return legacy_flops.flops_summary(self.pdir, device_id, self.cache)

    def cluster_step_trace(self, device_id: str, condition: dict[str, Any]) -> Any:
        device = self.pdir.device(device_id)
        if device is not None and device.info.get("is_heterogeneous", False):
            return {"is_heterogeneous": True}
        return legacy_cluster.cluster_step_trace(self.pdir, condition, self.cache)

    def cluster_peak_memory(self) -> Any:
        return legacy_cluster.peak_memory(self.pdir, self.cache)

    def cluster_flops(self) -> Any:
        return legacy_flops.cluster_flops(self.pdir, legacy_cluster.ranks(self.pdir), self.cache)

    def cluster_communication(self, condition: dict[str, Any], links: bool) -> Any:
        if links:
            return legacy_cluster.cluster_link(self.pdir, condition, self.cache)
        return legacy_cluster.cluster_communication(self.pdir, condition, self.cache)

    def communication_data(self) -> Any:
        return legacy_cluster.communication_data(self.pdir, self.cache)


LAYOUTS: dict[str, type[CurrentLayout]] = {"ms2": CurrentLayout, "legacy": OldLayout}


def views_for(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> CurrentLayout:
    """The one place a profiler dir's layout picks its readers."""
    return LAYOUTS[pdir.layout](pdir, cache)
