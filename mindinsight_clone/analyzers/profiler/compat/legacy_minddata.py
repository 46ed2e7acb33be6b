"""Data-pipeline queues of the old layout (MindInsight's `MinddataAnalyser` and `MinddataCpuUtilizationAnalyser`).

Files (all optional), per device id:

* `minddata_aicpu_<id>.txt` (Ascend) or `minddata_getnext_profiling_<id>.txt` (GPU): `GetNext... start end size`
  per step (µs on Ascend, ns on GPU) -> the get_next queue and time;
* `device_queue_profiling_<id>.txt` (or `dataset_iterator_profiling_<id>.txt`): `0 <sub> <step> <ms>` time lines
  (sub 0 get, 1 push, 2 total) and `1 <capacity> <step> <size> <sample time>` queue lines;
* `minddata_cpu_utilization_<id>.json` + `pipeline_profiling_<id>.json`: CPU utilisation per sample.

Views: `queue_info`, `minddata_op`, `process_summary`, `minddata-cpu-utilization-summary`; numbers and shapes are
MindInsight's. A line that does not parse is skipped (MindInsight: 500) and counted in the log.
"""

from __future__ import annotations

import logging
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import dir_file, read_json, read_lines
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import ProfilerFileNotFoundError, ProfilerRawFileError
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)
EMPTY_WARNING_THRESHOLD = 0.3  # device queue empty in more than 30 % of the steps: data processing is slow


def _sorted_values(items: list[tuple[int, Any]]) -> list[Any]:
    return [value for _, value in sorted(items, key=lambda item: item[0])]


def _get_next_file(pdir: ProfilerDir, device_id: str) -> tuple[Location | None, bool]:
    path = dir_file(pdir, f"minddata_aicpu_{device_id}.txt")
    if path is not None:
        return path, False
    return dir_file(pdir, f"minddata_getnext_profiling_{device_id}.txt"), True


