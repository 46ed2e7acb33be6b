"""`profile/step-trace-time` (one rank); `steps_for` is the loader the views across ranks (cluster_steps.py, advice,
compare) share. The steps come from whichever format the rank is written in (rank_tables.py): step_trace_time.csv,
the database export's StepTraceTime, or an old-layout rank's step trace; their keys are `FIELDS`'.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.ascend_text_steps import FIELDS, PHASES
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles

__all__ = ["FIELDS", "PHASES", "label_for", "step_trace_time", "steps_for"]


def steps_for(device: DeviceFiles, cache: ParsedFileCache | None = None
              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The steps of a rank: (steps, problems), cached; the rows are shared (read only)."""
    steps: tuple[list[dict[str, Any]], list[dict[str, Any]]] = rank_tables.load("steps", device, cache)
    return steps


def label_for(device: DeviceFiles) -> str:
    """What a problem names as the rank's step source (a file, or a database table)."""
    return rank_tables.source("steps", device)


def step_trace_time(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    steps, problems = steps_for(device, cache)
    answer: dict[str, Any] = {"steps": [dict(s) for s in steps]}
    if problems:
        answer["problems"] = problems
    return answer
