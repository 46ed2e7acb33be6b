"""mindinsight-clone: a MindInsight-compatible training visualization server for MindSpore."""

from typing import Any

__version__ = "0.1.0"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext mindinsight_clone`: registers the `%mindinsight_clone` magic (imported only now)."""
    from mindinsight_clone import notebook

    notebook.load_ipython_extension(ipython)
