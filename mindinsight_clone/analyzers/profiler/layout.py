"""Find profiler data on disk, in both layouts, and index it by device (rank).

* **legacy** (what MindInsight 2.3.1 reads): `<run>/profiler*/` holds the files directly, named
  `<kind>_<device id>.<ext>` (`cpu_op_type_info_0.csv`, `profiler_info_0.json`, ...).
* **ms2** (MindSpore >= 2.4, fixtures written by 2.10): `<run>/profiler*/<host>_<pid>_<ts>_ascend_ms/` with
  `FRAMEWORK/cpu_op_type_info_<rank>.csv` etc. and `ASCEND_PROFILER_OUTPUT/trace_view.json`. Every process of a
  multi-rank job writes its own `*_ascend_ms` session; the ranks of all sessions make the device list.

Nothing here reads request input: callers pass directories that were already validated (see locate.py), and file
names are built only from device ids discovered on disk.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mindinsight_clone.ingest.summary_watcher import is_profiler_dir_name

# Files MindInsight's analysers read from a legacy profiler dir, all suffixed `_<device id>`.
_LEGACY_KINDS = (
    "profiler_info", "cpu_op_type_info", "cpu_op_detail_info", "cpu_op_execute_timestamp", "cpu_framework",
    "gpu_op_detail_info", "gpu_activity_data", "gpu_op_type_info", "gpu_timeline_display", "gpu_timeline_summary",
    "output_op_compute_time", "ascend_timeline_display", "ascend_timeline_summary", "aicore_intermediate",
    "aicpu_intermediate", "framework_raw", "step_trace_intermediate", "step_trace_raw", "pipeline_profiling",
    "minddata_pipeline_raw", "minddata_cpu_utilization", "device_queue_profiling", "memory_usage",
    "flops_summary", "flops_scope", "dynamic_shape_info", "cpu_ms_memory_record",
)
_LEGACY_FILE = re.compile(r"^(" + "|".join(_LEGACY_KINDS) + r")_(\d+)(?:_[A-Za-z_]+)?\.(?:csv|txt|json|pb)$")
_MS2_RANK_FILE = re.compile(
    r"^(cpu_op_type_info|cpu_op_detail_info|cpu_op_execute_timestamp|cpu_framework|cpu_ms_memory_record|"
    r"profiler_info)_(\d+)\.(?:csv|txt|json)$"
)
_MS2_SESSION_DIRS = ("FRAMEWORK", "ASCEND_PROFILER_OUTPUT")
# NPU tables in ASCEND_PROFILER_OUTPUT/ (a CPU-only MindSpore session writes only trace_view.json there)
ASCEND_MARKERS = ("kernel_details.csv", "op_statistic.csv", "step_trace_time.csv", "communication.json")
_MAX_SESSION_DEPTH = 3

Layout = Literal["legacy", "ms2"]


def _listdir(path: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_real_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class DeviceFiles:
    """Where the files of one device (rank) live."""

    device_id: str
    base: Path  # legacy: the profiler dir; ms2: the session's FRAMEWORK dir
    output: Path | None = None  # ms2: ASCEND_PROFILER_OUTPUT
    session: str | None = None  # ms2: the `*_ascend_ms` dir name
    info: dict[str, Any] = field(default_factory=dict)  # profiler_info_<id>.json, when written

    def file(self, template: str) -> Path | None:
        """`template` like `cpu_op_type_info_{}.csv`, formatted with this (discovered, numeric) device id."""
        path = self.base / template.format(self.device_id)
        return path if path.is_file() and not path.is_symlink() else None

    def output_file(self, name: str) -> Path | None:
        if self.output is None:
            return None
        path = self.output / name
        return path if path.is_file() and not path.is_symlink() else None

    @property
    def is_ascend(self) -> bool:
        """Whether this rank has NPU output (one of the Ascend tables), not only a host CPU trace."""
        return any(self.output_file(name) is not None for name in ASCEND_MARKERS)


@dataclass(frozen=True)
class ProfilerDir:
    """A profiler directory of one run, with its devices."""

    path: Path
    display: str  # relative form for messages, e.g. `./run/profiler`
    layout: Layout
    devices: dict[str, DeviceFiles]

    @property
    def device_ids(self) -> list[str]:
        return sorted(self.devices, key=int)

    def device(self, device_id: str) -> DeviceFiles | None:
        return self.devices.get(device_id)

    def has_kind(self, prefix: str) -> bool:
        """Whether any device has a file whose name starts with `prefix` (e.g. `cpu_op_type_info_`)."""
        seen: set[Path] = set()
        for dev in self.devices.values():
            if dev.base in seen:
                continue
            seen.add(dev.base)
            if any(e.name.startswith(prefix) for e in _listdir(dev.base)):
                return True
        return False

    @property
    def device_type(self) -> str:
        """`ascend`, `gpu` or `cpu`, by the files present (as MindInsight decides it)."""
        if self.has_kind("ascend_timeline_display") or self.has_kind("output_op_compute_time"):
            return "ascend"
        if any(self.has_kind(p) for p in ("gpu_op_detail_info", "gpu_activity_data", "gpu_op_type_info")):
            return "gpu"
        if self.layout == "ms2":
            if any(d.is_ascend for d in self.devices.values()):
                return "ascend"
            targets = {str(d.info.get("device_target", "")).lower() for d in self.devices.values()}
            if "ascend" in targets:
                return "ascend"
            if "gpu" in targets:
                return "gpu"
        return "cpu"

    @property
    def profiler_mode(self) -> str:
        for dev in self.devices.values():
            mode = str(dev.info.get("context_mode", "")).lower()
            if mode:
                return "pynative" if mode.startswith("pynative") else "graph"
        return "graph"


def _legacy_ids(path: Path) -> tuple[set[str], set[str]]:
    """Device ids of legacy files in `path`: (ids with profiler_info, ids with any data file)."""
    info_ids: set[str] = set()
    data_ids: set[str] = set()
    for entry in _listdir(path):
        match = _LEGACY_FILE.match(entry.name)
        if match and _is_real_file(entry):
            data_ids.add(match.group(2))
            if match.group(1) == "profiler_info":
                info_ids.add(match.group(2))
    return info_ids, data_ids


def _session_dirs(path: Path, depth: int = 0) -> list[Path]:
    """`*_ascend_ms`-like dirs (holding FRAMEWORK/ or ASCEND_PROFILER_OUTPUT/) under `path`, symlinks skipped."""
    found: list[Path] = []
    entries = [e for e in _listdir(path) if _is_real_dir(e)]
    if depth > 0 and any(e.name in _MS2_SESSION_DIRS for e in entries):
        return [path]
    if depth >= _MAX_SESSION_DEPTH:
        return found
    for entry in entries:
        if entry.name in _MS2_SESSION_DIRS or entry.name == "logs":
            continue
        found.extend(_session_dirs(Path(entry.path), depth + 1))
    return found


def _session_devices(session: Path) -> list[DeviceFiles]:
    framework = session / "FRAMEWORK"
    output = session / "ASCEND_PROFILER_OUTPUT"
    out_dir = output if output.is_dir() and not output.is_symlink() else None
    ranks: set[str] = set()
    infos: dict[str, dict[str, Any]] = {}
    for folder in (session, framework):
        for entry in _listdir(folder):
            match = _MS2_RANK_FILE.match(entry.name)
            if match and _is_real_file(entry):
                ranks.add(match.group(2))
                if match.group(1) == "profiler_info":
                    infos[match.group(2)] = _read_json(Path(entry.path))
    if not ranks and out_dir is not None and any(_is_real_file(e) for e in _listdir(out_dir)):
        ranks.add("0")
    base = framework if framework.is_dir() and not framework.is_symlink() else session
    return [DeviceFiles(rank, base, out_dir, session.name, infos.get(rank, {})) for rank in sorted(ranks, key=int)]


def scan_profiler_dir(path: Path, display: str) -> ProfilerDir:
    """Index a profiler dir (legacy when it holds legacy files directly, else ms2). Empty if it has no data."""
    info_ids, data_ids = _legacy_ids(path)
    if data_ids:
        ids = info_ids or data_ids
        devices = {i: DeviceFiles(i, path, info=_read_json(path / f"profiler_info_{i}.json")) for i in ids}
        return ProfilerDir(path, display, "legacy", devices)
    devices_ms2: dict[str, DeviceFiles] = {}
    # Newest session last (names are `<host>_<pid>_<timestamp>_ascend_ms`; sort by the timestamp, then mtime).
    for session in sorted(_session_dirs(path), key=_session_sort_key):
        for dev in _session_devices(session):
            devices_ms2[dev.device_id] = dev
    return ProfilerDir(path, display, "ms2", devices_ms2)


def _session_sort_key(session: Path) -> tuple[int, float]:
    """Older first: the longest all-digit part of the name (`<host>_<pid>_<timestamp>_ascend_ms`, torch_npu's
    `{host}_{pid}_{ts}_ascend_pt`) as a timestamp when it has 10+ digits, then the folder's mtime."""
    digits = [p for p in session.name.split("_") if p.isdigit() and len(p) >= 10]
    stamp = int(max(digits, key=len)) if digits else -1
    try:
        mtime = session.stat().st_mtime
    except OSError:
        mtime = 0.0
    return stamp, mtime


def is_profiler_dir(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a directory (not a symlink) holding profiler data in either layout."""
    target = Path(path)
    if target.is_symlink() or not target.is_dir():
        return False
    if _legacy_ids(target)[1]:
        return True
    return any(_session_devices(s) for s in _session_dirs(target))


def find_profiler_dirs(run_dir: str | os.PathLike[str]) -> list[Path]:
    """The direct sub-dirs of `run_dir` named `profiler*` (or MindFormers' `profile`) that hold profiler
    data, sorted by name."""
    return [Path(e.path) for e in _listdir(Path(run_dir))
            if is_profiler_dir_name(e.name) and _is_real_dir(e) and is_profiler_dir(e.path)]
