"""One `*_lineage` file -> FileLineage, and a cache that re-reads a file only when its size or mtime changed."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mindinsight_clone.analyzers.lineage import convert
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.event_parser import parse_lineage_records
from mindinsight_clone.ingest.record_reader import read_all
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
_TIMESTAMP = re.compile(r"summary\.(\d+)")


@dataclass(frozen=True)
class FileLineage:
    """What one lineage file says. MindInsight keeps the *last* train/eval/graph event of a file."""

    name: str
    train: JsonDict | None = None
    evaluation: JsonDict | None = None
    graph: JsonDict | None = None
    user_defined: list[JsonDict] = field(default_factory=list)

    @property
    def has_lineage(self) -> bool:
        return self.train is not None or self.evaluation is not None or self.graph is not None


def file_order_key(name: str) -> tuple[int, str]:
    """Lineage files are merged in the order MindSpore wrote them: file-name timestamp, then name."""
    match = _TIMESTAMP.search(name)
    return (int(match.group(1)) if match else 0, name)


def parse_events(name: str, events: Iterable[Any]) -> FileLineage:
    """Interpret decoded LineageEvents (file order): the last train/eval/graph wins, user info accumulates."""
    train = evaluation = graph = None
    user_defined: list[JsonDict] = []
    for event in events:
        what = event.WhichOneof("what")
        if what == "train_lineage":
            train = convert.train_lineage(event.train_lineage)
        elif what == "evaluation_lineage":
            evaluation = convert.evaluation_lineage(event.evaluation_lineage)
        elif what == "dataset_graph":
            graph = convert.dataset_graph(event.dataset_graph)
        elif what == "user_defined_info":
            user_defined.append(convert.user_defined_info(event.user_defined_info))
    return FileLineage(name, train, evaluation, graph, user_defined)


def parse_file(path: Location) -> FileLineage:
    """Read every CRC-valid record (shared record reader), decode (event_parser), interpret."""
    read = read_all(path)
    failed = next((p for p in read.problems if p.kind == "unreadable"), None)
    if failed is not None:  # not "no lineage": the file (or the store) cannot be read right now
        raise OSError(failed.message)
    return parse_events(path.name, parse_lineage_records(read.records, path.name, read.offsets).events)


@dataclass(frozen=True)
class _Entry:
    stamp: tuple[int, float]  # (size, mtime)
    lineage: FileLineage


class FileCache:
    """Parsed lineage files keyed by path; an entry is reused while (size, mtime) are unchanged."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self.parses = 0  # how many files were (re)parsed: lets tests see the cache work

    def get(self, path: Location, stamp: tuple[int, float] | None = None) -> FileLineage | None:
        """The file's lineage, re-read only if its (size, mtime) changed; None if it cannot be stat'ed.

        `stamp` is the (size, mtime) the run scan just saw; without it the file is stat'ed here.
        """
        key = str(path)
        if stamp is None:
            try:
                st = storage.stat(path)
            except OSError:
                with self._lock:
                    self._entries.pop(key, None)
                return None
            stamp = (st.size, st.mtime)
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None and entry.stamp == stamp:
            return entry.lineage
        try:
            lineage = parse_file(path)
        except OSError as exc:  # keep what was read before; retried on the next refresh
            log.debug("cannot read lineage file %s: %s", storage.describe(path), exc)  # the reader logged it
            return entry.lineage if entry is not None else None
        with self._lock:
            self._entries[key] = _Entry(stamp, lineage)
            self.parses += 1
        return lineage

    def retain(self, paths: set[str]) -> None:
        """Forget files that are no longer listed by any run."""
        with self._lock:
            for key in [k for k in self._entries if k not in paths]:
                del self._entries[key]
