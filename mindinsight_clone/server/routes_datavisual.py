"""Routes for the datavisual area under /v1/mindinsight/ (thin: parse the request, call a pure function).

MindInsight 2.3.1's paths, parameters, bodies and error codes (API.md §1-5, §7), with the deliberate
differences listed in docs/api.md (central train_id validation, 4xx instead of 500 on bad input, no
absolute paths in messages, ETag/304, gzip, scalar CSV and envelope, stable landscape interval ids).
"""

from __future__ import annotations

import gzip
import hashlib
from typing import Any

from flask import Blueprint, Response, request

from mindinsight_clone.errors import (
    MindInsightError,
    ParamMissError,
    ParamTypeError,
    ParamValueError,
    QueryStringContainsNullByteError,
    TrainJobNotExistError,
)
from mindinsight_clone.ingest.train_id import InvalidTrainId, check_train_id_syntax, normalize_train_id
from mindinsight_clone.plugins import histograms, images, landscape, scalars, tensors, train_jobs
from mindinsight_clone.plugins.landscape import LineageLookup
from mindinsight_clone.plugins.registry import check_plugin_name, limit_tags, plugins_dict
from mindinsight_clone.server import params
from mindinsight_clone.server.services import services
from mindinsight_clone.store.data_manager import RUN_WAIT_S, DataManager
from mindinsight_clone.store.downsample import MIN_POINTS
from mindinsight_clone.store.run_cache import RunCache
from mindinsight_clone.store.run_index import SORT_KEYS

bp = Blueprint("datavisual", __name__, url_prefix="/v1/mindinsight")

P = "/datavisual"
IN_DATA_MANAGER = "Can not find the train job in data manager."
IN_CACHE = "Can not find the given train job in cache."
GZIP_MIN_BYTES = 1024
GZIP_LEVEL = 1  # fast: most of the gain, little CPU (see docs/api.md for the measurement)
LINEAGE_LOOKUP_KEY = "lineage_model_info"  # services().extras key: Callable[[train_id], dict | None]


def _dm() -> DataManager:
    return services().data_manager


def _checked_id(train_id: str | None) -> str:
    """Central validation; a null byte is reported with the id as given (MindInsight's message)."""
    if train_id and "\x00" in train_id:
        raise QueryStringContainsNullByteError(f"Detail: train job id: {train_id} contains null byte.")
    return normalize_train_id(check_train_id_syntax(train_id))


def _known_id(train_id: str | None) -> str:
    """A listed run's id, or 50545005 'in data manager'."""
    try:
        tid = _checked_id(train_id)
    except InvalidTrainId:
        raise TrainJobNotExistError(IN_DATA_MANAGER) from None
    if _dm().run(tid) is None:
        raise TrainJobNotExistError(IN_DATA_MANAGER)
    return tid


def _cached(train_id: str | None) -> tuple[str, RunCache]:
    """A cached run's id and cache, or 50545005 'in cache' (data endpoints). A run that the reload thread is
    about to load is loaded next and waited for (at most data_manager.RUN_WAIT_S)."""
    try:
        tid = _checked_id(train_id)
    except InvalidTrainId:
        raise TrainJobNotExistError(IN_CACHE) from None
    return tid, _dm().run_cache(tid, wait_s=RUN_WAIT_S)


# ------------------------------------------------------------------------------ train jobs
MAX_SEARCH_CHARS = 256
MAX_TAG_LIMIT = 1_000_000


def _tag_limit() -> int | None:
    """Additive `tag_limit` of train-jobs and plugins (docs/api.md): at most this many tags per plugin list."""
    return params.int_arg("tag_limit", default=None, minimum=0, maximum=MAX_TAG_LIMIT)


@bp.get(f"{P}/train-jobs")
def train_jobs_route() -> Any:
    offset = params.int_arg("offset", default=0, minimum=0)
    limit = params.int_arg("limit", default=10, minimum=1, maximum=999)
    train_id = params.arg("train_id")
    if train_id is not None:
        try:
            train_id = _checked_id(train_id)
        except MindInsightError:  # MindInsight swallows lookup errors: an invalid id just matches nothing
            train_id = "\x00invalid"
    assert offset is not None and limit is not None
    search = params.arg("search")
    if search is not None and len(search) > MAX_SEARCH_CHARS:
        raise ParamValueError(f"'search' should be at most {MAX_SEARCH_CHARS} characters.")
    group = params.arg("group")
    if group is not None:
        try:
            group = normalize_train_id(check_train_id_syntax(group))
        except MindInsightError:  # as train_id: a malformed group matches nothing
            group = "\x00invalid"
    collapse = params.bool_arg("collapse_groups")
    sort = params.arg("sort")
    if sort is not None and sort not in SORT_KEYS:
        raise ParamValueError(f"'sort' should be one of {', '.join(SORT_KEYS)}.")
    order = params.arg("order") or "asc"
    if order not in ("asc", "desc"):
        raise ParamValueError("'order' should be asc or desc.")
    return train_jobs.train_jobs(_dm(), offset, limit, train_id, search=search or None, group=group,
                                 collapse_groups=collapse, sort=sort, descending=order == "desc",
                                 data_version=params.bool_arg("data_version"), tag_limit=_tag_limit())


