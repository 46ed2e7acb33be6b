"""msprobe (issue 35) under /v1/mindinsight/msprobe: dumps, nodes, anomalies, tensors, stacks of msprobe dumps.
Thin: parse the request, call the analyzer."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("msprobe", __name__, url_prefix="/v1/mindinsight/msprobe")
