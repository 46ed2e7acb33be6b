"""Computational graphs: the scope tree MindInsight shows (model), its optimized view, queries and cache.

See docs/graph.md.
"""

from mindinsight_clone.plugins.graphs.build import build_graph
from mindinsight_clone.plugins.graphs.model import GraphModel
from mindinsight_clone.plugins.graphs.query import GraphQuery
from mindinsight_clone.plugins.graphs.service import GraphService

__all__ = ["GraphModel", "GraphQuery", "GraphService", "build_graph"]
