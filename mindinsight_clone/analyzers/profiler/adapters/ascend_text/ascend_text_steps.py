"""step_trace_time.csv of the Ascend text export: per step, µs, Computing, Communication(Not Overlapped), Overlapped,
Communication, Free, Stage, Bubble, Communication(Not Overlapped and Exclude Receive), Preparing (MindSpore 2.3/2.4
write no Preparing: null). The values are kept as the file has them. `FIELDS` (answer field -> header) is also the
steps table's schema, which the database and old-layout readers fill.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.numbers import step_number

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
