"""`build_graph`: the normal view (model.py) or the optimized one (optimize.py) of one graph proto.

Its own module so that optimize.py, which extends the model, is not imported by it.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.plugins.graphs.model import DEFAULT_MAX_NODES, GraphModel
from mindinsight_clone.plugins.graphs.optimize import OptimizedGraphModel


def build_graph(proto: Any, optimized: bool = False, max_nodes: int = DEFAULT_MAX_NODES) -> GraphModel:
    """Build the normal view, or the optimized one (gradients and optimizer hidden); GraphTooLargeError past
    `max_nodes` nodes."""
    if optimized:
        return OptimizedGraphModel(max_nodes).build(proto)
    return GraphModel(max_nodes).build(proto)
