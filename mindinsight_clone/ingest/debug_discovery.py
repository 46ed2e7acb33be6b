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

from mindinsight_clone.ingest import dump_layout, storage
from mindinsight_clone.ingest.storage import Entry, Location

logger = logging.getLogger(__name__)

MAX_DUMP_ROOTS = 1_000
MAX_MODEL_FILES = 10_000
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


@dataclass(slots=True)
class DebugFinds:
    dumps: list[DumpRoot] = field(default_factory=list)
    models: list[ModelFile] = field(default_factory=list)
    dumps_truncated: bool = False
    models_truncated: bool = False

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
