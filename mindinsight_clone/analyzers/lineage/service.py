"""LineageService: the one object the lineage routes talk to (one per app, kept in services().extras).

It keeps the merged lineage of every discovered run up to date: on each call it asks for the run list
(the DataManager's registry once it has scanned, else its own scan of the base dir) and re-reads only the
`*_lineage` files whose (size, mtime), as that scan saw them, changed. So each DataManager reload refreshes
lineage too, without lineage depending on which runs are in the detail cache, and an unchanged file costs
no syscall per request.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from mindinsight_clone.analyzers.lineage import condition as conditions
from mindinsight_clone.analyzers.lineage import importance, query
from mindinsight_clone.analyzers.lineage.files import FileCache, FileLineage, file_order_key
from mindinsight_clone.analyzers.lineage.marks import assign_marks
from mindinsight_clone.analyzers.lineage.notes import AddedInfoStore, validate_added_info
from mindinsight_clone.analyzers.lineage.record import RunLineage, merge
from mindinsight_clone.errors import ParamValueError, TrainJobNotExistError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.bases import Bases
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.ingest.summary_watcher import DEFAULT_MAX_RUN_COUNT
from mindinsight_clone.store import discovery
from mindinsight_clone.store.discovery import RunInfo

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
NOTES_DIR = "lineage"


def _stamp(file: object) -> tuple[int, float] | None:
    """(size, mtime) from the scan's FileInfo, so an unchanged file costs no syscall; None for a bare name."""
    size, mtime = getattr(file, "size", None), getattr(file, "mtime", None)
    return (size, mtime) if isinstance(size, int) and isinstance(mtime, float) else None


def notes_key(base_dir: Location | Bases) -> str:
    """What the notes file keys a base dir by: its real path, or its URL (without credentials); named base dirs:
    `bases://name=<that>,...` (a URL-like key the notes store keeps as it is; their train ids carry the name)."""
    if isinstance(base_dir, Bases):
        if not base_dir.named:
            return notes_key(base_dir.primary)
        return "bases://" + ",".join(f"{b.name}={notes_key(b.location)}" for b in base_dir)
    return os.path.realpath(base_dir) if isinstance(base_dir, Path) else storage.describe(base_dir)


class RunRegistry(Protocol):
    """What we need from the DataManager: its scan state and its run list."""

    load_status: str

    def runs(self) -> list[RunInfo]: ...


