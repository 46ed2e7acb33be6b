"""Which graph a request means, and the built graphs kept between requests.

A graph is built once per (run, plugin, tag) and reused while the run cache still holds the same
GraphProto object (a new graph for that tag, or a reloaded run, gives a new object and a rebuild).
Built graphs are kept within a node budget and at most `max_graphs` of them (cache.py: least recently used
dropped first); concurrent requests for the same graph wait for one build instead of building it twice.
A graph of more than `max_nodes` nodes is not built (GraphTooLargeError).
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

from mindinsight_clone.errors import GraphNotExistError, ParamValueError
from mindinsight_clone.plugins.graphs.build import build_graph
from mindinsight_clone.plugins.graphs.cache import BuiltGraphs, cache_budget
from mindinsight_clone.plugins.graphs.model import DEFAULT_MAX_NODES
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


class GraphService:
    def __init__(self, max_graphs: int = DEFAULT_MAX_GRAPHS, max_nodes: int = DEFAULT_MAX_NODES) -> None:
        self.max_graphs = max_graphs
        self.max_nodes = max_nodes
        self._built: BuiltGraphs[tuple[str, str, str]] = BuiltGraphs(cache_budget(max_nodes), max_graphs)
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
            query = self._built.get(key, proto)
            if query is not None:
                return query
            query = GraphQuery(build_graph(proto, plugin == "optimized_graph", self.max_nodes))
            dropped = self._built.put(key, proto, query)
            with self._lock:
                for old in dropped:
                    self._key_locks.pop(old, None)
            return query

    def forget(self, train_id: str) -> None:
        self._built.forget(lambda key: key[0] == train_id)
