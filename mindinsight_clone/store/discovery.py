"""The store's view of `ingest.summary_watcher`: the run list, profiler type, and change notifications.

Discovery rules live in the watcher (LIMITS.md §3: base dir + direct subdirectories, symlinks
skipped, ...). Here: the listing order MindInsight uses (update time descending), the profiler type shown
in `train-jobs`, and a notifier that wakes the reload thread.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.bases import Base, Bases
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.ingest.summary_watcher import (
    PROFILER_KIND_MARKERS,
    ChangeNotifier,
    RunInfo,
    ScanResult,
    scan_runs,
)

log = logging.getLogger(__name__)

__all__ = ["RunInfo", "ScanResult", "graph_mode", "profiler_type", "scan", "scan_result", "start_notifier",
           "stop_notifier"]

_PROFILER_MARKERS = PROFILER_KIND_MARKERS
UNLIMITED = sys.maxsize


def scan(base_dir: Location | Bases, max_runs: int, max_depth: int = 1, run_filter: str = "") -> list[RunInfo]:
    """All runs under `base_dir` (every base of a `Bases`), newest update first."""
    return scan_result(base_dir, max_runs, max_depth, run_filter).runs


def scan_result(base_dir: Location | Bases, max_runs: int, max_depth: int = 1, run_filter: str = "") -> ScanResult:
    """The runs under `base_dir` (newest update first), how many were found and whether a bound hit, with
    each run's profiler type and graph mode looked up here (the caller's thread, i.e. the reload thread).

    Several bases: each is scanned (down to `max_depth`), its ids prefixed with its name (`./<name>/...`), and a
    base that fails is logged and noted in `failed` under `./<name>` while the others are listed. `run_filter`
    (a regex, `re.search`ed on the train id without `./`) drops the runs it does not match before the
    `max_runs` cut; `filtered` counts them."""
    bases = base_dir if isinstance(base_dir, Bases) else Bases.single(base_dir)
    if len(bases) == 1 and not bases.named and not run_filter:  # one base dir: as it always was
        result = scan_runs(bases.primary, max_run_count=max_runs, max_depth=max_depth)
    else:
        result = _scan_bases(bases, max_runs, max_depth, run_filter)
    for run in result.runs:
        _describe_profiler(run)
    return result


def _scan_bases(bases: Bases, max_runs: int, max_depth: int, run_filter: str) -> ScanResult:
    merged = ScanResult(runs=[], total_runs=0)
    for base in bases:
        try:
            part = scan_runs(base.location, max_run_count=UNLIMITED, max_depth=max_depth)
        except Exception as exc:  # one failing base never hides the others
            log.warning("cannot scan summary base dir %s: %s", base.describe(), exc)
            merged.failed[base.train_id("./")] = f"cannot list {storage.describe(base.location)}: {exc}"
            continue
        if base.name is not None:
            _prefix(part, base)
        merged.runs += part.runs
        merged.truncated = merged.truncated or part.truncated
        merged.failed.update(part.failed)
        merged.listings += part.listings
        merged.debug.dumps += part.debug.dumps
        merged.debug.models += part.debug.models
        merged.debug.msprobe_dumps += part.debug.msprobe_dumps
        merged.debug.msprobe_files += part.debug.msprobe_files
        merged.debug.dumps_truncated = merged.debug.dumps_truncated or part.debug.dumps_truncated
        merged.debug.models_truncated = merged.debug.models_truncated or part.debug.models_truncated
        merged.debug.msprobe_truncated = merged.debug.msprobe_truncated or part.debug.msprobe_truncated
    runs = merged.runs
    if run_filter:
        pattern = re.compile(run_filter)
        runs = [r for r in runs if pattern.search(r.train_id[2:])]
        merged.filtered = len(merged.runs) - len(runs)
    runs.sort(key=lambda r: (-r.update_time, r.train_id))
    merged.total_runs = len(runs)
    merged.runs = runs[:max_runs]
    return merged


def _prefix(result: ScanResult, base: Base) -> None:
    """Rewrite a base's ids (runs, failed listings, dump roots, model files, msprobe dumps and result files) to
    `./<name>/...`."""
    for run in result.runs:
        run.train_id = base.train_id(run.train_id)
    result.failed = {base.train_id(tid): why for tid, why in result.failed.items()}
    result.debug.dumps = [replace(d, dump_id=base.train_id(d.dump_id)) for d in result.debug.dumps]
    result.debug.models = [replace(m, model_id=base.train_id(m.model_id)) for m in result.debug.models]
    result.debug.msprobe_dumps = [replace(d, dump_id=base.train_id(d.dump_id)) for d in result.debug.msprobe_dumps]
    result.debug.msprobe_files = [replace(f, file_id=base.train_id(f.file_id)) for f in result.debug.msprobe_files]


# remote runs: (path, profiler dirs, update time) -> (profiler type, graph mode), so an unchanged run costs no
# listing per rescan; local runs are looked at on every rescan (cheap, and nested rank folders may change)
_REMOTE_KINDS: dict[tuple[str, tuple[str, ...], float], tuple[str, str]] = {}
_REMOTE_KINDS_MAX = 100_000
_kinds_lock = threading.Lock()


def _describe_profiler(run: RunInfo) -> None:
    if not run.profiler_dirs:
        run.profiler_type, run.graph_mode = "", "static"
        return
    key = (str(run.path), tuple(run.profiler_dirs), run.update_time)
    remote = storage.is_remote(run.path)
    if remote:
        with _kinds_lock:
            known = _REMOTE_KINDS.get(key)
        if known is not None:
            run.profiler_type, run.graph_mode = known
            return
    kind = _profiler_type(run)
    mode = _graph_mode(run) if kind else "static"
    run.profiler_type, run.graph_mode = kind, mode
    if remote:
        with _kinds_lock:
            if len(_REMOTE_KINDS) >= _REMOTE_KINDS_MAX:
                _REMOTE_KINDS.clear()
            _REMOTE_KINDS[key] = (kind, mode)


# MindSpore >= 2.4 / torch_npu rank folders: ASCEND_PROFILER_OUTPUT/ holds these NPU tables on Ascend (a CPU-only
# MindSpore session writes only trace_view.json there, and its cpu_op_* files under FRAMEWORK/), or, with
# `export_type` db, the database export (prefixes of `ascend_{pytorch,mindspore}_profiler_<rank>.db`).
_ASCEND_OUTPUT = ("kernel_details.csv", "op_statistic.csv", "step_trace_time.csv", "communication.json",
                  "ascend_pytorch_profiler", "ascend_mindspore_profiler")
_SESSION_DEPTH = 3


def _names(location: Location) -> list[str]:
    """The entry names of a directory; raises OSError."""
    entries, _ = storage.list_dir(location, details=False)
    return [e.name for e in entries]


def _session_kind(path: Location, depth: int = 0) -> str:
    """'ascend' / 'cpu' from the rank folders (holding ASCEND_PROFILER_OUTPUT/ or FRAMEWORK/) under `path`."""
    try:
        entries, _ = storage.list_dir(path, details=False)
    except OSError:
        return ""
    dirs = sorted(e.name for e in entries if e.is_dir)
    found = ""
    if "ASCEND_PROFILER_OUTPUT" in dirs or "FRAMEWORK" in dirs:
        for sub, markers, kind in (("ASCEND_PROFILER_OUTPUT", _ASCEND_OUTPUT, "ascend"),
                                   ("FRAMEWORK", _PROFILER_MARKERS["cpu"], "cpu")):
            try:
                names = _names(path / sub)
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
    MindSpore 2.x / torch_npu rank folders), else ''. Looked up by the scan; here only if it was not."""
    if run.profiler_type is None:
        _describe_profiler(run)
    return run.profiler_type or ""


