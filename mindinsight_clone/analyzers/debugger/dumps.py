"""The folders of one dump root, listed lazily: ranks -> net -> graphs -> iterations -> tensor files.

Nothing is listed before it is asked for, and only one level at a time: the dump list needs the graph and
iteration folders (a few listings per rank), a tensor table one iteration folder, a tensor one file. Listings are
kept for `ttl` seconds (a dump still being written shows new iterations and files after that) in a cache bounded
by the number of entries it holds. Every listing goes through the storage seam (local and s3:// alike).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from mindinsight_clone.ingest import dump_layout, storage
from mindinsight_clone.ingest.debug_discovery import DumpRoot
from mindinsight_clone.ingest.dump_layout import TensorName
from mindinsight_clone.ingest.storage import Entry, Location

log = logging.getLogger(__name__)

DEFAULT_TTL = 2.0
MAX_CACHED_ENTRIES = 2_000_000  # directory entries kept by the listing cache, all folders together
MAX_DIR_ENTRIES = 20_000  # rank, net and graph folders
MAX_ITERATION_FILES = 500_000  # files of one iteration folder; more are left out (said in the API and the log)
MAX_SKIPPED_SHOWN = 20
MAX_PARSED_ITERATIONS = 16  # parsed iteration listings kept per dump (the listing cache bounds them too)


class Listings:
    """A TTL cache of directory listings (`storage.list_dir`), bounded by the entries it holds."""

    def __init__(self, ttl: float = DEFAULT_TTL, max_entries: int = MAX_CACHED_ENTRIES) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._items: OrderedDict[tuple[str, int], tuple[float, list[Entry], bool]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def list(self, location: Location, limit: int = MAX_DIR_ENTRIES, details: bool = False) -> tuple[list[Entry], bool]:
        """(entries, cut by `limit`); raises OSError when the folder cannot be listed."""
        key = (str(location), limit)
        now = time.monotonic()
        with self._lock:
            item = self._items.get(key)
            if item is not None and now - item[0] < self.ttl:
                self._items.move_to_end(key)
                return item[1], item[2]
        entries, cut = storage.list_dir(location, limit, details=details)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._held -= len(old[1])
            self._items[key] = (now, entries, cut)
            self._held += len(entries)
            while len(self._items) > 1 and self._held > self.max_entries:
                _, (_, dropped, _) = self._items.popitem(last=False)
                self._held -= len(dropped)
        return entries, cut


@dataclass(frozen=True, slots=True)
class TensorFile:
    name: TensorName
    entry: Entry  # name, location, size, mtime, identity


@dataclass(slots=True)
class IterationFiles:
    tensors: list[TensorFile] = field(default_factory=list)  # by timestamp (MindSpore's run order)
    skipped: list[dict[str, str]] = field(default_factory=list)  # files that are no tensor file: first ones
    skipped_count: int = 0
    truncated: bool = False  # the folder had more than MAX_ITERATION_FILES entries
    statistic_csv: Entry | None = None


class DumpTree:
    """One dump root's folders (`DumpRoot` from the discovery walk)."""

    def __init__(self, root: DumpRoot, listings: Listings) -> None:
        self.root = root
        self.listings = listings
        self._warned: set[str] = set()
        # iteration folder -> (the listing it was parsed from, the parse): a listing still kept is parsed once
        self._parsed: OrderedDict[str, tuple[list[Entry], IterationFiles]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def dump_id(self) -> str:
        return self.root.dump_id

    def rank_dir(self, rank: int) -> Location:
        return self.root.location / f"rank_{rank}"

    def _dirs(self, location: Location) -> list[Entry]:
        try:
            entries, _ = self.listings.list(location)
        except OSError as exc:
            log.debug("cannot list %s: %s", storage.describe(location), exc)
            return []
        return entries

    def net_name(self, rank: int) -> str | None:
        """The `<net_name>` folder of a rank (the first by name when there are several)."""
        nets = dump_layout.net_dirs(self._dirs(self.rank_dir(rank)))
        return nets[0].name if nets else None

    def graph_ids(self, rank: int) -> list[int]:
        net = self.net_name(rank)
        if net is None:
            return []
        return sorted(int(e.name) for e in self._dirs(self.rank_dir(rank) / net) if dump_layout.is_number_dir(e))

    def iterations(self, rank: int, graph_id: int) -> list[int]:
        net = self.net_name(rank)
        if net is None:
            return []
        folder = self.rank_dir(rank) / net / str(graph_id)
        return sorted(int(e.name) for e in self._dirs(folder) if dump_layout.is_number_dir(e))

    def iteration_dir(self, rank: int, graph_id: int, iteration: int) -> Location | None:
        net = self.net_name(rank)
        return None if net is None else self.rank_dir(rank) / net / str(graph_id) / str(iteration)

    def iteration_files(self, rank: int, graph_id: int, iteration: int) -> IterationFiles:
        """The tensor files of one iteration folder (and its statistic.csv), parsed by name."""
        out = IterationFiles()
        folder = self.iteration_dir(rank, graph_id, iteration)
        if folder is None:
            return out
        try:
            entries, out.truncated = self.listings.list(folder, MAX_ITERATION_FILES, details=True)
        except OSError as exc:
            log.debug("cannot list %s: %s", storage.describe(folder), exc)
            return out
        key = str(folder)
        with self._lock:
            known = self._parsed.get(key)
            if known is not None and known[0] is entries:
                self._parsed.move_to_end(key)
                return known[1]
        for entry in entries:
            if not entry.is_file:
                continue
            name = dump_layout.parse_tensor_name(entry.name)
            if name is not None:
                out.tensors.append(TensorFile(name, entry))
            elif entry.name == dump_layout.STATISTIC_CSV:
                out.statistic_csv = entry
            else:
                out.skipped_count += 1
                if len(out.skipped) < MAX_SKIPPED_SHOWN:
                    out.skipped.append({"file": entry.name, "reason": dump_layout.why_not_a_tensor_name(entry.name)})
        out.tensors.sort(key=lambda t: (t.name.timestamp, t.entry.name))
        with self._lock:
            self._parsed[key] = (entries, out)
            while len(self._parsed) > MAX_PARSED_ITERATIONS:
                self._parsed.popitem(last=False)
        if (out.truncated or out.skipped_count) and key not in self._warned:
            self._warned.add(key)
            if out.truncated:
                log.warning("%s has more than %d entries; the rest are not shown", storage.describe(folder),
                            MAX_ITERATION_FILES)
            if out.skipped_count:
                log.warning("%s: %d files are not dump tensor files (e.g. %s: %s)", storage.describe(folder),
                            out.skipped_count, out.skipped[0]["file"], out.skipped[0]["reason"])
        return out

    def side_file(self, rank: int, folder: str, name: str) -> Location | None:
        """`rank_<rank>/<folder>/<name>` when it exists (graphs/, execution_order/, .dump_metadata/)."""
        for entry in self._dirs(self.rank_dir(rank) / folder):
            if entry.name == name and entry.is_file:
                return entry.location
        return None
