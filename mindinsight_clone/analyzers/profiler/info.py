"""Small answers: devices, data version, proposals, step trace and the Ascend/GPU-cluster-only endpoints."""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import ProfilerFileNotFoundError, ProfilerParamValueError

COMPAT_VERSION = "2.3.1"  # the MindInsight version whose API we answer
STEP_TRACE_PROCS = ["iteration_interval", "fp_and_bp", "fp", "tail"]


def devices(pdir: ProfilerDir) -> dict[str, Any]:
    return {"device_list": pdir.device_ids, "profiler_mode": pdir.profiler_mode}


def profile_info(pdir: ProfilerDir) -> dict[str, Any]:
    """`{"ms", "mi", "state"}` from profiler_info_<id>.json; `{}` when no version was written (MindSpore 2.10 CPU).

    `state` says whether this server can show the data: always true for a layout we discovered.
    """
    for device_id in pdir.device_ids:
        version = pdir.devices[device_id].info.get("ms_version")
        if version:
            return {"ms": str(version), "mi": COMPAT_VERSION, "state": True}
    return {}


def propose(pdir: ProfilerDir) -> dict[str, Any]:
    """MindInsight's proposer answer for data without step trace / minddata (key order matters: not sorted)."""
    return {"common-proposer_type_label": None, "common-profiler_tutorial": None}


def training_trace_graph(pdir: ProfilerDir, device_id: str) -> dict[str, Any]:
    """`{}` unless Ascend/GPU step-trace files exist; heterogeneous (host CPU op) profiles are flagged."""
    device = pdir.device(device_id)
    if device is None or device.file("step_trace_intermediate_{}.csv") is None:
        return {}
    if device.file("cpu_op_type_info_{}.csv") is not None:
        return {"is_heterogeneous": True}
    return {}


def check_proc(proc_name: str | None) -> str:
    if proc_name not in STEP_TRACE_PROCS:
        raise ProfilerParamValueError(f"proc_name should be in {STEP_TRACE_PROCS}.")
    return proc_name


def target_time_info(pdir: ProfilerDir, device_id: str, proc_name: str) -> dict[str, Any]:
    raise ProfilerFileNotFoundError("<parsed step trace time file>")


def cluster_step_trace(pdir: ProfilerDir) -> dict[str, Any]:
    return {"info": [], "parallel-mode": "data-parallel", "size": 0, "stage_num": 1, "total_step_num": 0}


def cluster_peak_memory(pdir: ProfilerDir) -> Any:
    return {"is_heterogeneous": True} if pdir.has_kind("cpu_op_type_info_") else []


def msprof_timeline_option(pdir: ProfilerDir) -> dict[str, Any]:
    return {"model_list": [], "rank_list": []}


def parse_int_list(raw: str | None, name: str) -> list[int] | None:
    if not raw:
        return None
    try:
        return [int(part) for part in raw.split(",")]
    except ValueError:
        raise ProfilerParamValueError(f"{name} should be comma-separated integers.") from None
