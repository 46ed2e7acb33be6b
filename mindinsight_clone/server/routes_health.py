"""GET /v1/mindinsight/health: answers once the app is up (used by `start` and load balancers)."""

from __future__ import annotations

from flask import Blueprint

from mindinsight_clone import __version__
from mindinsight_clone.server.services import services

bp = Blueprint("health", __name__, url_prefix="/v1/mindinsight")


@bp.get("/health")
def health() -> dict[str, object]:
    svc = services()
    return {"status": "ok", "version": __version__, "load_status": svc.data_manager.load_status}


@bp.get("/ui-config")
def ui_config() -> dict[str, object]:
    svc = services()
    return {"enable_debugger": False, "reload_interval": svc.settings.reload_interval}
