"""The steps table of an old-layout rank (MindSpore <= 2.2), in the fields of `ascend_text_steps.FIELDS`, so that
step-trace-time, the cluster step view, compare, advice and overview read it as they read step_trace_time.csv.

* `step_trace_raw_<rank>_detail_time.csv` (legacy_step_trace.py) gives each step's total, iteration interval,
  fp+bp and tail (system counts of 10 ns; answered in µs as `total_us`, `iteration_interval_us`, `fp_and_bp_us`
  (`fp_us` for inference files), `tail_us`); its average row is not a step.
* `<ascend|gpu>_cluster_analyse_<mode>_<stages>_<rank size>_<rank>.csv`, written for parallel jobs, gives the same
  steps' computation, communication alone, (pipeline:) stage, receive alone and collective communication alone
  in ms: they are `computing_us`, `communication_not_overlapped_us`, `stage_us`, `bubble_us` and
  `communication_not_overlapped_exclude_receive_us` (MindSpore's later step_trace_time.csv names for the same
  measures), and `free_us` is the step's total less computing and communication alone (never below 0).
  Without that file the phases are null and a problem says so: the old layout does not split a single-rank step
  into computing and communication.
"""

from __future__ import annotations

from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.ascend_text.ascend_text_steps import FIELDS
from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_step_trace
from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import read_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.engine.numbers import to_float
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.errors import ProfilerFileNotFoundError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

US_PER_COUNT = 0.01  # a system count is 10 ns
CLUSTER_PREFIXES = ("ascend_cluster_analyse_", "gpu_cluster_analyse_")
# cluster analyse column (ms) -> step field (µs)
CLUSTER_FIELDS = {
    "computation_time": "computing_us",
    "communication_alone_time": "communication_not_overlapped_us",
    "stage_time": "stage_us",
    "receive_alone_time": "bubble_us",
    "collective_communication_alone_time": "communication_not_overlapped_exclude_receive_us",
}
TRACE_FIELDS = {"total": "total_us", "iteration_interval": "iteration_interval_us", "fp_and_bp": "fp_and_bp_us",
                "fp": "fp_us", "tail": "tail_us"}


def label(device: DeviceFiles) -> str:
    return legacy_step_trace.STEP_TRACE_FILE.format(device.device_id)


def _cluster_file(device: DeviceFiles) -> Any:
    """The rank's cluster analyse file, when the job wrote one."""
    suffix = f"_{device.device_id}.csv"
    names = ([e.name for e in device.listings(device.base) if e.is_file] if device.listings is not None
             else [e.name for e in storage.list_dir(device.base, details=False)[0] if e.is_file])
    for name in sorted(names):
        if name.startswith(CLUSTER_PREFIXES) and name.endswith(suffix):
            return device.file(name.replace("{", "{{").replace("}", "}}"))
    return None


def step_file(device: DeviceFiles) -> Location | None:
    return device.file(legacy_step_trace.STEP_TRACE_FILE)


def steps(device: DeviceFiles, cache: ParsedFileCache | None = None
          ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(steps, problems) of an old-layout rank; each step has every key of `FIELDS` (null where not written)."""
    path = step_file(device)
    if path is None:
        raise ProfilerFileNotFoundError(f"<{label(device)}>")
    return cached(cache, "legacy_steps", path, lambda p: _steps(device, p, cache))


def _steps(device: DeviceFiles, path: Any, cache: ParsedFileCache | None
           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    trace = legacy_step_trace.parse(path, cache)
    header = trace.header
    problems: list[dict[str, Any]] = []
    cluster_path = _cluster_file(device)
    cluster_rows: list[tuple[str, ...]] = []
    cluster_header: tuple[str, ...] = ()
    if cluster_path is None:
        problems.append({"file": label(device), "message": "Computing and communication per step are written only "
                         "in the cluster analyse file of a parallel job (none for this rank): their fields are null; "
                         "total, iteration interval, fp+bp and tail are answered."})
    else:
        table = read_csv(cluster_path, cache, keep_short=True)
        cluster_header, cluster_rows = table.header, list(table.rows[:-1])  # the last row is the average
    out: list[dict[str, Any]] = []
    for index, row in enumerate(trace.rows[:-1]):
        step: dict[str, Any] = dict.fromkeys(FIELDS)
        step["step"] = int(row[0]) if row[0].isdigit() else index + 1
        for column, key in TRACE_FIELDS.items():
            if column in header:
                step[key] = round(trace.count(row[header.index(column)], column) * US_PER_COUNT, 3)
        if index < len(cluster_rows):
            cells = dict(zip(cluster_header, cluster_rows[index], strict=False))
            for column, key in CLUSTER_FIELDS.items():
                value = to_float(cells.get(column, ""))
                step[key] = None if value is None else round(value * 1000, 3)
            if step["computing_us"] is not None and step["communication_not_overlapped_us"] is not None:
                step["free_us"] = round(max(0.0, step["total_us"] - step["computing_us"]
                                            - step["communication_not_overlapped_us"]), 3)
        out.append(step)
    if cluster_path is not None and len(cluster_rows) != len(out):
        problems.append({"file": cluster_path.name, "message": f"{len(cluster_rows)} steps where the step trace has "
                         f"{len(out)}: the steps past the shorter file have null phases."})
    return out, problems
