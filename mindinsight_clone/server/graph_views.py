"""The answers of the graph views (scope listing, search, single node, all nodes) over any built graph.

Shared by `datavisual/graphs/*` (graphs of summary runs), `debugger/graph/*` (the graph of a dump) and
`models/graph/*` (MindIR, IR, pb files): the same parameters, shapes and errors (API.md §6; `limit`/`offset`
paging of one scope is an extension), whatever file the graph came from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mindinsight_clone.errors import ParamMissError
from mindinsight_clone.server import params

if TYPE_CHECKING:
    from flask import Blueprint

    from mindinsight_clone.plugins.graphs.query import GraphQuery


def nodes(graph: GraphQuery) -> dict[str, Any]:
    """A scope's listing; extension: `notes` says which node names were bounded (deep or long names) when any."""
    name = params.arg("name")
    limit = params.int_arg("limit", default=None, minimum=1)
    answer: dict[str, Any]
    if limit is None:
        answer = {"nodes": graph.list_nodes(name)}
    else:
        offset = params.int_arg("offset", default=0, minimum=0) or 0
        answer = {"nodes": graph.list_nodes(name, offset, limit), "total": len(graph.children(name or ""))}
    if graph.notes:
        answer["notes"] = graph.notes
    return answer


def names(graph: GraphQuery) -> dict[str, Any]:
    offset = params.int_arg("offset", default=0, minimum=0) or 0
    limit = params.int_arg("limit", default=100, minimum=1, maximum=1000) or 100
    return {"nodes": graph.search(params.arg("search"), offset, limit)}


def single_node(graph: GraphQuery) -> dict[str, Any]:
    name = params.arg("name")
    if not name:
        raise ParamMissError("name")
    return graph.single_node(name)


def all_nodes(graph: GraphQuery) -> dict[str, Any]:
    return {"all_nodes_detail": graph.all_nodes(params.arg("name"))}


def add_routes(bp: Blueprint, prefix: str, graph: Callable[[], GraphQuery], with_all: bool = False) -> None:
    """GET `<prefix>/nodes`, `<prefix>/nodes/names`, `<prefix>/single-node` (and with `with_all`, `<prefix>/nodes/all`)
    on `bp`, answered over the graph `graph()` finds for the request."""
    views: dict[str, tuple[str, Callable[[GraphQuery], dict[str, Any]]]] = {
        "graph_nodes": ("/nodes", nodes), "graph_search": ("/nodes/names", names),
        "graph_single_node": ("/single-node", single_node)}
    if with_all:
        views["graph_all_nodes"] = ("/nodes/all", all_nodes)
    for endpoint, (path, view) in views.items():
        bp.add_url_rule(prefix + path, endpoint, lambda view=view: view(graph()), methods=["GET"])
