"""Answers of the graph endpoints from a built GraphModel, without walking the whole graph per query.

* `list_nodes(scope)`: the children index (scope -> list) built once; optional paging for huge scopes.
* `search(text, offset, limit)`: MindInsight's rule — case-insensitive, and the *last* occurrence of the
  text must have no `/` after it — answered from one lower-cased blob of names (`str.find` runs in C), so
  a query costs one scan of ~20 bytes per node and stops as soon as the page is full.
* `single_node(name)`: the listings of every scope on the path to `name`.
* `all_nodes(scope)`: every leaf under a scope, depth first in listing order.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from typing import Any

from mindinsight_clone.errors import NodeNotInGraphError
from mindinsight_clone.plugins.graphs.model import GraphModel
from mindinsight_clone.plugins.graphs.node import NAME_SCOPE, Node


class _SearchIndex:
    """Lower-cased names joined by `\\n`, with the start offset of each line (map order)."""

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        names = [n.name.lower() for n in nodes]
        self.starts: list[int] = []
        pos = 0
        for name in names:
            self.starts.append(pos)
            pos += len(name) + 1
        self.blob = "\n".join(names) + "\n"

    def matches(self, text: str, skip: int, count: int) -> list[Node]:
        """Nodes [skip, skip+count) among those whose name matches `text` (already lower-cased)."""
        out: list[Node] = []
        blob, starts, find = self.blob, self.starts, self.blob.find
        seen = 0
        pos = find(text)
        while pos != -1 and len(out) < count:
            line = bisect_right(starts, pos) - 1
            end = blob.find("\n", pos)
            # MindInsight looks at the *last* occurrence in the name
            last = blob.rfind(text, starts[line], end)
            if blob.find("/", last + len(text), end) == -1:
                if seen >= skip:
                    out.append(self.nodes[line])
                seen += 1
            pos = find(text, end + 1)
        return out


class _TreeNode:
    __slots__ = ("children", "dynamic", "name", "type")

    def __init__(self, name: str, node_type: str, dynamic: bool) -> None:
        self.name = name
        self.type = node_type
        self.dynamic = dynamic
        self.children: dict[str, _TreeNode] = {}

    def to_list(self) -> list[dict[str, Any]]:
        return [{"is_dynamic_shape_node": c.dynamic, "name": c.name, "nodes": c.to_list(), "type": c.type}
                for c in self.children.values()]


LISTING_CACHE_SIZE = 64  # scope listings kept as ready dicts (the root of a big graph costs ~100 ms)


class GraphQuery:
    """Read-only queries on one built graph (thread-safe: the model is not mutated after the build)."""

    def __init__(self, model: GraphModel) -> None:
        self.model = model
        self.notes = model.notes  # what was bounded while building (limits.py), said in the answers
        self._search = _SearchIndex(list(model.nodes.values()))
        self._listings: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def node_count(self) -> int:
        return len(self.model.nodes)

    def exists(self, name: str) -> bool:
        return name in self.model.nodes

    def _check_scope(self, scope: str | None) -> str:
        scope = scope or ""
        if scope and scope not in self.model.nodes:
            raise NodeNotInGraphError(scope)
        return scope

    def children(self, scope: str) -> list[Node]:
        return self.model.children.get(scope, [])

    def list_nodes(self, scope: str | None = None, offset: int = 0,
                   limit: int | None = None) -> list[dict[str, Any]]:
        """Children of `scope` (root when empty). `limit` pages them (`offset` is a page index)."""
        scope = self._check_scope(scope)
        with self._lock:
            listing = self._listings.get(scope)
            if listing is not None:
                self._listings.move_to_end(scope)
        if listing is None:
            listing = [n.to_dict() for n in self.children(scope)]
            with self._lock:
                self._listings[scope] = listing
                if len(self._listings) > LISTING_CACHE_SIZE:
                    self._listings.popitem(last=False)
        if limit is not None:
            return listing[offset * limit:(offset + 1) * limit]
        return listing

    def search(self, text: str | None, offset: int, limit: int) -> list[dict[str, Any]]:
        if not text or text == "/" or "\n" in text:
            return []
        found = self._search.matches(text.lower(), offset * limit, limit)
        root = _TreeNode("", "", False)
        nodes = self.model.nodes
        for node in found:
            parts = node.name.split("/")
            cur = root
            prefix = ""
            for part in parts[:-1]:
                prefix = f"{prefix}/{part}" if prefix else part
                sub = cur.children.get(part)
                if sub is None:
                    scope_node = nodes.get(prefix)
                    sub = _TreeNode(prefix, scope_node.type if scope_node else NAME_SCOPE,
                                    scope_node.is_dynamic_shape_node if scope_node else False)
                    cur.children[part] = sub
                cur = sub
            # as MindInsight: a matching scope replaces what earlier matches built below it
            cur.children[parts[-1]] = _TreeNode(node.name, node.type, node.is_dynamic_shape_node)
        return root.to_list()

    def single_node(self, name: str) -> dict[str, Any]:
        if name not in self.model.nodes:
            raise NodeNotInGraphError(name)
        response: dict[str, Any] = {"nodes": self.list_nodes(""), "scope_name": "", "children": {}}
        level = response["children"]
        index = name.find("/")
        while index != -1:
            scope = name[:index]
            level.update({"nodes": self.list_nodes(scope), "scope_name": scope, "children": {}})
            level = level["children"]
            index = name.find("/", index + 1)
        return response

    def all_nodes(self, scope: str | None = None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        stack = [iter(self.children(self._check_scope(scope)))]
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
            elif node.is_scope:
                stack.append(iter(self.children(node.name)))
            else:
                out.append(node.to_dict())
        return out
