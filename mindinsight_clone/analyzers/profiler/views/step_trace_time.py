"""`profile/step-trace-time` (one rank). The steps come from whichever format the rank is written in
(rank_tables.py): step_trace_time.csv, the database export's StepTraceTime, or an old-layout rank's step trace;
their keys are `ascend_text_steps.FIELDS`'.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler import rank_tables
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import with_problems
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles


def step_trace_time(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    steps, problems = rank_tables.load("steps", device, cache)
    answer: dict[str, Any] = {"steps": [dict(s) for s in steps]}
    return with_problems(answer, problems)
