"""`profile/step-trace-time` (one rank) from step_trace_time.csv; `steps_for` is the loader the views across ranks
(cluster_steps.py, advice, compare) share.

Per step, µs: Computing, Communication(Not Overlapped), Overlapped, Communication, Free, Stage, Bubble,
Communication(Not Overlapped and Exclude Receive), Preparing (MindSpore 2.3/2.4 write no Preparing: null). The
values are answered as the file has them.
"""

from __future__ import annotations

import logging
from typing import Any

from mindinsight_clone.analyzers.profiler import ascend_csv, ascend_db_tables, legacy_steps
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.analyzers.profiler.numbers import step_number

log = logging.getLogger(__name__)
STEP_TRACE_TIME = "step_trace_time.csv"
# answer field -> CSV header
FIELDS = {
    "computing_us": "Computing",
    "communication_not_overlapped_us": "Communication(Not Overlapped)",
    "overlapped_us": "Overlapped",
    "communication_us": "Communication",
    "free_us": "Free",
    "stage_us": "Stage",
    "bubble_us": "Bubble",
    "communication_not_overlapped_exclude_receive_us": "Communication(Not Overlapped and Exclude Receive)",
    "preparing_us": "Preparing",
}
REQUIRED = ("Computing", "Communication(Not Overlapped)", "Free")
# the stacked bar: the three parts a step splits into
PHASES = ("computing_us", "communication_not_overlapped_us", "free_us")


def parse(path: Any, rank: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(STEP_TRACE_TIME, rank), REQUIRED)
    steps: list[dict[str, Any]] = []
    for raw in csv_file.rows():
        row: dict[str, Any] = {"step": step_number(csv_file.get(raw, "Step"))}
        try:
            for key, header in FIELDS.items():
                row[key] = ascend_csv.number(csv_file.get(raw, header))
        except ValueError:
            csv_file.report.skip("non-numeric time")
            continue
        if any(row[k] is None for k in PHASES):
            csv_file.report.skip("no computing / communication / free time")
            continue
        steps.append(row)
    if not steps:
        csv_file.report.note("no readable step")
    csv_file.report.log()
    return steps, csv_file.report.problems()


def steps_for(device: DeviceFiles, cache: ParsedFileCache | None = None
              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The steps of a rank: (steps, problems), cached; the rows are shared (read only). From step_trace_time.csv,
    the database export's StepTraceTime, or an old-layout rank's step trace (legacy_steps.py)."""
    if device.export == "db":
        return ascend_db_tables.steps(device, cache)
    if legacy_steps.has_steps(device):
        return legacy_steps.steps(device, tuple(FIELDS), cache)
    path = ascend_csv.require(device.output_file(STEP_TRACE_TIME), STEP_TRACE_TIME, device.device_id)
    return cached(cache, "step_trace_time", path, lambda p: parse(p, device.device_id))


def label_for(device: DeviceFiles) -> str:
    """What a problem names as the rank's step source: step_trace_time.csv, or StepTraceTime of the analysis
    database."""
    if device.export == "db":
        return ascend_db_tables.analysis_label(device, ascend_db_tables.STEP_TABLE)
    return legacy_steps.label(device) if legacy_steps.has_steps(device) else STEP_TRACE_TIME


def step_trace_time(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    steps, problems = steps_for(device, cache)
    answer: dict[str, Any] = {"steps": [dict(s) for s in steps]}
    if problems:
        answer["problems"] = problems
    return answer
