"""Routes for the profiler area under /v1/mindinsight/ (thin: parse the request, call a pure function).

Style A endpoints take `train_id` + `profile`, style B ones `dir` (or `train_id`); see analyzers/profiler/locate.py.
Checks run in MindInsight's order so that the same bad request gets the same error code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from flask import Blueprint, Response, jsonify, request

from mindinsight_clone.errors import ParamValueError, ProfilerFileNotFoundError, ProfilerParamValueError
from mindinsight_clone.ingest.bases import Bases
from mindinsight_clone.ingest.train_id import normalize_train_id, resolve_train_dir
from mindinsight_clone.server.deferred import deferred
from mindinsight_clone.server.error_handlers import error_response, log_domain_error
from mindinsight_clone.server.params import arg, json_body, to_int
from mindinsight_clone.server.services import services

if TYPE_CHECKING:
    from mindinsight_clone.analyzers.profiler import column_defs, layout, locate, rank_tables
    from mindinsight_clone.analyzers.profiler.adapters import cluster_output
    from mindinsight_clone.analyzers.profiler.adapters.ascend_text import ascend_tables
    from mindinsight_clone.analyzers.profiler.compat import profile_views
    from mindinsight_clone.analyzers.profiler.engine import cache as file_cache
    from mindinsight_clone.analyzers.profiler.engine import db_spool, table_store
    from mindinsight_clone.analyzers.profiler.layout import DeviceFiles, ProfilerDir
    from mindinsight_clone.analyzers.profiler.views import (
        advice,
        cluster_matrix,
        cluster_steps,
        communication,
        compare,
        info,
        memory,
        memory_record,
        minddata,
        npu_module_mem,
        op_stats,
        operator_tables,
        overview,
        search,
        step_trace_time,
        timeline,
    )
else:  # imported by the first profiler request (server/deferred.py): a worker starts serving without them
    (advice, ascend_tables, cluster_matrix, cluster_output, cluster_steps, column_defs, communication, compare, info,
     locate, memory, memory_record, minddata, npu_module_mem, op_stats, operator_tables, overview, profile_views,
     rank_tables, search, step_trace_time, timeline, file_cache, db_spool, layout, table_store) = deferred(
        "mindinsight_clone.analyzers.profiler",
        "views.advice", "adapters.ascend_text.ascend_tables", "views.cluster_matrix", "adapters.cluster_output",
        "views.cluster_steps", "column_defs", "views.communication", "views.compare", "views.info", "locate",
        "views.memory", "views.memory_record", "views.minddata", "views.npu_module_mem", "views.op_stats",
        "views.operator_tables", "views.overview", "compat.profile_views", "rank_tables", "views.search",
        "views.step_trace_time", "views.timeline", "engine.cache", "engine.db_spool", "layout", "engine.table_store",
    )

bp = Blueprint("profiler", __name__, url_prefix="/v1/mindinsight")
CACHE_KEY = "profiler_file_cache"


@bp.errorhandler(ProfilerFileNotFoundError)
def _absent(err: ProfilerFileNotFoundError) -> tuple[Response, int]:
    """A view's file is absent (50546084). With `missing_ok=true` (our addition; a client that expects absences,
    e.g. communication.json at profiler Level0) the answer is 200 `{"missing": {"error_code", "error_msg"}}`, so an
    expected absence is not an HTTP error; without it, MindInsight's 400 as ever."""
    if (request.args.get("missing_ok") or "").lower() in ("1", "true"):
        log_domain_error(err, absent=True)
        body, _status = error_response(err)
        return jsonify({"missing": body.get_json()}), 200
    log_domain_error(err)
    return error_response(err)


def _cache() -> file_cache.ParsedFileCache:
    """The app's parsed-file cache, with the parse-once table store in the workspace (profiler_cache_mb)."""
    extras = services().extras
    cache: file_cache.ParsedFileCache | None = extras.get(CACHE_KEY)
    if cache is None:
        settings = services().settings
        store = table_store.TableStore.in_workspace(settings.workspace, settings.profiler_cache_mb)
        cache = file_cache.ParsedFileCache(store=store)
        cache.spool = db_spool.DbSpool(Path(settings.workspace) / "cache" / "profiler-db",
                                       settings.profiler_db_spool_mb << 20)
        cache = extras.setdefault(CACHE_KEY, cache)
    return cache


