"""msprobe (issue 35) under /v1/mindinsight/msprobe: target-vs-bench comparison and compare_result files.
Thin: parse the request, call the analyzer."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("msprobe_compare", __name__, url_prefix="/v1/mindinsight/msprobe")
