"""Find the runs of a summary base dir and their files (parses nothing), and watch for changes.

A run is the base dir itself or one of its DIRECT subdirectories that directly contains

* a file whose name contains `summary.<digits>` (not ending in `_explain`; `_lineage` files are
  the run's lineage files),
* a TensorBoard event file `events.out.tfevents.<digits>...` or a VisualDL log (a name containing
  `vdlrecords`) (listed with the summary files: a run may hold several kinds; `ingest.formats` picks the reader),
* a `*.pb` graph file (not `memory_usage_<n>.pb`), or
* a subdirectory named `profiler*` that holds at least one file (at any depth) and is not a run
  itself (no summary/pb file or `profiler*` dir directly inside).

`train_id` is `./<name>` (`./` for the base dir). Symlinks are never followed. Every directory
listing stops after `max_scan_entries` entries. All listing goes through `ingest.storage`, so the base dir
may be remote (`s3://bucket/prefix`): a scan makes one listing call per directory it looks at (bounded by
`max_scan_dirs` and the profiler probe's budgets), and `ScanResult.failed` tells a failing store from an
empty one. When there are more than `max_run_count` runs, the
MOST RECENTLY updated ones are kept (MindInsight keeps the oldest; see LIMITS.md §3).

With `max_depth` > 1 (MindInsight: always 1) directories down to that depth are runs too, e.g.
`./job/output/summary/rank_0` at depth 4; at most `max_scan_dirs` directories are looked at, and
`ScanResult.truncated` says when a bound was hit (also logged).

The same walk notes MindSpore dump roots and model files (`debug_discovery`): `ScanResult.debug`. It does not go
into the `rank_<id>/` folders of a dump.

Below a run holding TensorBoard event files, the writers' sub-folders are looked for (`tfevents_members`,
at most `tfevents_members.MAX_DEPTH` levels and `MAX_LISTINGS` listings per run, peeking at the first
record of each event file there): an `add_scalars` sub-folder belongs to its run (`RunInfo.members`,
`member_files`) and is never a run of its own, at any depth; an `add_hparams` session folder is a run of its
own even beyond `max_depth`. A run folder's `projector_config.pbtxt` is noted (`RunInfo.projector`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mindinsight_clone.ingest import debug_discovery, storage, tfevents_members
from mindinsight_clone.ingest.debug_discovery import DebugFinds
from mindinsight_clone.ingest.storage import Entry, Location
from mindinsight_clone.ingest.tfevents_members import Member
from mindinsight_clone.ingest.tfevents_parser import is_tfevents_file, tfevents_timestamp
from mindinsight_clone.ingest.vdl_parser import is_vdlrecords_file, vdl_timestamp

logger = logging.getLogger(__name__)

SUMMARY_PATTERN = re.compile(r"summary\.(\d+)")
MEMORY_USAGE_PB = re.compile(r"^memory_usage_\d+\.pb$")
DEFAULT_MAX_SCAN_ENTRIES = 20_000
DEFAULT_MAX_RUN_COUNT = 10_000  # MindInsight: 999; 10,000 runs are listed and searchable (docs/api.md)
DEFAULT_MAX_DEPTH = 1  # MindInsight: the base dir and its direct subdirectories
DEFAULT_MAX_SCAN_DIRS = 200_000  # most directories listed by one deep scan (max_depth > 1)
PROFILER_PROBE_ENTRIES = 10_000  # most entries looked at while checking a profiler dir for a file
PROFILER_PROBE_LISTINGS = 64  # most directories listed while checking a profiler dir for a file
MAX_WATCHED_DIRS = 1_000  # most directories watched (inotify: one watch each); past it, only the base dir
PROJECTOR_CONFIG = "projector_config.pbtxt"  # TensorBoard projector (ingest.projector)


@dataclass(frozen=True, slots=True)
class FileInfo:
    name: str
    size: int
    mtime: float


@dataclass(slots=True)
class RunInfo:
    train_id: str  # "./", "./<name>" or, deeper, "./<dir>/.../<name>"
    path: Location  # local Path or remote UPath (ingest.storage)
    summary_files: list[FileInfo] = field(default_factory=list)  # sorted by the number after "summary."
    lineage_files: list[FileInfo] = field(default_factory=list)  # same order
    pb_files: list[FileInfo] = field(default_factory=list)  # by name
    profiler_dirs: list[str] = field(default_factory=list)  # names, sorted
    create_time: float = 0.0  # timestamp in the newest summary file name (else oldest mtime)
    update_time: float = 0.0  # newest mtime of the run's files and profiler dirs
    total_bytes: int = 0  # summary + lineage + pb bytes
    # filled by store.discovery on the reload thread (None: not looked at yet), so listing runs
    # never touches the store on a request thread
    profiler_type: str | None = None
    graph_mode: str | None = None
    # TensorBoard: writers' sub-folders (add_scalars keys, add_hparams sessions), the add_scalars ones' event
    # files (names relative to the run), and whether the folder holds a projector config
    members: list[Member] = field(default_factory=list)
    member_files: list[FileInfo] = field(default_factory=list)
    projector: bool = False

    @property
    def name(self) -> str:
        return self.train_id[2:] or "."

    def scalar_groups(self) -> dict[str, list[str]]:
        """add_scalars main tag -> its keys (sorted), from the member folders."""
        groups: dict[str, list[str]] = {}
        for m in self.members:
            if m.kind == "scalars":
                groups.setdefault(m.main_tag, []).append(m.key)
        return {main: sorted(keys) for main, keys in sorted(groups.items())}

    def hparams_sessions(self) -> list[str]:
        """train_ids of the add_hparams session runs found below this run, sorted."""
        return sorted(_child_id(self.train_id, m.rel) for m in self.members if m.kind == "hparams")

    def member_keys(self) -> dict[str, str]:
        """Each add_scalars member file (relative name) -> the key its tags get."""
        keys = {m.rel: m.key for m in self.members if m.kind == "scalars"}
        return {f.name: keys[f.name.rsplit("/", 1)[0]] for f in self.member_files}


@dataclass(slots=True)
class ScanResult:
    runs: list[RunInfo]  # newest update_time first
    total_runs: int  # runs found before the max_run_count cut
    truncated: bool = False  # some listing hit max_scan_entries
    # remote only: directories whose listing failed (train_id -> error; "./" = the base dir). A failing
    # store is not an empty one: the caller keeps what it knew about those runs. Locally a directory that
    # cannot be listed is skipped, as always.
    failed: dict[str, str] = field(default_factory=dict)
    listings: int = 0  # listing calls made (each one request, or a few pages, on an object store)
    debug: DebugFinds = field(default_factory=DebugFinds)  # dump roots and model files seen on the walk
    filtered: int = 0  # runs left out by the run filter (store.discovery; not counted in total_runs)


def summary_timestamp(name: str) -> int | None:
    match = SUMMARY_PATTERN.search(name)
    if match:
        return int(match.group(1))
    ts = tfevents_timestamp(name)
    return ts if ts is not None else vdl_timestamp(name)


def summary_sort_key(name: str) -> tuple[int, str]:
    """Order of summary files in a run: the number after `summary.`, then the name."""
    ts = summary_timestamp(name)
    return (ts if ts is not None else -1, name)



def scan_runs(base_dir: str | os.PathLike[str] | Location, max_run_count: int = DEFAULT_MAX_RUN_COUNT,
              max_scan_entries: int = DEFAULT_MAX_SCAN_ENTRIES, max_depth: int = DEFAULT_MAX_DEPTH,
              max_scan_dirs: int = DEFAULT_MAX_SCAN_DIRS) -> ScanResult:
    """The runs of `base_dir` (a local path or a storage location) down to `max_depth`, most recently
    updated first; an unreadable base dir gives none (remote: `failed` says why)."""
    base = storage.as_location(base_dir)
    state = _ScanState(max_scan_entries)
    deep = max_depth > 1
    runs = _scan_deep(base, state, max_depth, max_scan_dirs) if deep else _scan_one_level(base, state)
    runs = _fold_members(runs, state)
    runs.sort(key=lambda r: (-r.update_time, r.train_id))
    return ScanResult(runs=runs[:max_run_count], total_runs=len(runs), truncated=state.truncated,
                      failed=state.failed, listings=state.listings, debug=state.debug)


def _scan_one_level(base: Location, state: _ScanState) -> list[RunInfo]:
    """MindInsight's discovery: the base dir and its direct subdirectories."""
    runs: list[RunInfo] = []
    subdirs: list[Entry] = []
    base_run = _scan_dir(base, "./", state, subdirs)
    if base_run is not None:
        runs.append(base_run)
    for entry in subdirs:
        run = _scan_dir(entry.location, "./" + entry.name, state)
        if run is not None:
            runs.append(run)
    return runs


