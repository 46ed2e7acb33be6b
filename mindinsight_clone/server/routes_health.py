"""GET /v1/mindinsight/health (used by `start` and load balancers), ui-config, and the OpenAPI document."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify

from mindinsight_clone.server.services import services
from mindinsight_clone.version import __version__

bp = Blueprint("health", __name__, url_prefix="/v1/mindinsight")

OPENAPI_PATH = Path(__file__).resolve().with_name("openapi.yaml")


@bp.get("/health")
def health() -> dict[str, object]:
    svc = services()
    dm = svc.data_manager
    return {"status": "ok", "version": __version__, "load_status": dm.load_status, "cache": dm.cache_summary()}


@bp.get("/ui-config")
def ui_config() -> dict[str, object]:
    svc = services()
    return {"enable_debugger": False, "reload_interval": svc.settings.reload_interval}


@functools.cache
def openapi_text() -> str:
    """The shipped OpenAPI document (package data), read once per process."""
    return OPENAPI_PATH.read_text(encoding="utf-8")


@functools.cache
def openapi_document() -> dict[str, Any]:
    import yaml  # here: the worker's start need not import it

    document: dict[str, Any] = yaml.safe_load(openapi_text())
    return document


@bp.get("/openapi.yaml")
def openapi_yaml() -> Response:
    return Response(openapi_text(), mimetype="application/yaml")


@bp.get("/openapi.json")
def openapi_json() -> Response:
    return jsonify(openapi_document())
