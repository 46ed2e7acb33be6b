"""Routes for the lineage area under /v1/mindinsight/ (thin: parse the request, call a pure function)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("lineage", __name__, url_prefix="/v1/mindinsight")