def _base() -> Bases:
    """The summary base dirs (each a local path or a remote URL such as `s3://bucket/prefix`): train ids are
    resolved through them (`ingest.train_id.resolve_train_dir`), named bases included."""
    return services().data_manager.bases


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


def _pids_arg() -> tuple[str, ...] | None:
    """`pids=1,2`: the processes whose timed events a timeline answer keeps (at most 1,000 ids)."""
    raw = arg("pids")
    if raw is None:
        return None
    pids = tuple(p.strip() for p in raw.split(",") if p.strip())
    if len(pids) > 1000 or any(len(p) > 64 for p in pids):
        raise ProfilerParamValueError("pids should be at most 1000 comma-separated process ids.")
    return pids


def _ordered_json(obj: Any) -> Response:
    """MindInsight answers a few endpoints with `json.dumps` (insertion order, not sorted keys)."""
    return Response(orjson.dumps(obj), mimetype="application/json")


# --- style A -------------------------------------------------------------------------------


def _views(pdir: ProfilerDir) -> profile_views.CurrentLayout:
    """The answers of the profiler dir's layout (profile_views.py picks them; no route looks at the layout)."""
    return profile_views.views_for(pdir, _cache())


@bp.route("/profile/devices", methods=["GET"])
def devices() -> Response:
    return jsonify(_views(_style_a()).devices())


@bp.route("/profile/profile_info", methods=["GET"])
def profile_info() -> Response:
    return jsonify(info.profile_info(_style_a()))


@bp.route("/profile/summary/propose", methods=["GET"])
def summary_propose() -> Response:
    if not arg("profile") or not arg("train_id"):
        raise ParamValueError("No profiler_dir or train_id.")
    device_id = search.check_device_int(request.args.get("device_id", "0"))
    return _ordered_json(_views(_style_a()).propose(device_id))


@bp.route("/profile/ops/search", methods=["POST"])
def ops_search() -> Response:
    if not arg("profile") or not arg("train_id"):
        raise ParamValueError("No profiler_dir or train_id.")
    op_type, device_id, condition = search.validate_ops_condition(json_body(default={}))
    return jsonify(_views(_style_a()).ops_search(op_type, device_id, condition))


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
    pdir = _style_a()
    device_id = search.check_device_int(request.args.get("device_id", ""))
    view = request.path.rsplit("/", 1)[-1]
    return jsonify(_views(pdir).minddata_queues(view, device_id, request.args.get("type", "")))


@bp.route("/profile/minddata-cpu-utilization-summary", methods=["POST"])
def minddata_cpu_utilization() -> Response:
    pdir = _style_a(dot=True)
    body = json_body(default={})
    device_id = str(body.get("device_id", "0")) if isinstance(body, dict) else "0"
    search.check_device_int(device_id)
    return jsonify(_views(pdir).cpu_utilization(device_id, body if isinstance(body, dict) else {}))


# --- style B -------------------------------------------------------------------------------


@bp.route("/profile/timeline-summary", methods=["GET"])
def timeline_summary() -> Response:
    pdir = _style_b()
    device_id = _device_id()
    return jsonify(_views(pdir).timeline_summary(device_id, _device_type()))


@bp.route("/profile/timeline", methods=["GET"])
def timeline_detail() -> Response:
    pdir = _style_b()
    device_id = _device_id()
    device_type = _device_type()
    window = timeline.Window(start_us=_float_arg("start_us"), end_us=_float_arg("end_us"),
                             min_dur_us=_float_arg("min_dur_us"),
                             max_events=_int_arg("max_events", 1, timeline.MAX_EVENTS_LIMIT),
                             pids=_pids_arg())
    scope_name_num = to_int("scope_name_num", request.args.get("scope_name_num", "0")) or 0
    return jsonify(_views(pdir).timeline(device_id, device_type, scope_name_num, window))


@bp.route("/profile/training-trace/graph", methods=["GET"])
def training_trace_graph() -> Response:
    pdir = _style_b()
    step = to_int("graph_type", request.args.get("type", "0")) or 0
    return jsonify(_views(pdir).training_trace_graph(_device_id(), step))


@bp.route("/profile/training-trace/target-time-info", methods=["GET"])
def target_time_info() -> Response:
    pdir = _style_b()
    proc = info.check_proc(arg("type"))
    return jsonify(_views(pdir).target_time_info(_device_id(), proc))


