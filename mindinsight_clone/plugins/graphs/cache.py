"""Built graphs kept between requests, weighed by their node count (not counted: one huge graph weighs as much as
thousands of small ones).

An entry is reused while its key still maps to the same source object (the GraphProto or parsed model the graph
was built from). Least recently used entries go first once the kept graphs hold more than `max_nodes` nodes in all
or there are more than `max_count` of them; the newest entry always stays.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from mindinsight_clone.plugins.graphs.query import GraphQuery

DEFAULT_MAX_COUNT = 8
K = TypeVar("K", bound=Hashable)


def cache_budget(max_nodes: int) -> int:
    """Nodes the kept graphs of one service may hold in all: two graphs of the largest size built."""
    return 2 * max_nodes


class BuiltGraphs(Generic[K]):
    def __init__(self, max_nodes: int, max_count: int = DEFAULT_MAX_COUNT) -> None:
        self.max_nodes = max_nodes
        self.max_count = max_count
        self._entries: OrderedDict[K, tuple[Any, GraphQuery]] = OrderedDict()
        self._nodes = 0
        self._lock = threading.Lock()

    def get(self, key: K, source: Any) -> GraphQuery | None:
        """The graph built from `source` under `key`, if kept."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] is not source:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: K, source: Any, query: GraphQuery) -> list[K]:
        """Keep `query`; the keys of the entries dropped to make room."""
        dropped = []
        with self._lock:
            self._drop(key)
            self._entries[key] = (source, query)
            self._nodes += query.node_count
            while len(self._entries) > 1 and (self._nodes > self.max_nodes or len(self._entries) > self.max_count):
                dropped.append(next(iter(self._entries)))
                self._drop(dropped[-1])
        return dropped

    def forget(self, drop: Callable[[K], bool]) -> list[K]:
        """Drop the entries whose key `drop` accepts; their keys."""
        with self._lock:
            keys = [k for k in self._entries if drop(k)]
            for key in keys:
                self._drop(key)
            return keys

    @property
    def node_count(self) -> int:
        return self._nodes

    def __len__(self) -> int:
        return len(self._entries)

    def _drop(self, key: K) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._nodes -= entry[1].node_count
