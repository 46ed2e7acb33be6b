"""What the run discovery also finds on its walk: MindSpore dump roots and model files (parses nothing).

The walk of `summary_watcher` lists every directory down to `--max-depth`; each listing is shown to
`DebugFinds.note`, which keeps

* dump roots: a directory with `rank_<id>/` subdirectories that hold a dump (`dump_layout.is_dump_rank`);
  its id is its path relative to the base dir (`./dump/lenet`), like a train_id. The walk does not go into
  the rank folders of a dump (a dump can hold millions of files; the debugger lists them when asked);
* model files, by name: `.mindir`, `.ckpt`, `.safetensors`, `*.safetensors.index.json` (a sharded set, one
  model; its shards are listed too), `.ir`, `.dot`, `.pb` (not `memory_usage_<n>.pb`), `.onnx` and `.ms`
  (MindSpore Lite); the id is the file's path relative to the base dir (`./mindir/lenet.mindir`).

Both lists are bounded (MAX_DUMP_ROOTS, MAX_MODEL_FILES); past a bound the rest is left out, logged, and the
`*_truncated` flag says so in the API.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from mindinsight_clone.ingest import dump_layout, msprobe_dump, msprobe_monitor, storage
from mindinsight_clone.ingest.storage import Entry, Location

logger = logging.getLogger(__name__)

MAX_DUMP_ROOTS = 1_000
MAX_MODEL_FILES = 10_000
MONITOR_PROBES = 4  # rank folders of a monitor output listed to find its first CSV
MODEL_KINDS = {".mindir": "mindir", ".ckpt": "checkpoint", ".safetensors": "safetensors", ".ir": "ir", ".dot": "dot",
               ".pb": "pb", ".onnx": "onnx", ".ms": "ms"}
SAFETENSORS_INDEX = ".safetensors.index.json"
_MEMORY_USAGE_PB = re.compile(r"memory_usage_\d+\.pb")


def model_kind(name: str) -> str | None:
    """`mindir` | `checkpoint` | `safetensors` | `safetensors-index` | `ir` | `dot` | `pb` | `onnx` | `ms` from a file
    name, else None."""
    if name.lower().endswith(SAFETENSORS_INDEX) and len(name) > len(SAFETENSORS_INDEX):
        return "safetensors-index"
    dot = name.rfind(".")
    if dot <= 0:
        return None
    kind = MODEL_KINDS.get(name[dot:].lower())
    if kind == "pb" and _MEMORY_USAGE_PB.fullmatch(name):
        return None
    return kind


@dataclass(frozen=True, slots=True)
class DumpRoot:
    dump_id: str  # "./" or "./<relative path>"
    location: Location
    ranks: tuple[int, ...]  # rank ids of the rank_<id> folders, ascending


@dataclass(frozen=True, slots=True)
class ModelFile:
    model_id: str  # "./<relative path of the file>"
    location: Location
    kind: str
    size: int  # -1 when the listing did not say (then storage.stat tells)
    mtime: float


@dataclass(frozen=True, slots=True)
class MsprobeDump:
    """An msprobe dump root: a folder of `step<N>/` folders holding `rank<R>/` or `proc<pid>/` (issue 35)."""

    dump_id: str
    location: Location
    steps: tuple[str, ...]  # the step folder names, by step number


@dataclass(frozen=True, slots=True)
class MsprobeFile:
    """An msprobe result file: `compare` (compare_result_*.csv|xlsx), `vis` (*.vis.db, *.vis), `trend` (*.trend.db),
    or `monitor`: a folder of the training-state monitor's CSV output (`<time>-rank<R>-<id>/` folders holding
    `<metric>_<start>-<end>.csv`; `ingest/msprobe_monitor.py`): the folder holding the rank folders, its size -1."""

    file_id: str
    location: Location
    kind: str
    size: int
    mtime: float


def msprobe_file_kind(name: str) -> str | None:
    lower = name.lower()
    if lower.startswith("compare_result") and lower.endswith((".csv", ".xlsx")):
        return "compare"
    if lower.endswith((".vis.db", ".vis")):
        return "vis"
    if lower.endswith(".trend.db"):
        return "trend"
    return None


@dataclass(slots=True)
class DebugFinds:
    dumps: list[DumpRoot] = field(default_factory=list)
    models: list[ModelFile] = field(default_factory=list)
    dumps_truncated: bool = False
    models_truncated: bool = False
    msprobe_dumps: list[MsprobeDump] = field(default_factory=list)
    msprobe_files: list[MsprobeFile] = field(default_factory=list)
    msprobe_truncated: bool = False

    def note(self, path: Location, rel_id: str, entries: list[Entry],
             list_dir: Callable[[Location], list[Entry]]) -> set[str]:
        """Keep the dump root / model files of one listed directory; return the subdirectory names the walk
        must not enter (the rank folders of a dump)."""
        prefix = rel_id if rel_id.endswith("/") else rel_id + "/"
        for entry in entries:
            if not entry.is_file or entry.is_symlink:
                continue
            kind = model_kind(entry.name)
            if kind is None:
                continue
            if len(self.models) >= MAX_MODEL_FILES:
                if not self.models_truncated:
                    logger.warning("more than %d model files under the base dir; the rest are not listed",
                                   MAX_MODEL_FILES)
                self.models_truncated = True
                break
            self.models.append(ModelFile(prefix + entry.name, entry.location, kind, entry.size, entry.mtime))
        self._note_msprobe_files(prefix, entries)
        monitor = self._note_monitor(path, rel_id, entries, list_dir)
        steps = self._note_msprobe_dump(path, rel_id, entries, list_dir)
        if steps or monitor:
            return steps | monitor
        ranks = dump_layout.rank_dirs(entries)
        if not ranks or not dump_layout.is_dump_rank(ranks[0].location, list_dir):
            return set()
        if len(self.dumps) >= MAX_DUMP_ROOTS:
            if not self.dumps_truncated:
                logger.warning("more than %d dump roots under the base dir; the rest are not listed", MAX_DUMP_ROOTS)
            self.dumps_truncated = True
        else:
            ids = tuple(dump_layout.rank_of(e.name) or 0 for e in ranks)
            self.dumps.append(DumpRoot(rel_id.rstrip("/") if rel_id != "./" else "./", path, ids))
            logger.debug("dump root %s (%d ranks) in %s", rel_id, len(ids), storage.describe(path))
        return {e.name for e in ranks}

    # ------------------------------------------------------------------ msprobe (issue 35)
    def _note_msprobe_files(self, prefix: str, entries: list[Entry]) -> None:
        for entry in entries:
            kind = msprobe_file_kind(entry.name) if entry.is_file and not entry.is_symlink else None
            if kind is None:
                continue
            if len(self.msprobe_files) >= MAX_MODEL_FILES:
                self._msprobe_full()
                return
            self.msprobe_files.append(MsprobeFile(prefix + entry.name, entry.location, kind, entry.size, entry.mtime))

    def _note_monitor(self, path: Location, rel_id: str, entries: list[Entry],
                      list_dir: Callable[[Location], list[Entry]]) -> set[str]:
        """A folder with monitor rank folders (`Nov29_15-29-52-rank0-3174cfb3/`) one of which holds a
        `<metric>_<start>-<end>.csv` is a `monitor` entry; its rank folders are not walked (a CSV per metric and
        step each). At most MONITOR_PROBES of them are listed to tell (by name, last first); rank folders of
        TensorBoard event files (`"format": "tensorboard"`) or with no CSV yet make nothing (walked as usual)."""
        ranks = sorted((e for e in entries if e.is_dir and not e.is_symlink
                        and msprobe_monitor.rank_of_dir(e.name) is not None), key=lambda e: e.name, reverse=True)
        if not ranks:
            return set()
        for folder in ranks[:MONITOR_PROBES]:
            try:
                inside = list_dir(folder.location)
            except OSError:
                continue
            if any(e.is_file and msprobe_monitor.metric_of_file(e.name) is not None for e in inside):
                break
        else:
            return set()
        if len(self.msprobe_files) >= MAX_MODEL_FILES:
            self._msprobe_full()
        else:
            file_id = rel_id.rstrip("/") if rel_id != "./" else "./"
            self.msprobe_files.append(MsprobeFile(file_id, path, "monitor", -1, 0.0))
        return {e.name for e in ranks}

    def _note_msprobe_dump(self, path: Location, rel_id: str, entries: list[Entry],
                           list_dir: Callable[[Location], list[Entry]]) -> set[str]:
        """A folder whose `step<N>/` folders hold `rank<R>/` or `proc<pid>/` folders is an msprobe dump root: kept,
        and its step folders are not walked (a dump can hold millions of tensor files). One listing probes it."""
        steps = sorted((e for e in entries
                        if e.is_dir and not e.is_symlink and msprobe_dump.step_of(e.name) is not None),
                       key=lambda e: msprobe_dump.step_of(e.name) or 0)
        if not steps:
            return set()
        try:
            inside = list_dir(steps[-1].location)
        except OSError:
            return set()
        if not any(e.is_dir and msprobe_dump.is_rank_dir(e.name) for e in inside):
            return set()
        if len(self.msprobe_dumps) >= MAX_DUMP_ROOTS:
            self._msprobe_full()
        else:
            dump_id = rel_id.rstrip("/") if rel_id != "./" else "./"
            self.msprobe_dumps.append(MsprobeDump(dump_id, path, tuple(e.name for e in steps)))
        return {e.name for e in steps}

    def _msprobe_full(self) -> None:
        if not self.msprobe_truncated:
            logger.warning("more msprobe dumps or files under the base dir than listed (%d / %d); the rest are "
                           "not listed", MAX_DUMP_ROOTS, MAX_MODEL_FILES)
        self.msprobe_truncated = True