class LineageService:
    def __init__(self, summary_base_dir: str | Location | Bases, workspace: str, registry: RunRegistry | None = None,
                 max_run_count: int = DEFAULT_MAX_RUN_COUNT, run_filter: str = "") -> None:
        # a local path, a storage location, or the server's base dirs (DataManager.bases: named ones, remote ones
        # with their options); runs are found through the same discovery (and run filter) as the DataManager's
        if isinstance(summary_base_dir, Bases):
            self.bases = summary_base_dir
        else:
            self.bases = Bases.single(Path(summary_base_dir) if isinstance(summary_base_dir, str)
                                      else summary_base_dir)
        self.base_dir: Location = self.bases.primary
        self.registry = registry
        self.max_run_count = max_run_count
        self.run_filter = run_filter
        # notes are written locally, in the workspace, keyed by the base dir (real path, or URL)
        self.notes = AddedInfoStore(Path(workspace) / NOTES_DIR, notes_key(self.bases))
        self.files = FileCache()
        self._lock = threading.Lock()
        self._known: set[str] = set()
        self._runs: dict[str, RunLineage] = {}
        self._inputs: dict[str, tuple[float, tuple[FileLineage, ...]]] = {}
        self._marks: dict[str, str] = {}

    # ------------------------------------------------------------------ refresh
    def _run_list(self) -> list[RunInfo]:
        # a remote base dir is never scanned on a request thread: the registry's runs so far (its reload
        # thread lists the store); a local one is scanned here until the registry has loaded once
        if self.registry is not None and (getattr(self.registry, "load_status", "init") == "loaded"
                                          or self.bases.remote):
            return self.registry.runs()
        return discovery.scan(self.bases, self.max_run_count, run_filter=self.run_filter)

    def refresh(self) -> None:
        """Bring every run's lineage up to date (cheap when nothing changed: no file is opened)."""
        infos = self._run_list()
        with self._lock:
            known = {info.train_id for info in infos}
            runs: dict[str, RunLineage] = {}
            inputs: dict[str, tuple[float, tuple[FileLineage, ...]]] = {}
            paths: set[str] = set()
            changed = known != self._known
            for info in infos:
                files = self._read_files(info, paths)
                if not files:
                    continue
                key = (info.update_time, files)
                inputs[info.train_id] = key
                previous = self._runs.get(info.train_id)
                if previous is not None and self._same_inputs(self._inputs.get(info.train_id), key):
                    runs[info.train_id] = previous
                    continue
                changed = True
                merged = merge(info.train_id, info.update_time, list(files))
                if merged is not None:
                    runs[info.train_id] = merged
            self.files.retain(paths)
            if changed or set(runs) != set(self._runs):
                self._marks = assign_marks(runs.values())
            self._known, self._runs, self._inputs = known, runs, inputs

    def _read_files(self, info: RunInfo, paths: set[str]) -> tuple[FileLineage, ...]:
        out = []
        entries = [(str(getattr(f, "name", f)), _stamp(f)) for f in info.lineage_files]  # FileInfo or names
        for name, stamp in sorted(entries, key=lambda e: file_order_key(e[0])):
            path = info.path / name
            paths.add(str(path))
            lineage = self.files.get(path, stamp)
            if lineage is not None:
                out.append(lineage)
        return tuple(out)

    @staticmethod
    def _same_inputs(old: tuple[float, tuple[FileLineage, ...]] | None,
                     new: tuple[float, tuple[FileLineage, ...]]) -> bool:
        return (old is not None and old[0] == new[0] and len(old[1]) == len(new[1])
                and all(a is b for a, b in zip(old[1], new[1], strict=True)))

    def _rows(self) -> list[query.Row]:
        self.refresh()
        notes = self.notes.get_all()
        with self._lock:
            return [query.Row(run, self._marks.get(tid), notes.get(tid, {})) for tid, run in self._runs.items()]

    # ------------------------------------------------------------------ queries
    def search(self, condition: Any) -> JsonDict:
        """`POST lineagemgr/lineages`."""
        valid = conditions.validate(condition)
        return query.search(self._rows(), valid)

    def optimize_targets(self, condition: Any) -> JsonDict:
        """`POST optimizer/targets/search`: importance over the searched lineages."""
        result = self.search(condition)
        return importance.optimize_targets(result["object"])

    def dataset_graph(self, train_id: str) -> JsonDict:
        """`GET datasets/dataset_graph`: {} unless the run has a lineage with a dataset graph."""
        self.refresh()
        with self._lock:
            run = self._runs.get(train_id)
        if run is None or not run.dataset_graph:
            return {}
        return {"dataset_graph": run.dataset_graph, "summary_dir": run.train_id}

    def update_added_info(self, train_id: str, added_info: Any) -> JsonDict:
        """`PUT lineagemgr/lineages`: merge tag/remark into the run's notes (persisted)."""
        if not isinstance(added_info, dict):
            raise ParamValueError("The request body should be a dict.")
        validate_added_info(added_info)
        self.refresh()
        with self._lock:
            known, has_lineage = train_id in self._known, train_id in self._runs
        if not known:
            raise TrainJobNotExistError(train_id)
        if not has_lineage:
            raise ParamValueError(f"Cannot update the lineage for tran job {train_id}, because it does not exist.")
        self.notes.update(train_id, added_info)
        return {"status": "success"}

    def train_ids(self) -> Sequence[str]:
        """Runs that have a lineage (for tests and diagnostics)."""
        self.refresh()
        with self._lock:
            return sorted(self._runs)

    def model_info(self, train_id: str) -> JsonDict | None:
        """The run's `model_lineage` (for the loss-landscape metadata), or None without lineage."""
        self.refresh()
        with self._lock:
            run = self._runs.get(train_id)
            mark = self._marks.get(train_id)
        return run.model_lineage(mark) if run is not None else None
