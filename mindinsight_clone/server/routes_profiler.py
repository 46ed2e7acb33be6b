"""Routes for the profiler area under /v1/mindinsight/ (thin: parse the request, call a pure function).

Style A endpoints take `train_id` + `profile`, style B ones `dir` (or `train_id`); see analyzers/profiler/locate.py.
Checks run in MindInsight's order so that the same bad request gets the same error code.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Blueprint, Response, jsonify, request

from mindinsight_clone.analyzers.profiler import (
    cluster_output,
    communication,
    info,
    locate,
    memory,
    memory_record,
    minddata,
    op_stats,
    overview,
    search,
    step_trace_time,
    timeline,
)
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import (
    DeviceFiles,
    ProfilerDir,
    find_profiler_dirs,
    scan_profiler_dir,
)
from mindinsight_clone.analyzers.profiler.table_store import TableStore
from mindinsight_clone.errors import ParamValueError, ProfilerFileNotFoundError, ProfilerParamValueError
from mindinsight_clone.ingest.storage import Location
from mindinsight_clone.ingest.train_id import normalize_train_id, resolve_train_dir
from mindinsight_clone.server.params import arg, json_body, to_int
from mindinsight_clone.server.services import services

bp = Blueprint("profiler", __name__, url_prefix="/v1/mindinsight")
CACHE_KEY = "profiler_file_cache"


def _cache() -> ParsedFileCache:
    """The app's parsed-file cache, with the parse-once table store in the workspace (profiler_cache_mb)."""
    extras = services().extras
    cache: ParsedFileCache | None = extras.get(CACHE_KEY)
    if cache is None:
        settings = services().settings
        store = TableStore.in_workspace(settings.workspace, settings.profiler_cache_mb)
        cache = extras.setdefault(CACHE_KEY, ParsedFileCache(store=store))
    return cache


def _base() -> Location:
    """The summary base dir as a storage Location (a local path or a remote URL such as `s3://bucket/prefix`)."""
    return services().data_manager.base_dir


def _style_a(dot: bool = False) -> ProfilerDir:
    return locate.style_a(_base(), arg("train_id"), arg("profile"), dot=dot, cache=_cache())


def _style_b(name: str = "dir") -> ProfilerDir:
    return locate.style_b(_base(), arg(name), _cache())


def _either() -> ProfilerDir:
    """Our additive endpoints accept both styles: `dir=./job`, or `train_id=./job&profile=profiler`."""
    return _style_b() if arg("dir") is not None else _style_a()


def _device_id(default: str = "0") -> str:
    raw = request.args.get("device_id", default)
    return search.check_device_int(raw or default)


def _device_type(allowed: tuple[str, ...] = ("gpu", "ascend")) -> str:
    device_type = request.args.get("device_type", "ascend")
    if device_type not in allowed:
        raise ParamValueError("Invalid device_type.")
    return device_type


def _float_arg(name: str) -> float | None:
    raw = arg(name)
    if raw is None or raw == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ProfilerParamValueError(f"{name} should be a number.") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ProfilerParamValueError(f"{name} should be a finite number.")
    return value