def _scan_deep(base: Location, state: _ScanState, max_depth: int, max_scan_dirs: int) -> list[RunInfo]:
    """Breadth-first discovery down to `max_depth` levels below the base dir (symlinks never followed,
    a run's own profiler dirs not entered, at most `max_scan_dirs` directories listed)."""
    runs: list[RunInfo] = []
    level: list[tuple[Location, str]] = [(base, "./")]
    listed = 0
    for depth in range(max_depth + 1):
        next_level: list[tuple[Location, str]] = []
        for path, train_id in level:
            if listed >= max_scan_dirs:
                state.truncated = True
                logger.warning("more than %d directories under %s; the rest are not scanned for runs",
                               max_scan_dirs, storage.describe(base))
                return runs
            listed += 1
            subdirs: list[Entry] = []
            run = _scan_dir(path, train_id, state, subdirs)
            if run is not None:
                runs.append(run)
            if depth == max_depth:
                continue
            skip = set(run.profiler_dirs) if run is not None else set()
            prefix = train_id if train_id == "./" else train_id + "/"
            next_level.extend((e.location, prefix + e.name) for e in subdirs if e.name not in skip)
        level = sorted(next_level, key=lambda item: item[1])
    return runs


def scan_run(base_dir: str | os.PathLike[str] | Location, train_id: str,
             max_scan_entries: int = DEFAULT_MAX_SCAN_ENTRIES) -> RunInfo | None:
    """One run by train_id (`./`, `./<name>` or `./<dir>/<name>`), or None if it is not a run (or a
    component of its path is a symlink). The caller validates ids."""
    base = storage.as_location(base_dir)
    name = train_id[2:].rstrip("/") if train_id.startswith("./") else train_id
    path = base.joinpath(*name.split("/")) if name else base
    if name and _through_symlink(base, name):
        return None
    return _scan_dir(path, "./" + name, _ScanState(max_scan_entries))


