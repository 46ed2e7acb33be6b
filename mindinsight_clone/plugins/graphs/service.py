"""Which graph a request means, and the built graphs kept between requests.

A graph is built once per (run, plugin, tag) and reused while the run cache still holds the same
GraphProto object (a new graph for that tag, or a reloaded run, gives a new object and a rebuild).
At most `max_graphs` built graphs are kept (least recently used dropped first); concurrent requests
for the same graph wait for one build instead of building it twice.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from mindinsight_clone.errors import GraphNotExistError, ParamValueError
from mindinsight_clone.plugins.graphs.model import build_graph
from mindinsight_clone.plugins.graphs.query import GraphQuery
from mindinsight_clone.plugins.registry import order_tags

MODES = {"normal": "graph", "optimize": "optimized_graph"}
OPTIMIZED_SUFFIX = " (optimized)"
DEFAULT_MAX_GRAPHS = 8


class GraphSource(Protocol):
    """What the service needs from a run cache (store.run_cache.RunCache has it)."""

    def tags(self, plugin: str) -> list[str]: ...

    def samples(self, plugin: str, tag: str) -> list[Any]: ...


def plugin_of_mode(mode: str | None) -> str:
    plugin = MODES.get(mode or "normal")
    if plugin is None:
        raise ParamValueError("Invalid mode")
    return plugin


def resolve_tag(source: GraphSource, plugin: str, tag: str | None) -> str:
    """The requested tag (first graph tag by default); 5054500C when there is no such graph."""
    tags = order_tags(plugin, source.tags(plugin))
    if not tags:
        raise GraphNotExistError()
    if tag is None:
        return tags[0]
    if tag in tags:
        return tag
    # extension: in optimize mode the plain graph tag names its optimized view too
    if plugin == "optimized_graph" and tag + OPTIMIZED_SUFFIX in tags:
        return tag + OPTIMIZED_SUFFIX
    raise GraphNotExistError()


@dataclass
class _Entry:
    proto: Any
    query: GraphQuery


class GraphService:
    def __init__(self, max_graphs: int = DEFAULT_MAX_GRAPHS) -> None:
        self.max_graphs = max_graphs
        self._built: OrderedDict[tuple[str, str, str], _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict[tuple[str, str, str], threading.Lock] = {}

    def graph(self, source: GraphSource, train_id: str, tag: str | None, mode: str | None) -> GraphQuery:
        plugin = plugin_of_mode(mode)
        tag = resolve_tag(source, plugin, tag)
        samples = source.samples(plugin, tag)
        if not samples:
            raise GraphNotExistError()
        proto = samples[-1].value
        key = (train_id, plugin, tag)
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                entry = self._built.get(key)
                if entry is not None and entry.proto is proto:
                    self._built.move_to_end(key)
                    return entry.query
            query = GraphQuery(build_graph(proto, optimized=plugin == "optimized_graph"))
            with self._lock:
                self._built[key] = _Entry(proto, query)
                self._built.move_to_end(key)
                while len(self._built) > self.max_graphs:
                    old, _ = self._built.popitem(last=False)
                    self._key_locks.pop(old, None)
            return query

    def forget(self, train_id: str) -> None:
        with self._lock:
            for key in [k for k in self._built if k[0] == train_id]:
                del self._built[key]
