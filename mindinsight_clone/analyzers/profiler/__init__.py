"""Profiler data (MindInsight's legacy layout, MindSpore 2.x and torch_npu sessions in text or database export).

Layered, each level importing only those below (the import-linter contract in pyproject.toml): column_defs,
compat/ and locate; views/; rank_tables (the one registry of formats); adapters/ (one reader package per format);
layout (discovery); engine/ (CSV reading, column tables and their query engine, the trace engine, caches).
"""

from mindinsight_clone.analyzers.profiler.layout import find_profiler_dirs, is_profiler_dir

__all__ = ["find_profiler_dirs", "is_profiler_dir"]
