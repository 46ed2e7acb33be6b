"""The store's view of `ingest.summary_watcher`: the run list, profiler type, and change notifications.

Discovery rules live in the watcher (LIMITS.md §3: base dir + direct subdirectories, symlinks
skipped, ...). Here: the listing order MindInsight uses (update time descending), the profiler type shown
in `train-jobs`, and a notifier that wakes the reload thread.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from mindinsight_clone.ingest.summary_watcher import ChangeNotifier, RunInfo, ScanResult, scan_runs

log = logging.getLogger(__name__)

__all__ = ["RunInfo", "ScanResult", "profiler_type", "scan", "scan_result", "start_notifier", "stop_notifier"]

_PROFILER_MARKERS = {
    "ascend": ("ascend_timeline_display", "output_op_compute_time"),
    "gpu": ("gpu_op_detail_info", "gpu_activity_data", "gpu_op_type_info"),
    "cpu": ("cpu_op_detail_info", "cpu_op_type_info"),
}


def scan(base_dir: Path, max_runs: int, max_depth: int = 1) -> list[RunInfo]:
    """All runs under `base_dir`, newest update first."""
    return scan_result(base_dir, max_runs, max_depth).runs


def scan_result(base_dir: Path, max_runs: int, max_depth: int = 1) -> ScanResult:
    """The runs under `base_dir` (newest update first), how many were found and whether a bound hit."""
    return scan_runs(base_dir, max_run_count=max_runs, max_depth=max_depth)


# MindSpore >= 2.4 / torch_npu rank folders: ASCEND_PROFILER_OUTPUT/ holds these NPU tables on Ascend (a CPU-only
# MindSpore session writes only trace_view.json there, and its cpu_op_* files under FRAMEWORK/).
_ASCEND_OUTPUT = ("kernel_details.csv", "op_statistic.csv", "step_trace_time.csv", "communication.json")
_SESSION_DEPTH = 3


def _session_kind(path: Path, depth: int = 0) -> str:
    """'ascend' / 'cpu' from the rank folders (holding ASCEND_PROFILER_OUTPUT/ or FRAMEWORK/) under `path`."""
    try:
        with os.scandir(path) as it:
            dirs = sorted(e.name for e in it if e.is_dir(follow_symlinks=False))
    except OSError:
        return ""
    found = ""
    if "ASCEND_PROFILER_OUTPUT" in dirs or "FRAMEWORK" in dirs:
        for sub, markers, kind in (("ASCEND_PROFILER_OUTPUT", _ASCEND_OUTPUT, "ascend"),
                                   ("FRAMEWORK", _PROFILER_MARKERS["cpu"], "cpu")):
            try:
                names = os.listdir(path / sub)
            except OSError:
                continue
            if any(n.startswith(markers) for n in names):
                return kind
        return found
    if depth >= _SESSION_DEPTH:
        return found
    for name in dirs:
        kind = _session_kind(path / name, depth + 1)
        if kind == "ascend":
            return kind
        found = found or kind
    return found


def profiler_type(run: RunInfo) -> str:
    """'ascend' | 'gpu' | 'cpu' from the files in the run's profiler dirs (legacy files directly inside, else the
    MindSpore 2.x / torch_npu rank folders), else ''."""
    for d in run.profiler_dirs:
        try:
            names = os.listdir(Path(run.path) / d)
        except OSError:
            continue
        for kind in ("ascend", "gpu", "cpu"):
            if any(n.startswith(_PROFILER_MARKERS[kind]) for n in names):
                return kind
        kind = _session_kind(Path(run.path) / d)
        if kind:
            return kind
    return ""


def start_notifier(base_dir: Path, callback: Callable[[], None]) -> ChangeNotifier | None:
    notifier = ChangeNotifier(base_dir, lambda _path: callback())
    notifier.start()
    return notifier


def stop_notifier(notifier: ChangeNotifier) -> None:
    try:
        notifier.stop()
    except Exception:  # pragma: no cover
        log.debug("notifier stop failed", exc_info=True)