@bp.route("/profile/msprof_timeline_option", methods=["GET"])
def msprof_timeline_option() -> Response:
    return _ordered_json(_views(_style_b()).msprof_timeline_option())


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
        return jsonify(_views(pdir).dynamic_shape(device_id))
    op_type, device_id, condition = search.validate_ops_condition(body)
    device = pdir.device(device_id)
    graph_info = {"is_heterogeneous": True} if device and device.file("cpu_op_type_info_{}.csv") else {}
    return jsonify({"dynamic_info": _views(pdir).ops_search(op_type, device_id, condition),
                    "graph_info": graph_info})


# --- style B by train_id (cluster, flops) ----------------------------------------------------


@bp.route("/profile/summary/cluster-propose", methods=["GET"])
def cluster_propose() -> Response:
    return _ordered_json(_views(_style_b("train_id")).cluster_propose())


@bp.route("/profile/flops-summary", methods=["GET"])
@bp.route("/profile/flops-scope", methods=["GET"])
def flops() -> Response:
    pdir = _style_b("train_id")
    return jsonify(_views(pdir).flops(_device_id(), scope=request.path.endswith("flops-scope")))


@bp.route("/profile/cluster-step-trace-summary", methods=["POST"])
def cluster_step_trace() -> Response:
    pdir = _style_b("train_id")
    body = json_body(default={})
    condition = body if isinstance(body, dict) else {}
    device_id = search.check_device_int(str(condition.get("device_id", "0")))
    return jsonify(_views(pdir).cluster_step_trace(device_id, condition))


@bp.route("/profile/cluster-peak-memory", methods=["GET"])
def cluster_peak_memory() -> Response:
    return jsonify(_views(_style_b("train_id")).cluster_peak_memory())


@bp.route("/profile/cluster-flops", methods=["GET"])
def cluster_flops() -> Response:
    return jsonify(_views(_style_b("train_id")).cluster_flops())


@bp.route("/profile/search-cluster-communication", methods=["POST"])
@bp.route("/profile/search-cluster-link", methods=["POST"])
def cluster_communication() -> Response:
    pdir = _style_b("train_id")
    body = json_body(default={})
    condition = body if isinstance(body, dict) else {}
    search.check_device_int(str(condition.get("device_id", "0")))
    return jsonify(_views(pdir).cluster_communication(condition, links=request.path.endswith("search-cluster-link")))


@bp.route("/profile/communication-data", methods=["GET"])
def communication_data() -> Response:
    return jsonify(_views(_style_b("train_id")).communication_data())


# --- additions (not in MindInsight) ------------------------------------------------------------


@bp.route("/profile/dirs", methods=["GET"])
def profiler_dirs() -> Response:
    """Every `profiler*` dir of a job that holds data, with its layout and devices."""
    train_id = arg("train_id")
    job_dir = resolve_train_dir(_base(), train_id)
    job = normalize_train_id(train_id or "./")
    answer = []
    for path in layout.find_profiler_dirs(job_dir):
        pdir = layout.scan_profiler_dir(path, f"{job.rstrip('/')}/{path.name}", _cache())
        entry: dict[str, Any] = {"profile": path.name, "layout": pdir.layout, "device_list": pdir.device_ids,
                                 "device_type": pdir.device_type, "profiler_mode": pdir.profiler_mode,
                                 "framework": pdir.framework}
        entry["views"] = profile_views.views_for(pdir, _cache()).views()
        if pdir.problems:  # e.g. a listing cut at its limit: never dropped silently
            entry["problems"] = list(pdir.problems)
        answer.append(entry)
    return jsonify({"train_id": job, "profilers": answer})


@bp.route("/profile/overview", methods=["GET"])
def profile_overview() -> Response:
    return jsonify(_views(_either()).overview(_device_id()))


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


@bp.route("/profile/columns", methods=["GET"])
def columns() -> Response:
    """The column definitions (unit, timestamp) of every profiler table (column_defs.py), the old layout's apart."""
    return jsonify({"tables": column_defs.all_tables(), "old_layout": column_defs.old_layout_tables()})


# --- Ascend additions (docs/profiler.md "Ascend"): one rank, or all ranks -------------------------