def _int_arg(name: str, low: int, high: int) -> int | None:
    raw = arg(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ProfilerParamValueError(f"{name} should be an integer.") from None
    if not low <= value <= high:
        raise ProfilerParamValueError(f"{name} should be in [{low}, {high}].")
    return value


def _ordered_json(obj: Any) -> Response:
    """MindInsight answers a few endpoints with `json.dumps` (insertion order, not sorted keys)."""
    return Response(orjson.dumps(obj), mimetype="application/json")


# --- style A -------------------------------------------------------------------------------


@bp.route("/profile/devices", methods=["GET"])
def devices() -> Response:
    return jsonify(info.devices(_style_a()))


@bp.route("/profile/profile_info", methods=["GET"])
def profile_info() -> Response:
    return jsonify(info.profile_info(_style_a()))


@bp.route("/profile/summary/propose", methods=["GET"])
def summary_propose() -> Response:
    if not arg("profile") or not arg("train_id"):
        raise ParamValueError("No profiler_dir or train_id.")
    search.check_device_int(request.args.get("device_id", "0"))
    return _ordered_json(info.propose(_style_a()))


@bp.route("/profile/ops/search", methods=["POST"])
def ops_search() -> Response:
    if not arg("profile") or not arg("train_id"):
        raise ParamValueError("No profiler_dir or train_id.")
    op_type, device_id, condition = search.validate_ops_condition(json_body(default={}))
    pdir = _style_a()
    return jsonify(search.search_ops(pdir, op_type, device_id, condition, _cache()))


@bp.route("/profile/minddata-pipeline/op-queue", methods=["POST"])
def minddata_op_queue() -> Response:
    pdir = _style_a(dot=True)
    device_id, condition = minddata.validate_op_queue_condition(json_body(default={}))
    search.check_device_int(device_id)
    return jsonify(minddata.op_queue(pdir.device(device_id), condition))


@bp.route("/profile/minddata-pipeline/queue", methods=["GET"])
def minddata_queue() -> Response:
    pdir = _style_a(dot=True)
    device_id = _device_id()
    op_id = request.args.get("op_id", type=int)
    if op_id is None:
        raise ParamValueError("Invalid operator id or operator id does not exist.")
    return jsonify(minddata.op_and_parent(pdir.device(device_id), op_id))


@bp.route("/profile/queue_info", methods=["GET"])
@bp.route("/profile/minddata_op", methods=["GET"])
@bp.route("/profile/process_summary", methods=["GET"])
def minddata_queues() -> Response:
    _style_a()
    _device_id()
    return jsonify({})


@bp.route("/profile/minddata-cpu-utilization-summary", methods=["POST"])
def minddata_cpu_utilization() -> Response:
    pdir = _style_a(dot=True)
    body = json_body(default={})
    device_id = str(body.get("device_id", "0")) if isinstance(body, dict) else "0"
    search.check_device_int(device_id)
    return jsonify(minddata.cpu_utilization(pdir.device(device_id)))


# --- style B -------------------------------------------------------------------------------


@bp.route("/profile/timeline-summary", methods=["GET"])
def timeline_summary() -> Response:
    pdir = _style_b()
    device_id = _device_id()
    device_type = _device_type()
    return jsonify(timeline.timeline_summary(pdir.device(device_id), pdir.layout, device_type, _cache()))


@bp.route("/profile/timeline", methods=["GET"])
def timeline_detail() -> Response:
    pdir = _style_b()
    device_id = _device_id()
    device_type = _device_type()
    window = timeline.Window(start_us=_float_arg("start_us"), end_us=_float_arg("end_us"),
                             min_dur_us=_float_arg("min_dur_us"),
                             max_events=_int_arg("max_events", 1, timeline.MAX_EVENTS_LIMIT))
    return jsonify(timeline.timeline(pdir.device(device_id), pdir.layout, device_type, window, _cache()))


@bp.route("/profile/training-trace/graph", methods=["GET"])
def training_trace_graph() -> Response:
    pdir = _style_b()
    to_int("graph_type", request.args.get("type", "0"))
    return jsonify(info.training_trace_graph(pdir, _device_id()))


@bp.route("/profile/training-trace/target-time-info", methods=["GET"])
def target_time_info() -> Response:
    pdir = _style_b()
    proc = info.check_proc(arg("type"))
    return jsonify(info.target_time_info(pdir, _device_id(), proc))


@bp.route("/profile/msprof_timeline_option", methods=["GET"])
def msprof_timeline_option() -> Response:
    return _ordered_json(info.msprof_timeline_option(_style_b()))


@bp.route("/profile/msprof_timeline", methods=["GET"])
def msprof_timeline() -> Response:
    _style_b()
    info.parse_int_list(arg("rank_list"), "rank_list")
    info.parse_int_list(arg("model_list"), "model_list")
    return jsonify([])


@bp.route("/profile/memory-summary", methods=["GET"])
def memory_summary() -> Response:
    pdir = _style_b()
    _device_id()
    memory.check_ascend_only(request.args.get("device_type", "ascend"))
    return jsonify(memory.memory_summary(pdir))


@bp.route("/profile/memory-graphics", methods=["GET"])
def memory_graphics() -> Response:
    _style_b()
    _device_id()
    memory.check_ascend_only(request.args.get("device_type", "ascend"))
    return jsonify(memory.memory_graphics())


@bp.route("/profile/memory-breakdowns", methods=["GET"])
def memory_breakdowns() -> Response:
    _style_b()
    _device_id()
    to_int("node_id", request.args.get("node_id", "0"))
    memory.check_ascend_only(request.args.get("device_type", "ascend"))
    return jsonify(memory.memory_graphics())


@bp.route("/profile/dynamic-shape-detail", methods=["POST"])
def dynamic_shape_detail() -> Response:
    body = json_body(default={})
    body = body if isinstance(body, dict) else {}
    pdir = locate.style_b(_base(), body.get("dir") if isinstance(body.get("dir"), str) else None, _cache())
    device_id = search.check_device_int(str(body.get("device_id", "0")))
    device_type = body.get("device_type", "ascend")
    if device_type not in ("ascend", "gpu"):
        raise ParamValueError("Invalid device_type.")
    if device_type == "ascend":
        return jsonify({})
    op_type, device_id, condition = search.validate_ops_condition(body)
    device = pdir.device(device_id)
    graph_info = {"is_heterogeneous": True} if device and device.file("cpu_op_type_info_{}.csv") else {}
    return jsonify({"dynamic_info": search.search_ops(pdir, op_type, device_id, condition, _cache()),
                    "graph_info": graph_info})


# --- style B by train_id (cluster, flops) ----------------------------------------------------


@bp.route("/profile/summary/cluster-propose", methods=["GET"])
def cluster_propose() -> Response:
    _style_b("train_id")
    return _ordered_json({})


@bp.route("/profile/flops-summary", methods=["GET"])
@bp.route("/profile/flops-scope", methods=["GET"])
def flops() -> Response:
    _style_b("train_id")
    _device_id()
    return jsonify({})


@bp.route("/profile/cluster-step-trace-summary", methods=["POST"])
def cluster_step_trace() -> Response:
    pdir = _style_b("train_id")
    body = json_body(default={})
    if isinstance(body, dict):
        search.check_device_int(str(body.get("device_id", "0")))
    return jsonify(info.cluster_step_trace(pdir))


@bp.route("/profile/cluster-peak-memory", methods=["GET"])
def cluster_peak_memory() -> Response:
    return jsonify(info.cluster_peak_memory(_style_b("train_id")))


@bp.route("/profile/cluster-flops", methods=["GET"])
def cluster_flops() -> Response:
    _style_b("train_id")
    return jsonify([])


@bp.route("/profile/search-cluster-communication", methods=["POST"])
@bp.route("/profile/search-cluster-link", methods=["POST"])
def cluster_communication() -> Response:
    _style_b("train_id")
    json_body(default={})
    return jsonify({})


@bp.route("/profile/communication-data", methods=["GET"])
def communication_data() -> Response:
    _style_b("train_id")
    return jsonify([])


# --- additions (not in MindInsight) ------------------------------------------------------------


@bp.route("/profile/dirs", methods=["GET"])
def profiler_dirs() -> Response:
    """Every `profiler*` dir of a job that holds data, with its layout and devices."""
    train_id = arg("train_id")
    job_dir = resolve_train_dir(_base(), train_id)
    job = normalize_train_id(train_id or "./")
    answer = []
    for path in find_profiler_dirs(job_dir):
        pdir = scan_profiler_dir(path, f"{job.rstrip('/')}/{path.name}", _cache())
        entry: dict[str, Any] = {"profile": path.name, "layout": pdir.layout, "device_list": pdir.device_ids,
                                 "device_type": pdir.device_type, "profiler_mode": pdir.profiler_mode}
        if pdir.problems:  # e.g. a listing cut at its limit: never dropped silently
            entry["problems"] = list(pdir.problems)
        answer.append(entry)
    return jsonify({"train_id": job, "profilers": answer})


@bp.route("/profile/overview", methods=["GET"])
def profile_overview() -> Response:
    pdir = _either()
    return jsonify(overview.overview(pdir, _device_id(), _cache()))


@bp.route("/profile/memory-usage", methods=["GET"])
def memory_usage() -> Response:
    pdir = _either()
    device_id = _device_id()
    max_points = _int_arg("max_points", 1, 1_000_000) or memory.DEFAULT_POINTS
    return jsonify(memory.memory_usage(pdir.device(device_id), max_points, _cache()))


@bp.route("/profile/op-types", methods=["GET"])
def op_types() -> Response:
    """The `op_type` values ops/search accepts, with their columns."""
    return jsonify({t: list(op_stats.columns(t)) for t in op_stats.OP_TYPES})


# --- Ascend additions (docs/profiler.md "Ascend"): one rank, or all ranks -------------------------


def _ascend_device(pdir: ProfilerDir) -> DeviceFiles:
    device_id = _device_id()
    device = pdir.device(device_id)
    if device is None or device.output is None:
        raise ProfilerFileNotFoundError(f"<ASCEND_PROFILER_OUTPUT of rank {device_id}> (ranks: "
                                        f"{', '.join(pdir.device_ids) or 'none'})")
    return device


@bp.route("/profile/step-trace-time", methods=["GET"])
def ascend_step_trace_time() -> Response:
    return jsonify(step_trace_time.step_trace_time(_ascend_device(_either()), _cache()))


@bp.route("/profile/communication", methods=["GET"])
def ascend_communication() -> Response:
    return jsonify(communication.communication(_ascend_device(_either()), _cache()))


@bp.route("/profile/memory-record", methods=["GET"])
def ascend_memory_record() -> Response:
    pdir = _either()
    max_points = _int_arg("max_points", 2, 1_000_000) or memory_record.DEFAULT_POINTS
    top = _int_arg("top", 1, 10_000) or memory_record.DEFAULT_TOP
    return jsonify(memory_record.memory_record(_ascend_device(pdir), max_points, top, _cache()))


@bp.route("/profile/cluster-step-trace", methods=["GET"])
def ascend_cluster_step_trace() -> Response:
    return jsonify(step_trace_time.cluster_step_trace(_either(), _cache()))


@bp.route("/profile/cluster-analysis", methods=["GET"])
def ascend_cluster_analysis() -> Response:
    return jsonify(cluster_output.cluster_analysis(_either()))
