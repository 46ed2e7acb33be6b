"""`profile/step-trace-time` (one rank) and `profile/cluster-step-trace` (all ranks) from step_trace_time.csv.

Per step, µs: Computing, Communication(Not Overlapped), Overlapped, Communication, Free, Stage, Bubble,
Communication(Not Overlapped and Exclude Receive), Preparing (MindSpore 2.3/2.4 write no Preparing: null). The
values are answered as the file has them.

Slow ranks (the rule, also in docs/profiler.md): for each phase of the stacked bar (computing,
communication_not_overlapped, free), over the ranks' per-step averages, the phase is imbalanced when
(max − min) / mean > 5 % (msprof-analyze's rule); in an imbalanced phase a rank is slow when its value exceeds
the median of the ranks by more than 5 % of that median. `deviation` is (value − median) / median.
"""

from __future__ import annotations

import logging
import statistics
from typing import Any

from mindinsight_clone.analyzers.profiler import ascend_csv, ascend_db_tables
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, ProfilerDir
from mindinsight_clone.analyzers.profiler.numbers import step_number
from mindinsight_clone.errors import MindInsightError

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
SLOW_PHASES = ("computing_us", "communication_not_overlapped_us", "free_us")
IMBALANCE = 0.05
SLOW_DEVIATION = 0.05


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
        if any(row[k] is None for k in SLOW_PHASES):
            csv_file.report.skip("no computing / communication / free time")
            continue
        steps.append(row)
    if not steps:
        csv_file.report.note("no readable step")
    csv_file.report.log()
    return steps, csv_file.report.problems()


def _load(device: DeviceFiles, cache: ParsedFileCache | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if device.export == "db":
        return ascend_db_tables.steps(device, cache)
    path = ascend_csv.require(device.output_file(STEP_TRACE_TIME), STEP_TRACE_TIME, device.device_id)
    return cached(cache, "step_trace_time", path, lambda p: parse(p, device.device_id))


def step_trace_time(device: DeviceFiles, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    steps, problems = _load(device, cache)
    answer: dict[str, Any] = {"steps": [dict(s) for s in steps]}
    if problems:
        answer["problems"] = problems
    return answer


def _average(steps: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in FIELDS:
        values = [s[key] for s in steps if s[key] is not None]
        out[key] = sum(values) / len(values) if values else None
    return out


def slow_ranks(ranks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rule in the module doc; ranks without a value in a phase are left out of that phase."""
    slow: list[dict[str, Any]] = []
    for key in SLOW_PHASES:
        values = [(r["rank_id"], r[key]) for r in ranks if r.get(key) is not None]
        if len(values) < 2:
            continue
        numbers = [v for _, v in values]
        mean = sum(numbers) / len(numbers)
        if mean <= 0 or (max(numbers) - min(numbers)) / mean <= IMBALANCE:
            continue
        median = statistics.median(numbers)
        if median <= 0:
            continue
        for rank_id, value in values:
            deviation = (value - median) / median
            if deviation > SLOW_DEVIATION:
                slow.append({"rank_id": rank_id, "phase": key.removesuffix("_us"), "deviation": round(deviation, 4)})
    return slow


def cluster_step_trace(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """Per rank the step fields averaged over its steps; a rank whose file is missing or broken is reported in
    `problems` and left out (every other rank still answers)."""
    ranks: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    pdir.prefetch_outputs()
    for device_id in pdir.device_ids:
        device = pdir.devices[device_id]
        try:
            steps, file_problems = _load(device, cache)
        except MindInsightError as err:
            problems.append({"rank_id": int(device_id), "file": STEP_TRACE_TIME, "message": err.message})
            continue
        problems.extend({"rank_id": int(device_id), **p} for p in file_problems)
        if not steps:
            continue
        ranks.append({"rank_id": int(device_id), **_average(steps), "step_count": len(steps)})
    answer: dict[str, Any] = {"ranks": ranks, "slow_ranks": slow_ranks(ranks),
                              "rule": {"phases": [k.removesuffix("_us") for k in SLOW_PHASES],
                                       "imbalance": IMBALANCE, "deviation": SLOW_DEVIATION}}
    if problems:
        answer["problems"] = problems
    return answer
