"""Profiler data (MindInsight's legacy layout and MindSpore 2.x `*_ascend_ms` sessions): one module per view.

layout (discovery), locate (request -> profiler dir), op_stats/search/tables/conditions (ops/search),
timeline/trace_events (Chrome trace), steps, memory, minddata, overview, info (small answers).
"""

from mindinsight_clone.analyzers.profiler.layout import find_profiler_dirs, is_profiler_dir

__all__ = ["find_profiler_dirs", "is_profiler_dir"]
