"""A small writer of MindSpore-format summary and lineage files (no MindSpore needed)."""

from mindinsight_clone.summary.writer import VERSION, SummaryWriter

__all__ = ["VERSION", "SummaryWriter"]