def graph_mode(run: RunInfo) -> str:
    """'dynamic' when the profiler recorded PyNative mode, else 'static' (looked up by the scan)."""
    if run.graph_mode is None:
        _describe_profiler(run)
    return run.graph_mode or "static"


def _profiler_type(run: RunInfo) -> str:
    for d in run.profiler_dirs:
        try:
            names = _names(run.path / d)
        except OSError:
            continue
        for kind in ("ascend", "gpu", "cpu"):
            if any(n.startswith(_PROFILER_MARKERS[kind]) for n in names):
                return kind
        kind = _session_kind(run.path / d)
        if kind:
            return kind
    return ""


def _graph_mode(run: RunInfo) -> str:
    for d in run.profiler_dirs:
        try:
            names = sorted(n for n in _names(run.path / d) if n.startswith("profiler_info_"))
            if names:
                info = json.loads(storage.read_text(run.path / d / names[0]))
                if str(info.get("context_mode", "")).lower() in ("pynative", "pynative_mode", "dynamic"):
                    return "dynamic"
        except (OSError, ValueError, AttributeError):
            continue
    return "static"


def start_notifier(base_dir: Location | Bases, callback: Callable[[], None]) -> Any:
    """Watch a local base dir for changes (watchdog); None for a remote one (the reload loop polls it). Several
    bases: one watch per local base, behind one `NotifierGroup` (None when every base is remote)."""
    if not isinstance(base_dir, Bases):
        return _start_one(base_dir, callback)
    if len(base_dir) == 1:
        return _start_one(base_dir.primary, callback)
    started = [n for n in (_start_one(b.location, callback) for b in base_dir) if n is not None]
    return NotifierGroup(started) if started else None


def _start_one(base_dir: Location, callback: Callable[[], None]) -> ChangeNotifier | None:
    if not isinstance(base_dir, Path):  # remote
        return None
    notifier = ChangeNotifier(base_dir, lambda _path: callback())
    notifier.start()
    return notifier


class NotifierGroup:
    """The change notifiers of several local base dirs, used as one."""

    def __init__(self, notifiers: list[ChangeNotifier]) -> None:
        self.notifiers = notifiers

    @property
    def watching(self) -> bool:
        return all(n.watching for n in self.notifiers)

    def refresh(self) -> None:
        for n in self.notifiers:
            n.refresh()

    def stop(self) -> None:
        for n in self.notifiers:
            stop_notifier(n)


def stop_notifier(notifier: ChangeNotifier) -> None:
    try:
        notifier.stop()
    except Exception:  # pragma: no cover
        log.debug("notifier stop failed", exc_info=True)