def _through_symlink(base: Location, name: str) -> bool:
    """Whether any component of `base/name` below `base` is a symlink (object stores have none)."""
    if storage.is_remote(base):
        return False
    current = base
    for part in name.split("/"):
        current = current / part
        try:
            if storage.stat(current).is_symlink:
                return True
        except OSError:
            return False
    return False


# ---------------------------------------------------------------------- scanning
class _ScanState:
    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self.truncated = False
        self.listings = 0
        self.failed: dict[str, str] = {}
        self.debug = DebugFinds()
        self._probed: dict[str, list[Entry]] = {}  # listings the dump probe made, for the walk to reuse

    def probe_list(self, path: Location) -> list[Entry]:
        """`list_dir` for the dump probe (`debug_discovery`): a listing the walk makes later is not made twice."""
        entries = self.list_dir(path)
        self._probed[str(path)] = entries
        return entries

    def list_dir(self, path: Location, train_id: str | None = None) -> list[Entry]:
        """At most max_entries entries of `path` (kinds only, no per-entry stat locally); [] if it cannot
        be listed. A remote listing that fails for another reason than a missing prefix is noted in
        `failed` under `train_id` (the run whose directory it is)."""
        known = self._probed.pop(str(path), None)
        if known:
            return known
        self.listings += 1
        try:
            entries, cut = storage.list_dir(path, self.max_entries, details=_wants_stat)
        except OSError as exc:
            logger.debug("cannot list %s: %s", storage.describe(path), exc)
            if train_id is not None and storage.is_remote(path) and not isinstance(exc, FileNotFoundError):
                self.failed[train_id] = f"cannot list {storage.describe(path)}: {exc}"
            return []
        if cut:
            self.truncated = True
            logger.warning("%s has more than %d entries; the rest are ignored", storage.describe(path),
                           self.max_entries)
        return entries