def get_next_info(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(queue info, time info) of the get_next operator; both `{}` without its file."""
    path, gpu = _get_next_file(pdir, device_id)
    if path is None:
        return {}, {}
    sizes: list[int] = []
    times: list[float] = []
    empty = skipped = 0
    cells: list[str] = []
    for line in read_lines(path, cache):
        cells = line.split()
        if not cells or cells[0][0:7] != "GetNext":
            continue
        try:
            if len(cells) > 3:
                sizes.append(int(cells[3]))
                empty += cells[3] == "0"
            if len(cells) > 2:
                cost = (float(cells[2]) - float(cells[1])) / 1e3
                times.append(cost / 1e3 if gpu else cost)
        except ValueError:
            skipped += 1
    if skipped:
        log.warning("%s: %d line(s) skipped (not numbers)", path.name, skipped)
    queue = {"size": len(sizes), "info": {"queue": sizes}, "summary": {"queue_summary": {"empty_queue": empty}}}
    time: dict[str, Any] = {}
    if len(cells) > 2:  # MindInsight looks at the file's last line here
        time = {"size": len(times), "info": {"get_next": times}}
        if times:
            time["summary"] = {"time_summary": {"avg_cost": str(sum(times) / len(times))}}
    return queue, time


def device_queue_info(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(queue info, time info) of the device queue; both `{}` without its file."""
    path = (dir_file(pdir, f"device_queue_profiling_{device_id}.txt")
            or dir_file(pdir, f"dataset_iterator_profiling_{device_id}.txt"))
    if path is None:
        return {}, {}
    costs: dict[str, list[tuple[int, float]]] = {"0": [], "1": [], "2": []}
    sizes: list[tuple[int, int]] = []
    empty = full = skipped = 0
    for line in read_lines(path, cache):
        cells = line.split()
        try:
            if cells and cells[0] == "0" and cells[1] in costs:
                costs[cells[1]].append((int(cells[2]), float(cells[3])))
            elif cells and cells[0] == "1":
                sizes.append((int(cells[2]), int(cells[3])))
                full += cells[1] == cells[3]
                empty += cells[3] == "0"
        except (ValueError, IndexError):
            skipped += 1
    if skipped:
        log.warning("%s: %d line(s) skipped (not numbers)", path.name, skipped)
    total = _sorted_values(costs["2"])
    time: dict[str, Any] = {"size": len(total), "info": {"total_cost": total, "push_cost": _sorted_values(costs["1"]),
                                                          "get_cost": _sorted_values(costs["0"])}}
    if total:
        time["summary"] = {"time_summary": {"avg_cost": sum(v for _, v in costs["2"]) / len(total),
                                            "get_cost": sum(v for _, v in costs["0"]) / len(total),
                                            "push_cost": sum(v for _, v in costs["1"]) / len(total)}}
    queue = {"size": len(sizes), "info": {"queue": _sorted_values(sizes)},
             "summary": {"queue_summary": {"empty_queue": empty, "full_queue": full}}}
    return queue, time


def queue_info(pdir: ProfilerDir, device_id: str, kind: str, cache: ParsedFileCache | None) -> dict[str, Any]:
    """`profile/queue_info?type=get_next|device_queue` (any other type: `{}`)."""
    if kind == "get_next":
        return get_next_info(pdir, device_id, cache)[0]
    if kind == "device_queue":
        return device_queue_info(pdir, device_id, cache)[0]
    return {}


def minddata_op(pdir: ProfilerDir, device_id: str, kind: str, cache: ParsedFileCache | None) -> dict[str, Any]:
    """`profile/minddata_op?type=get_next|device_queue`: the time info."""
    if kind == "get_next":
        return get_next_info(pdir, device_id, cache)[1]
    if kind == "device_queue":
        return device_queue_info(pdir, device_id, cache)[1]
    return {"size": 0, "info": [], "summary": {"time_summary": {}}, "advise": {}}


def queue_summary(get_next: dict[str, Any], device_queue: dict[str, Any]) -> dict[str, Any]:
    """MindInsight's `analyse_queue_summary`: which stage of the data path to look at."""
    if not device_queue:
        return {}
    dq = device_queue["summary"]["queue_summary"]
    empty, full, size = dq.get("empty_queue", 0), dq.get("full_queue", 0), device_queue.get("size", 0)
    result: dict[str, Any]
    if get_next:
        result = {"data_process": {"status": "normal"}, "device_queue_warning": {"status": "normal"},
                  "data_transmission": {"status": "normal"}, "get_next": {"status": "normal"}}
        get_next_empty = get_next["summary"]["queue_summary"].get("empty_queue", 0)
        result["get_next_queue_info"] = {"summary": {"empty_batch_count": get_next_empty,
                                                     "total_batch": get_next.get("size")}}
    else:
        result = {"data_process": {"status": "normal"}, "device_queue_warning": {"status": "normal"},
                  "fpbp": {"status": "normal"}}
        get_next_empty = 0
    result["device_queue_info"] = {"summary": {"empty_batch_count": empty, "full_batch_count": full,
                                               "total_batch": size}}
    if empty > size * EMPTY_WARNING_THRESHOLD:
        result["data_process"]["status"] = "warning"
    elif get_next and get_next_empty > 0:
        result["data_transmission"]["status"] = "warning"
    else:
        result["device_queue_warning"]["status"] = "warning"
    return result


def process_summary(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> dict[str, Any]:
    return queue_summary(get_next_info(pdir, device_id, cache)[0], device_queue_info(pdir, device_id, cache)[0])


# --- CPU utilisation -------------------------------------------------------------------------


def _queue_step_times(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> list[tuple[str, str]]:
    """(step, sample time) of every queue line of the device queue file, steps renumbered to start at 1."""
    path = (dir_file(pdir, f"device_queue_profiling_{device_id}.txt")
            or dir_file(pdir, f"dataset_iterator_profiling_{device_id}.txt"))
    if path is None:
        return []
    out: list[tuple[str, str]] = []
    shift: int | None = None
    for line in read_lines(path, cache):
        cells = line.split()
        try:
            if shift is None:
                shift = int(cells[2]) - 1
            if cells and cells[0] == "1":
                out.append((str(int(cells[2]) - shift), cells[4]))
        except (ValueError, IndexError):
            continue
    return out


def _steps_of_samples(stamps: list[Any], queue: list[tuple[str, str]]) -> list[Any]:
    """The step each CPU sample (but the first) falls in, by the queue's sample times (MindInsight's walk)."""
    steps: list[Any] = []
    left = right = 0
    for item in stamps[1:]:
        if float(item) < float(queue[0][1]):
            steps.append(0)
            continue
        while right < len(queue):
            if float(item) <= float(queue[right][1]):
                steps.append(queue[left][0] if float(item) < float(queue[right][1]) else queue[right][0])
                break
            left = right
            right += 1
        if right == len(queue):
            steps.append(queue[right - 1][0])
    return steps


def _step_count(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> int:
    """Without queue data: the steps of the dynamic shape file or of the step trace file (rows - 2)."""
    shape = dir_file(pdir, f"dynamic_shape_info_{device_id}.json")
    if shape is not None:
        per_type = read_json(shape, cache).get("op_type") or {}
        for values in per_type.values():
            return len(values)
    trace = dir_file(pdir, f"step_trace_raw_{device_id}_detail_time.csv")
    if trace is None:
        return 0
    return max(len(read_lines(trace, cache)) - 2, 0)


def _averaged(series: dict[str, list[Any]]) -> dict[str, Any]:
    return {key: {"metrics": values, "avg_value": round(sum(values) / len(values)) if values else 0}
            for key, values in series.items()}


def _window(values: list[Any], left: int, right: int) -> list[Any]:
    return values[left:right + 1]


def cpu_utilization(pdir: ProfilerDir, device_id: str, condition: dict[str, Any],
                    cache: ParsedFileCache | None) -> dict[str, Any]:
    """`profile/minddata-cpu-utilization-summary`: per-sample utilisation between `start_step` and `end_step`
    of `filter_condition` (whole run by default), each series with its rounded mean."""
    path = dir_file(pdir, f"minddata_cpu_utilization_{device_id}.json")
    if path is None:
        raise ProfilerFileNotFoundError("<Did not find the cpu utilization file.>")
    data = read_json(path, cache)
    if not isinstance(data, dict):
        raise ProfilerRawFileError(f"<{path.name}> is not a JSON object.")
    queue = _queue_step_times(pdir, device_id, cache)
    steps = _steps_of_samples(list(data.get("time_stamp") or []), queue) if queue else []
    total_steps = len(queue) if queue else _step_count(pdir, device_id, cache)
    filters = condition.get("filter_condition") or {}
    start = filters.get("start_step", 1) if isinstance(filters, dict) else 1
    end = filters.get("end_step", total_steps) if isinstance(filters, dict) else total_steps
    device = {k: list(v) for k, v in (data.get("device_info") or {}).items()}
    process = {k: list(v) for k, v in (data.get("process_info") or {}).items()}
    ops = [{"op_id": op.get("op_id"), "metrics": {k: list(v) for k, v in (op.get("metrics") or {}).items()}}
           for op in data.get("op_info") or []]
    if steps:
        left, right = 0, len(steps) - 1
        while left <= right and int(steps[left]) < start:
            left += 1
        while left <= right and int(steps[right]) > end:
            right -= 1
        steps = steps[left:right + 1]
        device = {k: _window(v, left, right) for k, v in device.items()}
        process = {k: _window(v, left, right) for k, v in process.items()}
        for op in ops:
            op["metrics"] = {k: _window(v, left, right) for k, v in op["metrics"].items()}
    return {"sampling_interval": data.get("sampling_interval"), "step_info": steps, "step_total_num": total_steps,
            "cpu_processor_num": data.get("cpu_processor_num"), "device_info": _averaged(device),
            "process_info": _averaged(process), "op_info": _op_info(pdir, device_id, ops, cache)}


def _op_info(pdir: ProfilerDir, device_id: str, ops: list[dict[str, Any]],
             cache: ParsedFileCache | None) -> dict[str, Any]:
    path = dir_file(pdir, f"pipeline_profiling_{device_id}.json")
    if path is None:
        raise ProfilerFileNotFoundError(f"<pipeline_profiling_{device_id}.json>")
    pipeline = read_json(path, cache)
    workers = {op.get("op_id"): op.get("num_workers") for op in (pipeline.get("op_info") or [])}
    total = {"user_utilization": 0, "sys_utilization": 0}
    op_list = []
    for op in ops:
        if str(op["op_id"]) == "-1":  # not a pipeline operator
            continue
        metrics = _averaged(op["metrics"])
        for key, value in metrics.items():
            total[key] = total.get(key, 0) + value["avg_value"]
        op_list.append({"metrics": metrics, "op_id": op["op_id"], "num_workers": workers.get(op["op_id"])})
    return {"op_list": op_list, "total_op_avg_value": total}


def idle_average(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None) -> float | None:
    """The mean idle utilisation over the run (100 when not recorded), for the proposals; None without a file."""
    if dir_file(pdir, f"minddata_cpu_utilization_{device_id}.json") is None:
        return None
    try:
        answer = cpu_utilization(pdir, device_id, {}, cache)
    except (ProfilerFileNotFoundError, ProfilerRawFileError):
        return None
    idle = answer["device_info"].get("idle_utilization")
    return idle["avg_value"] if idle and idle["metrics"] else 100
