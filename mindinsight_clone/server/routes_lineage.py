"""Routes for the lineage area under /v1/mindinsight/ (thin: parse the request, call a pure function).

MindInsight 2.3.1's `lineagemgr/lineages` (POST search, PUT tag/remark), `optimizer/targets/search` and
`datasets/dataset_graph` (API.md §8-9), with the deliberate differences listed in docs/lineage.md.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint
from flask.blueprints import BlueprintSetupState

from mindinsight_clone.analyzers.lineage import LineageService
from mindinsight_clone.errors import ParamMissError, ParamValueError, QueryStringContainsNullByteError
from mindinsight_clone.ingest.train_id import InvalidTrainId, check_train_id_syntax, normalize_train_id
from mindinsight_clone.server import params
from mindinsight_clone.server.services import EXTENSION_KEY, Services, services

bp = Blueprint("lineage", __name__, url_prefix="/v1/mindinsight")

SERVICE_KEY = "lineage"
MODEL_INFO_KEY = "lineage_model_info"  # read by the landscape routes: Callable[[train_id], dict | None]
NOT_RELATIVE = "Summary dir should be relative path starting with './'."


def _make_service(svc: Services) -> LineageService:
    settings = svc.settings
    return LineageService(svc.data_manager.bases, settings.workspace, registry=svc.data_manager,
                          max_run_count=settings.max_run_count, run_filter=settings.run_filter)


@bp.record_once
def _install(state: BlueprintSetupState) -> None:
    """One LineageService per app, and the model-info lookup the landscape metadata uses."""
    svc: Services = state.app.extensions[EXTENSION_KEY]
    service = svc.extras.get(SERVICE_KEY)
    if not isinstance(service, LineageService):
        service = _make_service(svc)
        svc.extras[SERVICE_KEY] = service
        if svc.data_manager.bases.remote:
            # remote lineage files are read on the reload thread after each cycle, not by the first request
            svc.data_manager.after_reload.append(service.refresh)
    svc.extras.setdefault(MODEL_INFO_KEY, service.model_info)


def _service() -> LineageService:
    svc = services()
    service = svc.extras.get(SERVICE_KEY)
    if not isinstance(service, LineageService):
        service = svc.extras[SERVICE_KEY] = _make_service(svc)
    return service


def _lineage_train_id(train_id: str | None) -> str:
    """MindInsight's validate_train_id (50540002) on top of the central syntax check; missing -> 50540003."""
    if train_id is None or train_id == "":
        raise ParamMissError("train_id")
    if "\x00" in train_id:
        raise QueryStringContainsNullByteError(f"Detail: train job id: {train_id} contains null byte.")
    try:
        tid = normalize_train_id(check_train_id_syntax(train_id))
    except InvalidTrainId:
        raise ParamValueError(NOT_RELATIVE) from None
    if "/" in tid[2:] and services().settings.max_depth <= 1:  # MindInsight: at most one '/'
        raise ParamValueError(NOT_RELATIVE)
    return tid


@bp.post("/lineagemgr/lineages")
def search_lineages() -> Any:
    return _service().search(params.json_body(default={}))


@bp.put("/lineagemgr/lineages")
def update_lineage() -> Any:
    train_id = params.arg("train_id")
    body = params.json_body()  # whatever the Content-Type (MindInsight: 500 without application/json)
    if not isinstance(body, dict):
        raise ParamValueError("The request body should be a dict.")
    return _service().update_added_info(_lineage_train_id(train_id), body)


@bp.post("/optimizer/targets/search")
def optimizer_targets() -> Any:
    return _service().optimize_targets(params.json_body(default={}))


@bp.get("/datasets/dataset_graph")
def dataset_graph() -> Any:
    return _service().dataset_graph(_lineage_train_id(params.arg("train_id")))
