"""A bounded LRU of parsed profiler files, keyed by (kind, location, mtime, size, identity) from `storage.stat`, so a
rewritten file (or a replaced object on a remote store, which has no inode: size and mtime tell) is re-read.

Bounded twice: at most `max_entries` files and at most `max_bytes` of parsed data (a value's `nbytes` when it
has one, else the file size). The byte bound is the one that matters; the entry bound is high so that a cluster
view reading a small file of each of hundreds of ranks does not push a big parsed kernel table or trace out.
Concurrent requests for the same file wait for one parse (per-key lock), while requests for other files go on.

With a `TableStore` (the app gives one in the workspace), kinds that name a codec are also kept on disk as Parquet:
a miss here reads the Parquet file when one was written for this version of the file (by this process before a
restart, or by another replica), and parses only when none was (table_store.py).

Files of BIG_FILE_BYTES and more are parsed one at a time per process (each costs a few hundred MB at its peak);
requests for anything else go on meanwhile.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from mindinsight_clone.analyzers.profiler.engine.arrow_columns import release_unused_memory
from mindinsight_clone.analyzers.profiler.engine.table_store import Codec, TableStore
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Entry, Location

if TYPE_CHECKING:
    from mindinsight_clone.analyzers.profiler.engine.db_spool import DbSpool

T = TypeVar("T")
PROFILER_CACHE_BYTES = 2 << 30
PROFILER_CACHE_ENTRIES = 4096
BIG_FILE_BYTES = 64 << 20  # files at least this big are parsed one at a time (per process)
_big_parse = threading.BoundedSemaphore(1)  # a few hundred MB at the peak each: two at once would double it


def _weight(value: Any, fallback: int) -> int:
    size = getattr(value, "nbytes", None)
    return int(size) if isinstance(size, int) else fallback


class ParsedFileCache:
    def __init__(self, max_entries: int = PROFILER_CACHE_ENTRIES, max_bytes: int = PROFILER_CACHE_BYTES,
                 store: TableStore | None = None) -> None:
        self.store = store
        self._max = max_entries
        self._max_bytes = max_bytes
        self._items: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._loading: dict[tuple[Any, ...], threading.Lock] = {}
        self.spool: DbSpool | None = None  # where remote database exports are copied to be read (the app sets it)

    def get(self, kind: str, path: Location, parse: Callable[[Location], T], weight: int | None = None,
            entry: Entry | None = None, codec: Codec[T] | None = None) -> T:
        """The parsed value of `path` (parsing it on a miss). `weight` overrides the size counted against the
        byte bound (for small values derived from a big file). `entry` is the file's stat when the caller has
        it from a listing of this request (saves a stat; remote: a request). With a `codec`, the value is also
        kept in the table store (disk), when this cache has one."""
        try:
            stat = entry if entry is not None else storage.stat(path)
        except OSError:
            return parse(path)
        key = (kind, str(path), stat.mtime, stat.size, stat.identity)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]  # type: ignore[no-any-return]
            key_lock = self._loading.setdefault(key, threading.Lock())
        with key_lock:  # one parse per file; the others wait for it, then find it cached
            with self._lock:
                if key in self._items:
                    self._items.move_to_end(key)
                    return self._items[key][0]  # type: ignore[no-any-return]
            if stat.size >= BIG_FILE_BYTES:
                parse = _one_at_a_time(parse)
            try:
                if codec is not None and self.store is not None:
                    value = self.store.get(kind, path, stat, codec, parse)
                else:
                    value = parse(path)
                if codec is not None:  # a big table: what its parse freed goes back to the OS now
                    release_unused_memory()
            finally:
                with self._lock:
                    self._loading.pop(key, None)
            weight = _weight(value, stat.size) if weight is None else weight
            with self._lock:
                self._items[key] = (value, weight)
                self._bytes += weight
                while len(self._items) > 1 and (len(self._items) > self._max or self._bytes > self._max_bytes):
                    _, (_, dropped) = self._items.popitem(last=False)
                    self._bytes -= dropped
        return value

    def peek(self, kind: str, path: Location) -> Any | None:
        """The parsed value of `path` when it is cached for the file as it is now, else None (nothing parsed)."""
        try:
            stat = storage.stat(path)
        except OSError:
            return None
        with self._lock:
            item = self._items.get((kind, str(path), stat.mtime, stat.size, stat.identity))
            return None if item is None else item[0]

    @property
    def nbytes(self) -> int:
        with self._lock:
            return self._bytes

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


def _one_at_a_time(parse: Callable[[Location], T]) -> Callable[[Location], T]:
    """`parse` holding the process's big-parse slot: the peak memory of one big parse, whatever the requests. Other
    requests (cached tables, small files, other views) go on meanwhile; another big file waits for the slot."""
    def bounded(path: Location) -> T:
        with _big_parse:
            return parse(path)
    return bounded


def cached(cache: ParsedFileCache | None, kind: str, path: Location, parse: Callable[[Location], T],
           weight: int | None = None, entry: Entry | None = None, codec: Codec[T] | None = None) -> T:
    """Parse through `cache` when one is given (the app injects one), else parse directly. `codec`: also keep the
    parsed table on disk (table_store.py), for the big tables whose parse costs seconds."""
    return cache.get(kind, path, parse, weight, entry, codec) if cache is not None else parse(path)