@bp.post(f"{P}/train-job-caches")
def train_job_caches() -> Any:
    try:
        body = params.json_body(default=None)
    except MindInsightError:  # MindInsight parses with get_json(silent=True)
        body = None
    train_ids = body.get("train_ids") if isinstance(body, dict) else None
    if train_ids is None:
        raise ParamMissError("train_ids")
    if not isinstance(train_ids, list):
        raise ParamTypeError("train_ids", "<class 'list'>")
    for tid in train_ids:
        if not isinstance(tid, str):
            raise ParamTypeError("train_id", "<class 'str'>")
    return {"cache_result": _dm().cache_runs(train_ids)}


@bp.get(f"{P}/single-job")
def single_job() -> Any:
    plugin = params.required("plugin_name")
    raw_id = params.required("train_id")
    check_plugin_name(plugin)
    tid = _known_id(raw_id)
    try:
        cache = _dm().run_cache(tid)
    except TrainJobNotExistError:
        raise TrainJobNotExistError(IN_CACHE) from None
    return train_jobs.single_job(tid, plugin, cache.tags(plugin))


@bp.get(f"{P}/plugins")
def plugins_route() -> Any:
    raw_id = params.required("train_id")
    manual = params.bool_arg("manual_update", default=False)
    tag_limit = _tag_limit()
    tid = _known_id(raw_id)  # validated BEFORE anything touches the cache
    dm = _dm()
    if manual:
        dm.cache_runs([tid])
    status = dm.run_status(tid)
    body = {"plugins": plugins_dict(status.plugins), **train_jobs.tensorboard_layout(dm.run(tid), status.plugins)}
    if tag_limit is not None:
        body["plugins"], body["tag_counts"] = limit_tags(body["plugins"], tag_limit)
    return body


# ------------------------------------------------------------------------------ scalars
@bp.get(f"{P}/scalar/metadata")
def scalar_metadata() -> Any:
    raw_id = params.required("train_id")
    tag = params.required("tag")
    _, cache = _cached(raw_id)
    if params.arg("format") == "csv":
        return _csv(scalars.to_csv((raw_id, tag, p) for p in scalars.points(cache, tag)))
    if any(name in request.args for name in ("start_step", "end_step", "points")):
        return _scalar_window(cache, tag)
    body = scalars.scalar_metadata(cache, tag)
    downsample = params.int_arg("downsample", default=None, minimum=1)
    if downsample is not None:
        body = {**body, "summary": scalars.scalar_summary(cache, tag, downsample)}
    return body


STEP_MIN, STEP_MAX = -(2**63), 2**63 - 1  # steps are int64 (summary files, point store): beyond is refused


def _scalar_window(cache: RunCache, tag: str) -> Any:
    """Additive: `start_step`/`end_step`/`points` (docs/api.md, "Scalar windows at full resolution")."""
    start = params.int_arg("start_step", default=None, minimum=STEP_MIN, maximum=STEP_MAX)
    end = params.int_arg("end_step", default=None, minimum=STEP_MIN, maximum=STEP_MAX)
    points = params.int_arg("points", default=scalars.WINDOW_DEFAULT_POINTS, minimum=MIN_POINTS,
                            maximum=scalars.WINDOW_MAX_POINTS)
    if start is not None and end is not None and start > end:
        raise ParamValueError("'start_step' should be less than or equal to 'end_step'.")
    return scalars.scalar_window(cache, tag, start, end, points or scalars.WINDOW_DEFAULT_POINTS)


@bp.get(f"{P}/scalars")
def scalars_route() -> Any:
    caches = []
    for raw in params.arg_list("train_id"):
        try:
            caches.append(_cached(raw))
        except MindInsightError:  # unknown or uncached runs are skipped silently (as MindInsight)
            continue
    tags = params.arg_list("tag")
    if params.arg("format") == "csv":
        rows = ((tid, tag, p) for tid, cache in caches for tag in tags if cache.has_tag(scalars.NAME, tag)
                for p in scalars.points(cache, tag))
        return _csv(scalars.to_csv(rows))
    return scalars.scalars_multi(caches, tags)


