"""Routes of the offline debugger under /v1/mindinsight/debugger/ (thin: parse the request, call the service).

MindSpore dumps found under the summary base dir (docs/debugger.md): the dump list, an iteration's tensor table,
one tensor's values (a window, as `datavisual/tensors` slices), the comparison of a tensor between two
iterations, watchpoint checks, and the graph of a dump's graph id for the graph views.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Blueprint

from mindinsight_clone.errors import ParamMissError
from mindinsight_clone.server import graph_views, params
from mindinsight_clone.server.services import Services, services

if TYPE_CHECKING:
    from mindinsight_clone.analyzers.debugger.service import DebuggerService
    from mindinsight_clone.plugins.graphs.query import GraphQuery

bp = Blueprint("debugger", __name__, url_prefix="/v1/mindinsight/debugger")

SERVICE_KEY = "debugger"
MAX_TENSOR_ROWS = 10_000


def _make_service(svc: Services) -> DebuggerService:
    # imported on the first debugger request: ~50 ms of imports a worker's start (and its first load) need not wait for
    from mindinsight_clone.analyzers.debugger.service import DebuggerService

    ttl = float(max(1, svc.settings.reload_interval))
    return DebuggerService(svc.data_manager, svc.settings.workspace, ttl=ttl,
                           max_graph_nodes=svc.settings.max_graph_nodes)


def _service() -> DebuggerService:
    return services().service(SERVICE_KEY, _make_service)


def _int(name: str) -> int:
    value = params.to_int(name, params.required(name))
    assert value is not None
    return value


def _where() -> tuple[str, int, int]:
    return params.required("dump_id"), _int("rank"), _int("graph_id")


def _tensor_key() -> tuple[str, str, int]:
    return params.required("op_name"), params.required("io"), _int("slot")


@bp.get("/dumps")
def dumps() -> Any:
    return _service().dumps(params.arg("dump_id") or None)


@bp.get("/tensors")
def tensors() -> Any:
    dump_id, rank, graph_id = _where()
    offset = params.int_arg("offset", default=0, minimum=0) or 0
    limit = params.int_arg("limit", default=100, minimum=1, maximum=MAX_TENSOR_ROWS) or 100
    return _service().tensors(dump_id, rank, graph_id, _int("iteration"), offset, limit, params.arg("search"),
                              params.arg("node_name"), params.arg("io") or None)


@bp.get("/tensor")
def tensor() -> Any:
    dump_id, rank, graph_id = _where()
    iteration = _int("iteration")
    op_name, io, slot = _tensor_key()
    timestamp = params.int_arg("timestamp", default=None, minimum=0)
    return _service().tensor(dump_id, rank, graph_id, iteration, op_name, io, slot, params.arg("shape"),
                             params.arg("detail") or None, timestamp)


@bp.get("/tensor/compare")
def tensor_compare() -> Any:
    dump_id, rank, graph_id = _where()
    iteration, other = _int("iteration"), _int("other_iteration")
    op_name, io, slot = _tensor_key()
    return _service().compare(dump_id, rank, graph_id, iteration, other, op_name, io, slot, params.arg("shape"))


@bp.get("/watchpoints/conditions")
def watchpoint_conditions() -> Any:
    return _service().conditions()


@bp.post("/watchpoints/check")
def watchpoints_check() -> Any:
    return _service().check(params.json_body(default={}))


# ---------------------------------------------------------------------- the graph of a dump's graph id
def _graph() -> GraphQuery:
    dump_id, rank, graph_id = _where()
    return _service().graph(dump_id, rank, graph_id)


@bp.get("/graph/nodes")
def graph_nodes() -> Any:
    """The graph views' scope listing; with `iteration`, each operator and parameter node also carries `tensors`:
    the tensor table rows of what was dumped for it in that iteration."""
    graph = _graph()
    answer = graph_views.nodes(graph)
    iteration = params.to_int("iteration", params.arg("iteration"))
    if iteration is not None:
        dump_id, rank, graph_id = _where()
        answer["nodes"] = _service().node_tensors(dump_id, rank, graph_id, iteration, answer["nodes"], graph)
    return answer


@bp.get("/graph/nodes/names")
def graph_search() -> Any:
    return graph_views.names(_graph())


@bp.get("/graph/single-node")
def graph_single_node() -> Any:
    """By `name` (as the graph views list it), or by `full_name` (a tensor row's `node_name`): the answer then
    also says which `name` that is. With `iteration`, the nodes of every level carry `tensors` as in `nodes`."""
    graph = _graph()
    full_name = params.arg("full_name")
    if params.arg("name") or not full_name:
        if not params.arg("name"):
            raise ParamMissError("name")
        answer = graph_views.single_node(graph)
    else:
        name = _service().node_by_full_name(graph, full_name)
        answer = {**graph.single_node(name), "name": name}
    iteration = params.to_int("iteration", params.arg("iteration"))
    if iteration is not None:
        dump_id, rank, graph_id = _where()
        level: Any = answer
        while isinstance(level, dict) and isinstance(level.get("nodes"), list):
            level["nodes"] = _service().node_tensors(dump_id, rank, graph_id, iteration, level["nodes"], graph)
            level = level.get("children")
    return answer
