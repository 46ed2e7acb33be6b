"""msprobe dumps as the debugger's node model (issue 35): dumps, nodes per step and rank, the first NaN/Inf.

A dump (found by `ingest/debug_discovery`) is `step<N>/` folders of rank folders (`rank<R>` for msrun jobs,
`proc<pid>` for a single process); this module lists them, parses a step/rank's dump.json once (cached by path,
mtime and size; a file still being written is re-read when it grows) and answers from the parsed nodes:

* the node list in execution order with each node's parent (construct.json: the Cell / Module tree) and the
  statistics of its inputs, outputs and parameters;
* a node across steps (its statistics per step, for charts) and its call stack (stack.json);
* the first anomaly: per rank, the first node in execution order, earliest step first, whose statistics hold
  NaN or ±Inf — from the statistics alone, no tensor is read.

Ranks are named by their folder (`rank0`, `proc5733`); a request may say `0` for `rank0`.
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from mindinsight_clone.analyzers.debugger import values
from mindinsight_clone.analyzers.debugger.msprobe_compare import TensorLoader, stat_json
from mindinsight_clone.analyzers.debugger.stats import tensor_stats
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.errors import DebuggerDumpNotExistError, DebuggerTensorUnreadableError, ParamValueError
from mindinsight_clone.ingest import msprobe_dump, storage
from mindinsight_clone.ingest.debug_discovery import DebugFinds, MsprobeDump
from mindinsight_clone.ingest.msprobe_dump import DumpFile, Node, Slot
from mindinsight_clone.ingest.npy_file import NpyArray, NpyError, read_header
from mindinsight_clone.ingest.storage import Entry, Location

logger = logging.getLogger(__name__)

T = TypeVar("T")
MAX_LIMIT = 10_000
MAX_FOLDERS = 100_000  # step / rank folders listed per dump
MAX_ANOMALY_STEPS = 10_000  # steps looked at per rank for the first anomaly (a bound, said in the answer)
MAX_COMPARED_NPY_BYTES = 256 << 20  # a tensor compared whole (tensor mode) is read up to this
MSPROBE_CACHE_BYTES = 512 << 20  # parsed dump.json files and statistics tables kept in memory


class MsprobeRegistry(Protocol):
    load_status: str

    def debug_files(self) -> DebugFinds: ...


@dataclass(frozen=True, slots=True)
class StepRank:
    step: str  # "step2"
    rank: str  # "rank0" | "proc5733"
    location: Location  # the rank folder


class MsprobeDumps:
    def __init__(self, registry: MsprobeRegistry, cache: ParsedFileCache | None = None) -> None:
        self.registry = registry
        self.cache = cache if cache is not None else ParsedFileCache(max_bytes=MSPROBE_CACHE_BYTES)
        self._lock = threading.Lock()
        self._cut: set[str] = set()  # dump ids whose step or rank listing stopped at MAX_FOLDERS

    # ------------------------------------------------------------------ dumps
    def roots(self) -> list[MsprobeDump]:
        return sorted(self.registry.debug_files().msprobe_dumps, key=lambda d: d.dump_id)

    def root(self, dump_id: str) -> MsprobeDump:
        for root in self.roots():
            if root.dump_id == dump_id:
                return root
        raise DebuggerDumpNotExistError(f"dump_id: {dump_id}")

    def layout(self, root: MsprobeDump) -> list[StepRank]:
        """Every step/rank folder of a dump, steps ascending, ranks by name (listed now: a live dump grows)."""
        out: list[StepRank] = []
        cut = False
        try:
            listed, cut = _listing(root.location)
            steps = [e for e in listed if e.is_dir and msprobe_dump.step_of(e.name) is not None]
        except OSError:
            return out
        for step in sorted(steps, key=lambda e: msprobe_dump.step_of(e.name) or 0):
            try:
                listed, step_cut = _listing(step.location)
                ranks = [e for e in listed if e.is_dir and msprobe_dump.is_rank_dir(e.name)]
            except OSError:
                continue
            cut = cut or step_cut
            ranks.sort(key=lambda e: msprobe_dump.rank_sort_key(e.name))
            out += [StepRank(step.name, r.name, r.location) for r in ranks]
        with self._lock:
            if cut and root.dump_id not in self._cut:
                logger.warning("msprobe dump %s: a step or rank folder holds more than %d entries; the rest are "
                               "not listed", root.dump_id, MAX_FOLDERS)
            (self._cut.add if cut else self._cut.discard)(root.dump_id)
        return out

    def dumps(self) -> dict[str, Any]:
        """`{"dumps": [{"dump_id", "framework", "task", "level", "steps", "ranks", "incomplete"}], ...}`."""
        out = []
        for root in self.roots():
            places = self.layout(root)
            header: dict[str, Any] = {}
            for place in places:  # the first readable header says what the dump is
                try:
                    header = msprobe_dump.read_header(place.location / msprobe_dump.DUMP_JSON)
                    break
                except OSError:
                    continue
            steps = sorted({msprobe_dump.step_of(p.step) or 0 for p in places})
            ranks = sorted({p.rank for p in places}, key=msprobe_dump.rank_sort_key)
            missing = [f"{p.step}/{p.rank}" for p in places if not storage.exists(p.location / msprobe_dump.DUMP_JSON)]
            out.append({"dump_id": root.dump_id, "framework": header.get("framework"), "task": header.get("task"),
                        "level": header.get("level"), "steps": steps, "ranks": ranks,
                        "being_written": missing, "folders_cut": root.dump_id in self._cut})
        finds = self.registry.debug_files()
        return {"dumps": out, "truncated": finds.msprobe_truncated, "load_status": self.registry.load_status}

    # ------------------------------------------------------------------ one step / rank
    def place(self, dump_id: str, step: int | None, rank: str | None) -> StepRank:
        places = self.layout(self.root(dump_id))
        if not places:
            raise DebuggerDumpNotExistError(f"{dump_id} has no step folder yet")
        steps = sorted({msprobe_dump.step_of(p.step) or 0 for p in places})
        want_step = steps[0] if step is None else step
        wanted_rank = rank_name(rank)
        for p in places:
            if msprobe_dump.step_of(p.step) == want_step and (wanted_rank is None or p.rank == wanted_rank):
                return p
        raise DebuggerDumpNotExistError(f"{dump_id} has no step {want_step}" + (f" rank {rank}" if rank else ""))

    def dump_file(self, place: StepRank) -> DumpFile:
        location = place.location / msprobe_dump.DUMP_JSON
        try:
            return self.cache.get("msprobe-dump", location, msprobe_dump.read_dump_json, weight=None)
        except FileNotFoundError:  # the step folder exists; msprobe writes dump.json at stop()/step()
            return DumpFile(None, None, None, None, [], complete=False, size=0)
        except OSError as exc:
            raise DebuggerDumpNotExistError(f"{place.step}/{place.rank}/dump.json cannot be read: {exc}") from exc
        except ValueError as exc:
            raise DebuggerDumpNotExistError(f"{place.step}/{place.rank}/dump.json: {exc}") from exc

    def parents(self, place: StepRank) -> dict[str, str | None]:
        return self._side(place, msprobe_dump.CONSTRUCT_JSON, msprobe_dump.read_construct, {})

    def stacks(self, place: StepRank) -> dict[str, list[str]]:
        return self._side(place, msprobe_dump.STACK_JSON, msprobe_dump.read_stack, {})

    def _side(self, place: StepRank, name: str, read: Callable[[Location], T], default: T) -> T:
        try:
            return self.cache.get(f"msprobe-{name}", place.location / name, read)
        except (OSError, ValueError):
            return default  # absent (level L1 writes {}), being written, or not JSON: the nodes still list

    def nodes(self, dump_id: str, step: int | None, rank: str | None, offset: int = 0, limit: int = 100,
              search: str = "") -> dict[str, Any]:
        """`{"total", "nodes": [{"name", "parent", "kind", "phase", "inputs", "outputs", "parameters"}], ...}` in
        execution order, `search` a case-insensitive substring of the name."""
        if offset < 0 or not 0 < limit <= MAX_LIMIT:
            raise ParamValueError(f"'offset' should be >= 0 and 'limit' between 1 and {MAX_LIMIT}.")
        place = self.place(dump_id, step, rank)
        dump = self.dump_file(place)
        parents = self.parents(place)
        needle = search.strip().lower()
        chosen = [n for n in dump.nodes if needle in n.name.lower()] if needle else dump.nodes
        return {"dump_id": dump_id, "step": msprobe_dump.step_of(place.step), "rank": place.rank,
                "total": len(chosen), "complete": dump.complete, "task": dump.task, "framework": dump.framework,
                "nodes": [node_json(n, parents.get(n.name)) for n in chosen[offset:offset + limit]]}

    def tree(self, dump_id: str, step: int | None, rank: str | None) -> dict[str, Any]:
        """The Cell / Module hierarchy of a step: every node with its parent and its execution index (construct.json
        may name nodes absent from dump.json: they are kept, with index null), and which hold NaN/Inf."""
        place = self.place(dump_id, step, rank)
        dump = self.dump_file(place)
        parents = self.parents(place)
        index = {n.name: i for i, n in enumerate(dump.nodes)}
        names = list(index) + [n for n in parents if n not in index]
        return {"dump_id": dump_id, "step": msprobe_dump.step_of(place.step), "rank": place.rank,
                "nodes": [{"name": n, "parent": parents.get(n), "index": index.get(n),
                           "bad": n in index and any(s.non_finite() for s in dump.nodes[index[n]].slots)}
                          for n in names]}

    def node(self, dump_id: str, name: str, rank: str | None) -> dict[str, Any]:
        """One node across the steps of a rank: its slots' statistics per step (charts), and its stack."""
        root = self.root(dump_id)
        places = self.layout(root)
        wanted = rank_name(rank) or (places[0].rank if places else None)
        steps = []
        stack: list[str] = []
        for place in places:
            if place.rank != wanted:
                continue
            found = self._node_at(place, name)
            if found is None:
                continue
            steps.append({"step": msprobe_dump.step_of(place.step),
                          "slots": [{"io": s.io, "index": s.index, **tensor_json(s)}
                                    for s in found.slots if s.is_tensor]})
            stack = stack or self.stacks(place).get(name, [])
        if not steps:
            raise DebuggerDumpNotExistError(f"no node {name} in {dump_id}" + (f" rank {rank}" if rank else ""))
        return {"dump_id": dump_id, "name": name, "rank": wanted, "steps": steps, "stack": stack}

    def node_ranks(self, dump_id: str, name: str, step: int | None) -> dict[str, Any]:
        """One node at one step across the ranks (default the first step): its slots' statistics per rank, in rank
        order, so the rank that diverges stands out."""
        root = self.root(dump_id)
        places = self.layout(root)
        steps = sorted({msprobe_dump.step_of(p.step) or 0 for p in places})
        want = steps[0] if step is None and steps else step
        ranks = []
        for place in sorted(places, key=lambda p: _rank_number(p.rank)):
            if msprobe_dump.step_of(place.step) != want:
                continue
            found = self._node_at(place, name)
            if found is not None:
                ranks.append({"rank": place.rank, "slots": [{"io": s.io, "index": s.index, **tensor_json(s)}
                                                            for s in found.slots if s.is_tensor]})
        if not ranks:
            raise DebuggerDumpNotExistError(f"no node {name} in {dump_id} at step {want}")
        return {"dump_id": dump_id, "name": name, "step": want, "ranks": ranks}

    def _node_at(self, place: StepRank, name: str) -> Node | None:
        """One node of a step/rank, read alone (ingest.msprobe_dump.read_entry: a byte search and one entry
        decoded), so the charts across steps or ranks never parse whole files; None where it is absent."""
        location = place.location / msprobe_dump.DUMP_JSON
        try:
            return self.cache.get(f"msprobe-entry:{name}", location, lambda loc: msprobe_dump.read_entry(loc, name),
                                  weight=4096)
        except OSError:
            return None  # not written yet (msprobe writes dump.json at stop()), or unreadable: that step is left out

    # ------------------------------------------------------------------ tensor values
    def tensor(self, dump_id: str, step: int | None, rank: str | None, name: str, io: str, index: str,
               dims: str | None, with_histogram: bool = False) -> dict[str, Any]:
        """A window of one slot's tensor (task `tensor`: `dump_tensor_data/<data_name>.npy`), as the tensors page
        answers it (MindInsight's slicing syntax, NaN/Inf as text); with `with_histogram`, the buckets of the whole
        tensor (read in chunks, its statistics cached). A statistics-only dump has no values to show: said."""
        place = self.place(dump_id, step, rank)
        node = next((n for n in self.dump_file(place).nodes if n.name == name), None)
        slot = next((s for s in node.slots if s.io == io and s.index == index), None) if node is not None else None
        if slot is None or not slot.is_tensor:
            raise DebuggerDumpNotExistError(f"no tensor {io}.{index} of {name} at {place.step}/{place.rank}")
        leaf = slot.leaf or {}
        array = self._npy(place, leaf.get("data_name"))
        overall = self.cache.get("msprobe-npy-stats", array.location,
                                 lambda _p: tensor_stats(values.value_chunks(array)), weight=256) \
            if with_histogram else None
        answer = values.window_answer(array, str(leaf.get("dtype")), overall, dims)
        answer["data_name"] = leaf.get("data_name")
        if overall is not None:
            answer["histogram"] = values.array_histogram(array, overall)
        return answer

    def tensor_loader(self, place: StepRank) -> TensorLoader:
        """Whole tensors of a step/rank for tensor-mode compare (at most MAX_COMPARED_NPY_BYTES each; ValueError /
        OSError with a clear message, which the comparison says on the row)."""
        def load(data_name: str) -> np.ndarray:
            raw = storage.read_bytes(tensor_location(place, data_name), max_size=MAX_COMPARED_NPY_BYTES)
            return np.load(io.BytesIO(raw), allow_pickle=False)
        return load

    def _npy(self, place: StepRank, data_name: Any) -> NpyArray:
        if not isinstance(data_name, str):
            raise DebuggerTensorUnreadableError("this dump holds statistics only (task statistics): its tensors' "
                                                "values were not written")
        try:
            location = tensor_location(place, data_name)
        except ValueError as exc:
            raise DebuggerTensorUnreadableError(str(exc)) from None
        try:
            header, prefix = read_header(location, storage.stat(location).size)
        except FileNotFoundError:
            raise DebuggerTensorUnreadableError(f"{data_name}: not in {msprobe_dump.TENSOR_DIR}/") from None
        except (NpyError, OSError) as exc:
            raise DebuggerTensorUnreadableError(f"{data_name}: {exc}") from None
        return NpyArray(location, header, prefix)

    # ------------------------------------------------------------------ first anomaly
    def anomalies(self, dump_id: str) -> dict[str, Any]:
        """`{"first": [{"rank", "step", "node", "io", "index"}], "first_rank"}`: per rank, the first node with NaN/Inf
        in execution order, earliest step first; ranks ordered by that step (the rank that went first leads)."""
        root = self.root(dump_id)
        by_rank: dict[str, list[StepRank]] = {}
        for place in self.layout(root):
            by_rank.setdefault(place.rank, []).append(place)
        first = []
        for rank, places in by_rank.items():
            hit = next(self._first_bad(places[:MAX_ANOMALY_STEPS]), None)
            if hit is not None:
                place, node, slot = hit
                first.append({"rank": rank, "step": msprobe_dump.step_of(place.step), "node": node.name,
                              "io": slot.io, "index": slot.index, **tensor_json(slot)})
        first.sort(key=lambda f: (f["step"], msprobe_dump.rank_sort_key(f["rank"])))
        return {"dump_id": dump_id, "first": first, "first_rank": first[0]["rank"] if first else None,
                "steps_looked_at": min(MAX_ANOMALY_STEPS, max((len(p) for p in by_rank.values()), default=0))}

    def _first_bad(self, places: list[StepRank]) -> Iterator[tuple[StepRank, Node, Slot]]:
        for place in places:
            try:
                location = place.location / msprobe_dump.DUMP_JSON
                if not self.cache.get("msprobe-maybe-bad", location, msprobe_dump.may_hold_non_finite, weight=1):
                    continue  # no nan/inf anywhere in its bytes: not parsed
            except OSError:
                pass  # missing (being written) or unreadable: dump_file says so
            for node in self.dump_file(place).nodes:
                for slot in node.slots:
                    if slot.non_finite():
                        yield place, node, slot