def _scan_dir(path: Location, train_id: str, state: _ScanState,
              subdirs: list[Entry] | None = None) -> RunInfo | None:
    """The run in `path` or None; with `subdirs`, also collects its (non-symlink) subdirectories."""
    run = RunInfo(train_id=train_id, path=path)
    mtimes: list[float] = []
    remote = storage.is_remote(path)
    dirs: list[Entry] = []
    entries = state.list_dir(path, train_id)
    not_runs = state.debug.note(path, train_id, entries, state.probe_list)  # a dump's rank folders
    for entry in entries:
        name = entry.name
        try:
            if entry.is_symlink:
                continue
            if entry.is_dir and name not in not_runs:
                dirs.append(entry)
                if subdirs is not None:
                    subdirs.append(entry)
            if entry.is_file and name == PROJECTOR_CONFIG:
                run.projector = True
            if entry.is_file:
                size, mtime = entry.size, entry.mtime
                if size < 0:  # a local listing stats only the files `_wants_stat` names
                    continue
                kind = _file_kind(name)
                if kind is None:
                    continue
                info = FileInfo(name, size, mtime)
                {"summary": run.summary_files, "lineage": run.lineage_files, "pb": run.pb_files}[kind].append(info)
                mtimes.append(mtime)
                run.total_bytes += size
            elif is_profiler_dir_name(name) and entry.is_dir:
                found = _is_profiler_dir(entry.location, state)
                if found is None:
                    continue
                run.profiler_dirs.append(name)
                # a store has no directory times: the newest file the probe saw stands in
                mtimes.append(found if remote else storage.stat(entry.location).mtime)
        except OSError:  # vanished while we looked
            continue
    if not (run.summary_files or run.lineage_files or run.pb_files or run.profiler_dirs):
        return None
    run.summary_files.sort(key=lambda f: summary_sort_key(f.name))
    run.lineage_files.sort(key=lambda f: summary_sort_key(f.name))
    run.pb_files.sort(key=lambda f: f.name)
    run.profiler_dirs.sort()
    if dirs and any(is_tfevents_file(f.name) for f in run.summary_files):
        mtimes.extend(_find_members(run, [d for d in dirs if d.name not in run.profiler_dirs], state))
    run.update_time = max(mtimes)
    newest = (run.summary_files or run.lineage_files)[-1:] if (run.summary_files or run.lineage_files) else []
    stamp = summary_timestamp(newest[0].name) if newest else None
    run.create_time = float(stamp) if stamp is not None else min(mtimes)
    return run


def _wants_stat(name: str) -> bool:
    """Files whose size and mtime a local listing reads: run files and model files."""
    return (_file_kind(name) is not None or debug_discovery.model_kind(name) is not None
            or debug_discovery.msprobe_file_kind(name) is not None)


def _find_members(run: RunInfo, dirs: list[Entry], state: _ScanState) -> list[float]:
    """Fill `run.members` and `run.member_files` from the folders below it (breadth-first, bounded); returns the
    member files' mtimes (they count as updates of the run)."""
    level: list[tuple[Location, str]] = sorted(((d.location, d.name) for d in dirs), key=lambda item: item[1])
    listings = 0
    mtimes: list[float] = []
    for _depth in range(tfevents_members.MAX_DEPTH):
        next_level: list[tuple[Location, str]] = []
        for path, rel in level:
            if listings >= tfevents_members.MAX_LISTINGS:
                _log_once(run.train_id, "run %s: more than %d folders below it; the rest are not searched for "
                          "add_scalars or add_hparams sub-folders", run.train_id, tfevents_members.MAX_LISTINGS)
                return mtimes
            listings += 1
            entries = state.list_dir(path, run.train_id)  # a failing store: noted under the run (DataManager)
            events = sorted((e for e in entries if e.is_file and not e.is_symlink and is_tfevents_file(e.name)),
                            key=lambda e: summary_sort_key(e.name))
            if not events:
                next_level.extend((e.location, f"{rel}/{e.name}") for e in entries
                                  if e.is_dir and not e.is_symlink and not is_profiler_dir_name(e.name))
                continue
            member = tfevents_members.classify(rel, events[0].location)
            if member is None:
                continue  # another writer's folder: a run of its own if --max-depth reaches it
            run.members.append(member)
            if member.kind == "scalars":
                for e in events:
                    if e.size >= 0:
                        run.member_files.append(FileInfo(f"{rel}/{e.name}", e.size, e.mtime))
                        run.total_bytes += e.size
                        mtimes.append(e.mtime)
        level = sorted(next_level, key=lambda item: item[1])
    return mtimes


