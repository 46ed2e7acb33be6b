"""mindinsight-clone: a MindInsight-compatible training visualization server for MindSpore."""

from typing import Any

from mindinsight_clone.version import __version__

__all__ = ["__version__", "load_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext mindinsight_clone`: registers the `%mindinsight_clone` magic (imported only now)."""
    from mindinsight_clone import notebook

    notebook.load_ipython_extension(ipython)
