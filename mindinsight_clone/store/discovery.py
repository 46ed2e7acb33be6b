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


def profiler_type(run: RunInfo) -> str:
    """'ascend' | 'gpu' | 'cpu' from the files in the run's first profiler dir, else ''."""
    for d in run.profiler_dirs:
        try:
            names = os.listdir(Path(run.path) / d)
        except OSError:
            continue
        for kind in ("ascend", "gpu", "cpu"):
            if any(n.startswith(_PROFILER_MARKERS[kind]) for n in names):
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