_logged: set[str] = set()  # runs whose bounded sub-folder search was logged (once, not every rescan)


def _log_once(key: str, message: str, *args: object) -> None:
    if key not in _logged and len(_logged) < DEFAULT_MAX_RUN_COUNT:
        _logged.add(key)
        logger.warning(message, *args)


def _child_id(train_id: str, rel: str) -> str:
    return train_id + rel if train_id == "./" else f"{train_id}/{rel}"


def _fold_members(runs: list[RunInfo], state: _ScanState) -> list[RunInfo]:
    """add_scalars sub-folders are no runs (at any depth); add_hparams sessions are, even beyond max_depth."""
    known = {r.train_id for r in runs}
    folded: set[str] = set()
    extra: list[RunInfo] = []
    for run in runs:
        for member in run.members:
            child = _child_id(run.train_id, member.rel)
            if member.kind == "scalars":
                folded.add(child)
            elif child not in known:
                session = _scan_dir(run.path.joinpath(*member.rel.split("/")), child, state)
                if session is not None:
                    known.add(child)
                    extra.append(session)
    return [r for r in runs if r.train_id not in folded] + extra



def _file_kind(name: str) -> str | None:
    if SUMMARY_PATTERN.search(name):
        if name.endswith("_explain"):
            return None
        return "lineage" if name.endswith("_lineage") else "summary"
    if is_tfevents_file(name) or is_vdlrecords_file(name):
        return "summary"
    if name.endswith(".pb") and not MEMORY_USAGE_PB.match(name):
        return "pb"
    return None


# Files that say which device a profiler dir of MindInsight's layout (files directly in the dir) profiled, checked
# in this order: MindInsight's own markers first, then the files of the MindSpore <= 2.2 Ascend/GPU layout that a
# dir may hold without them (a cluster dir of step traces, HCCL and cluster analyses; MindSpore 1.0 names).
PROFILER_KIND_MARKERS: dict[str, tuple[str, ...]] = {
    "ascend": ("ascend_timeline_display", "output_op_compute_time", "aicore_intermediate", "aicpu_intermediate",
               "framework_raw", "ascend_cluster_analyse", "hccl_raw", "minddata_aicpu", "timeline_display"),
    "gpu": ("gpu_op_detail_info", "gpu_activity_data", "gpu_op_type_info", "gpu_timeline_display",
            "gpu_cluster_analyse", "minddata_getnext_profiling"),
    "cpu": ("cpu_op_detail_info", "cpu_op_type_info"),
}


def is_profiler_dir_name(name: str) -> bool:
    """A sub-dir that may hold profiler output: `profiler*` (MindSpore, MindInsight's rule) or `profile`
    (MindFormers' `output/profile/rank_N/`)."""
    return name.startswith("profiler") or name == "profile"


def _is_profiler_dir(path: Location, state: _ScanState) -> float | None:
    """A `profiler*` dir with profiler output: holds a file, and is not itself a run directory
    (e.g. a run named `profiler_cpu` next to other runs is not the base dir's profiler data).
    Returns the newest mtime the probe saw (0.0 locally, where listings carry kinds only), else None."""
    entries = state.list_dir(path)
    for entry in entries:
        name = entry.name
        if _file_kind(name) is not None and entry.is_file:
            return None
        if is_profiler_dir_name(name) and entry.is_dir:
            return None
    return _holds_a_file(path, entries, state)


