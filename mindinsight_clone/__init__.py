"""mindinsight-clone: a MindInsight-compatible training visualization server for MindSpore."""

__version__ = "0.1.0"
