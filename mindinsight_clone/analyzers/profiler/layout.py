"""Find profiler data on disk, in both layouts, and index it by device (rank).

* **legacy** (what MindInsight 2.3.1 reads): `<run>/profiler*/` holds the files directly, named
  `<kind>_<device id>.<ext>` (`cpu_op_type_info_0.csv`, `profiler_info_0.json`, ...).
* **ms2** (MindSpore >= 2.4, fixtures written by 2.10): `<run>/profiler*/<host>_<pid>_<ts>_ascend_ms/` with
  `FRAMEWORK/cpu_op_type_info_<rank>.csv` etc. and `ASCEND_PROFILER_OUTPUT/trace_view.json`. Every process of a
  multi-rank job writes its own `*_ascend_ms` session; the ranks of all sessions make the device list.

Nothing here reads request input: callers pass directories that were already validated (see locate.py), and file
names are built only from device ids discovered on disk. Every listing, stat and read goes through
`ingest.storage`, so a profiler dir under an `s3://` (or other remote) base dir is read like a local one.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Entry, Location
from mindinsight_clone.ingest.summary_watcher import PROFILER_KIND_MARKERS, is_profiler_dir_name

log = logging.getLogger(__name__)

# Files MindInsight's analysers read from a legacy profiler dir, all suffixed `_<device id>`.
_LEGACY_KINDS = (
    "profiler_info", "cpu_op_type_info", "cpu_op_detail_info", "cpu_op_execute_timestamp", "cpu_framework",
    "gpu_op_detail_info", "gpu_activity_data", "gpu_op_type_info", "gpu_timeline_display", "gpu_timeline_summary",
    "output_op_compute_time", "ascend_timeline_display", "ascend_timeline_summary", "aicore_intermediate",
    "aicpu_intermediate", "framework_raw", "step_trace_intermediate", "step_trace_raw", "pipeline_profiling",
    "minddata_pipeline_raw", "minddata_cpu_utilization", "device_queue_profiling", "memory_usage",
    "flops_summary", "flops_scope", "dynamic_shape_info", "cpu_ms_memory_record",
    # the MindSpore <= 2.2 Ascend/GPU files MindInsight reads by device id (legacy_*.py)
    "hccl_raw", "flops", "minddata_aicpu", "minddata_getnext_profiling", "dataset_iterator_profiling",
    "timeline_display", "timeline_summary",
)
_LEGACY_FILE = re.compile(r"^(" + "|".join(_LEGACY_KINDS) + r")_(\d+)(?:_[A-Za-z_]+)?\.(?:csv|txt|json|pb)$")
_MS2_RANK_FILE = re.compile(
    r"^(cpu_op_type_info|cpu_op_detail_info|cpu_op_execute_timestamp|cpu_framework|cpu_ms_memory_record|"
    r"profiler_info)_(\d+)\.(?:csv|txt|json)$"
)
_MS2_SESSION_DIRS = ("FRAMEWORK", "ASCEND_PROFILER_OUTPUT")
# NPU tables in ASCEND_PROFILER_OUTPUT/ (a CPU-only MindSpore session writes only trace_view.json there)
ASCEND_MARKERS = ("kernel_details.csv", "op_statistic.csv", "step_trace_time.csv", "communication.json")
# The database export (`export_type` db): one SQLite file per rank (torch_npu / MindSpore), and the analysis file
# beside it (StepTraceTime, CommAnalyzer*). A rank folder holding both exports is read from the database.
PROFILER_DB = re.compile(r"^ascend_(?:pytorch|mindspore)_profiler(?:_(\d+))?\.db$")
ANALYSIS_DBS = ("analysis.db", "communication_analyzer.db")
_MAX_SESSION_DEPTH = 3
# Entries read from one directory of a profiler dir; a cut listing is logged and named in `ProfilerDir.problems`.
MAX_DIR_ENTRIES = 100_000
REMOTE_LISTING_THREADS = 16  # remote listings of one scan made at once (one request each)

Layout = Literal["legacy", "ms2"]


class _Listings:
    """The listings of one scan, each directory listed once (a remote listing is a request), sorted by name.
    Symlinks are never followed (storage lists them as neither file nor dir); cut listings are remembered.
    `cache` (the app's parse cache) keeps the small profiler_info JSON files parsed across scans."""

    def __init__(self, cache: ParsedFileCache | None = None) -> None:
        self._seen: dict[str, list[Entry]] = {}
        self._files: dict[str, dict[str, Entry]] = {}
        self.truncated: list[str] = []
        self.cache = cache

    def __call__(self, path: Location) -> list[Entry]:
        key = str(path)
        entries = self._seen.get(key)
        if entries is None:
            entries = list_entries(path, self.truncated)
            self._seen[key] = entries
        return entries

    def prefetch(self, paths: Sequence[Location]) -> None:
        """List `paths` now, remote ones in parallel (each listing is a request; a scan of a many-rank job would
        otherwise wait for them one after the other). Local listings are left to be made when asked for."""
        todo = list({str(p): p for p in paths if str(p) not in self._seen}.values())
        if len(todo) < 2 or not storage.is_remote(todo[0]):
            return
        with ThreadPoolExecutor(max_workers=min(REMOTE_LISTING_THREADS, len(todo))) as pool:
            listed = list(pool.map(lambda path: list_entries(path, self.truncated), todo))
        for path, entries in zip(todo, listed, strict=True):
            self._seen[str(path)] = entries

    def file(self, folder: Location, name: str) -> Location | None:
        """`folder / name` when the listing of `folder` has it as a regular file (never a symlink)."""
        key = str(folder)
        files = self._files.get(key)
        if files is None:
            files = self._files[key] = {e.name: e for e in self(folder) if e.is_file}
        entry = files.get(name)
        return entry.location if entry is not None else None


def list_entries(path: Location, truncated: list[str] | None = None) -> list[Entry]:
    """The entries of a directory sorted by name ([] when it cannot be listed), at most MAX_DIR_ENTRIES (a cut is
    logged and appended to `truncated`). Locally kinds only (no stat per entry); symlinks are neither dir nor file."""
    try:
        entries, cut = storage.list_dir(path, MAX_DIR_ENTRIES, details=False)  # local: kinds only, no lstat
    except OSError:
        return []
    if cut:
        log.warning("profiler dir listing of %s cut at %d entries: files beyond are not shown",
                    storage.describe(path), MAX_DIR_ENTRIES)
        if truncated is not None:
            truncated.append(storage.describe(path))
    return sorted(entries, key=lambda e: e.name)


def _parse_json(path: Location) -> dict[str, Any]:
    try:
        data = json.loads(storage.read_bytes(path))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _read_json(entry: Entry | None, cache: ParsedFileCache | None) -> dict[str, Any]:
    """A JSON object file found by a listing; {} when unreadable. Cached on the listing's size and mtime where the
    listing has them (remote: no extra request), else on a stat (a local listing gives kinds only)."""
    if entry is None:
        return {}
    return cached(cache, "profiler_info", entry.location, _parse_json, entry=entry if entry.size >= 0 else None)


@dataclass(frozen=True)
class DeviceFiles:
    """Where the files of one device (rank) live."""

    device_id: str
    base: Location  # legacy: the profiler dir; ms2: the session's FRAMEWORK dir
    output: Location | None = None  # ms2: ASCEND_PROFILER_OUTPUT
    session: str | None = None  # ms2: the `*_ascend_ms` dir name
    info: dict[str, Any] = field(default_factory=dict)  # profiler_info_<id>.json, when written
    # the scan's listings: a file is looked up in its dir's listing, one listing per dir and request (remote: one
    # LIST instead of a HEAD per lookup); without them (a DeviceFiles made by hand), each lookup is a stat
    listings: _Listings | None = field(default=None, compare=False, repr=False)

    def _lookup(self, folder: Location, name: str) -> Location | None:
        if self.listings is not None:
            return self.listings.file(folder, name)
        path = folder / name
        return path if storage.is_file(path) else None  # a regular file, never a symlink

    def file(self, template: str) -> Location | None:
        """`template` like `cpu_op_type_info_{}.csv`, formatted with this (discovered, numeric) device id."""
        return self._lookup(self.base, template.format(self.device_id))

    def output_file(self, name: str) -> Location | None:
        return None if self.output is None else self._lookup(self.output, name)

    def session_file(self, name: str) -> Location | None:
        """A file of the rank's result folder, beside ASCEND_PROFILER_OUTPUT/ (e.g. `profiler_metadata.json`)."""
        return None if self.output is None else self._lookup(self.output.parent, name)

    def _output_names(self) -> list[str]:
        if self.output is None:
            return []
        if self.listings is not None:
            return [e.name for e in self.listings(self.output) if e.is_file]
        return [e.name for e in list_entries(self.output) if e.is_file]

    @property
    def profiler_db(self) -> Location | None:
        """The rank's database export (`ascend_{pytorch,mindspore}_profiler_<rank>.db`), when written: the one named
        with this rank, else the first by name (a folder holds one rank)."""
        names = [n for n in self._output_names() if PROFILER_DB.match(n)]
        if not names:
            return None
        mine = [n for n in names if PROFILER_DB.match(n).group(1) == self.device_id]  # type: ignore[union-attr]
        return self.output_file((mine or names)[0])

    @property
    def analysis_db(self) -> Location | None:
        """`analysis.db` (torch_npu) or `communication_analyzer.db` (MindSpore) beside the database export."""
        return next((p for p in map(self.output_file, ANALYSIS_DBS) if p is not None), None)

    @property
    def is_ascend(self) -> bool:
        """Whether this rank has NPU output (one of the Ascend tables or the database export), not only a host
        CPU trace."""
        return any(self.output_file(name) is not None for name in ASCEND_MARKERS) or self.profiler_db is not None


@dataclass(frozen=True)
class ProfilerDir:
    """A profiler directory of one run, with its devices."""

    path: Location
    display: str  # relative form for messages, e.g. `./run/profiler`
    layout: Layout
    devices: dict[str, DeviceFiles]
    problems: tuple[str, ...] = ()  # e.g. a directory listing cut at MAX_DIR_ENTRIES
    # the scan's listings, reused by has_kind (a profiler dir is scanned per request; remote: a listing is a request)
    listings: _Listings = field(default_factory=_Listings, compare=False, repr=False)

    def prefetch_outputs(self) -> None:
        """List every rank's ASCEND_PROFILER_OUTPUT at once (remote: in parallel) before a view over all ranks."""
        self.listings.prefetch([d.output for d in self.devices.values() if d.output is not None])

    @property
    def device_ids(self) -> list[str]:
        return sorted(self.devices, key=int)

    def device(self, device_id: str) -> DeviceFiles | None:
        return self.devices.get(device_id)

    def has_kind(self, prefix: str) -> bool:
        """Whether any device has a file whose name starts with `prefix` (e.g. `cpu_op_type_info_`)."""
        seen: set[str] = set()
        for dev in self.devices.values():
            if str(dev.base) in seen:
                continue
            seen.add(str(dev.base))
            if any(e.name.startswith(prefix) for e in self.listings(dev.base)):
                return True
        return False

    @property
    def device_type(self) -> str:
        """`ascend`, `gpu` or `cpu`, by the files present (as MindInsight decides it)."""
        for kind in ("ascend", "gpu"):
            if any(self.has_kind(p) for p in PROFILER_KIND_MARKERS[kind]):
                return kind
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
    def framework(self) -> str | None:
        """Who wrote the profile: `mindspore` (MindInsight's layout, `*_ascend_ms` sessions, `ms_profiler_info`),
        `pytorch` (torch_npu: `*_ascend_pt` sessions, `rank_id` at the top of profiler_info), or None when the
        ranks do not say (or disagree)."""
        if self.layout == "legacy":
            return "mindspore"
        found = {_framework_of(d) for d in self.devices.values()} - {None}
        return found.pop() if len(found) == 1 else None

    @property
    def profiler_mode(self) -> str:
        for dev in self.devices.values():
            mode = str(dev.info.get("context_mode", "")).lower()
            if mode:
                return "pynative" if mode.startswith("pynative") else "graph"
        return "graph"


def _framework_of(device: DeviceFiles) -> str | None:
    if "ms_profiler_info" in device.info:
        return "mindspore"
    session = device.session or ""
    if session.endswith("_ascend_ms"):
        return "mindspore"
    if session.endswith("_ascend_pt") or "rank_id" in device.info:
        return "pytorch"
    return None


def _legacy_ids(path: Location, listdir: _Listings) -> tuple[set[str], set[str]]:
    """Device ids of legacy files in `path`: (ids with profiler_info, ids with any data file)."""
    info_ids: set[str] = set()
    data_ids: set[str] = set()
    for entry in listdir(path):
        match = _LEGACY_FILE.match(entry.name)
        if match and entry.is_file:
            data_ids.add(match.group(2))
            if match.group(1) == "profiler_info":
                info_ids.add(match.group(2))
    return info_ids, data_ids


def _prefetch_tree(path: Location, listdir: _Listings) -> None:
    """List, level by level and each level at once, the dirs `_session_dirs` will walk (remote: in parallel)."""
    level, depth = [path], 0
    while level:
        listdir.prefetch(level)
        if depth >= _MAX_SESSION_DEPTH:
            return
        below: list[Location] = []
        frameworks: list[Location] = []
        for folder in level:
            entries = [e for e in listdir(folder) if e.is_dir]
            if depth > 0 and any(e.name in _MS2_SESSION_DIRS for e in entries):  # a session: its FRAMEWORK/ next
                frameworks.extend(e.location for e in entries if e.name == "FRAMEWORK")
                continue
            below.extend(e.location for e in entries if e.name not in _MS2_SESSION_DIRS and e.name != "logs")
        listdir.prefetch(frameworks)
        level, depth = below, depth + 1


def _session_dirs(path: Location, listdir: _Listings, depth: int = 0) -> list[Location]:
    """`*_ascend_ms`-like dirs (holding FRAMEWORK/ or ASCEND_PROFILER_OUTPUT/) under `path`, symlinks skipped."""
    found: list[Location] = []
    entries = [e for e in listdir(path) if e.is_dir]
    if depth > 0 and any(e.name in _MS2_SESSION_DIRS for e in entries):
        return [path]
    if depth >= _MAX_SESSION_DEPTH:
        return found
    for entry in entries:
        if entry.name in _MS2_SESSION_DIRS or entry.name == "logs":
            continue
        found.extend(_session_dirs(entry.location, listdir, depth + 1))
    return found


def _session_devices(session: Location, listdir: _Listings, read_info: bool = True) -> list[DeviceFiles]:
    framework = session / "FRAMEWORK"
    output = session / "ASCEND_PROFILER_OUTPUT"
    kinds = {e.name: e for e in listdir(session) if e.is_dir}  # real dirs only: symlinks are skipped
    out_dir = output if "ASCEND_PROFILER_OUTPUT" in kinds else None
    has_framework = "FRAMEWORK" in kinds
    ranks: set[str] = set()
    infos: dict[str, dict[str, Any]] = {}
    for folder in (session, framework) if has_framework else (session,):
        for entry in listdir(folder):
            match = _MS2_RANK_FILE.match(entry.name)
            if match and entry.is_file:
                ranks.add(match.group(2))
                if match.group(1) == "profiler_info" and read_info:
                    infos[match.group(2)] = _read_json(entry, listdir.cache)
    if not ranks and out_dir is not None and any(e.is_file for e in listdir(out_dir)):
        # no profiler_info: the rank in the database export's name, else 0
        named = [m.group(1) for m in (PROFILER_DB.match(e.name) for e in listdir(out_dir)) if m and m.group(1)]
        ranks.add(str(int(named[0])) if named else "0")
    base = framework if has_framework else session
    return [DeviceFiles(rank, base, out_dir, session.name, infos.get(rank, {}), listdir)
            for rank in sorted(ranks, key=int)]


def scan_profiler_dir(path: Location, display: str, cache: ParsedFileCache | None = None) -> ProfilerDir:
    """Index a profiler dir (legacy when it holds legacy files directly, else ms2). Empty if it has no data."""
    listdir = _Listings(cache)
    info_ids, data_ids = _legacy_ids(path, listdir)
    if data_ids:
        ids = info_ids or data_ids
        files = {e.name: e for e in listdir(path) if e.is_file}
        devices = {i: DeviceFiles(i, path, info=_read_json(files.get(f"profiler_info_{i}.json"), cache),
                                  listings=listdir) for i in ids}
        return ProfilerDir(path, display, "legacy", devices, _cut_notes(listdir), listdir)
    devices_ms2: dict[str, DeviceFiles] = {}
    _prefetch_tree(path, listdir)
    # Newest session last (names are `<host>_<pid>_<timestamp>_ascend_ms`; sort by the timestamp, then mtime).
    for session in sorted(_session_dirs(path, listdir), key=_session_sort_key):
        for dev in _session_devices(session, listdir):
            devices_ms2[dev.device_id] = dev
    return ProfilerDir(path, display, "ms2", devices_ms2, _cut_notes(listdir), listdir)


def _cut_notes(listdir: _Listings) -> tuple[str, ...]:
    return tuple(f"listing of {where} cut at {MAX_DIR_ENTRIES} entries: files beyond are not shown"
                 for where in listdir.truncated)


def _session_sort_key(session: Location) -> tuple[int, float]:
    """Older first: the longest all-digit part of the name (`<host>_<pid>_<timestamp>_ascend_ms`, torch_npu's
    `{host}_{pid}_{ts}_ascend_pt`) as a timestamp when it has 10+ digits, then the folder's mtime."""
    digits = [p for p in session.name.split("_") if p.isdigit() and len(p) >= 10]
    stamp = int(max(digits, key=len)) if digits else -1
    try:
        mtime = storage.stat(session).mtime  # 0.0 for a remote "directory" (object stores keep no dir times)
    except OSError:
        mtime = 0.0
    return stamp, mtime



def is_profiler_dir(path: str | os.PathLike[str] | Location) -> bool:
    """Whether `path` is a directory (not a symlink) holding profiler data in either layout."""
    target = storage.as_location(path)
    if not storage.is_dir(target):
        return False
    return _holds_data(target, _Listings())


def _holds_data(target: Location, listdir: _Listings) -> bool:
    if _legacy_ids(target, listdir)[1]:
        return True
    return any(_session_devices(s, listdir, read_info=False) for s in _session_dirs(target, listdir))


def find_profiler_dirs(run_dir: str | os.PathLike[str] | Location) -> list[Location]:
    """The direct sub-dirs of `run_dir` named `profiler*` (or MindFormers' `profile`) that hold profiler
    data, sorted by name."""
    return [e.location for e in list_entries(storage.as_location(run_dir))
            if is_profiler_dir_name(e.name) and e.is_dir and _holds_data(e.location, _Listings())]