def _holds_a_file(path: Location, first: list[Entry] | None = None, state: _ScanState | None = None) -> float | None:
    """Whether `path` contains a regular file at any depth (bounded in entries and listing calls,
    symlinks not followed): the newest mtime among the files of the directory where one was found, or None.
    `first` is the listing of `path` when the caller has it already."""
    budget = PROFILER_PROBE_ENTRIES
    calls = PROFILER_PROBE_LISTINGS
    stack: list[Location] = [path]
    while stack and budget > 0 and calls > 0:
        current = stack.pop()
        if first is not None and current is path:
            entries, first = first, None
        else:
            calls -= 1
            if state is not None:
                state.listings += 1
            try:
                entries, _ = storage.list_dir(current, budget, details=False)
            except OSError:
                continue
        dirs: list[Location] = []
        for entry in entries:
            budget -= 1
            if budget <= 0:
                break
            if entry.is_file:
                return max(e.mtime for e in entries if e.is_file)
            if entry.is_dir:
                dirs.append(entry.location)
        stack.extend(dirs)
    return None


# ---------------------------------------------------------------------- change notification
def count_dirs(base: Path, limit: int) -> int:
    """Directories under `base` at any depth (symlinks not followed); counting stops at `limit` + 1."""
    count = 0
    stack = [base]
    while stack:
        current = stack.pop()
        for entry in storage.iter_dir(current, details=False):
            if entry.is_dir and isinstance(entry.location, Path):
                count += 1
                if count > limit:
                    return count
                stack.append(entry.location)
    return count


class ChangeNotifier:
    """Calls `callback(path)` soon after something changes under `base_dir` (watchdog, inotify).

    Only creations, modifications, writes, moves and deletions count; opening or reading a file
    (as our own loader does) does not. If `base_dir` does not exist yet, its parent is watched
    until it appears. `callback` runs on the watchdog thread: keep it short (e.g. set an Event).

    Watches are bounded: the whole tree is watched (recursively, one inotify watch per directory)
    only while it holds at most `max_watched_dirs` directories; past that only the base dir itself is
    watched (new or removed runs still wake the loader at once) and changes inside runs are picked up
    by the reload loop's polling. `refresh()` (called after every rescan) switches between the two,
    with hysteresis: back to recursive only at half the bound. Thousands of run dirs thus never
    overflow the inotify queue (which made watchdog re-add every watch in a loop, spinning a core).
    """

    def __init__(self, base_dir: str | os.PathLike[str], callback: Callable[[str], None],
                 max_watched_dirs: int = MAX_WATCHED_DIRS) -> None:
        self.base_dir = Path(os.path.abspath(base_dir))
        self.callback = callback
        self.max_watched_dirs = max_watched_dirs
        self._lock = threading.Lock()
        self._observer: object | None = None
        self._watch: object | None = None
        self._watching_base = False
        self.recursive = True  # whether the whole tree is watched (else the base dir only); first count decides

    def start(self) -> None:
        try:
            from watchdog.observers import Observer
        except ImportError:  # optional: the reload loop still polls
            logger.warning("watchdog is not installed; changes are picked up by polling only")
            return
        with self._lock:
            if self._observer is not None:
                return
            observer = Observer()
            observer.daemon = True
            self._observer = observer
            self._arm()
            try:
                observer.start()
            except OSError as exc:  # e.g. inotify limits reached
                logger.warning("cannot watch %s for changes: %s", self.base_dir, exc)
                self._observer = None

    def stop(self) -> None:
        with self._lock:
            observer, self._observer = self._observer, None
            self._watch = None
        if observer is not None:
            observer.stop()  # type: ignore[attr-defined]
            if observer.is_alive():  # type: ignore[attr-defined]
                observer.join(timeout=5)  # type: ignore[attr-defined]

    @property
    def watching(self) -> bool:
        """True once the base dir itself is being watched."""
        return self._observer is not None and self._watching_base

    def refresh(self) -> None:
        """Re-check the number of directories and switch between recursive and base-only watching."""
        with self._lock:
            if self._observer is None or not self._watching_base:
                return
            if self._wants_recursive() != self.recursive:
                self._arm()

    # -- internals (called with self._lock held, or from the watchdog thread)
    def _arm(self) -> None:
        observer = self._observer
        if observer is None:
            return
        if self._watch is not None:
            with contextlib.suppress(KeyError, ValueError, OSError):
                observer.unschedule(self._watch)  # type: ignore[attr-defined]
            self._watch = None
        handler = _Handler(self)
        wanted = {"event_filter": _EVENT_FILTER} if _EVENT_FILTER else {}
        if storage.is_dir(self.base_dir, follow_symlinks=True):
            target, recursive, self._watching_base = self.base_dir, self._wants_recursive(), True
            self._log_mode(recursive)
            self.recursive = recursive
        else:
            target = self.base_dir.parent
            recursive, self._watching_base = False, False
            if not storage.is_dir(target, follow_symlinks=True):
                logger.info("%s does not exist; not watching it", self.base_dir)
                return
        try:
            self._watch = observer.schedule(handler, str(target), recursive=recursive,  # type: ignore[attr-defined]
                                            **wanted)
        except OSError as exc:  # e.g. the inotify watch limit: the base dir alone, or polling only
            logger.warning("cannot watch %s%s: %s", target, " and its subdirectories" if recursive else "", exc)
            if recursive:
                self.recursive = False
                with contextlib.suppress(OSError):
                    self._watch = observer.schedule(handler, str(target), recursive=False,  # type: ignore[attr-defined]
                                                    **wanted)

    def _wants_recursive(self) -> bool:
        dirs = count_dirs(self.base_dir, self.max_watched_dirs)
        if self.recursive:
            return dirs <= self.max_watched_dirs
        return dirs <= self.max_watched_dirs // 2

    def _log_mode(self, recursive: bool) -> None:
        if recursive:
            logger.info("watching %s and its subdirectories for changes", self.base_dir)
        else:
            logger.warning("%s holds more than %d directories: watching only the base dir for new and removed "
                           "runs; changes inside runs are picked up every reload interval (polling)",
                           self.base_dir, self.max_watched_dirs)

    def _on_event(self, event_type: str, src: str, dest: str, is_dir: bool) -> None:
        if event_type not in _RELEVANT:
            return
        if not self._watching_base:
            base = str(self.base_dir)
            if base in (os.path.abspath(src), os.path.abspath(dest or src)) and storage.is_dir(
                    self.base_dir, follow_symlinks=True):
                with self._lock:
                    self._arm()
                self._fire(src)
            return
        if is_dir and os.path.abspath(src) == str(self.base_dir) and event_type in ("deleted", "moved"):
            with self._lock:
                self._arm()  # base dir gone: fall back to watching its parent
        self._fire(src)

    def _fire(self, src: str) -> None:
        try:
            self.callback(src)
        except Exception:  # a faulty callback must not kill the watchdog thread
            logger.exception("change callback failed")