def _rank(pdir: ProfilerDir, device_id: str | None = None) -> DeviceFiles:
    """The rank asked for, in whatever format: a table its format lacks is named by the view that reads it."""
    device_id = _device_id() if device_id is None else device_id
    device = pdir.device(device_id)
    if device is None:
        raise ProfilerFileNotFoundError(f"<ASCEND_PROFILER_OUTPUT of rank {device_id}> (ranks: "
                                        f"{', '.join(pdir.device_ids) or 'none'})")
    return device


@bp.route("/profile/step-trace-time", methods=["GET"])
def ascend_step_trace_time() -> Response:
    return jsonify(step_trace_time.step_trace_time(_rank(_either()), _cache()))


@bp.route("/profile/communication", methods=["GET"])
def ascend_communication() -> Response:
    return jsonify(communication.communication(_rank(_either()), _cache()))


@bp.route("/profile/memory-record", methods=["GET"])
def ascend_memory_record() -> Response:
    pdir = _either()
    max_points = _int_arg("max_points", 2, 1_000_000) or memory_record.DEFAULT_POINTS
    top = _int_arg("top", 1, 10_000) or memory_record.DEFAULT_TOP
    return jsonify(memory_record.memory_record(_rank(pdir), max_points, top, _cache()))


@bp.route("/profile/cluster-step-trace", methods=["GET"])
def ascend_cluster_step_trace() -> Response:
    return jsonify(cluster_steps.cluster_step_trace(_either(), _cache()))


@bp.route("/profile/cluster-analysis", methods=["GET"])
def ascend_cluster_analysis() -> Response:
    return jsonify(cluster_output.cluster_analysis(_either(), _cache()))


# --- compare and advise (docs/profiler.md "Compare and advise") -----------------------------------------------


@bp.route("/profile/compare", methods=["GET"])
def ascend_compare() -> Response:
    """A rank against a base rank: `base_train_id` / `base_profile` / `base_device_id` default to the compared
    rank's own train_id / profile / device_id (so `base_device_id` alone compares two ranks of one profile)."""
    device = _rank(_style_a())
    base_train = arg("base_train_id") or arg("train_id")
    base_profile = arg("base_profile") or arg("profile")
    base_pdir = locate.style_a(_base(), base_train, base_profile, cache=_cache())
    base_id = search.check_device_int(arg("base_device_id") or device.device_id)
    return jsonify(compare.compare(device, _rank(base_pdir, base_id), _cache()))


@bp.route("/profile/advice", methods=["GET"])
def ascend_advice() -> Response:
    return jsonify(advice.advice(_either(), _cache()))


def _table_route(name: str) -> Response:
    """operator-details / api-statistic: `search` (substring of the name, case-insensitive), `sort_name`,
    `sort_type`, `limit` (1..1000, default 50) and `offset` (a page number, as in ops/search)."""
    spec = ascend_tables.TABLES[name]
    device = _rank(_either())
    sort_name = arg("sort_name") or None
    if sort_name is not None and sort_name not in spec.col_names:
        raise ProfilerParamValueError(f"sort_name should be one of {', '.join(spec.col_names)}.")
    sort_type = arg("sort_type") or "descending"
    if sort_type not in ("ascending", "descending"):
        raise ProfilerParamValueError("sort_type should be ascending or descending.")
    limit = _int_arg("limit", 1, 1000) or 50
    offset = _int_arg("offset", 0, 1_000_000) or 0
    return jsonify(operator_tables.search(device, spec, arg("search") or "", sort_name, sort_type, limit, offset,
                                        _cache()))


@bp.route("/profile/operator-details", methods=["GET"])
def ascend_operator_details() -> Response:
    return _table_route("operator-details")


@bp.route("/profile/api-statistic", methods=["GET"])
def ascend_api_statistic() -> Response:
    return _table_route("api-statistic")


@bp.route("/profile/npu-module-mem", methods=["GET"])
def ascend_npu_module_mem() -> Response:
    pdir = _either()
    max_points = _int_arg("max_points", 2, 1_000_000) or npu_module_mem.DEFAULT_POINTS
    return jsonify(npu_module_mem.npu_module_mem(_rank(pdir), max_points, _cache()))


@bp.route("/profile/cluster-communication-matrix", methods=["GET"])
def ascend_cluster_matrix() -> Response:
    return jsonify(cluster_matrix.cluster_matrix(_either(), arg("group") or None, arg("op") or None, _cache()))
