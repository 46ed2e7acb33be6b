"""Routes for the profiler area under /v1/mindinsight/ (thin: parse the request, call a pure function)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("profiler", __name__, url_prefix="/v1/mindinsight")