def _csv(text: str) -> Response:
    resp = Response(text, mimetype="text/csv")
    resp.headers["Content-Disposition"] = 'attachment; filename="scalars.csv"'
    return resp


# ------------------------------------------------------------------------------ images
@bp.get(f"{P}/image/metadata")
def image_metadata() -> Any:
    raw_id = params.required("train_id")
    tag = params.required("tag")
    _, cache = _cached(raw_id)
    return images.image_metadata(cache, tag)


@bp.get(f"{P}/image/single-image")
def single_image() -> Any:
    raw_id = params.required("train_id")
    tag = params.required("tag")
    step = params.to_int("step", params.required("step"))
    _, cache = _cached(raw_id)
    assert step is not None
    data, mime = images.single_image(cache, tag, step)
    return Response(data, mimetype=mime)


# ------------------------------------------------------------------------------ histograms
@bp.get(f"{P}/histograms")
def histograms_route() -> Any:
    raw_id = params.required("train_id")
    tag = params.required("tag")
    tid, cache = _cached(raw_id)
    return histograms.histograms(cache, tid, tag)


# ------------------------------------------------------------------------------ tensors
@bp.get(f"{P}/tensors")
def tensors_route() -> Any:
    train_ids = params.arg_list("train_id")
    tags = params.arg_list("tag")
    if not train_ids:
        raise ParamMissError("train_id")
    if not tags:
        raise ParamMissError("tag")
    detail = params.arg("detail")
    step, dims = params.arg("step"), params.arg("dims")
    rows: list[dict[str, Any]] = []
    for raw in train_ids:
        tid, cache = _cached(raw)
        rows += tensors.tensor_rows(cache, tid, tags, detail, step, dims)
    return {"tensors": rows}


# ------------------------------------------------------------------------------ loss landscape
def _lineage_lookup() -> LineageLookup | None:
    lookup = services().extras.get(LINEAGE_LOOKUP_KEY)
    return lookup if callable(lookup) else None


@bp.get(f"{P}/landscape/intervals")
def landscape_intervals() -> Any:
    tid = _known_id(params.required("train_id"))
    try:
        cache = _dm().run_cache(tid)
    except TrainJobNotExistError:
        raise TrainJobNotExistError(f"train_id {tid}") from None
    return landscape.intervals(cache)


@bp.get(f"{P}/landscape/landscapes")
def landscape_landscapes() -> Any:
    kind = params.arg("type") or "interval"
    wanted = params.arg("interval_id") or "0"
    lookup = _lineage_lookup()
    dm = _dm()
    items = []
    for raw in params.arg_list("train_id"):
        if not raw.startswith("./"):
            items.append(landscape.invalid_id_item(raw))
            continue
        tid = _known_id(raw)  # an unknown run fails the whole request (as MindInsight)
        try:
            cache = dm.run_cache(tid)
        except TrainJobNotExistError:
            items.append(landscape.not_cached_item(tid))
            continue
        items.append(landscape.landscape_for(cache, tid, kind, wanted, lookup))
    return {"landscapes": items}


# ------------------------------------------------------------------------------ ETag and gzip
@bp.after_request
def revalidate_and_compress(resp: Response) -> Response:
    """ETag/If-None-Match (304) on successful GETs, then gzip for clients that accept it (not for images and
    audio: they are compressed already). Also used by routes_tensorboard."""
    if request.method != "GET" or resp.status_code != 200 or resp.direct_passthrough:
        return resp
    body = resp.get_data()
    etag = hashlib.blake2b(body, digest_size=12).hexdigest()
    resp.set_etag(etag)
    if request.if_none_match and request.if_none_match.contains(etag):
        not_modified = Response(status=304)
        not_modified.set_etag(etag)
        return not_modified
    accepts_gzip = "gzip" in request.environ.get("HTTP_ACCEPT_ENCODING", "").lower()
    present = {name.lower() for name in resp.headers.keys()}  # noqa: SIM118 - not werkzeug's `in` (security.py)
    if "vary" in present:
        resp.vary.add("Accept-Encoding")
    else:
        resp.headers["Vary"] = "Accept-Encoding"
    if accepts_gzip and len(body) >= GZIP_MIN_BYTES and "content-encoding" not in present \
            and not (resp.mimetype or "").startswith(("image/", "audio/")):
        resp.set_data(gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0))
        resp.headers["Content-Encoding"] = "gzip"
    return resp
