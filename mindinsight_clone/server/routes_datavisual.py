"""Routes for the datavisual area under /v1/mindinsight/ (thin: parse the request, call a pure function)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("datavisual", __name__, url_prefix="/v1/mindinsight")
