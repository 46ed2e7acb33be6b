"""A small LRU of parsed profiler files, keyed by (kind, path, mtime, size) so a rewritten file is re-read."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class ParsedFileCache:
    def __init__(self, max_entries: int = 32) -> None:
        self._max = max_entries
        self._items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, kind: str, path: Path, parse: Callable[[Path], T]) -> T:
        try:
            stat = path.stat()
        except OSError:
            return parse(path)
        key = (kind, str(path), stat.st_mtime_ns, stat.st_size)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                value: T = self._items[key]
                return value
        value = parse(path)
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._max:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()



def cached(cache: ParsedFileCache | None, kind: str, path: Path, parse: Callable[[Path], T]) -> T:
    """Parse through `cache` when one is given (the app injects one), else parse directly."""
    return cache.get(kind, path, parse) if cache is not None else parse(path)
