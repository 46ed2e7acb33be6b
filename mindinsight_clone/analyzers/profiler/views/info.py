"""Small answers the routes give for every layout: the data version and the checks of two parameters."""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import ProfilerParamValueError

COMPAT_VERSION = "2.3.1"  # the MindInsight version whose API we answer
STEP_TRACE_PROCS = ["iteration_interval", "fp_and_bp", "fp", "tail"]


def profile_info(pdir: ProfilerDir) -> dict[str, Any]:
    """`{"ms", "mi", "state"}` from profiler_info_<id>.json; `{}` when no version was written (MindSpore 2.10 CPU).

    `state` says whether this server can show the data: always true for a layout we discovered.
    """
    for device_id in pdir.device_ids:
        version = pdir.devices[device_id].info.get("ms_version")
        if version:
            return {"ms": str(version), "mi": COMPAT_VERSION, "state": True}
    return {}


def check_proc(proc_name: str | None) -> str:
    if proc_name not in STEP_TRACE_PROCS:
        raise ProfilerParamValueError(f"proc_name should be in {STEP_TRACE_PROCS}.")
    return proc_name


def parse_int_list(raw: str | None, name: str) -> list[int] | None:
    if not raw:
        return None
    try:
        return [int(part) for part in raw.split(",")]
    except ValueError:
        raise ProfilerParamValueError(f"{name} should be comma-separated integers.") from None