_RELEVANT = frozenset({"created", "modified", "deleted", "moved", "closed"})


def _event_filter() -> list[type]:
    """The watchdog event classes of `_RELEVANT`: given to `schedule`, they set the inotify mask, so the kernel
    does not even report opens and reads (our own loader opens every file it reads: without the filter, each
    open and close was decoded and dropped in Python, on the GIL the loader needs)."""
    try:
        from watchdog import events
    except ImportError:  # pragma: no cover - watchdog is a dependency
        return []
    return [events.FileCreatedEvent, events.DirCreatedEvent, events.FileModifiedEvent, events.DirModifiedEvent,
            events.FileDeletedEvent, events.DirDeletedEvent, events.FileMovedEvent, events.DirMovedEvent,
            events.FileClosedEvent]


_EVENT_FILTER = _event_filter()


def _make_handler_base() -> type:
    try:
        from watchdog.events import FileSystemEventHandler
    except ImportError:  # pragma: no cover - watchdog is a dependency
        return object
    return FileSystemEventHandler


class _Handler(_make_handler_base()):  # type: ignore[misc]
    def __init__(self, owner: ChangeNotifier) -> None:
        super().__init__()
        self._owner = owner

    def on_any_event(self, event: object) -> None:
        src, dest = (os.fsdecode(getattr(event, name, "") or "") for name in ("src_path", "dest_path"))
        self._owner._on_event(getattr(event, "event_type", ""), src, dest,
                              bool(getattr(event, "is_directory", False)))
