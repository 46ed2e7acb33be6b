"""Routes for the graphs area under /v1/mindinsight/ (thin: parse the request, call a pure function).

Parameters, shapes and error codes follow MindInsight 2.3.1 (API.md §6). Checks run in MindInsight's
order: `train_id`, then `mode`, then the graph itself (job cached, tag known), then the endpoint's own
parameters. Extension: `graphs/nodes` also takes `offset` (page index) and `limit`, for scopes too big
to show at once; the answer then carries `total` (the number of children of the scope).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Blueprint

from mindinsight_clone.errors import ParamMissError, TrainJobNotExistError
from mindinsight_clone.ingest.train_id import InvalidTrainId, check_train_id_syntax, normalize_train_id
from mindinsight_clone.server import graph_views, params
from mindinsight_clone.server.deferred import DeferredModule
from mindinsight_clone.server.services import services

if TYPE_CHECKING:
    from mindinsight_clone.plugins.graphs import service as graph_service
    from mindinsight_clone.plugins.graphs.query import GraphQuery
else:  # imported by the first graph request (server/deferred.py): a worker starts serving without it
    graph_service = DeferredModule("mindinsight_clone.plugins.graphs.service")

bp = Blueprint("graphs", __name__, url_prefix="/v1/mindinsight")

P = "/datavisual/graphs"
IN_CACHE = "Can not find the given train job in cache."
_SERVICE_KEY = "graphs"


def _service() -> graph_service.GraphService:
    extras = services().extras
    svc = extras.get(_SERVICE_KEY)
    if svc is None:
        svc = extras.setdefault(_SERVICE_KEY, graph_service.GraphService(max_nodes=services().settings.max_graph_nodes))
    return svc  # type: ignore[no-any-return]


def _graph() -> GraphQuery:
    raw_id = params.arg("train_id")
    if not raw_id:
        raise ParamMissError("train_id")
    mode = params.arg("mode")
    graph_service.plugin_of_mode(mode)
    try:
        train_id = normalize_train_id(check_train_id_syntax(raw_id))
    except InvalidTrainId:
        raise TrainJobNotExistError(IN_CACHE) from None
    cache = services().data_manager.run_cache(train_id)
    return _service().graph(cache, train_id, params.arg("tag"), mode)


graph_views.add_routes(bp, P, _graph, with_all=True)
