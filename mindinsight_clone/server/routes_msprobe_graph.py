"""msprobe (issue 35) under /v1/mindinsight/msprobe: graph_visualize .vis.db/.vis graphs and data2db .trend.db trends.
Thin: parse the request, call the analyzer."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("msprobe_graph", __name__, url_prefix="/v1/mindinsight/msprobe")