def _listing(location: Location) -> tuple[list[Entry], bool]:
    """A folder's entries (at most MAX_FOLDERS) and whether more were left out."""
    entries, cut = storage.list_dir(location, MAX_FOLDERS, details=False)
    return entries, bool(cut)


def tensor_location(place: StepRank, data_name: str) -> Location:
    """`dump_tensor_data/<data_name>` of a step/rank; ValueError for a name that would leave that folder, or that
    is not a .npy (a PyTorch .pt file is a pickle: never loaded). The read itself goes through the storage seam
    (no symlink followed, regular files only)."""
    if "/" in data_name or "\\" in data_name or data_name.startswith("."):
        raise ValueError(f"{data_name}: not a file name")
    if not data_name.endswith(".npy"):
        raise ValueError(f"{data_name}: only .npy tensors are read (a PyTorch .pt file is never unpickled)")
    return place.location / msprobe_dump.TENSOR_DIR / data_name


def _rank_number(rank: str) -> tuple[int, str]:
    """rank2 before rank10 (and proc<pid> folders by their number)."""
    digits = "".join(c for c in rank if c.isdigit())
    return (int(digits) if digits else -1, rank)


def rank_name(rank: str | None) -> str | None:
    if rank is None or rank == "":
        return None
    return f"rank{rank}" if rank.isdigit() else rank


def tensor_json(slot: Slot) -> dict[str, Any]:
    leaf = slot.leaf or {}
    if not slot.is_tensor:
        return {"type": leaf.get("type"), "value": leaf.get("value")} if leaf else {"type": None, "value": None}
    stats = {k: stat_json(v) for k, v in slot.stats().items()}
    out: dict[str, Any] = {"dtype": leaf.get("dtype"), "shape": leaf.get("shape"), **stats}
    if isinstance(leaf.get("data_name"), str):
        out["data_name"] = leaf["data_name"]
    if isinstance(leaf.get("requires_grad"), bool):
        out["requires_grad"] = leaf["requires_grad"]
    return out


def node_json(node: Node, parent: str | None) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = {"input": [], "output": [], "parameters": []}
    for slot in node.slots:
        groups.setdefault(slot.io, []).append({"index": slot.index, **tensor_json(slot)})
    return {"name": node.name, "parent": parent, "kind": node.kind, "phase": node.phase,
            "inputs": groups["input"], "outputs": groups["output"], "parameters": groups["parameters"],
            "bad": any(s.non_finite() for s in node.slots)}
