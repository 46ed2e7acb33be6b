"""Routes of the model files under /v1/mindinsight/models/ (thin: parse the request, call the service).

MindIR, checkpoints, safetensors, ONNX, MindSpore Lite .ms, IR text, .dot and anf_ir .pb files found under the summary
base dir (docs/debugger.md): the list, a graph (flat, and through the graph views), parameters with statistics, the
comparison of two parameter files by name, and a page of a text file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Blueprint

from mindinsight_clone.server import graph_views, params
from mindinsight_clone.server.services import Services, services

if TYPE_CHECKING:
    from mindinsight_clone.analyzers.models.service import ModelService
    from mindinsight_clone.plugins.graphs.query import GraphQuery

bp = Blueprint("models", __name__, url_prefix="/v1/mindinsight/models")

SERVICE_KEY = "models"
MAX_NODES = 100_000


def _make_service(svc: Services) -> ModelService:
    # imported on the first models request (it brings the debugger's readers): a worker starts ~50 ms sooner
    from mindinsight_clone.analyzers.models.service import ModelService

    return ModelService(svc.data_manager, svc.settings.workspace, max_graph_nodes=svc.settings.max_graph_nodes)


def _service() -> ModelService:
    return services().service(SERVICE_KEY, _make_service)


@bp.get("/list")
def model_list() -> Any:
    return _service().models()


@bp.get("/graph")
def model_graph() -> Any:
    offset = params.int_arg("offset", default=0, minimum=0) or 0
    limit = params.int_arg("limit", default=None, minimum=1, maximum=MAX_NODES)
    return _service().graph(params.required("model_id"), offset, limit)


def _graph() -> GraphQuery:
    return _service().graph_query(params.required("model_id"))


graph_views.add_routes(bp, "/graph", _graph)


@bp.get("/parameters")
def model_parameters() -> Any:
    offset = params.int_arg("offset", default=0, minimum=0) or 0
    limit = params.int_arg("limit", default=None, minimum=1)
    return _service().parameters(params.required("model_id"), offset, limit)


@bp.get("/parameters/compare")
def model_parameters_compare() -> Any:
    return _service().compare(params.required("model_id"), params.required("other_model_id"))


@bp.get("/text")
def model_text() -> Any:
    from mindinsight_clone.analyzers.models.service import MAX_TEXT_PAGE

    offset = params.int_arg("offset", default=0, minimum=0) or 0
    limit = params.int_arg("limit", default=MAX_TEXT_PAGE, minimum=1, maximum=MAX_TEXT_PAGE) or MAX_TEXT_PAGE
    return _service().text(params.required("model_id"), offset, limit)
